"""The commands README.md and docs/guide/*.md show are run, and their output compared with the
document's. The conventions (which blocks run, the placeholders, the update mode) are in
docs/dev/testing.md, "The documents' commands".

DOC_COMMANDS_UPDATE=1 prints the actual output of every block that differs, in the document's
form, for a writer to paste; the documents are never rewritten here."""

import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / ".build" / "debug" / "linkwell"
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]
MARKER = re.compile(r"^<!-- runnable(: server)? -->$")
FENCE = re.compile(r"^(`{3,})")
HEREDOC = re.compile(r"<<-?\s*'?\"?([A-Za-z_][A-Za-z0-9_]*)'?\"?")
PLACEHOLDERS = {"<time>": r".+?", "<port>": r"\d+", "<hash>": r"[0-9A-Za-z]+", "<n>": r"\d+"}
ELISION = ("...", "…")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # styles a terminal shows, not as text (curl's bold headers)
UPDATE = os.environ.get("DOC_COMMANDS_UPDATE") == "1"


class Command:
    def __init__(self, text, expected, line):
        self.text, self.expected, self.line = text, expected, line


class Block:
    def __init__(self, document, line, server, commands):
        self.document, self.line, self.server, self.commands = document, line, server, commands

    @property
    def where(self):
        return f"{self.document.relative_to(ROOT)}:{self.line}"


def parse(document: Path, text: str):
    """The runnable blocks of a document, in order. A marker must be followed by a fenced block."""
    lines = text.split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        marker = MARKER.match(lines[i].strip())
        if not marker:
            i += 1
            continue
        fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        assert fence, f"{document.relative_to(ROOT)}:{i + 1}: a runnable marker must be followed by a fenced block"
        start = i + 2
        end = start
        while end < len(lines) and lines[end].strip() != fence.group(1):
            end += 1
        assert end < len(lines), f"{document.relative_to(ROOT)}:{i + 2}: the runnable block is not closed"
        blocks.append(Block(document, i + 2, bool(marker.group(1)), commands_of(lines[start:end], start + 1)))
        i = end + 1
    return blocks


def commands_of(lines, first_line):
    """`$ ` lines are commands (continued by a trailing backslash or a here-document); the lines
    after one, up to the next, are its expected output."""
    commands = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            assert not commands and not lines[i].strip(), \
                f"line {first_line + i}: output before the first '$ ' command: {lines[i]!r}"
            i += 1
            continue
        line_no = first_line + i
        text = lines[i][2:]
        i += 1
        while text.endswith("\\") and i < len(lines):
            text += "\n" + lines[i]
            i += 1
        heredoc = HEREDOC.search(text)
        if heredoc:
            while i < len(lines):
                text += "\n" + lines[i]
                i += 1
                if lines[i - 1] == heredoc.group(1):
                    break
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        commands.append(Command(text, expected, line_no))
    return commands


def trimmed(lines):
    lines = [line.replace("\r", "").rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def line_pattern(expected_line):
    pattern = re.escape(expected_line)
    for placeholder, regex in PLACEHOLDERS.items():
        pattern = pattern.replace(re.escape(placeholder), regex)
    return re.compile(pattern + r"\Z")


def matches(expected, actual):
    """Whether the actual lines fit the expected ones (placeholders, and elision lines that stand
    for any number of lines)."""
    expected, actual = trimmed(expected), trimmed(actual)

    def fit(e, a):
        if e == len(expected):
            return a == len(actual)
        if expected[e].strip() in ELISION:
            return any(fit(e + 1, k) for k in range(a, len(actual) + 1))
        return a < len(actual) and bool(line_pattern(expected[e]).match(actual[a])) and fit(e + 1, a + 1)

    return fit(0, 0)


def fresh_copy(tmp: Path) -> Path:
    """The repository's tracked files (as they are in the working tree) in a new directory, and a
    bin/ directory whose only entry is `linkwell`, the debug build."""
    copy = tmp / "repository"
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            target = copy / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (bin_dir / "linkwell").symlink_to(BINARY)
    return copy


class DocServer:
    """`linkwell serve` on the shipped config in the fresh copy, on free loopback ports."""

    def __init__(self, copy: Path, env):
        self.proc = subprocess.Popen(
            ["linkwell", "serve", "--config", "config/linkwell.json5", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"],
            cwd=copy, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        first = self.proc.stdout.readline()
        assert first, "linkwell serve printed nothing: does config/linkwell.json5 still load?"
        event = json.loads(first)
        assert event.get("event") == "listening", first
        self.port = event["addresses"][0].rsplit(":", 1)[1]
        self.admin_port = event["admin"].rsplit(":", 1)[1]
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()

    def ports_in(self, command: str) -> str:
        return command.replace(":8080", f":{self.port}").replace(":9090", f":{self.admin_port}")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def run_block(block: Block, copy: Path, env, server):
    """[(command, rc, output lines)]: the block's commands in one bash, each framed by markers."""
    script = []
    for n, command in enumerate(block.commands):
        text = server.ports_in(command.text) if server else command.text
        script += [f"echo '@@doc-command {n} start@@'", text, f"echo \"@@doc-command {n} end $?@@\""]
    script_file = copy.parent / "block.sh"
    script_file.write_text("\n".join(script) + "\n")
    # On a terminal, as when pasted: `script` gives bash a pseudo-terminal, so stdout is
    # line-buffered and interleaves with stderr in the order the commands write them.
    result = subprocess.run(["script", "-qec", f"bash {script_file}", "/dev/null"], cwd=copy, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=180)
    printed = ANSI.sub("", result.stdout.decode(errors="replace").replace("\r", ""))
    results = []
    for n, command in enumerate(block.commands):
        found = re.search(rf"@@doc-command {n} start@@\n(.*?)@@doc-command {n} end (\d+)@@", printed, re.S)
        assert found, f"{block.where}: the block stopped before `{command.text}` ended:\n{printed}"
        output = found.group(1)
        if output.endswith("\n"):
            output = output[:-1]
        results.append((command, int(found.group(2)), output.split("\n") if output else []))
    return results


def document_form(command, output):
    return "\n".join([f"$ {command.text}", *output])


@pytest.mark.parametrize("document", [d for d in DOCUMENTS if "<!-- runnable" in d.read_text()],
                         ids=lambda d: str(d.relative_to(ROOT)))
def test_the_documents_commands_print_what_the_document_shows(document, tmp_path):
    blocks = parse(document, document.read_text())
    assert blocks, f"{document.relative_to(ROOT)} has a runnable marker but no block"
    copy = fresh_copy(tmp_path)
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}", "NO_COLOR": "1", "TERM": "dumb",
           "HOME": str(tmp_path)}
    env.pop("LINKWELL_CONFIG", None)
    server = None
    failures = []
    try:
        for block in blocks:
            if block.server and server is None:
                server = DocServer(copy, env)
            for command, rc, output in run_block(block, copy, env, server if block.server else None):
                where = f"{block.document.relative_to(ROOT)}:{command.line}"
                if rc != 0:
                    failures.append(f"{where}: `{command.text}` exited {rc} (a command that fails when pasted):\n"
                                    + "\n".join(output))
                elif not matches(command.expected, output):
                    failures.append(f"{where}: `{command.text}` printed something else.\n"
                                    f"--- the document shows\n" + "\n".join(trimmed(command.expected)) +
                                    "\n+++ it printed\n" + "\n".join(trimmed(output)))
                    if UPDATE:
                        print(f"\n==== {where}: the actual output, in the document's form "
                              f"(put the placeholders back):\n{document_form(command, trimmed(output))}\n")
    finally:
        if server:
            server.stop()
    assert not failures, "\n\n".join(failures) + (
        "" if UPDATE else "\n\n(DOC_COMMANDS_UPDATE=1 with -s prints every actual output in the document's form.)")


def test_the_readme_has_runnable_blocks():
    blocks = parse(ROOT / "README.md", (ROOT / "README.md").read_text())
    assert any(b.server for b in blocks) and any(not b.server for b in blocks)


def test_placeholders_and_elision():
    assert matches(["Date: <time>", 'ETag: "<hash>"', "port <port>", "count <n>"],
                   ["Date: Thu, 03 Dec 2026 10:56:16 GMT", 'ETag: "e6def2aa923593ef"', "port 18080", "count 12"])
    assert matches(["first", "...", "last"], ["first", "a", "b", "last"])
    assert matches(["first", "…", "last"], ["first", "last"])
    assert matches(["a", ""], ["a", "", ""])
    assert not matches(["count <n>"], ["count many"])
    assert not matches(["first", "last"], ["first", "middle", "last"])
    assert not matches(["a.b"], ["axb"])


def test_a_marker_without_a_block_is_an_error(tmp_path):
    with pytest.raises(AssertionError, match="must be followed by a fenced block"):
        parse(ROOT / "README.md", "text\n<!-- runnable -->\n\n```sh\n$ true\n```\n")


def test_commands_continue_over_backslashes_and_here_documents():
    block = parse(ROOT / "README.md", "<!-- runnable -->\n```console\n$ cat > a <<'EOF'\n$ not a command\nEOF\n"
                  "$ echo a \\\n    b\na b\n```\n")[0]
    assert [c.text for c in block.commands] == ["cat > a <<'EOF'\n$ not a command\nEOF", "echo a \\\n    b"]
    assert block.commands[1].expected == ["a b"]
