"""One audit or estimate on a Dask cluster: the certification's chunks are counted on the
workers, and the bound is the in-process run's for the same seed (docs/decisions/0022)."""

from __future__ import annotations

import numpy as np
import pytest
from shared_mechanisms import laplace_sum, one_laplace_sum

from dpfuzz import (
    ApproxDP,
    DatasetPair,
    Domain,
    InvalidArgument,
    PureDP,
    audit,
    estimate_epsilon,
    per_call,
)

distributed = pytest.importorskip("dask.distributed")


def gaussian_vector(dataset, num_samples, rng):
    return dataset.sum() + rng.normal(0.0, 1.0, size=(num_samples, 3))


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        with distributed.Client(cluster) as client:
            yield client


@pytest.mark.slow
def test_an_estimate_on_a_cluster_certifies_the_in_process_bound(client):
    pair = DatasetPair(np.array([0.0]), np.array([1.0]))
    here = estimate_epsilon(laplace_sum, pair, max_draws=3_000_000, seed=4)
    there = estimate_epsilon(laplace_sum, pair, max_draws=3_000_000, seed=4, dask_client=client)
    assert there.epsilon_lower_bound == here.epsilon_lower_bound > 0.9 and there.draws == here.draws
    assert there.report.verification.details == here.report.verification.details  # the same counts


@pytest.mark.parametrize(
    "mechanism, claim",
    [
        (laplace_sum, PureDP(0.5)),  # refuted
        (
            per_call(one_laplace_sum, workers=2),
            PureDP(2.0),
        ),  # per_call pools draw in place on Dask workers
        (gaussian_vector, ApproxDP(2.0, 1e-3)),  # vector outputs, a fitted score event
    ],
    ids=["violated", "per_call", "vector"],
)
@pytest.mark.slow
def test_an_audit_on_a_cluster_gives_the_in_process_report(client, mechanism, claim):
    # no clock: reproducible
    settings = dict(budget="quick", seed=2, samples=5_000, verify_samples=40_000, max_draws=400_000)
    here = audit(mechanism, claim, Domain(max_size=3), **settings)
    there = audit(mechanism, claim, Domain(max_size=3), dask_client=client, **settings)
    assert (there.verdict, there.bound, there.draws) == (here.verdict, here.bound, here.draws)


def test_a_dask_client_that_is_not_one_is_refused():
    with pytest.raises(InvalidArgument, match="dask_client must be a dask.distributed.Client"):
        audit(laplace_sum, PureDP(1.0), Domain(), dask_client="tcp://localhost:8786")


def test_a_scheduler_that_does_not_answer_is_an_error_not_a_wait():
    from dpfuzz.cluster import dask_client
    from dpfuzz.errors import ConfigError

    with pytest.raises(
        ConfigError, match="--scheduler tcp://127.0.0.1:1: no Dask scheduler answered"
    ):
        with dask_client("tcp://127.0.0.1:1", worker_wait=2):
            pass


def fails_on_large_calls(dataset, num_samples, rng):
    if num_samples >= 20_000:
        raise ValueError("the release refuses large calls")
    return laplace_sum(dataset, num_samples, rng)


def test_a_mechanism_that_raises_on_a_worker_fails_the_audit_as_in_process(client):
    from dpfuzz.errors import MechanismError

    settings = dict(budget="quick", seed=2, samples=5_000, verify_samples=40_000, sampling="fixed")
    for where in (None, client):
        with pytest.raises(MechanismError, match="the release refuses large calls"):
            audit(
                fails_on_large_calls, PureDP(2.0), Domain(max_size=3), dask_client=where, **settings
            )
