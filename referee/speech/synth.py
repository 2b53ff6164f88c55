"""Synthesize table phrases with espeak-ng, for tests, the benchmark and the demo.

>>> samples = synthesize("two aces", voice="en-us", speed=160, pitch=50)  # doctest: +SKIP
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from referee.speech.audio import read_wav, write_wav
from referee.speech.types import SAMPLE_RATE

#: English voices that ship with Debian's espeak-ng; different accents and timbres.
VOICES: tuple[str, ...] = (
    "en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-029", "en-gb-x-gbclan",
    "en-us+f3", "en-us-nyc+f2", "en-gb-x-gbcwmd+m3", "en-us+Alicia",
)  # fmt: skip


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


def synthesize(
    text: str, *, voice: str = "en-us", speed: int = 160, pitch: int = 50, gap_ms: int = 0
) -> np.ndarray:
    """Speak ``text`` with espeak-ng; float32 samples at 16 kHz mono, silence trimmed."""
    if not espeak_available():
        from referee.errors import UserError

        raise UserError("espeak-ng is not installed (Debian: apt-get install espeak-ng).")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "say.wav"
        cmd = ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", str(path)]
        if gap_ms:
            cmd += ["-g", str(max(1, gap_ms // 10))]
        subprocess.run([*cmd, text], check=True, capture_output=True)
        samples = read_wav(path, check=False)
    return _trim(samples)


def synthesize_to_wav(
    text: str,
    path: str | Path,
    *,
    voice: str = "en-us",
    speed: int = 160,
    pitch: int = 50,
    lead_s: float = 0.5,
    tail_s: float = 0.5,
) -> Path:
    """Write ``text`` spoken by espeak-ng to a 16 kHz mono wav with silence around it."""
    speech = synthesize(text, voice=voice, speed=speed, pitch=pitch)
    return write_wav(path, padded(speech, lead_s=lead_s, tail_s=tail_s))


def padded(
    speech: np.ndarray,
    *,
    lead_s: float = 0.5,
    tail_s: float = 0.5,
    level: float | None = None,
    noise: float = 0.0,
) -> np.ndarray:
    """``speech`` with quiet around it, scaled to ``level`` RMS when given, over a seeded
    noise floor of ``noise`` RMS when given (digital silence is not a room)."""
    if level is not None:
        speech = speech * (level / max(float(np.sqrt(np.mean(speech**2))), 1e-6))
    lead = np.zeros(int(lead_s * SAMPLE_RATE), np.float32)
    tail = np.zeros(int(tail_s * SAMPLE_RATE), np.float32)
    audio = np.concatenate([lead, speech.astype(np.float32), tail])
    if noise:
        audio = audio + np.random.default_rng(0).normal(0, noise, len(audio)).astype(np.float32)
    return audio


def _trim(samples: np.ndarray, threshold: float = 1e-3) -> np.ndarray:
    loud = np.flatnonzero(np.abs(samples) > threshold)
    if loud.size == 0:
        return samples[:0]
    return samples[loud[0] : loud[-1] + 1]


def trim_quiet(audio: np.ndarray, threshold: float = 0.02) -> np.ndarray:
    """``audio`` from its first to its last sample louder than ``threshold`` of its peak,
    20 ms kept either side: a synthesized line without its leading and trailing quiet."""
    loud = np.flatnonzero(np.abs(audio) > threshold * max(float(np.abs(audio).max()), 1e-6))
    if not len(loud):
        return audio
    pad = int(0.02 * SAMPLE_RATE)
    return audio[max(0, loud[0] - pad) : loud[-1] + pad]
