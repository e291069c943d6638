"""`linkwell codegen`: the generated Swift and Kotlin routers agree with LinkRouting on every URL.

For every shipped config and the invariant test's extra tables (read from
Tests/AssociationTests/InvariantTests.swift), a corpus of matching and near-miss URLs with hostile
values goes through LinkRouting (the `codegen-reference` helper), the generated Swift (compiled
with swiftc, one driver for all sites) and the generated Kotlin (one kotlinc call for all sites,
one JVM for all URLs). All three must give the same site, route and parameters for every URL and
build the same links; the round-trip law parse(build(r, p)) == (r, p) holds in each language.
The manifest and plist targets are parsed back; `codegen --check` catches a stale file.
"""
import json
import os
import plistlib
import re
import shutil
import subprocess
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import quote, unquote_to_bytes

import pytest

from conftest import BINARY, ROOT

REFERENCE = ROOT / ".build" / "debug" / "codegen-reference"
# (config/examples/broken*.json5 are broken on purpose: the validate examples of docs/guide/getting-started.md.)
SHIPPED = ["config/linkwell.json5"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "config" / "examples").glob("*.json5")
                                              if not p.name.startswith("broken"))
ANDROID_NS = "{http://schemas.android.com/apk/res/android}"

# The base of ValidationTests.config(routes:), which the invariant test's extra tables use.
TRICKY_BASE = """// invariant test table: %s
{
  sites: [
    {
      domains: ["example.com"],
      ios: [{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: "123456789", schemes: ["example"] }],
      android: [{ id: "android", package: "com.example.app", fingerprints: ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"] }],
      routes: [%s],
    },
  ],
}
"""

# Extra tables that exercise what the shipped ones do not: several sites sharing hosts and
# wildcards, per-app routes and exclusions, fragments, optional query, rest parameters.
EXTRA = {
    "multisite": """{
  sites: [
    { name: "shop", domains: ["shop.example", "*.shop.example"],
      ios: [{ id: "ios", teamID: "ABCDE12345", bundleID: "com.shop.app", schemes: ["shop"] }],
      android: [{ id: "android", package: "com.shop.app", schemes: ["shopa"],
                  fingerprints: ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"] }],
      routes: [
        { exclude: "/item/secret", apps: ["ios"] },
        { exclude: "/help/*", fragment: "no_universal_links" },
        { name: "item", path: "/item/{id}", query: { ref: {}, utm_source: {} }, fragment: "section" },
        { name: "androidOnly", path: "/a/{x}", apps: ["android"] },
        { name: "help", path: "/help/{topic*}" },
        { name: "home", path: "/" },
      ] },
    { name: "eu", domains: ["eu.shop.example", "*.eu.shop.example"],
      ios: [{ id: "ios", teamID: "ABCDE12345", bundleID: "com.shop.eu", schemes: ["shopeu"] }],
      routes: [{ name: "item", path: "/item/{id}" }, { name: "legal", path: "/legal/{doc}.pdf" }] },
  ],
}""",
    # oneOf values compared as Swift compares strings (canonical equivalence): the Kotlin side
    # must accept "cafe\u0301" for "caf\u00e9" and U+2126 OHM SIGN for U+03A9 too.
    "unicode": """{
  sites: [
    { domains: ["menu.example"],
      ios: [{ teamID: "ABCDE12345", bundleID: "com.menu.app", schemes: ["menu"] }],
      routes: [
        { name: "dish", path: "/dish/{name}", params: { name: { oneOf: ["caf\u00e9", "\u03a9", "na\u00efve"] } } },
        { name: "any", path: "/any/{name}/{rest*}" },
      ] },
  ],
}""",
    # Non-ASCII literals, parameters and query names, which links carry raw or percent-encoded
    # (and both in one link): the generated code must read them as LinkRouting does.
    "nonascii": """{
  sites: [
    { domains: ["intl.example"],
      ios: [{ teamID: "ABCDE12345", bundleID: "com.intl.app", schemes: ["intl"] }],
      routes: [
        { name: "cafe", path: "/caf\u00e9/{id}" },
        { name: "japan", path: "/\u65e5\u672c/{word}" },
        { name: "mixed", path: "/\u65e5\u672c/{a}/caf\u00e9/{b}" },
        { name: "size", path: "/size/{n}", query: { "gr\u00f6\u00dfe": { required: true }, "farbe": {} } },
        { name: "prefixed", path: "/p/\u00e9-{x}.html" },
        { name: "rest", path: "/\u00fcber/{path*}" },
      ] },
  ],
}""",
}


def run(args, **kw):
    return subprocess.run([str(a) for a in args], cwd=ROOT, capture_output=True, text=True, **kw)


def camel(name):
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^A-Za-z0-9]+", name) if w)


@pytest.fixture(scope="module")
def configs(tmp_path_factory):
    """key → config path: the shipped configs, the invariant test's tables, the extra tables."""
    tmp = tmp_path_factory.mktemp("codegen-configs")
    out = {f"c{i}": ROOT / p for i, p in enumerate(SHIPPED)}
    source = (ROOT / "Tests/AssociationTests/InvariantTests.swift").read_text()
    block = source[source.index("static let shapes"):]
    block = block[: block.index("\n    ]\n")]
    tricky = re.findall(r'Shape\(\s*name: "([^"]+)",\s*routes: #"(.*?)"#', block, re.S)
    # (Shapes naming a second app need InvariantTests' two-app sites, which TRICKY_BASE lacks.)
    tricky = [(name, routes) for name, routes in tricky if "ios2" not in routes and "android2" not in routes]
    assert len(tricky) >= 8, "could not read InvariantTests.shapes"
    for i, (name, routes) in enumerate(tricky):
        p = tmp / f"tricky{i}.json5"
        p.write_text(TRICKY_BASE % (name, routes))
        out[f"t{i}"] = p
    for name, text in EXTRA.items():
        p = tmp / f"{name}.json5"
        p.write_text(text)
        out[name] = p
    return out


@pytest.fixture(scope="module")
def sites(configs):
    """(key, site, domains, schemes) for every site of every config."""
    r = run([REFERENCE, "--sites", *[f"{k}={p}" for k, p in configs.items()]])
    assert r.returncode == 0, r.stderr
    rows = []
    for line in r.stdout.splitlines():
        key, site, domains, schemes = line.split("\t")
        rows.append((key, site, domains.split(","), [s for s in schemes.split(",") if s]))
    return rows


def type_name(key, site):
    return f"{camel(key)}{camel(site)}Route"


NON_ASCII_ESCAPES = re.compile(r"(?:%[C-Fc-f][0-9A-Fa-f](?:%[89ABab][0-9A-Fa-f]){1,3})")


def mixed_spellings(text):
    """`text` with the percent-encoded non-ASCII characters of one part (segment or query item)
    written raw and the rest left encoded, for each part that has some; and the other way round."""
    sep = "&" if text.startswith("?") else "/"
    parts = text.split(sep)

    def raw(part):
        try:
            return NON_ASCII_ESCAPES.sub(lambda m: unquote_to_bytes(m.group(0)).decode("utf-8"), part)
        except UnicodeDecodeError:
            return part

    out = []
    spots = [i for i, p in enumerate(parts) if NON_ASCII_ESCAPES.search(p) and raw(p) != p]
    for i in spots:
        out.append(sep.join(raw(p) if j == i else p for j, p in enumerate(parts)))
        out.append(sep.join(p if j == i else raw(p) for j, p in enumerate(parts)))
    return out


def decomposed_names(query):
    """The query with each non-ASCII item name in decomposed Unicode (NFD), percent-encoded."""
    items = []
    for item in query[1:].split("&"):
        name, eq, value = item.partition("=")
        try:
            decoded = unquote_to_bytes(name).decode("utf-8")
        except UnicodeDecodeError:
            decoded = name
        if not decoded.isascii():
            name = quote(unicodedata.normalize("NFD", decoded), safe="")
        items.append(name + eq + value)
    return "?" + "&".join(items)


def hostile_segments():
    return ["%FF", "%C3", "%ED%A0%80", "%F0%80%80A", "%E2%82", "%F4%90%80%80", "%", "%zz", "%2", "a+b", "%2B",
            "K\u212a", "e\u0301", "caf\u00e9", "\u65e5\u672c", "a b", "%2E%2E", "..", ".", "%2F", "a%2Fb", "%23x", "%3F", "%26%3D",
            "\U0001F600", "A%C3%A9", "%c3%a9", "cafe\u0301", "cafe%CC%81", "caf%C3%A9", "\u2126", "%E2%84%A6", "\u03a9",
            "nai\u0308ve", "na%C3%AFve", "%C3%A9t%C3%A9", "\u00e9t%C3%A9", "%E6%97%A5\u672c"]


def corpus(configs, sites):
    """KEY<TAB>P<TAB>url lines: the invariant test's sample URLs and variants of them."""
    r = run([REFERENCE, "--corpus", *[f"{k}={p}" for k, p in configs.items()]])
    assert r.returncode == 0, r.stderr
    by_key = {}
    for key, site, domains, schemes in sites:
        by_key.setdefault(key, []).append((site, domains, schemes))
    urls = []
    seen = set()

    def add(key, url):
        assert "\t" not in url and "\n" not in url and "\r" not in url
        if (key, url) not in seen:
            seen.add((key, url))
            urls.append((key, url))

    samples = [line.split("\t", 1) for line in r.stdout.splitlines()]
    for key, url in samples:
        add(key, url)
        m = re.match(r"https://([^/?#]+)([^?#]*)(\?[^#]*)?(#.*)?$", url)
        assert m, url
        host, path, query, fragment = m.group(1), m.group(2), m.group(3) or "", m.group(4) or ""
        rest = path + query + fragment
        add(key, f"https://{host.upper()}{rest}")
        add(key, f"https://{host}.{rest}")
        add(key, f"https://{host}:443{rest}")
        add(key, f"https://user:pw@{host}{rest}")
        add(key, f"http://{host}{rest}")
        add(key, f"HTTPS://{host}{rest}")
        add(key, f"ftp://{host}{rest}")
        add(key, f"https://other.invalid{rest}")
        add(key, f"https://{host}{path}{query}#frag")
        add(key, f"https://{host}{path}{query}#no_universal_links")
        add(key, f"https://{host}{path}{query}#")
        add(key, f"https://{host}{path}?{query[1:]}&extra=1" if query else f"https://{host}{path}?extra")
        try:
            raw = unquote_to_bytes(path).decode("utf-8")
            if not re.search(r"[\t\r\n]", raw):
                add(key, f"https://{host}{raw}{query}")
        except UnicodeDecodeError:
            pass
        # Non-ASCII raw in some segments and percent-encoded in others (apps get links both
        # ways), and query names and values raw.
        for mixed in mixed_spellings(path):
            add(key, f"https://{host}{mixed}{query}")
        if query:
            for mixed in mixed_spellings(query):
                add(key, f"https://{host}{path}{mixed}")
            add(key, f"https://{host}{path}{decomposed_names(query)}")
        for site, domains, schemes in by_key[key]:
            for d in domains:
                if d.startswith("*."):
                    add(key, f"https://deep.sub{d[1:]}{rest}")
                    add(key, f"https://x{d[1:]}{rest}")
                else:
                    add(key, f"https://{d}{rest}")
            for s in schemes:
                add(key, f"{s}://{rest[1:]}")
                add(key, f"{s}://{host}{rest}")
                add(key, f"{s}://{host}:8080{rest}")
                add(key, f"{s}:{rest}")
                add(key, f"{s}:{rest[1:]}")
                add(key, f"{s.upper()}://{rest[1:]}")
                add(key, f"{s}:///{rest[1:]}")
        segs = path.rstrip("/").split("/")
        if len(segs) >= 2 and segs[-1]:
            head = "/".join(segs[:-1])
            heads = [head] + [m for m in mixed_spellings(head) if m != head]
            for h in hostile_segments():
                for hd in heads:
                    add(key, f"https://{host}{hd}/{h}{query}")
        if query:
            for h in ["%FF", "a+b", "%26", "caf\u00e9", "", "%"]:
                add(key, f"https://{host}{path}{re.sub(r'=([^&]*)', '=' + h, query, count=1)}")
    for key in configs:
        for bad in ["not a url", "", ":x", "1http://x/", "https://", "https:///AI", "https://[::1/x", "https://[::1]:80/x",
                    "https://host:99999/x", "https://host:+443/", "https://host:-0/", "https://host:/x", "https://a@b@host/x"]:
            add(key, bad)
        for site, domains, schemes in by_key[key]:
            d = next((x for x in domains if not x.startswith("*.")), domains[0].lstrip("*."))
            for tail in ["", "/", "//", "/?", "/#", "/?&&", "/%2F", "/a/../b"]:
                add(key, f"https://{d}{tail}")
            for s in schemes:
                for tail in ["", "/", "//", "///", f"//{d}", f"//{d}/", f"//{d}:x/", "//[::1]/x", "?q=1", "#f"]:
                    add(key, f"{s}:{tail}")
    return [f"{k}\tP\t{u}" for k, u in urls]


def build_cases(configs):
    r = run([REFERENCE, "--build-cases", *[f"{k}={p}" for k, p in configs.items()]])
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


SWIFT_DRIVER = """
import Foundation

struct SiteType {
    let site: String
    let parse: (String) -> (String, [String: String])?
    let parseURL: (URL) -> (String, [String: String])?
    let build: (String, [String: String]) -> (String, String?, Bool)?
}

func hexDecode(_ s: Substring) -> String {
    var bytes: [UInt8] = []
    var i = s.startIndex
    while i < s.endIndex, let j = s.index(i, offsetBy: 2, limitedBy: s.endIndex) {
        bytes.append(UInt8(s[i..<j], radix: 16)!)
        i = j
    }
    return String(decoding: bytes, as: UTF8.self)
}

func json(_ v: Any) -> String {
    if v is NSNull { return "null" }
    return String(decoding: try! JSONSerialization.data(withJSONObject: v, options: [.sortedKeys]), as: UTF8.self)
}

/// Text that `URL(string:)` percent-encodes (raw non-ASCII, spaces): `init?(url:)` must still
/// read it as `init?(string:)` reads the text. (Not where the non-ASCII text is a custom-scheme
/// link's host, which Foundation turns into punycode: `example://café/a1` has the host
/// `xn--caf-dma`; nor with a raw backslash, which Foundation encodes and a browser reads as `/`.)
func reencoded(_ s: String) -> Bool {
    guard s.unicodeScalars.contains(where: { !$0.isASCII || $0 == " " }),
        !s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x5C }) else { return false }
    guard let u = URL(string: s), let host = u.host else { return true }
    return host.unicodeScalars.allSatisfy { $0.isASCII } && !host.hasPrefix("xn--") && !host.contains(".xn--")
}

func parsed(_ types: [SiteType], _ s: String) -> Any {
    var found: [Any] = []
    for t in types {
        if let m = t.parse(s) {
            var o: [String: Any] = ["site": t.site, "route": m.0, "parameters": m.1]
            if let u = URL(string: s), u.absoluteString == s || reencoded(s) {
                let viaURL = t.parseURL(u)
                if viaURL?.0 != m.0 || viaURL?.1 != m.1 { o["initURLDiffers"] = true }
            }
            found.append(o)
        } else if let u = URL(string: s), u.absoluteString == s || reencoded(s), t.parseURL(u) != nil {
            found.append(["initURLDiffers": true])
        }
    }
    if found.count > 1 { return ["error": "several site types matched"] }
    return found.first ?? NSNull()
}

%(registry)s

while let line = readLine(strippingNewline: true) {
    let f = line.split(separator: "\\t", omittingEmptySubsequences: false)
    let types = registry[String(f[0])] ?? []
    if f[1] == "P" {
        print(json(parsed(types, String(f[2]))))
        continue
    }
    var p: [String: String] = [:]
    for pair in f[4].split(separator: ",") {
        let kv = pair.split(separator: ":", omittingEmptySubsequences: false)
        p[hexDecode(kv[0])] = hexDecode(kv[1])
    }
    guard let t = types.first(where: { $0.site == f[2] }), let b = t.build(String(f[3]), p) else {
        print("null")
        continue
    }
    var o: [String: Any] = ["url": b.0, "schemeURL": b.1 ?? NSNull(), "parsed": parsed(types, b.0), "schemeParsed": b.1.map { parsed(types, $0) } ?? NSNull()]
    if !b.2 { o["typedRoundTripFails"] = true }
    print(json(o))
}
"""

SWIFT_ENTRY = """SiteType(site: %(site)s,
        parse: { %(t)s(string: $0).map { ($0.routeName, $0.parameters) } },
        parseURL: { %(t)s(url: $0).map { ($0.routeName, $0.parameters) } },
        build: { n, p in %(t)s(routeName: n, parameters: p).map { r in
            (r.url.absoluteString, r.schemeURL?.absoluteString, %(t)s(url: r.url) == r && (r.schemeURL.map { %(t)s(url: $0) == r } ?? true)) } })"""

KOTLIN_DRIVER = """
import java.io.PrintStream

class SiteType(
    val site: String,
    val parse: (String) -> Pair<String, Map<String, String>>?,
    val build: (String, Map<String, String>) -> Triple<String, String?, Boolean>?
)

fun q(s: String): String {
    val b = StringBuilder("\\"")
    for (c in s) {
        when {
            c == '"' -> b.append("\\\\\\"")
            c == '\\\\' -> b.append("\\\\\\\\")
            c < ' ' -> b.append(String.format("\\\\u%%04x", c - '\\u0000'))
            else -> b.append(c)
        }
    }
    return b.append('"').toString()
}

fun obj(m: Map<String, String>): String = "{" + m.keys.sorted().joinToString(",") { q(it) + ":" + m.getValue(it) } + "}"

fun parsed(types: List<SiteType>, s: String): String {
    val found = types.mapNotNull { t -> t.parse(s)?.let { m ->
        obj(mapOf("site" to q(t.site), "route" to q(m.first), "parameters" to obj(m.second.mapValues { q(it.value) })))
    } }
    if (found.size > 1) return "{\\"error\\":\\"several site types matched\\"}"
    return found.firstOrNull() ?: "null"
}

fun hexDecode(s: String): String {
    val bytes = ByteArray(s.length / 2) { i -> s.substring(2 * i, 2 * i + 2).toInt(16).toByte() }
    return String(bytes, Charsets.UTF_8)
}

%(registry)s

fun main() {
    val out = PrintStream(java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8")
    val input = System.`in`.bufferedReader(Charsets.UTF_8)
    while (true) {
        val line = input.readLine() ?: break
        val f = line.split("\\t")
        val types = registry[f[0]] ?: emptyList()
        if (f[1] == "P") {
            out.println(parsed(types, f[2]))
            continue
        }
        val p = linkedMapOf<String, String>()
        for (pair in f[4].split(",")) {
            if (pair.isEmpty()) continue
            val kv = pair.split(":")
            p[hexDecode(kv[0])] = hexDecode(kv[1])
        }
        val t = types.firstOrNull { it.site == f[2] }
        val b = t?.build?.invoke(f[3], p)
        if (b == null) {
            out.println("null")
            continue
        }
        val o = linkedMapOf("url" to q(b.first), "schemeURL" to (b.second?.let { q(it) } ?: "null"),
            "parsed" to parsed(types, b.first), "schemeParsed" to (b.second?.let { parsed(types, it) } ?: "null"))
        if (!b.third) o["typedRoundTripFails"] = "true"
        out.println(obj(o))
    }
    out.flush()
}
"""

KOTLIN_ENTRY = """SiteType(%(site)s,
        { s -> %(t)s.parse(s)?.let { Pair(it.routeName, it.parameters) } },
        { n, p -> %(t)s.of(n, p)?.let { r -> Triple(r.toUrl(), r.toSchemeUrl(),
            %(t)s.parse(r.toUrl()) == r && (r.toSchemeUrl()?.let { %(t)s.parse(it) == r } ?: true)) } })"""


@pytest.fixture(scope="module")
def generated(configs, sites, tmp_path_factory):
    """Every site's Swift and Kotlin, from the real `linkwell codegen`, compiled into one driver each."""
    work = tmp_path_factory.mktemp("codegen-out")
    swift_dir, kotlin_dir = work / "swift", work / "kotlin"
    swift_entries, kotlin_entries = {}, {}
    for key, site, _, _ in sites:
        t = type_name(key, site)
        for target, d in (("swift", swift_dir), ("kotlin", kotlin_dir)):
            args = [BINARY, "codegen", target, "--config", configs[key], "--site", site, "--type-name", t, "--output", d]
            if target == "kotlin":
                args += ["--kotlin-package", f"lw.{key}"]
            r = run(args)
            assert r.returncode == 0, r.stderr
        swift_entries.setdefault(key, []).append(SWIFT_ENTRY % {"site": json.dumps(site), "t": t})
        kotlin_entries.setdefault(key, []).append(KOTLIN_ENTRY % {"site": json.dumps(site), "t": f"lw.{key}.{t}"})
    # The Android-only files need android.net.Uri; the apps compile them, the JVM test cannot.
    android_files = sorted(kotlin_dir.glob("*Android.kt"))
    assert len(android_files) == len(sites)
    for f in android_files:
        assert "fun " in f.read_text() and "android.net.Uri" in f.read_text()
        f.rename(work / f.name)

    swift_registry = "let registry: [String: [SiteType]] = [\n" + ",\n".join(
        f"    {json.dumps(k)}: [\n        " + ",\n        ".join(v) + "]" for k, v in swift_entries.items()) + "\n]\n"
    (swift_dir / "main.swift").write_text(SWIFT_DRIVER % {"registry": swift_registry})
    swift_bin = work / "swift-driver"
    r = run(["swiftc", "-Onone", "-o", swift_bin, *sorted(swift_dir.glob("*.swift"))], timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]

    kotlin_registry = "val registry: Map<String, List<SiteType>> = mapOf(\n" + ",\n".join(
        f"    {json.dumps(k)} to listOf(\n        " + ",\n        ".join(v) + ")" for k, v in kotlin_entries.items()) + "\n)\n"
    (kotlin_dir / "Driver.kt").write_text(KOTLIN_DRIVER % {"registry": kotlin_registry})
    jar = work / "driver.jar"
    # (kotlinc's default 256 MB heap is too small for every site's file in one call: it fails
    # in the JVM back end. One call with a larger heap stays cheaper than one call per site.)
    env = {**os.environ, "JAVA_OPTS": "-Xmx1g -Xms32M"}
    r = run(["kotlinc", *sorted(kotlin_dir.glob("*.kt")), "-include-runtime", "-d", jar], timeout=900, env=env)
    assert r.returncode == 0 and jar.exists(), r.stderr[-4000:]
    errors = [l for l in r.stderr.splitlines() if "error:" in l]
    assert not errors, errors[:10]
    return {"swift": [swift_bin], "kotlin": ["java", "-cp", jar, "DriverKt"], "work": work}


def answers(cmd, lines):
    r = subprocess.run([str(c) for c in cmd], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout.splitlines()
    assert len(out) == len(lines), f"{cmd[0]}: {len(out)} answers for {len(lines)} lines; stderr: {r.stderr[-2000:]}"
    return [json.loads(o) for o in out]


@pytest.fixture(scope="module")
def results(configs, sites, generated):
    lines = corpus(configs, sites) + build_cases(configs)
    ref_cmd = [REFERENCE, *[f"{k}={p}" for k, p in configs.items()]]
    return lines, {
        "LinkRouting": answers(ref_cmd, lines),
        "Swift": answers(generated["swift"], lines),
        "Kotlin": answers(generated["kotlin"], lines),
    }


def test_corpus_is_broad(results, configs):
    lines, res = results
    parses = [(l, a) for l, a in zip(lines, res["LinkRouting"]) if l.split("\t")[1] == "P"]
    matched = [a for _, a in parses if a]
    assert len(parses) > 5000 and len(matched) > 1000 and len(parses) - len(matched) > 1000, (len(parses), len(matched))
    # Every config has URLs that match and URLs that do not.
    for key in configs:
        mine = [a for l, a in parses if l.startswith(key + "\t")]
        assert any(mine) and not all(mine), key
    # The hostile values really reach the parameters.
    values = {v for a in matched for v in a["parameters"].values()}
    for needle in [" ", "/", "?", "#", "%", "&", "=", "+", "\u00e9", "\ufffd", "\u65e5"]:
        assert any(needle in v for v in values), needle


@pytest.mark.parametrize("language", ["Swift", "Kotlin"])
def test_generated_code_agrees_with_linkrouting(results, language):
    lines, res = results
    diffs = [(l, ref, got) for l, ref, got in zip(lines, res["LinkRouting"], res[language]) if ref != got]
    assert not diffs, f"{len(diffs)} of {len(lines)} differ; first: " + "\n".join(
        f"{l!r}\n  LinkRouting: {json.dumps(r, ensure_ascii=False)}\n  {language}: {json.dumps(g, ensure_ascii=False)}" for l, r, g in diffs[:8])


@pytest.mark.parametrize("language", ["LinkRouting", "Swift", "Kotlin"])
def test_round_trip_law(results, language):
    lines, res = results
    built = 0
    for line, answer in zip(lines, res[language]):
        f = line.split("\t")
        if f[1] != "B" or answer is None:
            continue
        built += 1
        params = {bytes.fromhex(a).decode(): bytes.fromhex(b).decode() for a, b in (p.split(":") for p in f[4].split(",") if p)}
        want = {"site": f[2], "route": f[3], "parameters": params}
        assert answer["parsed"] == want, (line, answer)
        if answer["schemeURL"] is not None:
            assert answer["schemeParsed"] == want, (line, answer)
        assert "typedRoundTripFails" not in answer, (line, answer)
    assert built > 300


def test_builders_refuse_what_linkrouting_refuses(results):
    lines, res = results
    refused = [l for l, a in zip(lines, res["LinkRouting"]) if l.split("\t")[1] == "B" and a is None]
    assert len(refused) > 50
    # (agreement on each of them is part of test_generated_code_agrees_with_linkrouting)


def test_manifest_fragment(configs, sites, tmp_path):
    r = run([REFERENCE, "--android-apps", *[f"{k}={p}" for k, p in configs.items()]])
    assert r.returncode == 0, r.stderr
    android = {}
    for line in r.stdout.splitlines():
        key, site, package, schemes = line.split("\t")
        android.setdefault((key, site), {})[package] = [s for s in schemes.split(",") if s]
    checked = 0
    for key, site, domains, schemes in sites:
        r = run([BINARY, "codegen", "android-manifest", "--config", configs[key], "--site", site, "--output", tmp_path / key])
        if "has no Android app" in r.stderr:
            assert r.returncode == 1
            continue
        assert r.returncode == 0, r.stderr
        for f in sorted((tmp_path / key).glob(f"{site}.*.AndroidManifest.xml")):
            text = f.read_text()
            assert text.startswith('<?xml version="1.0" encoding="utf-8"?>\n<!--\n  Generated by linkwell from ')
            root = ET.fromstring(text)
            filters = root.findall("./application/activity/intent-filter")
            verified = [x for x in filters if x.get(ANDROID_NS + "autoVerify") == "true"]
            assert len(verified) <= 1
            data = [d.attrib for x in filters for d in x.findall("data")]
            hosts = {d[ANDROID_NS + "host"] for d in data if ANDROID_NS + "host" in d}
            declared = {d[ANDROID_NS + "scheme"] for d in data if ANDROID_NS + "scheme" in d}
            if verified:
                assert hosts == {d.lower() for d in domains}, (f, hosts)
                assert {"https", "http"} <= declared
                paths = [d for d in data if any(k.startswith(ANDROID_NS + "path") for k in d)]
                assert paths, f
                for x in verified:
                    assert {a.get(ANDROID_NS + "name") for a in x.findall("action")} == {"android.intent.action.VIEW"}
                    assert {c.get(ANDROID_NS + "name") for c in x.findall("category")} == {
                        "android.intent.category.DEFAULT", "android.intent.category.BROWSABLE"}
            package = f.name[len(site) + 1: -len(".AndroidManifest.xml")]
            app_schemes = set(android[key, site][package])
            assert app_schemes <= declared, (f, app_schemes, declared)
            assert "<!--" in text.split("<intent-filter")[1 if len(filters) else 0] or not filters
            checked += 1
    assert checked >= 6


def test_plist_fragments(configs, sites, tmp_path):
    checked = 0
    for key, site, domains, schemes in sites:
        for target in ("ios-entitlements", "ios-info-plist"):
            out = tmp_path / key / target
            r = run([BINARY, "codegen", target, "--config", configs[key], "--site", site, "--output", out])
            if r.returncode != 0:
                assert "has no iOS app" in r.stderr or "registers a custom URL scheme" in r.stderr, r.stderr
                continue
            for f in sorted(out.glob(f"{site}.*")):
                text = f.read_text()
                assert "Generated by linkwell from " in text and f"linkwell codegen {target} \\-\\-config " in text
                value = plistlib.loads(f.read_bytes())
                if target == "ios-entitlements":
                    entries = value["com.apple.developer.associated-domains"]
                    assert [e for e in entries if e.startswith("applinks:")] == [f"applinks:{d.lower()}" for d in domains]
                else:
                    (t,) = value["CFBundleURLTypes"]
                    assert t["CFBundleTypeRole"] == "Editor" and f.name.startswith(f"{site}.{t['CFBundleURLName']}.")
                    assert set(t["CFBundleURLSchemes"]) <= set(schemes) and t["CFBundleURLSchemes"]
                checked += 1
    assert checked >= 10
    r = run([BINARY, "codegen", "ios-entitlements", "--config", "config/examples/fitconnect.json5", "--developer-mode"])
    assert r.returncode == 0
    entries = plistlib.loads(r.stdout.encode())["com.apple.developer.associated-domains"]
    assert entries == ["applinks:fitconnect.app?mode=developer", "webcredentials:fitconnect.app?mode=developer"]


def test_check_names_stale_files(tmp_path):
    config = tmp_path / "app.json5"
    shutil.copy(ROOT / "config/examples/diallodev.json5", config)
    out = tmp_path / "generated"
    for target in ("swift", "kotlin", "android-manifest", "ios-entitlements", "ios-info-plist"):
        r = run([BINARY, "codegen", target, "--config", config, "--output", out])
        assert r.returncode == 0, r.stderr
    files = sorted(p.name for p in out.iterdir())
    assert len(files) == 6, files
    r = run([BINARY, "codegen", "--check", out])
    assert r.returncode == 0, r.stderr
    assert "6 generated file(s) are up to date" in r.stdout

    # A changed route table: every file that depends on the routes is stale, and named.
    config.write_text(config.read_text().replace('path: "/AI"', 'path: "/ai"'))
    r = run([BINARY, "codegen", "--check", out])
    assert r.returncode == 1
    stale = set(re.findall(r"stale: \S+/([^/\s]+) — ", r.stderr))
    assert stale == {"DiallodevRoute.swift", "DiallodevRoute.kt", "diallodev.online.diallodev.app.AndroidManifest.xml"}, r.stderr
    assert "regenerate: linkwell codegen swift --config " in r.stderr

    # A hand edit is caught too, with the line.
    config.write_text(config.read_text().replace('path: "/ai"', 'path: "/AI"'))
    swift = out / "DiallodevRoute.swift"
    swift.write_text(swift.read_text().replace("case aiWorkspace\n", "case aiWorkspace, extra\n", 1))
    r = run([BINARY, "codegen", "--check", out])
    assert r.returncode == 1 and "stale: " in r.stderr and "DiallodevRoute.swift — line " in r.stderr, r.stderr

    r = run([BINARY, "codegen", "--check", tmp_path / "nothing-here-" ])
    assert r.returncode == 64


def test_header_names_config_and_command(configs):
    r = run([BINARY, "codegen", "swift", "--config", "config/examples/diallodev.json5"])
    assert r.returncode == 0, r.stderr
    head = r.stdout.splitlines()[:3]
    assert head[0] == "// Generated by linkwell from config/examples/diallodev.json5 (site 'diallodev'). Do not edit: change the config, then run"
    assert head[1] == "//   linkwell codegen swift --config config/examples/diallodev.json5 --site diallodev"
    r = run([BINARY, "codegen", "swift", "--config", "config/linkwell.json5"])
    assert r.returncode == 64 and "--site" in r.stderr
