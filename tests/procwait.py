"""Waiting for a process the test did not start and cannot wait for (one
that outlives the `fntrace record` that started it): used by the drain and
fsize-limit cases."""
import time


def alive(pid):
    """running (a zombie that nobody reaps has ended)"""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid, limit=60):
    """True once pid has ended, False if it still runs after `limit` seconds"""
    deadline = time.time() + limit
    while alive(pid) and time.time() < deadline:
        time.sleep(0.05)
    return not alive(pid)
