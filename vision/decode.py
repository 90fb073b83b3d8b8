"""Image bytes to a BGR array the reader can use, with EXIF orientation applied.

A phone photo of 12 megapixels and more is decoded at reduced size by libjpeg's DCT scaling
(``IMREAD_REDUCED_COLOR_*``), which is several times faster than decoding it whole and shrinking.
The header is read first, so an enormous or malformed file is refused before any pixels are decoded.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

from vision.reading import ImageError

MAX_BYTES = 64 * 1024 * 1024
MAX_PIXELS = 120_000_000  # above this a photo is not a camera's and decoding it would cost seconds and GBs
MAX_SIDE = 30_000
FORMATS = {"JPEG", "PNG", "WEBP", "BMP", "MPO"}  # MPO: the JPEG some phones write
DEFAULT_MAX_SIDE = 1600  # enough for a 20 px die in a 12 MP photo to keep ~8 px

# EXIF orientation -> operations on the decoded (stored) pixels.
_ORIENT: dict[int, tuple[int | None, bool]] = {
    1: (None, False),
    2: (None, True),
    3: (cv2.ROTATE_180, False),
    4: (cv2.ROTATE_180, True),
    5: (cv2.ROTATE_90_CLOCKWISE, True),
    6: (cv2.ROTATE_90_CLOCKWISE, False),
    7: (cv2.ROTATE_90_COUNTERCLOCKWISE, True),
    8: (cv2.ROTATE_90_COUNTERCLOCKWISE, False),
}


@dataclass(frozen=True)
class Decoded:
    """Pixels plus how they map back to the image as stored (orientation applied): ``orig = pixel * scale``."""

    bgr: np.ndarray
    width: int  # full size of the oriented image
    height: int
    scale: float


def probe(data: bytes) -> tuple[str, int, int, int]:
    """Format, stored width and height, EXIF orientation, from the header alone."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ImageError(f"Expected image bytes, not {type(data).__name__}.")
    if len(data) == 0:
        raise ImageError("The image is empty (0 bytes).")
    if len(data) > MAX_BYTES:
        raise ImageError(f"The image file is too large ({len(data) // (1024 * 1024)} MB; at most 64 MB).")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            img = Image.open(io.BytesIO(bytes(data)))
            fmt = (img.format or "").upper()
            w, h = img.size
            try:
                orientation = int(img.getexif().get(0x0112, 1) or 1)
            except Exception:  # a broken EXIF block is no reason to refuse the pixels
                orientation = 1
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise ImageError("This is not an image the reader knows (JPEG, PNG or WebP expected).") from exc
    except Image.DecompressionBombError as exc:
        raise ImageError(f"The image is too large to read (at most {MAX_PIXELS // 1_000_000} megapixels).") from exc
    if fmt not in FORMATS:
        raise ImageError(f"Images must be JPEG, PNG or WebP, not {fmt or 'unknown'}.")
    if w <= 0 or h <= 0:
        raise ImageError("The image has no pixels.")
    if w > MAX_SIDE or h > MAX_SIDE or w * h > MAX_PIXELS:
        raise ImageError(f"The image is too large ({w}x{h}); at most {MAX_PIXELS // 1_000_000} megapixels.")
    return fmt, w, h, orientation if orientation in _ORIENT else 1


def decode(data: bytes, max_side: int = DEFAULT_MAX_SIDE) -> Decoded:
    """Decode to BGR uint8 with the long side at most about ``max_side`` (never upscaled)."""
    fmt, w, h, orientation = probe(data)
    flags = cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION
    if fmt in {"JPEG", "MPO"}:
        long_side = max(w, h)
        for factor, flag in ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4)):
            if long_side / factor >= max_side:
                flags = flag | cv2.IMREAD_IGNORE_ORIENTATION
                break
        else:
            if long_side / 2 >= max_side:
                flags = cv2.IMREAD_REDUCED_COLOR_2 | cv2.IMREAD_IGNORE_ORIENTATION
    buf = np.frombuffer(bytes(data), dtype=np.uint8)
    try:
        bgr = cv2.imdecode(buf, flags)
    except cv2.error as exc:
        raise ImageError("The image data is corrupt and cannot be decoded.") from exc
    if bgr is None or bgr.size == 0:
        raise ImageError("The image data is corrupt and cannot be decoded.")
    if bgr.ndim == 2:
        bgr = cv2.cvtColor(bgr, cv2.COLOR_GRAY2BGR)
    elif bgr.shape[2] == 4:
        bgr = cv2.cvtColor(bgr, cv2.COLOR_BGRA2BGR)
    if bgr.dtype != np.uint8:
        bgr = cv2.convertScaleAbs(bgr, alpha=255.0 / 65535.0)
    rotate, flip = _ORIENT[orientation]
    if flip:
        bgr = cv2.flip(bgr, 1)
    if rotate is not None:
        bgr = cv2.rotate(bgr, rotate)
    full_w, full_h = (h, w) if orientation >= 5 else (w, h)
    long_now = max(bgr.shape[:2])
    if long_now > max_side * 1.25:
        f = max_side / long_now
        bgr = cv2.resize(
            bgr, (max(1, round(bgr.shape[1] * f)), max(1, round(bgr.shape[0] * f))), interpolation=cv2.INTER_AREA
        )
    scale = full_w / bgr.shape[1]
    return Decoded(np.ascontiguousarray(bgr), full_w, full_h, scale)
