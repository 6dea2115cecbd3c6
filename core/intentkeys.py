"""Which intent key says an EOS config line: the lines the day-2 schema can express.

Read without the intent at hand, so a drift report can say where a line the device changed
belongs (``ports.yaml: ports.rack03-leaf-a.Ethernet1/3.description``) and whether it needs the
escape hatch (``extra_config``). The edit itself, decided with the intent (which VLAN has id
300, which server NIC a port serves), is :mod:`compiler.adoption`'s; both read
:mod:`core.expressible`'s line patterns.

Examples:
    >>> from core.configtree import Change
    >>> intent_field("leaf1", Change(("interface Ethernet5",), "changed", "description X", "description Y"))
    'ports.yaml: ports.leaf1.Ethernet5.description'
    >>> intent_field("leaf1", Change((), "added", "ip route vrf MGMT 10.9.0.0/16 10.0.0.1"))
    'devices.yaml: devices.leaf1.static_routes'
    >>> intent_field("leaf1", Change(("interface Ethernet5",), "added", "switchport access vlan 300"))
    'vlans.yaml: vlans.<VLAN 300>.access'
    >>> intent_field("leaf1", Change(("interface Ethernet5",), "added", "switchport trunk allowed vlan 10"))
    'vlans.yaml: vlans.<name>.tagged'
    >>> intent_field("leaf1", Change(("interface Port-Channel5",), "added", "description X")) is None
    True
"""

from __future__ import annotations

from core.configtree import Change
from core.expressible import ACCESS, structured_form

__all__ = ["intent_field"]


def intent_field(device: str, change: Change) -> str | None:
    """Where in intent a changed line belongs (``file: yaml.path``), or None when the schema
    cannot say it (then it is ``extra_config``).

    The yes or no is :func:`core.expressible.structured_form`'s, the one classifier the
    ``extra_config`` rules ask too: a line kept from drift is never offered where the compile
    would refuse it.
    """
    if change.kind not in ("added", "removed", "changed"):
        return None
    form = structured_form(device, change.path, change.line)
    if form is None:
        return None
    if access := ACCESS.match(change.line):
        return f"vlans.yaml: vlans.<VLAN {access[1]}>.access"
    return f"{form.file}: {'.'.join(str(part) for part in form.path)}"
