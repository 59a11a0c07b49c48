"""The mechanism contract, an adapter for per-call functions, and output validation.

A mechanism is any callable ``mechanism(dataset, num_samples, rng) -> np.ndarray`` whose
result has leading axis ``num_samples`` (shape ``(num_samples,)`` for scalar outputs,
``(num_samples, k, …)`` otherwise). Sampling is vectorised; libraries that produce one
draw per call are wrapped with `per_call`.
"""

from __future__ import annotations

import functools
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Protocol

import numpy as np

from dpfuzz.datasets import format_dataset
from dpfuzz.errors import MechanismError


class Mechanism(Protocol):
    def __call__(self, dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray: ...


def mechanism_name(mechanism: Callable) -> str:
    name = getattr(mechanism, "name", None) or getattr(mechanism, "__qualname__", None)
    return name or type(mechanism).__name__


def per_call(function: Callable[[np.ndarray, np.random.Generator], Any], workers: int = 1) -> Mechanism:
    """Adapt ``function(dataset, rng) -> one output`` to the vectorised contract.

    The adapter loops ``num_samples`` times in Python; use it only for mechanisms that cannot
    sample in bulk (e.g. real DP libraries that return one release per call). With
    ``workers > 1`` the loop is split into chunks run in that many processes (the function
    must then be importable, i.e. defined at module level); each chunk gets its own child
    generator spawned from ``rng``, so results are reproducible for a given worker count.
    """

    @functools.wraps(function)
    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        if workers <= 1:
            return _draw_serially(function, dataset, num_samples, rng)
        sizes = [len(chunk) for chunk in np.array_split(np.arange(num_samples), workers) if len(chunk)]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            chunks = pool.map(_draw_serially, [function] * len(sizes), [dataset] * len(sizes), sizes, rng.spawn(len(sizes)))
            return np.concatenate(list(chunks))

    mechanism.name = mechanism_name(function)
    return mechanism


def _draw_serially(function, dataset: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    return np.asarray([function(dataset, rng) for _ in range(count)])


def draw_samples(
    mechanism: Mechanism,
    dataset: np.ndarray,
    num_samples: int,
    rng: np.random.Generator,
    output_shape: tuple | None = None,
) -> np.ndarray:
    """Run the mechanism and check what it returned.

    Raises `MechanismError`, naming the mechanism and dataset, when the mechanism raises,
    returns a non-numeric array, the wrong number of samples, NaN/inf, or an output shape
    other than `output_shape` (the shape its earlier calls returned).
    """
    name = mechanism_name(mechanism)
    where = f"mechanism {name!r} on dataset {format_dataset(dataset)} with num_samples={num_samples}"
    try:
        output = mechanism(dataset, num_samples, rng)
    except Exception as error:  # the user's code: report it with the input that triggered it
        raise MechanismError(f"{where} raised {type(error).__name__}: {error}") from error
    try:
        samples = np.asarray(output)
    except Exception as error:
        raise MechanismError(f"{where} returned {type(output).__name__}, not an array of numbers.") from error
    if samples.dtype == bool:
        samples = samples.astype(np.int64)
    if not (np.issubdtype(samples.dtype, np.integer) or np.issubdtype(samples.dtype, np.floating)):
        raise MechanismError(
            f"{where} returned dtype {samples.dtype}; outputs must be numbers "
            "(encode categories or structured outputs as integer arrays)."
        )
    if samples.ndim == 0 or samples.shape[0] != num_samples:
        got = "a scalar" if samples.ndim == 0 else f"leading axis {samples.shape[0]} (shape {samples.shape})"
        raise MechanismError(
            f"{where} returned {got}; the leading axis must be num_samples={num_samples}. "
            "Draw the noise with size=num_samples, or wrap a one-draw function with dpfuzz.per_call."
        )
    if np.issubdtype(samples.dtype, np.floating):
        bad = ~np.isfinite(samples)
        if bad.any():
            raise MechanismError(
                f"{where} returned {int(bad.sum())} non-finite values (NaN or inf), e.g. at sample "
                f"{int(np.argwhere(bad)[0][0])}; outputs must be finite numbers."
            )
    if output_shape is not None and samples.shape[1:] != tuple(output_shape):
        raise MechanismError(
            f"{where} returned outputs of shape {samples.shape[1:]}, but earlier calls returned "
            f"{tuple(output_shape)}; every output must have the same shape."
        )
    return samples
