"""Short links that open the app (`shortLinks: { openApp: true }`).

A stored short link, under a prefix and on a link domain: the AASA and assetlinks.json the
running server serves claim it, as `linkwell verify` says under iOS's, Android 16's and Android
15's rules, and the `codegen android-manifest` fragment (Android 12–14) covers its path. What
must stay out (another path's code, the association files, static assets, an exclusion) stays
out. At the root of a domain shared with a website, `validate` refuses the setup with the fix.
"""
import re
import subprocess
import xml.etree.ElementTree as ET

from conftest import BINARY, curl, run_cli

FINGERPRINT = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
ANDROID_NS = "{http://schemas.android.com/apk/res/android}"

CONFIG = """{
  sites: [
    {
      name: "shop", domains: ["shop.example.com"], website: "https://www.shop.example.com",
      ios: [{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.shop", appStoreID: "123456789" }],
      android: [{ id: "android", package: "com.example.shop", fingerprints: ["%(fp)s"] }],
      routes: [ { name: "product", path: "/p/{id}" }, { exclude: "/l/private" }, { name: "page", path: "/{slug}" } ],
      shortLinks: { prefix: "/l/", openApp: %(open)s },
    },
    {
      name: "go", domains: ["go.example.com"],
      ios: [{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.shop", appStoreID: "123456789" }],
      android: [{ id: "android", package: "com.example.shop", fingerprints: ["%(fp)s"] }],
      routes: [ { name: "item", path: "/item/{id}" } ],
      shortLinks: { openApp: %(open)s, linkDomain: true },
    },
  ],
}
"""

APP_ID = "ABCDE12345.com.example.shop"
PACKAGE = "com.example.shop"


def verify(*args):
    r = subprocess.run([str(BINARY), "verify", *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def ios_claims(aasa, urls):
    out = verify("--aasa", aasa, *urls)
    verdicts = {}
    for block in out.split("\nhttps://"):
        lines = block.strip().splitlines()
        url = lines[0] if lines[0].startswith("https://") else "https://" + lines[0]
        verdicts[url] = any(line.strip().startswith(f"{APP_ID}: match") for line in lines[1:])
    return verdicts


def android_claims(links, host, urls, android15):
    args = ["--assetlinks", links, "--package", PACKAGE, "--cert", FINGERPRINT, "--host", host, *urls]
    out = verify(*args, *(["--android15"] if android15 else []))
    assert f"{PACKAGE} with 1 certificate(s): verified" in out, out
    return {url: f"  {url}: handled" in out for url in urls}


def manifest_covers(fragment, path):
    """Whether a path rule of the verified (autoVerify) filter matches `path` (Android 12–14)."""
    root = ET.fromstring(fragment)
    for f in root.iter("intent-filter"):
        if f.get(ANDROID_NS + "autoVerify") != "true":
            continue
        for d in f.iter("data"):
            if (p := d.get(ANDROID_NS + "path")) is not None and p == path:
                return True
            if (p := d.get(ANDROID_NS + "pathPrefix")) is not None and path.startswith(p):
                return True
            if (p := d.get(ANDROID_NS + "pathAdvancedPattern")) is not None and re.fullmatch(p.replace("\\\\", "\\"), path):
                return True
    return False


def served(server, host, path, tmp_path, name):
    status, _, body = curl("-H", f"Host: {host}", server.url(path))
    assert status == 200, (host, path, status)
    f = tmp_path / name
    f.write_bytes(body)
    return str(f)


def test_stored_short_links_are_claimed(tmp_path, start_server):
    config = tmp_path / "linkwell.json5"
    config.write_text(CONFIG % {"fp": FINGERPRINT, "open": "true"})
    run_cli(config, "links", "add", "--site", "shop", "--target", "https://shop.example.com/p/42", "--code", "spring")
    run_cli(config, "links", "add", "--site", "go", "--target", "https://go.example.com/item/7", "--code", "Ab3x")
    server = start_server(config)
    cases = {
        # host: (claimed, not claimed)
        "shop.example.com": (["/l/spring", "/l/spring?utm_source=news", "/p/42"], ["/l/spring/more", "/l/private", "/x/y"]),
        "go.example.com": (["/Ab3x", "/Ab3x?utm_campaign=launch", "/", "/item/7"],
                           ["/.well-known/assetlinks.json", "/.well-known/linkwell/resolve", "/apple-app-site-association", "/static/linkwell.css"]),
    }
    for host, (claimed, unclaimed) in cases.items():
        # The short link is live: its page answers.
        status, _, _ = curl("-H", f"Host: {host}", server.url(claimed[0]))
        assert status == 200, (host, claimed[0], status)
        aasa = served(server, host, "/.well-known/apple-app-site-association", tmp_path, f"{host}.aasa")
        links = served(server, host, "/.well-known/assetlinks.json", tmp_path, f"{host}.assetlinks.json")
        urls = [f"https://{host}{p}" for p in claimed + unclaimed]
        expected = {f"https://{host}{p}": p in claimed for p in claimed + unclaimed}
        assert ios_claims(aasa, urls) == expected, ("iOS", host)
        for android15 in (False, True):
            assert android_claims(links, host, urls, android15) == expected, ("Android 15" if android15 else "Android 16", host)
        fragment = subprocess.run([str(BINARY), "codegen", "android-manifest", "--site", host.split(".")[0], "--config", str(config)],
                                  capture_output=True, text=True, timeout=60)
        assert fragment.returncode == 0, fragment.stderr
        for p in claimed:
            assert manifest_covers(fragment.stdout, p.split("?")[0]), (host, p, fragment.stdout)
        # `check` says a claimed path that no route takes is a short link the app resolves.
        explained = run_cli(config, "check", f"https://{host}{claimed[0]}")
        assert "a short-link path the apps are given (shortLinks.openApp)" in explained, explained


def test_without_open_app_nothing_is_claimed(tmp_path):
    # The control: the same sites without openApp claim no short link.
    config = tmp_path / "linkwell.json5"
    config.write_text(CONFIG % {"fp": FINGERPRINT, "open": "false"})
    for site, host, code in [("shop", "shop.example.com", "/l/spring"), ("go", "go.example.com", "/Ab3x")]:
        f = tmp_path / f"{site}.aasa"
        f.write_bytes(subprocess.run([str(BINARY), "generate", "aasa", "--site", site, "--config", str(config)],
                                     capture_output=True, check=True).stdout)
        url = f"https://{host}{code}"
        # (On the shop site '/l/spring' is no route: '/{slug}' takes one segment only.)
        assert ios_claims(str(f), [url]) == {url: False}


def test_shared_domain_root_is_refused_with_the_fix(tmp_path):
    config = tmp_path / "linkwell.json5"
    config.write_text(CONFIG.replace('prefix: "/l/", ', "") % {"fp": FINGERPRINT, "open": "true"})
    r = subprocess.run([str(BINARY), "validate", "--config", str(config)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    text = r.stdout + r.stderr
    assert f"{config}: sites[0].shortLinks.openApp: error:" in text, text
    assert "website's pages on this domain would open in the app" in text
    assert '"prefix": "/l/"' in text and '"linkDomain": true' in text
    # The link domain beside it is fine.
    assert "sites[1].shortLinks" not in text
