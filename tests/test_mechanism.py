import multiprocessing
import os
import subprocess
import sys

import numpy as np
import pytest
from processes import alive, wait_for

from dpfuzz import InvalidArgument, MechanismError, per_call
from dpfuzz.mechanism import CHUNK_VALUES, FIRST_ROWS, draw_samples

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
        (
            lambda d, n, r: np.r_[np.ones(n - 1), np.inf],
            "non-finite values .NaN or inf., e.g. at sample 9",
        ),
        (
            lambda d, n, r: np.ones(n + 1),
            "leading axis 11 .shape .11,..; the leading axis must be num_samples=10",
        ),
        (lambda d, n, r: 1.0, "returned a scalar"),
        (lambda d, n, r: np.array(["a"] * n), "returned dtype <U1"),
        (
            lambda d, r: d.sum() + r.normal(),
            r"takes 2 positional.*It takes \(dataset, rng\): wrap .* with dpfuzz.per_call\(f\)",
        ),
    ],
)
def test_bad_mechanisms_get_clear_errors(mechanism, message, rng):
    with pytest.raises(MechanismError, match=message):
        draw_samples(mechanism, DATA, 10, rng)


def test_a_type_error_of_a_three_argument_mechanism_gets_no_per_call_hint(rng):
    def wrong_type(dataset, num_samples, rng):
        raise TypeError("unsupported operand type(s)")

    with pytest.raises(MechanismError, match="raised TypeError") as raised:
        draw_samples(wrong_type, DATA, 10, rng)
    assert "dpfuzz.per_call" not in str(raised.value)


def test_changing_output_shape_is_an_error(rng):
    with pytest.raises(MechanismError, match=r"shape \(3,\), but earlier calls returned \(2,\)"):
        draw_samples(lambda d, n, r: np.zeros((n, 3)), DATA, 5, rng, output_shape=(2,))


class _Counting:
    """Outputs the running count of draws (rows of `width` copies), recording each call's size;
    integers until `floats_from` draws have been made, floats after."""

    def __init__(self, width: int = 1, floats_from: int | None = None):
        self.width, self.floats_from, self.calls, self.drawn = width, floats_from, [], 0

    def __call__(self, dataset, num_samples, rng):
        self.calls.append(num_samples)
        values = np.arange(self.drawn, self.drawn + num_samples)
        if self.floats_from is not None and self.drawn >= self.floats_from:
            values = values + 0.5
        self.drawn += num_samples
        return values if self.width == 1 else np.repeat(values[:, None], self.width, axis=1)


@pytest.mark.parametrize("width", [1, 4])
def test_large_draws_are_made_in_calls_of_bounded_size_and_kept_in_order(width, rng):
    mechanism, count = _Counting(width), FIRST_ROWS + 3 * (CHUNK_VALUES // width) + 7
    samples = draw_samples(mechanism, DATA, count, rng)
    assert samples.shape == ((count,) if width == 1 else (count, width))
    np.testing.assert_array_equal(samples.reshape(count, -1)[:, 0], np.arange(count))
    assert sum(mechanism.calls) == count and max(mechanism.calls) * width <= CHUNK_VALUES
    # the first call of FIRST_ROWS, then three full calls and the rest
    assert len(mechanism.calls) == 5


def test_a_chunk_of_floats_after_integers_keeps_both(rng):
    count = CHUNK_VALUES + FIRST_ROWS
    samples = draw_samples(_Counting(floats_from=FIRST_ROWS), DATA, count, rng)
    assert samples.dtype == np.float64
    assert samples[FIRST_ROWS - 1] == FIRST_ROWS - 1 and samples[FIRST_ROWS] == FIRST_ROWS + 0.5


def test_a_bad_later_chunk_names_that_call(rng):
    def late_nan(dataset, num_samples, rng):
        return np.full(num_samples, np.nan) if num_samples != FIRST_ROWS else np.zeros(num_samples)

    with pytest.raises(
        MechanismError,
        match=(
            rf"num_samples={CHUNK_VALUES - FIRST_ROWS} returned {CHUNK_VALUES - FIRST_ROWS}"
            r" non-finite"
        ),
    ):
        draw_samples(late_nan, DATA, CHUNK_VALUES, rng)


def test_boolean_outputs_become_integers(rng):
    assert draw_samples(lambda d, n, r: r.random(n) < 0.5, DATA, 5, rng).dtype == np.int64


def one_noisy_sum(dataset, rng):  # module level: picklable for worker processes
    return dataset.sum() + rng.laplace()


def test_per_call_fans_out_over_processes_reproducibly():
    fanned = per_call(one_noisy_sum, workers=2)
    first = draw_samples(fanned, DATA, 2_000, np.random.default_rng(3))
    again = draw_samples(fanned, DATA, 2_000, np.random.default_rng(3))
    assert first.shape == (2_000,) and np.array_equal(first, again)
    # chunks use different streams
    assert abs(np.median(first) - 1.5) < 0.1 and len(np.unique(first)) == 2_000
    fanned.close()


def exits_on_positive(dataset, rng):  # module level: picklable for worker processes
    if dataset.sum() > 0:
        os._exit(3)
    return rng.laplace()


def test_a_per_call_worker_that_dies_fails_its_draw_and_the_next_draw_starts_new_workers():
    fanned = per_call(exits_on_positive, workers=2)
    with pytest.raises(MechanismError, match="worker process of per_call.*died"):
        draw_samples(fanned, DATA, 10, np.random.default_rng(0))
    assert draw_samples(fanned, np.zeros(2), 10, np.random.default_rng(0)).shape == (10,)
    fanned.close()


def test_per_call_in_a_daemonic_process_draws_the_same_chunks_in_place():
    fanned = per_call(one_noisy_sum, workers=2)
    context = multiprocessing.get_context("forkserver")
    with context.Pool(1) as pool:  # pool workers are daemonic
        there = pool.apply(draw_samples, (fanned, DATA, 500, np.random.default_rng(3)))
    assert np.array_equal(there, draw_samples(fanned, DATA, 500, np.random.default_rng(3)))
    fanned.close()


def many_noisy_sums(dataset, count, rng):  # the batched release: many draws in one call
    return dataset.sum() + rng.laplace(size=count)


def test_per_call_batches_serve_many_draws_per_call():
    calls = []

    def batch(dataset, count, rng):
        calls.append(count)
        return many_noisy_sums(dataset, count, rng)

    batched = per_call(one_noisy_sum, batch=batch, batch_size=1_000)
    samples = draw_samples(batched, DATA, 2_500, np.random.default_rng(0))
    assert samples.shape == (2_500,) and calls == [1_000, 1_000, 500]


def test_per_call_workers_need_picklable_functions_and_say_how():
    with pytest.raises(InvalidArgument, match="must be picklable.*Define it at module level"):
        per_call(lambda dataset, rng: 0.0, workers=2)
    with pytest.raises(InvalidArgument, match="start_method must be one of"):
        per_call(one_noisy_sum, start_method="threads")


def test_per_call_wrappers_are_mechanisms_not_factories():
    # Issue 13, bug 3: functools.wraps hid the num_samples signature.
    from dpfuzz.mechanism import is_mechanism

    assert is_mechanism(per_call(one_noisy_sum)) and not is_mechanism(one_noisy_sum)


def test_a_mechanism_with_short_parameter_names_is_not_taken_for_a_factory():
    # (d, n, rng): three required positional parameters, the last the generator, is a mechanism;
    # a factory's parameters are the mechanism's settings.
    from dpfuzz.mechanism import is_mechanism

    def short(d, n, rng):
        return d.sum() + rng.laplace(size=n)

    def factory(epsilon, bins, seed=None):
        return short

    assert (
        is_mechanism(short)
        and not is_mechanism(factory)
        and not is_mechanism(lambda d, n, scale: None)
    )


def test_large_arrays_written_once_skip_numpys_huge_page_advice_and_restore_it():
    from dpfuzz.memory import _set_madvise_hugepage, empty_array, ordinary_pages

    if _set_madvise_hugepage is None:
        pytest.skip("this NumPy has no huge-page switch (ordinary_pages is a no-op)")
    before = _set_madvise_hugepage(True)  # (each call returns the setting it replaced)
    try:
        with pytest.raises(RuntimeError):
            with ordinary_pages():
                assert _set_madvise_hugepage(False) is False  # off inside the block
                raise RuntimeError
        assert _set_madvise_hugepage(True) is True  # restored, even after an error
        array = empty_array((3, 4), dtype=np.int8)
        assert (
            array.shape == (3, 4) and array.dtype == np.int8 and _set_madvise_hugepage(True) is True
        )
    finally:
        _set_madvise_hugepage(before)


# A script whose per_call pool draws each worker's pid, then ends without shutting the pool down
# (as a killed process, or `os._exit`, does).
OWNER_GONE = """
import os
import numpy as np
from dpfuzz import per_call

def pid(dataset, rng):
    return os.getpid()

if __name__ == "__main__":
    pool = per_call(pid, workers=2)
    print(*sorted(set(pool(np.zeros(1), 64, np.random.default_rng(0)).astype(int))), flush=True)
    os._exit(0)
"""


@pytest.mark.slow
def test_per_call_workers_end_when_their_owner_ends_without_shutting_them_down(tmp_path):
    script = tmp_path / "owner.py"
    script.write_text(OWNER_GONE)
    owner = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    workers = [int(pid) for pid in owner.stdout.split()]
    assert owner.returncode == 0 and workers, owner.stderr
    wait_for(lambda: not any(alive(pid) for pid in workers), 30, "the pool's workers to end")
