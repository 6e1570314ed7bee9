"""A trace path that someone else could redirect is refused, with one line
naming the component and why: a directory of another user on the way, a
symbolic link another user planted (in a sticky directory like /tmp), a
directory others can write without the sticky bit.  Before, only the trace
directory itself was checked: another user who owns a directory on the
path swapped the trace directory for a symlink while the program ran, and
the runtime (a child forked later) and record's end-of-run steps wrote the
trace and its symbol tables into a directory of the attacker's choosing."""
import os
import shutil
import subprocess
import time

OTHER = 65534   # nobody: a user other than the one who records (root here)


def check(ctx):
    if os.geteuid() != 0:
        raise Skip("needs root, to give a directory to another user")
    w = ctx.work
    prog = os.path.join(w, "prog")

    def record(d, *args):
        return subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "--", prog, *args], capture_output=True,
                              text=True, cwd=w, timeout=60)

    def refused(p, comp, why):
        assert p.returncode == 1, (p.returncode, p.stderr)
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and ("'%s' on its path is not safe: %s" % (comp, why)) in lines[0], p.stderr

    # the race: another user's directory on the path, the trace directory
    # swapped for a link to a private directory while the program sleeps
    evil = os.path.join(w, "evil")
    victim = os.path.join(w, "victim")
    os.mkdir(evil)
    os.chown(evil, OTHER, OTHER)
    os.mkdir(victim, 0o700)
    tr = os.path.join(evil, "tr")
    p = subprocess.Popen([ctx.fntrace, "record", "-q", "-d", tr, "--", prog, "2"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=w)
    time.sleep(1)
    if os.path.isdir(tr):
        subprocess.run(["setpriv", "--reuid=%d" % OTHER, "--regid=%d" % OTHER, "--clear-groups", "sh", "-c",
                        'mv "$1" "$1.moved" && ln -s "$2" "$1"', "sh", tr, victim], check=True)
    out, err = p.communicate(timeout=60)
    assert os.listdir(victim) == [], ("written into the victim", os.listdir(victim), err)
    assert p.returncode == 1 and "'%s' on its path is not safe: it belongs to another user" % evil in err, \
        (p.returncode, err)
    assert not os.path.exists(tr), os.listdir(evil)

    # a symbolic link another user planted in a sticky directory
    sticky = os.path.join(w, "sticky")
    os.mkdir(sticky)
    os.chmod(sticky, 0o1777)
    target = os.path.join(w, "target")
    os.mkdir(target, 0o700)
    link = os.path.join(sticky, "evlink")
    os.symlink(target, link)
    os.lchown(link, OTHER, OTHER)
    refused(record(os.path.join(link, "x")), link, "it is a symbolic link that belongs to another user")
    assert os.listdir(target) == []
    # a directory others may write, without the sticky bit
    ww = os.path.join(w, "open")
    os.mkdir(ww)
    os.chmod(ww, 0o777)
    refused(record(os.path.join(ww, "sub", "tr")), ww, "it is writable by other users and not sticky")
    assert os.listdir(ww) == []
    # a directory its group may write: refused for a shared group (users),
    # fine for the user's private group (umask 002, as on Ubuntu): the
    # record and the program linked with the runtime alone
    gw = os.path.join(w, "groupw")
    os.mkdir(gw)
    os.chown(gw, 0, 100)
    os.chmod(gw, 0o775)
    refused(record(os.path.join(gw, "tr")), gw, "it is writable by its group (not your private group) and not sticky")
    private = os.path.join(w, "private-gw")
    os.mkdir(private)
    os.chown(private, 0, 0)            # root's own group: named root, no other member
    os.chmod(private, 0o775)
    p = record(os.path.join(private, "tr"))
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert ctx.counts("-d", os.path.join(private, "tr")), "nothing recorded under a private group's directory"
    # the trace directory itself may be group-writable for that group too
    mine = os.path.join(private, "existing")
    os.mkdir(mine)
    os.chmod(mine, 0o775)
    p = record(mine)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    os.chown(mine, 0, 100)
    p = record(mine)
    assert p.returncode == 1 and "is writable by other users, who could plant files in it" in p.stderr, p.stderr
    # what is fine: a sticky directory like /tmp, a link of one's own
    p = record(os.path.join(sticky, "mine"))
    assert p.returncode == 0, p.stderr
    os.symlink(sticky, os.path.join(w, "mylink"))
    p = record(os.path.join(w, "mylink", "mine2"))
    assert p.returncode == 0, p.stderr
    assert os.path.isdir(os.path.join(sticky, "mine2"))

    # the runtime alone (the program links it) refuses the same path
    env = dict(os.environ, FNTRACE_DIR=os.path.join(evil, "linked"))
    r = subprocess.run([prog], capture_output=True, text=True, cwd=w, env=env, timeout=60)
    assert r.returncode == 0, r
    assert "cannot create a trace file in" in r.stderr and "not recording" in r.stderr, r.stderr
    assert os.listdir(evil) == [], os.listdir(evil)
    shutil.rmtree(evil)
    # ...and takes the private group's directory, from /etc (no record to say)
    env = dict(os.environ, FNTRACE_DIR=os.path.join(private, "linked"))
    env.pop("FNTRACE_USER_GROUP", None)
    r = subprocess.run([prog], capture_output=True, text=True, cwd=w, env=env, timeout=60)
    assert r.returncode == 0 and "not recording" not in r.stderr, r.stderr
    assert [f for f in os.listdir(os.path.join(private, "linked")) if f.endswith(".fnt")], r.stderr
