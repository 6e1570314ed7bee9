import re


def check(ctx):
    """each call shows its own values, its trigger's stack inside it"""
    assert ctx.record.stdout == "argc=1 thr=14 child=10\n", ctx.record.stdout
    out = ctx.run("replay", check=True).stdout
    assert "?" not in out, out
    lines = [re.sub(r"^.*?\| ", "", l).strip() for l in out.splitlines() if "|" in l and "FUNCTION" not in l]
    # main, the thread, the child: each entry with its argument, then its stack
    for call, fn in (("main(1) {", "main"), ("thr(7) {", "thr"), ("leaf(7) {", "leaf"), ("leaf(5) {", "leaf")):
        i = lines.index(call) if call in lines else -1
        assert i >= 0, (call, out)
        assert re.match(r"\s*/\* stack #0\s+\S*!%s " % fn, lines[i + 1]), (call, lines[i + 1], out)
    assert lines.count("leaf(5) {") == 1 and lines.count("leaf(7) {") == 1, out
    rets = re.findall(r"\} = (\d+) /\* (\w+) \*/", out)
    assert sorted(rets) == [("10", "leaf"), ("14", "leaf"), ("14", "thr")], (rets, out)
