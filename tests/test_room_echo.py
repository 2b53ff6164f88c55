"""In the PulseAudio room (tests/room.py): the referee's own voice at full level into the
room, its echo taken back out of the microphone, with and without a player's "Cheat!" over
its confirmation. The same driver as the bench (bench/echo), with fewer trials."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.echo.run import plan, score
from referee.speech import echo
from referee.speech.audio import read_wav
from referee.speech.synth import espeak_available

pytestmark = [
    pytest.mark.slow,  # about 30 s of the room's time, then whisper reads it
    pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed"),
    pytest.mark.skipif(echo.speexdsp() is None, reason="libspeexdsp1 not installed"),
]
ROOT = Path(__file__).resolve().parents[1]


def test_a_call_over_the_referees_voice_in_the_room_is_heard_and_its_echo_alone_is_not(
    room, tmp_path
):
    # four calls 0.3-1.5 s in, then the echo alone; the room's noise 20 dB under the calls
    # (in a digitally silent room a sentence's first frames can leak: bench/echo/README.md)
    trials = plan(tmp_path, 5, noise_rms=0.005)
    (tmp_path / "plan.json").write_text(json.dumps(trials))
    subprocess.run(
        [sys.executable, "-m", "bench.echo.inroom", str(tmp_path), str(tmp_path / "plan.json")],
        env=room.env, cwd=ROOT, check=True, timeout=120,
    )  # fmt: skip
    summary = json.loads((tmp_path / "trials.json").read_text())
    clean = read_wav(tmp_path / "clean.wav", check=False)
    raw = read_wav(tmp_path / "raw.wav", check=False)
    assert float(np.sqrt(np.mean(raw**2))) > 0.02  # the referee was loud in the room
    result = score(clean, raw, summary)
    assert result["canceller"]["well"] is True
    assert result["canceller"]["erle_db"] > 10  # noise caps what can be measured
    taken, lines = map(int, result["calls_taken"].split("/"))
    assert lines == 4 and taken >= 2  # the bench: 14 of 16
    assert result["echo_alone_taken"] == "0/1"
