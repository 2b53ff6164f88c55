"""bench/table's scoring of a game's steps: each move on its first saying."""

from __future__ import annotations

from bench.table.run import score


def step(kind: str, outcome: str, attempt: int = 1, first_say: tuple[str, str] | None = None):
    replies = [] if first_say is None else [{"at": 1.2, "say": first_say[0], "kind": first_say[1]}]
    return {"who": "Yuki", "text": "liar!", "kind": kind, "attempt": attempt, "start": 0.5,
            "end": 1.0, "outcome": outcome, "replies": replies, "voice_at": None}  # fmt: skip


def game(steps: list[dict]) -> dict:
    return {"condition": "quiet", "seed": 0, "derailed": "", "steps": steps, "verdicts": [],
            "winner": None, "expected_winner": "Yuki", "launched": 0.0, "first_line_at": None,
            "first_voice_at": None}  # fmt: skip


ASKED = ("Who called?", "who_called")


def test_a_bare_call_is_right_when_asked_about_and_its_name_taken_the_first_time():
    got = score(game([step("bare_call", "right", first_say=ASKED), step("name", "right")]))
    assert (got["calls"], got["calls_right"]) == (1, 1)
    got = score(game([step("bare_call", "right", first_say=ASKED), step("name", "unheard"),
                      step("name", "right", attempt=2)]))  # fmt: skip
    assert (got["calls"], got["calls_right"]) == (1, 0)


def test_a_bare_call_taken_wrongly_first_is_wrong_however_its_second_saying_ends():
    """Yuki's "liar!" credited to Nadia's voice, undone, said again and asked about: the
    name that answered was taken the first time, but the call was not."""
    wrong = step("bare_call", "wrong", first_say=("Nadia calls cheat on Marco.", "call"))
    again = step("bare_call", "right", attempt=2, first_say=ASKED)
    steps = [wrong, step("undo", "right"), step("undo", "right", attempt=2), again,
             step("name", "right")]  # fmt: skip
    got = score(game(steps))
    assert (got["calls"], got["calls_right"]) == (1, 0)


def test_a_bare_call_credited_to_its_voice_at_once_is_right():
    said = {"at": 1.2, "say": "Yuki calls cheat on Marco.", "kind": "call", "caller": "Yuki"}
    credited = {**step("bare_call", "right"), "replies": [said]}
    got = score(game([credited]))
    assert (got["calls"], got["calls_right"]) == (1, 1)
