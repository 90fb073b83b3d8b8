"""Bytes to pixels: formats, EXIF orientation, reduced decoding of large JPEGs, and every kind of bad input."""

from __future__ import annotations

import io
import struct
import zlib

import cv2
import numpy as np
import pytest
from PIL import Image

from vision.decode import decode, probe
from vision.reading import ImageError


def _encode(img: np.ndarray, ext: str) -> bytes:
    ok, buf = cv2.imencode(ext, img)
    assert ok
    return buf.tobytes()


def _gradient(w: int, h: int) -> np.ndarray:
    x = np.linspace(0, 255, w, dtype=np.float32)[None, :].repeat(h, 0)
    y = np.linspace(0, 255, h, dtype=np.float32)[:, None].repeat(w, 1)
    return np.stack([x, y, 255 - x], axis=2).astype(np.uint8)


@pytest.mark.parametrize("ext", [".png", ".jpg", ".webp"])
def test_formats_decode_to_bgr_of_the_stored_size(ext: str) -> None:
    img = _gradient(120, 80)
    out = decode(_encode(img, ext))
    assert out.bgr.shape == (80, 120, 3) and out.bgr.dtype == np.uint8
    assert (out.width, out.height, out.scale) == (120, 80, 1.0)
    assert np.abs(out.bgr.astype(int) - img.astype(int)).mean() < 6


def test_exif_orientation_is_applied() -> None:
    img = np.zeros((60, 100, 3), np.uint8)
    img[:, :10] = (0, 0, 255)  # red stripe on the stored left edge
    pil = Image.fromarray(img[:, :, ::-1])
    exif = pil.getexif()
    exif[0x0112] = 6  # stored rotated: display turns it 90 degrees clockwise
    buf = io.BytesIO()
    pil.save(buf, "JPEG", exif=exif, quality=95)
    out = decode(buf.getvalue())
    assert (out.width, out.height) == (60, 100)
    assert out.bgr.shape[:2] == (100, 60)
    # the stored left edge is now on top
    assert out.bgr[:8, :, 2].mean() > 200 and out.bgr[-20:, :, 2].mean() < 60


def test_large_jpeg_is_decoded_reduced_and_maps_back() -> None:
    img = cv2.resize(_gradient(400, 300), (4000, 3000))
    out = decode(_encode(img, ".jpg"), max_side=1000)
    assert (out.width, out.height) == (4000, 3000)
    assert max(out.bgr.shape[:2]) <= 1250
    assert out.scale == pytest.approx(4000 / out.bgr.shape[1])


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png_header(w: int, h: int) -> bytes:
    """A PNG that claims w x h pixels but holds almost none: what a decompression bomb looks like."""
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\0" * 64)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


_NOISE_JPEG = _encode(np.random.default_rng(1).integers(0, 256, (200, 200, 3), dtype=np.uint8), ".jpg")


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "empty"),
        (b"hello, these are not pixels\n" * 10, "not an image"),
        (_png_header(100_000, 100_000), "too large"),
        (_NOISE_JPEG[: len(_NOISE_JPEG) // 2], "corrupt"),
        (_NOISE_JPEG[:120], "not an image"),
        (b"\0" * 1000, "not an image"),
        (b"GIF89a" + b"\0" * 20, ""),
    ],
)
def test_bad_input_is_a_clear_image_error(data: bytes, words: str) -> None:
    with pytest.raises(ImageError) as err:
        decode(data)
    assert words in str(err.value).lower()


def test_non_bytes_are_refused() -> None:
    with pytest.raises(ImageError):
        probe("picture.jpg")  # type: ignore[arg-type]
