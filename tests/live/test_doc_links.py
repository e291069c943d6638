"""The documents hold together: every relative link of README.md, BENCHMARKS.md and docs/ reaches a
file (and a heading, when it names one), the configuration reference's table of contents lists
every section, and the documents for users carry no issue numbers or session logs (those live in
docs/dev/history/ and bench/history/)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^)\s#]*)(#[^)\s]*)?\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> list[str]:
    found, seen, fence = [], {}, False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        heading = None if fence else re.match(r"^#{1,6} (.*)$", line)
        if heading:
            s = slug(heading.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.append(s if n == 0 else f"{s}-{n}")
    return found


def outside_code(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def test_every_relative_link_reaches_its_file_and_heading():
    broken = []
    for document in DOCUMENTS:
        for target, anchor in LINK.findall(outside_code(document.read_text())):
            if re.match(r"^[a-z]+:", target):
                continue
            path = (document.parent / target).resolve() if target else document
            where = f"{document.relative_to(ROOT)} → {target}{anchor}"
            if not path.exists():
                broken.append(f"{where}: no such file")
            elif anchor and path.suffix == ".md" and anchor[1:] not in anchors(path.read_text()):
                broken.append(f"{where}: no such heading")
    assert not broken, "\n".join(broken)


def test_the_configuration_reference_lists_every_section():
    text = (ROOT / "docs" / "reference" / "configuration.md").read_text()
    listed = set(re.findall(r"^\s*- \[.*\]\(#([^)]+)\)\s*$", text, re.M))
    sections = []
    for line in outside_code(text).split("\n"):
        heading = re.match(r"^#{2,3} (.*)$", line)
        if heading:
            sections.append(slug(heading.group(1)))
    missing = [s for s in sections if s not in listed]
    assert not missing, f"add these sections to the table of contents of configuration.md: {missing}"


def test_no_issue_numbers_or_session_logs_in_the_users_documents():
    found = []
    for document in DOCUMENTS:
        if "history" in document.relative_to(ROOT).parts:
            continue
        for n, line in enumerate(outside_code(document.read_text()).split("\n"), 1):
            if re.search(r"\b[Ii]ssue \d+|\bissue #?\d+|#\d{2,}\b(?!;)|\b[Ss]ession \d+|\bsession-\d+", line):
                found.append(f"{document.relative_to(ROOT)}: {line.strip()[:120]}")
    assert not found, "\n".join(found)
