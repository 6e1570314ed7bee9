def check(ctx):
    rows = {r["function"]: r for r in ctx.csv()}
    fib, run = rows["fib"], rows["run"]
    assert int(fib["calls"]) == 177, fib
    # the outermost fib runs inside run(): its inclusive time is at most run's
    assert int(fib["total_ns"]) <= int(run["total_ns"]), (fib, run)
    # all of fib's time is fib's own: self == total for a function that only calls itself
    assert int(fib["self_ns"]) == int(fib["total_ns"]), fib
    assert int(fib["max_ns"]) == int(fib["total_ns"]), fib
