"""Player names the recognizer may mix up are found before the game, with a fallback."""

from __future__ import annotations

import pytest

from referee.intents import parse
from referee.speech import make_recognizer
from referee.speech.names import PROBES, confusable_names, warnings
from referee.speech.synth import espeak_available

#: the probes speak with espeak-ng (and are heard by the default recognizer: slow)
needs_espeak = pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed")


@pytest.fixture(scope="module")
def recognizer():
    return make_recognizer()  # the default backend, as at the table


@pytest.mark.slow
@needs_espeak
def test_names_that_sound_alike_are_reported_with_a_fallback_that_parses(recognizer):
    players = ("Alice", "Ben", "Cara", "Dev")
    pairs = confusable_names(recognizer, players)
    assert ("Dev", "Ben") in pairs  # whisper hears the rhyme as the commoner name
    assert all(said in players and heard in players for said, heard in pairs)
    (line,) = [w for w in warnings(pairs, players) if w.startswith("Dev")]
    assert '"cheat, player four!"' in line
    assert parse("cheat, player four!", players).caller == "Dev"


@pytest.mark.slow
@needs_espeak
def test_distinct_names_raise_nothing_and_the_context_is_restored(recognizer):
    before = recognizer.context
    assert confusable_names(recognizer, ("Alice", "Ben", "Cara")) == []
    assert recognizer.context == before


@pytest.mark.slow
@needs_espeak
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


def test_a_name_most_probes_do_not_hear_is_reported_with_the_same_fallback(monkeypatch):
    """A room game (2026-12-05): "Nadia." answered "Who called?" twelve times and went
    unheard every time; the probes had heard her name once in three and warned of nothing."""
    from types import SimpleNamespace

    from referee.intents import Intent
    from referee.speech import names
    from referee.speech.types import Heard, Utterance

    heard_by = {"Nadia": {"en-us"}, "Rob": {"en-us", "en-gb"}}  # the probes that hear them
    said: list[tuple[str, str]] = []
    monkeypatch.setattr(names, "_spoken", lambda name, voice, speed: said.append((name, voice)))
    monkeypatch.setattr(names, "ArraySource", lambda speech: said[-1])

    def utterances(spoken):
        name, voice = spoken
        if voice in heard_by.get(name, {voice}):
            yield Heard(Utterance(0.5, 1.0, name.lower(), 0.5), Intent("name", name=name))

    recognizer = SimpleNamespace(context=None, set_context=lambda ctx: None, utterances=utterances)
    players = ("Marco", "Nadia", "Rob", "Yuki")
    pairs = confusable_names(recognizer, players, cache=None)
    assert pairs == [("Nadia", None)]  # Rob, heard by two probes of three, is not
    (line,) = warnings(pairs, players)
    assert line.startswith("Nadia may be heard as no name at all")
    assert '"cheat, player two!"' in line
