"""Export resemblyzer's speaker encoder to ``models/voice_encoder.onnx`` (needs torch).

    .venv/bin/python models/voice_encoder_export.py

The encoder (3-layer LSTM, 256 units, on 40-band mel power spectra of 10 ms frames) ships
inside the ``resemblyzer`` package (``pretrained.pt``, Apache-2.0). The ONNX graph takes a
batch of 160-frame (1.6 s) partials, ``mels: (batch, 160, 40)`` float32, and gives their
L2-normed embeddings, ``embeds: (batch, 256)``, exactly as ``VoiceEncoder.forward``. The
features are made in numpy by :mod:`referee.speech.speakers`, so the table needs only
onnxruntime.
"""

from __future__ import annotations

import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "voice_encoder.onnx"


def main() -> int:
    import torch
    from resemblyzer import VoiceEncoder

    encoder = VoiceEncoder(device="cpu", verbose=False).eval()
    example = torch.zeros(2, 160, 40)
    torch.onnx.export(
        encoder,
        (example,),
        str(OUT),
        input_names=["mels"],
        output_names=["embeds"],
        dynamic_axes={"mels": {0: "batch"}, "embeds": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
