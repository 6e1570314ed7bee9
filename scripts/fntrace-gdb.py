# fntrace-gdb.py - gdb sees through fntrace's return trampoline.
#
# Under -pg -mfentry and -fpatchable-function-entry, the runtime swaps each
# traced function's return address for fnt_return_trampoline and keeps the
# real one in the thread's shadow stack (runtime/fentry.c).  gdb's DWARF
# unwinder finds the trampoline as the caller, whose unwind entry says the
# return address is undefined, and the backtrace ends there.  No DWARF
# expression can reach the real address: it is in thread-local memory, and
# CFI expressions have no way to the thread pointer.
#
# This unwinder claims the frames whose pc is the trampoline: the return
# address the caller's frame resumes at is the shadow-stack entry whose slot
# lies just below that frame's stack pointer; nothing else changed (the
# trampoline has not run yet).  The backtrace then shows one
# `fnt_return_trampoline` frame between each traced function and its real
# caller.
#
# libfntrace.so carries this file in its .debug_gdb_scripts section, so gdb
# runs it when the library loads, if auto-loading is allowed for it:
#     add-auto-load-safe-path /path/to/libfntrace.so
# (in ~/.gdbinit, or -iex on the command line); or load it by hand:
#     source /path/to/fntrace/scripts/fntrace-gdb.py
# It needs libfntrace.so's debug information (the build keeps it).
import gdb
from gdb.unwinder import Unwinder, register_unwinder


_PASSED = ("rbp", "rbx", "r12", "r13", "r14", "r15", "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
           "r11", "fs_base", "gs_base")


class _FrameId(object):
    def __init__(self, sp, pc):
        self.sp = sp
        self.pc = pc


class FntraceUnwinder(Unwinder):
    def __init__(self):
        super(FntraceUnwinder, self).__init__("fntrace-return-trampoline")
        self.cache = {}      # inferior pid -> (trampoline, fnt_self - fs_base, layout)

    def _setup(self, pid):
        if pid in self.cache:
            return self.cache[pid]
        got = None
        try:
            tramp = int(gdb.parse_and_eval("(long)&fnt_return_trampoline"))
            self_off = int(gdb.parse_and_eval("(long)&fnt_self - (long)$fs_base"))
            thread = gdb.lookup_type("struct fnt_thread")
            entry = gdb.lookup_type("struct fnt_shadow_entry")
            fields = dict((f.name, f.bitpos // 8) for f in thread.fields())
            efields = dict((f.name, f.bitpos // 8) for f in entry.fields())
            got = (tramp, self_off, fields["ss"], fields["ss_top"], entry.sizeof, efields["ret"],
                   efields["slot"])
        except gdb.error:
            got = None       # no libfntrace.so (yet), or no debug information
        if got is not None:
            self.cache[pid] = got
        return got

    def __call__(self, pending_frame):
        inferior = gdb.selected_inferior()
        layout = self._setup(inferior.pid)
        if layout is None:
            return None
        tramp, self_off, ss_off, top_off, esize, ret_off, slot_off = layout
        pc_value = pending_frame.read_register("rip")
        if int(pc_value) != tramp:
            return None
        sp_value = pending_frame.read_register("rsp")
        sp = int(sp_value)
        t = int(pending_frame.read_register("fs_base")) + self_off
        mem = inferior.read_memory
        ss = int.from_bytes(mem(t + ss_off, 8).tobytes(), "little")
        top = int.from_bytes(mem(t + top_off, 4).tobytes(), "little")
        # innermost first: the slot the traced function returned (or will
        # return) through is the one just below this frame's stack pointer
        for i in range(top - 1, -1, -1):
            e = ss + i * esize
            if int.from_bytes(mem(e + slot_off, 8).tobytes(), "little") == sp - 8:
                ret = int.from_bytes(mem(e + ret_off, 8).tobytes(), "little")
                info = pending_frame.create_unwind_info(_FrameId(sp_value, pc_value))
                info.add_saved_register("rip", gdb.Value(ret).cast(pc_value.type))
                info.add_saved_register("rsp", sp_value)
                # the trampoline has not run: every other register the
                # caller sees is what this frame has, where that is known
                for r in _PASSED:
                    try:
                        info.add_saved_register(r, pending_frame.read_register(r))
                    except (gdb.error, ValueError):
                        pass
                return info
        return None


register_unwinder(None, FntraceUnwinder(), replace=True)
