"""Hockey-stick tester: a fitted event, certified with Clopper–Pearson on held-out samples.

For an event S fitted on training samples, with p = P(S), q = Q(S) and exact one-sided
Clopper–Pearson bounds p_lo, q_hi at β/2 each on held-out samples (docs/explanation/statistics.md,
"one event"; Kong et al., DP-Auditorium §4.2, with exact binomial bounds in place of Hoeffding):

* H_{e^ε}(P ‖ Q) ≥ p_lo − e^ε q_hi, which refutes (ε, δ)-DP when it exceeds δ;
* ε ≥ ln((p_lo − δ) / q_hi) is certified at δ (pure DP: δ = 0);
* R_α(P ‖ Q) ≥ R_α(Bern(p_lo) ‖ Bern(q_hi)) by data processing, which refutes (α, ε)-RDP
  when it exceeds ε (see `bounds.binary_renyi`).

Both bounds hold together with probability ≥ 1 − β. The event is chosen on the training half:
for 1-D outputs, exactly over all thresholds, intervals and interval complements
(`events.best_interval`); for vector outputs, as an interval of a fitted score
(`models.candidate_models`), the model and interval chosen on a split of the training half.
No probability floor: rare events are certified whenever the held-out counts support them.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, TypeGuard, cast

import numpy as np

from dpfuzz.claims import ApproxDP, Claim, ProfileClaim, RenyiDP, approx_dp
from dpfuzz.errors import InvalidArgument
from dpfuzz.testers.base import (
    Tester,
    TestResult,
    as_feature_matrix,
    check_beta,
    paired_matrices,
    split_halves,
)
from dpfuzz.testers.bounds import (
    binary_renyi,
    bracketed_root,
    clopper_pearson_lower,
    clopper_pearson_upper,
    pure_dp_epsilon_lower,
)
from dpfuzz.testers.events import (
    Coordinate,
    OutputValue,
    ScoreEvent,
    best_interval,
    best_intervals_both,
)
from dpfuzz.testers.objectives import DivergenceObjective, EpsilonObjective, Objective
from dpfuzz.validation import check_choice

# Extra orders tried for intervals, as multiples of the claim's e^ε: events with larger
# likelihood ratios than the claim's boundary can be easier to certify.
_GAMMA_LADDER = (1.0, math.exp(0.5), math.e, math.exp(2.0))


@dataclass(frozen=True)
class _Training:
    """What vector outputs' candidate models are fitted and scored on (`_training`)."""

    specs: list
    features: np.ndarray | None  # the fitting halves' rows, P's first (None: `distinct` only)
    labels: np.ndarray | None  # 1 for P's rows, 0 for Q's
    distinct: tuple | None  # the distinct fitting rows, their labels and counts
    scores: Callable  # model -> (scores of P's selection outputs, of Q's, their weights)
    first_side: int  # rows of P's fitting half
    discrete: bool


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
    ):
        self.classifier = classifier
        self.objective = objective
        self.certificate = certificate
        self.describe_output = describe_output
        self.rare_share, self.exact_points, self.model_fit_samples = (
            rare_share,
            exact_points,
            model_fit_samples,
        )

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
        """Choose the event S (where P is large relative to Q) on training samples.

        Candidates are ranked by the bound they would certify on `eval_size` held-out samples
        per side (default: as many as the training samples), predicted with Wilson bounds.
        """
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
        """The events `fit` chooses for (P, Q) = (train0, train1) and for (train1, train0), with
        one fit of each scoring model: a model fitted with the labels swapped scores minus what
        it scored (`models.negated`), so only models without that symmetry are fitted twice. A
        subclass that overrides `fit` (e.g. `HistogramTester`) gets its `fit` once per direction."""
        if not self.shares_fits:
            return super().fit_both(train0, train1, claim, beta, rng, eval_size=eval_size)
        return tuple(
            event
            for event, _ in self._fit_events(train0, train1, claim, beta, rng, eval_size, both=True)
        )

    @property
    def shares_fits(self) -> bool:
        """Whether `fit` is this class's own, so that `fit_both` shares each model's fit between
        the two directions and `fit_oriented` chooses what `fit` would (not in a subclass that
        overrides `fit`, e.g. `HistogramTester`)."""
        return type(self).fit is HockeyStickTester.fit

    def fit_oriented(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None = None,
    ) -> tuple[ScoreEvent, bool]:
        """Of the two events `fit_both` chooses, the one whose selection value (the bound its
        training counts predict on `eval_size` held-out outputs per side) is larger, and whether
        it is the event for (P, Q) = (train1, train0): one pair oriented and its event chosen in
        one fit on all the training samples (`engine.search`, a plan with ``orient_by_fit``)."""
        (forward, forward_value), (backward, backward_value) = self._fit_events(
            train0, train1, claim, beta, rng, eval_size, both=True
        )
        return (backward, True) if backward_value > forward_value else (forward, False)

    def fits_cheaply(self, outputs: np.ndarray) -> bool:
        """Outputs scored as one number each: their events are found by one sort
        (`best_intervals_both`)."""
        features = as_feature_matrix(self.features(np.asarray(outputs)[:1]), "outputs")
        return features.shape[1] == 1

    def event_options(self) -> dict:
        """The objective and the pure-DP certificate, shared with the float bit-pattern tester."""
        return {"objective": self.objective, "certificate": self.certificate}

    def column_name(self, column: int) -> str | None:
        """The output coordinate's name, where `describe_output` carries `columns` (a structured
        output's, `dpfuzz.outputs.OutputWords`)."""
        columns = getattr(self.describe_output, "columns", None)
        return columns[column] if columns is not None and column < len(columns) else None

    def features(self, samples: np.ndarray) -> np.ndarray:
        """The outputs as the tester scores them (here: as they are)."""
        return samples

    def _fit_events(
        self, train0, train1, claim: Claim, beta: float, rng, eval_size, both: bool
    ) -> list[tuple[ScoreEvent, float]]:
        """The fitted event for (train0, train1), and with `both` for (train1, train0) after it,
        each with its selection value."""
        self.check_claim(claim)
        beta = check_beta(beta)
        x0, x1 = paired_matrices(self.features(train0), self.features(train1), keep_integers=True)
        if x0.shape[1] == 1:
            x0, x1 = x0.astype(float, copy=False), x1.astype(float, copy=False)
        gammas = self.gammas(claim)
        directions = [(x0, x1), (x1, x0)] if both else [(x0, x1)]
        # the tails of 1-D outputs, and of each coordinate, scored as a peeled family
        # (`EpsilonObjective`)
        one_d = self._selection_objective(
            claim, beta, eval_size, tail_scales=max(1, int(math.log2(len(x0) + len(x1))))
        )
        if x0.shape[1] == 1:
            objective = one_d
            fitted = _value_intervals(x0[:, 0], x1[:, 0], objective, gammas, both, self.rare_share)
            events = [(ScoreEvent(OutputValue(), interval), value) for interval, value in fitted]
        else:
            objective = self._selection_objective(claim, beta, eval_size)
            events = self._fit_scored_events(x0, x1, objective, one_d, gammas, rng, both)
        return [
            (self.choose_epsilon(event, p, q, claim, beta, eval_size), value)
            for (event, value), (p, q) in zip(events, directions)
        ]

    def gammas(self, claim: Claim) -> list[float]:
        """The likelihood-ratio levels at which intervals are searched: around e^ε of the claim, or
        across a privacy-profile claim's ε grid."""
        if isinstance(claim, ProfileClaim):
            return [math.exp(epsilon) for epsilon in claim.epsilon_grid()[::4]]
        epsilon = claim.epsilon if isinstance(claim, RenyiDP) else approx_dp(claim).epsilon
        return [math.exp(epsilon) * factor for factor in _GAMMA_LADDER]

    def choose_epsilon(
        self,
        event: ScoreEvent,
        x0: np.ndarray,
        x1: np.ndarray,
        claim: Claim,
        beta: float,
        eval_size: int | None,
    ) -> ScoreEvent:
        """For a privacy-profile claim (μ-GDP, ρ-zCDP): the ε on the claim's grid at which the
        fitted event's training counts predict the largest H_{e^ε} − δ(ε), fixed with the event
        before any held-out sample is seen. Other claims: the event unchanged."""
        if not isinstance(claim, ProfileClaim):
            return event
        objective = self._selection_objective(claim, beta, eval_size, per_epsilon=True)
        values = objective(
            np.array([event.count(x0)]), np.array([event.count(x1)]), len(x0), len(x1)
        )
        return replace(event, epsilon=claim.epsilon_grid()[int(np.argmax(values[0]))])

    def describe_row(self, row: np.ndarray) -> str | None:
        """How an output pattern is shown in event descriptions: `describe_output`'s words for it
        (the mechanism's, `dpfuzz.mechanism.output_words`), else None: the row itself."""
        return None if self.describe_output is None else self.describe_output(row)

    def _fit_scored_events(
        self, x0, x1, objective, one_d, gammas, rng: np.random.Generator, both: bool
    ) -> list[tuple[ScoreEvent, float]]:
        """Vector outputs: each candidate model is fitted on half of the training samples; the
        model and its score interval are chosen on the other half, by the same objective. With
        `both`, also the event for (x1, x0), from the same fits where a model allows it
        (the split and the variants tried: docs/decisions/0013-event-selection.md). Continuous
        outputs' coordinates are candidates too, each searched as a 1-D output is, by the 1-D
        objective `one_d` on the training samples (at most `model_fit_samples` per side, which
        bounds the sorts; docs/decisions/0018-coordinate-events.md).
        Scikit-learn is imported here, by the first vector output."""
        from dpfuzz.testers.models import ModelScore, score_variants

        training = self._training(x0, x1, int(rng.integers(2**31 - 1)))
        best: list[tuple[float, ScoreEvent | None]] = [(-np.inf, None)] * (2 if both else 1)
        for spec in training.specs:
            # a model, or for monotone steps the fitted steps and their smoothed copy
            for model in score_variants(self._fitted(spec, training)):
                for index, (fitted, scores_p, scores_q, weights) in enumerate(
                    self._scored(spec, model, training, both)
                ):
                    interval, value = best_interval(scores_p, scores_q, objective, gammas, weights)
                    if best[index][1] is None or value > best[index][0]:
                        best[index] = (
                            value,
                            ScoreEvent(ModelScore(fitted, self.describe_row), interval),
                        )
        if not training.discrete:  # a coordinate's tails and values, which a score can blur
            self._coordinate_events(x0, x1, one_d, gammas, both, best)
        # every direction has an event: there is always a candidate model
        return [(cast(ScoreEvent, event), value) for value, event in best]

    def _training(self, x0: np.ndarray, x1: np.ndarray, seed: int) -> _Training:
        """The candidate models and the rows they are fitted on, from the first half of each
        sample, and how a model scores the second halves. Discrete outputs: every model that
        takes sample weights is fitted on the distinct rows weighted by their counts, the same
        fit as on all rows, in milliseconds, and the distinct rows are scored once, each standing
        for its count of selection outputs. Integer outputs arrive as integers
        (`paired_matrices`), so the rows are counted without a float copy of the samples."""
        from dpfuzz.testers.models import (
            DiscreteHalves,
            candidate_models,
            classifier_score,
            is_discrete,
            takes_weights,
        )

        (fit0, select0), (fit1, select1) = split_halves(x0), split_halves(x1)
        step = max(1, (len(fit0) + len(fit1)) // 200_000)  # the rows `is_discrete` would inspect
        table = (
            DiscreteHalves.split(x0, x1)
            if is_discrete(np.concatenate([fit0[::step], fit1[::step]]))
            else None
        )
        specs = [] if table is None else candidate_models(self.classifier, table.rows, seed)
        if table is not None and all(takes_weights(spec) for spec in specs):

            def on_rows(model):  # (scores of P's and Q's selection outputs, their weights)
                scored = classifier_score(model, table.rows)
                return scored, scored, table.selection

            # never fitted on all rows
            return _Training(specs, None, None, table.fitting, on_rows, len(fit0), True)
        fit0, select0, fit1, select1 = (
            half.astype(float, copy=False) for half in (fit0, select0, fit1, select1)
        )
        features = np.concatenate([fit0, fit1])
        labels = np.concatenate([np.ones(len(fit0), dtype=int), np.zeros(len(fit1), dtype=int)])
        if table is None:
            specs = candidate_models(self.classifier, features, seed)

        def on_halves(model):
            return classifier_score(model, select0), classifier_score(model, select1), None

        distinct = None if table is None else table.fitting
        return _Training(specs, features, labels, distinct, on_halves, len(fit0), table is not None)

    def _scored(self, spec, model, training: _Training, both: bool) -> list[tuple]:
        """(model, scores of P's selection outputs, of Q's, their weights) for `model`, and with
        `both` the same for (Q, P): `model` negated where it can be, else a copy of `spec`
        fitted with the labels flipped."""
        from sklearn.base import clone

        from dpfuzz.testers.models import negated

        scores0, scores1, weights = training.scores(model)
        scored = [(model, scores0, scores1, weights)]
        if not both:
            return scored
        swapped = None if weights is None else weights[::-1]
        reverse = negated(model)
        if reverse is not None:
            return [*scored, (reverse, -scores1, -scores0, swapped)]
        distinct, labels = training.distinct, training.labels
        flipped = replace(
            training,
            labels=None if labels is None else 1 - labels,
            distinct=None if distinct is None else (distinct[0], 1 - distinct[1], distinct[2]),
        )
        reverse = self._fitted(clone(spec), flipped)
        on0, on1, _ = training.scores(reverse)
        return [*scored, (reverse, on1, on0, swapped)]

    def _coordinate_events(self, x0, x1, one_d, gammas, both: bool, best: list) -> None:
        """Raise `best` (a (value, event) per direction) to any coordinate's tail, interval or
        exact value that scores higher, searched as a 1-D output is."""
        for column in range(x0.shape[1]):
            p, q = (x[: self.model_fit_samples, column].astype(float, copy=False) for x in (x0, x1))
            for index, (interval, value) in enumerate(
                _value_intervals(p, q, one_d, gammas, both, self.rare_share)
            ):
                if value > best[index][0]:
                    best[index] = (
                        value,
                        ScoreEvent(Coordinate(column, self.column_name(column)), interval),
                    )

    def _fitted(self, model, training: _Training):
        """`model` fitted on the training rows (on the distinct rows, weighted, when the
        training has them and the model takes weights)."""
        from sklearn.exceptions import ConvergenceWarning

        from dpfuzz.testers.models import MonotonePatternScore, PatternScore, fit_weighted

        features, labels, first_side = training.features, training.labels, training.first_side
        with warnings.catch_warnings():  # a score needs no converged optimiser, only a good one
            warnings.simplefilter("ignore", ConvergenceWarning)
            if training.distinct is None or not fit_weighted(model, *training.distinct):
                assert features is not None and labels is not None  # given without `distinct`
                # Pattern and step counts use the whole fitting half, a classifier at most
                # `model_fit_samples` per side: its fit time grows with n, its score stops
                # improving much sooner.
                rows = slice(None)
                if not isinstance(model, (PatternScore, MonotonePatternScore)):
                    capped = (
                        min(first_side, self.model_fit_samples),
                        min(len(features) - first_side, self.model_fit_samples),
                    )
                    rows = np.r_[: capped[0], first_side : first_side + capped[1]]
                model.fit(features[rows], labels[rows])
        return model

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
            return self._certify_privacy_loss(event, counts_p, counts_q, claim, beta)
        p_lo = float(clopper_pearson_lower(k_p, n_p, beta / 2))
        q_hi = float(clopper_pearson_upper(k_q, n_q, beta / 2))
        p_hat, q_hat = k_p / n_p, k_q / n_q
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

    def _certify_privacy_loss(
        self, event, counts_p, counts_q, claim: ApproxDP, beta: float
    ) -> TestResult:
        """Pure DP, ``certificate="privacy_loss"``: the event's privacy loss over both orders of the
        pair, bounded jointly (`pure_dp_epsilon_lower`); its plug-in is the larger of ln(p̂/q̂) on
        the event and ln((1 − q̂)/(1 − p̂)) on its complement."""
        (k_p, n_p), (k_q, n_q) = counts_p, counts_q
        bound = pure_dp_epsilon_lower(k_p, n_p, k_q, n_q, beta)
        p_hat, q_hat = k_p / n_p, k_q / n_q
        estimate = max(_log_ratio(p_hat, q_hat), _log_ratio(1 - q_hat, 1 - p_hat))
        return TestResult(
            tester=self.name,
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
        """For (ε, δ) claims: the smallest P(S) the same counts under Q would have needed,
        p* with CP_lower(p*·n, n) = δ + e^ε·q_hi, stated as the hockey-stick divergence p* − e^ε q̂
        on the event and as the privacy loss ln((p* − δ)/q̂) on it. A privacy-loss result (pure DP,
        ``certificate="privacy_loss"``): the smallest plug-in loss on the event whose count under P
        the joint bound would have certified above the claim, the count under Q held.
        """
        if result.divergence == "privacy_loss":
            return _detectable_loss(result)
        if not isinstance(result.claim, ApproxDP) or "q_upper" not in result.details:
            return super().detectable(result)
        claim, (n_p, n_q) = result.claim, result.num_samples
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
            }
        p_star = bracketed_root(
            lambda p: float(clopper_pearson_lower(p * n_p, n_p, alpha)) - needed, needed, 1.0
        )
        epsilon = math.log((p_star - claim.delta) / q_hat) if q_hat > 0 else None
        return {**power, "value": p_star - gamma * q_hat, "epsilon": epsilon}

    # -- internals -------------------------------------------------------------------------
    def _selection_objective(
        self,
        claim: Claim,
        beta: float,
        eval_size: int | None,
        per_epsilon: bool = False,
        tail_scales: int = 1,
    ) -> Objective:
        """Training score of each candidate event (`dpfuzz.testers.objectives`): with
        ``objective="epsilon"`` and an (ε, δ) claim, the held-out ε bound it predicts; else the
        bound on the claim's divergence it would certify. `per_epsilon`, `tail_scales`: see
        there."""
        if self.objective == "epsilon" and isinstance(claim, ApproxDP):
            return EpsilonObjective(claim, beta, eval_size, tail_scales, self.exact_points)
        return DivergenceObjective(claim, beta, eval_size, per_epsilon)


def _value_intervals(
    x_p: np.ndarray, x_q: np.ndarray, objective, gammas, both: bool, rare_share: float
) -> list:
    """The best interval (or exact value) of 1-D values for (x_p, x_q), and with `both` for
    (x_q, x_p) after it, each with its objective value."""
    if both:
        return best_intervals_both(x_p, x_q, objective, gammas, rare_share=rare_share)
    return [best_interval(x_p, x_q, objective, gammas, rare_share=rare_share)]


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
