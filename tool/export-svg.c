/* export-svg.c - placeholder until the svg writer lands (being written now). */
#include "tool/export.h"

int export_svg(struct view *v, const struct export_opts *o, FILE *out)
{
	(void)v;
	(void)out;
	error_msg("the '%s' export is not available yet", o->format);
	return -1;
}
