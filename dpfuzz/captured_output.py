"""What a campaign's mechanism prints: kept beside its audit, never poured into the campaign's log.

A worker process (and each process it starts) writes its standard output and error into a file
of its supervisor's. After each audit the supervisor takes the file's tail into the audit's
summary (``output``, ``output_bytes``) and empties it; a crashed or timed-out audit's reason ends
with that tail, the likeliest place for the cause. A thread in the worker empties the file
whenever it passes `OUTPUT_CAP`, so a mechanism that prints without end fills no disk. The file
is opened for appending, so emptying it under a writer is safe.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from contextlib import suppress
from dataclasses import replace

from dpfuzz.outcomes import AuditRow

OUTPUT_CAP = 16 * 2**20  # bytes the file may hold before it is emptied
TAIL = 2000  # characters of output a summary keeps
REASON_TAIL = 300  # characters of it a crashed or timed-out audit's reason quotes
CAP_CHECK = 0.5  # seconds between the worker's checks of the file's size


class CapturedOutput:
    """The supervisor's side: a file for one worker's output, read and emptied between audits."""

    def __init__(self, directory: str | None = None) -> None:
        descriptor, self.path = tempfile.mkstemp(prefix="dpfuzz-output-", dir=directory)
        os.close(descriptor)

    def take(self) -> tuple[int, str]:
        """(the file's size: bytes written since the last take, less what the cap emptied; its
        last `TAIL` characters), and the file emptied."""
        try:
            with open(self.path, "rb+") as file:
                size = file.seek(0, os.SEEK_END)
                file.seek(max(0, size - TAIL))
                tail = file.read().decode(errors="replace")[-TAIL:]
                file.truncate(0)
        except OSError:
            return 0, ""
        return size, tail

    def remove(self) -> None:
        """Delete the file (the worker is gone)."""
        with suppress(OSError):
            os.unlink(self.path)


def write_into(path: str) -> None:
    """In the worker: send this process's standard output and error (and those of what it
    starts) to `path`, kept under `OUTPUT_CAP` bytes."""
    sys.stdout.flush()
    sys.stderr.flush()
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND)
    os.dup2(descriptor, 1)
    os.dup2(descriptor, 2)
    os.close(descriptor)
    keep_under_cap()


def keep_under_cap() -> None:
    """In the worker: empty the file its standard output goes to whenever it passes
    `OUTPUT_CAP` bytes (checked by a thread every `CAP_CHECK` seconds)."""
    threading.Thread(target=_empty_when_over_cap, daemon=True).start()


def _empty_when_over_cap() -> None:
    while True:
        time.sleep(CAP_CHECK)
        try:
            if os.fstat(1).st_size > OUTPUT_CAP:
                os.ftruncate(1, 0)
        except OSError:
            return


def with_output(summary: AuditRow, size: int, tail: str, quote: bool) -> AuditRow:
    """`summary` with the audit's output (its last characters and its size); with `quote` (an
    audit whose process ended without a result), its reason quotes the output's end."""
    if not size:
        return summary
    error = summary.error
    if quote and error:
        end = ("…" if len(tail) > REASON_TAIL else "") + " ".join(tail[-REASON_TAIL:].split())
        error = f"{error}. Its output ended: {end}"
    return replace(summary, output=tail, output_bytes=size, error=error)
