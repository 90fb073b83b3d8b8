"""Photos of throws: checked and downscaled with Pillow, read by vision/ in a worker pool.

The reader runs on a small thread pool, so a slow read occupies a worker, never the request threads of other
devices; the uploading request waits for it only up to READ_TIMEOUT. The reader gets the original bytes (best
accuracy); its boxes are then scaled to the stored, downscaled photo so a page can draw them on what it shows.
"""

from __future__ import annotations

import io
import threading
import warnings
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from PIL import Image, ImageOps, UnidentifiedImageError

from companion.errors import N_, Message

JSON = dict[str, Any]
T = TypeVar("T")

READER_MISSING = N_("The dice reader is not installed on this server; enter the dice by hand.")
READER_BUSY = N_(
    "The dice reader has too many photos waiting; enter the dice by hand, or take the photo again later."
)
MODELS_MISSING = N_("The dice reader's model files are missing on this server; enter the dice by hand.")


class NotAnImage(ValueError):
    """The upload is not an image Pillow or the reader can open (answered 415)."""


class TooManyPixels(ValueError):
    """An image so large it could be a decompression bomb (answered 413)."""


@dataclass(frozen=True)
class Prepared:
    jpeg: bytes
    width: int
    height: int


# Photo formats of phones, cameras and screenshots. Pillow opens many more (EPS would run Ghostscript, PSD, ICO...);
# none of them is a photo of dice, and each extra decoder is more attack surface for any device on the network.
FORMATS = ("JPEG", "PNG", "WEBP", "BMP", "GIF", "TIFF")  # JPEG includes MPO (multi-picture JPEG of phones)
# Phones take 12-50 MP photos; decoding an image costs 3-4 bytes a pixel, on a request thread.
MAX_PIXELS = 64_000_000


def prepare(data: bytes, max_side: int) -> Prepared:
    """Open, orient (EXIF), downscale and re-encode as JPEG; refuse what is not an image or too many pixels.

    The size is checked before any pixel is decoded, so a file declaring a huge image costs nothing; JPEGs are
    decoded at a reduced scale (draft) close to the stored size, which keeps large photos fast and small in memory.
    """
    if not data:
        raise NotAnImage("The upload is empty; take a photo of the dice or choose an image file.")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=FORMATS) as img:
                width, height = img.size
                if width * height > MAX_PIXELS:
                    raise TooManyPixels(
                        Message(
                            "This image has {number} megapixels, more than the {number2} Becher takes; take the "
                            "photo at a lower resolution.",
                            number=format(width * height / 1e6, ".0f"),
                            number2=MAX_PIXELS // 1_000_000,
                        )
                    )
                img.draft(None, (max_side, max_side))
                img.load()
                oriented = ImageOps.exif_transpose(img)
    except TooManyPixels:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise TooManyPixels(
            Message(
                "This image has too many pixels (Becher takes up to {number} megapixels); take the photo at a lower "
                "resolution.",
                number=MAX_PIXELS // 1_000_000,
            )
        ) from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError):
        raise NotAnImage(
            "This file is not an image Becher can open; take a photo of the dice or choose a JPEG or PNG."
        ) from None
    if oriented.mode not in ("RGB", "L"):
        oriented = oriented.convert("RGB")
    oriented.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    oriented.save(out, "JPEG", quality=85, optimize=True)
    return Prepared(out.getvalue(), oriented.width, oriented.height)


def read_image(data: bytes, kind: str) -> JSON:
    """Run the dice reader (imported here, on the worker, so the server starts without vision's models)."""
    from vision.reader import get_reader
    from vision.reading import ImageError

    try:
        reading = get_reader().read_bytes(data, kind)
    except ImageError as exc:
        raise NotAnImage(str(exc)) from None
    result: JSON = reading.to_json()
    return result


def warm_up() -> bool:
    """Load the reader's models before the first photo arrives (run on the pool at server start)."""
    try:
        from vision.reader import get_reader

        get_reader()
    except Exception:  # missing reader or models: each upload then says so
        return False
    return True


def scale_reading(reading: JSON, width: int, height: int) -> JSON:
    """Boxes and size of a reading, in pixels of the stored photo instead of the original upload."""
    sx = width / reading["width"]
    sy = height / reading["height"]
    dice = []
    for die in reading["dice"]:
        x0, y0, x1, y1 = die["box"]
        dice.append({**die, "box": [round(x0 * sx), round(y0 * sy), round(x1 * sx), round(y1 * sy)]})
    return {**reading, "dice": dice, "width": width, "height": height}


class ReadersBusy(Exception):
    """More reads wait than the queue takes (a reader stuck or far too slow): the photo is kept, not read."""


class Readers:
    """The worker pool that runs reads, so they never occupy more than ``workers`` threads or any request thread.

    At most ``queue`` reads wait or run at once: each holds its upload's bytes (up to 20 MB), so a stuck reader must
    not let them pile up without end.
    """

    def __init__(self, workers: int, queue: int = 8) -> None:
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="becher-read")
        self._limit = max(1, queue)
        self._pending = 0
        self._lock = threading.Lock()

    def run(self, job: Callable[[], T]) -> Future[T]:
        with self._lock:
            if self._pending >= self._limit:
                raise ReadersBusy(f"{self._pending} photos are waiting for the dice reader")
            self._pending += 1
        try:
            future = self._pool.submit(job)
        except RuntimeError:  # shut down
            self._done()
            raise
        future.add_done_callback(lambda _: self._done())
        return future

    def _done(self) -> None:
        with self._lock:
            self._pending -= 1

    @property
    def pending(self) -> int:
        with self._lock:
            return self._pending

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
