"""Privacy profiles and trade-off curves from two samples of 1-D outputs (Koskela & Mohammadi,
papers 000 and 001).

`privacy_profile(samples0, samples1)` fits histogram bins on the first half of each sample and,
on the second half, certifies at once (probability ≥ 1 − β for all statements together):

* δ(ε) ≥ H_{e^ε}(P̂ ‖ Q̂) − a − e^ε b for every ε (paper 000, Lemma 3; `HistogramTester`'s
  uniform bound, a and b the TV slack of each side);
* an upper bound on the trade-off curve T(P, Q): the same slack makes every union S_k of the k
  bins with the largest training likelihood ratio satisfy Q(S_k) ≤ Q̂(S_k) + b and
  1 − P(S_k) ≤ 1 − P̂(S_k) + a, so T(Q̂(S_k) + b) ≤ 1 − P̂(S_k) + a; T is convex and
  non-increasing, so it lies below the lower convex hull of these points, (0, 1) and (1, 0).

and reports two GDP readings of the total variation TV = δ(0) (paper 001, §5):
* ``mu_lower_bound_if_gaussian``: μ from the *certified* TV, μ = 2Φ⁻¹((1 + TV_lb)/2) — a lower
  bound on μ when the mechanism's trade-off curve is a Gaussian one, G_μ;
* ``mu_estimate``: the same from the plug-in TV — a heuristic estimate, not certified.

Member and non-member scores of a trained model are two such samples (paper 001's black-box
audit), under the assumption that scores of distinct examples are independent draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from dpfuzz.claims import GaussianDP
from dpfuzz.testers.base import check_beta, split_halves
from dpfuzz.testers.histogram import HistogramTester, profile_on_bins

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

DEFAULT_EPSILONS = np.linspace(0.0, 5.0, 51)


@dataclass(frozen=True)
class ProfileEstimate:
    """Certified privacy profile and trade-off bound of one ordered pair (P, Q), with GDP
    readings."""

    epsilons: np.ndarray
    delta_lower: np.ndarray  # δ(ε) ≥ this, for every ε at once
    alphas: np.ndarray  # type-I errors of the trade-off bound's corners (increasing)
    tradeoff_upper: np.ndarray  # T(α) ≤ this at each corner (and on the segments between them)
    tv_estimate: float  # plug-in total variation on the held-out half (not certified)
    mu_lower_bound_if_gaussian: float  # from the certified TV; valid if T is a G_μ curve
    mu_estimate: float  # from the plug-in TV: heuristic
    beta: float
    bins: int
    samples: tuple[int, int]

    @property
    def tv_lower(self) -> float:
        return float(max(self.delta_lower[0], 0.0)) if self.epsilons[0] == 0 else float("nan")

    def epsilon_lower(self, delta: float) -> float:
        """The largest ε on the grid whose certified δ(ε) exceeds `delta` (0.0 if none)."""
        above = self.epsilons[self.delta_lower > delta]
        return float(above.max()) if len(above) else 0.0

    def gdp_epsilon(self, delta: float) -> tuple[float, float]:
        """ε(δ) of μ-GDP for the certified-if-Gaussian μ and for the heuristic μ."""
        certified, heuristic = (
            GaussianDP(mu).epsilon_at(delta) if mu > 0 else 0.0
            for mu in (self.mu_lower_bound_if_gaussian, self.mu_estimate)
        )
        return certified, heuristic

    def summary(self, delta: float = 1e-5, gaussian: bool = True) -> str:
        """The profile in words; with `gaussian`, the readings that assume a Gaussian trade-off
        curve (μ and its ε(δ)), labelled as such."""
        lines = [
            (
                f"privacy profile from {self.samples[0]:,} + {self.samples[1]:,} held-out outputs,"
                f" {self.bins} bins (confidence {1 - self.beta:g} for all statements together)"
            ),
            f"  total variation ≥ {self.tv_lower:.4g} (plug-in {self.tv_estimate:.4g})",
        ]
        if gaussian:
            low, estimate = self.gdp_epsilon(delta)
            lines += [
                (
                    "  if the trade-off curve is Gaussian: μ ≥"
                    f" {self.mu_lower_bound_if_gaussian:.4g}, ε({delta:g}) ≥ {low:.4g}"
                ),
                (
                    f"  heuristic (plug-in TV, not certified): μ ≈ {self.mu_estimate:.4g},"
                    f" ε({delta:g}) ≈ {estimate:.4g}"
                ),
            ]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "epsilons": self.epsilons.tolist(),
            "delta_lower": self.delta_lower.tolist(),
            "alphas": self.alphas.tolist(),
            "tradeoff_upper": self.tradeoff_upper.tolist(),
            "tv_estimate": self.tv_estimate,
            "mu_lower_bound_if_gaussian": self.mu_lower_bound_if_gaussian,
            "mu_estimate": self.mu_estimate,
            "beta": self.beta,
            "bins": self.bins,
            "samples": list(self.samples),
        }

    @classmethod
    def from_dict(cls, data: dict) -> ProfileEstimate:
        arrays = {
            key: np.asarray(data[key], dtype=float)
            for key in ("epsilons", "delta_lower", "alphas", "tradeoff_upper")
        }
        return cls(
            **arrays,
            tv_estimate=data["tv_estimate"],
            mu_lower_bound_if_gaussian=data["mu_lower_bound_if_gaussian"],
            mu_estimate=data["mu_estimate"],
            beta=data["beta"],
            bins=data["bins"],
            samples=tuple(data["samples"]),
        )

    def png_base64(self, gaussian: bool = True) -> str:
        """The two-panel plot as a base64 PNG, for self-contained HTML pages (needs matplotlib)."""
        import base64
        import io

        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, axes = plt.subplots(1, 2, figsize=(9, 3.6))
        self.plot(axes, gaussian)
        # fixed margins: tight_layout measures every label again, a third of the plot's time
        figure.subplots_adjust(left=0.08, right=0.98, bottom=0.14, top=0.92, wspace=0.22)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=90)
        plt.close(figure)
        return base64.b64encode(buffer.getvalue()).decode("ascii")

    def plot(self, axes: Any = None, gaussian: bool = True) -> Any:
        """Two panels: the certified δ(ε) and the trade-off bound, each (with `gaussian`) beside
        the GDP curves."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        if axes is None:
            _, axes = plt.subplots(1, 2, figsize=(9, 3.6))
        left, right = axes
        left.plot(
            self.epsilons, np.clip(self.delta_lower, 0, None), label="certified δ(ε) lower bound"
        )
        grid = np.linspace(0, 1, 201)
        readings = (
            (self.mu_estimate, ":", "μ estimate (heuristic)"),
            (self.mu_lower_bound_if_gaussian, "--", "μ if Gaussian (certified TV)"),
        )
        for mu, style, label in readings if gaussian else ():
            if mu > 0:
                claim = GaussianDP(mu)
                left.plot(
                    self.epsilons,
                    [claim.delta_at(e) for e in self.epsilons],
                    style,
                    label=f"{label} = {mu:.3g}",
                )
                right.plot(grid, [claim.tradeoff(a) for a in grid], style, label=f"G_μ, {label}")
        left.set(xlabel="ε", ylabel="δ(ε)", title="Privacy profile")
        right.plot(self.alphas, self.tradeoff_upper, label="certified trade-off upper bound")
        right.plot(grid, 1 - grid, color="grey", linewidth=0.8, label="perfect privacy")
        right.set(
            xlabel="type I error α",
            ylabel="type II error",
            title="Trade-off curve",
            xlim=(0, 1),
            ylim=(0, 1),
        )
        for axis in axes:
            axis.legend(fontsize=7)
        return axes


def privacy_profile(
    samples0: ArrayLike,
    samples1: ArrayLike,
    *,
    epsilons: ArrayLike | None = None,
    beta: float = 0.05,
    bins: int | Literal["scott"] = "scott",
) -> ProfileEstimate:
    """Certified δ(ε) for all ε, a trade-off upper bound and GDP readings from 1-D samples of
    P = M(D0) and Q = M(D1) (see the module docstring). Half of each sample fits the bins."""
    beta = check_beta(beta)
    epsilons = np.unique(
        np.r_[0.0, DEFAULT_EPSILONS if epsilons is None else np.asarray(epsilons, dtype=float)]
    )
    train0, test0 = split_halves(np.asarray(samples0))
    train1, test1 = split_halves(np.asarray(samples1))
    binning = HistogramTester(bins=bins).fit_binning(train0, train1)
    profile = profile_on_bins(binning, test0, test1, epsilons, beta)
    p_hat, q_hat = profile.p_hat, profile.q_hat
    order = np.argsort(-binning.scores, kind="stable")  # largest training likelihood ratio first
    alphas = np.r_[0.0, np.minimum(np.cumsum(q_hat[order]) + profile.slack_q, 1.0), 1.0]
    type2 = np.r_[1.0, np.maximum(1.0 - np.cumsum(p_hat[order]) + profile.slack_p, 0.0), 0.0]
    alphas, type2 = _lower_hull(alphas, type2)
    tv_estimate = float(np.clip(p_hat - q_hat, 0, None).sum())
    tv_lower = max(float(profile.deltas[0]), 0.0)
    return ProfileEstimate(
        epsilons=epsilons,
        delta_lower=profile.deltas,
        alphas=alphas,
        tradeoff_upper=type2,
        tv_estimate=tv_estimate,
        mu_lower_bound_if_gaussian=mu_from_tv(tv_lower),
        mu_estimate=mu_from_tv(tv_estimate),
        beta=beta,
        bins=profile.bins,
        samples=(len(test0), len(test1)),
    )


def mu_from_tv(tv: float) -> float:
    """μ with TV(N(0, 1), N(μ, 1)) = 2Φ(μ/2) − 1 = tv (paper 001, §5); ∞ for tv = 1. The best
    guess of a fair bit errs with probability (1 − TV)/2, so this is `GaussianDP.mu_from_error`."""
    return GaussianDP.mu_from_error((1.0 - tv) / 2.0)


def _lower_hull(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lower convex hull of the points (monotone chain), sorted by x; then made
    non-increasing."""
    points = sorted(zip(x.tolist(), y.tolist()))
    hull: list[tuple[float, float]] = []
    for point in points:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (point[1] - y1) - (y2 - y1) * (
                point[0] - x1
            ) <= 0:  # hull[-1] is not below the chord
                hull.pop()
            else:
                break
        hull.append(point)
    xs, ys = np.array(hull).T
    return xs, np.minimum.accumulate(ys)
