"""Player names the recognizer may mix up are found before the game, with a fallback."""

from __future__ import annotations

import pytest

from referee.intents import parse
from referee.speech import make_recognizer
from referee.speech.names import PROBES, confusable_names, warnings
from referee.speech.synth import espeak_available

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed"),
]


@pytest.fixture(scope="module")
def recognizer():
    return make_recognizer()  # the default backend, as at the table


def test_names_that_sound_alike_are_reported_with_a_fallback_that_parses(recognizer):
    players = ("Alice", "Ben", "Cara", "Dev")
    pairs = confusable_names(recognizer, players)
    assert ("Dev", "Ben") in pairs  # whisper hears the rhyme as the commoner name
    assert all(said in players and heard in players for said, heard in pairs)
    (line,) = [w for w in warnings(pairs, players) if w.startswith("Dev")]
    assert '"cheat, player four!"' in line
    assert parse("cheat, player four!", players).caller == "Dev"


def test_distinct_names_raise_nothing_and_the_context_is_restored(recognizer):
    before = recognizer.context
    assert confusable_names(recognizer, ("Alice", "Ben", "Cara")) == []
    assert recognizer.context == before


def test_the_answer_is_kept_for_the_same_names_and_recognizer(recognizer, tmp_path):
    from types import SimpleNamespace

    cache = tmp_path / "names.json"
    players = ("Alice", "Ben", "Cara", "Dev")
    probes = PROBES[:1]  # one voice: four decodes
    first = confusable_names(recognizer, players, probes, cache=cache)
    assert cache.is_file()

    def deaf(_audio):
        raise AssertionError("probed again")

    same = SimpleNamespace(backend=recognizer.backend, context=None, utterances=deaf,
                           set_context=lambda ctx: None)  # fmt: skip
    assert confusable_names(same, players, probes, cache=cache) == first  # read, not probed
    with pytest.raises(AssertionError, match="probed again"):
        confusable_names(same, ("Alice", "Ben"), probes, cache=cache)  # other names: probed
    with pytest.raises(AssertionError, match="probed again"):
        confusable_names(same, players, probes, cache=None)  # not kept: probed
    cache.write_text("{not json")
    assert confusable_names(recognizer, players, probes, cache=cache) == first  # probed anew
