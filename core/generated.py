"""The ``generated/`` contract: its layout, the names fabricops gives things in git, typed readers.

Every package that names a path under ``generated/``, the deploy tag prefix, the state branch,
the lab's ``lab.json`` or the report directory takes the name from here; the compiler writes
the manifest with :func:`manifest_bytes`, and deploy reads it back (:meth:`Snapshot.verify`)
to refuse a ``generated/`` that the compiler did not write or that is stale against its intent.

Deploy, drift and the lab read what was reviewed, never the intent: a :class:`Snapshot` is
the read-only view of ``generated/`` at one ref that they share (with the repository's own
switch models beside it, :meth:`Snapshot.catalog`).

Example:
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "generated" / "configs").mkdir(parents=True)
    >>> _ = (root / "generated" / "configs" / "leaf1.cfg").write_text("hostname leaf1\\n")
    >>> snap = open_snapshot(root)
    >>> snap.configs()
    {'leaf1': 'hostname leaf1\\n'}
    >>> config_path("leaf1"), deploy_tag("20250102T030405Z")
    ('configs/leaf1.cfg', 'deploy/20250102T030405Z')
"""

from __future__ import annotations

import builtins
import csv
import hashlib
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from json.encoder import encode_basestring_ascii
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, NamedTuple

from core.errors import FabricopsError

if TYPE_CHECKING:
    from git import Repo

    from core.hardware import Catalog

# ------------------------------------------------------------------------------------- names
GENERATED = "generated"
INTENT = "intent"
#: The intent files every compile reads; the manifest's digest is taken of their bytes in this order,
#: then of the optional day-2 files that exist, then of the repository's own switch models.
INTENT_FILES = ("fabric.yaml", "racks.yaml", "servers.csv")
OPTIONAL_INTENT_FILES = ("vlans.yaml", "ports.yaml", "devices.yaml")
#: The repository's own switch models, ``intent/hardware/**.yaml``.
INTENT_MODELS = "hardware/"
CONFIGS = "configs/"
STRUCTURED = "structured/"
#: Per device, the intent element behind each setting (``fabricops diff`` groups a change by it).
PROVENANCE = "provenance/"
INVENTORY = "inventory/"
HOSTS = "inventory/hosts.yaml"
GROUPS = "inventory/groups.yaml"
DEFAULTS = "inventory/defaults.yaml"
INVENTORY_FILES = (HOSTS, GROUPS, DEFAULTS)
CABLING = "inventory/cabling.csv"
MANIFEST = "MANIFEST.json"
#: Where the work tree is read from when no ref is given.
WORKTREE = "WORKTREE"
#: Annotated tags ``deploy/<UTC stamp>`` mark fleet versions: commits the whole fleet runs.
DEPLOY_TAG_PREFIX = "deploy/"
#: The branch that holds backups, deploy records, the state of record and the fleet lock.
STATE_BRANCH = "fabricops-state"
LAB_DIR = ".lab"
LAB_INFO = f"{LAB_DIR}/lab.json"
#: The lab's self-signed HTTPS certificate (public), for a client that verifies it.
LAB_CERT = f"{LAB_DIR}/tls-certificate.pem"
#: The plan file ``fabricops plan`` writes and ``deploy --plan`` reads (git-ignored).
PLAN_FILE = "plan.json"
#: Reports (drift) go under the repository root, outside every source package (git-ignored).
REPORTS_DIR = "reports"


def config_path(device: str) -> str:
    """Where a device's config lives under ``generated/``."""
    return f"{CONFIGS}{device}.cfg"


def provenance_path(device: str) -> str:
    """Where a device's provenance (the intent element behind each setting) lives under ``generated/``."""
    return f"{PROVENANCE}{device}.json"


def deploy_tag(stamp: str) -> str:
    """The fleet-version tag of a deploy stamp."""
    return f"{DEPLOY_TAG_PREFIX}{stamp}"


def intent_digest(files: Mapping[str, bytes]) -> str:
    """The digest of the intent a ``generated/`` came from (``files``: path under ``intent/`` -> bytes).

    sha256 of :data:`INTENT_FILES` in order, then each optional file and each model under
    :data:`INTENT_MODELS` prefixed with its name, so moving bytes between files changes it.

    Example:
        >>> intent_digest({"fabric.yaml": b"a", "racks.yaml": b"b", "servers.csv": b"c"})[:12]
        'ba7816bf8f01'
        >>> intent_digest({"fabric.yaml": b"a", "racks.yaml": b"b", "servers.csv": b"c", "vlans.yaml": b""})[:12]
        'ed172efe31d6'
    """
    parts = [files.get(name, b"") for name in INTENT_FILES]
    parts += [name.encode() + files[name] for name in OPTIONAL_INTENT_FILES if name in files]
    parts += [
        path[len(INTENT_MODELS) :].encode() + files[path]
        for path in sorted(files)
        if path.startswith(INTENT_MODELS) and path.endswith(".yaml")
    ]
    return hashlib.sha256(b"".join(parts)).hexdigest()


def read_intent(directory: Path) -> dict[str, bytes]:
    """The files of ``directory`` (an ``intent/``) that :func:`intent_digest` covers, as they are now."""
    names = [*INTENT_FILES, *OPTIONAL_INTENT_FILES]
    files = {name: (directory / name).read_bytes() for name in names if (directory / name).is_file()}
    models = directory / INTENT_MODELS
    if models.is_dir():
        files.update({p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(models.rglob("*.yaml"))})
    return files


def manifest_bytes(files: Mapping[str, bytes], digest: str) -> bytes:
    """``MANIFEST.json`` for ``files`` (path under ``generated/`` -> bytes): sha256 of each, and the intent digest.

    Example:
        >>> json.loads(manifest_bytes({"configs/a.cfg": b"x\\n"}, "abc"))["files"]["configs/a.cfg"][:12]
        '73cb3858a687'
    """
    return manifest_of({path: hashlib.sha256(data).hexdigest() for path, data in files.items()}, digest)


def manifest_of(digests: Mapping[str, str], digest: str) -> bytes:
    """``MANIFEST.json`` from the sha256 of each file (path under ``generated/`` -> hex digest).

    The text is ``json.dumps(..., indent=2, sort_keys=True)``'s, written line by line: with an
    indent, ``json`` encodes in Python, which costs a fleet-sized compile a noticeable share.

    Example:
        >>> files = {"configs/é.cfg": "73cb", "a": "00", MANIFEST: "-"}
        >>> manifest_of(files, "abc") == (json.dumps({"intent_digest": "abc", "files": {
        ...     "a": "00", "configs/é.cfg": "73cb"}}, indent=2, sort_keys=True) + "\\n").encode()
        True
        >>> json.loads(manifest_of({}, "abc"))
        {'files': {}, 'intent_digest': 'abc'}
    """
    paths = sorted(digests)  # in the order they came, mostly sorted: a set's order would cost 10x
    if MANIFEST in digests:
        paths.remove(MANIFEST)
    shas = list(map(digests.__getitem__, paths))
    tail = f'\n  }},\n  "intent_digest": {encode_basestring_ascii(digest)}\n}}\n'
    if not paths:
        return f'{{\n  "files": {{}},\n  "intent_digest": {encode_basestring_ascii(digest)}\n}}\n'.encode()
    if _plain_json(paths) and _plain_json(shas):
        # The whole text in one join, encoded once: at 16x it is 2.5 MB, and each copy of it
        # (a part of the text formatted into the next) cost a fresh compile a millisecond or two.
        return "".join(_rows(paths, shas, '{\n  "files": {\n    "', tail)).encode()
    quote = encode_basestring_ascii
    rows = ",\n".join(f"    {quote(path)}: {quote(sha)}" for path, sha in zip(paths, shas, strict=True))
    return f'{{\n  "files": {{\n{rows}{tail}'.encode()


def _rows(paths: list[str], shas: list[str], head: str = '    "', tail: str = "") -> list[str]:
    """The parts of the rows of plain paths and digests, ``    "path": "sha"`` joined by ``,\n``
    (after ``head``, the first row's quote included, and before ``tail``), to be joined: the
    paths, digests and the text between them laid out by slice assignment, at C speed (a string
    per row joined at C speed as well cost twice as much: 18,700 rows at 16x).

    Example:
        >>> print("".join(_rows(["a", "b"], ["01", "02"])))
            "a": "01",
            "b": "02"
    """
    count = len(paths)
    parts = [""] * (4 * count + 1)
    parts[0] = head
    parts[1::4] = paths
    parts[2::4] = ['": "'] * count
    parts[3::4] = shas
    parts[4::4] = ['",\n    "'] * count
    parts[-1] = '"' + tail
    return parts


def _plain_json(texts: list[str]) -> bool:
    """Whether each of ``texts`` is a JSON string once quoted, nothing escaped (ASCII from space
    to ``~`` but ``"`` and ``\\``, as ``json`` has it): one look over them all, joined by a space
    (a character that needs no escape). The safe bytes are deleted at C speed and nothing may
    be left: five times cheaper than escaping the text to compare, a millisecond or two for
    the paths and digests of a fleet.

    Example:
        >>> _plain_json(["a/b.cfg", "a b"]), _plain_json(["é"]), _plain_json(['say "hi"']), _plain_json(["a\\tb"])
        (True, False, False, False)
    """
    joined = " ".join(texts)
    return joined.isascii() and not joined.encode("ascii").translate(None, _JSON_PLAIN)


_JSON_PLAIN = bytes(c for c in range(0x20, 0x7F) if chr(c) not in '"\\')
"""The bytes ``json`` writes as they are inside a string."""


# ----------------------------------------------------------------------------- typed readers
@dataclass(frozen=True)
class Host:
    """One device of the Nornir inventory (``inventory/hosts.yaml``)."""

    name: str
    hostname: str
    platform: str
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def role(self) -> str:
        return str(self.data.get("role") or "")

    @property
    def redundancy_group(self) -> str:
        return str(self.data.get("redundancy_group") or "")

    @property
    def model(self) -> str:
        return str(self.data.get("model") or "")

    @property
    def linecards(self) -> tuple[tuple[int, str], ...]:
        """A chassis' linecards by slot, as the inventory names them (empty for a fixed model)."""
        cards = self.data.get("linecards") or {}
        return tuple(sorted((int(slot), str(card)) for slot, card in cards.items()))

    @property
    def ethernet_ports(self) -> int:
        return int(self.data.get("ethernet_ports") or 0)

    @property
    def eos_version(self) -> str:
        """The EOS release the inventory names for the device ('' when it names none)."""
        return str(self.data.get("eos_version") or "")

    @property
    def serial(self) -> str:
        """The serial number of the unit intent names for the device ('' when it names none)."""
        return str(self.data.get("serial") or "")

    @property
    def base_mac(self) -> str:
        """The base MAC address of that unit ('' when intent names none)."""
        return str(self.data.get("base_mac") or "")

    @property
    def unit(self) -> tuple[str, str]:
        """The unit intent names: (serial, base MAC)."""
        return self.serial, self.base_mac

    @property
    def unit_row(self) -> str:
        """The unit as a review lists it, e.g. ``leaf1 serial JPE1 base MAC 00:1c:73:00:00:01``."""
        return f"{self.name} serial {self.serial or '-'} base MAC {self.base_mac or '-'}"


class CableRow(NamedTuple):
    """One cable of ``inventory/cabling.csv``: both ends (a server end keeps its server and NIC name).

    A record (as :class:`Manifest`): a frozen dataclass made its methods at import, 0.5 ms of
    every start of every command."""

    a_device: str
    a_port: str
    b_device: str
    b_port: str


class Manifest(NamedTuple):
    """``MANIFEST.json``: the sha256 of every file the compiler wrote, and the intent digest."""

    intent_digest: str
    files: Mapping[str, str]


def parse_cabling(text: str) -> list[CableRow]:
    """The cables of ``cabling.csv`` text; rows without both ends are skipped.

    Example:
        >>> parse_cabling("a_device,a_port,b_device,b_port,kind\\nleaf1,Ethernet1,spine1,Ethernet1,x\\n")
        [CableRow(a_device='leaf1', a_port='Ethernet1', b_device='spine1', b_port='Ethernet1')]
    """
    reader = csv.reader(io.StringIO(text))
    header = next(reader, [])
    # Columns by position, read once: a fleet's cable list has tens of thousands of rows.
    at = [header.index(key) if key in header else None for key in ("a_device", "a_port", "b_device", "b_port")]
    rows = []
    for row in reader:
        ends = [row[i].strip() if i is not None and i < len(row) else "" for i in at]
        if all(ends):
            rows.append(CableRow(*ends))
    return rows


@dataclass(frozen=True)
class Snapshot:
    """``generated/`` at one ref: ``WORKTREE`` or a full commit sha (``intent`` holds intent/ there).

    At a ref, its file list is known up front and a file's content is read when first asked for
    (a blob never changes), the readers of many files (:meth:`configs`, :meth:`verify`) reading
    them in one git call: a drift audit needs the configs and the inventory, not the 28 files per
    switch beside them. The work tree is read whole when opened, as it was at that moment.
    """

    root: Path
    ref: str
    #: Path under ``generated/`` -> where to read it: a blob sha at a ref, a file in the work tree.
    _index: dict[str, str] = field(repr=False)
    intent: dict[str, bytes] = field(default_factory=dict, repr=False)
    _read: dict[str, bytes] = field(default_factory=dict, repr=False, compare=False)
    _inventory: list[tuple[Any, Any, Any]] = field(default_factory=list, repr=False, compare=False)

    def list(self, prefix: str = "") -> list[str]:
        """Paths under ``generated/`` (relative to it) that start with ``prefix``, sorted."""
        return sorted(p for p in self._index if p.startswith(prefix))

    def exists(self, relpath: str) -> bool:
        return relpath in self._index

    def read_bytes(self, relpath: str) -> bytes:
        if relpath not in self._index:
            missing = f"generated/{relpath} does not exist at {self.short}"
            raise FabricopsError(f"{missing}: run 'fabricops compile'")
        return self._load([relpath])[relpath]

    def read_text(self, relpath: str) -> str:
        return self.read_bytes(relpath).decode()

    def read_yaml(self, relpath: str) -> Any:
        return yaml_load(self.read_text(relpath))

    def _load(self, paths: Iterable[str]) -> dict[str, bytes]:
        """The contents of ``paths`` (all listed), reading the ones not read yet in one go."""
        wanted = list(paths)
        unread = [p for p in wanted if p not in self._read]
        if unread:
            from core.gitobjects import read_blobs

            for path, data in zip(unread, read_blobs(self.root, [self._index[p] for p in unread]), strict=True):
                if data is None:
                    raise FabricopsError(f"generated/{path} at {self.short} cannot be read from git: git fsck")
                self._read[path] = data
        return {p: self._read[p] for p in wanted}

    @property
    def short(self) -> str:
        """The ref as people read it: a short sha, or ``WORKTREE``."""
        return self.ref if self.ref == WORKTREE else self.ref[:12]

    def table(self, relpath: str) -> builtins.list[dict[str, str]]:
        """The rows of a CSV table by column name, values trimmed (empty when the file is absent).

        A reader by column name: a new column changes nothing for it, a missing one reads blank.
        """
        if not self.exists(relpath):
            return []
        return [
            {k: (v or "").strip() for k, v in row.items() if k}
            for row in csv.DictReader(io.StringIO(self.read_text(relpath)))
        ]

    def configs(self) -> dict[str, str]:
        """Device name -> config text, from ``configs/<device>.cfg``."""
        paths = [p for p in self.list(CONFIGS) if p.endswith(".cfg")]
        return {PurePosixPath(p).stem: data.decode() for p, data in self._load(paths).items()}

    def inventory(self) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        """``inventory/hosts.yaml``, ``groups.yaml`` and ``defaults.yaml`` as parsed YAML (empty when
        absent), parsed once: callers read them and copy what they keep, never change them."""
        if not self._inventory:
            parsed = (self.read_yaml(path) or {} if self.exists(path) else {} for path in INVENTORY_FILES)
            hosts, groups, defaults = parsed
            self._inventory.append((hosts, groups, defaults))
        return self._inventory[0]

    def hosts(self) -> dict[str, Host]:
        """The Nornir inventory's hosts (empty when ``inventory/hosts.yaml`` is absent)."""
        raw = self.inventory()[0]
        return {
            str(name): Host(
                str(name),
                str((entry or {}).get("hostname") or ""),
                str((entry or {}).get("platform") or "eos"),
                dict((entry or {}).get("data") or {}),
            )
            for name, entry in raw.items()
        }

    def catalog(self) -> Catalog:
        """The switch model catalog with the repository's own models at this ref: the files of
        ``intent/hardware/`` beside this ``generated/``, which its intent digest covers, so the
        lab and deploy know every model the compiler knew."""
        from core.hardware import ModelFiles, catalog

        return catalog(ModelFiles.of(self.intent))

    def cables(self) -> tuple[CableRow, ...]:
        """Every cable of ``inventory/cabling.csv`` (empty when absent)."""
        return tuple(parse_cabling(self.read_text(CABLING))) if self.exists(CABLING) else ()

    def manifest(self) -> Manifest | None:
        """``MANIFEST.json``, or None when there is none (then the compiler did not write this tree)."""
        if not self.exists(MANIFEST):
            return None
        try:
            data = json.loads(self.read_bytes(MANIFEST))
            return Manifest(str(data["intent_digest"]), {str(k): str(v) for k, v in data["files"].items()})
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            unreadable = f"generated/{MANIFEST} at {self.short} is unreadable ({exc})"
            raise FabricopsError(f"{unreadable}: run 'fabricops compile'") from None

    def verify(self) -> None:
        """Refuse a ``generated/`` the compiler did not write as it is, or one stale against intent/ beside it.

        Foreign: no manifest, or a file added, removed or edited since the compile wrote it.
        Stale: intent/ at the same ref (when it is there) is not the intent the manifest names.
        """
        where = f"generated/ at {self.short}"
        fix = "run 'fabricops compile' and commit"
        manifest = self.manifest()
        if manifest is None:
            raise FabricopsError(f"{where} has no {MANIFEST}: it was not written by 'fabricops compile' ({fix})")
        files = self._load(p for p in self._index if p != MANIFEST)
        actual = {p: hashlib.sha256(data).hexdigest() for p, data in files.items()}
        edited = sorted(p for p, sha in actual.items() if manifest.files.get(p, sha) != sha)
        problems = [f"edited since compiled: generated/{p}" for p in edited]
        problems += [f"not written by the compiler: generated/{p}" for p in sorted(set(actual) - set(manifest.files))]
        problems += [f"missing: generated/{p}" for p in sorted(set(manifest.files) - set(actual))]
        if problems:
            raise FabricopsError(f"{where} does not match its {MANIFEST}: {fix}", problems[:10])
        if self.intent and intent_digest(self.intent) != manifest.intent_digest:
            raise FabricopsError(f"{where} is stale: intent/ changed since it was compiled ({fix})")


def yaml_load(text: str | bytes) -> Any:
    """``text`` parsed by libyaml where PyYAML has it (ten times faster on a fleet's inventory),
    the same YAML otherwise. PyYAML is imported here, when first needed: a compile whose intent,
    catalog and platform data are kept (:mod:`compiler.intentcache`) parses none, and saves 10 ms.

    Example:
        >>> yaml_load("a: [1, b]")
        {'a': [1, 'b']}
    """
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def open_snapshot(root: Path, ref: str | None = None) -> Snapshot:
    """``generated/`` under ``root`` in the work tree (``ref=None``) or at a git ref."""
    if ref is None:
        # The work tree changes under a reader: its files are read now, a snapshot of that moment.
        base = root / GENERATED
        index = {p.relative_to(base).as_posix(): str(p) for p in sorted(base.rglob("*")) if p.is_file()}
        intent = read_intent(root / INTENT)
        files = {relpath: Path(path).read_bytes() for relpath, path in index.items()}
        return Snapshot(root, WORKTREE, index, intent, files)
    from core.gitobjects import read_blobs, tree_files

    commit = resolve_commit(root, ref)
    index = tree_files(root, commit.hexsha, GENERATED)
    if not index:
        raise FabricopsError(f"generated/ does not exist at {ref}: run 'fabricops compile' and commit")
    models = [f"{INTENT_MODELS}{p}" for p in tree_files(root, commit.hexsha, f"{INTENT}/{INTENT_MODELS}")]
    names = [*INTENT_FILES, *OPTIONAL_INTENT_FILES, *models]
    texts = read_blobs(root, [f"{commit.hexsha}:{INTENT}/{name}" for name in names])
    intent = {name: data for name, data in zip(names, texts, strict=True) if data is not None}
    return Snapshot(root, commit.hexsha, index, intent)


# ------------------------------------------------------------------------------- git refs
def open_repo(root: Path) -> Repo:
    """The git repository at ``root``; an error that says so when there is none."""
    import git

    try:
        return git.Repo(root)
    except (git.exc.InvalidGitRepositoryError, git.exc.NoSuchPathError):
        why = "fabricops reads generated/ and its state from git"
        raise FabricopsError(f"{root} is not a git repository: {why}") from None


def resolve_commit(root: Path, ref: str) -> Any:
    """The commit ``ref`` names; a bad ref is one line naming it and what exists (never a gitdb traceback)."""
    import git

    repo = open_repo(root)
    try:
        # rev-parse checks that the object exists (gitpython's commit() accepts any 40 hex digits)
        sha = str(repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"))
    except git.exc.GitCommandError:
        raise FabricopsError(f"unknown git ref {ref!r}: {describe_refs(repo)}") from None
    return repo.commit(sha)


def merge_base(root: Path, base: str, head: str) -> tuple[str, str]:
    """Where a change to ``head`` that goes into ``base`` starts: their merge-base, and a note saying so.

    A pull request is reviewed from there (what ``base`` gained since the branch left it is not
    part of the change); without a common commit, ``base`` itself.
    """
    import git

    base_sha, head_sha = resolve_commit(root, base).hexsha, resolve_commit(root, head).hexsha
    try:
        found = str(open_repo(root).git.merge_base(base_sha, head_sha)).strip()
    except git.exc.GitCommandError:
        return base_sha, f"{base} (no common commit with {head})"
    if found == base_sha:
        return found, f"{base}, the merge-base of {base} and {head}"
    return found, f"the merge-base of {base} and {head}"


def deploy_tags(repo: Repo) -> list[str]:
    """Every ``deploy/*`` tag, oldest first (their stamps sort in time order)."""
    return sorted(_deploy_tag_commits(repo))


def version_tags(repo: Repo) -> dict[str, str]:
    """Commit -> the newest ``deploy/*`` tag on it: the fleet versions by commit."""
    tags = _deploy_tag_commits(repo)
    return {tags[name]: name for name in sorted(tags)}


def _deploy_tag_commits(repo: Repo) -> dict[str, str]:
    """Each ``deploy/*`` tag and the commit it names, from one ``git for-each-ref`` (a fleet makes
    a tag per version: reading each tag object on its own grows with the history)."""
    fields = "--format=%(refname:short) %(objectname) %(*objectname)"
    listed = str(repo.git.for_each_ref(fields, f"refs/tags/{DEPLOY_TAG_PREFIX}"))
    out = {}
    for line in listed.splitlines():
        name, sha, *peeled = line.split()
        out[name] = peeled[0] if peeled else sha  # an annotated tag names its commit through the tag object
    return out


def configs_at(root: Path, commit: str, devices: Iterable[str]) -> dict[str, str]:
    """Generated configs of ``devices`` at a commit (one git call); those it lacks are left out."""
    from core.gitobjects import read_blobs

    names = list(devices)
    texts = read_blobs(root, [f"{commit}:{GENERATED}/{config_path(device)}" for device in names])
    return {device: text.decode() for device, text in zip(names, texts, strict=True) if text is not None}


def config_at(root: Path, commit: str, device: str) -> str | None:
    """A device's generated config at a commit, None when it has none there."""
    return configs_at(root, commit, [device]).get(device)


def describe_refs(repo: Repo) -> str:
    """What refs exist, in one line: branches and the newest deploy tags."""
    branches = sorted(h.name for h in repo.heads if h.name != STATE_BRANCH)
    tags = deploy_tags(repo)
    shown = ", ".join(reversed(tags[-3:])) + (f" and {len(tags) - 3} older" if len(tags) > 3 else "")
    return (
        f"not a branch, tag or commit here (branches: {', '.join(branches) or 'none'}; deploy tags: {shown or 'none'})"
    )


def unknown_names(kind: str, names: Iterable[str], known: Iterable[str], where: str) -> FabricopsError:
    """One line for names that do not exist: each with its closest known names, and how many exist.

    Example:
        >>> print(unknown_names("device", ["rack03-leaf-x"], ["rack03-leaf-a", "rack03-leaf-b", "spine01"], "hosts"))
        unknown device rack03-leaf-x (did you mean rack03-leaf-a, rack03-leaf-b?): not among the 3 devices of hosts
    """
    import difflib  # here: only an error names close matches (1 ms of every start otherwise)

    choices = sorted(set(known))
    parts = []
    for name in sorted(set(names)):
        close = difflib.get_close_matches(name, choices, n=3, cutoff=0.6)
        parts.append(f"{name} (did you mean {', '.join(sorted(close))}?)" if close else name)
    plural = "s" if len(parts) > 1 else ""
    return FabricopsError(f"unknown {kind}{plural} {', '.join(parts)}: not among the {len(choices)} {kind}s of {where}")
