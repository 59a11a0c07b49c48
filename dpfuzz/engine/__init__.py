"""The engine both front doors compose: drawing within one `Budget`, the `Plan`, the probe, the
search, certification, the policy values and the stop reasons.

| module | owns |
|---|---|
| `budget` | `Budget`: draws the mechanism, counts draws, owns the run's `Deadline` |
| `policy` | `AuditPolicy`, `EstimationPolicy`: every tuning number, with its decision record |
| `plan` | `Plan`: trials, sizes, looks and directions, decided before the search |
| `run` | `Run`: the state a run's stages share (budget, seeds, history, notes, stops) |
| `pipeline` | `search_and_certify`: search and certification for both front doors; its `Ending` |
| `probe` | the first outputs: shape, tester choice, reproducibility |
| `search` | ranking pairs on held-out estimates; racing |
| `certification` | the chosen pair's event on fresh outputs, look by look |
| `schedule` | the arithmetic of racing rounds and of the looks' β |
| `stops` | `StopReason`: why a stage ended before its plan |
| `verdict` | `Verdict`: violated, not refuted (with power) or inconclusive; untested claims |

Names are imported on first use, so importing the engine loads nothing heavy. The front doors
build their reports (`dpfuzz.reporting`); estimation's task, sizes and timing live in
`dpfuzz.estimation`.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "AuditPolicy": "dpfuzz.engine.policy",
    "EstimationPolicy": "dpfuzz.engine.policy",
    "Budget": "dpfuzz.engine.budget",
    "Deadline": "dpfuzz.engine.budget",
    "Plan": "dpfuzz.engine.plan",
    "Run": "dpfuzz.engine.run",
    "Probe": "dpfuzz.engine.probe",
    "Stop": "dpfuzz.engine.stops",
    "StopReason": "dpfuzz.engine.stops",
    "Verdict": "dpfuzz.engine.verdict",
}

__all__ = sorted(_EXPORTS)


# modules that moved to dpfuzz.estimation, kept for one minor release
_MOVED = {
    "estimate": "dpfuzz.estimation.task",
    "sizes": "dpfuzz.estimation.sizes",
    "timing": "dpfuzz.estimation.timing",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    if name in _MOVED:
        import warnings

        warnings.warn(
            f"dpfuzz.engine.{name} moved to {_MOVED[name]} (removed in 0.5).",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(_MOVED[name])
    raise AttributeError(f"module 'dpfuzz.engine' has no attribute {name!r}")
