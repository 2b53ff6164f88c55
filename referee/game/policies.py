"""House rules as small named policies, plugged into the one engine (python-chess style).

A new variant is a new policy here, not a new ``if`` scattered through the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from referee.game.cards import JOKER, RANKS, Card, next_rank, rank_name
from referee.game.state import Play, State

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

    def on_lay(self, state: State, play: Play) -> None:
        """A play was laid (its rank is already the reference)."""

    def may_pass(self, state: State, legal: tuple[str, ...]) -> str | None:
        """Why the player whose turn it is may not pass under this order, or None."""
        return None

    def on_all_passed(self, state: State, following: int) -> bool:
        """Whether the turn coming to ``following`` means everyone else passed and the last
        cards stand (the last player then adds more or starts a new round)."""
        return False

    def may_start_new_round(self, state: State) -> bool:
        """Whether "new round" (the pile put out of the game) exists in this order."""
        return False

    def starter_after_verdict(
        self, state: State, play: Play, honest: bool, caller: int | None,
        next_seat: Callable[[int], int],
    ) -> int:  # fmt: skip
        """Who plays next once a call on ``play`` was judged; sets the rank to go on from."""
        state.rank_ref = play.rank
        return next_seat(play.seat)


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

    def on_lay(self, state: State, play: Play) -> None:
        state.round_rank = play.rank

    def may_pass(self, state: State, legal: tuple[str, ...]) -> str | None:
        who = state.players[state.turn]
        if state.round_rank is None:
            return f"{who} starts the round and can't pass."
        if state.last_player == state.turn:
            return f"{who}, add more {rank_name(legal[0], 2)} or say new round."
        return None

    def on_all_passed(self, state: State, following: int) -> bool:
        return following == state.last_player

    def may_start_new_round(self, state: State) -> bool:
        return True

    def starter_after_verdict(
        self, state: State, play: Play, honest: bool, caller: int | None,
        next_seat: Callable[[int], int],
    ) -> int:  # fmt: skip
        """A new round: the liar's catcher starts it, or the honest claimer."""
        state.round_rank, state.rank_ref = None, None
        starter = caller if not honest else play.seat
        if starter is None or state.is_out(starter):
            starter = next_seat(play.seat)
        return starter


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
    problem = rank_order(state).may_pass(state, legal)
    if problem:
        return problem
    if rules.passing == "never":
        return f"No passing: {who}, you must play {due_phrase(legal)}."
    if rules.passing == "exhausted":
        copies = rules.copies_of_rank(state.n)
        if len(legal) != 1 or state.seen_of(legal[0]) < copies:
            return f"{who} can pass only once every {rank_name(legal[0])} has been shown."
    return None


# --- judging a reveal ----------------------------------------------------------------------


class Judge:
    """Whether the cards turned over are what was claimed: rank and count both."""

    name = "count_matters"

    def wrong_rank(self, state: State, play: Play, cards: Sequence[Card]) -> bool:
        wild = state.rules.jokers > 0
        return any(c.rank != play.rank and not (wild and c.rank == JOKER) for c in cards)

    def honest(self, state: State, play: Play, cards: Sequence[Card]) -> bool:
        """The verdict; a wrong count also corrects the cards the claimer really laid."""
        wrong_rank = self.wrong_rank(state, play, cards)
        if len(cards) != play.count:
            laid = min(len(cards), play.count + state.hands[play.seat])  # what was really laid
            state.hands[play.seat] += play.count - laid
            play.count = laid
            return False
        return not wrong_rank


class CountIsHonest(Judge):
    """Only the rank is judged: a count said wrong is no lie (``count_is_honest``)."""

    name = "count_is_honest"

    def honest(self, state: State, play: Play, cards: Sequence[Card]) -> bool:
        return not self.wrong_rank(state, play, cards)


def judge(state: State) -> Judge:
    return CountIsHonest() if state.rules.count_is_honest else Judge()


# --- after a claim -------------------------------------------------------------------------


class Claims:
    """What follows a claim: the turn goes on, and a call may challenge it."""

    name = "closed"
    #: every play is turned over at once (so every play of the game is seen)
    reveals_every_play = False


class OpenPlay(Claims):
    """``open_play``: every play is shown as it is laid (a teaching game)."""

    name = "open_play"
    reveals_every_play = True


def claims(state: State) -> Claims:
    return OpenPlay() if state.rules.open_play else Claims()
