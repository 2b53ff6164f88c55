"""The state of a match at one moment. A plain value: the engine copies, never mutates in place."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.game.cards import RANKS, Card
from referee.game.record import GameRecord
from referee.game.rules import Rules

#: fields clone() shares with the original: values never changed in place
SHARED_FIELDS = frozenset({"players", "rules", "game", "dealer", "phase", "turn", "rank_ref",
                           "round_rank", "last_count", "caller", "challenged", "passes",
                           "last_player", "pending_out", "winner", "out_of_play", "clock",
                           "turn_started", "warned", "last_verdict"})  # fmt: skip
STAT_KEYS = ("calls_made", "calls_won", "calls_lost", "caught_lying", "wrongly_called",
             "unchallenged_false_cards_seen")  # fmt: skip


@dataclass
class Play:
    """Cards one player laid on the pile with their claim; ``cards`` once seen face up."""

    seat: int
    count: int
    rank: str
    cards: tuple[Card, ...] | None = None
    face_up: bool = False


@dataclass
class State:
    """Everything the referee knows. Seats are indexes into ``players`` (clockwise)."""

    players: tuple[str, ...]
    rules: Rules
    game: int = 1
    dealer: int = 0
    #: "pairs" (laying out pairs), "play", "who_called", "reveal", "timeout_card", "over"
    phase: str = "play"
    turn: int = 0
    hands: list[int] = field(default_factory=list)
    pile: list[Play] = field(default_factory=list)
    #: the rank the order counts from (last claim, or the challenged one); None: a fresh start.
    rank_ref: str | None = None
    #: German rounds: the rank of the round in progress.
    round_rank: str | None = None
    last_count: int = 0
    #: pile indexes of plays that may still be called, oldest first.
    callable: list[int] = field(default_factory=list)
    caller: int | None = None
    challenged: int | None = None
    passes: int = 0
    last_player: int | None = None
    #: a player whose hand emptied on a play that may still be called.
    pending_out: int | None = None
    out_order: list[int] = field(default_factory=list)
    winner: int | None = None
    wins: list[int] = field(default_factory=list)
    out_of_play: int = 0
    seen_out: list[str] = field(default_factory=list)
    clock: float | None = None
    turn_started: float | None = None
    warned: bool = False
    stats: dict[str, list[int]] = field(default_factory=dict)
    pickups: list[list[int]] = field(default_factory=list)
    records: list[GameRecord] = field(default_factory=list)
    last_claim: dict[str, Any] | None = None
    last_verdict: str | None = None

    def clone(self) -> State:
        """A copy the engine may change without changing this one.

        Its cost does not grow with the evening: the finished games' records (frozen) and the
        rules are shared, not copied; only what one game holds (hands, pile, counters) is.
        """
        new = object.__new__(State)
        new.__dict__.update(self.__dict__)
        new.hands = list(self.hands)
        new.pile = [Play(p.seat, p.count, p.rank, p.cards, p.face_up) for p in self.pile]
        new.callable = list(self.callable)
        new.out_order = list(self.out_order)
        new.wins = list(self.wins)
        new.seen_out = list(self.seen_out)
        new.stats = {key: list(counts) for key, counts in self.stats.items()}
        new.pickups = [list(sizes) for sizes in self.pickups]
        new.records = list(self.records)
        new.last_claim = dict(self.last_claim) if self.last_claim is not None else None
        return new

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def pile_size(self) -> int:
        return sum(p.count for p in self.pile)

    def name(self, seat: int | None) -> str | None:
        return None if seat is None else self.players[seat]

    def seat_of(self, name: str) -> int | None:
        lowered = name.strip().lower()
        for seat, player in enumerate(self.players):
            if player.lower() == lowered:
                return seat
        return None

    def is_out(self, seat: int) -> bool:
        return seat in self.out_order

    def seen_of(self, rank: str) -> int:
        return self.seen_out.count(rank)

    def to_dict(self, legal: tuple[str, ...] = ()) -> dict[str, Any]:
        """The public view printed by ``referee replay`` and shown on screen."""
        callable_claims = [
            {"player": self.players[self.pile[i].seat], "count": self.pile[i].count,
             "rank": self.pile[i].rank}
            for i in self.callable
        ]  # fmt: skip
        claimers = {c["player"] for c in callable_claims}
        may_call = (
            [p for p in self.players if p not in claimers or len(claimers) > 1]
            if self.phase == "play" and callable_claims
            else []
        )
        return {
            "players": list(self.players),
            "dealer": self.players[self.dealer],
            "game": self.game,
            "phase": self.phase,
            "turn": None if self.phase == "over" else self.players[self.turn],
            "rank_due": legal[0] if len(legal) == 1 else None,
            "legal_ranks": [r for r in RANKS if r in legal],
            "pile": self.pile_size,
            "hands": dict(zip(self.players, self.hands, strict=True)),
            "out_of_play": self.out_of_play,
            "out_of_play_seen": sorted(self.seen_out, key=RANKS.index),
            "last_claim": self.last_claim,
            "last_verdict": self.last_verdict,
            "callable": callable_claims,
            "may_call": may_call,
            "caller": self.name(self.caller),
            "challenged": (
                self.players[self.pile[self.challenged].seat]
                if self.challenged is not None
                else None
            ),
            "winner": self.name(self.winner),
            "places": (
                list(self.records[-1].places)
                if self.phase == "over" and self.records
                else [self.players[s] for s in self.out_order]
            ),
            "wins": dict(zip(self.players, self.wins, strict=True)),
            "rules": self.rules.to_dict(),
        }
