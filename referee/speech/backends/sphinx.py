"""pocketsphinx 5 with its bundled en-us model and a JSGF grammar of the legal vocabulary.

Fast (tens of ms per utterance) but a grammar cannot say "none of these": off-list speech is
forced onto the nearest phrase. A loop of common non-game words in the grammar gives it
somewhere else to go; whatever still comes out is checked against what is legal now by the
recognizer. Digital silence confuses its noise estimate, so a faint noise floor is added.
"""

from __future__ import annotations

import numpy as np

from referee.speech.types import Hypothesis
from referee.speech.vocab import GARBAGE_WORDS, ListenContext, name_words, phrases

NOISE_FLOOR = 20 / 32768  # about -64 dBFS of gaussian noise
PLAYER_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def jsgf(alternatives: list[str], garbage: list[str]) -> str:
    body = " | ".join(alternatives)
    lines = ["#JSGF V1.0;", "grammar table;", f"public <utterance> = {body}"]
    if garbage:
        lines[-1] += " | <garbage>+"
        lines.append(f"<garbage> = {' | '.join(garbage)};")
    else:
        lines[-1] += ";"
    if garbage:
        lines[2] += ";"
    return "\n".join(lines) + "\n"


class SphinxBackend:
    name = "pocketsphinx"
    streaming_cost_s = 0.03

    def __init__(self, garbage: bool = True, seed: int = 0):
        from pocketsphinx import Decoder

        self.decoder = Decoder(bestpath=False, lm=None, loglevel="FATAL")
        self.use_garbage = garbage
        self.rng = np.random.default_rng(seed)
        self.set_context(ListenContext())

    def _known(self, phrase: str) -> bool:
        return all(self.decoder.lookup_word(w) for w in phrase.split())

    def set_context(self, ctx: ListenContext) -> list[str]:
        warnings = []
        for name, key in zip(ctx.players, name_words(ctx), strict=False):
            if not self._known(key):
                seat = ctx.players.index(name) + 1
                warnings.append(
                    f"pocketsphinx cannot model the name {name!r}; "
                    f"say 'player {PLAYER_NUMBERS[seat - 1] if seat <= 10 else seat}' instead."
                )
        legal = [p for p in phrases(ctx) if self._known(p)]
        if ctx.players and "call" in ctx.intents:
            for seat in range(1, min(len(ctx.players), 10) + 1):
                legal += [
                    f"player {PLAYER_NUMBERS[seat - 1]} cheat",
                    f"cheat player {PLAYER_NUMBERS[seat - 1]}",
                ]
        legal_words = {w for p in legal for w in p.split()}
        garbage = [w for w in GARBAGE_WORDS if w not in legal_words and self._known(w)]
        grammar = jsgf(legal, garbage if self.use_garbage else [])
        self.decoder.add_jsgf_string("table", grammar)
        self.decoder.activate_search("table")
        return warnings

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        noisy = audio + self.rng.normal(0, NOISE_FLOOR, len(audio)).astype(np.float32)
        pcm = (np.clip(noisy, -1, 1) * 32767).astype("<i2").tobytes()
        self.decoder.start_utt()
        self.decoder.process_raw(pcm, no_search=False, full_utt=True)
        self.decoder.end_utt()
        hyp = self.decoder.hyp()
        if hyp is None or not hyp.hypstr:
            return Hypothesis("")
        return Hypothesis(hyp.hypstr, None)
