"""A griffe extension for the API pages: dpfuzz's docstrings write ``name : what it is`` in their
Parameters and Attributes sections, where numpydoc expects a type after the colon. This moves the
text below the name, as numpydoc's description, before the docstring is parsed."""

from __future__ import annotations

import re

import griffe

SECTIONS = ("Parameters", "Attributes", "Other Parameters")
ENTRY = re.compile(r"^(?P<indent>\s*)(?P<names>[\w*][\w*, ]*?) : (?P<text>.+)$")


def rewrite(text: str) -> str:
    lines, out, section = text.splitlines(), [], None
    for index, line in enumerate(lines):
        underline = index + 1 < len(lines) and set(lines[index + 1].strip()) == {"-"}
        if underline:
            section = line.strip()
        match = ENTRY.match(line) if section in SECTIONS else None
        if match and not line.startswith(match["indent"] + " "):
            out += [f"{match['indent']}{match['names']}", f"{match['indent']}    {match['text']}"]
        else:
            out.append(line)
    return "\n".join(out)


class DescriptionsAfterNames(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)
