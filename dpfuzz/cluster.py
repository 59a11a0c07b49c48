"""Connecting to a Dask scheduler, for a campaign's audits or one audit's certification."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from dpfuzz.errors import ConfigError

WORKER_WAIT = 60.0  # seconds to wait for a Dask scheduler to have a worker
CONNECT_WAIT = 10.0  # seconds to wait for a scheduler to answer at all (a refused address)


@contextmanager
def dask_client(address: str, worker_wait: float = WORKER_WAIT) -> Iterator:
    """A `dask.distributed.Client` of the scheduler at `address`, once it has a worker; a
    `ConfigError` (not a wait without end) when Dask is missing, nothing answers within
    `worker_wait` seconds, or no worker joins within them."""
    try:
        from dask.distributed import Client
    except ImportError as error:
        raise ConfigError(
            "--scheduler needs Dask's distributed engine: pip install 'dpfuzz[distributed]'."
        ) from error
    try:
        client = Client(address, timeout=min(CONNECT_WAIT, worker_wait))
    except (OSError, ValueError, TypeError) as error:  # refused, or not an address at all
        raise ConfigError(
            f"--scheduler {address}: no Dask scheduler answered ({error}); give an address such as"
            " tcp://host:8786."
        ) from None
    with client:
        try:
            client.wait_for_workers(1, timeout=worker_wait)
        except TimeoutError:
            raise ConfigError(
                f"the Dask scheduler at {address} has had no worker for {worker_wait:g} s: start"
                f" one (dask worker {address}), or run without --scheduler."
            ) from None
        yield client


def task_cancelled() -> bool:
    """Inside a running Dask task: whether its client has cancelled it (Dask cannot stop a
    running task; the task asks, and stops its own work). Outside a task: False."""
    try:
        from distributed import get_worker
        from distributed.worker import thread_state

        task = get_worker().state.tasks.get(thread_state.key)
    except (ImportError, ValueError, AttributeError):
        return False
    return task is not None and task.state == "cancelled"
