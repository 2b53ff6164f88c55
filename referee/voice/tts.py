"""Text-to-speech in its own process, so the referee never freezes while it talks.

pyttsx3 (espeak-ng on Linux) runs in a worker process fed by a queue: ``say`` returns at
once with an estimate of how long the sentence takes, which the microphone uses to ignore
the referee's own voice. With ``out`` the worker renders each sentence to a wav and
``close`` joins them, in order, into one file (for tests and machines without speakers).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue
import sys
import tempfile
import wave
from pathlib import Path

WORDS_PER_SECOND = 2.6  # espeak-ng's default rate is about 175 words a minute
GAP_SECONDS = 0.3


def speech_seconds(text: str) -> float:
    """How long ``text`` takes to say, roughly (for muting the microphone meanwhile)."""
    return 0.4 + len(text.split()) / WORDS_PER_SECOND


def _worker(jobs: mp.Queue, done: mp.Queue, out_dir: str | None) -> None:
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        try:
            import pyttsx3

            engine = pyttsx3.init()
        except Exception as err:  # no espeak-ng, no driver: report once and drain the queue
            done.put(("error", f"text-to-speech is unavailable ({err})"))
            engine = None
        while (job := jobs.get()) is not None:
            index, text = job
            if engine is not None:
                try:
                    if out_dir:
                        engine.save_to_file(text, os.path.join(out_dir, f"{index:05d}.wav"))
                    else:
                        engine.say(text)
                    engine.runAndWait()
                except Exception as err:  # a failed sentence must not end the evening
                    done.put(("error", f"could not say {text!r}: {err}"))
            done.put(("done", index))


class Voice:
    """Speaks announcements one after another, never blocking the caller."""

    def __init__(self, out: Path | None = None, echo: bool = False) -> None:
        self.out = Path(out) if out else None
        self.echo = echo
        self.said: list[str] = []
        self.errors: list[str] = []
        self._tmp = tempfile.TemporaryDirectory(prefix="referee-tts-") if self.out else None
        ctx = mp.get_context("spawn")
        self._jobs: mp.Queue = ctx.Queue()
        self._done: mp.Queue = ctx.Queue()
        self._process = ctx.Process(
            target=_worker,
            args=(self._jobs, self._done, self._tmp.name if self._tmp else None),
            daemon=True,
        )
        self._process.start()

    def say(self, text: str) -> float:
        """Queue ``text``; returns the seconds it will roughly take to say."""
        if self.echo:
            print(f"referee: {text}", file=sys.stderr, flush=True)
        self._jobs.put((len(self.said), text))
        self.said.append(text)
        return speech_seconds(text)

    def _drain(self, wait: float) -> int:
        finished = 0
        while True:
            try:
                kind, detail = self._done.get(timeout=wait)
            except queue.Empty:
                return finished
            if kind == "error":
                self.errors.append(str(detail))
            else:
                finished += 1
            if finished >= len(self.said):
                return finished

    def close(self, timeout: float = 120.0) -> Path | None:
        """Finish speaking; with ``out``, write the joined wav and return its path."""
        self._jobs.put(None)
        self._process.join(timeout)
        if self._process.is_alive():
            self._process.terminate()
        self._drain(0.1)
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
