"""``referee calibrate deck``: profiles on disk, and teaching the reader a deck's own letters."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.calibration.deck import labelled_images, rank_from_label
from referee.cli import main
from referee.vision.deck import (
    PROFILE_VERSION,
    DeckProfile,
    ProfileError,
    load_profile,
    read_profile,
)
from tests.vision_scenes import render_decks, scene

GERMAN = {"J": "B", "Q": "D"}  # Bube, Dame


@pytest.mark.parametrize(
    ("text", "rank"),
    [("Q", "Q"), ("QH", "Q"), ("QH_2", "Q"), ("10-spades", "10"), ("Aspades", "A"),
     ("10clubs", "10"), ("JK", "JK"), ("joker_1", "JK"), ("KING", None), ("Herz_Dame", None),
     ("jd", "J")],
)  # fmt: skip
def test_rank_from_label(text, rank):
    assert rank_from_label(text) == rank


def test_labelled_images_from_names_and_csv(tmp_path):
    for name in ("Q.jpg", "10H_2.png", "notes.txt", "holiday.jpg"):
        (tmp_path / name).write_bytes(b"x")
    assert [(p.name, r) for p, r in labelled_images(tmp_path)] == [("10H_2.png", "10"),
                                                                   ("Q.jpg", "Q")]  # fmt: skip
    (tmp_path / "labels.csv").write_text("path,cards\nholiday.jpg,KD\nQ.jpg,QH 7C\n")
    assert [(p.name, r) for p, r in labelled_images(tmp_path)] == [("holiday.jpg", "K")]


def crop(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 255, (48, 48), np.uint8)


def test_profile_round_trip_is_readable_json(tmp_path):
    p = DeckProfile("kitchen", ranks=["J", "Q"], crops=[crop(1), crop(2)],
                    readings={"8": {"J": 3}}, deck_weight=0.6)  # fmt: skip
    path = p.save(tmp_path / "kitchen")
    data = json.loads(path.read_text())
    assert data["version"] == PROFILE_VERSION == 2 and data["name"] == "kitchen"
    assert [e["rank"] for e in data["exemplars"]] == ["J", "Q"]
    assert data["readings"] == {"8": {"J": 3}} and "remap" not in data
    back = read_profile(tmp_path / "kitchen")
    assert back.uses_ranker and back.version == 2
    assert back.ranks == ["J", "Q"] and back.readings == {"8": {"J": 3}}
    assert back.deck_weight == 0.6
    assert np.array_equal(back.crops[0], p.crops[0])


def test_version_1_profiles_are_still_read(tmp_path):
    p = DeckProfile("old", ranks=["J", "Q"], crops=[crop(1), crop(2)], version=1,
                    remap={"Q": {"J": 3, "Q": 2}})  # fmt: skip
    data = json.loads(p.save(tmp_path / "old").read_text())
    assert data["version"] == 1 and data["remap"] == {"Q": {"J": 3, "Q": 2}}
    back = read_profile(tmp_path / "old")
    assert back.version == 1 and not back.uses_ranker
    assert back.remap == {"Q": {"J": 3, "Q": 2}}
    assert back.classify(p.crops[1])[0] == "Q"


def test_exemplars_outvote_the_classifier_only_when_they_match(tmp_path):
    """rescore: a close exemplar match moves the scores towards its rank; a poor one
    leaves them as they were."""

    class FakeRanker:  # embeds a patch as its normalised mean row profile
        def embed(self, patches):
            e = patches.astype(np.float32).mean(axis=2) - 100
            return e / np.linalg.norm(e, axis=1, keepdims=True)

    ramp = np.tile(np.linspace(0, 255, 48, dtype=np.float32)[:, None], (1, 48)).astype(np.uint8)
    p = DeckProfile("k", ranks=["J"], crops=[ramp], neighbours=3, min_similarity=0.9)
    score = np.zeros(14, np.float32)
    score[7] = 0.9  # the classifier says 8
    emb = FakeRanker().embed(ramp[None])[0]
    new, none = p.rescore(emb, score, 0.2, FakeRanker())
    assert int(np.argmax(new)) == 10 and none < 0.2  # J
    far = FakeRanker().embed(ramp[::-1][None])[0]
    same, none2 = p.rescore(far, score, 0.2, FakeRanker())
    assert np.array_equal(same, score) and none2 == 0.2


def test_missing_corrupt_and_newer_profiles(tmp_path, monkeypatch):
    monkeypatch.setenv("REFEREE_DECK_DIR", str(tmp_path))
    with pytest.raises(ProfileError, match="no deck profile 'nope'"):
        read_profile("nope")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "profile.json").write_text("{not json")
    with pytest.raises(ProfileError, match="damaged"):
        read_profile("bad")
    DeckProfile("new", ranks=["A"], crops=[crop(3)]).save(tmp_path / "new")
    data = json.loads((tmp_path / "new" / "profile.json").read_text())
    data["version"] = PROFILE_VERSION + 1
    (tmp_path / "new" / "profile.json").write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="newer"):
        read_profile("new")
    (tmp_path / "new" / "crops" / "000_A.png").unlink()
    data["version"] = PROFILE_VERSION
    (tmp_path / "new" / "profile.json").write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="missing or damaged crop"):
        read_profile("new")
    warnings = []
    assert load_profile("bad", warn=warnings.append) is None
    assert "damaged" in warnings[0]


def test_look_with_a_broken_profile_warns_and_reads_anyway(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("REFEREE_DECK_DIR", str(tmp_path))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "profile.json").write_text("[]")
    img = tmp_path / "table.png"
    cv2.imwrite(str(img), np.full((120, 160, 3), 90, np.uint8))
    assert main(["look", "--deck", "bad", str(img)]) == 0
    captured = capsys.readouterr()
    assert "damaged" in captured.err and "Traceback" not in captured.err
    assert "0 card(s)" in captured.out


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    """A deck printing B for jacks and D for queens: 13 calibration shots and test pairs."""
    root = tmp_path_factory.mktemp("german")
    (deck,) = render_decks(root / "faces", n=1, seed=5, letters=GERMAN)
    shots = root / "shots"
    shots.mkdir()
    for i, rank in enumerate(("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")):
        img, _ = scene(deck, [rank + "SHDC"[i % 4]], seed=300 + i, card_h=0.6)
        cv2.imwrite(str(shots / f"{rank}.jpg"), img)
    pairs = []
    for k, codes in enumerate((["JS", "QH"], ["QD", "KC"], ["JH", "10S"], ["QC", "JD"],
                               ["AS", "QS"], ["JC", "7H"])):  # fmt: skip
        pairs.append(scene(deck, codes, seed=400 + k, card_h=0.5))
    return shots, pairs


def test_calibration_teaches_the_decks_letters(german, tmp_path, monkeypatch, capsys):
    from referee.vision.reader import CardReader

    shots, pairs = german
    monkeypatch.setenv("REFEREE_DECK_DIR", str(tmp_path))
    assert main(["calibrate", "deck", "--images", str(shots), "--name", "kitchen"]) == 0
    assert "kitchen" in capsys.readouterr().out
    profile_file = tmp_path / "kitchen" / "profile.json"
    data = json.loads(profile_file.read_text())
    assert {"J", "Q"} <= {e["rank"] for e in data["exemplars"]}
    plain, adapted = CardReader(), CardReader(deck="kitchen")
    before = sum(sorted(c.rank for c in plain.read(img).cards) == truth for img, truth in pairs)
    after = sum(sorted(c.rank for c in adapted.read(img).cards) == truth for img, truth in pairs)
    assert after >= 5, f"after calibration only {after}/6 pairs right (before: {before})"
    assert after > before


def test_calibrate_deck_errors(tmp_path, capsys):
    assert main(["calibrate", "deck", "--images", str(tmp_path / "none"), "--name", "x"]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["calibrate", "deck", "--images", str(tmp_path), "--name", "x"]) == 2
    assert "no labelled card photos" in capsys.readouterr().err
    assert main(["calibrate", "deck", "--images", str(tmp_path), "--name", "a/b"]) == 2
    assert "deck name" in capsys.readouterr().err


def test_profiles_live_in_the_data_dir(monkeypatch, tmp_path):
    from referee.vision.deck import profiles_dir

    monkeypatch.delenv("REFEREE_DECK_DIR", raising=False)
    monkeypatch.setenv("REFEREE_DATA_DIR", str(tmp_path))
    assert profiles_dir() == Path(tmp_path) / "calibration" / "decks"
