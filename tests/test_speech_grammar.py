"""The tree of legal phrases that the constrained whisper backend walks, and the walk itself."""

from __future__ import annotations

import numpy as np
import pytest

from referee.intents import normalize
from referee.speech import grammar
from referee.speech.synth import espeak_available, padded, synthesize
from referee.speech.vocab import PHASE_INTENTS, ListenContext

PLAYERS = ("Alice", "Ben", "Cara")
PLAY = ListenContext.for_rank_due("7", PLAYERS, intents=PHASE_INTENTS["play"])


def letters(text: str) -> list[int]:
    """A stand-in tokenizer: one token per character."""
    return [ord(c) for c in text]


def spelled(node: grammar.Node, prefix: str = "") -> set[str]:
    """Every string that ends on a terminal node of the tree."""
    found = {prefix} if node.terminal else set()
    for token, child in node.children.items():
        found |= spelled(child, prefix + chr(token))
    return found


def test_surface_forms_are_written_as_a_decoder_writes():
    assert {"Ben, cheat", "ben cheat", "Ben cheat", "ben, Cheat"} <= set(
        grammar.surface_forms("ben cheat")
    )
    assert "B.S." in grammar.surface_forms("b s")
    assert grammar.surface_forms("i doubt it") == ["I doubt it"]


def test_spoken_phrases_hold_what_is_legal_now_and_nothing_else():
    legal = grammar.spoken_phrases(PLAY)
    assert {"two sevens", "a seven", "what's the score", "cheat ben", "pass"} <= set(legal)
    assert "two kings" not in legal and "five sevens" not in legal  # not the rank due; too many
    assert "ben" in legal  # a name may complete a call said next to it
    assert not set(grammar.spoken_phrases(ListenContext(intents={"command"}))) & {"ben", "pass"}


def test_the_tree_spells_exactly_the_surface_forms():
    legal = ["two sevens", "b s", "cheat ben"]
    tree = grammar.build(letters, legal)
    expected = {" " + form for p in legal for form in grammar.surface_forms(p)}
    assert spelled(tree) == expected
    assert {normalize(s) for s in spelled(tree)} == {"two sevens", "bs", "cheat ben"}


@pytest.mark.slow
@pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed")
@pytest.mark.parametrize("text", ["whose turn", "the weather is lovely", "hmm"])
def test_the_forced_reading_is_always_a_legal_phrase(text):
    from referee.speech.backends.whisper import ConstrainedWhisperBackend

    backend = ConstrainedWhisperBackend()
    backend.set_context(PLAY)
    speech = synthesize(text, voice="en-gb", speed=160)
    audio = padded(speech, lead_s=0.3, tail_s=0.5, level=0.1, noise=3e-4)
    encoded = backend.encode(audio)
    forced, score = backend._forced(encoded)
    legal = {normalize(f) for p in grammar.spoken_phrases(PLAY) for f in grammar.surface_forms(p)}
    assert forced in legal and score < 0
    if text == "whose turn":
        assert forced == "whose turn"


@pytest.mark.slow
def test_forced_log_probs_line_up_with_the_free_reading():
    """Row i of the teacher-forced log-probs is the decoder's choice for token i: the free
    (greedy) reading's tokens are each their row's best."""
    from referee.speech.backends.whisper import ConstrainedWhisperBackend, _log_softmax

    backend = ConstrainedWhisperBackend()
    backend.set_context(PLAY)
    rng = np.random.default_rng(1)
    audio = (
        padded(
            synthesize("three sevens", voice="en-us", speed=150),
            lead_s=0.3,
            tail_s=0.5,
            level=0.1,
            noise=3e-4,
        )
        if espeak_available()
        else rng.normal(0, 0.05, 16000).astype(np.float32)
    )
    encoded = backend.encode(audio)
    free = backend._generate(encoded)
    tokens = list(free.sequences_ids[0])[:4]
    rows = backend._log_probs(encoded, tokens)
    assert rows.shape[0] == len(tokens) + 1
    assert np.allclose(np.exp(rows).sum(axis=1), 1.0, atol=1e-3)
    assert [int(rows[i].argmax()) for i in range(len(tokens))] == tokens
    # the free reading's own log-probs, which the walk reuses, are the same numbers, save
    # for the symbols the free reading may not write
    reused = _log_softmax(free)[: len(tokens) + 1]
    allowed = reused > -1e30
    assert allowed.mean() > 0.99
    assert np.allclose(reused[allowed], rows[allowed], atol=0.05)


@pytest.mark.slow
@pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed")
def test_the_walk_reads_the_same_with_or_without_the_free_readings_log_probs():
    from referee.speech.backends.whisper import ConstrainedWhisperBackend

    backend = ConstrainedWhisperBackend()
    backend.set_context(PLAY)
    speech = synthesize("cheat artless", voice="en-us", speed=160)
    encoded = backend.encode(padded(speech, lead_s=0.3, tail_s=0.4, level=0.1, noise=3e-4))
    text, score = backend._forced(encoded)
    reused_text, reused_score = backend._forced(encoded, backend._generate(encoded))
    assert reused_text == text and reused_score == pytest.approx(score, abs=0.05)


@pytest.mark.slow
def test_the_guessed_rest_of_the_way_is_the_phrase_spelled_like_the_free_reading():
    from referee.speech.backends.whisper import ConstrainedWhisperBackend

    backend = ConstrainedWhisperBackend()
    backend.set_context(PLAY)

    def guess(prefix: str, heard: str) -> str:
        tokens = backend.hf.encode(prefix, add_special_tokens=False).ids if prefix else []
        node = backend.grammar
        for token in tokens:
            node = node.children[token]
        return backend.hf.decode(tokens + backend._likeliest_rest(node, tokens, heard))

    # the phrase most like what was heard, in the form the decoder writes (sentence case,
    # no comma), not just any form of it
    assert guess(" Two", " Too several.") == " Two sevens"
    assert guess(" Ben", " Man cheat") == " Ben cheat"
    assert guess(" Che", " Cheeter!") == " Cheater"
    assert guess(" Two", "") == " Two"  # nothing heard: no guess


@pytest.mark.slow
@pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed")
def test_guessing_the_rest_of_the_way_saves_decoder_passes_and_reads_the_same(monkeypatch):
    """A pass scores the guessed rest of the phrase too; when the walk goes that way, its
    later forks need no pass of their own. The reading must not change."""
    from referee.speech.backends.whisper import ConstrainedWhisperBackend

    backend = ConstrainedWhisperBackend()
    backend.set_context(PLAY)
    passes = [0]
    log_probs = backend._log_probs

    def counted(encoded, tokens):
        passes[0] += 1
        return log_probs(encoded, tokens)

    monkeypatch.setattr(backend, "_log_probs", counted)
    readings = {}
    for guessing in (True, False):
        if not guessing:
            monkeypatch.setattr(backend, "_likeliest_rest", lambda node, tokens, heard: [])
        passes[0] = 0
        for text in ("three sevens", "cheat artless", "two several", "bullshit Alice"):
            speech = synthesize(text, voice="en-us", speed=160)
            encoded = backend.encode(padded(speech, lead_s=0.3, tail_s=0.4, level=0.1))
            readings[guessing, text] = backend._forced(encoded, backend._generate(encoded))
        readings[guessing] = passes[0]
    for text in ("three sevens", "cheat artless", "two several", "bullshit Alice"):
        (guessed, score), (plain, plain_score) = readings[True, text], readings[False, text]
        assert guessed == plain and score == pytest.approx(plain_score, abs=0.05)
    assert readings[True] < readings[False]


@pytest.mark.slow
@pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed")
def test_an_early_reading_finished_as_final_reuses_its_encoding():
    """The recognizer finishes an unsettled early reading on the same audio: the backend
    encodes it once, and reads it as a fresh backend would."""
    from referee.speech.backends.whisper import ConstrainedWhisperBackend

    audio = padded(synthesize("cheeter"), lead_s=0.3, tail_s=0.3)
    fresh = ConstrainedWhisperBackend()
    fresh.set_context(PLAY)
    expected = fresh.decode(audio, final=True)
    assert expected.guessed  # the free reading was not legal: the walk mended it

    backend = ConstrainedWhisperBackend()
    backend.set_context(PLAY)
    encoded: list[int] = []
    encode = backend.encode
    backend.encode = lambda samples: encoded.append(len(samples)) or encode(samples)
    assert backend.decode(audio, final=False).unsettled
    assert backend.decode(audio.copy(), final=True) == expected
    assert encoded == [len(audio)]
    backend.decode(audio[:-320], final=True)  # other audio
    backend.set_context(ListenContext.for_rank_due("8", PLAYERS))  # another prompt
    backend.decode(audio[:-320], final=True)
    assert len(encoded) == 3


def test_the_usual_form_is_sentence_case_with_names_capitalized():
    assert grammar.usual_form("undo that") == "Undo that"
    assert grammar.usual_form("cheat ben", PLAYERS) == "Cheat Ben"
    assert grammar.usual_form("ben cheat", PLAYERS) == "Ben cheat"
    assert grammar.usual_form("i pass") == "I pass"
    assert grammar.usual_form("b s") == "B.S."
    assert grammar.usual_form("cheat mary ann", ("Mary Ann",)) == "Cheat Mary Ann"


@pytest.mark.slow
def test_the_forced_reading_weighs_the_phrases_spelled_like_the_free_one_whole():
    """The greedy walk settles a phrase at its first token: the piper voices' "undo", read
    "end you", walked to "end the evening". The legal phrases spelled most like the free
    reading that begin with another word are scored whole as well, and the likeliest
    reading kept."""
    from referee.speech.backends.whisper import ConstrainedWhisperBackend

    backend = ConstrainedWhisperBackend()
    backend.set_context(PLAY)
    undo = backend._usual["undo"]
    assert backend.hf.decode(undo) == " Undo"
    scored: list[list[int]] = []

    def log_probs_of(encoded, paths):
        scored.extend(paths)
        vocabulary = 51864  # tiny.en's
        return [np.full((len(p) + 1, vocabulary), -1.0 if p == undo else -6.0) for p in paths]

    backend._walk = lambda encoded, free=None: ("end the evening", -4.7)
    backend._text = lambda free: "end you"
    backend._log_probs_of = log_probs_of
    assert backend._forced(None, free=object()) == ("undo", pytest.approx(-1.0))
    assert undo in scored and len(scored) <= 6
    backend._walk = lambda encoded, free=None: ("undo", -0.5)  # the walk's own reading stands
    assert backend._forced(None, free=object()) == ("undo", -0.5)
    assert backend._forced(None) == ("undo", -0.5)  # no free reading: the walk alone
    # past its first word the walk's choices stand: "cheat" is not weighed against the
    # walk's "cheat ben" (scored whole, a phrase ending early may beat the name heard)
    scored.clear()
    backend._walk = lambda encoded, free=None: ("cheat ben", -1.5)
    backend._text = lambda free: "cheat yeah"
    assert backend._forced(None, free=object()) == ("cheat ben", -1.5)
    assert scored and backend._usual["cheat"] not in scored
    # nor another count against the walk's claim: the walk weighed the counts at its first fork
    scored.clear()
    backend._walk = lambda encoded, free=None: ("two sevens", -1.5)
    backend._text = lambda free: "to sevens"
    assert backend._forced(None, free=object()) == ("two sevens", -1.5)
    assert backend._usual["three sevens"] not in scored
