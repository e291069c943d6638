"""The hostile-HTTP corpus: raw bytes sent to Linkwell AND to a real nginx (1.22, default header
budget) serving the same AASA bytes. For every case: Linkwell answers the expected status, the
next request still gets the identical AASA bytes (from both servers), and Linkwell is never
more lenient than nginx — when nginx refuses the bytes, Linkwell refuses them too.
A summary table is printed at the end (run with -s, or see the terminal summary)."""
import pytest

from conftest import ROOT, Server, generate
from rawhttp import AASA_PATH, Nginx, exchange, get_aasa, have_nginx, responses

pytestmark = pytest.mark.skipif(not have_nginx(), reason="nginx is installed by scripts/install-deps.sh test")

HOST = "example.com"
CONFIG = """
{
  sites: [
    {
      name: "shop", domains: ["example.com", "www.example.com"],
      ios: [{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.shop" }],
      routes: [ { name: "item", path: "/item/{id}" } ],
    },
  ],
}
"""

REFUSED = {400, 405, 408, 411, 413, 414, 421, 431, 501, 505}


def req(target=AASA_PATH, method="GET", version="HTTP/1.1", host=HOST, headers=(), body=b"", eol=b"\r\n", raw_headers=b""):
    line = method.encode() if isinstance(method, str) else method
    target = target.encode() if isinstance(target, str) else target
    out = line + b" " + target + (b" " + version.encode() if version else b"") + eol
    if host is not None:
        out += b"Host: " + (host.encode() if isinstance(host, str) else host) + eol
    for h in headers:
        out += (h.encode() if isinstance(h, str) else h) + eol
    out += raw_headers
    return out + eol + body


def chunked(*headers, body=b"1\r\nx\r\n0\r\n\r\n", method="GET"):
    return req(method=method, headers=("Transfer-Encoding: chunked",) + headers, body=body)


OK = {200}
NOT_FOUND = {404}
BAD = {400}
ITEM = "/item/1"

# (name, bytes, statuses Linkwell may answer; 0 = closes without a response)
CASES = [
    # -- well-formed requests a real client sends
    ("baseline", req(), OK),
    ("legacy root path", req("/apple-app-site-association"), OK),
    ("HEAD", req(method="HEAD"), OK),
    ("HTTP/1.0 without Host", req(version="HTTP/1.0", host=None), {200, 421}),
    ("HTTP/1.0 with Host", req(version="HTTP/1.0"), OK),
    ("bare LF line ends", req(eol=b"\n"), OK),
    ("leading empty line", b"\r\n" + req(), OK),
    ("header names in odd case", req(host=None, headers=("hOsT: example.com", "uSer-AGENT: x")), OK),
    ("trailing space after Host", req(host=None, headers=("Host: example.com ",)), OK),
    ("Host with port", req(host="example.com:443"), OK),
    ("Host upper case", req(host="EXAMPLE.COM"), OK),
    ("If-None-Match", req(headers=('If-None-Match: "x"',)), OK),
    ("Connection: close", req(headers=("Connection: close",)), OK),
    ("Expect: 100-continue without body", req(headers=("Expect: 100-continue",)), {200, 417}),
    ("100 small headers", req(headers=tuple(f"X-H{i}: v{i}" for i in range(100))), OK),
    ("4 KB of cookies (80 analytics cookies)", req(headers=("Cookie: " + "; ".join(f"_ga{i}={'v' * 45}" for i in range(80)),)), OK),
    ("7 KB single cookie", req(headers=("Cookie: s=" + "v" * 7000,)), OK),
    ("15 KB head in two lines", req(headers=("X-A: " + "a" * 7400, "X-B: " + "b" * 7400)), OK),
    ("raw UTF-8 in the query", req((AASA_PATH + "?q=é").encode()), OK),
    ("obs-text in a value", req(headers=(b"X-A: caf\xe9",)), OK),
    ("HTTP/1.2 (a newer minor version)", req(version="HTTP/1.2"), OK),
    ("Upgrade: h2c ignored", req(headers=("Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c", "HTTP2-Settings: AAMAAABkAAQAAP__")), OK),
    ("websocket upgrade ignored", req(headers=("Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==")), OK),
    ("page route", req(ITEM), OK),
    ("unknown path", req("/nothing/here"), NOT_FOUND),
    ("double slash", req("//.well-known/apple-app-site-association"), {404}),
    ("7 KB target", req("/item/" + "a" * 7000), {200, 404}),
    # -- methods
    ("POST with a body", req(method="POST", headers=("Content-Length: 3",), body=b"a=b"), {405}),
    ("PUT", req(method="PUT", headers=("Content-Length: 0",)), {405}),
    ("DELETE", req(method="DELETE"), {405}),
    ("PATCH", req(method="PATCH", headers=("Content-Length: 0",)), {405}),
    ("OPTIONS", req(method="OPTIONS"), {405}),
    ("OPTIONS *", req("*", method="OPTIONS"), {400, 405}),
    ("TRACE", req(method="TRACE"), {405}),
    ("TRACE with Max-Forwards", req(method="TRACE", headers=("Max-Forwards: 0",)), {405}),
    ("CONNECT authority-form", req("example.com:443", method="CONNECT"), {400, 405}),
    ("PRI method", req("*", method="PRI"), {400, 405, 505}),
    ("unknown method FOO", req(method="FOO"), {405}),
    ("lower-case get", req(method="get"), {400, 405}),
    ("method with a control byte", req(method=b"G\x01ET"), BAD),
    ("method with a slash", req(method="GE/T"), {400, 405}),
    ("8 KB method", req(method="G" * 8200), {400, 405, 414}),
    ("empty method (libmicrohttpd closes)", req(method=""), {0, 400}),
    # -- the request line
    ("HTTP/0.9 request", b"GET " + AASA_PATH.encode() + b"\r\n", {0, 400, 505}),
    ("HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", {400, 405, 505}),
    ("HTTP/2.0 version", req(version="HTTP/2.0"), {400, 505}),
    ("HTTP/3.0 version", req(version="HTTP/3.0"), {400, 505}),
    ("lower-case version", req(version="http/1.1"), {400, 505}),
    ("version HTTP/1.1x", req(version="HTTP/1.1x"), {400, 505}),
    ("version HTTP/01.1", req(version="HTTP/01.1"), {400, 505}),
    ("version HTTP/1", req(version="HTTP/1"), {400, 505}),
    ("version garbage", req(version="XYZZY"), {400, 505}),
    ("no target", b"GET  HTTP/1.1\r\nHost: example.com\r\n\r\n", {400, 505}),
    ("tab between method and target", b"GET\t" + AASA_PATH.encode() + b" HTTP/1.1\r\nHost: example.com\r\n\r\n", {400, 505}),
    ("bare CR in the request line", b"GET " + AASA_PATH.encode() + b" HTTP/1.1\rHost: example.com\r\n\r\n", {400, 505}),
    ("two spaces before the version", req((AASA_PATH + " ").encode()), {400, 505}),
    ("absolute-form target", req("http://example.com" + AASA_PATH), {200, 400}),
    ("absolute-form for another host", req("http://attacker.example" + AASA_PATH), {400, 421}),
    ("https absolute-form", req("https://example.com" + AASA_PATH), {200, 400}),
    ("target without leading slash", req("well-known/apple-app-site-association"), BAD),
    ("asterisk target on GET", req("*"), BAD),
    ("9 KB target", req("/item/" + "a" * 9000), {414}),
    ("20 KB target", req("/item/" + "a" * 20000), {414}),
    ("space inside the target", req(b"/item/a b"), {400, 505}),
    # -- target contents
    ("NUL in the target", req(AASA_PATH.encode() + b"\x00x"), BAD),
    ("%00 in the path", req(AASA_PATH + "%00"), BAD),
    ("%00 in the query", req(AASA_PATH + "?a=%00"), {200, 400}),
    ("SOH in the target", req(AASA_PATH.encode() + b"\x01"), BAD),
    ("ESC in the target", req(b"/item/\x1b[31m"), BAD),
    ("DEL in the target", req(AASA_PATH.encode() + b"\x7f"), BAD),
    ("C1 CSI (U+009B) raw", req("/item/\u009b31m".encode()), {200, 400, 404}),
    ("raw 0xFF bytes", req(b"/item/\xff\xfe"), {200, 400, 404}),
    ("dot-dot segment", req("/../etc/passwd"), BAD),
    ("%2e%2e segment", req("/%2e%2e/etc/passwd"), BAD),
    ("%2E%2E mixed case", req("/item/%2E%2e/%2e%2E/x"), BAD),
    ("%2e%2e%2f, the slash encoded too", req("/%2e%2e%2fetc/passwd"), BAD),
    ("..%2f above the root", req("/..%2Fetc/passwd"), BAD),
    ("overlong UTF-8 dot-dot", req("/%c0%ae%c0%ae/etc/passwd"), {400, 404}),
    ("overlong UTF-8 slash", req("/item/..%c0%af..%c0%afetc"), {200, 400, 404}),
    ("invalid %zz escape", req("/item/%zz"), BAD),
    ("truncated % escape", req("/item/%2"), BAD),
    ("lone %", req("/item/%"), BAD),
    ("%2F inside a segment", req("/item/a%2Fb"), {200, 400, 404}),
    ("backslash path", req("/item\\..\\x"), {200, 400, 404}),
    ("fragment sent on the wire", req(AASA_PATH + "#frag"), {200, 400, 404}),
    ("query only", req("/?"), {200, 404}),
    ("very long query (7 KB)", req(AASA_PATH + "?q=" + "q" * 7000), {200}),
    # -- Host
    ("HTTP/1.1 without Host", req(host=None), BAD),
    ("two different Hosts", req(headers=("Host: attacker.example",)), BAD),
    ("two identical Hosts", req(headers=("Host: example.com",)), BAD),
    ("Host : (space before colon)", req(host=None, headers=("Host : example.com",)), BAD),
    ("empty Host", req(host=""), BAD),
    ("Host with a path", req(host="example.com/x"), BAD),
    ("Host with userinfo", req(host="user@example.com"), {400}),
    ("Host with a space", req(host="example .com"), BAD),
    ("Host with a NUL", req(host=b"example.com\x00.evil"), BAD),
    ("Host with a control byte", req(host=b"exa\x01mple.com"), BAD),
    ("Host starting with a dot", req(host=".example.com"), BAD),
    ("Host with a backslash", req(host="example.com\\x"), BAD),
    ("tabs around the Host value", req(host=None, headers=("Host:\texample.com\t",)), BAD),
    ("unknown Host (one site answers any)", req(host="unknown.example"), {200, 421}),
    ("IPv6 literal Host", req(host="[::1]"), {200, 421}),
    ("Host 2 KB long", req(host="a" * 2000 + ".com"), {200, 421}),
    ("Host with trailing dot", req(host="example.com."), {200, 421}),
    # -- header lines
    ("obs-fold with a space", req(headers=("X-A: a", " b")), BAD),
    ("obs-fold with a tab", req(headers=("X-A: a", "\tb")), BAD),
    ("folded first header", req(host=None, raw_headers=b" x: y\r\nHost: example.com\r\n"), BAD),
    ("line without a colon", req(headers=("XAB",)), BAD),
    ("empty header name", req(headers=(": x",)), BAD),
    ("space inside a name", req(headers=("X A: b",)), BAD),
    ("tab before the colon", req(headers=("X-A\t: b",)), BAD),
    ("parenthesis in a name", req(headers=("X(A): b",)), BAD),
    ("NUL in a value", req(headers=(b"X-A: a\x00b",)), BAD),
    ("NUL in the last value", req(host=None, headers=(b"Host: example.com", b"X-A: a\x00b")), BAD),
    ("NUL in a name", req(headers=(b"X-\x00A: b",)), BAD),
    ("SOH in a value", req(headers=(b"X-A: a\x01b",)), BAD),
    ("ESC in a value", req(headers=(b"User-Agent: \x1b]0;pwned\x07",)), BAD),
    ("DEL in a value", req(headers=(b"X-A: a\x7fb",)), BAD),
    ("bare CR in a value", req(headers=(b"X-A: a\rb",)), BAD),
    ("8.2 KB header line", req(headers=("X-A: " + "a" * 8200,)), {431}),
    ("9 KB Cookie line", req(headers=("Cookie: big=" + "v" * 9000,)), {431}),
    ("12 KB of cookies in one line", req(headers=("Cookie: " + "; ".join(f"c{i}={'v' * 45}" for i in range(240)),)), {431}),
    ("17 KB head in three lines", req(headers=tuple(f"X-{c}: " + c * 5800 for c in "ABC")), {431}),
    ("40 KB head", req(headers=tuple(f"X-{i}: " + "z" * 7000 for i in range(6))), {431}),
    ("1000 tiny headers", req(headers=tuple(f"X{i}: {i}" for i in range(1000))), {200, 431}),
    # -- framing
    ("Content-Length and Transfer-Encoding", req(headers=("Content-Length: 5", "Transfer-Encoding: chunked"), body=b"0\r\n\r\n"), BAD),
    ("Transfer-Encoding and Content-Length", req(headers=("Transfer-Encoding: chunked", "Content-Length: 5"), body=b"0\r\n\r\n"), BAD),
    ("two different Content-Lengths", req(headers=("Content-Length: 1", "Content-Length: 2"), body=b"ab"), BAD),
    ("two equal Content-Lengths", req(headers=("Content-Length: 1", "Content-Length: 1"), body=b"a"), BAD),
    ("Content-Length list", req(headers=("Content-Length: 1, 1",), body=b"a"), BAD),
    ("Content-Length not a number", req(headers=("Content-Length: 1x",)), BAD),
    ("negative Content-Length", req(headers=("Content-Length: -1",)), BAD),
    ("Content-Length with a plus", req(headers=("Content-Length: +1",), body=b"a"), BAD),
    ("hex Content-Length", req(headers=("Content-Length: 0x1",), body=b"a"), BAD),
    ("huge Content-Length", req(headers=("Content-Length: 99999999999999999999999",)), {400, 413}),
    ("GET with a Content-Length body", req(headers=("Content-Length: 5",), body=b"hello"), BAD),
    ("HEAD with a body", req(method="HEAD", headers=("Content-Length: 5",), body=b"hello"), BAD),
    ("GET with Content-Length: 0", req(headers=("Content-Length: 0",)), OK),
    ("Transfer-Encoding: gzip", req(headers=("Transfer-Encoding: gzip",)), {400, 501}),
    ("Transfer-Encoding: chunked, gzip", req(headers=("Transfer-Encoding: chunked, gzip",)), {400, 501}),
    ("Transfer-Encoding: identity", req(headers=("Transfer-Encoding: identity",)), {400, 501}),
    ("two Transfer-Encoding headers", chunked("Transfer-Encoding: chunked"), {400, 501}),
    ("Transfer-Encoding in HTTP/1.0", req(version="HTTP/1.0", headers=("Transfer-Encoding: chunked",), body=b"0\r\n\r\n"), BAD),
    ("chunked body on GET", chunked(), BAD),
    ("8 KB chunk extension", chunked(body=b"1;" + b"e" * 8192 + b"\r\nx\r\n0\r\n\r\n"), BAD),
    ("chunk size overflow", chunked(body=b"ffffffffffffffffff\r\nx\r\n0\r\n\r\n"), BAD),
    ("chunked POST with an 8 KB extension", chunked(body=b"1;" + b"e" * 8192 + b"\r\nx\r\n0\r\n\r\n", method="POST"), {400, 405}),
    ("smuggled request in a GET body", req(headers=("Content-Length: 44",), body=req("/item/2", host="example.com")[:44]), BAD),
    # -- not HTTP at all
    # No line end in sight: nginx answers 400 at once; Linkwell too (FirstBytesCheck), where
    # libmicrohttpd alone waited for a line end until the head deadline and closed without a word.
    ("TLS ClientHello", bytes.fromhex("16030100a5010000a10303") + b"\x00" * 64, BAD),
    ("binary garbage", bytes(range(256)), BAD),
    ("NUL before the method", b"\x00" + req(), BAD),
    ("bare CR in a header, no line end after it", b"GET " + AASA_PATH.encode() + b" HTTP/1.1\r\nHost: example.com\rX-A: b", BAD),
    ("bare CR after the request line, nothing more", b"GET " + AASA_PATH.encode() + b" HTTP/1.1\rX", BAD),
    ("SSH banner", b"SSH-2.0-OpenSSH_9.6\r\n", {0, 400, 505}),
    ("only an empty line", b"\r\n\r\n", {0, 400}),
]

PIPELINE = 1000


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    work = tmp_path_factory.mktemp("hostile")
    config = work / "linkwell.json5"
    config.write_text(CONFIG)
    aasa = generate(config, "aasa")
    linkwell = Server(config)
    nginx = Nginx(work, aasa)
    try:
        yield linkwell, nginx, aasa
    finally:
        nginx.stop()
        linkwell.stop()


RESULTS = []


def outcome(raw):
    """The first response's status; 0 when the connection closed without one; -9 for an
    HTTP/0.9-style reply (a body without a status line, which nginx sends to HTTP/0.9 requests)."""
    if not raw:
        return 0
    parsed = [r for r in responses(raw) if r[0] >= 200]
    if parsed:
        return parsed[0][0]
    return 0 if responses(raw) else -9


def refused(status):
    return status == 0 or status in REFUSED or status >= 500


def show(status):
    return {0: "closed", -9: "0.9 body"}.get(status, str(status))


@pytest.mark.parametrize("name,data,expected", CASES, ids=[c[0] for c in CASES])
def test_case(servers, name, data, expected):
    linkwell, nginx, aasa = servers
    ours = outcome(exchange(linkwell.addresses[0], data, timeout=1.5, expect=1))
    theirs = outcome(exchange(nginx.address, data, timeout=1.5, expect=1))
    RESULTS.append((name, theirs, ours, expected))
    assert ours in expected, f"{name}: Linkwell answered {show(ours)}, expected one of {sorted(expected)}"
    assert not (refused(theirs) and not refused(ours)), f"{name}: nginx refused ({show(theirs)}) but Linkwell answered {show(ours)}"
    for server, address in (("Linkwell", linkwell.addresses[0]), ("nginx", nginx.address)):
        status, _, body = get_aasa(address, HOST)
        assert (status, body) == (200, aasa), f"after '{name}', {server}'s next AASA request got {status}"


def test_1000_pipelined_requests(servers):
    linkwell, nginx, aasa = servers
    one = req()
    for server, address in (("Linkwell", linkwell.addresses[0]), ("nginx", nginx.address)):
        raw = exchange(address, one * PIPELINE, timeout=10, expect=PIPELINE)
        got = responses(raw)
        assert len(got) == PIPELINE, f"{server} answered {len(got)} of {PIPELINE} pipelined requests"
        assert all(status == 200 and body == aasa for status, _, body in got), server
    RESULTS.append((f"{PIPELINE} pipelined requests", 200, 200, {200}))


def test_zz_summary(servers, capsys):
    """The table (last test of the module): per case what nginx and Linkwell answered."""
    assert len(RESULTS) >= 120, f"only {len(RESULTS)} cases ran"
    width = max(len(r[0]) for r in RESULTS)
    lines = [f"{'case':<{width}}  {'nginx':>8}  {'linkwell':>8}  verdict"]
    stricter = same = 0
    for name, theirs, ours, expected in RESULTS:
        if refused(ours) and not refused(theirs):
            verdict = "Linkwell stricter"
            stricter += 1
        elif refused(ours) == refused(theirs):
            verdict = "same"
            same += 1
        else:
            verdict = "LINKWELL MORE LENIENT"
        lines.append(f"{name:<{width}}  {show(theirs):>8}  {show(ours):>8}  {verdict}")
    lines.append(f"{len(RESULTS)} cases: {same} same verdict as nginx, {stricter} where Linkwell is stricter, "
                 f"{len(RESULTS) - same - stricter} where it is more lenient")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert same + stricter == len(RESULTS)
