"""Killing a process kills everything it started, a process that left its group included."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from processes import alive, wait_for

from dpfuzz.process_tree import children, kill_process_and_group

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/task").exists(), reason="the process tree is read from Linux's /proc"
)

# A subreaper whose child starts a grandchild in a session of its own and exits: the grandchild,
# orphaned, is re-parented to the subreaper, outside its process group.
SUBREAPER = """
import subprocess, sys, time
from dpfuzz.process_tree import become_subreaper
become_subreaper()
subprocess.run([sys.executable, "-c", '''
import subprocess, sys
escaper = subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True
)
print(escaper.pid, flush=True)
'''])
print("ready", flush=True)
time.sleep(600)
"""


def test_a_grandchild_in_a_session_of_its_own_is_killed_with_its_subreaper():
    root = subprocess.Popen(
        [sys.executable, "-c", SUBREAPER],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    escaper = int(root.stdout.readline())
    assert root.stdout.readline().strip() == "ready"
    assert os.getpgid(escaper) == escaper != os.getpgid(root.pid)  # outside the root's group
    wait_for(lambda: escaper in children(root.pid), 30, "the orphan's re-parenting")
    kill_process_and_group(root.pid)
    root.wait(timeout=30)
    wait_for(lambda: not alive(escaper), 30, "the grandchild's end")
