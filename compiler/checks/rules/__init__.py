"""Rules register on import."""
