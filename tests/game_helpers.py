"""Small helpers for driving the engine in tests."""

from __future__ import annotations

from referee.game.cards import parse_card, rank_name
from referee.game.match import Match
from referee.game.rules import rules_from
from referee.session import Session

FOUR = ("Alice", "Ben", "Cara", "Dev")


def session(*settings: str, players=FOUR, preset: str = "classic") -> Session:
    return Session.start(players, rules_from(preset, list(settings)))


def match(*settings: str, players=FOUR, preset: str = "classic") -> Match:
    return Match(list(players), rules_from(preset, list(settings)))


def cards(*codes: str):
    return [parse_card(c) for c in codes]


def texts(said) -> list[str]:
    return [a.text for a in said]


def kinds(said) -> list[str]:
    return [a.kind for a in said]


def play_ones(s: Session, *groups: str) -> None:
    """Claim one card of each rank given, in order: ``play_ones(s, "A23", "10", "J")``."""
    for group in groups:
        for rank in [group] if group == "10" or len(group) == 1 else list(group):
            s.hear(f"one {rank_name(rank)}")
