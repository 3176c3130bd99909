// SPDX-License-Identifier: GPL-2.0-only
/* The one hash table (see htab.h): open addressing, hashes the caller computes. */
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "util.h"

void lh_htab_init(struct lh_htab *t, size_t min_slots)
{
	size_t n = LH_HTAB_MIN;

	memset(t, 0, sizeof(*t));
	if (min_slots)
		for (n = 1; n < min_slots; n *= 2)
			;
	t->min = n;
}

void lh_htab_release(struct lh_htab *t)
{
	size_t min;

	if (!t)
		return;
	min = t->min;
	free(t->slots);
	memset(t, 0, sizeof(*t));
	t->min = min;
}

void lh_htab_clear(struct lh_htab *t)
{
	t->nr = 0;
	if (!t->slots)
		return;
	/* Slots of older generations read as free; only a wrap-around needs them wiped. */
	if (++t->gen == 0) {
		memset(t->slots, 0, (t->mask + 1) * sizeof(*t->slots));
		t->gen = 1;
	}
}

void lh_htab_grow(struct lh_htab *t)
{
	size_t n = t->slots ? (t->mask + 1) * 2 : (t->min ? t->min : LH_HTAB_MIN), i;
	struct lh_htab_slot *slots;

	/* At most half full after the add: a probe always ends on a free slot. */
	while ((t->nr + 1) * 2 > n) {
		if (n > SIZE_MAX / 4 / sizeof(*slots))
			lh_oom();
		n *= 2;
	}
	slots = lh_xcalloc(n, sizeof(*slots));
	for (i = 0; t->slots && i <= t->mask; i++)
		if (t->slots[i].gen == t->gen)
			lh_htab_put(slots, n - 1, 1, t->slots[i].hash, t->slots[i].val);
	free(t->slots);
	t->slots = slots;
	t->mask = n - 1;
	t->gen = 1;	/* calloc'ed slots are generation 0: free */
}
