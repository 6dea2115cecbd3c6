"""The compile pipeline: load -> resolve -> checks -> render -> (write), timed per stage.

Example:
    >>> from pathlib import Path
    >>> result = compile_intent(Path("intent"))
    >>> len(result.fabric.devices) > 0 and "MANIFEST.json" in result.files
    True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler.artifacts import nornir_inventory, structured_configs
from compiler.artifacts.provenance import provenance_files
from compiler.artifacts.site import site_artifacts
from compiler.artifacts.structured import structured_documents
from compiler.cache import DeviceRender, code_digest, fingerprint, sha256
from compiler.checks import Finding, run_checks
from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import Intent, load_intent
from compiler.output import Staleness, compare, with_manifest, write_tree
from compiler.render import render_config
from core.errors import CompileError


@dataclass
class CompileResult:
    """Everything one compile produced, and how long each stage took (seconds)."""

    intent: Intent
    fabric: ResolvedFabric
    findings: list[Finding]
    files: dict[str, bytes]
    timings: dict[str, float] = field(default_factory=dict)
    renders: dict[str, DeviceRender] = field(default_factory=dict)
    """Per device: the fingerprint of its structured document and the sha256 of its files."""
    reused: int = 0
    """Devices whose files were taken from the last compile rather than rendered."""

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def config_lines(self) -> int:
        return sum(data.count(b"\n") for path, data in self.files.items() if path.startswith("configs/"))


@contextmanager
def _timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    timings[stage] = timings.get(stage, 0.0) + time.perf_counter() - start


Reuse = Callable[[str, str], "dict[str, str] | None"]
"""``reuse(device, fingerprint)``: that device's files from the last compile, when its structured
document had this fingerprint then (see :class:`compiler.cache.CompileCache`), else None."""


def render_devices(
    documents: dict[str, dict[str, Any]], reuse: Reuse | None = None
) -> tuple[dict[str, str], dict[str, DeviceRender], int]:
    """Each device's config and structured YAML; a device whose document is unchanged is reused.

    The two files are functions of the document and the code alone (the fingerprint covers
    both), so reusing them gives the bytes rendering would.
    """
    code = code_digest()
    files: dict[str, str] = {}
    renders: dict[str, DeviceRender] = {}
    reused = 0
    for name, document in documents.items():
        key = fingerprint(document, code)
        own = reuse(name, key) if reuse is not None else None
        if own is None:
            own = {f"configs/{name}.cfg": render_config(document["config"])}
            own.update(structured_configs({name: document}))
        else:
            reused += 1
        files.update(own)
        renders[name] = DeviceRender(key, {path: sha256(text.encode()) for path, text in own.items()})
    return files, renders, reused


def compile_intent(intent_dir: Path, reuse: Reuse | None = None) -> CompileResult:
    """Compile ``intent_dir`` in memory; nothing is written (``reuse``: see :func:`render_devices`)."""
    timings: dict[str, float] = {}
    with _timed(timings, "load"):
        intent = load_intent(intent_dir)
    with _timed(timings, "resolve"):
        fabric = resolve(intent)
    with _timed(timings, "checks"):
        findings = run_checks(intent, fabric)
    with _timed(timings, "render"):
        files, renders, reused = render_devices(structured_documents(fabric), reuse)
        files.update(nornir_inventory(intent, fabric))
        files.update(site_artifacts(intent, fabric))
        files.update(provenance_files(fabric.devices, fabric.facts.provenance))
        encoded = with_manifest(files, intent.digest)
    return CompileResult(intent, fabric, findings, encoded, timings, renders, reused)


def refuse_errors(result: CompileResult) -> None:
    """Raise :class:`CompileError` with one line per error finding, when a check found any."""
    if result.errors:
        raise CompileError(
            f"{len(result.errors)} check error(s): generated/ left unchanged",
            [f.line() for f in result.errors],
        )


def write_generated(
    result: CompileResult,
    generated_dir: Path,
    current: Mapping[str, bytes] | None = None,
    digests: Mapping[str, str] | None = None,
) -> Staleness:
    """Write a compile to ``generated_dir``, refusing when a check found an error
    (``current``, ``digests``: see :func:`compiler.output.write_tree`)."""
    refuse_errors(result)
    with _timed(result.timings, "write"):
        return write_tree(generated_dir, result.files, current, digests)


def staleness(result: CompileResult, generated_dir: Path) -> Staleness:
    """How ``generated_dir`` differs from this compile."""
    return compare(generated_dir, result.files)
