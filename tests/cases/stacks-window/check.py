"""stacks with a --since/--until window that leaves out every stack: it
said "no call stacks in DIR (the program captures them with
fnt_capture_stack() ...)", as if the program had captured none.  It says
that the window left them out, and when they were captured."""
import re


def check(ctx):
    p = ctx.run("stacks", check=True)
    assert p.stdout.count("stack ") == 2, p.stdout
    times = [float(t) for t in re.findall(r"^stack \d+ at ([\d.]+) ms", p.stdout, re.M)]
    assert len(times) == 2, p.stdout

    for args in (["--since", "1000s"], ["--until", "1ns"]):
        p = ctx.run("stacks", *args)
        assert p.returncode == 1 and p.stdout == "", (args, p.returncode, p.stdout)
        assert "no call stacks in" not in p.stderr, (args, p.stderr)
        m = re.search(r"none of the 2 call stacks in '[^']+' is in the --since/--until window: "
                      r"they were captured from ([\d.]+) ms to ([\d.]+) ms after the start", p.stderr)
        assert m, (args, p.stderr)
        assert [float(m.group(1)), float(m.group(2))] == times, (m.groups(), times)

    # a window around the second stack only
    p = ctx.run("stacks", "--since", "%.3fms" % (times[1] - 0.0005), check=True)
    assert p.stdout.count("stack ") >= 1, p.stdout
