"""Numbers from outside Becher (JSON bodies, imported logs, query strings, headers), read in one place with a range.

Python's ints have no size: a count of 10**30 reaches SQLite (OverflowError), 5,000 digits pass ``str.isdigit`` but
not ``int()`` (ValueError, Python's limit on digits), and either would answer 500, or be echoed back in a message a
page long. Every JSON text from a client is parsed with ``loads``, which refuses any number outside JSON's safe
integers (what every browser reads exactly; no count, seat, die or revision comes near) and any float that is not
finite; every number in a query string or header is read with ``whole_text``: ASCII digits only, with a range.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

LARGEST = 2**53 - 1  # JSON's safe integers (Number.MAX_SAFE_INTEGER): 9007199254740991
DIGITS = len(str(LARGEST))


class TooLarge(ValueError):
    """A number outside the safe range in JSON text (the caller says where: the body, or a line of a log)."""


def _int(text: str) -> int:
    digits = text[1:] if text.startswith("-") else text
    if len(digits) > DIGITS:  # refused before int() ever sees thousands of digits
        raise TooLarge(text[:24])
    value = int(text)
    if abs(value) > LARGEST:
        raise TooLarge(text)
    return value


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or abs(value) > LARGEST:  # 1e999 reads as infinity, which JSON cannot write back
        raise TooLarge(text[:24])
    return value


def _constant(name: str) -> Any:
    """NaN and Infinity are not JSON (Python reads them); stored, they would make exported logs unreadable."""
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=_constant)
_PLAIN = json.JSONDecoder(parse_constant=_constant)
# Text without a run of 16 digits or a three-digit exponent holds no number out of range: read by the C parser alone
# (an import of 20,000 lines holds 100,000 numbers). Digits in strings only send a text the careful way.
_MAYBE_LARGE = re.compile(r"\d{16}|[eE][+-]?\d{3}")


def loads(text: str | bytes) -> Any:
    """``json.loads`` for text from outside: TooLarge for a number out of range, ValueError for what is not JSON."""
    if isinstance(text, (bytes, bytearray)):  # as json.loads reads bytes
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    elif text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return (_DECODER if _MAYBE_LARGE.search(text) else _PLAIN).decode(text)


def whole(value: object, minimum: int = 0, maximum: int = LARGEST) -> int | None:
    """``value`` as a whole number within [minimum, maximum], or None for anything else (the caller words it)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if minimum <= value <= maximum else None


def whole_text(text: str | None, minimum: int = 0, maximum: int = LARGEST) -> int | None:
    """A whole number written in a query string or header (ASCII digits only: no sign, space, '²' or '１'), within
    [minimum, maximum]; None for anything else."""
    if text is None or not text.isascii() or not text.isdigit() or len(text.lstrip("0")) > DIGITS:
        return None
    return whole(int(text), minimum, maximum)


def seconds_text(text: str | None) -> float | None:
    """A time in seconds from a header (``X-Frame-Time``): a finite number from 0 to LARGEST; None otherwise."""
    if text is None or not text.isascii() or len(text) > 64:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and 0 <= value <= LARGEST else None


class _Huge:
    """Stands for a number out of range while ``field_too_large`` looks for where it is."""


def field_too_large(text: str | bytes) -> str | None:
    """The name of the field holding the first number out of range in JSON ``text`` already refused by ``loads``
    (the innermost object key above it), so the refusal can name it; None where no key is above it."""
    huge = _Huge()

    def number(parse: Any) -> Any:
        def read(token: str) -> Any:
            try:
                return parse(token)
            except TooLarge:
                return huge

        return read

    try:
        data = json.loads(text, parse_int=number(_int), parse_float=number(_float), parse_constant=_constant)
    except (ValueError, RecursionError):
        return None
    stack: list[tuple[Any, str | None]] = [(data, None)]
    while stack:
        item, key = stack.pop()
        if item is huge:
            return key
        if isinstance(item, dict):
            stack.extend((v, str(k)) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((v, key) for v in reversed(item))
    return None


def wholes_text(text: str | None, minimum: int = 0, maximum: int = LARGEST) -> list[int] | None:
    """Whole numbers written in a query string, separated by commas or spaces (``1,2 3``), each as ``whole_text``
    reads one, each kept once in the order first written (a list repeated 13,000 times is one id); None where one
    of them is no such number. The caller bounds how many may be asked."""
    out: dict[int, None] = {}
    for token in (text or "").replace(" ", ",").split(","):
        if not token:
            continue
        number = whole_text(token, minimum, maximum)
        if number is None:
            return None
        out[number] = None
    return list(out)
