"""`info` says how each process ended from what was recorded (issue 11,
"Also"): children that called _exit(0), _Exit(4) and syscall(SYS_exit_group, 5)
"exited with" that status, from the runtime's mark (before: "no clean exit: _exit(),
a signal or a crash"); one killed by SIGKILL has no mark; the command that called
_exit(3) exited with 3 (the session's wait status agrees).  Children that
call exit(7) and exit(0) show "exited with 7" and "exited normally" (before,
both "exited normally": the status of exit() was not kept).  A second pid 1 from
another pid namespace is not "after exec": an image is replaced by exec only if
it did not exit cleanly and the next image of its pid started after its last
chunk."""
import glob
import os
import re
import shutil
import struct


def sections(info):
    """{pid-and-file: text of its process section}"""
    out = {}
    for part in info.split("\nprocess ")[1:]:
        f = re.search(r"^  file: (.*)$", part, re.M).group(1)
        out[os.path.basename(f)] = "process " + part
    return out


def check(ctx):
    info = ctx.run("info", check=True).stdout
    assert "status: exited with 3" in info, info
    procs = sections(info)
    assert len(procs) == 7, info
    ended = sorted(re.search(r"^  ended: (.*)$", text, re.M).group(1) for text in procs.values())
    assert ended == ["exited normally", "exited with 0 (_exit)", "exited with 3 (_exit)", "exited with 4 (_Exit)",
                     "exited with 5 (exit_group)", "exited with 7",
                     "no clean exit: a signal, a crash or an exit system call made by hand (the trace cannot "
                     "tell which)"], info
    child = [k for k in procs if "exited with 0 (_exit)" in procs[k]][0]
    assert "after exec" not in info and "replaced by exec" not in info, info

    # two pid-1 processes of two pid namespaces, alive at the same time:
    # 1-0.fnt and 1-1.fnt (the runtime numbers a pid's files in turn)
    src = os.path.join(ctx.data, child)
    d = os.path.join(ctx.work, "pidns.data")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    img = bytearray(open(src, "rb").read())
    struct.pack_into("<I", img, 128, 0)                # end_flags: no mark (killed, crashed)
    struct.pack_into("<III", img, 24, 1, 0, 0)         # pid 1, parent 0, exec_seq 0
    open(os.path.join(d, "1-0.fnt"), "wb").write(img)
    struct.pack_into("<I", img, 32, 1)                 # exec_seq 1, same start
    open(os.path.join(d, "1-1.fnt"), "wb").write(img)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert info.count("\nprocess 1 (parent 0): ") == 2, info
    assert "after exec" not in info and "replaced by exec" not in info, info
    # the first one exited cleanly: the second is not its exec either
    struct.pack_into("<I", img, 32, 0)                 # exec_seq 0 again
    struct.pack_into("<I", img, 128, 1)                # end_flags: exit()
    open(os.path.join(d, "1-0.fnt"), "wb").write(img)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert "after exec" not in info and "replaced by exec" not in info and "exited normally" in info, info

    # two pid-1 images of two pid namespaces (header pid_ns), the second
    # started after the first's last chunk: not an exec either (before,
    # the second was "after exec" of the first)
    img = bytearray(open(src, "rb").read())
    struct.pack_into("<I", img, 128, 0)
    struct.pack_into("<III", img, 24, 1, 0, 0)
    struct.pack_into("<Q", img, 2800, 4026531836)
    open(os.path.join(d, "1-0.fnt"), "wb").write(img)
    struct.pack_into("<I", img, 32, 1)
    struct.pack_into("<Q", img, 2800, 4026532999)
    for off in (56, 64, 80, 88):                        # cal0, cal1 ticks and mono: 10 s later
        struct.pack_into("<Q", img, off, struct.unpack_from("<Q", img, off)[0] + 10 * 10**9)
    open(os.path.join(d, "1-1.fnt"), "wb").write(img)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert info.count("\nprocess 1 (parent 0): ") == 2, info
    assert "after exec" not in info and "replaced by exec" not in info, info
    # the same namespace: an exec
    struct.pack_into("<Q", img, 2800, 4026531836)
    open(os.path.join(d, "1-1.fnt"), "wb").write(img)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert "\nprocess 1 (parent 0) after exec: " in info and "ended: replaced by exec" in info, info

    # a shell's child that execs a program recording nothing (whose file
    # goes at its exit) was "no clean exit"; the exec'd shell that then
    # kills itself was said to have "exited with 0 without running exit
    # handlers": the session's status is the command's (the shell that
    # record started, named by the session's pid), not its child's
    d = os.path.join(ctx.work, "sh.data")
    shutil.rmtree(d, ignore_errors=True)
    ctx.run("record", "-q", "-d", d, "--", "sh", "-c", 'sh -c "kill -9 \\$\\$" & wait', data=False, check=True)
    info = ctx.run("info", "-d", d, check=True).stdout
    procs = sections(info)
    assert len(procs) == 2, info
    ended = [re.search(r"^  ended: (.*)$", text, re.M).group(1) for _, text in sorted(procs.items())]
    assert ended == ["replaced by exec", "no clean exit: a signal, a crash or an exit system call made by hand "
                     "(the trace cannot tell which)"], info
    assert "status: exited with 0" in info, info
