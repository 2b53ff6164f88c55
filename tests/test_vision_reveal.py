"""What a reveal is: the cards the claimer shows, not those cut by the edge or lying apart,
and a count other than the claim's is asked again (pure geometry, no model)."""

from __future__ import annotations

from referee.vision.group import CardGroup, Corner, cut_by_edge, reveal_groups
from referee.vision.merge import judge_count
from referee.vision.reader import Reveal, SeenCard


def card(rank: str, cx: float, cy: float, h: float = 140.0, conf: float = 0.9) -> CardGroup:
    """An upright card of height ``h`` centred at (cx, cy) showing two diagonal indices."""
    w, s = 0.7 * h, 0.14 * h
    dx, dy = w / 2 - 0.6 * s, h / 2 - 0.6 * s
    corners = []
    for sx, sy in ((-1, -1), (1, 1)):
        mx, my = cx + sx * dx, cy + sy * dy
        corners.append(
            Corner(rank, conf, (mx - s / 4, my - s / 2, mx + s / 4, my + s / 2), (cx, cy))
        )
    return CardGroup(corners)


def ranks(groups) -> list[str]:
    return sorted(g.rank for g in groups)


def test_a_card_cut_by_the_frame_edge_is_not_counted():
    cut = card("K", 620, 200)  # its right half beyond a 640 px frame
    assert cut_by_edge(cut, 640, 480)
    assert not cut_by_edge(card("K", 500, 200), 640, 480)
    kept, aside = reveal_groups([card("7", 250, 240), card("7", 350, 240), cut], 640, 480)
    assert ranks(kept) == ["7", "7"]
    assert [(a.group.rank, a.why) for a in aside] == [("K", "edge")]


def test_a_lone_card_filling_the_frame_is_still_read():
    # a close-up cut on every side: nothing else is in view, so it is the reveal
    big = card("Q", 320, 240, h=560)
    kept, aside = reveal_groups([big], 640, 480)
    assert ranks(kept) == ["Q"] and aside == []


def test_the_deck_in_the_corner_lies_apart_from_the_reveal():
    reveal = [card("9", 260, 300), card("9", 330, 310), card("4", 400, 300)]
    deck = card("A", 60, 70, h=80)  # far away, smaller: the undealt deck's top card
    kept, aside = reveal_groups(reveal + [deck], 640, 480)
    assert ranks(kept) == ["4", "9", "9"]
    assert [(a.group.rank, a.why) for a in aside] == [("A", "apart")]


def test_a_spread_reveal_stays_one_group():
    # three cards spread a card's width apart are one reveal
    spread = [card("J", 150, 240), card("J", 300, 240), card("J", 450, 250)]
    kept, aside = reveal_groups(spread, 640, 480)
    assert len(kept) == 3 and aside == []


def test_the_claimed_count_picks_the_reveal_among_apart_groups():
    pair = [card("5", 120, 250, h=110), card("5", 200, 250, h=110)]
    triple = [card("2", 440, 240, h=90), card("8", 500, 240, h=90), card("3", 560, 240, h=90)]
    kept, _ = reveal_groups(pair + triple, 640, 480)
    assert ranks(kept) == ["2", "3", "8"]  # most cards, without a claim
    kept, aside = reveal_groups(pair + triple, 640, 480, expect=2)
    assert ranks(kept) == ["5", "5"] and len(aside) == 3


def test_all_cards_in_view_making_the_claim_are_all_kept():
    apart = [card("6", 100, 240, h=90), card("6", 540, 240, h=90)]
    assert len(reveal_groups(apart, 640, 480)[0]) == 1
    assert len(reveal_groups(apart, 640, 480, expect=2)[0]) == 2


def seen(rank: str, conf: float = 0.9) -> SeenCard:
    return SeenCard(rank, None, conf, (0, 0, 10, 10))


def test_a_count_other_than_the_claims_is_asked_again_not_judged():
    read = Reveal([seen("K"), seen("K")], readable=True, message="")
    judged = judge_count(read, 3)
    assert not judged.readable
    assert judged.message == "I count 2 cards, not 3: spread the cards"
    assert judged.ranks == ["K", "K"]  # still shown
    assert judge_count(read, 2) is read and judge_count(read, None) is read
    one = judge_count(Reveal([seen("A")], readable=True, message=""), 2)
    assert one.message == "I count 1 card, not 2: spread the cards"
