"""``fabricops compile`` and ``fabricops check``."""

from __future__ import annotations

import contextlib
import functools
import gc
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec

import click

from compiler.collection import paused
from core.errors import DifferencesFound
from core.generated import GENERATED, INTENT
from fabricops.cli import ended

if TYPE_CHECKING:
    from compiler.beside import Beside
    from compiler.cache import CompileCache, Reuse, Walk
    from compiler.checks import Finding
    from compiler.fabric import ResolvedFabric
    from compiler.intent import Intent
    from compiler.output import CompiledFiles, StagedWrite, Staleness, TreeOnDisk
    from compiler.pipeline import CompileResult

FORMATS = click.Choice(["text", "json"])
P = ParamSpec("P")


def frozen_on_return(command: Callable[P, None]) -> Callable[P, None]:
    """``command``, then what the process holds frozen (``gc.freeze``): the collector, paused
    while it ran, would otherwise walk every object it made once it resumes and again as the
    process exits (0.1 to 0.3 s at 16x) to find next to no cycles. Reference counting still
    frees them; a cycle among them stays until the process ends.

    Example:
        >>> import gc
        >>> gc.unfreeze()
        >>> frozen_on_return(lambda: None)(), gc.get_freeze_count() > 0
        (None, True)
        >>> gc.unfreeze()
    """

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            command(*args, **kwargs)
        finally:
            gc.freeze()

    return run


def _paths(root: Path) -> tuple[Path, Path]:
    return root / INTENT, root / GENERATED


root_option = click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Repository root holding intent/ and generated/.",
)


@click.command("compile")
@root_option
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 3 naming the stale files.")
@click.option("--timings", is_flag=True, help="Print seconds per stage.")
@click.option("--full", is_flag=True, help="Build every file again: ignore .fabricops-cache/ (then rewrite it).")
@paused  # all of it: the record, the fleet's data and its files live until the command ends
@frozen_on_return
def compile_cmd(root: Path, check_only: bool, timings: bool, full: bool) -> None:
    """Compile intent/ into generated/ (configs, structured data, inventory, manifest).

    Only what changed is rebuilt: a switch's or a server's files whose facts (and the compiler)
    are unchanged are kept, an unchanged intent over an untouched generated/ is recognised at
    once (the record is .fabricops-cache/, outside git).

    \b
    Examples:
      fabricops compile
      fabricops compile --check      # in CI: fails when generated/ is stale
      fabricops compile --full       # render everything, as on a fresh checkout
    """
    from compiler.beside import Beside
    from compiler.cache import CompileCache, record_path, source_key, walk
    from compiler.output import recover

    intent_dir, generated_dir = _paths(root)
    recover(generated_dir)
    # generated/ is walked (one stat per file) in a child forked first, while still small: the
    # record is read, the compiler imported and the intent loaded and resolved here meanwhile.
    # In a thread, the walk and the imports contended for the GIL at every stat and took longer
    # than one after the other. The child also reads the record's stamps and tells only the
    # files that differ from them.
    walking = Beside(functools.partial(walk, generated_dir, None if full else record_path(root)))
    with walking:  # a child still walking when the compile fails is stopped
        cache = CompileCache(root) if full else CompileCache.read(root)  # checked once the code's digest is known
        source = source_key(intent_dir)
        cache, tree = _walked(cache, source, generated_dir, walking)
        if _said_unchanged(cache, source, tree, check_only):
            ended()
            return
        _compiled(root, cache, source, tree, check_only, timings)


def _compiled(root: Path, cache: CompileCache, source: str, tree: _Tree, check_only: bool, timings: bool) -> None:
    """The compile itself, once the record is known for this code (``cache``)."""
    from compiler.configcache import ConfigCache
    from compiler.intentcache import kept_beside
    from compiler.pipeline import compile_intent, refuse_errors, staleness, write_generated
    from compiler.render import keep_bytecode

    intent_dir, generated_dir = _paths(root)
    kept_beside(intent_dir)  # the templates' environment reads eos.yaml now: it is kept there too
    with contextlib.suppress(OSError):
        keep_bytecode(cache.path.parent / "templates")
    # The checks take the configs the last compile kept (not after --full: its record is empty);
    # --check writes nothing, not even them.
    configs = ConfigCache.of_record(cache, write=not check_only)
    # The write is staged as soon as the files are built, while the checks may still run; it
    # is applied once they pass (write_generated), or dropped.
    stage = None if check_only else tree.stage
    result = compile_intent(intent_dir, tree.reuse, configs=configs, stage=stage)
    # Warnings here; errors once, in the error that refuses to write.
    for finding in result.findings:
        if finding.severity == "warning":
            click.echo(finding.line(), err=True)
    if check_only:
        refuse_errors(result)
        stale = staleness(result, generated_dir)
        if stale.stale:
            raise DifferencesFound(
                f"generated/ is stale ({len(stale.lines())} file(s)): run 'fabricops compile' and commit",
                stale.lines(),
            )
        click.echo(f"generated/ is up to date ({len(result.files)} files)")
        return
    written = write_generated(result, generated_dir, tree.current, tree.digests)
    fabric = result.fabric
    roles: dict[str, int] = {}
    for device in fabric.devices.values():
        key = f"{device.network} {device.role}"
        roles[key] = roles.get(key, 0) + 1
    roles_line = ", ".join(f"{count} {key}" for key, count in sorted(roles.items()))
    gpus = sum(result.intent.fabric.server_models[s.model].gpus for s in result.intent.servers)
    warnings = sum(1 for f in result.findings if f.severity == "warning")
    report = [
        f"compiled {len(fabric.devices)} switches ({roles_line})",
        f"         {len(fabric.servers)} servers, {gpus} GPUs, {len(fabric.links)} cables, "
        f"{result.config_lines} config lines",
        f"checks: 0 errors, {warnings} warnings",
    ]
    changed = len(written.changed) + len(written.missing) + len(written.extra)
    for line in report[:2]:
        click.echo(line)
    click.echo(
        f"wrote generated/: {len(result.files)} files, {changed} changed "
        f"({len(fabric.devices) - result.reused} of {len(fabric.devices)} switches and "
        f"{len(fabric.servers) - result.kept_servers} of {len(fabric.servers)} servers rendered)"
    )
    click.echo(report[2])
    warning_lines = [f.line() for f in result.findings if f.severity == "warning"]
    _remember(cache, source, result, tree.seen, written, generated_dir, [*warning_lines, *report])
    if timings:
        click.echo("seconds: " + ", ".join(f"{k} {v:.3f}" for k, v in result.timings.items()))
    ended()  # the program ends here: the fleet's objects are not freed one by one


def _walked(cache: CompileCache, source: str, generated_dir: Path, walking: Beside[Walk]) -> tuple[CompileCache, _Tree]:
    """``cache`` taken only under the running code's digest, and generated/ as the walk
    (``walking``: :func:`compiler.cache.walk`) finds it, waited for when first asked.

    When the intent changed, a compile is certain: the compiler is imported while the walk runs,
    and the code's digest (every file of the compiler, 15 ms at 16x) is worked out meanwhile in
    a child of its own. Otherwise it is worked out here, while the walk runs."""
    from compiler.beside import Beside
    from compiler.cache import adopt_code_digest, code_digest

    if cache.source != source:
        coding = Beside(code_digest)
        _import_compiler()
        code = adopt_code_digest(coding.result())
    else:
        code = code_digest()
    cache = cache.under(code)
    return cache, _Tree(cache, generated_dir, walking)


class _Tree:
    """``generated/`` as the walk (:func:`compiler.cache.walk`) finds it, and what the last
    compile (``cache``) knows of its files, each worked out once when first asked: a compile
    asks when its render starts, after the intent is loaded and resolved, by when the child
    walking beside has long finished (the parent never waits for it)."""

    def __init__(self, cache: CompileCache, directory: Path, walking: Beside[Walk]) -> None:
        self._cache, self._directory, self._walking = cache, directory, walking

    @functools.cached_property
    def seen(self) -> Walk:
        """The walk's answer: every file and which are no longer those the last compile wrote."""
        return self._walking.result()

    @functools.cached_property
    def current(self) -> TreeOnDisk:
        """Files as the last compile left them (same size and time) are known by their digests
        (:attr:`digests`): they are neither read nor hashed, and the units built from unchanged
        inputs keep them."""
        from compiler.output import TreeOnDisk

        return TreeOnDisk(self._directory, self._cache.tree(self.seen))

    @functools.cached_property
    def digests(self) -> Mapping[str, str]:
        return self._cache.known_digests(self.seen)

    def reuse(self) -> Reuse:
        """What the render may take from the last compile."""
        from compiler.cache import Reuse

        return Reuse(self._cache, self.digests, self.current)

    def stage(self, files: CompiledFiles) -> StagedWrite:
        """The write of ``files``, staged (:func:`compiler.output.stage_tree`)."""
        from compiler.output import stage_tree

        return stage_tree(self._directory, files, self.current, self.digests, files.digests)


def _said_unchanged(cache: CompileCache, source: str, tree: _Tree, check_only: bool) -> bool:
    """Whether intent, code and generated/ are unchanged since the last compile: then its
    summary is said again, and there is nothing to load, check or render."""
    if cache.source != source:  # a compile, whatever the walk finds: not waited for here
        return False
    summary = cache.unchanged(source, tree.seen)
    if summary is None:
        return False
    for line in summary:
        if line.startswith("warning ") or not check_only:
            click.echo(line, err=line.startswith("warning "))
    click.echo("generated/ is up to date: intent and compiler unchanged since the last compile")
    return True


def _import_compiler() -> None:
    """Import what a compile runs (a third of a second: the intent's models, the templates' engine)."""
    import compiler.pipeline  # noqa: F401


def _remember(
    cache: CompileCache,
    source: str,
    result: CompileResult,
    seen: Walk,
    written: Staleness,
    generated_dir: Path,
    summary: list[str],
) -> None:
    """Record this compile for the next one; a cache that cannot be written only costs speed."""
    from compiler.cache import restamped

    cache.source, cache.summary, cache.units, cache.sections = source, summary, result.renders, result.layouts
    cache.files = result.files.digests
    # The tree as walked, saved as it came, and the stamps of what the write changed since.
    cache.walked = seen.stamps
    cache.written = restamped([*written.changed, *written.missing], written.extra, generated_dir)
    with contextlib.suppress(OSError):
        cache.save()


@click.command("check")
@root_option
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
def check_cmd(root: Path, fmt: str) -> None:
    """Run the design rules over the intent and print every finding.

    Exits 1 when any rule reports an error. After a compile, the structured configs and the
    switch rules' findings it kept for unchanged switches are read, not built again (the
    findings are the same; nothing is written).

    \b
    Examples:
      fabricops check
      fabricops check --format json | jq '.[] | select(.severity == "error")'
    """
    from compiler.fabric import resolve
    from compiler.intent import load_intent
    from core.errors import CompileError

    intent_dir, _ = _paths(root)
    intent = load_intent(intent_dir)
    findings = _findings(root, intent, resolve(intent))
    if fmt == "json":
        click.echo(json.dumps([asdict(f) for f in findings], indent=2))
    else:
        for finding in findings:
            click.echo(finding.line())
        counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
        click.echo(f"{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info")
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        raise CompileError(f"{len(errors)} check error(s)")


def _findings(root: Path, intent: Intent, fabric: ResolvedFabric) -> list[Finding]:
    """Every finding, as a compile's checks find them: with what the last compile of ``root``
    kept beside its record (:mod:`compiler.configcache`: each unchanged switch's structured
    config and switch rules' findings, under its facts digest, for this code only), else from
    nothing. Read only: the file is the compile's to write."""
    from compiler.cache import CACHE_DIR
    from compiler.checks import checked, run_checks
    from compiler.configcache import ConfigCache

    configs = ConfigCache(root / CACHE_DIR, write=False)
    if not configs.path.is_file():
        return run_checks(intent, fabric)
    from compiler.artifacts.units import facts_digests

    digests = facts_digests(fabric)
    return checked(intent, configs.lend(fabric, digests), digests, configs.judged)[0]
