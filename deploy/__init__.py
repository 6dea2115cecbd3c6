"""Apply generated/ to the fleet safely: plan, waves, backups, commit-confirm, rollback, the fleet lock.

See ``docs/deploy.md``. The CLI (``fabricops plan|deploy|rollback|backups|status|history|lock``)
only calls what is listed in ``__all__``.
"""

from deploy.backups import Backup, find_backup, list_backups, read_backup
from deploy.configs import DiffSummary, fingerprint, normalise_running, summarise_diff
from deploy.device import Status
from deploy.lock import FleetLock, LockInfo, break_lock, fleet_lock, read_lock
from deploy.record import PlanFile, RunEntry, list_runs, read_record, write_plan
from deploy.report import DeviceReport, Report
from deploy.rollback import base_backups, resolve_version, restore_backup, restore_backups
from deploy.run import RunOptions, run_deploy, run_plan
from deploy.targets import MeaningCompare, Target, open_target
from deploy.waves import Member, plan_waves

__all__ = [
    "Backup",
    "DeviceReport",
    "DiffSummary",
    "FleetLock",
    "LockInfo",
    "MeaningCompare",
    "Member",
    "PlanFile",
    "Report",
    "RunEntry",
    "RunOptions",
    "Status",
    "Target",
    "base_backups",
    "break_lock",
    "find_backup",
    "fingerprint",
    "fleet_lock",
    "list_backups",
    "list_runs",
    "normalise_running",
    "open_target",
    "plan_waves",
    "read_backup",
    "read_lock",
    "read_record",
    "resolve_version",
    "restore_backup",
    "restore_backups",
    "run_deploy",
    "run_plan",
    "summarise_diff",
    "write_plan",
]
