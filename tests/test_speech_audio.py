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
    WavSource,
    level_problem,
    read_wav,
    resample,
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


def test_sources_stream_chunks_with_audio_times():
    chunks = list(ArraySource(np.zeros(SAMPLE_RATE, np.float32), chunk_s=0.1))
    assert len(chunks) == 10
    assert chunks[3].start == pytest.approx(0.3)
    assert chunks[3].end == pytest.approx(0.4)


def test_no_microphone_is_a_clear_message():
    with pytest.raises(UserError, match="No microphone found"):
        list(MicSource(seconds=0.1))
    assert "referee demo" in NO_MIC
