"""The console's links, one server for the file: the list searched (code, target, title), sorted
(code, creation, 7-day clicks) and paged, with a sparkline per link; bulk disable (the public
listener then answers 404 for each) and CSV export of a selection (RFC 4180, formula cells
defused); delete behind a confirmation page; every override the API accepts, round trip (a forced
redirect seen on the public listener); the landing page as an iPhone, an Android phone and a
desktop get it, in frames, and the chat card, following an edited title; the same tasks with
JavaScript disabled in Chromium; axe-core on the new pages at 375 and 1280 px (screenshots into
docs/screenshots/ with LINKWELL_UPDATE_SCREENSHOTS=1); a read token refused, in the audit log."""
import csv
import html
import io
import re
import shutil
import signal

import pytest
import requests

from conftest import ROOT, Server
from test_api import api, cli
from test_console import csrf_of, public_status, sign_in
from test_console_browser import chromium

ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("links")
    config = tmp / "linkwell.json5"
    shutil.copy(ROOT / "config" / "examples" / "fitconnect.json5", config)
    writer = cli(config, "tokens", "create", "--name", "marketing", "--scope", "write")
    reader = cli(config, "tokens", "create", "--name", "dash", "--scope", "read")
    admin = cli(config, "tokens", "create", "--name", "ops")
    server = Server(config)
    for i in range(55):
        assert api(server, "POST", "/api/v1/links", token=writer, body={
            "code": f"p{i:02d}", "target": f"https://fitconnect.app/signup?referralCode=P{i:02d}", "previewTitle": f"Promo {i:02d}"})[0] == 201
    for code, title in (("spring", "Spring offer"), ("summer", "=HYPERLINK(\"http://evil\"), \"quoted\"")):
        assert api(server, "POST", "/api/v1/links", token=writer, body={
            "code": code, "target": f"https://fitconnect.app/signup?referralCode={code.upper()}", "previewTitle": title})[0] == 201
    for _ in range(3):
        assert public_status(server, "/summer") == 200
    assert public_status(server, "/spring") == 200
    server.signal(signal.SIGHUP)  # writes the counts
    server.wait_for(lambda e: e.get("event") == "reloaded")
    yield {"server": server, "config": config, "writer": writer, "reader": reader, "admin": admin, "tmp": tmp}
    server.stop()


def codes_of(html):
    return re.findall(r'<td data-label="Code"><a href="[^"]+"><code>([^<]+)</code>', html)


def post(browser, server, path, data):
    return browser.post(server.admin_url(path), data=data, headers={"Origin": f"http://{server.admin}"}, allow_redirects=False)


def test_list_searches_sorts_and_pages(env):
    server = env["server"]
    browser, _ = sign_in(server, env["reader"])
    first = browser.get(server.admin_url("/?site=fitconnect"))
    assert first.status_code == 200
    assert codes_of(first.text) == [f"p{i:02d}" for i in range(50)]
    nxt = re.search(r'<a href="([^"]+)" rel="next">Next page</a>', first.text).group(1).replace("&amp;", "&")
    second = browser.get(server.admin_url(nxt))
    assert codes_of(second.text) == [f"p{i:02d}" for i in range(50, 55)] + ["spring", "summer"]
    assert 'rel="next"' not in second.text and 'rel="prev"' in second.text
    # Search: the code, the target, the title; case does not matter.
    assert codes_of(browser.get(server.admin_url("/?site=fitconnect&q=P07")).text) == ["p07"]
    assert codes_of(browser.get(server.admin_url("/?site=fitconnect&q=referralCode%3DSUMMER")).text) == ["summer"]
    assert codes_of(browser.get(server.admin_url("/?site=fitconnect&q=spring+OFFER")).text) == ["spring"]
    assert codes_of(browser.get(server.admin_url("/?site=fitconnect&q=50%25")).text) == []
    # 1 or 2 characters: the start of the code only (a trigram index cannot serve them), said on the page.
    short = browser.get(server.admin_url("/?site=fitconnect&q=P5"))
    assert codes_of(short.text) == [f"p{i}" for i in range(50, 55)]
    assert "matches the start of the code only" in short.text
    assert codes_of(browser.get(server.admin_url("/?site=fitconnect&q=er")).text) == []  # in every target, no code
    assert "matches the start of the code only" not in browser.get(server.admin_url("/?site=fitconnect&q=promo")).text
    # /links is the same list (the address the console benchmark loads).
    assert codes_of(browser.get(server.admin_url("/links?site=fitconnect&q=spring&sort=clicks")).text) == ["spring"]
    # Sorts: recent clicks (most first), creation (newest first, then oldest first).
    by_clicks = browser.get(server.admin_url("/?site=fitconnect&sort=clicks&dir=desc"))
    assert codes_of(by_clicks.text)[:3] == ["summer", "spring", "p00"]
    labels = re.findall(r'role="img" aria-label="([^"]+)"', by_clicks.text)
    assert labels[0].startswith("Clicks per day, the last 7 days: 0, 0, 0, 0, 0, 0, 3;") and labels[0].endswith("3 in all")
    assert codes_of(browser.get(server.admin_url("/?site=fitconnect&sort=created&dir=desc")).text)[:2] == ["summer", "spring"]
    assert codes_of(browser.get(server.admin_url("/?site=fitconnect&sort=created&dir=asc")).text)[:2] == ["p00", "p01"]
    assert codes_of(browser.get(server.admin_url("/?site=fitconnect&sort=code&dir=desc")).text)[:2] == ["summer", "spring"]
    # A read token sees no write controls and cannot use the write forms.
    assert "Disable selected" not in first.text and "Export selected as CSV" in first.text
    csrf = csrf_of(first.text)
    r = post(browser, server, "/console/links/bulk", [("csrf", csrf), ("site", "fitconnect"), ("action", "disable"), ("select", "p03")])
    assert r.status_code == 403 and "scope &#39;read&#39;" in r.text
    r = post(browser, server, "/console/links/delete", {"csrf": csrf, "site": "fitconnect", "code": "p03", "confirm": "yes"})
    assert r.status_code == 403
    # The API refuses the read token the same way.
    assert api(server, "PATCH", "/api/v1/links/fitconnect/p03", token=env["reader"], body={"forcedRedirect": True})[0] == 403
    assert public_status(server, "/p03") == 200
    audit = api(server, "GET", "/api/v1/audit", token=env["admin"])[2]
    refused = [e for e in audit["entries"] if e["actor"] == "dash" and e["action"] == "refused"]
    assert len(refused) >= 3


def test_bulk_disable_and_csv_export(env):
    server = env["server"]
    browser, _ = sign_in(server, env["writer"])
    csrf = csrf_of(browser.get(server.admin_url("/")).text)
    selection = [("select", "summer"), ("select", "p01")]
    r = post(browser, server, "/console/links/bulk", [("csrf", csrf), ("site", "fitconnect"), ("action", "export")] + selection)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/csv") and "attachment" in r.headers["Content-Disposition"]
    assert r.content.count(b"\r\n") == 3 and r.content.startswith(b"site,code,url,target,status,previewTitle,")
    rows = list(csv.DictReader(io.StringIO(r.content.decode())))
    assert [row["code"] for row in rows] == ["p01", "summer"]
    assert rows[1]["previewTitle"] == "'=HYPERLINK(\"http://evil\"), \"quoted\""
    assert rows[0]["url"] == "https://fitconnect.app/p01" and rows[0]["status"] == "live"
    # Without the CSRF token: refused, nothing changed.
    r = post(browser, server, "/console/links/bulk", [("site", "fitconnect"), ("action", "disable"), ("select", "p01")])
    assert r.status_code == 403 and public_status(server, "/p01") == 200
    r = post(browser, server, "/console/links/bulk", [("csrf", csrf), ("site", "fitconnect"), ("action", "disable"), ("select", "p01"), ("select", "p02")])
    assert r.status_code == 303
    done = browser.get(server.admin_url(r.headers["Location"]))
    assert "2 links disabled." in done.text
    assert public_status(server, "/p01") == 404 and public_status(server, "/p02") == 404
    audit = api(server, "GET", "/api/v1/audit", token=env["admin"])[2]["entries"]
    assert {(e["code"], e["action"]) for e in audit if e["actor"] == "marketing"} >= {("p01", "link.update"), ("p02", "link.update")}


def test_delete_with_confirmation(env):
    server = env["server"]
    browser, _ = sign_in(server, env["writer"])
    page = browser.get(server.admin_url("/console/links/delete?site=fitconnect&code=p10"))
    assert page.status_code == 200 and "Delete p10?" in page.text and 'name="confirm" value="yes"' in page.text
    # A post without the confirmation only leads to the confirmation page.
    r = post(browser, server, "/console/links/delete", {"csrf": csrf_of(page.text), "site": "fitconnect", "code": "p10"})
    assert r.status_code == 303 and r.headers["Location"].startswith("/console/links/delete?") and public_status(server, "/p10") == 200
    r = post(browser, server, "/console/links/delete", {"csrf": csrf_of(page.text), "site": "fitconnect", "code": "p10", "confirm": "yes"})
    assert r.status_code == 303 and public_status(server, "/p10") == 404
    assert "Link p10 deleted." in browser.get(server.admin_url(r.headers["Location"])).text
    assert api(server, "GET", "/api/v1/links/fitconnect/p10", token=env["writer"])[0] == 404
    audit = api(server, "GET", "/api/v1/audit", token=env["admin"])[2]["entries"]
    assert any(e["action"] == "link.delete" and e["code"] == "p10" and e["actor"] == "marketing" for e in audit)


def test_overrides_round_trip(env):
    server = env["server"]
    browser, _ = sign_in(server, env["writer"])
    page = browser.get(server.admin_url("/console/links/edit?site=fitconnect&code=p20"))
    for field in ("previewImage", "iosFallback", "androidFallback", "desktopFallback", "expiresAt", "forcedRedirect"):
        assert f'id="{field}"' in page.text, field
    form = {"csrf": csrf_of(page.text), "site": "fitconnect", "code": "p20", "target": "https://fitconnect.app/signup?referralCode=P20",
            "previewTitle": "Promo 20", "previewDescription": "", "previewImage": "https://fitconnect.app/static/icons/fitconnect.svg",
            "iosFallback": "", "androidFallback": "", "desktopFallback": "", "expiresAt": "next tuesday", "forcedRedirect": "true"}
    bad = post(browser, server, "/console/links/edit", form)
    assert bad.status_code == 422
    assert re.search(r'<p class="field-problem" id="expiresAt-problem">expiresAt &#39;next tuesday&#39; is not an RFC 3339 time; write e.g. 2027-01-31T00:00:00Z</p>', bad.text), bad.text
    assert public_status(server, "/p20") == 200
    # A fallback the API refuses: the API's own message, under that field.
    status, _, body = api(server, "PATCH", "/api/v1/links/fitconnect/p20", token=env["writer"], body={"iosFallback": "ftp://fitconnect.app/x"})
    assert status == 422, body
    expected = next(d["message"] for d in body["error"]["details"] if d["field"] == "iosFallback")
    bad = post(browser, server, "/console/links/edit", dict(form, expiresAt="", iosFallback="ftp://fitconnect.app/x"))
    assert bad.status_code == 422
    shown = re.search(r'<p class="field-problem" id="iosFallback-problem">([^<]+)</p>', bad.text).group(1)
    assert html.unescape(shown) == expected
    form["expiresAt"] = "2099-01-31T00:00:00Z"
    assert post(browser, server, "/console/links/edit", form).status_code == 303
    stored = api(server, "GET", "/api/v1/links/fitconnect/p20", token=env["writer"])[2]
    assert stored["forcedRedirect"] is True and stored["expiresAt"] == "2099-01-31T00:00:00Z"
    assert stored["previewImage"] == "https://fitconnect.app/static/icons/fitconnect.svg"
    r = requests.get(server.url("/p20"), headers={"Host": "fitconnect.app", "User-Agent": ANDROID}, allow_redirects=False)
    assert r.status_code in (301, 302, 307, 308) and r.headers["Location"] == "https://fitconnect.app/signup?referralCode=P20"
    edit = browser.get(server.admin_url("/console/links/edit?site=fitconnect&code=p20"))
    assert re.search(r'id="forcedRedirect" name="forcedRedirect" type="checkbox" value="true" checked', edit.text)
    assert 'value="2099-01-31T00:00:00Z"' in edit.text
    # The preview of a forced redirect says where each device is sent.
    iphone = browser.get(server.admin_url("/console/links/preview?device=iphone&site=fitconnect&code=p20"))
    assert "sent straight to" in iphone.text and "forced redirect" in iphone.text
    # Unticked: the landing page again.
    del form["forcedRedirect"]
    assert post(browser, server, "/console/links/edit", form).status_code == 303
    assert public_status(server, "/p20") == 200


def test_preview_headers(env):
    server = env["server"]
    browser, _ = sign_in(server, env["writer"])
    edit = browser.get(server.admin_url("/console/links/edit?site=fitconnect&code=spring"))
    assert "frame-src 'self'" in edit.headers["Content-Security-Policy"]
    assert "frame-src" not in browser.get(server.admin_url("/")).headers["Content-Security-Policy"]
    frame = browser.get(server.admin_url("/console/links/preview?device=android&site=fitconnect&code=spring"))
    assert frame.status_code == 200 and "frame-ancestors 'self'" in frame.headers["Content-Security-Policy"]
    assert frame.headers["X-Frame-Options"] == "SAMEORIGIN" and 'id="play-store"' in frame.text
    # The public page itself keeps its own policy.
    public = requests.get(server.url("/spring"), headers={"Host": "fitconnect.app", "User-Agent": ANDROID})
    assert "frame-ancestors 'none'" in public.headers["Content-Security-Policy"]
    # No session, no preview.
    assert requests.get(server.admin_url("/console/links/preview?device=android&site=fitconnect&code=spring"), allow_redirects=False).status_code == 303


def browser_sign_in(driver, server, token):
    from selenium.webdriver.common.by import By
    from test_console_browser import submit
    driver.get(server.admin_url("/"))
    driver.find_element(By.ID, "token").send_keys(token)
    submit(driver, "main button[type=submit]")


def test_previews_card_and_accessibility_in_chromium(env):
    from selenium.webdriver.common.by import By
    from test_console_browser import check, size, submit
    server, tmp = env["server"], env["tmp"]
    driver = chromium()
    try:
        browser_sign_in(driver, server, env["writer"])
        for look in ("desktop", "phone"):
            size(driver, look)
            driver.get(server.admin_url("/?site=fitconnect&sort=clicks&dir=desc"))
            assert driver.find_element(By.CSS_SELECTOR, "svg.spark").get_attribute("role") == "img"
            check(driver, look, "links-list", tmp)
            driver.get(server.admin_url("/console/links/delete?site=fitconnect&code=p30"))
            check(driver, look, "links-delete", tmp)
            driver.get(server.admin_url("/console/links/edit?site=fitconnect&code=spring"))
            check(driver, look, "links-editor", tmp)
        size(driver, "desktop")
        # Each frame shows that device's variant: the App Store on an iPhone, Google Play on
        # Android, the QR code to scan with a phone (and the web) on a desktop.
        for device, shown, absent in (("iphone", "#app-store", "#play-store"), ("android", "#play-store", "#app-store"),
                                      ("desktop", "figure.qr-code svg", "#open-in-app")):
            driver.switch_to.frame(driver.find_element(By.ID, f"preview-{device}"))
            assert driver.find_elements(By.CSS_SELECTOR, shown) and not driver.find_elements(By.CSS_SELECTOR, absent), device
            assert driver.find_element(By.TAG_NAME, "h1").text == "Spring offer"
            # The page's own stylesheet loaded through the console.
            assert driver.execute_script("return getComputedStyle(document.body).marginTop") == "0px", device
            driver.switch_to.default_content()
        assert driver.find_element(By.CSS_SELECTOR, "#preview-card .card-title").text == "Spring offer"
        assert driver.find_element(By.CSS_SELECTOR, "#preview-card .card-image").get_attribute("src").startswith(server.admin_url("/console/preview/fitconnect/static/"))
        assert driver.execute_script("return document.querySelector('#preview-card .card-image').naturalWidth") > 0
        box = driver.find_element(By.ID, "previewTitle")
        box.clear()
        box.send_keys("Spring offer, 40 % off")
        submit(driver, "main form button[type=submit]")
        assert driver.find_element(By.CSS_SELECTOR, "#preview-card .card-title").text == "Spring offer, 40 % off"
        driver.switch_to.frame(driver.find_element(By.ID, "preview-iphone"))
        assert driver.find_element(By.TAG_NAME, "h1").text == "Spring offer, 40 % off"
        driver.switch_to.default_content()
    finally:
        driver.quit()


def test_core_tasks_with_javascript_off(env):
    from selenium.webdriver.common.by import By
    from test_console_browser import submit
    server = env["server"]
    driver = chromium(javascript=False)
    try:
        # The browser runs no page script at all.
        driver.get("data:text/html,<p id=probe>off</p><script>document.getElementById('probe').textContent='on'</script>")
        assert driver.find_element(By.ID, "probe").text == "off"
        browser_sign_in(driver, server, env["writer"])
        assert driver.title.startswith("Links")
        driver.find_element(By.LINK_TEXT, "New link").click()
        driver.find_element(By.ID, "code").send_keys("nojs")
        driver.find_element(By.ID, "target").send_keys("https://fitconnect.app/signup?referralCode=NOJS")
        driver.find_element(By.ID, "previewTitle").send_keys("No script")
        submit(driver, "main form button[type=submit]")
        assert driver.find_element(By.CSS_SELECTOR, ".notice").text == "Link nojs created."
        driver.find_element(By.ID, "forcedRedirect").click()
        submit(driver, "main form button[type=submit]")
        assert driver.find_element(By.CSS_SELECTOR, ".notice").text == "Saved."
        assert public_status(server, "/nojs") in (301, 302, 307, 308)
        driver.get(server.admin_url("/?site=fitconnect&q=nojs"))
        submit(driver, "button[aria-label='Disable nojs']")
        assert driver.find_element(By.CSS_SELECTOR, ".notice").text == "Link nojs disabled."
        assert public_status(server, "/nojs") == 404
        driver.get(server.admin_url("/?site=fitconnect&q=nojs"))
        driver.find_element(By.CSS_SELECTOR, "a[aria-label='Delete nojs']").click()
        submit(driver, "main form button.danger")
        assert driver.find_element(By.CSS_SELECTOR, ".notice").text == "Link nojs deleted."
        assert api(server, "GET", "/api/v1/links/fitconnect/nojs", token=env["writer"])[0] == 404
        # The bulk form's checkboxes, without script.
        driver.get(server.admin_url("/?site=fitconnect&q=p4"))
        driver.find_element(By.ID, "select-p40").click()
        driver.find_element(By.ID, "select-p41").click()
        submit(driver, "form.bulk button[value=disable]")
        assert driver.find_element(By.CSS_SELECTOR, ".notice").text == "2 links disabled."
        assert public_status(server, "/p40") == 404 and public_status(server, "/p41") == 404
    finally:
        driver.quit()
