"""record -C FUNC erases a call that led to no FUNC call when it returns;
the frames a longjmp leaves never return, and they stayed: `record -C
target` kept main -> run -> skipped_test -> bail (and longjmp, a library
call) for each jump out of a test that never called target, which `replay
-C target` of the full trace leaves out.  The jump now erases them as their
returns would have.  A jump out of frames that did lead to target keeps
them (bad_after_target).  The same for record -t: a frame the jump leaves
after less than the threshold is erased, as replay -t leaves it out, and
so is a time= trigger's call shorter than its time=."""
import os
import subprocess


def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    want = {"main": 1, "run": 6, "good_test": 3, "bad_after_target": 3, "target": 6}
    # read time, from the full trace
    assert ctx.counts("-C", "target") == want, ctx.counts("-C", "target")
    for libcall in ("0", "1"):
        env = dict(os.environ, FNTRACE_LIBCALL=libcall)
        d = os.path.join(ctx.work, "c%s.data" % libcall)
        p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "-C", "target", "--", prog], capture_output=True,
                           text=True, cwd=ctx.work, env=env)
        assert p.returncode == 0 and p.stdout == "18\n", p
        got = ctx.counts("-d", d)
        assert got == want, (libcall, got)
        # and the full trace of the same run mode read with -C agrees
        full = os.path.join(ctx.work, "f%s.data" % libcall)
        subprocess.run([ctx.fntrace, "record", "-q", "-d", full, "--", prog], capture_output=True, text=True,
                       cwd=ctx.work, env=env, check=True)
        assert ctx.counts("-d", full, "-C", "target") == want, libcall
        # the kept bad_after_target frames still close as unwound
        rep = ctx.run("replay", "-d", d, check=True).stdout
        assert rep.count("} /* bad_after_target (no return: unwound) */") == 3, rep
        assert "skipped_test" not in rep and "bail" not in rep, rep

    # record -t: the frames a jump leaves after less than the threshold go
    # too (they stayed, with their microseconds, where replay -t drops them)
    d = os.path.join(ctx.work, "t.data")
    p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "-t", "1s", "--", prog], capture_output=True,
                       text=True, cwd=ctx.work)
    assert p.returncode == 0 and p.stdout == "18\n", p
    r = ctx.run("report", "-d", d)
    assert r.returncode == 1 and "no function events were recorded" in r.stderr, (r.stdout, r.stderr)
    r = ctx.run("report", "-d", os.path.join(ctx.work, "f0.data"), "-t", "1s")
    assert r.stdout.count("\n") == 2, (r.stdout, r.stderr)    # the header alone

    # a time= trigger on a function the jump leaves: erased when shorter
    # than its time= up to the jump, as replay -T keeps it out
    d = os.path.join(ctx.work, "trig.data")
    p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "-T", "skipped_test@time=1s", "--", prog],
                       capture_output=True, text=True, cwd=ctx.work)
    assert p.returncode == 0 and p.stdout == "18\n", p
    got = ctx.counts("-d", d)
    assert "skipped_test" not in got and got.get("bail") == 3 and got.get("run") == 9, got
    assert got == ctx.counts("-d", os.path.join(ctx.work, "f0.data"), "-T", "skipped_test@time=1s"), got
