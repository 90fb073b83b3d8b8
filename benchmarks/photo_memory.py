"""The server's memory over many large photo uploads: the resident set of `becher serve` as 12-MP JPEGs arrive.

Starts `becher serve` (temporary data folder, loopback), creates a game and uploads --uploads 4000x3000 JPEGs (a
phone's 12 MP, ~3 MB each, a few different ones in turn), --at-once at a time, each read by the dice reader. Prints
the server's RSS (from /proc; Linux only) before and every --every uploads, then the growth over the last half.

    python benchmarks/photo_memory.py [--uploads 1000] [--at-once 2] [--every 50]

Aim (issue 55): under 350 MB after 1,000 uploads, flat over the last half.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.hostile import Served

HEADERS = {"X-Becher": "1", "Content-Type": "image/jpeg"}


def phone_photos(count: int = 4) -> list[bytes]:
    """``count`` different 4000x3000 JPEGs: a green felt with grain and five light dice with pips."""
    import numpy as np
    from PIL import Image, ImageDraw

    out = []
    for seed in range(count):
        rng = np.random.default_rng(seed)
        base = np.empty((3000, 4000, 3), np.uint8)
        base[...] = (40 + 10 * seed, 90, 50)
        base += rng.integers(0, 24, size=base.shape, dtype=np.uint8)  # grain: a phone's JPEG is megabytes
        img = Image.fromarray(base)
        draw = ImageDraw.Draw(img)
        for i in range(5):
            x, y, s = 700 + i * 560 + 40 * seed, 1200 + 90 * ((i + seed) % 3), 380
            draw.rounded_rectangle((x, y, x + s, y + s), radius=50, fill=(238, 236, 228))
            for k in range(1 + (i + seed) % 6):
                cx, cy = x + 80 + (k % 3) * 110, y + 90 + (k // 3) * 180
                draw.ellipse((cx - 35, cy - 35, cx + 35, cy + 35), fill=(20, 20, 20))
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=90)
        out.append(buf.getvalue())
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=1000)
    parser.add_argument("--at-once", type=int, default=2)
    parser.add_argument("--every", type=int, default=50)
    args = parser.parse_args()
    photos = phone_photos()
    print(f"photos: 4000x3000 JPEG, {min(map(len, photos)) / 1e6:.1f}-{max(map(len, photos)) / 1e6:.1f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        server = Served(tmp)
        try:
            conn = server.connection()
            body = json.dumps({"game": "bone", "players": ["A", "B"]})
            conn.request("POST", "/api/games", body=body, headers={"X-Becher": "1", "Content-Type": "application/json"})
            game = json.loads(conn.getresponse().read())["game"]["id"]
            conn.close()
            curve: list[tuple[int, float]] = [(0, server.rss_mb())]
            print(f"uploads {0:>5}  RSS MB {curve[0][1]:7.1f}", flush=True)
            lock = threading.Lock()
            done = [0]
            statuses: dict[int, int] = {}
            started = time.monotonic()

            def sender(k: int) -> None:
                c = server.connection(180)
                n = k
                while True:
                    with lock:
                        if done[0] + 0 >= args.uploads or n >= args.uploads:
                            return
                    c.request("POST", f"/api/games/{game}/photos", body=photos[n % len(photos)], headers=HEADERS)
                    r = c.getresponse()
                    r.read()
                    with lock:
                        statuses[r.status] = statuses.get(r.status, 0) + 1
                        done[0] += 1
                        count = done[0]
                    if count % args.every == 0:
                        curve.append((count, server.rss_mb()))
                        print(
                            f"uploads {count:>5}  RSS MB {curve[-1][1]:7.1f}  ({time.monotonic() - started:.0f} s)",
                            flush=True,
                        )
                    n += args.at_once

            threads = [threading.Thread(target=sender, args=(k,)) for k in range(args.at_once)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            half = [mb for n, mb in curve if n >= args.uploads // 2]
            print(f"answers: {statuses}")
            print(
                f"RSS MB: before {curve[0][1]:.0f}, peak {max(mb for _, mb in curve):.0f}, after {curve[-1][1]:.0f}; "
                f"over the last half {min(half):.0f}-{max(half):.0f} (change {half[-1] - half[0]:+.0f})"
            )
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
