// SPDX-License-Identifier: GPL-2.0-only
/*
 * Latency histograms: buckets kept sorted and sparse (only those that counted something),
 * percentiles by nearest rank with the resolution of their bucket, and 1-2-5 rows for
 * people. No I/O.
 */
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "util.h"

const double lh_histogram_pct[LH_HISTOGRAM_NR_PCT] = { 0.5, 0.99, 0.999, 0.9999 };
const char *const lh_histogram_pct_key[LH_HISTOGRAM_NR_PCT] = {
	"p50", "p99", "p99_9", "p99_99",
};
const char *const lh_histogram_pct_name[LH_HISTOGRAM_NR_PCT] = {
	"p50", "p99", "p99.9", "p99.99",
};
/* The same as fractions, for exact ranks: num / den. */
static const uint64_t pct_num[LH_HISTOGRAM_NR_PCT] = { 1, 99, 999, 9999 };
static const uint64_t pct_den[LH_HISTOGRAM_NR_PCT] = { 2, 100, 1000, 10000 };

/* doc/histograms.md says why these widths */
const struct lh_histogram_tier lh_histogram_tiers[LH_HISTOGRAM_NR_TIERS] = {
	{ 0,		100000,		1000 },		/* below 100 us: 1 us */
	{ 100000,	1000000,	10000 },	/* below 1 ms: 10 us */
	{ 1000000,	10000000,	100000 },	/* below 10 ms: 100 us */
	{ 10000000,	UINT64_MAX,	0 },		/* powers of two */
};

void lh_histogram_release(struct lh_histogram *h)
{
	free(h->b);
	memset(h, 0, sizeof(*h));
}

void lh_histogram_copy(struct lh_histogram *dst, const struct lh_histogram *src)
{
	lh_histogram_release(dst);
	*dst = *src;
	dst->b = NULL;
	dst->alloc = 0;
	if (src->nr) {
		LH_GROW(dst->b, src->nr, dst->alloc);
		memcpy(dst->b, src->b, src->nr * sizeof(*dst->b));
	}
}

void lh_histogram_bucket_of(uint64_t ns, uint64_t *lo_ns, uint64_t *hi_ns)
{
	const struct lh_histogram_tier *log2 = &lh_histogram_tiers[LH_HISTOGRAM_NR_TIERS - 1];
	size_t i;
	unsigned int k;

	for (i = 0; i < LH_HISTOGRAM_NR_TIERS - 1; i++) {
		if (ns < lh_histogram_tiers[i].hi_ns) {
			*lo_ns = ns - ns % lh_histogram_tiers[i].width_ns;
			*hi_ns = *lo_ns + lh_histogram_tiers[i].width_ns;
			return;
		}
	}
	/* [2^k, 2^(k+1)), the first one cut at the tier's start; the last ends at UINT64_MAX */
	k = 63 - (unsigned int)__builtin_clzll(ns);
	*lo_ns = 1ULL << k;
	if (*lo_ns < log2->lo_ns)
		*lo_ns = log2->lo_ns;
	*hi_ns = k == 63 ? UINT64_MAX : 2ULL << k;
}

/* Return: the index of the first bucket whose hi is above lo_ns (h->nr when none). */
static size_t find(const struct lh_histogram *h, uint64_t lo_ns)
{
	size_t a = 0, z = h->nr;

	while (a < z) {
		size_t m = a + (z - a) / 2;

		if (h->b[m].hi_ns <= lo_ns)
			a = m + 1;
		else
			z = m;
	}
	return a;
}

/* Return: bucket [lo, hi) of h, inserted empty when new; NULL when it overlaps another. */
static struct lh_histogram_bucket *bucket(struct lh_histogram *h, uint64_t lo_ns,
					  uint64_t hi_ns)
{
	size_t i = find(h, lo_ns);

	if (i < h->nr && h->b[i].lo_ns == lo_ns && h->b[i].hi_ns == hi_ns)
		return &h->b[i];
	if (i < h->nr && h->b[i].lo_ns < hi_ns)
		return NULL;
	LH_GROW(h->b, h->nr + 1, h->alloc);
	memmove(&h->b[i + 1], &h->b[i], (h->nr - i) * sizeof(*h->b));
	h->nr++;
	h->b[i] = (struct lh_histogram_bucket){ lo_ns, hi_ns, 0 };
	return &h->b[i];
}

static void widen(struct lh_histogram *h, bool was_empty, uint64_t lo_ns, uint64_t hi_ns)
{
	if (was_empty || lo_ns < h->min_ns)
		h->min_ns = lo_ns;
	if (was_empty || hi_ns > h->max_ns)
		h->max_ns = hi_ns;
}

void lh_histogram_add(struct lh_histogram *h, uint64_t ns)
{
	uint64_t lo, hi;

	lh_histogram_bucket_of(ns, &lo, &hi);
	/* a value never overlaps: the scheme's buckets only meet the scheme's */
	bucket(h, lo, hi)->count++;
	widen(h, !h->count, ns, ns);
	h->count++;
	h->sum_ns = lh_sat_add(h->sum_ns, ns);
}

int lh_histogram_add_bucket(struct lh_histogram *h, uint64_t lo_ns, uint64_t hi_ns,
			    uint64_t count)
{
	struct lh_histogram_bucket *b;

	if (hi_ns <= lo_ns)
		return -1;
	if (!count)
		return 0;
	b = bucket(h, lo_ns, hi_ns);
	if (!b)
		return -1;
	b->count = lh_sat_add(b->count, count);
	widen(h, !h->count, lo_ns, hi_ns);
	h->count = lh_sat_add(h->count, count);
	return 0;
}

int lh_histogram_merge(struct lh_histogram *dst, const struct lh_histogram *src)
{
	struct lh_histogram sum = { 0 };
	size_t i;

	if (!src->count && !src->dropped)
		return 0;
	lh_histogram_copy(&sum, dst);
	for (i = 0; i < src->nr; i++) {
		struct lh_histogram_bucket *b = bucket(&sum, src->b[i].lo_ns, src->b[i].hi_ns);

		if (!b) {
			lh_histogram_release(&sum);
			return -1;
		}
		b->count = lh_sat_add(b->count, src->b[i].count);
	}
	if (src->count) {
		widen(&sum, !dst->count, src->min_ns, src->max_ns);
		sum.count = lh_sat_add(dst->count, src->count);
	}
	sum.sum_ns = lh_sat_add(dst->sum_ns, src->sum_ns);
	sum.dropped = lh_sat_add(dst->dropped, src->dropped);
	lh_histogram_release(dst);
	*dst = sum;
	return 0;
}

/*
 * Return: ceil(count * num / den), without overflow and without a 128-bit type (32-bit ARM
 * has none): count = q * den + r, so the rank is q * num + ceil(r * num / den), where
 * r * num < den * num stays small.
 */
static uint64_t rank(uint64_t count, unsigned int i)
{
	uint64_t q = count / pct_den[i], r = count % pct_den[i];

	return q * pct_num[i] + (r * pct_num[i] + pct_den[i] - 1) / pct_den[i];
}

bool lh_histogram_percentile(const struct lh_histogram *h, unsigned int i, uint64_t *lo_ns,
			     uint64_t *hi_ns)
{
	uint64_t want, seen = 0;
	size_t k;

	if (!h->count || !h->nr || i >= LH_HISTOGRAM_NR_PCT)
		return false;
	want = rank(h->count, i);
	if (!want)
		want = 1;
	for (k = 0; k + 1 < h->nr; k++) {
		seen = lh_sat_add(seen, h->b[k].count);
		if (seen >= want)
			break;
	}
	*lo_ns = h->b[k].lo_ns > h->min_ns ? h->b[k].lo_ns : h->min_ns;
	*hi_ns = h->b[k].hi_ns < h->max_ns ? h->b[k].hi_ns : h->max_ns;
	if (*lo_ns > *hi_ns)	/* inconsistent extremes from a file: the bucket alone */
		*lo_ns = h->b[k].lo_ns, *hi_ns = h->b[k].hi_ns;
	return true;
}

double lh_histogram_mean_ns(const struct lh_histogram *h)
{
	return h->count ? (double)h->sum_ns / (double)h->count : 0;
}

/* Return: the first 1-2-5 step (1, 2, 5, 10, 20... ns) above ns; UINT64_MAX past them. */
static uint64_t next_step(uint64_t ns)
{
	static const unsigned int mant[] = { 1, 2, 5 };
	uint64_t decade;
	size_t m;

	for (decade = 1;; decade *= 10) {
		for (m = 0; m < LH_ARRAY_SIZE(mant); m++)
			if (mant[m] * decade > ns)
				return mant[m] * decade;
		if (decade > UINT64_MAX / 100)
			return UINT64_MAX;
	}
}

size_t lh_histogram_rows(const struct lh_histogram *h, struct lh_histogram_row *rows,
			 size_t max)
{
	size_t n = 0, k = 0;
	uint64_t lo;

	if (!h->nr || !max)
		return 0;
	/* the row holding the first bucket: its 1-2-5 step at or below that bucket's lo */
	lo = 0;
	while (next_step(lo) <= h->b[0].lo_ns && next_step(lo) != UINT64_MAX)
		lo = next_step(lo);
	while (k < h->nr && n < max) {
		struct lh_histogram_row *r = &rows[n++];

		r->lo_ns = lo;
		r->hi_ns = next_step(lo);
		r->count = 0;
		for (; k < h->nr && h->b[k].lo_ns < r->hi_ns; k++) {
			r->count = lh_sat_add(r->count, h->b[k].count);
			if (h->b[k].hi_ns > r->hi_ns)
				r->hi_ns = h->b[k].hi_ns;
		}
		lo = r->hi_ns;
		if (lo == UINT64_MAX)
			break;
	}
	return n;
}
