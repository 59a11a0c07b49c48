"""Exceptions dpfuzz raises; each message names the value and the fix.

`InvalidArgument` is the one type for bad input (a claim, domain, setting, config, target or
tester option); the others say what went wrong while auditing. Catch `DPFuzzError` to handle
everything dpfuzz reports on purpose; anything else is a bug in dpfuzz or in the caller.
"""


class DPFuzzError(Exception):
    """Base class of dpfuzz's own errors."""


class InvalidArgument(DPFuzzError, ValueError):
    """Bad input: the message names the argument, the value given and what would be valid."""


class ConfigError(InvalidArgument):
    """A malformed campaign or command-line configuration (all its problems in one message)."""


class UnsupportedClaimError(InvalidArgument, TypeError):
    """A tester was asked to refute a kind of claim it cannot refute."""


class UnsupportedOutputError(InvalidArgument):
    """A tester was given outputs it cannot handle (e.g. vectors to a 1-D-only tester)."""


class MechanismError(DPFuzzError):
    """The mechanism under audit raised, or returned something that is not a sample array."""


class MechanismTooSlow(MechanismError):
    """A call of the mechanism ran past `call_timeout`, or past `max_seconds` before the outputs a
    verdict needs: an audit reports it as inconclusive, naming the call."""


class TargetBuildError(DPFuzzError):
    """A target's module or factory raised while it was built; a campaign stores it as that
    target's error and goes on."""


class LibraryMissing(DPFuzzError):
    """A library an audit target needs (an adapter's) is not installed; campaigns skip the
    target."""


class ClusterLost(DPFuzzError):
    """The Dask scheduler or workers running a campaign's audits were lost: those audits have no
    result and stay pending (a resume runs them); it says nothing about the mechanisms.
    `run_id`: the campaign run they belong to."""

    run_id: int | None = None
