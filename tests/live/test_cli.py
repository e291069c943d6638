"""The linkwell CLI as a person uses it: help, exit codes, errors on stderr, and the outputs
the README shows."""
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".build" / "debug" / "linkwell"


def run(*args, config=None):
    cmd = [str(BIN), *args]
    if config:
        cmd += ["--config", str(config)]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_help_has_overview_usage_options():
    r = run("--help")
    assert r.returncode == 0
    for word in ("OVERVIEW:", "USAGE:", "SUBCOMMANDS:", "serve", "validate", "verify"):
        assert word in r.stdout
    r = run("check", "--help")
    assert r.returncode == 0 and "OPTIONS:" in r.stdout and "--json" in r.stdout


def test_usage_errors_exit_64_on_stderr():
    for args in (["frobnicate"], ["link"], ["generate"], ["check", "--nope", "x"], ["verify", "https://a"]):
        r = run(*args)
        assert r.returncode == 64, (args, r.returncode, r.stderr)
        assert r.stderr.startswith("Error: "), r.stderr
        assert r.stdout == ""


def test_validate_default_config_ok():
    r = run("validate")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("OK — 3 site(s), 5 route(s), 11 warning(s)")
    # The platform limits, each once per site with an example URL, and two landing-page warnings.
    lines = [l for l in r.stdout.splitlines() if ": warning: " in l]
    limits = [l for l in lines if ": warning: platform limit (" in l]
    assert len(limits) == 9 and all("(e.g. https://" in l for l in limits)
    assert len(lines) == 11


def test_validate_broken_config_exit_1(tmp_path):
    bad = tmp_path / "bad.json5"
    bad.write_text('{ sites: [ { domains: ["example.com"], ios: [{ teamID: "TEAMID12345", bundleID: "com.example.app" }],'
                   ' routes: [{ name: "post", path: "/post/{id" }] } ] }')
    r = run("validate", config=bad)
    assert r.returncode == 1
    assert f"{bad}: sites[0].ios[0].teamID: error: team ID 'TEAMID12345'" in r.stderr
    assert "route 'post': path '/post/{id' has an unclosed '{' at column 7" in r.stderr
    j = json.loads(run("validate", "--json", config=bad).stdout)
    assert j["valid"] is False and {d["path"] for d in j["diagnostics"]} >= {"sites[0].ios[0].teamID", "sites[0].routes[0].path"}


def test_check_json():
    r = run("check", "https://fitconnect.app/signup?referralCode=TRAINER1234567890123", "--json")
    assert r.returncode == 0
    j = json.loads(r.stdout)
    assert j["route"] == "signup" and j["parameters"] == {"referralCode": "TRAINER1234567890123"}
    assert j["apple"][0]["verdict"] == "match"
    assert j["android"][0]["handled"] is True


def test_defect_10_check_json_keeps_parser_apps_and_matcher_results_apart():
    # A link the parser opens in both apps but whose Android claim is only the matcher's to say.
    j = json.loads(run("check", "https://diallodev.online/post/42/", "--json").stdout)
    assert j["opens"] == {"ios": ["TEAMID1234.online.diallodev.app"], "android": ["online.diallodev.app"]}
    assert [a["package"] for a in j["android"]] == ["online.diallodev.app"] and j["android"][0]["handled"] is True
    assert j["android15"][0]["handled"] is True  # the Android 15 parser handles the trailing-slash claim too
    assert j["apple"][0]["verdict"] == "match"
    # Excluded: the parser opens nothing, the matchers still report per app.
    j = json.loads(run("check", "https://diallodev.online/post/drafts/7", "--json").stdout)
    assert "opens" not in j and j["android"][0]["handled"] is False


def test_defect_13_verify_assetlinks_host(tmp_path):
    links = tmp_path / "assetlinks.json"
    links.write_bytes(subprocess.run([str(BIN), "generate", "assetlinks", "--site", "diallodev"], cwd=ROOT,
                                     capture_output=True, timeout=60).stdout)
    fp = json.loads(links.read_text())[0]["target"]["sha256_cert_fingerprints"][0]
    r = run("verify", "--assetlinks", str(links), "--package", "online.diallodev.app", "--cert", fp,
            "--host", "diallodev.online", "https://diallodev.online/post/42", "https://example.com/post/42")
    assert r.returncode == 0, r.stderr
    assert "https://diallodev.online/post/42: handled" in r.stdout
    assert "https://example.com/post/42: not handled — the URL's host 'example.com' is not 'diallodev.online'" in r.stdout
    j = json.loads(run("verify", "--assetlinks", str(links), "--package", "online.diallodev.app", "--cert", fp,
                       "--host", "diallodev.online", "https://example.com/post/42", "--json").stdout)
    assert j["results"][0]["handled"] is False and "not 'diallodev.online'" in j["results"][0]["reason"]
    assert j["parser"] == "android16"


def test_link_and_parse_back():
    url = run("link", "post", "postId=a b/c?d").stdout.strip()
    assert url == "https://diallodev.online/post/a%20b%2Fc%3Fd"
    j = json.loads(run("check", url, "--json").stdout)
    assert j["parameters"] == {"postId": "a b/c?d"}
    r = run("link", "signup", "--site", "fitconnect")
    assert r.returncode == 1 and "needs the parameter 'referralCode'" in r.stderr


def test_generate_output_dir(tmp_path):
    r = run("generate", "all", "--output", str(tmp_path))
    assert r.returncode == 0, r.stderr
    aasa = tmp_path / "diallodev.online" / ".well-known" / "apple-app-site-association"
    links = tmp_path / "fitconnect.app" / ".well-known" / "assetlinks.json"
    assert json.loads(aasa.read_text())["applinks"]["details"][0]["appIDs"] == ["TEAMID1234.online.diallodev.app"]
    assert json.loads(links.read_text())[0]["target"]["package_name"] == "com.fitconnect.app"
    # Same bytes as printing one file.
    assert aasa.read_bytes() == subprocess.run([str(BIN), "generate", "aasa", "--site", "diallodev"], cwd=ROOT,
                                               capture_output=True, timeout=60).stdout


def test_verify_article_file_flags_team_id_and_overclaim():
    r = run("verify", "--aasa", "docs/examples/diallodev-article-aasa.json", "https://diallodev.online/post/a/b")
    assert r.returncode == 0
    assert "team ID 'TEAMID12345' is not 10 characters" in r.stdout
    assert "TEAMID12345.online.diallodev.app: match" in r.stdout


def test_verify_rejected_assetlinks(tmp_path):
    f = tmp_path / "assetlinks.json"
    f.write_text('[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app",'
                 ' "package_name": "a.b", "sha256_cert_fingerprints": []}},]')
    r = run("verify", "--assetlinks", str(f), "--package", "a.b", "--json")
    assert r.returncode == 1
    assert json.loads(r.stdout)["parse"] == "rejected"
