"""The lab through ``nornir_napalm`` tasks, as deploy and drift will drive it."""

from __future__ import annotations

from nornir.core import Nornir
from nornir.core.inventory import ConnectionOptions, Defaults, Groups, Host, Hosts, Inventory
from nornir.core.plugins.connections import ConnectionPluginRegister
from nornir.core.task import Task
from nornir.plugins.runners import ThreadedRunner
from nornir_napalm.plugins.tasks import napalm_configure, napalm_get

from lab import Lab


def _options() -> dict[str, ConnectionOptions]:
    # One dict per host: nornir_napalm writes the host's port into optional_args.
    return {"napalm": ConnectionOptions(extras={"optional_args": {"transport": "http"}, "timeout": 5})}


def nornir_for(lab: Lab) -> Nornir:
    """An in-memory Nornir inventory (no files) pointing at every lab device."""
    hosts = Hosts(
        {
            name: Host(
                name=name,
                hostname=host,
                port=port,
                platform="eos",
                username=lab.username,
                password=lab.password,
                connection_options=_options(),
            )
            for name, (host, port) in lab.endpoints().items()
        }
    )
    inventory = Inventory(hosts=hosts, groups=Groups(), defaults=Defaults())
    ConnectionPluginRegister.auto_register()  # what InitNornir does: finds the napalm plugin
    return Nornir(inventory=inventory, runner=ThreadedRunner(num_workers=4))


def test_napalm_get_facts_and_config(fabric: Lab) -> None:
    nr = nornir_for(fabric)
    try:
        result = nr.run(task=napalm_get, getters=["facts", "config"])
    finally:
        nr.close_connections()
    assert not result.failed
    for name in ("spine1", "leaf1", "leaf2"):
        data = result[name][0].result
        assert data["facts"]["hostname"] == name
        assert data["config"]["running"].startswith("! Command: show running-config")


def test_napalm_configure_dry_run_then_commit(fabric: Lab) -> None:
    """Replace on every device: the dry run shows the diff and changes nothing."""
    wanted = {
        name: dev.running_config().replace("ip routing\n", "ip routing\n!\nntp server 10.9.9.9\n")
        for name, dev in fabric.devices.items()
    }

    def deploy(task: Task, dry_run: bool) -> None:
        task.run(task=napalm_configure, configuration=wanted[task.host.name], replace=True, dry_run=dry_run)

    nr = nornir_for(fabric)
    try:
        dry = nr.run(task=deploy, dry_run=True)
        assert not dry.failed
        for name in wanted:
            assert dry[name][1].changed
            assert "+ntp server 10.9.9.9" in dry[name][1].diff
            assert "ntp server" not in fabric.device(name).running_config()
        real = nr.run(task=deploy, dry_run=False)
        assert not real.failed
    finally:
        nr.close_connections()
    for dev in fabric.devices.values():
        assert "ntp server 10.9.9.9" in dev.running_config()
        assert "ntp server 10.9.9.9" in dev.startup_config()
