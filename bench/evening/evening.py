"""A long evening at the table: how replay and resume scale with the number of events.

``python -m bench.evening [--events 500,2000,20000] [--seed 0]`` writes a transcript of a
whole evening (four players, game after game: claims of the rank due, calls now and then,
the called cards shown, an occasional "undo", "new game" when a game is over), then times
``referee replay`` on it with a journal, and ``referee replay --resume`` of that journal
(an empty transcript: the resume alone), each in a fresh process: wall time and peak
memory (max RSS). The transcript is made by driving a real Session, so every line is what
the engine would accept at that moment.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.game.cards import RANKS, SUITS, rank_name
from referee.game.engine import legal_ranks
from referee.game.rules import rules_from
from referee.session import Session

PLAYERS = ("Alice", "Ben", "Cara", "Dev")
COUNT = {1: "one", 2: "two", 3: "three", 4: "four"}


def transcript(events: int, seed: int = 0) -> list[dict]:
    """Transcript lines that make ``events`` accepted events (undos not counted)."""
    rng = random.Random(seed)
    session = Session.start(PLAYERS, rules_from("classic", []))
    lines: list[dict] = []

    def hear(text: str) -> None:
        lines.append({"heard": text})
        session.hear(text)

    while len(session.match.events) < events:
        s = session.state
        if s.phase == "over":
            hear("new game")
        elif s.phase == "reveal":
            claimed = s.pile[s.challenged].rank if s.challenged is not None else "A"
            honest = rng.random() < 0.5
            count = s.pile[s.challenged].count if s.challenged is not None else 1
            ranks = (
                [claimed] * count if honest else [rng.choice([r for r in RANKS if r != claimed])]
            )
            ranks += [claimed] * (count - len(ranks))
            cards = [f"{r}{rng.choice(SUITS)}" for r in ranks]
            lines.append({"saw": cards})
            from referee.game.cards import parse_card

            session.see([parse_card(c) for c in cards])
        elif s.phase == "who_called":
            hear(rng.choice([p for p in PLAYERS if p != PLAYERS[s.turn]]))
        elif s.callable and rng.random() < 0.12:
            claimer = s.pile[s.callable[-1]].seat
            caller = rng.choice([p for i, p in enumerate(PLAYERS) if i != claimer])
            hear(f"{caller} calls cheat")
        elif session.match.events and rng.random() < 0.01:
            hear("undo")
        else:
            rank = legal_ranks(s)[0]
            count = rng.randint(1, max(1, min(4, s.hands[s.turn])))
            hear(f"{COUNT[count]} {rank_name(rank, count)}")
    session.close()
    return lines


def _timed(cmd: list[str], env: dict[str, str], folder: Path) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds, peak MB, stdout's last line) of one fresh process."""
    out_path, err_path = folder / "out.txt", folder / "err.txt"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        began = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - began
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed: {err_path.read_text()[-2000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss / 1024, out_path.read_text().splitlines()[-1]


def measure(events: int, seed: int, folder: Path) -> dict:
    lines = transcript(events, seed)
    path = folder / f"evening-{events}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    journal = folder / f"journal-{events}.jsonl"
    empty = folder / "empty.jsonl"
    empty.write_text("")
    env = {**os.environ, "REFEREE_DATA_DIR": str(folder / "data")}
    cmd = [sys.executable, "-m", "referee", "replay"]
    replay_s, replay_cpu, replay_mb, replay_last = _timed(
        [*cmd, str(path), "--players", ",".join(PLAYERS), "--journal", str(journal)], env, folder
    )
    resume_s, resume_cpu, resume_mb, resume_last = _timed(
        [*cmd, str(empty), "--resume", "--journal", str(journal)], env, folder
    )
    same = json.loads(replay_last) == json.loads(resume_last)
    games = json.loads(resume_last)["state"]["game"]
    return {"events": events, "lines": len(lines), "games": games, "replay_s": replay_s,
            "replay_cpu_s": replay_cpu, "replay_mb": replay_mb, "resume_s": resume_s,
            "resume_cpu_s": resume_cpu, "resume_mb": resume_mb,
            "resume_equals_replay": same}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.evening", description=__doc__)
    parser.add_argument("--events", default="500,1000,2000,4000,20000")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print("| events | lines | games | replay s (CPU) | replay MB | resume s (CPU) | resume MB "
          "| resume = replay |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(x) for x in args.events.split(",")):
            r = measure(n, args.seed, Path(tmp))
            print(f"| {r['events']} | {r['lines']} | {r['games']} | {r['replay_s']:.1f} "
                  f"({r['replay_cpu_s']:.1f}) | {r['replay_mb']:.0f} | {r['resume_s']:.1f} "
                  f"({r['resume_cpu_s']:.1f}) | {r['resume_mb']:.0f} | "
                  f"{'yes' if r['resume_equals_replay'] else 'NO'} |", flush=True)  # fmt: skip
    return 0
