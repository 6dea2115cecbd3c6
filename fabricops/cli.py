"""The ``fabricops`` command: one thin verb per job, calling the packages below.

Exit codes, the same for every verb: 0 ok / in sync; 1 error; 2 usage; 3 differences found
(stale generated/, pending changes, drift); 4 partial deploy failure.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from core.errors import FabricopsError
from fabricops.commands.compile import check_cmd, compile_cmd
from fabricops.commands.deploy import backups_group, deploy_cmd, plan_cmd, rollback_cmd
from fabricops.commands.drift import drift_cmd, health_cmd
from fabricops.commands.lab import lab_group
from fabricops.commands.review import diff_cmd
from fabricops.commands.validate import validate


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fabricops")
def cli() -> None:
    """Compile intent/ into generated/, deploy it safely, and audit drift."""


cli.add_command(compile_cmd)
cli.add_command(check_cmd)
cli.add_command(diff_cmd)
cli.add_command(validate)
cli.add_command(drift_cmd)
cli.add_command(health_cmd)
cli.add_command(plan_cmd)
cli.add_command(deploy_cmd)
cli.add_command(rollback_cmd)
cli.add_command(backups_group)
cli.add_command(lab_group)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: print one line per problem for our errors, keep tracebacks for bugs."""
    try:
        cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
    except FabricopsError as exc:
        for index, line in enumerate(exc.lines()):
            click.echo(f"Error: {line}" if index == 0 else f"  {line}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
