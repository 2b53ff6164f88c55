"""The live referee tells the table about the room (a muted microphone) on its screen."""

from __future__ import annotations

import numpy as np

import referee.live.loop as loop
from referee.game.rules import Rules
from referee.live.loop import LiveReferee
from referee.session import Session


class Ears:
    """Stands for the recognizer: the loop only sets what to listen for and mutes it."""

    def __init__(self) -> None:
        self.muted_until = -1.0

    def set_context(self, ctx) -> None:
        self.context = ctx

    def mute(self, until: float) -> None:
        self.muted_until = max(self.muted_until, until)


class Screen:
    def __init__(self) -> None:
        self.shown: list[np.ndarray] = []

    def show(self, image: np.ndarray) -> None:
        self.shown.append(image)


def test_a_notice_is_shown_on_the_screen_and_not_said(tmp_path, monkeypatch):
    drawn: list[str] = []
    real_render = loop.render

    def render(view, frame=None, seen=(), message=""):
        drawn.append(message)
        return real_render(view, frame, seen, message)

    monkeypatch.setattr(loop, "render", render)
    session = Session.start(["Alice", "Ben"], Rules(), tmp_path / "journal.jsonl")
    ears, screen = Ears(), Screen()
    referee = LiveReferee(session, ears, [], window=screen)
    referee.notice("The microphone hears nothing at all: is it muted, or its cable out?")
    assert drawn[-1].startswith("The microphone hears nothing")
    assert len(screen.shown) == 1
    assert ears.muted_until == -1.0  # nothing was said, so the ears stay open
    session.close()
