"""The ``fabricops`` command: one thin verb per job, calling the packages below.

Exit codes, the same for every verb: 0 ok / in sync; 1 error; 2 usage; 3 differences found
(stale generated/, pending changes, drift); 4 partial deploy failure.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

import click

from core.errors import FabricopsError
from core.masking import mask, mask_logging
from core.secrets import run_key

# Verb -> "module:attribute". A verb's module is imported only when that verb runs (or for
# --help), so `fabricops compile` never pays for the lab, deploy or drift imports.
VERBS = {
    "compile": "fabricops.commands.compile:compile_cmd",
    "check": "fabricops.commands.compile:check_cmd",
    "diff": "fabricops.commands.review:diff_cmd",
    "plan": "fabricops.commands.deploy:plan_cmd",
    "deploy": "fabricops.commands.deploy:deploy_cmd",
    "rollback": "fabricops.commands.deploy:rollback_cmd",
    "backups": "fabricops.commands.deploy:backups_group",
    "drift": "fabricops.commands.drift:drift_cmd",
    "health": "fabricops.commands.drift:health_cmd",
    "lab": "fabricops.commands.lab:lab_group",
    "validate": "fabricops.commands.validate:validate",
    "view": "fabricops.commands.view:view_cmd",
}


class LazyGroup(click.Group):
    """A click group whose commands are imported on first use.

    Example:
        >>> sorted(cli.list_commands(click.Context(cli)))[:3]
        ['backups', 'check', 'compile']
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(VERBS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = VERBS.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fabricops")
def cli() -> None:
    """Compile intent/ into generated/, deploy it safely, and audit drift."""


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: print one line per problem for our errors, keep tracebacks for bugs.

    No secret value leaves through a log record or an error message (:mod:`core.masking`).
    """
    key = run_key()
    mask_logging(key)
    try:
        # Outside standalone mode click returns the code of a ``ctx.exit(N)`` instead of exiting
        code = cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except FabricopsError as exc:
        for index, line in enumerate(mask(text, key) for text in exc.lines()):
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
