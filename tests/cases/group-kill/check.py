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


WARN = re.compile(r"^fntrace: warning: '.*\.fnt': (\d+) chunks? of 256 KiB handed out to the program (?:is|are) "
                  r"not in the file: fntrace record did not finish \(killed along with the program, as a kill of "
                  r"the whole process group does\), and the events the program wrote in (?:it|them) are lost$", re.M)


def one_kill(ctx, d):
    """1 if the kill lost events (and the trace says so), 0 if not (record
    outlived the program by enough to copy its last slots: nothing lost,
    nothing said)"""
    record(ctx, d)
    info = ctx.run("info", "-d", d, check=True)
    assert "status: unknown (fntrace record itself did not finish)\n" in info.stdout, info.stdout
    rep = ctx.run("report", "-d", d, "--format", "csv")
    leaf = [int(r.split(",")[1]) for r in rep.stdout.splitlines() if r.startswith("leaf,")]
    warn = WARN.findall(info.stderr)
    if not warn:
        assert leaf == [CALLS] and info.stderr == "" and rep.stderr == "", (leaf, info.stderr, rep.stderr)
        assert re.search(r"^lost: 0$", info.stdout, re.M), info.stdout
        return 0
    assert len(warn) == 1 and int(warn[0]) >= 1, info.stderr
    assert re.search(r"^lost: 0, and the events of %s chunks? never written$" % warn[0], info.stdout, re.M), \
        info.stdout
    assert rep.returncode == 0 and len(WARN.findall(rep.stderr)) == 1, rep.stderr
    # the calls in those chunks are gone (none, if the only chunk lost was
    # one just begun)
    assert leaf and 0 < leaf[0] <= CALLS, leaf
    return 1


def check(ctx):
    # the group's members die in some order: usually the program's last
    # slots go with it (every run of the review's and mine); a record that
    # outlives it copies them.  Either way the trace must say what it holds
    lossy = 0
    for i in range(6):
        lossy += one_kill(ctx, os.path.join(ctx.work, "ring%d.data" % i))
        if lossy:
            break
    assert lossy, "6 group kills, and record copied every slot each time"

    # without the ring the program writes its file itself: nothing lost
    d = os.path.join(ctx.work, "file.data")
    record(ctx, d, "--no-drain")
    info = ctx.run("info", "-d", d, check=True)
    assert "handed out" not in info.stderr and re.search(r"^lost: 0$", info.stdout, re.M), (info.stderr, info.stdout)
    got = ctx.counts("-d", d)
    assert got.get("leaf") == CALLS, (got, info.stdout, info.stderr)
