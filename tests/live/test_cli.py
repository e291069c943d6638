"""The linkwell CLI as a person uses it: help, exit codes, errors on stderr, and the outputs
the README shows."""
import json
import subprocess

import pytest
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
    r = run("validate", "--website-upstream", "http://127.0.0.1:3000")
    assert r.returncode == 0, r.stderr
    # Warnings are what the user can fix (two landing-page ones here, on stderr); the platform
    # limits, which nothing can fix, are only counted in the summary line on stdout.
    assert r.stdout.strip().endswith(
        "OK — 3 site(s), 5 route(s), 2 warning(s), 9 platform limits: see 'linkwell validate --limits'")
    lines = [l for l in r.stderr.splitlines() if ": warning: " in l]
    assert len(lines) == 2 and not any("platform limit" in l for l in lines), lines
    assert "nothing to do" not in r.stderr


def test_validate_limits_lists_each_limit_with_an_example():
    r = run("validate", "--limits", "--website-upstream", "http://127.0.0.1:3000")
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    limits = [l for l in out if ": sites[" in l and ".routes: " in l]
    assert len(limits) == 9 and all("(e.g. https://" in l for l in limits), out
    assert all(n.startswith("    note: ") for n in [out[out.index(l) + 1] for l in limits])
    assert out[-1].endswith("9 platform limits (listed above)")
    j = json.loads(run("validate", "--json", "--website-upstream", "http://127.0.0.1:3000").stdout)
    assert len(j["limits"]) == 9 and all(l["example"].startswith("https://") and l["routes"] for l in j["limits"])
    assert not any("platform limit" in d["message"] for d in j["diagnostics"])


@pytest.mark.parametrize("example", ["coffeebreak", "computers", "diallodev", "fitconnect"])
def test_validate_shipped_examples_have_no_nothing_to_do_warning(example):
    r = run("validate", config=f"config/examples/{example}.json5")
    assert r.returncode == 0, r.stderr
    assert "nothing to do" not in r.stderr and "platform limit (" not in r.stderr
    assert "platform limit" in r.stdout.strip().splitlines()[-1]


def test_validate_warns_about_a_website_on_its_own_link_domain(tmp_path):
    """A site whose website is on its own link domain gets one warning (the landing check's or
    the proxy one), never two; --website-upstream is checked like generate's."""
    cfg = tmp_path / "loop.json5"
    cfg.write_text('{ sites: [ { name: "a", domains: ["a.example"], website: "https://a.example/p/home",'
                   ' ios: [{ teamID: "ABCDE12345", bundleID: "com.example.a" }], routes: [{ name: "p", path: "/p/{id}" }] },'
                   ' { name: "d", domains: ["d.example"], website: "https://blog.d.example",'
                   ' ios: [{ teamID: "ABCDE12345", bundleID: "com.example.d" }], routes: [{ name: "r", path: "/r/{id}" }] } ] }')
    r = run("validate", config=cfg)
    assert r.returncode == 0, r.stderr
    # /p/home is a route, so only the proxy warning speaks for site a.
    assert "sites[0].website: warning: site 'a' has its website on one of its own link domains (a.example)" in r.stderr, r.stderr
    assert "--website-upstream a=http://127.0.0.1:3000" in r.stderr
    assert r.stderr.count("sites[0].website: warning:") == 1 and "sites[1].website: warning:" not in r.stderr
    r = run("validate", "--website-upstream", "a=http://127.0.0.1:3000", config=cfg)
    assert "has its website on one of its own link domains" not in r.stderr
    r = run("validate", "--website-upstream", "nosuch=http://127.0.0.1:3000", config=cfg)
    assert r.returncode == 64 and "no site 'nosuch'" in r.stderr
    shop = tmp_path / "shop.json5"
    shop.write_text('{ sites: [ { domains: ["example.com", "www.example.com"], website: "https://www.example.com",'
                    ' ios: [{ teamID: "ABCDE12345", bundleID: "com.example.shop" }], routes: [{ name: "item", path: "/item/{id}" }] } ] }')
    assert run("validate", config=shop).stderr.count("sites[0].website: warning:") == 1


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


def test_verify_android15_rule_patternmatcher_rejects(tmp_path):
    """Android 15 reads '/c++/?*' as the advanced glob '/c++/.+', which PatternMatcher rejects when
    a URL reaches it: the rules before it still decide, the URL that reaches it is not handled
    (not "no dynamic rules, every URL handled")."""
    fp = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
    links = tmp_path / "assetlinks.json"
    links.write_text(json.dumps([{
        "relation": ["delegate_permission/common.handle_all_urls"],
        "target": {"namespace": "android_app", "package_name": "com.example.app", "sha256_cert_fingerprints": [fp]},
        "relation_extensions": {"delegate_permission/common.handle_all_urls": {
            "dynamic_app_link_components": [{"/": "/a/*"}, {"/": "/c++/?*"}, {"/": "*"}]}}}]))
    args = ["verify", "--assetlinks", str(links), "--package", "com.example.app", "--cert", fp]
    r = run(*args, "--android15", "https://example.com/a/1", "https://example.com/b")
    assert r.returncode == 0, r.stderr
    assert "https://example.com/a/1: handled — component #0" in r.stdout
    assert "https://example.com/b: not handled — component #1" in r.stdout and "modifier must follow a token" in r.stdout
    assert "PatternMatcher rejects" in r.stdout + r.stderr
    j = json.loads(run(*args, "--android15", "https://example.com/b", "--json").stdout)
    assert j["results"][0] == {"url": "https://example.com/b", "handled": False, "component": 1,
                               "rule": '{"/":"/c++/?*"}', "exception": "modifier must follow a token"}
    # Android 16 reads the same rule as a simple glob.
    assert "https://example.com/c++/1: handled — component #1" in run(*args, "https://example.com/c++/1").stdout


def test_verify_article_file_flags_team_id_and_overclaim():
    r = run("verify", "--aasa", "docs/examples/diallodev-article-aasa.json", "https://diallodev.online/post/a/b")
    assert r.returncode == 0
    assert "team ID 'TEAMID12345' is not 10 characters" in r.stderr  # a warning: stderr
    assert "TEAMID12345.online.diallodev.app: match" in r.stdout  # the result: stdout


def test_verify_rejected_assetlinks(tmp_path):
    f = tmp_path / "assetlinks.json"
    f.write_text('[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app",'
                 ' "package_name": "a.b", "sha256_cert_fingerprints": []}},]')
    r = run("verify", "--assetlinks", str(f), "--package", "a.b", "--json")
    assert r.returncode == 1
    assert json.loads(r.stdout)["parse"] == "rejected"


def test_validate_shipped_broken_examples():
    """The README's validate examples: config/examples/broken.json5 and broken-syntax.json5."""
    r = run("validate", config=ROOT / "config" / "examples" / "broken.json5")
    assert r.returncode == 1 and r.stdout == ""
    assert "sites[0].ios[0].teamID: error: team ID 'TEAMID12345' is not 10 characters" in r.stderr
    assert "sites[0].routes[0].path: error: route 'post': path '/post/{id' has an unclosed '{' at column 7" in r.stderr
    assert "unknown key 'appStoreId' is ignored\n    fix: did you mean 'appStoreID'?" in r.stderr
    assert r.stderr.rstrip().endswith("3 error(s), 1 warning(s)")
    r = run("validate", config=ROOT / "config" / "examples" / "broken-syntax.json5")
    assert r.returncode == 1 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert lines[0].endswith("broken-syntax.json5:6:31: error: expected ',' or '}' after the value of 'domains', found 'ios' on line 7")
    assert lines[1] == '  6 |       domains: ["example.com"]'
    assert lines[2] == "    | " + " " * 30 + "^"
    # Every command that loads the config prints the same position.
    r = run("routes", config=ROOT / "config" / "examples" / "broken-syntax.json5")
    assert r.returncode == 1 and "broken-syntax.json5:6:31: error:" in r.stderr


# MARK: - CLI conventions


def test_did_you_mean_for_subcommands_and_options():
    r = run("serv")
    assert r.returncode == 64 and r.stdout == ""
    assert r.stderr == "Error: unknown subcommand 'serv'. Did you mean 'serve'? Run 'linkwell --help' for the list.\n"
    r = run("validate", "--confg", "x.json5")
    assert r.returncode == 64 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert lines[0] == "Error: unknown option '--confg' for 'validate'; did you mean '--config'?"
    assert r.stderr.count("See 'linkwell validate --help'") == 1, r.stderr
    r = run("help", "chek")
    assert r.returncode == 64 and "Did you mean 'check'?" in r.stderr
    r = run("completions", "bsh")
    assert r.returncode == 64 and "did you mean 'bash'?" in r.stderr


def test_quiet_drops_warnings_but_keeps_results_and_errors(tmp_path):
    loud = run("validate")
    assert "warning:" in loud.stderr
    quiet = run("validate", "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == loud.stdout
    assert run("validate", "-q").stderr == ""
    r = run("validate", "--quiet", config=ROOT / "config" / "examples" / "broken.json5")
    assert r.returncode == 1 and "error:" in r.stderr and "warning:" not in r.stderr
    out = tmp_path / "f"
    r = run("generate", "all", "--output", str(out), "--quiet")
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""
    r = run("generate", "all", "--output", str(out))
    assert r.stdout == "" and "wrote " in r.stderr


def run_on_tty(*args, env=None):
    """Runs the binary with stdout and stderr on a pseudo-terminal; returns what it printed."""
    import os
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen([str(BIN), *args], cwd=ROOT, stdout=slave, stderr=slave, stdin=subprocess.DEVNULL,
                         env=dict(os.environ, TERM="xterm", **(env or {})))
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    p.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode()


def test_colour_on_a_terminal_only():
    broken = str(ROOT / "config" / "examples" / "broken.json5")
    tty = run_on_tty("validate", "--config", broken)
    assert "\x1b[1;31merror\x1b[0m:" in tty and "\x1b[1;33mwarning\x1b[0m:" in tty and "\x1b[36mfix:\x1b[0m" in tty, repr(tty[:300])
    assert "\x1b[" not in run_on_tty("validate", "--config", broken, env={"NO_COLOR": "1"})
    assert "\x1b[" not in run("validate", config=broken).stderr  # a pipe


def test_bash_completion_registers_and_completes():
    script = run("completions", "bash").stdout
    probe = f"""
source /dev/stdin <<'EOF_COMPLETION'
{script}
EOF_COMPLETION
complete -p linkwell
COMP_WORDS=(linkwell serv); COMP_CWORD=1; _linkwell; echo "1: ${{COMPREPLY[*]}}"
COMP_WORDS=(linkwell generate ng); COMP_CWORD=2; _linkwell; echo "2: ${{COMPREPLY[*]}}"
COMP_WORDS=(linkwell validate --con); COMP_CWORD=2; _linkwell; echo "3: ${{COMPREPLY[*]}}"
COMP_WORDS=(linkwell generate --website-upstream ''); COMP_CWORD=3; _linkwell; echo "4: ${{COMPREPLY[*]}}"
"""
    r = subprocess.run(["bash", "--norc", "--noprofile"], input=probe, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "complete -F _linkwell linkwell"
    assert lines[1] == "1: serve"
    assert lines[2] == "2: nginx"
    assert lines[3] == "3: --config"
    assert lines[4] == "4: "  # a URL: nothing to offer


def test_completions_cover_every_subcommand_and_option():
    import re
    top = run("--help").stdout
    subcommands = re.findall(r"^  ([a-z]+)\s{2,}", top.split("SUBCOMMANDS:")[1], re.M)
    assert "completions" in subcommands and "generate" in subcommands
    bash, zsh, fish = (run("completions", s).stdout for s in ("bash", "zsh", "fish"))
    for name in subcommands:
        if name == "help":
            continue
        options = re.findall(r"^  (--[a-z0-9-]+)", run(name, "--help").stdout, re.M)
        assert options, name
        for option in options:
            assert option in bash and option in zsh and f"-l {option[2:]}" in fish, (name, option)
        assert f"{name})" in bash and f"'{name}:" in zsh and f"-a {name} " in fish, name
    import shutil
    if shutil.which("zsh"):
        r = subprocess.run(["zsh", "-n"], input=zsh, capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
    if shutil.which("fish"):
        r = subprocess.run(["fish", "--no-execute"], input=fish, capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr


def test_man_page_is_generated_from_the_help_text():
    shipped = (ROOT / "man" / "linkwell.1").read_text()
    assert shipped == run("help", "--man").stdout, "man/linkwell.1 drifted: run `linkwell help --man > man/linkwell.1`"
    for name in ("serve", "validate", "generate", "check", "link", "routes", "verify", "doctor", "healthcheck", "completions"):
        assert f'.SS "linkwell {name}"' in shipped
    import shutil
    if shutil.which("man"):
        r = subprocess.run(["man", "-l", str(ROOT / "man" / "linkwell.1")], capture_output=True, text=True, timeout=60,
                           env={"MANWIDTH": "100", "PATH": "/usr/bin:/bin", "MAN_KEEP_FORMATTING": ""})
        assert r.returncode == 0 and "EXIT STATUS" in r.stdout and "--website-upstream" in r.stdout, r.stderr


def test_check_help_and_redirect(tmp_path):
    r = run("check", "--help")
    assert "<<" not in r.stdout and "--user-agent <ua>" in r.stdout
    cfg = tmp_path / "nf.json5"
    cfg.write_text('{ sites: [ { domains: ["example.com"], notFound: { redirect: "https://www.example.com/" },'
                   ' ios: [{ teamID: "ABCDE12345", bundleID: "com.example.app" }],'
                   ' routes: [{ exclude: "/a/*" }, { name: "item", path: "/item/{id}" }] } ] }')
    r = run("check", "https://example.com/nope", config=cfg)
    assert "browsers are redirected (302) to https://www.example.com/ (notFound.redirect)" in r.stdout, r.stdout
    assert "not-found page" not in r.stdout
    r = run("check", "https://example.com/a/b", config=cfg)
    assert "excluded by routes[0]" in r.stdout and "redirected (302) to https://www.example.com/" in r.stdout
    r = run("check", "https://diallodev.online/nope")
    assert "browsers get the not-found page (404)" in r.stdout


def test_link_refuses_unregistered_schemes_and_lists_the_sites_routes():
    r = run("link", "post", "postId=1", "--scheme-name", "nosuch")
    assert r.returncode == 1 and r.stdout == ""
    assert "no app of site 'diallodev' registers the scheme 'nosuch'" in r.stderr and "registered: diallodev" in r.stderr
    r = run("link", "signup", "--site", "diallodev")
    assert r.returncode == 1
    assert "site 'diallodev' has no route 'signup'; its routes are 'post', 'profile', 'aiWorkspace'" in r.stderr
    r = run("link", "isue", "id=1")
    assert r.returncode == 1 and "did you mean 'issue'?" in r.stderr and "coffeebreak: issue" in r.stderr
    r = run("link", "issue", "id=45", "--scheme-name", "ioscoffeebreakapp")
    assert r.returncode == 0 and r.stdout == "ioscoffeebreakapp://issue?id=45\n"
    j = json.loads(run("link", "post", "postId=a b", "--json").stdout)
    assert j == {"url": "https://diallodev.online/post/a%20b", "site": "diallodev", "route": "post", "parameters": {"postId": "a b"},
                 "ios": ["TEAMID1234.online.diallodev.app"], "android": ["online.diallodev.app"]}


def test_exit_codes(tmp_path):
    assert run("validate").returncode == 0
    assert run("validate", config=ROOT / "config" / "examples" / "broken.json5").returncode == 1
    assert run("validate", "--nope").returncode == 64
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = run("generate", "nginx", "--output", str(blocker / "sub" / "linkwell.conf"))
    assert r.returncode == 74 and r.stderr.startswith("Error: cannot write "), r.stderr
    r = run("generate", "all", "--output", str(blocker / "sub"))
    assert r.returncode == 74, r.stderr


def test_configuration_doc_states_the_server_defaults():
    """docs/reference/configuration.md's defaults for listen, admin and shutdownDeadlineSeconds are the binary's."""
    import re
    doc = (ROOT / "docs" / "reference" / "configuration.md").read_text()
    help_text = run("serve", "--help").stdout
    listen = re.search(r"else (\S+)\)\.", help_text.split("  --listen <")[1]).group(1)
    admin = re.search(r"else (\S+)\);", help_text.split("  --admin <")[1]).group(1)
    assert (listen, admin) == ("127.0.0.1:8080", "127.0.0.1:9090"), help_text
    assert f'| `listen` | array of strings | `["{listen}"]`' in doc
    assert f'| `admin` | string | `"{admin}"`' in doc
    source = (ROOT / "Sources" / "LinkServer" / "ServerConfiguration.swift").read_text()
    deadline = re.search(r"var shutdownDeadlineSeconds: Double = (\d+)", source).group(1)
    assert f"| `shutdownDeadlineSeconds` | number ≥ 0 | `{deadline}` |" in doc
    assert "none defined in this version" not in doc


def test_healthcheck_json_on_a_closed_port():
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, not listening: connection refused
        r = run("healthcheck", f"http://127.0.0.1:{port}/healthz", "--json")
    assert r.returncode == 1, r.stderr
    j = json.loads(r.stdout)
    assert j["url"] == f"http://127.0.0.1:{port}/healthz" and j["healthy"] is False and j["error"]


def test_nested_subcommands_are_found_before_any_file_is_opened(tmp_path):
    """`links`/`tokens` actions are subcommands: an unknown one is a usage error even when the
    config does not exist (nothing was opened), with a did-you-mean or the list to choose from."""
    missing = tmp_path / "no-such-config.json5"
    r = run("links", "lst", "--config", str(missing))
    assert r.returncode == 64 and r.stdout == ""
    assert r.stderr == "Error: unknown subcommand 'lst' for 'links'. Did you mean 'list'? Run 'linkwell links --help' for the list.\n"
    r = run("links", "frobnicate", "--config", str(missing))
    assert r.returncode == 64 and "Choose add, list, show, disable, enable, delete, import or export." in r.stderr
    assert str(missing) not in r.stderr
    r = run("tokens", "revok", "x", "--config", str(missing))
    assert r.returncode == 64 and "Did you mean 'revoke'?" in r.stderr
    assert not missing.exists()


def test_every_subcommand_help_is_generated_with_its_own_options():
    r = run("links", "--help")
    assert r.returncode == 0 and "SUBCOMMANDS:" in r.stdout and "  add " in r.stdout
    add = run("links", "add", "--help").stdout
    assert add.startswith("OVERVIEW: ") and "USAGE: linkwell links add [--config <file>]" in add
    assert "--target <url>" in add and "--fdl-takeout" not in add
    export = run("links", "export", "--help").stdout
    assert "--format <csv|json>" in export and "--target" not in export
    assert run("help", "tokens", "create").stdout == run("tokens", "create", "--help").stdout
    # An option of another subcommand is refused, with the subcommand named.
    r = run("links", "list", "--target", "https://example.com/")
    assert r.returncode == 64 and r.stderr.startswith("Error: unknown option '--target' for 'links list'")


@pytest.mark.parametrize("args, message", [
    (["serve", "--threads", "0"], "Error: --threads is '0'; give a number of at least 1"),
    (["serve", "--log-format", "jsn"], "Error: --log-format is 'jsn'; did you mean 'json'? use json or text"),
    (["serve", "--listen", "localhost"], "Error: --listen is 'localhost'; "),
    (["healthcheck", "--timeout", "soon"], "Error: --timeout is 'soon'; give a positive number of seconds"),
    (["links", "add", "--target", "https://x/", "--length", "2"], "Error: --length is '2'; give a number from 4 to "),
    (["links", "export", "--format", "xml"], "Error: --format is 'xml'; use csv or json"),
])
def test_bad_option_values_are_refused_before_the_command_runs(tmp_path, args, message):
    r = run(*args, "--config", str(tmp_path / "missing.json5"))
    assert r.returncode == 64 and r.stdout == "", r.stderr
    assert r.stderr.startswith(message), r.stderr
