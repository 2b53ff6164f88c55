"""Which players' names the recognizer may take for one another ("Dev" heard as "Ben").

Before a game, each name is spoken by a few espeak-ng voices and heard by the real
recognizer as it listens when it asks who called (names only). A name heard as another
player's name is reported, so the table can be told before the first call is credited to
the wrong player (whoever called wrongly picks up the pile). Synthetic voices are only a
hint of how real ones will be heard: a pair found here is worth a warning, not a refusal.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from referee.speech.audio import ArraySource
from referee.speech.synth import padded, synthesize
from referee.speech.vocab import NUMBER_WORDS, ListenContext

#: a few accents and speeds: enough to catch names that sound alike, quick at start-up
PROBES: tuple[tuple[str, int], ...] = (("en-us", 160), ("en-gb", 190), ("en-gb-x-rp", 140))


def _spoken(name: str, voice: str, speed: int) -> np.ndarray:
    speech = synthesize(name, voice=voice, speed=speed)
    return padded(speech, lead_s=0.5, tail_s=1.0, level=0.1, noise=3e-4)


def confusable_names(
    recognizer, players: Sequence[str], probes: Sequence[tuple[str, int]] = PROBES
) -> list[tuple[str, str]]:
    """(said, heard) pairs of player names: ``said`` was heard as the other player ``heard``."""
    saved = recognizer.context
    recognizer.set_context(ListenContext(players=tuple(players), intents=frozenset({"name"})))
    found: list[tuple[str, str]] = []
    try:
        for name in players:
            for voice, speed in probes:
                for heard in recognizer.utterances(ArraySource(_spoken(name, voice, speed))):
                    other = heard.intent.name
                    if other and other != name and (name, other) not in found:
                        found.append((name, other))
    finally:
        recognizer.set_context(saved)
    return found


def warnings(pairs: list[tuple[str, str]], players: Sequence[str]) -> list[str]:
    """What to tell the table about each pair, with the fallback that always works."""
    out = []
    for said, heard in pairs:
        seat = list(players).index(said) + 1
        number = NUMBER_WORDS.get(seat, str(seat))
        out.append(
            f"{said} may be heard as {heard}: when calling, {said} can say "
            f'"player {number}" instead (for example "cheat, player {number}!").'
        )
    return out
