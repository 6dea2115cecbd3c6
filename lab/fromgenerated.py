"""Lab devices and cabling from ``generated/`` (the configs the compiler committed).

Reads, through :class:`core.generated.Snapshot`:

* ``configs/<device>.cfg``: the running-config body of each switch;
* ``inventory/hosts.yaml``: ``data.model`` (with ``data.linecards`` for a chassis) and
  ``data.ethernet_ports`` per host
  (hosts without a config file start at factory default); a model of the catalog
  (:mod:`core.hardware`, with the repository's own models of ``intent/hardware/`` at the same
  ref: :meth:`~core.generated.Snapshot.catalog`) makes the device that model (:mod:`lab.hardware`);
* ``inventory/cabling.csv``: columns ``a_device,a_port,b_device,b_port`` (more
  may follow). A server end keeps its server name and NIC name.

Any of these may be missing; the lab then has fewer devices or no cables.
"""

from __future__ import annotations

from collections.abc import Mapping

from core import secrets
from core.errors import FabricopsError
from core.generated import Snapshot
from lab.emulator import DeviceSpec
from lab.printer import DEFAULT_MODEL, EOS_VERSION
from lab.topology import Link

SWITCH_PLATFORMS = ("eos",)


def specs_from_snapshot(
    snapshot: Snapshot,
    *,
    empty: bool = False,
    only: set[str] | None = None,
    lab_password: str | None = None,
    models: Mapping[str, str] | None = None,
    eos_version: str | None = None,
) -> tuple[list[DeviceSpec], list[Link]]:
    """The lab's devices (sorted by name) and cables for one ``generated/`` snapshot.

    ``empty=True`` starts every switch at factory default; ``only`` keeps a subset; ``models``
    starts devices as another model than ``generated/`` says (device -> model), as when the
    wrong switch was racked.
    With ``lab_password``, ``<secret:NAME>`` references are resolved to the values deploy
    uses for the lab (:func:`core.secrets.lab_secret`), so a preloaded lab shows no drift;
    without it they stay, and the switch refuses those lines as a real one would.
    Each switch runs ``eos_version`` if given, else its inventory's ``eos_version``, else the
    lab's default release.
    """
    configs = snapshot.configs()
    hosts = snapshot.hosts()
    names = set(configs)
    names |= {n for n, h in hosts.items() if h.platform in SWITCH_PLATFORMS}
    if only is not None:
        names &= only
    unknown = sorted(set(models or {}) - names)
    if unknown:
        raise FabricopsError(f"no device {', '.join(unknown)} in generated/ at {snapshot.ref[:12]} to start as a model")
    catalog = snapshot.catalog()
    for chosen in (models or {}).values():
        catalog.model(chosen)  # an unknown model is an error that lists the catalog
    specs = []
    for name in sorted(names):
        host = hosts.get(name)
        config = None if empty else configs.get(name)
        started_as = (models or {}).get(name)
        if config is not None and lab_password is not None:
            config = secrets.PLACEHOLDER.sub(lambda m: secrets.lab_secret(m.group(1), lab_password), config)
        specs.append(
            DeviceSpec(
                name=name,
                config=config,
                model=started_as or (host and host.model) or DEFAULT_MODEL,
                linecards=(host.linecards if host and not started_as else ()),
                ethernet_ports=(host and host.ethernet_ports) or 64,
                eos_version=str(eos_version or (host and host.eos_version) or EOS_VERSION),
                catalog=catalog,
            )
        )
    links = [Link(c.a_device, c.a_port, c.b_device, c.b_port) for c in snapshot.cables()]
    return specs, links
