"""Anytime-valid hockey-stick certificates by betting (testing by betting: Waudby-Smith & Ramdas
2024, Shafer 2021; for DP audits, González, Dulce-Rubio, Ramdas & Ribero 2025, arXiv 2509.07055).

An *arm* is one ordered pair of neighbouring datasets (P = the first's outputs, Q = the
second's). Its evidence comes in rounds: before round r an event S_r is chosen from the arm's
earlier outputs, then m fresh outputs x_1..x_m ~ P and y_1..y_m ~ Q are drawn and each index i
gives Z_i = 1[x_i ∈ S_r] − γ·1[y_i ∈ S_r] ∈ [−γ, 1]. If the mechanism is (ε, δ)-DP with
γ = e^ε, then E[Z_i | the past] = P(S_r) − γ Q(S_r) ≤ δ, so with a bet λ ∈ [0, 1/(γ + δ)]
fixed before the round, every factor 1 + λ(Z_i − δ) is non-negative with conditional mean
≤ 1, and the arm's wealth W = Π (1 + λ(Z_i − δ)) is a non-negative supermartingale from 1.

Arms are pooled in the mixture M = Σ_k w_k W_k (weights summing to one, fixed when the arms
are declared): under the claim every arm is such a supermartingale for the same filtration,
so M is one too, and by Ville's inequality P(sup_t M_t ≥ 1/β) ≤ β. A run that rejects the
claim the first time M ≥ 1/β — after any round, however the events, bets, arms' draws and the
stopping time were chosen from the data before — falsely refutes a true claim with probability
at most β (docs/explanation/statistics.md, "Certificates that hold at every look"). A look is
taken after every arm that bets on the same outputs has been updated (`update`, then `look`): in
between, the mixture is not a supermartingale, since one pair's two directions share outputs.

ε lower bound: the same evidence tests H(ε') "the mechanism is (ε', δ)-DP" on an increasing
grid ε_claim = ε'_0 < ε'_1 < …, each with its own bets. The hypotheses are nested (H(ε') holds
for every ε' above the true ε), so the fixed-sequence procedure — reject H(ε'_j) only if every
H(ε'_i), i ≤ j, is rejected, each at the whole β — wrongly rejects some true H(ε') only if it
wrongly rejects the first true one, which has probability ≤ β. The certified ε lower bound is the
largest grid point so rejected.

The bet is the predictable plug-in (aGRAPA, Waudby-Smith & Ramdas 2024, §B.2)
λ = (μ̂ − δ) / (σ̂² + (μ̂ − δ)²) from the event's frequencies on the arm's earlier outputs,
clipped to [0, `BET_CAP` / (γ + δ)]; the cap keeps every factor ≥ 1 − `BET_CAP`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

# Largest bet, as a share of the largest bet that keeps every factor non-negative.
BET_CAP = 0.5
# e-values are shown up to e^700, near the largest float; the evidence itself is kept as logs.
LARGEST_LOG_E_VALUE = 700.0


def epsilon_grid(epsilon: float, points: int = 33, tail: int = 24) -> np.ndarray:
    """`points` values ε'_0 = `epsilon` < ε'_1 < …, max(ε, 1/4)/8 apart (the default reaches
    4·max(ε, 1/4) above ε), then `tail` more, each 1.125 times the one before (the default's
    last is 84 times the linear part's top): a blatant violation's sharpened bound is not capped
    near the claim."""
    step = max(epsilon, 0.25) / 8
    linear = epsilon + step * np.arange(points)
    return np.concatenate([linear, linear[-1] * 1.125 ** np.arange(1, tail + 1)])


class BettingCertificate:
    """The wealth of `arms` arms against (ε', `delta`)-DP for every ε' of `epsilons` (the claim's
    ε first, increasing), pooled with equal weights, rejecting at level `beta`."""

    def __init__(self, arms: int, epsilons: np.ndarray, delta: float, beta: float):
        if arms < 1:
            raise ValueError(f"a betting certificate needs at least one arm, got {arms}.")
        self.epsilons = np.asarray(epsilons, dtype=float)
        self.gammas = np.exp(self.epsilons)
        self.delta, self.beta = float(delta), float(beta)
        self.log_wealth = np.zeros((arms, len(self.epsilons)))
        self.rejected = np.zeros(len(self.epsilons), dtype=bool)
        self.samples = np.zeros(arms, dtype=int)  # betting outputs per side, per arm
        self.refuting_log_evidence: float | None = None  # ln M at the look that refuted

    def bets(self, count_p: int, count_q: int, total: int) -> np.ndarray:
        """λ per grid point for an event that held `count_p` of `total` earlier outputs of P and
        `count_q` of as many of Q (add-one-half smoothed): the aGRAPA plug-in, clipped."""
        p, q = (count_p + 0.5) / (total + 1), (count_q + 0.5) / (total + 1)
        edge = p - self.gammas * q - self.delta
        variance = p * (1 - p) + self.gammas**2 * q * (1 - q)
        bet = edge / (variance + edge**2)
        return np.clip(bet, 0.0, BET_CAP / (self.gammas + self.delta))

    def update(self, arm: int, bets: np.ndarray, in_p: np.ndarray, in_q: np.ndarray) -> None:
        """Multiply arm `arm`'s wealth by the round's factors: `in_p[i]`, `in_q[i]` say whether
        the i-th fresh output of P, of Q, fell in the event the `bets` were placed on. Rejects
        nothing: `look` does, once every arm betting on these outputs is updated."""
        in_p, in_q = np.asarray(in_p, dtype=bool), np.asarray(in_q, dtype=bool)
        if in_p.shape != in_q.shape:
            raise ValueError("a round needs as many fresh outputs of P as of Q.")
        both = int(np.count_nonzero(in_p & in_q))
        only_p, only_q = int(np.count_nonzero(in_p)) - both, int(np.count_nonzero(in_q)) - both
        neither = len(in_p) - both - only_p - only_q
        gamma, delta = self.gammas, self.delta
        self.log_wealth[arm] += (
            only_p * np.log1p(bets * (1 - delta))
            + only_q * np.log1p(-bets * (gamma + delta))
            + both * np.log1p(bets * (1 - gamma - delta))
            + neither * np.log1p(-bets * delta)
        )
        self.samples[arm] += len(in_p)

    def look(self) -> bool:
        """Reject each grid point whose mixture wealth now exceeds 1/β (rejections are kept);
        returns whether the claim is refuted."""
        evidence = self.log_evidence()
        above = evidence > math.log(1 / self.beta)
        if above[0] and not self.refuted:
            self.refuting_log_evidence = float(evidence[0])
        self.rejected |= above
        return self.refuted

    def log_evidence(self) -> np.ndarray:
        """ln M per grid point: the log of the arms' mixture wealth (the e-value)."""
        return logsumexp(self.log_wealth, axis=0) - math.log(len(self.log_wealth))

    def e_value(self, arm: int | None = None) -> float:
        """The claim's e-value: the mixture's, or arm `arm`'s wealth (at most e^700)."""
        log = self.log_evidence()[0] if arm is None else self.log_wealth[arm, 0]
        return math.exp(min(float(log), LARGEST_LOG_E_VALUE))

    def verdict_e_value(self) -> float:
        """The mixture's e-value at the look that refuted the claim (above 1/β), or now: later
        outputs may lower the wealth, never the refutation."""
        if self.refuting_log_evidence is None:
            return self.e_value()
        return math.exp(min(self.refuting_log_evidence, LARGEST_LOG_E_VALUE))

    @property
    def refuted(self) -> bool:
        """Whether the claim (the first grid point) has been rejected at some look."""
        return bool(self.rejected[0])

    def epsilon_lower_bound(self) -> float | None:
        """The largest ε' whose hypothesis, and every one below it, has been rejected."""
        held = np.flatnonzero(~self.rejected)
        rejected = len(self.epsilons) if held.size == 0 else int(held[0])
        return float(self.epsilons[rejected - 1]) if rejected else None

    def leader(self) -> int:
        """The arm with the most wealth against the claim."""
        return int(np.argmax(self.log_wealth[:, 0]))

    def samples_to_refute(self) -> int:
        """Betting outputs per side one arm needs before even a perfectly separating event (every
        output of P in it, none of Q, bet at the cap throughout) takes the mixture to 1/β: an arm
        with fewer could not have refuted the claim."""
        gamma, delta = self.gammas[0], self.delta
        growth = math.log1p(BET_CAP * (1 - delta) / (gamma + delta))
        return math.ceil(math.log(len(self.log_wealth) / self.beta) / growth)
