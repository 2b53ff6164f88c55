"""What the referee says: short, natural sentences built from the state. Pure text."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from referee.game.cards import JOKER, RANKS, Card, describe_count, number_words, rank_name


@dataclass(frozen=True)
class Announcement:
    """One thing to say. ``kind`` lets the screen and tests tell sentences apart."""

    text: str
    kind: str = "info"
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"say": self.text, "kind": self.kind, **self.data}


def cards_phrase(count: int) -> str:
    return f"{number_words(count)} card" + ("" if count == 1 else "s")


def seen_phrase(cards: tuple[Card, ...]) -> str:
    """``"Ace and seven"``, ``"Two nines"``, ``"Nothing"``: the cards as turned over."""
    if not cards:
        return "No cards"
    counts = Counter(c.rank for c in cards)
    order = sorted(counts, key=lambda r: RANKS.index(r) if r in RANKS else len(RANKS))
    if len(order) == 1:
        return describe_count(counts[order[0]], order[0]).capitalize()
    parts = [rank_name(r) if counts[r] == 1 else describe_count(counts[r], r) for r in order]
    text = ", ".join(parts[:-1]) + " and " + parts[-1]
    return text[0].upper() + text[1:]


def joined_names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def standing_phrase(players: tuple[str, ...], wins: list[int]) -> str:
    """``"Alice 2, Ben 1, Cara and Dev 0."``"""
    groups: dict[int, list[str]] = {}
    for name, won in zip(players, wins, strict=True):
        groups.setdefault(won, []).append(name)
    ordered = sorted(groups.items(), reverse=True)
    return ", ".join(f"{joined_names(group)} {won}" for won, group in ordered) + "."


def is_joker(card: Card) -> bool:
    return card.rank == JOKER
