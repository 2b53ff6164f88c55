"""What the constrained whisper backend keeps, given what its decoder read.

The decoder's readings are canned (free reading, and the reading held to the legal
phrases, each with its mean log-probability; the free one with its no-speech probability),
so each rule is checked on its own: the real model only supplies the encoder the backend runs
first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from referee.speech.backends.whisper import ConstrainedWhisperBackend
from referee.speech.types import SAMPLE_RATE
from referee.speech.vocab import ListenContext

PLAYERS = ("Alice", "Ben", "Cara")


@dataclass
class Reading:
    """Stands for one ctranslate2 generation result."""

    text: str
    score: float
    no_speech: float = 0.02

    @property
    def scores(self) -> list[float]:
        return [self.score]

    @property
    def no_speech_prob(self) -> float:
        return self.no_speech


@pytest.fixture(scope="module")
def backend():
    return ConstrainedWhisperBackend()


def decide(backend, free: Reading, forced: Reading | None = None, rank_due: str = "7", final=True):
    backend.set_context(ListenContext.for_rank_due(rank_due, PLAYERS))
    backend._generate = lambda encoded: free
    backend._text = lambda reading: reading.text
    # weighing names: test_whisper_names.py
    backend._best_name = lambda encoded, text, free=None: text
    backend.forced_reads = 0

    def read_forced(encoded, free=None):
        backend.forced_reads += 1
        return (forced.text, forced.score) if forced else ("", -99.0)

    backend._forced = read_forced
    return backend.decode(np.zeros(SAMPLE_RATE // 2, np.float32), final=final)


def test_a_near_miss_is_mended_and_marked_guessed(backend):
    h = decide(backend, Reading("ball shit", -0.6), Reading("bullshit", -0.3))
    assert (h.text, h.guessed) == ("bullshit", True)


def test_an_early_reading_leaves_the_second_reading_to_the_final_one(backend):
    early = decide(backend, Reading("ball shit", -0.6), Reading("bullshit", -0.3), final=False)
    assert early.unsettled and backend.forced_reads == 0
    final = decide(backend, Reading("ball shit", -0.6), Reading("bullshit", -0.3))
    assert not final.unsettled and final.text == "bullshit" and backend.forced_reads == 1


def test_a_call_with_a_misheard_name_is_read_again(backend):
    # "cheat" parses as a call, but "artless" is no word of the game: not legal as heard
    h = decide(backend, Reading("cheat artless", -0.5), Reading("cheat alice", -0.4))
    assert (h.text, h.guessed) == ("cheat alice", True)


def test_a_legal_reading_is_kept_as_heard(backend):
    h = decide(backend, Reading("three sevens", -0.3), Reading("two sevens", -0.1))
    assert (h.text, h.guessed) == ("three sevens", False)


@pytest.mark.parametrize(
    ("free", "forced", "why"),
    [
        (Reading("zero", -1.1), Reading("liar", -0.7), "a clear number never becomes a call"),
        (Reading("i know", -0.7), Reading("i doubt it", -2.3), "forced reading too unlikely"),
        (Reading("what's next all", -0.5), Reading("what's the score", -1.8), "much less likely"),
        (Reading("good", -1.1), Reading("ben", -1.2), "spelled nothing alike: another word"),
        (Reading("stop", -2.4), Reading("two sevens", -0.7), "the free reading was noise"),
        (Reading("two aces", -0.3), Reading("two sevens", -0.8), "a rank heard stays"),
        (Reading("two tens", -0.4), Reading("three sevens", -0.5), "...and its count"),
    ],
)
def test_a_forced_reading_is_refused(backend, free, forced, why):
    h = decide(backend, free, forced)
    assert h.text in ("", free.text) and not h.guessed, why  # the recognizer drops it


def test_chatter_is_marked_and_never_forced(backend):
    h = decide(backend, Reading("did you watch the match last night", -0.4), Reading("cheat", 0))
    assert (h.text, h.chatter) == ("", True)


def test_an_unsure_reading_is_dropped(backend):
    # noise read as the prompt's own words: legal, but unsure
    assert not decide(backend, Reading("two sevens", -1.8, no_speech=0.46)).text
    assert decide(backend, Reading("two sevens", -0.9, no_speech=0.1)).text == "two sevens"


def test_a_claims_rank_is_mended_when_the_decoder_all_but_ties_the_two(backend):
    # espeak's "two sevens" in the room: free "two tens" -0.43, held to the rank due -0.61
    h = decide(backend, Reading("two tens", -0.43), Reading("two sevens", -0.61))
    assert (h.text, h.guessed) == ("two sevens", True)


@pytest.mark.parametrize(("cheat_score", "kept"), [(-1.31, "cheat"), (-1.45, "three twos")])
def test_a_near_tie_between_forced_readings_goes_to_the_one_spelled_like_the_free_one(
    backend, monkeypatch, cheat_score, kept
):
    """A bare "cheat!" under the echo's residue read "teat": the walk down the grammar found
    "three twos" (-1.28) and "cheat", spelled like "teat", scored -1.31; a tie, so "cheat"
    (a claim nobody made was taken from it, bench/echo). Clearly less likely, it loses."""
    free = Reading("teat", -1.2)
    backend.set_context(ListenContext.for_rank_due("2", PLAYERS))
    monkeypatch.setattr(backend, "_text", lambda reading: reading.text)
    monkeypatch.setattr(backend, "_walk", lambda encoded, free=None: ("three twos", -1.28))

    def log_probs_of(encoded, paths):  # every token of every phrase weighed the same
        return [np.full((len(path) + 1, 51865), cheat_score) for path in paths]

    monkeypatch.setattr(backend, "_log_probs_of", log_probs_of)
    assert ConstrainedWhisperBackend._forced(backend, None, free)[0] == kept
