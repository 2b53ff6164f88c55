"""``referee calibrate mic``: levels, thresholds, advice, and the versioned profile."""

from __future__ import annotations

import json

import numpy as np
import pytest

from referee.calibration.mic import advice, measure, thresholds
from referee.cli import UserError, main
from referee.speech import profile as mic_profile
from referee.speech.audio import write_wav
from referee.speech.types import SAMPLE_RATE
from referee.speech.vad import Segmenter


def room(noise_rms: float, speech_rms: float, seconds: float = 6.0) -> np.ndarray:
    """Quiet first, then bursts of 'speech' (a modulated tone) over steady noise."""
    rng = np.random.default_rng(0)
    n = int(seconds * SAMPLE_RATE)
    audio = rng.normal(0, noise_rms, n)
    t = np.arange(n) / SAMPLE_RATE
    talk = (t > seconds / 2) & (np.sin(2 * np.pi * 1.5 * t) > 0)
    audio += talk * speech_rms * np.sqrt(2) * np.sin(2 * np.pi * 220 * t)
    return audio.astype(np.float32)


def test_measures_noise_floor_and_speech_level():
    m = measure(room(0.001, 0.1))
    assert m.noise_db == pytest.approx(-60, abs=3)
    assert m.speech_db == pytest.approx(-20, abs=3)
    assert advice(m) == []


def test_loud_room_and_far_microphone_are_reported():
    loud = measure(room(0.05, 0.1))
    assert any("room is loud" in line for line in advice(loud))
    far = measure(room(0.0005, 0.005))
    assert any("too far" in line for line in advice(far))


def test_thresholds_sit_between_noise_and_speech():
    m = measure(room(0.003, 0.1))
    p = thresholds(m)
    assert m.noise_db < m.noise_db + p.margin_db < m.speech_db
    assert p.version == mic_profile.PROFILE_VERSION


def test_calibrated_thresholds_find_speech_in_a_noisy_room():
    audio = room(0.02, 0.1)
    profile = thresholds(measure(audio))
    seg = Segmenter(profile)
    found = [
        s for i in range(0, len(audio) - 320, 320) if (s := seg.push(i / 16000, audio[i : i + 320]))
    ]
    assert found and all(s.start > 2.5 for s in found)  # nothing in the quiet first half


def test_silent_recording_is_a_clear_error():
    with pytest.raises(UserError, match="muted or unplugged"):
        measure(np.zeros(SAMPLE_RATE * 3, np.float32))


def test_calibrate_mic_from_wav_writes_a_versioned_profile(tmp_path, capsys):
    wav = write_wav(tmp_path / "room.wav", room(0.002, 0.1))
    out = tmp_path / "mic.json"
    assert main(["calibrate", "mic", "--wav", str(wav), "--profile", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["version"] == mic_profile.PROFILE_VERSION
    assert data["noise_floor_db"] < data["speech_level_db"]
    assert mic_profile.load(out).margin_db == data["margin_db"]
    assert "saved" in capsys.readouterr().out


def test_missing_or_corrupt_profile_means_defaults_with_a_warning(tmp_path):
    assert mic_profile.load(tmp_path / "none.json") == mic_profile.DEFAULT
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    warnings: list[str] = []
    assert mic_profile.load(bad, warn=warnings.append) == mic_profile.DEFAULT
    assert warnings and "calibrate mic" in warnings[0]
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"version": 99, "margin_db": 3}))
    assert mic_profile.load(newer, warn=warnings.append) == mic_profile.DEFAULT


def test_calibrate_mic_without_a_microphone_is_a_message(capsys):
    assert main(["calibrate", "mic", "--seconds", "2"]) == 2
    assert "No microphone found" in capsys.readouterr().err
