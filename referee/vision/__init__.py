"""Seeing the cards: read a reveal from a webcam frame.

Design: a YOLOv8n-pose detector (``models/corners.pt``, trained by this project on
synthetic scenes only, run as ``models/corners.int8.onnx``, its export quantized to 8-bit
integers, on onnxruntime: no torch at the table) finds every visible *corner index* (rank
glyph + suit pip) and classifies its rank (13 ranks + joker; suits are not read, they never
matter in Cheat). For each index it also predicts the centre of the card the index belongs
to; :func:`referee.vision.group.group_corners` then joins the indices of one physical card
(2 or 4 per card) so two queens side by side, fanned or overlapping stay two cards.

API for the live referee::

    from referee.vision import CardReader
    reader = CardReader()                      # models/*.onnx, no network, 2 threads
    reader = CardReader(deck="kitchen")        # + a profile from `referee calibrate deck`
    reveal = reader.read(frame_bgr)            # one frame
    reveal.cards   # [SeenCard(rank="Q", suit=None, confidence=0.91, box=(x1, y1, x2, y2))]
    reveal.count   # number of physical cards
    reveal.readable, reveal.message            # False + "I can't read that, spread the cards"
    reveal.set_aside # cards seen but not counted: cut by the frame's edge, lying apart
    reveal = reader.read_stable(frames, expect=3)  # camera: still frames, merged; 3 claimed

``read_stable`` ignores frames that still move (mean grey difference to the previous frame
on a 160 px thumbnail above ``still``), reads the still ones and merges them
(:mod:`referee.vision.merge`: a card covered in some frames is one card, the count is the
most cards seen at once); it answers once the last ``votes`` still frames show the merged
count, after ``max_frames`` with the merge so far. With ``expect`` (the claim's count) a
count other than that is unreadable, "I count 2 cards, not 3: spread the cards", never
judged. :class:`referee.vision.merge.MergingVoter` is the same frame by frame
(``push(frame, read)``) for a loop that owns the camera (:class:`StableVoter`, the older
vote over whole frames, remains).

Building the detector (see ``models/MODEL_CARD.md``): :mod:`referee.vision.faces` renders
card faces from Debian's SVG decks and an own renderer, :mod:`referee.vision.synth`
composes labelled scenes, :mod:`referee.vision.train` trains with ultralytics offline
(:mod:`referee.vision.ultra`), :mod:`referee.vision.export` exports to ONNX (the ``[train]``
extra); :mod:`referee.vision.detector` runs the export (letterbox, NMS, keypoints).
"""

from referee.vision.reader import UNREADABLE, CardReader, Reveal, SeenCard, StableVoter

__all__ = ["UNREADABLE", "CardReader", "Reveal", "SeenCard", "StableVoter"]
