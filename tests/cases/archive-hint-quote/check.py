import os, re, subprocess


def funcs(text):
    return [l.split("| ", 1)[-1] for l in text.splitlines()]


def check(ctx):
    w = ctx.work
    env = dict(os.environ, PATH=os.path.dirname(ctx.fntrace) + os.pathsep + os.environ["PATH"])
    want = None
    for name in ("my trace's dir", "t $(touch pwned) \\ x", "tab\there"):
        data = os.path.join(w, name)
        ctx.run("record", "-q", "-d", data, "--", os.path.join(w, "prog"), check=True)
        if want is None:
            want = funcs(ctx.run("replay", "-d", data, check=True).stdout)
        out = os.path.join(w, name + ".tar")
        p = ctx.run("archive", "-d", data, "-o", out, check=True)
        assert len(p.stderr.splitlines()) == 1 and "\t" not in p.stderr, p.stderr
        # one module (the program): "1 module", not "1 modules"
        assert re.search(r" \(\d+ files, 1 module, ", p.stderr), p.stderr
        old = re.search(r"with '(tar xf .*)' and '(fntrace replay -d .*)'$", p.stderr.rstrip("\n"))
        hint = old.group(1) + " && " + old.group(2) if old else p.stderr.split("with: ", 1)[1].rstrip("\n")
        # the hint pasted into a shell, elsewhere
        there = os.path.join(w, "there")
        os.makedirs(there)
        r = subprocess.run(["bash", "-c", hint], capture_output=True, text=True, cwd=there, env=env)
        assert r.returncode == 0 and funcs(r.stdout) == want, (hint, r)
        assert os.listdir(there) == [name] and not os.path.exists(os.path.join(w, "pwned")), (hint, os.listdir(there))
        subprocess.run(["rm", "-rf", there], check=True)
