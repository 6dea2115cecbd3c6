"""``python -m fabricops``."""

from fabricops.cli import run

# Guarded: a spawned helper process (drift's second comparison process) never runs the CLI again.
if __name__ == "__main__":
    run()
