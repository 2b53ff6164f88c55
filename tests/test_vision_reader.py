"""The committed detector on small rendered scenes: real reading, counting, timing-free."""

from __future__ import annotations

import random

import numpy as np
import pytest

from referee.vision.reader import UNREADABLE, CardReader
from tests.vision_scenes import closeup, render_decks, scene


@pytest.fixture(scope="module")
def reader():
    return CardReader()


@pytest.fixture(scope="module")
def decks(tmp_path_factory):
    return render_decks(tmp_path_factory.mktemp("faces"), n=4)


def test_reads_most_rendered_reveals_exactly(reader, decks):
    rng = random.Random(0)
    right = 0
    total = 12
    for k in range(total):
        deck = decks[k % len(decks)]
        codes = [rng.choice(deck.codes) for _ in range(rng.randint(1, 4))]
        img, truth = scene(deck, codes, seed=100 + k, card_h=0.55 - 0.05 * len(codes))
        got = sorted(c.rank for c in reader.read(img).cards)
        right += got == truth
    assert right >= 10, f"only {right}/{total} rendered reveals read exactly"


def test_two_cards_of_one_rank_count_as_two(reader, decks):
    hits = 0
    for k in range(4):
        img, truth = scene(decks[k], ["8S", "8H"], seed=200 + k)
        reveal = reader.read(img)
        hits += reveal.count == 2 and reveal.ranks == ["8", "8"]
    assert hits >= 3


def test_a_single_upright_card_is_read_with_confidence(reader, decks):
    img, _ = scene(decks[0], ["KD"], seed=7, card_h=0.7)
    reveal = reader.read(img)
    assert reveal.ranks == ["K"]
    (card,) = reveal.cards
    assert card.suit is None
    assert 0.0 < card.confidence <= 1.0
    x1, y1, x2, y2 = card.box
    assert 0 <= x1 < x2 <= img.shape[1] + 50 and 0 <= y1 < y2 <= img.shape[0] + 50


def test_an_empty_table_is_not_readable(reader):
    table = np.full((480, 640, 3), (40, 110, 30), np.uint8)
    reveal = reader.read(table)
    assert reveal.count == 0
    assert not reveal.readable
    assert reveal.message.startswith(UNREADABLE)


def test_an_empty_frame_gets_a_message(reader):
    reveal = reader.read(np.zeros((0, 0, 3), np.uint8))
    assert not reveal.readable and reveal.message == "empty frame"


def test_grey_frames_are_accepted(reader, decks):
    img, truth = scene(decks[1], ["AS"], seed=11, card_h=0.7)
    grey = img.mean(axis=2).astype(np.uint8)
    assert reader.read(grey).count >= 1


def _card_on_table(deck, code: str, upside: bool = False):
    """A face pasted on a plain table, and its top-left index box and centre in the frame."""
    import cv2

    face = cv2.imread(str(deck.path / f"{code}.jpg"))
    if upside:
        face = cv2.rotate(face, cv2.ROTATE_180)
    fh, fw = face.shape[:2]
    frame = np.full((fh + 80, fw + 80, 3), (40, 110, 30), np.uint8)
    frame[40 : 40 + fh, 40 : 40 + fw] = face
    x1, y1, x2, y2 = deck.card_boxes.get(code, deck.index_box)
    if upside:  # the bottom-right index is now the top-left one, upright
        x1, y1, x2, y2 = 1 - x2, 1 - y2, 1 - x1, 1 - y1
    box = (40 + x1 * fw, 40 + y1 * fh, 40 + x2 * fw, 40 + y2 * fh)
    return frame, box, (40 + fw / 2, 40 + fh / 2)


@pytest.mark.parametrize("upside", [False, True])
def test_the_rank_classifier_overrules_a_wrong_detector_reading(reader, decks, upside):
    from referee.vision.group import Corner

    if reader.ranker is None:
        pytest.skip("no rank classifier")
    frame, box, centre = _card_on_table(decks[2], "AH", upside)
    (c,) = reader.rerank(frame, [Corner("4", 0.5, box, centre)])
    assert c.rank == "A" and c.box == box


def test_a_detection_on_the_bare_table_is_dropped(reader, decks):
    from referee.vision.group import Corner

    if reader.ranker is None:
        pytest.skip("no rank classifier")
    frame, box, centre = _card_on_table(decks[2], "7C")
    table = (5.0, 5.0, 35.0, 45.0)  # a box on the green table beside the card
    out = reader.rerank(frame, [Corner("7", 0.4, box, centre), Corner("Q", 0.4, table, centre)])
    assert [c.rank for c in out] == ["7"]


def test_a_card_filling_the_frame_is_one_card(reader, decks):
    # phone photos of one card, upright and sideways, 2- and 4-index designs: its corner
    # indices are large and their predicted centres scatter, yet they make one card
    assert any(d.four for d in decks) and any(not d.four for d in decks)
    for k, deck in enumerate(decks):
        for turn in (0, 90):
            code = deck.codes[(5 * k + turn) % len(deck.codes)]
            img, rank = closeup(deck, code, seed=300 + k + turn, fill=1.05, turn=turn)
            got = [c.rank for c in reader.read(img).cards]
            assert got == [rank], f"{deck.name} {code} turned {turn}: read {got}"


def seeing(reader, corners):
    """A copy of ``reader`` whose detector and classifier found exactly ``corners``."""
    import copy

    r = copy.copy(reader)
    r.corners = lambda image, conf=None: list(corners)
    r.rerank = lambda image, found: found
    return r


def test_a_deck_profile_raises_the_score_that_holds_two_ranks_apart(reader):
    # a 7 and a 9 whose predicted centres coincide, both read at 0.7: two cards for the plain
    # reader (both sure); with a deck profile, whose scores mix in exemplar votes, 0.7 is not
    # sure enough to split what the geometry joins
    from types import SimpleNamespace

    from referee.vision.group import Corner

    r = seeing(
        reader,
        [
            Corner("7", 0.7, (40, 60, 60, 100), (100, 150)),
            Corner("9", 0.7, (140, 200, 160, 240), (100, 150)),
        ],
    )
    frame = np.zeros((300, 200, 3), np.uint8)
    assert r.read(frame).ranks == ["7", "9"]
    r.deck = SimpleNamespace(uses_ranker=True, detect_conf=0.15)
    assert r.read(frame).count == 1
    r.deck_sure_rank = 0.6
    assert r.read(frame).count == 2


def test_a_deck_profile_drops_a_lone_index_called_not_an_index(reader):
    # a queen's two corners and one pip-like site whose halved "not an index" score is 0.2
    from types import SimpleNamespace

    from referee.vision.group import Corner

    r = seeing(
        reader,
        [
            Corner("Q", 0.9, (40, 60, 60, 100), (100, 150)),
            Corner("Q", 0.8, (140, 200, 160, 240), (100, 150)),
            Corner("7", 0.5, (300, 100, 310, 120), (350, 180), none=0.2),
        ],
    )
    frame = np.zeros((300, 400, 3), np.uint8)
    assert r.read(frame).ranks == ["7", "Q"]
    r.deck = SimpleNamespace(uses_ranker=True, detect_conf=0.15)
    assert r.read(frame).ranks == ["Q"]
