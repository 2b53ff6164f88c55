"""Which players' names the recognizer may take for one another ("Dev" heard as "Ben"), or
not hear at all.

Before a game, each name is spoken by a few espeak-ng voices and heard by the real
recognizer as it listens when it asks who called (names only). A name heard as another
player's name is reported, so the table can be told before the first call is credited to
the wrong player (whoever called wrongly picks up the pile); so is a name most probes are
not heard as any name, as that player's "Who called?" answers would go unheard (a room game
of 2026-12-05: "Nadia." said twelve times, unheard every time; heard by one probe of three).
Synthetic voices are only a hint of how real ones will be heard: a pair found here is worth
a warning, not a refusal.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from referee.speech.audio import ArraySource
from referee.speech.synth import padded, synthesize
from referee.speech.vocab import NUMBER_WORDS, ListenContext

#: a few accents and speeds: enough to catch names that sound alike, quick at start-up
PROBES: tuple[tuple[str, int], ...] = (("en-us", 160), ("en-gb", 190), ("en-gb-x-rp", 140))
#: bumped when what the probes find may change for the same recognizer (drops old answers);
#: 2: names weighed whole (whisper._best_name); 3: names most probes do not hear; 4: names
#: not weighed when the free reading was sure of them
CACHE_VERSION = 4


def _spoken(name: str, voice: str, speed: int) -> np.ndarray:
    speech = synthesize(name, voice=voice, speed=speed)
    return padded(speech, lead_s=0.5, tail_s=1.0, level=0.1, noise=3e-4)


def confusable_names(
    recognizer,
    players: Sequence[str],
    probes: Sequence[tuple[str, int]] = PROBES,
    cache: Path | None | str = "default",
) -> list[tuple[str, str | None]]:
    """(said, heard) pairs of player names: ``said`` was heard as the other player ``heard``,
    or (heard None) as no name at all by most probes.

    The answer for the same names, probes and recognizer is kept in ``cache`` (a JSON file;
    by default ``names.json`` in the data folder; None: not kept) and read back next time:
    the probes cost the referee's start-up 5-17 s (12 decodes), for a table that mostly
    plays with the same names evening after evening."""
    if cache == "default":
        from referee.paths import data_dir

        cache = data_dir() / "names.json"
    cache = Path(cache) if cache is not None else None
    key = _cache_key(recognizer, players, probes)
    known = _read_cache(cache)
    if key in known:
        return [tuple(pair) for pair in known[key]]  # type: ignore[misc]
    found = _probe(recognizer, players, probes)
    if cache is not None:
        known[key] = found
        with contextlib.suppress(OSError):
            cache.parent.mkdir(parents=True, exist_ok=True)
            spare = cache.with_suffix(".tmp")
            spare.write_text(json.dumps(known, indent=0))
            os.replace(spare, cache)
    return found


def _cache_key(recognizer, players: Sequence[str], probes: Sequence[tuple[str, int]]) -> str:
    backend = getattr(recognizer, "backend", None)
    who = f"{type(backend).__module__}.{type(backend).__qualname__}:{getattr(backend, 'name', '')}"
    return json.dumps([CACHE_VERSION, who, list(players), [list(p) for p in probes]])


def _read_cache(cache: Path | None) -> dict:
    if cache is None or not cache.is_file():
        return {}
    try:
        known = json.loads(cache.read_text())
    except (OSError, ValueError):
        return {}  # unreadable: probed again and written anew
    return known if isinstance(known, dict) else {}


def _probe(
    recognizer, players: Sequence[str], probes: Sequence[tuple[str, int]]
) -> list[tuple[str, str | None]]:
    saved = recognizer.context
    recognizer.set_context(
        ListenContext(players=tuple(players), intents=frozenset({"name"}), asking="name")
    )
    found: list[tuple[str, str | None]] = []
    try:
        for name in players:
            unheard = 0
            for voice, speed in probes:
                speech = ArraySource(_spoken(name, voice, speed))
                names = [h.intent.name for h in recognizer.utterances(speech)]
                unheard += not any(names)
                for other in names:
                    if other and other != name and (name, other) not in found:
                        found.append((name, other))
            if 2 * unheard > len(probes):
                found.append((name, None))
    finally:
        recognizer.set_context(saved)
    return found


def warnings(pairs: list[tuple[str, str | None]], players: Sequence[str]) -> list[str]:
    """What to tell the table about each pair, with the fallback that always works."""
    out = []
    for said, heard in pairs:
        seat = list(players).index(said) + 1
        number = NUMBER_WORDS.get(seat, str(seat))
        out.append(
            f"{said} may be heard as {heard or 'no name at all'}: when calling, {said} can say "
            f'"player {number}" instead (for example "cheat, player {number}!").'
        )
    return out
