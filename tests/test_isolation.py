"""Campaigns that survive their audits: Ctrl-C, a second Ctrl-C, SIGTERM and SIGKILL of a campaign
with workers keep every finished result and leave no process behind; a run resumes in one process
at a time; Dask runs poison pills isolated."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import alive, stored_outcomes, wait_for

from dpfuzz.campaign import load_config, run_campaign
from dpfuzz.errors import ConfigError
from dpfuzz.store import ResultsStore

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups are POSIX")

MODULE = """
import os, time
from pathlib import Path
from dpfuzz import per_call

def laplace_sum(dataset, num_samples, rng):
    return dataset.sum() + rng.laplace(0.0, 1.0, size=num_samples)

def stuck(dataset, rng):
    Path(f"pid-{os.getpid()}").touch()
    time.sleep(600)

def stuck_pool():
    return per_call(stuck, workers=2)

def marked(dataset, rng):
    Path(f"pid-{os.getpid()}").touch()
    return dataset.sum() + rng.laplace()

def pool():
    return per_call(marked, workers=2)

def exits(dataset, num_samples, rng):
    os._exit(3)

def interrupts(dataset, num_samples, rng):
    raise KeyboardInterrupt

def hangs(dataset, num_samples, rng):
    time.sleep(600)

def hangs_marked(dataset, num_samples, rng):
    Path(f"pid-{os.getpid()}").touch()
    time.sleep(600)

def chatty(dataset, num_samples, rng):
    print("x" * 1_000_000, flush=True)
    print("last words", flush=True)
    os._exit(3)

def escapes(dataset, num_samples, rng):
    if not list(Path(".").glob("pid-*")):  # a process of its own session, outside the group
        import subprocess, sys
        escaper = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True
        )
        Path(f"pid-{escaper.pid}").touch()
    return dataset.sum() + rng.laplace(0.0, 1.0, size=num_samples)
"""


def _target(name: str) -> str:
    return (
        f'[[target]]\nmechanism = "isolated_mechanisms:{name}"\nclaim = {{ type = "PureDP", epsilon'
        " = 1.0 }\ndomain = { max_size = 3 }\n"
    )


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "isolated_mechanisms.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _campaign_command(config: Path, *options: str) -> list[str]:
    """`dpfuzz campaign run CONFIG` with results beside the config, `options`, and no report."""
    return [
        sys.executable,
        "-c",
        "from dpfuzz.cli import main; raise SystemExit(main())",
        "campaign",
        "run",
        str(config),
        "--results",
        str(config.parent / "results"),
        *options,
        "--no-report",
    ]


def _start_stuck_campaign(workdir: Path) -> tuple[subprocess.Popen, Path]:
    """A campaign with two workers: two quick audits stored, then two audits whose per_call
    pools hang (each pool process leaves a pid-N file). Returns once all of that holds."""
    config = workdir / "campaign.toml"
    config.write_text(
        "trials = 2\nsamples = 1000\nverify_samples = 2000\nseeds = [0, 1]\n"
        + _target("laplace_sum")
        + _target("stuck_pool")
    )
    command = _campaign_command(config, "--workers", "2")
    process = subprocess.Popen(
        command,
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    started = time.monotonic()
    while (
        len(stored_outcomes(workdir / "results" / "results.db")) < 2
        or len(list(workdir.glob("pid-*"))) < 4
    ):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() - started < 120, "the campaign did not reach its stuck audits"
        time.sleep(0.2)
    return process, workdir / "results" / "results.db"


def _stuck_pids(workdir: Path) -> list[int]:
    return [int(path.name.split("-")[1]) for path in workdir.glob("pid-*")]


def _gone(pids: list[int], within: float = 10.0) -> bool:
    ends = time.monotonic() + within
    while any(alive(pid) for pid in pids) and time.monotonic() < ends:
        time.sleep(0.1)
    return not any(alive(pid) for pid in pids)


@pytest.mark.parametrize(
    "signals",
    [[signal.SIGINT], [signal.SIGINT, signal.SIGINT], [signal.SIGTERM]],
    ids=["ctrl-c", "ctrl-c twice", "sigterm"],
)
def test_an_interrupted_campaign_keeps_its_results_and_leaves_no_process(workdir, signals):
    process, database = _start_stuck_campaign(workdir)
    sent = time.monotonic()
    for number in signals:  # as a terminal does: to the campaign's process group
        os.killpg(process.pid, number)
        time.sleep(0.05)
    _, stderr = process.communicate(timeout=30)
    assert time.monotonic() - sent < 10, stderr
    if len(signals) == 1:
        assert (
            process.returncode == 130
            and "finish the run with dpfuzz campaign run" in stderr
            and "--resume" in stderr
        )
    else:  # the second Ctrl-C may end the process by its signal, after or during the message
        assert process.returncode in (130, -signal.SIGINT), stderr
    assert len(stored_outcomes(database)) == 2
    assert _gone(_stuck_pids(workdir))


def test_a_killed_campaign_leaves_no_worker(workdir):
    process, _ = _start_stuck_campaign(workdir)
    process.kill()
    process.wait()
    assert _gone(_stuck_pids(workdir))


@pytest.mark.slow
def test_a_campaign_of_per_call_pools_on_workers_ends_and_leaves_no_process(workdir):
    config = workdir / "campaign.toml"
    config.write_text(
        "trials = 2\nsamples = 1000\nverify_samples = 2000\nseeds = [0, 1]\n" + _target("pool")
    )
    command = _campaign_command(config, "--workers", "2")
    finished = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert (
        len(stored_outcomes(workdir / "results" / "results.db")) == 2
        and len(_stuck_pids(workdir)) >= 2
    )
    assert _gone(_stuck_pids(workdir))


@pytest.mark.slow
def test_a_process_a_mechanism_starts_in_a_session_of_its_own_ends_with_the_campaign(workdir):
    config = workdir / "campaign.toml"
    config.write_text("trials = 2\nsamples = 1000\nverify_samples = 2000\n" + _target("escapes"))
    command = _campaign_command(config)
    with open(workdir / "stderr.txt", "w") as stderr:  # a pipe would be held by the escaper
        code = subprocess.run(command, cwd=workdir, stderr=stderr, timeout=120).returncode
    assert code == 0, (workdir / "stderr.txt").read_text()
    assert _stuck_pids(workdir) and _gone(_stuck_pids(workdir))


@pytest.mark.slow
def test_what_a_mechanism_prints_is_kept_with_its_audit_not_in_the_campaigns_log(workdir):
    config = workdir / "campaign.toml"
    config.write_text("trials = 2\nsamples = 1000\nverify_samples = 2000\n" + _target("chatty"))
    command = _campaign_command(config)
    finished = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 1 and len(finished.stdout) + len(finished.stderr) < 5000
    (summary,) = ResultsStore(workdir / "results" / "results.db").summaries(1)
    assert summary["outcome"] == "crashed" and summary["output_bytes"] > 1_000_000
    assert summary["output"].endswith("last words\n") and "last words" in finished.stdout


@pytest.mark.slow
def test_a_second_resume_of_a_running_run_is_refused(workdir):
    process, database = _start_stuck_campaign(workdir)
    command = [
        sys.executable,
        "-c",
        "from dpfuzz.cli import main; raise SystemExit(main())",
        "campaign",
        "run",
        "campaign.toml",
        "--results",
        "results",
        "--resume",
        "--no-report",
    ]
    second = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=120)
    process.kill()
    process.wait()
    assert (
        second.returncode == 2
        and "run 1 of" in second.stderr
        and "is being run by another process" in second.stderr
    )
    assert len(stored_outcomes(database)) == 2


@pytest.mark.slow
def test_dask_runs_each_audit_isolated_and_bounded(workdir):
    distributed = pytest.importorskip("dask.distributed")
    config = workdir / "campaign.toml"
    config.write_text(
        "trials = 2\nsamples = 1000\nverify_samples = 2000\naudit_timeout = 30\n"
        + "".join(_target(name) for name in ("exits", "interrupts", "hangs", "laplace_sum"))
    )
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        store = ResultsStore(workdir / "results.db")
        began = time.monotonic()
        run_id = run_campaign(load_config(config), store, scheduler=cluster.scheduler_address)
        seconds = time.monotonic() - began
        assert len(cluster.scheduler.workers) == 2  # no Dask worker died
    outcomes = {s["target"].split(":")[1]: s["outcome"] for s in store.summaries(run_id)}
    assert outcomes == {
        "exits": "crashed",
        "interrupts": "crashed",
        "hangs": "timed out",
        "laplace_sum": "not refuted",
    }
    assert seconds < 30 + 60  # the hang ended at its audit_timeout, not the test's guard


def test_a_cancelled_dask_task_kills_its_audit_at_once_not_at_its_timeout(workdir):
    distributed = pytest.importorskip("dask.distributed")
    from dpfuzz.campaign import run_isolated_audit
    from dpfuzz.cluster import task_cancelled

    assert not task_cancelled()  # outside a task
    config = workdir / "campaign.toml"
    config.write_text(_target("hangs_marked"))
    (spec,) = load_config(config).audits()
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        future = client.submit(run_isolated_audit, spec, 600, pure=False)
        wait_for(lambda: _stuck_pids(workdir), 120, "the audit's process")
        future.cancel()
        assert _gone(_stuck_pids(workdir), within=60)  # its audit_timeout is 600 s


def test_a_dask_scheduler_without_workers_is_an_error_not_a_wait(workdir):
    distributed = pytest.importorskip("dask.distributed")
    config = workdir / "campaign.toml"
    config.write_text(_target("laplace_sum"))
    with distributed.LocalCluster(n_workers=0, dashboard_address=None) as cluster:
        with pytest.raises(ConfigError, match="has had no worker for 2 s"):
            run_campaign(
                load_config(config),
                ResultsStore(workdir / "results.db"),
                scheduler=cluster.scheduler_address,
                worker_wait=2,
            )
