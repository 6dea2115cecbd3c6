"""Explain a change to generated/ for a reviewer: sections, blast radius, summary."""
