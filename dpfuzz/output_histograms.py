"""The picture a reader of a 1-D audit wants: the verified pair's two output distributions, with
the certified event shaded. A description of the verification outputs, not part of the verdict.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

BINS = 60
GRID = 150  # points at which the event is evaluated for shading (one tester call each)
TAIL = 0.002  # each side's outputs beyond these quantiles are gathered in the outer bins
# ... and beyond this many interquartile ranges from the quartiles: a heavy tail (a 0.2%
# quantile at 10^12 where the bulk spans units) would otherwise make the bulk one spike
SPREAD = 5.0
SAMPLE = 100_000  # outputs the bins' range is read from


def output_histograms(
    samples0: np.ndarray, samples1: np.ndarray, in_event: Callable[[np.ndarray], np.ndarray] | None
) -> dict:
    """Counts of both sides' outputs on shared bins (the outer bins hold the tails), and where
    the event holds on a grid over them (`in_event(values) -> booleans`; None: not shaded)."""
    step = max(1, (samples0.size + samples1.size) // SAMPLE)
    # the range and the kind of values, read cheaply
    sample = np.concatenate([samples0[::step], samples1[::step]])
    low, high = _bulk(sample)
    distinct = np.unique(sample)
    if distinct.size <= BINS:  # a few exact values (confirmed on all outputs): one bin each
        distinct = np.unique(np.concatenate([samples0, samples1]))
    if distinct.size <= BINS:
        half = 0.5 * _spacing(distinct)
        edges = np.concatenate([distinct - half, [distinct[-1] + half]])
        counts = [np.histogram(side, bins=edges)[0].tolist() for side in (samples0, samples1)]
    else:
        if not high > low:
            low, high = float(distinct[0]), float(distinct[-1])
        edges = np.linspace(low, high, BINS + 1)
        counts = [
            np.histogram(np.clip(side, low, high), bins=BINS, range=(low, high))[0].tolist()
            for side in (samples0, samples1)
        ]
    grid = np.linspace(edges[0], edges[-1], GRID)
    mask = None if in_event is None else np.asarray(in_event(grid), dtype=bool).tolist()
    return {
        "edges": edges.tolist(),
        "counts": counts,
        "samples": [int(samples0.size), int(samples1.size)],
        "grid": grid.tolist(),
        "in_event": mask,
    }


def _bulk(sample: np.ndarray) -> tuple[float, float]:
    """The range the bins cover: the [TAIL, 1 − TAIL] quantiles, cut to `SPREAD` interquartile
    ranges beyond the quartiles (where the quartiles differ)."""
    tail_low, first, third, tail_high = (
        float(value) for value in np.quantile(sample, [TAIL, 0.25, 0.75, 1 - TAIL])
    )
    spread = SPREAD * (third - first)
    if spread <= 0:
        return tail_low, tail_high
    return max(tail_low, first - spread), min(tail_high, third + spread)


def _spacing(values: np.ndarray) -> float:
    return float(np.min(np.diff(values))) if values.size > 1 else 1.0


def histogram_png(data: dict, labels: tuple[str, str], event: str) -> str:
    """Both sides' histograms (as shares of their outputs) and the event shaded, as a base64 PNG
    (needs matplotlib)."""
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    edges = np.asarray(data["edges"])
    figure, axis = plt.subplots(figsize=(9, 3.4))
    if data.get("in_event") is not None:
        grid, mask = np.asarray(data["grid"]), np.asarray(data["in_event"])
        step = (grid[-1] - grid[0]) / (len(grid) - 1)
        starts = np.flatnonzero(mask & ~np.concatenate([[False], mask[:-1]]))
        ends = np.flatnonzero(mask & ~np.concatenate([mask[1:], [False]]))
        for index, (start, end) in enumerate(zip(starts, ends)):
            axis.axvspan(
                grid[start] - step / 2,
                grid[end] + step / 2,
                color="#fff1a8",
                zorder=0,
                label=f"certified event: {event}" if index == 0 else None,
            )
    for counts, total, label, colour in zip(
        data["counts"], data["samples"], labels, ("#0969da", "#cf222e")
    ):
        axis.stairs(
            np.asarray(counts) / max(total, 1), edges, label=label, color=colour, linewidth=1.4
        )
    axis.set(
        xlabel="output (outer bins hold the tails)",
        ylabel="share of outputs",
        title="Outputs on the two datasets",
    )
    axis.legend(fontsize=8, loc="upper right")
    figure.subplots_adjust(left=0.08, right=0.98, bottom=0.16, top=0.9)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
