"""Agreement for the generated text: a count with its noun, "a" before a vowel, a number
with its decimal comma.

Every number followed by an Italian noun in narrations and site pages goes through `count`,
and every English count of the CLI's own lines through `plural`, so "1 carte" or "1 errors"
cannot be written by one place and fixed in another. Every decimal number of Italian text
(pages, PDFs, the Italian reports of `simulate` and `balance`) goes through `decimal`.
"""

from __future__ import annotations

from collections.abc import Iterable


def count(number: int, singular: str, plural: str) -> str:
    """ "1 carta", "2 carte", "0 carte": the noun agrees with the number."""
    return f"{number} {singular if number == 1 else plural}"


def plural(number: int, noun: str) -> str:
    """English counts for the CLI's own lines: "1 error", "2 errors", "0 warnings"."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def a(word: str) -> str:
    """The preposition "a" before `word`: "ad" before a word starting with a ("ad Anelli
    del Sigillo"), as careful Italian writes it; "a" otherwise."""
    return f"ad {word}" if word[:1].casefold() == "a" else f"a {word}"


def decimal(value: float, spec: str = "g") -> str:
    """A number as Italian writes it, with a decimal comma: 2.5 -> "2,5". `spec` is Python's
    format: "g" drops a ".0", ".1f" keeps one decimal, "+.1f" adds the sign."""
    return format(value, spec).replace(".", ",")


def decimals(values: Iterable[object], most: int = 2) -> int:
    """The decimals a column of figures is written with: as many as its most precise float
    shows, at most `most` (0.7 beside 1.25: two, "0,70" and "1,25"), so that its figures
    line up on the comma. Integers and text count for none."""
    shown = [repr(v).partition(".")[2] for v in values if isinstance(v, float)]
    return min(most, max((len(d.rstrip("0")) for d in shown), default=0))
