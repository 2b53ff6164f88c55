"""Train the corner-index detector (YOLOv8n-pose: box = corner index, keypoint = card centre).

Offline and from scratch (no downloaded weights). Resumable: ``--resume`` continues the
last run in ``--project``. On a CPU it uses 2 workers and 2 torch threads (FIELD-NOTES:
nearly twice as fast as ultralytics' CPU default); with ``--device 0`` it uses the GPU.

    python -m referee.vision.synth .faces data/cards --train 8000 --val 500
    python -m referee.vision.train data/cards/data.yaml --imgsz 512 --hours 0.08 --device 0

Fine-tuning ours for a laptop's view (half the scenes seen from its webcam, the other half
looking down as before, so the top-down cases stay; adopt only if ``python -m bench.vision
--model NEW.pt`` is as good on every row and better on the laptop rows):

    python -m referee.vision.synth .faces data/laptop --train 9000 --val 400 --laptop 0.5
    python -m referee.vision.train data/laptop/data.yaml --imgsz 512 --hours 0.1 --device 0
        --batch 64 --workers 14 --init models/corners.pt --lr0 0.002 --out /tmp/corners.pt
        (one command)
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

from referee.vision.ultra import ultralytics


def _cpu_speedup(threads: int, workers: int):
    def cb(trainer) -> None:
        import torch

        if trainer.device.type == "cpu":
            torch.set_num_threads(threads)
            trainer.args.workers = workers

    return cb


def train(
    data: Path,
    *,
    imgsz: int = 512,
    epochs: int = 60,
    hours: float | None = None,
    batch: int = 16,
    device: str = "cpu",
    workers: int = 2,
    project: Path = Path("runs/cards"),
    name: str = "corners",
    resume: bool = False,
    out: Path | None = None,
    init: Path | None = None,
    lr0: float = 0.004,
) -> Path:
    """Train and return the path of the best weights (copied to ``out`` when given)."""
    ul = ultralytics()
    import ultralytics.engine.trainer as trainer_mod

    trainer_mod.check_amp = lambda *a, **k: True  # its check downloads weights
    project = project.resolve()
    if resume:
        last = project / name / "weights" / "last.pt"
        model = ul.YOLO(str(last))
    elif init is not None:  # fine-tune our own earlier weights (never downloaded ones)
        model = ul.YOLO(str(init), task="pose")
    else:
        model = ul.YOLO("yolov8n-pose.yaml")
    model.add_callback("on_pretrain_routine_start", _cpu_speedup(2, workers))
    model.add_callback("on_train_epoch_start", _cpu_speedup(2, workers))
    t0 = time.time()
    kwargs = dict(
        data=str(data),
        imgsz=imgsz,
        epochs=epochs,
        batch=batch,
        device=device,
        workers=workers,
        project=str(project),
        name=name,
        exist_ok=True,
        # ultralytics 8.4 drops a loaded checkpoint's weights when pretrained is False
        # (Model.train: weights = None if pretrained is False), so --init trained from scratch
        pretrained=init is not None,
        plots=False,
        fliplr=0.0,  # mirrored glyphs are not card glyphs
        flipud=0.0,
        degrees=0.0,  # rotation is in the synthetic scenes already
        mosaic=0.5,
        close_mosaic=2,
        scale=0.4,
        translate=0.1,
        hsv_h=0.02,
        hsv_s=0.5,
        hsv_v=0.4,
        patience=1000,
        verbose=True,
        seed=0,
        deterministic=False,
    )
    if hours:
        kwargs["time"] = hours
    if init is not None:
        # ultralytics warms the biases up from 0.1 (50x a fine-tune's rate): they start at lr0
        kwargs.update(
            warmup_epochs=0.3, warmup_bias_lr=lr0, lr0=lr0, optimizer="SGD", close_mosaic=1
        )
    if resume:
        model.train(resume=True)
    else:
        model.train(**kwargs)
    best = project / name / "weights" / "best.pt"
    if not best.exists():
        best = project / name / "weights" / "last.pt"
    info = {"seconds": round(time.time() - t0, 1), "imgsz": imgsz, "device": device}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(best, out)
        out.with_suffix(".train.json").write_text(json.dumps(info, indent=1))
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path, help="data.yaml written by referee.vision.synth")
    ap.add_argument("--imgsz", type=int, default=512)
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--hours", type=float, default=None, help="stop after this long")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--project", type=Path, default=Path("runs/cards"))
    ap.add_argument("--name", default="corners")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--out", type=Path, default=None, help="copy the best weights here")
    ap.add_argument("--init", type=Path, default=None, help="start from these weights")
    ap.add_argument("--lr0", type=float, default=0.004, help="learning rate of a fine-tune")
    a = ap.parse_args(argv)
    best = train(
        a.data, imgsz=a.imgsz, epochs=a.epochs, hours=a.hours, batch=a.batch, device=a.device,
        workers=a.workers, project=a.project, name=a.name, resume=a.resume, out=a.out, init=a.init,
        lr0=a.lr0,
    )  # fmt: skip
    print(best)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
