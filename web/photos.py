"""Photos of throws: checked and downscaled with Pillow, read by vision/ in a worker pool.

The reader runs on a small thread pool, so a slow read occupies a worker, never the request threads of other
devices; the uploading request waits for it only up to READ_TIMEOUT. The reader gets the original bytes (best
accuracy); its boxes are then scaled to the stored, downscaled photo so a page can draw them on what it shows.
"""

from __future__ import annotations

import dataclasses
import io
import math
import threading
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from PIL import Image, ImageOps, UnidentifiedImageError

from companion.core import rules_for
from companion.errors import N_, BecherError, Message

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


# Photo formats of phones, cameras and screenshots that the dice reader opens too (vision/decode.py). Pillow opens
# many more (EPS would run Ghostscript, PSD, ICO, GIF, TIFF with its dozen codecs...); none of them is a photo of
# dice, and each extra decoder is more attack surface for any device on the network. Refused from the header.
FORMATS = ("JPEG", "PNG", "WEBP", "BMP")  # JPEG includes MPO (multi-picture JPEG of phones)
# Phones take 12-50 MP photos; decoding an image costs 3-4 bytes a pixel.
MAX_PIXELS = 64_000_000
# Images decoded at once, and their pixels: an 8000x8000 PNG takes 256 MB while it is decoded, so two of them
# decode one after the other while several phone JPEGs (decoded reduced, a few MP each) go side by side.
DECODE_SLOTS = 2
DECODE_PIXELS = 72_000_000
DECODE_WAIT_S = 15.0
# Above this many pixels a photo that cannot be decoded reduced (PNG, WebP, BMP) is read by the dice reader from the
# downscaled picture made here, instead of being decoded whole a second time by the reader.
READ_WHOLE_PIXELS = 16_000_000


class DecodeBusy(Exception):
    """Photos are being decoded and this one waited DECODE_WAIT_S for its turn (answered 503 busy)."""


class DecodeSlots:
    """At most ``slots`` images decoded at once and at most ``pixels`` pixels among them (one image larger than
    that decodes alone). A request waits its turn up to ``wait_s`` seconds, so memory stays bounded whatever
    arrives at once: a queue, not a pile."""

    def __init__(self, slots: int = DECODE_SLOTS, pixels: int = DECODE_PIXELS, wait_s: float = DECODE_WAIT_S) -> None:
        self.slots = max(1, slots)
        self.pixels = max(1, pixels)
        self.wait_s = wait_s
        self._cond = threading.Condition()
        self._active = 0
        self._used = 0
        self.peak_active = 0  # for tests and benchmarks: the most decodes that ever ran at once

    @contextmanager
    def hold(self, pixels: int) -> Iterator[None]:
        with self._cond:
            fits = lambda: self._active == 0 or (  # noqa: E731
                self._active < self.slots and self._used + pixels <= self.pixels
            )
            if not self._cond.wait_for(fits, timeout=self.wait_s):
                raise DecodeBusy(f"{self._active} photos are being decoded")
            self._active += 1
            self._used += pixels
            self.peak_active = max(self.peak_active, self._active)
        try:
            yield
        finally:
            with self._cond:
                self._active -= 1
                self._used -= pixels
                self._cond.notify_all()


SLOTS = DecodeSlots()


@dataclass(frozen=True)
class Prepared:
    jpeg: bytes
    width: int
    height: int
    for_reader: Image.Image | None = None  # the downscaled picture, when the reader should read it (see above)
    decoded: tuple[int, int] = (0, 0)  # the size actually decoded (smaller than the image's for JPEG)


def prepare(data: bytes, max_side: int, slots: DecodeSlots | None = None) -> Prepared:
    """Open, orient (EXIF), downscale and re-encode as JPEG; refuse what is not an image or too many pixels.

    The format and size are checked from the header before any pixel is decoded, so a file declaring a huge image
    costs nothing; JPEGs are decoded at a reduced scale (draft) close to the stored size, which keeps large photos
    fast and small in memory; and decoding waits for a slot (``DecodeSlots``), so many large photos at once are
    decoded in turn instead of all together.
    """
    if not data:
        raise NotAnImage("The upload is empty; take a photo of the dice or choose an image file.")
    slots = slots or SLOTS
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
                fit = min(1.0, max_side / max(width, height, 1))  # the stored size; JPEG's draft keeps at least it
                img.draft(None, (max(1, math.ceil(width * fit)), max(1, math.ceil(height * fit))))
                decoded = img.size
                with slots.hold(decoded[0] * decoded[1]):
                    img.load()
                    small = img if img.mode in ("RGB", "L") else img.convert("RGB")
                    small.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)  # reduces first, then filters
                    small.info = img.info
                oriented = ImageOps.exif_transpose(small)
    except (TooManyPixels, DecodeBusy):
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
    out = io.BytesIO()
    oriented.save(out, "JPEG", quality=85, optimize=True)
    for_reader = oriented if decoded[0] * decoded[1] > READ_WHOLE_PIXELS else None
    return Prepared(out.getvalue(), oriented.width, oriented.height, for_reader, decoded)


def expected_count(state: JSON) -> tuple[int | None, int | None]:
    """How many dice a photo for the game's next throw shows: (dice thrown, dice on the table in all).

    The first from the game's options where it is known: the throw's ``dice_count`` (five, three on the board, one
    in a roll-off). In a rethrow the server does not know which dice the player keeps (the device says, ``?count=``),
    so only the second is known then: the photo may show the kept dice too. (None, None) where no option asks for
    dice or they disagree.
    """
    try:
        rules = rules_for(str(state["game"]))
    except (KeyError, BecherError):
        return None, None
    fields = {cls.kind: {f.name: f for f in dataclasses.fields(cls)} for cls in rules.actions}
    turn = (state.get("view") or {}).get("turn") or {}
    counts: set[int] = set()
    rethrow = False
    for opt in state.get("options") or []:
        names = fields.get(str(opt.get("action")), {})
        given = opt.get("fields") if isinstance(opt.get("fields"), dict) else {}
        dice = names.get("dice")
        if dice is None or "dice" in given or opt.get("dice") is not None:
            continue
        asked = dice.default is dataclasses.MISSING and dice.default_factory is dataclasses.MISSING
        if not (asked or "dice" in (opt.get("needs") or ())):
            continue
        counts.add(int(opt.get("dice_count") or 5))
        rethrow |= "held" in names and isinstance(turn, dict) and int(turn.get("throws") or 0) > 0
    if len(counts) != 1:
        return None, None
    (count,) = counts
    return (None, count) if rethrow else (count, None)


def read_image(data: bytes | Image.Image, kind: str, memory: Any = None, count: int | None = None) -> JSON:
    """Run the dice reader (imported here, on the worker, so the server starts without vision's models) on the
    upload's bytes, or on a downscaled picture of a large image that the reader could only decode whole.

    The reading comes with ``dropped``, the candidates the reader did not report, for ``propose``. ``memory``: the
    game's memory of its dice (vision.memory, web/lessons.py), None for the bundled reader alone; ``count``: the
    dice thrown, where the game knows it (the reader looks harder at a photo of fewer).
    """
    from vision.reader import get_reader
    from vision.reading import ImageError

    try:
        if isinstance(data, Image.Image):
            import numpy as np

            bgr = np.ascontiguousarray(np.asarray(data.convert("RGB"))[:, :, ::-1])
            reading = get_reader().read_array(bgr, kind, memory, count)
        else:
            reading = get_reader().read_bytes(data, kind, memory, count)
    except ImageError as exc:
        raise NotAnImage(str(exc)) from None
    result: JSON = reading.to_json()
    result["dropped"] = [d.to_json() for d in reading.dropped]
    return result


def propose(reading: JSON, count: int | None, on_table: int | None = None) -> JSON:
    """The reading as the server proposes it for a throw of ``count`` dice (``on_table`` in play, where kept dice may
    be in the photo too): that many dice where it can, saying what it assumed (vision/count.py). Without a count, the
    reading as read. The dropped candidates are the reader's working, never stored."""
    from vision.count import fit_count
    from vision.reading import Reading

    if count is None:
        return {k: v for k, v in reading.items() if k != "dropped"}
    fitted: JSON = fit_count(Reading.from_json(reading), count, on_table).to_json()
    return fitted


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

    def scaled(dice: list[JSON]) -> list[JSON]:
        out = []
        for die in dice:
            x0, y0, x1, y1 = die["box"]
            out.append({**die, "box": [round(x0 * sx), round(y0 * sy), round(x1 * sx), round(y1 * sy)]})
        return out

    more: JSON = {"extra": scaled(reading["extra"])} if "extra" in reading else {}
    if reading.get("played_side") is not None:
        more["played_side"] = round(float(reading["played_side"]) * (sx + sy) / 2, 1)
    return {**reading, "dice": scaled(reading["dice"]), **more, "width": width, "height": height}


class ReadersBusy(Exception):
    """More reads wait than the queue takes (a reader stuck or far too slow): the photo is kept, not read."""


SHUTDOWN_WAIT_S = 10.0  # how long a closing server waits for the reads running on its workers


class Readers:
    """The worker pool that runs reads, so they never occupy more than ``workers`` threads or any request thread.

    At most ``queue`` reads wait or run at once: each holds its upload's bytes (up to 20 MB), so a stuck reader must
    not let them pile up without end.
    """

    def __init__(self, workers: int, queue: int = 8) -> None:
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="becher-read")
        self._limit = max(1, queue)
        self._lock = threading.Lock()
        self._futures: set[Future[Any]] = set()  # waiting or running: what the queue holds, and what a close awaits

    def run(self, job: Callable[[], T]) -> Future[T]:
        with self._lock:
            if len(self._futures) >= self._limit:
                raise ReadersBusy(f"{len(self._futures)} photos are waiting for the dice reader")
            future = self._pool.submit(job)  # RuntimeError once shut down
            self._futures.add(future)
        future.add_done_callback(self._done)
        return future

    def _done(self, future: Future[Any]) -> None:
        with self._lock:
            self._futures.discard(future)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._futures)

    def shutdown(self, timeout: float = SHUTDOWN_WAIT_S) -> None:
        """Drop the reads still waiting and let the running ones end (up to ``timeout``) before the store that
        they read from is closed: a job still querying a connection closed under it crashes the process."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            running = list(self._futures)
        wait(running, timeout=timeout)
