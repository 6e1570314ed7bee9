import glob
import re


def check(ctx):
    files = glob.glob(ctx.data + "/*.fnt")
    assert len(files) == 2, files            # vfork and /bin/true leave none
    info = ctx.run("info", check=True).stdout
    procs = re.findall(r"^process (\d+) \(parent (\d+)\)", info, re.M)
    assert len(procs) == 2 and procs[1][1] == procs[0][0], procs
    per = {}
    for r in ctx.csv("--threads"):
        per.setdefault(r["tid"], {})[r["function"]] = int(r["calls"])
    assert per[procs[1][0]] == {"leaf": 2}, per          # the child: its pid is its tid
    assert per[procs[0][0]] == {"main": 1, "leaf": 1}, per
