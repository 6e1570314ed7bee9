"""-pg -mfentry with values: the trampolines' assembly writes what the
general path writes.  The same program is recorded again with a
record-time filter that hides nothing (-N on a function that never runs),
which sends every call through the general path; the two replays must
match line for line, and the values are checked where they are known."""
import json
import os
import re
import subprocess

OUT = "-493101537620397\n"


def calls(ctx, d):
    p = ctx.run("replay", "-d", d, check=True)
    assert p.stderr == "", p.stderr
    lines = [l.split("| ", 1)[1] for l in p.stdout.splitlines() if "| " in l and not l.startswith("#")]
    # pointers to the stack and to the program's string literals differ
    # between runs (ASLR)
    return [re.sub(r"0x5[56][0-9a-f]{10}", "DATA", re.sub(r"0x7ff[0-9a-f]+", "STACK", l)) for l in lines]


def check(ctx):
    assert ctx.record.stdout == OUT, ctx.record.stdout
    rec_args = json.load(open(os.path.join(os.path.dirname(__file__), "case.json")))["record_args"]
    d = os.path.join(ctx.work, "rec-general")
    p = subprocess.run([ctx.fntrace, "record", "-d", d, "-N", "never_called_anywhere", *rec_args, "--",
                        os.path.join(ctx.work, "prog")], capture_output=True, text=True, cwd=ctx.work, timeout=120)
    assert p.returncode == 0 and p.stdout == OUT, (p.returncode, p.stderr)
    fast, general = calls(ctx, ctx.data), calls(ctx, d)
    assert len(fast) == len(general), (len(fast), len(general))
    for i, (a, b) in enumerate(zip(fast, general)):
        assert a == b, (i, a, b)

    text = "\n".join(fast)
    # values known from the source, in both builds of both compilers
    i = 7
    assert "f42(7, %d) = %d;" % (7 * 42, 7 * 3 + 42) in text
    assert "sizes('h', -19300, 251, true, GREEN, STACK) = 'i';" in text, [l for l in fast if "sizes(" in l][:8]
    assert "sizes('a', -20000, 250, false, BLUE, NULL) = 'b';" in text
    assert "stack(%d, %d, %d) = %d;" % (i, -1234567890123 + i, 8 * i, i - i + 14 - 1234567890123 + i + 8 * i) in text
    assert "onlyargs(-7, 128);" in text
    assert "twice() = 0x7070707, 7;" in text
    assert 'text("parity of values", 7) = "of values";' in text
    assert "half(3) = 1.5;" in text
    assert "down(300) = 300" in text or "} = 300 /* down */" in text
    assert 'strtol("7", 10) = 7;' in text
    assert "strlen(DATA) = 16;" in text and "strlen(DATA) = 9;" in text
    # every call with its values: 80 f* calls a round, 400 rounds
    assert sum(1 for l in fast if re.match(r"\s*f\d+\(\d+, -?\d+\) = \d+;$", l)) == 80 * 400
    assert sum(1 for l in fast if re.match(r"\s*onlyret\(\) = -?\d+;$", l)) == 400
    # (gcc -O2 makes a loop of down's recursion)
    assert sum(1 for l in fast if re.match(r"\s*down\(", l)) in (8, 8 * 301)
