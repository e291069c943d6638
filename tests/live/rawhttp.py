"""Raw-socket HTTP for the hostile-input tests: send exact bytes, read what comes back, and a
throwaway nginx on a loopback port serving the same AASA bytes as the Linkwell under test."""
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

AASA_PATH = "/.well-known/apple-app-site-association"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def split_address(address):
    host, port = address.rsplit(":", 1)
    return host.strip("[]"), int(port)


def exchange(address, data, timeout=3.0, source=None, half_close=False, expect=None):
    """Sends `data`, reads until the peer closes, `expect` complete responses have arrived, or
    `timeout` passes with nothing new. Returns the bytes received (b"" when the connection was
    closed without a response)."""
    host, port = split_address(address)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        if source:
            s.bind((source, 0))
        s.settimeout(timeout)
        s.connect((host, port))
        try:
            s.sendall(data)
            if half_close:
                s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except (socket.timeout, ConnectionResetError, OSError):
                break
            if not chunk:
                break
            chunks.append(chunk)
            if expect and complete_responses(b"".join(chunks)) >= expect:
                break
        return b"".join(chunks)


def complete_responses(raw):
    """How many whole Content-Length-framed responses `raw` holds."""
    count, rest = 0, raw
    while rest.startswith(b"HTTP/"):
        head, sep, after = rest.partition(b"\r\n\r\n")
        if not sep:
            break
        length = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v.strip() or b"0")
        if len(after) < length:
            break
        if not head.startswith(b"HTTP/1.1 1"):  # an interim 1xx is not the answer
            count += 1
        rest = after[length:]
    return count


def responses(raw):
    """Splits a byte stream into (status, headers, body) responses (Content-Length framing only)."""
    out = []
    rest = raw
    while rest.startswith(b"HTTP/"):
        head, sep, after = rest.partition(b"\r\n\r\n")
        if not sep:
            out.append((int(head.split(b" ", 2)[1]), {}, b""))
            break
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(b":")
            headers.setdefault(k.strip().lower().decode("latin-1"), v.strip().decode("latin-1"))
        length = int(headers.get("content-length", "0"))
        out.append((status, headers, after[:length]))
        rest = after[length:]
    return out


def get_aasa(address, host):
    raw = exchange(address, f"GET {AASA_PATH} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    parsed = responses(raw)
    return parsed[0] if parsed else (0, {}, b"")


class Nginx:
    """nginx serving `aasa` at the AASA path for any Host, on 127.0.0.1:<free port>, with its
    default header budget (8 KB per line, 32 KB in all)."""

    def __init__(self, workdir, aasa, extra_http="", locations=""):
        prefix = Path(workdir) / "nginx"
        prefix.mkdir(parents=True, exist_ok=True)
        for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi", "root/.well-known"):
            (prefix / d).mkdir(parents=True, exist_ok=True)
        (prefix / "root" / ".well-known" / "apple-app-site-association").write_bytes(aasa)
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.prefix = prefix
        user = "user root root;\n" if os.geteuid() == 0 else ""
        (prefix / "nginx.conf").write_text(f"""
{user}worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 2048; }}
http {{
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    {extra_http}
    server {{
        listen 127.0.0.1:{self.port} default_server;
        root {prefix}/root;
        location = {AASA_PATH} {{ default_type application/json; }}
        {locations}
    }}
}}
""")
        self.proc = subprocess.Popen(
            ["nginx", "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-e", str(prefix / "error.log"), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 15
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"nginx exited {self.proc.returncode}: {self.proc.stderr.read().decode()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("nginx did not start listening within 15 s")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


def have_nginx():
    return shutil.which("nginx") is not None
