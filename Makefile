# fntrace build.  `make` builds into build/; `make check` runs the whole suite
# twice: a normal build and an ASan+UBSan build of the tool and unit tests.
# New source files are picked up by directory: runtime/*.c -> libfntrace.so,
# format/ symbols/ tool/ -> the fntrace command, tests/unit/test-*.c -> one
# test binary each.

CC       ?= gcc
O        ?= build
PREFIX   ?= /usr/local
SAN      ?=
OPT      ?= -O2
WARN     := -Wall -Wextra -Werror
CFLAGS   ?= $(OPT) -g
CFLAGS   += $(WARN) -std=gnu11 -D_GNU_SOURCE -Iinclude -I.
DW_CFLAGS := $(shell pkg-config --cflags libdw 2>/dev/null)
DW_LIBS   := $(shell pkg-config --libs libdw 2>/dev/null || echo -ldw -lelf)
# libiberty (libiberty-dev): the C++ demangler's component tree, symbols/cxxname.c
DW_LIBS   += -liberty
# ncurses (libncurses-dev) for `fntrace tui`, linked into the fntrace command only
CURSES_LIBS := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo)

# The runtime is loaded into traced programs: hidden visibility (only the
# hooks and the public API are exported), initial-exec TLS, never
# instrumented, never sanitized (a sanitizer runtime must come first in a
# process, which a preloaded library cannot promise).
RT_CFLAGS := -O2 -g $(WARN) -std=gnu11 -D_GNU_SOURCE -Iinclude -I. -fPIC \
	-fvisibility=hidden -ftls-model=initial-exec -fno-instrument-functions \
	-fno-stack-protector

RT_SRC   := $(wildcard runtime/*.c)
RT_ASM   := $(wildcard arch/x86_64/*.S)
TOOL_SRC := $(wildcard format/*.c symbols/*.c tool/*.c)
LIB_SRC  := $(wildcard format/*.c symbols/*.c) tool/util.c tool/args.c tool/perf-chain.c tool/perf-data.c
UNIT_SRC := $(wildcard tests/unit/test-*.c)

RT_OBJ   := $(RT_SRC:%.c=$(O)/%.o) $(RT_ASM:%.S=$(O)/%.o) $(O)/rt/symbols/cxxname.o
TOOL_OBJ := $(TOOL_SRC:%.c=$(O)/%.o)
LIB_OBJ  := $(LIB_SRC:%.c=$(O)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)

all: $(O)/fntrace $(O)/libfntrace.so $(O)/libfntrace.a

$(O)/runtime/%.o: runtime/%.c $(wildcard runtime/*.h format/*.h include/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c -o $@ $<

# The record-time filters name C++ functions as the tool does: the runtime
# links the tool's symbols/cxxname.c and libiberty's two demangler objects
# (PIC, they need only libc), statically, so traced programs load nothing new.
LIBIBERTY_A := $(shell $(CC) -print-file-name=libiberty.a)
IBERTY_OBJ  := $(O)/iberty/cp-demangle.o $(O)/iberty/cp-demint.o
$(IBERTY_OBJ):
	@mkdir -p $(O)/iberty
	cd $(O)/iberty && ar x $(LIBIBERTY_A) cp-demangle.o cp-demint.o

$(O)/rt/symbols/cxxname.o: symbols/cxxname.c symbols/cxxname.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c -o $@ $<

$(O)/static/symbols/cxxname.o: symbols/cxxname.c symbols/cxxname.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -DFNT_STATIC_ARCHIVE -c -o $@ $<

$(O)/arch/%.o: arch/%.S runtime/asm-offsets.h arch/x86_64/event-asm.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c -o $@ $<

# the gdb unwinder goes into the library whole (.incbin)
$(O)/arch/x86_64/gdb-scripts.o: scripts/fntrace-gdb.py

# SONAME libfntrace.so.0: a program linked with -lfntrace needs libfntrace.so.0,
# which is this same file (build/libfntrace.so.0 is a link to it), so a
# preloaded copy and the linked one are one object in the process.
SOVERSION := 0
$(O)/libfntrace.so: $(RT_OBJ) $(IBERTY_OBJ) runtime/exports.map Makefile
	$(CC) -shared -Wl,-soname,libfntrace.so.$(SOVERSION) -Wl,--version-script=runtime/exports.map \
		-Wl,-z,now -o $@ $(RT_OBJ) $(IBERTY_OBJ) -ldl -lpthread -lgcc_s
	ln -sf libfntrace.so $@.$(SOVERSION)

# The archive is for programs that cannot load the .so, static ones above
# all: it leaves out the setjmp/longjmp trampolines and the dl* wrappers,
# which need libc's own functions through dlsym(RTLD_NEXT) and a static
# binary has none to give (longjmp is then matched by the next exit instead).
RT_A_OBJ := $(RT_SRC:%.c=$(O)/static/%.o) $(O)/static/symbols/cxxname.o $(IBERTY_OBJ)
$(O)/static/runtime/%.o: runtime/%.c $(wildcard runtime/*.h format/*.h include/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -DFNT_STATIC_ARCHIVE -c -o $@ $<

$(O)/libfntrace.a: $(RT_A_OBJ)
	rm -f $@ && ar rcs $@ $(RT_A_OBJ)

$(O)/%.o: %.c $(wildcard format/*.h symbols/*.h tool/*.h include/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(DW_CFLAGS) -c -o $@ $<

$(O)/fntrace: $(TOOL_OBJ)
	$(CC) $(SAN) -o $@ $(TOOL_OBJ) $(DW_LIBS) $(CURSES_LIBS) -lz -lstdc++ -lm

# test-events drives the real hot path: it links the (never sanitized) static runtime
$(O)/tests/test-events: tests/unit/test-events.c $(LIB_OBJ) $(O)/libfntrace.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(DW_CFLAGS) -o $@ $< $(LIB_OBJ) $(O)/libfntrace.a $(DW_LIBS) -lstdc++ -lm -ldl -lpthread

# a unit test of tool code outside LIB_OBJ names it in UNIT_EXTRA
$(O)/tests/test-%: tests/unit/test-%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(DW_CFLAGS) -o $@ $< $(LIB_OBJ) $(UNIT_EXTRA) $(DW_LIBS) -lstdc++ -lm

# test-diff prints report's and graph's --diff columns
$(O)/tests/test-diff: UNIT_EXTRA = $(O)/tool/report-diff.o $(O)/tool/pager.o $(O)/tool/summary.o
$(O)/tests/test-diff: $(O)/tool/report-diff.o $(O)/tool/pager.o $(O)/tool/summary.o
# test-drain drives record's copies of the drained ring
$(O)/tests/test-drain: UNIT_EXTRA = $(O)/tool/record-drain.o
$(O)/tests/test-drain: $(O)/tool/record-drain.o

deps:
	@sh scripts/install-deps.sh
test-deps:
	@sh scripts/install-deps.sh --test

# the README's first command: build, trace the bundled example, show it
demo: deps
	$(MAKE) all
	$(CC) -finstrument-functions -g -O2 -o $(O)/demo examples/demo.c -lpthread
	$(O)/fntrace record -d $(O)/demo.data -- $(O)/demo
	$(O)/fntrace replay -d $(O)/demo.data
	$(O)/fntrace report -d $(O)/demo.data

unit: $(UNIT_BIN)

# the quick suite on one build: unit tests, then the golden end-to-end cases
test: all unit
	python3 tests/run.py --build $(O)

SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
check: test-deps
	@bash scripts/check.sh

# the reader under libFuzzer (clang), briefly; `make fuzz FUZZ_TIME=600` for longer
FUZZ_TIME ?= 20
$(O)/fuzz-reader: tests/fuzz/fuzz-reader.c $(wildcard format/*.c format/*.h)
	@mkdir -p $(dir $@)
	clang -g -O1 -std=gnu11 -D_GNU_SOURCE -I. -Iinclude -fsanitize=fuzzer,address,undefined \
		-o $@ tests/fuzz/fuzz-reader.c $(wildcard format/*.c)
# the saved symbol tables' reader (symbols/symtab.c), seeded with real tables
$(O)/fuzz-symtab: tests/fuzz/fuzz-symtab.c symbols/symtab.c symbols/symtab.h format/safeio.c
	@mkdir -p $(dir $@)
	clang -g -O1 -std=gnu11 -D_GNU_SOURCE -I. -Iinclude -fsanitize=fuzzer,address,undefined \
		-o $@ tests/fuzz/fuzz-symtab.c symbols/symtab.c format/safeio.c
fuzz-smoke: $(O)/fuzz-reader $(O)/fuzz-symtab
	python3 tests/fuzz/make-corpus.py $(O)/fuzz-corpus
	$(O)/fuzz-reader -max_total_time=$(FUZZ_TIME) -max_len=65536 $(O)/fuzz-corpus
	$(O)/fuzz-symtab -max_total_time=$(FUZZ_TIME) -max_len=65536 $(O)/fuzz-corpus/symtab
fuzz: fuzz-smoke

bench: all
	python3 bench/run.py $(BENCH_ARGS)

# `make install` (PREFIX=/usr/local, DESTDIR for staging) puts the command in
# bin/, the runtime in lib/ as a shared library with its SONAME and the usual
# links (libfntrace.so.0.1.0, .so.0, .so) plus libfntrace.a, fntrace.pc for
# pkg-config, the header, one man page per command, bash completion and the
# docs.  `make uninstall` removes exactly those files.
VERSION := $(shell sed -n 's/^\#define FNT_VERSION "\(.*\)"/\1/p' tool/tool.h)
LIBDIR  ?= $(PREFIX)/lib
MANS    := $(wildcard doc/man/*.1)
DOCS    := $(wildcard doc/*.md)
INSTALLED := $(PREFIX)/bin/fntrace $(PREFIX)/include/fntrace.h \
	$(LIBDIR)/libfntrace.so.$(VERSION) $(LIBDIR)/libfntrace.so.$(SOVERSION) $(LIBDIR)/libfntrace.so \
	$(LIBDIR)/libfntrace.a $(LIBDIR)/pkgconfig/fntrace.pc \
	$(MANS:doc/man/%=$(PREFIX)/share/man/man1/%) $(DOCS:doc/%=$(PREFIX)/share/doc/fntrace/%) $(PREFIX)/share/doc/fntrace/README.md \
	$(PREFIX)/share/bash-completion/completions/fntrace

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/doc/fntrace \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 $(O)/fntrace $(DESTDIR)$(PREFIX)/bin/fntrace
	install -m 755 $(O)/libfntrace.so $(DESTDIR)$(LIBDIR)/libfntrace.so.$(VERSION)
	ln -sf libfntrace.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libfntrace.so.$(SOVERSION)
	ln -sf libfntrace.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libfntrace.so
	install -m 644 $(O)/libfntrace.a $(DESTDIR)$(LIBDIR)/libfntrace.a
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
		scripts/fntrace.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/fntrace.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/fntrace.pc
	install -m 644 include/fntrace.h $(DESTDIR)$(PREFIX)/include/fntrace.h
	install -m 644 $(MANS) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(DOCS) README.md $(DESTDIR)$(PREFIX)/share/doc/fntrace/
	install -m 644 scripts/fntrace-completion.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/fntrace

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(PREFIX)/share/doc/fntrace 2>/dev/null

# doc/man/fntrace-<command>.1 are made from each command's --help and the
# text in doc/man/*.in; tests/cases/man-pages fails when they fall behind
man: $(O)/fntrace
	python3 scripts/mkman.py $(O)/fntrace doc/man

clean:
	rm -rf build build-san

.PHONY: all deps test-deps demo unit test check fuzz fuzz-smoke bench install uninstall man clean
