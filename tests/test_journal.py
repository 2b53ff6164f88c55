"""Nothing of a game is lost or silently changed: one journal per match, a damaged end
repaired before anything is appended, a hash chain that names an edited line, and journal
paths or lines that cannot be a journal refused with a message (issue 17, cases 1-3, 6, 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.cli import main
from referee.game.engine import legal_ranks
from referee.game.events import Claim
from referee.game.rules import Rules
from referee.session import Session

PLAYERS = "Alice,Ben,Cara,Dev"


def replay(capsys, tmp: Path, lines: list[dict | str], *args: str) -> tuple[list[dict], str, int]:
    path = tmp / "events.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    code = main(["replay", str(path), *args])
    captured = capsys.readouterr()
    out = [json.loads(line) for line in captured.out.splitlines()]
    return out, captured.err, code


def state(out: list[dict]) -> dict:
    return out[-1]["state"]


def games_of(folder: Path) -> list[list[str]]:
    """The players of every journal in a folder (and under it)."""
    found = []
    for path in sorted(folder.rglob("*.jsonl*")):
        first = path.read_text().split("\n", 1)[0]
        if first.startswith("{"):
            found.append(json.loads(first).get("players"))
    return found


# --- 1. a new game never destroys an unfinished one --------------------------------------


def test_new_games_on_one_journal_keep_every_earlier_game(capsys, tmp_path):
    journal = tmp_path / "j.jsonl"
    replay(capsys, tmp_path, [{"heard": "two aces"}], "--players", "Wendy,Xavier",
           "--journal", str(journal))  # fmt: skip
    for _ in range(2):
        _, err, code = replay(capsys, tmp_path, [{"heard": "one ace"}], "--players", "Yan,Zoe",
                              "--journal", str(journal))  # fmt: skip
        assert code == 0 and "kept as" in err
    kept = games_of(tmp_path)
    assert kept.count(["Wendy", "Xavier"]) == 1 and kept.count(["Yan", "Zoe"]) == 2
    # and the first game can still be resumed from where it was kept
    [first] = [p for p in tmp_path.glob("j.*.jsonl") if "Wendy" in p.read_text()]
    out, _, code = replay(capsys, tmp_path, [], "--resume", "--journal", str(first))
    assert code == 0 and state(out)["players"] == ["Wendy", "Xavier"] and state(out)["pile"] == 2


def test_plain_runs_each_get_a_journal_and_resume_takes_the_latest_unfinished(capsys, tmp_path):
    data = tmp_path / "referee-data"  # conftest's REFEREE_DATA_DIR
    replay(capsys, tmp_path, [{"heard": "two aces"}], "--players", "Alice,Ben")
    replay(capsys, tmp_path, [{"heard": "three aces"}], "--players", "Cara,Dev")
    assert sorted(map(tuple, games_of(data))) == [("Alice", "Ben"), ("Cara", "Dev")]
    out, err, code = replay(capsys, tmp_path, [{"heard": "one two"}], "--resume")
    assert code == 0 and state(out)["players"] == ["Cara", "Dev"] and state(out)["pile"] == 4
    assert "resuming the game of Cara, Dev" in err
    # naming the players picks their game
    out, _, code = replay(capsys, tmp_path, [], "--resume", "--players", "Alice,Ben")
    assert code == 0 and state(out)["players"] == ["Alice", "Ben"] and state(out)["pile"] == 2


def a_whole_game(players: tuple[str, ...]) -> list[dict]:
    """Claims of the rank due, four cards at a time, until the game is over."""
    session = Session.start(players, Rules())
    lines: list[dict] = []
    while session.state.phase != "over":
        s = session.state
        count = min(4, s.hands[s.turn]) or 1
        lines.append({"event": "claim", "count": count, "rank": legal_ranks(s)[0]})
        session.submit(Claim(count, legal_ranks(s)[0]))
    return lines


def test_resume_passes_over_a_finished_match_for_an_unfinished_one(capsys, tmp_path):
    replay(capsys, tmp_path, [{"heard": "two aces"}], "--players", "Alice,Ben")
    out, _, _ = replay(capsys, tmp_path, a_whole_game(("Cara", "Dev")), "--players", "Cara,Dev")
    assert state(out)["phase"] == "over"
    out, _, code = replay(capsys, tmp_path, [], "--resume")
    assert code == 0 and state(out)["players"] == ["Alice", "Ben"]


def test_play_resume_list_shows_what_can_be_resumed(capsys, tmp_path):
    replay(capsys, tmp_path, [{"heard": "two aces"}], "--players", "Alice,Ben")
    replay(capsys, tmp_path, [{"heard": "one ace"}], "--players", "Cara,Dev")
    capsys.readouterr()
    assert main(["play", "--resume", "--list", "--json"]) == 0
    listed = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["players"] for x in listed] == [["Cara", "Dev"], ["Alice", "Ben"]]
    assert all(x["finished"] is False and x["events"] == 1 for x in listed)
    assert main(["play", "--resume", "--list"]) == 0
    text = capsys.readouterr().out
    assert "Cara, Dev" in text and "unfinished" in text


# --- 2. a damaged last line is moved aside before anything is appended -------------------


def test_a_damaged_last_line_is_set_aside_and_the_game_stays_resumable(capsys, tmp_path):
    journal = tmp_path / "j.jsonl"
    replay(capsys, tmp_path, [{"heard": "two aces"}], "--players", PLAYERS,
           "--journal", str(journal))  # fmt: skip
    with open(journal, "a") as f:
        f.write('{"event":"claim","cou\n')  # damaged, yet ending in a newline
    out, err, code = replay(capsys, tmp_path, [{"heard": "one two"}], "--resume",
                            "--journal", str(journal))  # fmt: skip
    assert code == 0 and state(out)["pile"] == 3
    assert "damaged" in err and "j.jsonl.damaged" in err
    assert '"cou' in (tmp_path / "j.jsonl.damaged").read_text()
    out, err, code = replay(capsys, tmp_path, [{"heard": "one three"}], "--resume",
                            "--journal", str(journal))  # fmt: skip
    assert code == 0, err
    assert state(out)["pile"] == 4


def test_a_last_line_without_its_newline_is_kept_and_ended(tmp_path):
    path = tmp_path / "j.jsonl"
    live = Session.start(["Alice", "Ben"], Rules(), path)
    live.hear("two aces")
    live.close()
    path.write_bytes(path.read_bytes()[:-1])  # the kill fell between the line and its newline
    resumed = Session.resume(path)
    assert resumed.state.pile_size == 2
    resumed.hear("one two")
    resumed.close()
    assert Session.resume(path).state.pile_size == 3


# --- 3. a changed line is named, never folded into another game --------------------------


def test_a_hand_edited_line_is_named(capsys, tmp_path):
    journal = tmp_path / "j.jsonl"
    replay(capsys, tmp_path, [{"heard": "four aces"}, {"heard": "one two"}], "--players",
           PLAYERS, "--journal", str(journal))  # fmt: skip
    text = journal.read_text()
    assert '"count":4' in text
    journal.write_text(text.replace('"count":4', '"count":3'))
    out, err, code = replay(capsys, tmp_path, [], "--resume", "--journal", str(journal))
    assert code == 2 and not out
    assert "line 2" in err and "changed" in err and "Traceback" not in err


def test_a_line_taken_out_is_found(capsys, tmp_path):
    journal = tmp_path / "j.jsonl"
    replay(capsys, tmp_path, [{"heard": "two aces"}, {"heard": "one two"},
                              {"heard": "one three"}], "--players", PLAYERS,
           "--journal", str(journal))  # fmt: skip
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text("".join(lines[:2] + lines[3:]))
    _, err, code = replay(capsys, tmp_path, [], "--resume", "--journal", str(journal))
    assert code == 2 and "line 3" in err and "changed" in err


def test_an_old_journal_without_checksums_still_resumes(capsys, tmp_path):
    journal = tmp_path / "old.jsonl"
    journal.write_text(
        '{"journal":1,"players":["Alice","Ben","Cara"],"rules":{},"started":"2026-11-30T21:00:00+00:00"}\n'
        '{"event":"claim","count":2,"rank":"A"}\n'
    )  # fmt: skip
    out, err, code = replay(capsys, tmp_path, [{"heard": "one two"}], "--resume",
                            "--journal", str(journal))  # fmt: skip
    assert code == 0, err
    assert state(out)["pile"] == 3
    out, _, code = replay(capsys, tmp_path, [], "--resume", "--journal", str(journal))
    assert code == 0 and state(out)["pile"] == 3


# --- 6. a folder is refused, never moved ---------------------------------------------------


@pytest.mark.parametrize("resume", [False, True])
def test_a_folder_as_journal_is_refused_and_left_alone(capsys, tmp_path, resume):
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    args = ["--resume"] if resume else ["--players", PLAYERS]
    for _ in range(2):
        out, err, code = replay(capsys, tmp_path, [{"heard": "two aces"}], *args,
                                "--journal", str(folder))  # fmt: skip
        assert code == 2 and "folder" in err and "Traceback" not in err
    assert (folder / "keep.txt").read_text() == "mine"
    assert not (tmp_path / "games.prev").exists()


def test_a_file_that_is_not_a_journal_is_left_alone(capsys, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping: milk\n")
    _, err, code = replay(capsys, tmp_path, [], "--players", PLAYERS, "--journal", str(notes))
    assert code == 2 and "not a referee journal" in err
    assert notes.read_text() == "shopping: milk\n" and list(tmp_path.glob("notes*")) == [notes]


# --- 8. lines that are JSON but not what a journal holds -----------------------------------

HEADER = '{"journal":1,"players":["Alice","Ben"],"rules":{},"started":"2026-11-30T21:00:00"}'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1]\n", "not a referee journal"),
        ('{"journal":1,"rules":{}}\n', "names no players"),
        ('{"journal":1,"players":"Alice","rules":{}}\n', "names no players"),
        ('{"journal":1,"players":["Alice","Ben"]}\n', "no rules"),
        (HEADER + "\n[1,2]\n" + '{"event":"claim","count":2,"rank":"A"}\n', "line 2"),
        (HEADER + '\n{"event":"claim","count":"two","rank":"A"}\n', "line 2"),
        (HEADER + '\n{"note":5}\n', "line 2"),
        (HEADER + '\n{"event":"call","caller":7}\n', "line 2"),
        (HEADER + '\n{"nothing":true}\n', "line 2"),
    ],
)
def test_journal_lines_that_are_not_entries_are_a_message(capsys, tmp_path, text, expected):
    journal = tmp_path / "j.jsonl"
    journal.write_text(text)
    out, err, code = replay(capsys, tmp_path, [], "--resume", "--journal", str(journal))
    assert code == 2 and expected in err and "Traceback" not in err
    assert journal.read_text() == text  # nothing of it lost
