"""The specifics of intent: VLANs on server ports, per-port settings, per-device extras.

``fabric.yaml`` says how every switch of a role is built; these three optional files say what
one VLAN, one port or one switch has beyond that, each as a small typed entry whose one-line
change a reviewer can read:

* ``vlans.yaml``  -- VLANs of a fabric network (an SVI gateway per leaf pair, or layer 2 only),
  and the server ports they are on: every server of a rack, every NIC of a server on the
  network, or one NIC; untagged (``access``: the port leaves the fabric's VLAN for this one) or
  802.1Q (``tagged``: on top of the port's untagged VLAN). On an MLAG pair both leaves carry it;
* ``ports.yaml``  -- per switch, per real interface name (``docs/hardware.md``): a description,
  ``shutdown`` with its reason (which goes into the description), the speed of a one-lane port,
  the breakout of a cage, FEC, and exceptions to LLDP and storm-control;
* ``devices.yaml`` -- per switch: static routes, extra NTP servers and syslog hosts, and the
  identity of the unit in the rack (serial number and base MAC: a replaced switch is a change
  of these).

Example:
    >>> vlan = ServerVlan.model_validate({"id": 300, "network": "compute", "pool": "10.32.0.0/16",
    ...     "access": [{"server": "rack03-gpu007"}, {"rack": 5}]})
    >>> vlan.routed, vlan.access[1]
    (True, VlanMember(rack=5, server=None, nic=None))
    >>> str(vlan.access[0]), vlan.vlan_name("inference")
    ('rack03-gpu007', 'INFERENCE')
"""

# No ``from __future__ import annotations``: pydantic would compile and evaluate the text of every
# field's annotation as it builds the models, at every start.

import ipaddress
import re
from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from core.generated import OPTIONAL_INTENT_FILES

SPECIFIC_FILES = OPTIONAL_INTENT_FILES
"""The optional files of ``intent/`` this module reads (absent: nothing specific)."""

FabricName = Literal["compute", "storage"]
DeviceName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]
InterfaceName = Annotated[str, Field(pattern=r"^Ethernet\d+(/\d+){0,2}$")]
Text = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[\x20-\x7e]+$")]
"""One line of printable ASCII, as an EOS description takes it (no newline, no control)."""
Mac = Annotated[str, Field(pattern=r"^[0-9a-fA-F]{2}([:.-]?[0-9a-fA-F]{2}){5}$")]


class SpecificModel(BaseModel):
    """Frozen and closed to unknown keys, as every intent model; built on first use, as they are."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


# --------------------------------------------------------------------------- vlans.yaml


class VlanMember(SpecificModel):
    """Server ports a VLAN is on: every server of a ``rack``, every NIC of ``server`` on the
    VLAN's network, or one ``nic`` of it."""

    rack: int | None = Field(None, ge=1)
    server: str | None = None
    nic: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Self:
        if (self.rack is None) == (self.server is None):
            raise ValueError("give either rack (every server of it) or server (with nic: one of its NICs)")
        if self.nic is not None and self.server is None:
            raise ValueError("nic needs server: the NIC of which server")
        return self

    def __str__(self) -> str:
        if self.rack is not None:
            return f"rack {self.rack}"
        return f"{self.server} {self.nic}" if self.nic else str(self.server)


class ServerVlan(SpecificModel):
    """A VLAN of one fabric network and the server ports it is on."""

    id: int = Field(ge=2, le=4094)
    network: FabricName
    name: Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]+$", max_length=32)] | None = None
    """Its EOS name; default: the key in capitals, ``-`` as ``_``."""
    pool: ipaddress.IPv4Network | None = None
    """Where its addresses come from: pair P serves the P-th /24, as the fabric's hosts pool."""
    gateway: bool | None = None
    """An SVI on both leaves of each pair with a virtual-router gateway (.1); default: with a pool."""
    access: tuple[VlanMember, ...] = ()
    tagged: tuple[VlanMember, ...] = ()

    @model_validator(mode="after")
    def _gateway_needs_pool(self) -> Self:
        if self.gateway and self.pool is None:
            raise ValueError("gateway: true needs a pool (its leaf pairs' subnets and the gateway address)")
        return self

    @property
    def routed(self) -> bool:
        """Whether its leaves route it (an SVI and a gateway): ``gateway``, else whether it has a pool."""
        return self.gateway if self.gateway is not None else self.pool is not None

    def vlan_name(self, key: str) -> str:
        """The EOS name: ``name``, else the key in capitals."""
        return self.name or key.upper().replace("-", "_")


class VlansFile(SpecificModel):
    """``intent/vlans.yaml``."""

    vlans: dict[Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")], ServerVlan] = {}


# --------------------------------------------------------------------------- ports.yaml


class Lldp(SpecificModel):
    """LLDP on one port, where it must differ from the default (both on)."""

    transmit: bool = True
    receive: bool = True


class StormLevels(SpecificModel):
    """Storm-control levels of one port, in percent of its speed (null: off); unset kinds keep the
    fabric's (``storm_control`` in fabric.yaml)."""

    broadcast: float | None = Field(None, gt=0, le=100)
    multicast: float | None = Field(None, gt=0, le=100)
    unknown_unicast: float | None = Field(None, gt=0, le=100)


Fec = Literal["reed-solomon", "fire-code", "disabled"]


class PortSettings(SpecificModel):
    """What one port has beyond its role's design."""

    description: Text | None = None
    """Replaces the description the design gives the port."""
    shutdown: Text | None = None
    """Why the port is shut: it is admin down, and the reason goes into its description."""
    speed: Literal["1g", "10g", "25g", "40g", "50g", "100g", "200g", "400g", "800g"] | None = None
    """The speed of a one-lane port (SFP28 at 10g), one of its model's modes."""
    breakout: str | None = None
    """The breakout of a cage, on the cage's first interface (``4x100g``), one of its model's modes."""
    fec: Fec | None = None
    """Forward error correction: an encoding, or ``disabled``; unset: the optic's default."""
    lldp: Lldp | None = None
    storm_control: StormLevels | None = None


class PortsFile(SpecificModel):
    """``intent/ports.yaml``."""

    ports: dict[DeviceName, dict[InterfaceName, PortSettings]] = {}


# --------------------------------------------------------------------------- devices.yaml


class StaticRouteSpec(SpecificModel):
    """A static route of one switch; ``vrf`` names the VRF (default: the default VRF)."""

    prefix: ipaddress.IPv4Network
    next_hop: ipaddress.IPv4Address
    vrf: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+$")] | None = None


class DeviceSettings(SpecificModel):
    """What one switch has beyond its role's design, and which unit it is."""

    static_routes: tuple[StaticRouteSpec, ...] = ()
    ntp: tuple[ipaddress.IPv4Address, ...] = ()
    """NTP servers beside ``services.ntp``."""
    syslog: tuple[ipaddress.IPv4Address, ...] = ()
    """Syslog hosts beside ``services.syslog``."""
    serial: Annotated[str, Field(pattern=r"^[A-Za-z0-9]{4,32}$")] | None = None
    """The serial number of the unit in the rack (``show version``); a replaced switch changes it."""
    base_mac: Mac | None = None
    """The unit's base (system) MAC address (``show version``)."""

    @field_validator("base_mac")
    @classmethod
    def _canonical_mac(cls, value: str | None) -> str | None:
        """Any common spelling, kept as EOS's ``show version`` JSON has it (``00:1c:73:aa:bb:cc``)."""
        return mac_address(value) if value is not None else None

    @model_validator(mode="after")
    def _whole_identity(self) -> Self:
        if (self.serial is None) != (self.base_mac is None):
            raise ValueError("give serial and base_mac together: they name one unit")
        return self


class DevicesFile(SpecificModel):
    """``intent/devices.yaml``."""

    devices: dict[DeviceName, DeviceSettings] = {}


def mac_address(text: str) -> str:
    """A MAC address in lower case, colon-separated.

    Examples:
        >>> mac_address("001C.73AA.BBCC"), mac_address("00-1c-73-aa-bb-cc")
        ('00:1c:73:aa:bb:cc', '00:1c:73:aa:bb:cc')
    """
    digits = re.sub(r"[^0-9a-fA-F]", "", text).lower()
    return ":".join(digits[i : i + 2] for i in range(0, 12, 2))
