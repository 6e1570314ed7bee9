def check(ctx):
    assert ctx.record.stdout == "atexit handler after 2 comparisons\n", ctx.record.stdout
    counts = ctx.counts()
    assert counts.get("qsort") == 1 and counts.get("cmp_then_exit") == 2, counts
    assert counts.get("bye") == 1 and counts.get("printf") == 1 and counts.get("exit") == 1, counts
    # exit's argument, captured as it is entered (it keeps its return address)
    d = ctx.work + "/args.data"
    p = ctx.run("record", "-q", "-A", "exit@arg1/d", "-d", d, "--", ctx.work + "/prog")
    assert p.returncode == 3 and p.stdout == ctx.record.stdout, (p.returncode, p.stdout, p.stderr)
    lines = [l.split("| ", 1)[1] for l in ctx.run("replay", "-d", d, check=True).stdout.splitlines()[1:]]
    assert "      exit(3) {" in lines and "      } /* exit (no return: trace ended) */" in lines, lines
