"""What every saved profile's ``profile.json`` begins with (a deck's, the table's voices),
written here for both layers that save one (vision and speech, which never import each
other)."""

from __future__ import annotations

import json
import time
from pathlib import Path


def now() -> str:
    """A profile's ``created`` stamp for this moment."""
    return time.strftime("%Y-%m-%dT%H:%M:%S")


def write_profile(folder: Path, kind: str, profile, fields: dict) -> Path:
    """``folder/profile.json``: ``profile``'s version, ``kind``, name, created (now, if it
    has none) and source, then ``fields``, in that order."""
    data = {
        "version": profile.version,
        "kind": kind,
        "name": profile.name,
        "created": profile.created or now(),
        "source": profile.source,
        **fields,
    }
    path = folder / "profile.json"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return path
