"""The referee's own voice taken out of what the microphone hears (acoustic echo cancellation).

A laptop's microphone hears its own speaker far louder than a player across the table, so
the ears used to shut while the referee spoke. Here they need not: the voice plays every
sample through one output stream and keeps them on a :class:`PlayedTape` (16 kHz, stamped on
``time.monotonic()``), and the microphone's chunks come with the time of their first sample.

* :func:`find_delay` finds where the tape is heard in the microphone (a phase-transform
  cross-correlation), refreshed every half second of the referee's speech;
* :class:`EchoCanceller` (pure: samples in, samples out) subtracts it with libspeexdsp's
  adaptive filter and residual echo suppressor, and measures what is left (ERLE, and the
  residual's level against the voice gate of the ears);
* :class:`EchoStage` joins the two for :class:`referee.speech.audio.MicSource` and says once
  when the echo is not cancelled well enough, so that the ears stay shut while the referee
  speaks, as before.

>>> canceller = EchoCanceller()  # doctest: +SKIP
>>> cleaned = canceller.process(mic_chunk, far_end_for_that_time)  # doctest: +SKIP
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time
from collections import deque
from collections.abc import Callable

import numpy as np

from referee.speech.types import SAMPLE_RATE

FRAME = 320  # 20 ms, as the ears' own frames
#: the adaptive filter's own frames (20 ms; 10 ms left 5-10 dB more echo in the room)
FILTER_FRAME = 320
#: the adaptive filter's reach: how long the room rings after a sample is played. Short
#: learns faster: on the PulseAudio room's recording 0.1 s left no echo-only frame above
#: -51 dBFS, 0.15 s one, 0.2 s four; on synthetic echo with reflections up to 28 ms, 0.1 s
#: judged itself not good enough over the first 8 s, 0.15 s did (ERLE 26 dB)
TAIL_S = 0.15
#: the far end is fetched this far ahead of the microphone's time, so a microphone stamped
#: a little late (its latency under-reported) still hears the echo after the tape says it
#: was played; the delay found includes it
LEAD_S = 0.06
#: the filter starts this many samples before the delay found (an estimate a little late,
#: a stream that skipped a little)
MARGIN = 240
MAX_DELAY_S = 1.0
#: how deep the residual echo suppressor cuts where it hears the echo alone, and while
#: someone talks over the referee (dB). -40 and -13 (a third, speex's habit) cut a player's
#: "cheat!" under the referee's words into what whisper read as "three" (2 of 16 calls in
#: the bench's 20 dB room); -15 and -5 lost none there but let a sentence's first frames
#: through in a quiet room whose echo was poorly learned (a false "Alice"); -25 and -5 took
#: nothing from the echo alone in either recording (bench/echo/offline.py, README there).
#: In the 20 dB room game the referee's own "Ben, sixes." was taken as the claim "two
#: sixes" with nobody speaking at -25 / -5 (becf3c7) and at -40 / -13 alike (4eb16e3,
#: findings.md sections 10-11): the live loop now takes nothing but a call over its own
#: voice (LiveReferee._echo_of_own_voice), so the suppressor is shallow again: -25, and
#: -8 in double talk (-5 let the echo through over a call 0.5 s into the confirmation in
#: tests/test_echo.py; in the room -25/-5 took 15/16 and 15/16, -25/-8 15/16 and 14/16)
SUPPRESS_DB = -25
SUPPRESS_ACTIVE_DB = -8
#: how much of the tape and microphone each delay estimate correlates
DELAY_WINDOW_S = 2.0
#: the far end counts as speaking in a frame this loud (dBFS)
FAR_ACTIVE_DB = -45.0
#: frames of the referee's speech the residual is judged over (3 s), and the least before
#: anything is judged (2 s)
JUDGE_FRAMES = 150
MIN_JUDGED = 100
#: the echo is cancelled well enough when 90% of the frames the referee speaks in leave
#: it this far below the ears' voice gate (8 dB above the floor they hear, and at least
#: -50 dBFS: :class:`referee.speech.profile.MicProfile`'s defaults). A player talking over
#: the voice no louder than its echo counts as residual here (louder is left out)
RESIDUAL_PERCENTILE = 90
HEADROOM_DB = 2.0
GATE_MARGIN_DB, GATE_MIN_DB = 8.0, -50.0
#: a canceller never judged well is said to fail only after this many judgements (10 s of
#: the referee's speech): it learns the room from the first words
TELL_AFTER = 10
#: judged anew every this many frames; it takes this many bad judgements in a row to say
#: the echo is not cancelled (a player's call over the voice makes one look bad)
JUDGE_EVERY = 50
BAD_IN_A_ROW = 4  # a call stays in the judged frames for 3 judgements

NOT_CANCELLED = (
    "the referee's own voice is not cancelled well enough from the microphone "
    "({why}): the ears stay shut while it speaks"
)
NO_SPEEXDSP = "libspeexdsp is missing (sudo apt-get install libspeexdsp1)"


def level_db(frame: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(np.square(frame, dtype=np.float64)) + 1e-12))


# --- where the echo is heard ---------------------------------------------------------------


def find_delay(
    mic: np.ndarray, far: np.ndarray, max_lag: int, rate: int = SAMPLE_RATE
) -> tuple[int, float]:
    """(lag, sharpness): the lag in samples, 0..``max_lag``, at which ``far`` is heard in
    ``mic`` (``mic[n]`` holds ``far[n - lag]``), and how far its correlation peak stands
    above the others (in standard deviations; a true echo of speech stands above 10).

    ``far`` is the same stretch of time as ``mic`` with ``max_lag`` samples before it. The
    cross-spectrum is whitened (PHAT) over 200-4000 Hz, so a voice's loud low vowels do not
    smear the peak and the room's hum does not make one.
    """
    width = len(mic)
    if len(far) != width + max_lag or width == 0:
        raise ValueError("far must be as long as mic plus max_lag")
    size = 1 << int(np.ceil(np.log2(width + max_lag)))
    spectrum = np.fft.rfft(far, size) * np.conj(np.fft.rfft(mic, size))
    freqs = np.fft.rfftfreq(size, 1 / rate)
    weight = ((freqs >= 200) & (freqs <= 4000)) / (np.abs(spectrum) + 1e-12)
    corr = np.fft.irfft(spectrum * weight, size)[: max_lag + 1]
    # corr[m] = sum mic[n] far[n + m]; mic[n] = far'[n - lag] = far[n + max_lag - lag]
    best = int(np.argmax(corr))
    spread = float(np.std(corr)) + 1e-12
    return max_lag - best, float((corr[best] - np.mean(corr)) / spread)


class DelayTracker:
    """Follows where the far end is heard: each half second of far-end speech, a new estimate
    from the last ``DELAY_WINDOW_S``; a new delay is taken when two estimates in a row agree
    (within 2 samples) and stand out (sharpness above ``min_sharpness``)."""

    def __init__(
        self,
        max_lag: int = int(MAX_DELAY_S * SAMPLE_RATE),
        window: int = int(DELAY_WINDOW_S * SAMPLE_RATE),
        every: int = SAMPLE_RATE // 2,
        min_sharpness: float = 8.0,
    ) -> None:
        self.max_lag, self.window, self.every = max_lag, window, every
        self.min_sharpness = min_sharpness
        self.delay: int | None = None
        self.sharpness = 0.0
        self._mic = np.zeros(0, np.float32)
        self._far = np.zeros(0, np.float32)
        self._far_active = 0  # far-end samples that were speech since the last estimate
        self._candidate: int | None = None
        self._hurry = False

    def hurry(self) -> None:
        """A stream skipped: estimate at the next chance, and take one sharp estimate
        without waiting for a second to agree."""
        self._hurry = True
        self._far_active = self.every

    def push(self, mic: np.ndarray, far: np.ndarray) -> int | None:
        """Add a stretch of microphone and the far end for the same time; returns a newly
        taken delay, if any."""
        keep_far = self.window + self.max_lag
        self._mic = np.concatenate([self._mic, mic])[-self.window :]
        self._far = np.concatenate([self._far, far])[-keep_far:]
        if level_db(far) > FAR_ACTIVE_DB:
            self._far_active += len(far)
        if self._far_active < self.every or len(self._far) < keep_far:
            return None
        self._far_active = 0
        lag, self.sharpness = find_delay(self._mic, self._far, self.max_lag)
        if self.sharpness < self.min_sharpness:
            self._candidate = None
            return None
        agrees = self._hurry or (self._candidate is not None and abs(lag - self._candidate) <= 2)
        self._candidate, self._hurry = lag, False
        if agrees and lag != self.delay:
            self.delay = lag
            return lag
        return None


# --- libspeexdsp -------------------------------------------------------------------------

_ECHO_SET_SAMPLING_RATE = 24
_PRE_SET_DENOISE, _PRE_SET_AGC, _PRE_SET_DEREVERB = 0, 2, 8
_PRE_SET_NOISE_SUPPRESS, _PRE_SET_ECHO_SUPPRESS, _PRE_SET_ECHO_SUPPRESS_ACTIVE = 18, 20, 22
_PRE_SET_ECHO_STATE = 24
_I16P = ctypes.POINTER(ctypes.c_int16)
_lib: ctypes.CDLL | None = None


def speexdsp() -> ctypes.CDLL | None:
    """The system's libspeexdsp (Debian: libspeexdsp1), or None."""
    global _lib
    if _lib is not None:
        return _lib
    for name in (ctypes.util.find_library("speexdsp"), "libspeexdsp.so.1", "libspeexdsp.dylib"):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        lib.speex_echo_state_init.restype = ctypes.c_void_p
        lib.speex_echo_state_init.argtypes = [ctypes.c_int, ctypes.c_int]
        lib.speex_echo_cancellation.argtypes = [ctypes.c_void_p, _I16P, _I16P, _I16P]
        lib.speex_echo_ctl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        lib.speex_echo_state_reset.argtypes = [ctypes.c_void_p]
        lib.speex_echo_state_destroy.argtypes = [ctypes.c_void_p]
        lib.speex_preprocess_state_init.restype = ctypes.c_void_p
        lib.speex_preprocess_state_init.argtypes = [ctypes.c_int, ctypes.c_int]
        lib.speex_preprocess_ctl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        lib.speex_preprocess_run.argtypes = [ctypes.c_void_p, _I16P]
        lib.speex_preprocess_state_destroy.argtypes = [ctypes.c_void_p]
        _lib = lib
        return lib
    return None


class _SpeexFilter:
    """libspeexdsp's multi-delay adaptive filter, then its preprocessor as a residual echo
    suppressor only (its noise suppression left at 1 dB, no gain control)."""

    def __init__(
        self, lib: ctypes.CDLL, frame: int, tail: int, rate: int, suppress_db: int, active_db: int
    ):
        self.lib, self.frame, self.tail, self.rate = lib, frame, tail, rate
        self.suppress_db, self.active_db = suppress_db, active_db
        self._open()

    def _open(self) -> None:
        lib = self.lib
        self.echo = lib.speex_echo_state_init(self.frame, self.tail)
        rate = ctypes.c_int(self.rate)
        lib.speex_echo_ctl(self.echo, _ECHO_SET_SAMPLING_RATE, ctypes.byref(rate))
        self.pre = lib.speex_preprocess_state_init(self.frame, self.rate)
        for request, value in (
            (_PRE_SET_DENOISE, 1),  # the residual echo is suppressed only with it on
            (_PRE_SET_NOISE_SUPPRESS, -1),
            (_PRE_SET_AGC, 0),
            (_PRE_SET_DEREVERB, 0),
            (_PRE_SET_ECHO_SUPPRESS, self.suppress_db),
            (_PRE_SET_ECHO_SUPPRESS_ACTIVE, self.active_db),
        ):
            lib.speex_preprocess_ctl(self.pre, request, ctypes.byref(ctypes.c_int(value)))
        lib.speex_preprocess_ctl(self.pre, _PRE_SET_ECHO_STATE, ctypes.c_void_p(self.echo))

    def run(self, mic: np.ndarray, far: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One frame (int16): (after the linear filter, after residual suppression)."""
        mic = np.ascontiguousarray(mic, np.int16)
        far = np.ascontiguousarray(far, np.int16)
        out = np.empty(self.frame, np.int16)
        self.lib.speex_echo_cancellation(
            self.echo, mic.ctypes.data_as(_I16P), far.ctypes.data_as(_I16P),
            out.ctypes.data_as(_I16P),
        )  # fmt: skip
        linear = out.copy()
        self.lib.speex_preprocess_run(self.pre, out.ctypes.data_as(_I16P))
        return linear, out

    def reset(self) -> None:
        self.close()
        self._open()

    def close(self) -> None:
        if self.echo:
            self.lib.speex_preprocess_state_destroy(self.pre)
            self.lib.speex_echo_state_destroy(self.echo)
            self.echo = self.pre = None


# --- the canceller -----------------------------------------------------------------------


class EchoCanceller:
    """Takes the far end (what the referee played) out of the microphone.

    ``process(mic, far)`` takes a stretch of microphone samples and the far end for that
    same time (16 kHz float, equal lengths, any size) and returns the cleaned samples of
    every whole 20 ms frame so far: output sample ``i`` is input sample ``i``, so the audio
    time of what comes out is exact; up to a frame waits for the next call.

    It measures itself over the frames the far end speaks in: ``erle_db`` (how much
    quieter the echo came out than it went in, median), ``residual_db`` (the level left
    against the ears' voice gate, 90th percentile: below 0 the ears take it for no one
    speaking) and ``well`` (whether that residual
    is low enough for the ears to stay open while the referee speaks; None until judged).
    Frames where someone talks over the far end (the microphone far louder than the echo
    alone would be) are left out of the judging.
    """

    def __init__(
        self,
        rate: int = SAMPLE_RATE,
        tail_s: float = TAIL_S,
        max_delay_s: float = MAX_DELAY_S,
        initial_delay_s: float = LEAD_S,
        suppress_db: int = SUPPRESS_DB,
        active_db: int = SUPPRESS_ACTIVE_DB,
        track_delay: bool = True,
    ) -> None:
        if rate != SAMPLE_RATE:
            raise ValueError("the canceller works at 16 kHz")
        lib = speexdsp()
        if lib is None:
            raise RuntimeError(NO_SPEEXDSP)
        self._filter = _SpeexFilter(
            lib, FILTER_FRAME, int(tail_s * rate), rate, suppress_db, active_db
        )
        self.max_lag = int(max_delay_s * rate)
        self.delay = int(initial_delay_s * rate)
        self.tracker = DelayTracker(self.max_lag) if track_delay else None
        #: far end not yet used (with enough history before it to align any delay)
        self._far = np.zeros(self.max_lag + MARGIN, np.float32)
        self._mic = np.zeros(0, np.float32)
        self._frames: deque[tuple[float, float, float, float]] = deque(maxlen=JUDGE_FRAMES)
        self._floor: deque[float] = deque(maxlen=75)
        self._erl: deque[float] = deque(maxlen=JUDGE_FRAMES)
        self._far_levels: deque[float] = deque(maxlen=self.max_lag // FRAME + 1)
        self._since_judged = 0
        self._bad = 0
        self.well: bool | None = None
        self.ever_well = False
        self.verdicts = 0
        self.erle_db: float | None = None
        self.linear_erle_db: float | None = None
        self.residual_db: float | None = None
        self.delays: list[int] = []  # every delay taken, in samples
        self._heard_at: int | None = None  # the echo's lag the filter learned

    def process(self, mic: np.ndarray, far: np.ndarray) -> np.ndarray:
        if len(mic) != len(far):
            raise ValueError(f"mic and far differ in length ({len(mic)} and {len(far)})")
        mic = np.asarray(mic, np.float32)
        far = np.asarray(far, np.float32)
        if self.tracker is not None:
            found = self.tracker.push(mic, far)
            if found is not None:
                self._follow(found)
        self._mic = np.concatenate([self._mic, mic])
        self._far = np.concatenate([self._far, far])
        out: list[np.ndarray] = []
        while len(self._mic) >= FRAME:
            frame, self._mic = self._mic[:FRAME], self._mic[FRAME:]
            # the far end heard in this frame: played ``delay`` samples before it
            back = len(self._far) - len(self._mic) - FRAME  # index of this frame's time
            start = back - self.delay + MARGIN
            cleaned, linear = self._frame(frame, self._far[start : start + FRAME])
            # the far end supplied for this frame's own time (before any delay)
            self._judge(frame, linear, cleaned, self._far[back : back + FRAME])
            out.append(cleaned)
        self._far = self._far[-(len(self._mic) + self.max_lag + MARGIN) :]
        return np.concatenate(out) if out else np.zeros(0, np.float32)

    def _follow(self, found: int) -> None:
        """The echo is now heard ``found`` samples after the far end. A small move (a
        stream that skipped a little) is followed by moving the far end as much, so the
        filter's taps stay right; one beyond its reach aligns it anew, and it starts over."""
        reach = self.delay - MARGIN // 2, self.delay - MARGIN + self._filter.tail // 2
        moved = found - (self._heard_at if self._heard_at is not None else found)
        if abs(moved) < MARGIN // 2 and reach[0] <= found <= reach[1]:
            if abs(moved) >= 2:
                self.delay += moved
                self.delays.append(found)
        else:
            self.delay = max(found, MARGIN)
            self.delays.append(found)
            self._filter.reset()
        self._heard_at = found

    def _frame(self, mic: np.ndarray, far: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One 20 ms frame through the filter, in its own (shorter) frames: (cleaned, linear)."""
        to_i16 = 32767.0
        mic16 = np.clip(mic * to_i16, -32768, 32767)
        far16 = np.clip(far * to_i16, -32768, 32767)
        step = self._filter.frame
        parts = [
            self._filter.run(mic16[i : i + step], far16[i : i + step])
            for i in range(0, FRAME, step)
        ]
        linear = np.concatenate([p[0] for p in parts]).astype(np.float32) / to_i16
        cleaned = np.concatenate([p[1] for p in parts]).astype(np.float32) / to_i16
        return cleaned, linear

    def _judge(self, mic: np.ndarray, linear: np.ndarray, out: np.ndarray, new_far: np.ndarray):
        """Judge a frame in which the referee spoke at all in the last ``max_lag`` (the
        far end's loudest frame there, not the far end aligned by the delay found: with
        the delay wrong, the echo is heard where the aligned far end is silent)."""
        mic_db, out_db = level_db(mic), level_db(out)
        self._floor.append(max(out_db, -75.0))
        self._far_levels.append(level_db(new_far))
        far_db = max(self._far_levels)
        if far_db <= FAR_ACTIVE_DB:
            return
        self._erl.append(far_db - mic_db)
        echo_db = far_db - float(np.median(self._erl))  # the echo alone would be this loud
        floor = float(np.percentile(self._floor, 10))
        if mic_db > max(echo_db, floor) + 6:
            return  # someone talks over the referee: not the echo's doing
        self._frames.append((mic_db, level_db(linear), out_db, floor))
        self._since_judged += 1
        if len(self._frames) >= MIN_JUDGED and self._since_judged >= JUDGE_EVERY:
            self._since_judged = 0
            self._verdict()

    def _verdict(self) -> None:
        mic_db, linear_db, out_db, floor = np.array(self._frames).T
        loud = mic_db > floor + 10  # echo to cancel (not the gaps between words)
        if loud.any():
            self.erle_db = float(np.median(mic_db[loud] - out_db[loud]))
            self.linear_erle_db = float(np.median(mic_db[loud] - linear_db[loud]))
        gate = np.maximum(floor + GATE_MARGIN_DB, GATE_MIN_DB)
        self.residual_db = float(np.percentile(out_db - gate, RESIDUAL_PERCENTILE))
        self.verdicts += 1
        if self.residual_db < -HEADROOM_DB:
            self._bad = 0
            self.well = self.ever_well = True
        else:
            self._bad += 1
            if self.well is None or self._bad >= BAD_IN_A_ROW:
                self.well = False

    def close(self) -> None:
        self._filter.close()


# --- the tape and the stage ------------------------------------------------------------


#: a stream's blocks are taken to follow one another without a gap unless PortAudio says
#: it skipped (an underrun, an overflow), or the time reported for one is this far from
#: where the last one ended. Not less: the times reported drift from the sample count (a
#: null sink's clock is not the computer's) and jump by some milliseconds now and then,
#: while the output and the microphone of one sound card keep in step; following each
#: report moved the echo under the filter, which then had to learn it again (the delay
#: tracker follows what moves for real)
SLIP_S = 0.5


class StreamClock:
    """When each block of a stream sounded (or was recorded), from the time reported for
    it: blocks follow one another sample for sample, so the reports' jitter (a few ms) moves
    nothing, until one is more than ``SLIP_S`` off (the stream skipped: an underrun, a
    block dropped), and the clock starts again from it."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self._next: float | None = None
        self.slips = 0

    def block(self, reported: float, frames: int, skipped: bool = False) -> float:
        """The time of a block's first sample, given the time reported for it; ``skipped``:
        the stream says it skipped just before (PortAudio's underflow or overflow flag)."""
        at = self._next
        if at is None or skipped or abs(reported - at) > SLIP_S:
            self.slips += at is not None
            at = reported
        self._next = at + frames / self.rate
        return at


class PlayedTape:
    """What the voice played, at 16 kHz, by the ``time.monotonic()`` it sounded: a ring of
    the last ``keep_s``, addressed by time. The output stream writes silence when nothing
    is said, so the tape runs without gaps. Thread-safe: the output stream writes it, the
    microphone's thread reads it."""

    def __init__(self, keep_s: float = 10.0) -> None:
        self._lock = threading.Lock()
        self._ring = np.zeros(int(keep_s * SAMPLE_RATE), np.float32)
        self._clock = StreamClock(SAMPLE_RATE)
        self._end: int | None = None  # the time just after the last sample, in samples

    def write(self, samples: np.ndarray, at: float, skipped: bool = False) -> None:
        """Add what sounds from monotonic time ``at`` on (16 kHz); ``skipped``: the output
        stream ran dry just before (an underrun), so ``at`` is taken as it is."""
        with self._lock:
            start = int(round(self._clock.block(at, len(samples), skipped) * SAMPLE_RATE))
            size = len(self._ring)
            if self._end is not None and self._end < start:  # skipped: silence there
                gap = np.arange(self._end, min(start, self._end + size))
                self._ring[gap % size] = 0.0
            samples = np.asarray(samples, np.float32)[-size:]
            self._ring[np.arange(start, start + len(samples)) % size] = samples
            self._end = start + len(samples)

    @property
    def slips(self) -> int:
        """How often the output stream skipped (an underrun) since the tape began."""
        return self._clock.slips

    @property
    def end(self) -> float | None:
        """When the last sample written sounds out (monotonic), if anything was."""
        with self._lock:
            return None if self._end is None else self._end / SAMPLE_RATE

    def at(self, t: float, count: int) -> np.ndarray:
        """The ``count`` samples played from monotonic time ``t`` (silence where the tape
        has nothing: before it started, forgotten, or not yet written)."""
        out = np.zeros(count, np.float32)
        with self._lock:
            if self._end is None:
                return out
            first = int(round(t * SAMPLE_RATE))
            lo = max(first, self._end - len(self._ring))
            hi = min(first + count, self._end)
            if hi > lo:
                out[lo - first : hi - first] = self._ring[np.arange(lo, hi) % len(self._ring)]
        return out


class EchoStage:
    """The microphone's hook: ``stage(samples, at)`` cleans a stretch of 16 kHz microphone
    samples whose first sample was recorded at monotonic time ``at``, against what the tape
    played then. ``well`` tells whether the ears may stay open while the referee speaks;
    ``on_problem`` is told once when they may not (or when nothing can be cancelled)."""

    def __init__(
        self,
        tape: PlayedTape,
        on_problem: Callable[[str], None] | None = None,
        canceller: EchoCanceller | None = None,
        wait_s: float = 0.1,
    ) -> None:
        self.tape = tape
        self.on_problem = on_problem
        self.wait_s = wait_s
        self._told = False
        self._slips = 0
        try:
            self.canceller = canceller or EchoCanceller()
        except RuntimeError as err:
            self.canceller = None
            self._tell(str(err))

    @property
    def well(self) -> bool:
        return self.canceller is not None and bool(self.canceller.well)

    def __call__(self, samples: np.ndarray, at: float) -> np.ndarray:
        canceller = self.canceller
        if canceller is None:
            return samples
        ahead = at + LEAD_S
        need = ahead + len(samples) / SAMPLE_RATE
        deadline = time.monotonic() + self.wait_s
        while (self.tape.end or need) < need and time.monotonic() < deadline:
            time.sleep(0.005)  # the output stream writes the tape a little ahead
        if self.tape.slips != self._slips and canceller.tracker is not None:
            self._slips = self.tape.slips
            canceller.tracker.hurry()  # the output skipped: the echo moved
        cleaned = canceller.process(samples, self.tape.at(ahead, len(samples)))
        if canceller.well is False and (canceller.ever_well or canceller.verdicts >= TELL_AFTER):
            self._tell(self.why())
        return cleaned

    def why(self) -> str:
        c = self.canceller
        if c is None or c.residual_db is None:
            return "not yet measured"
        erle = "" if c.erle_db is None else f", ERLE {c.erle_db:.0f} dB"
        return f"residual echo {c.residual_db:+.0f} dB against the ears' voice gate{erle}"

    def _tell(self, problem: str) -> None:
        if not self._told and self.on_problem is not None:
            self._told = True
            self.on_problem(NOT_CANCELLED.format(why=problem))
