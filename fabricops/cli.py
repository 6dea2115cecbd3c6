"""The ``fabricops`` command: one thin verb per job, calling the packages below.

Exit codes, the same for every verb: 0 ok / in sync; 1 error; 2 usage; 3 differences found
(stale generated/, pending changes, drift); 4 partial deploy failure.

Errors are read once: ours print one line (and one per problem), a bug prints one line saying
so, and no library logs or traceback reach the terminal unless ``-v`` is given.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

import click

from core.errors import DifferencesFound, FabricopsError
from core.secrets import run_key

# Verb -> ("module:attribute", the first paragraph of its help). A verb's module is imported only
# when that verb runs, so `fabricops compile` never pays for the lab, deploy or drift imports and
# `fabricops --help` lists the verbs from this table without importing any (a test keeps each
# summary equal to its command's help).
VERBS: dict[str, tuple[str, str]] = {
    "compile": (
        "fabricops.commands.compile:compile_cmd",
        "Compile intent/ into generated/ (configs, structured data, inventory, manifest).",
    ),
    "check": ("fabricops.commands.compile:check_cmd", "Run the design rules over the intent and print every finding."),
    "diff": (
        "fabricops.commands.review:diff_cmd",
        "Explain what generated/ changes against BASE: each intent change and its lines, blast radius, risks.",
    ),
    "plan": (
        "fabricops.commands.deploy:plan_cmd",
        "Diff each device's live config against generated/ at REF, grouped into deploy waves.",
    ),
    "deploy": (
        "fabricops.commands.deploy:deploy_cmd",
        "Apply generated/ at REF to every device that differs, in waves, with commit-confirm.",
    ),
    "rollback": (
        "fabricops.commands.deploy:rollback_cmd",
        "Return devices to a fleet version of generated/, or one device to its own backup.",
    ),
    "status": (
        "fabricops.commands.deploy:status_cmd",
        "What each device was last verified to run: the generated/ commit, when, by which run.",
    ),
    "history": (
        "fabricops.commands.deploy:history_cmd",
        "Deploys, rollbacks and restores, newest first: tag, when, who, devices, result.",
    ),
    "lock": (
        "fabricops.commands.deploy:lock_group",
        "The fleet lock: one deploy or rollback at a time, from any clone.",
    ),
    "backups": (
        "fabricops.commands.deploy:backups_group",
        "Pre-change backups of running configs, kept on branch fabricops-state.",
    ),
    "drift": (
        "fabricops.commands.drift:drift_cmd",
        "Compare every device's running config, by meaning, with what it was last deployed with and with the intent.",
    ),
    "adopt": (
        "fabricops.commands.drift:adopt_cmd",
        "Keep a device's drift: the intent edits that make the compile print what it runs.",
    ),
    "health": (
        "fabricops.commands.drift:health_cmd",
        "Read interface counters through NAPALM and report them against the thresholds.",
    ),
    "lab": (
        "fabricops.commands.lab:lab_group",
        "Emulated EOS switches on 127.0.0.1 that the stock NAPALM driver drives.",
    ),
    "validate": ("fabricops.commands.validate:validate", "Judge validation results against the design (V1, V2)."),
    "view": (
        "fabricops.commands.view:view_cmd",
        "Build the fabric view: rack elevations, per-server cabling, per-switch port maps, configs and diffs "
        "against the last deploy, topology pictures and a search box; one HTML file per page.",
    ),
}
#: Libraries that log (or print tracebacks through logging) while talking to devices.
LIBRARY_LOGGERS = ("nornir", "napalm", "pyeapi", "urllib3", "paramiko", "netmiko", "git")
#: Verbs that import no library that logs (a test holds `compile` to it): without -v, logging
#: is neither imported nor set up for them (5 ms of every start, with the masking rules).
UNLOGGED_VERBS = frozenset({"compile", "check"})


class LazyGroup(click.Group):
    """A click group whose commands are imported on first use.

    Example:
        >>> sorted(cli.list_commands(click.Context(cli)))[:3]
        ['backups', 'check', 'compile']
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(VERBS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        verb = VERBS.get(cmd_name)
        if verb is None:
            return None
        module, attribute = verb[0].split(":")
        command = getattr(_imported(module), attribute)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The verbs and their summaries, as click lists them, from :data:`VERBS` (nothing imported)."""
        limit = formatter.width - 6 - max(len(name) for name in VERBS)
        # a bare command holding only the summary shortens it exactly as the real one would
        rows = [(name, click.Command(name, help=VERBS[name][1]).get_short_help_str(limit)) for name in VERBS]
        rows.sort()
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _imported(module: str) -> ModuleType:
    """``module`` imported with the cycle collector paused: an import makes thousands of objects
    and no garbage, and the collector walked them again and again (3 passes, about 3 ms, for
    the compile's; the command itself pauses it, see :mod:`compiler.collection`).

    Example:
        >>> _imported("json").__name__, gc.isenabled()
        ('json', True)
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return importlib.import_module(module)
    finally:
        if enabled:
            gc.enable()


def configure_logging(verbose: bool, key: bytes | None = None) -> None:
    """Library logs on stderr with ``-v``; otherwise nothing of theirs (not even Python's last-resort handler).

    Nornir logs every failed task with its traceback at ERROR; with no handler configured,
    Python would print each one to stderr. A null handler on the root logger stops that.
    With ``key``, every record is masked (:func:`core.masking.mask_logging`), the handler
    ``-v`` adds included.
    """
    import logging

    from core.masking import mask_logging

    root = logging.getLogger()
    if verbose:
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", force=True)
    else:
        if not any(isinstance(h, logging.NullHandler) for h in root.handlers):
            root.addHandler(logging.NullHandler())
        for name in LIBRARY_LOGGERS:
            logging.getLogger(name).setLevel(logging.CRITICAL)
    if key is not None:
        mask_logging(key)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fabricops")
@click.option("-v", "--verbose", is_flag=True, help="Show library logs and the traceback of an error.")
@click.pass_context
def cli(ctx: click.Context, verbose: bool) -> None:
    """Compile intent/ into generated/, deploy it safely, and audit drift."""
    given = ctx.obj if isinstance(ctx.obj, dict) else {}  # from main(): the run's key, whether it is the program
    key = given.get("key")
    ctx.obj = {"verbose": verbose, "program": given.get("program", False)}
    if verbose or ctx.invoked_subcommand not in UNLOGGED_VERBS:
        configure_logging(verbose, key)


def main(argv: Sequence[str] | None = None, *, program: bool = False) -> None:
    """Entry point: one line per problem for our errors, one line for a bug (its traceback with -v).

    No secret value leaves through a log record or an error message (:mod:`core.masking`).
    ``program``: this process runs only this (:func:`run`): a command may end it (:func:`ended`).
    """
    # pydantic looks for plugins among the entry points of every installed distribution the
    # first time it builds a model: a scan that cost as much as loading the example's intent.
    # fabricops' models are its own; whoever sets the variable decides instead.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    args = list(argv) if argv is not None else sys.argv[1:]
    verbose = any(arg in ("-v", "--verbose") for arg in args[: _first_verb(args)])
    key = run_key()
    try:
        # a verb's click.exceptions.Exit comes back as its code
        code = cli.main(args=args, standalone_mode=False, obj={"key": key, "program": program})
    except FabricopsError as exc:
        if verbose:
            _print_traceback()
        # Differences (exit 3) are a result, not a failure: said without "Error:".
        from core.masking import mask

        first = "" if isinstance(exc, DifferencesFound) else "Error: "
        for index, line in enumerate(mask(text, key) for text in exc.lines()):
            click.echo(f"{first}{line}" if index == 0 else f"  {line}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except Exception as exc:
        if verbose:
            _print_traceback()
            how = "please report it with the traceback above"
        else:
            how = "run again with -v for the traceback, and please report it"
        click.echo(f"Error: a bug in fabricops: {type(exc).__name__}: {exc} ({how})", err=True)
        sys.exit(1)
    if isinstance(code, int) and code:
        sys.exit(code)


def run() -> None:
    """The ``fabricops`` program (its console script, ``python -m fabricops``): :func:`main` in
    a process of its own, which a command that is done may end at once (:func:`ended`)."""
    main(program=True)


def ended() -> None:
    """A command is done: when this process is the program (:func:`run`), it ends here, its
    output flushed, without freeing what the command built one object at a time and tearing
    down every module (a fleet's compile holds millions of objects: 25-40 ms at 16x, as long
    as its write). Elsewhere (in process: tests, other callers), nothing happens.

    Example:
        >>> ended()  # no command running here: the caller goes on
    """
    ctx = click.get_current_context(silent=True)
    if ctx is None or not (isinstance(ctx.obj, dict) and ctx.obj.get("program")):
        return
    atexit._run_exitfuncs()  # what the interpreter's own exit would run first (none, in a compile)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _print_traceback() -> None:
    """The traceback of the error being handled (imported here: only ``-v`` shows one)."""
    import traceback

    traceback.print_exc()


def _first_verb(args: list[str]) -> int:
    """Index of the first argument that is not a global option (``-v`` counts only before the verb)."""
    return next((i for i, arg in enumerate(args) if not arg.startswith("-")), len(args))
