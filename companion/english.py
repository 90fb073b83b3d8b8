"""English counts for the engines' sentences (outcome reasons, labels): "1 round", "2 rounds", never "1 rounds".

The pages say these things in every language through their catalogs; these sentences are the engines' own words
(the CLI, the API's ``reason``), so they must be right in English too."""

from __future__ import annotations


def count(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the noun in the number it takes: ``count(1, "point")`` is "1 point", ``count(3, "point")``
    "3 points"; ``many`` for a plural that is not ``one + "s"``."""
    return f"{n} {one if n == 1 else (many if many is not None else one + 's')}"
