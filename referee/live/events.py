"""What happens at the table, as typed events on one queue (wyoming-style).

Sources post events from their own threads: the microphone (or a file standing in for it)
posts :class:`AudioChunk`, the recognizer's results come back as :class:`Heard` (the
:class:`referee.speech.types.Heard` message itself), the card reader's worker posts
:class:`CardsRead`, the voice posts :class:`VoiceStarted` / :class:`VoicePlayed`, the
keyboard posts :class:`Key`, a timer may post :class:`Tick`. One handler
(:class:`referee.live.loop.LiveReferee`) takes them in order and is the only place that
changes the live state. :class:`AudioEnded` and :class:`Stop` end the evening.

Example (another thread telling the referee something)::

    referee.post(Key("u"))                    # typed: undo
    referee.post(Stop("the window was closed"))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.speech.audio import Chunk
from referee.speech.types import Heard

__all__ = [
    "AudioChunk",
    "AudioEnded",
    "CardsRead",
    "Event",
    "Heard",
    "Key",
    "Stop",
    "Tick",
    "VoicePlayed",
    "VoiceStarted",
]


@dataclass(frozen=True)
class AudioChunk:
    """A stretch of the microphone's audio (audio time from the start of the stream)."""

    chunk: Chunk

    @property
    def start(self) -> float:
        return self.chunk.start

    @property
    def end(self) -> float:
        return self.chunk.end


@dataclass(frozen=True)
class AudioEnded:
    """The microphone (or the file standing in for it) has no more audio."""


@dataclass(frozen=True)
class CardsRead:
    """The card reader has read reveal ``reveal`` (its number in the game as it stands):
    ``result`` is the reader's (``readable``, ``cards``, ``message``), or ``error`` says why
    the camera gave nothing. ``asked_at``: the audio time the read was asked for."""

    reveal: int
    asked_at: float
    result: Any = None
    error: str | None = None


@dataclass(frozen=True)
class VoiceStarted:
    """The voice began saying sentence ``index`` (``at`` on ``time.monotonic()``)."""

    index: int
    text: str
    at: float


@dataclass(frozen=True)
class VoicePlayed:
    """The voice finished saying sentence ``index`` (``at`` on ``time.monotonic()``)."""

    index: int
    text: str
    at: float


@dataclass(frozen=True)
class Key:
    """A line typed at the keyboard (h honest, l lie, u undo, q quit, or a phrase)."""

    line: str


@dataclass(frozen=True)
class Tick:
    """Time passes (audio time ``t``) with nothing heard: timers and waits may run out."""

    t: float


@dataclass(frozen=True)
class Stop:
    """End the evening (a signal, a closed window): the final state is still printed."""

    reason: str = ""


Event = AudioChunk | AudioEnded | CardsRead | Heard | Key | Stop | Tick | VoicePlayed | VoiceStarted
