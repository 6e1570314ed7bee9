import csv, io, os, subprocess


def counts(ctx, *record_args):
    d = os.path.join(ctx.work, "rec-%d" % abs(hash(record_args)))
    p = subprocess.run([ctx.fntrace, "record", "-d", d, *record_args, "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.returncode == 0, p.stderr
    out = ctx.run("report", "-d", d, "--format", "csv", check=True).stdout
    return {r["function"]: int(r["calls"]) for r in csv.DictReader(io.StringIO(out))}


def check(ctx):
    assert counts(ctx, "-F", "geo::*") == {"geo::area": 1, "geo::Shape::perim": 1}
    assert counts(ctx, "-N", "geo::area(int)") == {"main": 1, "other": 1, "geo::Shape::perim": 1}
    assert counts(ctx, "-N", "geo::Shape::perim") == {"main": 1, "other": 1, "geo::area": 1}
    assert counts(ctx, "-F", "other", "-N", "geo::*") == {"other": 1}
    # the same globs at read time
    assert ctx.counts("-F", "geo::*") == {"geo::area": 1, "geo::Shape::perim": 1}
