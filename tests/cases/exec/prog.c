/* exec of another instrumented program keeps being traced */
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) void before_exec(const char *self) {
	char path[4096];
	snprintf(path, sizeof(path), "%s2", self);
	execl(path, path, (char *)0);
}
int main(int argc, char **argv) { (void)argc; before_exec(argv[0]); return 1; }
