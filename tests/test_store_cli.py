"""``referee scores``: the standing table, JSON, CSV, the chart and the statistics."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from referee.cli import main
from referee.game.record import GameRecord
from referee.store import Store
from tests.store_helpers import FOUR, game


def worked_match() -> list[GameRecord]:
    return [
        game(1, "Alice", {"Ben": 20, "Cara": 11, "Dev": 9}, pickups={"Ben": [14]},
             calls_made={"Ben": 1}, calls_lost={"Ben": 1}, wrongly_called={"Alice": 1}),
        game(2, "Ben", {"Alice": 6, "Cara": 41, "Dev": 5}, pickups={"Cara": [40]},
             calls_made={"Dev": 1}, calls_won={"Dev": 1}, caught_lying={"Cara": 1}),
        game(3, "Alice", {"Ben": 4, "Cara": 12, "Dev": 8}),
    ]  # fmt: skip


@pytest.fixture
def db(tmp_path):
    """Two matches: an older two-game one scored ranked, then the worked match."""
    path = tmp_path / "scores.db"
    with Store.open(path) as store:
        older = store.start_match(FOUR, {"preset": "classic"}, "ranked")
        store.record_game(older, game(1, "Cara", {"Alice": 3}, pickups={"Dev": [52]},
                                      calls_made={"Ben": 4}, calls_won={"Ben": 3}))  # fmt: skip
        store.record_game(older, game(2, "Cara", {"Alice": 5}))
        worked = store.start_match(FOUR, {"preset": "classic"}, "wins")
        for record in worked_match():
            store.record_game(worked, record)
    return path


def scores(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["scores", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_of_the_worked_match(db, capsys):
    code, out, _ = scores(capsys, "--db", str(db), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["match"] == 2 and data["scoring"] == "wins"
    assert [{k: s[k] for k in ("player", "wins", "points")} for s in data["standings"]] == [
        {"player": "Alice", "wins": 2, "points": 2},
        {"player": "Ben", "wins": 1, "points": 1},
        {"player": "Cara", "wins": 0, "points": 0},
        {"player": "Dev", "wins": 0, "points": 0},
    ]
    assert data["spoken"] == "Alice 2, Ben 1, Cara and Dev 0. Alice leads."


def test_json_of_an_older_match_and_under_another_table(db, capsys):
    _, out, _ = scores(capsys, "--db", str(db), "--match", "1", "--json")
    data = json.loads(out)
    assert (data["match"], data["scoring"]) == (1, "ranked")
    assert data["standings"][0] == {**data["standings"][0], "player": "Cara", "points": 6}
    _, out, _ = scores(capsys, "--db", str(db), "--scoring", "penalty", "--json")
    data = json.loads(out)
    assert data["scoring"] == "penalty"
    assert [(s["player"], s["points"]) for s in data["standings"]] == [
        ("Alice", 6),
        ("Dev", 22),
        ("Ben", 24),
        ("Cara", 64),
    ]


def test_the_table_and_the_list_of_matches(db, capsys):
    code, out, _ = scores(capsys, "--db", str(db))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("Match 2,") and "match table" in lines[0]
    rows = [line.split() for line in lines[2:6]]
    assert rows == [["1", "Alice", "2"], ["2", "Ben", "1"], ["3", "Cara", "0"], ["3", "Dev", "0"]]
    assert "Alice 2, Ben 1, Cara and Dev 0. Alice leads." in out
    listed = out[out.index("Matches") :]
    assert "ranked" in listed and "wins" in listed and listed.count("Alice, Ben, Cara, Dev") == 2


def test_csv_export(db, capsys, tmp_path):
    target = tmp_path / "match.csv"
    code, _, _ = scores(capsys, "--db", str(db), "--csv", str(target))
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(target.read_text())))
    assert len(rows) == 3 * 4
    last = {r["player"]: r for r in rows if r["game"] == "3"}
    assert {p: int(r["total_wins"]) for p, r in last.items()} == {
        "Alice": 2,
        "Ben": 1,
        "Cara": 0,
        "Dev": 0,
    }
    cara2 = next(r for r in rows if r["game"] == "2" and r["player"] == "Cara")
    assert (cara2["pickups"], cara2["biggest_pickup"], cara2["caught_lying"]) == ("40", "40", "1")
    assert cara2["place"] == "4" and cara2["cards_left"] == "41"
    # to stdout
    _, out, _ = scores(capsys, "--db", str(db), "--csv", "-")
    assert out == target.read_text()


def test_plot_is_a_readable_png(db, capsys, tmp_path):
    import matplotlib.image

    target = tmp_path / "match.png"
    code, out, _ = scores(capsys, "--db", str(db), "--plot", str(target))
    assert code == 0 and f"Chart written to {target}" in out
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = matplotlib.image.imread(target)
    height, width = image.shape[:2]
    assert width >= 600 and height >= 400
    rgb = image[..., :3].reshape(-1, 3)
    assert rgb.std() > 0.05  # not a blank canvas
    colours = {tuple(c) for c in np.round(rgb * 255).astype(int)[::7]}
    assert len(colours) > 20  # lines, markers, text


def test_plot_of_every_table_is_written(db, capsys, tmp_path):
    for scoring in ("ranked", "first_to:2", "penalty", "classic_order", "trust_me"):
        target = tmp_path / f"{scoring.replace(':', '_')}.png"
        assert scores(capsys, "--db", str(db), "--scoring", scoring, "--plot", str(target))[0] == 0
        assert target.stat().st_size > 10_000


def test_plot_to_a_folder_is_refused_and_a_bare_name_is_written_as_named(db, capsys, tmp_path):
    folder = tmp_path / "charts"
    folder.mkdir()
    code, out, err = scores(capsys, "--db", str(db), "--plot", str(folder))
    assert code == 2 and "folder" in err and "Chart written" not in out
    assert not (tmp_path / "charts.png").exists()
    bare = tmp_path / "chart"
    code, out, _ = scores(capsys, "--db", str(db), "--plot", str(bare))
    assert code == 0 and f"Chart written to {bare}" in out
    assert bare.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and not (tmp_path / "chart.png").exists()


def test_stats_per_match_and_all_time(db, capsys):
    code, out, _ = scores(capsys, "--db", str(db), "--json", "--stats")
    assert code == 0
    stats = json.loads(out)["stats"]
    match = {s["player"]: s for s in stats["match"]}
    assert match["Ben"]["calls_made"] == 1 and match["Ben"]["calls_won"] == 0
    assert match["Dev"]["calls_won"] == 1
    assert match["Cara"]["caught_lying"] == 1 and match["Cara"]["biggest_pickup"] == 40
    assert match["Alice"]["wrongly_called"] == 1
    ever = {s["player"]: s for s in stats["all_time"]}
    assert ever["Ben"]["calls_made"] == 1 + 4 and ever["Ben"]["calls_won"] == 3
    assert ever["Dev"]["biggest_pickup"] == 52 and ever["Cara"]["wins"] == 2
    assert ever["Alice"]["games"] == 5 and ever["Alice"]["matches"] == 2

    code, out, _ = scores(capsys, "--db", str(db), "--stats")
    assert code == 0
    section = out[out.index("Statistics, all time") :]
    dev = next(line.split() for line in section.splitlines() if line.split()[:1] == ["Dev"])
    assert dev == ["Dev", "5", "0", "1", "1", "0", "0", "52"]


def test_no_database_yet_is_a_friendly_message(tmp_path, capsys):
    code, out, _ = scores(capsys, "--db", str(tmp_path / "none.db"))
    assert code == 0 and "No score database" in out and "referee replay" in out
    assert not (tmp_path / "none.db").exists()
    code, out, _ = scores(capsys, "--db", str(tmp_path / "none.db"), "--json")
    assert json.loads(out)["standings"] == []


def test_an_empty_database_is_a_friendly_message(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("REFEREE_DB", str(tmp_path / "empty.db"))
    Store.open().close()
    code, out, _ = scores(capsys, "--plot", str(tmp_path / "x.png"))
    assert code == 0 and "No matches recorded yet" in out
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--match", "7"], "no match 7"),
        (["--match", "first"], "match id or 'latest'"),
        (["--scoring", "most_lies"], "unknown scoring"),
        (["--json", "--csv", "-"], "both print to stdout"),
    ],
)
def test_user_mistakes_are_messages(db, capsys, args, message):
    code, out, err = scores(capsys, "--db", str(db), *args)
    assert code == 2 and message in err and "Traceback" not in err


def test_a_damaged_database_is_a_message_not_a_traceback(tmp_path, capsys):
    path = tmp_path / "scores.db"
    path.write_text("not a database at all\n" * 300)
    code, _, err = scores(capsys, "--db", str(path))
    assert code == 2 and "damaged" in err and "Traceback" not in err
