"""A forked child whose trace path names another directory (the program
entered a mount namespace with its own tmpfs there, or a chroot) writes
nothing there, and `info` lists it as untraced with that reason.  Before:
the child's file went into the private tmpfs and info said "processes: 1",
"lost: 0" and nothing else; and a child forked after a chroot was said to
be "forked after the user changed"."""
import os
import re
import subprocess

REASON = "forked where the path of the trace directory names another directory (a mount namespace or chroot)"


def check(ctx):
    if os.geteuid() != 0:
        raise Skip("needs root for a mount namespace and a chroot")
    w = ctx.work
    prog = os.path.join(w, "prog")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        raise Skip("no mount namespaces here")
    for how in ("ns", "chroot"):
        parent = os.path.join(w, how)
        os.mkdir(parent)
        d = os.path.join(parent, "trace.data")
        args = ["ns", parent, d] if how == "ns" else ["chroot", os.path.join(w, "jail")]
        if how == "chroot":
            os.mkdir(os.path.join(w, "jail"))
        p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "--", prog, *args], capture_output=True,
                           text=True, cwd=w, timeout=60)
        assert p.returncode == 0 and p.stdout == "done\n", (how, p.returncode, p.stdout, p.stderr)
        info = ctx.run("info", "-d", d, data=False, check=True).stdout
        assert "processes: 1" in info, (how, info)
        assert "untraced: 1 process started by the program" in info, (how, info)
        m = re.search(r"untraced child \d+: (.*) '(.*)'", info)
        assert m and m.group(1).startswith(REASON) and m.group(2) == d, (how, info)
        assert "forked after the user changed" not in info, info
