/*
 * perf-match.h - the calls the trace says were open in a perf sample's
 * thread at the sample's time, matched to the sample's callchain
 * (perf-chain.c), for the commands that put perf's real frames back:
 * `perf-script` (perf script's text) and `perf-inject` (perf.data).
 *
 * One walk of the trace (the call layer, every frame), one thread at a
 * time, with that thread's samples (by tid) sorted by time beside it: each
 * state of its stack is tried on the samples within the window of it
 * (pc_match_state_by), and match[i] says what sample i got.
 */
#ifndef FNT_PERF_MATCH_H
#define FNT_PERF_MATCH_H

#include "tool/perf-chain.h"
#include "tool/tool.h"

/* samples[0..n) (tid and ns in perf's clock, -k mono: CLOCK_MONOTONIC) ->
 * match[0..n) (zeroed by the caller; each text is the caller's to free) */
void perf_match_walk(struct view *v, const struct pc_sample *samples, size_t n, uint64_t window,
		     pc_render_fn render, struct pc_match *match);

#endif
