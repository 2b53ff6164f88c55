"""The ``referee replay`` contract: JSONL in, say-lines and a final state out."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from referee.cli import main

DATA = Path(__file__).parent / "data"
PLAYERS = "Alice,Ben,Cara,Dev"


def replay(capsys, lines: list[dict | str], *args: str, tmp: Path) -> tuple[list[dict], str, int]:
    path = tmp / "events.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    code = main(["replay", str(path), *args])
    captured = capsys.readouterr()
    out = [json.loads(line) for line in captured.out.splitlines()]
    return out, captured.err, code


def test_the_worked_match_of_rules_md(capsys, tmp_path):
    code = main(["replay", str(DATA / "worked_match.jsonl"), "--players", PLAYERS])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 0
    state = lines[-1]["state"]
    assert state["wins"] == {"Alice": 2, "Ben": 1, "Cara": 0, "Dev": 0}
    assert state["game"] == 3 and state["winner"] == "Alice"
    says = [x["say"] for x in lines if "say" in x]
    assert "Three, two tens and queen: Cara lied. Cara picks up the pile, forty cards." in says
    assert "Ben is out. Ben wins game 2." in says


def test_state_has_the_contract_fields(capsys, tmp_path):
    out, _, code = replay(capsys, [{"heard": "two aces"}], "--players", PLAYERS, tmp=tmp_path)
    assert code == 0
    state = out[-1]["state"]
    for key in (
        "players",
        "turn",
        "rank_due",
        "pile",
        "hands",
        "out_of_play",
        "winner",
        "game",
        "wins",
    ):
        assert key in state
    assert state["turn"] == "Ben" and state["rank_due"] == "2" and state["pile"] == 2
    assert state["hands"] == {"Alice": 11, "Ben": 13, "Cara": 13, "Dev": 13}
    assert all("say" in x for x in out[:-1])


def test_numbers_as_digits_and_singular_ranks(capsys, tmp_path):
    out, _, _ = replay(
        capsys,
        [{"heard": "2 aces"}, {"heard": "a two"}, {"heard": "one three"}],
        "--players",
        PLAYERS,
        tmp=tmp_path,
    )
    assert out[-1]["state"]["pile"] == 4 and out[-1]["state"]["rank_due"] == "4"


def test_bad_lines_are_named_and_skipped_and_nothing_is_lost(capsys, tmp_path):
    lines = [
        {"heard": "two aces"},
        "this is not json",
        [1, 2],
        {"saw": ["XX"]},
        {"t": "soon", "heard": "one two"},
        {"heard": "one two"},
    ]
    out, err, code = replay(capsys, lines, "--players", PLAYERS, tmp=tmp_path)
    assert code == 0
    assert "line 2" in err and "line 3" in err and "line 4" in err and "line 5" in err
    assert out[-1]["state"]["pile"] == 3


def test_rules_and_settings_flags(capsys, tmp_path):
    out, _, _ = replay(
        capsys, [{"heard": "two queens"}], "--players", PLAYERS, "--rules", "german", tmp=tmp_path
    )
    assert out[-1]["state"]["rank_due"] == "Q"
    out, _, _ = replay(
        capsys, [{"heard": "pass"}], "--players", PLAYERS, "--set", "passing=always", tmp=tmp_path
    )
    assert out[-1]["state"]["turn"] == "Ben"
    out, err, code = replay(
        capsys, [], "--players", PLAYERS, "--set", "passing=sometimes", tmp=tmp_path
    )
    assert code == 2 and "passing must be one of" in err


def test_missing_players_and_missing_file_are_clear(capsys, tmp_path):
    assert main(["replay", str(tmp_path / "nope.jsonl"), "--players", PLAYERS]) == 2
    assert "no such events file" in capsys.readouterr().err
    (tmp_path / "e.jsonl").write_text("")
    assert main(["replay", str(tmp_path / "e.jsonl")]) == 2
    assert "--players" in capsys.readouterr().err


def test_undo_takes_back_the_last_event(capsys, tmp_path):
    out, _, _ = replay(
        capsys, [{"heard": "two aces"}, {"heard": "undo"}], "--players", PLAYERS, tmp=tmp_path
    )
    assert out[-1]["state"]["pile"] == 0 and out[-1]["state"]["turn"] == "Alice"


def test_resume_continues_from_the_journal(capsys, tmp_path):
    journal = tmp_path / "j.jsonl"
    replay(
        capsys,
        [{"heard": "two aces"}, {"heard": "one two"}],
        "--players",
        PLAYERS,
        "--journal",
        str(journal),
        tmp=tmp_path,
    )
    out, _, _ = replay(
        capsys, [{"heard": "three threes"}], "--resume", "--journal", str(journal), tmp=tmp_path
    )
    state = out[-1]["state"]
    assert state["pile"] == 6 and state["turn"] == "Dev"


def test_a_game_killed_mid_replay_resumes_exactly(tmp_path):
    """Kill the process part-way through a game fed line by line; resuming it with the rest
    of the lines gives exactly the state of an uninterrupted replay."""
    lines = [
        json.dumps({"heard": phrase})
        for phrase in ["two aces", "one two", "three threes", "Ben calls cheat", "pass"]
    ]
    lines += [
        json.dumps({"saw": ["3H", "3S", "KD"]}),
        json.dumps({"heard": "one four"}),
        json.dumps({"heard": "two fives"}),
    ]
    env = {**os.environ, "REFEREE_DATA_DIR": str(tmp_path)}
    journal = tmp_path / "journal.jsonl"
    fifo = tmp_path / "feed"
    os.mkfifo(fifo)
    cmd = [sys.executable, "-m", "referee", "replay"]
    proc = subprocess.Popen(
        [*cmd, str(fifo), "--players", PLAYERS, "--journal", str(journal)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with open(fifo, "w") as feed:
        for line in lines[:5]:
            feed.write(line + "\n")
            feed.flush()
        deadline = time.time() + 60  # header + four accepted events ("pass" is refused)
        while time.time() < deadline and (
            not journal.exists() or len(journal.read_text().splitlines()) < 5
        ):
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    rest = tmp_path / "rest.jsonl"
    rest.write_text("\n".join(lines[5:]) + "\n")
    resumed = subprocess.run(
        [*cmd, str(rest), "--resume", "--journal", str(journal)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    whole = tmp_path / "whole.jsonl"
    whole.write_text("\n".join(lines) + "\n")
    straight = subprocess.run(
        [*cmd, str(whole), "--players", PLAYERS, "--journal", str(tmp_path / "other.jsonl")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    final = json.loads(resumed.stdout.splitlines()[-1])["state"]
    assert final == json.loads(straight.stdout.splitlines()[-1])["state"]
    assert final["hands"]["Cara"] == 10 + 6 and final["pile"] == 3


def test_a_half_written_journal_line_is_dropped_on_resume(capsys, tmp_path):
    journal = tmp_path / "j.jsonl"
    replay(
        capsys,
        [{"heard": "two aces"}],
        "--players",
        PLAYERS,
        "--journal",
        str(journal),
        tmp=tmp_path,
    )
    with open(journal, "a") as f:
        f.write('{"event":"claim","cou')  # the kill landed mid-write
    out, _, code = replay(
        capsys, [{"heard": "one two"}], "--resume", "--journal", str(journal), tmp=tmp_path
    )
    assert code == 0 and out[-1]["state"]["pile"] == 3
    out, _, code = replay(capsys, [], "--resume", "--journal", str(journal), tmp=tmp_path)
    assert code == 0 and out[-1]["state"]["pile"] == 3
