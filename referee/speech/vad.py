"""Voice activity: cut a stream into utterances by level above a tracked noise floor.

Deliberately simple (an energy gate with hysteresis): it runs in microseconds, and its job is
to stamp *when* someone began to speak. The recognizer decides *what* was said. Inside an
utterance the words are also judged against themselves: what stays far under them is the
room (``MicProfile.words_drop_db``), and it ends the utterance.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from referee.speech.profile import DEFAULT, MicProfile
from referee.speech.types import SAMPLE_RATE

FRAME = 320  # 20 ms
FLOOR_WINDOW = 75  # frames: 1.5 s
#: :func:`loudest_stretch`: frames this far under the loudest 0.2 s still belong to the words
WORDS_DROP_DB = 10.0
#: the frames over the gate right after the last one near the words' level, unbroken, are
#: the soft end of the last word for at most this long (:attr:`MicProfile.words_drop_db`)
WORDS_TAIL_S = 0.2


def level_db(frame: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(np.square(frame, dtype=np.float64)) + 1e-12))


def loudest_stretch(
    audio: np.ndarray, drop_db: float = WORDS_DROP_DB, bridge_s: float = 0.24, pad_s: float = 0.16
) -> tuple[int, int, int] | None:
    """(first, onset, end) samples of the loudest words in ``audio`` (``first`` and ``end``
    padded, ``onset`` where they begin), or None when they are most of it.

    At a party the babble of the room holds the voice gate open around a player's words (one
    utterance of several seconds), but the words stand out of it: the stretch is the frames
    within ``drop_db`` of the loudest 0.2 s, gaps up to ``bridge_s`` bridged, the run with the
    most energy, padded by ``pad_s`` each side. None when that covers 80% of the audio or
    more: nothing stands out (one talker, steady noise).
    """
    n = len(audio) // FRAME
    if n < 10:
        return None
    frames = audio[: n * FRAME].astype(np.float64).reshape(n, FRAME)
    power = np.mean(frames**2, axis=1) + 1e-12
    db = 10 * np.log10(power)
    top = np.sort(db)[-10]  # the loudest 0.2 s
    loud = np.flatnonzero(db >= top - drop_db)
    bridge = max(1, round(bridge_s * SAMPLE_RATE / FRAME))
    runs = np.split(loud, np.flatnonzero(np.diff(loud) > bridge) + 1)
    best = max(runs, key=lambda r: power[r[0] : r[-1] + 1].sum())
    pad = round(pad_s * SAMPLE_RATE / FRAME)
    first, last = max(0, best[0] - pad), min(n, best[-1] + 1 + pad)
    if last - first >= 0.8 * n:
        return None
    return int(first) * FRAME, int(best[0]) * FRAME, int(last) * FRAME


@dataclass
class Segment:
    """An utterance in progress or finished: ``audio`` includes a short pre-roll and begins
    at audio time ``audio_start`` (``start`` is the onset of the speech in it)."""

    start: float
    end: float
    audio: np.ndarray
    done: bool
    audio_start: float | None = None
    #: (first, end) samples of ``audio`` of the longest pause inside the words: the quiet
    #: between "Cara," and "cheat!" when it was shorter than the gate's hangover
    pause: tuple[int, int] | None = None
    #: the level of its loudest 20 ms (dBFS)
    peak_db: float | None = None

    def stretch(self, first: int, onset: int, end: int) -> Segment:
        """The part of this segment from sample ``first`` to ``end`` of its audio, its speech
        beginning at sample ``onset``."""
        t0 = self.start if self.audio_start is None else self.audio_start
        return Segment(
            max(self.start, t0 + onset / SAMPLE_RATE),
            min(self.end, t0 + end / SAMPLE_RATE),
            self.audio[first:end],
            self.done,
            t0 + first / SAMPLE_RATE,
        )

    def halves(self, pad_s: float = 0.06) -> tuple[Segment, Segment] | None:
        """The words before and after :attr:`pause` (each with ``pad_s`` of it), or None."""
        if self.pause is None:
            return None
        first, end = self.pause
        pad = int(pad_s * SAMPLE_RATE)
        t0 = self.start if self.audio_start is None else self.audio_start
        onset = max(0, round((self.start - t0) * SAMPLE_RATE))
        head = self.stretch(0, onset, min(first + pad, end))
        tail = self.stretch(max(end - pad, first), end, len(self.audio))
        return head, tail


class Segmenter:
    """Feed 20 ms frames; it reports where utterances begin and end."""

    def __init__(self, profile: MicProfile = DEFAULT):
        self.profile = profile
        self.floor_db = profile.noise_floor_db
        self._levels: deque[float] = deque(maxlen=FLOOR_WINDOW)
        self._preroll: list[np.ndarray] = []
        self._frames: list[np.ndarray] = []
        self._run = 0  # consecutive loud frames before an onset
        self._quiet = 0  # consecutive quiet frames inside an utterance
        self._gate_quiet = 0  # ...of them, the last ones under the gate itself
        self.start: float | None = None
        self._audio_start = 0.0
        self._last_loud_end = 0.0
        self._words_end = 0.0  # the end of the last frame near the words' level
        self._pause: tuple[int, int] | None = None  # frames: first quiet one, how many
        self._peak = -200.0  # the loudest frame of the utterance in progress (or onset run)

    @property
    def in_speech(self) -> bool:
        return self.start is not None

    def is_loud(self, frame: np.ndarray) -> bool:
        return self._is_loud(level_db(frame))

    def _is_loud(self, db: float) -> bool:
        return db > max(self.floor_db + self.profile.margin_db, self.profile.min_level_db)

    def _track_floor(self, db: float) -> None:
        # minimum statistics: the floor is a low percentile of the last 1.5 s of levels, so
        # it follows steady noise and babble (which never go quiet) but not the words
        self._levels.append(max(db, -75.0))
        if len(self._levels) >= 5:
            self.floor_db = float(np.percentile(self._levels, 10))

    def reset(self) -> None:
        """Forget any utterance in progress (used by the mute gate)."""
        self._frames, self._run, self._quiet, self.start = [], 0, 0, None
        self._gate_quiet = 0
        self._pause = None
        self._peak = -200.0

    def _under_words(self, db: float) -> bool:
        """Whether a frame over the gate, inside an utterance, is still far under its words
        (``MicProfile.words_drop_db``) and not far over the room (``words_over_floor_db``):
        the room's babble after them, not more words. In a quiet room the soft end of a
        word ("-s") is far under its vowel but far over the room, and stays in it."""
        p = self.profile
        return (
            p.words_drop_db > 0
            and db < self._peak - p.words_drop_db
            and db < self.floor_db + p.words_over_floor_db
        )

    def forget(self) -> None:
        """Forget the utterance in progress and the sound before it (the pre-roll)."""
        self.reset()
        self._preroll = []

    def listen_only(self, frame: np.ndarray) -> None:
        """Let a frame move the noise floor without ever starting an utterance."""
        self._track_floor(level_db(frame))
        self._remember(frame)

    def _remember(self, frame: np.ndarray) -> None:
        self._preroll.append(frame)
        keep = max(1, int(self.profile.preroll_s * SAMPLE_RATE / FRAME)) + 8
        del self._preroll[:-keep]

    def push(self, t: float, frame: np.ndarray) -> Segment | None:
        """Add the frame starting at audio time ``t``; returns a finished segment, if any."""
        db = level_db(frame)
        loud = self._is_loud(db)
        self._track_floor(db)
        p = self.profile
        frame_s = len(frame) / SAMPLE_RATE
        self._remember(frame)
        if self.start is None:
            if not loud:
                self._run, self._peak = 0, -200.0
                return None
            self._run += 1
            self._peak = max(self._peak, db)
            if self._run * frame_s < p.onset_s:
                return None
            onset_frames = self._run
            self.start = t + frame_s - onset_frames * frame_s
            pre = int(p.preroll_s * SAMPLE_RATE / FRAME)
            self._frames = list(self._preroll[-(onset_frames + pre) :])
            self._audio_start = t + frame_s - len(self._frames) * frame_s
            self._quiet = 0
            self._last_loud_end = self._words_end = t + frame_s
            return None
        self._frames.append(frame)
        self._gate_quiet = 0 if loud else self._gate_quiet + 1
        if loud:
            self._peak = max(self._peak, db)
        words = loud and not self._under_words(db)
        # the soft end of the last word: over the gate, unbroken since the words' last frame
        # (no quiet frame yet), for at most WORDS_TAIL_S
        tail = loud and self._quiet == 0 and t + frame_s - self._words_end <= WORDS_TAIL_S + 1e-9
        if words:
            self._words_end = t + frame_s
        if words or tail:
            if self._quiet and (self._pause is None or self._quiet > self._pause[1]):
                self._pause = (len(self._frames) - 1 - self._quiet, self._quiet)
            self._quiet = 0
            self._last_loud_end = t + frame_s
        else:
            self._quiet += 1
        too_long = t + frame_s - self.start >= p.max_utterance_s
        words_hangover = max(p.hangover_s, p.words_hangover_s)
        ended = (
            self._gate_quiet * frame_s >= p.hangover_s or self._quiet * frame_s >= words_hangover
        )
        if ended or too_long:
            segment = self._segment(done=True)
            self.reset()
            self._preroll = []  # the next utterance's pre-roll never reaches back into this one
            return segment
        return None

    def audio(self) -> np.ndarray:
        return np.concatenate(self._frames) if self._frames else np.zeros(0, np.float32)

    @property
    def peak_db(self) -> float | None:
        """The level of the loudest 20 ms of the utterance in progress, if any."""
        return self._peak if self.start is not None else None

    @property
    def quiet_frames(self) -> int:
        """Quiet frames since the last loud one, inside an utterance."""
        return self._quiet

    def current(self) -> Segment | None:
        """The utterance in progress, if any, up to its latest loud frame."""
        if self.start is None:
            return None
        return self._segment(done=False)

    def _segment(self, done: bool) -> Segment:
        assert self.start is not None
        pause = None
        if self._pause is not None:
            first, quiet = self._pause
            pause = first * FRAME, (first + quiet) * FRAME
        end = self._last_loud_end
        return Segment(self.start, end, self.audio(), done, self._audio_start, pause, self._peak)
