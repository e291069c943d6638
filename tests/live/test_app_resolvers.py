"""The generated resolvers (`codegen swift`, `codegen kotlin`) against a running server.

The FDL sample site as a link domain that opens the app (`openApp`, `linkDomain`), its Takeout
imported. The generated Swift (swiftc, with FoundationNetworking) and Kotlin (kotlinc, JVM) are
each compiled once into a driver and run over one corpus: route and custom-scheme links are read
offline, short and long links with one request to the server's resolve endpoint, unknown codes
and other links go to the browser, and an endpoint that never answers gives the timeout error.
Every answer must be what the server's resolve endpoint (LinkRouting) says for the same link, and
the same in both languages. The Kotlin also reads the Play install referrer of an imported FDL
link (as the landing page's Play button writes it) back into the link's route. The Swift first-launch check of the clipboard hand-off
(the decision, without UIKit) and both languages' app-open beacons run in the same programs.
"""
import json
import re
import shutil
import socket
import subprocess
import threading
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

import pytest

from conftest import BINARY, ROOT, curl

FDL = Path(__file__).parent / "fdl"
HOST = "links.example.com"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36"

# Driver line: endpoint \t timeout seconds \t link. Answer: incoming \t kind \t route-or-url \t
# parameters \t campaign (k=v joined by '&', keys sorted).
SWIFT_DRIVER = r"""
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

func pairs(_ d: [String: String]) -> String { d.keys.sorted().map { "\($0)=\(d[$0]!)" }.joined(separator: "&") }

final class Box: @unchecked Sendable { var text = "" }

// The first-launch check's "has looked" flag, kept for the whole run ("firstlaunch-fresh" starts over).
var looked = false
let store = ExampleRoute.FirstLaunchStore(hasLooked: { looked }, markLooked: { looked = true })

while let line = readLine(strippingNewline: true) {
    let f = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    if f[0].hasPrefix("firstlaunch") {
        // firstlaunch[-fresh] \t - \t pasteboard text: the accepted link or nil, and whether the pasteboard was read.
        if f[0] == "firstlaunch-fresh" { looked = false }
        var read = false
        let link = ExampleRoute.firstLaunchLink(pasteboard: { read = true; return f[2] }, store: store)
        print("\(link?.absoluteString ?? "nil")\t\(read ? "read" : "unread")")
        continue
    }
    if f[0] == "report" {
        // report \t kind \t endpoint link: true when the server counted the beacon.
        let parts = f[2].split(separator: " ").map(String.init)
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        ExampleRoute.reportOpen(link: URL(string: parts[1])!, kind: ExampleRoute.OpenKind(rawValue: f[1])!, endpoint: URL(string: parts[0])!, timeout: 5) { counted in
            box.text = "reported\t\(counted)"
            done.signal()
        }
        done.wait()
        print(box.text)
        continue
    }
    guard let url = URL(string: f[2]) else { print("badurl"); continue }
    let incoming: String
    switch ExampleRoute.incoming(url) {
    case .route: incoming = "route"
    case .resolveOnServer: incoming = "server"
    case .openInBrowser: incoming = "browser"
    }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    ExampleRoute.resolve(url, endpoint: URL(string: f[0])!, timeout: Double(f[1])!) { result in
        switch result {
        case let .success(.route(route, campaign)): box.text = "route\t\(route.routeName)\t\(pairs(route.parameters))\t\(pairs(campaign))"
        case let .success(.openInBrowser(target)): box.text = "browser\t\(target.absoluteString)\t\t"
        case .failure(.timedOut): box.text = "error\ttimedOut\t\t"
        case let .failure(.badResponse(status)): box.text = "error\tbadResponse \(status)\t\t"
        case .failure(.network): box.text = "error\tnetwork\t\t"
        }
        done.signal()
    }
    done.wait()
    print("\(incoming)\t\(box.text)")
}
"""

KOTLIN_DRIVER = r"""
import com.example.app.links.*

fun pairs(d: Map<String, String>): String = d.keys.sorted().joinToString("&") { "$it=${d.getValue(it)}" }

fun main() {
    val input = System.`in`.bufferedReader(Charsets.UTF_8)
    while (true) {
        val line = input.readLine() ?: break
        val f = line.split("\t", limit = 3)
        if (f[0] == "report") {
            // report \t kind \t endpoint link: true when the server counted the beacon.
            val parts = f[2].split(" ")
            val kind = ExampleRouteOpenKind.values().first { it.wire == f[1] }
            val done = java.util.concurrent.CountDownLatch(1)
            var counted = false
            ExampleRoute.reportOpen(parts[1], kind, parts[0], 5_000) { counted = it; done.countDown() }
            done.await()
            println("reported\t$counted")
            continue
        }
        if (f[0] == "referrer") {
            val r = ExampleRoute.fromInstallReferrer(f[2])
            println(if (r == null) "null" else "${r.routeName}\t${pairs(r.parameters)}\t${ExampleRoute.installReferrerLink(f[2])}")
            continue
        }
        val incoming = when (ExampleRoute.incoming(f[2])) {
            is ExampleRouteIncoming.Route -> "route"
            is ExampleRouteIncoming.ResolveOnServer -> "server"
            is ExampleRouteIncoming.OpenInBrowser -> "browser"
        }
        val out = try {
            when (val r = ExampleRoute.resolve(f[2], f[0], (f[1].toDouble() * 1000).toInt())) {
                is ExampleRouteResolved.Route -> "route\t${r.route.routeName}\t${pairs(r.route.parameters)}\t${pairs(r.campaign)}"
                is ExampleRouteResolved.OpenInBrowser -> "browser\t${r.url}\t\t"
            }
        } catch (e: ExampleRouteResolveException) {
            when (e.kind) {
                ExampleRouteResolveException.Kind.TIMED_OUT -> "error\ttimedOut\t\t"
                ExampleRouteResolveException.Kind.BAD_RESPONSE -> "error\tbadResponse ${e.status}\t\t"
                ExampleRouteResolveException.Kind.NETWORK -> "error\tnetwork\t\t"
            }
        }
        println("$incoming\t$out")
    }
}
"""

# (link, what `incoming` says offline)
CORPUS = [
    (f"https://{HOST}/post/1", "route"),
    (f"https://{HOST}/user/ann?utm_source=x", "route"),
    (f"https://{HOST}/welcome", "route"),
    ("example://post/3", "route"),
    ("example://user/bob", "route"),
    (f"https://{HOST}/post42", "server"),          # imported FDL link: campaign fields
    (f"https://{HOST}/ann", "server"),             # imported FDL link to a route
    (f"https://{HOST}/post42/", "server"),         # one trailing '/'
    (f"https://{HOST}/spring", "server"),          # added with `links add`
    (f"https://{HOST}/?link=https%3A%2F%2F{HOST}%2Fpost%2F7&utm_source=tw", "server"),  # long link
    (f"https://{HOST}/nope", "server"),            # unknown code: the browser
    (f"https://{HOST}/blog1", "server"),           # a short link to a web page: the browser
    (f"https://{HOST}/post/draft", "server"),      # excluded: no route, the server says 404
    (f"https://{HOST}/static/linkwell.css", "browser"),
    (f"https://{HOST}/.well-known/assetlinks.json", "browser"),
    ("https://other.example.org/post42", "browser"),
    ("example://nowhere/a/b", "browser"),
]


def run(args, **kw):
    return subprocess.run([str(a) for a in args], cwd=ROOT, capture_output=True, text=True, **kw)


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    work = tmp_path_factory.mktemp("resolvers")
    config = work / "links.json5"
    text = (FDL / "links.json5").read_text()
    text = text.replace('shortLinks: { allowedHosts: ["www.example.com"] }',
                        'shortLinks: { allowedHosts: ["www.example.com"], openApp: true, linkDomain: true }')
    assert "openApp" in text
    config.write_text(text)
    r = run([BINARY, "links", "import", "--fdl-takeout", FDL / "takeout.csv", "--site", "example", "--config", config])
    assert r.returncode in (0, 1), r.stderr  # (the sample has broken rows on purpose)
    r = run([BINARY, "links", "add", "--target", f"https://{HOST}/user/zoe", "--code", "spring", "--config", config])
    assert r.returncode == 0, r.stderr
    swift_dir, kotlin_dir = work / "swift", work / "kotlin"
    for target, d in (("swift", swift_dir), ("kotlin", kotlin_dir)):
        r = run([BINARY, "codegen", target, "--config", config, "--output", d])
        assert r.returncode == 0, r.stderr
    # The Android file needs android.net.Uri (the apps compile it); check it, compile the rest.
    android = kotlin_dir / "ExampleRouteAndroid.kt"
    assert "fun ExampleRoute.Companion.incoming(uri: Uri)" in android.read_text()
    android.rename(work / android.name)
    (swift_dir / "main.swift").write_text(SWIFT_DRIVER)
    (kotlin_dir / "Driver.kt").write_text(KOTLIN_DRIVER)
    results = {}

    def compile_swift():
        r = run(["swiftc", "-Onone", "-o", work / "swift-driver", *sorted(swift_dir.glob("*.swift"))], timeout=600)
        results["swift"] = r

    def compile_kotlin():
        r = run(["kotlinc", *sorted(kotlin_dir.glob("*.kt")), "-include-runtime", "-d", work / "driver.jar"], timeout=900)
        results["kotlin"] = r
    threads = [threading.Thread(target=compile_swift), threading.Thread(target=compile_kotlin)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["swift"].returncode == 0, results["swift"].stderr[-4000:]
    assert results["kotlin"].returncode == 0 and (work / "driver.jar").exists(), results["kotlin"].stderr[-4000:]
    return {"config": config, "swift": [work / "swift-driver"], "kotlin": ["java", "-cp", work / "driver.jar", "DriverKt"]}


def answers(cmd, lines):
    r = subprocess.run([str(c) for c in cmd], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout.splitlines()
    assert len(out) == len(lines), (out, r.stderr[-2000:])
    return [o.split("\t") for o in out]


def pairs(d):
    return "&".join(f"{k}={d[k]}" for k in sorted(d))


def expected(server, link):
    """What the server's resolve endpoint (LinkRouting) says, in the drivers' words."""
    status, _, body = curl("-H", f"Host: {HOST}", server.url("/.well-known/linkwell/resolve?link=" + quote(link, safe="")))
    if status == 404:
        return ["browser", link, "", ""]
    assert status == 200, (link, status)
    o = json.loads(body)
    if o["route"] is None:
        return ["browser", o["url"], "", ""]
    campaign = {k: v for k, v in o.items() if k not in ("url", "site", "route", "parameters")}
    return ["route", o["route"], pairs(o["parameters"]), pairs(campaign)]


@pytest.fixture
def server(setup, start_server):
    return start_server(setup["config"])


@pytest.fixture
def silent_endpoint():
    """A port that accepts connections and never answers."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    yield f"http://127.0.0.1:{s.getsockname()[1]}/.well-known/linkwell/resolve"
    s.close()


def test_generated_resolvers_agree_with_the_server(setup, server, silent_endpoint):
    endpoint = server.url("/.well-known/linkwell/resolve")
    lines = [f"{endpoint}\t5\t{link}" for link, _ in CORPUS]
    # The silent endpoint: a short link times out, a route link needs no request.
    lines += [f"{silent_endpoint}\t1\thttps://{HOST}/post42", f"{silent_endpoint}\t1\thttps://{HOST}/post/9"]
    want = [[incoming] + expected(server, link) for link, incoming in CORPUS]
    want += [["server", "error", "timedOut", "", ""], ["route", "route", "post", "postId=9", ""]]
    # The corpus is not vacuous: short links with campaign fields, long links and the browser.
    assert ["server", "route", "post", "postId=42",
            "at=aff1&ct=camp1&mt=8&pt=prov1&utm_campaign=spring&utm_content=hero&utm_medium=email&utm_source=newsletter&utm_term=shoes"] in want
    assert ["server", "route", "profile", "userId=zoe", ""] in want
    assert ["server", "route", "post", "postId=7", "utm_source=tw"] in want
    assert ["server", "browser", f"https://{HOST}/nope", "", ""] in want
    assert ["server", "browser", "https://www.example.com/blog/1", "", ""] in want
    got = {language: answers(setup[language], lines) for language in ("swift", "kotlin")}
    for i, line in enumerate(lines):
        assert got["swift"][i] == want[i], ("Swift", line)
        assert got["kotlin"][i] == want[i], ("Kotlin", line)


def test_kotlin_reads_the_play_install_referrer_of_an_imported_fdl_link(setup, server):
    # The Play button of the landing page of an imported FDL link, on Android without the app.
    lines, want = [], []
    # (`ann` has an Android fallback instead of the Play button.)
    for code, route, params in [("post42", "post", "postId=42"), ("spring", "profile", "userId=zoe")]:
        status, _, body = curl("-A", ANDROID, "-H", f"Host: {HOST}", server.url(f"/{code}"))
        assert status == 200, code
        play = re.search(r'href="(https://play\.google\.com/store/apps/details\?[^"]+)"', body.decode())
        assert play, code
        store_url = play.group(1).replace("&amp;", "&")
        referrer = parse_qs(urlsplit(store_url).query)["referrer"][0]  # what the Install Referrer library returns
        lines.append(f"referrer\t0\t{referrer}")
        want.append([route, params])
        # The raw `referrer` parameter, still encoded, is read too.
        lines.append(f"referrer\t0\t{quote(referrer, safe='')}")
        want.append([route, params])
    lines.append("referrer\t0\tutm_source=google-play&utm_medium=organic")
    want.append(["null"])
    got = answers(setup["kotlin"], lines)
    for i, line in enumerate(lines):
        assert got[i][:2] == want[i] if want[i] != ["null"] else got[i] == ["null"], (line, got[i])


def test_swift_first_launch_check_takes_only_a_link_of_this_site_and_looks_once(setup):
    route, short = f"https://{HOST}/post/1", f"https://{HOST}/post42"
    long = f"https://{HOST}/?link=https%3A%2F%2F{HOST}%2Fpost%2F7&utm_source=tw"
    cases = [  # (command, pasteboard text, answer)
        ("firstlaunch-fresh", route, [route, "read"]),
        ("firstlaunch", route, ["nil", "unread"]),        # the flag is set: the pasteboard is not touched
        ("firstlaunch-fresh", short, [short, "read"]),
        ("firstlaunch", short, ["nil", "unread"]),
        ("firstlaunch-fresh", long, [long, "read"]),
        ("firstlaunch-fresh", "https://other.example.org/post42", ["nil", "read"]),
        ("firstlaunch-fresh", f"https://{HOST}/static/linkwell.css", ["nil", "read"]),
        ("firstlaunch-fresh", "Meet me at 6", ["nil", "read"]),
        ("firstlaunch", short, ["nil", "unread"]),         # refused once is still looked once
        ("firstlaunch-fresh", f" {route} ", [route, "read"]),  # copied with spaces around
    ]
    got = answers(setup["swift"], [f"{command}\t-\t{text}" for command, text, _ in cases])
    for (command, text, want), answer in zip(cases, got):
        assert answer == want, (command, text, answer)


def test_report_open_from_swift_and_kotlin_is_counted_exactly(setup, server):
    endpoint = server.url("/.well-known/linkwell/opens")
    welcome, short, spring = f"https://{HOST}/welcome", f"https://{HOST}/post42", f"https://{HOST}/spring"
    swift = [("first_open", welcome)] * 2 + [("reopen", short), ("reopen", f"https://{HOST}/nope")]
    kotlin = [("reopen", welcome)] * 3 + [("first_open", spring), ("first_open", f"https://{HOST}/nope")]
    for language, sent in (("swift", swift), ("kotlin", kotlin)):
        got = answers(setup[language], [f"report\t{kind}\t{endpoint} {link}" for kind, link in sent])
        # Counted (204) but the unknown code: 404, not counted.
        assert got == [["reported", "false" if link.endswith("/nope") else "true"] for _, link in sent], (language, got)
    metrics = curl(server.admin_url("/metrics"))[2].decode()
    opens = sorted(line for line in metrics.splitlines() if line.startswith("linkwell_app_opens_total{"))
    assert opens == sorted([
        'linkwell_app_opens_total{site="example",route="welcome",kind="first_open"} 2',
        'linkwell_app_opens_total{site="example",route="welcome",kind="reopen"} 3',
        'linkwell_app_opens_total{site="example",route="post",kind="reopen"} 1',
        'linkwell_app_opens_total{site="example",route="profile",kind="first_open"} 1',
    ]), opens
