"""Shared by the benchmarks: the environment line, result files, and testing both directions."""

from __future__ import annotations

import platform
from datetime import date
from pathlib import Path

import numpy as np

import dpfuzz


def environment() -> str:
    return (
        f"{date.today()}, dpfuzz {dpfuzz.__version__}, numpy {np.__version__}, "
        f"Python {platform.python_version()}, {platform.machine()}"
    )


def results_path(name: str, suffix: str, quick: bool) -> Path:
    """benchmarks/results/NAME.SUFFIX, or results/quick/ in quick mode (not committed)."""
    out_dir = Path(__file__).parent / "results" / ("quick" if quick else "")
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir / f"{name}.{suffix}"


def write(name: str, lines: list[str], quick: bool) -> Path:
    """Write `lines` to benchmarks/results/NAME.md (quick mode: results/quick/) and print them."""
    path = results_path(name, "md", quick)
    path.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"written to {path}")
    return path


def both_directions(tester, samples0, samples1, claim, beta: float, rng: np.random.Generator):
    """The tester's results on (P, Q) and (Q, P) at β/2 each: together valid at 1 − β."""
    return [
        tester.test(samples0, samples1, claim, beta / 2, rng),
        tester.test(samples1, samples0, claim, beta / 2, rng),
    ]


def refuted_either_way(
    tester, samples0, samples1, claim, beta: float, rng: np.random.Generator
) -> bool:
    """Whether either direction refutes the claim (false-alarm probability ≤ β)."""
    return any(
        result.violated for result in both_directions(tester, samples0, samples1, claim, beta, rng)
    )


def subplots(*args, **kwargs):
    """matplotlib's `subplots` on the non-interactive Agg backend (matplotlib is the `report`
    extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(*args, **kwargs)


def save_figure(figure, name: str, quick: bool) -> Path:
    """Save a matplotlib figure as benchmarks/results/NAME.png (quick mode: results/quick/)."""
    path = results_path(name, "png", quick)
    figure.savefig(path, dpi=110, bbox_inches="tight")
    return path
