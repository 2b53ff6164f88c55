"""The listener's negatives cut from streams of talk by the referee's own gate."""

from __future__ import annotations

import random

import numpy as np
import pytest

from referee.speech.listener import talk
from referee.speech.types import SAMPLE_RATE
from referee.speech.vocab import ListenContext, interpret


def test_what_the_talkers_say_is_no_game_phrase():
    everything = ListenContext(players=("Alice", "Ben"))
    rng = random.Random(3)
    for _ in range(300):
        line = talk.line(rng)
        assert interpret(line, everything) is None, line


def _burst(seconds: float, rng: np.random.Generator) -> np.ndarray:
    n = int(seconds * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    return (0.1 * np.sin(2 * np.pi * 220 * t) * (1 + 0.1 * rng.standard_normal(n))).astype(
        np.float32
    )


def test_the_gate_cuts_words_at_their_first_pause_and_at_their_end():
    rng = np.random.default_rng(0)
    gap = np.zeros(int(0.1 * SAMPLE_RATE), np.float32)  # inside the words: a first pause
    silence = np.zeros(int(1.0 * SAMPLE_RATE), np.float32)
    audio = np.concatenate([silence, _burst(0.5, rng), gap, _burst(0.4, rng), silence])
    audio = audio + rng.normal(0, 1e-4, len(audio)).astype(np.float32)
    cut = talk.cuts(audio)
    assert [c.how for c in cut] == ["pause", "pause", "final"]
    first, second, final = cut
    assert abs(first.onset - 1.0) < 0.1 and final.onset == first.onset
    assert abs(first.at - 0.5) < 0.1  # the gate's pre-roll
    # the first pause holds the first word; the second and the final hold both
    assert first.end < second.end <= final.end
    assert 1.45 < first.end < 1.7 and final.end > 2.0


def test_a_cut_is_labelled_as_the_phrase_only_when_it_holds_all_of_it_alone():
    claim = talk.Label("claim", count=2, rank="A")
    spans = [talk.Said(5.0, 5.6, "two aces", claim)]
    seconds = SAMPLE_RATE

    def cut(at: float, end: float) -> talk.Cut:
        return talk.Cut(at + 0.5, at, np.zeros(round((end - at) * seconds), np.float32), "final")

    assert talk.labelled(cut(4.5, 5.9), spans) is claim  # pre-roll, the words, the hangover
    assert talk.labelled(cut(4.5, 5.25), spans) is False  # "two" at its first pause
    assert talk.labelled(cut(3.0, 5.9), spans) is False  # the talk before it too
    assert talk.labelled(cut(1.0, 2.5), spans) is None  # talk alone


@pytest.mark.slow
def test_a_play_stream_says_the_games_phrases_where_the_gate_cuts_them():
    """In a quiet room every phrase said between the talk in one breath is cut whole and
    alone (the gate may end an utterance at the comma of "liar, Lucy!": the recognizer
    joins the two, and such a phrase's halves are not used)."""
    maker = talk.Talk.__new__(talk.Talk)  # no babble pool or rooms needed in a quiet room
    maker.rooms = None
    audio, background, spans = maker.stream(11, play=True, background="quiet")
    assert background.startswith("quiet") and len(spans) >= 2
    labels = [talk.labelled(c, spans) for c in talk.cuts(audio)]
    whole = [said for said in spans if "," not in said.text]
    assert whole
    for said in whole:
        assert any(label is said.label for label in labels), said.text
    assert None in labels  # and the talk between them
