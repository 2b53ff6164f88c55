"""A private room for whole-game tests: a PulseAudio daemon with one null sink, ``room``.

The sink is the room's air: what plays into it is what the laptop's microphone hears, since
its monitor is the daemon's default source, and the referee's own voice (pyttsx3 plays every
sentence with ``aplay``) reaches it through ALSA's ``pulse`` plugin, as it would a laptop's
speakers. ``PulseRoom.env`` holds the variables a subprocess needs to be in the room:
PortAudio (sounddevice) then lists a ``pulse`` device, so ``referee play --mic pulse`` listens
to the room.

Everything lives under one temporary folder: the daemon's socket, runtime dir, cookie,
state and config, never the user's; the daemon never exits on its own and no client may
spawn another one; :meth:`PulseRoom.stop` ends it by its PID.

The table's voices go into the left channel only (:meth:`PulseRoom.play`), while the
referee's mono voice fills both, so a stereo recording of the room (:class:`RoomRecorder`)
holds the referee alone on its right channel: its voice is found to the millisecond even
under babble. The microphone hears the two channels averaged.

>>> with PulseRoom() as room:  # doctest: +SKIP
...     rec = room.recorder()
...     room.play(samples)           # float32 at 16 kHz, into the room
...     audio = rec.stop()           # (n, 2) float32: left = everything, right = aplay only
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

RATE = 16_000
SINK = "room"
PACKAGES = "pulseaudio pulseaudio-utils libasound2-plugins"


class RoomError(RuntimeError):
    """The room cannot be set up here (no PulseAudio, or it would not start)."""


def missing_tools() -> list[str]:
    """The programs the room needs that are not installed."""
    return [t for t in ("pulseaudio", "pactl", "pacat", "parec") if shutil.which(t) is None]


class PulseRoom:
    """A private PulseAudio daemon with a null sink ``room`` (see the module docstring)."""

    def __init__(self, root: Path | str | None = None, start_timeout: float = 10.0) -> None:
        self._own_root = root is None
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="referee-room-"))
        self.start_timeout = start_timeout
        self.socket = self.root / "native"
        self.pid: int | None = None
        self._daemon: subprocess.Popen | None = None
        self._players: list[subprocess.Popen] = []
        self._keeper: RoomRecorder | None = None
        self.env = self._environment()

    # --- the daemon ------------------------------------------------------------------

    def _environment(self) -> dict[str, str]:
        runtime, config = self.root / "runtime", self.root / "config"
        for folder in (runtime, config / "pulse", self.root / "state"):
            folder.mkdir(parents=True, exist_ok=True)
        runtime.chmod(0o700)
        client = config / "pulse" / "client.conf"
        client.write_text(f"autospawn = no\ndefault-server = unix:{self.socket}\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PULSE_")}
        env.update(
            PULSE_SERVER=f"unix:{self.socket}",
            PULSE_COOKIE=str(self.root / "cookie"),
            PULSE_CLIENTCONFIG=str(client),
            PULSE_RUNTIME_PATH=str(runtime / "pulse"),
            PULSE_STATE_PATH=str(self.root / "state"),
            XDG_RUNTIME_DIR=str(runtime),
            XDG_CONFIG_HOME=str(config),
        )
        return env

    def start(self) -> PulseRoom:
        missing = missing_tools()
        if missing:
            raise RoomError(f"{', '.join(missing)} not installed (apt-get install {PACKAGES})")
        log = self.root / "pulseaudio.log"
        command = [
            "pulseaudio", "-n", "--daemonize=no", "--system=no", "--exit-idle-time=-1",
            "--use-pid-file=no", "--disallow-module-loading=no", f"--log-target=file:{log}",
            "-L", f"module-native-protocol-unix socket={self.socket} auth-anonymous=1",
            "-L", f"module-null-sink sink_name={SINK} rate=48000 channels=2 "
            "sink_properties=device.description=room",
        ]  # fmt: skip
        env = {**self.env, "HOME": str(self.root)}  # the daemon writes nothing of the user's
        self._daemon = subprocess.Popen(
            command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        self.pid = self._daemon.pid
        deadline = time.monotonic() + self.start_timeout
        while True:
            if self._daemon.poll() is not None:
                text = log.read_text(errors="replace")[-600:] if log.exists() else ""
                self.stop()
                raise RoomError(f"pulseaudio exited ({self._daemon.returncode}): {text}")
            if self.socket.exists() and self._pactl("info", check=False).returncode == 0:
                break
            if time.monotonic() > deadline:
                self.stop()
                raise RoomError(f"pulseaudio did not answer within {self.start_timeout:.0f} s")
            time.sleep(0.05)
        self._pactl("set-default-sink", SINK)
        self._pactl("set-default-source", f"{SINK}.monitor")
        self._keep_awake()
        return self

    def _keep_awake(self) -> None:
        """A null sink left alone renders 2 s blocks: every new stream into it or out of its
        monitor then starts about 2 s late. One low-latency recording kept running holds it
        at 20 ms, so the referee's ``aplay`` and the table's lines sound at once."""
        keeper = RoomRecorder(self.env, keep=False)
        deadline = time.monotonic() + self.start_timeout
        while keeper.received == 0:
            if time.monotonic() > deadline:
                keeper.stop()
                self.stop()
                raise RoomError("the room's monitor delivered no audio")
            time.sleep(0.01)
        self._keeper = keeper

    def _pactl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(["pactl", *args], env=self.env, capture_output=True, text=True)
        if check and done.returncode:
            raise RoomError(f"pactl {' '.join(args)}: {done.stderr.strip()}")
        return done

    def pactl(self, *args: str) -> str:
        """Run ``pactl`` against this room; its output."""
        return self._pactl(*args).stdout

    def stop(self) -> None:
        if self._keeper is not None:
            self._keeper.stop()
            self._keeper = None
        for player in self._players:
            _end(player)
        self._players.clear()
        if self._daemon is not None:
            _end(self._daemon, signal.SIGTERM)
            self._daemon = None
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PulseRoom:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- sound in and out ------------------------------------------------------------

    def play(self, samples: np.ndarray, wait: bool = True) -> subprocess.Popen:
        """Say ``samples`` (float32, 16 kHz mono) into the room's left channel, as a player
        at the table; waits until it has played unless ``wait`` is False."""
        process = self.stream()
        assert process.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            process.stdin.write(_stereo_left(samples))
            process.stdin.close()
        if wait:
            process.wait()
        return process

    def play_wav(self, path: Path | str, wait: bool = True) -> subprocess.Popen:
        """Play a wav file (any format) into the room, both channels, with ``paplay``."""
        process = subprocess.Popen(["paplay", f"--device={SINK}", str(path)], env=self.env)
        if wait:
            process.wait()
        return process

    def stream(self, latency_ms: int = 30) -> subprocess.Popen:
        """A ``pacat`` playing raw stereo s16le at 16 kHz written to its stdin into the room
        (for a background bed fed while the game goes on); ended with the room."""
        process = subprocess.Popen(
            ["pacat", "--playback", f"--device={SINK}", "--raw", "--format=s16le",
             f"--rate={RATE}", "--channels=2", f"--latency-msec={latency_ms}"],
            env=self.env, stdin=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self._players = [p for p in self._players if p.poll() is None] + [process]
        return process

    def recorder(self) -> RoomRecorder:
        """Start recording the room (its sink's monitor, stereo 16 kHz)."""
        return RoomRecorder(self.env)

    def record(self, seconds: float) -> np.ndarray:
        """The room for ``seconds``: (n, 2) float32 at 16 kHz."""
        rec = self.recorder()
        time.sleep(seconds)
        return rec.stop()


class RoomRecorder:
    """The room's monitor recorded from now on, stereo 16 kHz, read as it comes.

    Its clock is the count of samples received: ``now()`` is that in seconds, and
    ``at(wall)`` maps a ``time.monotonic()`` reading onto it (audio reaches us a little after
    it sounded, never before, so the largest offset seen is the closest to the truth)."""

    def __init__(self, env: dict[str, str], latency_ms: int = 20, keep: bool = True) -> None:
        self.keep = keep  # False: count the samples, keep none
        self._process = subprocess.Popen(
            ["parec", f"--device={SINK}.monitor", "--raw", "--format=s16le", f"--rate={RATE}",
             "--channels=2", f"--latency-msec={latency_ms}"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.started = time.monotonic()
        self._blocks: list[np.ndarray] = []
        self._count = 0
        self.received = 0  # bytes
        self._ahead = -1e9  # audio time minus wall time, largest seen
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self._process.stdout is not None
        spare = b""
        while True:
            data = self._process.stdout.read1(8192)
            if not data:
                return
            self.received += len(data)
            if not self.keep:
                continue
            data, spare = spare + data, b""
            if len(data) % 4:
                data, spare = data[: len(data) - len(data) % 4], data[len(data) - len(data) % 4 :]
            block = np.frombuffer(data, np.int16).reshape(-1, 2).astype(np.float32) / 32768
            wall = time.monotonic()
            with self._lock:
                self._blocks.append(block)
                self._count += len(block)
                self._ahead = max(self._ahead, self._count / RATE - (wall - self.started))

    def now(self) -> float:
        with self._lock:
            return self._count / RATE

    def at(self, wall: float) -> float:
        """The recording's time of a ``time.monotonic()`` reading."""
        with self._lock:
            ahead = self._ahead if self._ahead > -1e9 else 0.0
        return wall - self.started + ahead

    def audio(self) -> np.ndarray:
        """Everything recorded so far: (n, 2) float32."""
        with self._lock:
            if len(self._blocks) > 1:
                self._blocks = [np.concatenate(self._blocks)]
            return self._blocks[0].copy() if self._blocks else np.zeros((0, 2), np.float32)

    def tail(self, seconds: float, channel: int = 1) -> np.ndarray:
        """The last ``seconds`` recorded on ``channel`` (1: the referee's voice alone)."""
        with self._lock:
            parts, need = [], int(seconds * RATE)
            for block in reversed(self._blocks):
                parts.append(block[-need:, channel])
                need -= len(parts[-1])
                if need <= 0:
                    break
        return np.concatenate(parts[::-1]) if parts else np.zeros(0, np.float32)

    def level(self, seconds: float, channel: int = 1) -> float:
        """RMS of the last ``seconds`` on ``channel`` (1: the referee's voice alone)."""
        x = self.tail(seconds, channel)
        return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if len(x) else 0.0

    def stop(self) -> np.ndarray:
        """Stop recording; everything recorded."""
        _end(self._process, signal.SIGTERM)
        self._thread.join(2.0)
        return self.audio()


def _stereo_left(samples: np.ndarray) -> bytes:
    mono = np.clip(np.asarray(samples, np.float32), -1, 1)
    pcm = np.zeros((len(mono), 2), np.int16)
    pcm[:, 0] = (mono * 32767).astype(np.int16)
    return pcm.tobytes()


def _end(process: subprocess.Popen, sig: int = signal.SIGTERM, wait: float = 3.0) -> None:
    """End one process we started, by its PID; killed if it does not go in ``wait`` s."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, sig)
    try:
        process.wait(wait)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)
        process.wait(wait)


def onsets(right: np.ndarray, threshold: float = 0.003, hold_s: float = 0.35) -> list[tuple]:
    """(start, end) seconds of each stretch of sound on one channel (the referee's voice),
    stretches closer than ``hold_s`` joined: espeak pauses between words and sentences."""
    frame = RATE // 100
    n = len(right) // frame
    if not n:
        return []
    peaks = np.abs(right[: n * frame]).reshape(n, frame).max(axis=1) > threshold
    spans: list[tuple[float, float]] = []
    start = None
    last = -1e9
    for i, loud in enumerate(peaks):
        if not loud:
            continue
        if start is None:
            start = i
        elif (i - last) * 0.01 > hold_s:
            spans.append((start * 0.01, (last + 1) * 0.01))
            start = i
        last = i
    if start is not None:
        spans.append((start * 0.01, (last + 1) * 0.01))
    return spans
