"""The module walls of docs/dev/architecture.md, checked by scripts/check-module-walls.sh: it passes on
the tree as it is, and fails (naming the file) when a walled module imports what it must not."""

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check-module-walls.sh"


def run_walls(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(tree / "scripts" / "check-module-walls.sh")],
                          capture_output=True, text=True, timeout=60)


def copy_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "Sources", tree / "Sources")
    shutil.copytree(ROOT / "scripts", tree / "scripts")
    shutil.copy(ROOT / "Package.swift", tree / "Package.swift")
    return tree


def test_walls_hold_on_this_tree():
    result = run_walls(ROOT)
    assert result.returncode == 0, result.stderr
    assert "module walls:" in result.stdout


def test_microhttp_importing_linkwell_is_refused(tmp_path):
    tree = copy_tree(tmp_path)
    target = tree / "Sources" / "MicroHTTP" / "EntityTag.swift"
    target.write_text("import LinkRouting\n" + target.read_text())
    result = run_walls(tree)
    assert result.returncode == 1
    assert "Sources/MicroHTTP/EntityTag.swift imports LinkRouting" in result.stderr


def test_matcher_code_in_linkrouting_is_refused(tmp_path):
    tree = copy_tree(tmp_path)
    (tree / "Sources" / "LinkRouting" / "Stray.swift").write_text("public struct AppleMatcher {}\n")
    result = run_walls(tree)
    assert result.returncode == 1
    assert "LinkRouting declares platform-matcher types" in result.stderr


def test_package_dependency_on_walled_target_is_refused(tmp_path):
    tree = copy_tree(tmp_path)
    package = tree / "Package.swift"
    text = package.read_text()
    assert '.target(name: "MicroHTTP", dependencies: ["CMicroHTTPD"])' in text
    package.write_text(text.replace('.target(name: "MicroHTTP", dependencies: ["CMicroHTTPD"])',
                                    '.target(name: "MicroHTTP", dependencies: ["CMicroHTTPD", "LinkRouting"])'))
    result = run_walls(tree)
    assert result.returncode == 1
    assert "LinkRouting" in result.stderr
