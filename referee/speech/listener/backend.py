"""The ``listener`` backend: whisper-constrained, checked by a head trained for the game.

The head (``models/listener.onnx``, see :mod:`referee.speech.listener.train`) reads the same
encoder frames whisper's decoder reads (no second encoder pass) and says what kind of thing
was said (claim, call, pass, command, name, count, or none of the game's) and its parts. It is
used on every reading, early ones too (the recognizer keeps a settled early reading as the
final one):

- whisper's reading stands when the head agrees on its kind, or is unsure;
- a reading the head is sure is no game phrase is dropped (chatter, non-game words), and so
  is a faint claim, call or command (whisper's confidence under ``FAINT``) the head takes
  more for no game phrase than for any (``DOUBT_NONE``): babble read "three four" at 0.22
  with fours due, the head giving none 0.51, derailed a room game; a clean "music" read
  "new game" at 0.25 (none 0.72) and "sure" read "score" at 0.27 (none 0.79). On
  bench/speech (64 a set) it dropped no claim, call or command of any set, and those two
  and one more short word of the clean set. A call or command whisper-constrained forced
  onto the phrases (``guessed``) is held to it whatever its confidence: 20 dB noise's
  "sure" forced to "score" at 0.31 (none 0.88) was a command; every true forced reading of
  bench/speech the head gave none 0.5 or more was under 0.3 already. Not a claim: real
  speakers' lone "three" with threes due, forced so, the head taking it for nothing
  (fsdd, 4 of 90 lost);
- a reading whisper-constrained forced onto the phrases is dropped when the head all but
  rules its kind out and hears another game kind (``OTHER_MAX``), and so is a call whisper
  read faintly, its kind ruled out a little less strictly (``FAINT_CALL_MAX``);
- where whisper's free reading is nothing legal (under babble it mostly heard nothing at all)
  or another kind, and the head is sure of a kind, the legal phrases of that kind that fit
  the head's parts are scored by whisper's decoder on the same encoding, and the likeliest
  by both (decoder mean log-prob plus the head's log-posterior) is taken, marked
  ``guessed``; whisper-constrained's second reading and name weighing are then skipped
  (0.2-0.3 s a reading on these cores).
- a short reading of no call (one word or none: "three", "g") where the head hears a call
  most, if less surely, is made a call the same way (``SHORT_CALL``): a bare "cheat!" in a
  ringing room.

A phrase is made only on a whole reading (``final``: the first pause's and the utterance's
own), never on the periodic re-reads while the words go on: a guessed early reading is never
acted on (the whole utterance must confirm it, :mod:`referee.live.calls`), and making one
scores up to 16 phrases (0.3-0.6 s here): in a room game's "Cara, cheat!" such re-reads kept
the decoder busy and the call was acted on 2.2 s after its words (bench/table).

Which player is named stays whisper's business (names are per table), and a name alone is
made only when the referee asked for one (:func:`asking_for_a_name`). Contexts the head
does not know (bare counts above four, verdicts) keep whisper-constrained's reading, but for
a command the head is all but certain of where whisper read nothing legal (an undo at a
reveal). The recognizer still checks every reading (interpret/admit).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import numpy as np

from referee.game.cards import RANKS, describe_count
from referee.intents import SEAT_WORDS, find_names, parse, player_name_key
from referee.speech import vocab
from referee.speech.backends.whisper import ConstrainedWhisperBackend, reading_confidence
from referee.speech.listener.labels import (
    CALL_WORDS,
    COMMANDS,
    COUNTS,
    FIRST_NAMES,
    HEADS,
    KINDS,
    kept_frames,
)
from referee.speech.types import Hypothesis
from referee.speech.vocab import ListenContext, admit, interpret

MODEL = Path(__file__).resolve().parents[3] / "models" / "listener.onnx"
#: the head's probability of "none" above which a reading whisper kept is dropped
REJECT = 0.9
#: ...and above which a claim, call or command whisper read with less than ``FAINT``
#: confidence is dropped too (see the module docstring)
DOUBT_NONE = 0.5
FAINT = 0.3
#: the head's probability of a game kind above which a reading is made of that kind
RESCUE = 0.9
#: a player's name said alone and read plainly (at least this sure) stands whatever the
#: head says, when the head never learned that name (``FIRST_NAMES``): names are the
#: table's, and to the head an unknown one is some other word. A table with a Yuki: her
#: name, read "yuki" at 0.52-0.64 in all three of the start-up names check's voices, was
#: dropped each time (the head gave none 0.95-0.97), and her answer to "Who called?" went
#: unheard in a room game (bench/table, the strangers' table). Names it learned keep the
#: head's check (babble read "ben" and "alice" in bench/speech/chatter)
UNLEARNED_NAME_MIN = FAINT
#: ...and while the referee asks "Who called?", a name the head never learned stands as
#: whisper read it, forced onto the table's names too, unless the head is sure (``REJECT``)
#: that nothing of the game was said: it cannot hear the name itself. Under babble Yuki's
#: answer "Yuki." was read "you're key", forced to "yuki" (0.28; the decoder: yuki -1.2,
#: the other names -3.9 to -5.5) and dropped, the head giving a claim 0.45 and a name 0.01;
#: she said it four times, unheard each time, and undid her call (bench/table, strangers,
#: 86ff1ce)
ANSWERS_UNLEARNED = True
#: ...and a name whisper read plainly then is the answer: the head, sure of another kind,
#: does not make a phrase of that kind over it. "Me, Rob!" read "me rob" (the head: a call
#: 0.92) was made a bare "cheat" and went unheard as an answer (bench/speech/answers.py)
ANSWER_AS_READ = True
#: a call made naming its caller (``_make``) with a confidence under ``NAMED_MIN``, whose
#: naming the decoder prefers by less than ``NAMED_MARGIN`` (mean log-prob, with the head's)
#: to the likeliest naming another player, is made bare: the referee asks "Who called?" (or
#: knows the voice). There the decoder all but rules out every naming and picks among them
#: by a hair. In a room game under babble "cheat, player four!" was made "cheat player one"
#: at 0.01 and credited to Alice: two undos to mend. bench/speech/named.py (espeak-ng's named
#: calls by name and by seat, clean to 10 dB babble, seeds 11 and 12, 640 calls): of the 24
#: made under 0.02, 10 named another caller, all by under 1.5; 12 of the 14 right ones were
#: as close. Above 0.02: 116 right, 11 wrong. The margin spares a clear naming made faint by
#: an odd voice (espeak's clean "Cara, cheat!" in en-us+f3: 0.019, by 3.2)
NAMED_MIN = 0.02
NAMED_MARGIN = 2.0
#: ...unless whisper's own reading named that player by name, and no other: two readings
#: agree. Under babble Rob's "Rob, cheat!" was read "rob on sheet", made "rob cheat" at
#: 0.018 by 1.4 over "yuki cheat", and made bare: "Who called?", and his answer went
#: unheard (bench/table, strangers, 04b3048). bench/speech/named.py (seed 14, 320 calls,
#: each way one after the other: named-as-read-on.md, -off.md): 11 calls so made kept their caller,
#: 10 right, 1 wrong ("Dev! Cheat!" as Ben's, the names that rhyme); callers right
#: 206 -> 212 of 320, wrong 32 -> 31, asked 66 -> 62 (the rest is the runs' timing)
NAMED_AS_READ = True
#: a claim is made only when the head gives the legal ranks together at least this: a clear
#: "two sevens" with eights due stays unheard, as whisper-constrained keeps it (``compatible``)
LEGAL_RANK_MIN = 0.25
#: a claim whisper read while the head gives claims (and lone counts) less than this is marked
#: ``guessed``: not acted on early, the whole utterance must confirm it. In a babble room game
#: the first tenths of Alice's "cheat, Alice!", babble before them, were read early as "two
#: kings" (kings due) and acted on at once, three times running (bench/table, seed 1). Chosen
#: on the head's held-out clips (shards 9, 19, 29, 39), not the benches: true claims below it
#: 0% quiet, 1.4% noise, 5.6% babble (those wait for their final); calls 97%, 98%, 88%
DOUBT_CLAIM = 0.1
#: ...and dropped when the head hears another of the game's moves more than everything else
#: together (at least this): under 10 dB babble a "B.S.!" read "four
#: kings" (kings due; the head: call 0.60, claims 0.09) would have been Ben's claim, and in
#: bench/speech/chatter babble read "two nines" (name 0.56, claims 0.03) was one. On
#: bench/speech (64 a set) no true claim had the head's claims under 0.1 and another kind
#: at 0.5 or more; real lone counts (fsdd "three" with threes due) are the head's counts
DOUBT_OTHER = 0.5
#: a reading whisper-constrained forced onto the table's phrases (``guessed``: its free
#: reading was none of them) is dropped when the head gives its kind under ``OTHER_MAX`` and
#: another of the game's kinds at least ``OTHER_MIN``: the head heard something, and not
#: that. A kitchen's "show it" forced to "bullshit" (head: name 0.75, call 0) was the one
#: call bench/speech/chatter still invented with the v4 head; a clean "zero" forced to "liar"
#: (name 0.85), "seriously" to "three queens" (name 0.56). On bench/speech (64 a set, v4
#: head) every true reading it would have dropped: none (the one true guessed reading the
#: head gave under 0.05, babble's "three sevens", it took for no game phrase: whisper heard
#: what the head did not, and that stands). A command is held to it even as whisper's own
#: reading: an invented "undo" silently takes a real move back, "new game" deals anew, and
#: the head knows the few commands well. Babble read "the one undo" (head: claim 0.99) was
#: an undo in 40 minutes of bench/speech/chatter, a clean "music" read "new game" (name
#: 0.3); of the 28 true commands whisper read plainly in bench/speech (64 a set, v4 head)
#: it would have dropped none, where on claims it would have dropped true lone counts
OTHER_MAX = 0.05
OTHER_MIN = 0.3
#: a call whisper read as one word, the head giving calls under ``LONE_CALL_MAX`` and no game
#: phrase the most (``DOUBT_NONE``), is dropped: one word is little evidence, and "liar" is
#: what whisper makes of "higher", "fire" and babble. In 40 minutes of bench/speech/chatter a
#: kitchen's talk read "liar" at 0.46 (head: none 0.59, call 0.00) was an invented call; on
#: bench/speech (64 a set, with the reverberant sets) every reading it drops is a "liar" of
#: no call (a clean "is anyone hungry", babble around "three sevens" and "repeat"), and no
#: true call's: the two the head doubted so were read as more words ("two on bullshit", "i
#: doubt it")
LONE_CALL_MAX = 0.05
#: a call whisper read faintly (under ``FAINT``) or forced onto the phrases is dropped when
#: the head gives calls under ``FAINT_CALL_MAX`` and another of the game's kinds at least
#: ``OTHER_MIN`` (``OTHER_MAX``'s rule, looser for calls): minutes 420-459 of
#: bench/speech/chatter invented two named calls so, babble read "cheat ben" at 0.20 (head:
#: claim 0.84, call 0.02) and forced to "ben cheat" at 0.23 (name 0.60, call 0.07). On
#: bench/speech (64 a set, with the reverberant sets: 225 final readings of true calls as
#: calls) no true call's reading had the head's calls under 0.27; the readings it drops there
#: are four of espeak's "zero" read "liar" (0.27-0.28; the head: a name 0.78-0.86)
FAINT_CALL_MAX = 0.1
#: a claim whisper read with one count, the head giving another legal count at least
#: ``COUNT_SURE`` (and a claim most: the rank due said alone, "Three." with threes due, is
#: one three, and a lone number three to the head), is read with the head's count,
#: ``guessed`` (acted on only whole). Under 15 dB babble Marco's "two fives" and Rob's "two
#: jacks" and "two twos" were read with three at their first pause and acted on (each
#: undone and said again), the head giving two 0.95-1.0 (bench/table, strangers, 0f4d8e8).
#: bench/speech/claim_counts.py (seeds 81 and 82, 480 claims clean to 10 dB babble, one
#: run): claims right 464 -> 465, another claim 7 -> 5, one more heard as nothing; none read
#: right before and mended wrong (without the guard for the rank said alone: 461 -> 466,
#: 9 -> 4). Runs differ by a few claims (early readings follow the machine's clock)
COUNT_MEND = True
COUNT_SURE = 0.9
#: where one rank is legal (the rank due) and whisper read plainly (``RANK_DUE_MIN``) a claim
#: of another, the head sure it is a claim and of whisper's count (``COUNT_SURE``), it is
#: that count of the rank due, ``guessed`` (made on whole readings only): a rank misheard
#: costs nothing the referee needs, the count is what the player chose. Not a claim of the
#: rank of the claim just taken (``ListenContext.last_rank``): a player saying theirs again,
#: late, would be made the next player's claim. In a reverberant room (bench/table --rt60
#: 0.5) Cara's (espeak) "one jack" was read "one two" at 0.52-0.62 four times (the head: a
#: claim of one, 1.0, of tens) and the game was given up; a clear "two sevens" with eights
#: due is still not "two eights" where the claim before was of sevens
RANK_DUE_MEND = True
RANK_DUE_MIN = 0.4
#: a short utterance whisper read as one word or none that is no call (a lone number, a
#: syllable), the head hearing a call the most at ``SHORT_CALL_MIN`` or more (under
#: ``RESCUE``) and claims and lone counts together under ``SHORT_CALL_CLAIMS``, is made a
#: call (``guessed``, whole readings only). In a reverberant room (bench/table --rt60 0.5,
#: tails 0.64-0.67 s) piper's bare "cheat!" was read "three", "two", "g", "teat" and the
#: head gave a call 0.43-0.93: given up after four tries, twice, and a "cheat!" read "three"
#: was a claim of three. Made so, a call is at least ``SHORT_CALL_MADE_MIN`` likely and
#: none of ``SHORT_CALL_NOT``, the calls the decoder finds in any talk (``MADE_CALL_MIN``):
#: of bench/speech's 94 short non-game words, "dinner" was made "b s" (0.033, the head a call
#: 0.51) and "me too" "cheater" (0.010, 0.63), where the room's true calls so made were
#: 0.025-0.21 (/tmp probe of the bench's seat rooms, piper's Joe)
SHORT_CALL = True
SHORT_CALL_MIN = 0.5
SHORT_CALL_CLAIMS = 0.25
SHORT_CALL_MADE_MIN = 0.02
SHORT_CALL_NOT = frozenset({"liar", "b s"})
#: weight of the head's log-posterior of a phrase's parts against the decoder's mean log-prob
HEAD_WEIGHT = 1.0
#: the kinds the head knows; contexts listening for any other keep whisper's reading
KNOWN = frozenset(KINDS[1:])
#: the kinds the head makes a phrase of where whisper heard none: the game's own moves, and
#: commands it is all but certain of. Not passes or bare counts. Commands only at
#: ``MAKE_COMMAND`` and made at least ``MADE_COMMAND_MIN`` likely: an invented "undo" takes a
#: real move back (in 20 minutes of bench/speech/chatter the v3 head made "undo" twice,
#: "take that back" and "clear the pile" of babble), but a missed one leaves the table on a
#: wrong move: in a babble room game Ben's "undo" and "undo that", whisper reading "the ten
#: views" and "i do that", the head a command 0.99-1.0, went unheard, and six undos were said
#: for one misheard claim (bench/table findings §22). Made at 0.98 with no floor, 40 minutes
#: of chatter had three undos, each made at 0.010-0.011 (the decoder's mean log-prob of the
#: phrase about -4.6); the room's true ones were made at 0.08-0.58
MADE = frozenset({"claim", "call", "name", "command"})
MAKE_COMMAND = 0.98
MADE_COMMAND_MIN = 0.05
#: ...but while an undo is likely (``ListenContext.undoing``: the table has just taken a move
#: back here, or the referee has just acted on a call), an undo is made where the head gives
#: a command at least ``UNDOING_COMMAND`` and, of commands, an undo at least
#: ``UNDOING_UNDO``, the made phrase at least ``MADE_UNDO_MIN`` likely, where whisper's own
#: reading was faint (under ``FAINT``). A misheard answer costs two undos (the verdict,
#: then the answer): under 15 dB babble, of six undos said for one, one was heard, and the
#: game was given up (bench/table, strangers, 008f5b5); the head gave a command 0.89-0.99
#: and an undo 1.0 for four of the five lost, whisper reading them at 0.09-0.21. Chatter's
#: "can you hear that", read so at 0.45-0.72, is an undo 1.0 to the head
UNDOING = True
UNDOING_COMMAND = 0.85
UNDOING_UNDO = 0.9
MADE_UNDO_MIN = 0.01
#: a bare call made as one of these at less than its floor is dropped (not made as another
#: call): the decoder finds the shortest calls, "liar" and "b s", in any talk, and "i doubt
#: it" in babble. Of the 31 calls 200 minutes of bench/speech/chatter invented (minutes
#: 0-199, 2026-12-05), 19 were "liar" or "b s", 16 of them made at 0.01-0.03; of the true
#: calls bench/speech reads right, none was made as either under 0.04, where a true "cheat"
#: or "cheater" is made at 0.01 under babble (and chatter's talk seldom as either). Chatter's
#: "i doubt it" was made at 0.054-0.119 (minutes 0-119 and 200-279: six of 24 calls), a true
#: one at 0.15 or more (bench/speech: 12 read right, the least 0.152 in 20 dB noise)
MADE_CALL_MIN = {"liar": 0.03, "b s": 0.03, "i doubt it": 0.13}
#: the kinds the head checks whatever else may be said (a reveal's verdicts, large counts)
CHECKED_ANYWHERE = frozenset({"call", "command"})
CLAIM, COUNT = KINDS.index("claim"), KINDS.index("count")
_SEAT_WORD = re.compile(rf"\b(?:{'|'.join(SEAT_WORDS)})\b")


def _alike(kind: str) -> set[str]:
    """The head's kinds that say ``kind``: a claim is also a count said alone ("Two." with
    twos due)."""
    return {"claim", "count"} if kind in ("claim", "count") else {kind}


def _never_learned(name: str) -> bool:
    """Whether the head never learned ``name`` (or a word of it) as a name."""
    return any(word not in FIRST_NAMES for word in player_name_key(name).split())


def asking_for_a_name(ctx: ListenContext) -> bool:
    """Whether a name alone is what the referee waits for ("Who called?"). Only then does
    the head make one: during play a name alone only pairs with a call said beside it, and
    the head, sure that some name was said, made short words into the table's names ("ten"
    into "Ben", "eleven" into "Dev": bench/speech's short words in 20 dB noise)."""
    return ctx.asking == "name" and "name" in ctx.intents


class ListenerHead:
    """The ONNX head: encoder frames (time, 384) -> probabilities per part."""

    def __init__(self, path: Path | str = MODEL, threads: int = 1):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def __call__(self, frames: np.ndarray) -> dict[str, np.ndarray]:
        x = np.ascontiguousarray(frames, dtype=np.float32)[None]
        outs = self.session.run(None, {"frames": x})
        return {name: out[0] for name, out in zip(HEADS, outs, strict=True)}


def call_word(phrase: str) -> str | None:
    """Which of the grammar's call words ``phrase`` (normalized) says."""
    for word in ("i doubt it", "b s"):
        if word in phrase:
            return word
    return next((w for w in phrase.split() if w in CALL_WORDS), None)


class ListenerBackend(ConstrainedWhisperBackend):
    name = "listener"

    def __init__(
        self,
        model: Path | str | None = None,
        make_kinds: frozenset[str] = MADE,
        **options,
    ):
        super().__init__(**options)
        self.head = ListenerHead(model or MODEL)
        #: the kinds the head may make a phrase of where whisper heard none (trials: without
        #: "name", names alone are left to whisper's own reading)
        self.make_kinds = frozenset(make_kinds)
        #: the last head reading (for tests and reports)
        self.last_posteriors: dict[str, np.ndarray] | None = None
        #: the last phrase made: how much likelier than one naming another caller (for
        #: reports; see ``NAMED_MARGIN``)
        self.last_margin = math.inf

    def set_context(self, ctx: ListenContext) -> list[str]:
        warnings = super().set_context(ctx)
        self.covered = ctx.intents <= KNOWN and ctx.max_count <= max(COUNTS)
        self._phrases = vocab.phrases(ctx)
        return warnings

    def posteriors(self, encoded, n_samples: int) -> dict[str, np.ndarray]:
        frames = np.asarray(encoded)[0]
        return self.head(frames[: kept_frames(n_samples, len(frames))])

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        if not self.covered:
            return self._uncovered(audio, final)
        encoded, result = self._read(audio)
        p = self.posteriors(encoded, len(audio))
        self.last_posteriors = p
        kind = KINDS[int(np.argmax(p["kind"]))]
        sure = float(np.max(p["kind"]))
        makes = final and self._makes(kind, sure, p)
        short = final and not makes and self._short_call(kind, sure, p, result)
        if makes or short:
            # whisper's free reading is all a phrase needs to be made: its second reading
            # and name weighing (0.2-0.3 s a reading here) would be thrown away for it.
            # Not for a call the head hears a name in and the free reading has none: the
            # second reading, held to the table's phrases, finds the name ("cheat, Alice!"
            # in 20 dB noise, bench/speech), and a call names its caller only as whisper does
            free = self._free(result)
            said = interpret(free, self.ctx) if free else None
            naming = self._naming(free) if kind == "call" else None
            unnamed = kind == "call" and p["named"][1] >= 0.5 and not naming
            if self._answered(said) and kind != "name":
                makes = False  # see ANSWER_AS_READ
            elif (said is None or said.type != kind) and not unnamed:
                made = self._make(encoded, kind, sure, p, naming, free)
                if made is not None and short and not self._short_call_made(made):
                    made = None  # see SHORT_CALL_MADE_MIN
                if made is not None:
                    return made
                makes = False  # nothing of that kind fits: whisper's reading, checked, stands
        if final and kind == "claim" and sure >= RESCUE and kind in self.make_kinds:
            mended = self._rank_due_mended(result, p)  # see RANK_DUE_MEND
            if mended is not None:
                return mended
        base = super().decode(audio, final=final)
        heard = interpret(base.text, self.ctx) if base.text else None
        if makes and (heard is None or heard.type != kind):
            naming = self._naming(base.text) if kind == "call" else None
            made = self._make(encoded, kind, sure, p, naming, base.text)
            if made is not None:
                return made
        return base if heard is None else self._checked(base, heard, p)

    def _free(self, result) -> str:
        """Whisper's free reading of ``result``; "" where it heard no speech."""
        return "" if result.no_speech_prob > self.no_speech_max else self._text(result)

    def _short_call(self, kind: str, sure: float, p: dict[str, np.ndarray], result) -> bool:
        """Whether whisper's free reading (``result``) is one word or none and no call,
        where the head hears a call (see ``SHORT_CALL``)."""
        if not SHORT_CALL or kind != "call" or not SHORT_CALL_MIN <= sure < RESCUE:
            return False
        if kind not in self.ctx.intents or kind not in self.make_kinds:
            return False
        if self._claim_p(p) >= SHORT_CALL_CLAIMS:
            return False
        free = self._free(result)
        if len(free.split()) > 1:
            return False
        said = interpret(free, self.ctx) if free else None
        return said is None or said.type in ("claim", "count")

    @staticmethod
    def _short_call_made(made: Hypothesis) -> bool:
        """Whether a call made of a short reading may stand (see ``SHORT_CALL_MADE_MIN``)."""
        return made.confidence >= SHORT_CALL_MADE_MIN and made.text not in SHORT_CALL_NOT

    def _answered(self, said) -> bool:
        """Whether whisper's free reading (meaning ``said``) names the caller the referee
        asked for (see ``ANSWER_AS_READ``)."""
        named = said is not None and said.type == "name"
        return ANSWER_AS_READ and named and asking_for_a_name(self.ctx)

    def _checked(self, base: Hypothesis, heard, p: dict[str, np.ndarray]) -> Hypothesis:
        """Whisper's reading ``base`` (meaning ``heard``) as the head lets it stand: dropped,
        marked ``guessed``, or as it was (see the module docstring and the constants)."""
        kind = KINDS[int(np.argmax(p["kind"]))]
        sure = float(np.max(p["kind"]))
        if ANSWERS_UNLEARNED and self._unlearned_answer(heard, p):
            return base  # see ANSWERS_UNLEARNED
        faint_call = heard.type == "call" and (base.guessed or base.confidence < FAINT)
        doubted = base.guessed or heard.type == "command" or faint_call
        most = FAINT_CALL_MAX if faint_call else OTHER_MAX
        if doubted and self._heard_otherwise(heard.type, p, most):
            return Hypothesis("", chatter=False)  # see OTHER_MAX and FAINT_CALL_MAX
        if heard.type == "claim" and COUNT_MEND:
            base, heard = self._count_mended(base, heard, p)
        if heard.type == "claim" and self._claim_p(p) < DOUBT_CLAIM:
            if self._other_move("claim", p) >= DOUBT_OTHER:
                return Hypothesis("", chatter=False)  # see DOUBT_OTHER
            base = replace(base, guessed=True)  # see DOUBT_CLAIM
        if heard.type == "call" and self._lone_call(base.text, p):
            return Hypothesis("", chatter=False)  # see LONE_CALL_MAX
        if kind == "none" and self._unlearned_name(heard, base.confidence):
            return base  # see UNLEARNED_NAME_MIN
        if kind == "none":
            faint = (
                heard.type in ("claim", "call", "command")
                and sure >= DOUBT_NONE
                and (base.confidence < FAINT or (base.guessed and heard.type != "claim"))
            )
            if sure >= REJECT or faint:
                return Hypothesis("", chatter=len(base.text.split()) > 1)
        return base

    def _uncovered(self, audio: np.ndarray, final: bool) -> Hypothesis:
        """Whisper-constrained's reading where the head does not know every phrase legal
        (verdicts, bare counts above four). A call or a command whisper read there is checked
        by the head as in play (40 minutes of bench/speech/chatter heard as at a reveal: six
        things invented, "how many cards" forced onto a kitchen's talk the head took for
        nothing at 1.00, "i doubt it" and "liar"); a verdict or a count is whisper's alone.
        Where whisper read nothing legal, a command is made as in play: at a reveal under
        babble six undo phrases went unheard after a misheard answer (whisper: "i'm doing
        that", "i'm good"), the head hearing a command 0.91-1.0 in four, and the game
        derailed (bench/table, strangers)."""
        base = super().decode(audio, final=final)
        heard = interpret(base.text, self.ctx) if base.text else None
        if heard is not None and heard.type not in CHECKED_ANYWHERE:
            return base
        if heard is None and not final:
            return base  # a phrase is made on whole readings only
        encoded, _ = self._read(audio)  # the encoding whisper's reading was made on
        p = self.posteriors(encoded, len(audio))
        self.last_posteriors = p
        if heard is not None:
            return self._checked(base, heard, p)
        sure = float(p["kind"][KINDS.index("command")])
        if not self._makes("command", sure, p):
            return base
        return self._make(encoded, "command", sure, p, None) or base

    @staticmethod
    def _lone_call(text: str, p: dict[str, np.ndarray]) -> bool:
        """Whether ``text``, read as a call, is one word the head hears as no call (see
        ``LONE_CALL_MAX``)."""
        if len(text.split()) != 1 or p["kind"][KINDS.index("call")] >= LONE_CALL_MAX:
            return False
        return float(p["kind"][KINDS.index("none")]) >= DOUBT_NONE

    def _unlearned_answer(self, heard, p: dict[str, np.ndarray]) -> bool:
        """Whether ``heard`` is the answer to "Who called?" with a name the head never
        learned, the head not sure that nothing of the game was said (see
        ``ANSWERS_UNLEARNED``)."""
        if heard is None or heard.type != "name" or not asking_for_a_name(self.ctx):
            return False
        if float(p["kind"][KINDS.index("none")]) >= REJECT:
            return False
        return _never_learned(heard.name)

    def _unlearned_name(self, heard, confidence: float) -> bool:
        """Whether ``heard`` is a player's name alone, read plainly, that the head never
        learned as a name (see ``UNLEARNED_NAME_MIN``)."""
        if heard is None or heard.type != "name" or confidence < UNLEARNED_NAME_MIN:
            return False
        return _never_learned(heard.name)

    def _makes(self, kind: str, sure: float, p: dict[str, np.ndarray]) -> bool:
        """Whether the head is sure enough of ``kind`` to make a phrase of it where whisper
        read none of it (a guess is made on whole readings only: see the module docstring)."""
        if kind not in self.ctx.intents or kind not in self.make_kinds:
            return False
        if kind == "command":
            return sure >= MAKE_COMMAND or self._undo_expected(sure, p)  # see MADE, UNDOING_*
        if sure < RESCUE:
            return False
        if kind == "name" and not asking_for_a_name(self.ctx):
            return False
        # a claim of another rank, clearly heard, is not mended onto the rank due
        return kind != "claim" or self._legal_rank_p(p) >= LEGAL_RANK_MIN

    def _make(
        self,
        encoded,
        kind: str,
        sure: float,
        p: dict[str, np.ndarray],
        naming: frozenset[str] | None,
        read: str = "",
    ) -> Hypothesis | None:
        """The legal phrase of ``kind`` likeliest by the decoder and the head (``guessed``);
        None when there is none. ``naming``: how whisper's reading ``read`` names (see
        :meth:`_candidates`)."""
        text, score, margin = self._choose(encoded, kind, p, naming)
        self.last_margin = margin
        if not text or interpret(text, self.ctx) is None:
            return None
        confidence = sure * math.exp(min(0.0, score))
        if kind == "command":
            undo = self._undo_expected(sure, p) and parse(text, self.ctx.players).command == "undo"
            if confidence < (MADE_UNDO_MIN if undo else MADE_COMMAND_MIN):
                return None  # see MADE and UNDOING_COMMAND
            if not undo and sure < MAKE_COMMAND:
                return None  # made on less only as an undo
        if kind == "call" and confidence < MADE_CALL_MIN.get(text, 0.0):
            return None  # see MADE_CALL_MIN
        if (
            kind == "call"
            and confidence < NAMED_MIN
            and margin < NAMED_MARGIN
            and not (NAMED_AS_READ and self._names_alike(read, text))
        ):
            text = call_word(text) or text  # see NAMED_MIN: the call stands, its caller asked
        # the name in it was weighed against every player's by _choose, whole phrases as
        # the table says them: not again by _best_name, whose lower-case sums over babble
        # made Cara's "Cara, cheat!" (whisper: "cara leptide", _choose: "cara cheat" -4.2
        # against "ben cheat" -8.7) into Ben's, three times in one room game (bench/table)
        return Hypothesis(text, max(confidence, 0.01), guessed=True)

    def _count_mended(self, base: Hypothesis, heard, p: dict[str, np.ndarray]):
        """Whisper's claim ``base`` (meaning ``heard``) with the head's count where the head
        is sure of another legal one (see ``COUNT_MEND``); else as it was."""
        i = int(np.argmax(p["count"]))
        count = COUNTS[i]
        if count == heard.count or float(p["count"][i]) < COUNT_SURE:
            return base, heard
        if len(base.text.split()) < 2 or int(np.argmax(p["kind"])) != CLAIM:
            return base, heard  # the rank due said alone ("Three." with threes due): one
        mended = replace(heard, count=count)
        if not admit(mended, self.ctx):
            return base, heard
        return replace(base, text=describe_count(count, heard.rank), guessed=True), mended

    def _rank_due_mended(self, result, p: dict[str, np.ndarray]) -> Hypothesis | None:
        """Whisper's plain free reading (``result``) of a claim of a rank not due, as that
        count of the one rank due (see ``RANK_DUE_MEND``); None where it is not such a
        reading."""
        if not RANK_DUE_MEND or len(self.ctx.legal_ranks) != 1 or "claim" not in self.ctx.intents:
            return None
        free = self._free(result)
        if not free:
            return None
        read = parse(free, self.ctx.players)
        confidence = reading_confidence(result.scores[0], result)
        if read.type != "claim" or read.rank in (*self.ctx.legal_ranks, self.ctx.last_rank):
            return None  # a claim of the rank due is whisper's and the head's as ever
        if confidence < RANK_DUE_MIN:
            return None
        i = int(np.argmax(p["count"]))
        if COUNTS[i] != read.count or float(p["count"][i]) < COUNT_SURE:
            return None
        mended = replace(read, rank=self.ctx.legal_ranks[0])
        if not admit(mended, self.ctx):
            return None
        return Hypothesis(describe_count(read.count, mended.rank), confidence, guessed=True)

    def _undo_expected(self, sure: float, p: dict[str, np.ndarray]) -> bool:
        """Whether an undo is likely now and the head hears one (see ``UNDOING_COMMAND``)."""
        return (
            UNDOING
            and self.ctx.undoing
            and sure >= UNDOING_COMMAND
            and float(p["command"][COMMANDS.index("undo")]) >= UNDOING_UNDO
            and self._read_faintly()
        )

    def _read_faintly(self) -> bool:
        """Whether whisper's free reading of the audio last read was faint (under ``FAINT``):
        words it read plainly are those words, whatever the head hears."""
        result = self._last[2]
        return reading_confidence(result.scores[0], result) < FAINT

    def _names_alike(self, read: str, made: str) -> bool:
        """Whether whisper's own reading ``read`` names one player by name, the one the made
        call ``made`` names (see ``NAMED_AS_READ``)."""
        caller = parse(made, self.ctx.players).caller
        return caller is not None and self._named(read) == {caller}

    @staticmethod
    def _claim_p(p: dict[str, np.ndarray]) -> float:
        """The head's probability that a claim was said: a claim, or a count said alone ("Two."
        with twos due is one two: the head calls a lone number a count)."""
        return float(p["kind"][CLAIM] + p["kind"][COUNT])

    def _heard_otherwise(
        self, kind: str, p: dict[str, np.ndarray], most: float = OTHER_MAX
    ) -> bool:
        """Whether the head gives ``kind`` under ``most`` and hears another of the game's kinds
        (see ``OTHER_MAX``). A claim's kind includes a count said alone (:meth:`_claim_p`)."""
        alike = _alike(kind)
        if sum(float(p["kind"][KINDS.index(k)]) for k in alike) >= most:
            return False
        return self._other_move(kind, p) >= OTHER_MIN

    @staticmethod
    def _other_move(kind: str, p: dict[str, np.ndarray]) -> float:
        """The head's probability of its likeliest game kind other than ``kind``'s."""
        alike = _alike(kind)
        return max(float(p["kind"][i]) for i, k in enumerate(KINDS) if k not in {"none", *alike})

    def _legal_rank_p(self, p: dict[str, np.ndarray]) -> float:
        return float(sum(p["rank"][RANKS.index(r)] for r in self.ctx.legal_ranks))

    def _naming(self, text: str) -> frozenset[str]:
        """How whisper's reading (legal or not) names a player: by ``"name"``, by ``"seat"``
        (a seat's word as recognizers write it, its number maybe misheard: "play with
        four"), both or neither. Which player is left to the decoder: a name whisper misread
        is mended."""
        ways = set()
        if _SEAT_WORD.search(text):
            ways.add("seat")
        if self._named(text):
            ways.add("name")
        return frozenset(ways)

    def _named(self, text: str) -> set[str]:
        """The players whisper's reading ``text`` names by name (a seat's words aside)."""
        return {name for _, name in find_names(_SEAT_WORD.sub(" ", text), self.ctx.players)}

    def _candidates(
        self, kind: str, p: dict[str, np.ndarray], naming: frozenset[str] | None = None
    ) -> list[tuple[str, float]]:
        """Legal phrases of ``kind`` that fit the head's parts, with the head's log-posterior
        of those parts. ``naming``: how a call may name its caller (:meth:`_naming`; None:
        any way; empty: calls that name nobody only). A call is made naming its caller only
        as whisper's own reading names someone: under babble the head took the talk after a
        bare "bullshit!" for a name, and the decoder then picked one of the table's:
        "bullshit dev", Ben's call credited to Dev ("Dev can't call their own play",
        bench/table); a bare call is asked "Who called?" (or known by voice)."""
        out: list[tuple[str, float]] = []
        log = {name: np.log(np.maximum(v, 1e-6)) for name, v in p.items()}
        players = self.ctx.players
        for phrase in self._phrases:
            intent = parse(phrase, players)
            if intent.type != kind:
                continue
            if kind == "claim":
                if intent.count not in COUNTS:
                    continue
                out.append(
                    (
                        phrase,
                        float(
                            log["count"][COUNTS.index(intent.count)]
                            + log["rank"][RANKS.index(intent.rank)]
                        ),
                    )
                )
            elif kind == "call":
                word = call_word(phrase)
                way = "seat" if _SEAT_WORD.search(phrase) else "name"
                if word is None or (
                    intent.caller is not None and naming is not None and way not in naming
                ):
                    continue
                says_name = int(len(phrase.split()) > len(word.split()))
                parts = log["call_word"][CALL_WORDS.index(word)] + log["named"][says_name]
                out.append((phrase, float(parts)))
            elif kind == "command":
                out.append((phrase, float(log["command"][COMMANDS.index(intent.command)])))
            elif kind == "count":
                if intent.count in COUNTS:
                    out.append((phrase, float(log["count"][COUNTS.index(intent.count)])))
            else:
                out.append((phrase, 0.0))
        out.sort(key=lambda c: -c[1])
        if kind == "call":  # the likeliest call word, both ways of naming when unsure
            best = out[0][1] if out else 0.0
            out = [c for c in out if c[1] >= best - 1.5]
        return out[:16]

    def _choose(
        self, encoded, kind: str, p: dict[str, np.ndarray], naming: frozenset[str] | None = None
    ) -> tuple[str, float, float]:
        """The candidate likeliest by decoder mean log-prob plus the head's log-posterior, its
        mean log-prob, and how much likelier it is than the likeliest candidate naming
        another caller (inf where there is none)."""
        candidates = self._candidates(kind, p, naming)
        if not candidates:
            return "", -math.inf, math.inf
        phrases = [c[0] for c in candidates]
        means = self._mean_scores(encoded, phrases)
        totals = [m + HEAD_WEIGHT * h for m, (_, h) in zip(means, candidates, strict=True)]
        best = int(np.argmax(totals))
        margin = math.inf
        if kind == "call":
            callers = [parse(phrase, self.ctx.players).caller for phrase in phrases]
            others = [
                t for c, t in zip(callers, totals, strict=True) if c not in (None, callers[best])
            ]
            if callers[best] is not None and others:
                margin = totals[best] - max(others)
        return phrases[best], means[best], margin

    def _mean_scores(self, encoded, phrases: list[str]) -> list[float]:
        """The decoder's mean log-prob of each phrase (in its usual writing) and its end."""
        paths = [
            self._usual.get(p) or self.hf.encode(" " + p, add_special_tokens=False).ids
            for p in phrases
        ]
        out = []
        for path, rows in zip(paths, self._log_probs_of(encoded, paths), strict=True):
            ends = max(rows[len(path), t] for t in self.end_tokens)
            out.append(float(np.mean([*(rows[i, t] for i, t in enumerate(path)), ends])))
        return out
