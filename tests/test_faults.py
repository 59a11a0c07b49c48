"""Fault injection: a lost Dask scheduler, a worker killed before it leads its process group,
time settings the operating system's timers cannot hold, and a mechanism that writes into its
dataset. Each fault ends in a bounded time with a message, and never as a verdict on a
mechanism."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from processes import alive, stored_outcomes, wait_for

from dpfuzz import Domain, PureDP, audit
from dpfuzz.campaign import load_config
from dpfuzz.errors import ConfigError, InvalidArgument, MechanismError

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups are POSIX")

MODULE = """
import time

def slow_sum(dataset, num_samples, rng):
    time.sleep(0.2)
    return dataset.sum() + rng.laplace(0.0, 1.0, size=num_samples)
"""


# Dask's scheduler and worker commands, run by this interpreter (whatever is on PATH)
SCHEDULER = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--no-dashboard"]
WORKER = [sys.executable, "-m", "distributed.cli.dask_worker", "--no-dashboard"]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "fault_mechanisms.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.slow
def test_a_lost_dask_scheduler_leaves_its_audits_pending_and_a_resume_runs_them(workdir):
    pytest.importorskip("dask.distributed")
    scheduler_file = workdir / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": workdir}
    scheduler = subprocess.Popen(
        [*SCHEDULER, "--port", "0", "--scheduler-file", scheduler_file],
        start_new_session=True,
        **quiet,
    )
    worker = None
    try:
        wait_for(scheduler_file.exists, 60, "the scheduler's address")
        import json

        address = json.loads(scheduler_file.read_text())["address"]
        worker = subprocess.Popen(
            [*WORKER, address, "--nworkers", "1", "--nthreads", "1"],
            start_new_session=True,
            **quiet,
        )
        config = workdir / "campaign.toml"
        config.write_text(
            "trials = 2\nsamples = 1000\nverify_samples = 2000\nseeds = [0, 1, 2, 3]\n"
            '[[target]]\nmechanism = "fault_mechanisms:slow_sum"\n'
            'claim = { type = "PureDP", epsilon = 1.0 }\ndomain = { max_size = 2 }\n'
        )
        results = workdir / "results"
        command = [sys.executable, "-m", "dpfuzz", "campaign", "run", str(config)]
        command += ["--results", str(results), "--no-report"]
        campaign = subprocess.Popen(
            [*command, "--scheduler", address], stdout=subprocess.PIPE, text=True, cwd=workdir
        )
        database = results / "results.db"
        wait_for(lambda: len(stored_outcomes(database)) >= 1, 120, "a first stored audit")
        os.killpg(scheduler.pid, signal.SIGKILL)
        out, _ = campaign.communicate(timeout=180)
        stored = stored_outcomes(database)
        assert campaign.returncode == 1 and "incomplete" in out and "--resume" in out, out
        assert "crashed" not in stored and 1 <= len(stored) < 4
        resumed = subprocess.run(
            [*command, "--resume"], capture_output=True, text=True, cwd=workdir, timeout=300
        )
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert len(stored_outcomes(database)) == 4 and "crashed" not in stored_outcomes(database)
    finally:
        for process in (scheduler, worker):
            if process is not None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def test_a_worker_killed_before_it_leads_a_group_is_killed_and_reaped():
    from dpfuzz.process_tree import kill_process_and_group

    # a process in this test's group: a group kill of its pid finds no group, the kill finds it
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    began = time.monotonic()
    kill_process_and_group(sleeper.pid)
    assert sleeper.wait(timeout=30) == -signal.SIGKILL and time.monotonic() - began < 30
    kill_process_and_group(sleeper.pid)  # gone: not an error


@pytest.mark.parametrize("value", ["inf", "1e308", "2592000", "0", "-1"])
def test_time_settings_the_timers_cannot_hold_are_refused_with_the_reason(workdir, value):
    config = workdir / "campaign.toml"
    config.write_text(f"audit_timeout = {value}\nmax_seconds = {value}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    assert "audit_timeout must" in str(refused.value) and "max_seconds must" in str(refused.value)
    with pytest.raises(InvalidArgument, match="max_seconds must"):
        audit(
            lambda d, n, rng: rng.laplace(size=n), PureDP(1.0), Domain(), max_seconds=float(value)
        )


def test_a_mechanism_that_writes_into_its_dataset_is_an_error_that_says_so():
    def shifts_its_input(dataset, num_samples, rng):
        total = dataset.sum()
        dataset += 4.0  # the next call would see another dataset
        return total + rng.laplace(0.0, 1.0, num_samples)

    with pytest.raises(MechanismError, match="read-only"):
        audit(shifts_its_input, PureDP(1.0), Domain(max_size=3), seed=0, budget="quick")
    # reading and copying it is fine
    copies = audit(
        lambda d, n, rng: np.array(d).sum() + rng.laplace(0.0, 1.0, n),
        PureDP(1.0),
        Domain(max_size=3),
        seed=0,
        budget="quick",
    )
    assert not copies.violated


SCRIPT = "<script>alert(1)</script>"


def test_a_tampered_results_database_puts_no_live_script_in_any_report(workdir):
    from dpfuzz.campaign import run_audit
    from dpfuzz.campaign_report import write_reports
    from dpfuzz.store import ResultsStore

    config = load_config(
        _write(workdir / "c.toml", 'trials = 2\nsamples = 2000\n[[target]]\nentry = "Laplace"\n')
    )
    store = ResultsStore(workdir / "results.db")
    run_id = store.new_run({**config.to_dict(), "beta": SCRIPT, "budget": SCRIPT})
    key, summary, report = run_audit(config.audits()[0])
    summary = replace(summary, target=SCRIPT, error=SCRIPT)
    store.record(run_id, key, summary, {**report, "html": f"<body>{SCRIPT}</body>"})
    paths, _ = write_reports(store, run_id, workdir / "reports")
    markdown, page = paths[0].read_text(), paths[1].read_text()
    assert SCRIPT not in markdown and SCRIPT not in page and "&lt;script&gt;" in page
    (audit_page,) = (workdir / "reports" / "audits").glob("*.html")
    stored = audit_page.read_text()
    policy = stored.index("Content-Security-Policy")
    assert "default-src 'none'" in stored and policy < stored.index(SCRIPT)


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_results_database_that_is_not_sqlite_or_not_json_is_one_line_status_2(workdir, capsys):
    import sqlite3 as sql

    from dpfuzz.cli import main

    (workdir / "garbage").mkdir()
    (workdir / "garbage" / "results.db").write_bytes(b"not a database " * 300)
    assert main(["report", "--results", str(workdir / "garbage")]) == 2
    assert "is not a dpfuzz results database" in capsys.readouterr().err
    config = _write(
        workdir / "c.toml", 'trials = 2\nsamples = 2000\n[[target]]\nentry = "Laplace"\n'
    )
    results = workdir / "results"
    assert main(["campaign", "run", str(config), "--results", str(results), "--no-report"]) == 0
    with sql.connect(results / "results.db") as connection:
        connection.execute("UPDATE audits SET summary = 'not json'")
    assert main(["report", "--results", str(results)]) == 2
    assert "holds a summary that is not a JSON object" in capsys.readouterr().err


def test_a_scheduler_lost_while_an_audit_counts_on_it_is_cluster_lost():
    pytest.importorskip("dask.distributed")
    from dpfuzz.engine.chunks import count_on_cluster
    from dpfuzz.errors import ClusterLost

    class Gone:  # a client whose scheduler closed the connection
        def scatter(self, *args, **kwargs):
            raise OSError("CommClosedError: in <TCP (closed)>: Stream is closed")

    with pytest.raises(ClusterLost, match="lost while counting outputs"):
        count_on_cluster(Gone(), None, 0, [10], [0], None, 1)


PARENT = """
import sys
from dpfuzz.campaign import load_config, run_audit
from dpfuzz.isolation import run_in_subprocess

spec = load_config(sys.argv[1]).audits()[0]
run_in_subprocess(spec, 600, run_audit)
"""


def test_an_audits_child_ends_with_its_dask_worker_and_removes_its_folder(workdir):
    (workdir / "hanging.py").write_text(
        "import time\ndef hangs(dataset, num_samples, rng):\n    time.sleep(600)\n"
    )
    config = _write(
        workdir / "c.toml",
        '[[target]]\nmechanism = "hanging:hangs"\nclaim = { type = "PureDP", epsilon = 1.0 }\n',
    )
    temporary = workdir / "tmp"
    temporary.mkdir()
    environment = {**os.environ, "TMPDIR": str(temporary), "PYTHONPATH": str(workdir)}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(config)], env=environment, cwd=workdir
    )
    wait_for(lambda: any(temporary.glob("dpfuzz-audit-*/job.pickle")), 60, "the audit's child")
    (folder,) = temporary.glob("dpfuzz-audit-*")
    # the job's file comes before the child that reads it
    wait_for(lambda: _started(folder), 60, "the audit's child to start")
    children = _started(folder)
    parent.kill()  # as a Dask worker killed with SIGKILL
    parent.wait()
    wait_for(lambda: not any(alive(pid) for pid in children), 30, "the child to end")
    wait_for(lambda: not folder.exists(), 30, "the job's folder to go")


def _started(folder: Path) -> list[int]:
    """The processes whose command line names `folder`."""
    return [
        int(proc.name)
        for proc in Path("/proc").iterdir()
        if proc.name.isdigit() and str(folder) in _cmdline(proc)
    ]


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
