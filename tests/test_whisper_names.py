"""Whisper weighs the player a call names against every other player (whole phrase, lower
case), so a rarer name it hears ("Dev") is not settled on a common one ("Ben") at the
name's first token. The clips are ones the greedy reading alone took for Ben."""

from __future__ import annotations

import pytest

from referee.speech.backends.whisper import ConstrainedWhisperBackend
from referee.speech.synth import padded, synthesize
from referee.speech.vocab import PHASE_INTENTS, ListenContext

PLAYERS = ("Alice", "Ben", "Cara", "Dev")


@pytest.fixture(scope="module")
def backend():
    backend = ConstrainedWhisperBackend()
    backend.set_context(ListenContext(players=PLAYERS, intents=PHASE_INTENTS["play"]))
    return backend


def _clip(text: str, voice: str, speed: int, pitch: int):
    speech = synthesize(text, voice=voice, speed=speed, pitch=pitch)
    return padded(speech, lead_s=0.3, tail_s=0.3, level=0.1, noise=3e-4)


@pytest.mark.parametrize(
    "text, voice, speed, pitch, caller",
    [
        ("cheat, Dev!", "en-us", 160, 50, "dev"),
        # not ("cheat, Dev!", "en-us+f3", 165, 70): on some CPUs int8 decoding hears it "ben"
        # weighed too (2026-12-02: read "dev" on one 2-core machine, "ben" on the next)
        ("bullshit, Dev!", "en-gb-scotland", 160, 50, "dev"),
        ("cheat, Ben!", "en-gb-x-rp", 150, 40, "ben"),
        ("Ben, cheat!", "en-us+f3", 165, 70, "ben"),
    ],
)
def test_the_name_heard_is_the_one_said(backend, text, voice, speed, pitch, caller):
    heard = backend.decode(_clip(text, voice, speed, pitch)).text.split()
    assert caller in heard and {"cheat", "bullshit"} & set(heard), heard


def test_greedy_reading_alone_took_dev_for_ben(backend, monkeypatch):
    """The case the weighing is for: without it the same clip names Ben."""
    monkeypatch.setattr(type(backend), "_best_name", lambda self, encoded, text: text)
    assert backend.decode(_clip("cheat, Dev!", "en-us", 160, 50)).text == "cheat ben"
