"""Runs of a program linked with -lfntrace (no `fntrace record`) at the same
time, into the default ./fntrace.data (issue 11, item 27): each run holds the
directory for as long as it records, its forked children and exec'd images
with it, so a run that starts meanwhile records into it beside them instead
of moving it to fntrace.data.old (three runs at once used to lose the first
one's trace: the second moved it to .old, the third removed that .old).  Only
a run that starts when no one holds it moves the earlier trace away.
`fntrace record` refuses the directory while such a run holds it, and such a
run does not record into a directory a running record holds."""
import os
import re
import subprocess
import time


def procs(ctx, d="fntrace.data"):
    path = os.path.join(ctx.work, d)
    return sorted(f for f in os.listdir(path) if f.endswith(".fnt")) if os.path.isdir(path) else []


def start(ctx, mode, env):
    p = subprocess.Popen([os.path.join(ctx.work, "prog"), mode], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=ctx.work, env=env)
    assert p.stdout.readline() == "ready\n", p.stderr.read()
    return p


def finish(p):
    out, err = p.communicate("go\n", timeout=120)
    assert p.returncode == 0 and out == "" and err == "", (p.returncode, out, err)


def ended(ctx):
    info = ctx.run("info", "-d", os.path.join(ctx.work, "fntrace.data"), check=True).stdout
    return len(re.findall(r"^  ended: exited normally$", info, re.M))


def counts(ctx, d="fntrace.data"):
    return ctx.counts("-d", os.path.join(ctx.work, d))


def check(ctx):
    env = dict(os.environ)
    for k in ("LD_PRELOAD", "FNTRACE_DIR"):
        env.pop(k, None)
    # three at once: all three in one directory, nothing moved
    runs = [start(ctx, "wait", env) for _ in range(3)]
    assert len(procs(ctx)) == 3 and not procs(ctx, "fntrace.data.old"), (procs(ctx), procs(ctx, "fntrace.data.old"))
    for p in runs:
        finish(p)
    assert counts(ctx) == {"main": 3, "step": 9}, counts(ctx)
    assert not os.path.exists(os.path.join(ctx.work, "fntrace.data.old"))
    three = procs(ctx)

    # a forked child that outlives its parent holds it too: the next run
    # joins; the run after them moves the whole trace to .old
    parent = subprocess.Popen([os.path.join(ctx.work, "prog"), "fork-wait"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=ctx.work, env=env)
    # two lines: the parent's, and the child's once its own trace is under
    # way (reading one, the child could still be starting after the parent
    # had gone: its file not there yet)
    assert [parent.stdout.readline(), parent.stdout.readline()] == ["ready\n", "ready\n"]
    assert parent.wait(timeout=120) == 0 and procs(ctx, "fntrace.data.old") == three, procs(ctx, "fntrace.data.old")
    child_started = procs(ctx)
    assert len(child_started) == 2, child_started    # (the parent's file and the child's)
    alone = subprocess.run([os.path.join(ctx.work, "prog")], cwd=ctx.work, env=env, capture_output=True, text=True,
                           timeout=120)
    assert alone.returncode == 0 and alone.stderr == "", alone
    assert len(procs(ctx)) == 3 and procs(ctx, "fntrace.data.old") == three, (procs(ctx), procs(ctx, "fntrace.data.old"))
    # ... and `fntrace record` into it is refused, naming the first run
    rec = ctx.run("record", "-q", "-d", "fntrace.data", "--", os.path.join(ctx.work, "prog"), data=False)
    holder = int(open(os.path.join(ctx.work, "fntrace.data", ".lock")).read())
    assert rec.returncode == 1 and rec.stderr == (
        "fntrace: 'fntrace.data' is in use by a running program linked with -lfntrace that records into it "
        "(pid %d); wait for it to end or choose another directory with -d\n" % holder), rec
    parent.stdin.write("go\n")
    parent.stdin.close()
    # the child has exited when its file is marked so (it is not ours to wait for)
    deadline = time.time() + 120
    while ended(ctx) < 3 and time.time() < deadline:
        time.sleep(0.05)
    assert counts(ctx) == {"main": 2, "step": 6}, counts(ctx)       # (the child made no entry into main)
    joined = procs(ctx)

    # an exec'd image keeps holding it: a run meanwhile joins
    ex = start(ctx, "exec-wait", env)
    assert procs(ctx, "fntrace.data.old") == joined, procs(ctx, "fntrace.data.old")
    alone = subprocess.run([os.path.join(ctx.work, "prog")], cwd=ctx.work, env=env, timeout=120)
    assert alone.returncode == 0
    finish(ex)
    assert procs(ctx, "fntrace.data.old") == joined, procs(ctx, "fntrace.data.old")
    assert counts(ctx) == {"main": 3, "step": 6}, counts(ctx)   # (main: both images, and the run meanwhile)

    # while a record holds the directory, a run records nothing and moves nothing
    rec = subprocess.Popen([ctx.fntrace, "record", "-q", "-d", "fntrace.data", "--",
                            os.path.join(ctx.work, "prog"), "wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, cwd=ctx.work, env=env)
    assert rec.stdout.readline() == "ready\n"
    recorded = procs(ctx)
    alone = subprocess.run([os.path.join(ctx.work, "prog")], cwd=ctx.work, env=env, capture_output=True, text=True,
                           timeout=120)
    assert alone.returncode == 0 and "a running 'fntrace record' holds it; not recording" in alone.stderr, alone
    assert procs(ctx) == recorded
    finish(rec)
    assert counts(ctx) == {"main": 1, "step": 3}, counts(ctx)
