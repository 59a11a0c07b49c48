"""MkDocs hooks: pages that cannot drift from the code. ``<!-- cli-help -->`` becomes the
argument parser's own help; ``<!-- decision-records -->`` the list of docs/decisions/;
``<!-- benchmark-results -->`` benchmarks/RESULTS.md, its plots embedded."""

from __future__ import annotations

import argparse
from pathlib import Path

MARKER = "<!-- cli-help -->"
RECORDS = "<!-- decision-records -->"
RESULTS = "<!-- benchmark-results -->"


def benchmark_results(root: Path) -> str:
    """benchmarks/RESULTS.md one heading level down, its plots as data URIs (they live outside
    docs/)."""
    import base64
    import re

    folder = root / "benchmarks"
    text = (folder / "RESULTS.md").read_text().split("\n", 1)[1]  # without its title

    def embed(match) -> str:
        data = base64.b64encode((folder / match["path"]).read_bytes()).decode()
        return f"![{match['alt']}](data:image/png;base64,{data})"

    text = re.sub(r"!\[(?P<alt>[^\]]*)\]\((?P<path>results/[^)]+\.png)\)", embed, text)
    return re.sub(r"^(#+) ", r"\1# ", text, flags=re.M)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if RESULTS in markdown:
        markdown = markdown.replace(RESULTS, benchmark_results(Path(config["docs_dir"]).parent))
    if RECORDS in markdown:
        records = sorted((Path(config["docs_dir"]) / "decisions").glob("*.md"))
        items = [
            f"- [{path.read_text().splitlines()[0].lstrip('# ')}](../decisions/{path.name})"
            for path in records
        ]
        markdown = markdown.replace(RECORDS, "\n".join(items))
    if MARKER not in markdown:
        return markdown
    import os

    from dpfuzz.cli import build_parser

    os.environ["COLUMNS"] = "100"  # argparse wraps help to the terminal's width
    parser = build_parser()
    sections = [("dpfuzz", parser)]
    for action in parser._actions:  # argparse keeps its subcommands here; it has no public accessor
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                sections.append((f"dpfuzz {name}", sub))
                for inner in sub._actions:
                    if isinstance(inner, argparse._SubParsersAction):
                        sections += [
                            (f"dpfuzz {name} {child}", grand)
                            for child, grand in inner.choices.items()
                        ]
    seen, text = set(), []
    for title, sub in sections:
        if id(sub) in seen:  # aliases (catalog) share a parser
            continue
        seen.add(id(sub))
        text.append(f"## `{title}`\n\n```text\n{sub.format_help().rstrip()}\n```\n")
    return markdown.replace(MARKER, "\n".join(text))
