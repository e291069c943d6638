"""scripts/doc-coverage.py: every public symbol of LinkRouting, PlatformMatchers and LinkwellJSON
has a doc comment on this tree; the script fails, naming file:line and symbol, when one has not;
its scanner follows Swift's rules (table below) and agrees with the compiler's symbol graph."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "doc-coverage.py"
MODULES = ["LinkRouting", "PlatformMatchers", "LinkwellJSON"]


def run(tree: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(tree / "scripts" / "doc-coverage.py"), *args],
                          capture_output=True, text=True, timeout=120)


def test_every_public_symbol_is_documented_on_this_tree():
    result = run(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    for module in MODULES:
        m = re.search(rf"^{module}: (\d+)/(\d+) public symbols documented \(100\.0 %\)$", result.stdout, re.M)
        assert m, result.stdout
        assert int(m.group(1)) == int(m.group(2)) > 0


def test_an_undocumented_public_symbol_fails_and_is_named(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "Sources", tree / "Sources")
    shutil.copytree(ROOT / "scripts", tree / "scripts")
    target = tree / "Sources" / "LinkRouting" / "RouteTable.swift"
    text = target.read_text()
    lines = text.count("\n")
    target.write_text(text + "\nextension RouteTable {\n    public func undocumentedHelper() -> Int { 1 }\n}\n")
    result = run(tree)
    assert result.returncode == 1
    assert re.search(r"^LinkRouting: (\d+)/(\d+) public symbols documented \(\d+\.\d %\)$", result.stdout, re.M)
    assert f"Sources/LinkRouting/RouteTable.swift:{lines + 3}: undocumented: RouteTable.undocumentedHelper() (func)" in result.stdout
    assert "LinkRouting has 1 public symbol(s) without a doc comment" in result.stderr
    # The other modules are untouched and still complete.
    assert "PlatformMatchers: " in result.stdout and "(100.0 %)" in result.stdout.split("PlatformMatchers: ")[1].split("\n")[0]


# (Swift source, expected [(symbol, documented)]) — what counts as public, and what counts as documented.
CASES = [
    ("/// Doc.\npublic struct A {\n    public var x: Int\n    var hidden: Int\n}\n",
     [("A", True), ("A.x", False)]),
    ("/// Doc.\n@available(iOS, introduced: 15,\n    message: \"multi-line attribute\")\n@inlinable\npublic func f() {}\n",
     [("f()", True)]),
    # Swift itself attaches these two comments; this check wants them on the symbol.
    ("/// Doc, then a blank line.\n\npublic func f() {}\n",
     [("f()", False)]),
    ("/// Doc, then a plain comment.\n// note\npublic func f() {}\n",
     [("f()", False)]),
    ("/// Doc above an import belongs to the import.\nimport Foundation\npublic struct A {}\n",
     [("A", False)]),
    ("// A plain comment is not documentation.\npublic struct A {}\n",
     [("A", False)]),
    ("/**\n A block doc comment.\n */\npublic enum E {\n    /// Both.\n    case a, b\n    case c(label: Int, String)\n}\n",
     [("E", True), ("E.a", True), ("E.b", True), ("E.c(label:_:)", False)]),
    ("struct Internal {\n    public var notPublic: Int\n}\n", []),
    ("/// Doc.\npublic struct A {}\n/// Doc.\npublic extension A {\n    /// Doc.\n    var y: Int { 1 }\n    private var z: Int { 2 }\n    static func g(_ a: Int, b: Int) {}\n}\n",
     [("A", True), ("A.y", True), ("A.g(_:b:)", False)]),
    ("struct Hidden {}\nextension Hidden {\n    public func notPublic() {}\n}\n", []),
    ("/// Doc.\npublic struct S {\n    /// Doc.\n    public let brace = \"{ \\(1) }\"\n    public init?(_ text: String) {\n        let s = \"}\"\n        _ = s\n    }\n    public subscript(key: String) -> Int { 0 }\n    public static func == (l: S, r: S) -> Bool { true }\n}\n",
     [("S", True), ("S.brace", True), ("S.init?(_:)", False), ("S.subscript(_:)", False), ("S.==(_:_:)", False)]),
    ("/// Doc.\npublic enum E: String { case p = \"P\", q = \"Q\" }\n",
     [("E", True), ("E.p", False), ("E.q", False)]),
    ("/// Doc.\npublic func f(a: Dictionary<String, Int>, b: Int = 1 << 20, c: (Int) -> Void = { _ in }) {}\n",
     [("f(a:b:c:)", True)]),
    ("/// Doc.\npublic protocol P {\n    /// Doc.\n    var a: Int { get }\n    func b()\n}\n",
     [("P", True), ("P.a", True), ("P.b()", False)]),
]


@pytest.mark.parametrize("source,expected", CASES)
def test_scanner_rules(tmp_path, source, expected):
    tree = tmp_path / "tree"
    (tree / "Sources" / "LinkRouting").mkdir(parents=True)
    shutil.copytree(ROOT / "scripts", tree / "scripts")
    (tree / "Sources" / "LinkRouting" / "Case.swift").write_text(source)
    result = run(tree, "--module", "LinkRouting", "--list-all")
    found = re.findall(r"^  Sources/LinkRouting/Case\.swift:\d+: (undocumented: )?(\S+) \(\w+\)$", result.stdout, re.M)
    assert [(name, not undocumented) for undocumented, name in found] == expected, result.stdout
    assert result.returncode == (0 if all(doc for _, doc in expected) else 1)


# Every Swift module of the package: the scanner must agree with the compiler on all of them,
# not only on the three whose coverage is enforced.
ALL_MODULES = MODULES + ["Association", "LandingPages", "MicroHTTP", "LinkServer"]


def test_scanner_agrees_with_the_compilers_symbol_graph(tmp_path):
    """`swift symbolgraph-extract` over the debug build: the same public symbols, at the same
    lines, with the same doc-comment status (comments inherited from a protocol do not count)."""
    modules_dir = ROOT / ".build" / "debug" / "Modules"
    assert (modules_dir / "LinkRouting.swiftmodule").exists(), "run `swift build` first (make test does)"
    out = tmp_path / "symbols"
    out.mkdir()
    target = subprocess.run(["swift", "-print-target-info"], capture_output=True, text=True, timeout=60)
    triple = re.search(r'"triple":\s*"([^"]+)"', target.stdout).group(1)
    c_modules = ["-I", str(ROOT / "Sources" / "CMicroHTTPD"), "-I", str(ROOT / "Sources" / "CQRencode"), "-I", str(ROOT / "Sources" / "CRsvg"), "-I", str(ROOT / "Sources" / "CSQLite"), "-I", str(ROOT / "Sources" / "CPostgres"),
                 "-Xcc", "-I/usr/include/postgresql"]
    # CRsvg's header includes librsvg's and glib's, found through pkg-config as SwiftPM does.
    cflags = subprocess.run(["pkg-config", "--cflags", "librsvg-2.0"], capture_output=True, text=True, timeout=30, check=True).stdout.split()
    c_modules += [a for flag in cflags for a in ("-Xcc", flag)]
    for module in ALL_MODULES:
        extract = subprocess.run(
            ["swift", "symbolgraph-extract", "-module-name", module, "-target", triple, "-I", str(modules_dir),
             *c_modules, "-minimum-access-level", "public", "-skip-synthesized-members", "-output-dir", str(out)],
            capture_output=True, text=True, timeout=300)
        assert extract.returncode == 0, extract.stderr
    args = [a for m in ALL_MODULES for a in ("--module", m)]
    result = run(ROOT, *args, "--symbol-graph", str(out))
    assert "cross-check:" not in result.stderr, result.stderr
    assert result.stdout.count("cross-check: the compiler's symbol graph has the same") == len(ALL_MODULES), result.stdout


def test_build_docs_writes_the_archives_and_the_article(tmp_path):
    out = tmp_path / "docs"
    result = subprocess.run(["bash", str(ROOT / "scripts" / "build-docs.sh"), str(out)],
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    for module in MODULES:
        assert f"build-docs: {out}/{module}.doccarchive" in result.stdout
        assert (out / f"{module}.doccarchive" / "index.html").exists()
    pages = out / "LinkRouting.doccarchive" / "data" / "documentation" / "linkrouting"
    assert (pages / "gettingstarted.json").exists()
    assert (pages / "routetable" / "resolve(_:).json").exists()
