"""Agreement for the generated text: a count with its noun, "a" before a vowel.

Every number followed by an Italian noun in narrations and site pages goes through `count`,
and every English count of the CLI's own lines through `plural`, so "1 carte" or "1 errors"
cannot be written by one place and fixed in another.
"""

from __future__ import annotations


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
