"""Finite-sample confidence bounds shared by the testers.

All functions are vectorised over numpy arrays of counts.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats


def clopper_pearson_lower(successes, trials, alpha: float):
    """Exact one-sided lower confidence bound for a binomial proportion.

    P(p ≥ bound) ≥ 1 − alpha; bound = Beta.ppf(alpha; k, n − k + 1), and 0 when k = 0
    (Clopper & Pearson 1934; docs/statistics.md).
    """
    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    safe_k = np.maximum(k, 1.0)
    return np.where(k > 0, special.betaincinv(safe_k, n - safe_k + 1.0, alpha), 0.0)


def clopper_pearson_upper(successes, trials, alpha: float):
    """Exact one-sided upper bound: Beta.ppf(1 − alpha; k + 1, n − k), and 1 when k = n."""
    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    return 1.0 - clopper_pearson_lower(n - k, n, alpha)


def wilson_lower(successes, trials, alpha: float):
    """One-sided Wilson score lower bound at level alpha (upper bound: `wilson_upper`).

    A fast, closed-form approximation of Clopper–Pearson (good also for small counts). Used
    only to *choose* events on training samples; certified bounds always use Clopper–Pearson.
    """
    return _wilson(successes, trials, alpha, sign=-1.0)


def wilson_upper(successes, trials, alpha: float):
    """One-sided Wilson score upper bound at level alpha."""
    return _wilson(successes, trials, alpha, sign=1.0)


def _wilson(successes, trials, alpha: float, sign: float):
    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    z2 = stats.norm.isf(alpha) ** 2
    p = k / n
    spread = np.sqrt(z2 * (p * (1 - p) / n + z2 / (4 * n * n)))
    return (p + z2 / (2 * n) + sign * spread) / (1 + z2 / n)


def binary_renyi(p, q, alpha: float):
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
    (Maurer & Pontil 2009, Thm 4, rescaled from [0, 1] to range R); holds with probability ≥ 1 − alpha.
    """
    values = np.asarray(values, dtype=float)
    m = len(values)
    if m < 2:
        return -np.inf
    log_term = np.log(2.0 / alpha)
    variance = values.var(ddof=1)
    return float(values.mean() - np.sqrt(2 * variance * log_term / m) - 7 * value_range * log_term / (3 * (m - 1)))
