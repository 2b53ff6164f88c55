"""``referee demo``: a whole recorded game through the real pipeline, on any machine.

Three players' voices are made with espeak-ng, the reveals are photos rendered by the
project's own card renderer, and then everything runs for real: the recognizer hears the
audio, the detector reads the photos, the engine judges, pyttsx3 speaks into a wav. It
shows a lie caught, an honest play wrongly called, and the last cards winning.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.game.rules import Rules
from referee.paths import data_dir

PLAYERS = ("Alice", "Ben", "Cara")
VOICES = {"Alice": ("en-us+f3", 60), "Ben": ("en-gb", 45), "Cara": ("en-gb+f3", 70),
          "Dev": ("en-gb-x-rp", 40)}  # fmt: skip


@dataclass(frozen=True)
class Line:
    """Someone at the table says ``text``."""

    who: str
    text: str


#: The recorded game. Reveals are listed apart, in the order the calls happen.
SCRIPT: tuple[Line, ...] = (
    Line("Alice", "four aces"),
    Line("Ben", "one two"),
    Line("Cara", "cheat, Cara!"),
    Line("Cara", "one three"),
    Line("Alice", "four fours"),
    Line("Ben", "one five"),
    Line("Cara", "one six"),
    Line("Ben", "cheat, Ben!"),
    Line("Alice", "four sevens"),
    Line("Ben", "two eights"),
    Line("Cara", "one nine"),
    Line("Alice", "four tens"),
    Line("Ben", "one jack"),
    Line("Cara", "one queen"),
    Line("Alice", "two kings"),
    Line("Ben", "cheat, Ben!"),
)
REVEALS: tuple[tuple[str, ...], ...] = (("7C",), ("6D",), ("KH", "KS"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, help="folder for the voice wav and the photos")
    parser.add_argument("--tts-out", type=Path, help="the referee's voice (default OUT/voice.wav)")
    parser.add_argument("--backend", help="speech recognizer backend (default: the best measured)")
    parser.add_argument("--json", action="store_true", help="announcements as JSON lines")


# --- the table's voices ------------------------------------------------------------------


def _voice_cache() -> Path:
    folder = data_dir() / "demo-voices"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def speak(line: Line, slower: int = 0) -> np.ndarray:
    """The line in its speaker's espeak-ng voice (16 kHz float32), cached by content;
    ``slower`` steps of 15 words a minute for a line said again."""
    from referee.speech.audio import read_wav, write_wav
    from referee.speech.synth import synthesize

    voice, pitch = VOICES.get(line.who, ("en-us", 50))
    speed = 150 - 15 * slower
    key = hashlib.sha1(f"{voice}|{pitch}|{speed}|{line.text}".encode()).hexdigest()[:16]
    path = _voice_cache() / f"{key}.wav"
    if path.exists():
        return read_wav(path, check=False)
    samples = synthesize(line.text, voice=voice, speed=speed, pitch=pitch)
    write_wav(path, samples)
    return samples


class ScriptedTable:
    """The table as a microphone: each line is spoken once the referee has finished talking.

    Like real players, the table listens to the referee: when a line was misheard (the
    referee took something else, or nothing), its speaker says "undo" for anything wrongly
    taken and says the line again, a little slower. A faint, seeded noise floor stands in
    for the room (digital silence is not a room).
    """

    CHUNK_S = 0.02
    TRIES = 3

    def __init__(
        self,
        lines: tuple[Line, ...],
        referee: Callable[[], Any],
        seed: int = 7,
        on_line: Callable[[Line, float], None] | None = None,
    ) -> None:
        self.lines = lines
        self.referee = referee
        self.on_line = on_line
        self.rng = np.random.default_rng(seed)
        self.t = 0.0
        self.retries: list[str] = []

    def _chunks(self, samples: np.ndarray) -> Iterator[Any]:
        from referee.speech.audio import Chunk

        step = int(self.CHUNK_S * 16_000)
        for i in range(0, len(samples), step):
            piece = samples[i : i + step].astype(np.float32)
            piece = piece + self.rng.normal(0, 0.002, len(piece)).astype(np.float32)
            yield Chunk(self.t, piece)
            self.t += len(piece) / 16_000

    def _pause(self) -> Iterator[Any]:
        """Silence until the referee has answered and finished speaking."""
        waited = 0.0
        while waited < 1.2 or self.t < self.referee().speaking_until + 0.4:
            yield from self._chunks(np.zeros(int(0.1 * 16_000), np.float32))
            waited += 0.1

    def _say(self, line: Line, slower: int = 0) -> Iterator[Any]:
        yield from self._pause()
        if self.on_line:
            self.on_line(line, self.t)
        yield from self._chunks(speak(line, slower))

    def _events(self) -> list[Any]:
        return list(self.referee().session.match.events)

    def __iter__(self) -> Iterator[Any]:
        for line in self.lines:
            for attempt in range(self.TRIES):
                before = len(self._events())
                yield from self._say(line, slower=attempt)
                yield from self._pause()
                new = self._events()[before:]
                if taken_as_meant(line, new):
                    break
                self.retries.append(line.text)
                for _ in range(self.TRIES):  # take back whatever was wrongly taken
                    if len(self._events()) <= before:
                        break
                    yield from self._say(Line(line.who, "undo"), slower=1)
        yield from self._pause()


def taken_as_meant(line: Line, new_events: list[Any]) -> bool:
    """Whether the referee took ``line`` the way its speaker meant it."""
    from referee.game.events import Call, Claim, Name
    from referee.intents import parse

    meant = parse(line.text, PLAYERS)
    if meant.type == "claim":
        return bool(new_events) and new_events[0] == Claim(
            meant.count, meant.rank, t=new_events[0].t
        )
    if meant.type == "call":
        calls = [e for e in new_events if isinstance(e, Call | Name)]
        named = [e for e in calls if getattr(e, "caller", None) or isinstance(e, Name)]
        return bool(named) if meant.caller else bool(calls)
    if meant.type == "name":
        return any(isinstance(e, Name | Call) for e in new_events)
    return True


# --- the reveals' photos -----------------------------------------------------------------


def reveal_photo(codes: tuple[str, ...], seed: int) -> np.ndarray:
    """Cards laid face up on a felt table, photographed from above (640x480)."""
    from referee.vision.faces import own_styles, render_own_card

    rng = random.Random(seed)
    style = own_styles(1, seed=4242 + seed)[0]
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (rng.randint(40, 70), rng.randint(90, 120), rng.randint(40, 70))
    noise = np.random.default_rng(seed).normal(0, 6, img.shape)
    img = np.clip(img + noise, 0, 255).astype(np.uint8)
    card_h = 250
    spacing = 640 / (len(codes) + 1)
    for i, code in enumerate(codes):
        face, _box = render_own_card(code, style, card_h)
        h, w = face.shape[:2]
        angle = rng.uniform(-12, 12)
        cx, cy = spacing * (i + 1), 240 + rng.uniform(-20, 20)
        m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        m[:, 2] += (cx - w / 2, cy - h / 2)
        mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (640, 480))
        warped = cv2.warpAffine(face, m, (640, 480))
        img[mask > 0] = warped[mask > 0]
    return img


def write_photos(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, codes in enumerate(REVEALS):
        path = folder / f"reveal-{i + 1}-{'-'.join(codes)}.png"
        cv2.imwrite(str(path), reveal_photo(codes, seed=i))
        paths.append(path)
    return paths


# --- the game ----------------------------------------------------------------------------


def play_demo(out: Path, tts_out: Path | None, backend: str | None, as_json: bool) -> dict:
    """Run the recorded game; returns the final state view and what was said."""
    from referee.live.camera import ImageFeed
    from referee.live.loop import LiveReferee
    from referee.session import Session
    from referee.speech import make_recognizer
    from referee.vision import CardReader
    from referee.voice import Voice

    said: list[dict[str, Any]] = []

    def on_say(announcement, at: float) -> None:
        said.append({"t": round(at, 2), **announcement.to_dict()})
        if as_json:
            print(json.dumps(said[-1]), flush=True)
        else:
            print(f"[{at:6.1f}s] referee: {announcement.text}", flush=True)

    session = Session.start(PLAYERS, Rules(), out / "journal.jsonl")
    from referee.errors import warn

    voice = Voice(tts_out, on_error=warn)  # no sound: say why, once
    referee: LiveReferee | None = None

    def on_line(line: Line, at: float) -> None:
        if as_json:
            print(json.dumps({"t": round(at, 2), "player": line.who, "said": line.text}))
        else:
            print(f"[{at:6.1f}s] {line.who}: {line.text}", flush=True)

    table = ScriptedTable(SCRIPT, lambda: referee, on_line=on_line)
    referee = LiveReferee(
        session, make_recognizer(backend), table, camera=ImageFeed(write_photos(out / "photos")),
        reader=CardReader(), voice=voice, on_say=on_say,
    )  # fmt: skip
    referee.run()
    session.close()
    voice.close()
    from referee.game.view import view

    return {
        "state": view(session.state),
        "said": said,
        "heard": referee.heard_log,
        "repeated": table.retries,
    }


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    out = args.out or Path(tempfile.mkdtemp(prefix="referee-demo-"))
    out.mkdir(parents=True, exist_ok=True)
    tts_out = args.tts_out or out / "voice.wav"
    result = play_demo(out, tts_out, args.backend, args.json)
    state = result["state"]
    (out / "result.json").write_text(json.dumps(result, indent=1))
    summary = (
        f"Demo over in {time.monotonic() - started:.0f} s. Winner: {state['winner']}. "
        f"Games won: {state['wins']}. Lines said again after a mishearing: "
        f"{len(result['repeated'])}. Voice: {tts_out}"
    )
    print(json.dumps({"state": state}) if args.json else summary, flush=True)
    if state["winner"] != "Alice":
        print(
            "referee demo: the game did not end as recorded (a misheard line?); see "
            f"{out / 'result.json'}",
            file=sys.stderr,
        )
        return 1
    return 0
