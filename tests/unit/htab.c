// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the hash table (src/util/htab.c): lookups and growth, values sharing a hash,
 * O(1) clearing by generation (its wrap-around included), and the use the rule matcher
 * makes of it: a bounded cache of line -> bitset that clears instead of growing.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/htab.h"
#include "util/util.h"
#include "check-main.h"

static uint64_t h(const char *s)
{
	return lh_hash_fast(s, strlen(s), 0);
}

/* Return: the value stored for key in t whose keys are names[val], or -1. */
static long lookup(const struct lh_htab *t, char names[][16], const char *key)
{
	size_t pos = 0;
	uint32_t v;

	while (lh_htab_find(t, h(key), &pos, &v))
		if (!strcmp(names[v], key))
			return v;
	return -1;
}

START_TEST(empty_table)
{
	struct lh_htab t = { 0 };
	size_t pos = 0;
	uint32_t v;

	ck_assert(!lh_htab_find(&t, 42, &pos, &v));
	ck_assert_uint_eq(lh_htab_bytes(&t), 0);
	ck_assert(lh_htab_will_grow(&t));
	lh_htab_clear(&t);		/* harmless before any add */
	lh_htab_release(&t);
	lh_htab_release(NULL);
}
END_TEST

START_TEST(add_find_grow)
{
	static char names[20000][16];
	struct lh_htab t;
	size_t i;

	lh_htab_init(&t, 1000);
	for (i = 0; i < LH_ARRAY_SIZE(names); i++) {
		snprintf(names[i], sizeof(names[i]), "fn_%zu", i);
		ck_assert_int_eq(lookup(&t, names, names[i]), -1);
		lh_htab_add(&t, h(names[i]), (uint32_t)i);
		if (i == 0)	/* the first allocation: 1000 rounded up to a power of two */
			ck_assert_uint_eq(lh_htab_bytes(&t), 1024 * sizeof(struct lh_htab_slot));
	}
	ck_assert_uint_eq(t.nr, LH_ARRAY_SIZE(names));
	/* never more than half full, so that a probe ends soon */
	ck_assert_uint_ge(t.mask + 1, 2 * t.nr);
	for (i = 0; i < LH_ARRAY_SIZE(names); i++)
		ck_assert_int_eq(lookup(&t, names, names[i]), (long)i);
	ck_assert_int_eq(lookup(&t, names, "fn_20000"), -1);
	lh_htab_release(&t);
	ck_assert_ptr_null(t.slots);
}
END_TEST

START_TEST(values_sharing_a_hash)
{
	struct lh_htab t = { 0 };
	uint32_t v, seen = 0, n = 0;
	size_t pos = 0, i;

	/* 100 values under one hash, and others around them: each one is returned once. */
	for (i = 0; i < 100; i++) {
		lh_htab_add(&t, 7, (uint32_t)i);
		lh_htab_add(&t, 8 + i, 1000);
	}
	while (lh_htab_find(&t, 7, &pos, &v)) {
		ck_assert_uint_eq(v, n);	/* in the order they were added */
		seen |= 1u << (v % 32);
		n++;
	}
	ck_assert_uint_eq(n, 100);
	ck_assert_uint_eq(seen, UINT32_MAX);
	pos = 0;
	ck_assert(!lh_htab_find(&t, 6, &pos, &v));
	lh_htab_release(&t);
}
END_TEST

START_TEST(clear_by_generation)
{
	static char names[3][16] = { "old", "new", "other" };
	struct lh_htab t = { 0 };
	size_t bytes, i;

	lh_htab_add(&t, h("old"), 0);
	bytes = lh_htab_bytes(&t);
	lh_htab_clear(&t);
	ck_assert_int_eq(lookup(&t, names, "old"), -1);
	ck_assert_uint_eq(t.nr, 0);
	ck_assert_uint_eq(lh_htab_bytes(&t), bytes);	/* memory kept for reuse */
	lh_htab_add(&t, h("new"), 1);
	ck_assert_int_eq(lookup(&t, names, "new"), 1);
	/* growing now must not bring back what an older generation held */
	for (i = 0; i < 64; i++)
		lh_htab_add(&t, 1000 + i, 2);
	ck_assert_uint_gt(lh_htab_bytes(&t), bytes);
	ck_assert_int_eq(lookup(&t, names, "old"), -1);
	ck_assert_int_eq(lookup(&t, names, "new"), 1);
	lh_htab_release(&t);

	/*
	 * 2^32 clears bring a generation number back: a slot written then must not come back
	 * to life. Start one clear before the wrap, with "old" left from generation 1.
	 */
	lh_htab_add(&t, h("old"), 0);
	ck_assert_uint_eq(t.gen, 1);
	t.gen = UINT32_MAX;
	lh_htab_add(&t, h("other"), 2);
	lh_htab_clear(&t);
	ck_assert_uint_eq(t.gen, 1);
	ck_assert_int_eq(lookup(&t, names, "old"), -1);
	ck_assert_int_eq(lookup(&t, names, "other"), -1);
	lh_htab_release(&t);
}
END_TEST

/*
 * The rule matcher's use: per distinct line, the bitset of rules that match it, in a cache
 * bounded to limit bytes (slots and entries) that empties itself rather than grow past it.
 */
struct line_cache {
	struct lh_htab	t;
	char		(*lines)[32];
	uint64_t	*bits;
	size_t		nr;
	size_t		max;	/* entries that fit in the bound */
	size_t		limit;
	unsigned long	misses;
	unsigned long	clears;
};

static size_t cache_bytes(const struct line_cache *c)
{
	return lh_htab_bytes(&c->t) + c->nr * (sizeof(*c->lines) + sizeof(*c->bits));
}

static uint64_t line_bits(struct line_cache *c, const char *line, uint64_t computed)
{
	uint64_t hash = h(line);
	size_t pos = 0;
	uint32_t v;

	while (lh_htab_find(&c->t, hash, &pos, &v))
		if (!strcmp(c->lines[v], line))
			return c->bits[v];
	c->misses++;
	/* Doubling the slots would pass the bound: start over instead. */
	if (c->nr == c->max ||
	    (lh_htab_will_grow(&c->t) && 2 * lh_htab_bytes(&c->t) + cache_bytes(c) > c->limit)) {
		lh_htab_clear(&c->t);
		c->nr = 0;
		c->clears++;
	}
	snprintf(c->lines[c->nr], sizeof(c->lines[c->nr]), "%s", line);
	c->bits[c->nr] = computed;
	lh_htab_add(&c->t, hash, (uint32_t)c->nr++);
	ck_assert_uint_le(cache_bytes(c), c->limit);
	return computed;
}

START_TEST(bounded_line_cache)
{
	struct line_cache c = { .limit = 64 * 1024 };
	char line[32];
	size_t i;

	c.max = 1000;
	c.lines = calloc(c.max, sizeof(*c.lines));
	c.bits = calloc(c.max, sizeof(*c.bits));
	lh_htab_init(&c.t, 64);
	for (i = 0; i < 20000; i++) {
		/* 500 distinct lines seen over and over, then 10000 new ones */
		size_t n = i < 10000 ? i % 500 : i;

		snprintf(line, sizeof(line), "frame_%zu+0x1c/0x40", n);
		ck_assert_uint_eq(line_bits(&c, line, n * 0x9e3779b97f4a7c15ULL),
				  n * 0x9e3779b97f4a7c15ULL);
		if (i == 9999) {
			/* each line computed once, then a hit: the cache held them all */
			ck_assert_uint_eq(c.misses, 500);
			ck_assert_uint_eq(c.clears, 0);
		}
	}
	/* 10000 new lines do not fit: cleared as often as needed, bound always kept */
	ck_assert_uint_eq(c.misses, 10500);
	ck_assert_uint_ge(c.clears, 10);
	lh_htab_release(&c.t);
	free(c.lines);
	free(c.bits);
}
END_TEST

static Suite *htab_suite(void)
{
	Suite *s = suite_create("htab");
	TCase *tc = tcase_create("htab");

	tcase_add_test(tc, empty_table);
	tcase_add_test(tc, add_find_grow);
	tcase_add_test(tc, values_sharing_a_hash);
	tcase_add_test(tc, clear_by_generation);
	tcase_add_test(tc, bounded_line_cache);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(htab_suite)
