// What a -pg -mfentry program sees of its own stack: backtrace() and
// _Unwind_Backtrace from a traced call 4 deep, symbolised with dladdr, must
// name the same functions as the untraced run.
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <string.h>
#include <unwind.h>

static void print_names(const char *what, void **pc, int n)
{
	printf("%s:", what);
	for (int i = 0; i < n; i++) {
		Dl_info di;
		const char *name = dladdr(pc[i], &di) && di.dli_sname ? di.dli_sname : "?";
		printf(" %s", name);
		if (!strcmp(name, "main"))
			break;
	}
	printf("\n");
}

static _Unwind_Reason_Code collect(struct _Unwind_Context *ctx, void *arg)
{
	void **a = (void **)arg;
	long n = (long)a[0];
	if (n < 63) {
		a[1 + n] = (void *)_Unwind_GetIP(ctx);
		a[0] = (void *)(n + 1);
	}
	return _URC_NO_REASON;
}

extern "C" __attribute__((noinline)) void level4(int k)
{
	void *pc[64];
	int n = backtrace(pc, 64);
	print_names("backtrace", pc, n);
	void *a[64] = { 0 };
	_Unwind_Backtrace(collect, a);
	print_names("unwind", a + 1, (int)(long)a[0]);
	printf("k=%d\n", k);
}

extern "C" __attribute__((noinline)) void level3(int k) { level4(k + 1); __asm__ volatile(""); }
extern "C" __attribute__((noinline)) void level2(int k) { level3(k + 1); __asm__ volatile(""); }
extern "C" __attribute__((noinline)) void level1(int k) { level2(k + 1); __asm__ volatile(""); }

int main()
{
	level1(1);
	level1(10);
	return 0;
}
