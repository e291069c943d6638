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


def submit(driver, selector):
    """Clicks a submit button and waits for the next page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    old = driver.find_element(By.TAG_NAME, "html")
    try:
        driver.find_element(By.CSS_SELECTOR, selector).click()
    except StaleElementReferenceException:
        pass  # the page was replaced while the click was delivered: the wait below still checks it
    except WebDriverException as error:
        # Chromium's own words for the same race (the button's node left with the old document).
        if "does not belong to the document" not in str(error):
            raise
    WebDriverWait(driver, 10).until(expected_conditions.staleness_of(old))


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
    driver.execute_script("window.scrollTo(0, 0)")  # axe may leave a long page scrolled
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
        # The desktop pass signs in with a write token (no audit log), the phone pass with an admin one.
        driver.find_element(By.ID, "token").send_keys(writer if look == "desktop" else admin)
        submit(driver, "main button[type=submit]")
        assert "token" not in driver.current_url and driver.title.startswith("Links")
        session = driver.get_cookie("lw_session")["value"]
        rows = driver.find_elements(By.CSS_SELECTOR, "tbody tr")
        codes = [r.find_element(By.TAG_NAME, "code").text for r in rows]
        assert codes == (["coach", "spring", "summer"] if look == "desktop" else ["autumn", "coach", "spring", "summer"])
        check(driver, look, "links", tmp_path)
        if look == "desktop":
            create_edit_and_qr(driver, server, tmp_path)
            driver.get(server.admin_url("/"))
            submit(driver, "button[aria-label='Disable spring']")
            assert driver.find_element(By.CSS_SELECTOR, ".notice").text == "Link spring disabled."
            assert requests.get(server.url("/spring"), headers=iphone, allow_redirects=False).status_code == 404
        driver.find_element(By.LINK_TEXT, "Counts").click()
        assert driver.find_element(By.ID, "days").is_displayed()
        check(driver, look, "stats", tmp_path)
        driver.find_element(By.LINK_TEXT, "Routes").click()
        driver.find_element(By.ID, "url").send_keys("https://fitconnect.app/signup?referralCode=SPRING")
        submit(driver, "#url ~ button")
        assert driver.find_element(By.ID, "route").text == "signup"
        check(driver, look, "routes", tmp_path)
        driver.find_element(By.LINK_TEXT, "Import").click()
        assert driver.find_element(By.ID, "file").get_attribute("type") == "file"
        check(driver, look, "import", tmp_path)
        if look == "desktop":
            assert not driver.find_elements(By.LINK_TEXT, "Audit log")
        else:
            driver.find_element(By.LINK_TEXT, "Audit log").click()
            assert "marketing" in driver.page_source and "link.update" in driver.page_source
            check(driver, look, "audit", tmp_path)
        submit(driver, "form.who button")
        assert driver.find_elements(By.ID, "token")
        # The session is dead on the server: the cookie a browser might have kept no longer works.
        assert driver.get_cookie("lw_session") is None
        stale = requests.get(server.admin_url("/"), cookies={"lw_session": session})
        assert 'name="token"' in stale.text


def create_edit_and_qr(driver, server, tmp_path):
    """New link: a code that shadows a route is refused next to the field; created; its title
    edited and the preview card follows; its QR PNG decodes (zbarimg) to the short URL."""
    import subprocess
    from selenium.webdriver.common.by import By
    driver.find_element(By.LINK_TEXT, "New link").click()
    driver.find_element(By.ID, "code").send_keys("signup")
    driver.find_element(By.ID, "target").send_keys("https://fitconnect.app/signup?referralCode=AUTUMN")
    driver.find_element(By.ID, "previewTitle").send_keys("Autumn offer")
    submit(driver, "main form button[type=submit]")
    problem = driver.find_element(By.ID, "code-problem").text
    assert "route 'signup'" in problem, problem
    assert driver.find_element(By.ID, "code").get_attribute("aria-invalid") == "true"
    check(driver, "desktop", "new-link", tmp_path)
    for field, value, notice, card in (("code", "autumn", "Link autumn created.", "Autumn offer"),
                                       ("previewTitle", "Autumn offer, 30 % off", "Saved.", "Autumn offer, 30 % off")):
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
        submit(driver, "main form button[type=submit]")
        assert driver.find_element(By.CSS_SELECTOR, ".notice").text == notice
        assert driver.find_element(By.CSS_SELECTOR, "#preview-card .card-title").text == card
    check(driver, "desktop", "edit-link", tmp_path)
    png_url = driver.find_element(By.LINK_TEXT, "Download PNG").get_attribute("href")
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    png = requests.get(png_url, cookies=cookies)
    assert png.status_code == 200 and png.headers["Content-Type"] == "image/png" and "attachment" in png.headers["Content-Disposition"]
    (tmp_path / "qr.png").write_bytes(png.content)
    decoded = subprocess.run(["zbarimg", "--raw", "-q", str(tmp_path / "qr.png")], capture_output=True, text=True, timeout=30)
    assert decoded.stdout.strip() == "https://fitconnect.app/autumn", decoded
    iphone = {"Host": "fitconnect.app", "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"}
    page = requests.get(server.url("/autumn"), headers=iphone, allow_redirects=False)
    assert page.status_code == 200 and '<meta property="og:title" content="Autumn offer, 30 % off">' in page.text
