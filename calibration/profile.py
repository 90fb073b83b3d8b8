"""Camera profiles: what makes one camera over one table read well, saved as JSON in the data folder.

A profile names the camera source and resolution, the homography from image pixels to mat
millimetres (None without a mat), the die size, and the zones (polygons in mat millimetres).
Without a mat the default profile applies: no zones, die size estimated from the scene.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_PROFILE_FILE",
    "Profile",
    "ProfileError",
    "data_dir",
    "default_profile",
    "delete_profile",
    "list_profiles",
    "load_profile",
    "profiles_dir",
    "save_profile",
]

DEFAULT_PROFILE_FILE = Path(__file__).with_name("default_profile.json")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$")


class ProfileError(ValueError):
    """A profile that is malformed, or a name that cannot be a profile."""


def data_dir() -> Path:
    """The user's data folder for Becher: $BECHER_DATA, else the platform's usual place (as ``web.app.data_dir``)."""
    env = os.environ.get("BECHER_DATA")
    if env:
        return Path(env)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.environ.get("APPDATA")
        return Path(base or Path.home() / "AppData" / "Local") / "Becher"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "Becher"
    return Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "becher"


def profiles_dir(base: str | Path | None = None) -> Path:
    return (Path(base) if base is not None else data_dir()) / "camera-profiles"


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name) or name.strip() != name:
        raise ProfileError(
            "A profile name is 1 to 64 letters, digits, spaces, '.', '_' or '-', starting with a letter or digit."
        )
    return name


def _polygon(raw: Any, what: str) -> tuple[tuple[float, float], ...]:
    try:
        points = tuple((float(p[0]), float(p[1])) for p in raw)
    except (TypeError, ValueError, IndexError, KeyError):
        raise ProfileError(f"Zone {what!r} must be a list of [x, y] points.") from None
    if len(points) < 3 or not all(math.isfinite(v) for p in points for v in p):
        raise ProfileError(f"Zone {what!r} needs at least three finite points.")
    return points


@dataclass(frozen=True)
class Profile:
    """One camera over one table. ``homography`` maps image pixels to mat millimetres."""

    name: str
    camera: str = ""
    resolution: tuple[int, int] | None = None
    homography: tuple[tuple[float, float, float], ...] | None = None
    paper: str | None = None
    mat_mm: tuple[float, float] | None = None
    px_per_mm: float = 4.0
    die_mm: float = 16.0
    die_px: float | None = None
    zones: dict[str, tuple[tuple[float, float], ...]] = field(default_factory=dict)
    created: str = ""

    def __post_init__(self) -> None:
        _check_name(self.name)
        if self.resolution is not None and (len(self.resolution) != 2 or min(self.resolution) <= 0):
            raise ProfileError(f"A resolution is [width, height] in pixels, not {self.resolution!r}.")
        if self.homography is not None:
            h = np.asarray(self.homography, dtype=np.float64)
            if h.shape != (3, 3) or not np.all(np.isfinite(h)) or abs(float(np.linalg.det(h))) < 1e-12:
                raise ProfileError("A homography is an invertible 3x3 matrix of finite numbers.")
            if self.mat_mm is None:
                raise ProfileError("A profile with a homography must give the mat size in millimetres.")
        if not (0 < self.px_per_mm <= 20):
            raise ProfileError(f"The top view's scale must lie in (0, 20] pixels a millimetre, not {self.px_per_mm}.")
        if not (5 <= self.die_mm <= 40):
            raise ProfileError(f"A die is 5 to 40 mm wide, not {self.die_mm}.")
        if self.die_px is not None and not (2 <= self.die_px <= 2000):
            raise ProfileError(f"A die's size in pixels must lie in [2, 2000], not {self.die_px}.")
        if self.zones and self.homography is None:
            raise ProfileError("Zones are in mat millimetres and need a homography.")

    @property
    def calibrated(self) -> bool:
        return self.homography is not None

    def homography_array(self) -> np.ndarray | None:
        return None if self.homography is None else np.asarray(self.homography, dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "camera": self.camera,
            "resolution": list(self.resolution) if self.resolution else None,
            "homography": [list(r) for r in self.homography] if self.homography is not None else None,
            "paper": self.paper,
            "mat_mm": list(self.mat_mm) if self.mat_mm else None,
            "px_per_mm": self.px_per_mm,
            "die_mm": self.die_mm,
            "die_px": self.die_px,
            "zones": {k: [list(p) for p in v] for k, v in self.zones.items()},
            "created": self.created,
        }

    @staticmethod
    def from_json(data: Any) -> Profile:
        if not isinstance(data, dict):
            raise ProfileError("A profile is a JSON object.")
        unknown = set(data) - {f for f in Profile.__dataclass_fields__}
        if unknown:
            raise ProfileError(f"Unknown profile field {sorted(unknown)[0]!r}.")
        try:
            res = data.get("resolution")
            hom = data.get("homography")
            mat = data.get("mat_mm")
            zones = data.get("zones") or {}
            if not isinstance(zones, dict):
                raise ProfileError("Zones are an object of name -> polygon.")
            return Profile(
                name=data.get("name", ""),
                camera=str(data.get("camera", "")),
                resolution=(int(res[0]), int(res[1])) if res else None,
                homography=tuple((float(r[0]), float(r[1]), float(r[2])) for r in hom) if hom else None,
                paper=data.get("paper"),
                mat_mm=(float(mat[0]), float(mat[1])) if mat else None,
                px_per_mm=float(data.get("px_per_mm", 4.0)),
                die_mm=float(data.get("die_mm", 16.0)),
                die_px=float(data["die_px"]) if data.get("die_px") is not None else None,
                zones={str(k): _polygon(v, str(k)) for k, v in zones.items()},
                created=str(data.get("created", "")),
            )
        except ProfileError:
            raise
        except (TypeError, ValueError, IndexError, KeyError) as exc:
            raise ProfileError(f"Malformed profile: {exc}.") from None

    @staticmethod
    def from_fit(name: str, fit: Any, camera: str, resolution: tuple[int, int], px_per_mm: float = 4.0) -> Profile:
        """A profile from a ``calibration.rectify.MatFit`` seen in one image."""
        h = np.asarray(fit.homography, dtype=np.float64)
        return Profile(
            name=name,
            camera=camera,
            resolution=resolution,
            homography=tuple((float(r[0]), float(r[1]), float(r[2])) for r in h),
            paper=fit.layout.paper,
            mat_mm=(fit.layout.width, fit.layout.height),
            px_per_mm=px_per_mm,
            zones=dict(fit.layout.zones),
            created=datetime.now(UTC).isoformat(timespec="seconds"),
        )


def default_profile() -> Profile:
    return Profile.from_json(json.loads(DEFAULT_PROFILE_FILE.read_text(encoding="utf-8")))


def _path(name: str, base: str | Path | None) -> Path:
    return profiles_dir(base) / f"{_check_name(name)}.json"


def save_profile(profile: Profile, base: str | Path | None = None) -> Path:
    """Write the profile (replacing one of the same name) atomically; returns its file."""
    if not profile.created:
        profile = replace(profile, created=datetime.now(UTC).isoformat(timespec="seconds"))
    path = _path(profile.name, base)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(profile.to_json(), indent=1), encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_profile(name: str, base: str | Path | None = None) -> Profile:
    path = _path(name, base)
    try:
        return Profile.from_json(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise ProfileError(f"There is no camera profile named {name!r}.") from None
    except json.JSONDecodeError:
        raise ProfileError(f"The camera profile {name!r} is not valid JSON.") from None


def list_profiles(base: str | Path | None = None) -> list[Profile]:
    """All readable profiles, by name; unreadable files are skipped rather than breaking the list."""
    folder = profiles_dir(base)
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            out.append(Profile.from_json(json.loads(path.read_text(encoding="utf-8"))))
        except (OSError, ValueError):
            continue
    return out


def delete_profile(name: str, base: str | Path | None = None) -> None:
    path = _path(name, base)
    try:
        path.unlink()
    except FileNotFoundError:
        raise ProfileError(f"There is no camera profile named {name!r}.") from None
