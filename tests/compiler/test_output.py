"""Writing generated/: what differs between a tree on disk and a compile's files."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from compiler.output import (
    CompiledFiles,
    Staleness,
    TreeOnDisk,
    diff_trees,
    read_tree,
    recover,
    stage_tree,
    staging_dir,
    write_tree,
)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_tree_on_disk_against_a_compile_reads_only_the_files_it_cannot_settle(tmp_path: Path) -> None:
    for name, data in {"kept": b"1", "same": b"2", "edited": b"3", "gone": b"x"}.items():
        (tmp_path / name).write_bytes(data)
    tree = TreeOnDisk(tmp_path, ["kept", "same", "edited", "gone"])
    built = {"same": b"2", "edited": b"4", "new": b"5"}
    files = CompiledFiles(built, {"kept": _sha(b"1")}, tree.__getitem__, {p: _sha(d) for p, d in built.items()})
    (tmp_path / "kept").unlink()  # settled by its recorded digest: never read
    stale = diff_trees(tree, files, {"kept": _sha(b"1"), "same": _sha(b"2")}, files.digests)
    assert stale == Staleness(changed=("edited",), missing=("new",), extra=("gone",))


def test_write_tree_leaves_exactly_the_compiled_files(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    write_tree(out, {"a/x.cfg": b"1", "b.yaml": b"2"})
    change = write_tree(out, {"a/x.cfg": b"1", "c.md": b"3"})
    assert change == Staleness(changed=(), missing=("c.md",), extra=("b.yaml",))
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == ["a/x.cfg", "c.md"]


def test_a_kept_file_is_compared_unless_its_digest_is_the_one_known(tmp_path: Path) -> None:
    """A compile's kept files are settled by the known digests of the tree at C speed: then only
    the files it built are compared. A kept file whose digest is not the one known (the tree
    changed since the compile kept it) is compared as any other: it is stale."""
    (tmp_path / "kept").write_bytes(b"1")
    (tmp_path / "built").write_bytes(b"2")
    tree = TreeOnDisk(tmp_path, ["kept", "built"])
    built = {"built": b"3"}
    files = CompiledFiles(built, {"kept": _sha(b"1")}, tree.__getitem__, {"built": _sha(b"3")})
    known = {"kept": _sha(b"1"), "built": _sha(b"2")}
    assert diff_trees(tree, files, known, files.digests) == Staleness(changed=("built",), missing=(), extra=())
    edited = {**known, "kept": _sha(b"edited since")}
    assert diff_trees(tree, files, edited, files.digests).changed == ("built", "kept")


def test_a_staged_write_changes_nothing_until_applied_and_nothing_when_dropped(tmp_path: Path) -> None:
    """The compile stages its write while the checks run: the tree is untouched until the write
    is applied; dropped (a check error) or cut short before its marker, it leaves no trace."""
    tree = tmp_path / "generated"
    write_tree(tree, {"a.cfg": b"old", "gone.cfg": b"x"})
    before = {p.name: p.read_bytes() for p in tree.iterdir()}
    new = {"a.cfg": b"new", "b.cfg": b"b"}

    dropped = stage_tree(tree, new)
    assert staging_dir(tree).is_dir() and {p.name: p.read_bytes() for p in tree.iterdir()} == before
    dropped.discard()
    assert not staging_dir(tree).exists() and {p.name: p.read_bytes() for p in tree.iterdir()} == before

    stage_tree(tree, new)  # the process dies here: no marker, so the next compile discards it
    recover(tree)
    assert not staging_dir(tree).exists() and {p.name: p.read_bytes() for p in tree.iterdir()} == before

    change = stage_tree(tree, new).apply()
    assert (change.changed, change.missing, change.extra) == (("a.cfg",), ("b.cfg",), ("gone.cfg",))
    assert {p.name: p.read_bytes() for p in tree.iterdir()} == new and not staging_dir(tree).exists()


def test_a_write_cut_short_after_its_marker_is_finished_by_the_next(tmp_path: Path) -> None:
    """The files are staged side by side, numbered, and moved into their folders once the marker
    is written: a write interrupted midway (some moved, some not) is rolled forward by the next
    compile, files moved already left as they are."""
    tree = tmp_path / "generated"
    write_tree(tree, {"a/x.cfg": b"old", "gone.cfg": b"x"})
    new = {"a/x.cfg": b"new", "b/c/y.cfg": b"y"}
    staged = stage_tree(tree, new)
    assert sorted(p.name for p in (staging_dir(tree) / "files").iterdir()) == ["0", "1"]
    real = os.replace
    moved: list[str] = []

    def dies_after_one(source: Path, target: Path) -> None:
        if "files" in Path(source).parts:
            if moved:
                raise KeyboardInterrupt
            moved.append(str(target))
        real(source, target)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "replace", dies_after_one)
        with pytest.raises(KeyboardInterrupt):
            staged.apply()
    assert (tree / "a" / "x.cfg").read_bytes() == b"new" and not (tree / "b" / "c" / "y.cfg").exists()
    recover(tree)
    assert read_tree(tree) == new and not staging_dir(tree).exists()


def test_a_write_cut_short_between_removing_a_file_and_moving_its_new_one_is_finished(tmp_path: Path) -> None:
    """A file is removed before its new one takes its name (no rename over it): a write
    interrupted in between leaves the file missing until the next compile moves it in."""
    tree = tmp_path / "generated"
    write_tree(tree, {"a.cfg": b"old", "b.cfg": b"old"})
    staged = stage_tree(tree, {"a.cfg": b"new", "b.cfg": b"old"})

    real = os.replace

    def dies(source: Path, target: Path) -> None:
        if "files" in Path(source).parts:  # the marker is written; a staged file is not moved
            raise KeyboardInterrupt
        real(source, target)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "replace", dies)
        with pytest.raises(KeyboardInterrupt):
            staged.apply()
    assert not (tree / "a.cfg").exists()
    recover(tree)
    assert read_tree(tree) == {"a.cfg": b"new", "b.cfg": b"old"} and not staging_dir(tree).exists()


@pytest.mark.parametrize("most", [None, 7])
def test_a_file_built_in_pieces_is_written_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, most: int | None
) -> None:
    """More pieces than one call takes, empty ones among them, and (``most``) a system that
    writes at most a few bytes a call: the file holds every piece, in order, once."""
    pieces: list[bytes | memoryview] = [f"row {n}\n".encode() for n in range(2500)]
    pieces[10:10] = [b"", memoryview(b"view\n")]
    whole = b"".join(pieces)
    if most is not None:
        real = os.writev

        def short(fd: int, buffers: list[memoryview]) -> int:
            return real(fd, [bytes(buffers[0])[:most]])

        monkeypatch.setattr(os, "writev", short)
    files = CompiledFiles({"table.csv": pieces}, {}, lambda path: b"", {"table.csv": _sha(whole)})
    write_tree(tmp_path / "generated", files)
    assert (tmp_path / "generated" / "table.csv").read_bytes() == whole == files["table.csv"]


def test_a_mapped_file_keeps_the_bytes_mapped_when_the_tree_is_written_again(tmp_path: Path) -> None:
    """The last compile's fleet-wide files are mapped, not read, and their sections kept as views
    of them: a write replaces files (staged, renamed), never rewrites one in place, so the
    views still hold the bytes mapped while the new tree is written from them."""
    out = tmp_path / "generated"
    write_tree(out, {"list.csv": b"a\nb\n", "empty.txt": b""})
    tree = TreeOnDisk(out, ["list.csv", "empty.txt"])
    view = tree.mapped("list.csv")
    write_tree(out, {"list.csv": b"c\n" + bytes(view[2:]), "empty.txt": b""})
    assert bytes(view) == b"a\nb\n"
    assert (out / "list.csv").read_bytes() == b"c\nb\n"
    assert tree.mapped("empty.txt") == b""
    with pytest.raises(KeyError):
        tree.mapped("other.csv")


@pytest.mark.parametrize(
    ("have", "want"),
    [("ab", "ab"), ("ab", "abc"), ("abx", "ab"), ("ax", "ab"), ("axy", "abc"), ("", "ab"), ("ab", "")],
)
def test_the_missing_and_extra_files_are_the_two_differences_of_the_trees(have: str, want: str) -> None:
    current = dict.fromkeys(have, b"1")
    stale = diff_trees(current, dict.fromkeys(want, b"1"))
    assert stale.missing == tuple(sorted(set(want) - set(have)))
    assert stale.extra == tuple(sorted(set(have) - set(want)))
    assert stale.changed == ()
