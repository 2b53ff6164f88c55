"""Offline by construction: the referee's commands run with the network blocked, and nothing
even tries to connect (every attempt is logged by an audit hook in every process)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HOOKS = Path(__file__).parent / "offline"
DATA = Path(__file__).parent / "data"


def run_offline(
    tmp_path: Path, *args: str, timeout: float = 600
) -> tuple[subprocess.CompletedProcess, str]:
    log = tmp_path / "network.log"
    env = {**os.environ, "PYTHONPATH": str(HOOKS), "REFEREE_NET_LOG": str(log),
           "REFEREE_DATA_DIR": str(tmp_path / "data")}  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "referee", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip
    return done, log.read_text() if log.exists() else ""


def test_the_hook_really_catches_a_connection(tmp_path):
    log = tmp_path / "network.log"
    env = {**os.environ, "PYTHONPATH": str(HOOKS), "REFEREE_NET_LOG": str(log)}
    code = (
        "import socket\n"
        "for target in (('192.0.2.1', 80), ('example.org', 80)):\n"
        "    try:\n"
        "        socket.socket().connect(target) if target[0][0] == '1' else "
        "socket.create_connection(target, timeout=1)\n"
        "    except OSError:\n"
        "        pass\n"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    attempts = log.read_text()
    assert "socket.connect ('192.0.2.1', 80)" in attempts
    assert "socket.getaddrinfo 'example.org'" in attempts


def test_replay_with_a_database_stays_offline(tmp_path):
    done, attempts = run_offline(tmp_path, "replay", str(DATA / "worked_match.jsonl"),
                                 "--players", "Alice,Ben,Cara,Dev", "--db",
                                 str(tmp_path / "scores.db"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert attempts == ""


@pytest.mark.parametrize("backend", ["pocketsphinx", "whisper"])
def test_listen_stays_offline(tmp_path, backend):
    from referee.speech.synth import synthesize_to_wav

    wav = synthesize_to_wav("two aces", tmp_path / "claim.wav")
    done, attempts = run_offline(tmp_path, "listen", "--wav", str(wav), "--backend", backend)
    assert done.returncode == 0, done.stderr
    assert attempts == ""
    assert '"claim"' in done.stdout
