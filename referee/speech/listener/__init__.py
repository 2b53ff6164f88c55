"""A listener trained for the game: a small head on the frozen whisper tiny.en encoder.

:mod:`.data` makes labelled clips and their encoder frames, :mod:`.train` trains the head and
exports ``models/listener.onnx``, :mod:`.backend` is the ``listener`` recognizer backend.
"""
