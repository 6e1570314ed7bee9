import re


def tree(out):
    """graph's rows as (path, calls)"""
    rows, stack = [], []
    for l in out.splitlines():
        m = re.match(r"^ +\S+ +\S+ +\S+ +\S+ +(\d+)  (.*)$", l)
        if m:
            name = m.group(2).lstrip("|+- ")
            depth = (len(m.group(2)) - len(name) + 1) // 3
            del stack[depth:]
            stack.append(name)
            rows.append((";".join(stack), int(m.group(1))))
    return rows


def mine(rows):
    """the program's own functions (not libc's: fork, waitpid, _exit)"""
    own = ("main", "spawn", "child_work", "leaf")
    return sorted((p, c) for p, c in rows if all(n in own for n in p.split(";")))


def check(ctx):
    g = tree(ctx.run("graph", "--no-pager", check=True).stdout)
    assert mine(g) == [("main", 1), ("main;leaf", 1), ("main;spawn", 1), ("main;spawn;child_work", 1),
                       ("main;spawn;child_work;leaf", 3)], g
    g = tree(ctx.run("graph", "--no-pager", "spawn", check=True).stdout)
    assert mine(g) == [("spawn", 1), ("spawn;child_work", 1), ("spawn;child_work;leaf", 3)], g
    g = tree(ctx.run("graph", "--no-pager", "-F", "spawn", check=True).stdout)
    assert mine(g) == [("spawn", 1), ("spawn;child_work", 1), ("spawn;child_work;leaf", 3)], g
    g = tree(ctx.run("graph", "--no-pager", "--callers", "leaf", check=True).stdout)
    assert mine(g) == [("leaf", 4), ("leaf;child_work", 3), ("leaf;child_work;spawn", 3),
                       ("leaf;child_work;spawn;main", 3), ("leaf;main", 1)], g
    p = ctx.work + "/out.folded"
    ctx.run("export", "-f", "folded", "-o", p, check=True)
    paths = sorted(l.rsplit(" ", 1)[0] for l in open(p).read().splitlines())
    assert [q for q in paths if "child_work" in q] == ["main;spawn;child_work", "main;spawn;child_work;leaf"], paths
    assert not [q for q in paths if q.startswith("child_work") or q.startswith("fork")], paths
    # FUNC hidden by -H: the error says the filters did it
    p = ctx.run("graph", "--no-pager", "-H", "spawn", "spawn")
    assert p.returncode == 1 and "no function matching 'spawn' was called in" in p.stderr and \
        "with these filters" in p.stderr, p.stderr
