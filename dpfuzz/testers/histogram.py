"""Histogram tester for 1-D outputs: discrete values as bins, or equal-width bins.

Bins are fixed on the training half: the distinct values of discrete outputs (Gilbert &
McMillan's estimator; Kong et al., DP-Auditorium Alg. 3), or equal-width bins of Scott's width
h = 3.49 σ̂ n^{−1/3} (Koskela & Mohammadi, "Auditing differential privacy guarantees using
density estimation", Eq. 4.2) on the central range of the samples plus two overflow bins. Two
bounds use them, each through ``fit`` (the bins) and ``evaluate`` (held-out samples), so an
audit certifies with the very bound its search estimated:

* ``bound="event"`` (default): the bins ranked by their training likelihood ratio, the best
  run of them chosen as in the hockey-stick tester, certified with Clopper–Pearson on the
  held-out half (`HockeyStickTester.evaluate`). Refutes pure, approximate and Rényi DP.
* ``bound="uniform"``: TV(P̂, P) ≤ a = ½√(k/n) + √(ln(2/β')/(2n)) with β' = β/2 per side,
  so that H_{e^ε}(P ‖ Q) ≥ H_{e^ε}(P̂ ‖ Q̂) − a − e^ε b for every ε at once (ibid., Lemma 3).
  This certifies a whole privacy profile δ(ε) (`dpfuzz.profiles.privacy_profile`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

import numpy as np

from dpfuzz.claims import ApproxDP, Claim, ProfileClaim, approx_dp
from dpfuzz.datasets import format_records
from dpfuzz.errors import UnsupportedClaimError, UnsupportedOutputError
from dpfuzz.testers.base import TestResult, as_feature_matrix, check_beta, split_halves
from dpfuzz.testers.events import Interval, ScoreEvent, best_interval
from dpfuzz.testers.hockey_stick import HockeyStickTester
from dpfuzz.testers.selection import EventSelection, claimed_epsilon
from dpfuzz.validation import check_choice

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

MAX_BINS = 10_000


@dataclass(frozen=True)
class Binning:
    """Bin edges (interior cut points), a per-bin score (training log-likelihood ratio), and for
    discrete outputs the value of each bin, with `words` for a value if the mechanism has them
    (its `describe_output`). As a `Score`, an output's score is its bin's."""

    edges: np.ndarray
    scores: np.ndarray
    values: np.ndarray | None = None
    words: Callable[[np.ndarray], str | None] | None = field(default=None, compare=False)

    @property
    def bins(self) -> int:
        return len(self.edges) + 1

    def index(self, values: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.edges, values, side="right")

    def counts(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.index(values), minlength=self.bins)

    def __call__(self, features: np.ndarray) -> np.ndarray:
        return self.scores[self.index(features[:, 0])]

    def describe(self, interval: Interval) -> str:
        chosen = np.flatnonzero(interval.contains(self.scores))
        if self.values is not None:
            named = (
                [self.words(np.array([value])) for value in self.values[chosen]]
                if self.words is not None
                else []
            )
            words = [word for word in named if word]
            if named and len(words) == len(named):
                return f"output in {{{', '.join(words[:6])}{', …' if len(words) > 6 else ''}}}"
            return f"x in {{{format_records(self.values[chosen], limit=6)[1:-1]}}}"
        bounds = np.concatenate([[-np.inf], self.edges, [np.inf]])
        runs = np.split(chosen, np.flatnonzero(np.diff(chosen) > 1) + 1) if len(chosen) else []
        ranges = [f"[{bounds[run[0]]:.4g}, {bounds[run[-1] + 1]:.4g})" for run in runs]
        shown = " ∪ ".join(ranges[:3]) + (
            f" and {len(ranges) - 3} more ranges" if len(ranges) > 3 else ""
        )
        return f"x in {shown or 'no bin'} ({len(chosen)} of {self.bins} bins)"


@dataclass(frozen=True)
class BinnedProfile:
    """δ_lb(ε) ≤ H_{e^ε}(P ‖ Q) for every ε in `epsilons` at once, with probability ≥ 1 − beta,
    on one binning: what the uniform bound and `dpfuzz.profiles.privacy_profile` (whose
    `ProfileEstimate` is the privacy-profile type users get) compute from."""

    epsilons: np.ndarray
    deltas: np.ndarray
    beta: float
    bins: int
    slack_p: float
    slack_q: float
    p_hat: np.ndarray  # held-out bin frequencies of P and Q
    q_hat: np.ndarray

    def to_dict(self) -> dict:
        return {
            "epsilons": self.epsilons.tolist(),
            "deltas": self.deltas.tolist(),
            "beta": self.beta,
            "bins": self.bins,
        }


@dataclass(frozen=True, eq=False)
class BinSelection:
    """The histogram's event selection: bins fixed on the training half, then the best run of
    them (ranked by their training likelihood ratio) as one event, by `events`' objective."""

    bins: int | Literal["scott"]
    max_categories: int
    events: EventSelection
    shares_fits: ClassVar[bool] = False

    def features(self, samples: np.ndarray) -> np.ndarray:
        return samples

    def fit_binning(self, train0: np.ndarray, train1: np.ndarray) -> Binning:
        """Bins from training samples, scored by their log-likelihood ratio log(p̂_b / q̂_b)."""
        x0, x1 = _values(train0, "samples0"), _values(train1, "samples1")
        pooled = np.concatenate([x0, x1])
        distinct = np.unique(pooled)
        values = None
        if np.all(pooled == np.round(pooled)) and len(distinct) <= self.max_categories:
            edges, values = distinct[:-1] / 2 + distinct[1:] / 2, distinct
        else:
            low, high = np.quantile(pooled, [0.001, 0.999])
            if self.bins == "scott":
                width = 3.49 * pooled.std() * len(pooled) ** (-1 / 3)
                count = int(np.clip(np.ceil((high - low) / width), 1, MAX_BINS)) if width > 0 else 1
            else:
                count = int(self.bins)
            edges = np.linspace(low, high, count + 1)
        binning = Binning(edges, np.zeros(len(edges) + 1), values, self.events.describe_output)
        p, q = binning.counts(x0) + 0.5, binning.counts(x1) + 0.5
        return replace(binning, scores=np.log(p / p.sum()) - np.log(q / q.sum()))

    def fit(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None,
        both: bool,
    ) -> list[tuple[ScoreEvent, float]]:
        """The best run of bins for (train0, train1), and with `both` for (train1, train0), each
        on bins of its own fit."""
        directions = [(train0, train1), (train1, train0)] if both else [(train0, train1)]
        return [self._best_run(p, q, claim, beta, eval_size) for p, q in directions]

    def _best_run(self, train0, train1, claim: Claim, beta: float, eval_size) -> tuple:
        binning = self.fit_binning(train0, train1)
        objective = self.events.objective_for(claim, beta, eval_size)
        features0, features1 = (
            as_feature_matrix(train0, "samples0"),
            as_feature_matrix(train1, "samples1"),
        )
        interval, value = best_interval(
            binning(features0), binning(features1), objective, self.gammas(claim)
        )
        event = self.events.choose_epsilon(
            ScoreEvent(binning, interval), features0, features1, claim, beta, eval_size
        )
        return event, value

    def gammas(self, claim: Claim) -> list[float]:
        """Bins are few, so one level e^ε suffices for (ε, δ) claims; profile claims span their
        grid."""
        if isinstance(claim, ProfileClaim):
            return self.events.gammas(claim)
        return [math.exp(claimed_epsilon(claim))]


class HistogramTester(HockeyStickTester):
    """Refute DP claims on 1-D outputs through histograms (see the module docstring).

    Parameters
    ----------
    bins : ``"scott"`` (default) or a number of equal-width bins for continuous outputs.
    bound : ``"event"`` (held-out event, default) or ``"uniform"`` (TV-based, all ε at once).
    max_categories : integer outputs with at most this many distinct values are discrete.
    objective : how runs of bins are ranked under ``bound="event"``, as in `HockeyStickTester`.
    describe_output : words for an output in event descriptions, as in `HockeyStickTester`.
    """

    name = "histogram"

    def __init__(
        self,
        bins: int | Literal["scott"] = "scott",
        bound: Literal["event", "uniform"] = "event",
        max_categories: int = 1000,
        objective: Literal["divergence", "epsilon"] = "epsilon",
        describe_output: Callable[[np.ndarray], str | None] | None = None,
    ):
        events = EventSelection(objective=objective, describe_output=describe_output)
        selection = BinSelection(bins, max_categories, events)
        super().__init__(objective=objective, describe_output=describe_output, selection=selection)
        self.bins = bins
        self.bound = bound
        self.max_categories = max_categories

    def check_claim(self, claim: Claim) -> None:
        super().check_claim(claim)
        check_choice("bound", self.bound, ("event", "uniform"))
        if self.bound == "uniform" and not isinstance(claim, ApproxDP):
            raise UnsupportedClaimError(
                f"histogram with bound='uniform' refutes PureDP and ApproxDP, got {claim!r}."
            )

    def fit_binning(self, train0: np.ndarray, train1: np.ndarray) -> Binning:
        """Bins from training samples, scored by their log-likelihood ratio log(p̂_b / q̂_b)."""
        return cast(BinSelection, self.selection).fit_binning(train0, train1)

    def counts(self, event: Any) -> bool:
        """The uniform bound's `Binning` is certified by `evaluate` on kept outputs, not counted."""
        return isinstance(event, ScoreEvent)

    def fit(  # type: ignore[override]  # the uniform bound returns a Binning, not an event
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None = None,
    ) -> ScoreEvent | Binning:
        """The bins; with ``bound="event"`` also the best run of bins as one event."""
        if self.bound == "uniform":
            self.check_claim(claim)
            check_beta(beta)
            return self.fit_binning(train0, train1)
        return super().fit(train0, train1, claim, beta, rng, eval_size)

    def evaluate(
        self,
        fitted: ScoreEvent | Binning,
        test0: np.ndarray,
        test1: np.ndarray,
        claim: Claim,
        beta: float,
    ) -> TestResult:
        if isinstance(fitted, ScoreEvent):
            return super().evaluate(fitted, test0, test1, claim, beta)
        return self._uniform_result(fitted, test0, test1, approx_dp(claim), beta)

    # -- uniform bound ---------------------------------------------------------------------
    def _uniform_result(
        self, binning: Binning, test0, test1, claim: ApproxDP, beta: float
    ) -> TestResult:
        """One profile on a grid of ε (its first point the claim's): the bound at the claim, and
        the largest grid ε whose certified δ(ε) exceeds the claim's δ (the profile decreases)."""
        start = time.perf_counter()
        self.check_claim(claim)
        grid = np.concatenate([[claim.epsilon], np.linspace(0.0, 20.0, 2001)])
        profile = profile_on_bins(binning, test0, test1, grid, beta)
        bound = float(profile.deltas[0])
        above = grid[1:][profile.deltas[1:] > claim.delta]
        return TestResult(
            tester=self.name,
            claim=claim,
            divergence=f"hockey_stick(gamma={math.exp(claim.epsilon):.6g})",
            bound=bound,
            threshold=claim.delta,
            epsilon_lower_bound=float(above.max()) if len(above) and above.max() > 0 else None,
            estimate=bound + profile.slack_p + math.exp(claim.epsilon) * profile.slack_q,
            beta=beta,
            event=f"uniform TV bound over {profile.bins} bins",
            num_samples=(len(test0), len(test1)),
            details={"slack_p": profile.slack_p, "slack_q": profile.slack_q},
            seconds=time.perf_counter() - start,
        )

    def privacy_profile(
        self, samples0: np.ndarray, samples1: np.ndarray, epsilons: ArrayLike, beta: float
    ) -> BinnedProfile:
        """Deprecated: `dpfuzz.profiles.privacy_profile` (removed in 0.4)."""
        import warnings

        warnings.warn(
            "HistogramTester.privacy_profile is deprecated; use dpfuzz.profiles.privacy_profile (a"
            " ProfileEstimate).",
            DeprecationWarning,
            stacklevel=2,
        )
        train0, test0 = split_halves(samples0)
        train1, test1 = split_halves(samples1)
        return profile_on_bins(self.fit_binning(train0, train1), test0, test1, epsilons, beta)


def profile_on_bins(
    binning: Binning, test0: np.ndarray, test1: np.ndarray, epsilons: ArrayLike, beta: float
) -> BinnedProfile:
    """δ_lb(ε) = H_{e^ε}(P̂ ‖ Q̂) − a − e^ε b on held-out samples (module docstring)."""
    beta = check_beta(beta)
    x0, x1 = _values(test0, "samples0"), _values(test1, "samples1")
    k = binning.bins
    p_hat, q_hat = binning.counts(x0) / len(x0), binning.counts(x1) / len(x1)
    slack_p, slack_q = (
        0.5 * math.sqrt(k / n) + math.sqrt(math.log(4 / beta) / (2 * n)) for n in (len(x0), len(x1))
    )
    epsilons = np.asarray(epsilons, dtype=float)
    gammas = np.exp(epsilons)[:, None]
    empirical = np.clip(p_hat[None, :] - gammas * q_hat[None, :], 0, None).sum(axis=1)
    deltas = empirical - slack_p - gammas[:, 0] * slack_q
    return BinnedProfile(epsilons, deltas, beta, k, slack_p, slack_q, p_hat, q_hat)


def _values(samples: np.ndarray, name: str) -> np.ndarray:
    matrix = as_feature_matrix(samples, name)
    if matrix.shape[1] != 1:
        raise UnsupportedOutputError(
            f"histogram handles 1-D outputs, but {name} has outputs of size {matrix.shape[1]}; "
            "use tester='hockey_stick' or 'mmd' for vector outputs."
        )
    return matrix[:, 0]
