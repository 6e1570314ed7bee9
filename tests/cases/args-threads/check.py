import re

def check(ctx):
    out = ctx.run("replay", check=True).stdout
    for tid in range(1, 5):
        for i in range(3):
            assert out.count("work(%d, %d) = %d;" % (tid, i, tid * 100 + i)) == 1, (tid, i, out)
        assert len(re.findall(r"worker\(0x%x\) \{" % tid, out)) == 1, out
    assert re.search(r"\} = 4 /\* spawn \*/", out), out
    # the forked child: its own call with its values, and main returning through the frame it inherited
    assert out.count("in_child(5) = -5;") == 1, out
    assert "} /* main (entered before this process began) */" in out, out
