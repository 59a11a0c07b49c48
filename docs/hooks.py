"""MkDocs hooks: pages that cannot drift from the code. ``<!-- cli-help -->`` becomes the
argument parser's own help; ``<!-- decision-records -->`` the list of docs/decisions/."""

from __future__ import annotations

import argparse

from pathlib import Path

MARKER = "<!-- cli-help -->"
RECORDS = "<!-- decision-records -->"


def on_page_markdown(markdown: str, page, config, files) -> str:
    if RECORDS in markdown:
        records = sorted((Path(config["docs_dir"]) / "decisions").glob("*.md"))
        items = [f"- [{path.read_text().splitlines()[0].lstrip('# ')}](../decisions/{path.name})" for path in records]
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
                        sections += [(f"dpfuzz {name} {child}", grand) for child, grand in inner.choices.items()]
    seen, text = set(), []
    for title, sub in sections:
        if id(sub) in seen:  # aliases (catalog) share a parser
            continue
        seen.add(id(sub))
        text.append(f"## `{title}`\n\n```text\n{sub.format_help().rstrip()}\n```\n")
    return markdown.replace(MARKER, "\n".join(text))
