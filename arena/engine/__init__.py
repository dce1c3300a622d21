"""The rules engine: pure Python, no I/O, no clocks, no global randomness (RULES.md)."""
