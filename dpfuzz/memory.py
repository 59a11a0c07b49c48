"""Large arrays written once, allocated without transparent huge pages.

NumPy asks the kernel for huge pages (madvise) on every allocation of 4 MiB or more. Where the
kernel honours that request synchronously (`/sys/kernel/mm/transparent_hugepage/defrag` set to
``madvise``, the usual default), faulting a fresh huge page can wait for memory compaction; in a
process that has allocated and freed gigabytes (an estimate's samples and feature matrices) the
stalls cost more than the huge pages save on an array that is written once and read a few
times. Measured on 2026-11-27, SVT3's fit stage at 1.2·10^6 outputs per side: the 1.0·10^6 × 60
feature matrix took 1.85 s to fill, 0.48 s on ordinary pages; assembling the drawn outputs 1.35
→ 0.31 s. Small arrays, and arrays the mechanism allocates itself, keep NumPy's default (a scalar
mechanism's reused temporaries gain from huge pages: ReportNoisyMax3's estimates ran 10–17%
slower with them off everywhere).
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

try:  # NumPy ≥ 2
    from numpy._core.multiarray import _set_madvise_hugepage
except ImportError:  # pragma: no cover - NumPy 1.x
    from numpy.core.multiarray import _set_madvise_hugepage


@contextmanager
def ordinary_pages():
    """Within the block, NumPy's new arrays are not advised as huge pages."""
    previous = _set_madvise_hugepage(False)
    try:
        yield
    finally:
        _set_madvise_hugepage(previous)


def empty_array(shape, dtype=float) -> np.ndarray:
    """`np.empty(shape, dtype)` on ordinary pages (see the module's docstring)."""
    with ordinary_pages():
        return np.empty(shape, dtype=dtype)
