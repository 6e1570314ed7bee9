"""Two programs that run at once, each as pid 1 of its own pid namespace
(`unshare --pid --fork`, as container runtimes and sandboxes start them),
under one `fntrace record` whose first process (a shell) records nothing.
The first of them takes record's drained ring; the second, started by a
shell that had the ring's descriptor before that, found the ring's owner at
its own pid, took itself for the owner's next image (after exec) and told
record that the owner's slots were final while it still wrote them: record
copied and freed half-written chunks, and about a fifth of the first
program's calls were missing ("85 buffer chunk(s) are missing", "lost: 0").
The owner is now a pid in a pid namespace, and each file names its
namespace (header pid_ns), so that the reader also pairs each image with
the next one of its own process."""
import os
import re
import subprocess

N_A, N_B = 4000000, 300000
SH = os.path.basename(os.path.realpath("/bin/sh"))


def check(ctx):
    if os.geteuid() != 0:
        raise Skip("needs root for pid namespaces")
    if subprocess.run(["unshare", "--pid", "--fork", "true"], capture_output=True).returncode != 0:
        raise Skip("no pid namespaces here")
    w = ctx.work
    d = os.path.join(w, "ns.data")
    # b's shell has the ring's descriptor before a takes the ring; b
    # starts (exec) while a writes into it
    script = ('unshare --pid --fork sh -c "sleep 0.2; exec ./prog b %d" & unshare --pid --fork ./prog a %d & wait'
              % (N_B, N_A))
    for attempt in range(2):     # (twice: the timing varies)
        p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "--", "sh", "-c", script], capture_output=True,
                           text=True, cwd=w, timeout=120)
        assert p.returncode == 0 and sorted(p.stdout.split("\n")) == ["", "done a", "done b"], (p.stdout, p.stderr)
        info = ctx.run("info", "-d", d, data=False)
        assert info.returncode == 0 and info.stderr == "", info.stderr
        assert "damage" not in info.stdout, ("damage", info.stdout)
        # each unshare child (pid 1) is followed by its own program image
        procs = re.findall(r"^process (\d+) \(parent (\d+)\)( after exec)?: (\S+)", info.stdout, re.M)
        ones = [(x[2], os.path.basename(x[3])) for x in procs if x[0] == "1"]
        assert sorted(ones) == [("", "unshare"), ("", "unshare"), (" after exec", SH), (" after exec", "prog"),
                                (" after exec", "prog")], ("images", ones, info.stdout)
        # and the images before them ended in exec: two unshare, one shell
        # (and the two children of the first shell, which ran unshare)
        assert info.stdout.count("ended: replaced by exec") == 5, ("exec", info.stdout)
        argv = re.findall(r"^process 1 \(parent 0\) after exec: \S+\n  file: \S+\n  argv: (.*)$", info.stdout, re.M)
        assert sorted(argv) == ["./prog a %d" % N_A, "./prog b %d" % N_B, "sh -c sleep 0.2; exec ./prog b %d" % N_B], \
            ("argv", argv, info.stdout)
        # every call of both, none damaged or lost
        rep = ctx.run("report", "-d", d, "-f", "csv", data=False)
        assert rep.returncode == 0 and rep.stderr == "", rep.stderr
        calls = {}
        for line in rep.stdout.splitlines()[1:]:
            f = line.split(",")
            calls[f[0]] = f
        head = rep.stdout.splitlines()[0].split(",")
        col = head.index("calls")
        got = {k: int(v[col]) for k, v in calls.items() if k in ("work_a", "work_b", "leaf")}
        assert got == {"work_a": N_A, "work_b": N_B, "leaf": 2 * (N_A + N_B)}, (got, rep.stdout[:2000])
        subprocess.run(["rm", "-rf", d])
