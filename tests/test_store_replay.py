"""End to end: RULES.md's worked match, heard by the referee, stored, and read back.

The transcript is written by playing the match through a real :class:`Session` (so it
follows whatever the engine says is due), then fed to ``referee replay --db`` into an
empty database; ``referee scores --json`` must then read Alice 2, Ben 1, Cara 0, Dev 0.
"""

from __future__ import annotations

import json

from referee.cli import main
from referee.game.cards import rank_name
from referee.game.engine import legal_ranks
from referee.game.rules import rules_from
from referee.session import Session
from referee.store import Store, open_recorder

FOUR = ("Alice", "Ben", "Cara", "Dev")
NUMBER = {1: "one", 2: "two", 3: "three", 4: "four"}


def _claim(session: Session, count: int) -> str:
    rank = legal_ranks(session.state)[0]
    return f"{NUMBER[count]} {rank_name(rank, count)}"


def worked_match_transcript() -> list[dict]:
    """Play the worked match on a Session and return what the referee heard and saw."""
    session = Session.start(FOUR, rules_from("classic", []))
    lines: list[dict] = []

    def hear(text: str) -> None:
        lines.append({"heard": text})
        session.hear(text)

    def see(cards: list[str]) -> None:
        lines.append({"saw": cards})
        from referee.game.cards import parse_card

        session.see([parse_card(c) for c in cards])

    def play_game(winner: str, *, cara_caught: bool = False) -> None:
        state = session.state
        game = state.game
        while session.state.game == game and session.state.phase != "over":
            state = session.state
            player = state.players[state.turn]
            hand = state.hands[state.turn]
            if cara_caught:  # build a big pile first: the winner holds back
                count = 1 if player == winner else 2
            else:
                count = min(4, hand) if player == winner else 1
            hear(_claim(session, count))
            if cara_caught and player == "Cara" and session.state.pile_size >= 30:
                # Dev calls; Cara lied: she picks up the whole (big) pile
                hear("Dev calls cheat")
                rank = session.state.pile[-1].rank
                see(["KH" if rank != "K" else "QH"])
                cara_caught = False
            if player == winner and hand == count:
                break  # out: the next claim (or "new game") makes it stand
        hear("new game")

    play_game("Alice")
    play_game("Ben", cara_caught=True)
    play_game("Alice")
    session.close()
    return lines


def test_replaying_the_worked_match_reads_alice_2_ben_1_cara_0_dev_0(tmp_path, capsys):
    transcript = tmp_path / "worked.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in worked_match_transcript()))
    db = tmp_path / "empty.db"
    code = main(["replay", str(transcript), "--players", ",".join(FOUR), "--db", str(db),
                 "--journal", str(tmp_path / "journal.jsonl")])  # fmt: skip
    replay_out = capsys.readouterr().out
    assert code == 0, replay_out
    assert main(["scores", "--db", str(db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    standing = [(s["player"], s["wins"]) for s in data["standings"]]
    assert standing == [("Alice", 2), ("Ben", 1), ("Cara", 0), ("Dev", 0)]
    with Store.open(db) as store:
        [match] = store.matches()
        records = store.records(match.id)
    assert [r.winner for r in records][:3] == ["Alice", "Ben", "Alice"]
    assert max(records[1].pickups["Cara"]) >= 30  # the big pile of game 2 was stored
    assert records[1].caught_lying["Cara"] == 1 and records[1].calls_won["Dev"] == 1


def test_a_session_records_each_game_as_it_ends(tmp_path):
    db = tmp_path / "scores.db"
    recorder = open_recorder(db, FOUR, {"preset": "classic"}, "first_to:2", key="j")
    session = Session.start(FOUR, rules_from("classic", []), recorder=recorder)
    for line in worked_match_transcript():
        if "heard" in line:
            session.hear(line["heard"])
        else:
            from referee.game.cards import parse_card

            session.see([parse_card(c) for c in line["saw"]])
        if recorder.records and recorder.records[-1].game == 2:
            assert (
                recorder.standing() == "Alice and Ben 1, Cara and Dev 0. Alice and Ben are level."
            )
    assert recorder.winner() == "Alice"
    assert recorder.standing().endswith("Alice wins the match.")


def test_a_locked_database_loses_no_game_it_is_stored_on_resume(tmp_path, capsys, monkeypatch):
    import sqlite3

    import referee.store.db

    monkeypatch.setattr(referee.store.db, "DEFAULT_TIMEOUT_S", 0.2)
    lines = worked_match_transcript()
    first_game = lines[: next(i for i, line in enumerate(lines) if line == {"heard": "new game"})]
    transcript = tmp_path / "game1.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in first_game))
    db, journal = tmp_path / "scores.db", tmp_path / "journal.jsonl"
    Store.open(db).close()
    other = sqlite3.connect(db, isolation_level=None)  # another referee, mid-write
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO players (name) VALUES ('Eve')")
    try:
        code = main(["replay", str(transcript), "--players", ",".join(FOUR), "--db", str(db),
                     "--journal", str(journal)])  # fmt: skip
        err = capsys.readouterr().err
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert code == 2 and "locked by another referee" in err and "Traceback" not in err
    with Store.open(db) as store:
        assert store.matches() == []  # nothing half-stored
    # the journal kept the game: resuming with the database free stores it, once
    (tmp_path / "nothing.jsonl").write_text("")
    for _ in range(2):
        code = main(["replay", str(tmp_path / "nothing.jsonl"), "--resume", "--db", str(db),
                     "--journal", str(journal)])  # fmt: skip
        assert code == 0, capsys.readouterr()
    with Store.open(db) as store:
        [match] = store.matches()
        assert [(r.game, r.winner) for r in store.records(match.id)] == [(1, "Alice")]


def test_a_zero_byte_database_becomes_a_new_one_and_keeps_the_match(tmp_path, capsys):
    transcript = tmp_path / "worked.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in worked_match_transcript()))
    db = tmp_path / "touched.db"
    db.write_bytes(b"")  # `touch scores.db`
    code = main(["replay", str(transcript), "--players", ",".join(FOUR), "--db", str(db),
                 "--journal", str(tmp_path / "journal.jsonl")])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    with Store.open(db) as store:
        [match] = store.matches()
        assert [r.winner for r in store.records(match.id)][:3] == ["Alice", "Ben", "Alice"]
