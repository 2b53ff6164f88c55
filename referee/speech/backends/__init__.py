"""Recognizer backends: each turns a stretch of 16 kHz audio into a :class:`Hypothesis`.

A backend knows nothing of streams, timing or the game's rules; it only takes the legal
vocabulary (:meth:`Backend.set_context`) so its grammar or prompt can expect those words.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from referee.speech.types import Hypothesis
from referee.speech.vocab import ListenContext

#: name -> (module, class); imported only when chosen.
BACKENDS: dict[str, tuple[str, str]] = {
    "whisper": ("referee.speech.backends.whisper", "WhisperBackend"),
    "whisper-constrained": ("referee.speech.backends.whisper", "ConstrainedWhisperBackend"),
    "pocketsphinx": ("referee.speech.backends.sphinx", "SphinxBackend"),
    "vosk": ("referee.speech.backends.vosk", "VoskBackend"),
    # whisper-constrained checked by a head trained for the game (models/listener.onnx)
    "listener": ("referee.speech.listener.backend", "ListenerBackend"),
}
#: whisper-constrained (whisper that mends near misses onto the legal vocabulary, with the
#: checks that keep chatter and clear non-game words out) checked by the head trained for the
#: game: as good on real recordings, better on every game-phrase row of bench/speech (claims
#: and calls under 10 dB babble 81.8% against 61.4%) and in whole room games (bench/table:
#: every claim right the first time in 6 games, calls under babble 11/13 against 9/15);
#: models/listener.md says what it costs (bench/speech/chatter: 12 invented calls an hour
#: against 6, 24 invented acts against 30)
DEFAULT_BACKEND = "listener"


class Backend(Protocol):
    name: str
    #: whether decoding is cheap enough to re-run on an utterance in progress
    streaming_cost_s: float

    def set_context(self, ctx: ListenContext) -> list[str]:
        """Listen for this vocabulary from now on; returns warnings (e.g. unmodelled names)."""
        ...

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        """Recognize float32 16 kHz mono audio holding one utterance. ``final=False``: the
        utterance may still be going on, and work only a final reading needs may be skipped
        (the hypothesis is then marked ``unsettled``)."""
        ...


def create(name: str, **options) -> Backend:
    import importlib

    from referee.errors import UserError

    if name not in BACKENDS:
        raise UserError(f"Unknown backend {name!r}; choose one of {', '.join(BACKENDS)}.")
    module_name, class_name = BACKENDS[name]
    module = importlib.import_module(module_name)
    return getattr(module, class_name)(**options)
