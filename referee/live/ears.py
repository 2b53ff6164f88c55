"""When the referee speaks and when its ears open again: one object decides.

While the referee speaks, its ears are shut for as long as the sentences should take (an
estimate, :meth:`Ears.said`). A voice that can tell what it is doing keeps them shut exactly
while it speaks instead: it either posts events (:meth:`Ears.voice_started`,
:meth:`Ears.voice_played`, from ``Voice(on_event=...)``) or answers ``speaking()`` (None when
it can't tell) and ``finished_at``, both on the wall clock (:meth:`Ears.poll`). The ears then
open ``ECHO_TAIL_S`` after it has finished, often well before the estimate runs out, so a
"Cheat!" right after the referee's "Ben, twos." is heard; and they stay shut while it still
speaks past the estimate (at most ``MAX_OVERRUN_S``), so its own words are never taken for a
player's. Only a voice that sounds where the microphone listens may be followed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

#: the ears open this long after the voice has finished (the sound card's output still
#: playing, the room's echo), and stay shut while it still speaks, at most this long past
#: the estimate
ECHO_TAIL_S = 0.25
MAX_OVERRUN_S = 10.0
AHEAD_CHUNKS = 100
#: with the ears open over the voice (its echo cancelled), words that begin while it sounds
#: or this soon after are taken only as a call (:meth:`Ears.over_voice`): what is left of
#: the echo of "Ben, sixes." was once heard as Ben's claim "two sixes" with nobody speaking
OVER_VOICE_TAIL_S = 0.15
#: sentences remembered for that
SOUNDED_KEEP = 8


def _sounding(start: float, end: float | None, t: float) -> bool:
    """Whether a sentence sounded from ``start`` to ``end`` (None: still) is heard at ``t``,
    its echo's tail included."""
    return start <= t and (end is None or t <= end + OVER_VOICE_TAIL_S)


class Gate(Protocol):
    """What the ears shut: the recognizer's mute gate."""

    def mute(self, until: float) -> None: ...


@dataclass
class Ears:
    """The mute state. ``gate`` is the recognizer (``mute(until)``, and ``hear_from(t)`` to
    open sooner); ``follow_voice``: the voice's own progress counts, not just the estimate.
    All times are audio times except where a wall clock is named."""

    gate: Any
    follow_voice: bool = False
    #: the referee is speaking, by the best knowledge, until this audio time
    speaking_until: float = 0.0
    #: when the last announcements should end by the estimate (audio time)
    estimated_end: float = 0.0
    #: audio time minus wall-clock time for the last chunks: a chunk is handed over a little
    #: after it was recorded, never before, so the largest is the closest to the truth (only
    #: recent ones: the sound card's clock drifts from the computer's, a second in hours)
    _audio_ahead: deque[float] = field(default_factory=lambda: deque(maxlen=AHEAD_CHUNKS))
    #: sentences queued to the voice, and whether it reports its own progress by events
    queued: int = 0
    _evented: bool = False
    _playing: bool = False
    #: whether the referee's own voice is taken out of what the ears hear well enough
    #: (``Voice.echo_cancelled``) that they may stay open while it speaks: a call over it
    #: is then heard (barge-in)
    echo_cancelled: Callable[[], bool] | None = None
    #: the sentences the voice sounded (audio time): [start, end or None while playing, text,
    #: whether the ears were open over it]
    _sounded: deque[list[Any]] = field(default_factory=lambda: deque(maxlen=SOUNDED_KEEP))
    #: whether the ears stay open over what was last said (settled when it was said)
    _open_over: bool = False

    def hears_over_voice(self) -> bool:
        """Whether the ears stay open while the referee speaks (its echo cancelled)."""
        return self.echo_cancelled is not None and self.echo_cancelled()

    def over_voice(self, t: float) -> str | None:
        """What the referee's voice was saying at audio time ``t`` (or had just said, within
        ``OVER_VOICE_TAIL_S``), while its ears were open over it; None when it was silent
        then, or when its ears were shut (nothing was heard over it at all)."""
        for start, end, text, heard_over in reversed(self._sounded):
            if _sounding(start, end, t):
                return text if heard_over else None
        return None

    def voice_ended(self, t: float) -> float | None:
        """When the voice sounding at audio time ``t`` (:meth:`over_voice`) stopped: the end
        of that sentence and of those that followed it without a break; None while it
        still sounds or when it was not sounding then."""
        ended: float | None = None
        for start, end, _, _ in self._sounded:
            if ended is None:
                if _sounding(start, end, t):
                    ended = end
                    if end is None:
                        return None
            elif start <= ended + OVER_VOICE_TAIL_S:
                if end is None:
                    return None
                ended = max(ended, end)
        return ended

    def _shut(self, until: float) -> None:
        if not self.hears_over_voice():
            self.gate.mute(until)

    def cut(self, now: float) -> None:
        """The voice was stopped at audio time ``now`` (a call over it): nothing more of
        what was queued will be said."""
        self.speaking_until = self.estimated_end = min(self.speaking_until, now)

    # --- what the referee says -------------------------------------------------------

    def start_at(self, t: float) -> float:
        """When something said at audio time ``t`` begins (after what is being said)."""
        return max(t, self.speaking_until)

    def said(self, end: float, sentences: int, start: float | None = None, text: str = "") -> None:
        """The referee queued ``sentences`` (``text``) to say from audio time ``start``,
        estimated to end at ``end``."""
        # whether the ears stay open over what is said is settled now, as they are shut:
        # the echo canceller's measure may change before what was heard over it is weighed
        # (a room game took the voice's own "Dev, eights." for a claim once it had)
        self._open_over = self.hears_over_voice()
        if not self._evented and start is not None and sentences:
            # a voice that posts events tells its own
            self._sounded.append([start, end, text, self._open_over])
        self.queued += sentences
        self.speaking_until = self.estimated_end = end
        self._shut(end)

    # --- the clock -------------------------------------------------------------------

    def chunk(self, end: float, wall: float) -> None:
        """A chunk ending at audio time ``end`` came at wall-clock time ``wall``."""
        self._audio_ahead.append(end - wall)

    @property
    def clocked(self) -> bool:
        """Whether a chunk has come, so wall-clock times can be told in audio time."""
        return bool(self._audio_ahead)

    def to_audio(self, wall: float) -> float:
        """A wall-clock time as audio time (as near as the chunks tell)."""
        return wall + (max(self._audio_ahead) if self._audio_ahead else 0.0)

    # --- the voice's own progress ----------------------------------------------------

    def poll(self, voice: Any, now: float) -> None:
        """Follow a voice that answers ``speaking()`` (at audio time ``now``)."""
        if not self.follow_voice or self._evented:
            return
        speaking = voice.speaking() if hasattr(voice, "speaking") else None
        if speaking is None:
            return  # the estimate stands
        if speaking:
            self._keep_shut(now)
        else:
            self._finished(voice.finished_at)

    def voice_started(
        self, index: int, now: float, text: str = "", at: float | None = None
    ) -> None:
        """The voice began sentence ``index`` (an event; ``now`` audio time, ``at`` the
        wall-clock time it began, when told)."""
        self._evented = True
        self._playing = True
        began = now if at is None else min(now, self.to_audio(at))
        self._sounded.append([began, None, text, self._open_over])
        if self.follow_voice:
            self._keep_shut(now)

    def voice_played(self, index: int, at: float) -> None:
        """The voice finished sentence ``index`` at wall-clock time ``at`` (an event)."""
        self._evented = True
        for sounded in self._sounded:
            if sounded[1] is None:
                sounded[1] = max(sounded[0], self.to_audio(at))
        if index + 1 >= self.queued:
            self._playing = False
            if self.follow_voice:
                self._finished(at)

    def tick(self, now: float) -> None:
        """Audio time ``now`` has come: a voice still playing keeps the ears shut."""
        if self._evented and self._playing and self.follow_voice:
            self._keep_shut(now)

    def _keep_shut(self, now: float) -> None:
        last = self._sounded[-1] if self._sounded else None
        if last is not None and last[1] is not None and last[1] < now:
            last[1] = now  # still speaking past the estimate
        until = now + ECHO_TAIL_S
        if self.speaking_until < until <= self.estimated_end + MAX_OVERRUN_S:
            self.speaking_until = until
            self._shut(until)

    def _finished(self, wall: float) -> None:
        ended = self.to_audio(wall)
        for sounded in self._sounded:
            if sounded[1] is not None and sounded[0] <= ended < sounded[1]:
                sounded[1] = ended  # it finished sooner than estimated
        finished = ended + ECHO_TAIL_S
        if finished < self.speaking_until:
            self.speaking_until = finished
            self.gate.hear_from(finished)
