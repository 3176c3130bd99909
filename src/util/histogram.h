/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Latency histograms as the reports carry them: non-empty buckets [lo, hi) in ns with their
 * counts, the exact count, sum, smallest and largest value, and percentiles read from the
 * buckets with the resolution they have. One model for every histogram a report shows: the
 * sections lathound captured (per tracer and CPU), interrupt handler durations, and the
 * histograms the kernel counts (hist.c). Pure: no I/O.
 *
 * Values lathound counts itself go into the buckets of one fixed scheme, the one the
 * kernel-side histograms use (doc/histograms.md), so that histograms of any source add up
 * bucket by bucket: 1 us wide below 100 us, 10 us below 1 ms, 100 us below 10 ms, then
 * powers of two of ns (the first one starting at 10 ms).
 */
#ifndef LH_HISTOGRAM_H
#define LH_HISTOGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lh_histogram_bucket {
	uint64_t	lo_ns;
	uint64_t	hi_ns;		/* first value past the bucket; > lo_ns */
	uint64_t	count;
};

struct lh_histogram {
	struct lh_histogram_bucket	*b;	/* non-empty, ascending, disjoint */
	size_t				nr;
	size_t				alloc;
	uint64_t			count;
	uint64_t			sum_ns;		/* for the mean; saturates */
	/*
	 * The extremes: the values seen when they are known (lh_histogram_add()), else the
	 * lowest bucket's lo and the highest one's hi, bounds that lh_histogram_add_bucket()
	 * keeps.
	 */
	uint64_t			min_ns;
	uint64_t			max_ns;
	uint64_t			dropped;	/* values the source could not count */
};

/*
 * The fixed scheme's tiers, ascending and adjacent: linear ones (1 us wide below 100 us,
 * 10 us below 1 ms, 100 us below 10 ms), then powers of two of ns from 10 ms. The kernel's
 * histograms (hist.c) put one hist trigger on each, so that theirs and lathound's own add up
 * bucket by bucket.
 */
struct lh_histogram_tier {
	uint64_t	lo_ns;		/* first value of the tier */
	uint64_t	hi_ns;		/* first value past it; UINT64_MAX for the last */
	uint64_t	width_ns;	/* bucket width; 0: log2 buckets */
};

#define LH_HISTOGRAM_NR_TIERS	4
extern const struct lh_histogram_tier lh_histogram_tiers[LH_HISTOGRAM_NR_TIERS];

/* Frees the buckets; h is zeroed, ready for reuse. */
void lh_histogram_release(struct lh_histogram *h);
/* Makes dst (released first) a copy of src. */
void lh_histogram_copy(struct lh_histogram *dst, const struct lh_histogram *src);

/* Return: the bucket of the fixed scheme that holds ns, as *lo_ns and *hi_ns. */
void lh_histogram_bucket_of(uint64_t ns, uint64_t *lo_ns, uint64_t *hi_ns);

/* Counts one value of ns in its bucket of the fixed scheme; min and max are exact. */
void lh_histogram_add(struct lh_histogram *h, uint64_t ns);

/*
 * Adds count values known only to lie in [lo_ns, hi_ns): a bucket of another histogram.
 * Equal buckets add up; the extremes widen to the bucket's bounds when it is beyond them.
 * The sum is not touched (the caller knows it or not). Return: 0, or -1 when the bucket is
 * empty (hi <= lo) or overlaps a different one (h is then unchanged).
 */
int lh_histogram_add_bucket(struct lh_histogram *h, uint64_t lo_ns, uint64_t hi_ns,
			    uint64_t count);

/*
 * Adds src's buckets, count, sum, extremes and dropped to dst. Return: 0, or -1 when a
 * bucket of src overlaps a different one of dst (dst is then unchanged).
 */
int lh_histogram_merge(struct lh_histogram *dst, const struct lh_histogram *src);

#define LH_HISTOGRAM_NR_PCT	4

/* The percentiles reported, in this order, and their names in reports ("p99_9"). */
extern const double lh_histogram_pct[LH_HISTOGRAM_NR_PCT];
extern const char *const lh_histogram_pct_key[LH_HISTOGRAM_NR_PCT];
/* As people write them: "p50", "p99", "p99.9", "p99.99". */
extern const char *const lh_histogram_pct_name[LH_HISTOGRAM_NR_PCT];

/*
 * Where percentile i lies: the bucket holding the ceil(q * count)-th smallest value (the
 * nearest rank), narrowed to the extremes. The value is at most *hi_ns and at least *lo_ns;
 * *hi_ns is what reports show ("p99 <= hi"), hi - lo its resolution (0: exact).
 * Return: false when the histogram is empty.
 */
bool lh_histogram_percentile(const struct lh_histogram *h, unsigned int i, uint64_t *lo_ns,
			     uint64_t *hi_ns);

/* Return: the mean in ns, 0 when empty. */
double lh_histogram_mean_ns(const struct lh_histogram *h);

/*
 * Counts in rows for a person to read (text and HTML reports): rows bounded by 1-2-5 steps
 * (1, 2, 5, 10, 20, 50, 100... us), from the lowest bucket to the highest, empty rows
 * between them included. A bucket goes in the row its lo is in; when it reaches past the
 * row's end the row is widened to the bucket's hi, so that a row's bounds are always true.
 * Return: the number of rows (at most max) filled in rows[].
 */
struct lh_histogram_row {
	uint64_t	lo_ns;
	uint64_t	hi_ns;
	uint64_t	count;
};

size_t lh_histogram_rows(const struct lh_histogram *h, struct lh_histogram_row *rows,
			 size_t max);

#define LH_HISTOGRAM_MAX_ROWS	64	/* 1-2-5 rows from 1 ns to UINT64_MAX: < 64 */

#endif /* LH_HISTOGRAM_H */
