"""An evening's cost per event does not grow with the evening: a clone shares what no event
changes, the match keeps one state in SNAPSHOT_EVERY, and undo still returns exactly to the
state before (issue 17, case 4; the timing is in bench/evening)."""

from __future__ import annotations

import copy
import gc
from dataclasses import fields

import pytest

from bench.evening.evening import PLAYERS, transcript
from referee.game import match as match_module
from referee.game.cards import parse_card
from referee.game.rules import Rules
from referee.game.state import SHARED_FIELDS, State
from referee.session import Session


def evening(events: int, seed: int = 0) -> Session:
    session = Session.start(PLAYERS, Rules())
    for line in transcript(events, seed):
        if "heard" in line:
            session.hear(line["heard"])
        else:
            session.see([parse_card(c) for c in line["saw"]])
    return session


def test_a_clone_shares_no_container_an_event_may_change():
    state = evening(300).state
    assert state.records and state.pile  # finished games and a pile to copy
    twin = state.clone()
    assert twin == state
    for f in fields(State):
        value = getattr(state, f.name)
        if f.name in SHARED_FIELDS or f.name == "records":
            continue
        if isinstance(value, list | dict):
            assert getattr(twin, f.name) is not value, f.name
    assert all(a is not b for a, b in zip(twin.pile, state.pile, strict=True))
    assert twin.records is not state.records
    assert all(a is b for a, b in zip(twin.records, state.records, strict=True))  # frozen, shared
    assert all(isinstance(getattr(state, name), str | int | float | bool | tuple | type(None))
               or name == "rules" for name in SHARED_FIELDS)  # fmt: skip


def test_the_history_keeps_a_state_in_every_snapshot_interval_not_one_per_event():
    session = evening(640)
    gc.collect()
    held = sum(isinstance(o, State) for o in gc.get_objects())
    assert held <= 640 // match_module.SNAPSHOT_EVERY + 4
    history = session.match.history
    assert len(history) == len(session.match.events) + 1
    assert history[-1] is session.state


@pytest.mark.parametrize("every", [1, 3, 64])
def test_undo_returns_exactly_to_each_state_before(monkeypatch, every):
    monkeypatch.setattr(match_module, "SNAPSHOT_EVERY", every)
    session = Session.start(PLAYERS, Rules())
    seen = {0: copy.deepcopy(session.state)}  # the state after i events of this line of play
    for line in transcript(150, seed=5):
        if "heard" in line:
            session.hear(line["heard"])
        else:
            session.see([parse_card(c) for c in line["saw"]])
        seen[len(session.match.events)] = copy.deepcopy(session.state)
    seen = {i: state for i, state in seen.items() if i <= len(session.match.events)}
    assert len(seen) == len(session.match.events) + 1
    assert [session.match.history[i] for i in (0, 5, 64, 100)] == [seen[i] for i in (0, 5, 64, 100)]
    while session.match.events:
        session.command("undo")
        assert session.state == seen[len(session.match.events)]
    assert session.command("undo")[0].text == "Nothing to undo."


def test_what_was_undone_is_kept_at_its_place_until_play_goes_another_way():
    session = Session.start(["Alice", "Ben", "Cara"], Rules())
    match = session.match
    session.hear("three aces")
    session.command("undo")
    session.hear("one ace")
    session.command("undo")
    assert [(e.count, e.rank) for e in match.taken_back()] == [(3, "A"), (1, "A")]
    session.hear("two aces")  # taken: Ben's turn, nothing was undone there
    assert match.taken_back() == []
    session.hear("two twos")
    session.command("undo")
    session.command("undo")  # back to Alice's turn: what she took back is still known
    assert [(e.count, e.rank) for e in match.taken_back()] == [(3, "A"), (1, "A"), (2, "A")]
    session.hear("two aces")  # ...and a new way on from there forgets Ben's turn's undo
    assert match.taken_back() == []
    session.hear("one two")
    assert match.taken_back() == []
