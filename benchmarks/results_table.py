"""Shared by the benchmarks: the environment line and writing a result table."""

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
