"""Errors as outcomes: a release that raises for some datasets and not for their neighbours leaks
through the error (``per_call(f, errors="outcome")``).

Each output gains a last coordinate, ``error``: 0 when the call returned, else the code of the
exception's type, 1 + CRC-32 of its qualified name mod 9973 (the same in every process, so draws
made in worker processes agree). A call that raised releases zeros in the value coordinates. The
event "error = code" then separates a dataset whose release raises from a neighbour whose release
does not, and reports name the exception's type (`ErrorWords`). A panic of a Rust-backed
library (pyo3's ``PanicException``, a ``BaseException``) is an outcome too."""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np

# Codes are 1 + CRC-32 mod this prime: short enough to read in an event, rarely shared.
CODES = 9973


def short_code(text: str) -> int:
    """1 + CRC-32 of `text` mod `CODES`: a short code of a name, the same in every process."""
    return 1 + zlib.crc32(text.encode()) % CODES


def error_code(name: str) -> int:
    """The code of an exception type called `name`."""
    return short_code(name)


def error_column(names: dict[int, str]) -> str:
    """The error coordinate's name, with the exception types seen (code → type name)."""
    seen = ", ".join(f"{code} = {name}" for code, name in sorted(names.items()))
    return f"error ({seen})" if seen else "error"


def raised_words(code: int, names: dict[int, str]) -> str:
    """How an output whose error coordinate holds `code` (not 0) reads."""
    return f"raised {names.get(code, f'an exception of code {code}')}"


def released(error: BaseException) -> bool:
    """Whether `error` is a release's outcome: an `Exception`, or a Rust panic surfaced by pyo3
    (``PanicException`` derives from ``BaseException``); never an interrupt or an exit."""
    return isinstance(error, Exception) or type(error).__name__ == "PanicException"


class ErrorOutcomes:
    """`function(dataset, rng)` (and `batch(dataset, count, rng)`, if given) with exceptions
    released as outputs; the value's shape is learnt from the first call that returns (before
    it, a scalar)."""

    def __init__(self, function: Callable, batch: Callable | None = None):
        self.function, self.batch = function, batch
        self.shape: tuple = ()
        self.names: dict[int, str] = {}  # the codes seen in this process, and their types
        self.describe_output = ErrorWords(self)

    def one(self, dataset: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One output, with its error coordinate."""
        try:
            value = np.asarray(self.function(dataset, rng), dtype=float)
        except BaseException as error:
            if not released(error):
                raise
            return np.append(np.zeros(self.shape).ravel(), self._code(error))
        self.shape = value.shape
        return np.append(value.ravel(), 0.0)

    def many(self, dataset: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
        """`count` outputs from one call of `batch`; if it raises, one call of `function` each."""
        if self.batch is None:
            raise ValueError("ErrorOutcomes.many needs a batch function.")
        try:
            values = np.asarray(self.batch(dataset, count, rng), dtype=float)
        except BaseException as error:
            if not released(error):
                raise
            return np.stack([self.one(dataset, rng) for _ in range(count)])
        self.shape = values.shape[1:]
        return np.column_stack([values.reshape(count, -1), np.zeros(count)])

    def _code(self, error: BaseException) -> int:
        name = type(error).__qualname__
        code = error_code(name)
        self.names[code] = name
        return code


class ErrorWords:
    """The words for outputs with an error coordinate: its column names the exception types seen
    (``error (1234 = ValueError)``), and a row that raised reads "raised ValueError"."""

    def __init__(self, outcomes: ErrorOutcomes):
        self.outcomes = outcomes

    @property
    def columns(self) -> list[str]:
        size = int(np.prod(self.outcomes.shape))
        values = ["output"] if size == 1 else [f"output[{index}]" for index in range(size)]
        return [*values, error_column(self.outcomes.names)]

    def __call__(self, row: np.ndarray) -> str | None:
        code = int(np.asarray(row).ravel()[-1])
        return None if code == 0 else raised_words(code, self.outcomes.names)
