"""Every form of -fpatchable-function-entry that gcc and clang make is
traced, or said not to be:
- N,M with M > 0 (the pad's first M bytes before the symbol), with and
  without -fcf-protection's endbr64, M up to 65;
- pads longer than 5 bytes, which clang fills with multi-byte NOPs (a
  6-byte `66 0f 1f 44 00 08`, a 7-byte NOP, 16 bytes as two): the call
  must replace whole instructions, or the bytes left of a NOP it cut run
  as code after it returns;
each with exact counts, argument and return values, and --patch-signal
switching the pads on and off while the program runs.  Pads with fewer
than 5 bytes at the entry (5,5 and 3) cannot take the call: record warns,
and info says which module, instead of a trace silently without them.
-P globs select among the pads, and are said to match nothing only when
they do not.  edge.c lays functions out to mislead the attribution of a
pad (empty functions, functions without a pad, code that starts with NOPs
a loop jumps to): none is patched wrongly, or warned about wrongly.
Modules loaded again (dlopen, exec) are counted once."""
import os
import re

OUT = "680\n"
FULL = {"main": 1, "g": 8, "f": 15, "rec": 5}
TRACED = ("p-7-2", "p-9-4-cet", "p-6", "p-8-cet", "p-16", "p-16-8", "p-70-65", "prog")
SHORT = "fewer than 5 bytes of NOPs at their entry, too few for the call (-fpatchable-function-entry=N,M needs N - M >= 5; =5 is the usual)"


def ours(counts):
    return {k: v for k, v in counts.items() if k in FULL}


def check(ctx):
    check_edges(ctx)
    # a library loaded twice: its functions counted once, listed once
    lib = os.path.join(ctx.work, "libpad3.so")
    d, rec = ctx.record_build("dl", "6\n", args=(lib,), record_args=("-q",))
    assert rec.stderr == "fntrace: warning: 2 functions were not traced: %s ('fntrace info' lists the modules)\n" \
        % SHORT, rec.stderr
    info = ctx.run("info", "-d", d, check=True).stdout
    assert info.count("  pads: ") == 1 and "  pads: 2 functions of '%s' not traced: %s\n" % (lib, SHORT) in info, info
    for prog in TRACED:
        d, rec = ctx.record_build(prog, OUT, record_args=("-q", "-A", "f@arg1", "-R", "f@retval"))
        assert rec.stderr == "", (prog, rec.stderr)
        assert ours(ctx.counts("-d", d)) == FULL, (prog, ctx.counts("-d", d))
        replay = ctx.run("replay", "-d", d, check=True).stdout
        vals = [(int(a), int(r)) for a, r in re.findall(r"\| +f\((\d+)\) = (\d+);$", replay, re.M)]
        want = [(x, 2 * x) for x in list(range(5)) + [100, 101, 102] + list(range(7))]
        assert vals == want, (prog, vals, replay)
        assert replay.count("rec() {\n") == 4 and "|           rec();\n" in replay, (prog, replay)
        # switched on for phase 2 only, then off: the pads go back to NOPs
        d, rec = ctx.record_build(prog, None, record_args=("-q", "--patch-signal", "USR1"),
                                  env=dict(os.environ, PHASES="1"))
        assert rec.stdout == OUT and rec.stderr == "", (prog, rec.stdout, rec.stderr)
        assert ours(ctx.counts("-d", d)) == {"g": 3, "f": 3, "rec": 5}, (prog, ctx.counts("-d", d))

    # -P on a build with pads selects among them: no "matched no function"
    # warning when it did match (the warning once came for any -P there)
    for prog in ("prog", "p-16-8"):
        d, rec = ctx.record_build(prog, OUT, record_args=("-q", "-P", "g", "-P", "re*"))
        assert rec.stderr == "", (prog, rec.stderr)
        assert ours(ctx.counts("-d", d)) == {"g": 8, "rec": 5}, (prog, ctx.counts("-d", d))
        info = ctx.run("info", "-d", d, check=True).stdout
        assert "  pads: 2 functions of '%s' selected\n" % os.path.join(ctx.work, prog) in info, info
        d, rec = ctx.record_build(prog, OUT, record_args=("-q", "-P", "nosuch"))
        assert "that -P selected and could patch ran" in rec.stderr, (prog, rec.stderr)

    for prog in ("p-5-5", "p-3"):
        d, rec = ctx.record_build(prog, OUT, record_args=("-q",))
        # main, g, f, rec
        assert rec.stderr == "fntrace: warning: 4 functions were not traced: %s ('fntrace info' lists the " \
            "modules)\n" % SHORT, (prog, rec.stderr)
        p = ctx.run("report", "-d", d)
        assert p.returncode == 1 and p.stderr == "fntrace: no function events were recorded in '%s': 4 " \
            "functions had %s\n" % (d, SHORT), (prog, p.returncode, p.stderr)
        # without library calls nothing at all is recorded: record says why
        exe = os.path.join(ctx.work, prog)
        p = ctx.run("record", "--no-libcall", "-d", d, "--", exe, data=False)
        assert p.returncode == 0 and p.stdout == OUT, (prog, p.returncode, p.stderr)
        assert p.stderr == "fntrace: no function events were recorded: 4 functions of '%s' had %s\n" % (exe, SHORT), \
            (prog, p.stderr)
        info = ctx.run("info", "-d", d, check=True).stdout
        assert "  pads: 4 functions of '%s' not traced: %s\n" % (os.path.join(ctx.work, prog), SHORT) in info, info


EDGE_OUT = "21 55 11 0\n"


def check_edges(ctx):
    for prog in ("e-7-2", "e-5-cet", "e-12-cet"):
        d, rec = ctx.record_build(prog, EDGE_OUT, record_args=("-q",))
        assert rec.stderr == "", (prog, rec.stderr)
        got = {k: v for k, v in ctx.counts("-d", d).items() if k in
               ("main", "f", "spin", "bump", "die", "stop_here", "never", "main.cold")}
        assert got == {"main": 1, "f": 3, "spin": 1}, (prog, got)
        # switched on and off around the middle calls, under threads' feet
        # of none: the pads next to the empty functions keep whole
        d, rec = ctx.record_build(prog, None, record_args=("-q", "--patch-signal", "USR1"),
                                  env=dict(os.environ, PHASES="1"))
        assert rec.stdout == EDGE_OUT and rec.stderr == "", (prog, rec.stdout, rec.stderr)
        got = {k: v for k, v in ctx.counts("-d", d).items() if k in ("main", "f", "spin", "bump")}
        assert got == {"f": 1, "spin": 1}, (prog, got)
    # 3-byte pads: spin's own NOPs do not make its pad long enough
    d, rec = ctx.record_build("e-3", EDGE_OUT, record_args=("-q",))
    assert re.fullmatch(r"fntrace: warning: \d+ functions were not traced: %s \('fntrace info' lists the "
                        r"modules\)\n" % re.escape(SHORT), rec.stderr), rec.stderr
