"""Read ``generated/`` as it is in the work tree or as it was at a git ref.

Deploy, drift and the lab read what was reviewed, never the intent: a
:class:`Snapshot` is the read-only view they share.

Example:
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "generated" / "configs").mkdir(parents=True)
    >>> _ = (root / "generated" / "configs" / "leaf1.cfg").write_text("hostname leaf1\\n")
    >>> snap = open_snapshot(root)
    >>> snap.configs()
    {'leaf1': 'hostname leaf1\\n'}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from core.errors import FabricopsError

GENERATED = "generated"
WORKTREE = "WORKTREE"


@dataclass(frozen=True)
class Snapshot:
    """``generated/`` at one ref: ``WORKTREE`` or a full commit sha."""

    root: Path
    ref: str
    _files: dict[str, bytes] = field(repr=False)

    def list(self, prefix: str = "") -> list[str]:
        """Paths under ``generated/`` (relative to it) that start with ``prefix``, sorted."""
        return sorted(p for p in self._files if p.startswith(prefix))

    def exists(self, relpath: str) -> bool:
        return relpath in self._files

    def read_bytes(self, relpath: str) -> bytes:
        try:
            return self._files[relpath]
        except KeyError:
            raise FabricopsError(f"generated/{relpath} does not exist at {self.ref}: run 'fabricops compile'") from None

    def read_text(self, relpath: str) -> str:
        return self.read_bytes(relpath).decode()

    def read_yaml(self, relpath: str) -> Any:
        return yaml.safe_load(self.read_text(relpath))

    def configs(self) -> dict[str, str]:
        """Device name -> config text, from ``configs/<device>.cfg``."""
        return {PurePosixPath(p).stem: self.read_text(p) for p in self.list("configs/") if p.endswith(".cfg")}

    def hosts(self) -> dict[str, dict[str, Any]]:
        """The Nornir SimpleInventory hosts file, parsed (empty when absent)."""
        if not self.exists("inventory/hosts.yaml"):
            return {}
        data = self.read_yaml("inventory/hosts.yaml")
        return dict(data or {})


def open_snapshot(root: Path, ref: str | None = None) -> Snapshot:
    """``generated/`` under ``root`` in the work tree (``ref=None``) or at a git ref."""
    if ref is None:
        base = root / GENERATED
        files = {p.relative_to(base).as_posix(): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}
        return Snapshot(root, WORKTREE, files)
    import git

    try:
        repo = git.Repo(root)
        commit = repo.commit(ref)
    except (git.exc.GitError, ValueError) as exc:
        raise FabricopsError(f"cannot read git ref {ref!r} in {root}: {exc}") from exc
    try:
        tree = commit.tree / GENERATED
    except KeyError:
        raise FabricopsError(f"generated/ does not exist at {ref}: run 'fabricops compile'") from None
    files = {
        str(item.path)[len(GENERATED) + 1 :]: item.data_stream.read()
        for item in tree.traverse()
        if isinstance(item, git.Blob)
    }
    sha = commit.hexsha
    return Snapshot(root, sha, files)
