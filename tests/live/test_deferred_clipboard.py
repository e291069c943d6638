"""The iOS clipboard hand-off (`deferredLinks: { ios: "clipboard" }`) in headless Chromium
emulating an iPhone without the app: a tap on the App Store button puts the page's link on the
clipboard (read back through the browser's clipboard permission) and goes to the App Store; with
JavaScript off the button is still a plain store link (the clipboard keeps what it had); a site
without the opt-in sends no script, keeps its CSP, and its page bytes do not change."""
import json
import os
import time

import pytest

from conftest import ROOT, curl

os.environ.setdefault("SE_OFFLINE", "true")

IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
STORE = "https://apps.apple.com/app/id6448123456"
PATH = "/signup?referralCode=SPRING26"
LINK = "https://fitconnect.app" + PATH
BEFORE = "something the visitor copied earlier"


def make_config(tmp_path, opt_in):
    text = (ROOT / "config" / "examples" / "fitconnect.json5").read_text()
    if opt_in:
        text = text.replace('domains: ["fitconnect.app"],', 'domains: ["fitconnect.app"], deferredLinks: { ios: "clipboard" },', 1)
        assert "deferredLinks" in text
    cfg = tmp_path / ("opt-in.json5" if opt_in else "plain.json5")
    cfg.write_text(text)
    return cfg


@pytest.fixture(scope="module")
def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    # No real network: the App Store request is seen in the log, never sent anywhere.
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--host-resolver-rules=MAP apps.apple.com ~NOTFOUND"):
        options.add_argument(arg)
    options.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 1.0, "mobile": True, "touch": True}, "userAgent": IPHONE})
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        yield d
    finally:
        d.quit()


def open_page(driver, server, javascript=True):
    origin = "http://" + server.addresses[0]
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"X-Forwarded-Host": "fitconnect.app"}})
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    driver.get(server.url(PATH))
    set_clipboard(driver, BEFORE)
    from selenium.webdriver.common.by import By
    rect = driver.find_element(By.ID, "app-store").rect
    center = (rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2)
    if not javascript:
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        driver.get(server.url(PATH))
    driver.get_log("performance")  # only what the tap does from here on
    return center


def set_clipboard(driver, text):
    driver.execute_async_script("navigator.clipboard.writeText(arguments[0]).then(arguments[1], e => arguments[1](String(e)))", text)
    assert read_clipboard(driver) == text


def read_clipboard(driver):
    return driver.execute_async_script("navigator.clipboard.readText().then(arguments[0], e => arguments[0]('error: ' + e))")


def tap_store_button(driver, center):
    """A tap through the input pipeline (no WebDriver script: it works with JavaScript off)."""
    x, y = center
    for kind in ("mousePressed", "mouseReleased"):
        driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
    deadline = time.time() + 10
    while time.time() < deadline:
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent" and message["params"]["request"]["url"].startswith("https://apps.apple.com/"):
                return message["params"]["request"]["url"]
        time.sleep(0.1)
    raise AssertionError("the App Store button did not navigate to the App Store")


def clipboard_after(driver, server):
    """Back on the site's origin (the clipboard is read from a page of the origin granted)."""
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    driver.get(server.url("/static/linkwell.css"))
    return read_clipboard(driver)


def test_a_tap_copies_the_link_and_goes_to_the_store(tmp_path, start_server, driver):
    from selenium.webdriver.common.by import By
    server = start_server(make_config(tmp_path, opt_in=True))
    center = open_page(driver, server)
    assert driver.find_element(By.ID, "clipboard-note").text.startswith("Tapping App Store copies this link")
    assert driver.find_element(By.ID, "app-store").get_attribute("href") == STORE
    assert tap_store_button(driver, center) == STORE
    assert clipboard_after(driver, server) == LINK
    # The Smart App Banner still carries the link.
    status, headers, body = curl("-A", IPHONE, "-H", "Host: fitconnect.app", server.url(PATH))
    assert status == 200 and f'app-argument={LINK}"'.encode() in body.replace(b"&amp;", b"&").replace(b"&#61;", b"=")
    assert "script-src 'self'" in headers["content-security-policy"]


def test_without_javascript_the_button_is_a_plain_store_link(tmp_path, start_server, driver):
    server = start_server(make_config(tmp_path, opt_in=True))
    center = open_page(driver, server, javascript=False)
    assert tap_store_button(driver, center) == STORE
    assert clipboard_after(driver, server) == BEFORE


def test_a_site_without_the_opt_in_sends_no_script(tmp_path, start_server):
    plain = start_server(make_config(tmp_path, opt_in=False))
    status, headers, body = curl("-A", IPHONE, "-H", "Host: fitconnect.app", plain.url(PATH))
    assert status == 200 and b"<script" not in body and b"data-linkwell-copy" not in body and b"clipboard-note" not in body
    assert "script-src" not in headers["content-security-policy"]
    assert headers["content-security-policy"].startswith("default-src 'none'; style-src 'self';")
