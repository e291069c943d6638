"""The shape the code and the documents keep (docs/dev/architecture.md): one fallback decision,
one place that reads iPad from a User-Agent, a small PageRenderer, no mutable statics in the CLI,
short landing-path functions, and a README and BENCHMARKS.md a newcomer can read. Each check is
run over the tree as it is, and each is shown to catch a breach on a planted copy."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "Sources"

# The request path: the responder's steps, the landing stage, its caches, the renderer and the
# template renderer (the template compiler runs when a config loads, not per request).
LANDING_PATH = [
    *sorted((SOURCES / "LinkServer").glob("Responder*.swift")),
    *[SOURCES / "LinkServer" / f for f in ("LandingAnswerer.swift", "ShortLinkResponder.swift", "LinkPageCache.swift",
                                            "PageCache.swift", "BoundedCache.swift", "ResolvedLinkCache.swift",
                                            "LandingPageRenderer.swift", "Site.swift", "StaticAssets.swift")],
    *[p for p in sorted((SOURCES / "LandingPages").glob("*.swift"))
      if p.name not in ("HTMLContext.swift", "Template+Parser.swift", "Template+Escaper.swift", "HTMLEscaping.swift")],
    SOURCES / "LandingPages" / "Template+Render.swift",
]
COMPILE_TIME = {"assemble"}  # Template+Render.swift: builds the program once per template


def swift_sources():
    return sorted(SOURCES.rglob("*.swift"))


def code_lines(text):
    """Lines without // comments and string literals (braces in strings do not count)."""
    for line in text.split("\n"):
        line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
        yield line.split("//", 1)[0]


def long_functions(path, limit=60):
    lines = list(code_lines(path.read_text()))
    found = []
    for i, line in enumerate(lines):
        m = re.search(r"\b(func\s+([A-Za-z_][A-Za-z0-9_]*)|init)\s*[(<]", line)
        if not m:
            continue
        depth, started, j = 0, False, i
        while j < len(lines):
            depth += lines[j].count("{") - lines[j].count("}")
            started = started or "{" in lines[j]
            if started and depth <= 0:
                break
            if not started and j > i + 8:  # a protocol requirement: no body
                break
            j += 1
        name = m.group(2) or "init"
        if started and j - i + 1 > limit and name not in COMPILE_TIME:
            found.append(f"{path.name}:{i + 1} {name} ({j - i + 1} lines)")
    return found


def occurrences(needle):
    return [f"{p.relative_to(ROOT)}:{n}" for p in swift_sources()
            for n, line in enumerate(p.read_text().split("\n"), 1) if needle in line.split("//", 1)[0]]


def test_one_fallback_decision():
    assert len(occurrences("FallbackDecision.decide(")) == 1, occurrences("FallbackDecision.decide(")


def test_one_place_reads_ipad_from_a_user_agent():
    assert len(occurrences('contains("iPad")')) <= 1, occurrences('contains("iPad")')


def page_renderer_requirements(text):
    body = re.search(r"public protocol PageRenderer[^{]*\{(.*?)\n\}", text, re.S).group(1)
    return re.findall(r"^\s*(?:func|var|subscript|init)\b", body, re.M)


def test_page_renderer_has_at_most_three_requirements():
    text = (SOURCES / "LinkServer" / "PageRenderer.swift").read_text()
    assert len(page_renderer_requirements(text)) <= 3
    planted = text.replace("public protocol PageRenderer: Sendable {", "public protocol PageRenderer: Sendable {\n    var x: Int { get }")
    assert len(page_renderer_requirements(planted)) == len(page_renderer_requirements(text)) + 1


def test_dead_renderer_is_gone():
    assert occurrences("MinimalPageRenderer") == []


def test_no_mutable_statics_in_the_command_line():
    hits = [h for p in sorted((SOURCES / "linkwell").glob("*.swift"))
            for h in ([str(p.relative_to(ROOT))] if "nonisolated(unsafe)" in p.read_text() else [])]
    assert hits == []


def test_no_landing_path_function_is_longer_than_60_lines(tmp_path):
    assert all(p.exists() for p in LANDING_PATH), [str(p) for p in LANDING_PATH if not p.exists()]
    assert [f for p in LANDING_PATH for f in long_functions(p)] == []
    planted = tmp_path / "Planted.swift"
    planted.write_text("func long() {\n" + "    let a = \"{\"\n" * 70 + "}\n")
    assert long_functions(planted) and "long (72 lines)" in long_functions(planted)[0]


def test_readme_and_benchmarks_stay_short():
    assert len((ROOT / "README.md").read_text().split("\n")) - 1 <= 250
    assert len((ROOT / "BENCHMARKS.md").read_text().split("\n")) - 1 <= 150
