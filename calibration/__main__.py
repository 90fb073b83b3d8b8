"""Calibration tools: ``python -m calibration mat|check|list|delete``.

- ``mat [--paper a4|letter] [-o FILE]``: write the printable mat as PDF (both papers when no paper is given).
- ``check IMAGE [--save NAME] [--camera SRC]``: find the mat in a photo from the camera, print the fit as JSON,
  and save it as a profile in the data folder when ``--save`` names one.
- ``list`` / ``delete NAME``: the saved profiles.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2

from calibration.mat import PAPERS, write_pdf
from calibration.profile import Profile, ProfileError, delete_profile, list_profiles, save_profile
from calibration.rectify import detect_markers, fit_mat


def _fail(message: str) -> int:
    print(json.dumps({"ok": False, "error": message}), file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m calibration", description="Becher calibration tools.")
    parser.add_argument("--data", default=None, help="data folder (default: the user's Becher data folder)")
    sub = parser.add_subparsers(dest="command", required=True)
    mat = sub.add_parser("mat", help="write the printable mat as PDF")
    mat.add_argument("--paper", choices=sorted(PAPERS), default=None)
    mat.add_argument("-o", "--output", default=None, help="file (one paper) or folder (both)")
    check = sub.add_parser("check", help="find the mat in a camera image")
    check.add_argument("image")
    check.add_argument("--save", metavar="NAME", default=None)
    check.add_argument("--camera", default="")
    sub.add_parser("list", help="list saved camera profiles")
    delete = sub.add_parser("delete", help="delete a saved camera profile")
    delete.add_argument("name")
    args = parser.parse_args(argv)

    if args.command == "mat":
        papers = [args.paper] if args.paper else sorted(PAPERS)
        out = Path(args.output) if args.output else Path(".")
        for paper in papers:
            target = out if (args.paper and args.output and not out.is_dir()) else out / f"becher-mat-{paper}.pdf"
            print(write_pdf(target, paper))
        return 0
    if args.command == "check":
        image = cv2.imread(args.image, cv2.IMREAD_COLOR)
        if image is None:
            return _fail(f"Cannot read {args.image} as an image.")
        fit = fit_mat(detect_markers(image))
        if fit is None:
            return _fail("No mat found: at least two of its markers must be in view.")
        report = {
            "paper": fit.layout.paper,
            "markers": list(fit.seen),
            "expected": fit.expected,
            "error_mm": round(fit.error_mm, 3),
        }
        if args.save:
            try:
                profile = Profile.from_fit(args.save, fit, args.camera, (image.shape[1], image.shape[0]))
                report["saved"] = str(save_profile(profile, args.data))
            except ProfileError as exc:
                return _fail(str(exc))
        print(json.dumps(report))
        return 0
    if args.command == "list":
        for profile in list_profiles(args.data):
            print(json.dumps(profile.to_json()))
        return 0
    try:
        delete_profile(args.name, args.data)
    except ProfileError as exc:
        return _fail(str(exc))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
