"""Campaign audits in supervised worker processes: one audit that crashes, exits, hangs or runs
out of memory is stored as that audit's outcome, and the campaign goes on.

Each worker serves audits one after another (its imports stay warm). The parent waits on the
workers' pipes: a result is passed on; a `SystemExit` or `KeyboardInterrupt` the mechanism raises,
or a pipe that closes (the worker died: `os._exit`, a signal, out of memory), is a ``crashed``
outcome; an audit that runs past its time limit is a ``timed out`` outcome, its worker killed. A dead or
killed worker is replaced. Leaving the generator (the last result, an error, Ctrl-C) kills every
worker, so none outlives the campaign.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from multiprocessing.connection import wait
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    from dpfuzz.campaign import AuditSpec


def _serve(connection, cwd: str, path: list[str], one_thread: bool, run_audit: Callable) -> None:
    """A worker: run the audits sent with `run_audit`, send each result back; stop at None."""
    os.chdir(cwd)  # a forkserver's child starts where the forkserver did: use the campaign's place
    sys.path[:] = path
    limits = None
    if one_thread:  # workers share the cores: one BLAS/OpenMP thread each, or they oversubscribe
        from threadpoolctl import threadpool_limits

        limits = threadpool_limits(limits=1)
    while (spec := connection.recv()) is not None:
        started = time.monotonic()
        try:
            connection.send((run_audit(spec), True))
        except BaseException as error:  # SystemExit, KeyboardInterrupt inside the mechanism: this process ends
            reason = f"the mechanism raised {type(error).__name__}{f' ({error})' if str(error) else ''}, which ends a process"
            connection.send((failed(spec, "crashed", reason, time.monotonic() - started), False))
            return
    del limits


class _Worker:
    def __init__(self, context, one_thread: bool, run_audit: Callable):
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, os.getcwd(), list(sys.path), one_thread, run_audit))
        self.process.start()
        child.close()
        self.spec: AuditSpec | None = None
        self.started = 0.0

    def give(self, spec: AuditSpec) -> None:
        self.spec, self.started = spec, time.monotonic()
        self.connection.send(spec)

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.connection.close()


def failed(spec: AuditSpec, outcome: str, error: str, seconds: float) -> tuple[str, dict, None]:
    """The stored result of an audit whose worker died or ran out of time."""
    summary = {
        "key": spec.key, "target": spec.target.name, "params": spec.target.params, "finder": spec.finder, "seed": spec.seed,
        "truth": spec.target.truth, "tester": spec.tester, "claim": "?", "claimed_epsilon": None,
        "outcome": outcome, "error": error, "seconds": seconds,
    }
    return spec.key, summary, None


def run_isolated(specs: list[AuditSpec], workers: int, audit_timeout: float, run_audit: Callable) -> Iterator[tuple]:
    """Every audit of `specs` run by `run_audit` (a module-level function, so that it pickles) in
    one of `workers` supervised processes, each audit at most `audit_timeout` seconds; yields
    (key, summary, report) as they finish."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["dpfuzz.campaign"])
    pending, pool = list(reversed(specs)), []
    try:
        while pending or any(worker.spec is not None for worker in pool):
            while pending and len([w for w in pool if w.spec is not None]) < workers:
                idle = next((w for w in pool if w.spec is None), None)
                if idle is None:
                    idle = _Worker(context, workers > 1, run_audit)
                    pool.append(idle)
                idle.give(pending.pop())
            busy = [worker for worker in pool if worker.spec is not None]
            soonest = min(worker.started + audit_timeout for worker in busy)
            ready = wait([worker.connection for worker in busy], timeout=max(0.0, soonest - time.monotonic()))
            for worker in busy:
                seconds = time.monotonic() - worker.started
                if worker.connection in ready:
                    try:
                        result, alive = worker.connection.recv()
                    except (EOFError, OSError):
                        worker.process.join(5)
                        code = worker.process.exitcode
                        result = failed(worker.spec, "crashed", f"the audit's process ended (exit code {code}) before it "
                                        "reported: the mechanism exited, was interrupted or killed, or ran out of memory", seconds)
                        worker.kill()
                        pool.remove(worker)
                    else:
                        worker.spec = None
                        if not alive:
                            worker.kill()
                            pool.remove(worker)
                    yield result
                elif seconds >= audit_timeout:
                    spec = worker.spec
                    worker.kill()
                    pool.remove(worker)
                    yield failed(spec, "timed out", f"the audit ran past audit_timeout={audit_timeout:g} s and was stopped; "
                                 "give the audit max_seconds, or a larger audit_timeout", seconds)
    finally:
        for worker in pool:
            worker.kill()
