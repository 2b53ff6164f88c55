"""The referee's speakers: one sounddevice output stream, open all evening.

It plays the sentences queued, one after another, and silence between them, so that every
sample that leaves the laptop is known, and when: each goes onto a
:class:`referee.speech.echo.PlayedTape` (16 kHz, stamped with when it sounds) for the echo
canceller to take back out of the microphone. Sentences start and finish at a known time
(the stream's own output latency included); ``on_event`` hears of it when it happens.
"""

from __future__ import annotations

import collections
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from referee.speech.audio import StreamResampler
from referee.speech.echo import PlayedTape
from referee.speech.types import SAMPLE_RATE

#: the output's buffer: blocks of the size PortAudio likes, 0.1 s ahead. In the PulseAudio
#: room 20 ms blocks ran dry 15 times in 3 s, with the microphone and the echo canceller
#: busy beside them hundreds of times a minute (each a skip the canceller must follow);
#: these none in 3 s
LATENCY_S = 0.1
FADE_S = 0.01  # a sentence stopped short fades out this fast (no click)


class NoSpeakers(RuntimeError):
    """No output device could be opened: the referee cannot be heard."""


@dataclass
class Sentence:
    index: int
    text: str
    samples: np.ndarray  # at the stream's rate
    played: int = 0
    stop: bool = False


def _sounddevice():
    try:
        import sounddevice
    except OSError as err:  # PortAudio library missing
        raise NoSpeakers(f"PortAudio is missing: apt-get install libportaudio2 ({err})") from err
    return sounddevice


class Player:
    """Plays :class:`Sentence` s in order on ``device`` (None: the default output).

    ``on_event(kind, index, text, at)`` is called from the player's own thread as each
    sentence starts (``"started"``) and finishes or is stopped (``"finished"``), at the
    ``time.monotonic()`` it sounds, once that time has come.
    """

    def __init__(
        self,
        tape: PlayedTape,
        on_event: Callable[[str, int, str, float], None],
        device: str | int | None = None,
    ) -> None:
        sd = _sounddevice()
        self.tape = tape
        self.on_event = on_event
        self._queue: collections.deque[Sentence] = collections.deque()
        self._current: Sentence | None = None
        self._lock = threading.Lock()
        self._events: queue.Queue[tuple[str, int, str, float] | None] = queue.Queue()
        self.rate = self._pick_rate(sd, device)
        self._to_tape = StreamResampler(self.rate)
        try:
            self._stream = sd.OutputStream(
                samplerate=self.rate, channels=1, dtype="float32", device=device,
                latency=LATENCY_S, callback=self._callback,
            )  # fmt: skip
            self._stream.start()
        except Exception as err:  # sd.PortAudioError and friends
            raise NoSpeakers(str(err)) from err
        self._notifier = threading.Thread(target=self._notify, daemon=True)
        self._notifier.start()

    @staticmethod
    def _pick_rate(sd, device) -> int:
        """16 kHz when the device takes it (the tape needs no resampling), else its own."""
        try:
            sd.check_output_settings(device=device, channels=1, dtype="float32",
                                     samplerate=SAMPLE_RATE)  # fmt: skip
            return SAMPLE_RATE
        except Exception:
            try:
                return int(sd.query_devices(device, kind="output")["default_samplerate"])
            except Exception as err:
                raise NoSpeakers(str(err)) from err

    def play(self, sentence: Sentence) -> None:
        with self._lock:
            self._queue.append(sentence)

    def cancel_pending(self) -> list[Sentence]:
        """Drop the sentences not yet started (returned) and stop the one playing."""
        with self._lock:
            dropped = list(self._queue)
            self._queue.clear()
            if self._current is not None:
                self._current.stop = True
        return dropped

    @property
    def busy(self) -> bool:
        with self._lock:
            return self._current is not None or bool(self._queue)

    def _callback(self, outdata, frames, when, status) -> None:
        now = time.monotonic()
        latency = when.outputBufferDacTime - when.currentTime if when.currentTime else 0.0
        dac = now + max(0.0, latency)  # when this block's first sample sounds
        out = np.zeros(frames, np.float32)
        filled = 0
        with self._lock:
            while filled < frames:
                sentence = self._current
                if sentence is None:
                    if not self._queue:
                        break
                    sentence = self._current = self._queue.popleft()
                    self._events.put(("started", sentence.index, sentence.text,
                                      dac + filled / self.rate))  # fmt: skip
                left = len(sentence.samples) - sentence.played
                if sentence.stop:
                    n = min(left, frames - filled, int(FADE_S * self.rate))
                    fade = np.linspace(1.0, 0.0, n, dtype=np.float32) if n else out[:0]
                    part = sentence.samples[sentence.played : sentence.played + n] * fade
                    left = n
                else:
                    n = min(left, frames - filled)
                    part = sentence.samples[sentence.played : sentence.played + n]
                out[filled : filled + n] = part
                sentence.played += n
                filled += n
                if n == left:
                    self._current = None
                    self._events.put(("finished", sentence.index, sentence.text,
                                      dac + filled / self.rate))  # fmt: skip
        outdata[:, 0] = out
        skipped = bool(getattr(status, "output_underflow", False))
        self.tape.write(self._to_tape.push(out), at=dac, skipped=skipped)

    def _notify(self) -> None:
        while True:
            event = self._events.get()
            if event is None:
                return
            wait = event[3] - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self.on_event(*event)

    def close(self, timeout: float = 120.0) -> None:
        """Let what is queued finish playing (up to ``timeout``), then close the stream."""
        deadline = time.monotonic() + timeout
        while self.busy and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(min(0.3, max(0.0, deadline - time.monotonic())))  # the stream's latency
        try:
            self._stream.stop()
            self._stream.close()
        except Exception:  # a device unplugged mid-evening may fail to stop: it is gone
            pass
        self._events.put(None)
        self._notifier.join(2.0)
