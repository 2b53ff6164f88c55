"""How soon ``referee play`` says its first sentence (``python -m bench.live.startup``).

Starts ``referee play --json`` on a short recording (``--audio --realtime``) as a fresh
process, with no camera and with a camera (``--frames``: the card reader's models load
too), and times the first announcement line on its standard output: the greeting, queued
to the voice. Before the loop said it, play loaded the card reader (1.8 s here), the
recognizer (2.9 s) and ran the names check (espeak probes, 8.4 s for three names: that
one only with a live microphone). Writes bench/live/startup.json; about 40 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from referee.speech.audio import write_wav

RUNS = 3


def first_line(folder: Path, *extra: str) -> float:
    env = {**os.environ, "REFEREE_DATA_DIR": str(folder / "data")}
    env.pop("DISPLAY", None)
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "play", "--no-window", "--json", "--players",
         "Alice,Ben,Cara", "--journal", str(folder / f"j{time.monotonic_ns()}.jsonl"),
         "--db", str(folder / "s.db"), "--audio", str(folder / "quiet.wav"), "--realtime",
         *extra],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    seconds = float("nan")
    for line in proc.stdout:
        if line.startswith('{"t"'):
            seconds = time.monotonic() - started
            break
    proc.kill()
    proc.wait()
    return round(seconds, 2)


def main() -> int:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        quiet = np.random.default_rng(0).normal(0, 0.002, 16_000 * 3).astype(np.float32)
        write_wav(folder / "quiet.wav", quiet)
        (folder / "frames").mkdir()
        result = {
            "no_camera_s": [first_line(folder, "--no-camera") for _ in range(RUNS)],
            "camera_s": [
                first_line(folder, "--frames", str(folder / "frames")) for _ in range(RUNS)
            ],
            "load_avg": round(os.getloadavg()[0], 1),
        }
    Path(__file__).with_name("startup.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
