/*
 * test-modules.c - the module map, from the reader's side, on a real trace.
 *
 * A tiny -finstrument-functions program dlopen()s an instrumented shared
 * library, calls into it, dlclose()s it, dlopen()s another library (which may
 * move the next load), dlopen()s the first one again and calls it again.  It
 * is recorded with `fntrace record` (or, if the tool is not built, with
 * LD_PRELOAD=libfntrace.so FNTRACE_DIR=..., which is what record does), and
 * the trace is opened with trace_open().  Checked:
 *  - the library has exactly two MODULE_LOAD records and one MODULE_UNLOAD,
 *    both loads refer to the same file (path + build-id), the first is
 *    unloaded between the two loads, the second never;
 *  - entries of the library's functions before and after the reload resolve
 *    (struct trace_func: file index + vaddr) to the library's file with the
 *    vaddr `nm` gives, and their runtime addresses lie in the mapping that
 *    was live at the time;
 *  - the program's own functions resolve to the executable with nm's vaddr.
 * The build directory (fntrace, libfntrace.so) is the one this binary was
 * built into: <O>/tests/test-modules -> <O>.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "format/reader.h"

#include "check.h"

static const char lib_src[] =
	"__attribute__((noinline)) static int plug_helper(int x) { __asm__ volatile(\"\"); return x * 3; }\n"
	"int plug_entry(int x) { return plug_helper(x) + 1; }\n";

static const char prog_src[] =
	"#define _GNU_SOURCE\n"
	"#include <dlfcn.h>\n"
	"#include <stdio.h>\n"
	"#include <string.h>\n"
	"#include <sys/mman.h>\n"
	"static void *old_base;\n"
	"__attribute__((noinline)) int run_plugin(const char *path, int x, int close_it) {\n"
	"	void *h = dlopen(path, RTLD_NOW);\n"
	"	if (!h) { fprintf(stderr, \"%s\\n\", dlerror()); return -1; }\n"
	"	int (*f)(int) = (int (*)(int))dlsym(h, \"plug_entry\");\n"
	"	Dl_info di;\n"
	"	if (f && dladdr((void *)f, &di)) old_base = di.dli_fbase;\n"
	"	int r = f ? f(x) : -1;\n"
	"	if (close_it) dlclose(h);\n"
	"	return r;\n"
	"}\n"
	"int main(int argc, char **argv) {\n"
	"	if (argc < 3) return 2;\n"
	"	int a = run_plugin(argv[1], 1, 1);\n"
	"	void *pad = dlopen(\"libm.so.6\", RTLD_NOW);\n"
	"	if (!strcmp(argv[2], \"move\") &&   /* keep the old place taken: the reload goes elsewhere */\n"
	"	    mmap(old_base, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != old_base)\n"
	"		return 3;\n"
	"	int b = run_plugin(argv[1], 2, 0);\n"
	"	return (a == 4 && b == 7 && pad) ? 0 : 1;\n"
	"}\n";

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int run(const char *cmd)
{
	int st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* `nm` value of a symbol, or UINT64_MAX */
static uint64_t nm_value(const char *file, const char *sym)
{
	char cmd[8192], line[1024];
	uint64_t v = UINT64_MAX;
	snprintf(cmd, sizeof(cmd), "nm '%s'", file);
	FILE *f = popen(cmd, "r");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f)) {
		char type, name[512];
		unsigned long long val;
		if (sscanf(line, "%llx %c %511s", &val, &type, name) == 3 && !strcmp(name, sym) &&
		    (type == 'T' || type == 't'))
			v = val;
	}
	pclose(f);
	return v;
}

struct ent {
	uint64_t addr, ns;
	uint32_t func;
};

struct ctx {
	struct ent *v;
	size_t n, cap;
};

static int collect(void *arg, const struct trace_event *ev)
{
	struct ctx *c = arg;
	if (ev->kind != TRACE_ENTRY)
		return 0;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
		if (!c->v)
			exit(2);
	}
	c->v[c->n++] = (struct ent){ ev->addr, ev->ns, ev->func };
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static void run_case(const char *build, int move)
{
	char tmp[4096], cmd[65536], lib[4200], prog[4200], data[4200], src[4200];
	const char *mode = move ? "move" : "stay";
	int fails = n_fail;
	const char *base = getenv("TMPDIR");
	snprintf(tmp, sizeof(tmp), "%s/fntrace-test-modules.XXXXXX", base && *base ? base : "/tmp");
	if (!CHECK(mkdtemp(tmp) != NULL, "mkdtemp: %s", strerror(errno)))
		return;
	printf("case: reload %s\n", move ? "elsewhere (old place kept taken)" : "wherever the loader likes");
	snprintf(lib, sizeof(lib), "%s/libplug.so", tmp);
	snprintf(prog, sizeof(prog), "%s/prog", tmp);
	snprintf(data, sizeof(data), "%s/trace", tmp);

	/* build */
	snprintf(src, sizeof(src), "%s/lib.c", tmp);
	int ok = CHECK(write_text(src, lib_src) == 0, "cannot write %s", src);
	snprintf(cmd, sizeof(cmd), "cc -g -O1 -finstrument-functions -fPIC -shared -Wl,--build-id -o '%s' '%s'", lib, src);
	ok = ok && CHECK(run(cmd) == 0, "cannot build the library: %s", cmd);
	snprintf(src, sizeof(src), "%s/prog.c", tmp);
	ok = ok && CHECK(write_text(src, prog_src) == 0, "cannot write %s", src);
	snprintf(cmd, sizeof(cmd), "cc -g -O1 -finstrument-functions -o '%s' '%s' -ldl", prog, src);
	ok = ok && CHECK(run(cmd) == 0, "cannot build the program: %s", cmd);

	/* record: `fntrace record` if it is there (it may still be being
	 * built: wait a little), else the runtime preloaded by hand */
	if (ok) {
		char tool[4200], rt[4200];
		snprintf(tool, sizeof(tool), "%s/fntrace", build);
		snprintf(rt, sizeof(rt), "%s/libfntrace.so", build);
		for (int i = 0; i < 30 && access(tool, X_OK); i++)
			sleep(2);
		int rc = -1;
		if (!access(tool, X_OK)) {
			snprintf(cmd, sizeof(cmd), "'%s' record -d '%s' -- '%s' '%s' %s >'%s/record.out' 2>&1", tool, data,
				 prog, lib, mode, tmp);
			rc = run(cmd);
			if (rc)
				printf("note: `fntrace record` exited with %d; recording with LD_PRELOAD instead\n", rc);
		}
		if (rc) {
			snprintf(cmd, sizeof(cmd), "rm -rf '%s' && env -u FNTRACE_DISABLE FNTRACE_DIR='%s' LD_PRELOAD='%s' '%s' '%s' %s",
				 data, data, rt, prog, lib, mode);
			rc = run(cmd);
		}
		ok = CHECK(rc == 0, "recording failed (%d): %s", rc, cmd);
	}

	uint64_t v_entry = nm_value(lib, "plug_entry"), v_helper = nm_value(lib, "plug_helper");
	uint64_t v_main = nm_value(prog, "main"), v_run = nm_value(prog, "run_plugin");
	ok = ok && CHECK(v_entry != UINT64_MAX && v_helper != UINT64_MAX && v_main != UINT64_MAX && v_run != UINT64_MAX,
			 "nm did not give every symbol");

	struct trace *t = NULL;
	char err[512];
	if (ok && CHECK(trace_open(&t, data, err, sizeof(err)) == 0, "trace_open '%s': %s", data, err)) {
		for (size_t i = 0; i < t->n_warnings; i++)
			CHECK(0, "warning: %s", t->warnings[i]);
		CHECK(t->n_procs == 1, "%zu processes", t->n_procs);
		struct trace_process *p = &t->procs[0];

		/* the module map */
		const struct trace_module *lm[4] = { 0 };
		size_t nl = 0, n_unloaded = 0;
		uint32_t exe_file = TRACE_NO_FILE;
		for (size_t i = 0; i < p->n_modules; i++) {
			const struct trace_module *m = &p->modules[i];
			const char *path = t->files[m->file].path;
			if (!strcmp(path, prog) || ends_with(path, "/prog"))
				exe_file = m->file;
			if (!ends_with(path, "/libplug.so"))
				continue;
			if (nl < 4)
				lm[nl] = m;
			nl++;
			n_unloaded += m->unload_ticks != UINT64_MAX;
		}
		CHECK(exe_file != TRACE_NO_FILE, "the executable is not in the module map");
		if (CHECK(nl == 2, "libplug.so: %zu load records, wanted 2", nl) &&
		    CHECK(n_unloaded == 1, "libplug.so: %zu unloads, wanted 1", n_unloaded)) {
			if (lm[1]->load_ticks < lm[0]->load_ticks) {
				const struct trace_module *x = lm[0];
				lm[0] = lm[1];
				lm[1] = x;
			}
			const struct trace_module *a = lm[0], *b = lm[1];
			const struct trace_file_ref *f = &t->files[a->file];
			CHECK(a->file == b->file, "the two loads are different files (%u, %u)", a->file, b->file);
			CHECK(f->build_id_len == 20, "libplug.so: build-id of %u bytes", f->build_id_len);
			CHECK(!a->at_start && !b->at_start, "libplug.so counted as loaded at start");
			CHECK(a->unload_ticks != UINT64_MAX && b->unload_ticks == UINT64_MAX,
			      "the first load is not the one unloaded");
			CHECK(a->load_ticks < a->unload_ticks && a->unload_ticks <= b->load_ticks,
			      "unload at %" PRIu64 " ticks is not between the loads at %" PRIu64 " and %" PRIu64,
			      a->unload_ticks, a->load_ticks, b->load_ticks);
			CHECK(a->load_ns <= a->unload_ns && a->unload_ns <= b->load_ns,
			      "unload at %" PRIu64 " ns is not between the loads at %" PRIu64 " and %" PRIu64 " ns",
			      a->unload_ns, a->load_ns, b->load_ns);
			CHECK(a->lo <= a->bias + v_entry && a->bias + v_entry < a->hi &&
			      b->lo <= b->bias + v_entry && b->bias + v_entry < b->hi,
			      "plug_entry is outside the recorded ranges");
			printf("note: libplug.so loaded at %#" PRIx64 ", then at %#" PRIx64 "%s\n", a->bias, b->bias,
			       a->bias == b->bias ? " (same address)" : "");
			if (move)
				CHECK(a->bias != b->bias, "the reload was meant to go elsewhere");

			/* the events */
			struct ctx c = { 0 };
			trace_walk(t, 0, collect, &c);
			size_t seen[2][2] = { { 0 } }, bad = 0, main_ok = 0, run_ok = 0;
			for (size_t i = 0; i < c.n; i++) {
				const struct ent *e = &c.v[i];
				const struct trace_func *fn = &t->funcs[e->func];
				if (fn->file == exe_file) {
					main_ok += fn->vaddr == v_main;
					run_ok += fn->vaddr == v_run;
					continue;
				}
				int in_a = e->addr >= a->lo && e->addr < a->hi, in_b = e->addr >= b->lo && e->addr < b->hi;
				if (fn->file != a->file) {
					if (in_a || in_b)
						bad += !CHECK(0, "entry at %#" PRIx64 " (%" PRIu64 " ns) inside libplug.so resolves to "
							      "file %u ('%s')", e->addr, e->ns, fn->file,
							      fn->file == TRACE_NO_FILE ? "none" : t->files[fn->file].path);
					continue;
				}
				int phase = e->ns >= a->unload_ns;
				const struct trace_module *m = phase ? b : a;
				int which = fn->vaddr == v_entry ? 0 : fn->vaddr == v_helper ? 1 : -1;
				if (which < 0 || e->addr - m->bias != fn->vaddr || e->addr < m->lo || e->addr >= m->hi) {
					bad += !CHECK(0, "entry at %#" PRIx64 " (%s the reload) resolves to vaddr %#" PRIx64
						      "; nm: plug_entry %#" PRIx64 ", plug_helper %#" PRIx64 "; bias %#" PRIx64,
						      e->addr, phase ? "after" : "before", fn->vaddr, v_entry, v_helper, m->bias);
					continue;
				}
				seen[phase][which]++;
			}
			CHECK(bad == 0, "%zu entries misresolved", bad);
			CHECK(seen[0][0] == 1 && seen[0][1] == 1,
			      "before the reload: plug_entry seen %zu times, plug_helper %zu, wanted 1 and 1", seen[0][0],
			      seen[0][1]);
			CHECK(seen[1][0] == 1 && seen[1][1] == 1,
			      "after the reload: plug_entry seen %zu times, plug_helper %zu, wanted 1 and 1", seen[1][0],
			      seen[1][1]);
			CHECK(main_ok == 1, "main resolved to the executable with nm's vaddr %zu times", main_ok);
			CHECK(run_ok == 2, "run_plugin resolved to the executable with nm's vaddr %zu times, wanted 2", run_ok);
			free(c.v);
		}
		trace_close(t);
	}
	if (n_fail == fails) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		run(cmd);
	} else {
		printf("note: files kept in %s\n", tmp);
	}
}

int main(void)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (n <= 0) {
		printf("FAIL cannot read /proc/self/exe\n0 passed, 1 failed\n");
		return 1;
	}
	self[n] = 0;
	for (int i = 0; i < 2; i++)
		*strrchr(self, '/') = 0;      /* <O>/tests/test-modules -> <O> */
	run_case(self, 0);
	run_case(self, 1);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
