"""One-run audits: refute a claim from a single run of an algorithm with m canaries.

The user's ``run(included, rng) -> scores`` runs the algorithm once with canary i inserted where
``included[i]`` is True and returns one membership score per canary (higher: more likely
included). dpfuzz draws the inclusion bits (fair coins), calls `run` once and turns the scores
into guesses without looking at the bits. Two analyses, both at confidence 1 − β:

* ``"bits"`` — Xiang, Wang & Wang, "Privacy audit as bits transmission" (paper 003, §3.3,
  Algorithms 3–5, with Clopper–Pearson as the confidence interval). Every canary is guessed:
  "included" for the ⌊m/2⌋ highest scores. If the algorithm is f-DP, the error of any guess of
  a fair bit is at least e_f = min_a (a + f(a))/2; with a *memoryless channel* (each canary's
  score depends on its own bit and on noise independent across canaries, e.g. one-hot canaries
  in separate coordinates of a Gaussian sum) the error count dominates Binomial(m, e_f). The
  Clopper–Pearson upper bound ē on the error rate gives
    - μ ≥ −2Φ⁻¹(ē) (the GDP family, e_f = Φ(−μ/2)) and the ε at δ of that μ (valid for the
      algorithm when its trade-off curve is Gaussian, as for the Gaussian mechanism and DP-SGD);
    - ε ≥ ln((1 − δ − ē)/ē) for every (ε, δ)-DP algorithm (e_f = (1 − δ)/(1 + e^ε)).
  Guessing every canary matters: abstaining on unsure canaries lowers the error below e_f.
* ``"steinke"`` — Steinke, Nasr & Jagielski, "Privacy auditing with one (1) training run"
  (NeurIPS 2023, Theorem 3.1 with abstention): valid without the memoryless assumption. For each
  number of guesses r in {m, m/2, m/4, …} (the r/2 highest scores guessed "included", the r/2
  lowest "excluded") with v correct, under (ε, δ)-DP and q = e^ε/(1 + e^ε)
    P[V ≥ v] ≤ P[Binomial(r, q) ≥ v] + 2mδ · max_{i=1..v} P[v > Binomial(r, q) ≥ v − i] / i;
  the certified ε is the largest ε at which the right-hand side is below β/K (Bonferroni over
  the K values of r tried), so P(certified ε > true ε) ≤ β.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from dpfuzz.claims import ApproxDP, Claim, GaussianDP
from dpfuzz.engine.run import fresh_seed
from dpfuzz.errors import MechanismError, UnsupportedClaimError
from dpfuzz.testers.base import check_beta
from dpfuzz.testers.bounds import clopper_pearson_upper
from dpfuzz.validation import check_choice, check_int, check_number

METHODS = ("bits", "steinke")
GDP_DELTA = 1e-5  # the δ at which a μ-GDP claim's ε is stated, unless given
ASSUMPTIONS = {
    "bits": (
        "memoryless channel: each canary's score depends only on its own bit and independent noise"
    ),
    "steinke": (
        "none beyond the claim (valid for any algorithm and any dependence between canaries)"
    ),
}


@dataclass(frozen=True)
class OneRunAudit:
    """The outcome of a one-run audit and the counts behind it."""

    method: str
    claim: Claim
    violated: bool
    epsilon_lower_bound: float  # certified ε at `delta` (0.0: nothing positive)
    delta: float
    mu_lower_bound: float | None  # "bits" only: certified μ (GDP family)
    # "bits", δ > 0: ε at δ of that μ (valid if the curve is Gaussian)
    epsilon_lower_bound_gdp: float | None
    canaries: int
    guesses: int
    correct: int
    best_possible: float  # the ε this method would certify at this m if every guess were right
    beta: float
    assumption: str
    seed: int
    seconds: float

    def summary(self) -> str:
        verdict = "REFUTED" if self.violated else "not refuted"
        lines = [
            (
                f"{self.claim.describe()}: {verdict} by a one-run audit ({self.method}, confidence"
                f" {1 - self.beta:g})"
            ),
            f"  canaries  {self.canaries:,}; guesses {self.guesses:,}; correct {self.correct:,}",
            (
                f"  ε ≥ {self.epsilon_lower_bound:.4g} at δ = {self.delta:g} (best this m could"
                f" certify: {self.best_possible:.4g})"
            ),
        ]
        if self.mu_lower_bound is not None:
            gdp = (
                ""
                if self.epsilon_lower_bound_gdp is None
                else (
                    f"; if the trade-off curve is Gaussian, ε ≥ {self.epsilon_lower_bound_gdp:.4g}"
                    f" at δ = {self.delta:g}"
                )
            )
            lines.append(f"  μ ≥ {self.mu_lower_bound:.4g}{gdp}")
        lines += [
            f"  assumes   {self.assumption}",
            f"  seed      {self.seed}; {self.seconds:.2f} s",
        ]
        return "\n".join(lines)


# A release run once: the canaries' inclusion bits in, one score per canary out.
OneRunRelease = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def audit_one_run(
    run: OneRunRelease,
    claim: Claim,
    *,
    canaries: int,
    beta: float = 0.05,
    seed: int | None = None,
    method: str = "bits",
    delta: float | None = None,
) -> OneRunAudit:
    """Run `run` once with `canaries` fair inclusion bits and certify a lower bound on its privacy.

    `claim` is a `PureDP`, `ApproxDP` or `GaussianDP` claim; `delta` is where ε is stated (default:
    the claim's δ, or 10⁻⁵ for μ-GDP). See the module docstring for the two methods.
    """
    method = check_choice("method", method, METHODS)
    canaries = check_int("canaries", canaries, minimum=2)
    beta = check_beta(beta)
    if not isinstance(claim, (ApproxDP, GaussianDP)):
        hint = (
            " Audit the (ε, δ)-DP claim it implies, e.g. claim.to_approx(1e-5) ="
            f" {claim.to_approx(1e-5).describe()}."
            if hasattr(claim, "to_approx")
            else (
                " A Rényi claim implies (ε, δ)-DP claims (Mironov 2017, Prop. 3); audit one of"
                " those."
            )
        )
        raise UnsupportedClaimError(
            f"audit_one_run refutes PureDP, ApproxDP and GaussianDP claims, got {claim!r}.{hint}"
        )
    if delta is None:
        delta = claim.delta if isinstance(claim, ApproxDP) else GDP_DELTA
    delta = check_number("delta", delta, minimum=0.0, maximum=1.0, exclusive_maximum=True)
    seed = seed if seed is not None else fresh_seed()
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    included = rng.random(canaries) < 0.5
    scores = _call(run, included, rng)
    order = np.lexsort((rng.random(canaries), scores))  # ascending score, ties broken at random
    if method == "bits":
        result = _bits(order, included, claim, delta, beta)
    else:
        result = _steinke(order, included, claim, delta, beta)
    return OneRunAudit(
        **result,
        method=method,
        claim=claim,
        delta=delta,
        canaries=canaries,
        beta=beta,
        assumption=ASSUMPTIONS[method],
        seed=seed,
        seconds=time.perf_counter() - start,
    )


def _call(run, included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    try:
        scores = run(included.copy(), rng)
    except Exception as error:
        raise MechanismError(f"the run raised {type(error).__name__}: {error}") from error
    try:
        scores = np.asarray(scores, dtype=float)
    except (TypeError, ValueError) as error:
        raise MechanismError(
            f"the run must return one number per canary, got {type(scores).__name__}: {error}"
        ) from error
    if scores.shape != included.shape:
        raise MechanismError(
            f"the run must return one membership score per canary, shape ({len(included)},), got"
            f" shape {scores.shape}."
        )
    if not np.all(np.isfinite(scores)):
        raise MechanismError(
            f"the run returned {int(np.sum(~np.isfinite(scores)))} scores that are NaN or infinite."
        )
    return scores


# -- "bits" (paper 003) --------------------------------------------------------------------------
def _bits(
    order: np.ndarray, included: np.ndarray, claim: ApproxDP | GaussianDP, delta: float, beta: float
) -> dict:
    m = len(order)
    guesses = np.zeros(m, dtype=bool)
    guesses[order[m - m // 2 :]] = True  # the ⌊m/2⌋ highest scores: "included"
    errors = int(np.sum(guesses != included))
    error_hi = float(clopper_pearson_upper(errors, m, beta))
    best_error_hi = float(clopper_pearson_upper(0, m, beta))
    mu = GaussianDP.mu_from_error(error_hi)
    epsilon = _epsilon_from_error(error_hi, delta)
    # μ-GDP has no finite ε at δ = 0: the GDP-family ε is stated only for δ > 0
    epsilon_gdp = None if delta == 0 else GaussianDP(mu).epsilon_at(delta) if mu > 0 else 0.0
    violated = mu > claim.mu if isinstance(claim, GaussianDP) else epsilon > claim.epsilon
    return {
        "violated": bool(violated),
        "epsilon_lower_bound": epsilon,
        "mu_lower_bound": mu,
        "epsilon_lower_bound_gdp": epsilon_gdp,
        "guesses": m,
        "correct": m - errors,
        "best_possible": _epsilon_from_error(best_error_hi, delta),
    }


def _epsilon_from_error(error_hi: float, delta: float) -> float:
    """ε with (1 − δ)/(1 + e^ε) = ē: the (ε, δ) family's error floor (paper 003, Algorithm 4)."""
    if error_hi <= 0 or 1 - delta - error_hi <= error_hi:
        return 0.0 if error_hi > 0 else math.inf
    return math.log((1 - delta - error_hi) / error_hi)


# -- "steinke" (Steinke, Nasr & Jagielski 2023)
# -----------------------------------------------------
def _steinke(
    order: np.ndarray, included: np.ndarray, claim: ApproxDP | GaussianDP, delta: float, beta: float
) -> dict:
    m = len(order)
    sizes = []
    r = m - m % 2
    while r >= 2:
        sizes.append(r)
        r = (r // 2) - (r // 2) % 2
    level = beta / len(sizes)
    best = (-math.inf, 0, 0)
    for r in sizes:
        low, high = order[: r // 2], order[m - r // 2 :]
        correct = int(np.sum(included[high]) + np.sum(~included[low]))
        epsilon = steinke_epsilon(r, correct, m, delta, level)
        if epsilon > best[0]:
            best = (epsilon, r, correct)
    epsilon, r, correct = best
    claimed = claim.to_approx(delta).epsilon if isinstance(claim, GaussianDP) else claim.epsilon
    return {
        "violated": bool(epsilon > claimed),
        "epsilon_lower_bound": epsilon,
        "mu_lower_bound": None,
        "epsilon_lower_bound_gdp": None,
        "guesses": r,
        "correct": correct,
        "best_possible": max(steinke_epsilon(size, size, m, delta, level) for size in sizes),
    }


def steinke_p_value(
    epsilon: float, guesses: int, correct: int, canaries: int, delta: float
) -> float:
    """The right-hand side of Steinke, Nasr & Jagielski's Theorem 3.1: an upper bound on
    P[V ≥ correct] for any (ε, δ)-DP algorithm, increasing in ε."""
    q = 1.0 / (1.0 + math.exp(-epsilon))
    tail = float(stats.binom.sf(correct - 1, guesses, q))
    if delta == 0 or correct == 0:
        return tail
    i = np.arange(1, correct + 1)
    cdf = stats.binom.cdf(np.arange(-1, correct), guesses, q)  # cdf[j + 1] = P[B ≤ j]
    between = cdf[correct] - cdf[correct - i]  # P[v > B ≥ v − i] = P[B ≤ v − 1] − P[B ≤ v − i − 1]
    return tail + 2 * canaries * delta * float(np.max(between / i))


def steinke_epsilon(guesses: int, correct: int, canaries: int, delta: float, beta: float) -> float:
    """The largest ε that `correct` of `guesses` refutes at level β (0.0 if none), by bisection."""
    if steinke_p_value(0.0, guesses, correct, canaries, delta) >= beta:
        return 0.0
    low, high = 0.0, 1.0
    while steinke_p_value(high, guesses, correct, canaries, delta) < beta:
        low, high = high, 2 * high
        if high > 100:
            return low
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (
            (middle, high)
            if steinke_p_value(middle, guesses, correct, canaries, delta) < beta
            else (low, middle)
        )
    return low
