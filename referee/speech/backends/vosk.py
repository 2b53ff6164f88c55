"""Vosk (Kaldi) in grammar mode, with a model the user downloads.

No English model can ship with the referee; point ``--vosk-model DIR`` at one from
https://alphacephei.com/vosk/models (e.g. vosk-model-small-en-us) or unpack it under
``models/``. Grammar mode forces off-list speech onto listed words with full confidence,
so ``[unk]`` and a loop of common non-game words are offered as escapes, and the
recognizer validates the result against what is legal now.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from referee.speech.types import SAMPLE_RATE, Hypothesis
from referee.speech.vocab import GARBAGE_WORDS, ListenContext, phrases

DOWNLOAD_PAGE = "https://alphacephei.com/vosk/models"
MODELS_DIR = Path("models")


def find_model(model_dir: str | Path | None = None) -> Path:
    """The model directory to use: the one given, else the first ``models/vosk*``."""
    from referee.errors import UserError

    if model_dir is None:
        found = sorted(p for p in MODELS_DIR.glob("vosk*") if p.is_dir())
        if not found:
            raise UserError(
                f"No Vosk model found. Download one from {DOWNLOAD_PAGE} and pass "
                f"--vosk-model DIR or unpack it under {MODELS_DIR}/ (a folder named vosk-...)."
            )
        model_dir = found[0]
    path = Path(model_dir)
    if not path.is_dir():
        raise UserError(f"Vosk model directory {path} does not exist. Get one from {DOWNLOAD_PAGE}")
    if not ((path / "am" / "final.mdl").is_file() or (path / "final.mdl").is_file()):
        raise UserError(
            f"{path} is not a Vosk model (no am/final.mdl inside). Get one from {DOWNLOAD_PAGE}"
        )
    return path


class VoskBackend:
    name = "vosk"
    streaming_cost_s = 0.05

    def __init__(self, model_dir: str | Path | None = None):
        import vosk

        from referee.errors import UserError

        vosk.SetLogLevel(-1)
        path = find_model(model_dir)
        try:
            self.model = vosk.Model(str(path))
        except Exception as err:  # vosk raises a bare Exception on a bad model
            raise UserError(
                f"Could not load the Vosk model in {path} ({err}). Get one from {DOWNLOAD_PAGE}"
            ) from err
        self.set_context(ListenContext())

    def _known(self, phrase: str) -> bool:
        return all(self.model.vosk_model_find_word(w) >= 0 for w in phrase.split())

    def set_context(self, ctx: ListenContext) -> list[str]:
        import vosk

        legal = [p for p in phrases(ctx) if self._known(p)]
        words = {w for p in legal for w in p.split()}
        garbage = [w for w in GARBAGE_WORDS if w not in words and self._known(w)]
        warnings = []
        if not legal:
            warnings.append("the Vosk model knows none of the game's words (wrong language?)")
        self.grammar = [*legal, *garbage, "[unk]"]
        self.recognizer = vosk.KaldiRecognizer(self.model, SAMPLE_RATE, json.dumps(self.grammar))
        self.recognizer.SetWords(True)
        return warnings

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes()
        self.recognizer.AcceptWaveform(pcm)
        result = json.loads(self.recognizer.FinalResult())
        self.recognizer.Reset()
        words = [w for w in result.get("result", []) if w.get("word") != "[unk]"]
        text = " ".join(w["word"] for w in words)
        if not text:
            return Hypothesis("")
        confidence = float(np.mean([w.get("conf", 1.0) for w in words]))
        return Hypothesis(text, confidence)
