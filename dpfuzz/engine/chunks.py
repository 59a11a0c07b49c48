"""A counting verification's fresh outputs in chunks, each drawn with its own generators, so
that any process (this one, or a Dask worker) draws and counts any chunk alike.

Chunk `index` of a verification draws D0's outputs with the generator seeded by (`entropy`,
index, 0) and D1's with (`entropy`, index, 1); `entropy` comes from the verification's
generator. The counts of a chunk do not depend on where or in which order it is counted, so a
verification spread over a cluster (`count_on_cluster`) certifies the same bound as one in
this process, for the same seed. Only the job (mechanism, pair, tester, events) travels to each
worker once; each chunk sends back its event counts, and the outputs the privacy profile keeps.
"""

from __future__ import annotations

import math
import sys
import threading
from concurrent.futures import CancelledError
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dpfuzz.datasets import DatasetPair
from dpfuzz.engine import clock
from dpfuzz.errors import ClusterLost, InvalidArgument
from dpfuzz.mechanism import Mechanism, draw_samples
from dpfuzz.testers import Tester

if TYPE_CHECKING:
    from dpfuzz.engine.budget import Deadline


def check_dask_client(client: Any) -> None:
    """Refuse what is not a Dask client (None, no client, passes)."""
    if client is not None and not (
        callable(getattr(client, "submit", None)) and callable(getattr(client, "scatter", None))
    ):
        raise InvalidArgument(
            f"dask_client must be a dask.distributed.Client, got {client!r}: e.g."
            " Client('tcp://scheduler:8786'), or Client(LocalCluster(n_workers=2,"
            " threads_per_worker=1))."
        )


def chunk_generators(entropy: int, index: int) -> tuple[np.random.Generator, np.random.Generator]:
    """The generators of chunk `index`: D0's, then D1's."""
    return np.random.default_rng([entropy, index, 0]), np.random.default_rng([entropy, index, 1])


@dataclass(frozen=True)
class CountingJob:
    """What every chunk of one verification shares (sent to each worker once)."""

    mechanism: Mechanism
    pair: DatasetPair
    tester: Tester
    events: tuple
    output_shape: tuple
    call_timeout: float | None
    entropy: int
    switch_interval: float  # `AuditPolicy.worker_switch_interval`


@dataclass(frozen=True)
class ChunkCounts:
    index: int
    size: int  # outputs per side
    counts: list  # per event: [in P's outputs, in Q's outputs]
    kept: tuple | None  # the first outputs of each side, for the privacy profile
    seconds: float


def count_chunk(job: CountingJob, index: int, size: int, keep: int) -> ChunkCounts:
    """Draw chunk `index` (`size` outputs per side), count each event on both sides, and keep
    the first `keep` outputs of each side. Off the main thread (a Dask worker's task), the
    interpreter switches threads every `job.switch_interval` seconds meanwhile."""
    began = clock.now()
    with _switch_interval(
        job.switch_interval if threading.current_thread() is not threading.main_thread() else None
    ):
        outputs = [
            draw_samples(
                job.mechanism, dataset, size, generator, job.output_shape, job.call_timeout
            )
            for dataset, generator in zip(
                (job.pair.d0, job.pair.d1), chunk_generators(job.entropy, index)
            )
        ]
    counts = [[job.tester.in_event(event, side) for side in outputs] for event in job.events]
    kept = tuple(side[:keep] for side in outputs) if keep > 0 else None
    return ChunkCounts(index, size, counts, kept, clock.now() - began)


@contextmanager
def _switch_interval(seconds: float | None):
    """`sys.setswitchinterval(seconds)` in the block (None: unchanged)."""
    previous = sys.getswitchinterval()
    if seconds is not None:
        sys.setswitchinterval(seconds)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def chunk_sizes(count: int, chunk: int) -> list[int]:
    """`count` outputs per side in chunks of `chunk`, the last one smaller."""
    return [chunk] * (count // chunk) + ([count % chunk] if count % chunk else [])


def count_on_cluster(
    client: Any,
    job: CountingJob,
    first_index: int,
    sizes: list[int],
    keeps: list[int],
    deadline: Deadline | None,
    at_least: int,
) -> tuple[list[ChunkCounts], float]:
    """Chunks `first_index`, … of `sizes` counted on the Dask `client`'s workers; with a
    `deadline`, those finished by then, and at least the first
    `at_least` chunks. Returns them in index order, and the wall seconds they took; what a chunk
    raised (the mechanism's `MechanismError`) is raised here, and a lost scheduler or worker is
    `ClusterLost`."""
    from dask.distributed import wait

    began = clock.now()
    try:
        shared = client.scatter(job, broadcast=True, hash=False)
        futures = [
            client.submit(count_chunk, shared, first_index + offset, size, keep, pure=False)
            for offset, (size, keep) in enumerate(zip(sizes, keeps))
        ]
        try:
            if deadline is None:
                wait(futures)
            else:
                wait(futures[:at_least])
                left = deadline.seconds_left()
                if left > 0:
                    wait(futures, timeout=left, return_when="ALL_COMPLETED")
        except TimeoutError:
            pass
        finally:
            with suppress(Exception):  # the scheduler may be gone
                client.cancel([future for future in futures if not future.done()])
        failed = next((future for future in futures if future.status == "error"), None)
        error = None if failed is None else failed.exception()
    except (OSError, CancelledError) as lost:  # the scheduler's connection, a cancelled chunk
        raise ClusterLost(f"the Dask cluster was lost while counting outputs ({lost!r})") from None
    if error is not None:
        if type(error).__name__ == "KilledWorker":  # its worker died: the cluster's failure
            raise ClusterLost(f"a Dask worker counting outputs was lost ({error!r})")
        raise error
    done = [future.result() for future in futures if future.status == "finished"]
    return sorted(done, key=lambda chunk: chunk.index), clock.now() - began


def chunks_for(
    count: int, chunk: int, already: int, keep: int, scalar: bool
) -> tuple[list[int], list[int]]:
    """The chunk sizes of `count` more outputs per side after `already`, and how many of each
    chunk's outputs the profile keeps (up to `keep` in all, of scalar outputs only)."""
    sizes = chunk_sizes(count, chunk)
    offsets: list[int] = np.cumsum([already, *sizes[:-1]]).tolist() if sizes else []
    keeps = [
        max(0, min(size, keep - int(offset))) if scalar else 0
        for size, offset in zip(sizes, offsets)
    ]
    return sizes, keeps


def chunks_needed(outputs: int, chunk: int) -> int:
    """Chunks that hold `outputs` per side."""
    return math.ceil(outputs / chunk) if outputs > 0 else 0
