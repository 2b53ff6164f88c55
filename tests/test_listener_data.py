"""The listener's generated clips carry the right labels (the head learns what they say)."""

from __future__ import annotations

import random

from referee.intents import parse
from referee.speech.listener import data
from referee.speech.listener.labels import COMMANDS, IGNORE, KINDS, Label
from referee.speech.vocab import ListenContext, interpret


def test_a_claim_text_says_its_label():
    for seed in range(300):
        text, label = data.claim_text(random.Random(seed))
        intent = parse(text, [])
        assert (intent.type, intent.count, intent.rank) == ("claim", label.count, label.rank), text


def test_a_call_text_names_a_caller_exactly_when_labelled_named():
    for seed in range(200):
        text, label = data.call_text(random.Random(seed))
        said = [w.strip(",!") for w in text.split()]
        names = [w.capitalize() for w in said if w.lower() in data.FIRST_NAMES]
        intent = parse(text, names or ["Nobody"])
        assert intent.type == "call", text
        assert (intent.caller is not None or "player" in text) == label.named, text


def test_commands_passes_and_counts_say_their_label():
    rng = random.Random(3)
    for kind in ("command", "pass", "count"):
        for _ in range(40):
            text, label = data.text_for(kind, rng)
            intent = parse(text, [])
            assert intent.type == kind, text
            if kind == "command":
                assert intent.command == label.command
            if kind == "count":
                assert intent.count == label.count


def test_negatives_are_no_game_phrase():
    everything = ListenContext(players=("Alice", "Ben"))
    for text in data.CHATTER + data.SHORT_NEGATIVES + data.SHORT_PHRASES + data.NEAR_MISSES:
        assert interpret(text, everything) is None, text


def test_targets_index_the_heads_and_ignore_what_does_not_apply():
    targets = Label("claim", count=3, rank="7").targets()
    assert targets["kind"] == KINDS.index("claim") and targets["count"] == 2
    assert targets["command"] == IGNORE and targets["named"] == IGNORE
    assert Label("command", command="stop").targets()["command"] == COMMANDS.index("stop")


def test_the_bench_voices_are_held_out():
    from bench.speech.corpus import VOICES

    assert not set(VOICES) & set(data.ESPEAK_VOICES)
    assert set(VOICES) == data.HELD_OUT_VOICES


def test_the_crowds_made_up_lines_are_no_game_phrase_and_its_accents_speak():
    everything = ListenContext(players=("Alice", "Ben"))
    rng = random.Random(5)
    for _ in range(200):
        line = data.crowd_line(rng)
        assert interpret(line, everything) is None, line
    for accent in data.ACCENTS:  # every accent is a voice this espeak-ng has
        audio = data.speak_accented("is this seat taken", random.Random(1), accent)
        assert len(audio) > 0.3 * 16000, accent
