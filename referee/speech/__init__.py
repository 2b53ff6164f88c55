"""Speech in: hear claims, calls, names and commands at the table.

The pieces: audio sources (:mod:`.audio`), voice activity (:mod:`.vad`), the legal vocabulary
(:mod:`.vocab`), backends (:mod:`.backends`) and the :class:`Recognizer` that ties them.
"""

from referee.speech.types import SAMPLE_RATE, Heard, Hypothesis, Utterance
from referee.speech.vocab import ListenContext

__all__ = ["SAMPLE_RATE", "Heard", "Hypothesis", "ListenContext", "Utterance", "make_recognizer"]


def make_recognizer(backend: str | None = None, **options):
    """A :class:`~referee.speech.recognizer.Recognizer` with the named (or default) backend."""
    from referee.speech.backends import DEFAULT_BACKEND
    from referee.speech.recognizer import Recognizer

    return Recognizer(backend_name=backend or DEFAULT_BACKEND, **options)
