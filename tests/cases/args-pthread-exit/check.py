import re

def check(ctx):
    # pthread_exit from traced frames whose return addresses were swapped:
    # with -fexceptions its forced unwind must still run the cleanup handlers
    # (they print) and hand the value to pthread_join
    out = ctx.record.stdout
    assert out == "cleanup inner\ncleanup outer\njoined 42\n", out
    assert ctx.record.returncode == 0, ctx.record
    rep = ctx.run("replay", check=True).stdout
    # the frames the thread left are closed as unwound, where it exited
    assert re.search(r"\} /\* worker \(no return: unwound\) \*/", rep), rep
    assert "leave(0) {" in rep or ctx.opt != "O0", rep
    assert "(no return: trace ended)" not in rep, rep
    assert rep.count("cleanup();") == 2, rep
    assert "after() = 42;" in rep, rep
