"""The in-sync memo: the same verdicts as the comparison itself, remembered only while every input is the same."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from drift.compare import compare_config
from drift.memo import KEY_FILE, MEMO_FILE, InSyncMemo

CONFIGS = Path(__file__).resolve().parents[2] / "generated" / "configs"
SECRET = "$6$device$hashXYZ"


@pytest.fixture(scope="module")
def intended() -> str:
    """A real generated leaf config, with its secret placeholders."""
    return next(iter(sorted(CONFIGS.glob("*leaf*.cfg")))).read_text()


def _running(intended: str) -> str:
    """What the switch prints for ``intended`` (its secrets in their stored form)."""
    import re

    return re.sub(r"<secret:[^>]+>", SECRET, intended)


def _values(intended: str) -> dict[str, str]:
    from core.secrets import placeholders

    return dict.fromkeys(placeholders(intended), SECRET)


def _remembered(root: Path, intended: str, running: str, values: dict[str, str]) -> InSyncMemo:
    """A memo that has seen ``running`` in sync with ``intended`` in an earlier run."""
    first = InSyncMemo(root)
    assert first(intended, running, values=values, key=b"run1").changes == ()
    first.save()
    return InSyncMemo(root)


def test_a_remembered_verdict_is_the_comparison_s_own(tmp_path: Path, intended: str) -> None:
    running, values = _running(intended), _values(intended)
    memo = _remembered(tmp_path, intended, running, values)
    again = memo(intended, running, values=values, key=b"run2")
    assert memo.hits == 1
    assert again == compare_config(intended, running, values=values, key=b"run2")


def test_notes_are_remembered_with_the_verdict(tmp_path: Path, intended: str) -> None:
    running = _running(intended)
    memo = _remembered(tmp_path, intended, running, {})  # secret values unknown: notes, not drift
    expected = compare_config(intended, running, values={}, key=b"k")
    assert expected.notes and memo(intended, running, values={}, key=b"k") == expected
    assert memo.hits == 1


def test_a_switch_that_differs_is_found_every_time(tmp_path: Path, intended: str) -> None:
    running, values = _running(intended), _values(intended)
    edited = running.replace("\nhostname ", "\nip name-server vrf MGMT 192.0.2.53\nhostname ", 1)
    for _run in range(2):
        memo = InSyncMemo(tmp_path)
        found = memo(intended, edited, values=values, key=b"k")
        memo.save()
        assert [(c.kind, c.line) for c in found.changes] == [("added", "ip name-server vrf MGMT 192.0.2.53")]
        assert memo.hits == 0


def test_a_changed_intended_config_is_compared_in_full(tmp_path: Path, intended: str) -> None:
    running, values = _running(intended), _values(intended)
    memo = _remembered(tmp_path, intended, running, values)
    changed = intended.replace("\nhostname ", "\nip name-server vrf MGMT 192.0.2.53\nhostname ", 1)
    result = memo(changed, running, values=values, key=b"k")
    assert memo.hits == 0
    assert [(c.kind, c.line) for c in result.changes] == [("removed", "ip name-server vrf MGMT 192.0.2.53")]


def test_another_secret_value_is_compared_in_full(tmp_path: Path, intended: str) -> None:
    running, values = _running(intended), _values(intended)
    memo = _remembered(tmp_path, intended, running, values)
    rotated = dict.fromkeys(values, "$6$git$rotated")
    result = memo(intended, running, values=rotated, key=b"k")
    assert memo.hits == 0 and {c.kind for c in result.changes} == {"secret"}


def test_another_release_or_defaults_table_is_compared_in_full(tmp_path: Path, intended: str) -> None:
    running, values = _running(intended), _values(intended)
    memo = _remembered(tmp_path, intended, running, values)
    memo(intended, running, values=values, key=b"k", version="4.30.1F")
    table = tmp_path / "eos.yaml"
    table.write_text("eos: []\n")
    memo(intended, running, values=values, key=b"k", table=table)
    assert memo.hits == 0


def test_the_memo_holds_no_secret_and_its_key_is_private(tmp_path: Path, intended: str) -> None:
    running, values = _running(intended), _values(intended)
    _remembered(tmp_path, intended, running, values)
    text = (tmp_path / MEMO_FILE).read_text()
    assert SECRET not in text and "hashXYZ" not in text
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600


def test_an_unreadable_memo_is_a_full_comparison(tmp_path: Path, intended: str) -> None:
    running, values = _running(intended), _values(intended)
    _remembered(tmp_path, intended, running, values)
    (tmp_path / MEMO_FILE).write_text("{not json")
    memo = InSyncMemo(tmp_path)
    assert memo(intended, running, values=values, key=b"k").changes == () and memo.hits == 0
    memo.save()
    assert json.loads((tmp_path / MEMO_FILE).read_text())["schema"] == 1


def test_comparisons_in_the_second_process_are_the_same(tmp_path: Path, intended: str) -> None:
    """Past its inline share a run compares in another process: same verdicts, changes and remediation."""
    running, values = _running(intended), _values(intended)
    edited = running.replace("\n   mtu 9214\n", "\n   mtu 1500\n", 1)
    rotated = dict.fromkeys(values, "$6$other$salt")
    cases = [(running, values), (edited, values), (running, rotated), (running, {})]
    memo = InSyncMemo(tmp_path, inline=1)
    try:
        found = [memo(intended, live, values=known, key=b"k") for live, known in cases]
        assert memo._pool is not None  # the last three ran there
    finally:
        memo.save()
    assert memo._pool is None
    assert found == [compare_config(intended, live, values=known, key=b"k") for live, known in cases]
    assert [bool(f.changes) for f in found] == [False, True, True, False]


def _script(tmp_path: Path, intended: str, body: str) -> subprocess.CompletedProcess[str]:
    """Run ``body`` as a script of its own (``want``, ``have``: the intended and running texts)."""
    (tmp_path / "intended.cfg").write_text(intended)
    (tmp_path / "running.cfg").write_text(_running(intended))
    script = tmp_path / "script.py"
    script.write_text(
        "from pathlib import Path\n"
        "from drift.memo import InSyncMemo\n"
        f"root = Path({str(tmp_path)!r})\n"
        "want, have = (root / 'intended.cfg').read_text(), (root / 'running.cfg').read_text()\n" + body
    )
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False)


def test_a_second_process_that_cannot_start_leaves_the_comparisons_here(tmp_path: Path, intended: str) -> None:
    """A script that calls the memo without the ``if __name__ == "__main__"`` guard: the spawned
    process runs the script again and dies starting; the parent compares everything itself."""
    done = _script(
        tmp_path,
        intended,
        "memo = InSyncMemo(None, inline=0)\n"
        "found = [memo(want, text, values={}, key=b'k') for text in (have, have + 'hostname other\\n')]\n"
        "memo.save()\n"
        "print([len(f.changes) for f in found], memo._pool is None)\n",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[0, 1] True"


def test_a_command_that_ends_in_the_memo_s_block_stops_the_second_process(tmp_path: Path, intended: str) -> None:
    """Leaving ``with InSyncMemo(...)`` stops the second process, saved or not: one left running
    when the interpreter exits makes Python print a traceback from its closed wake-up pipe."""
    done = _script(
        tmp_path,
        intended,
        "if __name__ == '__main__':\n"
        "    with InSyncMemo(None, inline=0) as memo:\n"
        "        found = [memo(want, have + f'hostname h{i}\\n', values={}, key=b'k') for i in range(2)]\n"
        "        used = memo._pool is not None\n"
        "    print(used, memo._pool is None, [len(f.changes) for f in found])\n",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "True True [1, 1]"
    assert "Traceback" not in done.stderr, done.stderr
