"""The microphone profile: thresholds the recognizer uses, measured by ``referee calibrate mic``.

A small versioned JSON file. A missing profile means the defaults; a corrupt or newer one gets
a clear warning and the defaults, never a crash.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

PROFILE_VERSION = 1
ENV_VAR = "REFEREE_MIC_PROFILE"


@dataclass(frozen=True)
class MicProfile:
    """Voice-activity thresholds.

    A frame is speech when its level is ``margin_db`` above the tracked noise floor and above
    ``min_level_db`` (dBFS). Speech must last ``onset_s`` to start an utterance; ``hangover_s``
    of quiet ends it (short, so a claim is known soon after it is said). Inside an utterance
    a frame also needs to be within ``words_drop_db`` of the loudest frame of it so far, or
    ``words_over_floor_db`` over the floor: at a party the babble of the room rises over the
    floor's margin again and again and held the gate open for seconds past a player's words,
    but it stays well under them (``words_drop_db`` 0 turns this off). ``words_hangover_s``
    of such quiet ends the utterance: a little longer than the gate's own, so the pause at
    the comma of "Cara, cheat!" (0.22 s under babble in a room game) stays inside one
    utterance, as the babble kept it before.
    """

    noise_floor_db: float = -60.0
    speech_level_db: float = -25.0
    margin_db: float = 8.0
    min_level_db: float = -50.0
    onset_s: float = 0.06
    hangover_s: float = 0.2
    preroll_s: float = 0.5
    max_utterance_s: float = 6.0
    words_drop_db: float = 15.0
    words_hangover_s: float = 0.3
    words_over_floor_db: float = 20.0
    version: int = PROFILE_VERSION

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"


DEFAULT = MicProfile()


def default_path() -> Path:
    """``$REFEREE_MIC_PROFILE``, else ``calibration/mic.json`` in the referee's data folder."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    from referee.paths import data_dir

    return data_dir() / "calibration" / "mic.json"


def load(path: str | Path | None = None, *, warn=None) -> MicProfile:
    """The saved profile, or the defaults (with a warning when the file is broken)."""
    warn = warn or (lambda message: print(f"referee: {message}", file=sys.stderr))
    path = Path(path) if path else default_path()
    if not path.is_file():
        return DEFAULT
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        if int(data.get("version", 0)) != PROFILE_VERSION:
            raise ValueError(f"version {data.get('version')!r}, expected {PROFILE_VERSION}")
        known = {f.name for f in fields(MicProfile)}
        values = {k: float(v) for k, v in data.items() if k in known and k != "version"}
        return replace(DEFAULT, **values)
    except (ValueError, TypeError, OSError) as err:
        warn(
            f"ignoring microphone profile {path} ({err}); using defaults. "
            "Run `referee calibrate mic` to make a new one."
        )
        return DEFAULT


def save(profile: MicProfile, path: str | Path | None = None) -> Path:
    path = Path(path) if path else default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(profile.to_json())
    return path
