/* export-folded.c - placeholder until the folded writer lands (being written now). */
#include "tool/export.h"

int export_folded(struct view *v, const struct export_opts *o, FILE *out)
{
	(void)v;
	(void)out;
	error_msg("the '%s' export is not available yet", o->format);
	return -1;
}
