"""Campaigns: config validation, store and resume after a kill, Dask, reports in a browser."""

import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dpfuzz.campaign import load_config, run_campaign
from dpfuzz.campaign_report import compare, write_reports
from dpfuzz.cli import main
from dpfuzz.errors import ConfigError
from dpfuzz.store import ResultsStore

SMALL = """
budget = "quick"
trials = 3
samples = 5000
seeds = [0, 1]

[[target]]
entry = "NonDPLaplaceMean1"

[[target]]
entry = "Laplace"
params = { epsilon = 0.5 }
"""

USER_MODULE = """
import time
import numpy as np

def leaky(epsilon):
    def mechanism(dataset, num_samples, rng):
        return dataset.sum() + rng.laplace(0.0, 0.25 / epsilon, size=num_samples)
    return mechanism

def one_laplace_sum(dataset, rng):
    return dataset.sum() + rng.laplace(0.0, 0.25)

def laplace_sum(dataset, num_samples, rng):
    return dataset.sum() + rng.laplace(0.0, 1.0, size=num_samples)

def exits(dataset, num_samples, rng):
    import os
    os._exit(3)

def raises_exit(dataset, num_samples, rng):
    raise SystemExit(1)

def interrupts(dataset, num_samples, rng):
    raise KeyboardInterrupt

def hangs(dataset, num_samples, rng):
    time.sleep(600)

def slow_sum(dataset, num_samples, rng):
    time.sleep(0.1)
    return dataset.sum() + rng.laplace(0.0, 1.0, size=num_samples)
"""


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "user_mechanisms.py").write_text(USER_MODULE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _config(workdir: Path, text: str) -> Path:
    path = workdir / "campaign.toml"
    path.write_text(text)
    return path


def test_config_errors_are_reported_before_any_audit(workdir, capsys):
    path = _config(
        workdir,
        """
budget = "weekly"
colour = "blue"

[[target]]
entry = "Nope"

[[target]]
mechanism = "user_mechanisms:leaky"

[[target]]
entry = "Laplace"
tester = "magic"
""",
    )
    assert main(["campaign", "run", str(path), "--results", str(workdir / "results")]) == 2
    error = capsys.readouterr().err
    # Every problem at once (issue 13), with suggestions where a name is close.
    assert "unknown key 'colour'" in error and "a user mechanism needs a 'claim' table" in error
    assert (
        "budget must be one of" in error
        and "no catalogue entry 'Nope'" in error
        and "got 'magic'" in error
    )
    path.write_text(
        'budgte = "quick"\ntrails = 3\n[[target]]\nentry = "Laplace"\ntester = "histgram"\n'
    )
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    message = str(raised.value)
    assert (
        "unknown key 'budgte'. Did you mean 'budget'" in message
        and "Did you mean 'trials'" in message
    )
    assert "Did you mean 'histogram'" in message
    # A misspelt domain key and a domain that is no table are config errors, each named (they
    # were tracebacks); a target name the terminal could read as an emoji code prints as written.
    path.write_text(
        '[[target]]\nmechanism = "user_mechanisms:ok"\nclaim = { type = "PureDP", epsilon = 1.0'
        " }\ndomain = { max_sise = 3, lo = 0 }\n[[target]]\nmechanism ="
        ' "user_mechanisms:leaky"\nclaim = { type = "PureDP", epsilon = 1.0 }\ndomain = 3\n'
    )
    assert main(["campaign", "run", str(path), "--results", str(workdir / "results")]) == 2
    error = capsys.readouterr().err
    assert (
        "user_mechanisms:ok: domain: unknown key 'max_sise'. Did you mean 'max_size'" in error
        and "Did you mean 'low'" in error
    )
    assert "domain must be a table" in error and "got 3" in error
    assert not (workdir / "results").exists()  # nothing started, no results folder made


def test_settings_written_in_a_table_are_pointed_to_the_top_level(workdir, capsys):
    # A config shaped like [campaign] settings and [[audit]] targets: the error says where each
    # goes, with its brackets printed as written (the terminal's markup once ate them).
    path = workdir / "tables.toml"
    path.write_text('[campaign]\nbudget = "quick"\n\n[[audit]]\nentry = "SVT3"\n')
    assert main(["campaign", "run", str(path), "--results", str(workdir / "results")]) == 2
    error = capsys.readouterr().err
    assert "unknown table [campaign]" in error and "unknown table [[audit]]" in error
    assert "each target is a [[target]] table" in error and "Did you mean" not in error


@pytest.mark.slow
def test_small_campaign_end_to_end_and_report_exit_status(workdir, capsys):
    path = _config(workdir, SMALL)
    results = workdir / "results"
    assert main(["campaign", "run", str(path), "--results", str(results)]) == 0
    store = ResultsStore(results / "results.db")
    summaries = store.summaries(1)
    assert len(summaries) == 4 and len({s["key"] for s in summaries}) == 4
    assert {s["outcome"] for s in summaries} == {"caught", "ok"}
    assert (results / "reports" / "run-1.md").exists() and (
        results / "reports" / "run-1.html"
    ).exists()
    assert main(["report", "--results", str(results)]) == 0
    markdown = (results / "reports" / "run-1.md").read_text()
    assert "| NonDPLaplaceMean1 | 1-DP | violates | caught |" in markdown

    # A user's target that claims what it does not satisfy, declared as correct: a false alarm,
    # so 'dpfuzz campaign run' and 'dpfuzz report' exit non-zero (--exit-zero: zero).
    path.write_text(
        'trials = 3\nsamples = 5000\n[[target]]\nmechanism = "user_mechanisms:leaky"\nparams = {'
        ' epsilon = 1.0 }\nclaim = { type = "PureDP", epsilon = 1.0 }\ndomain = { max_size = 3'
        ' }\ntruth = "satisfies"\n'
    )
    assert main(["campaign", "run", str(path), "--results", str(results)]) == 1
    assert main(["report", "--results", str(results), "--exit-zero"]) == 0
    assert main(["report", "--results", str(results)]) == 1
    assert "false alarm: user_mechanisms:leaky" in capsys.readouterr().out
    assert main(["report", "--results", str(results), "--compare", "1", "2"]) == 1
    assert "## Changes" in (results / "reports" / "run-2-vs-1.md").read_text()
    # without run numbers: the last two runs; with one, from it to the latest
    (results / "reports" / "run-2-vs-1.md").unlink()
    assert main(["report", "--results", str(results), "--compare"]) == 1
    assert main(["report", "--results", str(results), "--compare", "1"]) == 1
    assert "## Changes" in (results / "reports" / "run-2-vs-1.md").read_text()


def test_targets_that_differ_only_in_claim_params_or_domain_are_all_stored(workdir):
    # Issue 13, bug 1: same mechanism, different claims / parameters / domains shared one key.
    path = _config(
        workdir,
        'trials = 2\nsamples = 2000\n[[target]]\nmechanism = "user_mechanisms:leaky"\nparams = {'
        ' epsilon = 1.0 }\nclaim = { type = "PureDP", epsilon = 1.0 }\n[[target]]\nmechanism ='
        ' "user_mechanisms:leaky"\nparams = { epsilon = 1.0 }\nclaim = { type = "PureDP", epsilon ='
        ' 5.0 }\n[[target]]\nmechanism = "user_mechanisms:leaky"\nparams = { epsilon = 2.0 }\nclaim'
        ' = { type = "PureDP", epsilon = 1.0 }\n[[target]]\nmechanism ='
        ' "user_mechanisms:leaky"\nparams = { epsilon = 1.0 }\nclaim = { type = "PureDP", epsilon ='
        " 1.0 }\ndomain = { max_size = 3 }\n",
    )
    store = ResultsStore(workdir / "results.db")
    run_campaign(load_config(path), store)
    summaries = store.summaries(1)
    assert len(summaries) == 4 and len({s["key"] for s in summaries}) == 4
    assert len({s["target"] for s in summaries}) == 4  # '#2', '#3' … tell them apart in reports
    # The same audit listed twice is an error before anything runs.
    path.write_text(SMALL + '\n[[target]]\nentry = "Laplace"\nparams = { epsilon = 0.5 }\n')
    with pytest.raises(ConfigError, match="is listed twice"):
        load_config(path)


@pytest.mark.slow
def test_a_refutation_without_a_declared_truth_fails_the_report(workdir, capsys):
    # Issue 13, bug 2: a user's target (no truth) that is refuted showed "refuted" and exit 0.
    path = _config(
        workdir,
        'trials = 3\nsamples = 5000\n[[target]]\nmechanism = "user_mechanisms:leaky"\nparams = {'
        ' epsilon = 1.0 }\nclaim = { type = "PureDP", epsilon = 1.0 }\ndomain = { max_size = 3 }\n',
    )
    results = workdir / "results"
    # stored, and failing the job
    assert main(["campaign", "run", str(path), "--results", str(results)]) == 1
    assert main(["report", "--results", str(results)]) == 1
    out = capsys.readouterr().out
    # what, and which audit
    assert "refuted: user_mechanisms:leaky (finder random, seed 0): 1-DP refuted, ε ≥ " in out
    assert 'declare truth = "violates"' in out
    markdown = (results / "reports" / "run-1.md").read_text()
    assert 'declare truth = "violates"' in markdown
    # Declared as a known bug, the same refutation is a catch and passes.
    path.write_text(path.read_text() + 'truth = "violates"\n')
    assert main(["campaign", "run", str(path), "--results", str(results)]) == 0
    assert main(["report", "--results", str(results)]) == 0


def test_one_failing_target_does_not_stop_the_campaign(workdir):
    (workdir / "broken.py").write_text(
        "def broken(dataset, num_samples, rng):\n    raise RuntimeError('boom')\n"
    )
    path = _config(
        workdir,
        'trials = 2\nsamples = 2000\n[[target]]\nmechanism = "broken:broken"\nclaim = { type ='
        ' "PureDP", epsilon = 1.0 }\n[[target]]\nentry = "NonDPLaplaceMean1"\n',
    )
    store = ResultsStore(workdir / "results.db")
    run_campaign(load_config(path), store)
    outcomes = {s["target"]: s for s in store.summaries(1)}
    assert (
        outcomes["broken:broken"]["outcome"] == "error"
        and "raised RuntimeError: boom" in outcomes["broken:broken"]["error"]
    )
    assert outcomes["NonDPLaplaceMean1"]["outcome"] == "caught"
    paths, failing = write_reports(store, 1, workdir / "reports")
    assert [f["target"] for f in failing] == ["broken:broken"]
    page = paths[1].read_text()
    assert page.index("broken:broken") < page.index("NonDPLaplaceMean1")  # failures first
    key = outcomes["NonDPLaplaceMean1"]["key"]
    from dpfuzz.campaign_report import audit_stem

    audit_page = workdir / "reports" / "audits" / f"{audit_stem(key)}.html"
    assert f'href="audits/{audit_stem(key)}.html"' in page and audit_page.exists()
    # how to rerun this audit alone
    assert "dpfuzz audit NonDPLaplaceMean1" in audit_page.read_text()
    # and the way back
    assert '<a href="../run-1.html">← campaign run 1</a>' in audit_page.read_text()


def test_compare_lists_verdict_changes_not_bounds_that_moved():
    # Libraries draw their own randomness: the same audit certifies a different ε each night.
    row = {
        "target": "t",
        "params": {},
        "finder": "random",
        "seed": 0,
        "outcome": "caught",
        "epsilon_lower_bound": 1.21,
    }
    moved, missed = (
        {**row, "epsilon_lower_bound": 1.34},
        {
            **row,
            "outcome": "missed",
            "epsilon_lower_bound": None,
        },
    )
    gone = {**row, "target": "u"}
    assert compare([row], [moved]) == []
    assert [change["after"]["outcome"] for change in compare([row], [missed])] == ["missed"]
    assert [(change["before"], change["after"]) for change in compare([gone], [])] == [(gone, None)]


@pytest.mark.slow
def test_compare_says_when_nothing_changed(workdir):
    store = ResultsStore(workdir / "results.db")
    config = load_config(_config(workdir, SMALL))
    run_campaign(config, store)
    run_campaign(config, store)
    paths, _ = write_reports(store, 2, workdir / "reports", compare_with=1)
    assert "No changes" in paths[0].read_text() and "No changes" in paths[1].read_text()


@pytest.mark.slow
def test_resume_after_a_killed_run_loses_and_repeats_nothing(workdir):
    results, command = _slow_campaign(workdir)
    process = subprocess.Popen(
        command, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    database = results / "results.db"
    deadline = time.time() + 120
    finished_before = []
    while time.time() < deadline and len(finished_before) < 2:
        finished_before = _finished_rows(database)
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert 2 <= len(finished_before) < 8, "the run was not killed mid-campaign"
    resumed = subprocess.run(
        command + ["--resume"], cwd=workdir, capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stderr
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT key, finished FROM audits WHERE run_id = 1").fetchall()
        runs = connection.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    assert runs == 1 and len(rows) == 8 and len({key for key, _ in rows}) == 8
    # the audits finished before the kill were kept, not re-run
    assert set(finished_before) <= set(rows)
    # the tally counts the stored audits too
    assert "run 1 finished: 8 not refuted (" in resumed.stdout


@pytest.mark.slow
def test_ctrl_c_says_what_was_kept_and_how_to_resume(workdir):
    results, command = _slow_campaign(workdir)
    # A shell without job control starts background jobs with SIGINT ignored, and Python keeps an
    # ignored SIGINT ignored: restore the default so Ctrl-C reaches the CLI wherever pytest runs.
    process = subprocess.Popen(
        command,
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 120
    while time.time() < deadline and not _finished_rows(results / "results.db"):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and "Traceback" not in stderr, stderr
    assert f"dpfuzz campaign run {command[5]} --resume --results {results}" in stderr.replace(
        "\n", ""
    )
    resumed = subprocess.run(
        [*command, "--resume"], cwd=workdir, capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0 and len(_finished_rows(results / "results.db")) == 8


def _slow_campaign(workdir: Path) -> tuple[Path, list[str]]:
    """A campaign of 8 audits of a mechanism that sleeps 0.1 s per call: (results folder,
    command)."""
    path = _config(
        workdir,
        "trials = 2\nsamples = 1000\nseeds = [0, 1, 2, 3, 4, 5, 6, 7]\n[[target]]\nmechanism ="
        ' "user_mechanisms:slow_sum"\nclaim = { type = "PureDP", epsilon = 1.0 }\ndomain = {'
        " max_size = 3 }\n",
    )
    results = workdir / "results"
    return results, [
        sys.executable,
        "-m",
        "dpfuzz.cli",
        "campaign",
        "run",
        str(path),
        "--results",
        str(results),
        "--no-report",
    ]


def _finished_rows(database: Path) -> list:
    """(key, finished) of the stored audits, while another process may be creating the store."""
    if not database.exists():
        return []
    try:
        with sqlite3.connect(database) as connection:
            return connection.execute("SELECT key, finished FROM audits").fetchall()
    except sqlite3.OperationalError:  # the file exists before the run creates its tables
        return []


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_results_as_local_workers(workdir):
    distributed = pytest.importorskip("dask.distributed")
    path = _config(workdir, SMALL)
    config = load_config(path)
    local = ResultsStore(workdir / "local.db")
    run_campaign(config, local, workers=2)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        remote = ResultsStore(workdir / "dask.db")
        run_campaign(config, remote, scheduler=cluster.scheduler_address)

    def comparable(store):
        return {s["key"]: (s["outcome"], s["epsilon_lower_bound"]) for s in store.summaries(1)}

    assert comparable(local) == comparable(remote) and len(comparable(remote)) == 4
    assert compare(local.summaries(1), remote.summaries(1)) == []


def _chromium() -> str | None:
    return (
        shutil.which("chromium")
        or shutil.which("chromium-browser")
        or shutil.which("google-chrome")
    )


@pytest.mark.slow
def test_html_report_renders_in_a_headless_browser(workdir):
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install Debian's chromium (see .ci/run)")
        pytest.skip("no chromium on this machine")
    store = ResultsStore(workdir / "results.db")
    run_campaign(load_config(_config(workdir, SMALL)), store)
    (markdown, page), _ = write_reports(store, None, workdir / "reports")
    result = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={workdir / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=10000",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    dom = result.stdout
    assert 'data-plots-rendered="1/1"' in dom, dom[-2000:] + result.stderr[-2000:]
    assert 'data-errors="0"' in dom
    console_errors = [
        line for line in result.stderr.splitlines() if "CONSOLE" in line and "ERROR" in line.upper()
    ]
    assert console_errors == []
    assert (
        "NonDPLaplaceMean1" in dom
        and "http://" not in Path(page).read_text()
        and "https://" not in Path(page).read_text()
    )


def test_the_report_says_a_missed_bug_was_not_refuted():
    from dpfuzz.campaign_report import markdown

    missed = {
        "key": "k",
        "target": "Leaky",
        "claim": "1-DP",
        "truth": "violates",
        "outcome": "missed",
        "epsilon_lower_bound": 0.9,
        "finder": "random",
        "seed": 0,
    }
    page = markdown({"run_id": 1, "started": "now", "config": {"budget": "quick"}}, [missed])
    assert (
        "- **missed**: Leaky (finder random, seed 0): 1-DP not refuted, though the truth violates"
        " it, ε ≥ 0.9" in page
    )
    unbounded = {**missed, "epsilon_lower_bound": None}
    page = markdown({"run_id": 1, "started": "now", "config": {"budget": "quick"}}, [unbounded])
    assert "the truth violates it\n" in page  # no 'ε ≥ —' when nothing was certified


def test_the_epsilon_plot_names_a_missed_bug_before_the_correct_audits_it_would_cover():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpfuzz.campaign_report import _label_points

    # Five correct audits at the very point of a missed bug, one audit far away.
    crowd = [
        {
            "target": f"Correct{i}",
            "outcome": "ok",
            "claimed_epsilon": 1.0,
            "epsilon_lower_bound": 0.9,
        }
        for i in range(5)
    ]
    missed = {
        "target": "Leaky",
        "outcome": "missed",
        "claimed_epsilon": 1.0,
        "epsilon_lower_bound": 0.9,
    }
    alone = {
        "target": "Far",
        "outcome": "caught",
        "claimed_epsilon": 8.0,
        "epsilon_lower_bound": 0.1,
    }
    figure, axis = plt.subplots()
    axis.scatter([1.0, 8.0], [0.9, 0.1])
    _label_points(axis, crowd + [missed, alone])
    assert [text.get_text() for text in axis.texts] == ["Leaky", "Far"]
    plt.close(figure)


@pytest.mark.slow
def test_a_results_database_never_runs_code_no_config_names(workdir, capsys):
    # A stored run that names user code resumes only with a config the user gives: an edited
    # database cannot make a resume import anything.
    path = _config(
        workdir,
        'trials = 2\nsamples = 1000\n[[target]]\nmechanism = "user_mechanisms:slow_sum"\n'
        'claim = { type = "PureDP", epsilon = 1.0 }\ndomain = { max_size = 3 }\n',
    )
    results = workdir / "results"
    store = ResultsStore(results / "results.db")
    # validating the config imported the module: forget it
    store.new_run(load_config(path).to_dict())
    sys.modules.pop("user_mechanisms", None)
    assert main(["campaign", "run", "--resume", "--results", str(results)]) == 2
    err = capsys.readouterr().err
    assert (
        "names code to import (user_mechanisms:slow_sum)" in err
        and "user_mechanisms" not in sys.modules
    )
    assert (
        main(["campaign", "run", str(path), "--resume", "--results", str(results), "--no-report"])
        == 0
    )


@pytest.mark.slow
def test_inconclusive_audits_fail_the_run_unless_the_config_allows_them(workdir):
    # (1, 1e-6) needs ~27 million outputs per side to test its δ: inconclusive at this budget
    text = (
        "trials = 2\nsamples = 2000\nverify_samples = 20000\n[[target]]\nmechanism ="
        ' "user_mechanisms:laplace_sum"\nclaim = { type = "ApproxDP", epsilon = 1.0, delta = 1e-6'
        " }\ndomain = { max_size = 3 }\n"
    )
    store = ResultsStore(workdir / "results.db")
    for allow, failing_count in (("", 1), ("allow_inconclusive = true\n", 0)):
        run_id = run_campaign(load_config(_config(workdir, allow + text)), store)
        (summary,) = store.summaries(run_id)
        assert (
            summary["outcome"] == "inconclusive"
            and "δ = 1e-06 is too small to test" in summary["inconclusive"]
        )
        _, failing = write_reports(store, run_id, workdir / "reports")
        assert len(failing) == failing_count


def test_report_pages_escape_every_user_string(workdir):
    hostile = "<img src=x onerror=alert(1)>"
    text = (
        "trials = 2\nsamples = 1000\nverify_samples = 2000\n[[target]]\nname ="
        f' "{hostile}"\nmechanism = "user_mechanisms:laplace_sum"\nclaim = {{ type = "PureDP",'
        " epsilon = 1.0 }\ndomain = { max_size = 3 }\n"
    )
    store = ResultsStore(workdir / "results.db")
    run_id = run_campaign(load_config(_config(workdir, text)), store)
    paths, _ = write_reports(store, run_id, workdir / "reports")
    pages = [paths[1], *(workdir / "reports" / "audits").glob("*.html")]
    assert len(pages) == 2 and "&lt;img src=x onerror=alert(1)&gt;" in paths[1].read_text()
    for page in pages:
        assert hostile not in page.read_text()


def test_a_config_names_a_one_output_function_with_per_call(workdir):
    text = (
        "trials = 2\nsamples = 1000\nverify_samples = 2000\n[[target]]\nmechanism ="
        ' "user_mechanisms:one_laplace_sum"\nper_call = true\nclaim = { type = "PureDP", epsilon ='
        " 1.0 }\ndomain = { max_size = 3 }\n"
    )
    store = ResultsStore(workdir / "results.db")
    run_id = run_campaign(load_config(_config(workdir, text)), store)
    (summary,) = store.summaries(run_id)
    assert summary["outcome"] == "refuted"  # Laplace(0.25) is 4-DP
    (report,) = store.reports(run_id).values()
    assert "--per-call" in report["reproduce"]


def test_a_refutation_never_reads_as_the_claim_itself():
    from dpfuzz.campaign_report import epsilon_text

    assert [
        epsilon_text(1.0041, 1.0),
        epsilon_text(1.18, 1.0),
        epsilon_text(0.2, 1.0),
        epsilon_text(5.341, None),
    ] == ["1.004", "1.18", "0.2", "5.34"]


@pytest.mark.parametrize(
    "text, problem",
    [
        ("", "the config is empty"),
        ("target = []\n", "'target = []' names no target"),
        (
            'finders = [1]\n[[target]]\nentry = "Laplace"\n',
            "finders must be a non-empty list of finder names",
        ),
        (
            '[[target]]\nentry = "Laplace"\nparams = 5\n',
            "target 1 (Laplace): params must be a table",
        ),
        (
            '[[target]]\nentry = "Laplace"\nclaim = 1.0\n',
            "target 1 (Laplace): claim must be a table",
        ),
    ],
)
def test_malformed_configs_are_config_errors_not_tracebacks(workdir, text, problem):
    with pytest.raises(ConfigError, match=re.escape(problem)):
        load_config(_config(workdir, text))


def test_an_entry_takes_the_claim_and_domain_its_target_gives(workdir):
    # An override is honoured, and the entry's own truth (for its own claim) no longer applies.
    config = load_config(
        _config(
            workdir,
            'trials = 2\nsamples = 2000\n[[target]]\nentry = "Laplace"\n'
            'claim = { type = "PureDP", epsilon = 0.5 }\ndomain = { max_size = 4 }\n',
        )
    )
    (target,) = config.targets
    resolved = target.build()
    assert (
        resolved.claim.epsilon == 0.5 and resolved.domain.max_size == 4 and resolved.truth is None
    )
    assert "--epsilon=0.5" in config.audits()[0].command(
        resolved
    ) and "--max-size=4" in config.audits()[0].command(resolved)


def test_a_stored_audits_command_passes_switches_as_switches(workdir):
    import shlex

    from dpfuzz.cli import build_parser

    config = load_config(
        _config(workdir, 'sampling = "sequential"\nsharpen = true\n[[target]]\nentry = "Laplace"\n')
    )
    (spec,) = config.audits()
    command = spec.command(spec.target.build())
    assert " --sharpen" in command and "--sharpen=" not in command
    args = build_parser().parse_args(shlex.split(command)[1:])
    assert args.sharpen is True and args.sampling == "sequential"


def test_report_of_an_incomplete_run_says_so_and_fails(workdir):
    from dpfuzz.campaign import run_audit

    config = load_config(
        _config(
            workdir,
            'trials = 2\nsamples = 2000\nseeds = [0, 1, 2]\n[[target]]\nentry = "Laplace"\n',
        )
    )
    store = ResultsStore(workdir / "results.db")
    run_id = store.new_run(config.to_dict())
    store.record(run_id, *run_audit(config.audits()[0]))
    paths, failing = write_reports(store, run_id, workdir / "reports")
    assert [f["outcome"] for f in failing] == [
        "incomplete"
    ] and "2 of its 3 configured audits have no result" in failing[0]["error"]
    assert "Incomplete" in paths[0].read_text() and "Incomplete" in paths[1].read_text()


def test_a_long_target_name_gets_a_short_unique_file_name():
    from dpfuzz.campaign_report import audit_stem

    first, second = (
        audit_stem("n" * 300 + f"|random|0|{digest}")
        for digest in ("0123456789abcdef", "fedcba9876543210")
    )
    assert len(first) <= 120 and first != second


@pytest.mark.slow
def test_an_audit_that_exits_crashes_or_hangs_is_stored_and_the_campaign_goes_on(workdir, capsys):
    targets = "".join(
        f'[[target]]\nmechanism = "user_mechanisms:{name}"\nclaim = {{ type = "PureDP", epsilon ='
        " 1.0 }\ndomain = { max_size = 3 }\n"
        for name in ("exits", "raises_exit", "interrupts", "hangs", "laplace_sum")
    )
    path = _config(
        workdir, "trials = 2\nsamples = 1000\nverify_samples = 2000\naudit_timeout = 30\n" + targets
    )
    results = workdir / "results"
    assert main(["campaign", "run", str(path), "--results", str(results), "--no-report"]) == 1
    store = ResultsStore(results / "results.db")
    outcomes = {s["target"]: s["outcome"] for s in store.summaries(1)}
    assert outcomes == {
        "user_mechanisms:exits": "crashed",
        "user_mechanisms:raises_exit": "crashed",
        "user_mechanisms:interrupts": "crashed",
        "user_mechanisms:hangs": "timed out",
        "user_mechanisms:laplace_sum": "not refuted",
    }
    errors = {s["target"]: s["error"] for s in store.summaries(1) if s.get("error")}
    assert (
        "exit code 3" in errors["user_mechanisms:exits"]
        and "raised KeyboardInterrupt" in errors["user_mechanisms:interrupts"]
    )
    assert "audit_timeout=30 s" in errors["user_mechanisms:hangs"]
    # a resume keeps them; --retry-failed runs them again
    assert (
        main(["campaign", "run", str(path), "--results", str(results), "--resume", "--no-report"])
        == 1
    )
    assert (
        "(5 of them stored before this resume)" in capsys.readouterr().out
        and len(store.summaries(1)) == 5
    )
    assert (
        main(
            [
                "campaign",
                "run",
                str(path),
                "--results",
                str(results),
                "--resume",
                "--retry-failed",
                "--no-report",
            ]
        )
        == 1
    )
    assert (
        "4 stored audits will run again" in capsys.readouterr().out and len(store.summaries(1)) == 5
    )


def test_the_campaign_page_says_first_whether_the_run_passes_and_why_not():
    from dpfuzz.campaign_report import verdict_sentence

    audits = [{"outcome": "ok"}, {"outcome": "inconclusive"}]
    allowed = verdict_sentence({"config": {"allow_inconclusive": True}}, audits, None)
    assert allowed == (
        "Passes: all 2 audits behave as documented, 1 of them inconclusive, which this run's"
        " config allows."
    )
    failing = verdict_sentence({"config": {}}, [*audits, {"outcome": "missed"}], "2 missing")
    assert (
        failing == "Fails because 1 inconclusive, 1 missed, the run is incomplete (listed below)."
    )


def test_an_audit_that_ended_without_a_result_is_a_row_of_its_own_and_keeps_its_output(tmp_path):
    from dpfuzz.campaign import row
    from dpfuzz.outcomes import AuditRow, Ended, Finished, Outcome

    (spec,) = load_config(_config(tmp_path, '[[target]]\nentry = "Laplace"\n')).audits()
    ended = Finished(
        spec.key, None, Ended(Outcome.TIMED_OUT, "ran past audit_timeout", 3.5), "tick\n", 5
    )
    key, summary, report = row(spec, ended)
    assert key == spec.key and report is None
    assert summary.outcome == "timed out" and summary.seconds == 3.5
    assert summary.error == "ran past audit_timeout. Its output ended: tick"
    assert summary.target == spec.summary().target and summary.output_bytes == 5
    returned = ("k", AuditRow("k", "t", outcome=Outcome.OK), {"verdict": "not refuted"})
    assert row(spec, Finished("k", returned)) == returned
