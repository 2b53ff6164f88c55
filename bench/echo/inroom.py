"""The room side of the echo bench, run inside the room's environment (``PulseRoom.env``).

The referee's :class:`~referee.voice.Voice` says an opening, then one confirmation ("Alice:
two aces." "Ben, twos.") per trial through PortAudio's ``pulse`` device into the room; the
microphone (``MicSource("pulse")``, the room's monitor) is cleaned by the voice's echo
stage. A trial with a line has the player say it (``pacat``, the room's left channel) that
long after the confirmation began. Writes ``OUT/raw.wav``, ``OUT/clean.wav`` and
``OUT/trials.json`` (each trial's times in the microphone's audio time, the canceller's
measures, and how late each cleaned chunk came).

    python -m bench.echo.inroom OUT PLAN.json
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from referee.speech.audio import MicSource, read_wav, write_wav
from referee.speech.echo import LEAD_S
from referee.speech.types import SAMPLE_RATE
from referee.voice import Voice

CONFIRMATION = ("Alice: two aces.", "Ben, twos.")


def pacat(samples: np.ndarray, channel: int | None = 0) -> subprocess.Popen:
    """Play 16 kHz mono float samples into the room (left channel, or both)."""
    mono = (np.clip(samples, -1, 1) * 32767).astype(np.int16)
    stereo = np.zeros((len(mono), 2), np.int16)
    if channel is None:
        stereo[:] = mono[:, None]
    else:
        stereo[:, channel] = mono
    process = subprocess.Popen(
        ["pacat", "--playback", "--device=room", "--raw", "--format=s16le",
         f"--rate={SAMPLE_RATE}", "--channels=2", "--latency-msec=30"],
        stdin=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip

    def feed() -> None:  # pacat takes it as fast as it plays: never hold up the trials
        assert process.stdin is not None
        try:
            process.stdin.write(stereo.tobytes())
            process.stdin.close()
        except BrokenPipeError:
            pass

    threading.Thread(target=feed, daemon=True).start()
    return process


def main() -> int:
    out, plan = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
    started: dict[int, float] = {}
    finished: dict[int, float] = {}

    def on_event(kind: str, index: int, _text: str, at: float) -> None:
        (started if kind == "started" else finished)[index] = at

    problems: list[str] = []
    voice = Voice(on_event=on_event, on_error=problems.append, device="pulse")
    stage = voice.echo_stage(problems.append)
    if stage is None:
        print(json.dumps({"error": problems}), flush=True)
        return 1
    raw: list[np.ndarray] = []
    far: list[np.ndarray] = []  # what the tape says was played then (for tuning offline)
    clean: list[np.ndarray] = []
    stamps: list[tuple[int, float]] = []  # (audio sample index, monotonic time of it)
    lateness: list[float] = []
    heard = [0]

    def hook(samples: np.ndarray, at: float) -> np.ndarray:
        raw.append(samples.copy())
        far.append(stage.tape.at(at + LEAD_S, len(samples)))
        stamps.append((heard[0], at))
        heard[0] += len(samples)
        cleaned = stage(samples, at)
        clean.append(cleaned)
        lateness.append(time.monotonic() - (at + len(samples) / SAMPLE_RATE))
        return cleaned

    seconds = plan["seconds"]
    mic = MicSource("pulse", seconds=seconds, clean=hook)
    listening = threading.Thread(target=lambda: [None for _ in mic], daemon=True)
    listening.start()
    bed = None
    if plan.get("noise_rms"):  # the room is noisy before the referee first speaks, as rooms are
        rng = np.random.default_rng(5)
        bed = pacat(rng.normal(0, plan["noise_rms"], int(seconds * SAMPLE_RATE)), None)
    time.sleep(0.5)
    voice.say("Game one. Cara deals. Alice starts with aces, then kings, then queens.")
    for sentence in CONFIRMATION:
        voice.say(sentence)  # one confirmation more to learn the room from
    time.sleep(plan["warmup_s"])
    trials = []
    for trial in plan["trials"]:
        first = len(voice.said)
        for sentence in CONFIRMATION:
            voice.say(sentence)
        deadline = time.monotonic() + 10
        while first not in started and time.monotonic() < deadline:
            time.sleep(0.002)
        line_at = None
        if trial.get("line"):
            samples = read_wav(trial["line"]) * trial["gain"]
            wait = started[first] + trial["into_s"] - time.monotonic()
            time.sleep(max(0.0, wait))
            line_at = time.monotonic()
            pacat(samples)
        time.sleep(trial["length_s"])
        trials.append({**trial, "said_at": started.get(first), "line_at": line_at,
                       "ended_at": finished.get(first + 1)})  # fmt: skip
    listening.join(seconds + 10)
    if bed is not None:
        bed.kill()
    c = stage.canceller
    write_wav(out / "raw.wav", np.concatenate(raw))
    write_wav(out / "clean.wav", np.concatenate(clean))
    write_wav(out / "far.wav", np.concatenate(far))
    index, at = np.array(stamps).T
    summary = {
        "trials": trials,
        "stamps": {"index": index[::50].tolist(), "at": at[::50].tolist()},
        "canceller": {
            "erle_db": c.erle_db,
            "linear_erle_db": c.linear_erle_db,
            "residual_db": c.residual_db,
            "well": c.well,
            "delay": c.delay,
            "delays": c.delays,
            "verdicts": c.verdicts,
            "tape_slips": stage.tape.slips,
        },
        "lateness_s": {
            "p50": float(np.percentile(lateness, 50)),
            "p95": float(np.percentile(lateness, 95)),
        },  # fmt: skip
        "problems": problems,
    }
    (out / "trials.json").write_text(json.dumps(summary, indent=1))
    voice.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
