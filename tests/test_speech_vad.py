"""The voice gate: where utterances begin and end, in a quiet room and under babble."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from referee.speech.profile import DEFAULT
from referee.speech.types import SAMPLE_RATE
from referee.speech.vad import FRAME, Segment, Segmenter


def noise(seconds: float, db: float, rng: np.random.Generator) -> np.ndarray:
    return rng.normal(0, 10 ** (db / 20), round(seconds * SAMPLE_RATE)).astype(np.float32)


def babble(seconds: float, rng: np.random.Generator) -> np.ndarray:
    """Other talkers: 0.1 s stretches at -33 dB (well over the gate's floor margin) and
    -48 dB in turn, never quiet for long."""
    parts = [noise(0.1, -33.0 if i % 2 else -48.0, rng) for i in range(round(seconds / 0.1))]
    return np.concatenate(parts)


def segments(audio: np.ndarray, profile=DEFAULT) -> list[Segment]:
    """Every utterance in ``audio``, the one still open at its end too."""
    seg = Segmenter(profile)
    out = []
    for i in range(len(audio) // FRAME):
        found = seg.push(i * FRAME / SAMPLE_RATE, audio[i * FRAME : (i + 1) * FRAME])
        if found is not None:
            out.append(found)
    current = seg.current()
    return out + ([current] if current is not None else [])


def with_words(bed: np.ndarray, words: list[tuple[float, float]], rng) -> np.ndarray:
    """``bed`` with words 18 dB over its loud stretches at each (start, end) second."""
    audio = bed.copy()
    for start, end in words:
        a, b = int(start * SAMPLE_RATE), int(end * SAMPLE_RATE)
        audio[a:b] += noise((b - a) / SAMPLE_RATE, -15.0, rng)[: b - a]
    return audio


def test_babble_after_the_words_does_not_hold_the_utterance_open():
    rng = np.random.default_rng(3)
    audio = with_words(babble(5.0, rng), [(1.0, 1.4)], rng)
    words = [s for s in segments(audio) if s.start <= 1.0 < s.end + 0.1]
    assert len(words) == 1
    assert words[0].end == pytest.approx(1.4, abs=0.1)  # where the words end
    # without the rule the babble holds the gate open to the end of the recording
    held = [s for s in segments(audio, replace(DEFAULT, words_drop_db=0)) if s.start <= 1.0]
    assert held[-1].end > 4.5 and not held[-1].done


def test_a_short_pause_under_babble_stays_inside_the_utterance():
    rng = np.random.default_rng(4)
    # "Cara, | cheat!": 0.22 s between the words, babble in the pause
    audio = with_words(babble(4.0, rng), [(1.0, 1.3), (1.52, 1.8)], rng)
    words = [s for s in segments(audio) if s.start <= 1.6 <= s.end + 0.1]
    assert len(words) == 1
    assert words[0].start <= 1.0 and words[0].end == pytest.approx(1.8, abs=0.1)


def test_in_a_quiet_room_a_soft_end_of_a_word_stays_in_the_utterance():
    rng = np.random.default_rng(5)
    audio = noise(3.0, -65.0, rng)
    audio[SAMPLE_RATE : int(1.3 * SAMPLE_RATE)] += noise(0.3, -15.0, rng)
    audio[int(1.3 * SAMPLE_RATE) : int(1.7 * SAMPLE_RATE)] += noise(0.4, -40.0, rng)  # softly
    (found,) = segments(audio)
    assert found.start == pytest.approx(1.0, abs=0.03)
    # 25 dB under the first word, but 25 dB over the room: still words (words_over_floor_db)
    assert found.end == pytest.approx(1.7, abs=0.03)
    assert found.audio_start is not None
    t_end = found.audio_start + len(found.audio) / SAMPLE_RATE
    assert t_end >= 1.7 + DEFAULT.hangover_s - 0.03  # the gate's own hangover after them


def test_the_soft_end_of_a_word_in_noise_is_stamped_where_it_ends():
    rng = np.random.default_rng(6)
    audio = noise(3.0, -45.0, rng)  # a steady room 30 dB under the words
    audio[SAMPLE_RATE : int(1.3 * SAMPLE_RATE)] += noise(0.3, -15.0, rng)
    audio[int(1.3 * SAMPLE_RATE) : int(1.45 * SAMPLE_RATE)] += noise(0.15, -33.0, rng)
    (found,) = [s for s in segments(audio) if s.start <= 1.0 < s.end]
    assert found.end == pytest.approx(1.45, abs=0.03)  # WORDS_TAIL_S
