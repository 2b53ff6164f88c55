"""A short game in a quiet room, through real audio devices: ``referee play --mic pulse``
listens to a private PulseAudio room while four simulated players (tests/table.py) speak
into it, its own voice plays into the room through aplay, and a rendered photo of the cards
laid stands in for the camera. Four claims, a named call on a bluff, the reveal, the
verdict."""

from __future__ import annotations

import pytest

from tests.table import Table, TableGame


@pytest.mark.slow  # real time: the referee's start-up, four claims and a call (about a minute)
@pytest.mark.timeout(240)
def test_a_called_bluff_in_a_quiet_room_is_caught_and_the_liar_picks_up(room, tmp_path):
    game = TableGame(seed=7, call_every=3)  # Ben calls Dev's "three fours": ace, four, four
    table = Table(room, game, tmp_path)
    result = table.play(stop_when=lambda g: bool(table.verdicts))
    said = [s.line for s in result.said if "say" in s.line]
    transcript = "\n".join(f"{s.who}: {s.text} -> {s.outcome}" for s in result.steps)
    assert not result.derailed, f"{result.derailed}\n{transcript}"
    claims = [x for x in said if x["kind"] == "claim"]
    assert [(c["player"], c["count"], c["rank"]) for c in claims][-4:] == [
        ("Alice", 4, "A"), ("Ben", 1, "2"), ("Cara", 1, "3"), ("Dev", 3, "4")]  # fmt: skip
    calls = [x for x in said if x["kind"] == "call"]
    assert (calls[-1]["caller"], calls[-1]["claimer"]) == ("Ben", "Dev"), transcript
    expected, verdict = result.verdicts[-1]
    assert verdict == expected, transcript
    assert verdict["honest"] is False and verdict["loser"] == "Dev"
    assert verdict["pile"] == 4 + 1 + 1 + 3
    assert result.final_state is not None  # typed q: the referee ends with its final state
    assert result.final_state["hands"]["Dev"] == 13 - 3 + verdict["pile"]
