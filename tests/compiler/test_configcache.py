"""The configs the checks keep in .fabricops-cache/: taken only under the same facts digest and
code, never from a corrupt or foreign file, and the findings are those of configs built anew."""

from __future__ import annotations

import marshal
import os
import pickle
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from compiler import configcache
from compiler.artifacts.units import facts_digests
from compiler.checks import checked, run_checks
from compiler.configcache import CONFIGS_FILE, FORMAT, ConfigCache
from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import Intent
from compiler.pipeline import CompileResult
from compiler.structured.model import VrfHost


@pytest.fixture
def saved(tmp_path: Path, example_compile: CompileResult) -> Path:
    """A cache directory holding every config of the example (as a compile leaves it)."""
    fabric = example_compile.fabric
    cache = ConfigCache(tmp_path)
    cache.save(cache.lend(fabric, facts_digests(fabric)), facts_digests(fabric))
    return tmp_path


def fresh(intent: Intent) -> ResolvedFabric:
    """The example resolved again: no config built yet, as in the next compile."""
    return resolve(intent)


def stored(directory: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The file's fleet and changed entries: facts digest by switch."""
    data = marshal.loads((directory / CONFIGS_FILE).read_bytes())
    fleet = pickle.loads(data["fleet"])
    return {n: e[0] for n, e in fleet.items()}, {n: e[0] for n, e in data["changed"].items()}


def test_kept_configs_give_the_same_findings(saved: Path, example_compile: CompileResult) -> None:
    fabric = fresh(example_compile.intent)
    cache = ConfigCache(saved)
    lent = cache.lend(fabric, facts_digests(fabric))
    assert cache.kept == len(fabric.devices) == 55
    assert run_checks(example_compile.intent, lent) == example_compile.findings
    # The checks read every config, none was built: the fabric the render reads is untouched.
    assert not any(device.config_built for device in fabric.devices.values())
    assert all(device.config_built for device in lent.devices.values())


def test_a_config_is_kept_only_under_its_switch_current_digest(saved: Path, example_compile: CompileResult) -> None:
    fabric = fresh(example_compile.intent)
    digests = facts_digests(fabric)
    # A config altered under spine01's current digest is what the checks read: the file is used...
    altered = fabric.devices["spine01"].config._replace(hostname="altered")
    data = marshal.loads((saved / CONFIGS_FILE).read_bytes())
    data["changed"]["spine01"] = (digests["spine01"], pickle.dumps(altered))
    (saved / CONFIGS_FILE).write_bytes(marshal.dumps(data))
    lent = ConfigCache(saved).lend(fabric, digests)
    assert lent.devices["spine01"].config.hostname == "altered"
    # ...but not once spine01's facts changed: neither entry counts, its config is built.
    changed = {**digests, "spine01": "0" * 64}
    cache = ConfigCache(saved)
    lent = cache.lend(fabric, changed)
    assert cache.kept == 54 and lent.devices["spine01"].config.hostname == "spine01"
    cache.save(lent, changed)
    fleet, since = stored(saved)
    assert since == {"spine01": "0" * 64} and fleet == digests  # the fleet's pickle kept as it was
    # Changed back: the fleet's entry holds again, the changed one is dropped.
    cache = ConfigCache(saved)
    cache.save(cache.lend(fresh(example_compile.intent), digests), digests)
    assert cache.kept == 55 and stored(saved) == (digests, {})


class _Forged:
    """Pickles as a config record does (:func:`compiler.configcache._record`), of ``time.struct_time``."""

    def __reduce__(self) -> tuple[object, ...]:
        return configcache._record, (time.struct_time, tuple(range(9)))


@pytest.mark.parametrize(
    "damage",
    ["garbage", "truncated", "other code", "other format", "foreign global", "foreign record", "empty"],
)
def test_a_corrupt_or_foreign_file_is_an_empty_cache(saved: Path, example_compile: CompileResult, damage: str) -> None:
    path = saved / CONFIGS_FILE
    data = marshal.loads(path.read_bytes())
    if damage == "garbage":
        path.write_bytes(b"\x00not marshal at all")
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif damage == "other code":
        path.write_bytes(marshal.dumps({**data, "code": "0" * 64}))
    elif damage == "other format":
        path.write_bytes(marshal.dumps({**data, "format": FORMAT + 1}))
    elif damage == "foreign global":  # pickles that would call something: never run
        digest = facts_digests(example_compile.fabric)["spine01"]
        data.update(fleet=pickle.dumps(os.getcwd), changed={"spine01": (digest, pickle.dumps(os.getcwd))})
        path.write_bytes(marshal.dumps(data))
    elif damage == "foreign record":  # made the way a record is (in C), of a tuple class from elsewhere
        forged = pickle.dumps(_Forged())
        digest = facts_digests(example_compile.fabric)["spine01"]
        data.update(fleet=pickle.dumps({"spine01": (digest, _Forged())}), changed={"spine01": (digest, forged)})
        path.write_bytes(marshal.dumps(data))
    else:
        path.write_bytes(b"")
    fabric = fresh(example_compile.intent)
    digests = facts_digests(fabric)
    cache = ConfigCache(saved)
    lent = cache.lend(fabric, digests)
    if damage.startswith("foreign"):  # the file reads, its pickles do not: a config asked for is built
        assert cache.kept == 55 and not any(device.config_built for device in fabric.devices.values())
        built = fresh(example_compile.intent)
        assert all(lent.devices[name].config == built.devices[name].config for name in digests)
        assert not any(cache._kept_as_read(name) for name in digests)  # none of it written back
    else:
        assert cache.kept == 0 and lent is fabric
    assert run_checks(example_compile.intent, lent) == example_compile.findings
    cache.save(lent, digests)  # written whole again, and taken next time
    again = ConfigCache(saved)
    again.lend(fresh(example_compile.intent), digests)
    assert again.kept == 55


def test_a_config_not_asked_for_is_not_read(
    saved: Path, example_compile: CompileResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lent configs are read from the file when first asked: the checks after a server row ask
    for none of the unchanged switches', so the fleet's pickle is not read, and written back as
    it was."""
    fabric = fresh(example_compile.intent)
    digests = facts_digests(fabric)
    before = stored(saved)
    changed = {**digests, "spine01": "0" * 64}

    def refused(data: bytes) -> object:
        raise AssertionError("the fleet's pickle read")

    with monkeypatch.context() as patch:
        patch.setattr(configcache, "_unpickled_fleet", refused)
        cache = ConfigCache(saved)
        lent = cache.lend(fabric, changed)
        assert cache.kept == 54 and lent.devices["spine01"].config.hostname == "spine01"  # built
        few = [name for name in digests if name != "spine01"][: configcache.BUILT_INSTEAD]
        assert all(lent.devices[name].config == fabric.devices[name].config for name in few)  # built
        cache.save(lent, changed)
    assert stored(saved) == (before[0], {"spine01": "0" * 64})
    again = ConfigCache(saved)
    lent = again.lend(fresh(example_compile.intent), changed)
    for name in [name for name in digests if name != "spine01"][: configcache.BUILT_INSTEAD + 1]:
        assert lent.devices[name].config == fabric.devices[name].config  # the last one read from the fleet
    assert again._fleet_read


def test_not_read_when_asked_and_written_all_the_same(saved: Path, example_compile: CompileResult) -> None:
    """``compile --full``: the file is ignored, then rewritten."""
    fabric = fresh(example_compile.intent)
    digests = facts_digests(fabric)
    before = (saved / CONFIGS_FILE).stat().st_mtime_ns
    cache = ConfigCache(saved, read=False)
    lent = cache.lend(fabric, digests)
    assert cache.kept == 0 and lent is fabric
    run_checks(example_compile.intent, lent)
    cache.save(lent, digests)
    assert (saved / CONFIGS_FILE).stat().st_mtime_ns != before


def test_the_file_never_outgrows_the_fleet_by_more_than_a_quarter(saved: Path, example_compile: CompileResult) -> None:
    """A switch gone stays in the fleet's pickle (rewriting it would cost more than building the
    configs), until the stale entries pass a quarter of the fabric: then only its switches are."""
    fabric = fresh(example_compile.intent)
    digests = facts_digests(fabric)
    before = (saved / CONFIGS_FILE).read_bytes()
    names = list(fabric.devices)
    one_less = replace(fabric, devices={n: fabric.devices[n] for n in names[1:]})
    cache = ConfigCache(saved)
    cache.save(cache.lend(one_less, digests), digests)
    assert (saved / CONFIGS_FILE).read_bytes() == before
    fewer = replace(fabric, devices={n: fabric.devices[n] for n in names[14:]})  # 14 gone of 55
    cache = ConfigCache(saved)
    cache.save(cache.lend(fewer, digests), digests)
    assert stored(saved) == ({n: digests[n] for n in names[14:]}, {})


def test_unchanged_is_not_written_again(saved: Path, example_compile: CompileResult) -> None:
    fabric = fresh(example_compile.intent)
    digests = facts_digests(fabric)
    before = (saved / CONFIGS_FILE).stat().st_mtime_ns
    cache = ConfigCache(saved)
    lent = cache.lend(fabric, digests)
    run_checks(example_compile.intent, lent)
    cache.save(lent, digests)
    assert (saved / CONFIGS_FILE).stat().st_mtime_ns == before


def test_an_unwritable_cache_only_costs_speed(tmp_path: Path, example_compile: CompileResult) -> None:
    (tmp_path / "file").write_text("not a directory")
    fabric = example_compile.fabric
    cache = ConfigCache(tmp_path / "file")
    cache.save(cache.lend(fabric, facts_digests(fabric)), facts_digests(fabric))
    assert cache.kept == 0


def test_a_write_that_fails_leaves_the_last_file_whole(
    saved: Path, example_compile: CompileResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = (saved / CONFIGS_FILE).read_bytes()
    old = saved / f"{CONFIGS_FILE}.killed.tmp"  # left by a writer killed long ago
    old.write_bytes(b"half")
    os.utime(old, (0, 0))
    young = saved / f"{CONFIGS_FILE}.writing.tmp"  # a writer at work now
    young.write_bytes(b"half")

    def refused(src: object, dst: object) -> None:
        raise OSError("disk full")

    fabric = example_compile.fabric
    with monkeypatch.context() as patch:  # this module's os only: other threads keep theirs
        patch.setattr(configcache, "os", SimpleNamespace(**{**vars(os), "replace": refused}))
        ConfigCache(saved, read=False).save(fabric, facts_digests(fabric))
    assert (saved / CONFIGS_FILE).read_bytes() == before
    assert sorted(p.name for p in saved.iterdir()) == sorted([".gitignore", CONFIGS_FILE, old.name, young.name])
    ConfigCache(saved, read=False).save(fabric, facts_digests(fabric))
    assert sorted(p.name for p in saved.iterdir()) == sorted([".gitignore", CONFIGS_FILE, young.name])


def test_the_fleet_shares_equal_parts_and_loads_exactly_as_built(saved: Path, example_compile: CompileResult) -> None:
    """The fleet's pickle holds each part once (equal interfaces, hosts, queues of many switches),
    and what it loads is every config as built, to each value's type and spelling."""
    configs = {name: device.config for name, device in example_compile.fabric.devices.items()}
    data = marshal.loads((saved / CONFIGS_FILE).read_bytes())
    loaded = configcache._unpickled_fleet(data["fleet"])
    assert {name: config for name, (_, config) in loaded.items()} == configs
    assert repr([loaded[name][1] for name in configs]) == repr(list(configs.values()))
    first, second = (loaded[name][1] for name in ("rack01-leaf-a", "rack02-leaf-a"))
    assert first.ntp_servers and first.ntp_servers is second.ntp_servers  # one object: pickled once
    digests = facts_digests(example_compile.fabric)
    unshared = configcache._pickled({name: (digests[name], config) for name, config in configs.items()})
    assert len(data["fleet"]) < len(unshared)


def test_parts_only_equal_are_not_shared() -> None:
    """``True == 1`` and ``0.0 == -0.0``: a part is shared only with one of the same types and spelling."""
    share = configcache._Sharing()
    host = VrfHost("10.0.0.1", None, False)
    assert share(host) is host
    as_int: Any = 0  # a field written with an int where the model says bool
    assert share(VrfHost("10.0.0.1", None, as_int)).prefer is as_int
    assert repr(share((VrfHost("10.0.0.1", None, as_int),))) == "(VrfHost(address='10.0.0.1', vrf=None, prefer=0),)"
    assert share((0.0,)) == (0.0,) and str(share((-0.0,))) == "(-0.0,)"
    assert share(VrfHost("10.0.0.1", None, False)) is host


def test_the_switch_rules_findings_are_kept_beside_the_configs(saved: Path, example_compile: CompileResult) -> None:
    """The findings given to ``save`` are read by the next ``lend`` (not after ``compile --full``),
    and the file is written again only when they change."""
    intent = example_compile.intent
    fabric = fresh(intent)
    digests = facts_digests(fabric)
    cache = ConfigCache(saved)
    lent = cache.lend(fabric, digests)
    assert cache.judged == {}  # the fixture kept configs alone
    findings, judged = checked(intent, lent, digests, cache.judged)
    assert findings == example_compile.findings and set(digests.values()) < set(judged)
    cache.save(lent, digests, judged)
    again = ConfigCache(saved)
    lent = again.lend(fresh(intent), digests)
    assert again.judged == judged
    before = (saved / CONFIGS_FILE).stat().st_mtime_ns
    again.save(lent, digests, checked(intent, lent, digests, again.judged)[1])
    assert (saved / CONFIGS_FILE).stat().st_mtime_ns == before
    full = ConfigCache(saved, read=False)
    full.lend(fresh(intent), digests)
    assert full.judged == {}
