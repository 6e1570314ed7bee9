import os
import re

# A hand-made vfork's child that returns from the function that cloned it
# (and goes on in main, on its parent's stack, until it exits) must leave
# the program as it is untraced: under -pg and patchable entries it used to
# come back through the return trampoline and abort the program ("shadow
# stack out of sync"; record exited 10, the parent seeing its child die).
# Each child is a process of its own with exactly its calls, the parent's
# calls are all there, nested as made, nothing lost, nothing unwound.  The
# first child's return from vfork_calls is in its trace under
# -finstrument-functions (its exit hook runs); under -pg/patchable the
# parent's frames have their real return addresses while a child runs on
# them, so that return is not seen.  The second child's only event is its
# return from vfork_bare, which every mode records.


def lines(ctx, d, *args):
    rep = ctx.run("replay", "-d", d, *args, check=True)
    return [l.split("| ", 1)[1] for l in rep.stdout.splitlines() if "| " in l and not l.startswith("#")]


def check_trace(ctx, d, out, err, what):
    assert out == "3000 1000\n", (what, out, err)
    m = re.search(r"^pids (\d+) (\d+)$", err, re.M)
    assert m, (what, err)
    a, b = m.group(1), m.group(2)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert re.search(r"^processes: 3$", info, re.M), (what, info)
    assert re.search(r"^lost: 0$", info, re.M), (what, info)
    assert "missing" not in info and "damage" not in info, (what, info)
    for pid in (a, b):
        assert re.search(r"^process %s \(parent \d+\):" % pid, info, re.M), (what, pid, info)
    rows = {}
    for r in ctx.csv("-d", d, "--threads"):
        rows[(r["tid"], r["function"])] = int(r["calls"])
    parent = [t for (t, f) in rows if f == "in_parent"]
    assert len(parent) == 1, (what, rows)
    p = parent[0]
    assert rows == {(p, "main"): 1, (p, "in_parent"): 3000, (p, "vfork_calls"): 1, (p, "vfork_bare"): 1,
                    (p, "reaped"): 2, (a, "in_child"): 1000}, (what, rows)
    got = lines(ctx, d, "--tid", p)
    assert got == (["main() {"] + ["  in_parent();"] * 1000 + ["  vfork_calls();", "  reaped();"] +
                   ["  in_parent();"] * 1000 + ["  vfork_bare();", "  reaped();"] +
                   ["  in_parent();"] * 1000 + ["} /* main */"]), (what, got[:3], got[998:1006], got[-3:])
    assert "unwound" not in "\n".join(lines(ctx, d)), what
    got = lines(ctx, d, "--tid", a)
    tail = ["  } /* vfork_calls (entered before this process began) */"] if what == "prog" else []
    assert got == ["    in_child();"] * 1000 + tail, (what, got[:2], got[-2:])
    got = lines(ctx, d, "--tid", b)
    assert got == ["  } /* vfork_bare (entered before this process began) */"], (what, got)


def check(ctx):
    check_trace(ctx, ctx.data, ctx.record.stdout, ctx.record.stderr, "prog")
    for prog in ("prog-fentry", "prog-patchable"):
        d, r = ctx.record_build(prog, "3000 1000\n")
        check_trace(ctx, d, r.stdout, r.stderr, prog)
    # the vfork reached by two tail calls (-O2: vfork_tail2 jumps to
    # vfork_tail, which jumps to vfork_bare; the three frames have one
    # return slot): the child returns through that slot to main.  Before,
    # the return trampoline gave the child vfork_bare's return address,
    # which is the trampoline itself (a tail call's), and the child ran it
    # again and was aborted ("shadow stack out of sync"); and the walk that
    # gave the parent's frames their real return addresses back took
    # vfork_tail2's entry for a dead frame's (its slot not above
    # vfork_tail's), and left the trampoline in the slot.  (Not the
    # -finstrument-functions build: there vfork_tail's exit hook is a call,
    # made by the child on its parent's stack, which breaks the program
    # untraced as well)
    for prog in ("prog-fentry", "prog-patchable"):
        d = os.path.join(ctx.work, "tail-" + prog)
        r = ctx.run("record", "-q", "-d", d, "--", os.path.join(ctx.work, prog), "tail", data=False)
        assert r.returncode == 0 and r.stdout == "tail ok\n", (prog, r.returncode, r.stdout, r.stderr)
        info = ctx.run("info", "-d", d, check=True).stdout
        assert re.search(r"^processes: 2$", info, re.M) and re.search(r"^lost: 0$", info, re.M), (prog, info)
        rows = {(r["function"]): int(r["calls"]) for r in ctx.csv("-d", d)}
        assert {f: rows.get(f) for f in ("main", "vfork_tail2", "vfork_tail", "vfork_bare", "reaped")} == \
            {"main": 1, "vfork_tail2": 1, "vfork_tail": 1, "vfork_bare": 1, "reaped": 1}, (prog, rows)
