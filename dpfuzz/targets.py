"""Resolve ``package.module:attribute`` targets named on the command line or in a config."""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

from dpfuzz.errors import ConfigError


def load_attribute(spec: str) -> Any:
    """Import ``package.module:attribute.path`` (modules in the working directory included)."""
    module_name, separator, attribute = spec.partition(":")
    if not separator or not module_name or not attribute:
        raise ConfigError(f"target {spec!r} must look like 'package.module:attribute'.")
    sys.path.insert(0, str(Path.cwd()))
    try:
        value: Any = importlib.import_module(module_name)
    finally:
        sys.path.pop(0)
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise ConfigError(f"module {module_name!r} has no attribute {attribute!r}.")
        value = getattr(value, part)
    return value


def is_mechanism(target: Any) -> bool:
    """A mechanism takes ``num_samples``; anything else callable is a factory."""
    try:
        return "num_samples" in inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False
