"""Ranks and cards, as the table names them.

Suits never matter in Cheat, so a :class:`Card` carries its suit only for display.

>>> parse_card("10H")
Card(rank='10', suit='H')
>>> next_rank("K")
'A'
>>> rank_name("6", 2)
'sixes'
"""

from __future__ import annotations

from dataclasses import dataclass

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
JOKER = "JK"

_SINGULAR = {
    "A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
    "8": "eight", "9": "nine", "10": "ten", "J": "jack", "Q": "queen", "K": "king", JOKER: "joker",
}  # fmt: skip
_PLURAL = {r: ("sixes" if r == "6" else _SINGULAR[r] + "s") for r in _SINGULAR}


@dataclass(frozen=True, order=True)
class Card:
    """One physical card; ``rank`` is one of :data:`RANKS` or :data:`JOKER`."""

    rank: str
    suit: str | None = None

    def __str__(self) -> str:
        return self.rank + (self.suit or "")


def parse_card(code: str) -> Card:
    """Parse a card code such as ``"AH"``, ``"10C"``, ``"7"`` (suit optional) or ``"JK"``."""
    text = str(code).strip().upper()
    if text in (JOKER, "JOKER"):
        return Card(JOKER)
    if text[-1:] in SUITS and text[:-1] in RANKS:
        return Card(text[:-1], text[-1])
    if text == "T":
        return Card("10")
    if text[-1:] in SUITS and text[:-1] == "T":
        return Card("10", text[-1])
    if text in RANKS:
        return Card(text)
    raise ValueError(f"not a card: {code!r} (use rank A 2-10 J Q K with suit S H D C, or JK)")


def check_rank(rank: str) -> str:
    if rank not in RANKS:
        raise ValueError(f"not a rank: {rank!r}")
    return rank


def next_rank(rank: str, step: int = 1) -> str:
    """The rank ``step`` places after ``rank`` in A..K, wrapping K to A."""
    return RANKS[(RANKS.index(rank) + step) % len(RANKS)]


def rank_name(rank: str, count: int = 1) -> str:
    """English name of a rank: ``rank_name("Q") == "queen"``, ``rank_name("Q", 2) == "queens"``."""
    return _SINGULAR[rank] if count == 1 else _PLURAL[rank]


_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
         "fourteen fifteen sixteen seventeen eighteen nineteen").split()  # fmt: skip
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int) -> str:
    """Spoken form of a small number: ``number_words(42) == "forty-two"``."""
    if n < 0:
        return "minus " + number_words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens - 2] + ("" if ones == 0 else "-" + _ONES[ones])
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return _ONES[hundreds] + " hundred" + ("" if rest == 0 else " and " + number_words(rest))
    return str(n)


def describe_count(count: int, rank: str) -> str:
    """``describe_count(2, "A") == "two aces"``."""
    return f"{number_words(count)} {rank_name(rank, count)}"
