"""Apply generated/ to the fleet safely: plan, waves, backups, commit-confirm, rollback."""
