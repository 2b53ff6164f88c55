"""Card-reader benchmark: ``python -m bench.vision``."""
