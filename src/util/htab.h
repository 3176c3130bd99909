/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one hash table: open addressing with linear probing, keyed by a 64-bit hash that the
 * caller computes (lh_hash_fast()), holding 32-bit values (an index into the caller's own
 * array). The table never sees keys: a lookup returns every value stored under the hash and
 * the caller compares its own key, so any key fits (a function name, a signature, a
 * (cpu, irq, name) triple, a line of text whose value indexes a cached bitset).
 *
 *	uint64_t h = lh_hash_fast(name, len, 0);
 *	size_t pos = 0;
 *	uint32_t i;
 *
 *	while (lh_htab_find(&t, h, &pos, &i))
 *		if (same_key(&items[i], name, len))
 *			return &items[i];
 *	lh_htab_add(&t, h, new_item(...));
 *
 * Clearing is O(1) (a generation number, so a parser can empty its table per record), and
 * the memory is the caller's to bound: lh_htab_bytes() and lh_htab_will_grow() let a
 * cache decide to clear rather than grow. No removal: none of lathound's tables needs it.
 * A zeroed struct lh_htab is an empty table.
 */
#ifndef LH_HTAB_H
#define LH_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LH_HTAB_MIN	16	/* slots allocated by the first lh_htab_add() by default */

struct lh_htab_slot {
	uint64_t	hash;
	uint32_t	gen;	/* in use when equal to the table's gen */
	uint32_t	val;
};

struct lh_htab {
	struct lh_htab_slot	*slots;	/* NULL until the first lh_htab_add() */
	size_t			mask;	/* slots - 1, slots a power of two */
	size_t			nr;	/* values added since the last clear */
	size_t			min;	/* slots of the first allocation (0: LH_HTAB_MIN) */
	uint32_t		gen;
};

/* Makes t empty, its first allocation min_slots (rounded up to a power of two; 0: default). */
void lh_htab_init(struct lh_htab *t, size_t min_slots);
/* Frees the slots; t is an empty table again. NULL-safe. */
void lh_htab_release(struct lh_htab *t);
/* Empties t in O(1), keeping its slots for reuse. */
void lh_htab_clear(struct lh_htab *t);
/* Allocates t's first slots, or twice as many (for lh_htab_add()); lh_oom() on ENOMEM. */
void lh_htab_grow(struct lh_htab *t);

/* Return: whether the next lh_htab_add() allocates (first slots, or twice as many). */
static inline bool lh_htab_will_grow(const struct lh_htab *t)
{
	return !t->slots || (t->nr + 1) * 2 > t->mask + 1;
}

/* Puts val under hash in the first free slot from hash's (slots[mask + 1], in use: gen). */
static inline void lh_htab_put(struct lh_htab_slot *slots, size_t mask, uint32_t gen,
			       uint64_t hash, uint32_t val)
{
	size_t i = (size_t)hash & mask;

	while (slots[i].gen == gen)
		i = (i + 1) & mask;
	slots[i] = (struct lh_htab_slot){ .hash = hash, .gen = gen, .val = val };
}

/*
 * Stores val under hash (a hash may hold several values: the caller looked its key up
 * first). Doubles the slots when they would be more than half full; lh_oom() on ENOMEM.
 * Inline, for the parser's every new function name.
 */
static inline void lh_htab_add(struct lh_htab *t, uint64_t hash, uint32_t val)
{
	if (lh_htab_will_grow(t))
		lh_htab_grow(t);
	lh_htab_put(t->slots, t->mask, t->gen, hash, val);
	t->nr++;
}

/* Return: the bytes the slots take now. */
static inline size_t lh_htab_bytes(const struct lh_htab *t)
{
	return t->slots ? (t->mask + 1) * sizeof(*t->slots) : 0;
}

/*
 * The lookup: the next value stored under hash, probing from *pos (0 for the first call;
 * advanced past what was returned). Inline, for the parser's hottest loop.
 * Return: true and *val, or false when no more value has that hash.
 */
static inline bool lh_htab_find(const struct lh_htab *t, uint64_t hash, size_t *pos,
				 uint32_t *val)
{
	const struct lh_htab_slot *s;

	if (!t->slots)
		return false;
	for (;;) {
		s = &t->slots[((size_t)hash + *pos) & t->mask];
		if (s->gen != t->gen)
			return false;
		++*pos;
		if (s->hash == hash) {
			*val = s->val;
			return true;
		}
	}
}

#endif /* LH_HTAB_H */
