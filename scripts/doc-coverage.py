#!/usr/bin/env python3
"""Public-symbol documentation coverage of the modules the apps import.

Prints, per module, how many public symbols have a doc comment, lists every one that has none
(file:line and the symbol), and exits 1 when a module it checks is below 100 %.

    scripts/doc-coverage.py                      # LinkRouting, PlatformMatchers, LinkwellJSON
    scripts/doc-coverage.py --module LinkRouting # one module
    scripts/doc-coverage.py --symbol-graph DIR   # also compare with `swift symbolgraph-extract` output

A symbol is public when it is declared `public` or `open` inside public types, is a `case` of a
public enum, a requirement of a public protocol, or a member without an access modifier of a
`public extension`. It is documented when a `///` line or a `/** … */` block with some text sits
directly above its declaration; attributes (`@inlinable`, multi-line `@available(…)`) may stand in
between, a blank line or a plain `//` comment may not. That is stricter than Swift, which attaches
a doc comment across both; a comment above a blank line reads as a note on a section, so it has
to sit on the symbol to count.

The Swift sources are scanned here, without the compiler, so the check runs in CI before
`swift build`. `--symbol-graph DIR` cross-checks the scan against the compiler's own view:

    swift build
    swift symbolgraph-extract -module-name LinkRouting -target x86_64-unknown-linux-gnu \\
        -I .build/debug/Modules -minimum-access-level public -skip-synthesized-members -output-dir DIR
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MODULES = ["LinkRouting", "PlatformMatchers", "LinkwellJSON"]


# MARK: Lexing: comments and string literals out of the way


@dataclass
class Lexed:
    code: str  # the text with comments and string contents blanked (newlines kept)
    line_kind: list[str]  # per line: "code", "doc", "comment" or "blank"
    doc_text: list[str]  # per doc line: its text without the comment markers


def lex(text: str) -> Lexed:
    """Blanks comments and string literals (interpolations included) so that braces, keywords and
    parentheses in `code` are real ones; classifies each line for the doc-comment check."""
    out = list(text)
    n = len(text)
    lines = text.split("\n")
    has_code = [False] * len(lines)
    has_doc = [False] * len(lines)
    has_comment = [False] * len(lines)
    doc_text = [""] * len(lines)
    line = 0
    # Stack of contexts: ("code",), ("interp", depth), ("string", hashes, multiline).
    stack: list[tuple] = [("code",)]
    i = 0

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    in_string = lambda: any(c[0] == "string" for c in stack)  # noqa: E731

    while i < n:
        c = text[i]
        top = stack[-1]
        if c == "\n":
            line += 1
            i += 1
            continue
        if top[0] in ("code", "interp"):
            if text.startswith("//", i):
                end = text.find("\n", i)
                end = n if end < 0 else end
                is_doc = text.startswith("///", i) and not text.startswith("////", i)
                if is_doc:
                    has_doc[line] = True
                    doc_text[line] += text[i + 3 : end]
                else:
                    has_comment[line] = True
                blank(i, end)
                i = end
                continue
            if text.startswith("/*", i):
                is_doc = text.startswith("/**", i) and not text.startswith("/**/", i)
                depth = 0
                j = i
                start_line = line
                while j < n:
                    if text.startswith("/*", j):
                        depth += 1
                        j += 2
                    elif text.startswith("*/", j):
                        depth -= 1
                        j += 2
                        if depth == 0:
                            break
                    else:
                        if text[j] == "\n":
                            line += 1
                        j += 1
                body = text[i:j]
                for k, part in enumerate(body.split("\n")):
                    if is_doc:
                        has_doc[start_line + k] = True
                        doc_text[start_line + k] += part.replace("/**", "").replace("*/", "").lstrip(" *")
                    else:
                        has_comment[start_line + k] = True
                blank(i, j)
                i = j
                continue
            m = re.compile(r'(#*)("""|")').match(text, i)
            if m and (m.group(1) == "" or True):
                hashes = len(m.group(1))
                multiline = m.group(2) == '"""'
                stack.append(("string", hashes, multiline))
                has_code[line] = True
                i = m.end()
                continue
            if top[0] == "interp":
                if c == "(":
                    stack[-1] = ("interp", top[1] + 1)
                elif c == ")":
                    if top[1] == 1:
                        stack.pop()
                        i += 1
                        continue
                    stack[-1] = ("interp", top[1] - 1)
            if not c.isspace():
                has_code[line] = True
            if in_string():
                blank(i, i + 1)
            i += 1
            continue
        # Inside a string literal.
        _, hashes, multiline = top
        has_code[line] = True
        escape = "\\" + "#" * hashes
        closing = ('"""' if multiline else '"') + "#" * hashes
        if text.startswith(escape + "(", i):
            stack.append(("interp", 1))
            blank(i, i + len(escape) + 1)
            i += len(escape) + 1
            continue
        if text.startswith(escape, i):
            blank(i, min(n, i + len(escape) + 1))
            if i + len(escape) < n and text[i + len(escape)] == "\n":
                line += 1
            i += len(escape) + 1
            continue
        if text.startswith(closing, i):
            stack.pop()
            i += len(closing)
            continue
        blank(i, i + 1)
        i += 1

    kinds = []
    for k in range(len(lines)):
        if has_code[k]:
            kinds.append("code")
        elif has_doc[k]:
            kinds.append("doc")
        elif has_comment[k]:
            kinds.append("comment")
        else:
            kinds.append("blank")
    return Lexed("".join(out), kinds, doc_text)


# MARK: Declarations


MODIFIERS = (
    r"(?:public|open|internal|private|fileprivate|package)(?:\s*\(\s*set\s*\))?"
    r"|static|final|override|mutating|nonmutating|indirect|lazy|weak|unowned|convenience|required"
    r"|dynamic|optional|nonisolated|consuming|borrowing|distributed|prefix|postfix|infix"
    r"|class(?=\s+(?:func|var|let|subscript|override|final)\b)"
)
ATTRIBUTE = r"@[A-Za-z_][\w.]*(?:\s*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))?"
DECL = re.compile(
    rf"(?P<attrs>(?:{ATTRIBUTE}\s*)*)"
    rf"(?P<mods>(?:(?:{MODIFIERS})\s+)*)"
    r"(?P<kw>struct|enum|class|actor|protocol|extension|func|init|deinit|subscript|var|let|case"
    r"|typealias|associatedtype)(?![\w])"
)
TYPE_KEYWORDS = {"struct", "enum", "class", "actor", "protocol"}
NAME = re.compile(r"\s*(`[^`]+`|[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)")
OPERATOR_NAME = re.compile(r"\s*([^\s(<\w`]+)")


@dataclass
class Symbol:
    module: str
    file: str
    line: int  # 1-based line of the declaration keyword
    name: str  # `RouteTable.resolve(_:)`
    kind: str  # `func`, `case`, `struct`, …
    documented: bool
    leaf: str  # the last component: `resolve(_:)`


@dataclass
class Scope:
    kind: str  # "file", "type", "extension", "body"
    path: list[str] = field(default_factory=list)  # qualified type name
    public: bool = False  # members may be public (the type, or the extended type, is public)
    public_extension: bool = False  # `public extension`: members default to public
    type_keyword: str = ""  # struct / enum / protocol …


def matching(code: str, i: int, open_: str, close: str) -> int:
    """The index just past the bracket that closes the one at `i`."""
    depth = 0
    pairs = {"(": ")", "[": "]", "<": ">"}
    j = i
    while j < len(code):
        ch = code[j]
        if ch == open_:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(code)


def split_top_level(text: str) -> list[str]:
    """Splits at commas outside brackets. `<` opens a generic argument list only right after a
    name (`Array<Int>`), so `1 << 20` and `->` in default values and closure types do not count."""
    parts, depth, angles, cur = [], 0, 0, ""
    for k, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "<" and k > 0 and (text[k - 1].isalnum() or text[k - 1] == "_") and text[k + 1 : k + 2] not in ("<", "=", " "):
            angles += 1
        elif ch == ">" and angles > 0 and text[k - 1 : k] != "-":
            angles -= 1
        if ch == "," and depth == 0 and angles == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def labels(params: str, positional: bool = False) -> str:
    """`(_ data: Data, file: String)` → `_:file:`. Subscript parameters have no label unless two
    names are written; operators have none."""
    out = []
    for p in split_top_level(params):
        before = p.split(":", 1)[0].split()
        if positional and len(before) < 2:
            out.append("_:")
        else:
            out.append((before[0] if before else "_") + ":")
    return "".join(out)


def access_of(mods: str) -> str | None:
    for m in re.finditer(r"(public|open|internal|private|fileprivate|package)(\s*\(\s*set\s*\))?", mods):
        if not m.group(2):
            return m.group(1)
    return None


def scan_file(
    module: str, path: Path, rel: str, public_types: dict[str, bool] | None
) -> tuple[list[Symbol], dict[str, bool]]:
    text = path.read_text(encoding="utf-8")
    lexed = lex(text)
    code = lexed.code
    line_starts = [0]
    for k, ch in enumerate(code):
        if ch == "\n":
            line_starts.append(k + 1)

    def line_of(pos: int) -> int:  # 0-based
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def documented(first_line: int, pos: int) -> bool:
        # Only a declaration that begins its line can carry a doc comment above it.
        if code[line_starts[first_line] : pos].strip():
            return False
        k = first_line - 1
        text_found = False
        while k >= 0 and lexed.line_kind[k] == "doc":
            if re.search(r"\w", lexed.doc_text[k]):
                text_found = True
            k -= 1
        return text_found

    symbols: list[Symbol] = []
    types: dict[str, bool] = {}
    stack = [Scope("file")]
    pending: Scope | None = None
    i = 0
    n = len(code)
    at_start = True
    consumed = 0
    while i < n:
        ch = code[i]
        if ch == "\n":
            at_start = True
            i += 1
            continue
        if ch in " \t\r":
            i += 1
            continue
        top = stack[-1]
        if at_start and i >= consumed and top.kind != "body":
            m = DECL.match(code, i)
            if m and not (m.group("kw") == "case" and top.type_keyword != "enum"):
                kw = m.group("kw")
                kw_pos = m.start("kw")
                access = access_of(m.group("mods"))
                if top.kind == "file":
                    is_public = access in ("public", "open")
                elif top.kind == "type":
                    is_public = top.public and (
                        access in ("public", "open") or top.type_keyword == "protocol" or kw == "case"
                    )
                else:  # extension
                    is_public = top.public and (
                        access in ("public", "open") or (access is None and top.public_extension)
                    )
                end = m.end()
                names: list[str] = []
                scope: Scope = Scope("body")
                if kw in TYPE_KEYWORDS or kw == "extension":
                    nm = NAME.match(code, end)
                    name = nm.group(1).strip("`") if nm else "?"
                    end = nm.end() if nm else end
                    if kw == "extension":
                        qualified = name.split(".")
                        key = ".".join(qualified)
                        if public_types is not None and key not in public_types:
                            # An extension of a nested type written relative to the scope.
                            rel_key = ".".join(top.path + qualified)
                            key = rel_key if rel_key in public_types else key
                        extended_public = True if public_types is None else public_types.get(key, True)
                        scope = Scope(
                            "extension", key.split("."), extended_public and (top.kind == "file" or top.public),
                            public_extension=access == "public", type_keyword="",
                        )
                    else:
                        qualified = top.path + [name]
                        types[".".join(qualified)] = is_public
                        scope = Scope("type", qualified, is_public, type_keyword=kw)
                        names = [name]
                elif kw in ("func",):
                    nm = NAME.match(code, end) or OPERATOR_NAME.match(code, end)
                    name = nm.group(1).strip("`") if nm else "?"
                    end = nm.end() if nm else end
                    g = re.compile(r"\s*<").match(code, end)
                    if g:
                        end = matching(code, g.end() - 1, "<", ">")
                    p = re.compile(r"\s*\(").match(code, end)
                    if p:
                        close = matching(code, p.end() - 1, "(", ")")
                        operator = not re.match(r"[A-Za-z_`]", name)
                        name += "(" + labels(code[p.end() : close - 1], positional=operator) + ")"
                        end = close
                    names = [name]
                elif kw in ("init", "subscript"):
                    name = kw
                    q = re.compile(r"[?!]").match(code, end)
                    if q:
                        name += q.group(0)
                        end = q.end()
                    g = re.compile(r"\s*<").match(code, end)
                    if g:
                        end = matching(code, g.end() - 1, "<", ">")
                    p = re.compile(r"\s*\(").match(code, end)
                    if p:
                        close = matching(code, p.end() - 1, "(", ")")
                        name += "(" + labels(code[p.end() : close - 1], positional=kw == "subscript") + ")"
                        end = close
                    names = [name]
                elif kw in ("var", "let", "typealias", "associatedtype"):
                    nm = NAME.match(code, end)
                    names = [nm.group(1).strip("`")] if nm else ["?"]
                    end = nm.end() if nm else end
                elif kw == "case":
                    stop = end
                    depth = 0
                    while stop < n and not (depth == 0 and code[stop] in "\n};"):
                        if code[stop] in "([":
                            depth += 1
                        elif code[stop] in ")]":
                            depth -= 1
                        stop += 1
                    for element in split_top_level(code[end:stop]):
                        em = NAME.match(element)
                        if not em:
                            continue
                        name = em.group(1).strip("`")
                        rest = element[em.end() :].lstrip()
                        if rest.startswith("("):
                            values = rest[1 : matching(rest, 0, "(", ")") - 1]
                            name += "(" + "".join(
                                (lm.group(1) if (lm := re.match(r"\s*([A-Za-z_]\w*)\s*:", v)) else "_") + ":"
                                for v in split_top_level(values)) + ")"
                        names.append(name)
                    end = stop
                elif kw == "deinit":
                    names = []
                if is_public:
                    first_line = line_of(i)
                    doc = documented(first_line, i)
                    for name in names:
                        symbols.append(Symbol(module, rel, line_of(kw_pos) + 1, ".".join(top.path + [name]), kw, doc, name))
                pending = scope
                consumed = end
                i = end
                at_start = False
                continue
        at_start = False
        if ch == "{":
            stack.append(pending or Scope("body", top.path))
            pending = None
            at_start = True
        elif ch == "}":
            if len(stack) > 1:
                stack.pop()
            pending = None
            at_start = True
        elif ch == ";":
            at_start = True
        i += 1
    return symbols, types


def scan_module(root: Path, module: str) -> list[Symbol]:
    files = sorted((root / "Sources" / module).glob("**/*.swift"))
    public_types: dict[str, bool] | None = None
    for _ in range(4):  # until the table of public types is stable
        symbols: list[Symbol] = []
        table: dict[str, bool] = {}
        for f in files:
            s, t = scan_file(module, f, str(f.relative_to(root)), public_types)
            symbols += s
            table.update(t)
        if table == public_types:
            break
        public_types = table
    return symbols


# MARK: Cross-check with the compiler's symbol graph


def symbol_graph_symbols(directory: Path, module: str) -> dict[tuple[str, int, str], tuple[str, bool]]:
    """(file name, 1-based line, symbol name) → (symbol path, has a doc comment), from the JSON
    that symbolgraph-extract writes (`Module.symbols.json`, `Module@Other.symbols.json`)."""
    found = {}
    for f in sorted(directory.glob(f"{module}.symbols.json")) + sorted(directory.glob(f"{module}@*.symbols.json")):
        for s in json.loads(f.read_text())["symbols"]:
            loc = s.get("location")
            if not loc:
                continue  # synthesized (rawValue initialisers, Codable conformances…)
            file_name = loc["uri"].rsplit("/", 1)[-1]
            key = (file_name, loc["position"]["line"] + 1, s["pathComponents"][-1])
            # A doc comment inherited from a protocol (`description` from CustomStringConvertible)
            # carries the other module's name; only the symbol's own comment counts.
            doc = s.get("docComment")
            own = bool(doc) and doc.get("module", module) == module
            found[key] = (".".join(s["pathComponents"]), own)
    return found


def cross_check(symbols: list[Symbol], directory: Path, module: str) -> list[str]:
    graph = symbol_graph_symbols(directory, module)
    if not graph:
        return [f"{module}: no {module}.symbols.json in {directory} (run swift symbolgraph-extract first)"]
    # The graph names a failable initialiser `init(_:)`, without the `?`.
    mine = {(Path(s.file).name, s.line, re.sub(r"^init[?!]", "init", s.leaf)): s for s in symbols}
    problems = []
    for key, (path, has_doc) in sorted(graph.items()):
        if key not in mine:
            problems.append(f"{module}: the compiler sees public {path} at {key[0]}:{key[1]}; this scanner does not")
        elif mine[key].documented and not has_doc:
            problems.append(f"{module}: {path} at {key[0]}:{key[1]}: the scanner sees a doc comment, the compiler none")
        elif has_doc and not mine[key].documented:
            # Swift attaches a comment across a blank line or a `//` line; this check does not
            # (see the top of this file). The coverage report already lists the symbol.
            pass
    for key, s in sorted(mine.items()):
        if key not in graph:
            problems.append(f"{module}: the scanner counts {s.name} at {key[0]}:{key[1]}; the compiler has no such public symbol there")
    return problems


# MARK: Report


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1], help="the package root")
    parser.add_argument("--module", action="append", help="a module to check (repeatable); default: %s" % ", ".join(DEFAULT_MODULES))
    parser.add_argument("--symbol-graph", type=Path, metavar="DIR", help="compare with symbolgraph-extract output in DIR")
    parser.add_argument("--list-all", action="store_true", help="list every public symbol, documented or not")
    args = parser.parse_args(argv)
    modules = args.module or DEFAULT_MODULES
    status = 0
    for module in modules:
        if not (args.root / "Sources" / module).is_dir():
            print(f"doc coverage: there is no Sources/{module} under {args.root}", file=sys.stderr)
            return 2
        symbols = scan_module(args.root, module)
        undocumented = [s for s in symbols if not s.documented]
        total = len(symbols)
        done = total - len(undocumented)
        percent = 100.0 * done / total if total else 100.0
        print(f"{module}: {done}/{total} public symbols documented ({percent:.1f} %)")
        for s in symbols if args.list_all else undocumented:
            mark = "" if s.documented else "undocumented: "
            print(f"  {s.file}:{s.line}: {mark}{s.name} ({s.kind})")
        if undocumented:
            status = 1
            sys.stdout.flush()
            print(
                f"doc coverage: {module} has {len(undocumented)} public symbol(s) without a doc comment (listed above); "
                "add a /// line directly above each declaration (attributes may sit in between, blank lines may not)",
                file=sys.stderr)
        if args.symbol_graph:
            problems = cross_check(symbols, args.symbol_graph, module)
            for p in problems:
                print(f"cross-check: {p}", file=sys.stderr)
            if problems:
                status = 1
            else:
                print(f"  cross-check: the compiler's symbol graph has the same {total} public symbols and doc comments")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
