"""Bayesian search with google-vizier's GP bandit (DP-Auditorium §5), driven in-process.

Each pair is a point of the unit cube (the relation's parameterisation); the designer suggests
a point, the audit scores its pair, and the score completes the trial. The classic patterns
come first (the relation's `classic_units`), as trials the GP learns from like its own. The
designer is seeded from the audit's generator (reproducible) and tuned for latency: a
vectorised Eagle acquisition optimiser with 2,000 evaluations, one ARD restart, power-of-two
padding of the trial count, and JAX's persistent compilation cache (0.3–1 s a suggestion on
two CPU cores, against 10–14 s with the defaults). Install with
``pip install 'dpfuzz[vizier]'``.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.finders.base import BaseFinder

_CACHE = Path(os.environ.get("DPFUZZ_JAX_CACHE", Path.home() / ".cache" / "dpfuzz" / "jax"))


def _vizier():
    try:
        import jax
        from vizier import algorithms as vza
        from vizier import pyvizier as vz
        from vizier._src.algorithms.designers import gp_bandit
        from vizier._src.algorithms.optimizers import eagle_strategy, vectorized_base
        from vizier.pyvizier.converters import padding
    except ImportError as error:
        raise InvalidArgument(
            f"the 'vizier' finder needs google-vizier and JAX ({error}); install them with "
            "pip install 'dpfuzz[vizier]'."
        ) from error
    jax.config.update("jax_compilation_cache_dir", str(_CACHE))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    return jax, vz, vza, gp_bandit, eagle_strategy, vectorized_base, padding


class VizierFinder(BaseFinder):
    """GP-bandit search over the unit-cube parameterisation of neighbouring pairs.

    Parameters
    ----------
    seed_trials : random suggestions before the GP takes over (the patterns count).
    max_evaluations : acquisition-optimiser budget per suggestion.
    patterns : propose the relation's classic pairs first (default True).
    """

    name = "vizier"
    open_ended = False  # each GP suggestion costs about as much as a cheap mechanism's whole trial

    def __init__(self, seed_trials: int = 3, max_evaluations: int = 2000, patterns: bool = True):
        self.seed_trials = seed_trials
        self.max_evaluations = max_evaluations
        self.patterns = patterns
        _vizier()  # fail at construction, with the install hint, when the extra is missing

    def start(self, domain: Domain, rng: np.random.Generator) -> None:
        jax, vz, vza, gp_bandit, eagle_strategy, vectorized_base, padding = _vizier()
        self._domain, self._vz, self._vza = domain, vz, vza
        self._names = [f"u{index}" for index in range(domain.relation.unit_dimension(domain))]
        problem = vz.ProblemStatement()
        for name in self._names:
            problem.search_space.root.add_float_param(name, 0.0, 1.0)
        problem.metric_information.append(
            vz.MetricInformation("score", goal=vz.ObjectiveMetricGoal.MAXIMIZE)
        )
        with _quiet():  # the GP's construction warns about float32 too
            self._designer = gp_bandit.VizierGPBandit(
                problem,
                rng=jax.random.PRNGKey(int(rng.integers(2**31))),
                acquisition_optimizer_factory=vectorized_base.VectorizedOptimizerFactory(
                    strategy_factory=eagle_strategy.VectorizedEagleStrategyFactory(),
                    max_evaluations=self.max_evaluations,
                    suggestion_batch_size=25,
                ),
                num_seed_trials=self.seed_trials,
                ard_random_restarts=1,
                padding_schedule=padding.PaddingSchedule(
                    num_trials=padding.PaddingType.POWERS_OF_2
                ),
            )
        self._pending: dict[bytes, Any] = {}
        self._queue = domain.relation.classic_units(domain) if self.patterns else []
        self._count = 0
        self.latencies: list[float] = []

    def ask(self) -> DatasetPair:
        self._count += 1
        if self._queue:
            unit = self._queue.pop(0)
            trial = self._vz.Trial(
                id=self._count, parameters=dict(zip(self._names, map(float, unit)))
            )
        else:
            start = time.perf_counter()
            with _quiet():
                suggestion = self._designer.suggest(1)[0]
            self.latencies.append(time.perf_counter() - start)
            unit = np.array(
                [suggestion.parameters[name].value for name in self._names], dtype=float
            )
            trial = suggestion.to_trial(self._count)
        pair = self._domain.relation.pair_from_unit(self._domain, unit)
        self._pending[pair.key()] = trial
        return pair

    def tell(self, pair: DatasetPair, score: float) -> None:
        trial = self._pending.pop(pair.key(), None)
        if trial is None:
            return
        trial.complete(self._vz.Measurement({"score": float(score)}))
        with _quiet():
            self._designer.update(self._vza.CompletedTrials([trial]), self._vza.ActiveTrials())

    def details(self) -> dict:
        """Suggestion latency, for the report."""
        return {
            "median_suggestion_seconds": (
                statistics.median(self.latencies) if self.latencies else None
            )
        }


@contextlib.contextmanager
def _quiet():
    """JAX warns on every call that it computes in float32; that is expected here."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Explicitly requested dtype")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        yield
