import os, subprocess
# libfntrace.so is loaded into every traced program: it must export only the
# compiler hooks, the dl*/setjmp/longjmp wrappers, the thread-naming wrappers
# (record --no-thread re-checks a thread after a rename) and the public fnt_ API.
ALLOWED = {"__cyg_profile_func_enter", "__cyg_profile_func_exit", "dlopen", "dlclose",
           "_setjmp", "setjmp", "__sigsetjmp", "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk",
           "pthread_setname_np", "prctl",
           # -pg -mfentry: the trampoline, gprof start-up made inert, the unwinder stubs
           "__fentry__", "__monstartup", "_mcleanup", "_Unwind_RaiseException", "_Unwind_Resume_or_Rethrow",
           "_Unwind_ForcedUnwind", "_Unwind_Resume", "__cxa_begin_catch", "pthread_exit"}
def check(ctx):
    lib = os.path.join(os.path.dirname(ctx.fntrace), "libfntrace.so")
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    names = {l.split()[-1].split("@")[0] for l in out.splitlines() if l.strip()}
    extra = {n for n in names if n not in ALLOWED and not n.startswith("fnt_")}
    assert not extra, "unexpected exports: %s" % sorted(extra)
    assert {"__cyg_profile_func_enter", "__cyg_profile_func_exit"} <= names, names
