"""The multi-frame voter: read only still frames, answer once enough agree."""

from __future__ import annotations

import numpy as np

from referee.vision.reader import UNREADABLE, Reveal, SeenCard, StableVoter


def frame(level: int) -> np.ndarray:
    return np.full((48, 64, 3), level, np.uint8)


def reveal(*ranks: str, readable: bool = True) -> Reveal:
    cards = [SeenCard(r, None, 0.9, (0, 0, 1, 1)) for r in ranks]
    return Reveal(cards, readable=readable, message="" if readable else UNREADABLE)


class ScriptedReader:
    def __init__(self, answers):
        self.answers = list(answers)
        self.calls = 0

    def __call__(self, _frame):
        self.calls += 1
        return self.answers.pop(0)


def test_moving_frames_are_not_read():
    reader = ScriptedReader([])
    voter = StableVoter(votes=2, max_frames=10)
    for level in (0, 60, 120, 180):  # every frame differs a lot: the cards still move
        assert voter.push(frame(level), reader) is None
    assert reader.calls == 0


def test_answers_once_enough_still_frames_agree():
    reader = ScriptedReader([reveal("Q", "Q"), reveal("Q", "K"), reveal("Q", "Q"), reveal("Q")])
    voter = StableVoter(votes=2, max_frames=10)
    out = [voter.push(frame(100), reader) for _ in range(4)]
    assert out[0] is None and out[1] is None and out[2] is None
    assert out[3].ranks == ["Q", "Q"]
    assert reader.calls == 3


def test_unreadable_frames_do_not_vote_and_it_gives_up():
    reader = ScriptedReader([reveal(readable=False)] * 5)
    voter = StableVoter(votes=2, max_frames=6)
    results = [voter.push(frame(100), reader) for _ in range(6)]
    assert results[:-1] == [None] * 5
    assert not results[-1].readable
    assert results[-1].message == UNREADABLE


def test_gives_the_best_agreement_when_time_runs_out():
    answers = [reveal("7", "7"), reveal("7"), reveal("7", "7"), reveal("8")]
    reader = ScriptedReader(answers)
    voter = StableVoter(votes=3, max_frames=5)
    results = [voter.push(frame(100), reader) for _ in range(5)]
    assert results[-1].ranks == ["7", "7"]


def test_empty_frames_are_survived():
    voter = StableVoter(votes=2, max_frames=3)
    reader = ScriptedReader([])
    assert voter.push(np.zeros((0, 0, 3), np.uint8), reader) is None
    assert voter.push(None, reader) is None
    last = voter.push(None, reader)
    assert not last.readable and "empty frame" in last.message
