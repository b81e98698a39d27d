"""Italian agreement for the generated text: a count with its noun, "a" before a vowel.

Every number followed by a noun in narrations, site pages and CLI summaries goes through
`count`, so "1 carte" or "1 fogli" cannot be written by one place and fixed in another.
"""

from __future__ import annotations


def count(number: int, singular: str, plural: str) -> str:
    """ "1 carta", "2 carte", "0 carte": the noun agrees with the number."""
    return f"{number} {singular if number == 1 else plural}"


def a(word: str) -> str:
    """The preposition "a" before `word`: "ad" before a word starting with a ("ad Anelli
    del Sigillo"), as careful Italian writes it; "a" otherwise."""
    return f"ad {word}" if word[:1].casefold() == "a" else f"a {word}"
