"""Audio in: wav files of any rate and channel count, and the microphone, as 16 kHz mono chunks.

A source is an iterable of :class:`Chunk` (float32 samples in [-1, 1] and the audio time of
their first sample). Problems a user can cause (a missing file, a wav that is not PCM, no
microphone) raise :class:`referee.errors.UserError` with a message they can act on.
"""

from __future__ import annotations

import queue
import struct
import time
import wave
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.speech.types import SAMPLE_RATE

CHUNK_S = 0.02
NO_MIC = "No microphone found. Plug one in or run `referee demo`."


def _user_error(message: str) -> Exception:
    from referee.errors import UserError

    return UserError(message)


@dataclass(frozen=True)
class Chunk:
    """``samples`` (float32, 16 kHz mono) starting ``start`` seconds into the stream."""

    start: float
    samples: np.ndarray

    @property
    def end(self) -> float:
        return self.start + len(self.samples) / SAMPLE_RATE


def _lowpass(rate: int, target: int) -> np.ndarray:
    """Windowed-sinc low-pass taps for going down from ``rate`` to ``target`` (one tap, a
    pass-through, when going up)."""
    if target >= rate:
        return np.ones(1)
    cutoff = 0.45 * target / rate  # cycles per input sample
    n = np.arange(-32, 33)
    taps = 2 * cutoff * np.sinc(2 * cutoff * n) * np.hamming(len(n))
    return taps / taps.sum()


def resample(samples: np.ndarray, rate: int, target: int = SAMPLE_RATE) -> np.ndarray:
    """Resample mono float samples; a windowed-sinc low-pass first when going down."""
    if rate == target or len(samples) == 0:
        return samples.astype(np.float32, copy=False)
    x = np.convolve(samples.astype(np.float64), _lowpass(rate, target), mode="same")
    count = int(round(len(x) * target / rate))
    positions = np.arange(count) * (rate / target)
    return np.interp(positions, np.arange(len(x)), x).astype(np.float32)


class StreamResampler:
    """:func:`resample` for a stream that comes in blocks of any size, as if it were one
    long signal: the filter's history and the position between input samples carry over
    from block to block, so block edges leave no clicks and no drift. Each block's output
    stops a few input samples short of its end (the filter's reach); they come with the next.
    """

    def __init__(self, rate: int, target: int = SAMPLE_RATE):
        self.rate, self.target = rate, target
        self._taps = _lowpass(rate, target)
        self._reach = len(self._taps) // 2
        self._step = rate / target
        #: input not yet consumed, and the stream index of its first sample (the stream is
        #: taken as silent before its start, as ``resample``'s filter does)
        self._x = np.zeros(self._reach)
        self._x0 = -self._reach
        self._out = 0  # output samples given so far

    def push(self, samples: np.ndarray) -> np.ndarray:
        if self.rate == self.target:
            return samples.astype(np.float32, copy=False)
        self._x = np.concatenate([self._x, samples.astype(np.float64)])
        filtered = np.convolve(self._x, self._taps, mode="valid")
        first = self._x0 + self._reach  # stream index of filtered[0]
        last = first + len(filtered) - 1
        count = max(0, int(np.floor((last - 1) / self._step)) + 1 - self._out)
        positions = (self._out + np.arange(count)) * self._step
        out = np.interp(positions - first, np.arange(len(filtered)), filtered)
        self._out += count
        keep_from = int(np.floor(self._out * self._step)) - self._reach
        self._x = self._x[keep_from - self._x0 :]
        self._x0 = keep_from
        return out.astype(np.float32)


def to_mono_float(frames: np.ndarray, channels: int) -> np.ndarray:
    """Interleaved integer or float frames to mono float32 in [-1, 1] (channels averaged)."""
    if frames.dtype.kind in "iu":
        info = np.iinfo(frames.dtype)
        signed = info.min < 0
        scale = float(-info.min) if signed else (info.max + 1) / 2
        offset = 0.0 if signed else (info.max + 1) / 2
        x = (frames.astype(np.float64) - offset) / scale
    else:
        x = frames.astype(np.float64)
    if channels > 1:
        x = x.reshape(-1, channels).mean(axis=1)
    return x.astype(np.float32)


def read_wav(path: str | Path, *, check: bool = True) -> np.ndarray:
    """A PCM wav of any rate/channels/width as 16 kHz mono float32.

    With ``check``, digital silence is an error (a muted or unplugged mic recorded nothing).
    """
    path = Path(path)
    if not path.is_file():
        raise _user_error(f"No such audio file: {path}")
    try:
        rate, channels, width, kind, raw = _read_riff(path.read_bytes())
    except ValueError as err:
        raise _user_error(
            f"{path} is not a PCM wav file ({err}). Convert it, e.g. "
            f"`sox {path.name} -r 16000 -c 1 -b 16 out.wav`."
        ) from err
    if kind == "float" and width in (4, 8):
        frames = np.frombuffer(raw[: len(raw) // width * width], "<f4" if width == 4 else "<f8")
    elif width == 1:
        frames = np.frombuffer(raw, np.uint8)
    elif width == 2:
        frames = np.frombuffer(raw[: len(raw) // 2 * 2], "<i2")
    elif width == 3:
        b = np.frombuffer(raw[: len(raw) // 3 * 3], np.uint8).reshape(-1, 3).astype(np.int32)
        value = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        frames = (np.where(value >= 1 << 23, value - (1 << 24), value) << 8).astype(np.int32)
    elif width == 4:
        frames = np.frombuffer(raw[: len(raw) // 4 * 4], "<i4")
    else:
        raise _user_error(f"{path}: unsupported sample width of {width} bytes.")
    frames = frames[: len(frames) // channels * channels]
    samples = resample(to_mono_float(frames, channels), rate)
    if check:
        problem = level_problem(samples)
        if problem == "silent":
            raise _user_error(f"{path} is silent: nothing to listen to.")
    return samples


def _read_riff(data: bytes) -> tuple[int, int, int, str, bytes]:
    """(rate, channels, bytes per sample, "int" or "float", sample bytes) of a RIFF/WAVE file,
    including WAVE_FORMAT_EXTENSIBLE (which the stdlib ``wave`` module rejects)."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError("no RIFF/WAVE header")
    fmt = raw = None
    pos = 12
    while pos + 8 <= len(data):
        tag, size = data[pos : pos + 4], struct.unpack("<I", data[pos + 4 : pos + 8])[0]
        body = data[pos + 8 : pos + 8 + size]
        if tag == b"fmt ":
            fmt = body
        elif tag == b"data":
            raw = body
        pos += 8 + size + (size & 1)
    if fmt is None or raw is None or len(fmt) < 16:
        raise ValueError("missing fmt or data chunk")
    tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", fmt[:16])
    if tag == 0xFFFE and len(fmt) >= 26:
        tag = struct.unpack("<H", fmt[24:26])[0]
    if tag not in (1, 3) or channels < 1 or rate < 1000:
        raise ValueError(f"format tag {tag}, {channels} channels, {rate} Hz")
    return rate, channels, (bits + 7) // 8, "float" if tag == 3 else "int", raw


def write_wav(path: str | Path, samples: np.ndarray, rate: int = SAMPLE_RATE) -> Path:
    """Write mono float samples as 16-bit PCM."""
    path = Path(path)
    pcm = (np.clip(samples, -1.0, 1.0) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(pcm.tobytes())
    return path


def level_problem(samples: np.ndarray) -> str | None:
    """``"silent"``, ``"clipping"`` or None: what is wrong with a recording's level."""
    if len(samples) == 0 or float(np.max(np.abs(samples))) < 1e-4:
        return "silent"
    if float(np.mean(np.abs(samples) > 0.99)) > 0.001:
        return "clipping"
    return None


def recording_problems(path: str | Path, samples: np.ndarray) -> list[str]:
    """What to tell the user about a recording they gave (``listen --wav``, ``play --audio``):
    it clips, or it is too poor (under 16 kHz, or 8-bit) for the recognizer to hear much."""
    problems = []
    if level_problem(samples) == "clipping":
        problems.append(f"{path} is clipping (too loud); recognition may suffer.")
    try:
        with open(path, "rb") as f:
            rate, _channels, width, _kind, _raw = _read_riff(f.read(1 << 20))
    except (OSError, ValueError):
        return problems
    if rate < SAMPLE_RATE or width < 2:
        problems.append(f"{path} is too poor a recording ({rate} Hz, {8 * width}-bit): the "
                        "referee may hear little or nothing in it; record at 16 kHz, 16-bit "
                        "or better.")  # fmt: skip
    return problems


#: how much audio the level watch judges at a time
LEVEL_WINDOW_S = 3.0

LEVEL_WARNINGS = {
    "silent": "The microphone hears nothing at all: is it muted, or its cable out?",
    "clipping": "The microphone is too loud (clipping): turn its input level down.",
}


def watch_levels(
    source: Iterable[Chunk], warn: Callable[[str], None], window_s: float = LEVEL_WINDOW_S
) -> Iterator[Chunk]:
    """Pass a live source's chunks through, telling the table when the microphone records
    digital silence (muted, unplugged) or clips, judged over ``window_s`` at a time: once
    when it starts, and again only after the level has been right in between. A wav file is
    checked whole when read; a microphone can go wrong mid-game."""
    window: list[np.ndarray] = []
    held = 0
    told: str | None = None
    for chunk in source:
        yield chunk
        window.append(chunk.samples)
        held += len(chunk.samples)
        if held < window_s * SAMPLE_RATE:
            continue
        problem = level_problem(np.concatenate(window))
        window, held = [], 0
        if problem is not None and problem != told:
            warn(LEVEL_WARNINGS[problem])
        told = problem


def chunks(samples: np.ndarray, chunk_s: float = CHUNK_S, start: float = 0.0) -> Iterator[Chunk]:
    """Cut samples into chunks, as a live stream would deliver them."""
    step = int(chunk_s * SAMPLE_RATE)
    for i in range(0, len(samples), step):
        yield Chunk(start + i / SAMPLE_RATE, samples[i : i + step])


class WavSource:
    """A wav file streamed as chunks (as if it were being spoken now)."""

    def __init__(self, path: str | Path, chunk_s: float = CHUNK_S):
        self.path = Path(path)
        self.samples = read_wav(self.path)
        self.chunk_s = chunk_s

    def __iter__(self) -> Iterator[Chunk]:
        return chunks(self.samples, self.chunk_s)


class ArraySource:
    """Samples already in memory (tests, the benchmark)."""

    def __init__(self, samples: np.ndarray, chunk_s: float = CHUNK_S):
        self.samples = samples.astype(np.float32, copy=False)
        self.chunk_s = chunk_s

    def __iter__(self) -> Iterator[Chunk]:
        return chunks(self.samples, self.chunk_s)


def _sounddevice():
    try:
        import sounddevice
    except OSError as err:  # PortAudio library missing
        raise _user_error(
            f"{NO_MIC} (PortAudio is missing: apt-get install libportaudio2)"
        ) from err
    return sounddevice


def list_input_devices() -> list[tuple[int, str]]:
    """(index, name) of every device that can record."""
    sd = _sounddevice()
    try:
        devices = sd.query_devices()
    except Exception:  # PortAudio errors come in several types
        return []
    return [(i, d["name"]) for i, d in enumerate(devices) if d.get("max_input_channels", 0) > 0]


def _pick_device(device: str | int | None) -> int | None:
    inputs = list_input_devices()
    if not inputs:
        raise _user_error(NO_MIC)
    if device is None or device == "":
        return None
    if isinstance(device, int) or str(device).isdigit():
        index = int(device)
        if index not in {i for i, _ in inputs}:
            names = ", ".join(f"{i}: {n}" for i, n in inputs)
            raise _user_error(f"No input device {index}. Input devices: {names}")
        return index
    matches = [i for i, name in inputs if str(device).lower() in name.lower()]
    if not matches:
        names = ", ".join(f"{i}: {n}" for i, n in inputs)
        raise _user_error(f"No input device matching {device!r}. Input devices: {names}")
    return matches[0]


#: the microphone is taken as gone when it delivers nothing for this long
MIC_SILENT_S = 2.0


def _input_format(sd, device: int | None) -> tuple[int, int]:
    """A (rate, channels) the input device accepts: 16 kHz mono when it can, else its own
    rate and channel count (a cheap webcam's microphone often records only at 44.1 or 48 kHz,
    or only in stereo); the stream converts to 16 kHz mono either way."""
    try:
        info = sd.query_devices(device, kind="input")
        native, most = int(info["default_samplerate"]), max(1, int(info["max_input_channels"]))
    except Exception:  # PortAudio errors come in several types
        native, most = SAMPLE_RATE, 1
    refused = []
    for rate, channels in dict.fromkeys(
        [(SAMPLE_RATE, 1), (native, 1), (SAMPLE_RATE, most), (native, most)]
    ):
        try:
            sd.check_input_settings(
                device=device, channels=channels, dtype="float32", samplerate=rate
            )
        except Exception as err:
            refused.append(f"{rate} Hz x {channels}: {err}")
            continue
        return rate, channels
    names = ", ".join(f"{i}: {name}" for i, name in list_input_devices())
    raise _user_error(
        f"The microphone refused every format tried ({'; '.join(refused)}). "
        f"Pick another one. Input devices: {names}"
    )


class MicSource:
    """The microphone (``device``: index, part of a name, or None for the default), as 16 kHz
    mono whatever rate and channels the device records in.

    ``seconds`` stops after that much audio (None: until interrupted). Audio time counts
    samples delivered, so it is the same clock the recognizer stamps utterances with.
    ``clean`` (the echo canceller, :class:`referee.speech.echo.EchoStage`) gets each 16 kHz
    block with the ``time.monotonic()`` its first sample was recorded at, and gives back the
    block without the referee's own voice (its sample ``i`` still input sample ``i``).
    """

    def __init__(
        self,
        device: str | int | None = None,
        seconds: float | None = None,
        chunk_s: float = CHUNK_S,
        clean: Callable[[np.ndarray, float], np.ndarray] | None = None,
    ):
        self.device = device
        self.seconds = seconds
        self.chunk_s = chunk_s
        self.clean = clean

    def __iter__(self) -> Iterator[Chunk]:
        sd = _sounddevice()
        device = _pick_device(self.device)
        rate, channels = _input_format(sd, device)
        blocks: queue.Queue[tuple[np.ndarray, float, bool]] = queue.Queue()

        def callback(indata, _frames, when, status) -> None:
            now = getattr(when, "currentTime", 0.0)  # and when the block was recorded:
            late = now - when.inputBufferAdcTime if now else 0.0
            recorded = time.monotonic() - max(0.0, late)
            dropped = bool(getattr(status, "input_overflow", False))
            blocks.put((indata.mean(axis=1), recorded, dropped))  # mono (channels averaged)

        try:
            stream = sd.InputStream(
                samplerate=rate,
                channels=channels,
                dtype="float32",
                blocksize=int(self.chunk_s * rate),
                device=device,
                callback=callback,
            )
            stream.start()
        except Exception as err:  # sd.PortAudioError and friends
            raise _user_error(f"{NO_MIC} ({err})") from err
        to_16k = StreamResampler(rate)
        position = 0
        clock = None
        if self.clean is not None:
            from referee.speech.echo import StreamClock

            clock = StreamClock(rate)
        try:
            while self.seconds is None or position < self.seconds * SAMPLE_RATE:
                try:
                    recorded, recorded_at, dropped = blocks.get(timeout=MIC_SILENT_S)
                except queue.Empty:
                    raise _user_error(
                        f"The microphone stopped delivering audio. {NO_MIC}"
                    ) from None
                block = to_16k.push(recorded)
                if clock is not None and self.clean is not None:
                    # the block's end was recorded then; the resampler's output ends there
                    ends = clock.block(recorded_at, len(recorded), dropped) + len(recorded) / rate
                    block = self.clean(block, ends - len(block) / SAMPLE_RATE)
                if len(block):
                    yield Chunk(position / SAMPLE_RATE, block)
                    position += len(block)
        finally:
            try:
                stream.stop()
                stream.close()
            except Exception:  # a device unplugged mid-stream may fail to stop: it is gone
                pass
