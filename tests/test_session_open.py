"""``referee.session.open``: the one way replay and play open a match; names and folders a
user can get wrong are a message (issue 17, cases 9 and 12)."""

from __future__ import annotations

import json
import os

import pytest

from referee import session as sessions
from referee.cli import main
from referee.errors import UserError


@pytest.mark.parametrize(
    ("players", "expected"),
    [
        ("cheat,liar,undo", "'cheat' is a word of the game (a call)"),
        ("Alice,undo,Ben", "'undo' is a word of the game (a command)"),
        ("Alice,King,Ben", "'King' is a word of the game (a claim)"),
        ("Alice,True,Ben", "'True' is a word of the game (a verdict)"),
        ("Alice,Two,Ben", "'Two' is a word of the game (a count)"),
        ("Alice,,Ben", "player 2 of 'Alice,,Ben' has no name"),
        ("Alice,Ben,", "player 3 of 'Alice,Ben,' has no name"),
        ("Alice,???,Ben", "could never hear the name '???'"),
    ],
)
def test_names_that_are_game_words_or_empty_are_refused(capsys, tmp_path, players, expected):
    events = tmp_path / "e.jsonl"
    events.write_text('{"heard": "two aces"}\n')
    assert main(["replay", str(events), "--players", players]) == 2
    captured = capsys.readouterr()
    assert expected in captured.err and captured.out == ""
    with pytest.raises(UserError, match="name"):
        sessions.open(players)


def test_names_that_only_contain_a_game_word_are_fine(tmp_path):
    session = sessions.open("Alice,Kingsley,Benedict", journal=tmp_path / "j.jsonl",
                            record=False)  # fmt: skip
    assert session.players == ("Alice", "Kingsley", "Benedict")
    session.close()


def test_an_unusable_data_folder_is_a_message(capsys, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("REFEREE_DATA_DIR", str(blocker / "data"))  # under a file: unusable
    events = tmp_path / "e.jsonl"
    events.write_text('{"heard": "two aces"}\n')
    assert main(["replay", str(events), "--players", "Alice,Ben"]) == 2
    err = capsys.readouterr().err
    assert "REFEREE_DATA_DIR" in err and "Traceback" not in err
    assert main(["replay", str(events), "--resume"]) == 2
    assert "REFEREE_DATA_DIR" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in read-only folders")
def test_a_read_only_data_folder_is_a_message(capsys, tmp_path, monkeypatch):
    data = tmp_path / "ro"
    data.mkdir()
    data.chmod(0o500)
    monkeypatch.setenv("REFEREE_DATA_DIR", str(data))
    events = tmp_path / "e.jsonl"
    events.write_text('{"heard": "two aces"}\n')
    try:
        assert main(["replay", str(events), "--players", "Alice,Ben"]) == 2
    finally:
        data.chmod(0o700)
    assert "REFEREE_DATA_DIR" in capsys.readouterr().err


def test_open_starts_and_resumes_the_same_match(tmp_path):
    path = tmp_path / "j.jsonl"
    first = sessions.open("Alice,Ben,Cara", rules="british", journal=path, record=False,
                          source="test")  # fmt: skip
    first.hear("two aces")
    first.close()
    header = json.loads(path.read_text().split("\n", 1)[0])
    assert header["source"] == "test" and header["rules"]["rank_order"] == "updown_same"
    again = sessions.open(journal=path, resume=True, record=False)
    assert again.state.pile_size == 2 and again.players == ("Alice", "Ben", "Cara")
    again.close()
    with pytest.raises(UserError, match="is a game of Alice, Ben, Cara, not Ben,Alice"):
        sessions.open("Ben,Alice", journal=path, resume=True, record=False)


def test_a_resumed_match_records_into_the_same_database_match(tmp_path):
    from referee.store import Store

    db = tmp_path / "scores.db"
    path = tmp_path / "j.jsonl"
    first = sessions.open("Alice,Ben", journal=path, db=db, scoring="first_to:2")
    first.close()
    again = sessions.open(journal=path, resume=True, db=db, scoring="wins")
    assert again.recorder.scoring.name == "first_to:2"  # the journal's table, as it began
    again.close()
    with Store.open(db) as store:
        assert store.matches() == []  # no game finished: nothing stored yet
