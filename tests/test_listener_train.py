"""The listener's training tools: heads of every shape export to what the runtime reads,
heads averaged into one file answer as their mean, and an exported head is taken back to be
trained on."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from referee.speech.listener.backend import ListenerHead  # noqa: E402
from referee.speech.listener.labels import HEADS  # noqa: E402
from referee.speech.listener.train import (  # noqa: E402
    DIM,
    MODEL,
    average,
    build_model,
    export,
    weights_from_onnx,
)


def _exported(tmp_path: Path, name: str, seed: int, **shape) -> tuple[Path, object]:
    torch.manual_seed(seed)
    model = build_model(**shape)
    model.eval()
    path = tmp_path / f"{name}.onnx"
    export(model, path)
    return path, model


@pytest.mark.parametrize("shape", [{"hidden": 32}, {"hidden": 32, "layers": 1}])
def test_an_exported_head_answers_as_the_trained_one(tmp_path: Path, shape: dict) -> None:
    path, model = _exported(tmp_path, "head", 0, **shape)
    frames = np.random.default_rng(1).standard_normal((83, DIM)).astype(np.float32)
    with torch.no_grad():
        want = [torch.softmax(z, -1)[0].numpy() for z in model(torch.from_numpy(frames)[None])]
    got = ListenerHead(path)(frames)
    for name, expected in zip(HEADS, want, strict=True):
        assert np.allclose(got[name], expected, atol=1e-5), name


def test_attention_ignores_the_padding_of_a_batch() -> None:
    """A clip padded in a batch reads as alone: masked frames never reach the others."""
    torch.manual_seed(0)
    block = build_model(hidden=32, layers=1).mixing[0].eval()
    frames = torch.randn(1, 50, 32)
    other = frames.clone()
    other[:, 40:] = torch.randn(1, 10, 32) * 5
    mask = torch.zeros(1, 50, dtype=torch.bool)
    mask[:, :40] = True
    with torch.no_grad():
        assert torch.allclose(block(frames, mask)[:, :40], block(other, mask)[:, :40], atol=1e-6)
        assert not torch.allclose(block(frames)[:, :40], block(other)[:, :40], atol=1e-3)


def test_averaged_heads_answer_as_their_mean(tmp_path: Path) -> None:
    a, _ = _exported(tmp_path, "a", 0, hidden=32)
    b, _ = _exported(tmp_path, "b", 1, hidden=32, layers=1)
    both = tmp_path / "both.onnx"
    average([a, b], both)
    frames = np.random.default_rng(2).standard_normal((120, DIM)).astype(np.float32)
    pa, pb, mean = ListenerHead(a)(frames), ListenerHead(b)(frames), ListenerHead(both)(frames)
    for name in HEADS:
        assert mean[name].shape == (HEADS[name],)
        assert np.allclose(mean[name], (pa[name] + pb[name]) / 2, atol=1e-6), name
        assert not np.allclose(pa[name], pb[name], atol=1e-3), name  # two different heads


def test_an_exported_head_is_taken_back_whole_to_train_on(tmp_path: Path) -> None:
    """``--init``: the committed head (no checkpoint kept) loaded into a fresh model answers
    as the file does, so training goes on from it, not from scratch."""
    torch.manual_seed(3)
    model = build_model()
    frames = np.random.default_rng(4).standard_normal((90, DIM)).astype(np.float32)
    want = ListenerHead(MODEL)(frames)
    weights_from_onnx(model, MODEL)
    model.eval()
    with torch.no_grad():
        got = [torch.softmax(z, -1)[0].numpy() for z in model(torch.from_numpy(frames)[None])]
    for name, p in zip(HEADS, got, strict=True):
        assert np.allclose(p, want[name], atol=1e-5), name
    with pytest.raises(ValueError, match="no weight|is"):
        weights_from_onnx(build_model(hidden=32), MODEL)
