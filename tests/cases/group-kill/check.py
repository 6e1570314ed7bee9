"""`fntrace record` killed together with its program (a SIGKILL to the
whole process group: timeout -s KILL, kill(0, ...), a service manager).
record copies the program's chunks out of its ring: the chunks the program
was still writing are never written, and their events are lost.  Found by
an adversarial review: the trace then said "lost: 0" and nothing else.
Now every view warns, naming the chunks, and info counts them; with
--no-drain (no ring) nothing is lost, and nothing is said."""
import os
import re
import subprocess

CALLS = 1000000


def record(ctx, d, *opts):
    p = subprocess.run([ctx.fntrace, "record", "-q", *opts, "-d", d, "--", os.path.join(ctx.work, "prog"),
                        str(CALLS)], capture_output=True, text=True, cwd=ctx.work, timeout=120,
                       start_new_session=True)
    assert p.returncode == -9 and p.stdout == "made %d calls\n" % CALLS, (p.returncode, p.stdout, p.stderr)


def check(ctx):
    d = os.path.join(ctx.work, "ring.data")
    record(ctx, d)
    info = ctx.run("info", "-d", d, check=True)
    warn = re.findall(r"^fntrace: warning: '.*\.fnt': (\d+) chunks? of 256 KiB handed out to the program (?:is|are) "
                      r"not in the file: fntrace record did not finish \(killed along with the program, as a kill "
                      r"of the whole process group does\), and the events the program wrote in (?:it|them) are "
                      r"lost$", info.stderr, re.M)
    assert len(warn) == 1 and int(warn[0]) >= 1, info.stderr
    assert "status: unknown (fntrace record itself did not finish)\n" in info.stdout, info.stdout
    assert re.search(r"^lost: 0, and the events of %s chunks? never written$" % warn[0], info.stdout, re.M), \
        info.stdout
    rep = ctx.run("report", "-d", d, "--format", "csv")
    assert rep.returncode == 0 and rep.stderr.count("handed out to the program") == 1, rep.stderr
    leaf = [int(r.split(",")[1]) for r in rep.stdout.splitlines() if r.startswith("leaf,")]
    assert leaf and 0 < leaf[0] < CALLS, leaf    # the last chunk's calls are gone

    # without the ring the program writes its file itself: nothing lost
    d = os.path.join(ctx.work, "file.data")
    record(ctx, d, "--no-drain")
    info = ctx.run("info", "-d", d, check=True)
    assert "handed out" not in info.stderr and re.search(r"^lost: 0$", info.stdout, re.M), (info.stderr, info.stdout)
    got = ctx.counts("-d", d)
    assert got.get("leaf") == CALLS, (got, info.stdout, info.stderr)
