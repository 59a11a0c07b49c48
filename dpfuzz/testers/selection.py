"""Event selection: the one event a tester certifies, chosen on training outputs.

A one-event tester (`HockeyStickTester` and the testers built on its certificate) composes a
`Selection`: it maps outputs to the features its events read, and chooses the event on the
training half. `EventSelection` is the default. For 1-D outputs it searches exactly over all
thresholds, intervals and interval complements (`events.best_interval`); for vector outputs it
takes an interval of a fitted score (`models.candidate_models`), the model and interval chosen on
a split of the training half (docs/decisions/0013-event-selection.md), and each coordinate's
events beside them (docs/decisions/0018-coordinate-events.md).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, Protocol, cast

import numpy as np

from dpfuzz.claims import ApproxDP, Claim, ProfileClaim, RenyiDP, approx_dp
from dpfuzz.testers.base import paired_matrices, split_halves
from dpfuzz.testers.events import (
    Coordinate,
    OutputValue,
    ScoreEvent,
    best_interval,
    best_intervals_both,
)
from dpfuzz.testers.objectives import DivergenceObjective, EpsilonObjective, Objective

# Extra orders tried for intervals, as multiples of the claim's e^ε: events with larger
# likelihood ratios than the claim's boundary can be easier to certify.
_GAMMA_LADDER = (1.0, math.exp(0.5), math.e, math.exp(2.0))


class Selection(Protocol):
    """How a one-event tester chooses its event.

    `fit` returns the event for (train0, train1), and with `both` the event for (train1, train0)
    after it, each with its selection value (the bound its training counts predict on
    `eval_size` held-out outputs per side). `shares_fits` says whether one `fit` with `both`
    serves both directions (else the tester fits each direction on its own).
    """

    @property
    def shares_fits(self) -> bool: ...

    def features(self, samples: np.ndarray) -> np.ndarray:
        """The outputs as the events read them."""
        ...

    def fit(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None,
        both: bool,
    ) -> list[tuple[ScoreEvent, float]]: ...


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


@dataclass(frozen=True, eq=False)
class EventSelection:
    """The default selection; its fields are `HockeyStickTester`'s options of the same names.

    `feature_map` maps outputs to the features events read (default: the outputs themselves);
    `row_words` names an output pattern in event descriptions in place of `describe_output`
    (the float bit-pattern tester's words for bit patterns).
    """

    classifier: str | object | list = "auto"
    objective: Literal["divergence", "epsilon"] = "epsilon"
    describe_output: Callable[[np.ndarray], str | None] | None = None
    rare_share: float = 0.01
    exact_points: int = 16
    model_fit_samples: int = 500_000
    feature_map: Callable[[np.ndarray], np.ndarray] | None = None
    row_words: Callable[[np.ndarray], str | None] | None = None
    shares_fits: ClassVar[bool] = True

    def features(self, samples: np.ndarray) -> np.ndarray:
        return samples if self.feature_map is None else self.feature_map(samples)

    def describe_row(self, row: np.ndarray) -> str | None:
        """How an output pattern is shown in event descriptions: `row_words`, else
        `describe_output`'s words for it (the mechanism's, `dpfuzz.mechanism.output_words`), else
        None: the row itself."""
        words = self.row_words or self.describe_output
        return None if words is None else words(row)

    def column_name(self, column: int) -> str | None:
        """The output coordinate's name, where `describe_output` carries `columns` (a structured
        output's, `dpfuzz.outputs.OutputWords`)."""
        columns = getattr(self.describe_output, "columns", None)
        return columns[column] if columns is not None and column < len(columns) else None

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
        """Candidates ranked by the bound they would certify on `eval_size` held-out outputs per
        side (default: as many as the training outputs), predicted with Wilson bounds."""
        x0, x1 = paired_matrices(self.features(train0), self.features(train1), keep_integers=True)
        if x0.shape[1] == 1:
            x0, x1 = x0.astype(float, copy=False), x1.astype(float, copy=False)
        gammas = self.gammas(claim)
        directions = [(x0, x1), (x1, x0)] if both else [(x0, x1)]
        # the tails of 1-D outputs, and of each coordinate, scored as a peeled family
        # (`EpsilonObjective`)
        one_d = self.objective_for(
            claim, beta, eval_size, tail_scales=max(1, int(math.log2(len(x0) + len(x1))))
        )
        if x0.shape[1] == 1:
            fitted = value_intervals(x0[:, 0], x1[:, 0], one_d, gammas, both, self.rare_share)
            events = [(ScoreEvent(OutputValue(), interval), value) for interval, value in fitted]
        else:
            objective = self.objective_for(claim, beta, eval_size)
            events = self._scored_events(x0, x1, objective, one_d, gammas, rng, both)
        return [
            (self.choose_epsilon(event, p, q, claim, beta, eval_size), value)
            for (event, value), (p, q) in zip(events, directions)
        ]

    def gammas(self, claim: Claim) -> list[float]:
        """The likelihood-ratio levels at which intervals are searched: around e^ε of the claim, or
        across a privacy-profile claim's ε grid."""
        if isinstance(claim, ProfileClaim):
            return [math.exp(epsilon) for epsilon in claim.epsilon_grid()[::4]]
        return [math.exp(claimed_epsilon(claim)) * factor for factor in _GAMMA_LADDER]

    def objective_for(
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
        objective = self.objective_for(claim, beta, eval_size, per_epsilon=True)
        values = objective(
            np.array([event.count(x0)]), np.array([event.count(x1)]), len(x0), len(x1)
        )
        return replace(event, epsilon=claim.epsilon_grid()[int(np.argmax(values[0]))])

    def _scored_events(
        self, x0, x1, objective, one_d, gammas, rng: np.random.Generator, both: bool
    ) -> list[tuple[ScoreEvent, float]]:
        """Vector outputs: each candidate model is fitted on half of the training samples; the
        model and its score interval are chosen on the other half, by the same objective. With
        `both`, also the event for (x1, x0), from the same fits where a model allows it. Continuous
        outputs' coordinates are candidates too, each searched as a 1-D output is, by the 1-D
        objective `one_d` on the training samples (at most `model_fit_samples` per side, which
        bounds the sorts). Scikit-learn is imported here, by the first vector output."""
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
                value_intervals(p, q, one_d, gammas, both, self.rare_share)
            ):
                if value > best[index][0]:
                    best[index] = (
                        value,
                        ScoreEvent(Coordinate(column, self.column_name(column)), interval),
                    )

    def _fitted(self, model: Any, training: _Training) -> Any:
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


def value_intervals(
    x_p: np.ndarray,
    x_q: np.ndarray,
    objective: Objective,
    gammas: list[float],
    both: bool,
    rare_share: float,
) -> list:
    """The best interval (or exact value) of 1-D values for (x_p, x_q), and with `both` for
    (x_q, x_p) after it, each with its objective value."""
    if both:
        return best_intervals_both(x_p, x_q, objective, gammas, rare_share=rare_share)
    return [best_interval(x_p, x_q, objective, gammas, rare_share=rare_share)]


def claimed_epsilon(claim: Claim) -> float:
    """The ε an (ε, δ) or Rényi claim states: where its likelihood-ratio levels start."""
    return claim.epsilon if isinstance(claim, RenyiDP) else approx_dp(claim).epsilon
