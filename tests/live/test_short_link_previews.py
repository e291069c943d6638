"""A short link's page for crawlers: `og:url` and `<link rel=canonical>` are the short link itself
(not its target), and its preview is the link's own — title, description, image — including the
generated card, which is drawn with the link's title and can be fetched (and drawn again) by the
URL the page names."""
import re
import shutil
import subprocess
from pathlib import Path

from conftest import BINARY, curl

FDL = Path(__file__).resolve().parent / "fdl"
HOST = "links.example.com"
SLACK = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"


def meta(body, prop):
    m = re.search(rb'<meta property="' + prop.encode() + rb'" content="([^"]*)"', body)
    return m and m.group(1).decode()


def canonical(body):
    m = re.search(rb'<link rel="canonical" href="([^"]*)"', body)
    return m and m.group(1).decode()


def add(config, code, *extra):
    r = subprocess.run([str(BINARY), "links", "add", "--code", code, "--target", f"https://{HOST}/post/5", *extra, "--config", str(config)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_short_link_pages_describe_the_link(tmp_path, start_server):
    config = tmp_path / "links.json5"
    shutil.copy(FDL / "links.json5", config)
    add(config, "titled", "--title", "Our spring sale", "--description", "Ten percent off everything.")
    add(config, "pictured", "--title", "With a picture", "--image", "https://www.example.com/sale.png")
    add(config, "plain")
    server = start_server(config)

    def get(path):
        status, headers, body = curl("-H", f"Host: {HOST}", "-A", SLACK, server.url(path))
        assert status == 200, (path, status, body[:300])
        return headers, body

    # The route itself: its own URL, its own title, the card of the route.
    _, route = get("/post/5")
    assert canonical(route) == meta(route, "og:url") == f"https://{HOST}/post/5"
    assert meta(route, "og:title") == "Post 5"

    # A link with its own title and description: the link's URL, texts and a card with its title.
    _, titled = get("/titled")
    assert canonical(titled) == meta(titled, "og:url") == f"https://{HOST}/titled"
    assert meta(titled, "og:title") == "Our spring sale" and meta(titled, "og:description") == "Ten percent off everything."
    card = meta(titled, "og:image")
    assert card and card.startswith(f"https://{HOST}/static/og/") and "l=%2Ftitled" in card, card
    assert card != meta(route, "og:image"), "the link's card must not be the route's"
    # The card the page names is served: a PNG, drawn from the link (title included in its hash).
    status, headers, png = curl("-H", f"Host: {HOST}", server.url(card.split(HOST, 1)[1]))
    assert status == 200 and headers["content-type"] == "image/png" and png.startswith(b"\x89PNG"), (status, headers)
    # A restarted server (nothing cached) draws the same card again from the link index.
    server.stop()
    server = start_server(config)
    status, _, again = curl("-H", f"Host: {HOST}", server.url(card.split(HOST, 1)[1]))
    assert status == 200 and again == png

    # A link with its own image: that image, the link's URL.
    _, pictured = get("/pictured")
    assert meta(pictured, "og:image") == "https://www.example.com/sale.png"
    assert meta(pictured, "og:url") == f"https://{HOST}/pictured"

    # A link without texts of its own: the route's title, but still the link's own URL and card.
    _, plain = get("/plain")
    assert meta(plain, "og:title") == "Post 5"
    assert canonical(plain) == meta(plain, "og:url") == f"https://{HOST}/plain"
    status, _, png = curl("-H", f"Host: {HOST}", server.url(meta(plain, "og:image").split(HOST, 1)[1]))
    assert status == 200 and png.startswith(b"\x89PNG")
