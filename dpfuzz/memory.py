"""Memory: large arrays written once, allocated without transparent huge pages; and refusing
what this machine cannot hold, before it is allocated.

NumPy asks the kernel for huge pages (madvise) on every allocation of 4 MiB or more. Where the
kernel honours that request synchronously (`/sys/kernel/mm/transparent_hugepage/defrag` set to
``madvise``, the usual default), faulting a fresh huge page can wait for memory compaction; in a
process that has allocated and freed gigabytes (an estimate's samples and feature matrices) the
stalls cost more than the huge pages save on an array that is written once and read a few
times. Small arrays, and arrays the mechanism allocates itself, keep NumPy's default: huge
pages may serve a mechanism's reused temporaries (docs/decisions/0014-drawing-and-memory.md).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from dpfuzz.errors import InvalidArgument

if TYPE_CHECKING:
    from numpy.typing import DTypeLike


def _huge_page_switch():
    """NumPy's `_set_madvise_hugepage` (NumPy 2, then 1.x), or None where it has none."""
    for module in ("numpy._core.multiarray", "numpy.core.multiarray"):
        try:
            return importlib.import_module(module)._set_madvise_hugepage
        except (ImportError, AttributeError):
            continue
    return None  # pragma: no cover


_set_madvise_hugepage = _huge_page_switch()


@contextmanager
def ordinary_pages() -> Iterator[None]:
    """Within the block, NumPy's new arrays are not advised as huge pages."""
    if _set_madvise_hugepage is None:  # pragma: no cover
        yield
        return
    previous = _set_madvise_hugepage(False)
    try:
        yield
    finally:
        _set_madvise_hugepage(previous)


def empty_array(shape: int | tuple[int, ...], dtype: DTypeLike = float) -> np.ndarray:
    """`np.empty(shape, dtype)` on ordinary pages (see the module's docstring)."""
    with ordinary_pages():
        return np.empty(shape, dtype=dtype)


def check_affordable(needs: list[tuple[str, float | str, float, str]]) -> None:
    """Refuse, before anything is allocated, what would take more than half this machine's
    memory: each need is (setting, its value or its text, bytes it needs, what they hold); the error
    names the setting, the memory it needs and the machine's."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for name, value, size, what in needs:
        if size > total / 2:
            raise InvalidArgument(
                f"{name}={value if isinstance(value, str) else f'{value:,}'} would need about"
                f" {size / 2**30:,.1f} GiB for {what}, more than half of this machine's"
                f" {total / 2**30:,.1f} GiB: give a smaller {name}."
            )
