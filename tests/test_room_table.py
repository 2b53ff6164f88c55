"""The simulated table's own parts, without a room: the truth it keeps (real cards, the
engine fed them), its reveal photos, and how it finds words and the referee's voice in a
room recording."""

from __future__ import annotations

import numpy as np
import pytest

from tests.room import RATE, onsets
from tests.table import TABLES, Move, TableGame, acts, locate, matches, reveal_photo


def play_out(game: TableGame) -> int:
    """The whole game with every line taken rightly; the number of moves."""
    moves = 0
    while (move := game.next_move()) is not None:
        game.accept(move)
        moves += 1
        if game.phase == "reveal":
            game.accept(Move("", "", game.reveal(), "reveal"))
        held = [len(game.hands[p]) for p in game.players]
        assert held == list(game.state.hands)  # the cards held are the engine's counts
    return moves


@pytest.mark.parametrize("seed", [0, 7, 16])
def test_a_whole_game_keeps_real_cards_in_step_with_the_engine(seed):
    game = TableGame(seed=seed)
    moves = play_out(game)
    assert game.phase == "over" and game.state.winner is not None
    assert game.calls >= 2 and 10 <= game.claims <= 30 and moves > game.claims
    assert sum(len(h) for h in game.hands.values()) + len(game.pile) == 52


def test_the_strangers_table_plays_a_whole_game_by_their_own_names():
    strangers = tuple(TABLES["strangers"])
    game = TableGame(players=strangers, seed=3)
    said = []
    while (move := game.next_move()) is not None:
        said.append(move.text)
        game.accept(move)
        if game.phase == "reveal":
            game.accept(Move("", "", game.reveal(), "reveal"))
    assert game.phase == "over" and game.players[game.state.winner] in strangers
    assert not any(n in text for text in said for n in ("Alice", "Ben", "Cara", "Dev"))
    assert any(f"{n}," in text or f"{n}!" in text for text in said for n in strangers)


def test_a_call_on_a_bluff_is_judged_a_lie_from_the_cards_laid():
    game = TableGame(seed=7, call_every=3)
    while (move := game.next_move()).kind != "call":
        game.accept(move)
    assert move.text == "Ben, cheat!" and game.laid == ["AC", "4H", "4S"]
    said = game.expect(move.event)
    assert said[0]["kind"] == "call" and said[0]["caller"] == "Ben"
    game.accept(move)
    verdict = next(a for a in game.expect(game.reveal()) if a["kind"] == "verdict")
    assert verdict["honest"] is False and verdict["loser"] == "Dev"


def test_the_referee_lines_are_matched_and_its_acts_counted():
    expected = [{"say": "Alice: two aces.", "kind": "claim", "player": "Alice", "count": 2,
                 "rank": "A"}, {"say": "Ben, twos.", "kind": "turn"}]  # fmt: skip
    right = [{"t": 3.1, **expected[0]}, {"t": 3.2, "say": "Ben, twos.", "kind": "turn"},
             {"played": "Alice: two aces.", "kind": "claim", "started": 3, "ended": 4}]  # fmt: skip
    assert matches(expected, right) and acts(right) == 1
    wrong = [{**right[0], "count": 3, "say": "Alice: three aces."}]
    assert not matches(expected, wrong) and acts(wrong) == 1
    assert acts([{"say": "Undone.", "kind": "undo"}]) == 0
    # a bare call, then its caller named: two events, each undone by one "undo"; after the
    # second undo the referee asks again "Who called?", which is the old state restated
    called = [{"say": "Who called?", "kind": "who_called"},
              {"say": "Dev calls cheat on Alice.", "kind": "call", "caller": "Dev"}]  # fmt: skip
    assert acts(called) == 2
    assert acts([{"say": "Undone.", "kind": "undo"}, called[0]]) == 0


def test_reveal_photos_are_read_as_the_cards_laid():
    from referee.vision import CardReader

    reader = CardReader()
    for seed, codes in enumerate((["AC", "4H", "4S"], ["10D"], ["QS", "QH", "2C", "KD"])):
        reveal = reader.read_stable([reveal_photo(codes, seed)] * 4)
        assert reveal.readable, reveal.message
        assert sorted(c.rank for c in reveal.cards) == sorted(c[:-1] for c in codes)


def test_words_and_the_referees_voice_are_found_in_a_recording():
    rng = np.random.default_rng(0)
    words = rng.normal(0, 0.2, int(0.5 * RATE)).astype(np.float32)
    left = rng.normal(0, 0.01, 5 * RATE).astype(np.float32)  # a noisy room
    left[int(1.234 * RATE) : int(1.234 * RATE) + len(words)] += words
    assert abs(locate(left, words, near=1.0) - 1.234) < 1e-3
    right = np.zeros(5 * RATE, np.float32)
    right[int(2.0 * RATE) : int(2.5 * RATE)] = 0.1  # two sentences, a short pause between
    right[int(2.7 * RATE) : int(3.2 * RATE)] = 0.1
    assert onsets(right) == [(2.0, 3.2)]


def test_a_bare_call_never_taken_is_forgotten_by_the_truth_too():
    game = TableGame(seed=0)
    while (move := game.next_move()).kind != "bare_call":
        game.accept(move)
        if game.phase == "reveal":
            game.accept(Move("", "", game.reveal(), "reveal"))
    before = game.state
    game.accept(move)
    assert game.phase == "who_called" and game.next_move().kind == "name"
    game.forget_call()
    assert game.state is before and game.phase == "play"


def test_a_reverberant_room_gives_each_seat_its_own_tail_and_keeps_the_words():
    """bench/table --rt60: every seat hears the laptop through the same room, its tail as
    long as the room's RT60 asks (not the 0.2 s an order-12 cap leaves), the words as loud
    as dry and as long."""
    pra = pytest.importorskip("pyroomacoustics")
    from tests.table import in_room, seat_rooms

    rooms = seat_rooms(("A", "B", "C", "D"), 0.5, seed=3)
    assert set(rooms) == {"A", "B", "C", "D"}
    tails = [pra.experimental.measure_rt60(r, fs=RATE) for r in rooms.values()]
    assert all(0.4 <= t <= 0.9 for t in tails), tails
    assert not np.allclose(rooms["A"][:400], rooms["B"][:400])  # seats differ
    words = np.sin(np.arange(RATE) * 0.2).astype(np.float32) * 0.1
    heard, located = in_room(words, rooms["A"])
    assert len(located) == len(words) and len(heard) > len(words) + 0.3 * RATE
    assert abs(np.sqrt(np.mean(located**2)) - 0.1) < 1e-3
    assert in_room(words, None)[0] is words
