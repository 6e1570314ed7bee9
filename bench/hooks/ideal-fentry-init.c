/*
 * ideal-fentry-init.c - the cold half of ideal-fentry.S: a thread's first
 * traced call allocates its event ring and its shadow stack.  Built without
 * -pg (nothing here is traced).
 */
#include <stdint.h>
#include <stdlib.h>

#define RING_BYTES (1u << 20)
#define SHADOW_ENTRIES (1u << 16)

struct ideal_tls {
	char *ring;
	uint64_t off;
	uint64_t *shadow_top;
};

__attribute__((visibility("hidden"))) struct ideal_tls *ideal_fentry_tls(void);

void ideal_fentry_init(void)
{
	struct ideal_tls *t = ideal_fentry_tls();
	t->shadow_top = calloc(SHADOW_ENTRIES, 2 * sizeof(uint64_t));
	t->ring = calloc(1, RING_BYTES);
	if (!t->ring || !t->shadow_top)
		abort();
}
