"""Text a visitor writes into a link does not become the brand's words: a route parameter past its
`maxLength` (default 64) or outside its `pattern` is not shown in the page's title, description or
preview card; a site can switch off long links' own previews (`st`, `sd`, `si`), and a long
link's image must come from a host the site allows."""
import re
import shutil
from pathlib import Path
from urllib.parse import quote

from conftest import ROOT, curl

DEFAULT = ROOT / "config" / "linkwell.json5"
FDL = Path(__file__).parent / "fdl"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
SLACK = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
SCAM = "Your account is locked. Call 555-0100 now"


def get(server, path, host, ua=IPHONE):
    return curl("-A", ua, "-H", f"Host: {host}", server.url(path))


def meta(body, prop):
    m = re.search(rb'<meta (?:property|name)="' + prop.encode() + rb'" content="([^"]*)"', body)
    return m.group(1).decode() if m else None


def test_a_parameter_past_its_bounds_is_not_the_pages_sentence(start_server, tmp_path):
    config = tmp_path / "linkwell.json5"
    text = DEFAULT.read_text()
    # FitConnect's referral codes are short capitals and digits.
    assert "query: { referralCode: { required: true } }," in text
    config.write_text(text.replace("query: { referralCode: { required: true } },",
                                   "query: { referralCode: { required: true, maxLength: 12, pattern: \"[A-Z0-9]+\" } },"))
    shutil.copytree(ROOT / "public", tmp_path / "public")
    server = start_server(config)
    for ua in (IPHONE, SLACK):
        status, _, body = get(server, "/signup?referralCode=TRAINER42", "fitconnect.app", ua)
        assert status == 200 and b"TRAINER42." in body  # "Sign up with code TRAINER42."
        for value in (SCAM, "trainer42", "A" * 13):
            status, _, body = get(server, "/signup?referralCode=" + quote(value), "fitconnect.app", ua)
            assert status == 200, value
            assert meta(body, "og:title") == "FitConnect" and meta(body, "og:description") is None, value
            assert b"Sign up with code" not in body and b"<title>FitConnect</title>" in body, value
            # The generated card is drawn with the same title.
            image = meta(body, "og:image")
            if image and "/static/og/" in image:
                _, headers, png = get(server, image.split("fitconnect.app", 1)[1], "fitconnect.app", ua)
                assert headers["content-type"] == "image/png" and png.startswith(b"\x89PNG")


def test_default_cap_without_config_keys(start_server):
    server = start_server(DEFAULT)
    status, _, body = get(server, "/signup?referralCode=" + "B" * 64, "fitconnect.app")
    assert status == 200 and ("B" * 64 + ".").encode() in body
    status, _, body = get(server, "/signup?referralCode=" + quote(SCAM + " " * 30 + SCAM), "fitconnect.app")
    assert status == 200 and meta(body, "og:title") == "FitConnect" and b"Sign up with code" not in body


def long_link(**params):
    return "/?" + "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())


def test_long_link_previews_can_be_switched_off_and_images_come_from_allowed_hosts(start_server, tmp_path):
    config = tmp_path / "links.json5"
    shutil.copy(FDL / "links.json5", config)
    server = start_server(config)
    path = long_link(link="https://links.example.com/post/7", st=SCAM, sd="Pay here", si="https://www.example.com/i.png")
    _, _, body = get(server, path, "links.example.com", SLACK)
    assert meta(body, "og:title") == SCAM and meta(body, "og:image") == "https://www.example.com/i.png"
    status, _, body = get(server, long_link(link="https://links.example.com/post/7", si="https://evil.example/i.png"), "links.example.com", SLACK)
    assert status == 400 and b"is an image on &#39;evil.example&#39;" in body
    server.stop()
    config.write_text(config.read_text().replace('shortLinks: { allowedHosts: ["www.example.com"] }',
                                                 'shortLinks: { allowedHosts: ["www.example.com"], longLinkPreviews: false }'))
    server = start_server(config)
    _, _, body = get(server, path, "links.example.com", SLACK)
    assert meta(body, "og:title") == "Post 7" and meta(body, "og:description") == "Read post 7 in the Example app."
    assert SCAM.encode() not in body and b"Pay here" not in body and b"i.png" not in body
    _, _, explained = get(server, path + "&d=1", "links.example.com", SLACK)
    assert b"ignored: this site shows its routes&#39; own previews (shortLinks.longLinkPreviews: false)" in explained
