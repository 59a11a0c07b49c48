"""Structured outputs: a release's natural output as the fixed-length vector of numbers the
testers take, and the user's words for each of its coordinates.

Real releases return a dict of keyed results whose keys appear or vanish with the data (a
group-by with partition selection), a category or a string, ``None`` or NaN for a suppressed
value, a tuple of mixed types, a list of varying length (a top-k), or a fitted model.
`structured(release)` wraps such a release as a dpfuzz mechanism. Its encoder is chosen from the
first call's outputs (or given) and learns what it must (keys, categories, the longest list) from
the outputs of the first `learn_calls` calls; then it is fixed, and an output it does not know is
encoded as "other" (a key or category first seen later, a longer list's extra items). An audit's
first calls are its probe's, which certify nothing, so the encoding is fixed before any output
that certifies is seen, and an encoded release is as private as the release: the statistics
stay valid.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from dpfuzz.error_outcomes import error_code, error_column, raised_words, released, short_code
from dpfuzz.errors import InvalidArgument, MechanismError
from dpfuzz.mechanism import is_mechanism, mechanism_name, per_call
from dpfuzz.validation import check_choice, check_int

ABSENT, RELEASED, SUPPRESSED = 0, 1, 2  # a key's state in a keyed result


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _is_label(value: Any) -> bool:
    return isinstance(value, (str, bytes, bool, np.bool_))


def _number(value: Any, where: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        raise MechanismError(
            f"{where} is {value!r}, not a number; give structured(release, encoder=...) an encoder"
            " for it."
        )
    return float(value)


class Encoder:
    """Turns natural outputs into rows of numbers of a fixed width. `learn` sees the first calls'
    outputs; after `freeze`, the encoding never changes. `columns` names each coordinate."""

    @property
    def width(self) -> int:
        """Numbers per encoded output."""
        raise NotImplementedError

    @property
    def columns(self) -> list[str]:
        """A name for each of the `width` numbers."""
        raise NotImplementedError

    def learn(self, outputs: list) -> None:
        """Take in what the outputs show (before `freeze`)."""

    def freeze(self) -> None:
        """Fix the encoding."""

    def encode(self, outputs: list) -> np.ndarray:
        raise NotImplementedError

    def describe(self, row: np.ndarray) -> str | None:
        """Words for one encoded output (a discrete pattern in an event), or None."""
        return None

    @property
    def sized(self) -> bool:
        """Whether `width` is known before any output is learnt (rows of outputs that raised
        can then be encoded from the first call on)."""
        return False


class Number(Encoder):
    """A number, or None / NaN for a suppressed value: (suppressed 0/1, value or 0)."""

    def __init__(self, name: str = "value"):
        self.name = name

    @property
    def width(self) -> int:
        return 2

    @property
    def columns(self) -> list[str]:
        return [f"{self.name} suppressed", self.name]

    def encode(self, outputs: list) -> np.ndarray:
        rows = np.zeros((len(outputs), 2))
        for index, value in enumerate(outputs):
            if _is_missing(value):
                rows[index, 0] = 1.0
            else:
                rows[index, 1] = _number(value, self.name)
        return rows


class Category(Encoder):
    """A category (a string, a bool, any hashable): its code in the order categories were first
    seen while learning; None is -1 ("suppressed"), a category first seen later is "other"."""

    def __init__(self, categories: list | None = None, name: str = "category"):
        self.codes = (
            {}
            if categories is None
            else {category: code for code, category in enumerate(categories)}
        )
        self.frozen, self.name = categories is not None, name

    @property
    def width(self) -> int:
        return 1

    @property
    def columns(self) -> list[str]:
        return [self.name]

    def learn(self, outputs: list) -> None:
        for value in outputs:
            if not self.frozen and not _is_missing(value) and value not in self.codes:
                self.codes[value] = len(self.codes)

    def freeze(self) -> None:
        self.frozen = True

    def code(self, value: object) -> float:
        """The value's code: -1 for None, the number of known categories for an unknown one."""
        return -1.0 if _is_missing(value) else float(self.codes.get(value, len(self.codes)))

    def encode(self, outputs: list) -> np.ndarray:
        return np.array([[self.code(value)] for value in outputs])

    def word(self, code: float) -> str:
        if code < 0:
            return "suppressed"
        names = list(self.codes)
        return repr(names[int(code)]) if int(code) < len(names) else "another category"

    def describe(self, row: np.ndarray) -> str | None:
        return f"{self.name} {self.word(row[0])}"


class Keyed(Encoder):
    """A dict of keyed results (or anything with ``to_dict()``, e.g. a pandas Series): for each
    known key, (state: 0 absent, 1 released, 2 released as None/NaN; value or 0), then the keys
    first seen after learning: (how many were released, the sum of their values). A value that
    is a label (a string, a bool) is its code, as `Category` codes labels. Keys are
    learned from the first outputs, up to `max_keys` (`spare` slots beyond those of the first
    call take keys that appear in the next learning calls); `keys` fixes them instead."""

    def __init__(self, keys: list | None = None, max_keys: int = 64, spare: int = 16):
        self.keys: list = [] if keys is None else list(keys)
        self.max_keys, self.spare, self.frozen = max_keys, spare, keys is not None
        self.slots: int | None = len(self.keys) if keys is not None else None
        self.labels = Category(name="value")

    def learn(self, outputs: list) -> None:
        if self.frozen:
            return
        seen: dict = {}
        for output in outputs:
            for key, value in _as_dict(output).items():
                seen[key] = seen.get(key, 0) + 1
                if _is_label(value):
                    self.labels.learn([value])
        for key in sorted(seen, key=lambda key: -seen[key]):
            if key not in self.keys and len(self.keys) < (self.slots or self.max_keys):
                self.keys.append(key)
        if self.slots is None:  # the first call sets the width: its keys and the spare slots
            self.slots = min(len(self.keys) + self.spare, self.max_keys)

    def freeze(self) -> None:
        self.frozen = True
        self.labels.freeze()

    @property
    def sized(self) -> bool:
        return self.slots is not None and self.frozen

    @property
    def width(self) -> int:
        return 2 * (self.slots or 0) + 2

    @property
    def columns(self) -> list[str]:
        names = []
        for slot in range(self.slots or 0):
            key = repr(self.keys[slot]) if slot < len(self.keys) else f"(unused slot {slot})"
            names += [f"key {key} (0 absent, 1 released, 2 suppressed)", f"key {key} value"]
        return names + ["other keys released", "other keys' sum"]

    def encode(self, outputs: list) -> np.ndarray:
        index = {key: slot for slot, key in enumerate(self.keys)}
        rows = np.zeros((len(outputs), self.width))
        for row, output in zip(rows, outputs):
            for key, value in _as_dict(output).items():
                slot = index.get(key)
                if slot is None:
                    row[-2] += 1
                    row[-1] += 0.0 if _is_missing(value) else self._value(key, value)
                elif _is_missing(value):
                    row[2 * slot] = SUPPRESSED
                else:
                    row[2 * slot], row[2 * slot + 1] = RELEASED, self._value(key, value)
        return rows

    def _value(self, key, value) -> float:
        return (
            self.labels.code(value)
            if _is_label(value)
            else _number(value, f"the value of key {key!r}")
        )

    def describe(self, row: np.ndarray) -> str | None:
        words = {ABSENT: "absent", RELEASED: "released", SUPPRESSED: "suppressed"}
        parts = [
            f"{key!r} {words.get(int(row[2 * slot]), '?')}" for slot, key in enumerate(self.keys)
        ]
        return ", ".join(parts + [f"{int(row[-2])} other keys"])


class Sequence(Encoder):
    """A list of varying length (a top-k): (its length, then its first items, each a number or a
    category code, 0 past its end). The item columns are the longest list of the first call,
    times 2, at most `max_items`."""

    def __init__(self, max_items: int = 64):
        self.max_items, self.categories = max_items, Category(name="item")
        self.items: int | None = None

    def learn(self, outputs: list) -> None:
        values = [item for output in outputs for item in output]
        if values and not all(
            isinstance(item, (numbers.Real, np.number)) or _is_missing(item) for item in values
        ):
            self.categories.learn(values)
        if self.items is None:
            self.items = min(
                2 * max((len(output) for output in outputs), default=1), self.max_items
            )

    def freeze(self) -> None:
        self.categories.freeze()

    @property
    def width(self) -> int:
        return 1 + (self.items or 0)

    @property
    def columns(self) -> list[str]:
        return ["length"] + [f"item {index}" for index in range(self.items or 0)]

    def encode(self, outputs: list) -> np.ndarray:
        rows = np.zeros((len(outputs), self.width))
        for row, output in zip(rows, outputs):
            output = list(output)
            row[0] = len(output)
            for index, item in enumerate(output[: self.items]):
                if self.categories.codes:
                    row[1 + index] = self.categories.code(item)
                else:
                    row[1 + index] = 0.0 if _is_missing(item) else _number(item, f"item {index}")
        return rows

    def describe(self, row: np.ndarray) -> str | None:
        items = [
            self.categories.word(code) if self.categories.codes else f"{code:g}"
            for code in row[1 : 1 + int(row[0])]
        ]
        return f"[{', '.join(items)}]"


class Mixed(Encoder):
    """A tuple of a fixed length whose items have their own encoders, side by side."""

    def __init__(self, parts: list[Encoder]):
        self.parts = parts

    def learn(self, outputs: list) -> None:
        for position, part in enumerate(self.parts):
            part.learn([output[position] for output in outputs])

    def freeze(self) -> None:
        for part in self.parts:
            part.freeze()

    @property
    def width(self) -> int:
        return sum(part.width for part in self.parts)

    @property
    def columns(self) -> list[str]:
        return [
            f"[{position}] {name}"
            for position, part in enumerate(self.parts)
            for name in part.columns
        ]

    def encode(self, outputs: list) -> np.ndarray:
        return np.hstack(
            [
                part.encode([output[position] for output in outputs])
                for position, part in enumerate(self.parts)
            ]
        )


class Model(Encoder):
    """A fitted model: its numeric learned attributes (``classes_``, ``coef_``, ``intercept_``,
    ``means_``, …, the ones the first call's models have), flattened, then a last coordinate,
    ``shape``: 0 when every attribute has the shape it had when learnt, else a code of the shapes
    the model has (`dpfuzz.error_outcomes.short_code`), the mismatched attributes' values read as
    zeros. A model with one class more (classes read from the labels) is a value of ``shape``."""

    ATTRIBUTES = (
        "classes_",
        "coef_",
        "intercept_",
        "theta_",
        "var_",
        "class_prior_",
        "means_",
        "cluster_centers_",
        "components_",
        "explained_variance_",
        "mean_",
        "scale_",
        "feature_importances_",
    )

    def __init__(
        self, shapes: dict[str, tuple] | None = None, attributes: tuple[str, ...] | None = None
    ):
        """`shapes` (attribute name → shape) fixes the encoding before any model is seen, for a
        release whose first calls may raise (``structured(..., errors="outcome")``); `attributes`
        names the attributes read instead of `ATTRIBUTES` (``("cluster_centers_", "inertia_")``)."""
        self.shapes: dict[str, tuple] = {
            name: tuple(shape) for name, shape in (shapes or {}).items()
        }
        self.attributes = tuple(attributes) if attributes else self.ATTRIBUTES
        self.other_shapes: dict[int, str] = {}  # the codes seen in this process, and their shapes

    @property
    def sized(self) -> bool:
        return bool(self.shapes)

    def learn(self, outputs: list) -> None:
        if not self.shapes:
            self.shapes = {
                name: np.shape(getattr(outputs[0], name))
                for name in self.attributes
                if _numeric(getattr(outputs[0], name, None))
            }

    @property
    def width(self) -> int:
        return sum(int(np.prod(shape)) for shape in self.shapes.values()) + 1

    @property
    def columns(self) -> list[str]:
        return [
            f"{name}{list(index) if index else ''}"
            for name, shape in self.shapes.items()
            for index in np.ndindex(*shape)
        ] + ["shape (0 = as learnt)"]

    def encode(self, outputs: list) -> np.ndarray:
        return np.array([self._row(output) for output in outputs]).reshape(len(outputs), self.width)

    def _row(self, output) -> np.ndarray:
        values: dict[str, Any] = {name: getattr(output, name, None) for name in self.shapes}
        shapes = {
            name: np.shape(value) if _numeric(value) else None for name, value in values.items()
        }
        parts = [
            np.ravel(np.asarray(values[name], dtype=float))
            if shapes[name] == shape
            else np.zeros(int(np.prod(shape)))
            for name, shape in self.shapes.items()
        ]
        code = 0
        if shapes != self.shapes:
            words = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
            code = short_code(words)
            self.other_shapes[code] = words
        return np.concatenate([*parts, [code]])

    def describe(self, row: np.ndarray) -> str | None:
        code = int(row[-1])
        if code == 0:
            return None
        return f"a model of other shapes ({self.other_shapes.get(code, f'code {code}')})"


def _numeric(value) -> bool:
    return value is not None and np.asarray(value).dtype.kind in "biuf"


def _as_dict(output) -> dict:
    if isinstance(output, dict):
        return output
    if hasattr(output, "to_dict"):  # a pandas Series (index → value), or a one-column DataFrame
        table = output.to_dict()
        if table and all(isinstance(column, dict) for column in table.values()):
            return {
                (row, column): value
                for column, values in table.items()
                for row, value in values.items()
            }
        return table
    raise MechanismError(
        f"a keyed result must be a dict (key → value), got {type(output).__name__}."
    )


def auto_encoder(outputs: list) -> Encoder:
    """The encoder for outputs like these (the first call's)."""
    first = next((output for output in outputs if not _is_missing(output)), None)
    if (
        first is None
        or isinstance(first, (numbers.Real, np.number))
        and not isinstance(first, (bool, np.bool_))
    ):
        return Number()
    if isinstance(first, dict) or hasattr(first, "to_dict"):
        return Keyed()
    if isinstance(first, (str, bytes, bool, np.bool_)):
        return Category()
    if isinstance(first, (list, tuple)):
        lengths = {len(output) for output in outputs if not _is_missing(output)}
        if isinstance(first, tuple) and len(lengths) == 1:
            return Mixed(
                [
                    auto_encoder([output[position] for output in outputs])
                    for position in range(len(first))
                ]
            )
        return Sequence()
    if any(_numeric(getattr(first, name, None)) for name in Model.ATTRIBUTES):
        return Model()
    raise MechanismError(
        f"dpfuzz cannot encode outputs of type {type(first).__name__} on its own; give"
        " structured(release, encoder=...) an Encoder (dpfuzz.outputs: Number, Category, Keyed,"
        " Sequence, Mixed, Model)."
    )


class OutputWords:
    """The user's words for an encoded output: `columns` names each coordinate, and calling it
    on a row describes it (a discrete pattern in an event). With `errors` (code → exception
    type, `dpfuzz.error_outcomes`) the last coordinate is the error's code."""

    def __init__(self, encoder: Encoder, errors: dict[int, str] | None = None):
        self.encoder, self.errors = encoder, errors

    @property
    def columns(self) -> list[str]:
        if self.errors is None:
            return self.encoder.columns
        return [*self.encoder.columns, error_column(self.errors)]

    def __call__(self, row: np.ndarray) -> str | None:
        row = np.asarray(row, dtype=float)
        if self.errors is None:
            return self.encoder.describe(row)
        code = int(row[-1])
        return raised_words(code, self.errors) if code else self.encoder.describe(row[:-1])


class StructuredMechanism:
    """A release with natural outputs as a mechanism with encoded ones; made by `structured`."""

    def __init__(
        self, release: Callable, encoder: Encoder | None, learn_calls: int, errors: str = "raise"
    ):
        catch = errors == "outcome"
        self.release = release if is_mechanism(release) else per_call(_ListOutputs(release, catch))
        self.encoder, self.learn_calls, self.calls = encoder, learn_calls, 0
        self.errors: dict[int, str] | None = {} if catch else None  # code → type, seen here
        self.name = mechanism_name(release)
        self.describe_output = None if encoder is None else OutputWords(encoder, self.errors)

    def __call__(
        self, dataset: np.ndarray, num_samples: int, rng: np.random.Generator
    ) -> np.ndarray:
        raw = self.release(dataset, num_samples, rng)
        items = [
            item.value if isinstance(item, _Boxed) else item
            for item in (raw.tolist() if isinstance(raw, np.ndarray) else raw)
        ]
        returned = [item for item in items if not isinstance(item, _Raised)]
        if not returned and self.calls == 0 and not (self.encoder and self.encoder.sized):
            raise MechanismError(
                f"{self.name} raised on every call before any output showed dpfuzz how to"
                " encode its outputs; give structured(release, encoder=...) an encoder whose"
                " width is known (e.g. Model(shapes={...}))."
            )
        if self.encoder is None:
            self.encoder = auto_encoder(returned)
            self.describe_output = OutputWords(self.encoder, self.errors)
        if self.calls < self.learn_calls and returned:
            self.encoder.learn(returned)
            self.calls += 1
            if self.calls == self.learn_calls:
                self.encoder.freeze()
        if self.errors is None:
            return self.encoder.encode(items)
        rows = np.zeros((len(items), self.encoder.width + 1))
        kept = [index for index, item in enumerate(items) if not isinstance(item, _Raised)]
        if kept:
            rows[kept, :-1] = self.encoder.encode(returned)
        for index, item in enumerate(items):
            if isinstance(item, _Raised):
                rows[index, -1] = error_code(item.name)
                self.errors[int(rows[index, -1])] = item.name
        return rows

    def __repr__(self) -> str:
        return f"structured({self.name}, {type(self.encoder).__name__ if self.encoder else 'auto'})"


class _ListOutputs:
    """A one-output function whose outputs `per_call` keeps as Python objects; with `catch`, an
    exception it raises is kept as a `_Raised` output."""

    def __init__(self, function: Callable, catch: bool = False):
        self.function, self.catch = function, catch

    def __call__(self, dataset, rng):
        if not self.catch:
            return _Boxed(self.function(dataset, rng))
        try:
            return _Boxed(self.function(dataset, rng))
        except BaseException as error:
            if not released(error):
                raise
            return _Boxed(_Raised(type(error).__qualname__))


class _Raised:
    """A call that raised an exception of the type `name` (``errors="outcome"``)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


class _Boxed:
    """One natural output, opaque to numpy (so that a list of dicts or tuples stays a list)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def structured(
    release: Callable,
    *,
    encoder: Encoder | None = None,
    learn_calls: int = 4,
    errors: str = "raise",
) -> StructuredMechanism:
    """A mechanism of `release`, whose outputs are structured: ``release(dataset, rng)`` returns
    one natural output per call (a dict of keyed results, a category, None, a tuple, a list, a
    model), or ``release(dataset, num_samples, rng)`` returns a list of them. The encoder (default:
    chosen from the first call's outputs, `auto_encoder`) learns from the first `learn_calls`
    calls and is then fixed (see the module's docstring).

    With ``errors="outcome"`` (one-output releases) an exception is an output: each row gains a
    last coordinate, 0 or the code of the exception's type (`dpfuzz.error_outcomes`), its other
    coordinates zeros. A release that may raise on its first calls needs an encoder whose width
    is known before any output, e.g. ``Model(shapes=...)``."""
    if not callable(release):
        raise InvalidArgument(f"structured needs a release function, got {release!r}.")
    if encoder is not None and not isinstance(encoder, Encoder):
        raise InvalidArgument(
            "encoder must be a dpfuzz.outputs.Encoder (Number, Category, Keyed, …), got"
            f" {encoder!r}."
        )
    check_int("learn_calls", learn_calls, minimum=1)
    check_choice("errors", errors, ("raise", "outcome"))
    if errors == "outcome" and is_mechanism(release):
        raise InvalidArgument(
            'errors="outcome" records each call\'s exception, so it needs a one-output release'
            " release(dataset, rng), not a batch release(dataset, num_samples, rng)."
        )
    return StructuredMechanism(release, encoder, learn_calls, errors)
