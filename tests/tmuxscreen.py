"""A program on a real terminal, driven as a user would: tmux runs it in a
pane of a given size, send-keys types, capture-pane reads the screen.  Each
instance has its own tmux server (a socket in a fresh directory)."""
import os
import re
import shutil
import subprocess
import tempfile
import time


SGR = re.compile(r"\033\[([0-9;]*)m")


def normalise(raw):
    """a line of capture-pane -e: '>' before a line that starts in reverse
    video (the selected line, the current tab), colours and attributes
    dropped, durations -> D, thread ids -> T, trailing blanks dropped"""
    lead = re.match(r"(?:\033\[[0-9;]*m)*", raw).group(0)
    selected = any("7" in m.split(";") for m in SGR.findall(lead))
    line = (">" if selected else "") + SGR.sub("", raw)
    line = re.sub(r" *\d+\.\d{3} (?:us|ms| s)", " D", line)
    return re.sub(r"tid \d+", "tid T", line).rstrip()


class Screen:
    def __init__(self, argv, width, height, env=None, cwd=None):
        self.dir = tempfile.mkdtemp(prefix="fnt-tmux-")
        self.sock = os.path.join(self.dir, "sock")
        self.env = {k: v for k, v in (env or os.environ).items() if k not in ("LD_PRELOAD", "TMUX")}
        cmd = " ".join("'%s'" % a.replace("'", "'\\''") for a in argv)
        if cwd:
            cmd = "cd '%s' && %s" % (cwd, cmd)
        # the exit status stays on the screen after the program ends
        self.tmux("-f", "/dev/null", "new-session", "-d", "-x", str(width), "-y", str(height),
                  "%s; echo \"exit status $?\"; sleep 120" % cmd)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.sock] + list(args), env=self.env, check=True,
                              capture_output=True, text=True).stdout

    def keys(self, *keys):
        self.tmux("send-keys", *keys)

    def text(self, *chars):
        """bytes as typed, tmux does not read them as key names (mouse reports)"""
        self.tmux("send-keys", "-l", "".join(chars))

    def raw_lines(self):
        """the screen's lines with their colours and attributes (SGR sequences)"""
        return self.tmux("capture-pane", "-p", "-e").split("\n")

    def lines(self):
        self.last_raw = self.raw_lines()     # what the last look saw, for a failure's message
        return [normalise(l) for l in self.last_raw]

    def wait(self, want, timeout=30):
        """the screen (normalised lines, trailing empty ones dropped) once a
        line contains `want` (a string) or want(lines) is true"""
        end = time.time() + timeout
        while True:
            lines = self.lines()
            if want(lines) if callable(want) else any(want in l for l in lines):
                while lines and not lines[-1]:
                    lines.pop()
                return lines
            if time.time() > end:
                raise AssertionError("waited %d s for %r on the screen:\n%s" % (timeout, want, "\n".join(lines)))
            time.sleep(0.05)

    def resize(self, width, height):
        self.tmux("resize-window", "-x", str(width), "-y", str(height))

    def close(self):
        subprocess.run(["tmux", "-S", self.sock, "kill-server"], env=self.env, capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)
