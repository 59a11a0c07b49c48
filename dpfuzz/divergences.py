"""Closed-form divergences of reference distribution pairs.

The ground truth that testers are checked against (tests) and compared with (benchmarks).
Notation: P is the first distribution, Q the second; shift Δ ≥ 0.
"""

from __future__ import annotations

import math

from scipy import stats


def laplace_hockey_stick(epsilon: float, shift: float, scale: float = 1.0) -> float:
    """H_{e^ε}(Lap(0, b) ‖ Lap(Δ, b)) = 1 − exp((ε − Δ/b)/2) for ε < Δ/b, else 0.

    The privacy loss is Δ/b for x ≤ 0, −Δ/b for x ≥ Δ and linear between, so the optimal event
    is x < (Δ − εb)/2; integrate both densities over it.
    """
    ratio = shift / scale
    return 1.0 - math.exp((epsilon - ratio) / 2.0) if epsilon < ratio else 0.0


def gaussian_hockey_stick(epsilon: float, shift: float, sigma: float = 1.0) -> float:
    """H_{e^ε}(N(0, σ²) ‖ N(Δ, σ²)) = Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) (Balle & Wang 2018, Thm
    8)."""
    if shift == 0:
        return 0.0
    a, b = shift / (2 * sigma), epsilon * sigma / shift
    return float(stats.norm.cdf(a - b) - math.exp(epsilon) * stats.norm.cdf(-a - b))


def gaussian_renyi(alpha: float, shift: float, sigma: float = 1.0) -> float:
    """R_α(N(0, σ²) ‖ N(Δ, σ²)) = αΔ² / (2σ²) (Mironov 2017, Prop. 7)."""
    return alpha * shift**2 / (2 * sigma**2)


def laplace_renyi(alpha: float, shift: float, scale: float = 1.0) -> float:
    """R_α(Lap(0, b) ‖ Lap(Δ, b)) = log[α/(2α−1) e^{(α−1)Δ/b} + (α−1)/(2α−1) e^{−αΔ/b}] / (α−1)
    (Mironov 2017, Table II)."""
    t = shift / scale
    inner = alpha / (2 * alpha - 1) * math.exp((alpha - 1) * t) + (alpha - 1) / (
        2 * alpha - 1
    ) * math.exp(-alpha * t)
    return math.log(inner) / (alpha - 1)


def randomized_response_hockey_stick(epsilon: float, true_epsilon: float) -> float:
    """H_{e^ε} between the two output laws of binary randomized response that keeps the bit
    with probability e^{ε'}/(1 + e^{ε'}): (e^{ε'} − e^ε)₊ / (1 + e^{ε'})."""
    return max(0.0, math.exp(true_epsilon) - math.exp(epsilon)) / (1 + math.exp(true_epsilon))


def exponential_hockey_stick(epsilon: float, rate_p: float, rate_q: float) -> float:
    """H_{e^ε}(Exp(λ) ‖ Exp(μ)) for λ > μ: the ratio (λ/μ)e^{−(λ−μ)x} exceeds e^ε on x < t,
    t = ln(λ/(μe^ε))/(λ − μ); H = (1 − e^{−λt}) − e^ε (1 − e^{−μt}) for t > 0, else 0."""
    if rate_p <= rate_q:
        raise ValueError("exponential_hockey_stick needs rate_p > rate_q.")
    t = math.log(rate_p / (rate_q * math.exp(epsilon))) / (rate_p - rate_q)
    return (
        max(0.0, (1 - math.exp(-rate_p * t)) - math.exp(epsilon) * (1 - math.exp(-rate_q * t)))
        if t > 0
        else 0.0
    )


def exponential_renyi(alpha: float, rate_p: float, rate_q: float) -> float:
    """R_α(Exp(λ) ‖ Exp(μ)) = α/(α−1) ln λ − ln μ − ln(αλ − (α−1)μ)/(α−1), finite when αλ >
    (α−1)μ."""
    denominator = alpha * rate_p - (alpha - 1) * rate_q
    if denominator <= 0:
        return math.inf
    return (
        alpha / (alpha - 1) * math.log(rate_p)
        - math.log(rate_q)
        - math.log(denominator) / (alpha - 1)
    )


def randomized_response_renyi(alpha: float, true_epsilon: float) -> float:
    """R_α between binary randomized response's two output laws, Bern(p) ‖ Bern(1 − p)."""
    p = math.exp(true_epsilon) / (1 + math.exp(true_epsilon))
    return math.log(p**alpha * (1 - p) ** (1 - alpha) + (1 - p) ** alpha * p ** (1 - alpha)) / (
        alpha - 1
    )


def gaussian_kernel_mmd(shift: float, sigma: float, bandwidth: float) -> float:
    """MMD(N(0, σ²), N(Δ, σ²)) in 1-D with k(x, y) = exp(−(x − y)²/(2h²)).

    E k(X, Y) for X − Y ~ N(m, 2σ²) is h/√(h² + 2σ²) · exp(−m²/(2(h² + 2σ²))), so
    MMD² = 2 h/√(h² + 2σ²) · (1 − exp(−Δ²/(2(h² + 2σ²)))).
    """
    spread = bandwidth**2 + 2 * sigma**2
    return math.sqrt(2 * bandwidth / math.sqrt(spread) * (1 - math.exp(-(shift**2) / (2 * spread))))
