/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-IRQ handler statistics from irq_handler_entry/exit events: count, max, mean, p99
 * and a log2 histogram per (cpu, irq, name). Pure: fed with decoded events, no I/O.
 * Memory is bounded: at most LH_IRQSTAT_MAX entries, further ones are counted as dropped.
 */
#ifndef LH_IRQSTAT_H
#define LH_IRQSTAT_H

#include <stdint.h>
#include <stddef.h>

#include "util/histogram.h"

#define LH_IRQSTAT_BUCKETS	32	/* bucket b counts durations in [2^b, 2^(b+1)) ns */
#define LH_IRQSTAT_MAX		4096
#define LH_IRQSTAT_MAX_CPUS	1024
#define LH_IRQSTAT_NAME		32

struct lh_irqstat_entry {
	int		cpu;
	int		irq;
	char		name[LH_IRQSTAT_NAME];
	uint64_t	count;
	uint64_t	max_ns;
	uint64_t	sum_ns;
	/*
	 * The durations in log2 buckets, beside dist: the JSON report's 'histogram' and
	 * 'p99_us' of a handler are these buckets, and doc/report-json.md keeps a field within
	 * a report_version. dist cannot stand in: its 1 us buckets straddle 2^k ns (a run of
	 * 1010 ns is in [1000, 2000) ns, its log2 bucket is [512, 1024)). The metrics' handler
	 * histogram reads these too, its le being 2^k - 1 ns.
	 */
	uint64_t	hist[LH_IRQSTAT_BUCKETS];
	/* the durations in the fixed buckets of histogram.h: the percentiles reports show */
	struct lh_histogram dist;
};

struct lh_irqstat;

/* Return: empty statistics; free with lh_irqstat_free(). */
struct lh_irqstat *lh_irqstat_alloc(void);
void lh_irqstat_free(struct lh_irqstat *st);

/* An irq_handler_entry at ts (ns) on cpu for irq/name. */
void lh_irqstat_entry(struct lh_irqstat *st, int cpu, int irq, const char *name, uint64_t ts);
/* The matching irq_handler_exit: accounts ts - entry time to that handler. */
void lh_irqstat_exit(struct lh_irqstat *st, int cpu, int irq, uint64_t ts);
/* Accounts one handler run of duration ns directly. */
void lh_irqstat_add(struct lh_irqstat *st, int cpu, int irq, const char *name, uint64_t ns);
/* Events the ring buffer lost (from the kernel's missed-events counts). */
void lh_irqstat_add_lost(struct lh_irqstat *st, uint64_t lost);
/*
 * Events lost on one CPU: counted as lost, and the handlers pending on that CPU are given
 * up (counted as dropped) so that an exit after the gap never pairs with an entry before it.
 */
void lh_irqstat_lost_on_cpu(struct lh_irqstat *st, int cpu, uint64_t lost);

size_t lh_irqstat_count(const struct lh_irqstat *st);
/* Return: entry i, sorted by (irq, name, cpu) after lh_irqstat_sort() (borrowed). */
const struct lh_irqstat_entry *lh_irqstat_get(const struct lh_irqstat *st, size_t i);
void lh_irqstat_sort(struct lh_irqstat *st);
uint64_t lh_irqstat_events(const struct lh_irqstat *st);	/* handler runs accounted */
uint64_t lh_irqstat_lost(const struct lh_irqstat *st);		/* events lost by the kernel */
uint64_t lh_irqstat_dropped(const struct lh_irqstat *st);	/* runs not accounted (table full, unmatched exit) */
/*
 * Adds the runs e accounted (count, sum, max, both histograms) to the entry of e's
 * (cpu, irq, name), created when new, and to the events: statistics read back from a saved
 * report, or another run's. Return: 0, or -1 when the table is full or e's distribution does
 * not fit the entry's (counted as dropped).
 */
int lh_irqstat_merge_entry(struct lh_irqstat *st, const struct lh_irqstat_entry *e);
/* Runs not accounted elsewhere (a saved report's 'dropped'). */
void lh_irqstat_add_dropped(struct lh_irqstat *st, uint64_t dropped);

/* Return: the upper bound of the log2 bucket holding the 99th percentile, in ns. */
uint64_t lh_irqstat_p99(const struct lh_irqstat_entry *e);

#endif /* LH_IRQSTAT_H */
