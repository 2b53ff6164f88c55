"""Speech benchmark: ``python -m bench.speech`` (see run.py)."""
