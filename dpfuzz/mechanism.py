"""The mechanism contract, an adapter for per-call functions, and output validation.

A mechanism is any callable ``mechanism(dataset, num_samples, rng) -> np.ndarray`` whose
result has leading axis ``num_samples`` (shape ``(num_samples,)`` for scalar outputs,
``(num_samples, k, …)`` otherwise). Sampling is vectorised; libraries that produce one
draw per call are wrapped with `per_call`.
"""

from __future__ import annotations

import inspect
import multiprocessing
import os
import pickle
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any, Protocol

import numpy as np

from dpfuzz.datasets import format_dataset
from dpfuzz.errors import InvalidArgument, MechanismError, MechanismTooSlow
from dpfuzz.memory import empty_array
from dpfuzz.process_tree import end_with
from dpfuzz.validation import check_choice, check_int


class Mechanism(Protocol):
    def __call__(
        self, dataset: np.ndarray, num_samples: int, rng: np.random.Generator
    ) -> np.ndarray: ...


def mechanism_name(mechanism: Callable) -> str:
    name = getattr(mechanism, "name", None) or getattr(mechanism, "__qualname__", None)
    return name or type(mechanism).__name__


def output_words(mechanism: object) -> Callable[[np.ndarray], str | None] | None:
    """The mechanism's `describe_output(pattern) -> str | None`, if it has one: words for a
    discrete output pattern in reports (the catalogue's SVTs: ⊤, ⊥ and · for each query)."""
    return getattr(mechanism, "describe_output", None)


# Names a mechanism's third parameter, the random generator, goes by.
RNG_NAMES = ("rng", "generator", "random_state", "prng", "gen")


def is_mechanism(target: Any) -> bool:
    """A mechanism takes ``num_samples``, or three required positional parameters of which the
    last is the generator (``(d, n, rng)``; dpfuzz's own wrappers included); other callables are
    factories."""
    if isinstance(target, PerCallMechanism):
        return True
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False
    positional = [
        parameter
        for parameter in parameters.values()
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
        and parameter.default is parameter.empty
    ]
    return "num_samples" in parameters or (len(positional) == 3 and positional[2].name in RNG_NAMES)


class PerCallMechanism:
    """A one-draw-per-call function as a vectorised mechanism; made by `per_call`."""

    def __init__(
        self,
        function: Callable[[np.ndarray, np.random.Generator], Any],
        batch: Callable[[np.ndarray, int, np.random.Generator], np.ndarray] | None,
        batch_size: int,
        workers: int,
        start_method: str,
    ):
        self.function = function
        self.batch = batch
        self.batch_size = batch_size
        self.workers = workers
        self.start_method = start_method
        self.name = mechanism_name(function)
        # words for outputs in reports (`output_words`): set by `per_call(errors="outcome")`
        self.describe_output: Callable[[np.ndarray], str | None] | None = None
        self._pool: ProcessPoolExecutor | None = None

    def __call__(
        self,
        dataset: np.ndarray,
        num_samples: int,
        rng: np.random.Generator,
        timeout: float | None = None,
    ) -> np.ndarray:
        """`num_samples` outputs; with `timeout`, each call of the function may take that long
        at most (`CallTimeout`)."""
        if self.workers <= 1:
            return _draw(
                self.function, self.batch, self.batch_size, dataset, num_samples, rng, timeout
            )
        sizes = [
            len(chunk)
            for chunk in np.array_split(np.arange(num_samples), self.workers)
            if len(chunk)
        ]
        generators = rng.spawn(len(sizes))
        if (
            multiprocessing.current_process().daemon
        ):  # e.g. a Dask worker: no child processes; the same chunks here
            return np.concatenate(
                [
                    _draw(
                        self.function,
                        self.batch,
                        self.batch_size,
                        dataset,
                        size,
                        generator,
                        timeout,
                    )
                    for size, generator in zip(sizes, generators)
                ]
            )
        return self._on_workers(dataset, sizes, generators, timeout)

    def _on_workers(
        self,
        dataset: np.ndarray,
        sizes: list[int],
        generators: list[np.random.Generator],
        timeout: float | None,
    ) -> np.ndarray:
        """The chunks of `sizes` outputs drawn in the worker processes, one generator each."""
        count = len(sizes)
        if self._pool is None:
            context = multiprocessing.get_context(self.start_method)
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=context,
                initializer=end_with,
                initargs=(os.getpid(),),
            )
        try:
            chunks = list(
                self._pool.map(
                    _draw,
                    [self.function] * count,
                    [self.batch] * count,
                    [self.batch_size] * count,
                    [dataset] * count,
                    sizes,
                    generators,
                    [timeout] * count,
                )
            )
        except BrokenProcessPool:  # a worker died: the next call starts a new pool
            self._pool.shutdown(wait=False)
            self._pool = None
            raise MechanismError(
                f"a worker process of {self!r} died while drawing (the function exited, was killed,"
                " or ran out of memory)."
            ) from None
        return np.concatenate(chunks)

    def close(self) -> None:
        """Shut the worker processes down (they are also shut down at exit)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __getstate__(self) -> dict:
        # a campaign may send the mechanism to another process
        return {
            **self.__dict__,
            "_pool": None,
        }

    def __repr__(self) -> str:
        return f"per_call({self.name}, workers={self.workers}{', batched' if self.batch else ''})"


def per_call(
    function: Callable[[np.ndarray, np.random.Generator], Any],
    *,
    batch: Callable[[np.ndarray, int, np.random.Generator], Any] | None = None,
    batch_size: int = 10_000,
    workers: int = 1,
    start_method: str = "forkserver",
    errors: str = "raise",
) -> PerCallMechanism:
    """Adapt ``function(dataset, rng) -> one output`` to the vectorised contract.

    Without `batch` the adapter loops ``num_samples`` times in Python: use it for code that
    releases one value per call (real DP libraries). Where the code can serve many draws in
    one call (a size argument, or a vector of identical inputs), pass
    ``batch(dataset, count, rng) -> count outputs``; it is called with at most `batch_size`
    draws at a time, and `function` remains the reference one-draw release.

    With ``workers > 1`` draws are split into chunks run in that many worker processes, each
    chunk with its own child generator spawned from ``rng``, so results are reproducible for a
    given worker count. Workers are started with `start_method` (``"forkserver"`` by default,
    safe after JAX or PyTorch have started threads; ``"spawn"`` also is), so the functions must
    be picklable: defined at module level and importable. In a daemonic process (a Dask
    worker's), which may not start processes, the same chunks are drawn one after another. A
    worker that dies fails that draw with `MechanismError`; the next draw starts new workers.

    With ``errors="outcome"`` an exception the function raises is an output, not an error: each
    output gains a last coordinate holding 0, or the code of the exception's type
    (`dpfuzz.error_outcomes`), so a release that raises for some datasets and not for their
    neighbours is audited as the leak it is. With `batch`, a batch call that raises is redrawn
    one call at a time. Reports name the types raised in this process (not in `workers`).
    """
    if not callable(function):
        raise InvalidArgument(
            f"per_call needs a function(dataset, rng) -> one output, got {function!r}."
        )
    if batch is not None and not callable(batch):
        raise InvalidArgument(
            f"batch must be a function(dataset, count, rng) -> count outputs, got {batch!r}."
        )
    check_int("batch_size", batch_size, minimum=1)
    check_int("workers", workers, minimum=1)
    check_choice("start_method", start_method, ("forkserver", "spawn", "fork"))
    check_choice("errors", errors, ("raise", "outcome"))
    if workers > 1:
        _check_picklable(workers, function=function, batch=batch)
    if errors == "raise":
        return PerCallMechanism(function, batch, batch_size, workers, start_method)
    from dpfuzz.error_outcomes import ErrorOutcomes

    outcomes = ErrorOutcomes(function, batch)
    mechanism = PerCallMechanism(
        outcomes.one, outcomes.many if batch else None, batch_size, workers, start_method
    )
    mechanism.name, mechanism.describe_output = mechanism_name(function), outcomes.describe_output
    return mechanism


def _check_picklable(workers: int, **functions: Callable | None) -> None:
    """Functions run in worker processes pickle, or an error says how to make them."""
    for role, value in functions.items():
        try:
            pickle.dumps(value)
        except Exception as error:
            raise InvalidArgument(
                f"per_call(workers={workers}) runs its {role} {value!r} in worker processes, so"
                f" it must be picklable, but pickling failed ({type(error).__name__}: {error})."
                " Define it at module level (not a lambda or a nested function) in an"
                " importable module, or use workers=1."
            ) from error


def _draw(
    function,
    batch,
    batch_size: int,
    dataset: np.ndarray,
    count: int,
    rng: np.random.Generator,
    timeout=None,
) -> np.ndarray:
    """`count` outputs: batched calls of at most `batch_size`, or one call per draw; with
    `timeout`, each call waited for that long at most."""

    def timed(call: Callable[[], Any]) -> Any:
        return call() if timeout is None else call_within(call, timeout)

    if batch is None:
        return np.asarray([timed(lambda: function(dataset, rng)) for _ in range(count)])
    sizes = [batch_size] * (count // batch_size) + (
        [count % batch_size] if count % batch_size else []
    )
    return (
        np.concatenate([np.asarray(timed(partial(batch, dataset, size, rng))) for size in sizes])
        if sizes
        else np.asarray([])
    )


class CallTimeout(Exception):
    """A call ran past its time limit (`call_within`)."""


def call_within(call: Callable[[], Any], seconds: float) -> Any:
    """`call()` in a worker thread, waited for `seconds` at most: `CallTimeout` after them (the
    thread is left to finish on its own; its result is never used)."""
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:  # re-raised in the caller's thread
            outcome["error"] = error

    worker = threading.Thread(target=run, name="dpfuzz-call", daemon=True)
    worker.start()
    worker.join(max(seconds, 0.0))
    if worker.is_alive():
        raise CallTimeout(seconds)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _read_only(dataset: np.ndarray) -> np.ndarray:
    """A view of `dataset` that cannot be written (the mechanism sees the pair under test)."""
    view = np.asarray(dataset).view()
    view.flags.writeable = False
    return view


def _read_only_hint(error: Exception) -> str:
    """The reason when the mechanism wrote into its dataset, which it is handed read-only."""
    if isinstance(error, ValueError) and "read-only" in str(error):
        return (
            ". dpfuzz hands each dataset read-only: a mechanism that changes its input would"
            " change the pair under test. Copy it first (np.array(dataset))"
        )
    return ""


def _one_draw_hint(mechanism, error: Exception) -> str:
    """The fix when a one-draw function f(dataset, rng) was passed where f(dataset, num_samples,
    rng) belongs (the TypeError of calling it with three arguments); for a per-call release, the
    option that audits its exceptions as outputs."""
    if isinstance(error, TypeError) and _binds(mechanism, 2) and not _binds(mechanism, 3):
        return (
            ". It takes (dataset, rng): wrap a function that returns one output per call with"
            " dpfuzz.per_call(f)"
        )
    if isinstance(mechanism, PerCallMechanism):
        return (
            ". If the release refuses some inputs on purpose, per_call(f, errors='outcome') audits"
            " the exception as one of its outputs"
        )
    return ""


def _binds(function, count: int) -> bool:
    """Whether `function` can be called with `count` positional arguments (False without a
    signature)."""
    try:
        inspect.signature(function).bind(*[None] * count)
    except (TypeError, ValueError):
        return False
    return True


# Outputs are drawn in calls of at most CHUNK_VALUES output values (the first call, before the
# output's width is known, of FIRST_ROWS rows): a vectorised mechanism's temporaries then stay
# small enough for the allocator to reuse, where one large call pays a page fault per page of
# each temporary (about as much as the arithmetic here; docs/decisions/0014-drawing-and-memory.md).
CHUNK_VALUES = 1 << 20
FIRST_ROWS = 1 << 12


def draw_samples(
    mechanism: Mechanism,
    dataset: np.ndarray,
    num_samples: int,
    rng: np.random.Generator,
    output_shape: tuple | None = None,
    call_timeout: float | None = None,
) -> np.ndarray:
    """Run the mechanism, in calls of at most CHUNK_VALUES output values, and check what it
    returned.

    Raises `MechanismError`, naming the mechanism and dataset, when the mechanism raises,
    returns a non-numeric array, the wrong number of samples, NaN/inf, or an output shape
    other than `output_shape` (the shape its earlier calls returned), or when one call takes
    longer than `call_timeout` seconds (a `per_call` function's calls are timed one by one).
    """
    rows = FIRST_ROWS if output_shape is None else chunk_rows(output_shape)
    first = _checked_call(
        mechanism, dataset, min(num_samples, rows), rng, output_shape, call_timeout
    )
    if len(first) == num_samples:
        return first
    shape, rows = first.shape[1:], chunk_rows(first.shape[1:])
    samples = empty_array((num_samples, *shape), dtype=first.dtype)
    samples[: len(first)] = first
    start = len(first)
    while start < num_samples:
        chunk = _checked_call(
            mechanism, dataset, min(rows, num_samples - start), rng, shape, call_timeout
        )
        if chunk.dtype != samples.dtype:  # e.g. integers first, then floats
            samples = samples.astype(np.result_type(samples, chunk))
        samples[start : start + len(chunk)] = chunk
        start += len(chunk)
    return samples


def chunk_rows(output_shape: tuple, values: int = CHUNK_VALUES) -> int:
    """Outputs per call: `values` output values, at least one output."""
    return max(values // max(int(np.prod(output_shape)), 1), 1)


def _checked_call(
    mechanism: Mechanism,
    dataset: np.ndarray,
    num_samples: int,
    rng: np.random.Generator,
    output_shape,
    call_timeout: float | None = None,
) -> np.ndarray:
    """One call of the mechanism for `num_samples` outputs, checked (see `draw_samples`)."""

    def where() -> (
        str
    ):  # the call an error names, built only then: a (10^5 × 30) dataset's text takes 0.5 s
        return (
            f"mechanism {mechanism_name(mechanism)!r} on dataset {format_dataset(dataset)} with"
            f" num_samples={num_samples}"
        )

    dataset = _read_only(dataset)
    try:
        if call_timeout is None:
            output = mechanism(dataset, num_samples, rng)
        elif isinstance(mechanism, PerCallMechanism):
            output = mechanism(dataset, num_samples, rng, timeout=call_timeout)
        else:
            output = call_within(lambda: mechanism(dataset, num_samples, rng), call_timeout)
    except CallTimeout:
        one = (
            "one call of its per-call function"
            if isinstance(mechanism, PerCallMechanism)
            else "one call"
        )
        raise MechanismTooSlow(
            f"{where()}: {one} did not return within call_timeout={call_timeout:g} s. Give a larger"
            " call_timeout, or find why the call takes this long."
        ) from None
    except Exception as error:  # the user's code: report it with the input that triggered it
        raise MechanismError(
            f"{where()} raised {type(error).__name__}: {error}{_one_draw_hint(mechanism, error)}"
            f"{_read_only_hint(error)}"
        ) from error
    return _checked_samples(output, num_samples, output_shape, where)


def _checked_samples(
    output: Any, num_samples: int, output_shape: tuple | None, where: Callable[[], str]
) -> np.ndarray:
    """`output` as an array of `num_samples` finite numbers of `output_shape` (when given), or a
    `MechanismError` that names the call (`where`) and the fix."""
    try:
        samples = np.asarray(output)
    except Exception as error:
        raise MechanismError(
            f"{where()} returned {type(output).__name__}, not an array of numbers."
        ) from error
    if samples.dtype == bool:
        samples = samples.astype(np.int64)
    if not (np.issubdtype(samples.dtype, np.integer) or np.issubdtype(samples.dtype, np.floating)):
        raise MechanismError(
            f"{where()} returned dtype {samples.dtype}; outputs must be numbers (a release of"
            " dicts, categories, tuples or models: wrap it with dpfuzz.outputs.structured, or give"
            " --structured)."
        )
    if samples.ndim == 0 or samples.shape[0] != num_samples:
        got = (
            "a scalar"
            if samples.ndim == 0
            else f"leading axis {samples.shape[0]} (shape {samples.shape})"
        )
        raise MechanismError(
            f"{where()} returned {got}; the leading axis must be num_samples={num_samples}. Draw"
            " the noise with size=num_samples, or wrap a one-draw function with dpfuzz.per_call."
        )
    if np.issubdtype(samples.dtype, np.floating):
        bad = ~np.isfinite(samples)
        if bad.any():
            raise MechanismError(
                f"{where()} returned {int(bad.sum())} non-finite values (NaN or inf), e.g. at"
                f" sample {int(np.argwhere(bad)[0][0])}; outputs must be finite numbers."
            )
    if output_shape is not None and samples.shape[1:] != tuple(output_shape):
        raise MechanismError(
            f"{where()} returned outputs of shape {samples.shape[1:]}, but earlier calls returned "
            f"{tuple(output_shape)}; every output must have the same shape."
        )
    return samples
