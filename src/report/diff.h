/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Two sets of reports compared: a base (the last release, every board of it) and a new one
 * (the candidate kernel). Per tracer and per CPU the worst case (or p99.9, see below) old ->
 * new with the change; offender signatures new, gone or grown; rules whose hits grew; IRQ
 * handlers whose longest run grew. Then the regression gates: --max-growth TRACER=PCT,
 * --max-new-offenders N, --fail-on-new SEVERITY. Pure but for the writers, which take a
 * FILE *; the reports are read by report-load.c.
 *
 * Noise: a worst case is one sample, and one unlucky interrupt moves it. A row compares
 * p99.9 when both sides have a distribution of at least LH_DIFF_MIN_DIST sections, so that
 * p99.9 is not the worst sample itself: the histograms the kernel counted (record --hist:
 * irqsoff, preemptoff, and wakeup for wakeup_rt), in every report of the side, else the
 * histograms of the sections captured when every report of the side counted every section
 * (an 'analyze' report, or a 'record' run with a threshold, not running maxima); otherwise
 * it compares the worst case. Each row says which it used and from which histograms; p99
 * and the worst are shown beside it. --max-growth judges the tracer rows and the per-CPU
 * rows measured on both sides; --max-irq-growth the IRQ handlers, on p99 of their durations
 * when both sides have LH_DIFF_MIN_DIST runs of the handler, on their longest run otherwise.
 *
 * A tracer that samples has rows of its samples too, beside those of its records: timerlat
 * the histograms of every sample of its IRQ and thread contexts ("timerlat_irq",
 * "timerlat_thread"), hwlat those of every sample of the hardware's gaps ("hwlat", its rows
 * named "hwlat_samples" beside its records' "hwlat"), over all CPUs and per CPU, compared by
 * p99.9 when both sides count LH_DIFF_MIN_DIST samples, by their largest otherwise, and
 * judged by --max-growth of their tracer as its records are.
 *
 * osnoise's % CPU available, per CPU: each side's periods, runtime and noise summed, the
 * availability of both and its change in points; --max-available-drop osnoise=PCT fails a
 * CPU whose availability fell by more than PCT points. Gated, a CPU that one side lists and
 * the other does not, or that measured no period on a side, cannot be judged: an error.
 *
 * Each side's reports are folded into one (lh_report_fold(), as 'lathound report' and 'merge'
 * fold theirs); then the two are compared.
 *
 * Fail closed: a report whose own verdict is error (unless accepted), the same run (run_id) on
 * both sides or twice on one, a rule whose severity the reports of one side disagree on,
 * counts of one side that add up past 2^64, a tracer gated but measured on one side only (or
 * on neither, or that a report says it could not measure), offenders or rules a gate needs
 * that the reports could not count (the 'other' bucket, rules not evaluated) make the verdict
 * error.
 */
#ifndef LH_DIFF_H
#define LH_DIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

#define LH_DIFF_MIN_DIST	1000	/* sections per side before p99.9 is compared */
#define LH_DIFF_ALL_CPUS	(-2)	/* a row over every CPU (-1 is the unknown CPU) */

struct lh_diff_gate {
	bool			has_growth[LH_TRACER_NR];	/* [LH_TRACER_UNKNOWN] is 'all' */
	double			growth_pct[LH_TRACER_NR];
	bool			has_irq_growth;		/* --max-irq-growth */
	double			irq_growth_pct;
	bool			has_max_new;
	unsigned long		max_new_offenders;
	enum lh_severity	fail_on_new;	/* LH_GATE_FAIL_NONE (default): no rule gate */
	bool			has_available_drop;	/* --max-available-drop osnoise=PCT */
	uint32_t		available_drop_milli;	/* in thousandths of a point */
	bool			accept_error;	/* compare reports whose own verdict is error */
};

/* No gate. */
void lh_diff_gate_init(struct lh_diff_gate *g);
/* "10", "2.5%": a growth allowed, in percent. Return: 0, or -1 with *err a static message. */
int lh_diff_parse_pct(const char *arg, double *pct, const char **err);
/*
 * "irqsoff=10", "all=5%": the growth allowed, in percent. Return: 0, or -1 with *err a
 * static message (also when that tracer, or "all", already has one).
 */
int lh_diff_gate_parse_growth(struct lh_diff_gate *g, const char *arg, const char **err);

/*
 * "osnoise=5", "osnoise=0.5%": the points of % CPU available a CPU may lose
 * (lh_gate_parse_osnoise_pct()). Return: 0, or -1 with *err a static message (also when
 * given before).
 */
int lh_diff_gate_parse_available_drop(struct lh_diff_gate *g, const char *arg, const char **err);

enum lh_diff_basis { LH_DIFF_WORST, LH_DIFF_P999, LH_DIFF_P99 };

/* Which histograms a row's percentiles come from. */
enum lh_diff_dist { LH_DIFF_DIST_NONE, LH_DIFF_DIST_SECTIONS, LH_DIFF_DIST_KERNEL };

/* Percentiles of a distribution: upper bounds of their buckets. */
struct lh_diff_pct {
	bool		set;		/* >= LH_DIFF_MIN_DIST values counted */
	uint64_t	p99_ns;
	uint64_t	p999_ns;
};

/* One side of a row. */
struct lh_diff_value {
	bool		present;	/* sections (samples) were seen */
	uint64_t	count;		/* sections (samples) */
	uint64_t	worst_ns;
	bool		dist;		/* a distribution of >= LH_DIFF_MIN_DIST sections */
	uint64_t	p999_ns;	/* upper bound of p99.9 (valid when dist) */
	uint64_t	p99_ns;		/* upper bound of p99 (valid when dist) */
	struct lh_diff_pct kernel;	/* of the kernel's histograms (record --hist) */
};

struct lh_diff_row {
	enum lh_tracer		tracer;
	const char		*kind;		/* samples of the kernel's histogram kind
						 * ("timerlat_irq"); NULL: the tracer's records */
	int			cpu;		/* LH_DIFF_ALL_CPUS, or a CPU (-1 unknown) */
	struct lh_diff_value	base, new;
	enum lh_diff_basis	basis;
	enum lh_diff_dist	dist;		/* where the percentiles come from */
	uint64_t		base_ns, new_ns;	/* of the basis */
	uint64_t		base_p99_ns, new_p99_ns;	/* of dist, when not NONE */
	double			change_pct;	/* INFINITY from 0; 0 when a side is absent */
	bool			gated;		/* --max-growth judged it: measured on both sides */
	double			limit_pct;
	bool			failed;
};

enum lh_diff_change { LH_DIFF_NEW, LH_DIFF_GROWN, LH_DIFF_GONE };

struct lh_diff_offender {
	const char		*signature;	/* borrowed from a side's sum */
	enum lh_diff_change	change;
	uint64_t		base_count, new_count;
	uint64_t		base_worst_us, new_worst_us;
};

struct lh_diff_rule {
	const char		*id;		/* borrowed from a side's sum */
	enum lh_severity	severity;	/* as the new side's rules say, else the base's */
	bool			in_base;	/* the base reports had the rule */
	uint64_t		base_hits, new_hits;	/* on records not accepted */
	bool			failed;		/* new hits at or above --fail-on-new */
};

struct lh_diff_irq {
	int		irq;
	const char	*name;		/* borrowed from a side's sum */
	uint64_t	base_max_ns, new_max_ns;	/* 0 with base_count 0: a new handler */
	uint64_t	base_count, new_count;
	struct lh_diff_pct base_pct, new_pct;	/* of the handler's durations */
	enum lh_diff_basis basis;	/* LH_DIFF_P99 when both pct are set, else worst */
	double		change_pct;	/* of the basis; INFINITY for a new handler */
	bool		failed;		/* over --max-irq-growth */
};

/* One side of a CPU's osnoise availability. */
struct lh_diff_noise {
	bool			listed;		/* the side's reports list the CPU */
	bool			measured;	/* with a period: milli is set */
	struct lh_report_noise	n;		/* its figures, summed over the side's reports */
	uint32_t		milli;		/* % CPU available, in thousandths */
};

/* osnoise's % CPU available of one CPU, base and new. */
struct lh_diff_available {
	int			cpu;
	struct lh_diff_noise	base, new;
	int64_t			change_milli;	/* new - base, when both measured */
	bool			gated;		/* --max-available-drop judged it */
	bool			failed;
};

/* A set of reports, and their names (files) for the output. */
struct lh_diff_side {
	struct lh_report	*const *reps;	/* evaluated (lh_report_loader_finish()) */
	const char		*const *names;
	size_t			nr;
	const char		*unread;	/* why a report of the side could not be read */
};

struct lh_diff_sum;

struct lh_diff {
	struct lh_diff_gate	gate;
	struct lh_diff_side	base, new;
	/* each side's reports folded into one (lh_report_fold()); the rows borrow from them */
	struct lh_diff_sum	*base_sum, *new_sum;
	struct lh_diff_row	*rows;		/* by tracer, the all-CPU row first */
	size_t			nr_rows, alloc_rows;
	struct lh_diff_offender	*offenders;	/* new, then grown, then gone; worst first */
	size_t			nr_offenders;
	size_t			nr_new_offenders;
	struct lh_diff_rule	*rules;		/* rules whose hits grew */
	size_t			nr_rules, alloc_rules;
	struct lh_diff_irq	*irqs;		/* handlers whose longest run or p99 grew */
	size_t			nr_irqs, alloc_irqs;
	struct lh_diff_available *available;	/* osnoise's CPUs of either side, ascending */
	size_t			nr_available;
	struct lh_verdict	verdict;
};

/*
 * Compares new with base (both borrowed: they must outlive the result) under gate g
 * (copied). Return: the comparison, its verdict error, fail or pass; free it with
 * lh_diff_free().
 */
struct lh_diff *lh_diff_compute(const struct lh_diff_side *base, const struct lh_diff_side *new,
				const struct lh_diff_gate *g);
void lh_diff_free(struct lh_diff *d);

/* Return: "error", "fail" or "pass" (static). */
const char *lh_diff_verdict(const struct lh_diff *d);

/* Return: what row r is of: its kind of samples, else its tracer's name (static or r's). */
const char *lh_diff_row_name(const struct lh_diff_row *r);
/* Return: the change from a to b in percent: INFINITY from 0, 0 when equal. */
double lh_diff_change_pct(uint64_t a, uint64_t b);
/* Return: "worst", "p99" or "p99.9": what a row compares (static). */
const char *lh_diff_basis_name(enum lh_diff_basis b);
/* Return: "kernel" or "sections": the histograms a row's percentiles come from (static). */
const char *lh_diff_dist_name(enum lh_diff_dist s);

/*
 * Writes d as text, JSON or JUnit XML (html is not supported: -1 with EINVAL).
 * Return: 0, or -1 with errno when writing failed.
 */
int lh_diff_write(const struct lh_diff *d, enum lh_format f, FILE *out);

#endif /* LH_DIFF_H */
