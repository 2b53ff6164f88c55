"""The live loop: hear, judge, look, speak, show — for a whole evening, hands off.

Everything is driven by audio time. Each chunk from the microphone first gives the table a
chance to act (typed fallbacks, turn timers, reading a reveal from the camera), then goes to
the recognizer; each utterance it hears goes to the session; whatever the referee says is
spoken, shown, and muted out of the microphone while it is being said.
"""

from __future__ import annotations

import queue
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from referee.game.announce import Announcement
from referee.game.engine import legal_ranks
from referee.game.events import Tick
from referee.intents import Intent
from referee.live.camera import CameraError
from referee.live.screen import Seen, Window, render
from referee.session import Session
from referee.voice.tts import speech_seconds

RETRY_LOOK_S = 2.0
MAX_LOOKS = 2
#: a bare "Cheat!" waits this long (audio time after it ends) for the caller's name
#: ("Cheat! ... Ben") before the referee asks "Who called?", longer while someone is still
#: speaking (up to NAME_WAIT_MAX_S); the call keeps its onset time either way
NAME_WAIT_S = 0.6
NAME_WAIT_MAX_S = 2.5
#: with a voice that says when it has finished (``follow_voice``): the ears open this long
#: after it did (the sound card's output still playing, the room's echo), and stay shut
#: while it still speaks, at most this long past the estimate
ECHO_TAIL_S = 0.25
MAX_OVERRUN_S = 10.0
AHEAD_CHUNKS = 100


class Speaker(Protocol):
    def say(self, text: str) -> float: ...


class Reader(Protocol):
    def read_stable(self, frames: Iterable[np.ndarray]) -> Any: ...


@dataclass
class _RevealAttempt:
    version: int
    looks: int = 0
    next_at: float = 0.0
    asked: bool = False


@dataclass
class LiveReferee:
    """Joins a session to ears (``recognizer`` + ``audio``), eyes (``camera`` + ``reader``),
    a voice, a screen and optional typed input (``keys``: lines from a keyboard thread).

    While the referee speaks, its ears are shut for as long as the sentences should take
    (an estimate). With ``follow_voice`` (a live microphone in the room the voice sounds
    in) they follow the voice instead: they open ``ECHO_TAIL_S`` after it says it has
    finished, often well before the estimate runs out, so a "Cheat!" right after the
    referee's "Ben, twos." is heard; and they stay shut while it still speaks past the
    estimate, so its own words are never taken for a player's. Such a voice has
    ``speaking()`` (None when it can't tell) and ``finished_at``, read on ``clock``, as
    :class:`referee.voice.Voice` has."""

    session: Session
    recognizer: Any
    audio: Iterable[Any]
    camera: Any = None
    reader: Reader | None = None
    voice: Speaker | None = None
    window: Window | None = None
    keys: queue.Queue[str] | None = None
    on_say: Callable[[Announcement, float], None] | None = None
    follow_voice: bool = False
    #: kinds of announcement only shown, not said (``--brief``: the claim said back, so that
    #: the ears, shut while the referee speaks, are open sooner for a call)
    unsaid: frozenset[str] = frozenset()
    clock: Callable[[], float] = time.monotonic
    now: float = 0.0
    speaking_until: float = 0.0
    stopped: bool = False
    heard_log: list[dict[str, Any]] = field(default_factory=list)
    _reveal: _RevealAttempt | None = None
    _acted_calls: set[float] = field(default_factory=set)
    _seen: list[Seen] = field(default_factory=list)
    _message: str = ""
    _bare_call: Any = None
    #: audio time minus wall-clock time for the last chunks: a chunk is handed over a little
    #: after it was recorded, never before, so the largest is the closest to the truth (only
    #: recent ones: the sound card's clock drifts from the computer's, a second in hours)
    _audio_ahead: deque[float] = field(default_factory=lambda: deque(maxlen=AHEAD_CHUNKS))
    #: when the last announcements should end by the estimate (audio time)
    _estimated_end: float = 0.0

    # --- the loop --------------------------------------------------------------------

    def run(self) -> None:
        self._announce(self.session.opening())
        self._listen_for_now()
        for heard in self.recognizer.utterances(self._chunks()):
            self._on_heard(heard)
            if self.stopped:
                break
        self._flush_bare_call()
        self._between(self.now)  # a reveal or key waiting when the audio ended

    def _chunks(self) -> Iterator[Any]:
        for chunk in self.audio:
            self.now = chunk.end
            if self.follow_voice:
                self._audio_ahead.append(chunk.end - self.clock())
                self._follow_voice()
            self._between(chunk.start)
            if self.stopped:
                return
            yield chunk

    def _between(self, t: float) -> None:
        call = self._bare_call
        if call is not None:
            waited = t - call.utterance.end
            hearing = getattr(self.recognizer, "hearing", False)
            if waited >= NAME_WAIT_MAX_S or (waited >= NAME_WAIT_S and not hearing):
                self._flush_bare_call()
        self._typed(t)
        if self.session.state.rules.timer:
            self._announce(self.session.submit(Tick(t=t)), t)
        if self.session.state.phase == "reveal":
            self._look(t)

    # --- hearing -----------------------------------------------------------------------

    def _on_heard(self, heard: Any) -> None:
        call, self._bare_call = self._bare_call, None
        if call is not None:
            is_call = heard.intent.type == "call"
            if is_call and heard.utterance.start == call.utterance.start:
                pass  # the same call, now with its caller's name
            elif heard.utterance.partial and not is_call:
                self._bare_call = call  # still listening for the name
            else:
                self._act_on(call)  # anything else said comes after the call
        if self.stopped:
            return
        if (
            heard.intent.type == "call"
            and heard.intent.caller is None
            and not heard.utterance.partial
            and self.session.state.phase == "play"
            and heard.utterance.start not in self._acted_calls
        ):
            self._bare_call = heard
            return
        self._act_on(heard)

    def _flush_bare_call(self) -> None:
        call, self._bare_call = self._bare_call, None
        if call is not None:
            self._act_on(call)

    def _act_on(self, heard: Any) -> None:
        utterance, intent = heard.utterance, heard.intent
        if intent.type == "call":
            # A partial call that names its caller acts at once, and its final result (same
            # onset) is not a second call. A bare "Cheat!" waits for the end of the words:
            # asking "Who called?" over the caller's own name would mute the name. So does a
            # call guessed onto the vocabulary: the whole utterance must confirm it.
            if utterance.partial and (intent.caller is None or getattr(heard, "guessed", False)):
                return
            named_late = intent.caller and self.session.state.phase == "who_called"
            if utterance.start in self._acted_calls and not named_late:
                return
            self._acted_calls.add(utterance.start)
            if self._verdict_asked():
                intent = Intent("verdict", honest=False)  # "Liar!" answering "true or lie?"
        elif utterance.partial:
            return
        self.heard_log.append(heard.to_dict())
        said = self.session.act(intent, t=utterance.start, heard=utterance.text)
        decided = heard.decided_at if heard.decided_at is not None else utterance.end
        self._announce(said, max(decided, utterance.end if not utterance.partial else decided))
        if intent.type == "command" and intent.command == "stop":
            self.stopped = True

    def _typed(self, t: float) -> None:
        """Typed fallbacks: h = honest, l = lie, u = undo, q = quit, or any phrase."""
        if self.keys is None:
            return
        while True:
            try:
                line = self.keys.get_nowait().strip()
            except queue.Empty:
                return
            if not line:
                continue
            shortcuts = {"h": Intent("verdict", honest=True), "l": Intent("verdict", honest=False),
                         "u": Intent("command", command="undo")}  # fmt: skip
            if line.lower() in ("q", "quit", "exit"):
                self.stopped = True
                return
            intent = shortcuts.get(line.lower())
            said = self.session.act(intent, t=t) if intent else self.session.hear(line, t=t)
            self._announce(said, t)

    # --- looking -----------------------------------------------------------------------

    def _look(self, t: float) -> None:
        version = len(self.session.match.history)
        attempt = self._reveal
        if attempt is None or attempt.version != version:
            attempt = self._reveal = _RevealAttempt(version, next_at=t)
        if attempt.looks >= MAX_LOOKS or t < attempt.next_at:
            return
        attempt.looks += 1
        attempt.next_at = t + RETRY_LOOK_S
        if self.camera is None or self.reader is None:
            self._ask_verdict(attempt, "No camera here: say true or lie.", t)
            return
        try:
            reveal = self.reader.read_stable(self.camera.frames())
        except CameraError as err:
            attempt.looks = MAX_LOOKS
            self._ask_verdict(attempt, str(err), t)
            return
        self._seen = [Seen(c.rank, tuple(c.box), c.confidence) for c in reveal.cards]
        if reveal.readable:
            from referee.game.cards import Card

            cards = [Card(c.rank, c.suit) for c in reveal.cards]
            self._announce(self.session.see(cards, t=t), t)
        elif attempt.looks >= MAX_LOOKS:
            self._ask_verdict(attempt, f"{reveal.message} Or say true or lie.", t)
        else:
            self._announce([Announcement(reveal.message, "unreadable")], t)

    def _verdict_asked(self) -> bool:
        """Whether the referee is waiting for a spoken verdict on the reveal now pending."""
        attempt = self._reveal
        return (
            self.session.state.phase == "reveal"
            and attempt is not None
            and attempt.asked
            and attempt.version == len(self.session.match.history)
        )

    def _ask_verdict(self, attempt: _RevealAttempt, text: str, t: float) -> None:
        if not attempt.asked:
            attempt.asked = True
            self._announce([Announcement(text, "ask_verdict")], t)

    # --- speaking and showing ----------------------------------------------------------

    def _announce(self, said: list[Announcement], t: float | None = None) -> None:
        t = self.now if t is None else t
        start = max(t, self.speaking_until)
        for announcement in said:
            if self.on_say:
                self.on_say(announcement, start)
            self._message = announcement.text
            if announcement.kind in self.unsaid:  # shown and printed, not said
                continue
            seconds = self.voice.say(announcement.text) if self.voice else 0.0
            start += seconds or speech_seconds(announcement.text)
        if said:
            self.speaking_until = self._estimated_end = start
            self.recognizer.mute(start)
        self._listen_for_now()
        self._show()

    def _follow_voice(self) -> None:
        """Keep the ears shut exactly while the voice speaks (see the class docstring)."""
        speaking = self.voice.speaking() if hasattr(self.voice, "speaking") else None
        if speaking is None:
            return  # the estimate stands
        if speaking:
            until = self.now + ECHO_TAIL_S
            if self.speaking_until < until <= self._estimated_end + MAX_OVERRUN_S:
                self.speaking_until = until
                self.recognizer.mute(until)
            return
        finished = self.voice.finished_at + max(self._audio_ahead) + ECHO_TAIL_S
        if finished < self.speaking_until:
            self.speaking_until = finished
            self.recognizer.hear_from(finished)

    def notice(self, text: str) -> None:
        """Show ``text`` on the table's screen without saying it (a problem with the room,
        not the game: saying it would close the ears for as long)."""
        self._message = text
        self._show()

    def _listen_for_now(self) -> None:
        from referee.speech.vocab import PHASE_INTENTS, ListenContext

        state = self.session.state
        ranks = legal_ranks(state) if state.phase in ("play", "pairs") else ()
        self.recognizer.set_context(ListenContext(
            players=state.players,
            legal_ranks=ranks or legal_ranks(state),
            max_count=state.rules.max_cards_per_play(state.n),
            intents=PHASE_INTENTS.get(state.phase, PHASE_INTENTS["play"]),
        ))  # fmt: skip

    def _show(self) -> None:
        if self.window is None:
            return
        state = self.session.state
        view = state.to_dict(legal_ranks(state) if state.phase != "over" else ())
        frame = getattr(self.camera, "last_frame", None)
        self.window.show(render(view, frame, self._seen, self._message))
