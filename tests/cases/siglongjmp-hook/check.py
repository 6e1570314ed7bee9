import re


def leaf_calls(ctx, d):
    rows = [r for r in ctx.csv("-d", d) if r["function"] == "leaf"]
    return int(rows[0]["calls"]) if rows else 0


def check(ctx):
    """every call after a siglongjmp out of a hook is recorded, on both builds;
    the only losses are the handler's own calls that landed in a hook"""
    for d in (ctx.data, ctx.record_build("prog-fentry", stdout="leaf 2000000\n")[0]):
        n = leaf_calls(ctx, d)
        assert 2000000 <= n <= 2000020, (d, n)
        info = ctx.run("info", "-d", d, check=True).stdout
        m = re.search(r"lost: (\d+)", info)
        lost = int(m.group(1)) if m else 0
        # at most the handler's entry and exit at each of its 21 runs (those
        # that landed in a hook), and a leaf() whose hook was left
        assert lost <= 2 * 21 + 20, (d, lost, info)
        assert "could not be decoded" not in info and "damaged" not in info, info
