"""Exceptions dpfuzz raises for bad input; each message names the value and the fix."""


class DPFuzzError(Exception):
    """Base class of dpfuzz's own errors."""


class MechanismError(DPFuzzError):
    """The mechanism under audit raised, or returned something that is not a sample array."""


class UnsupportedClaimError(DPFuzzError, TypeError):
    """A tester was asked to refute a kind of claim it cannot refute."""


class UnsupportedOutputError(DPFuzzError, ValueError):
    """A tester was given outputs it cannot handle (e.g. vectors to a 1-D-only tester)."""


class ConfigError(DPFuzzError, ValueError):
    """A malformed audit configuration: unknown tester or finder name, bad sample counts …"""
