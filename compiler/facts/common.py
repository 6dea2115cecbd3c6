"""What every fact builder shares: roles, networks and the problems resolution reports."""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from typing import Literal, NamedTuple

Role = Literal["leaf", "spine", "super-spine", "mgmt", "core"]
Network = Literal["compute", "storage", "management"]
FabricNetwork = Literal["compute", "storage"]


class Problem(NamedTuple):
    """Something resolution could not place; the checks turn it into a finding.

    Example:
        >>> Problem("PRT002", "rack01-leaf-a", "rack01-gpu013: position 13 exceeds ports_per_rack 12")
        Problem(rule='PRT002', subject='rack01-leaf-a', message='rack01-gpu013: position 13 exceeds ports_per_rack 12')
    """

    rule: str
    subject: str
    message: str
