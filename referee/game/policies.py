"""House rules as small named policies, plugged into the one engine (python-chess style).

A new variant is a new policy here, not a new ``if`` scattered through the engine.
"""

from __future__ import annotations

from referee.game.cards import RANKS, next_rank, rank_name
from referee.game.state import State

# --- rank order --------------------------------------------------------------------------


class RankOrder:
    """Which ranks the player whose turn it is may claim."""

    name = "ascending"
    #: a fresh pile starts with aces (classic) or with any rank.
    starts_with: str | None = "A"

    def legal(self, state: State) -> tuple[str, ...]:
        if state.rank_ref is None:
            return (self.starts_with,) if self.starts_with else RANKS
        return self.around(state.rank_ref)

    def around(self, ref: str) -> tuple[str, ...]:
        return (next_rank(ref),)

    def after_pass(self, state: State, legal: tuple[str, ...]) -> None:
        """Passing moves the rank on without the passer when one rank was due."""
        if len(legal) == 1:
            state.rank_ref = legal[0]


class UpDown(RankOrder):
    name = "updown"

    def around(self, ref: str) -> tuple[str, ...]:
        return (next_rank(ref, -1), next_rank(ref, 1))

    def after_pass(self, state: State, legal: tuple[str, ...]) -> None:
        pass


class UpDownSame(UpDown):
    name = "updown_same"

    def around(self, ref: str) -> tuple[str, ...]:
        return (next_rank(ref, -1), ref, next_rank(ref, 1))


class Free(UpDown):
    name = "free"
    starts_with = None

    def around(self, ref: str) -> tuple[str, ...]:
        return RANKS


class Rounds(RankOrder):
    """German rounds: the starter names any rank; everyone adds to that same rank."""

    name = "rounds"
    starts_with = None

    def legal(self, state: State) -> tuple[str, ...]:
        return RANKS if state.round_rank is None else (state.round_rank,)

    def after_pass(self, state: State, legal: tuple[str, ...]) -> None:
        pass


RANK_ORDERS: dict[str, RankOrder] = {
    p.name: p for p in (RankOrder(), UpDown(), UpDownSame(), Free(), Rounds())
}


def rank_order(state: State) -> RankOrder:
    return RANK_ORDERS[state.rules.rank_order]


def legal_ranks(state: State) -> tuple[str, ...]:
    return rank_order(state).legal(state)


def due_phrase(legal: tuple[str, ...]) -> str:
    """``("3",)`` -> ``"threes"``; ``("2", "4")`` -> ``"twos or fours"``; all -> ``"any rank"``."""
    if len(legal) == len(RANKS):
        return "any rank"
    names = [rank_name(r, 2) for r in legal]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


# --- cards per play ----------------------------------------------------------------------


def count_problem(state: State, count: int) -> str | None:
    """Why ``count`` cards cannot be claimed now, or None when it can."""
    most = state.rules.max_cards_per_play(state.n)
    if state.rules.cards_per_play == "escalating":
        least = state.last_count + 1 if state.last_count < most else 1
        if count < least:
            return f"This play must hold at least {least} cards."
    if count < 1:
        return "A play holds at least one card."
    if count > most:
        return "One card per play." if most == 1 else f"At most {most} cards per play."
    return None


# --- passing -----------------------------------------------------------------------------


def pass_problem(state: State, legal: tuple[str, ...]) -> str | None:
    """Why the player whose turn it is may not pass now, or None when they may."""
    who = state.players[state.turn]
    rules = state.rules
    if rules.rank_order == "rounds" and state.round_rank is None:
        return f"{who} starts the round and can't pass."
    if rules.rank_order == "rounds" and state.last_player == state.turn:
        return f"{who}, add more {rank_name(legal[0], 2)} or say new round."
    if rules.passing == "never":
        return f"No passing: {who}, you must play {due_phrase(legal)}."
    if rules.passing == "exhausted":
        copies = rules.copies_of_rank(state.n)
        if len(legal) != 1 or state.seen_of(legal[0]) < copies:
            return f"{who} can pass only once every {rank_name(legal[0])} has been shown."
    return None
