"""The units' keys in plain tuples or narrowed to digests already taken hold everything their
files are built from: each is checked against the records it stands for."""

from __future__ import annotations

from compiler.artifacts.servers import server_key
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
