"""Audit live running configs against generated/ in git, by meaning; health counters."""
