import re


def check(ctx):
    assert ctx.record.stdout == "k=1\nk=2\n", ctx.record.stdout
    out = ctx.run("replay", check=True).stdout
    # the first printf allocates stdout's buffer (stdout is a pipe here)
    assert re.search(r"\| +printf\(\) \{\n.*\| +malloc\(\);\n.*\| +\} /\* printf \*/", out), out
    c = ctx.counts()
    assert c.get("say") == 2 and c.get("printf") == 2 and c.get("malloc", 0) >= 1, c
    # without --nest-libcall, only the program's own calls
    d = ctx.work + "/plain.data"
    ctx.run("record", "-d", d, "--", ctx.work + "/prog", check=True)
    plain = ctx.run("replay", "-d", d, check=True).stdout
    assert "malloc" not in plain and plain.count("printf();") == 2, plain
