"""Certified ε estimation: "how private is this, at least?" (the question DP-Sniper answers).

`estimate_epsilon` runs the audit machinery with the claim ε = 0 (at the given δ) and the
hockey-stick tester's ``objective="epsilon"``, which ranks events by the ε lower bound they would
certify. Unlike a refutation audit it does not stop at the first violating pair: every pair is
searched with the same samples (fixed sampling), and most of the budget goes to the one final
certification (at least 60%; events are fitted and selected on at most 3·10^6 outputs per side), because the
estimate is the certified bound of that one test. The false-alarm
reasoning is the audit's (one held-out test at level β, the event selected on other samples), so

    P(true ε at δ < estimate) ≤ β.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpfuzz.auditing import PROBE_SAMPLES, REPRODUCIBILITY_SAMPLES, audit
from dpfuzz.claims import ApproxDP, PureDP
from dpfuzz.datasets import DatasetPair, Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import Mechanism
from dpfuzz.report import AuditReport
from dpfuzz.validation import check_int, check_number

# Share of the draw budget spent on the final certification (the rest searches).
VERIFY_SHARE = 0.6
SEARCH_TRIALS = 10  # pairs tried when searching a Domain
# Outputs per side a pair's event is fitted and selected on, at most; the rest of the budget
# goes to the final certification. 3·10^6 per side rather than 10^6 raised the bound on
# DP-Sniper's pairs at 2.6·10^7 draws from 0.190 to 0.200 (SVT3) and 0.308 to 0.313 (SVT6).
MAX_FIT_SAMPLES = 3_000_000
DEFAULT_MAX_DRAWS = 4_000_000


@dataclass(frozen=True)
class EpsilonEstimate:
    """A certified lower bound on the mechanism's ε at δ, with what certified it."""

    epsilon_lower_bound: float  # 0.0 when nothing positive is certified
    delta: float
    beta: float
    pair: DatasetPair  # ordered (d0, d1) as certified
    event: str
    draws: int
    seconds: float
    report: AuditReport  # the underlying audit, for its history and reproduction data

    def summary(self) -> str:
        difference, d0, d1 = self.report.domain.describe_pair(self.pair)
        return "\n".join(
            [
                f"ε ≥ {self.epsilon_lower_bound:.4g} at δ = {self.delta:g} for {self.report.mechanism} "
                f"(confidence {1 - self.beta:g})",
                f"  pair    {difference}",
                f"          {d0}",
                f"          {d1}",
                f"  event   {self.event}",
                f"  draws   {self.draws:,} outputs in {self.seconds:.2f} s; seed {self.report.seed}",
            ]
        )


def estimate_epsilon(
    mechanism: Mechanism,
    target: Domain | DatasetPair | list[DatasetPair],
    *,
    delta: float = 0.0,
    max_draws: int | None = None,
    beta: float = 0.05,
    seed: int | None = None,
    domain: Domain | None = None,
) -> EpsilonEstimate:
    """The largest certified lower bound on ε (at `delta`) that dpfuzz finds for `mechanism`.

    `target` is a `Domain` to search (10 pairs), or the neighbouring pair(s) to measure under
    `domain`'s relation, or, without `domain`, under the first relation that makes every pair a
    neighbour (add/remove, substitute, ℓ∞ with sensitivity 1). `max_draws` (default 4·10^6)
    bounds all mechanism outputs: at least 60% of it goes to the final certification, and each
    pair's event is fitted and selected on at most 3·10^6 outputs per side.
    """
    delta = check_number("delta", delta, minimum=0.0, maximum=1.0, exclusive_maximum=True)
    max_draws = DEFAULT_MAX_DRAWS if max_draws is None else check_int("max_draws", max_draws, minimum=10_000)
    if isinstance(target, Domain):
        domain, finder, trials = target, "random", SEARCH_TRIALS
    else:
        pairs = [target] if isinstance(target, DatasetPair) else list(target)
        if not pairs or not all(isinstance(pair, DatasetPair) for pair in pairs):
            raise InvalidArgument(f"target must be a Domain, a DatasetPair or a list of them, got {target!r}.")
        if domain is None:
            domain = enclosing_domain(pairs)
        for pair in pairs:
            domain.validate_pair(pair)
        finder, trials = pairs, len(pairs)
    from dpfuzz.testers.hockey_stick import HockeyStickTester

    overhead = 2 * REPRODUCIBILITY_SAMPLES + PROBE_SAMPLES  # the audit's probe comes first
    budget = max_draws - overhead
    samples = min(int((1 - VERIFY_SHARE) * budget / (2 * trials)), MAX_FIT_SAMPLES)
    verify = (budget - 2 * trials * samples) // 2
    if samples < 1_000:
        raise InvalidArgument(
            f"max_draws={max_draws:,} leaves {samples:,} outputs per dataset for each of the {trials} pairs; "
            f"give max_draws >= {math.ceil(2_000 * trials / (1 - VERIFY_SHARE)) + overhead:,}."
        )
    claim = ApproxDP(0.0, delta) if delta > 0 else PureDP(0.0)
    report = audit(
        mechanism, claim, domain, tester=HockeyStickTester(objective="epsilon"), finder=finder, trials=trials,
        samples=samples, verify_samples=verify, beta=beta, seed=seed, sampling="fixed", max_draws=max_draws,
    )
    return EpsilonEstimate(
        epsilon_lower_bound=report.epsilon_lower_bound or 0.0,
        delta=delta,
        beta=beta,
        pair=report.candidate,
        event=report.verification.event,
        draws=report.draws,
        seconds=report.seconds.get("total", 0.0),
        report=report,
    )


def enclosing_domain(pairs: list[DatasetPair]) -> Domain:
    """The smallest domain holding the pairs, under the first built-in relation that makes every
    pair a neighbouring pair (add/remove, substitute, then ℓ∞ with sensitivity 1)."""
    datasets = [np.asarray(dataset) for pair in pairs for dataset in pair]
    values = np.concatenate([dataset.reshape(len(dataset), int(np.prod(dataset.shape[1:]))) for dataset in datasets])
    vector = datasets[0].ndim > 1
    integral = all(np.issubdtype(dataset.dtype, np.integer) or np.array_equal(dataset, np.round(dataset)) for dataset in datasets)
    low, high = (values.min(axis=0), values.max(axis=0)) if len(values) else (np.zeros(1), np.ones(1))
    if not vector:
        low, high = float(low.min()), float(high.max())
    sizes = [len(dataset) for dataset in datasets]
    base = {"low": low, "high": high, "dim": datasets[0].shape[1] if vector else None, "dtype": "int" if integral else "float"}
    smallest, largest = min(sizes), max(sizes)
    # add/remove and substitute need a size range of at least two; linf one size, the answers' count
    candidates = (("add_remove", smallest, max(largest, smallest + 1)), ("substitute", smallest, largest + 1), ("linf", largest, largest))
    tried = []
    for relation, min_size, max_size in candidates:
        try:
            domain = Domain(**base, relation=relation, min_size=min_size, max_size=max_size)
            for pair in pairs:
                domain.validate_pair(pair)
            return domain
        except InvalidArgument as error:
            tried.append(f"{relation}: {error}")
    raise InvalidArgument(
        "the pairs are not neighbours under add_remove, substitute or linf (sensitivity 1); pass a Domain "
        "whose relation they satisfy, and its pairs. " + " ".join(tried)
    )
