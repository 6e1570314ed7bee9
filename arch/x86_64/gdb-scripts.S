/*
 * gdb-scripts.S - scripts/fntrace-gdb.py, inside libfntrace.so.
 *
 * gdb runs the scripts an object names in its .debug_gdb_scripts section
 * when it loads the object (if its auto-load safe-path allows it: see the
 * script's head).  Entry type 4 is a Python script given inline: a name
 * line, then the text, ending at a NUL.  The unwinder lets gdb walk past
 * the -pg/patchable return trampoline (doc/safety.md).
 */
	.pushsection .debug_gdb_scripts, "MS", @progbits, 1
	.byte 4
	.ascii "fntrace-gdb.py\n"
	.incbin "scripts/fntrace-gdb.py"
	.byte 0
	.popsection

	.section .note.GNU-stack, "", @progbits
