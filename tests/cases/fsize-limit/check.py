import os, re
# The program ran to its end (record returns its status: 0, not killed by
# SIGXFSZ, nor by the snapshot it asked for once its limit was below the
# trace's size), the trace file stayed within the program's 256 KiB limit, and
# every event the runtime could not write is counted as lost for lack of
# space: recorded + lost = the 400,002 events the program made.
def check(ctx):
    assert ctx.record.stdout == "done 1, snapshot -1\n", ctx.record.stdout
    files = [f for f in os.listdir(ctx.data) if f.endswith(".fnt")]
    assert len(files) == 1, files
    assert os.path.getsize(os.path.join(ctx.data, files[0])) <= 256 << 10
    info = ctx.run("info", check=True).stdout
    events = int(re.search(r"^events: (\d+)$", info, re.M).group(1))
    lost = re.search(r"lost: (\d+) in signal handlers, (\d+) for lack of space", info)
    assert lost and lost.group(1) == "0", info
    assert events + int(lost.group(2)) == 400002, info
    assert 50000 < events < 200000, info
