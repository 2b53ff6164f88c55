"""The live loop: hear, judge, look, speak, show — for a whole evening, hands off.

Everything that happens is an event on one queue (:mod:`referee.live.events`): the
microphone's chunks, the card reader's answers, the voice's progress, typed keys. One
handler (:meth:`LiveReferee.handle`) takes them in order and is the only place that changes
the live state. Each chunk first gives the table a chance to act (turn timers, a bare call's
wait for its caller's name, asking the eyes for a reveal), then goes to the recognizer
(:meth:`~referee.speech.recognizer.Recognizer.feed`); what it hears goes through the call
assembler (:mod:`referee.live.calls`) to the session; whatever the referee says is spoken,
shown, and muted out of the microphone while it is being said (:mod:`referee.live.ears`).

The eyes read in a worker thread (:mod:`referee.live.eyes`), so the ears never wait for
them. A live microphone (``live_audio``) is read in its own thread too, and its chunks
queue up while the handler is busy. A recording played as fast as possible (``--audio``
without ``--realtime``, the demo's scripted table) is fed in lockstep instead: the next
chunk is taken only once everything before it has been handled, a reveal being read
included, so a file replays the same way every time whatever the machine's speed.

Other threads post with :meth:`LiveReferee.post` (thread-safe)::

    referee.post(Key("u"))      # typed: undo
    referee.post(Stop())        # end: the final state is still printed by the caller
"""

from __future__ import annotations

import queue
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from referee.game.announce import Announcement
from referee.game.engine import legal_ranks
from referee.game.events import Call, Claim, Name, Reveal, Verdict
from referee.game.events import Tick as GameTick
from referee.game.view import view
from referee.intents import CALL_WORDS, Intent, parse, player_name_key
from referee.live.calls import NAME_WAIT_MAX_S, NAME_WAIT_S, CallAssembler
from referee.live.ears import AHEAD_CHUNKS, ECHO_TAIL_S, MAX_OVERRUN_S, OVER_VOICE_TAIL_S, Ears
from referee.live.events import (
    AudioChunk,
    AudioEnded,
    CardsRead,
    Heard,
    Key,
    Stop,
    Tick,
    VoicePlayed,
    VoiceStarted,
)
from referee.live.eyes import Eyes
from referee.live.loading import loaded
from referee.live.screen import Seen, Window, render
from referee.session import Session
from referee.voice.tts import speech_seconds

__all__ = [
    "AHEAD_CHUNKS",
    "ECHO_TAIL_S",
    "MAX_LOOKS",
    "MAX_OVERRUN_S",
    "NAME_WAIT_MAX_S",
    "NAME_WAIT_S",
    "RETRY_LOOK_S",
    "LiveReferee",
    "voice_events",
]

RETRY_LOOK_S = 2.0
#: while the eyes read, the screen is drawn again this often (audio time)
SCREEN_EVERY_S = 0.2
MAX_LOOKS = 2
#: typed shortcuts (anything else typed is heard as a phrase)
SHORTCUTS = {"h": Intent("verdict", honest=True), "l": Intent("verdict", honest=False),
             "u": Intent("command", command="undo")}  # fmt: skip
QUIT_WORDS = ("q", "quit", "exit", "stop")
#: the claims undone at a turn that are not heard the same way again there (``_taken_back``)
TAKEN_BACK_KEPT = 2
STOPPED = "Stopping here. The game is saved: play --resume goes on with it."


class Speaker(Protocol):
    def say(self, text: str) -> float: ...


class Reader(Protocol):
    def read_stable(self, frames: Iterable[np.ndarray]) -> Any: ...


#: words of the referee's own sentences that its echo may turn into a call ("Alice lied."
#: heard as "Alice, liar!")
ECHOED_CALL_WORDS = CALL_WORDS | {"lied", "lie"}
#: words read again after the voice begin this long after its echo's tail (one frame)
AFTER_VOICE_S = 0.02


@dataclass
class _RevealAttempt:
    """Reading one reveal: ``reveal`` is its number this evening (the photo a feed of
    photos shows for it, however often it is looked at)."""

    reveal: int
    looks: int = 0
    next_at: float = 0.0
    asked: bool = False
    #: audio time the read in flight was asked for (None: no read in flight)
    reading: float | None = None


def voice_events(post: Callable[[Any], None]) -> Callable[[str, int, str, float], None]:
    """A ``Voice(on_event=...)`` callback that posts the voice's progress as events."""

    def on_event(what: str, index: int, text: str, at: float) -> None:
        post((VoiceStarted if what == "started" else VoicePlayed)(index, text, at))

    return on_event


@dataclass
class LiveReferee:
    """Joins a session to ears (``recognizer`` + ``audio``), eyes (``camera`` + ``reader``),
    a voice, a screen and optional typed input (``keys``: lines from a keyboard thread; or
    post :class:`Key` events).

    While the referee speaks, its ears are shut (see :class:`referee.live.ears.Ears`): for
    as long as the sentences should take, or, with ``follow_voice`` (a live microphone in
    the room the voice sounds in), exactly while the voice says it speaks. Such a voice has
    ``speaking()`` (None when it can't tell) and ``finished_at``, read on ``clock``, as
    :class:`referee.voice.Voice` has, or posts :class:`VoiceStarted` / :class:`VoicePlayed`.

    ``on_say(announcement, at)`` hears each announcement as it is made (``at``: audio time
    it should start); ``on_played(announcement, started, ended)`` when the voice has said
    it (audio times; ``started`` None when the voice could not tell).
    """

    session: Session
    recognizer: Any
    audio: Iterable[Any]
    camera: Any = None
    reader: Reader | None = None
    voice: Speaker | None = None
    window: Window | None = None
    keys: queue.Queue[str] | None = None
    on_say: Callable[[Announcement, float], None] | None = None
    on_played: Callable[[Announcement, float | None, float], None] | None = None
    follow_voice: bool = False
    #: the audio comes as it is recorded (a microphone, a paced file): read in a thread
    live_audio: bool = False
    #: kinds of announcement only shown, not said (``--brief``: the claim said back, so that
    #: the ears, shut while the referee speaks, are open sooner for a call)
    unsaid: frozenset[str] = frozenset()
    clock: Callable[[], float] = time.monotonic
    now: float = 0.0
    stopped: bool = False
    heard_log: list[dict[str, Any]] = field(default_factory=list)
    _reveal: _RevealAttempt | None = None
    _seen: list[Seen] = field(default_factory=list)
    _message: str = ""
    _queue: queue.Queue[Any] = field(default_factory=queue.Queue)
    _ears: Ears | None = None
    _calls: CallAssembler | None = None
    _eyes: Eyes | None = None
    _reads: int = 0
    _ended: bool = False
    #: reveal numbers by the count of events when each began (see _reveal_number)
    _reveal_marks: dict[int, int] = field(default_factory=dict)
    #: sentences said, by the voice's index (for ``on_played``), and when each began
    _spoken: list[Announcement] = field(default_factory=list)
    _started: dict[int, float] = field(default_factory=dict)
    _played: int = 0
    #: the voice's progress told before the microphone's first chunk (placed once it comes)
    _unclocked: list[VoiceStarted | VoicePlayed] = field(default_factory=list)
    _context: Any = None
    _shown_at: float = 0.0
    #: the bare call the referee last asked "Who called?" about (see _learn_voices)
    _asked: Heard | None = None
    #: what taught a voice, latest last: (the event it made, the words, whose voice)
    _taught: deque[tuple[Any, Heard, str]] = field(default_factory=lambda: deque(maxlen=32))

    def __post_init__(self) -> None:
        cancelled = None  # a voice the microphone hears, taken back out of what it hears
        if self.follow_voice and hasattr(self.voice, "echo_cancelled"):
            cancelled = lambda: bool(self.voice.echo_cancelled)  # noqa: E731
        self._ears = Ears(self.recognizer, follow_voice=self.follow_voice, echo_cancelled=cancelled)
        self._calls = CallAssembler(
            lambda: self.session.state.phase,
            last_play=lambda: self.session.state.pending_out is not None,
            own_play=self._own_play,
        )

    def _own_play(self, player: str) -> bool:
        """Whether every play a call could challenge now is ``player``'s own."""
        state = self.session.state
        seat = state.seat_of(player)
        return bool(state.callable) and all(state.pile[i].seat == seat for i in state.callable)

    @property
    def ears(self) -> Ears:
        assert self._ears is not None
        return self._ears

    @property
    def speaking_until(self) -> float:
        """Audio time until which the referee is speaking, by the best knowledge."""
        return self.ears.speaking_until

    # --- the loop --------------------------------------------------------------------

    def post(self, event: Any) -> None:
        """Hand the handler an event (from any thread)."""
        self._queue.put(event)

    def run(self) -> None:
        """Referee until the audio ends or someone stops it."""
        # the greeting first: a recognizer or reader still loading (see
        # referee.live.loading) is waited for only once it is said
        self._announce(self.session.opening())
        self._listen_for_now()
        # what was loading is used itself from here on, not through its stand-in's lookups
        # on every chunk
        self.recognizer = self.ears.gate = loaded(self.recognizer)
        if hasattr(self.recognizer, "start"):
            self.recognizer.start()
        self.reader = loaded(self.reader)
        if self.camera is not None and self.reader is not None:
            self._eyes = Eyes(self.camera, self.reader, self.post)
        chunks = iter(self.audio)
        if self.live_audio:
            threading.Thread(target=self._feed, args=(chunks,), name="ears", daemon=True).start()
        try:
            while not self.stopped:
                event = self._next(chunks)
                if event is None:
                    break
                self.handle(event)
        finally:
            if self._eyes is not None:
                self._eyes.close()

    def _feed(self, chunks: Iterator[Any]) -> None:
        """The microphone's thread: post its chunks as they come."""
        try:
            for chunk in chunks:
                self.post(AudioChunk(chunk))
                if self.stopped:
                    return
        finally:
            self.post(AudioEnded())

    def _next(self, chunks: Iterator[Any]) -> Any:
        """The next event; None when the evening is over."""
        self._drain_keys()
        if self.live_audio or self._reads or not self._queue.empty():
            if self._ended and not self._reads and self._queue.empty():
                return None
            return self._queue.get()
        if self._ended:
            return None
        chunk = next(chunks, None)  # lockstep: a recording, fed as fast as it is handled
        return AudioEnded() if chunk is None else AudioChunk(chunk)

    def _drain_keys(self) -> None:
        if self.keys is None:
            return
        while True:
            try:
                self.post(Key(self.keys.get_nowait()))
            except queue.Empty:
                return

    def handle(self, event: Any) -> None:
        """Take one event: the only place the live state changes."""
        if isinstance(event, AudioChunk):
            self._on_chunk(event)
        elif isinstance(event, Heard):
            self._on_heard(event)
        elif isinstance(event, CardsRead):
            self._on_cards(event)
        elif isinstance(event, Key):
            self._on_key(event.line)
        elif isinstance(event, VoiceStarted | VoicePlayed) and not self.ears.clocked:
            # before the first chunk audio time is unknown: on a busy start the greeting can
            # be said whole before it, and was then told on the wall clock
            self._unclocked.append(event)
        elif isinstance(event, VoiceStarted):
            self._started[event.index] = event.at  # wall clock: placed when told
            self.ears.voice_started(event.index, self.now, event.text, event.at)
        elif isinstance(event, VoicePlayed):
            self.ears.voice_played(event.index, event.at)
            self._tell_played(event.index, self.ears.to_audio(event.at))
        elif isinstance(event, Tick):
            self._between(event.t)
        elif isinstance(event, AudioEnded):
            self._on_audio_ended()
        elif isinstance(event, Stop):
            self.stopped = True

    def _on_chunk(self, event: AudioChunk) -> None:
        chunk = event.chunk
        self.now = chunk.end
        self.ears.chunk(chunk.end, self.clock())
        if self._unclocked:
            told, self._unclocked = self._unclocked, []
            for voice_event in told:
                self.handle(voice_event)
        if self.voice is not None:
            self.ears.poll(self.voice, self.now)
            self._poll_played()
        self.ears.tick(self.now)
        self._between(chunk.start)
        if self.stopped:
            return
        if self._reads and self.now - self._shown_at >= SCREEN_EVERY_S:
            self._show()  # the camera's picture while the cards are being read
        feed = getattr(self.recognizer, "feed", None)
        for heard in feed(chunk) if feed else ():
            self._on_heard(heard)
            if self.stopped:
                return

    def _on_audio_ended(self) -> None:
        self._ended = True
        finish = getattr(self.recognizer, "finish", None)
        for heard in finish() if finish else ():
            self._on_heard(heard)
        for heard in self.calls.flush():
            self._act_on(heard)
        if not self.stopped:
            self._between(self.now)  # a reveal or key waiting when the audio ended

    @property
    def calls(self) -> CallAssembler:
        assert self._calls is not None
        return self._calls

    def _between(self, t: float) -> None:
        hearing = getattr(self.recognizer, "hearing", False)
        for heard in self.calls.wait(t, hearing):
            self._act_on(heard)
        if self.session.state.rules.timer:
            self._announce(self.session.submit(GameTick(t=t)), t)
        if self.session.state.phase == "reveal":
            self._look(t)

    # --- hearing -----------------------------------------------------------------------

    def _on_heard(self, heard: Heard) -> None:
        if self._echo_of_own_voice(heard):
            after = self._after_voice(heard)
            if after is None:
                return
            heard = after
        for acted in self.calls.hear(heard):
            self._act_on(acted)
            if self.stopped:
                return

    def _echo_of_own_voice(self, heard: Heard) -> bool:
        """Words that began over the referee's own voice (its ears open, the echo
        cancelled) are taken only as a call or its caller's name: that is what barge-in is
        for, and what is left of the echo reads as the voice's own words (its "Ben, sixes."
        as Ben's "two sixes"). A call or a name is dropped too when the sentence it began
        over has those words in it ("Dev calls cheat on Alice", "Ben, sixes.")."""
        said = self.ears.over_voice(heard.utterance.start)
        if said is None:
            return False
        words = set(re.findall(r"[a-z]+", said.lower()))
        intent = heard.intent
        if intent.type == "call" and not words & ECHOED_CALL_WORDS:
            return False
        if intent.type == "name" and not set(player_name_key(intent.name or "").split()) <= words:
            return False  # "Cheat! ... Ben" over its voice: the call's caller
        if not heard.utterance.partial:
            self.heard_log.append({**heard.to_dict(), "dropped": "over the referee's voice"})
        return True

    def _after_voice(self, heard: Heard) -> Heard | None:
        """The words after the referee's voice in an utterance that began over it and was
        dropped for it: in a 20 dB kitchen what was left of the echo opened the gate before
        the voice ended, the player's claim ran on from it as one utterance, and the claim
        was dropped (2 of 15 claims in a game of bench/table). Read again from the voice's
        end, they are taken if they begin after it."""
        read_from = getattr(self.recognizer, "read_from", None)
        if heard.utterance.partial or read_from is None:
            return None
        ended = self.ears.voice_ended(heard.utterance.start)
        if ended is None:
            return None
        again = read_from(heard.utterance.start, ended + OVER_VOICE_TAIL_S + AFTER_VOICE_S)
        if again is None or self.ears.over_voice(again.utterance.start) is not None:
            return None
        return again

    def _act_on(self, heard: Heard) -> None:
        utterance, intent = heard.utterance, heard.intent
        if intent.type == "call" and self._call_is_a_verdict():
            intent = Intent("verdict", honest=False)  # "Liar!" answering "true or lie?"
        self.heard_log.append(heard.to_dict())
        if intent.type == "call":
            self._barge_in(utterance.start)
        said = self._act(intent, utterance.start, heard=utterance.text)
        self._learn_voices(heard, intent, said)
        decided = heard.decided_at if heard.decided_at is not None else utterance.end
        self._announce(said, max(decided, utterance.end if not utterance.partial else decided))

    def _learn_voices(self, heard: Heard, intent: Intent, said: list[Announcement]) -> None:
        """With a voice profile, whose voice ``heard`` was, where the table told it
        (:meth:`referee.speech.speakers.VoicedRecognizer.learn_voice`):

        * a claim taken is its player's, said in their turn: their bare calls are then known
          by the voice of the room they are said in. Not a claim guessed (the head made it,
          or the whole utterance had to confirm it);
        * a call whose caller is named, in its own words ("Yuki, cheat!") or in the answer
          to "Who called?" after it, is the caller's (its words are a call's, as the next
          bare call's will be). In a quiet room game Yuki's bare "liar!" went to Nadia's
          voice (bench/table, strangers, --voices): her claims alone had taught her
          voiceprint. Not a call credited by its voice: that would teach the voiceprint
          what it already said.

        What the table then undoes is taken back (:meth:`_unteach`)."""
        teach = getattr(self.recognizer, "learn_voice", None)
        if teach is None:
            return

        def learn(words: Heard, player: str) -> None:
            events = self.session.match.events
            if teach(words, player) and events:
                self._taught.append((events[-1], words, player))

        if intent.type == "claim":
            player = next((a.data.get("player") for a in said if a.kind == "claim"), None)
            if player and not heard.guessed:
                learn(heard, player)
        if intent.type == "call" and any(a.kind == "who_called" for a in said):
            self._asked = heard if intent.caller is None else None
            return
        caller = next((a.data.get("caller") for a in said if a.kind == "call"), None)
        if caller:
            if self._asked is not None:
                learn(self._asked, caller)
            elif parse(heard.utterance.text, self.session.players).caller == caller:
                learn(heard, caller)  # named in its own words
        if caller or any(a.kind == "undo" for a in said):
            self._asked = None

    def _unteach(self, undone: Any) -> None:
        """The table undid ``undone`` (an event): a voice it taught is taken back. A claim
        misheard from babble, or an answer to "Who called?" misheard as another player's
        name ("Marco." read "rob", bench/table), taught the wrong voiceprint, and a
        voiceprint made of three claims alone holds it as a third of itself."""
        forget = getattr(self.recognizer, "forget_voice", None)
        for taught in [t for t in self._taught if t[0] is undone]:
            self._taught.remove(taught)
            if forget is not None:
                forget(taught[1], taught[2])

    def _barge_in(self, onset: float) -> None:
        """A call made over the referee's own voice (its ears open: the echo cancelled)
        stops what it was still saying, now out of date (the turn prompt); the call keeps
        its onset as its time."""
        voice, ears = self.voice, self.ears
        if not ears.hears_over_voice():
            return
        if ears.speaking_until > onset and hasattr(voice, "cancel_pending"):
            voice.cancel_pending()
            ears.cut(self.now)

    def _act(self, intent: Intent | None, t: float, heard: str = "") -> list[Announcement]:
        """Hand the session what was said or typed; an undo starts the reveal afresh."""
        if intent is None:  # typed words
            intent = parse(heard, self.session.players)
        if intent.type == "command" and intent.command == "stop":
            self.stopped = True
            return [Announcement(STOPPED, "stop")]
        events = self.session.match.events
        last = events[-1] if events else None
        said = self.session.act(intent, t=t, heard=heard)
        if any(a.kind == "undo" for a in said):
            if isinstance(last, Call):
                self.calls.undone(last.t, last.caller)
            self._unteach(last)
            said = self._undone(said, t)
        return said

    def _undone(self, said: list[Announcement], t: float) -> list[Announcement]:
        """After an undo: the state is exactly the one before the undone event. Back at a
        reveal, the cards are not read again at once (they read the same): the table says
        true or lie."""
        state = self.session.state
        self._reveal = None
        if state.phase == "reveal":
            attempt = self._reveal = _RevealAttempt(self._reveal_number(), looks=MAX_LOOKS)
            attempt.asked = True
            said.append(Announcement("Say true or lie.", "ask_verdict"))
        return said

    def _on_key(self, line: str) -> None:
        """Typed fallbacks: h = honest, l = lie, u = undo, q = quit, or any phrase."""
        line = line.strip()
        if not line:
            return
        t = self.now
        if line.lower() in QUIT_WORDS:
            self._announce([Announcement(STOPPED, "stop")], t)
            self.stopped = True
            return
        intent = SHORTCUTS.get(line.lower())
        self._announce(self._act(intent, t, heard=line), t)
        if self.stopped:
            return
        if self.session.state.phase == "reveal":
            self._look(t)

    def _call_is_a_verdict(self) -> bool:
        """Whether a call now means "lie": the referee waits for a spoken verdict on the
        reveal now pending (it asked, or it has no way to read the cards)."""
        attempt = self._reveal
        return (
            self.session.state.phase == "reveal"
            and attempt is not None
            and (attempt.asked or self.camera is None or self.reader is None)
        )

    # --- looking -----------------------------------------------------------------------

    def _reveal_number(self) -> int:
        """The number of the reveal now pending this evening (0 for the first), the same
        however often it is undone and come back to: reveals are numbered by how many events
        the match had when they began, among those still in it."""
        n = len(self.session.match.events)
        marks = self._reveal_marks
        for undone in [k for k in marks if k > n]:
            del marks[undone]
        if n not in marks:
            marks[n] = max(marks.values(), default=-1) + 1
        return marks[n]

    def _look(self, t: float) -> None:
        attempt = self._reveal
        if attempt is None:
            attempt = self._reveal = _RevealAttempt(self._reveal_number(), next_at=t)
        if attempt.reading is not None or attempt.looks >= MAX_LOOKS or t < attempt.next_at:
            return
        attempt.looks += 1
        attempt.next_at = t + RETRY_LOOK_S
        if self._eyes is None:
            self._ask_verdict(attempt, "No camera here: say true or lie.", t)
            return
        attempt.reading = t
        self._reads += 1
        self._eyes.look(attempt.reveal, t, self._expected_count(attempt))

    def _expected_count(self, attempt: _RevealAttempt) -> int | None:
        """The claim's count for the first look at a reveal: a read of another count (a
        card covered by a thumb, the fan not yet spread) asks to spread the cards instead
        of being judged. The last look is judged on what it reads, so a play of more or
        fewer cards than claimed, shown spread, is still found a lie."""
        state = self.session.state
        if attempt.looks >= MAX_LOOKS or state.challenged is None:
            return None
        return state.pile[state.challenged].count

    def _on_cards(self, read: CardsRead) -> None:
        self._reads -= 1
        attempt = self._reveal
        if (
            attempt is None
            or attempt.reading != read.asked_at
            or attempt.reveal != read.reveal
            or self.session.state.phase != "reveal"
        ):
            return  # the reveal it was for was undone or decided meanwhile
        attempt.reading = None
        t = self.now if self.live_audio else read.asked_at
        if read.error is not None:
            attempt.looks = MAX_LOOKS
            self._ask_verdict(attempt, read.error, t)
            return
        reveal = read.result
        self._seen = [Seen(c.rank, tuple(c.box), c.confidence) for c in reveal.cards]
        if reveal.readable:
            from referee.game.cards import Card

            cards = [Card(c.rank, c.suit) for c in reveal.cards]
            self._announce(self.session.see(cards, t=t), t)  # decided: _announce drops _reveal
        elif attempt.looks >= MAX_LOOKS:
            self._ask_verdict(attempt, f"{reveal.message} Or say true or lie.", t)
        else:
            self._announce([Announcement(reveal.message, "unreadable")], t)

    def _ask_verdict(self, attempt: _RevealAttempt, text: str, t: float) -> None:
        if not attempt.asked:
            attempt.asked = True
            self._announce([Announcement(text, "ask_verdict")], t)

    # --- speaking and showing ----------------------------------------------------------

    def _announce(self, said: list[Announcement], t: float | None = None) -> None:
        t = self.now if t is None else t
        start = begin = self.ears.start_at(t)
        texts = []
        for announcement in said:
            if self.on_say:
                self.on_say(announcement, start)
            self._message = announcement.text
            if announcement.kind in self.unsaid:  # shown and printed, not said
                continue
            seconds = self.voice.say(announcement.text) if self.voice else 0.0
            self._spoken.append(announcement)
            texts.append(announcement.text)
            start += seconds or speech_seconds(announcement.text)
        if said:
            self.ears.said(start, len(texts), begin, " ".join(texts))
        if self.session.state.phase != "reveal":
            self._reveal = None
        self._listen_for_now()
        self._show()

    def _poll_played(self) -> None:
        """A voice that posts no events but counts what it has said (``done``) and when it
        last finished (``finished_at``): tell ``on_played`` of each newly finished sentence."""
        done = getattr(self.voice, "done", None)
        if not isinstance(done, int) or self.ears._evented or done <= self._played:
            return
        if self.voice is not None and getattr(self.voice, "speaking", lambda: None)() is None:
            return
        ended = self.ears.to_audio(self.voice.finished_at)  # type: ignore[union-attr]
        while self._played < done:
            self._tell_played(self._played, ended)

    def _tell_played(self, index: int, ended: float) -> None:
        self._played = max(self._played, index + 1)
        if self.on_played and 0 <= index < len(self._spoken):
            # placed in audio time only now: the greeting starts before the microphone's
            # first chunk says how audio time and the wall clock differ
            began = self._started.get(index)
            started = None if began is None else min(self.ears.to_audio(began), ended)
            self.on_played(self._spoken[index], started, ended)

    def notice(self, text: str) -> None:
        """Show ``text`` on the table's screen without saying it (a problem with the room,
        not the game: saying it would close the ears for as long)."""
        self._message = text
        self._show()

    def _listen_for_now(self) -> None:
        from referee.speech.vocab import ListenContext

        state = self.session.state
        ranks, most = legal_ranks(state), state.rules.max_cards_per_play(state.n)
        context = ListenContext.for_phase(
            state.phase,
            state.players,
            legal_ranks=ranks,
            max_count=most,
            taken_back=self._taken_back(ranks, most),
            undoing=self._undo_likely(),
            last_rank=(state.last_claim or {}).get("rank"),
        )
        # only when it changed: whisper's takes 50-100 ms, on the audio's own thread
        if context != self._context:
            self._context = context
            self.recognizer.set_context(context)

    def _taken_back(self, ranks: Iterable[str], most: int) -> frozenset[tuple[int, str]]:
        """The claims the table undid at this turn (the last ``TAKEN_BACK_KEPT``), not to be
        heard the same way again: a claim said again after its undo and read the same is the
        same misreading. Under babble Marco's "two fives" was read "three fives", undone,
        said again and read "one five", then "three fives" twice more, and the table gave
        the game up (bench/table, strangers, 04b3048). Only the last two: a player who took
        back a claim they meant and says it again is read otherwise at most twice, and then
        heard as they say it. Never every claim the turn allows (``ranks``, up to ``most``
        cards)."""
        if self.session.state.phase != "play":
            return frozenset()
        undone = [e for e in self.session.match.taken_back() if isinstance(e, Claim)]
        claims = frozenset((e.count, e.rank) for e in undone[-TAKEN_BACK_KEPT:])
        allowed = {(n, rank) for rank in ranks for n in range(1, most + 1)}
        return claims if allowed - claims else frozenset()

    def _undo_likely(self) -> bool:
        """Whether an undo is likely now (``ListenContext.undoing``): the table took a move back
        at this place (a wrong move often takes two undos: a verdict and the call or answer
        before it), or the last move was a call (its caller taken from the call, the voice or
        an answer to "Who called?") and the table has not moved on since. In the strangers'
        room games (bench/table, 25 runs to 008f5b5) 30 undos were said after an answer
        and 16 went unheard, 18 after a named call and 5 unheard; one misheard answer under
        babble was undone once in six tries and the game given up (008f5b5)."""
        match = self.session.match
        if match.taken_back():
            return True
        for event in reversed(match.events):
            if isinstance(event, (Call, Name)):
                return True
            if not isinstance(event, (Reveal, Verdict, GameTick)):
                return False
        return False

    def _show(self) -> None:
        if self.window is None:
            return
        self._shown_at = self.now
        state = self.session.state
        frame = getattr(self.camera, "last_frame", None)
        self.window.show(render(view(state), frame, self._seen, self._message))
