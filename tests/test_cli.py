import json
import shutil
import subprocess
import sys

import pytest

from dpfuzz.cli import main

FAST = ["--samples", "20000", "--trials", "4", "--seed", "0"]


def test_audit_a_catalogue_entry_and_write_json(tmp_path, capsys):
    path = tmp_path / "report.json"
    status = main(["audit", "NonDPLaplaceMean1", "--epsilon", "1.0", "--json", str(path), *FAST])
    out = capsys.readouterr().out
    assert status == 0  # a known bug (truth "violates") caught: as documented
    assert (
        "VIOLATED: NonDPLaplaceMean1 does not satisfy 1-DP" in out and "epsilon lower bound" in out
    )
    report = json.loads(path.read_text())
    assert report["violated"] and report["seed"] == 0 and report["witness"] is not None
    # a known bug missed fails (a budget that cannot see it: one trial of one draw-starved pair)
    assert (
        main(
            [
                "audit",
                "dpfuzz.catalogue.means:NonDPLaplaceMean2",
                "--trials",
                "1",
                "--samples",
                "100",
                "--verify-samples",
                "100",
                "--seed",
                "0",
            ]
        )
        == 1
    )


def test_audit_with_sequential_sampling_races_and_prints_the_e_value(tmp_path, capsys):
    path = tmp_path / "report.json"
    argv = ["audit", "TwoBudgetMean", "--sampling", "sequential", "--json", str(path), *FAST]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "VIOLATED" in out and "e-value" in out and " raced in " in out
    assert json.loads(path.read_text())["verification"]["details"]["sequential"]


def test_correct_entry_with_overridden_domain(capsys):
    status = main(["audit", "Laplace", "--max-size", "3", *FAST])
    assert status == 0 and "not refuted" in capsys.readouterr().out


@pytest.mark.slow
def test_audit_a_users_factory_and_mechanism(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_mechanisms.py").write_text(
        "def make(epsilon):\n"
        "    def mechanism(dataset, num_samples, rng):\n"
        "        return dataset.sum() + rng.laplace(0.0, 0.5 / epsilon, size=num_samples)\n"
        "    return mechanism\n"
        "def direct(dataset, num_samples, rng):\n"
        "    return dataset.sum() + rng.laplace(0.0, 1.0, size=num_samples)\n"
        "def one_draw(dataset, rng):\n"
        "    return dataset.sum() + rng.laplace(0.0, 1.0)\n"
        "def make_one_draw(epsilon):\n"
        "    return lambda dataset, rng: dataset.sum() + rng.laplace(0.0, 0.25 / epsilon)\n"
    )
    monkeypatch.chdir(tmp_path)
    # a refuted claim of one's own code fails the job, unless --exit-zero; --fail-on-violation,
    # the default now, still works and says it is deprecated
    assert main(["audit", "my_mechanisms:make", "--epsilon", "1.0", *FAST]) == 1
    assert main(["audit", "my_mechanisms:make", "--epsilon", "1.0", "--exit-zero", *FAST]) == 0
    assert (
        main(["audit", "my_mechanisms:make", "--epsilon", "1.0", "--fail-on-violation", *FAST]) == 1
    )
    assert "--fail-on-violation is the default since 0.3.0" in capsys.readouterr().err
    assert main(["audit", "my_mechanisms:direct", "--epsilon", "1.0", *FAST]) == 0
    assert "not refuted: no violation of 1-DP" in capsys.readouterr().out
    # δ = 1e-6 is beyond 100,000 verification outputs per side: inconclusive, which fails unless
    # allowed
    assert (
        main(["audit", "my_mechanisms:direct", "--epsilon", "1.0", "--delta", "1e-6", *FAST]) == 1
    )
    out = capsys.readouterr().out
    assert (
        "INCONCLUSIVE: this audit could not test direct against (1, 1e-06)-DP" in out
        and "verify_samples >= " in out
    )
    assert (
        main(
            [
                "audit",
                "my_mechanisms:direct",
                "--epsilon",
                "1.0",
                "--delta",
                "1e-6",
                "--allow-inconclusive",
                *FAST,
            ]
        )
        == 0
    )
    # a one-draw function is a mechanism to wrap, not a factory missing (dataset, rng): --per-call
    # wraps it
    assert main(["audit", "my_mechanisms:one_draw", "--epsilon", "1.0", *FAST]) == 2
    err = capsys.readouterr().err
    assert "Give --per-call" in err and "one_draw_mechanism = dpfuzz.per_call(one_draw)" in err
    assert (
        main(
            [
                "audit",
                "my_mechanisms:one_draw",
                "--epsilon",
                "1.0",
                "--per-call",
                "--max-draws",
                "3e4",
                *FAST,
            ]
        )
        == 0
    )
    assert "not refuted: no violation of 1-DP found for one_draw" in capsys.readouterr().out
    assert (
        main(
            [
                "audit",
                "my_mechanisms:make_one_draw",
                "--epsilon",
                "1.0",
                "--per-call",
                "--max-draws",
                "3e4",
                *FAST,
            ]
        )
        == 1
    )
    assert main(["audit", "my_mechanisms:direct", "--epsilon", "1.0", "--per-call", *FAST]) == 2
    assert (
        "is a mechanism (it takes num_samples): name it without per_call" in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["audit", "dpfuzz.catalogue.means"], "Did you mean 'dpfuzz.catalogue:means'?"),
        (["audit", "mydp.laplace_count"], "Did you mean 'mydp:laplace_count'?"),
        (["audit", "NonDPLaplaceMeen1"], "Did you mean 'NonDPLaplaceMean1'"),
        (["estimate", "svt3"], "Did you mean 'SVT3'"),
        (["audit", "dpfuzz.catalogue.means:Nope"], "has no attribute 'Nope'"),
        (["audit", "dpfuzz.catalogue.means:DPLaplaceMaen"], "Did you mean 'DPLaplaceMean'"),
        (["audit", "no_such_module:thing"], "cannot import module 'no_such_module'"),
        (["audit", "DPLaplaceMean", "--alpha", "2"], "it takes no ['alpha']"),
        (["audit", "dpfuzz.catalogue.means:MEAN_DOMAIN"], "is a Domain, not a catalogue entry"),
        (["audit", "dpfuzz.catalogue.means:dp_laplace_mean"], "give the claim with --epsilon"),
        (
            ["audit", "DPLaplaceMean", "--epsilon", "-1"],
            "epsilon (--epsilon) must be > 0, got -1.0",
        ),
        (
            ["audit", "DPLaplaceMean", "--trials", "0"],
            "trials (--trials) must be an int >= 1, got 0",
        ),
        (
            ["estimate", "SVT3", "--max-draws", "100"],
            "max_draws (--max-draws) must be an int >= 10000, got 100",
        ),
        (
            ["estimate", "Laplace", "--delta=1.5"],
            "delta (--delta) must satisfy 0 <= delta < 1, got 1.5",
        ),
        (["audit", "DPLaplaceMean", "--param", "bins"], "must look like NAME=VALUE"),
        (["audit", "DPLaplaceMean", "--param", "epsilom=1"], "Did you mean 'epsilon'"),
        (["audit", "DPLaplaceMean", "--relation", "linf", "--distance", "2"], "distance must be 1"),
        (["audit", "DPLaplaceMean", "--max-seconds", "1e308"], "max_seconds (--max-seconds) must"),
        (["campaign", "run", "--retry-failed"], "--retry-failed runs a stored run's failed audits"),
    ],
)
def test_bad_input_exits_2_with_a_message(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err.replace("\n", "")


def test_a_mistyped_option_names_the_command_and_the_option_meant(capsys):
    for argv, usage, meant in (
        (["audit", "DPLaplaceMean", "--epsilion", "1"], "dpfuzz audit", "--epsilon"),
        (["campaign", "run", "--wrokers", "2"], "dpfuzz campaign run", "--workers"),
    ):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        err = capsys.readouterr().err
        assert exited.value.code == 2 and f"usage: {usage}" in err
        assert f"Did you mean {meant}?" in err


def test_a_mechanism_that_raises_makes_the_audit_err_with_status_1(tmp_path, monkeypatch, capsys):
    (tmp_path / "raising_mechanisms.py").write_text(
        "def raises(dataset, num_samples, rng):\n    raise RuntimeError('the release failed')\n"
    )
    monkeypatch.chdir(tmp_path)
    argv = ["audit", "raising_mechanisms:raises", "--epsilon", "1", *FAST]
    assert main(argv) == 1
    assert "raised RuntimeError: the release failed" in capsys.readouterr().err
    assert main([*argv, "--exit-zero"]) == 0


def test_counts_of_draws_take_exponents_and_underscores_and_nothing_else(capsys):
    assert (
        main(["estimate", "RandomizedResponse", "--witness", "--max-draws", "2e5", "--seed", "0"])
        == 0
    )
    assert "200,000 outputs" in capsys.readouterr().out
    assert (
        main(
            ["estimate", "RandomizedResponse", "--witness", "--max-draws", "200_000", "--seed", "0"]
        )
        == 0
    )
    assert "200,000 outputs" in capsys.readouterr().out
    for flag, text in (
        ("--max-draws", "2.5e4x"),
        ("--samples", "1e3.5"),
        ("--verify-samples", "2.5"),
    ):
        with pytest.raises(SystemExit) as exited:
            main(["audit", "DPLaplaceMean", flag, text])
        assert exited.value.code == 2
        assert (
            f"{text!r} is not a whole number; write e.g. 200000000 or 2e8"
            in capsys.readouterr().err
        )


def test_users_factory_parameters_are_checked(tmp_path, monkeypatch, capsys):
    # Issue 13: a misspelt --param for a user's factory was silently ignored.
    (tmp_path / "factories.py").write_text(
        "def make(epsilon, bins=4):\n"
        "    def mechanism(dataset, num_samples, rng):\n"
        "        return dataset.sum() + rng.laplace(0.0, 1.0 / epsilon, size=num_samples)\n"
        "    return mechanism\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "factories:make", "--epsilon", "1", "--param", "bnis=3", *FAST]) == 2
    assert "got unknown ['bnis']. Did you mean 'bins'" in capsys.readouterr().err.replace("\n", "")
    assert main(["audit", "factories:make", "--epsilon", "1", "--param", "bins=3", *FAST]) == 0


@pytest.mark.slow
def test_per_call_mechanisms_are_targets(tmp_path, monkeypatch, capsys):
    # Issue 13: a per_call wrapper was called as a factory with no arguments.
    (tmp_path / "one_draw.py").write_text(
        "import dpfuzz\n"
        "one = dpfuzz.per_call(lambda dataset, rng: dataset.sum() + rng.laplace(0.0, 0.5))\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "one_draw:one", "--epsilon", "1", "--max-size", "3", *FAST]) == 1
    assert "VIOLATED: " in capsys.readouterr().out


def test_a_users_mechanisms_module_does_not_shadow_the_catalogue(tmp_path, monkeypatch, capsys):
    # Issue 13: in a folder with the user's own mechanisms.py, `dpfuzz catalog` and catalogue
    # targets failed, and the user's module could not be targeted.
    (tmp_path / "mechanisms.py").write_text(
        "def mine(dataset, num_samples, rng):\n"
        "    return dataset.sum() + rng.laplace(0.0, 1.0, size=num_samples)\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["catalog"]) == 0 and "NonDPLaplaceMean1" in capsys.readouterr().out
    assert (
        main(["audit", "NonDPLaplaceMean1", *FAST]) == 0 and "VIOLATED" in capsys.readouterr().out
    )
    assert main(["audit", "mechanisms:mine", "--epsilon", "1", *FAST]) == 0
    assert "not refuted" in capsys.readouterr().out


def test_version_help_and_every_registry_has_the_names_registry_keys(capsys):
    from dpfuzz import claims, finders, names, relations, settings, testers

    assert tuple(testers._CLASSES) == names.TESTERS == testers.TESTER_NAMES
    assert tuple(name for name in finders._CLASSES if name != "fixed") == names.FINDERS
    assert tuple(relations.RELATIONS) == names.RELATIONS
    assert tuple(settings.BUDGETS) == names.BUDGETS
    assert tuple(claims.CLAIM_TYPES) == names.CLAIM_TYPES
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("dpfuzz ")
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    text = capsys.readouterr().out
    assert (
        "--max-seconds" in text
        and "--relation {add_remove,substitute,linf}" in text
        and "--budget" in text
    )
    with pytest.raises(SystemExit):
        main(["estimate", "--help"])
    text += capsys.readouterr().out
    # options without a default say what happens instead (was "(default: None)" on 22 of them)
    assert "--max-draws" in text and "(default: None)" not in text and "(default: [])" not in text


def test_the_summary_shows_the_claim_next_to_the_bound_and_how_to_reproduce(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            [
                "audit",
                "NonDPLaplaceMean1",
                "--samples",
                "20000",
                "--json",
                "r.json",
                "--trials",
                "4",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "auditing NonDPLaplaceMean1: claim 1-DP" in out and "(claim allows 0)" in out
    seed = json.loads(open("r.json").read())["seed"]
    assert (
        f"reproduce         dpfuzz audit NonDPLaplaceMean1 --samples 20000 --trials 4 --seed {seed}"
        in out
    )


def test_catalog_table_and_json(capsys):
    assert main(["catalog"]) == 0
    assert "NonDPLaplaceMean1" in capsys.readouterr().out
    assert main(["catalog", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    assert {entry["name"] for entry in entries} >= {"DPLaplaceMean", "NoisyHistogramWrongScale"}
    assert main(["catalog", "--json", "--violates", "--family", "svt"]) == 0
    names = {entry["name"] for entry in json.loads(capsys.readouterr().out)}
    assert names == {"SVT3", "SVT4", "SVT5", "SVT6", "SVT34Parallel"}
    assert main(["catalog", "--json", "--satisfies", "--claim", "RenyiDP"]) == 0
    names = {entry["name"] for entry in json.loads(capsys.readouterr().out)}
    assert names == {"PoissonSubsampledGaussian", "GroupSubsampledGaussian"}


@pytest.mark.slow
def test_console_script_is_installed():
    executable = shutil.which("dpfuzz") or pytest.skip("dpfuzz console script not on PATH")
    result = subprocess.run(
        [executable, "catalog", "--json"], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout)
    module = subprocess.run(
        [sys.executable, "-m", "dpfuzz.cli", "catalog"], capture_output=True, text=True
    )
    assert module.returncode == 0


def test_estimate_takes_the_domain_options_audit_takes(tmp_path):
    path = tmp_path / "estimate.json"
    assert (
        main(
            [
                "estimate",
                "Laplace",
                "--max-size",
                "2",
                "--low",
                "-1",
                "--max-draws",
                "2e5",
                "--seed",
                "0",
                "--json",
                str(path),
            ]
        )
        == 0
    )
    domain = json.loads(path.read_text())["report"]["domain"]
    assert (domain["max_size"], domain["low"]) == (2, -1.0)
    pair = json.loads(path.read_text())["pair"]
    assert max(len(pair["d0"]), len(pair["d1"])) <= 2


def test_a_log_gets_a_progress_line_at_most_every_interval():
    import io

    from rich.console import Console

    from dpfuzz.cli import _every

    out = io.StringIO()
    with _every(0.0, Console(file=out)) as show, _every(3600.0, Console(file=out)) as quiet:
        show("search: trial 1 of 10")
        quiet("search: trial 2 of 10")
    assert out.getvalue() == "  … search: trial 1 of 10\n"


def test_report_paths_that_cannot_be_written_are_refused_before_any_draw(tmp_path, capsys):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    cases = (
        (["--html", str(a_file / "report.html")], "is a file, not a folder"),
        (["--json", "/dev/null"], "is not a regular file"),
        (["--json", str(tmp_path)], "is a folder"),
    )
    for flags, reason in cases:
        assert main(["audit", "Laplace", *flags, *FAST]) == 2
        out, err = capsys.readouterr()
        assert reason in err and "auditing" not in out  # refused before the audit began
    assert main(["campaign", "run", "--results", str(a_file)]) == 2
    assert "--results" in capsys.readouterr().err
    # a link is followed: the file it names is replaced, the link kept
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    assert main(["audit", "Laplace", "--json", str(link), *FAST]) == 0
    assert link.is_symlink() and target.read_text().startswith("{")


def test_workers_are_at_least_one_and_at_most_the_cores(tmp_path, capsys):
    import os

    assert main(["campaign", "run", "--workers", "-5", "--results", str(tmp_path)]) == 2
    assert "--workers must be at least 1, got -5" in capsys.readouterr().err
    from rich.console import Console

    from dpfuzz.cli import _worker_count

    cores = len(os.sched_getaffinity(0))
    console = Console(file=open(os.devnull, "w"))
    assert _worker_count(1000, console) == cores and _worker_count(1, console) == 1


def test_names_with_control_characters_cannot_forge_terminal_lines():
    from dpfuzz.cli import _printable

    assert _printable("leaky\n[9/9] fine: ok\x1b[2K") == "leaky\\n[9/9] fine: ok\\x1b[2K"
