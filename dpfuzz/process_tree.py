"""A process and every process it started, found and killed together.

A process that calls `setsid` leaves its parent's process group, so a group kill misses it. On
Linux a supervised process makes itself a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`):
a process its descendants orphan is re-parented to it, not to init, so whatever it started
stays in its tree, which `/proc/PID/task/*/children` lists. Elsewhere the tree is the process
group alone.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from contextlib import suppress
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>


def become_subreaper() -> None:
    """Make this process the reaper of what its descendants orphan (Linux; elsewhere nothing)."""
    if sys.platform.startswith("linux"):
        with suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def running(pid: int) -> bool:
    """Whether process `pid` runs: it exists and is not a zombie (dead, not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    with suppress(OSError, IndexError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][0] != "Z"
    return True


PARENT_CHECK = 1.0  # seconds between a pool worker's checks that its pool's owner runs


def end_with(pid: int) -> None:
    """In a worker of a process pool: end this process once process `pid` (the pool's owner)
    no longer runs, so a pool whose owner was killed, or left without shutting it down, leaves
    no process behind. Starts a daemon thread."""
    threading.Thread(target=_end_after, args=(pid,), daemon=True).start()


def _end_after(pid: int) -> None:
    while running(pid):
        time.sleep(PARENT_CHECK)
    os._exit(0)


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (none where /proc does not list them)."""
    found: list[int] = []
    for listing in Path(f"/proc/{pid}/task").glob("*/children"):
        with suppress(OSError, ValueError):
            found += [int(child) for child in listing.read_text().split()]
    return found


def _send(pid: int, number: int, group: bool = False) -> None:
    """Signal `number` to `pid` (or the group it leads); one already gone is not an error."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, number) if group else os.kill(pid, number)


def stopped_descendants(pid: int) -> list[int]:
    """Every descendant of `pid`, each stopped (SIGSTOP) before its children are read, so that
    none starts another unseen."""
    found: list[int] = []
    frontier = children(pid)
    while frontier:
        child = frontier.pop()
        if child in found or child == os.getpid():
            continue
        _send(child, signal.SIGSTOP)
        found.append(child)
        frontier += children(child)
    return found


def kill_process_and_group(pid: int) -> None:
    """SIGKILL `pid`, the process group it leads and every descendant, however it left the group.

    The group: a worker that has not yet called `setsid` leads none (its group kill finds
    nothing), and once it has, its children are in its group. The descendants: one that called
    `setsid` is in a group of its own. A process or group already gone is not an error; `pid`
    may be this process, which then ends last."""
    if not hasattr(os, "killpg"):
        _send(pid, signal.SIGKILL)
        return
    if pid != os.getpid():
        _send(pid, signal.SIGSTOP)
    for descendant in stopped_descendants(pid):
        _send(descendant, signal.SIGKILL, group=True)
        _send(descendant, signal.SIGKILL)
    _send(pid, signal.SIGKILL, group=True)
    _send(pid, signal.SIGKILL)
