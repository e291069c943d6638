"""config/linkwell.schema.json: valid draft 2020-12, accepts every shipped config, and rejects
the mistakes editors should underline (the same ones `linkwell validate` reports)."""

import copy
import json
from pathlib import Path

import json5
import pytest
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "config" / "linkwell.schema.json"
# The broken*.json5 examples are broken on purpose (the validate examples of docs/guide/getting-started.md).
SHIPPED = [ROOT / "config" / "linkwell.json5",
           *sorted(p for p in (ROOT / "config" / "examples").glob("*.json5") if not p.name.startswith("broken"))]

FINGERPRINT = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def base_config() -> dict:
    return {
        "$schema": "./linkwell.schema.json",
        "sites": [
            {
                "domains": ["example.com"],
                "ios": [{"id": "ios", "teamID": "ABCDE12345", "bundleID": "com.example.app", "schemes": ["example"]}],
                "android": [{"id": "android", "package": "com.example.app", "fingerprints": [FINGERPRINT]}],
                "routes": [
                    {"exclude": "/post/drafts/*"},
                    {"name": "post", "path": "/post/{postId}"},
                ],
            }
        ],
    }


def errors(validator: Draft202012Validator, doc: dict) -> list[tuple[str, str]]:
    """(JSON pointer-ish path, message) of every error, deepest first."""
    found = []
    for e in validator.iter_errors(doc):
        for leaf in (e.context or [e]) if e.validator in ("oneOf", "anyOf") else [e]:
            found.append(("/".join(map(str, leaf.absolute_path)), leaf.message))
        found.append(("/".join(map(str, e.absolute_path)), e.message))
    return found


def test_shipped_configs_exist():
    assert SCHEMA_PATH.is_file()
    assert len(SHIPPED) == 5, SHIPPED


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_config_is_valid(validator, path):
    doc = json5.loads(path.read_text(encoding="utf-8"))
    problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
    assert problems == []


def test_broken_example_is_rejected_by_the_schema_too(validator):
    """Editors flag config/examples/broken.json5's mistakes as validate does (the syntax one
    does not even parse)."""
    doc = json5.loads((ROOT / "config" / "examples" / "broken.json5").read_text(encoding="utf-8"))
    paths = {"/".join(map(str, e.absolute_path)) for e in validator.iter_errors(doc)}
    assert {"sites/0/ios/0/teamID", "sites/0/android/0/fingerprints/0", "sites/0/ios/0"} <= paths, paths
    with pytest.raises(ValueError):
        json5.loads((ROOT / "config" / "examples" / "broken-syntax.json5").read_text(encoding="utf-8"))


def test_base_config_is_valid(validator):
    assert list(validator.iter_errors(base_config())) == []


def test_lower_case_fingerprint_is_rejected(validator):
    doc = base_config()
    doc["sites"][0]["android"][0]["fingerprints"] = [FINGERPRINT.lower()]
    found = errors(validator, doc)
    assert any(path == "sites/0/android/0/fingerprints/0" and "does not match" in msg for path, msg in found), found


def test_eleven_character_team_id_is_rejected(validator):
    doc = base_config()
    doc["sites"][0]["ios"][0]["teamID"] = "TEAMID12345"
    found = errors(validator, doc)
    assert any(path == "sites/0/ios/0/teamID" and "does not match" in msg for path, msg in found), found


@pytest.mark.parametrize(
    "where",
    [
        ("sites", 0, "ios", 0),
        ("sites", 0, "android", 0),
        ("sites", 0),
        (),
    ],
    ids=["ios app", "android app", "site", "top level"],
)
def test_unknown_key_is_rejected(validator, where):
    doc = base_config()
    target = doc
    for step in where:
        target = target[step]
    target["appStoreId" if where else "sitez"] = "1"
    found = errors(validator, doc)
    assert any("Additional properties are not allowed" in msg for _, msg in found), found


def test_unknown_key_in_route_and_exclusion_is_rejected(validator):
    doc = base_config()
    doc["sites"][0]["routes"][1]["paramz"] = {}
    assert list(validator.iter_errors(doc)), "a typo in a route key must not validate"
    doc = base_config()
    doc["sites"][0]["routes"][0]["name"] = "drafts"  # an exclusion has no name
    assert list(validator.iter_errors(doc)), "an exclusion with route keys must not validate"


@pytest.mark.parametrize(
    "path, ok",
    [
        ("/", True),
        ("/post/{postId}", True),
        ("/post/{postId}/", True),
        ("/{item}.html", True),
        ("/files/{rest*}", True),
        ("/AI", True),
        ("post/{id}", False),
        ("/post//{id}", False),
        ("/post/*", False),
        ("/post/{id", False),
        ("/post/{a}-{b}", False),
        ("/post/{1d}", False),
        ("/files/{rest*}/x", False),
        ("/files/x{rest*}", False),
    ],
)
def test_route_path_pattern(validator, path, ok):
    doc = base_config()
    doc["sites"][0]["routes"][1]["path"] = path
    assert (list(validator.iter_errors(doc)) == []) == ok


@pytest.mark.parametrize(
    "pattern, ok",
    [("/post/drafts/*", True), ("/*", True), ("/post/{id}/edit", True), ("/post/*/edit", False), ("post/*", False)],
)
def test_exclusion_pattern(validator, pattern, ok):
    doc = base_config()
    doc["sites"][0]["routes"][0]["exclude"] = pattern
    assert (list(validator.iter_errors(doc)) == []) == ok


@pytest.mark.parametrize(
    "edit",
    [
        lambda s: s["ios"][0].update(appStoreID="id123"),
        lambda s: s["ios"][0].update(schemes=["example://"]),
        lambda s: s.update(domains=["https://example.com/"]),
        lambda s: s.update(domains=["Example.com"]),
        lambda s: s.update(aasa={"format": "new"}),
        lambda s: s.update(fallback={"ios": "app"}),
        lambda s: s["android"][0].update(fingerprints=[]),
        lambda s: (s.pop("ios"), s.pop("android")),
    ],
    ids=["appStoreID", "scheme", "domain URL", "domain capitals", "aasa.format", "fallback action", "no fingerprint", "no apps"],
)
def test_other_mistakes_are_rejected(validator, edit):
    doc = copy.deepcopy(base_config())
    edit(doc["sites"][0])
    assert list(validator.iter_errors(doc)), doc
