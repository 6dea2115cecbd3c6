"""A lab of emulated Arista EOS switches that the stock NAPALM ``eos`` driver drives.

Each device speaks eAPI (JSON-RPC ``runCmds`` over HTTP on 127.0.0.1) with
EOS's configure sessions, commit timers, running-config printing and error
texts; the cabling gives LLDP, link, BGP, OSPF and MLAG state; faults can be
injected at run time. See ``docs/lab.md``.
"""

from lab.device import EmulatedDevice
from lab.emulator import DeviceSpec, Lab, LabError
from lab.fromgenerated import specs_from_snapshot
from lab.topology import Link

__all__ = ["DeviceSpec", "EmulatedDevice", "Lab", "LabError", "Link", "specs_from_snapshot"]
