"""The console in headless Chromium, one browser session through the whole journey: sign in with
a write token; create a link (a code that shadows a route refused, the reason next to the field);
edit its title and see the preview change; its QR PNG decoded by zbarimg; known clicks sent to the
public listener from an iPhone, an Android phone and a desktop, then the same totals in the counts
chart's table alternative and in `linkwell stats`; the Takeout sample imported with its report;
the link disabled (the public listener then answers 404); the audit log; sign out and the session
dead. axe-core finds no critical or serious violation on any page at 1280 px and at 375 px, and
no page is wider than the phone. A second Chromium with JavaScript disabled does the core tasks
(sign in, import, counts, sign out). LINKWELL_UPDATE_SCREENSHOTS=1 writes the screenshots into
docs/screenshots/."""
import json
import os
import re
import shutil
import signal

import pytest
import requests

from conftest import BINARY, ROOT
from test_api import api, cli

FDL = ROOT / "tests" / "live" / "fdl"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"


@pytest.fixture
def config(tmp_path):
    """The FitConnect example plus the former FDL domain of the Takeout sample, as a second site."""
    import json5
    cfg = json5.loads((ROOT / "config" / "examples" / "fitconnect.json5").read_text())
    cfg["sites"] += json5.loads((FDL / "links.json5").read_text())["sites"]
    path = tmp_path / "linkwell.json5"
    path.write_text(json.dumps(cfg))
    return path

WIDTHS = {"desktop": (1280, 860, False), "phone": (375, 780, True)}


def chromium(javascript=True):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"):
        options.add_argument(arg)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


@pytest.fixture
def driver():
    d = chromium()
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


def check_both(driver, name, tmp_path, then="desktop"):
    """``check`` at both widths on the page shown (one visit), leaving the window at `then`."""
    for look in ("desktop", "phone"):
        size(driver, look)
        check(driver, look, name, tmp_path)
    size(driver, then)


def test_console_in_chromium_is_accessible_at_both_widths(config, start_server, driver, tmp_path):
    from selenium.webdriver.common.by import By
    writer = cli(config, "tokens", "create", "--name", "marketing", "--scope", "write")
    admin = cli(config, "tokens", "create", "--name", "ops")
    server = start_server(config)
    for code, title in (("spring", "Spring offer"), ("summer", "Summer challenge"), ("coach", "Meet your coach")):
        assert api(server, "POST", "/api/v1/links", token=writer, body={
            "site": "fitconnect", "code": code, "target": f"https://fitconnect.app/signup?referralCode={code.upper()}", "previewTitle": title})[0] == 201
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
            clicks_and_counts(driver, server, config)
            import_takeout(driver, server, config, tmp_path)
            driver.get(server.admin_url("/"))
            submit(driver, "button[aria-label='Disable autumn']")
            assert driver.find_element(By.CSS_SELECTOR, ".notice").text == "Link autumn disabled."
            assert requests.get(server.url("/autumn"), headers=iphone, allow_redirects=False).status_code == 404
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
            assert "marketing" in driver.page_source and "link.update" in driver.page_source and "links.import" in driver.page_source
            check_both(driver, "audit", tmp_path, then="phone")
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
    check_both(driver, "new-link", tmp_path)
    for field, value, notice, card in (("code", "autumn", "Link autumn created.", "Autumn offer"),
                                       ("previewTitle", "Autumn offer, 30 % off", "Saved.", "Autumn offer, 30 % off")):
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
        submit(driver, "main form button[type=submit]")
        assert driver.find_element(By.CSS_SELECTOR, ".notice").text == notice
        assert driver.find_element(By.CSS_SELECTOR, "#preview-card .card-title").text == card
    check_both(driver, "edit-link", tmp_path)
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


def counts_table(driver):
    """The chart's table alternative: the total and each platform's total (its footer)."""
    from selenium.webdriver.common.by import By
    cell = lambda name: int(driver.find_element(By.ID, f"days-{name}").text)
    return {"total": cell("total"), **{p: cell(p) for p in ("ios", "android", "desktop", "other")}}


def flush(server):
    server.signal(signal.SIGHUP)  # writes the counted clicks now
    server.wait_for(lambda e: e.get("event") == "reloaded")


def clicks_and_counts(driver, server, config):
    """Known clicks on the new link from three kinds of device; the counts page, filtered to the
    link through its form, shows them per platform, and `linkwell stats` says the same."""
    from selenium.webdriver.common.by import By
    sent = {IPHONE: 3, ANDROID: 2, DESKTOP: 1}
    for agent, n in sent.items():
        for _ in range(n):
            assert requests.get(server.url("/autumn"), headers={"Host": "fitconnect.app", "User-Agent": agent}, allow_redirects=False).status_code in (200, 302)
    flush(server)
    driver.find_element(By.LINK_TEXT, "Counts").click()
    driver.find_element(By.ID, "link").send_keys("autumn")
    submit(driver, "main form.filter button[type=submit]")
    shown = counts_table(driver)
    stats = json.loads(cli(config, "stats", "--json", "--site", "fitconnect", "--link", "autumn"))
    # create_edit_and_qr opened the link once from an iPhone before these.
    assert shown == {"total": 7, "ios": 4, "android": 2, "desktop": 1, "other": 0}, shown
    assert shown == {"total": stats["total"], **stats["platform"]}
    assert driver.find_element(By.CSS_SELECTOR, "svg.chart title").text.startswith("Clicks per day by platform: Site fitconnect, link autumn")
    assert len(driver.find_elements(By.CSS_SELECTOR, "svg.chart rect.p-android")) == 1


def cli_import_report(config, tmp_path):
    """What `links import` reports for the Takeout sample on a copy of the database."""
    import subprocess
    copy = tmp_path / "copy"
    copy.mkdir(exist_ok=True)
    shutil.copy(config, copy / config.name)
    shutil.copy(config.parent / "linkwell.db", copy / "linkwell.db")
    r = subprocess.run([str(BINARY), "links", "import", "--fdl-takeout", str(FDL / "takeout.csv"), "--site", "example", "--json",
                        "--config", str(copy / config.name)], capture_output=True, text=True, timeout=60)
    return json.loads(r.stdout)


def import_takeout(driver, server, config, tmp_path, expect_new=True):
    """Uploads the Takeout sample for the site `example`; the report's counts are those of
    `linkwell links import` on the same database."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    expected = cli_import_report(config, tmp_path)
    driver.find_element(By.LINK_TEXT, "Import").click()
    Select(driver.find_element(By.ID, "site")).select_by_value("example")
    driver.find_element(By.ID, "file").send_keys(str(FDL / "takeout.csv"))
    submit(driver, "main form button[type=submit]")
    count = lambda name: int(driver.find_element(By.ID, name).text)
    assert count("imported") == len(expected["imported"]) and (count("imported") > 0) == expect_new
    assert count("skipped") == len(expected["skipped"]) and count("errors") == len(expected["errors"])
    if expected["skipped"]:
        assert expected["skipped"][0]["reason"][:30] in driver.find_element(By.ID, "report").text


def test_core_tasks_work_with_javascript_disabled(config, start_server, tmp_path):
    """Sign in, import, counts and sign out in a Chromium whose JavaScript is switched off."""
    from selenium.webdriver.common.by import By
    writer = cli(config, "tokens", "create", "--name", "growth", "--scope", "write")
    server = start_server(config)
    assert api(server, "POST", "/api/v1/links", token=writer, body={"site": "fitconnect", "code": "spring", "target": "https://fitconnect.app/signup?referralCode=S"})[0] == 201
    for agent in (IPHONE, ANDROID, ANDROID):
        requests.get(server.url("/spring"), headers={"Host": "fitconnect.app", "User-Agent": agent}, allow_redirects=False)
    flush(server)
    driver = chromium(javascript=False)
    try:
        # JavaScript is really off: a page's script does not run.
        driver.get("data:text/html,<p id=x>off</p><script>document.getElementById('x').textContent='on'</script>")
        assert driver.find_element(By.ID, "x").text == "off"
        driver.get(server.admin_url("/"))
        driver.find_element(By.ID, "token").send_keys(writer)
        submit(driver, "main button[type=submit]")
        assert driver.title.startswith("Links")
        import_takeout(driver, server, config, tmp_path)
        driver.find_element(By.LINK_TEXT, "Counts").click()
        stats = json.loads(cli(config, "stats", "--json", "--site", "fitconnect"))
        assert counts_table(driver) == {"total": stats["total"], **stats["platform"]} and stats["platform"]["android"] == 2
        session = driver.get_cookie("lw_session")["value"]
        submit(driver, "form.who button")
        assert driver.find_elements(By.ID, "token") and driver.get_cookie("lw_session") is None
        assert 'name="token"' in requests.get(server.admin_url("/"), cookies={"lw_session": session}).text
    finally:
        driver.quit()
