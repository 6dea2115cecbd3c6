"""What compiler, deploy, drift and the CLI share: errors, files, git, fleet access."""
