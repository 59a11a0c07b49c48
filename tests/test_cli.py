import json
import shutil
import subprocess
import sys

import pytest

from dpfuzz.cli import main

FAST = ["--samples", "20000", "--trials", "4", "--seed", "0"]


def test_audit_a_catalogue_entry_and_write_json(tmp_path, capsys):
    path = tmp_path / "report.json"
    status = main(["audit", "mechanisms.means:NonDPLaplaceMean1", "--epsilon", "1.0", "--json", str(path), *FAST])
    out = capsys.readouterr().out
    assert status == 0
    assert "VIOLATED: NonDPLaplaceMean1 does not satisfy 1-DP" in out and "epsilon lower bound" in out
    report = json.loads(path.read_text())
    assert report["violated"] and report["seed"] == 0 and report["witness"] is not None
    assert main(["audit", "mechanisms.means:NonDPLaplaceMean1", "--fail-on-violation", *FAST]) == 1


def test_correct_entry_with_overridden_domain(capsys):
    status = main(["audit", "mechanisms.counting:Laplace", "--max-size", "3", "--fail-on-violation", *FAST])
    assert status == 0 and "not refuted" in capsys.readouterr().out


def test_audit_a_users_factory_and_mechanism(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_mechanisms.py").write_text(
        "def make(epsilon):\n"
        "    def mechanism(dataset, num_samples, rng):\n"
        "        return dataset.sum() + rng.laplace(0.0, 0.5 / epsilon, size=num_samples)\n"
        "    return mechanism\n"
        "def direct(dataset, num_samples, rng):\n"
        "    return dataset.sum() + rng.laplace(0.0, 1.0, size=num_samples)\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "my_mechanisms:make", "--epsilon", "1.0", "--fail-on-violation", *FAST]) == 1
    assert main(["audit", "my_mechanisms:direct", "--epsilon", "1.0", "--delta", "1e-6", *FAST]) == 0
    assert "not refuted: no violation of (1, 1e-06)-DP" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["audit", "mechanisms.means"], "must look like 'package.module:attribute'"),
        (["audit", "mechanisms.means:Nope"], "has no attribute 'Nope'"),
        (["audit", "mechanisms.means:DPLaplaceMean", "--alpha", "2"], "it takes no ['alpha']"),
        (["audit", "mechanisms.means:MEAN_DOMAIN"], "is a Domain, not a catalogue entry"),
        (["audit", "mechanisms.means:dp_laplace_mean"], "give the claim with --epsilon"),
        (["audit", "mechanisms.means:DPLaplaceMean", "--epsilon", "-1"], "epsilon must be finite and >= 0"),
        (["audit", "mechanisms.means:DPLaplaceMean", "--trials", "0"], "trials must be a positive int"),
        (["audit", "mechanisms.means:DPLaplaceMean", "--param", "bins"], "must look like NAME=VALUE"),
    ],
)
def test_bad_input_exits_2_with_a_message(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err.replace("\n", "")


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


def test_console_script_is_installed():
    executable = shutil.which("dpfuzz") or pytest.skip("dpfuzz console script not on PATH")
    result = subprocess.run([executable, "catalog", "--json"], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout)
    module = subprocess.run([sys.executable, "-m", "dpfuzz.cli", "catalog"], capture_output=True, text=True)
    assert module.returncode == 0
