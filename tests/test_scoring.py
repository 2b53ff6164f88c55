"""The scoring tables of RULES.md, on the worked match and on random matches."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.game.record import GameRecord
from referee.store.scoring import (
    TRUST_ME_NOTE,
    Scoring,
    ScoringError,
    game_points,
    match_winner,
    note,
    parse_scoring,
    progression,
    spoken_standing,
    standings,
)
from tests.store_helpers import FOUR, game


def worked_match() -> list[GameRecord]:
    """RULES.md's worked match, with the table talk it describes."""
    return [
        # Alice lays her last two cards as "two nines", everyone calls, Ben first: nines.
        game(
            1,
            "Alice",
            {"Ben": 20, "Cara": 11, "Dev": 9},
            pickups={"Ben": [14]},
            calls_made={"Ben": 1},
            calls_lost={"Ben": 1},
            wrongly_called={"Alice": 1},
        ),
        # Ben goes out after Cara picks up a forty-card pile (Dev caught her lying).
        game(
            2,
            "Ben",
            {"Alice": 6, "Cara": 41, "Dev": 5},
            pickups={"Cara": [40]},
            calls_made={"Dev": 1},
            calls_won={"Dev": 1},
            caught_lying={"Cara": 1},
        ),
        # Alice again, unchallenged on her last card.
        game(3, "Alice", {"Ben": 4, "Cara": 12, "Dev": 8}),
    ]


def table(records, scoring, players=FOUR):
    return [(s.player, s.rank, s.wins, s.points) for s in standings(records, players, scoring)]


def test_worked_match_table_reads_alice_2_ben_1_cara_0_dev_0():
    assert table(worked_match(), "wins") == [
        ("Alice", 1, 2, 2),
        ("Ben", 2, 1, 1),
        ("Cara", 3, 0, 0),
        ("Dev", 3, 0, 0),
    ]
    assert spoken_standing(worked_match(), FOUR) == "Alice 2, Ben 1, Cara and Dev 0. Alice leads."


def test_nothing_but_wins_changes_a_match_table_standing():
    quiet = [game(r.game, r.winner, {p: 1 for p in FOUR}) for r in worked_match()]
    assert table(quiet, "wins") == table(worked_match(), "wins")


def test_ranked_scores_3_2_1_for_the_places():
    # places by cards left: g1 Alice Dev Cara Ben; g2 Ben Dev Alice Cara; g3 Alice Ben Dev Cara
    assert table(worked_match(), "ranked") == [
        ("Alice", 1, 2, 3 + 1 + 3),
        ("Ben", 2, 1, 0 + 3 + 2),
        ("Dev", 2, 0, 2 + 2 + 1),
        ("Cara", 4, 0, 1 + 0 + 0),
    ]


def test_ranked_in_a_two_player_game_gives_3_and_2():
    g = GameRecord(1, ("Alice", "Ben"), "Ben", ("Ben", "Alice"), {"Alice": 3, "Ben": 0})
    assert game_points(g, "ranked") == {"Alice": 2, "Ben": 3}


@pytest.mark.parametrize(
    ("n", "winner"), [(1, "Alice"), (2, "Alice"), (3, None)], ids=["first_to_1", "2", "3"]
)
def test_first_to_n_is_decided_the_moment_someone_reaches_n(n, winner):
    assert match_winner(worked_match(), FOUR, f"first_to:{n}") == winner
    said = spoken_standing(worked_match(), FOUR, f"first_to:{n}")
    assert said.endswith("Alice wins the match." if winner else "Alice leads.")


def test_first_to_n_keeps_the_first_to_get_there_even_if_caught_up():
    records = [*worked_match(), game(4, "Ben", {"Alice": 3}), game(5, "Ben", {"Alice": 2})]
    assert match_winner(records, FOUR, "first_to:2") == "Alice"
    first = standings(records, FOUR, "first_to:2")[0]
    assert (first.player, first.wins, first.rank) == ("Alice", 2, 1)
    # Ben has more wins by now, but the match was already taken
    assert standings(records, FOUR, "first_to:2")[1].wins == 3


def test_penalty_losers_score_cards_left_and_lowest_wins():
    assert table(worked_match(), "penalty") == [
        ("Alice", 1, 2, 0 + 6 + 0),
        ("Dev", 2, 0, 9 + 5 + 8),
        ("Ben", 3, 1, 20 + 0 + 4),
        ("Cara", 4, 0, 11 + 41 + 12),
    ]
    assert match_winner(worked_match(), FOUR, "penalty") is None  # the table says when
    assert match_winner(worked_match(), FOUR, "penalty", finished=True) == "Alice"


def test_classic_order_has_no_points_and_ranks_the_rest_by_cards_left():
    standing = standings(worked_match(), FOUR, "classic_order")
    assert [s.player for s in standing] == ["Alice", "Ben", "Dev", "Cara"]
    assert all(s.points is None for s in standing)
    assert [s.cards_left for s in standing] == [6, 24, 22, 64]


def test_trust_me_scores_every_item_of_the_table():
    # g1: Alice +10 out +10 wrongly called; Ben -20; Cara -11; Dev -9
    # g2: Ben +10; Alice -6; Cara -41; Dev -5 +10 (caught Cara)
    # g3: Alice +10; Ben -4; Cara -12; Dev -8
    assert table(worked_match(), "trust_me") == [
        ("Alice", 1, 2, 20 - 6 + 10),
        ("Dev", 2, 0, -9 + 5 - 8),
        ("Ben", 3, 1, -20 + 10 - 4),
        ("Cara", 4, 0, -11 - 41 - 12),
    ]


def test_trust_me_pays_25_per_false_card_the_referee_saw_get_away():
    g = GameRecord(
        1,
        ("Alice", "Ben"),
        "Alice",
        ("Alice", "Ben"),
        {"Alice": 0, "Ben": 7},
        unchallenged_false_cards_seen={"Alice": 3},
        all_plays_seen=True,
    )
    assert game_points(g, "trust_me") == {"Alice": 10 + 3 * 25, "Ben": -7}


def test_trust_me_standing_says_hidden_lies_only_count_when_seen():
    assert note(worked_match(), "trust_me") == TRUST_ME_NOTE
    assert spoken_standing(worked_match(), FOUR, "trust_me").endswith(TRUST_ME_NOTE)
    assert "Ben minus 14" in spoken_standing(worked_match(), FOUR, "trust_me")
    seen = [GameRecord(**{**r.to_dict(), "all_plays_seen": True}) for r in worked_match()]
    assert note(seen, "trust_me") == ""
    assert note(worked_match(), "wins") == ""


def test_spoken_standing_ties_and_empty_matches():
    assert spoken_standing([], FOUR) == "No games yet."
    two = worked_match()[:2]
    assert spoken_standing(two, FOUR) == "Alice and Ben 1, Cara and Dev 0. Alice and Ben are level."
    nobody = [game(1, None, {p: 5 for p in FOUR})]
    assert spoken_standing(nobody, FOUR) == "Alice, Ben, Cara and Dev 0. All level."
    assert match_winner(two, FOUR, "wins", finished=True) is None
    assert spoken_standing(worked_match(), FOUR, finished=True).endswith("Alice wins the match.")


def test_players_who_never_won_still_stand_and_seat_order_breaks_ties():
    standing = standings([game(1, "Dev", {})], FOUR, "wins")
    assert [(s.player, s.rank) for s in standing] == [
        ("Dev", 1),
        ("Alice", 2),
        ("Ben", 2),
        ("Cara", 2),
    ]
    assert [s.player for s in standings([], ("Cara", "Alice"), "wins")] == ["Cara", "Alice"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("wins", Scoring("wins")),
        ("", Scoring("wins")),
        ("match table", Scoring("wins")),
        ("ranked", Scoring("ranked")),
        ("first_to:3", Scoring("first_to", 3)),
        ("First-To:2", Scoring("first_to", 2)),
        ("best_of:3", Scoring("first_to", 2)),
        ("best_of:5", Scoring("first_to", 3)),
        ("penalty", Scoring("penalty")),
        ("classic_order", Scoring("classic_order")),
        ("classic", Scoring("classic_order")),
        ("trust_me", Scoring("trust_me")),
    ],
)
def test_parse_scoring_reads_every_table(text, expected):
    assert parse_scoring(text) == expected
    assert parse_scoring(expected.name) == expected  # the stored name reads back


@pytest.mark.parametrize(
    "text", ["bogus", "first_to", "first_to:0", "first_to:x", "best_of:4", "wins:3"]
)
def test_parse_scoring_rejects_with_a_useful_message(text):
    with pytest.raises(ScoringError, match=r"first_to|best_of|choose one of"):
        parse_scoring(text)


# -- invariants over random matches -------------------------------------------------------

SCORINGS = ["wins", "ranked", "first_to:1", "first_to:2", "first_to:3", "penalty"]
SCORINGS += ["classic_order", "trust_me"]


@st.composite
def matches(draw):
    players = tuple(draw(st.lists(st.sampled_from("ABCDEFG"), min_size=2, max_size=6, unique=True)))
    records = []
    for number in range(1, draw(st.integers(0, 8)) + 1):
        winner = draw(st.sampled_from((*players, None)))
        left = {p: 0 if p == winner else draw(st.integers(1, 30)) for p in players}
        places = tuple(sorted(players, key=lambda p: (p != winner, left[p])))
        counts = st.dictionaries(st.sampled_from(players), st.integers(0, 4), max_size=3)
        records.append(
            GameRecord(
                number,
                players,
                winner,
                places,
                left,
                pickups=draw(
                    st.dictionaries(st.sampled_from(players), st.lists(st.integers(1, 52)))
                ),
                calls_made=draw(counts),
                calls_won=draw(counts),
                wrongly_called=draw(counts),
                unchallenged_false_cards_seen=draw(counts),
                all_plays_seen=draw(st.booleans()),
            )
        )
    return players, records


@settings(max_examples=150, deadline=None)
@given(matches(), st.sampled_from(SCORINGS), st.randoms(use_true_random=False))
def test_standing_invariants(match, scoring, rnd: random.Random):
    players, records = match
    standing = standings(records, players, scoring)
    assert sorted(s.player for s in standing) == sorted(players)
    assert sum(s.wins for s in standing) == sum(r.winner is not None for r in records)
    ranks = [s.rank for s in standing]
    for i, rank in enumerate(ranks):
        assert rank == i + 1 or (i and rank == ranks[i - 1])  # 1, 2, 2, 4
    # the order the games arrive in does not matter
    shuffled = list(records)
    rnd.shuffle(shuffled)
    assert standings(shuffled, players, scoring) == standing
    # the chart ends where the standing is
    last = {p: values[-1] for p, values in progression(records, players, scoring).items()}
    for s in standing:
        assert last[s.player] == (s.points if s.points is not None else s.wins)
    # the spoken sentence names everybody once
    said = spoken_standing(records, players, scoring)
    if records:
        assert all(said.count(p) >= 1 for p in players)
    winner = match_winner(records, players, scoring, finished=True)
    if winner is not None:
        assert [s.player for s in standing if s.rank == 1] == [winner]
        said = spoken_standing(records, players, scoring, finished=True)
        assert f"{winner} wins the match." in said


@settings(max_examples=100, deadline=None)
@given(matches())
def test_table_totals(match):
    players, records = match
    by = {s: {x.player: x for x in standings(records, players, s)} for s in SCORINGS}
    per_game_ranked = sum(sum((3, 2, 1)[: len(r.places)]) for r in records)
    assert sum(s.points for s in by["ranked"].values()) == per_game_ranked
    losers_cards = sum(n for r in records for p, n in r.cards_left.items() if p != r.winner)
    assert sum(s.points for s in by["penalty"].values()) == losers_cards
    assert all(s.points == s.wins for s in by["wins"].values())
    winner = match_winner(records, players, "first_to:2")
    if winner is not None:
        assert by["first_to:2"][winner].wins >= 2
        assert by["first_to:2"][winner].rank == 1
    else:
        assert all(s.wins < 2 for s in by["first_to:2"].values())
