# The program got fds 0, 1 and 2 as it expected (record returns its status,
# 0, else 11), its stderr went to /dev/null and not into the trace header,
# and the trace is whole: every call counted, nothing lost or damaged.
def check(ctx):
    info = ctx.run("info", check=True).stdout
    assert "\nprocesses: 1\n" in info and "\nlost: 0\n" in info, info
    assert "damage" not in info and "exited normally" in info, info
