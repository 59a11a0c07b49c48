"""Errors as outcomes (``per_call(f, errors="outcome")``, `dpfuzz.error_outcomes`)."""

import numpy as np
import pytest

from dpfuzz import Domain, InvalidArgument, MechanismError, PureDP, audit, per_call
from dpfuzz.catalogue import entry
from dpfuzz.error_outcomes import error_code
from dpfuzz.outputs import structured


def picky(dataset, rng):
    if dataset.size and dataset.max() > 1:
        raise ValueError("out of range")
    if dataset.size > 2:
        raise KeyError("too many")
    return np.array([dataset.sum(), rng.normal()])


def test_an_exception_is_an_output_coded_by_its_type(rng):
    mechanism = per_call(picky, errors="outcome")
    fine = mechanism(np.array([0.5]), 3, rng)
    assert fine.shape == (3, 3) and np.all(fine[:, 0] == 0.5) and np.all(fine[:, 2] == 0)
    refused = mechanism(np.array([2.0]), 2, rng)
    assert np.all(refused[:, :2] == 0) and np.all(refused[:, 2] == error_code("ValueError"))
    crowded = mechanism(np.zeros(3), 1, rng)
    assert crowded[0, 2] == error_code("KeyError") != error_code("ValueError")
    words = mechanism.describe_output
    assert words.columns[:2] == ["output[0]", "output[1]"] and "ValueError" in words.columns[2]
    assert words(refused[0]) == "raised ValueError" and words(fine[0]) is None


def test_a_batch_that_raises_is_redrawn_one_call_at_a_time(rng):
    calls = []

    def batch(dataset, count, rng):
        calls.append(count)
        if dataset.size and dataset.max() > 1:
            raise ValueError("out of range")
        return np.column_stack([np.full(count, dataset.sum()), rng.normal(size=count)])

    mechanism = per_call(picky, batch=batch, errors="outcome")
    assert mechanism(np.array([0.5]), 4, rng).shape == (4, 3) and calls == [4]
    refused = mechanism(np.array([1.5]), 4, rng)
    assert np.all(refused[:, 2] == error_code("ValueError")) and calls == [4, 4]


@pytest.mark.slow
def test_without_the_option_an_exception_ends_the_audit_and_with_it_refutes_the_claim():
    domain = Domain(low=0.0, high=2.0, max_size=2)
    with pytest.raises(MechanismError, match="ValueError.*errors='outcome'"):
        audit(per_call(picky), PureDP(1.0), domain, seed=0, budget="quick")
    report = audit(per_call(picky, errors="outcome"), PureDP(1.0), domain, seed=0, budget="quick")
    assert report.violated and "ValueError" in report.summary()


@pytest.mark.parametrize("seed", range(3))
def test_the_catalogue_pair_raising_is_refuted_and_clamping_is_not(seed):
    raising, clamping = entry("RaisingBoundedSum"), entry("ClampingBoundedSum")
    options = {"seed": seed, "budget": "quick", "max_draws": 200_000}
    assert audit(raising(), raising.claim(), raising.domain(), **options).violated
    assert not audit(clamping(), clamping.claim(), clamping.domain(), **options).violated


class PanicException(BaseException):
    """The shape of pyo3's panic: a Rust-backed library's panic is a ``BaseException``."""


def panicky(dataset, rng):
    if dataset.size > 1:
        raise PanicException("adding noise to number of records resulted in a negative number")
    return rng.normal()


def test_a_rust_panic_is_an_outcome_and_an_interrupt_is_not(rng):
    mechanism = per_call(panicky, errors="outcome")
    assert mechanism(np.zeros(2), 2, rng)[0, 1] == error_code("PanicException")
    release = structured(lambda dataset, rng: {"value": panicky(dataset, rng)}, errors="outcome")
    returned, panicked = release(np.zeros(1), 1, rng), release(np.zeros(2), 1, rng)
    assert returned.shape == panicked.shape and not np.array_equal(returned, panicked)

    def interrupted(dataset, rng):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        per_call(interrupted, errors="outcome")(np.zeros(1), 1, rng)


def test_an_unknown_errors_choice_is_refused():
    with pytest.raises(InvalidArgument, match="errors"):
        per_call(picky, errors="outcomes")
