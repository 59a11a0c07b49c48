import numpy as np
import pytest

from dpfuzz import MechanismError, per_call
from dpfuzz.mechanism import draw_samples

DATA = np.array([0.5, 1.0])


def test_per_call_adapter_stacks_outputs(rng):
    mechanism = per_call(lambda dataset, rng: dataset.sum() + rng.normal())
    samples = draw_samples(mechanism, DATA, 50, rng)
    assert samples.shape == (50,) and np.std(samples) > 0
    vector = per_call(lambda dataset, rng: rng.normal(size=3))
    assert draw_samples(vector, DATA, 7, rng).shape == (7, 3)


def _raises(dataset, num_samples, rng):
    raise ZeroDivisionError("division by zero")


@pytest.mark.parametrize(
    "mechanism, message",
    [
        (_raises, r"'_raises' on dataset \[0.5, 1\] with num_samples=10 raised ZeroDivisionError"),
        (lambda d, n, r: np.full(n, np.nan), "returned 10 non-finite values"),
        (lambda d, n, r: np.r_[np.ones(n - 1), np.inf], "non-finite values .NaN or inf., e.g. at sample 9"),
        (lambda d, n, r: np.ones(n + 1), "leading axis 11 .shape .11,..; the leading axis must be num_samples=10"),
        (lambda d, n, r: 1.0, "returned a scalar"),
        (lambda d, n, r: np.array(["a"] * n), "returned dtype <U1"),
    ],
)
def test_bad_mechanisms_get_clear_errors(mechanism, message, rng):
    with pytest.raises(MechanismError, match=message):
        draw_samples(mechanism, DATA, 10, rng)


def test_changing_output_shape_is_an_error(rng):
    with pytest.raises(MechanismError, match=r"shape \(3,\), but earlier calls returned \(2,\)"):
        draw_samples(lambda d, n, r: np.zeros((n, 3)), DATA, 5, rng, output_shape=(2,))


def test_boolean_outputs_become_integers(rng):
    assert draw_samples(lambda d, n, r: r.random(n) < 0.5, DATA, 5, rng).dtype == np.int64


def one_noisy_sum(dataset, rng):  # module level: picklable for worker processes
    return dataset.sum() + rng.laplace()


def test_per_call_fans_out_over_processes_reproducibly():
    fanned = per_call(one_noisy_sum, workers=2)
    first = draw_samples(fanned, DATA, 2_000, np.random.default_rng(3))
    again = draw_samples(fanned, DATA, 2_000, np.random.default_rng(3))
    assert first.shape == (2_000,) and np.array_equal(first, again)
    assert abs(np.median(first) - 1.5) < 0.1 and len(np.unique(first)) == 2_000  # chunks use different streams
