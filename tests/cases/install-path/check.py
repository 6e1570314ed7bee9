import os
import subprocess


def check(ctx):
    w = ctx.work
    built = os.path.dirname(ctx.fntrace)
    tmp = os.path.join(w, "tmp")
    os.makedirs(tmp)
    for name in ("my tools", "v1:2", "a b:c"):
        inst = os.path.join(w, name, "bin")
        os.makedirs(inst)
        # copied by cp, not by this process: the harness runs cases in
        # threads, and a thread that forks while this one holds the new
        # file open for writing gives its child that descriptor until its
        # exec; running the copy then fails with ETXTBSY (seen once, with
        # two CPU hogs beside the suite)
        subprocess.run(["cp", "-p", ctx.fntrace, os.path.join(built, "libfntrace.so"), inst], check=True)
        d = os.path.join(w, name + ".data")
        env = dict(os.environ, TMPDIR=tmp)
        env.pop("FNTRACE_LIBRARY", None)
        p = subprocess.run([os.path.join(inst, "fntrace"), "record", "-q", "-d", d, "--", os.path.join(w, "prog")],
                           capture_output=True, text=True, cwd=w, env=env, timeout=120)
        assert p.returncode == 0 and p.stdout == "12\n", (name, p)
        assert p.stderr == "", (name, p.stderr)
        assert ctx.counts("-d", d) == {"main": 1, "twice": 4}, name
        # the private link it preloaded through is gone
        assert os.listdir(tmp) == [], os.listdir(tmp)

    # a $TMPDIR that another user may change (theirs): the link's directory
    # goes in /tmp, or they could swap it for one that preloads their
    # library, as this user (found by an adversarial review)
    if os.geteuid() == 0:
        theirs = os.path.join(w, "theirs")
        os.makedirs(theirs)
        os.chown(theirs, 65534, 65534)
        inst = os.path.join(w, "my tools", "bin")
        env = dict(os.environ, TMPDIR=theirs)
        env.pop("FNTRACE_LIBRARY", None)
        p = subprocess.run([os.path.join(inst, "fntrace"), "record", "-q", "-d", os.path.join(w, "theirs.data"), "--",
                            "/bin/sh", "-c", 'printf "%s\n" "$LD_PRELOAD"'],
                           capture_output=True, text=True, cwd=w, env=env, timeout=120)
        assert p.returncode == 0 and p.stdout.startswith("/tmp/fntrace-preload-"), p
        assert os.listdir(theirs) == [], os.listdir(theirs)
