"""``python -m fabricops``."""

from fabricops.cli import main

main()
