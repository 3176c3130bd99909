/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A run as Prometheus metrics, in the text exposition format (0.0.4) that node_exporter's
 * textfile collector reads and 'promtool check metrics' lints: per tracer and CPU the worst
 * section and a histogram of sections, captures and losses, rule hits, IRQ handler
 * statistics, the histograms counted in the kernel and the run's state (doc/metrics.md lists every series).
 *
 * Units are seconds and values exact ("0.002001", from integer ns), every family has HELP
 * and TYPE, and no sample carries a timestamp (the textfile collector refuses them). Labels
 * say nothing about the host: node_exporter adds the instance. Label values are escaped as
 * the format says, and bytes that are neither printable ASCII nor printable UTF-8 are
 * written as the text "\xHH", so that text from a trace never breaks the file.
 *
 * The pieces (a family's header, a sample, a histogram) are exported so that other sources
 * of histograms go through the same writer. Pure: writes to a FILE *, no other I/O.
 */
#ifndef LH_METRICS_H
#define LH_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "trace/record.h"

/*
 * A histogram as Prometheus wants one: counts by inclusive upper bound. count[i] holds the
 * values in (le_ns[i - 1], le_ns[i]] (not cumulative: the writer sums them), count[nr] the
 * values above the last bound. sum_ns is the sum of every value.
 */
struct lh_metrics_hist {
	const uint64_t	*le_ns;		/* nr bounds, ascending */
	size_t		nr;
	const uint64_t	*count;		/* nr + 1 */
	uint64_t	sum_ns;
};

/*
 * The bucket of le_ns[0..nr) for values of at most max_ns. A source's bucket of integer ns
 * [lo, hi) goes to lh_metrics_bucket(le_ns, nr, hi - 1): where it fits between two bounds,
 * or else in the bucket above, so that no value is ever shown below what it may be.
 * Return: the index of the first bound >= max_ns, or nr (above the last bound).
 */
size_t lh_metrics_bucket(const uint64_t *le_ns, size_t nr, uint64_t max_ns);

/* One label of a sample: name (a Prometheus label name) and its value (any text). */
struct lh_metrics_label {
	const char	*name;
	const char	*value;
};

/*
 * Starts a metric family: its "# HELP" and "# TYPE" lines. type is "gauge", "counter" or
 * "histogram"; a counter's name ends in "_total". Its samples follow, and no other family's.
 */
void lh_metrics_family(FILE *out, const char *name, const char *type, const char *help);
/* One sample: name{labels} v (nr labels; 0 writes none). */
void lh_metrics_u64(FILE *out, const char *name, const struct lh_metrics_label *l, size_t nr,
		    uint64_t v);
/* One sample of ns written as seconds, exactly ("0.002001"). */
void lh_metrics_seconds(FILE *out, const char *name, const struct lh_metrics_label *l,
			size_t nr, uint64_t ns);
/*
 * The samples of one histogram with labels l: name_bucket{...,le="..."} cumulative, "+Inf"
 * last (the count of every value), name_sum in seconds and name_count.
 */
void lh_metrics_histogram(FILE *out, const char *name, const struct lh_metrics_label *l,
			  size_t nr, const struct lh_metrics_hist *h);

/* What the report does not hold of a live run, at the time of writing. */
struct lh_metrics_run {
	unsigned int	tracers;	/* armed in turn (1 << t); their series are written, zeros too */
	unsigned int	wanted;		/* the run was to measure these (--tracer) */
	enum lh_tracer	armed;		/* LH_TRACER_UNKNOWN: none */
	bool		running;	/* false: the run is over, its final state */
	uint64_t	now_ns;		/* CLOCK_REALTIME of this write */
	unsigned long	captured[LH_TRACER_NR];	/* sections read, per tracer */
	unsigned long	lost[LH_TRACER_NR];	/* notified but never read, per tracer */
};

/*
 * Writes the metrics of rep (of a live run: lh_report_set_run() was called) and run to out.
 * The report is evaluated first when it was not (lh_report_write()'s default gate).
 * Return: 0, or -1 with errno set when writing failed.
 */
int lh_metrics_write(struct lh_report *rep, const struct lh_metrics_run *run, FILE *out);

#endif /* LH_METRICS_H */
