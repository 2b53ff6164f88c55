"""bench/speech/chatter.py counts what the referee would act on, as the call assembler does."""

from __future__ import annotations

from bench.speech.chatter import acted_on
from referee.intents import Intent
from referee.speech.types import Heard, Utterance


def _heard(text: str, intent: Intent, partial: bool, guessed: bool = False) -> Heard:
    return Heard(Utterance(1.0, 1.5, text, 0.1, partial=partial), intent, guessed=guessed)


def test_an_early_call_acted_on_counts_whatever_its_final_says():
    early = _heard("cara cheat", Intent("call", caller="Cara"), partial=True)
    final = _heard("three twos", Intent("claim", count=3, rank="2"), partial=False)
    assert acted_on([early, final]) == [early]


def test_finals_count_when_nothing_was_acted_on_early():
    guessed = _heard("cheat alice", Intent("call", caller="Alice"), True, guessed=True)
    final = _heard("cheat", Intent("call"), partial=False)
    assert acted_on([guessed, final]) == [final]
    assert acted_on([guessed]) == []
