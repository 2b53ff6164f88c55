"""Text-to-speech in its own process, so the referee never freezes while it talks.

pyttsx3 (espeak-ng on Linux) runs in a worker process (:mod:`.worker`) fed line by line:
``say`` returns at once with an estimate of how long the sentence takes, which the
microphone uses to ignore the referee's own voice. With ``out`` the worker renders each
sentence to a wav and ``close`` joins them, in order, into one file (for tests and
machines without speakers).
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

WORDS_PER_SECOND = 2.6  # espeak-ng's default rate is about 175 words a minute
GAP_SECONDS = 0.3


def speech_seconds(text: str) -> float:
    """How long ``text`` takes to say, roughly (for muting the microphone meanwhile)."""
    return 0.4 + len(text.split()) / WORDS_PER_SECOND


class Voice:
    """Speaks announcements one after another, never blocking the caller."""

    def __init__(
        self,
        out: Path | None = None,
        echo: bool = False,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        self.out = Path(out) if out else None
        self.echo = echo
        #: told each new problem once (from the thread that reads the worker's answers)
        self.on_error = on_error
        self.said: list[str] = []
        self.errors: list[str] = []
        self.done = 0
        #: when (``time.monotonic()``) the last sentence queued so far was done
        self.finished_at = 0.0
        self._tmp = tempfile.TemporaryDirectory(prefix="referee-tts-") if self.out else None
        command = [sys.executable, "-m", "referee.voice.worker"]
        if self._tmp:
            command.append(self._tmp.name)
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1,
        )  # fmt: skip
        self._acks = threading.Thread(target=self._read_acks, daemon=True)
        self._acks.start()

    def _read_acks(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            ack = json.loads(line)
            if "error" in ack:
                self._error(ack["error"])
            else:
                self.done += 1
                self.finished_at = time.monotonic()

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

    def _error(self, message: str) -> None:
        if message not in self.errors:
            self.errors.append(message)
            if self.on_error:
                self.on_error(message)

    def speaking(self) -> bool | None:
        """Whether a sentence is still being said aloud: None when that can't be known (the
        voice goes to a file, or its process has ended), else True until the worker has
        finished every sentence queued (see ``finished_at``)."""
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
        written = None
        if self.out and self._tmp:
            parts = sorted(Path(self._tmp.name).glob("*.wav"))
            written = join_wavs(parts, self.out, GAP_SECONDS)
            self._tmp.cleanup()
        return written


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
