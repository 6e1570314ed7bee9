import re

def check(ctx):
    out = ctx.run("replay", check=True).stdout
    for tid in range(1, 5):
        for i in range(3):
            # one line, or (when another thread's line came between its entry
            # and its exit) an opening line and a closing line with the value
            v = tid * 100 + i
            one = out.count("work(%d, %d) = %d;" % (tid, i, v))
            split = out.count("work(%d, %d) {" % (tid, i))
            assert one + split == 1, (tid, i, out)
            assert not split or "} = %d /* work */" % v in out, (tid, i, out)
        assert len(re.findall(r"worker\(0x%x\) \{" % tid, out)) == 1, out
    assert re.search(r"\} = 4 /\* spawn \*/", out), out
    # the forked child: its own call with its values, and main returning through the frame it inherited
    assert out.count("in_child(5) = -5;") == 1, out
    assert "} /* main (entered before this process began) */" in out, out
