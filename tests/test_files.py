import os
import subprocess
import sys

import pytest

from dpfuzz.files import write_atomically


def test_a_write_that_fails_leaves_the_old_file_whole_and_no_temporary(tmp_path):
    path = tmp_path / "index.html"
    write_atomically(path, "first report")
    with pytest.raises(UnicodeEncodeError):
        write_atomically(path, "second \udc80 report")  # fails half-way through writing
    assert path.read_text() == "first report" and [p.name for p in tmp_path.iterdir()] == [
        "index.html"
    ]


def test_a_write_removes_what_a_killed_writer_left_and_keeps_a_running_ones(tmp_path):
    path = tmp_path / "run [1].html"
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    killed = tmp_path / f".{path.name}.{int(gone.stdout)}.part"
    running = tmp_path / f".{path.name}.{os.getppid()}.part"
    killed.write_text("half a rep")
    running.write_text("half a report being wri")
    write_atomically(path, "a report")
    assert path.read_text() == "a report" and not killed.exists() and running.exists()
