import os, re, subprocess
# libfntrace.so is loaded into every traced program: it must export only the
# compiler hooks, the dl*/setjmp/longjmp wrappers, the thread-naming wrappers
# (record --no-thread re-checks a thread after a rename) and the public fnt_ API.
ALLOWED = {"__cyg_profile_func_enter", "__cyg_profile_func_exit", "dlopen", "dlclose",
           "_setjmp", "setjmp", "__sigsetjmp", "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", "getcontext",
           "pthread_setname_np", "prctl",
           # children that share the parent's TLS or skip pthread_atfork (runtime/clone.c)
           "vfork", "clone", "syscall",
           # children started with an environment of their own stay traced (exec.c)
           "execve", "execle", "execvpe", "fexecve", "posix_spawn", "posix_spawnp", "fork",
           # ... and those that pass the program's environ, which it may have emptied
           "execv", "execvp", "execl", "execlp", "execveat", "system", "popen",
           # an end without exit handlers, marked for `info` (runtime/runtime.c)
           "_exit", "_Exit",
           # coroutines: one shadow stack per machine stack (runtime/coro.c)
           "makecontext",
           # -pg -mfentry: the trampoline, gprof start-up made inert, the unwinder stubs
           "__fentry__", "__monstartup", "_mcleanup", "_Unwind_RaiseException", "_Unwind_Resume_or_Rethrow",
           "_Unwind_ForcedUnwind", "_Unwind_Resume", "__cxa_begin_catch", "_Unwind_SetIP", "_Unwind_Backtrace",
           "backtrace", "pthread_exit", "swapcontext", "setcontext"}
# the in-program API (include/fntrace.h): the header calls only these
API = {"fnt__active", "fnt__enter", "fnt__exit", "fnt__scope_named", "fnt__mark", "fnt__capture_stack",
       "fnt__set_enabled", "fnt__snapshot", "fnt_patch"}
def check(ctx):
    lib = os.path.join(os.path.dirname(ctx.fntrace), "libfntrace.so")
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    names = {l.split()[-1].split("@")[0] for l in out.splitlines() if l.strip()}
    extra = {n for n in names if n not in ALLOWED and not n.startswith("fnt_")}
    assert not extra, "unexpected exports: %s" % sorted(extra)
    assert {"__cyg_profile_func_enter", "__cyg_profile_func_exit"} <= names, names
    assert API <= names, sorted(API - names)
    # every fnt_ export is part of the documented API (add new ones here and in the header)
    assert {n for n in names if n.startswith("fnt_")} == API, sorted(n for n in names if n.startswith("fnt_"))
    # the header's symbols are what the library exports
    hdr = open(os.path.join(os.path.dirname(__file__), "..", "..", "..", "include", "fntrace.h")).read()
    for n in API:
        assert re.search(r"\b%s\b" % n, hdr), n
