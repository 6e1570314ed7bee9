/*
 * opts.c - the option parser every command calls (fnt_getopt_long):
 * getopt_long, plus two things it lacks.
 *
 * An abbreviated long option never takes the next argument as its value:
 * getopt_long took 'record --time ./prog' as '--time-filter ./prog' and
 * then had no program.  '--time-f=5us' is still accepted; '--time-f 5us'
 * asks for the option in full.
 *
 * An option fntrace does not know but uftrace does gets an error that
 * names fntrace's spelling ("unknown option '-a': fntrace's is
 * '--auto-args'").
 */
#include <string.h>
#include "tool/tool.h"

struct uftrace_hint {
	const char *cmds;          /* the commands it applies to, " record live " */
	const char *opt;           /* as typed, without =VALUE */
	const char *hint;
};

#define RECORD " record live "
static const struct uftrace_hint hints[] = {
	{ RECORD, "-a", "uftrace's -a is fntrace's '--auto-args'" },
	{ RECORD, "--auto-args", "fntrace's is '--auto-args' (no short form)" },
	{ RECORD, "--disable", "uftrace's --disable is fntrace's '--trace=off' (start with recording off; "
			       "fnt_enable(), a -T FUNC@trace_on trigger or --signal SIG@trace_on turns it on)" },
	{ RECORD, "-l", "uftrace's -l is fntrace's '--nest-libcall'" },
	{ RECORD, "--srcline", "fntrace needs nothing at record time for source lines: 'fntrace replay --srcline' "
			       "reads file:line from the debug information; 'record --callsite' also records where "
			       "each call was made from" },
	{ RECORD, "--time", "uftrace's 'record --time' (a time(1)-like summary) is not in fntrace: 'fntrace info' "
			    "shows the run's duration and exit status, and 'time fntrace record ...' the CPU times; "
			    "for a duration threshold write '--time-filter TIME' (-t)" },
	{ RECORD, "-b", "uftrace's -b/--buffer is fntrace's '--chunk-size SIZE'" },
	{ RECORD, "--buffer", "uftrace's -b/--buffer is fntrace's '--chunk-size SIZE'" },
	{ " replay ", "--output-fields", "uftrace's -f/--output-fields is fntrace's '--fields LIST' "
					 "(duration, tid, time, elapsed, delta, self, module, addr, srcline, none)" },
	{ " replay export ", "--chrome", "uftrace's 'dump --chrome' is 'fntrace export -f chrome'" },
	{ " replay export graph ", "--flame-graph", "uftrace's 'dump --flame-graph' is 'fntrace export -f folded' "
						    "(or -f svg for the drawn flame graph)" },
	{ " graph ", "-f", "graph writes text only; for an html, svg or folded view use 'fntrace export -f html' "
			   "(or svg, folded)" },
	{ " graph ", "--format", "graph writes text only; for an html, svg or folded view use 'fntrace export -f "
				 "html' (or svg, folded)" },
};

static const char *hint_for(const char *word)
{
	char key[64];
	size_t n = strcspn(word, "=");
	if (n >= sizeof(key) || !cmd_name)
		return NULL;
	memcpy(key, word, n);
	key[n] = 0;
	for (size_t i = 0; i < sizeof(hints) / sizeof(*hints); i++) {
		const char *c = strstr(hints[i].cmds, cmd_name);
		size_t cl = strlen(cmd_name);
		if (!c || c[-1] != ' ' || c[cl] != ' ' || strcmp(hints[i].opt, key))
			continue;
		return hints[i].hint;
	}
	return NULL;
}

int fnt_getopt_long(int argc, char *const argv[], const char *optstring, const struct option *longopts,
		    int *longindex)
{
	int idx = -1;
	int r = getopt_long(argc, argv, optstring, longopts, &idx);
	if (longindex)
		*longindex = idx;
	if (r == '?' || (r == ':' && !optopt)) {
		char word[3] = { '-', (char)optopt, 0 };
		const char *w = optopt ? word : optind > 0 && optind <= argc ? argv[optind - 1] : NULL;
		const char *h = w ? hint_for(w) : NULL;
		if (h)
			die_usage("unknown option '%s': %s", w, h);
		return r;
	}
	/* a required value taken from the next word, by an abbreviated option */
	if (r != -1 && idx >= 0 && longopts[idx].has_arg == required_argument && optind >= 2 &&
	    optarg == argv[optind - 1]) {
		const char *w = argv[optind - 2];
		if (w[0] == '-' && w[1] == '-' && strcmp(w + 2, longopts[idx].name)) {
			const char *h = hint_for(w);
			if (h)
				die_usage("unknown option '%s': %s", w, h);
			die_usage("option '%s' is short for '--%s', which takes a value: write '--%s %s' in full if that "
				  "is meant (an abbreviated option does not take the next argument as its value)", w,
				  longopts[idx].name, longopts[idx].name, optarg);
		}
	}
	return r;
}
