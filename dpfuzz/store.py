"""Results store: one SQLite file; every finished audit is committed the moment it arrives.

Tables: ``runs`` (one row per campaign run, with its config) and ``audits`` (one row per
finished audit, unique per run and audit key, with the full JSON report). A run killed at any
point keeps every committed audit; resuming skips them. A process that runs a run's audits
holds a lock on that run (a byte of ``results.db.lock``, released when the process ends), so
two resumes of one run cannot both run its pending audits.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from dpfuzz.errors import ConfigError
from dpfuzz.outcomes import AuditRow

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audits (
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    key TEXT NOT NULL,
    finished TEXT NOT NULL,
    summary TEXT NOT NULL,
    report TEXT,
    PRIMARY KEY (run_id, key)
);
"""


class ResultsStore:
    """A results database at `path` (created with its folder if missing)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(self.path)
        try:
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.executescript(_SCHEMA)
            self._connection.commit()
        except sqlite3.DatabaseError as error:
            self._connection.close()
            raise ConfigError(
                f"{self.path} is not a dpfuzz results database ({error}); give the --results"
                " folder of a campaign, or a new folder."
            ) from None
        self._lock_file: BinaryIO | None = None
        self._locked: set[int] = set()

    def _loads(self, text: str, what: str) -> dict:
        """A stored JSON object, or a `ConfigError` naming the database: a results database is
        data that something else may have written."""
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, TypeError):
            value = None
        if not isinstance(value, dict):
            raise ConfigError(
                f"{self.path} holds a {what} that is not a JSON object: the database was written by"
                " something other than dpfuzz, or damaged. Use another --results folder."
            )
        return value

    def close(self) -> None:
        self._connection.close()
        if self._lock_file is not None:
            self._lock_file.close()  # releases this process's locks

    def lock_run(self, run_id: int) -> None:
        """Hold run `run_id` for this process (until it ends or the store closes), or raise
        `ConfigError` when another process holds it. Without POSIX locks (Windows), nothing."""
        try:
            import fcntl
        except ImportError:
            return
        if run_id in self._locked:
            return
        if self._lock_file is None:
            self._lock_file = open(self.path.with_name(self.path.name + ".lock"), "a+b")
        try:
            fcntl.lockf(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, run_id)
        except OSError:
            raise ConfigError(
                f"run {run_id} of {self.path} is being run by another process; wait for it to"
                " finish (or stop it), then resume."
            ) from None
        self._locked.add(run_id)

    def new_run(self, config: dict) -> int:
        cursor = self._connection.execute(
            "INSERT INTO runs (started, config) VALUES (?, ?)",
            (_now(), json.dumps(config, sort_keys=True)),
        )
        self._connection.commit()
        assert cursor.lastrowid is not None  # an INSERT sets it
        return cursor.lastrowid

    def runs(self) -> list[dict]:
        rows = self._connection.execute(
            "SELECT run_id, started, config FROM runs ORDER BY run_id"
        ).fetchall()
        return [
            {"run_id": run_id, "started": started, "config": self._loads(config, "run config")}
            for run_id, started, config in rows
        ]

    def run(self, run_id: int | None = None) -> dict:
        """The run with this id, or the latest one."""
        runs = self.runs()
        if not runs:
            raise ConfigError(
                f"no campaign runs in {self.path}; start one with 'dpfuzz campaign run'."
            )
        if run_id is None:
            return runs[-1]
        for run in runs:
            if run["run_id"] == run_id:
                return run
        raise ConfigError(
            f"no run {run_id} in {self.path}; runs: {[run['run_id'] for run in runs]}."
        )

    def record(self, run_id: int, key: str, summary: AuditRow, report: dict | None) -> None:
        """Commit one finished audit, its summary as `AuditRow.to_dict` (a second record of the same
        key is ignored)."""
        self._connection.execute(
            "INSERT OR IGNORE INTO audits (run_id, key, finished, summary, report) VALUES (?, ?, ?,"
            " ?, ?)",
            (
                run_id,
                key,
                _now(),
                json.dumps(summary.to_dict()),
                None if report is None else json.dumps(report),
            ),
        )
        self._connection.commit()

    def forget(self, run_id: int, outcomes: tuple[str, ...]) -> int:
        """Delete the run's audits stored with one of `outcomes` (to run them again); how many."""
        rows = self._connection.execute(
            "SELECT key, summary FROM audits WHERE run_id = ?", (run_id,)
        ).fetchall()
        keys = [
            key
            for key, summary in rows
            if self._loads(summary, "summary").get("outcome") in outcomes
        ]
        self._connection.executemany(
            "DELETE FROM audits WHERE run_id = ? AND key = ?", [(run_id, key) for key in keys]
        )
        self._connection.commit()
        return len(keys)

    def finished_keys(self, run_id: int) -> set[str]:
        return {
            key
            for (key,) in self._connection.execute(
                "SELECT key FROM audits WHERE run_id = ?", (run_id,)
            )
        }

    def summaries(self, run_id: int) -> list[dict]:
        rows = self._connection.execute(
            "SELECT summary FROM audits WHERE run_id = ? ORDER BY finished, key", (run_id,)
        ).fetchall()
        return [self._loads(summary, "summary") for (summary,) in rows]

    def last_finished(self, run_id: int) -> str | None:
        """When the run's last stored audit finished (ISO 8601), or None before any."""
        row = self._connection.execute(
            "SELECT MAX(finished) FROM audits WHERE run_id = ?", (run_id,)
        ).fetchone()
        return row[0]

    def reports(self, run_id: int) -> dict[str, dict]:
        """Every stored report of the run at once (`each_report` holds one at a time)."""
        return dict(self.each_report(run_id))

    def report_keys(self, run_id: int) -> set[str]:
        """The keys of the run's audits that have a stored report."""
        rows = self._connection.execute(
            "SELECT key FROM audits WHERE run_id = ? AND report IS NOT NULL", (run_id,)
        )
        return {key for (key,) in rows}

    def each_report(self, run_id: int) -> Iterator[tuple[str, dict]]:
        """(key, report) of the run's audits, read one row at a time: a night of 10^4 audits
        never sits in memory whole (an SQLite cursor fetches its rows as they are read)."""
        rows = self._connection.execute(
            "SELECT key, report FROM audits WHERE run_id = ? AND report IS NOT NULL ORDER BY key",
            (run_id,),
        )
        for key, report in rows:
            yield key, self._loads(report, "report")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")
