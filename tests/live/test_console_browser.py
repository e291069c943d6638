"""The console in headless Chromium, one browser session: sign in through the form, the links
page, disable a link with its button (the public listener then answers 404), the audit log, sign
out; axe-core finds no critical or serious violation on any page at 1280 px and at 375 px, and no
page is wider than the phone. LINKWELL_UPDATE_SCREENSHOTS=1 writes the screenshots into
docs/screenshots/. (The same tasks without any JavaScript engine: tests/live/test_console.py; the
pages carry no script and their CSP allows none.)"""
import os

import pytest
import requests

from conftest import ROOT
from test_console import config  # noqa: F401 (the fixture)
from test_api import api, cli

WIDTHS = {"desktop": (1280, 860, False), "phone": (375, 780, True)}


@pytest.fixture
def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"):
        options.add_argument(arg)
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    yield d
    d.quit()


def size(driver, look):
    width, height, mobile = WIDTHS[look]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


def check(driver, look, name, tmp_path):
    """axe-core: no critical or serious violation; the page fits the width; a screenshot."""
    from axe_selenium_python import Axe
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in results["violations"] if v["impact"] in ("critical", "serious")]
    assert not bad, f"{name} at {look}: {bad}"
    width = WIDTHS[look][0]
    assert driver.execute_script("return document.documentElement.scrollWidth") <= width, f"{name} is wider than {width} px"
    shot = tmp_path / f"console-{name}-{look}.png"
    driver.save_screenshot(str(shot))
    if os.environ.get("LINKWELL_UPDATE_SCREENSHOTS") == "1":
        from PIL import Image
        dest = ROOT / "docs" / "screenshots"
        with Image.open(shot) as im:
            im.convert("P", palette=Image.Palette.ADAPTIVE, colors=96).save(dest / shot.name, optimize=True)


def test_console_in_chromium_is_accessible_at_both_widths(config, start_server, driver, tmp_path):
    from selenium.webdriver.common.by import By
    writer = cli(config, "tokens", "create", "--name", "marketing", "--scope", "write")
    admin = cli(config, "tokens", "create", "--name", "ops")
    server = start_server(config)
    for code, title in (("spring", "Spring offer"), ("summer", "Summer challenge"), ("coach", "Meet your coach")):
        assert api(server, "POST", "/api/v1/links", token=writer, body={
            "code": code, "target": f"https://fitconnect.app/signup?referralCode={code.upper()}", "previewTitle": title})[0] == 201
    iphone = {"Host": "fitconnect.app", "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"}
    assert requests.get(server.url("/spring"), headers=iphone, allow_redirects=False).status_code == 200

    for look in ("desktop", "phone"):
        size(driver, look)
        driver.delete_all_cookies()
        driver.get(server.admin_url("/"))
        assert driver.find_element(By.CSS_SELECTOR, "input[name=token]").get_attribute("type") == "password"
        check(driver, look, "sign-in", tmp_path)
        driver.find_element(By.ID, "token").send_keys(admin)
        driver.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
        assert "token" not in driver.current_url and driver.title.startswith("Links")
        rows = driver.find_elements(By.CSS_SELECTOR, "tbody tr")
        assert [r.find_element(By.TAG_NAME, "code").text for r in rows] == ["coach", "spring", "summer"]
        check(driver, look, "links", tmp_path)
        if look == "desktop":
            driver.find_element(By.CSS_SELECTOR, "button[aria-label='Disable spring']").click()
            assert driver.find_element(By.CSS_SELECTOR, ".notice").text == "Link spring disabled."
            assert requests.get(server.url("/spring"), headers=iphone, allow_redirects=False).status_code == 404
        driver.find_element(By.LINK_TEXT, "Audit log").click()
        assert "marketing" in driver.page_source and "link.update" in driver.page_source
        check(driver, look, "audit", tmp_path)
        driver.find_element(By.CSS_SELECTOR, "form.who button").click()
        assert driver.find_elements(By.ID, "token")
        # The session is dead on the server: its cookie (if a browser kept it) no longer works.
        assert driver.get_cookie("lw_session") is None
