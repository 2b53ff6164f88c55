"""Whole games in the room: ``referee play --mic pulse`` against the simulated table.

    nice -n 10 .venv/bin/python -m bench.table                  # one game per condition
    .venv/bin/python -m bench.table --conditions quiet --seeds 0,16 --code /tmp/old-tree

Each game runs in real time in a private PulseAudio room (tests/room.py): quiet, with
kitchen noise (doing the dishes) at 20 dB below the players, or babble of three other
talkers at 15 dB. The table (tests/table.py) plays a dealt game to its end; the engine fed
the truth says what the referee should say. Timings are read from the room's recording:
the end of a player's words, the referee's JSON line arriving, its voice starting.
Writes results.md and results.json here (or under --out).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CONDITIONS = {"quiet": ("quiet", 0.0), "noise 20 dB": ("noise", 20.0),
              "babble 15 dB": ("babble", 15.0)}  # fmt: skip


def play_game(
    condition: str,
    seed: int,
    work: Path,
    code: Path | None,
    log,
    data: Path | None = None,
    ears: bool = False,
    voices: bool = False,
    backend: str | None = None,
    seated: str = "usual",
    rt60: float | None = None,
) -> dict:
    from tests.room import PulseRoom
    from tests.table import TABLES, Table, TableGame, background, seat_rooms

    kind, snr = CONDITIONS[condition]
    extra: tuple[str, ...] = ("--ears-out", str(work / "ears.wav")) if ears else ()
    if voices:
        extra += ("--voices", enrol(work, data or work / "data", code, seated))
    if backend:
        extra += ("--backend", backend)
    with PulseRoom() as room:
        game = TableGame(players=tuple(TABLES[seated]), seed=seed)
        bed = background(kind, seconds=60.0, seed=seed)
        rooms = seat_rooms(game.players, rt60, seed) if rt60 else None
        table = Table(room, game, work, voices=TABLES[seated], condition=condition, bed=bed,
                      snr_db=snr, log=log, code=code, data=data, extra=extra,
                      rooms=rooms)  # fmt: skip
        result = table.play()
    np.save(work / "room.npy", result.recording.astype(np.float16))
    out = result.to_dict()
    out["seed"] = seed
    (work / "game.json").write_text(json.dumps(out, indent=1))
    return out


#: what each player says to be enrolled, as `referee calibrate voices` asks
ENROL = ("{name}.", "cheat!", "two aces.")


def enrol(work: Path, data: Path, code: Path | None, seated: str = "usual") -> str:
    """The table's voices enrolled in ``data`` (`referee calibrate voices --from`), each
    player saying their name, "cheat" and a claim as the table's voice says them (clean, not
    through the room); the profile's name."""
    from referee.speech.audio import write_wav
    from tests.table import TABLES, speak

    voices = TABLES[seated]
    players = tuple(voices)
    folder = work / "enrol"
    folder.mkdir(parents=True, exist_ok=True)
    for player in players:
        for i, text in enumerate(ENROL):
            write_wav(
                folder / f"{player}-{i + 1}.wav", speak(voices[player], text.format(name=player))
            )
    env = {**os.environ, "REFEREE_DATA_DIR": str(data)}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    done = subprocess.run(
        [sys.executable, "-m", "referee", "calibrate", "voices", "--players", ",".join(players),
         "--from", str(folder), "--name", "table"],
        env=env, cwd=code, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    (work / "enrol.txt").write_text(done.stdout + done.stderr)
    if done.returncode:
        raise RuntimeError(f"calibrate voices failed: {done.stderr[-500:]}")
    return "table"


#: which latency a right move's reply counts in
KEYS = {"claim": "claim", "call": "call", "name": "call", "call_name": "call",
        "bare_call": "call"}  # fmt: skip


def _first_say(step: dict) -> float | None:
    return next((r["at"] for r in step["replies"] if "say" in r), None)


def _credited_at_once(step: dict) -> bool:
    """A bare call the referee answered with the call itself (``--voices``: credited to
    its caller's voice), not with "Who called?"."""
    first = next((r for r in step["replies"] if "say" in r), {})
    return step["kind"] == "bare_call" and first.get("kind") == "call"


def _bare_call_right(steps: list[dict], i: int) -> bool:
    """Whether the bare call ``steps[i]`` was right the first time: credited to its caller
    at once (``--voices``), or answered "Who called?" and the name that answered it taken
    the first time. (Before 2026-12-05 every name taken the first time counted, also one
    answering the call said again after a first saying taken wrongly or unheard.)"""
    step = steps[i]
    if step["kind"] != "bare_call" or step["attempt"] != 1 or step["outcome"] != "right":
        return False
    if _credited_at_once(step):
        return True
    answer = next((s for s in steps[i + 1 :] if s["kind"] != "undo"), None)
    return (
        answer is not None
        and answer["kind"] == "name"
        and answer["attempt"] == 1
        and answer["outcome"] == "right"
    )


def score(game: dict) -> dict:
    """The game's numbers: each move is scored on its first saying."""
    steps = game["steps"]
    firsts = [s for s in steps if s["attempt"] == 1 and s["kind"] != "undo"]
    claims = [s for s in firsts if s["kind"] == "claim"]
    calls = [s for s in firsts if s["kind"] in ("call", "bare_call")]
    bare_ok = sum(_bare_call_right(steps, i) for i in range(len(steps)))
    calls_right = sum(s["outcome"] == "right" for s in calls if s["kind"] == "call") + bare_ok
    lat: dict[str, list[float]] = {"claim_voice": [], "claim_line": [], "claim_speak": [],
                                   "call_line": [], "call_voice": []}  # fmt: skip
    for s in steps:
        line_at = _first_say(s)
        if s["outcome"] != "right" or line_at is None:
            continue
        key = KEYS.get(s["kind"], "")
        if not key:
            continue
        if s["kind"] == "bare_call" and not _credited_at_once(s):
            continue  # "Who called?": the call is timed at the name that answers it
        lat[f"{key}_line"].append(line_at - s["end"])
        if s["voice_at"] is not None:
            lat[f"{key}_voice"].append(s["voice_at"] - s["end"])
            if key == "claim":
                lat["claim_speak"].append(s["voice_at"] - line_at)
    verdicts = game["verdicts"]
    return {
        "condition": game["condition"], "seed": game["seed"], "derailed": game["derailed"],
        "claims": len(claims), "claims_right": sum(s["outcome"] == "right" for s in claims),
        "calls": len(calls), "calls_right": calls_right,
        "verdicts": len(verdicts), "verdicts_right": sum(v["said"] == v["expected"]
                                                           for v in verdicts),
        "finished": game["winner"] is not None,
        "winner_right": game["winner"] is not None and game["winner"] == game["expected_winner"],
        "calls_given_up": len(game.get("given_up", [])),
        "invented": game.get("strays", 0),
        "said_again": sum(s["attempt"] > 1 and s["kind"] != "undo" for s in steps),
        "undos_said": sum(s["kind"] == "undo" for s in steps),
        "start_line": _minus(game["first_line_at"], game["launched"]),
        "start_voice": _minus(game["first_voice_at"], game["launched"]),
        "latency": lat,
    }  # fmt: skip


def seating(table: str) -> str:
    """Who sits at ``table``, in words: "table 'usual': Alice: piper's joe, pitch x1.28,
    length x1.0; ...; Dev: espeak-ng en-gb-x-rp, 150 wpm, pitch 40"."""
    from tests.table import TABLES

    said = []
    for name, voice in TABLES[table].items():
        if voice.engine == "piper":
            said.append(f"{name}: piper's joe, pitch x{voice.pitch}, length x{voice.speed}")
        else:
            wpm, pitch = f"{voice.speed:g} wpm", f"pitch {voice.pitch:g}"
            said.append(f"{name}: espeak-ng {voice.name}, {wpm}, {pitch}")
    return f"table '{table}': " + "; ".join(said)


def _minus(a: float | None, b: float) -> float | None:
    return None if a is None else round(a - b, 2)


def _pct(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.0f}%)" if n else "-"


def _p(values: list[float], q: float) -> str:
    return f"{np.percentile(values, q):.2f}" if values else "-"


def report(scores: list[dict], meta: dict) -> str:
    lines = [
        "# Whole games in the room (bench/table)", "",
        f"Rerun: `{meta['command']}`", "",
        f"Run {meta['date']} on {meta['machine']} (load average {meta['load']} over 5 min: "
        "the referee shares them with other work, so its decoding waits for a core), "
        f"{meta['seconds']:.0f} s, code at {meta['code']}. Four players ({meta['table']}; "
        f"the room {meta.get('room', 'dry')}), "
        "classic rules, one deck, "
        "the referee as `referee play --mic pulse --json --no-window --keys --frames DIR` in "
        "a private PulseAudio room, its voice through aplay into the same room. Each move is "
        "scored on its first saying; a mishearing is undone and the line said again, as at a "
        "real table; a call still not taken after four tries is given up and the game goes "
        "on; a player the referee warns may be misheard calls by seat ('cheat, player four!'). "
        "The games share one data folder (one laptop, evening after evening): the names "
        "check of the first game is read back by the others, unless --fresh. "
        "Latency: from the end of the words (found in the room's recording) to "
        "the referee's JSON line (decided) and to its voice starting (in the recording).", "",
        "| condition | seed | claims right 1st time | calls right 1st time (caller) | "
        "verdicts right | winner right | lines said again | undos said | calls given up | "
        "taken though nobody said it | derailed |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for s in scores:
        lines.append(
            f"| {s['condition']} | {s['seed']} | {_pct(s['claims_right'], s['claims'])} | "
            f"{_pct(s['calls_right'], s['calls'])} | {_pct(s['verdicts_right'], s['verdicts'])}"
            f" | {'yes' if s['winner_right'] else 'no' if s['finished'] else 'unfinished'} | "
            f"{s['said_again']} | {s['undos_said']} | {s['calls_given_up']} | "
            f"{s.get('invented', 0)} | {s['derailed'] or 'no'} |"
        )
    lines += [
        "", "Latency (seconds; p50 / p95 / max) and start-up (launch to first line, and to "
        "first sound of the voice):", "",
        "| condition | claim: words end to voice | claim: words end to line | claim: line to "
        "voice | call: words end to line | call: words end to voice | start-up: line / voice |",
        "|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for s in scores:
        lat = s["latency"]

        def cell(key: str, lat=lat) -> str:
            v = lat[key]
            return f"{_p(v, 50)} / {_p(v, 95)} / {max(v):.2f} (n={len(v)})" if v else "-"

        lines.append(
            f"| {s['condition']} | {cell('claim_voice')} | {cell('claim_line')} | "
            f"{cell('claim_speak')} | {cell('call_line')} | {cell('call_voice')} | "
            f"{s['start_line']} / {s['start_voice']} |"
        )
    lines += ["", "Each game's moves, the referee's lines and timings: `results.json`."]
    return "\n".join(lines) + "\n"


def rescore(path: Path) -> int:
    """``path``'s games scored again, the results (json and md) written over it."""
    results = json.loads(path.read_text())
    results["scores"] = [score(game) for game in results["games"]]
    path.write_text(json.dumps(results, indent=1))
    path.with_suffix(".md").write_text(report(results["scores"], results["meta"]))
    return 0


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from tests.table import TABLES

    parser = argparse.ArgumentParser(prog="python -m bench.table")
    parser.add_argument("--conditions", default=",".join(CONDITIONS))
    parser.add_argument("--seeds", default="0", help="games per condition, by deal seed")
    parser.add_argument("--code", type=Path, help="run the referee from this tree instead")
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument(
        "--ears",
        action="store_true",
        help="keep what the referee's ears heard in each game's folder "
        "(ears.wav, ears.wav.jsonl: referee play --ears-out)",
    )
    parser.add_argument("--voices", action="store_true",
                        help="enrol the table's voices first (referee calibrate voices --from) "
                        "and play with --voices: a bare call credited by its voice")  # fmt: skip
    parser.add_argument("--backend", help="the referee's speech backend (play --backend)")
    parser.add_argument("--table", default="usual", choices=tuple(TABLES),
                        help="who sits at the table (tests/table.py TABLES): the usual four, "
                        "or four strangers with other names and voices")  # fmt: skip
    parser.add_argument("--rt60", type=float,
                        help="the players speak in a reverberant room of this RT60 (seconds, "
                        "as pyroomacoustics' Sabine estimate; its tails measure ~0.15 s "
                        "longer), each seat its own impulse response to the laptop "
                        "(tests/table.py seat_rooms); else dry")  # fmt: skip
    parser.add_argument("--fresh", action="store_true",
                        help="a new data folder for every game (else the games share one, "
                        "as one laptop does: the names check is kept from the first)")  # fmt: skip
    parser.add_argument("--rescore", type=Path, metavar="RESULTS_JSON",
                        help="score the games of a results.json again (this scoring), and "
                        "write its results.md beside it: no games are played")  # fmt: skip
    args = parser.parse_args(argv)
    if args.rescore:
        return rescore(args.rescore)
    # stopped with kill (SIGINT is ignored in a background job): the rooms and referees
    # still end, as on Ctrl-C
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    unknown = [c for c in conditions if c not in CONDITIONS]
    if unknown:
        parser.error(f"unknown conditions {unknown}: {', '.join(CONDITIONS)}")
    seeds = [int(x) for x in args.seeds.split(",")]
    tree = args.code or ROOT
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "referee"],
                           capture_output=True, text=True).stdout.strip()  # fmt: skip
    code = commit + (" with uncommitted changes" if dirty else "")
    if args.code:  # a tree of its own: `git archive COMMIT | tar -x -C DIR` writes no COMMIT file
        label = args.code / "COMMIT"
        code = f"{args.code} ({label.read_text().strip() if label.is_file() else 'a tree'})"
    began = time.monotonic()
    load_before = os.getloadavg()[1]
    games, scores = [], []
    scratch = Path(tempfile.mkdtemp(prefix="referee-bench-table-"))
    for condition in conditions:
        for seed in seeds:
            work = scratch / f"{condition.replace(' ', '-')}-{seed}"
            work.mkdir(parents=True)
            print(f"== {condition}, seed {seed} ({work})", flush=True)
            data = None if args.fresh else scratch / "data"  # one laptop, game after game
            game = play_game(condition, seed, work, args.code, sys.stdout, data, args.ears,
                             args.voices, args.backend, args.table, args.rt60)  # fmt: skip
            games.append(game)
            scores.append(score(game))
            print(json.dumps({k: v for k, v in scores[-1].items() if k != "latency"}), flush=True)
    meta = {
        "command": "nice -n 10 .venv/bin/python -m bench.table"
        + ("" if argv is None and len(sys.argv) == 1 else " " + " ".join(argv or sys.argv[1:])),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, 2 shared cores", "code": code,
        "seconds": time.monotonic() - began, "tree": str(tree),
        "load": f"{load_before:.1f} to {os.getloadavg()[1]:.1f}",
        "table": seating(args.table),
        "room": f"reverberant, RT60 {args.rt60:g} s (Sabine)" if args.rt60 else "dry",
    }  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps({"meta": meta, "scores": scores,
                                                       "games": games}, indent=1))  # fmt: skip
    (args.out / "results.md").write_text(report(scores, meta))
    print(report(scores, meta))
    return 0
