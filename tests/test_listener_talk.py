"""The listener's negatives cut from streams of talk by the referee's own gate."""

from __future__ import annotations

import random

import numpy as np

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
    hows = [how for _, _, how in cut]
    assert hows == ["pause", "pause", "final"]
    (s1, a1, _), (_, a2, _), (s3, a3, _) = cut
    assert abs(s1 - 1.0) < 0.1 and s3 == s1
    # the first pause holds the first word; the second and the final hold both
    assert len(a1) < len(a2) <= len(a3)
    assert 0.5 < len(a1) / SAMPLE_RATE < 1.2 and len(a3) / SAMPLE_RATE > 1.4
