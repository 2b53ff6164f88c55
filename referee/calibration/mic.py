"""``referee calibrate mic``: measure the room and the players' voices, set the listening
thresholds, and say what to change when the room is too loud or the microphone too far.

From the microphone it asks for a few seconds of quiet, then a few seconds of talk; from a
wav (``--wav``) it finds both in the recording. The result is a small versioned profile
(:mod:`referee.speech.profile`) that ``referee listen`` and ``referee play`` load.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace

import numpy as np

from referee.speech.profile import DEFAULT, MicProfile

FRAME = 320  # 20 ms at 16 kHz
LOUD_ROOM_DB = -35.0
QUIET_SPEECH_DB = -40.0
MIN_SNR_DB = 12.0


@dataclass(frozen=True)
class MicMeasurement:
    """Levels in dBFS: ``noise_db`` is the room between words, ``speech_db`` the voices."""

    noise_db: float
    speech_db: float
    clipping: float  # fraction of samples at full scale

    @property
    def snr_db(self) -> float:
        return self.speech_db - self.noise_db


def frame_levels(samples: np.ndarray) -> np.ndarray:
    n = len(samples) // FRAME
    frames = samples[: n * FRAME].reshape(n, FRAME).astype(np.float64)
    return 10 * np.log10(np.mean(frames**2, axis=1) + 1e-12)


def measure(samples: np.ndarray, quiet: np.ndarray | None = None) -> MicMeasurement:
    """Noise floor and speech level of a recording (``quiet``: a separate stretch of silence)."""
    from referee.errors import UserError

    levels = frame_levels(samples)
    if len(levels) < 25:
        raise UserError("The recording is too short to calibrate: give it at least 2 seconds.")
    if float(np.max(np.abs(samples))) < 1e-4:
        raise UserError("Heard nothing at all: the microphone is muted or unplugged.")
    noise_levels = frame_levels(quiet) if quiet is not None and len(quiet) >= FRAME else levels
    noise = float(np.percentile(noise_levels, 10))
    speech = float(np.percentile(levels, 95))
    clipping = float(np.mean(np.abs(samples) > 0.99))
    return MicMeasurement(max(noise, -90.0), max(speech, -90.0), clipping)


def thresholds(m: MicMeasurement, base: MicProfile = DEFAULT) -> MicProfile:
    """Voice-activity thresholds for this room: the gate sits between noise and voices."""
    margin = float(np.clip(m.snr_db / 2, 4.0, 12.0))
    min_level = float(np.clip(m.noise_db + margin / 2, -60.0, -35.0))
    return replace(
        base,
        noise_floor_db=round(m.noise_db, 1),
        speech_level_db=round(m.speech_db, 1),
        margin_db=round(margin, 1),
        min_level_db=round(min_level, 1),
    )


def advice(m: MicMeasurement) -> list[str]:
    """What the table should change, in words a player can act on."""
    out = []
    if m.clipping > 0.001:
        out.append("The microphone is clipping (too loud): lower its input gain.")
    if m.noise_db > LOUD_ROOM_DB:
        out.append(
            f"The room is loud (noise at {m.noise_db:.0f} dBFS): turn the music down or move "
            "away from it, or the referee will miss calls."
        )
    if m.speech_db < QUIET_SPEECH_DB:
        out.append(
            f"Voices are faint ({m.speech_db:.0f} dBFS): the microphone is too far; put it in "
            "the middle of the table or raise its gain."
        )
    elif m.snr_db < MIN_SNR_DB:
        out.append(
            f"Voices are only {m.snr_db:.0f} dB above the noise: move the microphone closer to "
            "the players or make the room quieter."
        )
    return out


def add_mic_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wav", metavar="FILE", help="calibrate from a recording (quiet + talk)")
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds to record (mic)")
    parser.add_argument("--device", help="microphone: index or part of its name")
    parser.add_argument("--profile", metavar="FILE", help="where to save (default: user data)")


def _record(device, seconds: float) -> tuple[np.ndarray, np.ndarray]:
    from referee.speech.audio import MicSource

    half = max(1.0, seconds / 2)
    print(f"Stay quiet for {half:.0f} seconds...", file=sys.stderr, flush=True)
    quiet = np.concatenate([c.samples for c in MicSource(device, half)])
    print(
        f"Now talk as you would at the table for {half:.0f} seconds "
        '("two aces", "cheat!", each player in turn)...',
        file=sys.stderr,
        flush=True,
    )
    talk = np.concatenate([c.samples for c in MicSource(device, half)])
    return quiet, talk


def run_mic(args: argparse.Namespace) -> int:
    from referee.speech import profile as mic_profile
    from referee.speech.audio import read_wav

    wav = getattr(args, "wav", None)
    if wav:
        samples, quiet = read_wav(wav), None
    else:
        quiet, samples = _record(getattr(args, "device", None), getattr(args, "seconds", 8.0))
    m = measure(samples if quiet is None else np.concatenate([quiet, samples]), quiet)
    profile = thresholds(m)
    path = mic_profile.save(profile, getattr(args, "profile", None))
    print(
        f"noise floor {m.noise_db:.1f} dBFS, speech {m.speech_db:.1f} dBFS "
        f"({m.snr_db:.0f} dB above the noise)"
    )
    print(
        f"speech gate: {profile.margin_db:.1f} dB above the floor, at least "
        f"{profile.min_level_db:.1f} dBFS"
    )
    for line in advice(m):
        print(f"warning: {line}")
    print(f"saved {path}")
    return 0
