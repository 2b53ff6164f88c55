"""kill -9 at random points of a replay with a score database, then resume: the same final
state and the same stored games as one uninterrupted run, none twice (issue 17: keep what
already holds)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.evening.evening import PLAYERS, transcript
from referee.store import Store

CMD = [sys.executable, "-m", "referee", "replay"]


def events_in(journal: Path) -> int:
    if not journal.exists():
        return 0
    lines = journal.read_bytes().split(b"\n")[1:-1]  # whole lines: a kill may cut the last
    return sum(1 for line in lines if line.startswith(b'{"event"'))


def stored(db: Path) -> list[tuple[int, str | None]]:
    with Store.open(db) as store:
        [match] = store.matches()
        return [(r.game, r.winner) for r in store.records(match.id)]


def test_kill_at_random_points_then_resume_equals_the_uninterrupted_run(tmp_path):
    lines = [json.dumps(x) for x in transcript(110, seed=3)]
    env = {**os.environ, "REFEREE_DATA_DIR": str(tmp_path / "data")}
    whole = tmp_path / "whole.jsonl"
    whole.write_text("\n".join(lines) + "\n")
    straight = subprocess.run(
        [*CMD, str(whole), "--players", ",".join(PLAYERS), "--journal", str(tmp_path / "s.jsonl"),
         "--db", str(tmp_path / "straight.db")],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    expected = json.loads(straight.stdout.splitlines()[-1])["state"]
    assert events_in(tmp_path / "s.jsonl") == len(lines)  # every line is one event
    assert len(stored(tmp_path / "straight.db")) >= 3
    for k in sorted(random.Random(17).sample(range(3, len(lines) - 3), 3)):
        journal, db = tmp_path / f"j{k}.jsonl", tmp_path / f"k{k}.db"
        fifo = tmp_path / f"feed{k}"
        os.mkfifo(fifo)
        proc = subprocess.Popen(
            [*CMD, str(fifo), "--players", ",".join(PLAYERS), "--journal", str(journal),
             "--db", str(db)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        with open(fifo, "w") as feed:
            for line in lines[:k]:
                feed.write(line + "\n")
            feed.flush()
            deadline = time.time() + 60
            while events_in(journal) < k and time.time() < deadline:
                time.sleep(0.02)
            feed.write(lines[k] + "\n")  # the kill lands while this one is being applied
            feed.flush()
            time.sleep(random.Random(k).random() * 0.01)
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        rest = tmp_path / f"rest{k}.jsonl"
        rest.write_text("".join(line + "\n" for line in lines[events_in(journal) :]))
        resumed = subprocess.run(
            [*CMD, str(rest), "--resume", "--journal", str(journal), "--db", str(db)],
            env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert json.loads(resumed.stdout.splitlines()[-1])["state"] == expected, k
        assert stored(db) == stored(tmp_path / "straight.db"), k
