"""docs/dev/architecture.md's module table is generated from Package.swift by
scripts/module-table.py: it is up to date on this tree, and `--check` fails when Package.swift
changes a dependency or adds a target without the table following."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "module-table.py"


def module_table(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root), *args],
                          capture_output=True, text=True, timeout=60)


def copy_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    (tree / "docs" / "dev").mkdir(parents=True)
    shutil.copy(ROOT / "Package.swift", tree / "Package.swift")
    shutil.copy(ROOT / "docs" / "dev" / "architecture.md", tree / "docs" / "dev" / "architecture.md")
    return tree


def test_the_table_matches_package_swift():
    result = module_table(ROOT, "--check")
    assert result.returncode == 0, result.stderr


def test_a_changed_dependency_is_drift_until_the_table_is_written_again(tmp_path):
    tree = copy_tree(tmp_path)
    package = tree / "Package.swift"
    text = package.read_text()
    changed = re.sub(r'(name:\s*"Codegen",\s*dependencies:\s*\[)', r'\1"NewDependency", ', text, count=1)
    assert changed != text, "Package.swift no longer declares Codegen's dependencies as this test expects"
    package.write_text(changed)
    result = module_table(tree, "--check")
    assert result.returncode == 1
    assert "differs from Package.swift" in result.stderr
    assert module_table(tree).returncode == 0
    assert module_table(tree, "--check").returncode == 0
    document = (tree / "docs" / "dev" / "architecture.md").read_text()
    assert "| `Codegen` | library | `NewDependency`, " in document


def test_a_target_without_a_purpose_is_named(tmp_path):
    tree = copy_tree(tmp_path)
    package = tree / "Package.swift"
    package.write_text(package.read_text().replace(
        "    targets: [", '    targets: [\n        .target(name: "Newcomer", dependencies: ["LinkRouting"]),', 1))
    result = module_table(tree)
    assert result.returncode == 1
    assert "target 'Newcomer' of Package.swift has no line in PURPOSES" in result.stderr
    assert "| `Newcomer` | library | `LinkRouting` |" in (tree / "docs" / "dev" / "architecture.md").read_text()
