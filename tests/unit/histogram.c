// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the histogram type (src/util/histogram.c): the fixed bucket scheme at its tier
 * edges, exact extremes and count, percentiles by nearest rank with their resolution, buckets
 * of another source and merges (overlaps refused, dst unchanged), and the 1-2-5 rows people
 * read.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/histogram.h"
#include "check-main.h"

#define US	1000ULL
#define MS	1000000ULL

START_TEST(scheme_edges)
{
	static const struct { uint64_t ns, lo, hi; } t[] = {
		{ 0, 0, US },
		{ 999, 0, US },
		{ 1000, US, 2 * US },
		{ 99999, 99 * US, 100 * US },
		{ 100 * US, 100 * US, 110 * US },
		{ 999999, 990 * US, MS },
		{ MS, MS, MS + 100 * US },
		{ 10 * MS - 1, 10 * MS - 100 * US, 10 * MS },
		{ 10 * MS, 10 * MS, 1ULL << 24 },		/* first power of two, cut at 10 ms */
		{ 1ULL << 24, 1ULL << 24, 1ULL << 25 },
		{ UINT64_MAX, 1ULL << 63, UINT64_MAX },
	};
	uint64_t lo, hi;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		lh_histogram_bucket_of(t[i].ns, &lo, &hi);
		ck_assert_msg(lo == t[i].lo && hi == t[i].hi, "%llu: [%llu, %llu)",
			      (unsigned long long)t[i].ns, (unsigned long long)lo,
			      (unsigned long long)hi);
	}
	/* The tiers the kernel's triggers are made of (hist.c) are the buckets' own. */
	for (i = 0; i < LH_HISTOGRAM_NR_TIERS; i++) {
		const struct lh_histogram_tier *tr = &lh_histogram_tiers[i];

		lh_histogram_bucket_of(tr->lo_ns, &lo, &hi);
		ck_assert_uint_eq(lo, tr->lo_ns);
		if (tr->width_ns)
			ck_assert_uint_eq(hi - lo, tr->width_ns);
		lh_histogram_bucket_of(tr->hi_ns - 1, &lo, &hi);
		ck_assert_uint_eq(hi, tr->hi_ns);
	}
}
END_TEST

START_TEST(add_counts_and_extremes)
{
	struct lh_histogram h = { 0 };
	uint64_t lo, hi;

	ck_assert(!lh_histogram_percentile(&h, 0, &lo, &hi));
	ck_assert(lh_histogram_mean_ns(&h) == 0);
	lh_histogram_add(&h, 39 * US);
	lh_histogram_add(&h, 39 * US + 500);
	lh_histogram_add(&h, 2093 * US);
	ck_assert_uint_eq(h.count, 3);
	ck_assert_uint_eq(h.nr, 2);
	ck_assert_uint_eq(h.b[0].count, 2);
	ck_assert_uint_eq(h.min_ns, 39 * US);
	ck_assert_uint_eq(h.max_ns, 2093 * US);
	ck_assert_uint_eq(h.sum_ns, 2171 * US + 500);
	lh_histogram_release(&h);
	ck_assert_uint_eq(h.nr, 0);
	ck_assert_ptr_null(h.b);
}
END_TEST

START_TEST(percentiles_nearest_rank)
{
	struct lh_histogram h = { 0 };
	uint64_t lo, hi;
	int i;

	/* 99 values of 10.x us, one of 2093 us */
	for (i = 0; i < 99; i++)
		lh_histogram_add(&h, 10 * US + (uint64_t)i);
	lh_histogram_add(&h, 2093 * US);
	ck_assert(lh_histogram_percentile(&h, 0, &lo, &hi));		/* p50 */
	ck_assert_uint_eq(lo, 10 * US);
	ck_assert_uint_eq(hi, 11 * US);
	ck_assert(lh_histogram_percentile(&h, 1, &lo, &hi));		/* p99: the 99th */
	ck_assert_uint_eq(hi, 11 * US);
	ck_assert(lh_histogram_percentile(&h, 2, &lo, &hi));		/* p99.9: the 100th */
	ck_assert_uint_eq(lo, 2000 * US);				/* [2ms, 2.1ms) */
	ck_assert_uint_eq(hi, 2093 * US);			/* narrowed to the max */
	ck_assert(!lh_histogram_percentile(&h, LH_HISTOGRAM_NR_PCT, &lo, &hi));
	lh_histogram_release(&h);

	lh_histogram_add(&h, 46 * US);					/* one value: exact */
	ck_assert(lh_histogram_percentile(&h, 3, &lo, &hi));
	ck_assert_uint_eq(lo, 46 * US);
	ck_assert_uint_eq(hi, 46 * US);
	lh_histogram_release(&h);
}
END_TEST

/*
 * Ranks of counts whose product by 9999 does not fit 64 bits: the nearest rank is still
 * exact (no 128-bit type on 32-bit ARM to lean on).
 */
START_TEST(percentiles_huge_counts)
{
	struct lh_histogram h = { 0 };
	uint64_t lo, hi, below = UINT64_MAX / 10000 * 9999;	/* rank of p99.99 - 1 */

	ck_assert_int_eq(lh_histogram_add_bucket(&h, 1 * US, 2 * US, below), 0);
	ck_assert_int_eq(lh_histogram_add_bucket(&h, 5 * US, 10 * US, UINT64_MAX - below), 0);
	ck_assert_uint_eq(h.count, UINT64_MAX);
	ck_assert(lh_histogram_percentile(&h, 2, &lo, &hi));		/* p99.9: first bucket */
	ck_assert_uint_eq(lo, 1 * US);
	ck_assert(lh_histogram_percentile(&h, 3, &lo, &hi));		/* p99.99: the second */
	ck_assert_uint_eq(lo, 5 * US);
	lh_histogram_release(&h);

	/* p99.99 of 10000 is the 9999th, of 10001 the 10000th (rounded up, not down) */
	ck_assert_int_eq(lh_histogram_add_bucket(&h, 1 * US, 2 * US, 9999), 0);
	ck_assert_int_eq(lh_histogram_add_bucket(&h, 5 * US, 10 * US, 1), 0);
	ck_assert(lh_histogram_percentile(&h, 3, &lo, &hi));
	ck_assert_uint_eq(lo, 1 * US);
	ck_assert_int_eq(lh_histogram_add_bucket(&h, 5 * US, 10 * US, 1), 0);
	ck_assert(lh_histogram_percentile(&h, 3, &lo, &hi));
	ck_assert_uint_eq(lo, 5 * US);
	lh_histogram_release(&h);
}
END_TEST

START_TEST(foreign_buckets_and_merge)
{
	struct lh_histogram a = { 0 }, b = { 0 }, c = { 0 };

	ck_assert_int_eq(lh_histogram_add_bucket(&a, 5, 5, 1), -1);	/* empty */
	ck_assert_int_eq(lh_histogram_add_bucket(&a, 0, 1000, 0), 0);	/* nothing */
	ck_assert_uint_eq(a.nr, 0);
	ck_assert_int_eq(lh_histogram_add_bucket(&a, 2 * US, 4 * US, 3), 0);
	ck_assert_int_eq(lh_histogram_add_bucket(&a, 2 * US, 4 * US, 2), 0);	/* adds up */
	ck_assert_uint_eq(a.nr, 1);
	ck_assert_uint_eq(a.count, 5);
	ck_assert_uint_eq(a.min_ns, 2 * US);
	ck_assert_uint_eq(a.max_ns, 4 * US);
	ck_assert_int_eq(lh_histogram_add_bucket(&a, 3 * US, 5 * US, 1), -1);	/* overlaps */
	ck_assert_uint_eq(a.count, 5);

	lh_histogram_add(&b, 3 * US + 1);	/* [3us, 4us): overlaps a's [2us, 4us) */
	ck_assert_int_eq(lh_histogram_merge(&a, &b), -1);
	ck_assert_uint_eq(a.count, 5);
	ck_assert_uint_eq(a.nr, 1);

	lh_histogram_add(&c, 50 * US);
	c.dropped = 7;
	ck_assert_int_eq(lh_histogram_merge(&a, &c), 0);
	ck_assert_uint_eq(a.count, 6);
	ck_assert_uint_eq(a.nr, 2);
	ck_assert_uint_eq(a.max_ns, 50 * US);
	ck_assert_uint_eq(a.dropped, 7);
	lh_histogram_release(&a);
	lh_histogram_release(&b);
	lh_histogram_release(&c);
}
END_TEST

START_TEST(rows_125)
{
	struct lh_histogram h = { 0 };
	struct lh_histogram_row r[LH_HISTOGRAM_MAX_ROWS];
	size_t n;

	ck_assert_uint_eq(lh_histogram_rows(&h, r, LH_HISTOGRAM_MAX_ROWS), 0);
	lh_histogram_add(&h, 39 * US);
	lh_histogram_add(&h, 520 * US);
	lh_histogram_add(&h, 1999 * US);
	n = lh_histogram_rows(&h, r, LH_HISTOGRAM_MAX_ROWS);
	/* 20-50, 50-100, 100-200, 200-500, 500-1000, 1000-2000 us */
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(r[0].lo_ns, 20 * US);
	ck_assert_uint_eq(r[0].hi_ns, 50 * US);
	ck_assert_uint_eq(r[0].count, 1);
	ck_assert_uint_eq(r[1].count, 0);
	ck_assert_uint_eq(r[4].count, 1);
	ck_assert_uint_eq(r[5].lo_ns, 1000 * US);
	ck_assert_uint_eq(r[5].hi_ns, 2000 * US);
	ck_assert_uint_eq(r[5].count, 1);
	ck_assert_uint_eq(lh_histogram_rows(&h, r, 2), 2);
	lh_histogram_release(&h);

	/* a bucket reaching past its row widens the row: [10ms, 2^24 ns) in 10-20 ms */
	lh_histogram_add(&h, 10 * MS);
	n = lh_histogram_rows(&h, r, LH_HISTOGRAM_MAX_ROWS);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(r[0].lo_ns, 10 * MS);
	ck_assert_uint_eq(r[0].hi_ns, 20 * MS);
	lh_histogram_release(&h);
}
END_TEST

static Suite *histogram_suite(void)
{
	Suite *s = suite_create("histogram");
	TCase *tc = tcase_create("histogram");

	tcase_add_test(tc, scheme_edges);
	tcase_add_test(tc, add_counts_and_extremes);
	tcase_add_test(tc, percentiles_nearest_rank);
	tcase_add_test(tc, percentiles_huge_counts);
	tcase_add_test(tc, foreign_buckets_and_merge);
	tcase_add_test(tc, rows_125);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(histogram_suite)
