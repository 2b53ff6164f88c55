"""The ``listener`` backend: whisper-constrained, checked by a head trained for the game.

The head (``models/listener.onnx``, see :mod:`referee.speech.listener.train`) reads the same
encoder frames whisper's decoder reads (no second encoder pass) and says what kind of thing
was said (claim, call, pass, command, name, count, or none of the game's) and its parts. It is
used on every reading, early ones too (the recognizer keeps a settled early reading as the
final one):

- whisper's reading stands when the head agrees on its kind, or is unsure;
- a reading the head is sure is no game phrase is dropped (chatter, non-game words);
- where whisper heard nothing legal (under babble it mostly heard nothing at all) or another
  kind, and the head is sure of a kind, the legal phrases of that kind that fit the head's
  parts are scored by whisper's decoder on the same encoding, and the likeliest by both
  (decoder mean log-prob plus the head's log-posterior) is taken, marked ``guessed``.

A phrase is made only on a whole reading (``final``: the first pause's and the utterance's
own), never on the periodic re-reads while the words go on: a guessed early reading is never
acted on (the whole utterance must confirm it, :mod:`referee.live.calls`), and making one
scores up to 16 phrases (0.3-0.6 s here): in a room game's "Cara, cheat!" such re-reads kept
the decoder busy and the call was acted on 2.2 s after its words (bench/table).

Which player is named stays whisper's business (names are per table). Contexts the head
does not know (bare counts above four, verdicts) keep whisper-constrained's reading. The
recognizer still checks every reading (interpret/admit).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from referee.game.cards import RANKS
from referee.intents import parse
from referee.speech import vocab
from referee.speech.backends.whisper import ConstrainedWhisperBackend
from referee.speech.listener.labels import (
    CALL_WORDS,
    COMMANDS,
    COUNTS,
    HEADS,
    KINDS,
    kept_frames,
)
from referee.speech.types import Hypothesis
from referee.speech.vocab import ListenContext, interpret

MODEL = Path(__file__).resolve().parents[3] / "models" / "listener.onnx"
#: the head's probability of "none" above which a reading whisper kept is dropped
REJECT = 0.9
#: the head's probability of a game kind above which a reading is made of that kind
RESCUE = 0.9
#: a claim is made only when the head gives the legal ranks together at least this: a clear
#: "two sevens" with eights due stays unheard, as whisper-constrained keeps it (``compatible``)
LEGAL_RANK_MIN = 0.25
#: weight of the head's log-posterior of a phrase's parts against the decoder's mean log-prob
HEAD_WEIGHT = 1.0
#: the kinds the head knows; contexts listening for any other keep whisper's reading
KNOWN = frozenset(KINDS[1:])


class ListenerHead:
    """The ONNX head: encoder frames (time, 384) -> probabilities per part."""

    def __init__(self, path: Path | str = MODEL, threads: int = 1):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def __call__(self, frames: np.ndarray) -> dict[str, np.ndarray]:
        x = np.ascontiguousarray(frames, dtype=np.float32)[None]
        outs = self.session.run(None, {"frames": x})
        return {name: out[0] for name, out in zip(HEADS, outs, strict=True)}


def call_word(phrase: str) -> str | None:
    """Which of the grammar's call words ``phrase`` (normalized) says."""
    for word in ("i doubt it", "b s"):
        if word in phrase:
            return word
    return next((w for w in phrase.split() if w in CALL_WORDS), None)


class ListenerBackend(ConstrainedWhisperBackend):
    name = "listener"

    def __init__(
        self,
        model: Path | str | None = None,
        make_kinds: frozenset[str] = KNOWN,
        **options,
    ):
        super().__init__(**options)
        self.head = ListenerHead(model or MODEL)
        #: the kinds the head may make a phrase of where whisper heard none (trials: without
        #: "name", names alone are left to whisper's own reading)
        self.make_kinds = frozenset(make_kinds)
        #: the last head reading (for tests and reports)
        self.last_posteriors: dict[str, np.ndarray] | None = None

    def set_context(self, ctx: ListenContext) -> list[str]:
        warnings = super().set_context(ctx)
        self.covered = ctx.intents <= KNOWN and ctx.max_count <= max(COUNTS)
        self._phrases = vocab.phrases(ctx)
        return warnings

    def posteriors(self, encoded, n_samples: int) -> dict[str, np.ndarray]:
        frames = np.asarray(encoded)[0]
        return self.head(frames[: kept_frames(n_samples, len(frames))])

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        base = super().decode(audio, final=final)
        if not self.covered or self._last is None:
            return base
        encoded = self._last[1]
        p = self.posteriors(encoded, len(audio))
        self.last_posteriors = p
        kind = KINDS[int(np.argmax(p["kind"]))]
        sure = float(np.max(p["kind"]))
        heard = interpret(base.text, self.ctx) if base.text else None
        if kind == "none":
            if heard is not None and sure >= REJECT:
                return Hypothesis("", chatter=len(base.text.split()) > 1)
            return base
        if heard is not None and heard.type == kind:
            return base
        if not final:
            return base  # see the module docstring: a guess is made on whole readings only
        if sure < RESCUE or kind not in self.ctx.intents or kind not in self.make_kinds:
            return base
        if kind == "claim" and self._legal_rank_p(p) < LEGAL_RANK_MIN:
            return base  # a claim of another rank, clearly heard, is not mended onto this one
        text, score = self._choose(encoded, kind, p)
        if not text or interpret(text, self.ctx) is None:
            return base
        confidence = sure * math.exp(min(0.0, score))
        return Hypothesis(self._best_name(encoded, text), max(confidence, 0.01), guessed=True)

    def _legal_rank_p(self, p: dict[str, np.ndarray]) -> float:
        return float(sum(p["rank"][RANKS.index(r)] for r in self.ctx.legal_ranks))

    def _candidates(self, kind: str, p: dict[str, np.ndarray]) -> list[tuple[str, float]]:
        """Legal phrases of ``kind`` that fit the head's parts, with the head's log-posterior
        of those parts."""
        out: list[tuple[str, float]] = []
        log = {name: np.log(np.maximum(v, 1e-6)) for name, v in p.items()}
        players = self.ctx.players
        for phrase in self._phrases:
            intent = parse(phrase, players)
            if intent.type != kind:
                continue
            if kind == "claim":
                if intent.count not in COUNTS:
                    continue
                out.append(
                    (
                        phrase,
                        float(
                            log["count"][COUNTS.index(intent.count)]
                            + log["rank"][RANKS.index(intent.rank)]
                        ),
                    )
                )
            elif kind == "call":
                word = call_word(phrase)
                if word is None:
                    continue
                named = int(len(phrase.split()) > len(word.split()))
                parts = log["call_word"][CALL_WORDS.index(word)] + log["named"][named]
                out.append((phrase, float(parts)))
            elif kind == "command":
                out.append((phrase, float(log["command"][COMMANDS.index(intent.command)])))
            elif kind == "count":
                if intent.count in COUNTS:
                    out.append((phrase, float(log["count"][COUNTS.index(intent.count)])))
            else:
                out.append((phrase, 0.0))
        out.sort(key=lambda c: -c[1])
        if kind == "call":  # the likeliest call word, both ways of naming when unsure
            best = out[0][1] if out else 0.0
            out = [c for c in out if c[1] >= best - 1.5]
        return out[:16]

    def _choose(self, encoded, kind: str, p: dict[str, np.ndarray]) -> tuple[str, float]:
        """The candidate likeliest by decoder mean log-prob plus the head's log-posterior."""
        candidates = self._candidates(kind, p)
        if not candidates:
            return "", -math.inf
        phrases = [c[0] for c in candidates]
        means = self._mean_scores(encoded, phrases)
        totals = [m + HEAD_WEIGHT * h for m, (_, h) in zip(means, candidates, strict=True)]
        best = int(np.argmax(totals))
        return phrases[best], means[best]

    def _mean_scores(self, encoded, phrases: list[str]) -> list[float]:
        """The decoder's mean log-prob of each phrase (in its usual writing) and its end."""
        paths = [
            self._usual.get(p) or self.hf.encode(" " + p, add_special_tokens=False).ids
            for p in phrases
        ]
        out = []
        for path, rows in zip(paths, self._log_probs_of(encoded, paths), strict=True):
            ends = max(rows[len(path), t] for t in self.end_tokens)
            out.append(float(np.mean([*(rows[i, t] for i, t in enumerate(path)), ends])))
        return out
