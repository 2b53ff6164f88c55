"""The text-to-speech worker process: JSON lines in (``{"i": n, "text": ...}``), acks out.

Run as ``python -m referee.voice.worker [OUT_DIR]``; with OUT_DIR each sentence becomes
``OUT_DIR/NNNNN.wav`` (the voice then plays it itself, or joins them into one file), without
it pyttsx3 says it aloud (with aplay). pyttsx3's own chatter goes to stderr, so standard
output carries only acks (``{"done": n}`` or ``{"error": "..."}``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import wave
from typing import Any

NO_APLAY = "the voice cannot be heard: aplay is missing (sudo apt-get install alsa-utils)"
#: renders of one sentence before it is given up
TRIES = 3


def rendered(path: str) -> bool:
    """Whether ``path`` is a wav with sound in it."""
    try:
        with wave.open(path, "rb") as w:
            return w.getnframes() > 0
    except (OSError, EOFError, wave.Error):
        return False


def render(engine: Any, text: str, path: str, tries: int = TRIES) -> bool:
    """Render ``text`` into the wav ``path``; whether it was.

    pyttsx3's espeak driver now and then returns from ``runAndWait`` without having
    synthesized anything (seen on a busy machine: 1 first sentence in 20 had no file, and the
    referee's greeting went unsaid), so the file is checked and the sentence rendered again.
    """
    for _ in range(tries):
        engine.save_to_file(text, path)
        engine.runAndWait()
        if rendered(path):
            return True
    return False


def main() -> int:
    out_dir = sys.argv[1] if len(sys.argv) > 1 else None
    acks = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):
        try:
            import pyttsx3

            engine = pyttsx3.init()
        except Exception as err:  # no espeak-ng or no driver: say so once, keep acking
            print(json.dumps({"error": f"text-to-speech is unavailable ({err})"}), file=acks)
            acks.flush()
            engine = None
        plays = out_dir or sys.platform != "linux" or shutil.which("aplay")
        if engine is not None and not plays:
            # pyttsx3 plays each sentence with aplay; without it the referee would be mute
            print(json.dumps({"error": NO_APLAY}), file=acks)
            acks.flush()
            engine = None
        for line in sys.stdin:
            job = json.loads(line)
            if engine is not None:
                try:
                    if not out_dir:
                        engine.say(job["text"])
                        engine.runAndWait()
                    elif not render(
                        engine, job["text"], os.path.join(out_dir, f"{job['i']:05d}.wav")
                    ):
                        raise RuntimeError(f"nothing rendered after {TRIES} tries")
                except Exception as err:  # one failed sentence must not end the evening
                    print(json.dumps({"error": f"could not say {job['text']!r}: {err}"}), file=acks)
            print(json.dumps({"done": job["i"]}), file=acks)
            acks.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
