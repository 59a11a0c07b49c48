"""Hockey-stick tester: a fitted event, certified with Clopper–Pearson on held-out samples.

For an event S fitted on training samples, with p = P(S), q = Q(S) and exact one-sided
Clopper–Pearson bounds p_lo, q_hi at β/2 each on held-out samples (docs/explanation/statistics.md,
"one event"; Kong et al., DP-Auditorium §4.2, with exact binomial bounds in place of Hoeffding):

* H_{e^ε}(P ‖ Q) ≥ p_lo − e^ε q_hi, which refutes (ε, δ)-DP when it exceeds δ;
* ε ≥ ln((p_lo − δ) / q_hi) is certified at δ (pure DP: δ = 0);
* R_α(P ‖ Q) ≥ R_α(Bern(p_lo) ‖ Bern(q_hi)) by data processing, which refutes (α, ε)-RDP
  when it exceeds ε (see `bounds.binary_renyi`).

Both bounds hold together with probability ≥ 1 − β. The event is chosen on the training half by
the tester's `Selection` (`dpfuzz.testers.selection`; by default `EventSelection`: exact
intervals of 1-D outputs, an interval of a fitted score for vector outputs). No probability
floor: rare events are certified whenever the held-out counts support them.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal, TypeGuard

import numpy as np

from dpfuzz.claims import ApproxDP, Claim, ProfileClaim, RenyiDP, approx_dp
from dpfuzz.errors import InvalidArgument
from dpfuzz.testers.base import (
    Tester,
    TestResult,
    as_feature_matrix,
    check_beta,
    paired_matrices,
)
from dpfuzz.testers.bounds import (
    binary_renyi,
    bracketed_root,
    clopper_pearson_lower,
    clopper_pearson_upper,
    pure_dp_epsilon_lower,
)
from dpfuzz.testers.events import ScoreEvent
from dpfuzz.testers.selection import EventSelection, Selection
from dpfuzz.validation import check_choice

# Public methods that moved to the tester's selection, kept as deprecated aliases.
_MOVED_TO_SELECTION = ("choose_epsilon", "column_name", "describe_row", "gammas")


class HockeyStickTester(Tester):
    """Refute pure, approximate or Rényi DP with one held-out event.

    Parameters
    ----------
    classifier : how vector outputs are scored: ``"auto"`` (default: per-pattern likelihood
        ratios for discrete outputs, monotone steps in the released value within each pattern
        for mixed ones, and logistic regression on degree-2 features), one of ``"patterns"``,
        ``"monotone"``, ``"logistic"``, ``"boosting"`` (gradient-boosted trees), ``"mlp"``, any
        scikit-learn classifier, or a list of these; with several, the best on held-out training
        samples is used.
    objective : how training events are ranked for (ε, δ) claims. ``"epsilon"`` (default)
        maximises the Wilson-corrected ε lower bound they would certify; ``"divergence"``
        maximises the Wilson-corrected H_{e^ε} lower bound, which where no event violates the
        claim prefers near-empty events (H ≈ 0) and so weaker power statements
        (docs/explanation/statistics.md, "Audits rank events by ε and certify them per side").
    certificate : how the held-out counts certify a pure-DP claim. ``"per_side"`` (default):
        Clopper–Pearson bounds on P(S) and Q(S), each at β/2, as for every other claim;
        ``"privacy_loss"``: one joint exact bound on the event's privacy loss over both orders of
        the pair (`pure_dp_epsilon_lower`), about half the margin, which spends its β on
        exactly-tight mechanisms (what `estimate_epsilon` uses; docs/explanation/statistics.md).
    describe_output : words for an output pattern (its integer coordinates) in event
        descriptions, or None to show the row; audits pass the mechanism's `describe_output`
        to the tester they build. Its `columns`, if it has them, name the coordinates.
    rare_share : an exact output value that repeats in a mostly continuous sample is a candidate
        point event when it holds at most this share of the pooled sample, or when one side's
        share of it exceeds e^ε times the other's; 0 tries none
        (docs/decisions/0016-point-events.md, 0034).
    exact_points : point events whose training counts get the exact joint bound, at most (those
        whose counts differ most): more cost a root search each, fewer may rank a true atom
        below a lucky one (docs/decisions/0016-point-events.md).
    model_fit_samples : outputs per side a classifier is fitted on, and a coordinate's events
        searched on, at most (pattern and step counts use all): fewer fit worse events, more
        fit no better and slower (docs/decisions/0013-event-selection.md).
    selection : how the event is chosen (a `dpfuzz.testers.selection.Selection`), in place of
        the `EventSelection` the options above describe; the certificate is this tester's.
    """

    name = "hockey_stick"
    claim_types = (ApproxDP, RenyiDP, ProfileClaim)
    takes_output_words = True
    counts_events = True

    def __init__(
        self,
        classifier: str | object | list = "auto",
        objective: Literal["divergence", "epsilon"] = "epsilon",
        certificate: Literal["per_side", "privacy_loss"] = "per_side",
        describe_output: Callable[[np.ndarray], str | None] | None = None,
        rare_share: float = 0.01,
        exact_points: int = 16,
        model_fit_samples: int = 500_000,
        *,
        selection: Selection | None = None,
    ):
        self.classifier = classifier
        self.objective = objective
        self.certificate = certificate
        self.describe_output = describe_output
        self.rare_share, self.exact_points = rare_share, exact_points
        self.model_fit_samples = model_fit_samples
        self._selection = selection or EventSelection(
            classifier, objective, describe_output, rare_share, exact_points, model_fit_samples
        )

    @property
    def selection(self) -> Selection:
        """How this tester chooses its event on training outputs."""
        return self._selection

    def __getattr__(self, name: str) -> Any:
        if name in _MOVED_TO_SELECTION:
            warnings.warn(
                f"HockeyStickTester.{name} is deprecated; use tester.selection.{name}.",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(self.selection, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- contract ------------------------------------------------------------------------
    def check_claim(self, claim: Claim) -> None:
        super().check_claim(claim)
        check_choice("objective", self.objective, ("divergence", "epsilon"))
        check_choice("certificate", self.certificate, ("per_side", "privacy_loss"))

    def fit(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None = None,
    ) -> ScoreEvent:
        """Choose the event S (where P is large relative to Q) on training samples: the
        selection's candidates ranked by the bound they would certify on `eval_size` held-out
        samples per side (default: as many as the training samples)."""
        return self._fit_events(train0, train1, claim, beta, rng, eval_size, both=False)[0][0]

    def fit_both(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None = None,
    ) -> tuple:
        """The events `fit` chooses for (P, Q) = (train0, train1) and for (train1, train0). A
        selection that `shares_fits` fits each scoring model once: a model fitted with the labels
        swapped scores minus what it scored (`models.negated`), so only models without that
        symmetry are fitted twice; any other gets `fit` once per direction."""
        if not self.shares_fits:
            return super().fit_both(train0, train1, claim, beta, rng, eval_size=eval_size)
        return tuple(
            event
            for event, _ in self._fit_events(train0, train1, claim, beta, rng, eval_size, both=True)
        )

    @property
    def shares_fits(self) -> bool:
        """Whether `fit_both` shares each model's fit between the two directions (the
        selection's `shares_fits`)."""
        return self.selection.shares_fits

    def fit_oriented(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None = None,
    ) -> tuple[ScoreEvent, bool]:
        """Of the two events the selection chooses, the one whose selection value (the bound its
        training counts predict on `eval_size` held-out outputs per side) is larger, and whether
        it is the event for (P, Q) = (train1, train0): one pair oriented and its event chosen in
        one fit on all the training samples (`engine.search`, a plan with ``orient_by_fit``)."""
        (forward, forward_value), (backward, backward_value) = self._fit_events(
            train0, train1, claim, beta, rng, eval_size, both=True
        )
        return (backward, True) if backward_value > forward_value else (forward, False)

    def _fit_events(
        self, train0, train1, claim: Claim, beta: float, rng, eval_size, both: bool
    ) -> list[tuple[ScoreEvent, float]]:
        self.check_claim(claim)
        return self.selection.fit(train0, train1, claim, check_beta(beta), rng, eval_size, both)

    def fits_cheaply(self, outputs: np.ndarray) -> bool:
        """Outputs scored as one number each: their events are found by one sort
        (`best_intervals_both`)."""
        features = as_feature_matrix(self.features(np.asarray(outputs)[:1]), "outputs")
        return features.shape[1] == 1

    def event_options(self) -> dict:
        """The objective and the pure-DP certificate, shared with the float bit-pattern tester."""
        return {"objective": self.objective, "certificate": self.certificate}

    def features(self, samples: np.ndarray) -> np.ndarray:
        """The outputs as the tester's events read them (the selection's features)."""
        return self.selection.features(samples)

    def evaluate(
        self, event: ScoreEvent, test0: np.ndarray, test1: np.ndarray, claim: Claim, beta: float
    ) -> TestResult:
        """Certify the fitted event on held-out samples (never the ones it was fitted on)."""
        start = time.perf_counter()
        x0, x1 = paired_matrices(test0, test1)
        result = self.certify_counts(
            event,
            (self.in_event(event, x0), len(x0)),
            (self.in_event(event, x1), len(x1)),
            claim,
            beta,
        )
        return replace(result, seconds=time.perf_counter() - start)

    def in_event(self, event: ScoreEvent, samples: np.ndarray) -> int:
        """How many of the held-out `samples` fall in the fitted event: with `certify_counts`,
        `evaluate` on outputs drawn, counted and discarded a chunk at a time."""
        return event.count(as_feature_matrix(self.features(samples), "samples"))

    def event_mask(self, event: ScoreEvent, samples: np.ndarray) -> np.ndarray:
        """Which of `samples` fall in the fitted event, one bool each (`engine.race` bets on
        them)."""
        return event.contains(self.features(samples))

    def certify_counts(
        self,
        event: ScoreEvent,
        counts_p: tuple[int, int],
        counts_q: tuple[int, int],
        claim: Claim,
        beta: float,
    ) -> TestResult:
        """The certificate from held-out counts (k, n) of the event under P and under Q, so
        verification samples can be drawn and counted in chunks (any number of them)."""
        self.check_claim(claim)
        beta = check_beta(beta)
        (k_p, n_p), (k_q, n_q) = counts_p, counts_q
        if self._privacy_loss(claim):
            return _privacy_loss_result(self.name, event, counts_p, counts_q, claim, beta)
        p_lo = float(clopper_pearson_lower(k_p, n_p, beta / 2))
        q_hi = float(clopper_pearson_upper(k_q, n_q, beta / 2))
        divergence, bound, estimate, epsilon_lower_bound = _on_event(
            event, (p_lo, q_hi), (k_p / n_p, k_q / n_q), claim
        )
        return TestResult(
            tester=self.name,
            claim=claim,
            divergence=divergence,
            bound=bound,
            threshold=self.threshold(claim),
            epsilon_lower_bound=epsilon_lower_bound,
            estimate=estimate,
            beta=beta,
            event=event.describe(),
            num_samples=(n_p, n_q),
            details={"count_p": k_p, "count_q": k_q, "p_lower": p_lo, "q_upper": q_hi},
        )

    def _privacy_loss(self, claim: Claim) -> TypeGuard[ApproxDP]:
        """Whether `claim` is certified as a privacy loss: pure DP under
        ``certificate="privacy_loss"``."""
        return (
            self.certificate == "privacy_loss" and isinstance(claim, ApproxDP) and claim.delta == 0
        )

    def threshold(self, claim: Claim) -> float:
        if self._privacy_loss(claim):
            return claim.epsilon
        if isinstance(claim, ProfileClaim):
            return 0.0
        return claim.epsilon if isinstance(claim, RenyiDP) else approx_dp(claim).delta

    def score(self, result: TestResult) -> float:
        """With ``objective="epsilon"``: the held-out ε lower bound ln((p_lo − δ)/q_hi) (pure DP
        under ``certificate="privacy_loss"``: the joint bound), negative values kept (−∞ when p_lo ≤
        δ), so the search ranks pairs and directions by the ε they certify rather than by the
        hockey-stick divergence at the claim's ε."""
        if result.divergence == "privacy_loss":
            return result.bound
        if (
            self.objective != "epsilon"
            or not isinstance(result.claim, ApproxDP)
            or "p_lower" not in result.details
        ):
            return super().score(result)
        p_lo, q_hi, delta = result.details["p_lower"], result.details["q_upper"], result.claim.delta
        return math.log((p_lo - delta) / q_hi) if p_lo > delta and q_hi > 0 else -math.inf

    def score_name(self, claim: Claim) -> str:
        if self._privacy_loss(claim):
            return "held-out ε lower bound"
        if self.objective == "epsilon" and isinstance(claim, ApproxDP):
            return f"held-out ε lower bound at δ = {claim.delta:g}"
        return super().score_name(claim)

    def max_certifiable(self, claim: Claim, samples: int, beta: float) -> float:
        """The bound of an event holding every P-sample and no Q-sample."""
        if self._privacy_loss(claim):
            return pure_dp_epsilon_lower(samples, samples, 0, samples, beta)
        p_lo = float(clopper_pearson_lower(samples, samples, beta / 2))
        q_hi = float(clopper_pearson_upper(0, samples, beta / 2))
        if isinstance(claim, RenyiDP):
            return float(binary_renyi(p_lo, q_hi, claim.alpha))
        if isinstance(claim, ProfileClaim):
            return max(
                p_lo - math.exp(epsilon) * q_hi - delta for epsilon, delta in claim.profile_points()
            )
        return p_lo - math.exp(approx_dp(claim).epsilon) * q_hi

    def detectable(self, result: TestResult) -> dict:
        """What the same held-out counts under Q would have needed under P to refute the claim:
        `_detectable_divergence` for (ε, δ) claims, `_detectable_loss` for a privacy-loss result."""
        if result.divergence == "privacy_loss":
            return _detectable_loss(result)
        if not isinstance(result.claim, ApproxDP) or "q_upper" not in result.details:
            return super().detectable(result)
        return _detectable_divergence(result, result.claim)


def _on_event(
    event: ScoreEvent, bounds: tuple[float, float], plug_in: tuple[float, float], claim: Claim
) -> tuple[str, float, float, float | None]:
    """(divergence, its certified bound, its plug-in estimate, the certified ε) of `claim`'s
    divergence on one event, from the bounds (p_lo, q_hi) and the plug-in (p̂, q̂)."""
    (p_lo, q_hi), (p_hat, q_hat) = bounds, plug_in
    if isinstance(claim, RenyiDP):
        divergence = f"renyi(alpha={claim.alpha:g})"
        bound = float(binary_renyi(p_lo, q_hi, claim.alpha))
        estimate = float(binary_renyi(p_hat, q_hat, claim.alpha))
        epsilon_lower_bound = bound if bound > 0 else None
    elif isinstance(claim, ProfileClaim):  # H_{e^ε} − δ(ε) at the event's ε; the claim allows 0
        epsilon = event.epsilon
        if epsilon is None:
            raise InvalidArgument(
                "a privacy-profile claim certifies an event fitted for it, at its ε; this"
                " event has none: fit it with this tester and claim."
            )
        gamma, allowed = math.exp(epsilon), claim.delta_at(epsilon)
        divergence = f"hockey_stick(gamma={gamma:.6g}) - delta({epsilon:.4g})"
        bound = p_lo - gamma * q_hi - allowed
        estimate = p_hat - gamma * q_hat - allowed
        epsilon_lower_bound = certified_epsilon(p_lo, q_hi, allowed)
    else:
        approx = approx_dp(claim)
        gamma = math.exp(approx.epsilon)
        divergence = f"hockey_stick(gamma={gamma:.6g})"
        bound = p_lo - gamma * q_hi
        estimate = p_hat - gamma * q_hat
        epsilon_lower_bound = certified_epsilon(p_lo, q_hi, approx.delta)
    return divergence, bound, estimate, epsilon_lower_bound


def _privacy_loss_result(
    tester: str, event: ScoreEvent, counts_p, counts_q, claim: ApproxDP, beta: float
) -> TestResult:
    """Pure DP, ``certificate="privacy_loss"``: the event's privacy loss over both orders of the
    pair, bounded jointly (`pure_dp_epsilon_lower`); its plug-in is the larger of ln(p̂/q̂) on
    the event and ln((1 − q̂)/(1 − p̂)) on its complement."""
    (k_p, n_p), (k_q, n_q) = counts_p, counts_q
    bound = pure_dp_epsilon_lower(k_p, n_p, k_q, n_q, beta)
    p_hat, q_hat = k_p / n_p, k_q / n_q
    estimate = max(_log_ratio(p_hat, q_hat), _log_ratio(1 - q_hat, 1 - p_hat))
    return TestResult(
        tester=tester,
        claim=claim,
        divergence="privacy_loss",
        bound=bound,
        threshold=claim.epsilon,
        epsilon_lower_bound=bound if bound > 0 else None,
        estimate=estimate,
        beta=beta,
        event=event.describe(),
        num_samples=(n_p, n_q),
        details={"count_p": k_p, "count_q": k_q},
    )


def _detectable_divergence(result: TestResult, claim: ApproxDP) -> dict:
    """`HockeyStickTester.detectable` for an (ε, δ) result: p* with CP_lower(p*·n, n) =
    δ + e^ε·q_hi, as the divergence p* − e^ε q̂ and the loss ln((p* − δ)/q̂) on the event."""
    n_p, n_q = result.num_samples
    gamma, alpha = math.exp(claim.epsilon), result.beta / 2
    q_hat, q_hi = result.details["count_q"] / n_q, result.details["q_upper"]
    needed = claim.delta + gamma * q_hi
    power = {
        "divergence": result.divergence,
        "claim_allows": claim.delta,
        "samples": int(min(n_p, n_q)),
        "epsilon": None,
    }
    if float(clopper_pearson_lower(n_p, n_p, alpha)) <= needed:
        # whether more outputs could have refuted on this event: δ + e^ε q̂ < 1
        return {
            **power,
            "value": math.inf,
            "more_outputs_help": claim.delta + gamma * q_hat < 1,
            "q_share": q_hat,
        }
    p_star = bracketed_root(
        lambda p: float(clopper_pearson_lower(p * n_p, n_p, alpha)) - needed, needed, 1.0
    )
    epsilon = math.log((p_star - claim.delta) / q_hat) if q_hat > 0 else None
    return {**power, "value": p_star - gamma * q_hat, "epsilon": epsilon}


def _detectable_loss(result: TestResult) -> dict:
    """`HockeyStickTester.detectable` for a privacy-loss result: the fewest outputs under P in the
    event (by bisection: the joint bound grows with them) that `pure_dp_epsilon_lower` certifies
    above the claim's ε with the count under Q held, as the plug-in loss at them (the larger of
    ln(p*/q̂) on the event and ln((1 − q̂)/(1 − p*)) on its complement). An event that held no
    output under Q has an unbounded plug-in loss: the count needed is stated instead."""
    (n_p, n_q), k_q, claimed = result.num_samples, result.details["count_q"], result.threshold
    power = {
        "divergence": result.divergence,
        "claim_allows": claimed,
        "samples": int(min(n_p, n_q)),
        "epsilon": None,
    }

    def certifies(k_p: int) -> bool:
        return pure_dp_epsilon_lower(k_p, n_p, k_q, n_q, result.beta) > claimed

    if not certifies(n_p):
        return {**power, "value": math.inf}
    # certifies(high), and not certifies(low): a loss ≤ 0
    low, high = (
        min(int(k_q * n_p / n_q), n_p - 1),
        n_p,
    )
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if certifies(middle) else (middle, high)
    if k_q == 0:
        return {**power, "value": None, "count_p_needed": high}
    p_star, q_hat = high / n_p, k_q / n_q
    # as `estimate` in the result
    value = max(_log_ratio(p_star, q_hat), _log_ratio(1 - q_hat, 1 - p_star))
    return {**power, "value": value, "epsilon": value, "count_p_needed": high}


def _log_ratio(a: float, b: float) -> float:
    """ln(a / b) for probabilities, with ln(0/·) = −∞ and ln(a/0) = ∞ for a > 0."""
    if a <= 0:
        return -math.inf
    return math.log(a / b) if b > 0 else math.inf


def certified_epsilon(p_lo: float, q_hi: float, delta: float) -> float | None:
    """ε_lb = ln((p_lo − δ) / q_hi), or None when it is not positive."""
    if p_lo <= delta or q_hi <= 0:
        return None
    value = math.log((p_lo - delta) / q_hi)
    return value if value > 0 else None
