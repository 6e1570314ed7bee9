"""Run a command as a user's shell would on a terminal: stdout and stderr on
a pseudo-terminal of 50 lines by 160 columns (so `less -F` can tell whether
the output fits).  Used by the pager and progress cases."""
import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import termios
import time


def on_tty(args, env, cwd=None, raw=False, limit=60):
    """-> (exit status, what the terminal received); raw keeps the terminal's
    \\r\\n, else they read as \\n.  A program still running after `limit`
    seconds (a pager waiting for keys) is killed with its session."""
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
        if cwd:
            os.chdir(cwd)
        os.execve(args[0], args, env)
    out = b""
    deadline = time.time() + limit
    while True:
        if not select.select([fd], [], [], max(0, deadline - time.time()))[0]:
            os.kill(pid, signal.SIGKILL)
            subprocess.run(["pkill", "-KILL", "-s", str(pid)])
            out += b"\n<no end after %d s: killed>" % limit
            break
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        out += data
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    text = out.decode("utf-8", "replace")
    return os.waitstatus_to_exitcode(status), text if raw else text.replace("\r\n", "\n")
