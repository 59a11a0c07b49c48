"""What a campaign's mechanism prints is kept beside its audit, bounded, never in the log."""

from __future__ import annotations

import os
import subprocess
import sys

from dpfuzz.captured_output import CapturedOutput, with_output
from dpfuzz.outcomes import AuditRow, Outcome

# A worker that prints past a small cap: once the cap's thread has emptied the file, it prints
# its last words.
OVERFLOWING = """
import os, sys, time
from dpfuzz import captured_output
captured_output.OUTPUT_CAP, captured_output.CAP_CHECK = 1000, 0.01
captured_output.write_into(sys.argv[1])
print("x" * 5000, flush=True)
ends = time.monotonic() + 60
while os.fstat(1).st_size > 1000 and time.monotonic() < ends:
    time.sleep(0.01)
print("last words", flush=True)
"""


def test_output_past_the_cap_is_dropped_and_its_end_kept(tmp_path):
    output = CapturedOutput(str(tmp_path))
    subprocess.run(
        [sys.executable, "-c", OVERFLOWING, output.path],
        check=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    size, tail = output.take()
    assert size == len("last words\n") and tail == "last words\n"
    assert output.take() == (0, "")  # taken: the file is empty
    output.remove()
    assert not os.path.exists(output.path)


def test_a_crashed_audit_quotes_the_end_of_its_output_and_a_silent_one_is_unchanged():
    crashed = AuditRow("k", "t", outcome=Outcome.CRASHED, error="the process ended")
    summary = with_output(crashed, 12_000, "noise\n" * 100 + "Segmentation fault\n", quote=True)
    assert summary.output_bytes == 12_000 and summary.output and len(summary.output) <= 2000
    assert summary.error and summary.error.startswith("the process ended. Its output ended: …")
    assert summary.error.endswith("Segmentation fault")
    passed = AuditRow("k", "t", outcome=Outcome.OK)
    assert with_output(passed, 0, "", quote=False) is passed
    stored = with_output(passed, 3, "hi\n", quote=False).to_dict()
    assert stored["output"] == "hi\n" and stored["output_bytes"] == 3 and "error" not in stored
