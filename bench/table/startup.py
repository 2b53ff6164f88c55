"""Start-up in the room: launch to the first line and to the first sound of the voice.

    .venv/bin/python -m bench.table.startup --runs 5            # idle cores
    .venv/bin/python -m bench.table.startup --runs 5 --load 4   # four busy loops beside it

Each run starts ``referee play --mic pulse`` (as bench/table does) in a private PulseAudio
room with a fresh data folder (so the names check runs too, the slowest start), optionally
over kitchen noise (``--bed noise``) and beside ``--load`` busy Python processes (the other
programs of a laptop, or a table's voices being rendered), and reads the room's recording:
when the greeting's line came and its voice began, the longest silence inside its first
sentence (a player takes a long one as the referee having finished), and the playback
underruns the referee reported (ALSA's ``underrun occurred``). Writes startup.md here (or
``--out``).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: how long each run listens after launch (the greeting takes about 4 s to say)
LISTEN_S = 12.0
#: the voice is sounding in a 10 ms block whose peak is above this (the right channel holds
#: the referee alone)
VOICE_PEAK = 0.003


def longest_gap(right: np.ndarray, start: float, seconds: float, rate: int) -> float:
    """The longest silence (s) of the voice between ``start`` and ``start + seconds``,
    counted only between sounds (not after the last one)."""
    block = rate // 100
    part = np.abs(right[int(start * rate) : int((start + seconds) * rate)])
    n = len(part) // block
    if n == 0:
        return 0.0
    loud = part[: n * block].reshape(n, block).max(axis=1) > VOICE_PEAK
    idx = np.flatnonzero(loud)
    if len(idx) < 2:
        return 0.0
    return float((np.diff(idx).max() - 1) / 100)


def one_run(work: Path, code: Path | None, bed_kind: str) -> dict:
    from tests.room import RATE, PulseRoom, onsets
    from tests.table import PLAYERS, Bed, Referee, background

    (work / "frames").mkdir(parents=True)
    with PulseRoom() as room:
        rec = room.recorder()
        bed = Bed(room, background(bed_kind), 20.0) if bed_kind != "quiet" else None
        time.sleep(1.0)
        referee = Referee(room, rec, work, PLAYERS, work / "frames", code=code)
        time.sleep(LISTEN_S)
        audio = rec.audio()
        referee.quit()
        if bed is not None:
            bed.stop()
    right = audio[:, 1]
    voice = onsets(right)
    first_voice = voice[0][0] if voice else None
    first_line = referee.all[0].at if referee.all else None
    played = next((s.line for s in referee.all if "played" in s.line), {})
    stderr = (work / "referee.stderr").read_text(errors="replace")
    greeting = played["ended"] - played["started"] if "started" in played else None
    return {
        "line": None if first_line is None else round(first_line - referee.launched, 2),
        "voice": None if first_voice is None else round(first_voice - referee.launched, 2),
        "greeting_s": None if greeting is None else round(greeting, 2),
        "gap": longest_gap(right, first_voice, 3.5, RATE) if first_voice is not None else None,
        "underruns": stderr.count("underrun occurred"),
    }


def busy(n: int) -> list[subprocess.Popen]:
    loop = "while True: sum(range(10000))"
    return [subprocess.Popen([sys.executable, "-c", loop]) for _ in range(n)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.table.startup", description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--load", type=int, default=0, help="busy processes beside it")
    parser.add_argument("--bed", default="quiet", choices=("quiet", "noise", "babble"))
    parser.add_argument("--code", type=Path, help="run the referee from this tree instead")
    parser.add_argument("--out", type=Path, default=HERE / "startup.md")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    t0 = time.time()
    loads = busy(args.load)
    runs = []
    try:
        for i in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="referee-startup-") as tmp:
                runs.append(one_run(Path(tmp), args.code, args.bed))
            print(f"run {i + 1}/{args.runs}: {runs[-1]}", flush=True)
    finally:
        for p in loads:
            p.kill()
    text = report(runs, args, time.time() - t0)
    args.out.write_text(text)
    print(text)
    return 0


def _stats(values: list) -> str:
    got = [v for v in values if v is not None]
    if not got:
        return "-"
    return f"{np.median(got):.2f} / {max(got):.2f}"


def report(runs: list[dict], args: argparse.Namespace, seconds: float) -> str:
    command = " ".join(["python -m bench.table.startup", *sys.argv[1:]])
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    rows = "\n".join(
        f"| {i + 1} | {r['line']} | {r['voice']} | {r['greeting_s']} | {r['gap']} | "
        f"{r['underruns']} |" for i, r in enumerate(runs)
    )  # fmt: skip
    return f"""# Start-up in the room (bench/table/startup.py)

Rerun: `{command}`

Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.machine()}, {os.cpu_count()} cores \
(load average {load} at the end), {seconds:.0f} s, code at {args.code or ROOT}; {args.load} \
busy processes beside it, background: {args.bed}. Each run: a fresh data folder (the names \
check runs), `referee play --mic pulse --json --no-window --keys --frames DIR`, the room \
recorded {LISTEN_S:.0f} s. Target (issue 19): first sentence within 5 s of launch.

| | median / max |
|---|---|
| launch to the first line (s) | {_stats([r["line"] for r in runs])} |
| launch to the first sound of the voice (s) | {_stats([r["voice"] for r in runs])} |
| the greeting's sentence, start to end as played (s) | \
{_stats([r["greeting_s"] for r in runs])} |
| longest silence in the voice's first 3.5 s (s) | {_stats([r["gap"] for r in runs])} |
| playback underruns reported | {_stats([r["underruns"] for r in runs])} |

| run | line (s) | voice (s) | greeting played (s) | longest silence (s) | underruns |
|---|---|---|---|---|---|
{rows}
"""


if __name__ == "__main__":
    raise SystemExit(main())
