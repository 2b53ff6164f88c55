"""The rules engine: ``apply(state, event)`` gives the next state and what to say. Pure.

>>> from referee.game.rules import Rules
>>> out = new_match(("Alice", "Ben", "Cara"), Rules())
>>> out.state.hands, [a.text for a in out.said][-1]
([18, 17, 17], 'Alice, aces.')
>>> out = apply(out.state, Claim(2, "A"))
>>> out.state.turn, out.said[-1].text
(1, 'Ben, twos.')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from referee.game import policies
from referee.game.announce import Announcement, cards_phrase, seen_phrase, standing_phrase
from referee.game.cards import JOKER, Card, describe_count, number_words, rank_name
from referee.game.events import (
    Call,
    Claim,
    Close,
    Event,
    Name,
    NewGame,
    NewRound,
    Pass,
    Reveal,
    Tick,
    Verdict,
)
from referee.game.record import GameRecord
from referee.game.rules import Rules
from referee.game.state import STAT_KEYS, Play, State

MIN_PLAYERS, MAX_PLAYERS = 2, 10


class Rejected(Exception):
    """The event breaks the rules or comes at the wrong moment; the state is unchanged."""


@dataclass(frozen=True)
class Outcome:
    state: State
    said: list[Announcement]
    accepted: bool


Say = list[Announcement]


def new_match(players: tuple[str, ...] | list[str], rules: Rules) -> Outcome:
    """Seat the players (clockwise, first named plays first, the last deals) and deal game 1."""
    names = tuple(p.strip() for p in players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise ValueError(f"Cheat needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(names)}.")
    if len({n.lower() for n in names}) != len(names) or not all(names):
        raise ValueError("Every player needs a different, non-empty name.")
    state = State(players=names, rules=rules, dealer=len(names) - 1, wins=[0] * len(names))
    said: Say = []
    _deal(state, said)
    return Outcome(state, said, True)


def apply(state: State, event: Event) -> Outcome:
    """The state after ``event``; a rejected event leaves ``state`` as it was."""
    timed = state.clone()
    said: Say = []
    clock_acted = _run_clock(timed, event.t, said)
    after = timed.clone() if clock_acted else timed  # kept apart only if a rejection needs it
    try:
        HANDLERS[type(event)](after, event, said)
    except Rejected as why:
        if str(why):
            said.append(Announcement(str(why), "error"))
        return Outcome(timed if clock_acted else state, said, clock_acted)
    return Outcome(after, said, True)


def legal_ranks(state: State) -> tuple[str, ...]:
    return policies.legal_ranks(state)


# --- the deal ----------------------------------------------------------------------------


def _deal(s: State, say: Say) -> None:
    """Deal the whole deck one card at a time from the dealer's left."""
    n = s.n
    total = s.rules.deck_size(n)
    first = (s.dealer + 1) % n
    s.hands = [total // n + (1 if (seat - first) % n < total % n else 0) for seat in range(n)]
    s.pile, s.callable, s.out_order, s.seen_out = [], [], [], []
    s.rank_ref = s.round_rank = s.caller = s.challenged = s.pending_out = s.winner = None
    s.last_player, s.last_claim, s.last_verdict = None, None, None
    s.last_count = s.passes = s.out_of_play = 0
    s.stats = {key: [0] * n for key in STAT_KEYS}
    s.pickups = [[] for _ in range(n)]
    s.turn, s.turn_started, s.warned = first, s.clock, False
    decks = s.rules.deck_count(n)
    deck_text = "two decks" if decks == 2 else "one deck"
    say.append(
        Announcement(
            f"Game {s.game}. {s.players[s.dealer]} deals {deck_text}, "
            f"{number_words(total)} cards. {s.players[first]} starts.",
            "deal",
            {"game": s.game, "hands": dict(zip(s.players, s.hands, strict=True))},
        )
    )
    if s.rules.pairs_at_start:
        s.phase = "pairs"
        say.append(Announcement(f"Lay your pairs face up. {s.players[first]} first.", "pairs"))
    else:
        s.phase = "play"
        _prompt(s, say)


# --- helpers -----------------------------------------------------------------------------


def _who(s: State) -> str:
    return s.players[s.turn]


def prompt(s: State) -> Announcement:
    """Whose turn it is and what may be claimed: "Ben, twos." (with ``turn`` and
    ``legal_ranks`` for the screen and the JSON lines)."""
    legal = legal_ranks(s)
    return Announcement(f"{_who(s)}, {policies.due_phrase(legal)}.", "turn",
                        {"turn": _who(s), "legal_ranks": list(legal)})  # fmt: skip


def _prompt(s: State, say: Say) -> None:
    say.append(prompt(s))


def _active(s: State) -> list[int]:
    return [seat for seat in range(s.n) if not s.is_out(seat)]


def _next_seat(s: State, seat: int) -> int:
    for step in range(1, s.n + 1):
        candidate = (seat + step) % s.n
        if not s.is_out(candidate) and candidate != s.pending_out:
            return candidate
    return seat


def _give_turn(s: State, seat: int, say: Say) -> None:
    s.turn, s.turn_started, s.warned = seat, s.clock, False
    _prompt(s, say)


def _expect(s: State, *phases: str) -> None:
    if s.phase in phases:
        return
    if s.phase == "over":
        raise Rejected(f'Game {s.game} is over. Say "new game" to play again.')
    if s.phase == "who_called":
        raise Rejected("Who called? Say your name.")
    if s.phase == "reveal":
        claimer = s.players[s.pile[s.challenged].seat] if s.challenged is not None else _who(s)
        raise Rejected(f"{claimer}, turn the cards over first.")
    if s.phase == "timeout_card":
        raise Rejected(f"{_who(s)}, lay your lowest card face up.")
    if s.phase == "pairs":
        raise Rejected(f"{_who(s)}, lay your pairs face up, or say pass.")
    raise Rejected("There is nothing to judge now.")


# --- claims ------------------------------------------------------------------------------


#: "Who called?" went unanswered and the next player made their claim (the rank due): a call
#: may be made only until then (RULES.md), so the called play stands. A referee that heard a
#: call in the room's talk is not left asking while the table plays on without it.
_NO_CALLER = Announcement("No one called.", "no_caller")


def _claim(s: State, e: Claim, say: Say) -> None:
    if s.phase == "pairs":
        _end_pairs(s, say)
    no_caller = s.phase == "who_called" and e.rank in legal_ranks(s)
    if no_caller:  # "Who called?" unanswered, and the next player claims: see _NO_CALLER
        s.phase, s.challenged, s.caller = "play", None, None
    _expect(s, "play")
    if s.pending_out is not None:
        if no_caller:
            say.append(_NO_CALLER)
            no_caller = False
        _go_out(s, s.pending_out, say)
        if s.phase == "over":
            return
    legal = legal_ranks(s)
    if e.rank not in legal:
        due = policies.due_phrase(legal)
        verb = "is" if due.startswith("any") else "are"
        raise Rejected(f"{due[0].upper()}{due[1:]} {verb} due, not {rank_name(e.rank, 2)}.")
    problem = policies.count_problem(s, e.count)
    if problem:
        raise Rejected(problem)
    seat, who = s.turn, _who(s)
    if e.count > s.hands[seat]:
        raise Rejected(f"{who} has only {cards_phrase(s.hands[seat])}.")
    if no_caller:
        say.append(_NO_CALLER)
    _lay(s, Play(seat, e.count, e.rank), say)
    claim_text = f"{who}: {describe_count(e.count, e.rank)}."
    say.append(Announcement(claim_text, "claim", dict(s.last_claim or {})))
    _say_if_impossible(s, e, say)
    if s.hands[seat] == 0:
        s.pending_out = seat
        say.append(Announcement(f"{who} has no cards left. Call now if you doubt it.", "last_play"))
    if policies.claims(s).reveals_every_play:
        s.phase, s.caller, s.challenged = "reveal", None, len(s.pile) - 1
        say.append(Announcement(f"{who}, turn the cards over.", "reveal_request"))
    else:
        _give_turn(s, _next_seat(s, seat), say)


def _lay(s: State, play: Play, say: Say) -> None:
    """Put a play on the pile and move the order on from its rank."""
    s.pile.append(play)
    s.hands[play.seat] -= play.count
    window = 2 if s.rules.challenge_window == "extended" else 1
    s.callable = [] if play.face_up else (s.callable + [len(s.pile) - 1])[-window:]
    s.rank_ref = play.rank
    policies.rank_order(s).on_lay(s, play)
    s.last_count, s.passes, s.last_player = play.count, 0, play.seat
    s.last_claim = {"player": s.players[play.seat], "count": play.count, "rank": play.rank}


def _say_if_impossible(s: State, e: Claim, say: Say) -> None:
    """Table wisdom: more of a rank than can still be unseen is impossible."""
    seen = s.seen_of(e.rank)
    jokers_left = s.rules.jokers * s.rules.deck_count(s.n) - s.seen_of(JOKER)
    if seen and e.count > s.rules.copies_of_rank(s.n) - seen + jokers_left:
        verb = "is" if seen == 1 else "are"
        say.append(Announcement(
            f"{describe_count(e.count, e.rank).capitalize()}? "
            f"{describe_count(seen, e.rank).capitalize()} {verb} already out of play.",
            "impossible",
        ))  # fmt: skip


# --- calls -------------------------------------------------------------------------------


def _call(s: State, e: Call, say: Say) -> None:
    if s.phase == "who_called" and s.challenged is not None:
        raise Rejected("Who called?")  # the call again, its name unheard: still asking
    if s.phase == "reveal" and s.challenged is not None:
        raise Rejected(f"{s.name(s.caller)} called first.")
    _expect(s, "play")
    if not s.callable:
        raise Rejected("There is no claim to call.")
    caller = s.seat_of(e.caller) if e.caller else None
    candidates = s.callable
    if e.target:
        target = s.seat_of(e.target)
        candidates = [i for i in s.callable if s.pile[i].seat == target]
        if not candidates:
            raise Rejected(f"{e.target}'s play can't be called now.")
    others = [i for i in candidates if s.pile[i].seat != caller]
    if not others:
        raise Rejected(f"{s.players[caller]} can't call their own play.")
    s.challenged, s.caller = others[-1], caller
    if caller is None:
        s.phase = "who_called"
        say.append(Announcement("Who called?", "who_called"))
    else:
        _start_reveal(s, say)


def _name(s: State, e: Name, say: Say) -> None:
    _expect(s, "who_called")
    seat = s.seat_of(e.name)
    if seat is None:
        raise Rejected(f"I don't know {e.name}. Who called?")
    if seat == s.pile[s.challenged].seat:
        raise Rejected(f"{e.name} can't call their own play. Who called?")
    s.caller = seat
    _start_reveal(s, say)


def _start_reveal(s: State, say: Say) -> None:
    claimer = s.players[s.pile[s.challenged].seat]
    s.phase = "reveal"
    s.stats["calls_made"][s.caller] += 1
    say.append(Announcement(
        f"{s.players[s.caller]} calls cheat on {claimer}. {claimer}, turn the cards over.",
        "call", {"caller": s.players[s.caller], "claimer": claimer},
    ))  # fmt: skip


# --- reveals and verdicts ----------------------------------------------------------------


def _reveal(s: State, e: Reveal, say: Say) -> None:
    if s.phase == "reveal":
        if not e.cards:
            raise Rejected("I can't read the cards. Spread them out, or say true or lie.")
        _judge(s, e.cards, say)
    elif s.phase == "pairs":
        _lay_out_pairs(s, e.cards, say)
    elif s.phase == "timeout_card":
        _forced_play(s, e.cards, say)
    elif s.phase == "play" and s.rules.four_of_a_kind:
        _lay_out_four(s, e.cards, say)
    else:
        _expect(s, "play")
        raise Rejected("No cards were asked for.")


def _judge(s: State, cards: tuple[Card, ...], say: Say) -> None:
    play = s.pile[s.challenged]
    honest = policies.judge(s).honest(s, play, cards)
    play.cards = cards
    seen = seen_phrase(cards)
    _resolve(s, honest, say, seen)


def _verdict(s: State, e: Verdict, say: Say) -> None:
    _expect(s, "reveal")
    _resolve(s, e.honest, say, None)


def _resolve(s: State, honest: bool, say: Say, seen: str | None) -> None:
    play = s.pile[s.challenged]
    claimer, caller = play.seat, s.caller
    name = s.players[claimer]
    verdict = f"{name} told the truth." if honest else f"{name} lied."
    text = f"{seen}: {verdict}" if seen else verdict
    s.last_verdict = text
    s.phase, s.caller, s.challenged, s.passes = "play", None, None, 0
    if caller is not None:
        s.stats["calls_lost" if honest else "calls_won"][caller] += 1
        s.stats["wrongly_called" if honest else "caught_lying"][claimer] += 1
    elif not honest:
        s.stats["caught_lying"][claimer] += 1
    if caller is None and honest:  # open play: the play stands
        s.callable = []
        say.append(Announcement(text, "verdict", {"honest": True, "loser": None, "pile": 0}))
        if s.pending_out == claimer:
            _go_out(s, claimer, say)
        else:
            _give_turn(s, _next_seat(s, claimer), say)
        return
    loser = claimer if not honest else caller
    size = s.pile_size
    s.hands[loser] += size
    s.pickups[loser].append(size)
    s.pile, s.callable, s.last_count = [], [], 0
    say.append(Announcement(
        f"{text} {s.players[loser]} picks up the pile, {cards_phrase(size)}.",
        "verdict", {"honest": honest, "loser": s.players[loser], "pile": size},
    ))  # fmt: skip
    if s.pending_out == claimer:
        if honest:
            _go_out(s, claimer, say)
            if s.phase == "over":
                return
        else:
            s.pending_out = None
    starter = policies.rank_order(s).starter_after_verdict(
        s, play, honest, caller, lambda seat: _next_seat(s, seat)
    )
    _give_turn(s, starter, say)


# --- passing, rounds ---------------------------------------------------------------------


def _pass(s: State, e: Pass | None, say: Say) -> None:
    if s.phase == "pairs":
        _next_pairs(s, say)
        return
    _expect(s, "play")
    legal = legal_ranks(s)
    problem = policies.pass_problem(s, legal)
    if problem:
        raise Rejected(problem)
    policies.rank_order(s).after_pass(s, legal)
    s.passes += 1
    say.append(Announcement(f"{_who(s)} passes.", "pass"))
    following = _next_seat(s, s.turn)
    if policies.rank_order(s).on_all_passed(s, following):
        s.callable = []  # everyone else passed: the last cards stand
        if s.pending_out is not None:
            _go_out(s, s.pending_out, say)
            if s.phase == "over":
                return
            following = _next_seat(s, s.turn)
        else:
            s.turn, s.turn_started, s.warned = following, s.clock, False
            rank = rank_name(s.round_rank or "A", 2)
            say.append(Announcement(
                f"Everyone passed. {_who(s)}, add more {rank} or say new round.", "decide",
            ))  # fmt: skip
            return
    _give_turn(s, following, say)


def _new_round(s: State, e: NewRound, say: Say) -> None:
    _expect(s, "play")
    everyone_passed = s.last_player == s.turn and s.passes >= len(_active(s)) - 1
    if not policies.rank_order(s).may_start_new_round(s) or not s.pile or not everyone_passed:
        raise Rejected("A new round starts only when everyone else has passed.")
    size = s.pile_size
    s.out_of_play += size
    s.pile, s.callable, s.round_rank, s.rank_ref, s.passes = [], [], None, None, 0
    say.append(Announcement(
        f"{_who(s)} puts the pile out of the game, {cards_phrase(size)}.", "new_round",
    ))  # fmt: skip
    _give_turn(s, s.turn, say)


# --- cards laid out of the game ----------------------------------------------------------


def _remove_face_up(s: State, seat: int, cards: tuple[Card, ...]) -> None:
    if len(cards) > s.hands[seat]:
        raise Rejected(f"{s.players[seat]} has only {cards_phrase(s.hands[seat])}.")
    s.hands[seat] -= len(cards)
    s.out_of_play += len(cards)
    s.seen_out.extend(c.rank for c in cards)


def _lay_out_pairs(s: State, cards: tuple[Card, ...], say: Say) -> None:
    counts = Counter(c.rank for c in cards)
    if JOKER in counts or any(v % 2 for v in counts.values()):
        raise Rejected(f"Only pairs go out, {_who(s)}: two or four of a kind.")
    seat = s.turn
    _remove_face_up(s, seat, cards)
    say.append(Announcement(
        f"{_who(s)} lays out {cards_phrase(len(cards))}.", "pairs_out",
    ))  # fmt: skip
    if s.hands[seat] == 0:
        _go_out(s, seat, say)
        if s.phase == "over":
            return
    _next_pairs(s, say)


def _next_pairs(s: State, say: Say) -> None:
    s.turn = (s.turn + 1) % s.n
    if s.turn == (s.dealer + 1) % s.n:
        _end_pairs(s, say)
    else:
        say.append(Announcement(f"{_who(s)}, your pairs.", "pairs"))


def _end_pairs(s: State, say: Say) -> None:
    s.phase = "play"
    first = (s.dealer + 1) % s.n
    s.turn = first if not s.is_out(first) else _next_seat(s, first)
    s.turn_started, s.warned = s.clock, False
    if s.pending_out is None:
        _prompt(s, say)


def _lay_out_four(s: State, cards: tuple[Card, ...], say: Say) -> None:
    ranks = {c.rank for c in cards}
    copies = s.rules.copies_of_rank(s.n)
    if len(ranks) != 1 or JOKER in ranks or len(cards) != copies:
        raise Rejected(f"Only all {number_words(copies)} cards of one rank can go out.")
    seat = s.turn
    _remove_face_up(s, seat, cards)
    rank = next(iter(ranks))
    say.append(Announcement(
        f"{_who(s)} lays {describe_count(len(cards), rank)} out of the game.", "four_out",
    ))  # fmt: skip
    if s.hands[seat] == 0:
        _go_out(s, seat, say)


def _forced_play(s: State, cards: tuple[Card, ...], say: Say) -> None:
    if len(cards) != 1:
        raise Rejected(f"{_who(s)}, just one card, face up.")
    seat, card = s.turn, cards[0]
    legal = legal_ranks(s)
    # a wild joker counts as a rank the player may claim: the first legal one (a joker's own
    # "rank" as the pile's reference left the next turn with no rank to go on from)
    rank = card.rank if len(legal) > 1 and card.rank in legal else legal[0]
    _lay(s, Play(seat, 1, rank, cards, face_up=True), say)
    s.phase = "play"
    say.append(Announcement(f"{_who(s)} lays {rank_name(card.rank)} face up.", "forced_play"))
    if s.hands[seat] == 0:
        _go_out(s, seat, say)
        return
    _give_turn(s, _next_seat(s, seat), say)


# --- timers ------------------------------------------------------------------------------


def _run_clock(s: State, t: float | None, say: Say) -> bool:
    """Advance the table clock to ``t``; warn or time out the player to act. True if it did."""
    if t is None:
        return False
    s.clock = t
    if s.turn_started is None:
        s.turn_started = t
    if not s.rules.timer or s.phase != "play":
        return False
    elapsed = t - s.turn_started
    if elapsed >= s.rules.timer:
        if policies.pass_problem(s, legal_ranks(s)) is None:
            say.append(Announcement(f"{_who(s)}, time's up.", "timeout"))
            _pass(s, None, say)
        else:
            s.phase = "timeout_card"
            say.append(Announcement(
                f"{_who(s)}, time's up: lay your lowest card face up.", "timeout",
            ))  # fmt: skip
        return True
    if elapsed >= s.rules.timer - 10 and not s.warned:
        s.warned = True
        left = number_words(int(s.rules.timer - elapsed))
        say.append(Announcement(f"{_who(s)}, {left} seconds.", "timer"))
        return True
    return False


def _tick(s: State, e: Tick, say: Say) -> None:
    raise Rejected("")


# --- going out, end of game, new game ----------------------------------------------------


def _go_out(s: State, seat: int, say: Say) -> None:
    s.pending_out = None
    s.out_order.append(seat)
    who = s.players[seat]
    if s.winner is None:
        s.winner = seat
        s.wins[seat] += 1
        say.append(Announcement(f"{who} is out. {who} wins game {s.game}.", "win",
                                {"winner": who, "game": s.game}))  # fmt: skip
    else:
        place = len(s.out_order)
        say.append(Announcement(f"{who} is out, place {number_words(place)}.", "out"))
    remaining = _active(s)
    if not s.rules.play_on or len(remaining) <= 1:
        _end_game(s, say)


def _end_game(s: State, say: Say) -> None:
    s.phase, s.callable = "over", []
    rest = sorted(_active(s), key=lambda seat: (s.hands[seat], seat))
    places = [s.players[seat] for seat in s.out_order + rest]

    def per_player(values: list[int]) -> dict[str, int]:
        return dict(zip(s.players, values, strict=True))

    s.records.append(GameRecord(
        game=s.game, players=s.players, winner=s.name(s.winner), places=tuple(places),
        cards_left=per_player(s.hands),
        pickups={p: list(v) for p, v in zip(s.players, s.pickups, strict=True)},
        **{key: per_player(s.stats[key]) for key in STAT_KEYS},
        all_plays_seen=policies.claims(s).reveals_every_play,
    ))  # fmt: skip
    say.append(Announcement(f"Standing: {standing_phrase(s.players, s.wins)}", "standing",
                            {"wins": per_player(s.wins)}))  # fmt: skip


def _new_game(s: State, e: NewGame, say: Say) -> None:
    if s.pending_out is not None and s.phase == "play":
        _go_out(s, s.pending_out, say)
    if s.phase != "over":
        say.append(Announcement(f"Game {s.game} abandoned.", "abandoned"))
    s.game += 1
    s.dealer = (s.dealer + 1) % s.n
    _deal(s, say)


def _close(s: State, e: Close, say: Say) -> None:
    if s.pending_out is None or s.phase != "play":
        raise Rejected("")
    _go_out(s, s.pending_out, say)


HANDLERS: dict[type[Event], Callable[[State, Event, Say], None]] = {
    Claim: _claim, Call: _call, Name: _name, Pass: _pass, Reveal: _reveal, Verdict: _verdict,
    NewGame: _new_game, NewRound: _new_round, Tick: _tick, Close: _close,
}  # type: ignore[dict-item]  # fmt: skip
