"""``referee listen``: one JSON object per utterance, the contract the rest of the project reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from referee.cli import main
from referee.speech.audio import write_wav
from referee.speech.synth import espeak_available, synthesize
from referee.speech.types import SAMPLE_RATE

pytestmark = pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed")


@pytest.fixture(scope="module")
def table_wav(tmp_path_factory) -> Path:
    quiet = np.zeros(int(0.8 * SAMPLE_RATE), np.float32)
    parts = [quiet]
    for text in ("two sevens", "the weather is lovely today", "cheat!"):
        speech = synthesize(text, voice="en-us", speed=150)
        parts += [speech * (0.1 / np.sqrt(np.mean(speech**2))), quiet]
    path = tmp_path_factory.mktemp("listen") / "table.wav"
    return write_wav(path, np.concatenate(parts))


def test_listen_prints_one_json_object_per_utterance(table_wav, capsys):
    code = main(["listen", "--wav", str(table_wav), "--players", "Alice,Ben", "--rank-due", "7"])
    assert code == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["intent"] for line in lines] == [
        {"type": "claim", "count": 2, "rank": "7"},
        {"type": "call", "caller": None},
    ]
    for line in lines:
        assert set(line) <= {"start", "end", "text", "intent", "confidence"}
        assert {"start", "end", "text", "intent"} <= set(line)
        assert 0 <= line["start"] < line["end"]
    assert lines[0]["start"] == pytest.approx(0.8, abs=0.1)
    assert lines[0]["text"] == "two sevens"


def test_listen_console_script_with_pocketsphinx(table_wav):
    exe = Path(sys.executable).with_name("referee")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "referee"]
    out = subprocess.run(
        [
            *cmd,
            "listen",
            "--wav",
            str(table_wav),
            "--rank-due",
            "seven",
            "--backend",
            "pocketsphinx",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    # pocketsphinx is the weak backend: whatever it hears must be legal and well-formed
    for line in lines:
        assert line["intent"]["type"] in {"claim", "call", "count", "pass", "command"}
        if line["intent"]["type"] == "claim":
            assert line["intent"]["rank"] == "7"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--wav", "/no/such.wav"], "No such audio file"),
        (["--seconds", "0.5"], "No microphone found"),
        (["--rank-due", "1"], "not a rank"),
        (["--backend", "vosk", "--vosk-model", "/no/model"], "alphacephei.com/vosk/models"),
    ],
)
def test_listen_user_errors_are_messages_not_tracebacks(args, message, capsys, table_wav):
    if "--wav" not in args and "--seconds" not in args:
        args = [*args, "--wav", str(table_wav)]
    assert main(["listen", *args]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
