"""A function template's template arguments are all shown in the short
name: std::min<int, std::less<int> > is not std::min<int> (another
overload), lib::pick<int, std::less<int> > not lib::pick<int>; a class
template's default arguments still go (std::vector<int>::push_back)."""


def check(ctx):
    got = ctx.counts()
    want = {"std::min<int, std::less<int> >": 1, "std::min<int>": 1,
            "lib::pick<int, std::less<int> >": 1, "lib::pick<int>": 1}
    for name, n in want.items():
        assert got.get(name) == n, (name, sorted(got.items()))
    assert got.get("std::vector<int>::push_back") == 3, sorted(got.items())
    rep = ctx.run("replay", check=True).stdout
    assert "lib::pick<int, std::less<int> >() {" in rep, rep
    # the glob matches the name as shown
    out = ctx.run("replay", "-F", "std::min<int, std::less<int> >", check=True).stdout
    assert "std::min<int, std::less<int> >" in out and "std::min<int>()" not in out, out
