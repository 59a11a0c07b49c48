"""Deprecated: ``dpfuzz.testing.assert_dp`` is ``dpfuzz.assert_dp`` (removed in 0.4)."""

from typing import Any


def __getattr__(name: str) -> Any:
    if name in ("assert_dp", "DPViolation"):  # deprecated location, kept for one minor release
        import warnings

        from dpfuzz import assertions

        warnings.warn(
            f"dpfuzz.testing.{name} moved: import dpfuzz.{name}.", DeprecationWarning, stacklevel=2
        )
        return getattr(assertions, name)
    raise AttributeError(f"module 'dpfuzz.testing' has no attribute {name!r}")
