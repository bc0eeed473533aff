"""Planning core: pure Python, imports neither Qt nor torch."""
