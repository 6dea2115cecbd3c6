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


record = tuple.__new__
"""``record(Kind, values)``: a record (a ``NamedTuple``) made in C from all its values, in field
order (no defaults are filled in). Calling the class runs the ``__new__`` it was given in Python,
which doubles the cost of a record: the builders make about 130,000 at 16x, most of them in a
few loops, which use this. A test holds every record of the facts whole.

Example:
    >>> record(Problem, ("PRT002", "rack01-leaf-a", "no port")) == Problem("PRT002", "rack01-leaf-a", "no port")
    True
"""
