import glob
import os
import re


def check(ctx):
    me = dict(l.split() for l in ctx.record.stdout.splitlines())
    parent, child = me["parent"], me["child"]
    files = sorted(os.path.basename(f) for f in glob.glob(ctx.data + "/*.fnt"))
    assert files == sorted(["%s-0.fnt" % parent, "%s-0.fnt" % child, "%s-1.fnt" % child]), files
    info = ctx.run("info", check=True).stdout
    assert re.search(r"^processes: 3$", info, re.M), info
    assert re.search(r"^process %s \(parent %s\): .*/prog$" % (child, parent), info, re.M), info
    assert re.search(r"^process %s \(parent %s\) after exec: .*/prog2$" % (child, parent), info, re.M), info
    # each function ran in the process (= main thread) it belongs to
    where = {}
    for r in ctx.csv("--threads"):
        where.setdefault(r["function"], set()).add(r["tid"])
    assert where["in_parent"] == {parent} and where["spawn"] == {parent}, where
    assert where["in_child"] == {child} and where["become_second"] == {child}, where
    assert where["second_work"] == {child}, where
    assert where["main"] == {parent, child}, where
