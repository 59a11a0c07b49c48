"""Campaign audits in supervised processes: one audit that crashes, exits, hangs or runs out
of memory is stored as that audit's outcome, and the campaign goes on.

Locally (`run_isolated`) each worker serves audits one after another (its imports stay warm).
The parent waits on the workers' pipes: a result is passed on; a `SystemExit` or
`KeyboardInterrupt` the mechanism raises, or a pipe that closes (the worker died: `os._exit`, a
signal, out of memory), is a ``crashed`` outcome; an audit that runs past its time limit is a
``timed out`` outcome, its worker killed. A dead or killed worker is replaced.

No process outlives the campaign. Each worker leads its own process group and reaps what its
descendants orphan (`dpfuzz.process_tree`), so killing it kills what it started (a `per_call`
pool, a process that left the group with `setsid`); leaving the generator (the last result, an
error, Ctrl-C) kills every worker, with Ctrl-C and SIGTERM held off until they are gone; and a
worker whose campaign process died (SIGKILL) notices its end of a pipe closing and kills what
it started.

On Dask (`run_in_subprocess`) the task runs its audit in a child process the same way; a Dask
worker is daemonic and may not start `multiprocessing` children, so the child is a plain
subprocess. It ends with its parent, as local workers do: when its stdin (whose other end only
the Dask worker holds) closes, it removes its job's folder and kills what it started.

What a worker or child prints goes to a file of its supervisor's, whose end each audit's summary
keeps (`dpfuzz.captured_output`), not to the campaign's log.

A kill cannot miss: it targets the process, the group it leads and its descendants
(`kill_process_and_group`), and every join and wait has a bound.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from multiprocessing.connection import wait
from pathlib import Path
from typing import TYPE_CHECKING

from dpfuzz.captured_output import CapturedOutput, keep_under_cap, write_into
from dpfuzz.outcomes import Ended, Finished, Outcome
from dpfuzz.process_tree import become_subreaper, kill_process_and_group

if TYPE_CHECKING:
    from dpfuzz.campaign import AuditSpec


def _serve(
    connection,
    alive,
    cwd: str,
    path: list[str],
    one_thread: bool,
    run_audit: Callable,
    output: str,
) -> None:
    """A worker: run the audits sent with `run_audit`, send each result back; stop at None, or
    kill what it started when `alive` (whose other end only the campaign holds) closes. What
    it prints goes to the file `output`."""
    if hasattr(os, "setsid"):
        os.setsid()
    become_subreaper()
    write_into(output)
    threading.Thread(target=_end_with_campaign, args=(alive,), daemon=True).start()
    os.chdir(cwd)  # a forkserver's child starts where the forkserver did: use the campaign's place
    sys.path[:] = path
    limits = None
    if one_thread:  # workers share the cores: one BLAS/OpenMP thread each, or they oversubscribe
        from threadpoolctl import threadpool_limits

        limits = threadpool_limits(limits=1)
    while (spec := connection.recv()) is not None:
        result, goes_on = _guarded(run_audit, spec)
        connection.send((result, goes_on))
        if not goes_on:
            return
    del limits


def _guarded(run_audit: Callable, spec: AuditSpec) -> tuple[tuple | Ended, bool]:
    """`run_audit(spec)`'s result, or the ``crashed`` end of what it raised, and whether the
    process may go on: not after `SystemExit` or `KeyboardInterrupt` from inside the mechanism.
    (`run_audit` turns the mechanism's own errors into outcomes; anything else is dpfuzz's.)"""
    started = time.monotonic()
    try:
        return run_audit(spec), True
    except Exception as error:
        where = traceback.extract_tb(error.__traceback__)[-1]
        reason = (
            f"dpfuzz failed on this audit ({type(error).__name__}: {error}, at"
            f" {where.filename}:{where.lineno}): a bug in dpfuzz; please report it with the audit's"
            " command"
        )
        return Ended(Outcome.CRASHED, reason, time.monotonic() - started), True
    # SystemExit, KeyboardInterrupt inside the mechanism: the process ends
    except BaseException as error:
        reason = (
            f"the mechanism raised {type(error).__name__}{f' ({error})' if str(error) else ''},"
            " which ends a process"
        )
        return Ended(Outcome.CRASHED, reason, time.monotonic() - started), False


def _end_with_campaign(alive) -> None:
    """Block until the campaign's end of `alive` closes, then kill this process and its group."""
    try:
        alive.recv()
    except (EOFError, OSError):
        pass
    _end_own_group()


def _end_own_group() -> None:
    """Kill this process and every process it started, at once."""
    kill_process_and_group(os.getpid())
    os._exit(1)


# Seconds to wait for a killed process to be reaped; SIGKILL cannot be caught, so only a process
# stuck in the kernel takes longer, and it is then left to the operating system.
KILL_WAIT = 10.0
# Longest single wait for results, so that signals and the clock are looked at between waits.
WAIT_SLICE = 60.0


class _Worker:
    def __init__(self, context, one_thread: bool, run_audit: Callable):
        self.connection, child = context.Pipe()
        child_alive, self.alive = context.Pipe(duplex=False)
        self.output = CapturedOutput()
        self.process = context.Process(
            target=_serve,
            args=(
                child,
                child_alive,
                os.getcwd(),
                list(sys.path),
                one_thread,
                run_audit,
                self.output.path,
            ),
        )
        self.process.start()
        child.close()
        child_alive.close()
        self.spec: AuditSpec | None = None
        self.started = 0.0

    def give(self, spec: AuditSpec) -> None:
        self.spec, self.started = spec, time.monotonic()
        self.connection.send(spec)

    def kill(self) -> None:
        """Kill the worker and every process it started, reap it, and remove its output file."""
        kill_process_and_group(self.process.pid)
        self.process.join(KILL_WAIT)
        self.connection.close()
        self.alive.close()
        self.output.remove()


def _finished(spec: AuditSpec, result: tuple | Ended, size: int, tail: str) -> Finished:
    """`spec`'s audit as the supervisor returns it, with the end and size of what it printed."""
    if isinstance(result, Ended):
        return Finished(spec.key, None, result, tail, size)
    return Finished(spec.key, result, None, tail, size)


def _died(code: int | None, seconds: float) -> Ended:
    return Ended(
        Outcome.CRASHED,
        f"the audit's process ended (exit code {code}) before it reported: the mechanism "
        "exited, was interrupted or killed, or ran out of memory",
        seconds,
    )


def _timed_out(audit_timeout: float, seconds: float) -> Ended:
    return Ended(
        Outcome.TIMED_OUT,
        f"the audit ran past audit_timeout={audit_timeout:g} s and was stopped; "
        "give the audit max_seconds, or a larger audit_timeout",
        seconds,
    )


def run_isolated(
    specs: list[AuditSpec], workers: int, audit_timeout: float, run_audit: Callable
) -> Iterator[Finished]:
    """Every audit of `specs` run by `run_audit` (a module-level function, so that it pickles) in
    one of `workers` supervised processes, each audit at most `audit_timeout` seconds; yields
    each as it finishes."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["dpfuzz.campaign"])
    pending, pool = list(reversed(specs)), list[_Worker]()
    try:
        while pending or any(worker.spec is not None for worker in pool):
            while pending and len([w for w in pool if w.spec is not None]) < workers:
                idle = next((w for w in pool if w.spec is None), None)
                if idle is None:
                    idle = _Worker(context, workers > 1, run_audit)
                    pool.append(idle)
                idle.give(pending.pop())
            busy = [(worker, worker.spec) for worker in pool if worker.spec is not None]
            soonest = min(worker.started + audit_timeout for worker, _ in busy)
            left = min(WAIT_SLICE, max(0.0, soonest - time.monotonic()))
            ready = wait([worker.connection for worker, _ in busy], timeout=left)
            for worker, spec in busy:
                seconds = time.monotonic() - worker.started
                if worker.connection in ready:
                    try:
                        result, goes_on = worker.connection.recv()
                    except (EOFError, OSError):
                        worker.process.join(5)
                        code = worker.process.exitcode
                        result, goes_on = _died(code, seconds), False
                    worker.spec = None
                elif seconds >= audit_timeout:
                    result, goes_on = _timed_out(audit_timeout, seconds), False
                else:
                    continue
                finished = _finished(spec, result, *worker.output.take())
                if not goes_on:
                    worker.kill()
                    pool.remove(worker)
                yield finished
    finally:
        with _signals_held():
            for worker in pool:
                worker.kill()


@contextmanager
def _signals_held():
    """Ctrl-C and SIGTERM wait until the block ends (in the main thread; elsewhere, nothing)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = {
        number: signal.signal(number, lambda number, frame: received.append(number))
        for number in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if received:
            signal.raise_signal(received[0])


def run_in_subprocess(
    spec: AuditSpec,
    audit_timeout: float,
    run_audit: Callable,
    abandoned: Callable[[], bool] = lambda: False,
) -> Finished | None:
    """`run_audit(spec)` in a child Python process, at most `audit_timeout` seconds: its result,
    or its ``crashed`` / ``timed out`` end; None once `abandoned()` (asked every
    `ABANDON_CHECK` seconds) says nobody waits for it. The child and what it starts are killed on
    return."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dpfuzz-audit-") as folder:
        job, answer = Path(folder, "job.pickle"), Path(folder, "result.pickle")
        job.write_bytes(pickle.dumps((os.getcwd(), list(sys.path), run_audit, spec, str(answer))))
        output = CapturedOutput(folder)
        # the child's stdin stays open while this process lives: its end is the child's signal
        with open(output.path, "ab") as printed:
            child = subprocess.Popen(
                [sys.executable, "-m", "dpfuzz.isolation", str(job)],
                start_new_session=hasattr(os, "setsid"),
                stdin=subprocess.PIPE,
                stdout=printed,
                stderr=printed,
            )
        try:
            ending, code = _wait_for_child(child, started + audit_timeout, abandoned)
        finally:
            kill_process_and_group(child.pid)
            child.wait(KILL_WAIT)
            if child.stdin is not None:
                child.stdin.close()
        seconds = time.monotonic() - started
        if ending == "abandoned":
            return None
        if ending == "timed out":
            result: tuple | Ended = _timed_out(audit_timeout, seconds)
        elif answer.exists():
            result = pickle.loads(answer.read_bytes())
        else:
            result = _died(code, seconds)
        return _finished(spec, result, *output.take())


ABANDON_CHECK = 1.0  # seconds between a Dask task's checks that its client still waits for it


def _wait_for_child(
    child: subprocess.Popen, ends: float, abandoned: Callable[[], bool]
) -> tuple[str, int | None]:
    """("ended", its exit code) once the child ends; ("abandoned", None) once `abandoned()`;
    ("timed out", None) at `ends` (monotonic seconds)."""
    while (left := ends - time.monotonic()) > 0:
        try:
            return "ended", child.wait(min(left, ABANDON_CHECK))
        except subprocess.TimeoutExpired:
            if abandoned():
                return "abandoned", None
    return "timed out", None


def _end_with_parent(folder: Path) -> None:
    """Block until the parent's end of stdin closes (it returned, or died with its Dask worker),
    then remove the job's folder and kill this process and its group."""
    with suppress(OSError):
        sys.stdin.buffer.read()
    shutil.rmtree(folder, ignore_errors=True)
    _end_own_group()


def _child(job: str) -> None:
    """The child of `run_in_subprocess`: run the job's audit, write its result beside the job;
    it ends with its parent."""
    become_subreaper()
    keep_under_cap()
    threading.Thread(target=_end_with_parent, args=(Path(job).parent,), daemon=True).start()
    cwd, path, run_audit, spec, answer = pickle.loads(Path(job).read_bytes())
    os.chdir(cwd)
    sys.path[:] = path
    result, _ = _guarded(run_audit, spec)
    Path(answer + ".part").write_bytes(pickle.dumps(result))
    os.replace(answer + ".part", answer)


if __name__ == "__main__":
    _child(sys.argv[1])
