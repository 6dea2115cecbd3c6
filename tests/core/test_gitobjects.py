"""Reading many git objects with one git process: by id, by path, and by path through a folder listing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from core.gitobjects import FOLDER_LISTING, read_blobs, tree_files

ENV = {f"GIT_{who}_{what}": "t" for who in ("AUTHOR", "COMMITTER") for what in ("NAME", "EMAIL")}


def _repo(root: Path, files: dict[str, str]) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "c"], cwd=root, check=True, env={**os.environ, **ENV})


def test_many_names_in_one_folder_read_as_each_alone(tmp_path: Path) -> None:
    count = FOLDER_LISTING + 4
    files = {f"devices/d{i:02}.json": f'{{"n": {i}}}\n' for i in range(count)}
    files |= {"devices/nested/deep.json": "deep\n", "top.txt": "top\n"}
    _repo(tmp_path, files)
    names = [f"HEAD:{path}" for path in files] + ["HEAD:devices/absent.json", "HEAD:devices/nested", "nothing:x/y"]
    found = read_blobs(tmp_path, names)
    alone = [read_blobs(tmp_path, [name])[0] for name in names]
    assert found == alone
    assert found[: len(files)] == [text.encode() for text in files.values()]
    assert found[len(files) :] == [None, None, None]  # missing, a folder, an unknown revision


def test_a_folder_s_files_are_listed_with_their_ids(tmp_path: Path) -> None:
    _repo(tmp_path, {"a/one.txt": "1\n", "a/b/two.txt": "2\n", "c.txt": "3\n"})
    listed = tree_files(tmp_path, "HEAD", "a")
    assert sorted(listed) == ["b/two.txt", "one.txt"]
    assert read_blobs(tmp_path, [listed["one.txt"]]) == [b"1\n"]
