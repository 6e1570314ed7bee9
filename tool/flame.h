/*
 * flame.h - the flame graph as SVG, shared by the svg export (a file of
 * its own) and the html export (inline in the page).  Both take a built
 * call tree (calltree.h).
 */
#ifndef FNT_FLAME_H
#define FNT_FLAME_H

#include <stdio.h>
#include <string.h>
#include "tool/calltree.h"

struct flame_opts {
	const char *title;
	int value_calls;         /* width by call count, not inclusive time */
	int inverted;            /* icicle: roots at the top */
	int width;               /* pixels */
	int standalone;          /* a whole .svg file (XML declaration, title bar) */
};

/* write the <svg> element; returns the number of frames drawn */
size_t flame_svg(struct view *v, struct calltree *t, const struct flame_opts *fo, FILE *out);
/* the default title: the traced command line */
const char *flame_default_title(struct view *v, char *buf, size_t len);
/* XML/HTML text with & < > " ' escaped, control characters as '?' and
 * bytes that are not valid UTF-8 as U+FFFD (utf8_char) */
void flame_xml_str(FILE *out, const char *s);

/* A frame name made safe for folded stacks, in place: ';' and control
 * characters become '_', and so does the space of a name that ends in a
 * space and digits (it would read as the line's count).  An empty name
 * becomes "_".  s must have room for 2 bytes. */
static inline void folded_clean_name(char *s)
{
	size_t l = strlen(s), k = l;
	for (size_t i = 0; i < l; i++)
		if (s[i] == ';' || (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = '_';
	while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
		k--;
	if (k < l && k > 0 && s[k - 1] == ' ')
		s[k - 1] = '_';
	if (!l)
		strcpy(s, "_");
}

#endif
