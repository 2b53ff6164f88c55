#!/usr/bin/env bash
# Install everything the referee needs into .venv/ (and Debian packages when root).
#   scripts/setup.sh          runtime only (no torch: the card models run as ONNX), ~1 GB
#   scripts/setup.sh --dev    plus training (torch, ultralytics: ~6.5 GB) and the test tools
set -euo pipefail
cd "$(dirname "$0")/.."

# libspeexdsp1: the echo canceller that lets the referee hear a call over its own voice
APT_PACKAGES=(espeak-ng alsa-utils libportaudio2 libspeexdsp1 sox libsox-fmt-all libgl1 libglib2.0-0
              gnome-cards-data kdegames-card-data-kf5 fonts-dejavu-core librsvg2-bin xvfb)
# --dev: a private PulseAudio room for the whole-game tests (tests/room.py) and bench/table
[ "${1:-}" = "--dev" ] && APT_PACKAGES+=(pulseaudio pulseaudio-utils libasound2-plugins)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages. Run:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

dev=""
[ "${1:-}" = "--dev" ] && dev=1

# The runtime (the referee at the table) needs no torch: both card models run as ONNX.
# --dev adds the [train] extra (torch, ultralytics: making data, training, exporting), whose
# libraries take about 6.5 GB in .venv/: say so plainly rather than let pip stop half-way
# with "No space left on device" (it did, on a full disk, once).
NEED_GB=2
if [ -n "$dev" ] && ! .venv/bin/python -c "import torch" >/dev/null 2>&1; then
  NEED_GB=7
fi
if [ "$NEED_GB" = 7 ] || [ ! -x .venv/bin/python ]; then
  free_kb=$(df -Pk . | awk 'NR==2 {print $4}')
  if [ "${free_kb:-0}" -lt $((NEED_GB * 1024 * 1024)) ]; then
    what="the referee's libraries"
    [ "$NEED_GB" = 7 ] && what="torch and its libraries, for --dev"
    echo "setup: about ${NEED_GB} GB of free disk is needed for .venv/ (${what});" \
         "only $((free_kb / 1024 / 1024)) GB is free on $(df -P . | awk 'NR==2 {print $6}')." >&2
    exit 1
  fi
fi

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
if [ -n "$dev" ]; then
  # torch first and pinned: an unpinned torch pulls several GB from the network.
  .venv/bin/python -m pip install -q "torch==2.14.1" "torchvision==0.29.1"
  .venv/bin/python -m pip install -q -e ".[dev]"
else
  .venv/bin/python -m pip install -q -e .
fi
# ultralytics may drag in opencv-python-headless; both write cv2/, so make the GUI build win.
if .venv/bin/python -m pip show -q opencv-python-headless >/dev/null 2>&1; then
  .venv/bin/python -m pip uninstall -q -y opencv-python-headless
  .venv/bin/python -m pip install -q --force-reinstall --no-deps "opencv-python==5.0.0.93"
fi
echo "setup: ready (.venv/bin/referee)"
