"""The call assembler: what the recognizer heard in, what the referee acts on out.

It is the one place that decides how a call gets its caller and when it is acted on:

* an early (partial) reading and the final for the same words (same onset) are one call,
  acted on once;
* the caller named in the call ("Cheat, Ben!"), or in the words just before or after it
  ("Ben ... cheat!", "Cheat! ... Ben": :func:`referee.speech.recognizer.merge_caller`);
* a bare "Cheat!" waits ``NAME_WAIT_S`` after its words end (up to ``NAME_WAIT_MAX_S``
  while someone is still speaking) for its caller's name before it is acted on, and the
  referee asks "Who called?"; a bare call whose :class:`Heard` knows its ``speaker`` (a
  voice profile) is that speaker's call at once, read early (not guessed) or whole;
* calls are acted on in the order they began (the onset), never by decoding time; a later
  call is still handed on, and the engine answers it ("Alice called first.").
* a call credited to a voice and then undone (:meth:`CallAssembler.undone`) leaves that
  player's voice doubted for the rest of the session: a bare call in it is asked about. In a
  quiet room game Yuki's "liar!" was credited to Nadia's voice four times running, each
  undone and said again, until the call was given up (bench/table, strangers, --voices).
  So does a voice taken for the player whose play is called (``own_play``): no one calls
  their own play, so the voice is wrong, and the call said again would be refused again.

Everything else heard (claims, verdicts, commands) passes through in order, finals only,
except the name answering "Who called?" (acted on when read early, as a named call is) and
a claim: one read early (the recognizer emits only complete ones, count and rank)
and not guessed is acted on at once, and its final (same onset) is not a second claim, as
for a named call. Waiting for the final cost a claim 0.5-0.7 s here, one more decode after
the voice gate's hangover (``python -m bench.live.latency``); ``bench/speech`` counts its
latency from that early reading too. Not while a player's last cards may still be called
(``last_play()``): the claim that follows them ends the game, and the first tenths of a
second of a call under babble were once read early as that claim ("cheat, player four!"
begun, read "two jacks" with jacks due: "Cara wins"), so there the whole utterance decides.
Nor while the referee asks "Who called?": a claim then says no one called (the engine drops
the call), and only the whole utterance may say that, read plainly and surely
(``NO_CALLER_MIN``).

Pure: no clock, no audio, no game. ``phase()`` tells the phase of the game now; the
iterators it returns must be consumed at once, acting on each :class:`Heard` before the
next is asked for (acting changes the phase).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from referee.speech.recognizer import merge_caller
from referee.speech.types import Heard

#: a bare "Cheat!" waits this long (audio time after it ends) for the caller's name
#: ("Cheat! ... Ben") before the referee asks "Who called?", longer while someone is still
#: speaking (up to NAME_WAIT_MAX_S); the call keeps its onset time either way
NAME_WAIT_S = 0.6
NAME_WAIT_MAX_S = 2.5
#: a claim heard while "Who called?" stands says no one called (the engine drops the call):
#: only a whole reading whisper made itself (not guessed), at least this sure, may say that.
#: In a babble room game Ben's "Ben." answering the question, babble after it, was read
#: "three four" at 0.15, and his call was dropped (bench/table, 5a85dab, seed 1); the
#: claims heard in that run's six games: 0.32 and up in the quiet room, a few of 0.12-0.3
#: under noise and babble (a claim missed then is said again; the question stands)
NO_CALLER_MIN = 0.3
#: a bare call read early (at the words' first pause) is credited to its voice at once only
#: when read at least this surely; else the whole utterance decides (then by voice too).
#: Rob's "two threes" (piper, slow) read at its first pause, 0.32 s of "two", was "cheater"
#: at 0.32 (the listener's head: a call, 1.0), credited to his voice and acted on: "Rob
#: calls cheat on Nadia" (bench/table, strangers, --voices, 20 dB noise). The true bare
#: calls read early in two replayed games of that run: 0.41-0.78 (9 of them)
VOICED_EARLY_MIN = 0.4


def acted_on_early(heard: Heard) -> bool:
    """Whether a call read from words in progress (partial) is acted on at once: one that
    names its caller, read plainly. A guessed one (made or forced where whisper read no
    call) waits for the whole utterance, or a second pause read the same
    (:mod:`referee.speech.recognizer`). Acted on at its first pause, a call made by name
    under babble would come 0.1-0.15 s sooner, but in 640 named calls (bench/speech/named.py,
    seeds 11 and 12) 3 of the 67 so made became wrong callers where the whole utterance read
    the call bare or as a name (findings §23 of bench/table)."""
    intent = heard.intent
    return (
        heard.utterance.partial
        and intent.type == "call"
        and intent.caller is not None
        and not heard.guessed
    )


class CallAssembler:
    """Heard in (early readings and finals, as :meth:`Recognizer.feed` gives them), what to
    act on out (see the module docstring)."""

    def __init__(
        self,
        phase: Callable[[], str],
        name_wait_s: float = NAME_WAIT_S,
        name_wait_max_s: float = NAME_WAIT_MAX_S,
        last_play: Callable[[], bool] = lambda: False,
        own_play: Callable[[str], bool] = lambda who: False,
    ) -> None:
        self.phase = phase
        self.last_play = last_play
        #: whether every play a call could challenge now is that player's own
        self.own_play = own_play
        self.name_wait_s = name_wait_s
        self.name_wait_max_s = name_wait_max_s
        #: a bare call waiting for its caller's name
        self.waiting: Heard | None = None
        #: the last final heard, which the next words may pair with ("Ben ... cheat!")
        self._previous: Heard | None = None
        #: onsets of the calls already acted on
        self._acted: set[float] = set()
        #: the latest audio time :meth:`wait` was told of, and when the last bare call was
        #: handed on (the referee asks "Who called?" from then)
        self._now: float | None = None
        self._asked_at: float | None = None
        #: the calls credited to a voice (onset -> player), and the players whose voice was
        #: so credited with a call that was then undone (see the module docstring)
        self._by_voice: dict[float, str] = {}
        self.doubted: set[str] = set()

    def hear(self, heard: Heard) -> Iterator[Heard]:
        """What to act on now that ``heard`` came."""
        self._now = max(self._now or heard.utterance.end, heard.utterance.end)
        merged = merge_caller(self._previous, heard)
        if not heard.utterance.partial:
            self._previous = None if merged else heard
        heard = merged or heard
        call = self.waiting
        if call is not None:
            self.waiting = None
            is_call = heard.intent.type == "call"
            if is_call and heard.utterance.start == call.utterance.start:
                pass  # the same call, now with its caller's name (or its final)
            elif (
                heard.utterance.partial
                and not self._early_claim(heard)
                and (not is_call or (self._bare(heard) and heard.speaker is None))
            ):
                # still listening for the name: the next words read early as a bare call
                # are often the name itself, half heard ("cheat, ... player four!": "liar"
                # at the pause in "play-", in a ringing room, and "Who called?" was asked
                # over "player four"; bench/table --rt60 0.5); a second caller's bare call
                # is acted on at its final, after this one
                self.waiting = call
            else:
                yield from self._act(call)  # anything else said comes after the call
        speaker = heard.speaker  # a voice profile told who said it
        early = heard.utterance.partial
        sure = not early or (
            not heard.guessed and (heard.utterance.confidence or 0.0) >= VOICED_EARLY_MIN
        )
        voiced = self._bare(heard) and speaker is not None and sure
        if voiced and self.own_play(speaker):
            self.doubted.add(speaker)  # see the module docstring
        if voiced and speaker not in self.doubted:
            # read early or whole, it is that speaker's call: no name is waited for (a voice
            # credited only on the final waited out the gate's hangover, 1.3 s under babble)
            heard = replace(heard, intent=replace(heard.intent, caller=speaker))
            self._by_voice[heard.utterance.start] = speaker
        if self._bare(heard) and not heard.utterance.partial:
            if self.phase() == "play" and heard.utterance.start not in self._acted:
                self.waiting = heard
                return
            elif self._said_before_asking(heard):
                return
        yield from self._act(heard)

    def undone(self, onset: float | None, caller: str | None) -> None:
        """A call made at ``onset`` and credited to ``caller`` was undone: when its caller
        was the voice's, that voice is doubted from now on (see the module docstring)."""
        if onset is not None and caller is not None and self._by_voice.get(onset) == caller:
            self.doubted.add(caller)

    def wait(self, t: float, hearing: bool) -> Iterator[Heard]:
        """Audio time ``t`` has come (``hearing``: someone is speaking): a bare call whose
        wait for a name ran out is acted on, and the referee will ask "Who called?"."""
        self._now = t
        call = self.waiting
        if call is None:
            return
        waited = t - call.utterance.end
        if waited >= self.name_wait_max_s or (waited >= self.name_wait_s and not hearing):
            yield from self.flush()

    def flush(self) -> Iterator[Heard]:
        """The audio has ended: a bare call still waiting is acted on."""
        call, self.waiting = self.waiting, None
        if call is not None:
            yield from self._act(call)

    def _early_claim(self, heard: Heard) -> bool:
        """A claim read early that is acted on at once (see the module docstring)."""
        return (
            heard.intent.type == "claim"
            and heard.utterance.partial
            and not heard.guessed
            and not self.last_play()
            and self.phase() != "who_called"
        )

    def _said_before_asking(self, heard: Heard) -> bool:
        """Words begun before the referee asked "Who called?" for the last call, heard once
        it asks. A bare call: the same call said again, or a second voice without a name;
        the question stands, and the engine would ask it again at once ("Who called? Say
        your name.", 80 ms after "Who called?" in a babble room game). A claim: the next
        player's, said over the call; the call was made first and stands (a claim said once
        the table heard the question says no one called)."""
        return (
            self.phase() == "who_called"
            and self._asked_at is not None
            and heard.utterance.start < self._asked_at
        )

    @staticmethod
    def _bare(heard: Heard) -> bool:
        return heard.intent.type == "call" and heard.intent.caller is None

    def _act(self, heard: Heard) -> Iterator[Heard]:
        utterance, intent = heard.utterance, heard.intent
        if intent.type == "call":
            # A partial call that names its caller acts at once (:func:`acted_on_early`),
            # and its final result (same onset) is not a second call. A bare "Cheat!" waits
            # for the end of the words: asking "Who called?" over the caller's own name would
            # mute the name. So does a call guessed onto the vocabulary: the whole utterance
            # must confirm it.
            if utterance.partial and not acted_on_early(heard):
                return
            named_late = intent.caller and self.phase() == "who_called"
            if utterance.start in self._acted and not named_late:
                return
            self._acted.add(utterance.start)
            if intent.caller is None:
                self._asked_at = max(self._now or utterance.end, utterance.end)
        elif intent.type == "claim":
            if utterance.partial and not self._early_claim(heard):
                return  # forced onto the vocabulary: the whole utterance must confirm it
            if self._said_before_asking(heard):
                return  # said over the call: the call stands, the claim is said again later
            if self.phase() == "who_called" and (
                heard.guessed or utterance.confidence < NO_CALLER_MIN
            ):
                return  # too faint to drop a call: see NO_CALLER_MIN
            if utterance.start in self._acted:
                return  # the final of a claim acted on early
            self._acted.add(utterance.start)
        elif intent.type == "name" and utterance.start in self._acted:
            return  # the final of an answer to "Who called?" acted on early
        elif intent.type == "name" and self.phase() == "who_called":
            # the answer to "Who called?": a name read early and not guessed is acted on at
            # once, as a named call is, and its final (same onset) is not a second answer
            if utterance.partial and heard.guessed:
                return
            self._acted.add(utterance.start)
        elif utterance.partial:
            return
        yield heard
