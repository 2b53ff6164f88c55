"""Clean a kept echo-bench recording again and read it per trial (no room needed).

``python -m bench.echo.run --keep DIR`` leaves, per room, the microphone (``raw.wav``), the
far end the canceller was given for each chunk (``far.wav``, sample for sample) and the
trials' times. This runs today's :class:`~referee.speech.echo.EchoCanceller` over them
again, scores the result as the bench does, and prints per trial what whisper read and the
cleaned level around the call, so each miss can be told apart: the call suppressed, glued
to echo residue, or read as something else. ``--dump`` writes each trial's cleaned audio.

    python -m bench.echo.offline DIR/quiet [--dump OUT]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from bench.echo.run import score
from referee.speech.audio import read_wav, write_wav
from referee.speech.echo import EchoCanceller
from referee.speech.types import SAMPLE_RATE

CHUNK = 320


def clean_again(raw: np.ndarray, far: np.ndarray, **options) -> np.ndarray:
    canceller = EchoCanceller(**options)
    out = [canceller.process(raw[i : i + CHUNK], far[i : i + CHUNK])
           for i in range(0, len(raw) - CHUNK + 1, CHUNK)]  # fmt: skip
    return np.concatenate(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--dump", type=Path, help="write each trial's cleaned audio here")
    parser.add_argument("--as-recorded", action="store_true", help="score clean.wav as kept")
    parser.add_argument("--suppress-db", type=int, help="the residual echo suppressor's depth")
    parser.add_argument("--active-db", type=int, help="...and while someone talks over it")
    args = parser.parse_args()
    raw = read_wav(args.folder / "raw.wav", check=False)
    far = read_wav(args.folder / "far.wav", check=False)
    summary = json.loads((args.folder / "trials.json").read_text())
    if args.as_recorded:
        clean = read_wav(args.folder / "clean.wav", check=False)
    else:
        options = {"suppress_db": args.suppress_db, "active_db": args.active_db}
        options = {k: v for k, v in options.items() if v is not None}
        clean = clean_again(raw, far, **options)
    result = score(clean, raw, summary)
    index, at = np.array(summary["stamps"]["index"]), np.array(summary["stamps"]["at"])
    trials = [t for t in summary["trials"] if t["said_at"] is not None]
    for k, (trial, row) in enumerate(zip(trials, result["trials"], strict=True)):
        begins = float(np.interp(trial["said_at"], at, index))
        a, b = int(begins), int(begins + 2.8 * SAMPLE_RATE)
        if args.dump:
            args.dump.mkdir(parents=True, exist_ok=True)
            write_wav(args.dump / f"trial{k:02d}.wav", clean[a:b])
        frames = clean[a:b][: (b - a) // CHUNK * CHUNK].reshape(-1, CHUNK)
        db = 10 * np.log10(np.mean(frames.astype(np.float64) ** 2, axis=1) + 1e-12)
        loud = np.flatnonzero(db > -50) * CHUNK / SAMPLE_RATE
        spans = f"{loud[0]:.2f}..{loud[-1]:.2f}" if len(loud) else "-"
        mark = {True: "ok  ", False: "MISS"}.get(row.get("taken"), "echo")
        print(f"{k:2d} {mark} {row.get('text')!s:12} onset {row.get('onset_s')!s:6} "
              f"loud>-50 {spans:11} heard {row['heard']}")  # fmt: skip
    print({k: v for k, v in result.items() if k not in ("trials", "canceller")})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
