"""bench/speech/segments.py scores the gate's segment that overlaps the words most."""

from __future__ import annotations

import numpy as np
import pytest

from bench.speech.segments import score, words_span
from referee.speech.types import SAMPLE_RATE


def test_the_segment_scored_is_the_one_overlapping_the_words_most():
    # (start, end, closed at): babble before the words, then the words themselves
    segments = [(0.2, 0.9, 1.1), (1.0, 1.52, 1.82)]
    got = score(segments, onset=1.05, end=1.5)
    assert got["heard"] and got["pieces"] == 1
    assert got["start_error"] == pytest.approx(-0.05)
    assert got["end_error"] == pytest.approx(0.02)
    assert got["closed_after"] == pytest.approx(0.32)
    assert score(segments, onset=2.0, end=2.5) == {"heard": False}
    assert score([(1.0, 1.2, 1.4), (1.3, 1.6, 1.9)], 1.05, 1.5)["pieces"] == 2


def test_the_words_span_is_found_in_the_clean_speech():
    audio = np.zeros(2 * SAMPLE_RATE, np.float32)
    audio[int(0.5 * SAMPLE_RATE) : int(0.9 * SAMPLE_RATE)] = 0.1
    assert words_span(audio) == pytest.approx((0.5, 0.9), abs=0.021)
