"""bench/speech/named.py scores the call the referee acts on: the first early reading it acts
on (a caller named, not guessed), else the last whole reading."""

from __future__ import annotations

from bench.speech.named import acted_on, bucket, margin_bucket
from referee.intents import Intent
from referee.speech.types import Heard, Utterance


def _call(caller: str | None, partial: bool, guessed: bool = False, at: float = 1.2) -> Heard:
    utterance = Utterance(0.0, 1.0, "cheat", 0.5, partial=partial)
    return Heard(utterance, Intent("call", caller=caller), decided_at=at, guessed=guessed)


def test_the_call_acted_on_is_the_first_early_one_acted_on_else_the_last_whole_reading():
    early, whole = _call("Ben", True, at=1.1), _call("Cara", False, at=1.4)
    assert acted_on([early, whole]) == ("Ben", True, 1.1)
    # a guessed early naming is not acted on: the whole reading decides
    assert acted_on([_call("Ben", True, guessed=True), _call(None, False)]) == (None, True, 1.2)
    assert acted_on([_call(None, True, at=1.1), whole]) == ("Cara", True, 1.4)
    assert acted_on([]) == (None, False, None)


def test_buckets():
    assert bucket(0.01) == "< 0.02" and bucket(0.5) == ">= 0.2"
    assert margin_bucket(0.1) == "< 0.25" and margin_bucket(float("inf")) == ">= 2.0"
