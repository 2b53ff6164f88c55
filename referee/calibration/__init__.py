"""Calibration: teach the referee this table's deck (``deck``), microphone (``mic``) and
camera (``camera``). Each step writes a small, versioned, human-readable profile."""
