/* export-perfetto.c - placeholder until the perfetto writer lands (being written now). */
#include "tool/export.h"

int export_perfetto(struct view *v, const struct export_opts *o, FILE *out)
{
	(void)v;
	(void)out;
	error_msg("the '%s' export is not available yet", o->format);
	return -1;
}
