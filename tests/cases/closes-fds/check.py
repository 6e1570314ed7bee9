import os
def check(ctx):
    st = os.stat(os.path.join(ctx.work, "prog.precious"))
    assert st.st_size == 8, st          # nothing of the trace went into the program's file
    info = ctx.run("info", check=True).stdout
    assert "lost: 0" in info and "damage" not in info, info
