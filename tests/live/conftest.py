"""Fixtures for live tests: the debug binary on OS-chosen loopback ports, driven with curl."""
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / ".build" / "debug" / "linkwell"


class Server:
    """A running `linkwell serve`; stdout lines are collected on a background thread."""

    def __init__(self, config, extra=(), listen=("127.0.0.1:0",), binary=None):
        args = [str(binary or BINARY), "serve", "--config", str(config), "--admin", "127.0.0.1:0", *extra]
        for address in listen:
            args += ["--listen", address]
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        event = self.wait_for(lambda e: e.get("event") == "listening", timeout=15)
        self.addresses = event["addresses"]
        self.admin = event["admin"]
        self.sites = event["sites"]

    def _read(self):
        for line in self.proc.stdout:
            with self._lock:
                self.lines.append(line)

    def events(self):
        with self._lock:
            lines = list(self.lines)
        out = []
        for line in lines:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
        return out

    def wait_for(self, predicate, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for e in self.events():
                if predicate(e):
                    return e
            if self.proc.poll() is not None:
                # The process is gone: let the reader take the last lines before deciding.
                self._reader.join(timeout=5)
                for e in self.events():
                    if predicate(e):
                        return e
                raise AssertionError(f"server exited {self.proc.returncode}: {self.proc.stderr.read()}")
            time.sleep(0.05)
        raise AssertionError(f"timed out; log: {self.lines[-20:]}")

    def url(self, path, index=0):
        return f"http://{self.addresses[index]}{path}"

    def admin_url(self, path):
        return f"http://{self.admin}{path}"

    def signal(self, sig):
        self.proc.send_signal(sig)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.fixture
def start_server():
    servers = []

    def start(config, **kwargs):
        server = Server(config, **kwargs)
        servers.append(server)
        return server

    try:
        yield start
    finally:
        for s in servers:
            s.stop()


def curl(*args, timeout=20):
    """Runs curl; returns (status, headers dict lower-cased, body bytes)."""
    result = subprocess.run(
        ["curl", "-s", "-S", "--path-as-is", "-D", "/dev/stderr", "-o", "-", *args],
        capture_output=True, timeout=timeout,
    )
    head = result.stderr.decode("latin-1")
    blocks = [b for b in head.split("\r\n\r\n") if b.startswith("HTTP/")]
    status, headers = 0, {}
    if blocks:
        lines = blocks[-1].split("\r\n")
        status = int(lines[0].split()[1])
        for line in lines[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
    return status, headers, result.stdout


def run_cli(config, *args):
    """Runs `linkwell ARGS --config CONFIG`, which must succeed; returns its stdout, stripped."""
    r = subprocess.run([str(BINARY), *args, "--config", str(config)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def generate(config, which, site=None):
    args = [str(BINARY), "generate", which, "--config", str(config)]
    if site:
        args += ["--site", site]
    return subprocess.run(args, capture_output=True, check=True, cwd=ROOT).stdout


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: builds or runs something heavy (release build, container image); still part of `make test`")
