/*
 * trigger.c - `-T, --trigger FUNC@ACTION[,ACTION...]`, as record and the
 * reading commands take it: the parser (one usage error naming the option
 * and the bad action) and the text record hands the runtime.
 *
 * The runtime's side is runtime/trigger.c (and filter.c for depth=, filter,
 * notrace, hide); the readers' side is the call layer, calls.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tool/tool.h"

static const struct {
	const char *name;
	unsigned flag;
} actions[] = {
	{ "trace_on", TRIG_ON }, { "trace_off", TRIG_OFF }, { "backtrace", TRIG_BACKTRACE },
	{ "finish", TRIG_FINISH }, { "snapshot", TRIG_SNAPSHOT }, { "hide", TRIG_HIDE },
	{ "filter", TRIG_FILTER }, { "notrace", TRIG_NOTRACE },
};

#define ACTION_LIST "trace_on, trace_off, depth=N, backtrace, finish, time=DUR, hide, filter, notrace or snapshot"

void trigger_parse(struct trigger *g, const char *arg, int record)
{
	const char *at = strrchr(arg, '@');
	char *acts, *save = NULL;

	memset(g, 0, sizeof(*g));
	if (!at || at == arg || !at[1])
		die_usage("option '-T/--trigger' takes FUNC@ACTION[,ACTION...] (like 'parse@depth=2,backtrace'), "
			  "not '%s'", arg);
	g->glob = xmalloc((size_t)(at - arg) + 1);
	memcpy(g->glob, arg, (size_t)(at - arg));
	g->glob[at - arg] = 0;
	acts = xstrdup(at + 1);
	for (char *a = strtok_r(acts, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
		unsigned flag = 0;
		for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
			if (!strcmp(a, actions[i].name))
				flag = actions[i].flag;
		if (!strncmp(a, "depth=", 6)) {
			flag = TRIG_DEPTH;
			g->depth = (int)parse_uint("-T/--trigger depth=", a + 6, 1u << 30);
			if (!g->depth)
				die_usage("option '-T/--trigger': action 'depth=' takes a depth of at least 1, not '%s'",
					  a + 6);
		} else if (!strncmp(a, "time=", 5)) {
			flag = TRIG_TIME;
			g->time_ns = parse_time_unit("-T/--trigger time=", a + 5, "a duration");
			if (!g->time_ns)
				die_usage("option '-T/--trigger': action 'time=' takes a duration above zero, not '%s'",
					  a + 5);
		}
		if (!flag)
			die_usage("option '-T/--trigger': unknown action '%s' in '%s' (" ACTION_LIST ")", a, arg);
		if (flag == TRIG_SNAPSHOT && !record)
			die_usage("option '-T/--trigger': action 'snapshot' in '%s' works at record time only "
				  "('fntrace record -T %s')", arg, arg);
		g->flags |= flag;
	}
	free(acts);
	if (!g->flags)
		die_usage("option '-T/--trigger' needs an action after '@' in '%s' (" ACTION_LIST ")", arg);
	if ((g->flags & TRIG_ON) && (g->flags & TRIG_OFF))
		die_usage("option '-T/--trigger': '%s' has both trace_on and trace_off", arg);
}

/* "GLOB@ACTION,..." for FNTRACE_FILTERS' "g" lines: time= in ns */
char *trigger_record_text(const struct trigger *g)
{
	char buf[64];
	size_t cap = strlen(g->glob) + 256, len;
	char *s = xmalloc(cap);
	len = (size_t)snprintf(s, cap, "%s@", g->glob);
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (g->flags & actions[i].flag)
			len += (size_t)snprintf(s + len, cap - len, "%s,", actions[i].name);
	if (g->flags & TRIG_DEPTH) {
		snprintf(buf, sizeof(buf), "depth=%d,", g->depth);
		len += (size_t)snprintf(s + len, cap - len, "%s", buf);
	}
	if (g->flags & TRIG_TIME)
		len += (size_t)snprintf(s + len, cap - len, "time=%" PRIu64 ",", g->time_ns);
	s[len - 1] = 0;          /* the last comma */
	return s;
}
