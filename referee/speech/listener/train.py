"""Train the listener's head on the encoder frames of :mod:`referee.speech.listener.data`.

    nice -n 19 .venv/bin/python -m referee.speech.listener.train --epochs 12

A few minutes on two CPU cores. The head is small (two 1-D convolutions over the frozen
whisper tiny.en encoder's frames, attention and max pooling, one small classifier per part);
it resumes from ``data/listener/head.pt`` and exports ``models/listener.onnx`` (the runtime
uses onnxruntime only, never torch). Shards whose index ends in 9 are held out for validation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from referee.speech.listener.data import DATA, ROOT
from referee.speech.listener.labels import HEADS, IGNORE, KINDS

MODEL = ROOT / "models" / "listener.onnx"
DIM = 384


def load(root: Path) -> tuple[list[np.ndarray], list[dict], list[dict], list[bool]]:
    """Every shard's clips: frames (float16), targets, meta and whether held out."""
    frames, targets, metas, held = [], [], [], []
    for path in sorted(root.glob("shard-*.npz")):
        if path.name.endswith(".tmp.npz"):
            continue
        with np.load(path) as f:
            block, offsets = f["frames"], f["offsets"]
            t, m = json.loads(str(f["targets"])), json.loads(str(f["meta"]))
        index = int(path.stem.rsplit("-", 1)[1])
        for i in range(len(offsets) - 1):
            frames.append(block[offsets[i] : offsets[i + 1]])
        targets += t
        metas += m
        held += [index % 10 == 9] * len(t)
    return frames, targets, metas, held


def build_model(hidden: int = 128, layers: int = 0):
    """The head; ``layers`` self-attention blocks after the convolutions let every frame see
    the whole utterance (a word's neighbours far off), at some cost in speed."""
    import torch
    from torch import nn

    class Mixing(nn.Module):
        """One pre-norm self-attention block and feed-forward, written out (not
        ``nn.MultiheadAttention``) so the legacy ONNX export needs no fast-path care."""

        def __init__(self, heads: int = 4) -> None:
            super().__init__()
            self.heads = heads
            self.norm1, self.norm2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
            self.qkv = nn.Linear(hidden, 3 * hidden)
            self.proj = nn.Linear(hidden, hidden)
            self.ff = nn.Sequential(
                nn.Linear(hidden, 2 * hidden), nn.GELU(), nn.Linear(2 * hidden, hidden)
            )
            self.drop = nn.Dropout(0.1)

        def forward(self, h, mask=None):
            b, t, _ = h.shape
            q, k, v = self.qkv(self.norm1(h)).reshape(b, t, 3, self.heads, -1).unbind(2)
            scores = torch.einsum("bqnd,bknd->bnqk", q, k) / (hidden // self.heads) ** 0.5
            if mask is not None:
                scores = scores.masked_fill(~mask[:, None, None, :], -1e4)
            mixed = torch.einsum("bnqk,bknd->bqnd", torch.softmax(scores, -1), v)
            h = h + self.drop(self.proj(mixed.reshape(b, t, hidden)))
            return h + self.drop(self.ff(self.norm2(h)))

    class Head(nn.Module):
        """Frames (batch, time, 384) -> per-part logits; ``mask`` marks real frames. The
        first convolution halves the frame rate (25 a second: still several per syllable)."""

        def __init__(self) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(DIM)
            self.drop_in = nn.Dropout(0.1)
            self.conv1 = nn.Conv1d(DIM, hidden, 4, stride=2, padding=1)
            self.conv2 = nn.Conv1d(hidden, hidden, 5, padding=2)
            self.mixing = nn.ModuleList(Mixing() for _ in range(layers))
            self.att = nn.Linear(hidden, 4)
            self.trunk = nn.Sequential(nn.Dropout(0.2), nn.Linear(hidden * 5, hidden), nn.GELU())
            self.heads = nn.ModuleDict({name: nn.Linear(hidden, n) for name, n in HEADS.items()})

        def forward(self, x, mask=None):
            x = self.drop_in(self.norm(x)).transpose(1, 2)
            h = torch.nn.functional.gelu(self.conv1(x))
            h = torch.nn.functional.gelu(self.conv2(h) + h).transpose(1, 2)  # (B, T/2, H)
            if mask is not None:
                mask = mask[:, ::2][:, : h.shape[1]]
            for block in self.mixing:
                h = block(h, mask)
            scores = self.att(h)  # (B, T/2, 4)
            if mask is not None:
                scores = scores.masked_fill(~mask[..., None], -1e4)
                peak = h.masked_fill(~mask[..., None], -1e4).amax(dim=1)
            else:
                peak = h.amax(dim=1)
            weights = torch.softmax(scores, dim=1)
            pooled = torch.einsum("bta,bth->bah", weights, h).flatten(1)
            z = self.trunk(torch.cat([pooled, peak], dim=1))
            return [self.heads[name](z) for name in HEADS]

    return Head()


def weights_from_onnx(model, path: Path) -> None:
    """Load an exported head's weights into ``model`` (of the same shape), to train it on
    from there (``--init``): the committed heads keep no checkpoint. The exporter names most
    weights as the model does (``head.<name>``); a linear layer it folded into a MatMul
    (the attention pool's) keeps only its transposed weight, matched by shape."""
    import onnx
    import torch
    from onnx import numpy_helper

    found = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}
    state = model.state_dict()
    loose = {k: v for k, v in found.items() if not k.startswith("head.")}
    for name, param in state.items():
        value = found.get(f"head.{name}")
        if value is None:
            fits = [k for k, v in loose.items() if v.T.shape == tuple(param.shape)]
            if len(fits) != 1:
                raise ValueError(f"{path}: no weight for {name} {tuple(param.shape)}")
            value = loose.pop(fits[0]).T
        if value.shape != tuple(param.shape):
            raise ValueError(f"{path}: {name} is {value.shape}, the head's {tuple(param.shape)}")
        state[name] = torch.from_numpy(np.ascontiguousarray(value))
    model.load_state_dict(state)


def batches(idx: np.ndarray, frames, targets, size: int, rng, train: bool):
    import torch

    order = rng.permutation(idx) if train else idx
    # batches of clips of like length (less padding), in random order
    lengths = np.asarray([len(frames[i]) for i in order])
    chunks = [order[s : s + size * 16] for s in range(0, len(order), size * 16)]
    chunks = [c[np.argsort(lengths[s * size * 16 : s * size * 16 + len(c)], kind="stable")]
              for s, c in enumerate(chunks)]  # fmt: skip
    groups = [c[s : s + size] for c in chunks for s in range(0, len(c), size)]
    for g in rng.permutation(len(groups)) if train else range(len(groups)):
        chosen = groups[g]
        clips = [frames[i] for i in chosen]
        if train:  # the segment may start or end a few frames off
            clips = [c[rng.integers(0, 6) : len(c) - rng.integers(0, 10)] for c in clips]
        longest = max(len(c) for c in clips)
        x = np.zeros((len(clips), longest, DIM), np.float32)
        mask = np.zeros((len(clips), longest), bool)
        for j, c in enumerate(clips):
            x[j, : len(c)] = c
            mask[j, : len(c)] = True
            if train and rng.random() < 0.5:  # a stretch masked, as a word half covered
                width = int(rng.integers(3, 12))
                at = int(rng.integers(0, max(1, len(c) - width)))
                x[j, at : at + width] = 0.0
        y = {n: torch.tensor([targets[i][n] for i in chosen]) for n in HEADS}
        yield torch.from_numpy(x), torch.from_numpy(mask), y


def evaluate(model, idx, frames, targets, metas) -> dict:
    """Accuracy per part on ``idx`` (where the part applies), kind accuracy per background,
    and how often a non-game clip is taken for a call or claim (p >= 0.5)."""
    import torch

    model.eval()
    right: dict[str, list[int]] = {n: [0, 0] for n in HEADS}
    by_bg: dict[str, list[int]] = {}
    none_as_game = [0, 0]
    with torch.no_grad():
        for i in idx:
            out = model(torch.from_numpy(frames[i].astype(np.float32))[None])
            for name, logits in zip(HEADS, out, strict=True):
                if targets[i][name] != IGNORE:
                    right[name][0] += int(int(logits.argmax()) == targets[i][name])
                    right[name][1] += 1
            bg = metas[i]["background"].split(" ")[0]
            bg = "babble" if "babble" in bg else ("quiet" if bg == "quiet" else "noise")
            tally = by_bg.setdefault(bg, [0, 0])
            tally[0] += int(int(out[0].argmax()) == targets[i]["kind"])
            tally[1] += 1
            if KINDS[targets[i]["kind"]] == "none":
                none_as_game[1] += 1
                none_as_game[0] += int(float(torch.softmax(out[0], 1)[0, 1:3].max()) >= 0.5)
    return {
        "parts": {n: r[0] / max(r[1], 1) for n, r in right.items()},
        "kind_by_background": {b: r[0] / max(r[1], 1) for b, r in by_bg.items()},
        "none_taken_for_call_or_claim": none_as_game[0] / max(none_as_game[1], 1),
        "n": len(idx),
    }


def evaluate_onnx(path: Path, root: Path) -> dict:
    """The exported head on the held-out shards: kind right overall and per background,
    claims fully right per background, and at the backend's bars (p of the top kind) how
    often a non-game clip is taken for a game kind, a game clip for none, and a game clip
    is read surely right or surely as another game kind."""
    from referee.speech.listener.backend import ListenerHead

    frames, targets, metas, held = load(root)
    head = ListenerHead(path, threads=2)
    rows = [(targets[i], head(frames[i].astype(np.float32)), metas[i]) for i in range(len(held))
            if held[i]]  # fmt: skip

    def background(meta: dict) -> str:
        bg = meta["background"]
        return "babble" if "babble" in bg else ("quiet" if bg.startswith("quiet") else "noise")

    out: dict = {"n": len(rows)}
    kind_right = [int(np.argmax(p["kind"])) == t["kind"] for t, p, _ in rows]
    out["kind"] = float(np.mean(kind_right))
    for bg in ("babble", "noise", "quiet"):
        sel = [(t, p) for t, p, m in rows if background(m) == bg]
        claims = [(t, p) for t, p in sel if KINDS[t["kind"]] == "claim"]
        out[f"kind {bg}"] = float(np.mean([int(np.argmax(p["kind"])) == t["kind"] for t, p in sel]))
        out[f"claims fully right {bg}"] = float(np.mean([
            int(np.argmax(p["kind"])) == t["kind"] and int(np.argmax(p["count"])) == t["count"]
            and int(np.argmax(p["rank"])) == t["rank"] for t, p in claims
        ]))  # fmt: skip
    none = [p for t, p, _ in rows if t["kind"] == 0]
    game = [(t, p) for t, p, _ in rows if t["kind"] != 0]
    for bar in (0.8, 0.9, 0.95):

        def sure(p: dict, bar: float = bar) -> int | None:
            return int(np.argmax(p["kind"])) if float(np.max(p["kind"])) >= bar else None

        out[f"none taken for game at {bar}"] = float(
            np.mean([sure(p) not in (None, 0) for p in none])
        )
        out[f"game taken for none at {bar}"] = float(np.mean([sure(p) == 0 for _, p in game]))
        out[f"game sure right at {bar}"] = float(np.mean([sure(p) == t["kind"] for t, p in game]))
        out[f"game sure wrong kind at {bar}"] = float(
            np.mean([sure(p) not in (None, 0, t["kind"]) for t, p in game])
        )
    return out


def export(model, path: Path) -> None:
    """ONNX with one input ``frames`` (1, time, 384) and one softmax output per part."""
    import torch

    class Probs(torch.nn.Module):
        def __init__(self, head):
            super().__init__()
            self.head = head

        def forward(self, frames):
            return tuple(torch.softmax(z, dim=-1) for z in self.head(frames))

    model.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        Probs(model).eval(),  # (the exporter puts it back in the mode it was in)
        (torch.zeros(1, 120, DIM),),
        str(path),
        input_names=["frames"],
        output_names=list(HEADS),
        dynamic_axes={"frames": {1: "time"}},
        opset_version=17,
        dynamo=False,
    )


def average(paths: list[Path], out: Path) -> None:
    """One ONNX head whose every output is the mean of the given heads' (same input, same
    outputs): heads trained on different negatives err in different places, and their mean
    is surer where they agree. The runtime loads it as any head."""
    import onnx
    from onnx import compose, helper

    models = [compose.add_prefix(onnx.load(str(p)), f"h{i}_") for i, p in enumerate(paths)]
    nodes, inits = [], []
    for m in models:
        feed = helper.make_node("Identity", ["frames"], [m.graph.input[0].name])
        nodes += [feed, *m.graph.node]
        inits += list(m.graph.initializer)
    outputs = []
    for j, name in enumerate(HEADS):
        parts = [m.graph.output[j].name for m in models]
        nodes += [
            helper.make_node("Sum", parts, [f"{name}_sum"]),
            helper.make_node("Div", [f"{name}_sum", "heads_n"], [name]),
        ]
        outputs.append(
            helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, [1, HEADS[name]])
        )
    inits.append(helper.make_tensor("heads_n", onnx.TensorProto.FLOAT, [], [float(len(models))]))
    frames = helper.make_tensor_value_info("frames", onnx.TensorProto.FLOAT, [1, "time", DIM])
    graph = helper.make_graph(nodes, "listener_mean", [frames], outputs, inits)
    merged = helper.make_model(graph, opset_imports=models[0].opset_import)
    merged.ir_version = models[0].ir_version
    onnx.checker.check_model(merged)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(merged, str(out))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.speech.listener.train")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--fresh", action="store_true", help="do not resume the checkpoint")
    parser.add_argument("--out", type=Path, default=MODEL)
    parser.add_argument("--report", type=Path, default=Path("/tmp/listener/train.json"))
    parser.add_argument("--eval", type=Path, help="only report this exported head's numbers")
    parser.add_argument(
        "--average", type=Path, nargs="+", metavar="HEAD",
        help="only write --out as the mean of these exported heads",
    )  # fmt: skip
    parser.add_argument("--hidden", type=int, default=128, help="the head's width")
    parser.add_argument("--layers", type=int, default=0, help="self-attention blocks")
    parser.add_argument(
        "--none-weight", type=float, default=1.0,
        help="the kind loss's weight on clips of no game phrase (below 1: the game's "
        "phrases count for more against chatter)",
    )  # fmt: skip
    parser.add_argument(
        "--checkpoint", type=Path, help="resumable state (default: DATA/head.pt; one per head "
        "trained side by side)",
    )  # fmt: skip
    parser.add_argument(
        "--init", type=Path, metavar="HEAD",
        help="start from this exported head's weights (when no checkpoint is resumed): "
        "train the committed head on in new conditions, with a lower --lr",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.eval:
        print(json.dumps(evaluate_onnx(args.eval, args.data), indent=1))
        return 0
    if args.average:
        average(args.average, args.out)
        print(f"wrote {args.out}, the mean of {len(args.average)} heads", file=sys.stderr)
        return 0
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    frames, targets, metas, held = load(args.data)
    held_arr = np.asarray(held)
    train_idx, val_idx = np.flatnonzero(~held_arr), np.flatnonzero(held_arr)
    print(f"{len(train_idx)} training clips, {len(val_idx)} held out", file=sys.stderr)
    model = build_model(args.hidden, args.layers)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-2)
    checkpoint = args.checkpoint or args.data / "head.pt"
    shape = {"hidden": args.hidden, "layers": args.layers}
    first = 0
    if checkpoint.is_file() and not args.fresh:
        state = torch.load(checkpoint)
        held_shape = state.get("shape", {"hidden": 128, "layers": 0})
        if held_shape != shape:
            sys.exit(f"{checkpoint} holds a head of {held_shape}: give the same --hidden and "
                     "--layers, or --fresh")  # fmt: skip
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        first = state["epoch"] + 1
    elif args.init:
        weights_from_onnx(model, args.init)
        print(f"starting from {args.init}", file=sys.stderr)
    steps = args.epochs * (len(train_idx) // args.batch + 1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=steps)
    for _ in range(first * (len(train_idx) // args.batch + 1)):
        sched.step()
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=IGNORE)
    kind_weights = torch.ones(len(KINDS))
    kind_weights[KINDS.index("none")] = args.none_weight
    kind_loss = torch.nn.CrossEntropyLoss(weight=kind_weights, ignore_index=IGNORE)
    rng = np.random.default_rng(1)
    for epoch in range(first, args.epochs):
        model.train()
        started, total, n = time.perf_counter(), 0.0, 0
        for x, mask, y in batches(train_idx, frames, targets, args.batch, rng, True):
            out = model(x, mask)
            loss = sum(
                (kind_loss if name == "kind" else loss_fn)(z, y[name])
                for name, z in zip(HEADS, out, strict=True)
                if bool((y[name] != IGNORE).any())
            )  # fmt: skip
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched.last_epoch < steps - 1:
                sched.step()
            total, n = total + float(loss.detach()), n + 1
        print(
            f"epoch {epoch}: loss {total / max(n, 1):.3f} ({time.perf_counter() - started:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                    "shape": shape}, checkpoint)  # fmt: skip
    report = evaluate(model, val_idx, frames, targets, metas) if len(val_idx) else {}
    report["train_clips"] = int(len(train_idx))
    print(json.dumps(report, indent=1), file=sys.stderr)
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps(report, indent=1))
    export(model, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
