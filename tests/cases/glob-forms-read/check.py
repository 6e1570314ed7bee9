"""replay's -F/-N/-H/-C/-T globs match a C++ function in every form that
record's do (runtime/filter.c): 'geo::twice' (no template arguments, as
uftrace names it) keeps geo::twice<int> and geo::twice<double>, at record
time and at read time alike."""
import re


def calls(out):
    return [re.sub(r"^.*?\| ", "", l).strip() for l in out.splitlines() if "|" in l and "FUNCTION" not in l]


TWICE = ["geo::twice<int>();", "geo::twice<double>();"]


def check(ctx):
    assert ctx.record.stdout == "18\n", ctx.record.stdout
    prog = ctx.work + "/prog"
    cases = [
        (["-F", "geo::twice"], TWICE),
        (["-F", "geo::Box::area"], ["geo::Box<int>::area();", "geo::Box<double>::area();"]),
        (["-F", "_ZN3geo5twiceIiEET_S1_"], ["geo::twice<int>();"]),
        (["-F", "geo::twice<double>"], ["geo::twice<double>();"]),
        (["-N", "geo::twice", "-F", "run"],
         ["run() {", "geo::Box<int>::area();", "geo::Box<double>::area();", "} /* run */"]),
        (["-H", "geo::twice", "-F", "run"],
         ["run() {", "geo::Box<int>::area();", "geo::Box<double>::area();", "} /* run */"]),
        (["-C", "geo::twice"], ["main() {", "run() {"] + TWICE + ["} /* run */", "} /* main */"]),
        (["-T", "geo::twice@notrace", "-F", "run"],
         ["run() {", "geo::Box<int>::area();", "geo::Box<double>::area();", "} /* run */"]),
    ]
    problems = []
    for args, want in cases:
        p = ctx.run("replay", *args)
        got = calls(p.stdout)
        if got != want or p.returncode != 0 or "matches no function" in p.stderr:
            problems.append("replay %s: %r (exit %d, %r), want %r" % (" ".join(args), got, p.returncode,
                                                                       p.stderr, want))
        # the same glob at record time keeps the same calls
        d = ctx.work + "/r%d.data" % len(problems + [0]) + re.sub(r"\W", "", "".join(args))
        ctx.run("record", "-q", "-d", d, *args, "--", prog, check=True)
        got = calls(ctx.run("replay", "-d", d, check=True).stdout)
        if got != want:
            problems.append("record %s: %r, want %r" % (" ".join(args), got, want))
    # report and graph share the matching
    rows = [r["function"] for r in ctx.csv("-F", "geo::twice")]
    if sorted(rows) != ["geo::twice<double>", "geo::twice<int>"]:
        problems.append("report -F geo::twice: %r" % rows)
    assert not problems, "\n".join(problems)
