"""Import ultralytics strictly offline; used by both training and inference.

Ultralytics, left alone, looks up DNS names, fetches ``Arial.ttf`` and downloads weights
for its AMP check. :func:`ultralytics` sets the environment that stops all of that
(FIELD-NOTES "Ultralytics offline") *before* the first import, then restores what the
import changes (``cv2.setNumThreads(0)``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from types import ModuleType

_FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
)


def config_dir() -> Path:
    """A project-local ultralytics settings folder (never the user's home)."""
    env = os.environ.get("REFEREE_YOLO_CONFIG_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "runs" / "yolo-config"


def _prepare(cfg: Path) -> None:
    cfg.mkdir(parents=True, exist_ok=True)
    settings = cfg / "settings.json"
    if not settings.exists():
        settings.write_text('{"sync": false, "hub": false, "clearml": false, "mlflow": false}\n')
    font = next((Path(p) for p in _FONT_CANDIDATES if Path(p).exists()), None)
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        target = cfg / name
        if font is not None and not target.exists():
            shutil.copyfile(font, target)


def ultralytics(threads: int | None = None) -> ModuleType:
    """Return the ``ultralytics`` module, imported with networking disabled."""
    cfg = config_dir()
    os.environ["YOLO_CONFIG_DIR"] = str(cfg)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "False"
    os.environ["YOLO_VERBOSE"] = os.environ.get("YOLO_VERBOSE", "False")
    os.environ.setdefault("HUB_API_KEY", "")
    _prepare(cfg)
    import cv2

    before = cv2.getNumThreads()
    import ultralytics as ul
    from ultralytics.utils import SETTINGS

    if SETTINGS.get("sync"):
        SETTINGS.update({"sync": False})
    cv2.setNumThreads(threads if threads else before)
    return ul
