"""The recognizer: audio stream in, :class:`Heard` (utterance + intent) out.

It ties the shared parts together so every backend behaves the same at the table:

* voice activity cuts the stream and stamps each utterance with the *onset* of speech, so
  the first to call is decided by audio time, never by decoding time;
* a call (or a complete claim, or a name that completes a call) is emitted early, from the
  utterance in progress, as soon as it is recognized (``partial=True``); the final result for
  the same utterance (same ``start``) follows and supersedes it. The decode at the first
  short pause is a full reading, which the final reuses when it found something legal;
* everything heard is parsed (:func:`referee.intents.parse`) and checked against what is
  legal now (:func:`referee.speech.vocab.admit`); chatter and illegal phrases are dropped;
* :meth:`Recognizer.mute` closes the ears while the referee itself speaks.

Example (the live referee)::

    rec = Recognizer(backend_name="whisper", profile=profile.load())
    rec.set_context(ListenContext(players=("Alice", "Ben"), legal_ranks=("7",)))
    for heard in rec.utterances(MicSource()):     # Heard(utterance, intent)
        ...                                       # rec.mute_for(2.0) while speaking

or push-style, as the live referee does: ``rec.start()``, then ``rec.feed(chunk)`` for each
chunk (a list of :class:`Heard`, unpaired with names: see :func:`merge_caller`), then
``rec.finish()``.
"""

from __future__ import annotations

import re
import sys
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import replace

import numpy as np

from referee.intents import COUNT_WORDS, SEAT_WORDS, Intent, normalize
from referee.speech import backends
from referee.speech.audio import Chunk
from referee.speech.profile import DEFAULT, MicProfile
from referee.speech.types import SAMPLE_RATE, Heard, Hypothesis, Utterance
from referee.speech.vad import FRAME, Segment, Segmenter, loudest_stretch
from referee.speech.vocab import ListenContext, interpret

#: decode an utterance in progress at its first short pause (a word may have just ended):
#: a call found there is emitted at once, and anything else is reused at the endpoint
EARLY_PAUSE_FRAMES = 3  # 60 ms
#: during unbroken speech (or loud babble), re-decode every this much new audio
PARTIAL_STEP_S = 0.32
#: ...once it is this long (shorter is too little to recognize anything); also the least
#: speech read at a first pause. Both are whole frames (16 and 11): compared as sums of
#: 20 ms frames, they were a hair over what they said (0.3 and 0.2) at most times and not at
#: others, so the same words were read differently by where they fell in the stream. On
#: synthetic speech 15 and 10 frames read 3 phrases fewer (both seeds); these read as many
#: as before
PARTIAL_MIN_S = 0.22
#: a call is a few words; longer utterances in progress are not re-decoded
PARTIAL_MAX_S = 1.5
#: intents complete enough to emit from an utterance in progress (a claim needs count and rank;
#: a name may complete the call just before it: "cheat! ... Alice")
EARLY_TYPES = frozenset({"call", "claim", "name"})
#: a name and a call this close together are one call by that player ("Ben... cheat!")
NAME_CALL_GAP_S = 1.0
#: each word of a reading after its first needs at least this much of the utterance (onset
#: to the end of its words): 0.06 s of loud sound read with its pre-roll as "liar three
#: one" was a call invented in bench/speech/chatter. Not a floor on the utterance itself: a
#: real "six" (fsdd) lasts 0.08 s over the gate, and a one-word reading always stands
WORD_MIN_S = 0.1
#: a faint reading (whisper's confidence under ``FAINT_ROOM``) of words whose loudest 20 ms
#: stay this many dB under the table's (the median loudest 20 ms of the last
#: ``TABLE_WORDS_KEPT`` utterances heard as something legal) is the room's, not a player's:
#: dropped. Under 15 dB babble, babble alone read "one two" with twos due (0.20 and 0.22)
#: was taken as the current player's claim twice in two room games (bench/table, the
#: usual table and the strangers with voices, 2026-12-06), 14.8 dB under the claims before
#: it; nothing else heard in those twelve games stood even 9 dB under the words before it.
#: A plain reading stands however soft (a player far from the laptop)
ROOM_DROP_DB = 12.0
FAINT_ROOM = 0.3
#: ...and words this far under the table's stand only when read plainly (``FAINT_DEEP``):
#: the further under the players' words, the surer the reading must be. Under 15 dB babble
#: Yuki's answer to "Who called?" went unheard and the babble 2 s later, read "okay nadia"
#: (0.32) and 16.2 dB under the table's words, was taken as the answer: Nadia credited
#: with Yuki's call, two undos (bench/table, strangers, ae8228e). Of everything heard in
#: those six games nothing else stood even 6 dB under the words before it
ROOM_DEEP_DB = 15.0
FAINT_DEEP = 0.5
TABLE_WORDS_KEPT = 5
#: a call, a name, a pass or a command read from words over the voice gate for less than
#: this (onset to end) is the room's: a blip of babble, read with the quiet around it. Of
#: the things 40-minute stretches of bench/speech/chatter invented (minutes 200-619, each
#: counted once), 9 were so: 6 calls ("liar" five times, "bullshit"), 2 names ("ben"), a
#: "pass", all 0.06-0.08 s, all under 10 dB babble. True calls, 360 said clean to 10 dB
#: babble (espeak-ng and piper voices, bench/speech/call_lengths.md): the shortest heard
#: 0.22 s clean, 0.14 in 20 dB noise, 0.10 under 15 dB babble (one; the next 0.26), 0.20
#: under 10 dB babble, none under the floor; the room games' calls and names 0.2 s and up.
#: Not claims nor counts: a real "six" (fsdd) lasts 0.08 s over the gate, and the rank due
#: alone is a claim
SOUND_MIN_S = 0.1
SHORT_SOUND_TYPES = frozenset({"call", "name", "pass", "command"})
#: the ears' shuttings kept (``Recognizer.mutes``)
MUTES_KEPT = 2000
#: an utterance at least this long that reads as nothing legal is read again from its loudest
#: words alone (:func:`referee.speech.vad.loudest_stretch`): babble held the gate open
#: around them. Only a command is taken from there: on bench/speech's synthetic sets (64 a
#: set) it took 3 more commands under babble ("new game", "whose turn", "how many cards")
#: and one claim from chatter under babble ("hold on a second" as "three threes"). And a
#: call naming its caller (2026-12-05): in a strangers' room game under babble Yuki's "Yuki,
#: cheat!" ended a 5 s utterance of babble, read whole as nothing and from its loudest
#: words as "yuki cheat", and went unheard twice; a bare call is not taken so (a call must
#: name someone the table can check, and chatter's stretches hold no names)
LONG_UTTERANCE_S = 1.0
STRETCH_TYPES = frozenset({"command"})
#: ...and a claim whisper read there itself (not guessed) at least ``STRETCH_CLAIM_MIN``
#: sure. In a ringing room under 15 dB babble (bench/table --rt60 0.5, 3baa35a) Alice's
#: "four nines" was said four times and never taken: babble held the gate open for 2-5 s
#: around it, the whole read as nothing ("one two three four"), its loudest words "four
#: nines" at 0.69 and 0.76; the game was given up. Chatter's "three threes" of 2026-12-03
#: was whisper-constrained's, before the listener's head checked every reading
STRETCH_CLAIM = True
STRETCH_CLAIM_MIN = 0.5
#: ...and one read whole as a bare call only the head heard (guessed) is read from its
#: loudest words too: a call naming its caller there is taken. Under 15 dB babble Rob's
#: "Rob, cheat!" (piper, deep) ended a second of babble, was read whole "cheat" (0.02-0.04,
#: the head's) and asked "Who called?" all four times (bench/table, strangers, db28062)
STRETCH_GUESSED_BARE = True
#: loud sound running on after the ears open is the voice's own echo (or its estimate fell
#: short) for at most this long: in a 20 dB kitchen the noise stayed over the gate, and a
#: claim begun 0.17 s after the ears opened was taken for echo to its end (bench/table)
ECHO_CARRY_S = 0.14
#: a short utterance that reads as nothing legal is read again as the words either side of
#: its longest pause, when that pause is at least this long: "Cara, cheat!" with 0.1-0.2 s
#: between the words (under the gate's hangover, so one utterance) read whole "cara m teet"
#: (espeak-ng's en-us+f3 in the room, both times it was said), and read as two, "Cara" and
#: "cheat": a call by Cara, as when the pause was long enough to end the first utterance.
#: Not kept: a call after the pause with nothing legal before it (babble before
#: "bullshit!": 1 of 6 in a room's recording; bench/speech's chatter under babble read
#: "the train was delayed again" as "i doubt it" so), nor calls from the loudest words of a
#: long utterance (one more call invented in 20 minutes of bench/speech/chatter)
SPLIT_PAUSE_S = 0.08
SPLIT_MAX_S = 2.0
#: ...and a command read plainly (not guessed) from the words before that pause is taken:
#: under babble the talk after a player's "undo" held the gate open, the whole read as
#: nothing, and the words before the pause read "undo" (0.43); six undos were said and none
#: taken, and the game derailed (a strangers' room game, 2026-12-05, Marco's "undo"). Only
#: before the pause: what babble says after it is not the player's
COMMAND_FIRST = frozenset({"command"})
#: an utterance begun at most this long after one read as a bare call is read first joined
#: to that call (at its first pause and whole): "cheat, Alice!" with a comma longer than the
#: gate's hangover is two utterances, and a name read alone is weighed on little sound. In
#: 10 dB noise whisper read "Alice" alone as nothing (both times, bench/speech); in a 20 dB
#: kitchen the first 0.46 s of "Cara" alone read "dev", and Dev was credited with her call
#: (bench/table). Read together, "cheat alice", "cheat cara". Only a call naming its
#: caller is taken from there; else the words are read alone, as ever. So is a bare call
#: begun this soon after words read as nothing, joined to them (whole readings only):
#: "Cara, ... cheat!" under babble, the gate closed at the comma and "Cara" alone read
#: nothing (bench/table findings §21); and words read as nothing (or only guessed) this soon
#: after a name read alone: "Rob, ... cheat!", "cheat" alone read "see" in a quiet room and
#: forced to "three sixes" in a 20 dB kitchen, where it ended a game (findings §25). Where
#: such words, read joined to the name, are a call that names no one (the name lost in the
#: joining), that call is theirs: the name before it is its caller, as if they had read as
#: the call alone. Under 10 dB babble espeak-ng's "Ben, cheat!" (en-gb) read "ben" and then
#: "thank you": joined, a call (the listener's head 0.99, a name in it 1.0) made bare, and
#: dropped, and the call went unheard (bench/speech). bench/speech/named.py (seed 13, 320
#: calls): one more caller right under 15 dB babble, none wrong; 40 minutes of chatter no
#: rule was made on (bench/speech/chatter, minutes 540-579): nothing more invented. And a
#: name read alone this soon after words read as nothing: "cheat, ... Rob!" in a 20 dB
#: kitchen, "cheat" alone (piper's deep voice) read as nothing and "Rob" as his name, and
#: the call went unheard twice (bench/table, strangers, 5fcbafb); joined, "cheat rob"
REJOIN_GAP_S = 0.6
#: ...and words begun that soon after a name read alone are read joined to it at their
#: first pause, however short: a call naming that player, read plainly, is acted on there
#: (guessed, the whole utterance, read joined first, decides).
#: "Rob, ... cheat!" with the comma longer than the gate's hangover was read only once its
#: own hangover ended, alone ("three", guessed) and then joined ("rob cheat"): acted on
#: 0.46-0.67 s after the words in the room's 20 dB kitchen and 15 dB babble, where the
#: other calls took 0.1-0.2 s (bench/table, strangers, 1a974b6). Only that name's call:
#: anything else is left to the whole utterance, read as before
NAMED_AT_PAUSE = True


def _frames(seconds: float) -> int:
    """Whole 20 ms frames in ``seconds``. Audio times are sums of frame lengths: compared as
    seconds, ten frames come to 0.19999999999999996 and fall short of 0.2."""
    return round(seconds * SAMPLE_RATE / FRAME)


def _blip(segment: Segment) -> bool:
    """Whether ``segment``'s words were over the gate for less than ``SOUND_MIN_S``."""
    return _frames(segment.end - segment.start) < _frames(SOUND_MIN_S)


def _complete(intent: Intent) -> bool:
    """Whether an early reading needs no more words: a claim, or a call with its caller."""
    return intent.type == "claim" or (intent.type == "call" and intent.caller is not None)


_SEAT_LAST = re.compile(rf"\b(?:{'|'.join(SEAT_WORDS)}) \w+$")


def _name_unfinished(heard: Heard) -> Heard | None:
    """A reading made while its words go on, of a name not yet finished. A call whose
    caller's name comes last ("cheat, De-") is the call alone, its caller left to the
    reading at the pause after it: espeak-ng's "cheat, Dev!" was read "cheat ben" 0.3 s in
    and acted on as Ben's call, where the whole read "cheat dev" (as "bullshit, player two!"
    under babble was read "bullshit player three"); a name first ("Dev, cheat!") is
    finished once the call is heard. A name alone is not read at all (None) until its words
    pause: the first 0.32 s of "Alice" after "liar," were read "ben", paired with the call
    and acted on as Ben's (1 and 5 of 320 named calls, clean to 10 dB babble, in two draws
    like bench/speech/named.py's); the pause comes 60 ms after the name ends."""
    intent = heard.intent
    if intent.type == "name":
        return None
    if intent.type != "call" or intent.caller is None:
        return heard
    words = heard.utterance.text.split()
    by_seat = _SEAT_LAST.search(heard.utterance.text) is not None  # "cheat, player fo-"
    if not words or (words[-1] not in normalize(intent.caller).split() and not by_seat):
        return heard
    return replace(heard, intent=replace(intent, caller=None))


def _from_stretch(heard: Heard) -> bool:
    """Whether ``heard``, read from a long utterance's loudest words, is taken (see
    ``LONG_UTTERANCE_S`` and ``STRETCH_CLAIM``)."""
    intent = heard.intent
    if intent.type in STRETCH_TYPES or (intent.type == "call" and intent.caller is not None):
        return True
    sure = (heard.utterance.confidence or 0.0) >= STRETCH_CLAIM_MIN
    return STRETCH_CLAIM and intent.type == "claim" and not heard.guessed and sure


def _command_first(heard: Heard) -> bool:
    """Whether ``heard``, read from the words before an utterance's longest pause, is taken
    alone (see ``COMMAND_FIRST``)."""
    return heard.intent.type in COMMAND_FIRST and not heard.guessed


def _news(heard: Heard, early: Heard | None) -> bool:
    """Whether an early reading says more than the last one emitted for the same words."""
    return early is None or (heard.intent, heard.guessed) != (early.intent, early.guessed)


def _read_twice(heard: Heard, early: Heard | None) -> bool:
    """Whether ``heard`` is a guessed call naming its caller that the last early reading of
    the same words, at an earlier pause, guessed too: acted on then, not left to the final.
    Under babble the gate stays open past the words, and a call made where whisper heard
    none waited for it: "Cara, cheat!" read "cara cheat" at two pauses, 0.6 s apart, was
    acted on 0.9 s after its words (bench/table findings §18)."""
    return (
        early is not None
        and heard.guessed
        and early.guessed
        and heard.intent.type == "call"
        and heard.intent.caller is not None
        and heard.intent == early.intent
    )


#: call phrases that are one call said two ways (a first pause may hear the first of them)
_SAME_CALL = {"b s": "bullshit", "bs": "bullshit", "bull shit": "bullshit"}


def _guessed_otherwise(heard: Heard, early: Heard | None) -> bool:
    """Whether ``heard``, a bare call made where whisper read none (guessed), was made as
    another call at an earlier pause of the same words. When a call was said, the decoder
    makes the same one at every reading, or at a pause the start of it ("cheat" of
    "cheater!"; bench/speech: every true call made under babble or in a reverberant room,
    25 clips, read alike at each pause); when none was, its choice among the calls flips:
    three of thirteen calls made of two hours' chatter (bench/speech/chatter, minutes 0-119)
    were "cheater" or "liar" at the first pause and "b s" whole."""
    if early is None or early.utterance.start != heard.utterance.start:
        return False
    if not (heard.guessed and early.guessed):
        return False
    if not heard.intent.type == early.intent.type == "call":
        return False
    if heard.intent.caller is not None or early.intent.caller is not None:
        return False
    now, then = (_SAME_CALL.get(h.utterance.text, h.utterance.text) for h in (heard, early))
    return not (now.startswith(then) or then.startswith(now))


def _confirm(early: Heard | None, segment: Segment) -> Heard | None:
    """The final for an utterance whose call or claim was already emitted early, when the
    full utterance decodes to nothing legal: the early reading stands (a complete claim or a
    named call read early is usually the cleaner reading), except a bare call or a name: the
    referee waits for the end of the words before acting on one, and "She said..." first
    heard as "cheat" is chatter, "Ben... ten" a number."""
    if early is None or early.utterance.start != segment.start or early.guessed:
        return None
    if not _complete(early.intent):
        return None
    utterance = replace(early.utterance, end=segment.end, partial=False)
    return Heard(utterance, early.intent, decided_at=early.decided_at)


def merge_caller(previous: Heard | None, heard: Heard) -> Heard | None:
    """A call with its caller, when a name and a caller-less call came as two utterances.

    "Ben ... cheat!" and "cheat! ... Ben" both become a call by Ben, stamped with the onset of
    the first of the two; None when the pair does not make such a call. ``heard`` may be an
    early reading: the merged call is then early too (and guessed if it was), so a named call
    is known before the second word's speaker has quite finished.
    """
    if previous is None or previous.utterance.partial:
        return None
    if heard.utterance.start - previous.utterance.end > NAME_CALL_GAP_S:
        return None
    pair = {previous.intent.type, heard.intent.type}
    if pair != {"name", "call"}:
        return None
    name, call = (previous, heard) if previous.intent.type == "name" else (heard, previous)
    if call.intent.caller is not None:
        return None
    utterance = Utterance(
        previous.utterance.start,
        heard.utterance.end,
        f"{previous.utterance.text} {heard.utterance.text}",
        heard.utterance.confidence,
        heard.utterance.partial,
    )
    intent = replace(call.intent, caller=name.intent.name)
    return Heard(utterance, intent, decided_at=heard.decided_at, guessed=heard.guessed)


class Recognizer:
    """Listens with one backend under the current :class:`ListenContext`."""

    def __init__(
        self,
        backend: backends.Backend | None = None,
        *,
        backend_name: str = backends.DEFAULT_BACKEND,
        context: ListenContext | None = None,
        profile: MicProfile = DEFAULT,
        partials: bool = True,
        warn=None,
        **backend_options,
    ):
        self.backend = backend or backends.create(backend_name, **backend_options)
        self.profile = profile
        self.partials = partials
        self.warn = warn or (lambda message: print(f"referee: {message}", file=sys.stderr))
        self.muted_until = -1.0
        #: (audio time, muted until) each time that changed, the latest MUTES_KEPT
        self.mutes: deque[tuple[float, float]] = deque(maxlen=MUTES_KEPT)
        self.audio_time = 0.0
        #: simulated clock: audio time at which the last decision would be known live
        self.busy_until = 0.0
        #: seconds spent decoding, all told (for the real-time factor)
        self.compute_s = 0.0
        #: the last decode: its utterance (start, end), how much audio it read, and what it heard
        self._cached: tuple[tuple[float, float], int, Hypothesis] | None = None
        self._segmenter: Segmenter | None = None
        #: the last finished utterance (:meth:`read_from`)
        self._last_final: Segment | None = None
        #: how that utterance read, where the next may be read joined to it
        #: (:meth:`_rejoined`): "bare call", "nothing" (nothing legal), "name", or None
        self._last_read: str | None = None
        #: the player that utterance named, when it read as a name alone
        self._last_name: str | None = None
        self.set_context(context or ListenContext())
        self.start()

    @property
    def hearing(self) -> bool:
        """Whether someone is speaking now: an utterance is in progress, and not one that
        stays ``MicProfile.words_drop_db`` under the last words heard (the room's babble
        reopens the gate again and again; a bare call's wait for its caller's name ran to
        its longest behind it, 2.5 s, in a babble room game)."""
        peak = self._segmenter.peak_db if self._segmenter is not None else None
        if peak is None:
            return False  # no utterance in progress
        drop = self.profile.words_drop_db
        return not self._table_db or drop <= 0 or peak >= self._table_db[-1] - drop

    def set_context(self, ctx: ListenContext) -> None:
        """Listen for what is legal now (call at every turn)."""
        self.context = ctx
        for warning in self.backend.set_context(ctx):
            self.warn(warning)

    def mute(self, until: float) -> None:
        """Ignore everything heard before audio time ``until`` (the referee is speaking)."""
        if until > self.muted_until:
            self._note_mute(until)
        self.muted_until = max(self.muted_until, until)

    def _note_mute(self, until: float) -> None:
        """Keep when the ears were shut, and till when (``--ears-out``)."""
        self.mutes.append((self.audio_time, until))

    def mute_for(self, seconds: float) -> None:
        """Mute from the latest audio heard for ``seconds``."""
        self.mute(self.audio_time + seconds)

    def hear_from(self, t: float) -> None:
        """Hear again from audio time ``t`` on (the referee finished speaking sooner than
        it was muted for)."""
        if t < self.muted_until:
            self._note_mute(t)
        self.muted_until = min(self.muted_until, t)

    def unmute(self) -> None:
        self.muted_until = -1.0

    def interpret(self, text: str) -> Intent | None:
        """The intent of ``text`` if it is legal now, else None."""
        return interpret(text, self.context)

    def _recognize(self, segment: Segment, final: bool = True) -> Hypothesis:
        """Decode, or reuse the decode made at the first pause when nothing was said since.

        The final decodes again when that early reading left work for it (``unsettled``),
        found nothing legal or a call without its caller: the quiet tail since then, below the
        voice gate, may hold the end of the last word (the caller's name, "cheat, Dev!"). An
        unsettled reading with no more than a first pause of quiet after it (a periodic
        re-read that landed at the end of the words) is finished on its own audio instead, as
        a settled early reading would be reused: the backend still holds its encoding, so
        only the second reading is new work, where reading it all again would cost an
        encoding and a free reading more.

        ``busy_until`` models when the answer would be known live: decoding starts once the
        audio is in and the previous decode is done.
        """
        key = (segment.start, segment.end)
        if self._cached is not None and self._cached[0] == key:
            read, early = self._cached[1:]
            intent = self._intent(early)
            settled = not early.unsettled and (early.chatter or intent is not None)
            if read == len(segment.audio) or not final:
                self.busy_until = max(self.busy_until, self.audio_time)
                return early
            bare = intent is not None and intent.type == "call" and intent.caller is None
            if settled and bare:
                # a call without its caller waits for a name anyway (referee.live.calls),
                # and the name may be in the tail: read it all, but only a reading that
                # is still a call replaces it (a bare "cheat!" in 20 dB noise, read whole
                # with its tail, was "three twos": a claim nobody made, bench/echo)
                whole = self._decode(key, segment.audio, final)
                again = self._intent(whole)
                if again is not None and again.type == "call":
                    return whole
                self._cached = (key, len(segment.audio), early)
                return early
            if settled:
                self.busy_until = max(self.busy_until, self.audio_time)
                return early
            if early.unsettled and len(segment.audio) - read <= EARLY_PAUSE_FRAMES * FRAME:
                return self._decode(key, segment.audio[:read], final)
        return self._decode(key, segment.audio, final)

    def _decode(self, key: tuple[float, float], audio: np.ndarray, final: bool) -> Hypothesis:
        started = time.perf_counter()
        hypothesis = self.backend.decode(audio, final=final)
        self.compute_s += time.perf_counter() - started
        self.busy_until = max(self.busy_until, self.audio_time) + time.perf_counter() - started
        self._cached = (key, len(audio), hypothesis)
        return hypothesis

    def _intent(self, hypothesis: Hypothesis) -> Intent | None:
        """What a backend's reading means if it is legal now, else None."""
        return self.interpret(hypothesis.text) if hypothesis.text else None

    def _final(self, segment: Segment, early: Heard | None) -> Heard | None:
        """The final result for a finished utterance; an early reading stands only when the
        whole of it was not chatter (see :func:`_confirm`). A long one that says nothing legal
        may hold a command in its loudest words (``LONG_UTTERANCE_S``)."""
        previous, read = self._last_final, self._last_read
        self._last_final, self._last_read = segment, None
        if self._halved and early is not None and early.utterance.start == segment.start:
            return _confirm(early, segment)  # read in halves, early: the whole says no more
        joined = self._rejoined(previous, segment, partial=False) if read == "bare call" else None
        if joined is not None:
            return joined
        joined_early = early is not None and previous is not None and read == "name"
        if joined_early and early.utterance.start == previous.start:
            # read joined to the name at the first pause (NAMED_AT_PAUSE): read so again
            named = self._rejoined(previous, segment, partial=False, after_name=True)
            if named is not None:
                return named
        chatter = self._recognize(segment, final=True).chatter  # _decide reuses it
        heard = self._decide(segment, partial=False)
        if heard is not None and _guessed_otherwise(heard, early):
            heard = None
        if heard is None and not chatter:
            heard = (
                _confirm(early, segment)
                or self._halves(segment, early)
                or self._name_confirmed(segment, early)
                or self._name_first(segment)
            )
        bare = heard is not None and heard.intent.type == "call" and heard.intent.caller is None
        if bare and heard.guessed and STRETCH_GUESSED_BARE:
            words = self._loudest_words(segment)
            if words is not None and words.intent.type == "call" and words.intent.caller:
                return words
        if bare and read == "nothing":
            named = self._rejoined(previous, segment, partial=False)
            if named is not None:
                return named  # "Cara, ... cheat!", her name read alone as nothing
        if bare:
            self._last_read = "bare call"
        if read == "nothing" and heard is not None and heard.intent.type == "name":
            named = self._rejoined(previous, segment, partial=False)
            if named is not None:
                return named  # "cheat, ... Rob!", the call word alone read as nothing
        if read == "name" and (heard is None or heard.guessed):
            named = self._rejoined(previous, segment, partial=False, after_name=True)
            if named is not None:
                return named  # "Rob, ... cheat!", the call alone read as nothing (or guessed)
        if heard is not None and heard.intent.type == "name":
            self._last_read, self._last_name = "name", heard.intent.name
        if heard is None:
            words = self._loudest_words(segment)
            if words is not None and _from_stretch(words):
                return words
        if heard is None:
            self._last_read = "nothing"
        return heard

    def _loudest_words(self, segment: Segment) -> Heard | None:
        """What the loudest words of ``segment`` say alone, if legal now; None when it is
        shorter than ``LONG_UTTERANCE_S`` or no words stand out of it."""
        if segment.end - segment.start < LONG_UTTERANCE_S:
            return None
        stretch = loudest_stretch(segment.audio)
        if stretch is None:
            return None
        return self._decide(segment.stretch(*stretch), partial=False)

    def _rejoined(
        self, first: Segment | None, segment: Segment, partial: bool, after_name: bool = False
    ) -> Heard | None:
        """``segment`` read joined to ``first``, the utterance that ended just before it
        (``REJOIN_GAP_S``): a bare call and the words after it, or words read as nothing
        and the bare call after them. The call with its caller's name, stamped with
        ``first``'s onset (the same call, now named, as :func:`merge_caller` stamps
        "Ben ... cheat!"), or None. ``after_name``: ``first`` was read as a player's name
        alone, so a bare call read from the two together is ``segment``'s, stamped with its
        own onset: the name before it is its caller (:func:`merge_caller`), as when
        ``segment`` alone reads as that call (``REJOIN_GAP_S``)."""
        if first is None or segment.start - first.end > REJOIN_GAP_S:
            return None
        if segment.end - first.start > SPLIT_MAX_S:
            return None
        t0 = first.start if first.audio_start is None else first.audio_start
        t1 = segment.start if segment.audio_start is None else segment.audio_start
        cut = round((t1 - t0) * SAMPLE_RATE)
        gap = np.zeros(max(0, cut - len(first.audio)), np.float32)
        audio = np.concatenate([first.audio[: max(0, cut)], gap, segment.audio])
        joined = Segment(first.start, segment.end, audio, segment.done, t0)
        heard = self._decide(joined, partial=partial, full=True)
        if heard is not None and partial and _SEAT_LAST.search(heard.utterance.text):
            # a pause inside the words may come before the seat is said: "cheat, ...
            # play-er three!" read "cheat play a" at the pause after "play-" (Alice's
            # seat), in 20 dB noise (bench/speech/named.py); by seat, the final decides
            return None
        if heard is None or heard.intent.type != "call":
            return None
        if heard.intent.caller is None:
            if not after_name:
                return None
            return replace(heard, utterance=replace(heard.utterance, start=segment.start))
        return heard

    def read_from(self, start: float, t: float) -> Heard | None:
        """What the last finished utterance (its onset ``start``) says from audio time ``t``
        on, if legal now; None when it is not that one or too little of it is left. The live
        referee reads so the words after its own voice in an utterance begun over it."""
        segment = self._last_final
        if segment is None or segment.start != start or segment.end - t < PARTIAL_MIN_S:
            return None
        t0 = segment.start if segment.audio_start is None else segment.audio_start
        first = max(0, round((t - t0) * SAMPLE_RATE))
        return self._decide(segment.stretch(first, first, len(segment.audio)), partial=False)

    def _halves(
        self, segment: Segment, early: Heard | None, *, early_head: bool = False
    ) -> Heard | None:
        """A name and a call either side of ``segment``'s longest pause, read apart, as one
        call by that player (:func:`merge_caller`), or a command read plainly before it
        (``COMMAND_FIRST``); None for anything else. The words before
        the pause are most often what the first pause's early reading already read
        (``early_head``: only then, and the call is early too)."""
        pause = segment.pause
        if (
            pause is None
            or pause[1] - pause[0] < _frames(SPLIT_PAUSE_S) * FRAME
            or segment.end - segment.start > SPLIT_MAX_S
        ):
            return None
        halves = segment.halves()
        assert halves is not None
        head_words, tail_words = halves
        head: Heard | None = None
        if (
            early is not None
            and early.utterance.start == segment.start
            and early.utterance.end <= head_words.end
            and not early.guessed
        ):
            head = Heard(replace(early.utterance, partial=False), early.intent, early.decided_at)
        elif not early_head:
            head = self._decide(head_words, partial=False) or self._leading_name(head_words)
        if head is not None and _command_first(head) and not early_head:
            return head  # see COMMAND_FIRST
        # early, only a name before the pause: a name read alone after it is weighed on less
        # sound ("cheat, Dev!": "Ben"), so "cheat ... Dev" is left to the whole reading
        wanted = ("name",) if early_head else ("name", "call")
        if head is None or head.intent.type not in wanted:
            return None
        tail = self._decide(tail_words, partial=False)
        call = merge_caller(head, tail) if tail is not None else None
        if call is None or not early_head:
            return call
        if call.guessed:
            return None  # a guessed call waits for the whole utterance
        return replace(call, utterance=replace(call.utterance, partial=True))

    def _name_confirmed(self, segment: Segment, early: Heard | None) -> Heard | None:
        """A name read early whose whole utterance, read as nothing legal, still begins with
        it: that name ("Cara," read "cara" at its pause and "cara rip" whole, in the 20 dB
        kitchen), so that the call said just after it is hers (:func:`merge_caller`)."""
        if (
            early is None
            or early.intent.type != "name"
            or early.guessed
            or early.utterance.start != segment.start
        ):
            return None
        leading = self._leading_name(segment)
        if leading is None or leading.intent != early.intent:
            return None
        utterance = replace(early.utterance, end=segment.end, partial=False)
        return Heard(utterance, early.intent, decided_at=self.busy_until)

    def _name_first(self, segment: Segment) -> Heard | None:
        """A short utterance read as a player's name and one stray word, with no early
        reading to confirm it: the name. In the 20 dB kitchen "Cara," (noise holding the gate
        open a little before it) read "cara red" at its pause and "cara mipp" whole, and her
        call just after it was asked "Who called?". A name alone only pairs with a bare call
        said within NAME_CALL_GAP_S, or answers "Who called?"; longer readings are left:
        chatter names people ("ben is late again")."""
        if segment.end - segment.start > SPLIT_MAX_S:
            return None
        hypothesis = self._recognize(segment)
        if len(hypothesis.text.split()) != 2:
            return None
        return self._leading_name(segment)

    def _leading_name(self, segment: Segment) -> Heard | None:
        """The player named by the first words ``segment`` was read as (after a
        :meth:`_decide` of it that found nothing legal): espeak-ng's "Cara," before a pause
        is read "cara remind"."""
        hypothesis = self._recognize(segment)
        words = hypothesis.text.split()
        for n in (2, 1):
            intent = self.interpret(" ".join(words[:n])) if len(words) > n else None
            if intent is not None and intent.type == "name":
                text = " ".join(words[:n])
                utterance = Utterance(segment.start, segment.end, text, hypothesis.confidence)
                return Heard(utterance, intent, decided_at=self.busy_until)
        return None

    def _decide(self, segment: Segment, partial: bool, full: bool | None = None) -> Heard | None:
        """What ``segment`` says, if legal now. ``full``: read it as thoroughly as a final
        (default: unless ``partial``)."""
        hypothesis = self._recognize(segment, final=not partial if full is None else full)
        if not hypothesis.text:
            return None
        intent = self.interpret(hypothesis.text)
        if intent is None or (partial and intent.type not in EARLY_TYPES):
            return None
        if partial and intent.type == "claim" and hypothesis.text in COUNT_WORDS:
            return None  # "four" with fours due may be the start of "four fours": the final says
        if len(hypothesis.text.split()) > 1 + (segment.end - segment.start) / WORD_MIN_S:
            return None  # see WORD_MIN_S
        if intent.type in SHORT_SOUND_TYPES and _blip(segment):
            return None  # see SOUND_MIN_S
        if self._the_rooms(segment, hypothesis.confidence):
            return None  # see ROOM_DROP_DB
        utterance = Utterance(
            segment.start, segment.end, hypothesis.text, hypothesis.confidence, partial
        )
        return Heard(utterance, intent, decided_at=self.busy_until, guessed=hypothesis.guessed)

    def _the_rooms(self, segment: Segment, confidence: float | None) -> bool:
        """Whether words read with ``confidence`` are the room's, not a player's: read
        faintly well under the table's words (``ROOM_DROP_DB``), or less than plainly far
        under them (``ROOM_DEEP_DB``). A backend that gives no confidence is never faint."""
        if confidence is None or confidence >= max(FAINT_ROOM, FAINT_DEEP):
            return False
        under = self._under_the_table(segment)
        if under is None:
            return False
        faint_below = FAINT_DEEP if under > ROOM_DEEP_DB else FAINT_ROOM
        return under > ROOM_DROP_DB and confidence < faint_below

    def _under_the_table(self, segment: Segment) -> float | None:
        """How many dB the loudest 20 ms of ``segment`` stay under the table's words (None:
        nothing has set the table's level yet)."""
        if not self._table_db:
            return None
        frames = len(segment.audio) // FRAME
        if frames == 0:
            return None
        power = np.mean(segment.audio[: frames * FRAME].reshape(frames, FRAME) ** 2, axis=1)
        peak = 10 * np.log10(float(power.max()) + 1e-12)
        return float(np.median(self._table_db)) - peak

    def utterances(self, source: Iterable[Chunk]) -> Iterator[Heard]:
        """Everything legal said in ``source``, as soon as it is known.

        A call recognized before its speaker stops comes first with ``partial=True``; the final
        result for the same onset follows. A name next to a caller-less call yields the call
        again with its caller (:func:`merge_caller`; the live referee's call assembler pairs
        them itself from :meth:`feed`'s output).
        """
        previous: Heard | None = None
        self.start()
        for heard in self._pushed(source):
            merged = merge_caller(previous, heard)
            yield merged or heard
            if not heard.utterance.partial:
                previous = None if merged else heard

    def _pushed(self, source: Iterable[Chunk]) -> Iterator[Heard]:
        for chunk in source:
            yield from self.feed(chunk)
        yield from self.finish()

    # --- push-style: the live referee feeds chunks as they come ---------------------------

    def start(self) -> None:
        """Begin a new stream (audio time from its own start)."""
        self._segmenter = Segmenter(self.profile)
        self.busy_until = 0.0
        self._cached = None
        self._pending = np.zeros(0, np.float32)
        self._pending_start = 0.0
        self._last_partial = 0
        self._called_early = False
        self._early: Heard | None = None
        self._last_read = None
        #: a claim the last periodic re-read of the words in progress said, held
        #: (:meth:`_steady`)
        self._unsteady: Heard | None = None
        #: the early reading was a name and a call read apart (:meth:`_halves`)
        self._halved = False
        #: words in progress whose first pause came while the decoder was busy: read once it
        #: is free, unless the words go on first
        self._due: Segment | None = None
        #: frames since the ears opened that were still taken for the voice's echo (0: none)
        self._echo = 0
        #: the level of the loudest 20 ms of the last few utterances heard as something
        #: legal, the latest last (``hearing``, ``ROOM_DROP_DB``)
        self._table_db: deque[float] = deque(maxlen=TABLE_WORDS_KEPT)

    def feed(self, chunk: Chunk) -> list[Heard]:
        """Hear one chunk; returns what became known in it (early readings and finals, not
        yet paired with a name said next to them: see :func:`merge_caller`)."""
        if self._segmenter is None:
            self.start()
        segmenter = self._segmenter
        assert segmenter is not None
        out: list[Heard] = []
        if len(self._pending) == 0:
            self._pending_start = chunk.start
        self._pending = np.concatenate(
            [self._pending, chunk.samples.astype(np.float32, copy=False)]
        )
        while len(self._pending) >= FRAME:
            frame, self._pending = self._pending[:FRAME], self._pending[FRAME:]
            t = self._pending_start
            self._pending_start += FRAME / SAMPLE_RATE
            self.audio_time = self._pending_start
            muted = self._pending_start <= self.muted_until
            carried = self._echo < _frames(ECHO_CARRY_S) and segmenter.is_loud(frame)
            if muted or (self._echo and carried):
                # the referee's voice, and whatever sound runs on past the gate
                self._echo = 1 if muted else self._echo + 1
                segmenter.reset()
                segmenter.listen_only(frame)
                continue
            if self._echo:
                segmenter.forget()  # what comes next never reaches back into the voice
            self._echo = 0
            heard = self._push_frame(segmenter, t, frame)
            if heard is not None:
                out.append(heard)
        return out

    def _push_frame(self, segmenter: Segmenter, t: float, frame: np.ndarray) -> Heard | None:
        was_speaking = segmenter.in_speech
        finished = segmenter.push(t, frame)
        if segmenter.in_speech and not was_speaking:
            self._last_partial, self._called_early, self._halved = 0, False, False
            self._unsteady = None
        if finished is not None:
            heard = self._final(finished, self._early)
            self._early, self._due = None, None
            if heard is not None and finished.peak_db is not None:
                self._table_db.append(finished.peak_db)
            return heard
        current = segmenter.current()
        if not self.partials or current is None or self._called_early:
            self._due = None
            return None
        if self._due is not None and segmenter.quiet_frames >= EARLY_PAUSE_FRAMES:
            if self.busy_until > self.audio_time:
                return None
            due, self._due = self._due, None
            return self._read_at_pause(due)
        self._due = None  # the words went on: that pause was not their end
        length = _frames(current.end - current.start)
        first_pause = segmenter.quiet_frames == EARLY_PAUSE_FRAMES
        held = self._unsteady if first_pause else None
        if held is not None and current.end - held.utterance.end <= PARTIAL_STEP_S:
            # the words stopped soon after the claim was read (no re-read since): it was
            # the end of them
            self._unsteady = None
            self._called_early = not held.guessed
            self._early = replace(held, decided_at=max(held.decided_at, self.audio_time))
            return self._early
        periodic = (
            segmenter.quiet_frames == 0
            and _frames(PARTIAL_MIN_S) <= length <= _frames(PARTIAL_MAX_S)
            and length - self._last_partial >= _frames(PARTIAL_STEP_S)
            # live, a decode still running means the audio is waiting: don't add
            # another one it would soon make stale
            and self.busy_until <= self.audio_time
        )
        if first_pause and (length >= _frames(PARTIAL_MIN_S) or self._after_name(current)):
            self._last_partial = length
            if self.busy_until > self.audio_time:
                # the decoder is still on an earlier reading (live, this audio waits behind
                # it): read this pause only if the words have not gone on by the time it is
                # free. Under babble every dip is a first pause, and each read in full
                # (0.5-0.8 s with a phrase made) put a call's reading 2.3 s behind its
                # words (bench/table findings §17)
                self._due = current
                return None
            return self._read_at_pause(current)
        if periodic:
            self._last_partial = length
            heard = self._decide(current, partial=True, full=False)
            heard = self._steady(_name_unfinished(heard) if heard else None)
            return self._emit_early(heard)
        return None

    def _read_at_pause(self, current: Segment) -> Heard | None:
        """The words in progress read at their first short pause."""
        if self._early is not None:
            # "Cara, ... cheat!": the name was read at the pause after it; the words since
            # are read alone, as if that pause had ended an utterance (the whole costs
            # more, and whisper reads some voices' "Cara, cheat!" as neither)
            call = self._halves(current, self._early, early_head=True)
            if call is not None:
                self._called_early, self._early, self._halved = True, call, True
                return call
        if self._after_name(current):
            # "Rob, ... cheat!": read joined to the name at once (see NAMED_AT_PAUSE)
            call = self._rejoined(self._last_final, current, partial=True, after_name=True)
            if call is not None and call.intent.caller == self._last_name:
                return self._emit_early(call)  # guessed, it waits for the whole (joined)
            if _frames(current.end - current.start) < _frames(PARTIAL_MIN_S):
                return None
        bare_call = self._last_final if self._last_read == "bare call" else None
        joined = self._rejoined(bare_call, current, partial=True)
        if joined is not None:
            return self._emit_early(joined)
        # the first pause is most often the end of the words: read it in full there, so
        # the final (same audio, once the hangover ends) reuses it
        return self._emit_early(self._decide(current, partial=True, full=True))

    def _after_name(self, current: Segment) -> bool:
        """Whether the words in progress began just after words read as a name alone
        (``NAMED_AT_PAUSE``)."""
        return (
            NAMED_AT_PAUSE
            and self._last_read == "name"
            and self._last_final is not None
            and current.start - self._last_final.end <= REJOIN_GAP_S
        )

    def _emit_early(self, heard: Heard | None) -> Heard | None:
        if heard is not None and _read_twice(heard, self._early):
            heard = replace(heard, guessed=False)
        if heard is not None and _news(heard, self._early):
            # a name alone may begin "Ben, cheat!", a bare call may go on to name its
            # caller, and a guessed reading may yet be heard plainly: keep listening until
            # the reading is complete and sure
            self._called_early = _complete(heard.intent) and not heard.guessed
            self._early = heard
            return heard
        return None

    def _steady(self, heard: Heard | None) -> Heard | None:
        """A claim read while the words go on is held (None): emitted when the next
        re-read says it too, or when the words pause before any (see :meth:`_push_frame`).
        A claim is acted on as soon as it is emitted, and under babble the first words of
        "cheat, player three!" were read "two kings" 0.8 s in, twice, and taken as the
        current player's claim (bench/table); a claim said is either the end of the words
        or read the same a moment later."""
        previous, self._unsteady = self._unsteady, None
        if heard is None or heard.intent.type != "claim":
            return heard
        if previous is not None and previous.intent == heard.intent:
            return heard
        self._unsteady = heard
        return None

    def finish(self) -> list[Heard]:
        """The stream has ended: the final for words still in progress, if any."""
        segmenter = self._segmenter
        current = segmenter.current() if segmenter is not None else None
        if current is None:
            return []
        heard = self._final(current, self._early)
        self._early = None
        self._segmenter = Segmenter(self.profile)
        return [heard] if heard is not None else []
