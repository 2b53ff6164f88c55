"""``referee look``: the JSON contract and clear errors (real model, rendered photos)."""

from __future__ import annotations

import json

import cv2
import pytest

from referee.cli import main
from tests.vision_scenes import render_decks, scene


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    folder = tmp_path_factory.mktemp("look")
    decks = render_decks(folder / "faces", n=2)
    paths = []
    for i, codes in enumerate((["QH", "7C"], ["KS"])):
        img, _ = scene(decks[i], codes, seed=40 + i)
        p = folder / f"reveal{i}.jpg"
        cv2.imwrite(str(p), img)
        paths.append(p)
    return paths


def test_json_one_object_per_image(photos, capsys):
    assert main(["look", "--json", *map(str, photos)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    objs = [json.loads(line) for line in lines]
    for obj, path in zip(objs, photos, strict=True):
        assert obj["image"] == str(path)
        assert obj["count"] == len(obj["cards"])
        for card in obj["cards"]:
            assert set(card) == {"rank", "suit", "confidence", "box"}
            assert card["rank"] in {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                    "J", "Q", "K", "JK"}  # fmt: skip
            assert card["suit"] is None or card["suit"] in "SHDC"
            assert 0.0 <= card["confidence"] <= 1.0
            x1, y1, x2, y2 = card["box"]
            assert x1 < x2 and y1 < y2
    assert sorted(c["rank"] for c in objs[0]["cards"]) == ["7", "Q"]
    assert [c["rank"] for c in objs[1]["cards"]] == ["K"]


def test_plain_text_output(photos, capsys):
    assert main(["look", str(photos[1])]) == 0
    out = capsys.readouterr().out
    assert "1 card(s): K" in out


def test_a_second_look_on_request(photos, capsys):
    for how in ("low", "crop"):
        assert main(["look", "--json", "--second-look", how, str(photos[0])]) == 0
        (line,) = capsys.readouterr().out.strip().splitlines()
        assert sorted(c["rank"] for c in json.loads(line)["cards"]) == ["7", "Q"]


def test_missing_image_is_a_clear_error(tmp_path, capsys):
    assert main(["look", str(tmp_path / "nope.jpg")]) == 2
    err = capsys.readouterr().err
    assert "no such image" in err and "Traceback" not in err


def test_unreadable_image_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.jpg"
    bad.write_text("not a picture")
    assert main(["look", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and "Traceback" not in err


def test_one_bad_file_among_good_ones(photos, tmp_path, capsys):
    missing = tmp_path / "gone.png"
    assert main(["look", "--json", str(photos[1]), str(missing)]) == 2
    captured = capsys.readouterr()
    objs = [json.loads(line) for line in captured.out.strip().splitlines()]
    assert objs[0]["count"] == 1
    assert objs[1] == {"image": str(missing), "cards": [], "count": 0,
                       "error": f"no such image: {missing}"}  # fmt: skip
    assert "no such image" in captured.err


def test_nothing_to_look_at(capsys):
    assert main(["look"]) == 2
    assert "IMAGE" in capsys.readouterr().err


def test_missing_camera_is_a_clear_error(capsys):
    assert main(["look", "--camera", "97"]) == 2
    err = capsys.readouterr().err
    assert "camera 97 is not available" in err and "Traceback" not in err
