"""Deprecated: the schedule moved to `dpfuzz.engine.schedule` (removed in 0.4)."""

import warnings

from dpfuzz.engine.schedule import Look, plan_search, racing_cost, racing_rounds, verification_looks

warnings.warn(
    "dpfuzz.schedule is deprecated; import from dpfuzz.engine.schedule.",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["Look", "plan_search", "racing_cost", "racing_rounds", "verification_looks"]
