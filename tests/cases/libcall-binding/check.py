import csv
import io
import os
import subprocess


def check(ctx):
    assert ctx.record.stdout == "a to three\n", ctx.record.stdout
    # the build really has no PLT call to qsort and a read-only GOT
    rel = subprocess.run(["readelf", "-rdW", ctx.work + "/prog"], capture_output=True, text=True).stdout
    assert "BIND_NOW" in rel or "FLAGS_1" in rel and "NOW" in rel, rel
    qsort_rel = [l for l in rel.splitlines() if " qsort" in l]
    assert qsort_rel and all("GLOB_DAT" in l for l in qsort_rel), qsort_rel
    counts = ctx.counts()
    assert counts.get("qsort") == 1 and counts.get("printf") == 1, counts
    assert counts.get("by_len", 0) >= 2 and counts.get("strlen") == 2 * counts["by_len"], counts
    # lazy binding: the same program with a PLT bound on first call
    # (-z lazy), recorded with LD_BIND_NOW unset: the runtime finds the
    # slots still pointing into the PLT and resolves them itself
    cc = {"gcc": "gcc", "clang": "clang"}[ctx.compiler]
    subprocess.run([cc, "-" + ctx.opt, "-g", "-finstrument-functions", "-Wl,-z,lazy", "-Wl,-z,norelro", "-o",
                    ctx.work + "/lazy", os.path.join(os.path.dirname(__file__), "prog.c")], check=True)
    rel = subprocess.run(["readelf", "-rdW", ctx.work + "/lazy"], capture_output=True, text=True).stdout
    assert "BIND_NOW" not in rel and any("JUMP_SLOT" in l and " qsort" in l for l in rel.splitlines()), rel
    lazy = ctx.work + "/lazy.data"
    env = dict(os.environ, FNTRACE_LIBCALL="1", LD_BIND_NOW="")
    ctx.run("record", "-d", lazy, "--", ctx.work + "/lazy", check=True, env=env)
    p = ctx.run("report", "--format", "csv", "-d", lazy, check=True)
    lazy_counts = {r["function"]: int(r["calls"]) for r in csv.DictReader(io.StringIO(p.stdout))}
    assert lazy_counts == counts, (lazy_counts, counts)
