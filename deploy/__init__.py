"""Apply generated/ to the fleet safely: plan, waves, backups, commit-confirm, rollback.

See ``docs/deploy.md``. The CLI (``fabricops plan|deploy|rollback|backups``) only calls what
is listed in ``__all__``.
"""

from deploy.backups import Backup, find_backup, list_backups, read_backup
from deploy.configs import DiffSummary, fingerprint, normalise_running, summarise_diff
from deploy.device import Status
from deploy.lock import deploy_lock, read_lock
from deploy.record import PlanFile, read_record, write_plan
from deploy.report import DeviceReport, Report
from deploy.rollback import restore_backup
from deploy.run import RunOptions, run_deploy, run_plan
from deploy.targets import Target, open_target
from deploy.waves import Member, plan_waves

__all__ = [
    "Backup",
    "DeviceReport",
    "DiffSummary",
    "Member",
    "PlanFile",
    "Report",
    "RunOptions",
    "Status",
    "Target",
    "deploy_lock",
    "find_backup",
    "fingerprint",
    "list_backups",
    "normalise_running",
    "open_target",
    "plan_waves",
    "read_backup",
    "read_lock",
    "read_record",
    "restore_backup",
    "run_deploy",
    "run_plan",
    "summarise_diff",
    "write_plan",
]
