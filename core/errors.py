"""The one error family every fabricops package raises, with its CLI exit code.

The tree::

    FabricopsError            exit 1  tool error (bad input, unreachable device, git)
    +-- IntentError           exit 1  intent/ cannot be loaded: one line per problem
    +-- CompileError          exit 1  checks found errors, or a template hit an impossible state
    +-- DifferencesFound      exit 3  stale generated/, pending changes, drift
    +-- PartialDeployFailure  exit 4  some devices changed, some did not

Anything that is not a ``FabricopsError`` is a bug and keeps its traceback.
"""

from __future__ import annotations

from collections.abc import Iterable


class FabricopsError(Exception):
    """Base of every error the CLI reports without a traceback.

    Example:
        >>> FabricopsError("rack99 does not exist").exit_code
        1
    """

    exit_code = 1

    def __init__(self, message: str, problems: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.problems = tuple(problems)

    def lines(self) -> list[str]:
        """The message then one line per problem, as the CLI prints them."""
        return [self.message, *self.problems]


class IntentError(FabricopsError):
    """intent/ is malformed: every problem names its file and line or YAML path."""


class CompileError(FabricopsError):
    """The intent loaded but cannot be compiled (failed checks, impossible state)."""


class DifferencesFound(FabricopsError):
    """Something differs from git: stale generated/, pending changes or drift."""

    exit_code = 3


class PartialDeployFailure(FabricopsError):
    """A deploy changed some devices and not others; the report says which."""

    exit_code = 4
