"""Echo bench: a call over the referee's own voice, in the PulseAudio room (tests/room.py).

The referee says "Alice: two aces." "Ben, twos." (about 2.2 s) at full level into the room,
once a trial; in most trials a player says "Cheat!" or "Ben, cheat!" (espeak-ng voices, the
room's left channel, about 8 dB under the echo in the microphone) 0.3-1.5 s into it; in the
rest nobody does. The microphone is cleaned by the voice's echo stage and read by whisper
with the ears open. Scored: calls taken at the right onset (within 0.15 s) and caller,
anything taken in an echo-only trial, call latency, the canceller's ERLE and residual.

    python -m bench.echo.run [--trials N] [--out bench/echo/results.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
VOICES = ("en-gb", "en-us+f3", "en-gb-scotland", "en-029")
LINES = (("cheat!", None), ("Ben, cheat!", "Ben"))
PLAYERS = ("Alice", "Ben", "Cara")
CONFIRMATION_S = 2.8  # what is said, and a little after
ONSET_TOLERANCE_S = 0.15


def plan(folder: Path, trials: int, noise_rms: float) -> dict:
    from referee.speech.audio import write_wav
    from referee.speech.synth import synthesize

    rng = np.random.default_rng(7)
    items = []
    for k in range(trials):
        if k % 5 == 4:  # every fifth: the echo alone
            items.append({"length_s": 4.0})
            continue
        text, caller = LINES[k % 2]
        voice = VOICES[(k // 2) % len(VOICES)]
        speech = synthesize(text, voice=voice, speed=int(rng.integers(150, 200)))
        path = write_wav(folder / f"line{k}.wav", speech)
        gain = 0.1 / float(np.sqrt(np.mean(speech**2)))  # 0.1 RMS left: 0.05 in the mic
        items.append({"line": str(path), "text": text, "caller": caller, "voice": voice,
                      "gain": gain, "into_s": round(float(rng.uniform(0.3, 1.5)), 2),
                      "length_s": 4.0})  # fmt: skip
    seconds = 16.0 + sum(t["length_s"] + 1.0 for t in items)  # each waits for the voice
    return {"trials": items, "warmup_s": 10.0, "seconds": seconds, "noise_rms": noise_rms}


def run_condition(trials: int, noise_rms: float, keep: Path | None = None) -> dict:
    """One room; ``keep``: a folder to leave the recordings in (raw, far end, cleaned, the
    trials' times) for :mod:`bench.echo.offline` to clean again and read per trial."""
    sys.path.insert(0, str(ROOT))
    from tests.room import PulseRoom

    with tempfile.TemporaryDirectory() as tmp, PulseRoom() as room:
        folder = Path(tmp)
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            folder = keep
        (folder / "plan.json").write_text(json.dumps(plan(folder, trials, noise_rms)))
        subprocess.run(
            [sys.executable, "-m", "bench.echo.inroom", str(folder), str(folder / "plan.json")],
            env=room.env, cwd=ROOT, check=True, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        from referee.speech.audio import read_wav

        summary = json.loads((folder / "trials.json").read_text())
        return score(read_wav(folder / "clean.wav", check=False),
                     read_wav(folder / "raw.wav", check=False), summary)  # fmt: skip


def first_known(readings: list, call) -> float:
    """When ``call`` was first known, after its words end: its earliest reading, early or
    final (the live referee acts on a named call read early; bench/speech counts so)."""
    same = [
        h for h in readings if h.intent == call.intent and h.utterance.start == call.utterance.start
    ]
    return min((h.decided_at or h.utterance.end) for h in same) - call.utterance.end


def score(clean: np.ndarray, raw: np.ndarray, summary: dict) -> dict:
    from referee.speech.audio import ArraySource
    from referee.speech.recognizer import Recognizer
    from referee.speech.types import SAMPLE_RATE
    from referee.speech.vocab import PHASE_INTENTS, ListenContext

    index, at = np.array(summary["stamps"]["index"]), np.array(summary["stamps"]["at"])

    def audio_time(wall: float) -> float:
        return float(np.interp(wall, at, index)) / SAMPLE_RATE

    # as the live referee listens during play: its default backend, what play lets be said
    context = ListenContext.for_rank_due("2", PLAYERS, intents=PHASE_INTENTS["play"])
    rec = Recognizer(context=context)
    readings = list(rec.utterances(ArraySource(clean)))
    heard = [h for h in readings if not h.utterance.partial]
    rows = []
    for trial in summary["trials"]:
        if trial["said_at"] is None:
            continue
        begins = audio_time(trial["said_at"])
        during = [h for h in heard if begins <= h.utterance.start < begins + CONFIRMATION_S]
        row = {
            "into_s": trial.get("into_s"),
            "text": trial.get("text"),
            "heard": [(h.intent.to_dict(), round(h.utterance.start - begins, 3)) for h in during],
        }
        if trial.get("line"):
            onset = audio_time(trial["line_at"]) - begins  # when pacat was started
            calls = [h for h in during if h.intent.type == "call"]
            row["onset_s"] = round(onset, 3)
            row["taken"] = (
                bool(calls)
                and abs(calls[0].utterance.start - begins - onset)
                < (
                    ONSET_TOLERANCE_S + 0.1  # pacat's own latency, up to 0.1 s
                )
                and calls[0].intent.caller == trial["caller"]
            )
            if calls:
                row["onset_error_s"] = round(calls[0].utterance.start - begins - onset, 3)
                row["latency_s"] = round(first_known(readings, calls[0]), 3)
        rows.append(row)
    # the same lines with nobody else speaking: the call latency without barge-in
    from referee.speech.audio import read_wav
    from referee.speech.synth import padded

    alone_latency = []
    for trial in summary["trials"]:
        if trial.get("line"):
            quiet = padded(read_wav(trial["line"]) * trial["gain"] / 2, lead_s=1.0, noise=1e-4)
            readings = list(rec.utterances(ArraySource(quiet)))
            calls = [h for h in readings if h.intent.type == "call" and not h.utterance.partial]
            if calls:
                alone_latency.append(first_known(readings, calls[0]))
    lines = [r for r in rows if "taken" in r]
    alone = [r for r in rows if "taken" not in r]
    latency = [r["latency_s"] for r in lines if "latency_s" in r]
    return {
        "calls_taken": f"{sum(r['taken'] for r in lines)}/{len(lines)}",
        "echo_alone_taken": f"{sum(bool(r['heard']) for r in alone)}/{len(alone)}",
        "call_latency_p95_s": round(float(np.percentile(latency, 95)), 3) if latency else None,
        "call_latency_alone_p95_s": (
            round(float(np.percentile(alone_latency, 95)), 3) if alone_latency else None
        ),
        "onset_error_median_s": round(
            float(np.median([r["onset_error_s"] for r in lines if "onset_error_s" in r] or [0])), 3
        ),  # fmt: skip
        "canceller": summary["canceller"],
        "cleaned_chunk_lateness_s": summary["lateness_s"],
        "problems": summary["problems"],
        "trials": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20, help="trials per condition")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "echo" / "results.json")
    parser.add_argument("--keep", type=Path, help="leave each room's recordings in KEEP/<room>")
    args = parser.parse_args()

    def keep(name: str) -> Path | None:
        return None if args.keep is None else args.keep / name

    results = {
        "command": f"python -m bench.echo.run --trials {args.trials}",
        "quiet": run_condition(args.trials, 0.0, keep("quiet")),
        "noise_20db": run_condition(args.trials, 0.005, keep("noise_20db")),
    }
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    for name in ("quiet", "noise_20db"):
        r = results[name]
        c = r["canceller"]
        print(f"{name}: calls taken {r['calls_taken']}, echo alone taken {r['echo_alone_taken']}, "
              f"latency p95 {r['call_latency_p95_s']} s (alone {r['call_latency_alone_p95_s']} s), "
              f"ERLE {c['erle_db']} dB (linear {c['linear_erle_db']}), "
              f"residual {c['residual_db']} dB against the gate")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
