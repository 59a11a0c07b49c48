"""The audit loop (DP-Auditorium, Algorithm 1), with a single certified verification.

1. **Search.** For each trial the finder proposes a neighbouring pair (d0, d1); the mechanism
   is sampled on both; the tester estimates both directions (fit on one half, evaluate on the
   other). These numbers only *rank* pairs: nothing is claimed from them.
   Each pair's score, told to the finder, is the larger held-out estimate minus the claim's
   threshold: positive means the search sample looks like a violation.
2. **Verify.** The best (pair, direction) of the search has its event fitted on all of that
   trial's samples, then evaluated on fresh samples drawn for verification. (A finder may
   instead name its own candidate, e.g. a shrunk witness; its event is then fitted on fresh
   training samples.) This single
   held-out test is the only one that can report a violation, so the whole audit's
   false-alarm probability is the verification's β (shared/methods/bounds.md, "many trials,
   one β"): any number of trials, both directions, without a union bound.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from dpfuzz.claims import ApproxDP, Claim, RenyiDP
from dpfuzz.datasets import DatasetPair, Domain
from dpfuzz.errors import ConfigError
from dpfuzz.finders import Finder, make_finder
from dpfuzz.mechanism import Mechanism, draw_samples, mechanism_name
from dpfuzz.report import AuditReport, TrialRecord, environment_versions
from dpfuzz.testers import Tester, make_tester
from dpfuzz.testers.base import single_threaded

# One verification draw is cheap next to `trials` search draws, and it alone sets the
# certified bound's confidence width, so it gets more samples by default.
VERIFY_FACTOR = 5


def audit(
    mechanism: Mechanism,
    claim: Claim,
    domain: Domain,
    *,
    tester: str | Tester = "auto",
    finder: str | Finder | DatasetPair | list = "random",
    trials: int = 10,
    samples: int = 100_000,
    verify_samples: int | None = None,
    beta: float = 0.05,
    seed: int | None = None,
) -> AuditReport:
    """Search for neighbouring datasets on which `mechanism` violates `claim`, then certify.

    Parameters
    ----------
    mechanism : ``mechanism(dataset, num_samples, rng) -> array`` with leading axis num_samples.
    claim : `PureDP`, `ApproxDP` or `RenyiDP`.
    domain : where datasets live and which relation makes them neighbours.
    tester, finder : names (see `dpfuzz.testers.TESTERS`, `dpfuzz.finders.FINDERS`) or instances;
        the finder may also be a `DatasetPair` or a list of them, to audit exactly those.
    trials : number of pairs the finder proposes.
    samples : mechanism outputs per dataset per search trial.
    verify_samples : fresh outputs per dataset for the verification (default: 5 × `samples`;
        the certified bound's width shrinks with it, and it is drawn once, not per trial).
    beta : false-alarm probability of the whole audit.
    seed : makes the audit reproducible; drawn at random (and reported) when None.
    """
    _check_arguments(claim, domain, trials, samples, verify_samples, beta, seed)
    verify_samples = VERIFY_FACTOR * samples if verify_samples is None else verify_samples
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**63)
    tester_spec, tester = tester, make_tester(tester, claim)  # bad names and claims fail here
    finder = make_finder(finder)
    finder_seed, trial_seed, verify_seed = np.random.SeedSequence(seed).spawn(3)
    finder.start(domain, np.random.default_rng(finder_seed))
    start = time.perf_counter()

    history: list[TrialRecord] = []
    output_shape = None
    best = None  # (score, oriented pair, samples of oriented d0, samples of oriented d1)
    for trial, trial_rng_seed in enumerate(trial_seed.spawn(trials)):
        rng = np.random.default_rng(trial_rng_seed)
        pair = finder.ask()
        domain.validate_pair(pair)
        began = time.perf_counter()
        samples0 = draw_samples(mechanism, pair.d0, samples, rng, output_shape)
        if output_shape is None and isinstance(tester_spec, str) and tester_spec == "auto":
            tester = make_tester("auto", claim, samples0)  # "auto" also looks at the outputs
        output_shape = samples0.shape[1:]
        samples1 = draw_samples(mechanism, pair.d1, samples, rng, output_shape)
        sampled = time.perf_counter()
        forward = tester.test(samples0, samples1, claim, beta, rng)
        backward = tester.test(samples1, samples0, claim, beta, rng)
        # Rank by the held-out plug-in estimate: unbiased for the fitted event's divergence,
        # whereas lower bounds favour tiny events whose width is small but whose divergence is 0.
        score = max(forward.estimate, backward.estimate) - forward.threshold
        finder.tell(pair, score)
        history.append(
            TrialRecord(trial, pair, score, forward, backward, sampled - began, time.perf_counter() - sampled)
        )
        if best is None or score > best[0]:
            if forward.estimate >= backward.estimate:
                best = (score, pair, samples0, samples1)
            else:
                best = (score, pair.swapped(), samples1, samples0)
    searched = time.perf_counter()

    _, candidate, train_p, train_q = best
    rng = np.random.default_rng(verify_seed)
    if hasattr(finder, "stop"):  # e.g. the Hypothesis finder's helper thread
        finder.stop()
    chosen = _finder_candidate(finder, history)
    if chosen is not None:  # e.g. a shrunk witness: fit its event on fresh training samples
        candidate = chosen
        train_p = draw_samples(mechanism, candidate.d0, samples, rng, output_shape)
        train_q = draw_samples(mechanism, candidate.d1, samples, rng, output_shape)
    with single_threaded():
        event = tester.fit(train_p, train_q, claim, beta, rng, eval_size=verify_samples)
    fresh_p = draw_samples(mechanism, candidate.d0, verify_samples, rng, output_shape)
    fresh_q = draw_samples(mechanism, candidate.d1, verify_samples, rng, output_shape)
    with single_threaded():
        verification = tester.evaluate(event, fresh_p, fresh_q, claim, beta)
    verified = time.perf_counter()
    verification = replace(verification, seconds=verified - searched)

    return AuditReport(
        violated=verification.violated,
        claim=claim,
        beta=beta,
        epsilon_lower_bound=verification.epsilon_lower_bound,
        witness=candidate if verification.violated else None,
        candidate=candidate,
        verification=verification,
        history=tuple(history),
        mechanism=mechanism_name(mechanism),
        domain=domain,
        tester=tester.name,
        finder=getattr(finder, "name", type(finder).__name__),
        seed=seed,
        trials=trials,
        samples=samples,
        verify_samples=verify_samples,
        seconds={"search": searched - start, "verify": verified - searched, "total": verified - start},
        versions=environment_versions(),
        finder_details=finder.details() if hasattr(finder, "details") else {},
    )


def _finder_candidate(finder, history: list) -> "DatasetPair | None":
    """The finder's own choice of pair to verify, oriented as its best search direction."""
    choose = getattr(finder, "candidate", None)
    pair = choose() if choose is not None else None
    if pair is None:
        return None
    for record in history:
        if record.pair == pair:
            return pair if record.forward.estimate >= record.backward.estimate else pair.swapped()
    return pair


def _check_arguments(claim, domain, trials, samples, verify_samples, beta, seed) -> None:
    if not isinstance(claim, (ApproxDP, RenyiDP)):
        raise ConfigError(f"claim must be PureDP, ApproxDP or RenyiDP, got {claim!r}.")
    if not isinstance(domain, Domain):
        raise ConfigError(f"domain must be a dpfuzz.Domain, got {type(domain).__name__}.")
    if not _is_int(trials) or trials < 1:
        raise ConfigError(f"trials must be a positive int, got {trials!r}.")
    for name, value in (("samples", samples), ("verify_samples", verify_samples)):
        if value is not None and (not _is_int(value) or value < 10):
            raise ConfigError(f"{name} must be an int >= 10 (samples per dataset), got {value!r}.")
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not 0.0 < beta < 1.0:
        raise ConfigError(f"beta must be a probability in (0, 1), got {beta!r}.")
    if seed is not None and (not _is_int(seed) or seed < 0):
        raise ConfigError(f"seed must be a non-negative int or None, got {seed!r}.")


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
