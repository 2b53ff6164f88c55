"""Property tests over random event streams and random house rules (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.game.cards import RANKS, SUITS, Card
from referee.game.engine import legal_ranks
from referee.game.events import (
    Call,
    Claim,
    Close,
    Name,
    NewGame,
    NewRound,
    Pass,
    Reveal,
    Tick,
    Verdict,
)
from referee.game.match import Match
from referee.game.rules import Rules
from referee.session import Session

NAMES = ("Alice", "Ben", "Cara", "Dev", "Eve", "Finn", "Gus")

rules_strategy = st.builds(
    Rules,
    rank_order=st.sampled_from(["ascending", "updown", "updown_same", "free", "rounds"]),
    passing=st.sampled_from(["never", "always", "exhausted"]),
    decks=st.sampled_from([1, 2, "auto"]),
    jokers=st.sampled_from([0, 2]),
    cards_per_play=st.sampled_from(["any", "one", "escalating"]),
    count_is_honest=st.booleans(),
    challenge_window=st.sampled_from(["next_claim", "extended"]),
    four_of_a_kind=st.booleans(),
    pairs_at_start=st.booleans(),
    open_play=st.booleans(),
    timer=st.sampled_from([0, 15, 30]),
    play_on=st.booleans(),
)

card_strategy = st.one_of(
    st.builds(Card, st.sampled_from(RANKS), st.sampled_from(SUITS)), st.just(Card("JK"))
)
time_strategy = st.one_of(st.none(), st.floats(0, 10_000, allow_nan=False))


def event_strategy(players: tuple[str, ...]):
    name = st.sampled_from(players)
    return st.one_of(
        st.builds(Claim, st.integers(1, 5), st.sampled_from(RANKS), t=time_strategy),
        st.builds(Call, st.one_of(st.none(), name), st.one_of(st.none(), name)),
        st.builds(Name, name),
        st.builds(Pass, t=time_strategy),
        st.builds(Reveal, st.lists(card_strategy, max_size=5).map(tuple)),
        st.builds(Verdict, st.booleans()),
        st.builds(NewGame),
        st.builds(NewRound),
        st.builds(Tick, t=time_strategy),
        st.builds(Close),
        st.just("undo"),
        # a claim of a rank that is legal now, so streams get deep into games
        st.tuples(st.just("legal"), st.integers(1, 4), st.integers(0, 12)),
        st.tuples(st.just("legal"), st.integers(1, 2), st.integers(0, 12)),
    )


def concrete(match: Match, event):
    """Turn a ("legal", count, index) marker into a claim of a rank legal now."""
    if isinstance(event, tuple):
        legal = legal_ranks(match.state)
        return Claim(event[1], legal[event[2] % len(legal)])
    return event


@st.composite
def games(draw):
    n = draw(st.integers(2, 7))
    players = NAMES[:n]
    rules = draw(rules_strategy)
    events = draw(st.lists(event_strategy(players), max_size=120))
    return players, rules, events


def check_invariants(match: Match) -> None:
    s = match.state
    dealt = s.rules.deck_size(s.n)
    assert sum(s.hands) + s.pile_size + s.out_of_play == dealt
    assert all(h >= 0 for h in s.hands)
    assert 0 <= s.turn < s.n
    if s.phase not in ("over", "pairs"):
        assert not s.is_out(s.turn)
    assert sum(s.wins) == len(s.records) or s.phase != "over" or s.records
    assert s.winner is None or s.wins[s.winner] >= 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_cards_are_conserved_and_the_turn_is_always_a_seated_player(game):
    players, rules, events = game
    match = Match(players, rules)
    check_invariants(match)
    for event in events:
        if event == "undo":
            match.undo()
        else:
            match.handle(concrete(match, event))
        check_invariants(match)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_undo_after_any_event_restores_the_previous_state(game):
    players, rules, events = game
    match = Match(players, rules)
    for event in events:
        if event == "undo":
            continue
        event = concrete(match, event)
        before = match.state.to_dict()
        before_records = list(match.state.records)
        outcome = match.handle(event)
        if outcome.accepted:
            match.undo()
            assert match.state.to_dict() == before
            assert match.state.records == before_records
            match.handle(event)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_a_resumed_journal_equals_the_live_state(tmp_path_factory, game):
    players, rules, events = game
    path = tmp_path_factory.mktemp("journal") / "game.jsonl"
    live = Session.start(players, rules, path)
    for event in events:
        if event == "undo":
            live.command("undo")
        else:
            live.submit(concrete(live.match, event))
    live.close()
    resumed = Session.resume(path)
    assert resumed.state.to_dict() == live.state.to_dict()
    assert resumed.state.records == live.state.records
    resumed.close()
