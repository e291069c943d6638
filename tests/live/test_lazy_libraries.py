"""librsvg (preview cards) and libpq (PostgreSQL storage) are loaded with dlopen when first used,
not linked (Sources/CRsvg/shim.h, Sources/CPostgres/shim.h): a server on SQLite that has drawn no
card maps neither, ~12 MB less RSS. The librsvg shim declares its few types itself (its headers
need glib's pkg-config include paths, which would link the libraries too); this checks those
declarations against Debian's real headers, that the binary does not link the libraries, and
that they are mapped exactly when used."""
import re
import subprocess
from html.parser import HTMLParser
from urllib.parse import urlsplit

from conftest import BINARY, ROOT, curl

SHIM = ROOT / "Sources/CRsvg/shim.h"
DEFAULT = ROOT / "config/linkwell.json5"
LAZY = re.compile(r"lib(rsvg|pq|cairo|glib|gobject|gio|pango|gdk_pixbuf)")


def compile_c(tmp_path, name, source, flags=(), run=True):
    """Compiles (and links and runs, with `run`) a C file; returns what it printed."""
    path = tmp_path / f"{name}.c"
    path.write_text(source)
    exe = tmp_path / name
    r = subprocess.run(["cc", "-std=c11", "-Werror", "-Wincompatible-pointer-types", *flags, *([] if run else ["-c"]), str(path), "-o", str(exe)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=30, check=True).stdout if run else ""


LAYOUT = r"""
#include <stdio.h>
#include <stddef.h>
int main(void) {
    printf("GError %zu %zu %zu %zu\n", sizeof(GError), offsetof(GError, domain), offsetof(GError, code), offsetof(GError, message));
    printf("RsvgRectangle %zu %zu %zu %zu %zu\n", sizeof(RsvgRectangle), offsetof(RsvgRectangle, x), offsetof(RsvgRectangle, y),
           offsetof(RsvgRectangle, width), offsetof(RsvgRectangle, height));
    printf("gsize %zu\n", sizeof(gsize));
    printf("cairo %d %d %d\n", (int)CAIRO_STATUS_SUCCESS, (int)CAIRO_STATUS_WRITE_ERROR, (int)CAIRO_FORMAT_ARGB32);
    return 0;
}
"""


def test_the_librsvg_shim_matches_debians_headers(tmp_path):
    cflags = subprocess.run(["pkg-config", "--cflags", "librsvg-2.0", "cairo"], capture_output=True, text=True, check=True).stdout.split()
    ours = compile_c(tmp_path, "ours", f'#include "{SHIM}"\n' + LAYOUT)
    theirs = compile_c(tmp_path, "theirs", "#include <librsvg/rsvg.h>\n#include <cairo.h>\n" + LAYOUT, cflags)
    assert ours == theirs
    # Every function the shim calls through a pointer has the type it declares for it.
    signatures = re.findall(r"LINKWELL_RSVG_FN\(([^,]+), (\w+), (\([^)]*\))\)", SHIM.read_text())
    assert len(signatures) == 10, signatures
    checks = "\n".join(f"{ret} (*check_{name}){params} = {name};" for ret, name, params in signatures)
    compile_c(tmp_path, "signatures", "#include <librsvg/rsvg.h>\n#include <cairo.h>\n#include <stdint.h>\n" + checks
              + "\n", [*cflags, "-Wno-deprecated-declarations"], run=False)


def test_the_binary_links_neither_library():
    needed = subprocess.run(["readelf", "-d", str(BINARY)], capture_output=True, text=True, check=True).stdout
    libs = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", needed)
    assert libs and "libmicrohttpd.so.12" in libs
    assert [lib for lib in libs if LAZY.search(lib)] == []


class OGImage(HTMLParser):
    def __init__(self):
        super().__init__()
        self.image = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and a.get("property") == "og:image":
            self.image = a.get("content")


def mapped(pid):
    with open(f"/proc/{pid}/maps") as f:
        return sorted({line.split()[-1].rsplit("/", 1)[-1] for line in f if LAZY.search(line)})


def test_librsvg_is_mapped_at_the_first_card_and_libpq_never_on_sqlite(start_server):
    server = start_server(DEFAULT)
    pid = server.proc.pid
    status, _, body = curl("-H", "Host: fitconnect.app", "-A", "Slackbot-LinkExpanding 1.0", server.url("/signup?referralCode=T1"))
    assert status == 200
    assert mapped(pid) == [], "a page alone loads no library"
    parser = OGImage()
    parser.feed(body.decode())
    image = urlsplit(parser.image)
    status, headers, png = curl("-H", f"Host: {image.hostname}", server.url(image.path + (f"?{image.query}" if image.query else "")))
    assert status == 200 and headers["content-type"] == "image/png" and png[:8] == b"\x89PNG\r\n\x1a\n"
    libs = mapped(pid)
    assert any(lib.startswith("librsvg-2.so") for lib in libs), libs
    assert not any(lib.startswith("libpq.so") for lib in libs), libs
