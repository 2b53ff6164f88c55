"""Grouping corner indices into physical cards (pure geometry, no model)."""

from __future__ import annotations

from referee.vision.group import Corner, group_corners


def corner(rank, conf, x, y, cx, cy, size=20.0):
    """An index box of ``size`` at (x, y) whose predicted card centre is (cx, cy)."""
    return Corner(rank, conf, (x, y, x + size * 0.5, y + size), (cx, cy))


def test_two_corners_of_one_card_are_one_card():
    # top-left and bottom-right index of one upright card centred at (100, 150)
    cs = [corner("Q", 0.9, 40, 60, 101, 149), corner("Q", 0.8, 150, 220, 98, 152)]
    groups = group_corners(cs)
    assert len(groups) == 1
    assert groups[0].rank == "Q"
    assert groups[0].confidence == 0.9


def test_two_queens_side_by_side_stay_two_cards():
    cs = [
        corner("Q", 0.9, 40, 60, 100, 150),
        corner("Q", 0.9, 150, 220, 100, 150),
        corner("Q", 0.9, 240, 60, 300, 150),
        corner("Q", 0.9, 350, 220, 300, 150),
    ]
    groups = group_corners(cs)
    assert [g.rank for g in groups] == ["Q", "Q"]


def test_fanned_indices_close_together_are_different_cards():
    # a fan: indices 12 px apart, predicted centres only 15 px apart
    cs = [corner("7", 0.9, 40 + 12 * i, 60, 100 + 15 * i, 150) for i in range(3)]
    assert len(group_corners(cs)) == 3


def test_four_index_deck_makes_one_card():
    cs = [
        corner("K", 0.8, 10, 10, 100, 150),
        corner("K", 0.7, 170, 10, 104, 147),
        corner("K", 0.6, 10, 270, 97, 155),
        corner("K", 0.9, 170, 270, 102, 151),
    ]
    groups = group_corners(cs)
    assert len(groups) == 1 and groups[0].rank == "K"


def test_rank_guesses_on_one_index_are_one_site_and_vote():
    cs = [
        corner("A", 0.8, 40, 60, 100, 150),
        corner("4", 0.3, 41, 61, 100, 150),  # same printed index, another guess
        corner("A", 0.6, 150, 220, 100, 150),
    ]
    groups = group_corners(cs)
    assert len(groups) == 1
    assert groups[0].rank == "A"
    assert groups[0].votes == {"A": 0.8 + 0.6, "4": 0.3}


def test_a_close_vote_lowers_confidence():
    cs = [corner("6", 0.6, 40, 60, 100, 150), corner("9", 0.5, 150, 220, 100, 150)]
    (g,) = group_corners(cs)
    assert g.rank == "6"
    assert g.confidence < 0.6


def test_card_box_spans_the_card():
    cs = [corner("Q", 0.9, 40, 60, 100, 150)]
    (g,) = group_corners(cs)
    x1, y1, x2, y2 = g.box
    assert x1 <= 40 and y1 <= 60 and x2 >= 150 and y2 >= 220


def test_no_corners_no_cards():
    assert group_corners([]) == []


def test_a_card_hidden_under_another_stays_a_second_card():
    # the king's two corners are 100 px from the centre both predict; the ace underneath
    # shows one index only 45 px from that centre: not a corner of the same card
    cs = [
        corner("K", 0.8, 20, 60, 100, 150, size=30),
        corner("K", 0.8, 160, 200, 100, 150, size=30),
        corner("A", 0.6, 85, 95, 104, 146, size=30),
    ]
    groups = group_corners(cs)
    assert sorted(g.rank for g in groups) == ["A", "K"]


def test_sure_different_ranks_are_different_cards():
    # a 7 and a 9 whose predicted centres coincide (two stacked cards): one card by geometry,
    # two once both rank readings are trusted
    cs = [corner("7", 0.9, 40, 60, 101, 149), corner("9", 0.8, 150, 220, 98, 152)]
    assert len(group_corners(cs)) == 1
    assert sorted(g.rank for g in group_corners(cs, sure_rank=0.6)) == ["7", "9"]
    # an unsure reading still joins the card it sits on
    cs[1] = corner("9", 0.4, 150, 220, 98, 152)
    assert [g.rank for g in group_corners(cs, sure_rank=0.6)] == ["7"]


def _square_corner(rank, conf, mx, my, cx, cy, size):
    """An index box of ``size`` (square) centred at (mx, my), predicting centre (cx, cy)."""
    h = size / 2
    return Corner(rank, conf, (mx - h, my - h, mx + h, my + h), (cx, cy))


def test_frame_filling_card_with_large_indices_is_one_card():
    # one 4-index card filling a 640x480 frame (turned sideways): its indices are 150 px,
    # the two on a short side only 1.1 index sizes apart; predicted centres scatter 30 px
    cs = [
        _square_corner("10", 0.9, 235, 70, 300, 250, 150),
        _square_corner("10", 0.8, 405, 70, 345, 230, 150),
        _square_corner("10", 0.9, 235, 410, 290, 235, 150),
        _square_corner("10", 0.8, 405, 410, 335, 255, 150),
    ]
    groups = group_corners(cs)
    assert [g.rank for g in groups] == ["10"]
    # the old bound (index sizes only) split it in two
    assert len(group_corners(cs, apart_radius=float("inf"))) == 2


def test_corners_agreeing_on_the_centre_tolerate_unequal_radii():
    # a close-up's keypoints are pulled towards their own index: the two diagonal corners
    # agree on the centre within half an index size, yet sit 200 and 140 px from it
    cs = [
        _square_corner("K", 0.9, 130, 100, 300, 230, 100),
        _square_corner("K", 0.9, 420, 360, 330, 250, 100),
    ]
    assert len(group_corners(cs)) == 1
    assert len(group_corners(cs, close_radius=0.25)) == 2


def test_same_rank_cards_in_a_row_half_overlapping_stay_apart():
    # 100x140 cards, the second half a card to the right and on top: the first card's
    # bottom-right index is hidden, its top-left shows next to the second card's
    cs = [
        _square_corner("5", 0.9, 162, 144, 200, 200, 20),
        _square_corner("5", 0.9, 212, 144, 250, 200, 20),
        _square_corner("5", 0.9, 288, 256, 250, 200, 20),
    ]
    assert sorted(g.rank for g in group_corners(cs)) == ["5", "5"]


def test_fanned_same_rank_indices_stay_apart_with_the_radius_bound():
    # a fan of large cards: neighbouring indices 0.6 index sizes apart but far from the centre
    cs = [_square_corner("7", 0.9, 100 + 24 * i, 100, 200 + 30 * i, 300, 40) for i in range(4)]
    assert len(group_corners(cs)) == 4


def _straightened_card(stray_centre):
    """A 4-index card filling a 420x640 portrait frame: three indices agree on the centre
    (210, 320); the top-right one predicts ``stray_centre``."""
    return [
        _square_corner("K", 0.7, 55, 95, 215, 330, 130),
        _square_corner("K", 0.8, 370, 545, 200, 305, 130),
        _square_corner("K", 0.3, 55, 545, 190, 300, 130),
        _square_corner("K", 0.35, 370, 95, *stray_centre, 130),
    ]


def test_an_index_whose_centre_is_off_completes_its_card():
    # the top-right index predicts a centre 1.5 index sizes off: the first pass leaves it
    # alone (a king counted twice); it completes the rectangle of the other three
    cs = _straightened_card((380, 370))
    assert [g.rank for g in group_corners(cs)] == ["K"]
    assert len(group_corners(cs, rect_angle=None)) == 2
    # an unsure other reading of the same index (face art read as a joker) joins too
    cs[3] = _square_corner("JK", 0.3, 370, 95, 380, 370, 130)
    assert [g.rank for g in group_corners(cs, sure_rank=0.6)] == ["K"]


def test_an_index_pointing_at_another_card_stays_apart():
    # the same index predicting a centre outside this card (beyond its corners) is not joined
    cs = _straightened_card((560, 60))
    assert len(group_corners(cs)) == 2
    # nor is a surely different rank at that corner
    cs = _straightened_card((380, 370))
    cs[3] = _square_corner("Q", 0.9, 370, 95, 380, 370, 130)
    assert sorted(g.rank for g in group_corners(cs, sure_rank=0.6)) == ["K", "Q"]


def test_an_index_off_the_rectangle_stays_a_second_card():
    # three cards of one rank in a row; the third shows one index near the second card's
    # corners but not at a corner of its rectangle (no right angle): two cards stay two
    cs = [
        _square_corner("8", 0.95, 400, 120, 470, 235, 50),
        _square_corner("8", 0.95, 540, 345, 474, 243, 50),
        _square_corner("8", 0.7, 290, 260, 376, 304, 50),
    ]
    assert len(group_corners(cs)) == 2


def test_a_lone_index_called_not_an_index_is_dropped_beside_a_real_card():
    # a queen's two corners, and a pip the classifier half calls "not an index" (0.3)
    queen = [corner("Q", 0.9, 40, 60, 100, 150), corner("Q", 0.8, 150, 220, 98, 152)]
    pip = Corner("7", 0.5, (300, 100, 310, 120), (350, 180), none=0.3)
    assert sorted(g.rank for g in group_corners([*queen, pip])) == ["7", "Q"]
    assert [g.rank for g in group_corners([*queen, pip], lone_none=0.1)] == ["Q"]
    # an index the classifier is sure of stays; so does the only card in view
    sure = Corner("7", 0.5, (300, 100, 310, 120), (350, 180), none=0.02)
    assert len(group_corners([*queen, sure], lone_none=0.1)) == 2
    assert [g.rank for g in group_corners([pip], lone_none=0.1)] == ["7"]
