"""The units' keys in plain tuples or narrowed to digests already taken hold everything their
files are built from: each is checked against the records it stands for."""

from __future__ import annotations

from compiler.artifacts.servers import server_key
from compiler.artifacts.units import digest_of, facts_key
from compiler.pipeline import CompileResult


def _plain(value: object) -> object:
    """Every record in ``value`` as the plain tuple of its fields, at every depth."""
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    return value


def test_a_servers_key_is_every_field_of_its_record(example_compile: CompileResult) -> None:
    """The same fields in the same order as the record's, nested records' too, and no record:
    plain tuples only (equal to the records they stand for, as tuples compare)."""
    servers = list(example_compile.fabric.servers.values())
    assert any(link.tagged or link.ports for server in servers for link in server.links)
    for server in servers:
        key = server_key(server)
        assert key == _plain(server)
        assert not _records_in(key)


def _records_in(value: object) -> bool:
    """Whether a record (a tuple's subclass, which pickles through a call of its own) is in ``value``."""
    if isinstance(value, tuple):
        return type(value) is not tuple or any(_records_in(item) for item in value)
    return False


def test_a_switchs_key_is_every_fact_the_shared_ones_as_digests(example_compile: CompileResult) -> None:
    """Each field of a switch's facts is in its key: as it is (records as plain tuples, equal to
    them), the switch record with its layout's digest, the shared objects and models as digests."""
    digested = {"front_panel", "qos", "port_settings", "settings", "design"}
    for device in example_compile.fabric.devices.values():
        facts = device.facts
        key = dict(zip(facts._fields, facts_key(facts), strict=True))
        for name, value in zip(facts._fields, facts, strict=True):
            if name == "switch":
                assert key[name] == value._replace(layout=digest_of(value.layout))
            elif name in digested:
                assert isinstance(key[name], str) and len(key[name]) == 64
            else:
                assert key[name] == value, name
