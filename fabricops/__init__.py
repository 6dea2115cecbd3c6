"""fabricops: a GitOps config compiler with drift detection for GPU cluster networks."""

__version__ = "0.1.0"
