"""The private PulseAudio room (tests/room.py): what plays into it is what the referee's
microphone hears, its own voice's aplay reaches it, and it leaves nothing running."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from referee.speech.audio import write_wav
from tests.room import PulseRoom, onsets

MIC = """
import json, sys
import numpy as np
from referee.speech.audio import MicSource, list_input_devices
print(json.dumps([name for _, name in list_input_devices()]), flush=True)
chunks = list(MicSource("pulse", seconds=float(sys.argv[1])))
audio = np.concatenate([c.samples for c in chunks])
print(json.dumps({"rms": [float(np.sqrt(np.mean(audio[i:i + 1600] ** 2)))
                          for i in range(0, len(audio) - 1599, 1600)]}), flush=True)
"""


def tone(seconds: float, hz: float = 440.0, level: float = 0.3) -> np.ndarray:
    t = np.arange(int(seconds * 16_000)) / 16_000
    return (level * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def test_the_table_sounds_left_and_aplay_on_both_channels(room, tmp_path):
    rec = room.recorder()
    room.play(tone(0.5))
    wav = write_wav(tmp_path / "voice.wav", tone(0.5, 660.0))
    subprocess.run(["aplay", "-q", str(wav)], env=room.env, check=True, timeout=20)
    audio = rec.stop()
    left, right = onsets(audio[:, 0]), onsets(audio[:, 1], hold_s=0.05)
    assert len(right) == 1, right  # the referee's voice alone, on the right
    assert 0.4 <= right[0][1] - right[0][0] <= 0.7
    assert left[0][0] < right[0][0] - 0.4  # the table's tone first, on the left only
    table = audio[int(left[0][0] * 16_000) : int(right[0][0] * 16_000) - 1600]
    assert np.sqrt(np.mean(table[:, 0] ** 2)) > 0.1 and np.abs(table[:, 1]).max() < 0.01


def test_the_microphone_named_pulse_hears_the_room(room):
    mic = subprocess.Popen([sys.executable, "-c", MIC, "3.0"], env=room.env,
                           stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert mic.stdout is not None
    devices = json.loads(mic.stdout.readline())
    assert "pulse" in devices
    room.play(np.zeros(8000, np.float32))
    room.play(tone(1.0))
    out, _ = mic.communicate(timeout=30)
    levels = json.loads(out)["rms"]
    assert max(levels) > 0.05  # the tone, averaged over both channels
    assert min(levels) < 0.001  # and the quiet around it


def test_the_room_is_private_and_stops_by_its_pid(tmp_path):
    root = tmp_path / "room"
    with PulseRoom(root) as room:
        pid = room.pid
        assert room.env["PULSE_SERVER"] == f"unix:{root / 'native'}"
        assert room.env["XDG_RUNTIME_DIR"].startswith(str(root))
        assert "room.monitor" in room.pactl("get-default-source")
        os.kill(pid, 0)  # running
    try:
        os.kill(pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive
