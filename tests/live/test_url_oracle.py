"""The URL oracle file is what a WHATWG parser says today: scripts/url-oracle.py --check gives
every input of the web-platform-tests URL corpus and of tests/url/redirect-tricks.json to ada-url
and compares with Tests/LinkRoutingTests/Fixtures/url-oracle.json, which the Swift test
WebURLOracleTests holds Linkwell's parser to."""
import subprocess
import sys

from conftest import ROOT


def test_url_oracle_fixture_is_what_ada_url_says():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "url-oracle.py"), "--check"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "cases: the fixture is what ada-url says" in r.stdout
