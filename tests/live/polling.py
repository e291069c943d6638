"""Waiting for the server to catch up without fixed sleeps."""
import time

from conftest import curl

FITCONNECT = ("-H", "Host: fitconnect.app")


def within(seconds, predicate):
    """Polls `predicate` every 50 ms until true; the seconds it took, or fails after `seconds`."""
    start = time.monotonic()
    while not predicate():
        assert time.monotonic() - start < seconds, f"not within {seconds} s"
        time.sleep(0.05)
    return time.monotonic() - start


def status(server, path, host=FITCONNECT):
    """The status code of GET `path` on the fitconnect site."""
    return curl(*host, server.url(path))[0]
