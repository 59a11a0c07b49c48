"""The README and the docs site's pages cannot drift from the code: their Python examples run, the
README stays a short entry point, and the pages a newcomer reads first stay plain."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# pages whose Python blocks run, in order, as one script each
RUN = [
    "README.md",
    "docs/tutorial.md",
    "docs/guide/python.md",
    "docs/guide/pytest.md",
    "docs/guide/slow-mechanisms.md",
    "docs/guide/float.md",
    "docs/guide/extending.md",
    "docs/explanation/verdicts.md",
]
# short sentences: every page a user learns from (the decision records and the benchmark page are
# records of measurements, not held to it)
PLAIN = [
    "README.md",
    "docs/index.md",
    "docs/tutorial.md",
    *(
        str(path.relative_to(ROOT))
        for folder in ("guide", "reference", "explanation")
        for path in sorted((ROOT / "docs" / folder).glob("*.md"))
    ),
]
UNDATED = [
    "README.md",
    "docs/index.md",
    "docs/tutorial.md",
    *(str(p.relative_to(ROOT)) for p in (ROOT / "docs/explanation").glob("*.md")),
]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def python_blocks(text: str) -> list[str]:
    return [body for language, body in FENCE.findall(text) if language == "python"]


def prose(text: str) -> str:
    """The text without fenced blocks, inline code, tables and headings."""
    text = FENCE.sub("", text)
    lines = [
        line
        for line in text.splitlines()
        if not line.lstrip().startswith(("|", "#", "--8<--", "<!--"))
    ]
    return re.sub(r"`[^`]*`", "Code", "\n".join(lines))


def sentences(text: str) -> list[str]:
    """Sentences of the prose; paragraphs and list items end one."""
    pieces = re.split(r"\n\s*\n|\n\s*(?=- |\d+\. )", prose(text))
    found = []
    for piece in pieces:
        flat = re.sub(r"\s+", " ", piece)
        found += [s for s in re.split(r"(?<=[.!?:;])\s+(?=[A-Z(\"*])", flat) if s.strip()]
    return found


@pytest.mark.real_clock  # users' examples, some of whose releases sleep
@pytest.mark.parametrize("page", RUN)
@pytest.mark.slow
def test_every_python_example_runs(page, tmp_path, monkeypatch):
    blocks = python_blocks((ROOT / page).read_text())
    assert blocks, f"{page} has no Python example"
    monkeypatch.chdir(tmp_path)  # examples may write files
    namespace: dict = {"__name__": "__docs__"}
    for number, block in enumerate(blocks, start=1):
        # dont_inherit: an example runs as a user's script does, without this module's futures
        exec(compile(block, f"{page} block {number}", "exec", dont_inherit=True), namespace)


PAGES = ["README.md", *(str(p.relative_to(ROOT)) for p in sorted((ROOT / "docs").rglob("*.md")))]


@pytest.mark.parametrize("page", PAGES)
def test_every_config_and_shell_block_parses(page):
    # TOML and YAML as their parsers read them (a block copied as is must load), shell blocks
    # by `bash -n`; Python blocks run in the test above
    import subprocess
    import tomllib

    yaml = pytest.importorskip("yaml")
    for language, body in FENCE.findall((ROOT / page).read_text()):
        if language == "toml":
            tomllib.loads(body)
        elif language == "yaml":
            yaml.safe_load(body)
        elif language in ("bash", "sh", "console"):
            checked = subprocess.run(["bash", "-n"], input=body, capture_output=True, text=True)
            assert checked.returncode == 0, f"{page}: {checked.stderr}\n{body}"


@pytest.mark.slow
def test_the_library_examples_run_on_a_quick_budget(monkeypatch):
    # The libraries' releases are called one at a time: at their own budgets these examples take
    # minutes, so each `LibraryTarget.audit` runs at the quick budget, 10 s at most, here (the
    # verdicts they state are checked in tests/adapters/test_adapters.py and
    # benchmarks/libraries.py).
    for library in ("opendp", "diffprivlib", "pydp", "opacus", "pipeline_dp"):
        pytest.importorskip(library)
    from dpfuzz import adapters
    from dpfuzz.auditing import audit

    def quick(target, **options):
        options.pop("max_seconds", None)
        return audit(
            target.mechanism,
            target.claim,
            target.domain,
            **{**options, "budget": "quick", "max_draws": 20_000, "max_seconds": 10},
        )

    monkeypatch.setattr(adapters.LibraryTarget, "audit", quick)
    page = "docs/guide/libraries.md"
    # SmartNoise, jax-privacy and TF Privacy run in their environments (tests/adapters)
    elsewhere = ("dpfuzz.adapters.smartnoise", "dpfuzz.adapters.tfprivacy")
    for number, block in enumerate(python_blocks((ROOT / page).read_text()), start=1):
        if not any(other in block for other in elsewhere):
            exec(compile(block, f"{page} block {number}", "exec"), {"__name__": "__docs__"})


def test_the_readme_is_a_short_entry_point_with_the_two_quickstart_commands():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 150
    assert 'python -m pip install -e ".[report]" && dpfuzz campaign run' in text
    assert (
        'python -m pip install -e ".[test,vizier,opendp,diffprivlib,pydp,opacus,pipelinedp]" &&'
        " python -m pytest -n auto" in text
    )


@pytest.mark.parametrize("page", PLAIN)
def test_no_sentence_is_over_forty_words(page):
    long = [s for s in sentences((ROOT / page).read_text()) if len(s.split()) > 40]
    assert not long, f"{page}: {long}"


@pytest.mark.parametrize("page", UNDATED)
def test_no_dates_in_the_readme_or_the_explanations(page):
    assert not re.findall(r"\b20\d\d-\d\d-\d\d\b", (ROOT / page).read_text())


def test_the_sentence_splitter_sees_long_sentences():
    long = "Word " + "word " * 40
    text = f"A short one. {long.strip()}. Another `code span` here.\n- an item\n- another item"
    assert [len(s.split()) for s in sentences(text)] == [3, 41, 3, 3, 3]


def test_the_api_pages_read_each_description_as_one():
    pytest.importorskip("griffe")
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "griffe_descriptions", ROOT / "docs" / "griffe_descriptions.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = (
        "Audit.\n\nParameters\n----------\nclaim : the claim,\n    checked.\nseed : a"
        " seed.\n\nNotes\n-----\nx : y stays."
    )
    assert (
        module.rewrite(text)
        == "Audit.\n\nParameters\n----------\nclaim\n    the claim,\n    checked.\nseed\n    a"
        " seed.\n\nNotes\n-----\nx : y stays."
    )
