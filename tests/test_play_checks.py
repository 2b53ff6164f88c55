"""``referee play`` checks what it is given before the game, and ``listen`` says when a
recording is too poor (issue 17, cases 5, 7, 13 and 14)."""

from __future__ import annotations

import argparse
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

from referee.cli import main
from referee.live import cli as play_cli
from referee.speech.audio import write_wav
from referee.speech.synth import espeak_available, synthesize

needs_espeak = pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed")


def quiet_wav(path: Path) -> Path:
    return write_wav(path, np.random.default_rng(0).normal(0, 0.01, 16_000).astype(np.float32))


def test_a_negative_camera_is_refused_not_a_crash(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "referee", "play", "--camera", "-1", "--players", "Alice,Ben",
         "--audio", str(quiet_wav(tmp_path / "q.wav")), "--no-window"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "--camera" in done.stderr and "Traceback" not in done.stderr


def test_look_at_a_negative_camera_is_refused_not_a_crash():
    done = subprocess.run([sys.executable, "-m", "referee", "look", "--camera", "-1"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2 and "camera" in done.stderr and "Traceback" not in done.stderr


def test_a_missing_camera_is_told_at_start_up(capsys):
    args = argparse.Namespace(no_camera=False, frames=None, camera=7, deck=None)
    camera, _reader = play_cli.make_eyes(args)
    camera.close()
    assert "No camera 7" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["folder", "no-folder"])
def test_tts_out_that_cannot_be_written_is_refused_before_the_game(capsys, tmp_path, where):
    target = tmp_path if where == "folder" else tmp_path / "nope" / "v.wav"
    code = main(["play", "--players", "Alice,Ben", "--audio", str(quiet_wav(tmp_path / "q.wav")),
                 "--no-camera", "--no-window", "--tts-out", str(target)])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 2 and "--tts-out" in captured.err and captured.out == ""


def test_play_audio_that_clips_is_warned_about_as_listen_does(capsys, tmp_path):
    loud = np.clip(np.sin(np.linspace(0, 2000, 32_000)) * 3, -1, 1).astype(np.float32)
    wav = write_wav(tmp_path / "loud.wav", loud)
    args = argparse.Namespace(audio=wav, realtime=False, mic=None)
    play_cli.make_audio(args)
    assert "is clipping" in capsys.readouterr().err


@needs_espeak
def test_listen_says_a_recording_at_8_khz_8_bit_is_too_poor(capsys, tmp_path):
    speech = synthesize("two aces", voice="en-us", speed=150)[::2]  # 16 kHz -> 8 kHz
    path = tmp_path / "phone.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        scaled = speech / max(1e-6, float(np.max(np.abs(speech)))) * 0.02  # a quiet 8-bit take
        w.writeframes((np.round(scaled * 127) + 128).astype(np.uint8).tobytes())
    assert main(["listen", "--wav", str(path)]) == 0
    err = capsys.readouterr().err
    assert "too poor" in err and "8000 Hz, 8-bit" in err
