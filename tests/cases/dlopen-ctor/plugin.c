/* an instrumented plugin whose constructor makes library calls: dlopen
 * runs it before it returns */
#include <stdlib.h>

long plugin_ready;

__attribute__((constructor)) static void plugin_init(void)
{
	const char *arg = getenv("DLOPEN_CTOR_ARG");
	plugin_ready = strtol(arg ? arg : "7", NULL, 10);
}

long plugin_get(void)
{
	return plugin_ready;
}
