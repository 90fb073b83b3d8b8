"""The server's memory under large photos (issue 55): glibc's malloc, bounded at start and trimmed after each photo.

A 12-MP upload passes through buffers of 3-40 MB (the body, Pillow's reduced decode, OpenCV's decode for the reader,
the reader's resized looks). Measured in-process on two cores (benchmarks/photo_memory.py runs the server): the
resident set grew from 135 MB to 640 MB over 40 uploads, and kept growing, though Python held none of it. glibc
serves each thread from its own malloc arena (up to 8 per core: 128 on a 16-core machine) and, once a large buffer
has been freed, raises its mmap threshold up to 32 MB, so later buffers of that size come from an arena's heap,
where freed memory stays with the process, fragmented across arenas. With two arenas and a fixed 1 MB threshold
(every large buffer mapped, and unmapped when freed) the same run stays at 184 MB, flat; trimming after each photo
hands back what the arenas still hold free.

Linux with glibc only; elsewhere (musl, macOS, Windows) nothing is changed.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
from typing import Any

ARENAS = 2  # request threads hold the GIL anyway; more arenas only spread freed memory around
MMAP_THRESHOLD = 1024 * 1024  # fixed: glibc's own threshold rises to 32 MB after the first large free
_M_MMAP_THRESHOLD = -3  # glibc's malloc.h
_M_ARENA_MAX = -8


def _libc() -> Any | None:
    if not sys.platform.startswith("linux"):
        return None
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6")
        if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim"):
            return libc
    return None


_LIBC = _libc()


def bound_malloc() -> bool:
    """Two malloc arenas and a fixed mmap threshold; call at start, before the server's threads. True if applied."""
    if _LIBC is None:
        return False
    return bool(_LIBC.mallopt(_M_ARENA_MAX, ARENAS)) and bool(_LIBC.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def trim() -> None:
    """Give the memory malloc holds free back to the system (after a photo: a few ms, once per upload)."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
