"""What a tester's search ranks candidate events by: the training score of each event (an
interval of a score, a tail, an exact value), from its counts under P and under Q.

An objective is called as ``objective(k_p, k_q, n_p, n_q, candidates=1, rare=False)`` on arrays
of counts (k of n outputs in each candidate event), with the number of candidates compared and
whether they are point events, and returns one value per candidate (higher: closer to a
refutation). `events.best_interval` searches intervals with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy import special

from dpfuzz.claims import ApproxDP, Claim, ProfileClaim, RenyiDP, approx_dp
from dpfuzz.testers.bounds import binary_renyi, pure_dp_epsilon_lower, wilson_lower, wilson_upper


class Objective(Protocol):
    """A score per candidate event, larger closer to a refutation. `candidates`: how many events
    the scored ones were picked among, for objectives that correct for the winner's curse
    (`best_interval`: 1 for the nested tails, the number of cut points for intervals chosen by a
    maximum-subarray search, the number of atoms for point events). `rare`: the candidates are
    point events, whose counts may be small and zero on one side."""

    def __call__(
        self,
        k_p: np.ndarray,
        k_q: np.ndarray,
        n_p: float,
        n_q: float,
        candidates: int = 1,
        rare: bool = False,
    ) -> np.ndarray: ...


@dataclass(frozen=True)
class DivergenceObjective:
    """``objective="divergence"`` (and claims the ε objective does not take): the bound each
    event would certify on the claim's divergence (Wilson, at β/2 per side), at the held-out
    size `eval_size` with the training proportions. For a privacy-profile claim the best over
    its ε grid of H_{e^ε} − δ(ε) (`per_epsilon`: the value at each grid point, one column each)."""

    claim: Claim
    beta: float
    eval_size: int | None
    per_epsilon: bool = False

    def __call__(
        self,
        k_p: np.ndarray,
        k_q: np.ndarray,
        n_p: float,
        n_q: float,
        candidates: int = 1,
        rare: bool = False,
    ) -> np.ndarray:
        claim, eval_size = self.claim, self.eval_size
        if eval_size is not None:  # same proportions, held-out sample size
            k_p, k_q, n_p, n_q = (
                k_p * (eval_size / n_p),
                k_q * (eval_size / n_q),
                eval_size,
                eval_size,
            )
        p_lo, q_hi = wilson_lower(k_p, n_p, self.beta / 2), wilson_upper(k_q, n_q, self.beta / 2)
        if isinstance(claim, RenyiDP):
            return binary_renyi(p_lo, q_hi, claim.alpha)
        if isinstance(claim, ProfileClaim):
            points = claim.profile_points()
            if self.per_epsilon:
                return np.stack(
                    [p_lo - math.exp(epsilon) * q_hi - delta for epsilon, delta in points],
                    axis=-1,
                )
            best = np.full(np.shape(p_lo), -np.inf)
            for epsilon, delta in points:  # a running maximum: O(candidates) memory
                best = np.maximum(best, p_lo - math.exp(epsilon) * q_hi - delta)
            return best
        return p_lo - math.exp(approx_dp(claim).epsilon) * q_hi


@dataclass(frozen=True)
class EpsilonObjective:
    """``objective="epsilon"``: each candidate event's predicted held-out bound
    ln((p_lo − δ)/q_hi).

    The tails of 1-D outputs (scored as one candidate each) are predicted at β/2 over
    `tail_scales`, the dyadic scales of their counts (log2 of the outputs): a peeling bound over
    a nested family, whose deviations at small counts are not small beside the count itself, so
    that a lucky far tail does not outrank the bulk when the held-out sample is much larger than
    the training one. Where no event is predicted a positive bound, the ranking by clearance keeps
    the uncorrected level, so that tiny lucky intervals do not outrank the tails
    (docs/decisions/0013-event-selection.md, "Evidence moved from the code")."""

    claim: ApproxDP
    beta: float
    eval_size: int | None
    tail_scales: int = 1
    exact_points: int = 16

    def __call__(
        self,
        k_p: np.ndarray,
        k_q: np.ndarray,
        n_p: float,
        n_q: float,
        candidates: int = 1,
        rare: bool = False,
    ) -> np.ndarray:
        # A ratio rewards tiny events: the luckiest of the ~n intervals a maximum-subarray search
        # compares wins on training data alone, so its bounds are Bonferroni-level over them.
        # Nested tails need no such correction in the bulk (the largest deviation over a nested
        # family grows like √(log log n)), and correcting a vector output's score tails costs a
        # quarter of the certified ε on discrete outputs. 1-D outputs' far tails are peeled
        # (`tail_scales`). The margins tried: docs/decisions/0013-event-selection.md.
        alpha = self.beta / 2 / candidates
        predicting = alpha / self.tail_scales if candidates == 1 else alpha
        if self.eval_size is None:
            value = self._bound(k_p, n_p, k_q, n_q, predicting)
        else:
            # Pessimistic p and q from the training counts, then the bound they would give on
            # the held-out size: scaling the counts alone would trust a training count of 0 as
            # an exact 0, and a larger held-out sample would pick a lucky tiny event.
            n = self.eval_size
            predicted = self._bound(
                wilson_lower(k_p, n_p, predicting) * n,
                n,
                wilson_upper(k_q, n_q, predicting) * n,
                n,
                self.beta / 2,
            )
            # Where no event is predicted a positive bound that way (a small effect on few
            # training samples), rank the events by their chance of a positive held-out bound
            # instead, mapped into (−1, 0) so that any positive prediction still wins: a search
            # then still tells the pairs apart (docs/decisions/0013-event-selection.md).
            clearance = self._clearance(k_p, n_p, k_q, n_q, alpha, n)
            value = np.where(predicted > 0, predicted, -special.expit(-clearance))
        if rare:
            # Point events (an exact value one side releases more often) have few outputs, often
            # none on one side, where the per-side prediction above is loosest: one predicts at
            # least what the training counts' exact joint bound certifies (the held-out sample
            # is as large or larger; docs/decisions/0016-point-events.md).
            value = np.maximum(value, self._exact(k_p, n_p, k_q, n_q, alpha))
        # The whole output space (every sample on both sides) can certify no positive ε.
        return np.where((k_p == n_p) & (k_q == n_q), -np.inf, value)

    def _log_ratio(self, p_lo, q_hi) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (p_lo - self.claim.delta) / q_hi
        return np.where(ratio > 0, np.log(np.maximum(ratio, 1e-300)), -np.inf)

    def _bound(self, k_p, n_p, k_q, n_q, alpha) -> np.ndarray:
        # Under certificate="privacy_loss" pure DP is certified by the joint bound
        # (`pure_dp_epsilon_lower`), whose margin is about half this one's; candidates are still
        # ranked by the per-side margins, which choose better events and pairs than the joint
        # bound's normal approximation (docs/decisions/0013-event-selection.md).
        return self._log_ratio(wilson_lower(k_p, n_p, alpha), wilson_upper(k_q, n_q, alpha))

    def _clearance(self, k_p, n_p, k_q, n_q, alpha, eval_size) -> np.ndarray:
        """Standard errors by which the held-out ln(p̂/q̂) is expected to clear the certified
        bound's margin z_α: the bound is positive about when ln(p̂/q̂) > z_α·se (delta method on
        ½-smoothed proportions, se at the held-out size), so a larger clearance is a larger
        chance of certifying a positive ε."""
        delta = self.claim.delta
        p, q = (k_p + 0.5) / (n_p + 1), (k_q + 0.5) / (n_q + 1)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            se = np.sqrt((p * (1 - p) / (p - delta) ** 2 + (1 - q) / q) / eval_size)
            margin = np.where(p > delta, np.log((p - delta) / q) / se, -np.inf)
        return margin + special.ndtri(alpha)  # − stats.norm.isf(alpha), without its argument checks

    def _exact(self, k_p, n_p, k_q, n_q, alpha) -> np.ndarray:
        """The training counts' own exact joint bound on the privacy loss (pure DP only), for the
        `exact_points` candidates whose counts differ most (each bound is a root search)."""
        k_p, k_q = np.ravel(k_p), np.ravel(k_q)
        bounds = np.full(len(k_p), -np.inf)
        if self.claim.delta > 0:
            return bounds
        lead = (k_p / n_p - k_q / n_q) / np.sqrt((k_p + 1) / n_p**2 + (k_q + 1) / n_q**2)
        for index in np.argsort(-lead, kind="stable")[: self.exact_points]:
            bounds[index] = pure_dp_epsilon_lower(
                int(k_p[index]), n_p, int(k_q[index]), n_q, 2 * alpha
            )
        return bounds
