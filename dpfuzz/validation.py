"""Shared argument validators: every check of user input goes through these, so every bad
value gets the same kind of message (the argument, the value given, what is valid) and the
same exception type, `InvalidArgument` (the pattern of Hypothesis's ``internal/validation``).
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Iterable, Sequence
from typing import TypeVar, cast

from dpfuzz.errors import InvalidArgument

T = TypeVar("T")


def did_you_mean(value: object, choices: Iterable[object]) -> str:
    """' Did you mean 'x'?' for a close match among `choices` (ignoring case: 'svt3' finds 'SVT3'),
    else ''."""
    by_lower = {str(choice).lower(): str(choice) for choice in choices}
    matches = difflib.get_close_matches(str(value).lower(), list(by_lower), n=1, cutoff=0.6)
    return f" Did you mean {by_lower[matches[0]]!r}?" if matches else ""


def unknown_keys(given: Iterable[str], known: Sequence[str], where: str) -> list[str]:
    """One message per unknown key of `given` (with a suggestion), for configs that report all
    problems."""
    return [
        f"{where}: unknown key {key!r}.{did_you_mean(key, known)} Known keys:"
        f" {', '.join(sorted(known))}."
        for key in given
        if key not in known
    ]


def check_keys(given: Iterable[str], known: Sequence[str], where: str) -> None:
    problems = unknown_keys(given, known, where)
    if problems:
        raise InvalidArgument(" ".join(problems))


def check_choice(name: str, value: object, choices: Sequence[T]) -> T:
    if value not in choices:
        listed = ", ".join(repr(choice) for choice in choices)
        raise InvalidArgument(
            f"{name} must be one of {listed}; got {value!r}.{did_you_mean(value, choices)}"
        )
    return cast(T, value)


def is_int(value: object) -> bool:
    """An integer (Python or numpy), and not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_int(name: str, value: object, minimum: int | None = None) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise InvalidArgument(
            f"{name} must be an int, got {value!r} of type {type(value).__name__}."
        )
    if minimum is not None and value < minimum:
        raise InvalidArgument(f"{name} must be an int >= {minimum}, got {value!r}.")
    return int(value)


def check_number(
    name: str,
    value: object,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    exclusive_minimum: bool = False,
    exclusive_maximum: bool = False,
    finite: bool = True,
) -> float:
    """A real number (not a bool, not NaN) within the given bounds; returns it as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidArgument(
            f"{name} must be a real number, got {value!r} of type {type(value).__name__}."
        )
    number = float(value)
    if math.isnan(number):
        raise InvalidArgument(f"{name} must be a number, got NaN.")
    if finite and math.isinf(number):
        raise InvalidArgument(f"{name} must be finite, got {value!r}.")
    too_small = minimum is not None and (
        number <= minimum if exclusive_minimum else number < minimum
    )
    too_large = maximum is not None and (
        number >= maximum if exclusive_maximum else number > maximum
    )
    if too_small or too_large:
        if maximum is None:
            raise InvalidArgument(
                f"{name} must be {'>' if exclusive_minimum else '>='} {minimum:g}, got {value!r}."
            )
        if minimum is None:
            raise InvalidArgument(
                f"{name} must be {'<' if exclusive_maximum else '<='} {maximum:g}, got {value!r}."
            )
        low = f"{minimum:g} {'<' if exclusive_minimum else '<='} "
        high = f" {'<' if exclusive_maximum else '<='} {maximum:g}"
        raise InvalidArgument(f"{name} must satisfy {low}{name}{high}, got {value!r}.")
    return number


# The longest time setting dpfuzz accepts: a week. The operating system's timers overflow at
# about 24.8 days (2^31 ms), where a wait would end at once or never.
MAX_SECONDS = 7 * 24 * 3600.0


def check_seconds(name: str, value: object) -> float:
    """A positive, finite number of seconds of at most `MAX_SECONDS` (a week)."""
    seconds = check_number(name, value, minimum=0.0, exclusive_minimum=True, finite=False)
    if seconds > MAX_SECONDS:
        raise InvalidArgument(
            f"{name} must be at most {MAX_SECONDS:,.0f} s (a week), got {value!r}: longer waits"
            " overflow the operating system's timers. Give a finite number of seconds."
        )
    return seconds


def check_probability(name: str, value: object) -> float:
    """A probability strictly between 0 and 1 (a confidence parameter such as beta)."""
    return check_number(
        name, value, minimum=0.0, maximum=1.0, exclusive_minimum=True, exclusive_maximum=True
    )
