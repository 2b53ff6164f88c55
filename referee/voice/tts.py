"""Text-to-speech in its own process, so the referee never freezes while it talks.

pyttsx3 (espeak-ng on Linux) runs in a worker process (:mod:`.worker`) fed line by line and
renders each sentence to a wav; the voice plays them itself through one sounddevice output
stream (:mod:`.player`), so the samples it plays, and when, are known exactly: they go on a
:class:`~referee.speech.echo.PlayedTape` that the echo canceller takes back out of the
microphone (:meth:`Voice.echo_stage`). ``say`` returns at once with an estimate of how long
the sentence takes. With ``out`` nothing is played: ``close`` joins the sentences, in
order, into one wav file (for tests and machines without speakers).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import tempfile
import threading
import time
import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np

from referee.speech.audio import resample
from referee.speech.echo import EchoStage, PlayedTape

WORDS_PER_SECOND = 2.6  # espeak-ng's default rate is about 175 words a minute
GAP_SECONDS = 0.3
NO_SPEAKERS = "the voice cannot be heard: no sound output ({why}); announcements are only printed"


def speech_seconds(text: str) -> float:
    """How long ``text`` takes to say, roughly (for muting the microphone meanwhile)."""
    return 0.4 + len(text.split()) / WORDS_PER_SECOND


class Voice:
    """Speaks announcements one after another, never blocking the caller.

    ``on_event("started" | "finished", index, text, at)`` is told, from the voice's own
    thread, as each sentence (``index``: its place in ``said``) begins and ends sounding,
    ``at`` on ``time.monotonic()``. Where nothing can be heard (no output device), or a
    sentence could not be rendered, it starts and finishes once the worker is done with it.
    With ``out`` it is never told.
    """

    def __init__(
        self,
        out: Path | None = None,
        echo: bool = False,
        on_error: Callable[[str], None] | None = None,
        on_event: Callable[[str, int, str, float], None] | None = None,
        device: str | int | None = None,
    ) -> None:
        self.out = Path(out) if out else None
        self.echo = echo
        #: told each new problem once (from the thread that reads the worker's answers)
        self.on_error = on_error
        self.on_event = on_event
        self.said: list[str] = []
        self.errors: list[str] = []
        self.done = 0
        #: when (``time.monotonic()``) the last sentence queued so far was done
        self.finished_at = 0.0
        self._lock = threading.Lock()
        self._dropped_below = 0  # sentences before this one are cancelled (barge-in)
        self._stage: EchoStage | None = None
        self._tmp = tempfile.TemporaryDirectory(prefix="referee-tts-")
        self.tape: PlayedTape | None = None
        self._player = None
        if self.out is None:
            self._open_player(device)
        command = [sys.executable, "-m", "referee.voice.worker", self._tmp.name]
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1,
        )  # fmt: skip
        self._acks = threading.Thread(target=self._read_acks, daemon=True)
        self._acks.start()

    def _open_player(self, device: str | int | None) -> None:
        from referee.voice.player import NoSpeakers, Player

        tape = PlayedTape()
        try:
            self._player = Player(tape, self._played, device)
        except NoSpeakers as err:
            self._error(NO_SPEAKERS.format(why=err))
            return
        self.tape = tape

    def _read_acks(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            ack = json.loads(line)
            if "error" in ack:
                self._error(ack["error"])
            elif self.out is None:
                self._rendered(ack["done"])
            else:
                self._finished(time.monotonic())

    def _rendered(self, index: int) -> None:
        """A sentence is rendered: play it (or, with nothing to play it on, it is done)."""
        path = Path(self._tmp.name) / f"{index:05d}.wav"
        samples = None
        if self._player is not None and index >= self._dropped_below and path.exists():
            samples = _read(path, self._player.rate)
        path.unlink(missing_ok=True)
        text = self.said[index]
        if samples is not None and index >= self._dropped_below:
            from referee.voice.player import Sentence

            self._player.play(Sentence(index, text, samples))
            return
        now = time.monotonic()
        # nothing to play it on, or nothing rendered (the worker said why): done, unheard
        if index >= self._dropped_below and self.on_event:
            self.on_event("started", index, text, now)
            self.on_event("finished", index, text, now)
        self._finished(now)

    def _played(self, kind: str, index: int, text: str, at: float) -> None:
        if kind == "finished":
            self._finished(at)
        if self.on_event:
            self.on_event(kind, index, text, at)

    def _finished(self, at: float) -> None:
        with self._lock:
            self.done += 1
            self.finished_at = max(self.finished_at, at)

    def say(self, text: str) -> float:
        """Queue ``text``; returns the seconds it will roughly take to say."""
        if self.echo:
            print(f"referee: {text}", file=sys.stderr, flush=True)
        self.said.append(text)  # before the worker can answer, so ``speaking`` never lags
        try:
            assert self._process.stdin is not None
            self._process.stdin.write(json.dumps({"i": len(self.said) - 1, "text": text}) + "\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError):
            self._error("the voice stopped; announcements are only printed now")
        return speech_seconds(text)

    def cancel_pending(self) -> None:
        """Barge-in: drop every sentence not yet started and stop the one sounding (it fades
        out within 10 ms and is told ``finished``); what is said after this plays as usual.
        Dropped sentences are never told ``started`` or ``finished``."""
        self._dropped_below = len(self.said)
        if self._player is not None:
            for _ in self._player.cancel_pending():
                self._finished(time.monotonic())

    @property
    def echo_cancelled(self) -> bool:
        """Whether the microphone's chunks are echo-cancelled well enough (measured) that
        the ears may stay open while the referee speaks."""
        return self._stage is not None and self.tape is not None and self._stage.well

    def echo_stage(self, on_problem: Callable[[str], None] | None = None) -> EchoStage | None:
        """The microphone's hook that takes this voice back out of what it hears (see
        :class:`~referee.speech.audio.MicSource`), or None where nothing is played."""
        if self.tape is None:
            return None
        if self._stage is None:
            self._stage = EchoStage(self.tape, on_problem or self._error)
        return self._stage

    def _error(self, message: str) -> None:
        if message not in self.errors:
            self.errors.append(message)
            if self.on_error:
                self.on_error(message)

    def speaking(self) -> bool | None:
        """Whether a sentence is still being said aloud: None when that can't be known (the
        voice goes to a file, or its process has ended), else True until every sentence
        queued has finished sounding (see ``finished_at``)."""
        if self.out is not None or self._process.poll() is not None:
            return None
        return self.done < len(self.said)

    def close(self, timeout: float = 120.0) -> Path | None:
        """Finish speaking; with ``out``, write the joined wav and return its path."""
        with contextlib.suppress(OSError):
            assert self._process.stdin is not None
            self._process.stdin.close()
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            self._process.kill()
        self._acks.join(2.0)
        if self._player is not None:
            self._player.close(timeout)
        if self._stage is not None and self._stage.canceller is not None:
            self._stage.canceller.close()
        written = None
        if self.out:
            parts = sorted(Path(self._tmp.name).glob("*.wav"))
            written = join_wavs(parts, self.out, GAP_SECONDS)
        self._tmp.cleanup()
        return written


def _read(path: Path, rate: int) -> np.ndarray | None:
    """A rendered sentence (mono 16-bit wav) as float32 at ``rate``; None if unreadable."""
    try:
        with wave.open(str(path), "rb") as w:
            source_rate, channels = w.getframerate(), w.getnchannels()
            pcm = np.frombuffer(w.readframes(w.getnframes()), "<i2")
    except (OSError, EOFError, wave.Error):
        return None
    mono = pcm.reshape(-1, channels).mean(axis=1) / 32768.0
    return resample(mono.astype(np.float32), source_rate, rate)


def join_wavs(parts: list[Path], out: Path, gap: float) -> Path:
    """Concatenate mono 16-bit wavs of one rate, with ``gap`` seconds of silence between."""
    out.parent.mkdir(parents=True, exist_ok=True)
    rate = 22050
    frames: list[bytes] = []
    for part in parts:
        with wave.open(str(part), "rb") as w:
            rate = w.getframerate()
            frames.append(w.readframes(w.getnframes()))
    silence = b"\x00\x00" * int(rate * gap)
    with wave.open(str(out), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        for chunk in frames:
            w.writeframes(chunk + silence)
    return out
