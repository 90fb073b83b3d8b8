"""Photographic dice scenes rendered offline by Blender (Cycles on the CPU): real light, shadows, bevels, clear and
metallic plastic, which the flat renderer only imitates.

Three steps, each reproducible from the seed (docs/synth.md, "Photographic scenes"):

1. ``python -m vision.synth.photoreal plan DIR --n N --seed S``: draws every scene here, in numpy (die sets with the
   flat renderer's designs and face textures, materials, table, lights, camera) and writes one JSON file per scene
   plus each set's face atlas.
2. ``blender -b --python vision/synth/blender_scene.py -- DIR``: builds and renders each scene, and writes where each
   die's top face landed on screen and how much of it the camera sees.
3. ``python -m vision.synth.photoreal label DIR``: turns the renders into JPEG photos and ``labels.csv`` in the
   format of ``shared/dice-photos``, which ``python -m vision.train --scenes DIR`` trains on.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.synth.faces import face_texture
from vision.synth.style import DieDesign, faces_of, sample_design

ATLAS_CELL = 256  # face texture side in the 3 x 2 atlas
SIZES = ((640, 480), (640, 480), (800, 600), (960, 720), (480, 640), (854, 480))
# colour temperatures as linear RGB of a light: candle-warm bulbs to overcast daylight
LIGHT_TINTS = ((1.0, 0.55, 0.28), (1.0, 0.7, 0.45), (1.0, 0.84, 0.68), (1.0, 0.95, 0.9), (0.9, 0.95, 1.0))
SEEN = 0.6  # share of a top face's probe points the camera must see for the die to be labelled
MIN_SEEN_AMBIGUOUS = 0.0  # a die seen more than this but less than SEEN makes its scene unusable


def srgb_to_linear(c: np.ndarray | tuple[float, ...]) -> list[float]:
    a = np.asarray(c, np.float64)
    return [float(v) for v in np.where(a <= 0.04045, a / 12.92, ((a + 0.055) / 1.055) ** 2.4)]


def _bgr_linear(c: tuple[int, int, int]) -> list[float]:
    return srgb_to_linear((c[2] / 255, c[1] / 255, c[0] / 255))


def top_rotation(rank: int) -> np.ndarray:
    """The rotation that turns the cube of ``blender_scene.FACES`` so that ``rank`` faces up."""
    c, s = 0.0, 1.0

    def rx(sign: float) -> np.ndarray:
        return np.array([[1, 0, 0], [0, c, -sign * s], [0, sign * s, c]], np.float64)

    def ry(sign: float) -> np.ndarray:
        return np.array([[c, 0, sign * s], [0, 1, 0], [-sign * s, 0, c]], np.float64)

    return {
        1: np.eye(3),
        6: np.diag([1.0, -1.0, -1.0]),
        2: ry(-1),
        5: ry(1),
        3: rx(1),
        4: rx(-1),
    }[rank]


FACE_NORMALS = {1: (0, 0, 1), 6: (0, 0, -1), 2: (1, 0, 0), 5: (-1, 0, 0), 3: (0, 1, 0), 4: (0, -1, 0)}


def die_matrix(rank: int, yaw: float, x: float, y: float, side: float) -> np.ndarray:
    """4 x 4 world matrix of a die resting on the table (z = 0) with ``rank`` on top, turned ``yaw`` radians."""
    cz, sz = math.cos(yaw), math.sin(yaw)
    m = np.eye(4)
    m[:3, :3] = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]) @ top_rotation(rank)
    m[:3, 3] = (x, y, side / 2)
    return m


def write_atlas(design: DieDesign, folder: Path, name: str) -> tuple[str, str]:
    """The set's six faces side by side (ranks 1-3 above 4-6) and their ink mask, as PNG files."""
    flat = replace(design, corner=0.0, bevel=0.0)  # the 3D bevel rounds and shades the edges, not the texture
    T = ATLAS_CELL
    rgb = np.zeros((2 * T, 3 * T, 3), np.uint8)
    ink = np.zeros((2 * T, 3 * T), np.uint8)
    for rank in range(1, 7):
        tex, mask = face_texture(flat, rank, T)
        r, c = divmod(rank - 1, 3)
        rgb[r * T : (r + 1) * T, c * T : (c + 1) * T] = np.clip(tex[..., :3] * 255, 0, 255).astype(np.uint8)
        ink[r * T : (r + 1) * T, c * T : (c + 1) * T] = np.clip(mask * 255, 0, 255).astype(np.uint8)
    cv2.imwrite(str(folder / f"{name}.png"), rgb)
    cv2.imwrite(str(folder / f"{name}-ink.png"), ink)
    return f"{name}.png", f"{name}-ink.png"


def material(design: DieDesign, rng: np.random.Generator) -> dict[str, float]:
    """Principled-BSDF settings for the set's body kind (paint stays opaque: the ink mask gates them)."""
    kind = design.body_kind
    m = {
        "roughness": float(rng.uniform(0.12, 0.5)),
        "clearcoat": float(rng.uniform(0.0, 0.6)),
        "specular": float(rng.uniform(0.3, 0.6)),
        "transmission": 0.0,
        "metallic": 0.0,
        "subsurface": float(rng.uniform(0.0, 0.04)),
        "sparkle": 0.0,
        "sparkle_scale": 2000.0,
        "engraved": float(rng.uniform(0.5, 1.0)) if design.engraved else 0.0,
    }
    if design.opacity < 1 or kind == "translucent":
        m["transmission"] = float(min(0.95, (1 - design.opacity) * rng.uniform(1.2, 1.8)))
        m["roughness"] = float(rng.uniform(0.03, 0.25))
    if kind == "glitter":
        m["sparkle"] = float(rng.uniform(0.03, 0.12))
        m["sparkle_scale"] = float(rng.uniform(1500, 3500))
    elif kind == "pearl":
        m["subsurface"] = float(rng.uniform(0.1, 0.3))
        m["clearcoat"] = float(rng.uniform(0.5, 1.0))
    elif kind == "metallic":
        m["metallic"] = float(rng.uniform(0.8, 1.0))
        m["roughness"] = float(rng.uniform(0.1, 0.35))
    return m


def _table(rng: np.random.Generator, paper: float = 0.1, kind: str = "") -> dict[str, Any]:
    """A surface: the table, or with ``kind`` given, a tray's felt."""
    rest = (1 - paper) / 0.9  # the other kinds keep their odds among themselves
    odds = [0.3 * rest, 0.25 * rest, 0.15 * rest, paper, 0.1 * rest, 0.1 * rest]
    kind = kind or str(rng.choice(["wood", "felt", "cloth", "paper", "checker", "voronoi"], p=odds))
    hue = rng.random()
    if kind == "wood":
        base = np.array([0.55, 0.35, 0.18]) * rng.uniform(0.3, 1.6)
        c1, c2 = base, base * rng.uniform(0.45, 0.8)
    elif kind == "paper":
        c1 = np.full(3, rng.uniform(0.75, 0.95)) * (1 + rng.uniform(-0.05, 0.05, 3))
        c2 = c1 * rng.uniform(0.85, 0.97)
    else:
        sat = rng.uniform(0.1, 0.9)
        val = rng.uniform(0.08, 0.85)
        hsv = np.array([[[hue * 179, sat * 255, val * 255]]], np.uint8)
        c1 = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0] / 255.0
        c2 = c1 * rng.uniform(0.5, 0.95) if kind != "checker" else np.full(3, rng.uniform(0.6, 0.95))
    spec: dict[str, Any] = {
        "kind": kind,
        "size": 6.0,
        "color1": srgb_to_linear(np.clip(c1, 0, 1)),
        "color2": srgb_to_linear(np.clip(c2, 0, 1)),
        "ramp": sorted(float(v) for v in rng.uniform(0.2, 0.8, 2)),
        "roughness": float(rng.uniform(0.35, 0.95)),
        "specular": float(rng.uniform(0.2, 0.5)),
        "rings": bool(rng.random() < 0.3),
        "scale": float({"wood": rng.uniform(15, 60), "felt": rng.uniform(300, 900), "cloth": rng.uniform(80, 300),
                        "paper": rng.uniform(30, 150), "checker": rng.uniform(15, 60),
                        "voronoi": rng.uniform(40, 200)}[kind]),
        "detail": float(rng.uniform(2, 8)),
        "distortion": float(rng.uniform(0, 8)),
        "bump": float(rng.uniform(0, 0.4)),
        "bump_scale": float(rng.uniform(200, 1500)),
    }
    return spec


def _light(rng: np.random.Generator, target: np.ndarray, key: bool) -> dict[str, Any]:
    tint = np.array(LIGHT_TINTS[int(rng.integers(len(LIGHT_TINTS)))]) * rng.uniform(0.9, 1.1, 3)
    kind = "AREA" if key or rng.random() < 0.5 else str(rng.choice(["POINT", "SPOT", "SUN"]))
    if key and rng.random() < 0.2:
        kind = "SUN"
    height = rng.uniform(0.4, 1.6)
    off = rng.uniform(0, 1.0 if key else 1.5) * height
    ang = rng.uniform(0, 2 * math.pi)
    loc = target + np.array([off * math.cos(ang), off * math.sin(ang), height])
    d2 = float(np.sum((loc - target) ** 2))
    energy = {"AREA": rng.uniform(40, 160) * d2, "POINT": rng.uniform(20, 100) * d2, "SPOT": rng.uniform(20, 100) * d2,
              "SUN": rng.uniform(1.5, 5.0)}[kind]
    size = {"AREA": rng.uniform(0.1, 1.5), "POINT": rng.uniform(0.01, 0.2), "SPOT": rng.uniform(0.01, 0.2),
            "SUN": rng.uniform(0.005, 0.1)}[kind]
    if not key:
        energy *= rng.uniform(0.1, 0.6)
    return {"type": kind, "location": loc.tolist(), "target": target.tolist(), "energy": float(energy),
            "size": float(size), "color": [float(v) for v in np.clip(tint, 0, 1)]}


def _apart(a: tuple[float, float, float], b: tuple[float, float, float], side: float) -> bool:
    """Whether two dice (x, y, yaw) standing on the table keep apart: no axis of either square sees their shadows on
    it overlap (separating axes), with a small gap for the size spread of mixed sets."""
    half = side * 0.53
    d = np.array([b[0] - a[0], b[1] - a[1]])
    for yaw in (a[2], a[2] + math.pi / 2, b[2], b[2] + math.pi / 2):
        reach = sum(half * (abs(math.cos(y - yaw)) + abs(math.sin(y - yaw))) for y in (a[2], b[2]))
        if abs(d @ np.array([math.cos(yaw), math.sin(yaw)])) > reach:
            return True
    return False


def _place(
    rng: np.random.Generator, n: int, side: float, radius: float, push: float = 0.25
) -> list[tuple[float, float, float]]:
    """Up to ``n`` dice (x, y, yaw) in a disc, none overlapping; a share ``push`` pushed against a neighbour, as
    thrown dice come to rest."""
    out: list[tuple[float, float, float]] = []
    for _ in range(n * 60):
        if len(out) == n:
            break
        if out and rng.random() < push:  # against another die, nearly aligned
            x0, y0, yaw0 = out[int(rng.integers(len(out)))]
            a = float(yaw0 + rng.integers(4) * math.pi / 2 + rng.uniform(-0.2, 0.2))
            dist = side * rng.uniform(1.08, 1.3)
            x, y, yaw = x0 + dist * math.cos(a), y0 + dist * math.sin(a), yaw0 + rng.uniform(-0.15, 0.15)
        else:
            r = radius * math.sqrt(rng.random())
            a = float(rng.uniform(0, 2 * math.pi))
            x, y, yaw = r * math.cos(a), r * math.sin(a), rng.uniform(0, 2 * math.pi)
        if all(_apart((x, y, yaw), o, side) for o in out):
            out.append((x, y, yaw))
    return out


def _trays(rng: np.random.Generator, cx: float, cy: float, inner: float, side: float) -> list[dict[str, Any]]:
    """The tray the dice lie in and up to two beside it: hexagonal felt floors in slanted leather rims, as dice trays
    are sold. ``inner``: how far from the centre the dice reach."""
    trays: list[dict[str, Any]] = []
    main = inner + side * rng.uniform(0.8, 3)
    for k in range(1 + int(rng.integers(0, 3))):
        x, y, r = cx, cy, main
        if k:  # beside the first, never overlapping it (the circumradius is 1.155 the inradius)
            r = main * rng.uniform(0.8, 1.1)
            a, d = rng.uniform(0, 2 * math.pi), (main + r) * 1.155 * rng.uniform(1.15, 1.4) + 0.04  # + both rims
            x, y = cx + d * math.cos(a), cy + d * math.sin(a)
        felt = _table(rng, kind="felt")
        shade = rng.uniform(0.02, 0.15)
        leather = np.asarray(felt["color1"]) * shade if rng.random() < 0.5 else np.full(3, shade * 0.3)
        trays.append({
            "centre": [float(x), float(y)], "inradius": float(r), "yaw": float(rng.uniform(0, math.pi / 3)),
            "height": float(rng.uniform(0.025, 0.045)), "slope": float(rng.uniform(15, 40)), "felt": felt,
            "leather": {"color": [float(v) for v in leather], "roughness": float(rng.uniform(0.3, 0.6))},
        })
    return trays


MODES = {"table": 0xB1E7DE5, "crowd": 0xC40D, "tray": 0x7EA7}  # each mode its own random stream


def plan_scene(seed: int, folder: Path, mode: str = "table") -> dict[str, Any]:
    """Draw scene ``seed`` and write its atlases; the returned dict is what blender_scene.py builds. ``mode``:
    ``table``, dice on a table; ``crowd``, a heap of 15-45 small dice of several sets seen far and from the side;
    ``tray``, 2-25 dice in a hexagonal felt dice tray, maybe beside others (docs/synth.md)."""
    rng = np.random.default_rng([seed, MODES[mode]])
    crowd, tray = mode == "crowd", mode == "tray"
    kind = "poker" if rng.random() < {"table": 0.3, "crowd": 0.15, "tray": 0.2}[mode] else "pip"
    if crowd:
        n, n_sets = int(rng.integers(15, 46)), int(rng.integers(2, 6))
    elif tray:
        n = int(rng.choice([2, 3, 4, 5, 5, 6, 8, 10, 12, 15, 20, 25]))
        n_sets = 1 if rng.random() < 0.4 else int(rng.integers(2, 6))
    else:
        n = int(rng.choice([1, 2, 3, 4, 5, 5, 5, 6, 8, 10, 12, 15]))
        n_sets = 1 if rng.random() < 0.7 else int(rng.integers(2, 4))
    designs = []
    for _ in range(n_sets):
        d = sample_design(rng, kind, "train", "rich")
        for _ in range(3):  # mostly the bodies the flat renderer fakes worst
            if d.body_kind != "plain" or rng.random() < 0.3:
                break
            d = sample_design(rng, kind, "train", "rich")
        designs.append(d)
    side = float(rng.uniform(0.016, 0.025) if kind == "poker" else rng.uniform(0.012, 0.022))
    w, h = SIZES[int(rng.integers(len(SIZES)))]
    if crowd:  # die side on screen
        px = float(rng.uniform(10, 32))
    elif tray:
        px = float(rng.uniform(16, 45))
    else:
        px = float(rng.uniform(28, 80) if rng.random() < 0.75 else rng.uniform(12, 28))
    lens = float(rng.uniform(24, 60))
    f_px = lens / 36 * w
    dist = side * f_px / px
    fit = 0.36 * min(w, h) / f_px * dist  # the disc radius the frame holds at that distance
    radius = min(fit, side * (rng.uniform(0.9, 1.8) if crowd else rng.uniform(1.2, 3.5)) * math.sqrt(n))
    spots = _place(rng, n, side, max(radius, side), push=0.5 if crowd else 0.25)
    cx, cy = (np.mean([s[0] for s in spots]), np.mean([s[1] for s in spots]))
    target = np.array([cx, cy, side / 2])
    if crowd:
        tilt = math.radians(rng.uniform(20, 60))
    elif tray:
        tilt = math.radians(rng.uniform(0, 35))
    else:
        tilt = math.radians(rng.uniform(0, 12) if rng.random() < 0.35 else rng.uniform(10, 45))
    az = rng.uniform(0, 2 * math.pi)
    cam = target + dist * np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), math.cos(tilt)])
    roll = float(rng.uniform(-15, 15) + (90 * int(rng.integers(4)) if tilt < math.radians(15) else 0))
    camera: dict[str, Any] = {"location": cam.tolist(), "target": target.tolist(), "lens_mm": lens, "roll": roll}
    if rng.random() < 0.25:
        camera.update(fstop=float(rng.uniform(1.8, 5.6)), focus=float(dist * rng.uniform(0.97, 1.03)))
    name = f"scene-{seed:06d}"
    atlases = [write_atlas(d, folder, f"{name}-set{k}") for k, d in enumerate(designs)]
    mats = [material(d, rng) for d in designs]
    dice = []
    for i, (x, y, yaw) in enumerate(spots):
        k = int(rng.integers(n_sets))
        rank = int(rng.integers(1, 7))
        dice.append({
            "index": i, "set": k, "rank": rank, "face": faces_of(kind)[rank - 1],
            "printed": designs[k].printed[rank - 1], "atlas": atlases[k][0], "ink": atlases[k][1],
            "material": mats[k], "side": side * (1 + rng.uniform(-0.02, 0.02)) if n_sets > 1 else side,
            "bevel": float(rng.uniform(0.04, 0.11)), "matrix": die_matrix(rank, yaw, x, y, side).tolist(),
        })
    table = _table(rng, paper=0.5 if crowd else 0.1)
    if tray:
        inner = max(math.hypot(x - cx, y - cy) for x, y, _ in spots) + side * 0.75
        table["trays"] = _trays(rng, float(cx), float(cy), inner, side)
    elif rng.random() < (0.1 if crowd else 0.3):  # a tray: a rim around the dice, of the table's stuff
        r = radius + side * rng.uniform(2, 5)
        hgt, th = rng.uniform(0.02, 0.05), 0.015
        table["walls"] = [
            {"location": [cx + sx * (r + th / 2), cy + sy * (r + th / 2), hgt / 2],
             "scale": [th if sx else 2 * r + 2 * th, th if sy else 2 * r + 2 * th, hgt]}
            for sx, sy in ((1, 0), (-1, 0), (0, 1), (0, -1))
        ]
    lights = [_light(rng, target, True)] + [_light(rng, target, False) for _ in range(int(rng.integers(0, 3)))]
    world = np.clip(np.array(LIGHT_TINTS[int(rng.integers(len(LIGHT_TINTS)))]) * rng.uniform(0.8, 1.0), 0, 1)
    spec = {
        "seed": seed, "kind": kind, "size": [w, h], "samples": int(rng.choice([24, 32, 48])),
        "look": str(rng.choice(["None", "Medium Contrast", "Medium High Contrast", "Medium Low Contrast"])),
        "exposure": float(rng.uniform(-0.5, 0.5)),
        "world": {"color": world.tolist(), "strength": float(rng.uniform(0.05, 0.8))},
        "table": table, "lights": lights, "camera": camera, "dice": dice,
    }
    (folder / f"{name}.json").write_text(json.dumps(spec))
    return spec


def label_scene(folder: Path, name: str) -> dict[str, str] | None:
    """The rendered scene as a photo (JPEG, auto-exposed as a phone would, some noise) and its labels.csv row;
    None when a die is too hidden to say whether it is there."""
    spec = json.loads((folder / f"{name}.json").read_text())
    got = json.loads((folder / f"{name}.dice.json").read_text())
    img = cv2.imread(str(folder / f"{name}.png"), cv2.IMREAD_COLOR)
    if img is None:
        raise FileNotFoundError(folder / f"{name}.png")
    rng = np.random.default_rng([spec["seed"], 0x1ABE1])
    w, h = spec["size"]
    boxes, printed = [], []
    for d, g in zip(spec["dice"], got, strict=True):
        if g["rank"] != d["rank"]:
            raise ValueError(f"{name}: die {d['index']} shows {g['rank']} on top, planned {d['rank']}.")
        cx, cy = g["centre"]
        inside = 0 <= cx < w and 0 <= cy < h
        if inside and MIN_SEEN_AMBIGUOUS < g["seen"] < SEEN:
            return None
        if not inside or g["seen"] < SEEN:
            continue
        pts = np.asarray(g["corners"], np.float64)
        half = float(max(np.ptp(pts[:, 0]), np.ptp(pts[:, 1]))) / 2
        boxes.append(f"{cx - half:.1f},{cy - half:.1f},{cx + half:.1f},{cy + half:.1f}:{d['face']}")
        printed.append(d["printed"])
    # the exposure a phone picks: the frame's middle grey drawn around 0.45, then sensor noise and JPEG
    f = img.astype(np.float32) / 255.0
    gain = rng.uniform(0.35, 0.55) / max(float(np.median(f)), 0.02)
    f = np.clip(f * min(gain, 3.0), 0, 1) * 255 + rng.normal(0, rng.uniform(0.5, 3.0), f.shape)
    out = np.clip(f, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 96))])
    assert ok
    (folder / f"{name}.jpg").write_bytes(buf.tobytes())
    faces = faces_of(spec["kind"])
    values = sorted((b.rsplit(":", 1)[1] for b in boxes), key=faces.index)
    return {"image": f"{name}.jpg", "split": "train", "kind": spec["kind"], "values": " ".join(values),
            "boxes": ";".join(boxes), "printed": " ".join(printed)}


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.synth.photoreal")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan", help="draw N scenes into DIR")
    p.add_argument("dir", type=Path)
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--seed", type=int, default=0, help="the first scene's seed")
    p.add_argument("--mode", choices=list(MODES), default="table", help="dice on a table, in a crowd, or in trays")
    q = sub.add_parser("label", help="rendered scenes in DIR to JPEG photos and labels.csv")
    q.add_argument("dir", type=Path)
    args = ap.parse_args()
    if args.cmd == "plan":
        args.dir.mkdir(parents=True, exist_ok=True)
        todo = [s for s in range(args.seed, args.seed + args.n) if not (args.dir / f"scene-{s:06d}.dice.json").exists()]
        for s in todo:  # a scene already rendered keeps the plan it was rendered from
            plan_scene(s, args.dir, mode=args.mode)
        print(f"planned {len(todo)} scenes in {args.dir} ({args.n - len(todo)} already rendered, left as they are)")
        return
    rows, dropped = [], 0
    for js in sorted(args.dir.glob("scene-*.dice.json")):
        row = label_scene(args.dir, js.name.removesuffix(".dice.json"))
        if row is None:
            dropped += 1
        else:
            rows.append(row)
    with open(args.dir / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        wr = csv.DictWriter(fh, fieldnames=["image", "split", "kind", "values", "boxes", "printed"])
        wr.writeheader()
        wr.writerows(rows)
    print(f"{len(rows)} scenes labelled, {sum(len(r['boxes'].split(';')) for r in rows if r['boxes'])} dice, "
          f"{dropped} left out (a die half hidden)")


if __name__ == "__main__":
    main()
