"""Audio in: wav files of any rate/channels, level problems, the missing microphone."""

from __future__ import annotations

import shutil
import subprocess
import wave

import numpy as np
import pytest

from referee.cli import UserError
from referee.speech.audio import (
    NO_MIC,
    ArraySource,
    MicSource,
    StreamResampler,
    WavSource,
    level_problem,
    read_wav,
    resample,
    watch_levels,
    write_wav,
)
from referee.speech.types import SAMPLE_RATE


def tone(freq: float, seconds: float, rate: int = SAMPLE_RATE, amp: float = 0.3) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def write_pcm(path, frames: np.ndarray, rate: int, channels: int, width: int = 2) -> None:
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(channels)
        wav.setsampwidth(width)
        wav.setframerate(rate)
        wav.writeframes(frames.tobytes())


def dominant_freq(x: np.ndarray, rate: int = SAMPLE_RATE) -> float:
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return float(np.argmax(spectrum) * rate / len(x))


@pytest.mark.parametrize("rate", [8000, 22050, 44100, 48000])
def test_any_rate_is_resampled_to_16k_keeping_pitch_and_length(tmp_path, rate):
    path = tmp_path / "a.wav"
    write_pcm(path, (tone(440, 1.0, rate) * 32767).astype("<i2"), rate, 1)
    samples = read_wav(path)
    assert abs(len(samples) - SAMPLE_RATE) <= 2
    assert abs(dominant_freq(samples) - 440) < 5


def test_stereo_is_mixed_to_mono(tmp_path):
    left, right = tone(440, 0.5, 22050), tone(440, 0.5, 22050)
    frames = np.stack([left, right], axis=1).reshape(-1)
    path = tmp_path / "stereo.wav"
    write_pcm(path, (frames * 32767).astype("<i2"), 22050, 2)
    samples = read_wav(path)
    assert samples.ndim == 1
    assert abs(len(samples) - SAMPLE_RATE // 2) <= 2
    assert 0.25 < float(np.max(np.abs(samples))) < 0.35


@pytest.mark.skipif(shutil.which("sox") is None, reason="sox not installed")
def test_24_bit_and_8_bit_wavs_from_sox(tmp_path):
    for bits in (8, 24):
        path = tmp_path / f"b{bits}.wav"
        subprocess.run(
            ["sox", "-n", "-r", "44100", "-c", "2", "-b", str(bits), str(path),
             "synth", "0.5", "sine", "440", "vol", "0.5"],
            check=True,
        )  # fmt: skip
        samples = read_wav(path)
        assert abs(dominant_freq(samples) - 440) < 5
        assert 0.4 < float(np.max(np.abs(samples))) < 0.6


def test_missing_file_and_non_wav_are_clear_errors(tmp_path):
    with pytest.raises(UserError, match="No such audio file"):
        read_wav(tmp_path / "nope.wav")
    bogus = tmp_path / "notes.wav"
    bogus.write_text("not audio at all")
    with pytest.raises(UserError, match="not a PCM wav"):
        WavSource(bogus)


def test_silent_wav_is_a_clear_error(tmp_path):
    path = write_wav(tmp_path / "silent.wav", np.zeros(SAMPLE_RATE, np.float32))
    with pytest.raises(UserError, match="silent"):
        read_wav(path)


def test_level_problems():
    assert level_problem(np.zeros(100, np.float32)) == "silent"
    assert level_problem(np.ones(1000, np.float32)) == "clipping"
    assert level_problem(tone(440, 0.2)) is None


def test_resample_down_removes_content_above_the_new_nyquist():
    high = tone(5000, 1.0, 44100)
    down = resample(high, 44100, 16000)
    assert float(np.max(np.abs(down[100:-100]))) > 0.2  # 5 kHz passes
    alias = resample(tone(12000, 1.0, 44100), 44100, 16000)
    assert float(np.max(np.abs(alias[200:-200]))) < 0.05  # 12 kHz would alias: filtered


@pytest.mark.parametrize("rate", [44100, 48000, 22050, 8000])
def test_a_stream_resampled_block_by_block_is_the_whole_signal_resampled(rate):
    """Blocks of any size, as a sound card delivers them: no clicks at their edges and no
    drift, only the last few samples held back until more come."""
    rng = np.random.default_rng(rate)
    x = (0.1 * rng.standard_normal(2 * rate)).astype(np.float32)
    stream, out, i = StreamResampler(rate), [], 0
    while i < len(x):
        n = int(rng.integers(1, 3000))
        out.append(stream.push(x[i : i + n]))
        i += n
    streamed, whole = np.concatenate(out), resample(x, rate)
    held_back = 33 * SAMPLE_RATE // rate + 2  # the filter reaches 32 input samples ahead
    assert len(whole) - held_back <= len(streamed) <= len(whole)
    np.testing.assert_allclose(streamed, whole[: len(streamed)], atol=1e-6)


def test_sources_stream_chunks_with_audio_times():
    chunks = list(ArraySource(np.zeros(SAMPLE_RATE, np.float32), chunk_s=0.1))
    assert len(chunks) == 10
    assert chunks[3].start == pytest.approx(0.3)
    assert chunks[3].end == pytest.approx(0.4)


def test_no_microphone_is_a_clear_message():
    with pytest.raises(UserError, match="No microphone found"):
        list(MicSource(seconds=0.1))
    assert "referee demo" in NO_MIC


class FakeCard:
    """``sounddevice`` as far as :class:`MicSource` uses it: one input device that records a
    440 Hz tone at the rates and channel counts it accepts (a webcam: 48 kHz stereo only)."""

    def __init__(self, rates=(48000,), channels=(2,), seconds=10.0, fail_on_stop=False):
        self.rates, self.channels = set(rates), set(channels)
        self.seconds = seconds
        self.fail_on_stop = fail_on_stop
        self.opened: dict = {}

    def query_devices(self, device=None, kind=None):
        info = {"name": "USB webcam", "max_input_channels": 2, "default_samplerate": 48000.0}
        return info if kind else [info]

    def check_input_settings(self, device=None, channels=None, dtype=None, samplerate=None):
        if samplerate not in self.rates:
            raise ValueError("Invalid sample rate")
        if channels not in self.channels:
            raise ValueError("Invalid number of channels")

    def InputStream(self, **settings):
        self.opened = settings
        return FakeStream(self, **settings)


class FakeStream:
    def __init__(self, card, samplerate, channels, dtype, blocksize, device, callback):
        self.card, self.rate, self.channels = card, samplerate, channels
        self.blocksize, self.callback = blocksize, callback

    def start(self):
        mono = tone(440, self.card.seconds, self.rate)
        frames = np.repeat(mono[:, None], self.channels, axis=1)
        for i in range(0, len(frames), self.blocksize):  # all at once: the queue holds them
            block = frames[i : i + self.blocksize]
            self.callback(block, len(block), None, None)

    def stop(self):
        if self.card.fail_on_stop:
            raise RuntimeError("PortAudio: device unavailable")

    def close(self):
        pass


def test_a_microphone_that_records_only_48k_stereo_is_heard_as_16k_mono(monkeypatch):
    import referee.speech.audio as audio

    card = FakeCard(rates=(48000,), channels=(2,))
    monkeypatch.setattr(audio, "_sounddevice", lambda: card)
    got = list(MicSource(seconds=0.5))
    assert (card.opened["samplerate"], card.opened["channels"]) == (48000, 2)
    assert all(a.end == pytest.approx(b.start) for a, b in zip(got, got[1:], strict=False))
    samples = np.concatenate([c.samples for c in got])
    assert 0.5 * SAMPLE_RATE <= len(samples) < 0.53 * SAMPLE_RATE
    spectrum = np.abs(np.fft.rfft(samples[800:]))
    peak_hz = np.argmax(spectrum) * SAMPLE_RATE / len(samples[800:])
    assert peak_hz == pytest.approx(440, abs=3)
    assert float(np.max(np.abs(samples[800:]))) == pytest.approx(0.3, abs=0.01)


def test_the_microphone_records_16k_mono_when_it_can(monkeypatch):
    import referee.speech.audio as audio

    card = FakeCard(rates=(16000, 48000), channels=(1, 2))
    monkeypatch.setattr(audio, "_sounddevice", lambda: card)
    samples = np.concatenate([c.samples for c in MicSource(seconds=0.2)])
    assert (card.opened["samplerate"], card.opened["channels"]) == (16000, 1)
    np.testing.assert_allclose(samples[:3200], tone(440, 0.2), atol=1e-6)


def test_a_microphone_that_refuses_every_format_is_a_clear_message(monkeypatch):
    import referee.speech.audio as audio

    monkeypatch.setattr(audio, "_sounddevice", lambda: FakeCard(rates=()))
    with pytest.raises(UserError, match="refused every format.*Invalid sample rate.*USB webcam"):
        list(MicSource(seconds=0.1))


def test_a_microphone_that_goes_quiet_mid_stream_is_a_clear_message(monkeypatch):
    """Unplugged mid-game: the stream stops calling back, and stopping it fails too; the
    player is told, in words, what happened."""
    import referee.speech.audio as audio

    card = FakeCard(seconds=0.3, fail_on_stop=True)
    monkeypatch.setattr(audio, "_sounddevice", lambda: card)
    monkeypatch.setattr(audio, "MIC_SILENT_S", 0.1)
    heard = []
    with pytest.raises(UserError, match="stopped delivering audio"):
        for chunk in MicSource(seconds=5):
            heard.append(chunk)
    assert sum(len(c.samples) for c in heard) >= 0.29 * SAMPLE_RATE  # what came first is kept


def test_a_live_microphone_that_goes_silent_or_clips_is_reported_once_each_time():
    """Muted mid-game (digital silence), back, muted again, then far too loud: the table is
    told each time it starts, not every few seconds, and every chunk still gets through."""
    quiet = np.zeros(4 * SAMPLE_RATE, np.float32)
    talk = tone(300, 4.0)
    loud = np.clip(tone(300, 4.0, amp=3.0), -1.0, 1.0)
    stream = np.concatenate([talk, quiet, quiet, talk, quiet, loud, loud])
    told: list[str] = []
    source = ArraySource(stream, chunk_s=0.1)
    passed = list(watch_levels(source, told.append, window_s=2.0))
    assert len(passed) == len(list(source))
    assert [t.split(":")[0] for t in told] == [
        "The microphone hears nothing at all",
        "The microphone hears nothing at all",
        "The microphone is too loud (clipping)",
    ]


def test_a_microphone_at_a_good_level_is_not_reported():
    told: list[str] = []
    list(watch_levels(ArraySource(tone(300, 10.0), chunk_s=0.1), told.append, window_s=2.0))
    assert told == []


def test_the_loudest_stretch_is_the_words_standing_out_of_a_bed():
    from referee.speech.vad import FRAME, loudest_stretch

    rng = np.random.default_rng(1)
    bed = rng.normal(0, 0.01, 4 * SAMPLE_RATE).astype(np.float32)
    words = bed.copy()
    words[SAMPLE_RATE : int(1.3 * SAMPLE_RATE)] += rng.normal(0, 0.05, int(0.3 * SAMPLE_RATE))
    words[int(1.5 * SAMPLE_RATE) : int(1.8 * SAMPLE_RATE)] += rng.normal(0, 0.05, 4800)
    first, onset, end = loudest_stretch(words)  # two words 0.2 s apart: one stretch, padded
    assert first == pytest.approx(0.84 * SAMPLE_RATE, abs=FRAME)
    assert onset == pytest.approx(1.0 * SAMPLE_RATE, abs=FRAME)
    assert end == pytest.approx(1.96 * SAMPLE_RATE, abs=FRAME)
    assert loudest_stretch(bed) is None  # nothing stands out
    assert loudest_stretch(words[: 4 * FRAME]) is None  # too short to tell
