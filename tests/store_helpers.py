"""Game records for the store and scoring tests."""

from __future__ import annotations

from referee.game.record import GameRecord

FOUR = ("Alice", "Ben", "Cara", "Dev")


def game(number: int, winner: str | None, cards_left: dict[str, int], **stats) -> GameRecord:
    """A game of FOUR: places are the winner, then the others by cards left."""
    left = {p: cards_left.get(p, 0) for p in FOUR}
    places = sorted(FOUR, key=lambda p: (p != winner, left[p]))
    return GameRecord(number, FOUR, winner, tuple(places), left, **stats)
