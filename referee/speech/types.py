"""The small messages every part of speech-in passes around (wyoming-style).

Every backend turns audio into :class:`Utterance`; :mod:`referee.intents` turns its text into an
:class:`~referee.intents.Intent`; the recognizer pairs them as :class:`Heard`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.intents import Intent

SAMPLE_RATE = 16_000


@dataclass(frozen=True)
class Utterance:
    """Something a player said: audio times in seconds from the start of the stream.

    ``start`` is the onset of voice activity, so "who called first" is decided by when the
    words began, never by how long the recognizer took. ``partial`` marks an early result
    (a call recognized before the speaker stopped); a final result with the same ``start``
    follows it.
    """

    start: float
    end: float
    text: str
    confidence: float | None = None
    partial: bool = False


@dataclass(frozen=True)
class Heard:
    """An utterance and what it means at the table."""

    utterance: Utterance
    intent: Intent
    #: audio time at which the recognizer knew this (decoding time included), for latency
    decided_at: float | None = None
    #: read by forcing the words onto the vocabulary (see :class:`Hypothesis`)
    guessed: bool = False
    #: the enrolled player whose voice it is (None: unsure, or no voice profile in use)
    speaker: str | None = None
    #: how like that voice it was (cosine similarity); set whenever a voice profile was
    #: asked, so ``to_dict`` then says ``"speaker"`` even when it is None
    speaker_score: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``referee listen`` JSON object."""
        u = self.utterance
        data: dict[str, Any] = {
            "start": round(u.start, 3),
            "end": round(u.end, 3),
            "text": u.text,
            "intent": self.intent.to_dict(),
        }
        if u.confidence is not None:
            data["confidence"] = round(u.confidence, 3)
        if u.partial:
            data["partial"] = True
        if self.speaker_score is not None:
            data["speaker"] = self.speaker
        return data


@dataclass(frozen=True)
class Hypothesis:
    """A backend's best guess for one stretch of audio; ``text`` is empty when it heard nothing.

    ``chatter`` marks speech that was heard but is no table talk (longer than any legal
    phrase): whatever was read early from the same words does not stand either. ``guessed``
    marks a reading forced onto the legal vocabulary after the free reading was not legal:
    read early, it stands only if the whole utterance confirms it. ``unsettled`` marks an
    early reading made without the work only a final reading needs (the forced second
    reading): the same audio must be decoded again, as final, before the reading is reused.
    """

    text: str
    confidence: float | None = None
    chatter: bool = False
    guessed: bool = False
    unsettled: bool = False
