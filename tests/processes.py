"""Helpers of the tests that run campaigns in other processes: is a process alive, wait for a
condition with a bound, what has a results database stored so far."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False


def wait_for(predicate, seconds: float, what: str) -> None:
    """Poll `predicate` every 0.1 s; fail the test naming `what` after `seconds`."""
    ends = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < ends, f"waited {seconds} s for {what}"
        time.sleep(0.1)


def stored_outcomes(database: Path) -> list[str]:
    """The outcome of each audit a results database holds ("pending" for one not finished; none
    before the database is created)."""
    try:
        with sqlite3.connect(database) as connection:
            rows = connection.execute("SELECT summary FROM audits").fetchall()
    except sqlite3.OperationalError:  # not created yet
        return []
    return [json.loads(row[0])["outcome"] if row[0] else "pending" for row in rows]
