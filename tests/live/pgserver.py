"""A real, throw-away PostgreSQL server for the live tests: Debian's initdb/pg_ctl in a temporary
directory, on a free loopback port, as an unprivileged user when the tests run as root (the
server refuses to run as root), with a `linkwell` role that logs in with a password
(scram-sha-256) and owns a `linkwell` database. Torn down (stopped and deleted) afterwards."""
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def bin_dir():
    """The newest /usr/lib/postgresql/N/bin (Debian's `postgresql` package)."""
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2]))
    if not dirs or not os.path.exists(os.path.join(dirs[-1], "initdb")):
        raise RuntimeError("PostgreSQL is not installed: run 'scripts/install-deps.sh test' (Debian package postgresql)")
    return Path(dirs[-1])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    USER = "linkwell"
    PASSWORD = "linkwell-test-secret"
    DATABASE = "linkwell"

    def __init__(self):
        self.bin = bin_dir()
        # Not under pytest's tmp_path: that is private to root, and the server runs as another user.
        self.dir = Path(tempfile.mkdtemp(prefix="linkwell-pg-"))
        os.chmod(self.dir, 0o755)
        self.data = self.dir / "data"
        self.socket_dir = self.dir / "sock"
        self.socket_dir.mkdir()
        self.log = self.dir / "postgres.log"
        self.runner = []
        if os.geteuid() == 0:
            user = "nobody"
            pw = pwd.getpwnam(user)
            for p in (self.dir, self.socket_dir):
                os.chown(p, pw.pw_uid, pw.pw_gid)
            self.runner = ["runuser", "-u", user, "--"]
        self.port = None
        self.started = False
        superpw = self.dir / "superuser.pw"
        superpw.write_text("postgres-test-secret\n")
        os.chmod(superpw, 0o644)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256",
                  f"--pwfile={superpw}", "-E", "UTF8", "--locale=C")
        self.start()
        self.psql(f"CREATE ROLE {self.USER} LOGIN PASSWORD '{self.PASSWORD}'")
        self.psql(f"CREATE DATABASE {self.DATABASE} OWNER {self.USER}")

    def _run(self, tool, *args, check=True, timeout=60):
        r = subprocess.run([*self.runner, str(self.bin / tool), *args], capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise RuntimeError(f"{tool} {' '.join(args)} failed ({r.returncode}): {r.stdout}{r.stderr}\n"
                               f"{self.log.read_text() if self.log.exists() else ''}")
        return r

    def start(self):
        """Starts (or restarts after `stop`) on a free port; returns when it accepts connections."""
        for _ in range(5):
            self.port = self.port or free_port()
            r = self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "30",
                          "-o", f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1 -c fsync=off",
                          "start", check=False)
            if r.returncode == 0:
                self.started = True
                return
            self.port = None  # taken meanwhile: another port
        raise RuntimeError(f"PostgreSQL did not start: {self.log.read_text()}")

    def stop(self):
        if self.started:
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)
            self.started = False

    def psql(self, sql, database="postgres"):
        r = subprocess.run([*self.runner, str(self.bin / "psql"), "-h", str(self.socket_dir), "-p", str(self.port),
                            "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-Atc", sql],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"psql {sql!r}: {r.stderr}")
        return r.stdout

    @property
    def url(self):
        """The connection string linkwell gets (storage.postgres): no password in it."""
        return f"postgresql://{self.USER}@127.0.0.1:{self.port}/{self.DATABASE}"

    def close(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
