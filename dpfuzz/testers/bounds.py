"""Finite-sample confidence bounds shared by the testers.

All functions are vectorised over numpy arrays of counts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from scipy import special

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


def bracketed_root(
    function: Callable[[float], float],
    low: float,
    high: float,
    xtol: float = 2e-12,
    rtol: float = 4 * np.finfo(float).eps,
) -> float:
    """A root of a continuous `function` whose values at `low` and `high` differ in sign: the
    Illinois variant of regula falsi (Dowell & Jarratt 1971), which keeps the root bracketed
    and converges superlinearly, until the bracket is narrower than `xtol` + `rtol`·|root|.
    (SciPy's `optimize.brentq` does the same job, at a fifth of a second's import.)"""
    f_low, f_high = function(low), function(high)
    if f_low == 0 or f_high == 0:
        return low if f_low == 0 else high
    if f_low * f_high > 0:
        raise ValueError(f"the function has the same sign at {low} and {high}: no bracketed root.")
    kept = 0  # which end the last two steps kept (-1 low, +1 high): its value is halved
    for _ in range(200):
        point = (low * f_high - high * f_low) / (f_high - f_low)
        value = function(point)
        if value == 0:
            return point
        if value * f_high > 0:
            high, f_high = point, value
            f_low, kept = (f_low / 2 if kept == -1 else f_low), -1
        else:
            low, f_low = point, value
            f_high, kept = (f_high / 2 if kept == 1 else f_high), 1
        if abs(high - low) < xtol + rtol * abs(point):
            return point
    return point


def clopper_pearson_lower(successes: ArrayLike, trials: ArrayLike, alpha: float) -> np.ndarray:
    """Exact one-sided lower confidence bound for a binomial proportion.

    P(p ≥ bound) ≥ 1 − alpha; bound = Beta.ppf(alpha; k, n − k + 1), and 0 when k = 0
    (Clopper & Pearson 1934; docs/explanation/statistics.md).
    """
    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    safe_k = np.maximum(k, 1.0)
    return np.where(k > 0, special.betaincinv(safe_k, n - safe_k + 1.0, alpha), 0.0)


def clopper_pearson_upper(successes: ArrayLike, trials: ArrayLike, alpha: float) -> np.ndarray:
    """Exact one-sided upper bound: Beta.ppf(1 − alpha; k + 1, n − k), and 1 when k = n."""
    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    return 1.0 - clopper_pearson_lower(n - k, n, alpha)


def wilson_lower(successes: ArrayLike, trials: ArrayLike, alpha: float) -> np.ndarray:
    """One-sided Wilson score lower bound at level alpha (upper bound: `wilson_upper`).

    A fast, closed-form approximation of Clopper–Pearson (good also for small counts). Used
    only to *choose* events on training samples; certified bounds always use Clopper–Pearson.
    """
    return _wilson(successes, trials, alpha, sign=-1.0)


def wilson_upper(successes: ArrayLike, trials: ArrayLike, alpha: float) -> np.ndarray:
    """One-sided Wilson score upper bound at level alpha."""
    return _wilson(successes, trials, alpha, sign=1.0)


def _wilson(successes, trials, alpha: float, sign: float):
    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    # = stats.norm.isf(alpha)², without its 0.25 ms of argument checks
    z2 = special.ndtri(alpha) ** 2
    p = k / n
    spread = np.sqrt(z2 * (p * (1 - p) / n + z2 / (4 * n * n)))
    return (p + z2 / (2 * n) + sign * spread) / (1 + z2 / n)


def binary_renyi(p: ArrayLike, q: ArrayLike, alpha: float) -> np.ndarray:
    """R_α(Bernoulli(p) ‖ Bernoulli(q)) = log(p^α q^{1−α} + (1−p)^α (1−q)^{1−α}) / (α − 1).

    By the data-processing inequality this lower-bounds R_α(P ‖ Q) when p = P(S), q = Q(S)
    for any event S. For p ≥ q it is nondecreasing in p and nonincreasing in q (joint convexity
    of f-divergences, minimum at p = q), so plugging in (p_lo, q_hi) keeps the bound valid.
    Returns 0 where p ≤ q.
    """
    p, q = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(q, dtype=float))
    valid = p > q
    p_safe, q_safe = np.where(valid, p, 0.5), np.where(valid, q, 0.25)
    with np.errstate(divide="ignore"):
        terms = np.stack(
            [
                alpha * np.log(p_safe) + (1 - alpha) * np.log(q_safe),
                alpha * np.log1p(-p_safe) + (1 - alpha) * np.log1p(-q_safe),
            ]
        )
    value = special.logsumexp(terms, axis=0) / (alpha - 1)
    return np.where(valid, np.maximum(value, 0.0), 0.0)


def empirical_bernstein_lower(values: np.ndarray, value_range: float, alpha: float) -> float:
    """Lower confidence bound on E X from i.i.d. values in an interval of length `value_range`.

    E X ≥ X̄ − √(2 V̂ ln(2/α) / m) − 7 R ln(2/α) / (3(m − 1)), with V̂ the unbiased sample variance
    (Maurer & Pontil 2009, Thm 4, rescaled from [0, 1] to range R); holds with probability ≥ 1 −
    alpha.
    """
    values = np.asarray(values, dtype=float)
    m = len(values)
    if m < 2:
        return -np.inf
    log_term = np.log(2.0 / alpha)
    variance = values.var(ddof=1)
    return float(
        values.mean()
        - np.sqrt(2 * variance * log_term / m)
        - 7 * value_range * log_term / (3 * (m - 1))
    )


def conditional_odds_lower(
    successes_p: int, trials_p: int, successes_q: int, trials_q: int, alpha: float
) -> float:
    """Exact conditional lower confidence bound ψ_lo on the odds ratio ψ = p(1 − q) / (q(1 − p))
    of two independent binomials, X ~ Bin(n_p, p) and Y ~ Bin(n_q, q): P(ψ ≥ ψ_lo) ≥ 1 − alpha.

    Given X + Y = k, X has Fisher's noncentral hypergeometric law, P(X = x | k) ∝
    C(n_p, x) C(n_q, k − x) ψ^x, whatever p and q are; its upper tail at the observed x grows
    with ψ, and ψ_lo is where that tail equals alpha (Cornfield's exact limit; Agresti,
    *Categorical Data Analysis*, §16.6). Holding for every k, it holds unconditionally.
    ψ_lo = 0 when x is the smallest value the margins allow.
    """
    x, n_p, y, n_q = int(successes_p), int(trials_p), int(successes_q), int(trials_q)
    k = x + y
    if x <= max(0, k - n_q):
        return 0.0
    # ½-smoothed plug-in log odds ratio and its delta-method standard error, to bracket the root
    centre = math.log((x + 0.5) * (n_q - y + 0.5) / ((y + 0.5) * (n_p - x + 0.5)))
    spread = math.sqrt(sum(1.0 / (count + 0.5) for count in (x, y, n_p - x, n_q - y)))

    def excess(log_odds: float) -> float:
        return _noncentral_upper_tail(x, n_p, n_q, k, log_odds) - alpha

    low, high = centre - spread, centre + spread
    while excess(low) > 0:
        low -= 2 * (centre - low)
    while excess(high) < 0:
        high += 2 * (high - centre)
    return math.exp(bracketed_root(excess, low, high, xtol=1e-12, rtol=1e-12))


def _noncentral_upper_tail(x: int, n_p: int, n_q: int, k: int, log_odds: float) -> float:
    """P(X ≥ x) for X with P(X = j) ∝ C(n_p, j) C(n_q, k − j) e^{j·log_odds}.

    The law is log-concave: its log-probabilities are built outward from the mode by the
    consecutive log-ratios ln((n_p − j)(k − j)ψ / ((j + 1)(n_q − k + j + 1))), over a window
    wide enough that the mass outside is below e^-60 of the largest term (doubled until it is).
    """
    lowest, highest = max(0, k - n_q), min(k, n_p)

    def log_ratio(j):  # ln P(j + 1) − ln P(j)
        j = np.asarray(j, dtype=float)
        return np.log((n_p - j) * (k - j)) - np.log((j + 1) * (n_q - k + j + 1)) + log_odds

    def scalar_log_ratio(j: int) -> float:  # the same in floats: the bisection below is scalar
        return math.log((n_p - j) * (k - j)) - math.log((j + 1) * (n_q - k + j + 1)) + log_odds

    below, above = lowest, highest  # the mode: the first j whose ratio to the next is < 1
    while below < above:
        middle = (below + above) // 2
        below, above = (middle + 1, above) if scalar_log_ratio(middle) >= 0 else (below, middle)
    mode = below
    width = 20 + 15 * math.sqrt(
        1.0 / sum(1.0 / (count + 1.0) for count in (mode, k - mode, n_p - mode, n_q - k + mode))
    )
    while True:
        start, stop = max(lowest, int(mode - width)), min(highest, int(mode + width))
        steps = log_ratio(np.arange(start, stop))
        logs = np.concatenate([[0.0], np.cumsum(steps)])
        logs -= logs[mode - start]
        if (start == lowest or logs[0] < -60) and (stop == highest or logs[-1] < -60):
            break
        width *= 2
    if x > stop:
        return 0.0
    if x <= start:
        return 1.0
    # the mode's term is 1, the largest: no overflow (scipy's logsumexp cost 5× this call)
    weights = np.exp(logs)
    return float(weights[x - start :].sum() / weights.sum())


def pure_dp_epsilon_lower(
    successes_p: int, trials_p: int, successes_q: int, trials_q: int, beta: float
) -> float:
    """Certified lower bound on the privacy loss ε of a pair from one event's held-out counts,
    at level β (−∞, 0 or below when nothing positive is certified).

    ε-DP over both orders of the pair gives p ≤ e^ε q for the event and 1 − q ≤ e^ε (1 − p) for its
    complement (p = P(S), q = Q(S)). Over that region, with q ≤ a, the odds ratio ψ is at most
    ψ_ε(a) = e^ε (1 − a)/(1 − e^ε a) while a < 1/(1 + e^ε), and e^{2ε} beyond (the corner where both
    hold with equality). So with a = q_hi, Clopper–Pearson at level β/10, and ψ_lo the exact
    conditional bound at 9β/10 (`conditional_odds_lower`), ε-DP is refuted whenever
    ψ_ε(a) < ψ_lo, with probability ≤ β if it holds (Berger & Boos 1994: the nuisance q restricted
    to its confidence interval). Inverting in ε:
    ε_lb = max(ln(ψ_lo / (1 − a + ψ_lo a)), ½ ln ψ_lo).

    Against Clopper–Pearson on each proportion at β/2 (ε ≥ ln(p_lo / q_hi)), the margin below
    ln(p̂/q̂) shrinks from z_{β/2}(se_p + se_q) to about z_{0.9β}·√(se_p² + se_q²): roughly half.
    """
    odds_lower = conditional_odds_lower(successes_p, trials_p, successes_q, trials_q, 0.9 * beta)
    if odds_lower <= 0.0:
        return -math.inf
    a = float(clopper_pearson_upper(successes_q, trials_q, 0.1 * beta))
    return max(math.log(odds_lower / (1.0 - a + odds_lower * a)), 0.5 * math.log(odds_lower))
