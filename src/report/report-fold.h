/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reports folded into one: what several reports (of one board, or of a fleet) measured, added
 * up as one report would have counted it. Counts add with one overflow policy
 * (LH_ADD_CHECKED(): a sum that would pass 2^64 stays at its largest and is said, since a
 * verdict may rest on it), histograms add bucket by bucket when their layouts agree, worst
 * sections are the worst of all, progressions of maxima are appended (ordered by the caller
 * once every report is in). Pure: what cannot be folded is handed to the caller's hooks,
 * which say it in the caller's terms; nothing is printed.
 */
#ifndef LH_REPORT_FOLD_H
#define LH_REPORT_FOLD_H

#include "report-priv.h"

#define LH_REPORT_FOLD_NO_CPU	(-2)	/* a field of no one CPU (-1 is the unknown CPU) */

/* Where a fold failed: a field in doc/report-json.md's terms, and what it is of. */
struct lh_report_fold_at {
	const char	*field;		/* "count", "cpus.histogram", "hits"...; NULL: the value */
	int		tracer;		/* the tracer of a tracer's field, else -1 */
	int		cpu;		/* the CPU of a per-CPU field, else LH_REPORT_FOLD_NO_CPU */
	const char	*what;		/* the signature, rule id or kernel histogram's kind */
	const char	*source;	/* a kernel histogram's source */
};

/* The parts lh_report_fold() folds beyond tracers, offenders, rules and kernel histograms. */
enum lh_report_fold_part {
	LH_REPORT_FOLD_PROGRESSIONS	= 1 << 0,	/* the steps of progressions of maxima */
	LH_REPORT_FOLD_IRQSTAT		= 1 << 1,	/* the IRQ handler statistics */
};

/* What a fold found that it could not add, and what it folds. */
struct lh_report_fold_ops {
	/* a sum at would pass 2^64 (it stays at its largest) */
	void	(*overflow)(void *arg, const struct lh_report_fold_at *at);
	/* the buckets of histogram at do not fit those folded before (dst unchanged) */
	void	(*misfit)(void *arg, const struct lh_report_fold_at *at);
	void	*arg;
	/*
	 * (lh_report_fold() only, may be NULL) rule has another severity than had, the same rule
	 * folded before: which one decides would depend on the order reports are folded in
	 */
	void	(*conflict)(void *arg, const struct lh_rule *had, const struct lh_rule *rule);
	unsigned int	parts;		/* enum lh_report_fold_part */
};

/* Why lh_report_fold_hist() did not add. */
enum lh_report_fold_status {
	LH_REPORT_FOLD_OK,
	LH_REPORT_FOLD_OVERFLOW,	/* count or dropped would pass 2^64 */
	LH_REPORT_FOLD_MISFIT,		/* a bucket overlaps a different one */
};

/* Makes dst the longer of dst and src (src unset: dst stays). */
void lh_report_fold_where(struct lh_report_where *dst, const struct lh_report_where *src);

/*
 * Adds src to dst bucket by bucket. Return: LH_REPORT_FOLD_OK, or why not (dst is then
 * unchanged): a count that would wrap is refused, not saturated, as is a layout that
 * differs; the sum of latencies (only the mean rests on it) saturates.
 */
enum lh_report_fold_status lh_report_fold_hist(struct lh_histogram *dst,
					       const struct lh_histogram *src);

/*
 * Folds one report's tracer src into dst: sections and accepted ones counted, worst and
 * worst-gated sections, per-CPU counts, histograms and worsts, progression steps appended
 * when ops->parts has LH_REPORT_FOLD_PROGRESSIONS (dst's steps; src's strings must outlive
 * dst). Problems go to ops (ops->overflow may be NULL: sums then just stay at their
 * largest). Return: 0, or -1 when ops was told of one.
 */
int lh_report_fold_tracer(struct lh_report_tracer *dst, const struct lh_report_tracer *src,
			  const struct lh_report_fold_ops *ops);

/*
 * Folds one report's run (its length duration_ns) into dst's: the first one read is taken
 * whole (armed times already folded kept); later ones widen the time span, add lengths,
 * captures, losses and armed times, keep the first reason a tracer was not measured and the
 * first command's failure, and forget the run id (several runs). Problems go to ops.
 * Return: 0, or -1 when ops was told of one.
 */
int lh_report_fold_run(struct lh_report *dst, const struct lh_run_info *run,
		       uint64_t duration_ns, const struct lh_report_fold_ops *ops);

/*
 * Folds one report's offender group src into dst's group of the same signature (created when
 * new; src's strings copied), or into dst's 'other' group past the groups' bound: counts add,
 * the worst section's CPU and task are kept. Problems go to ops. Return: 0, or -1.
 */
int lh_report_fold_offender(struct lh_report *dst, const struct lh_report_offender *src,
			    const struct lh_report_fold_ops *ops);

/* Folds sections of no kept offender group into dst's 'other' group. Return: 0, or -1. */
int lh_report_fold_other(struct lh_report *dst, uint64_t count, uint64_t accepted,
			 uint64_t worst_us, const struct lh_report_fold_ops *ops);

/*
 * Folds one report's input figures into dst's: what its parser read (src), and the warnings
 * it counted. Problems go to ops. Return: 0, or -1.
 */
int lh_report_fold_parse(struct lh_report *dst, const struct lh_parse_stats *src,
			 uint64_t warnings_total, const struct lh_report_fold_ops *ops);

/* Return: the index of rule id in dst's own rules (a report read back), or (size_t)-1. */
size_t lh_report_own_rule_find(const struct lh_report *dst, const char *id);
/*
 * Return: the index of rule desc->id in dst's own rules, added (desc copied) when new;
 * *conflict tells whether dst has it with another severity (which report's would decide the
 * gate would then depend on the order they were read in: the caller refuses it).
 */
size_t lh_report_own_rule(struct lh_report *dst, const struct lh_rule *desc, bool *conflict);
/*
 * Folds one report's counters src of rule idx into dst's: hits, accepted and unevaluated
 * add, worsts are the worst; the records not evaluated count in dst's total. Problems go to
 * ops. Return: 0, or -1.
 */
int lh_report_fold_rule(struct lh_report *dst, size_t idx, const struct lh_report_rule *src,
			const struct lh_report_fold_ops *ops);

/*
 * Return: an empty report to fold reports into, with rules of its own (lh_report_own_rule());
 * free it with lh_report_free().
 */
struct lh_report *lh_report_fold_alloc(void);

/* Return: dst's kernel histogram of (source, kind, cpu) (borrowed), or NULL. */
struct lh_report_histogram *lh_report_khist_find(const struct lh_report *dst, const char *source,
						 const char *kind, int cpu);
/*
 * Return: dst's kernel histogram of (source, kind, cpu), added empty when new (the strings
 * copied into dst's arena).
 */
struct lh_report_histogram *lh_report_khist(struct lh_report *dst, const char *source,
					    const char *kind, int cpu);

/*
 * Folds osnoise's periods, runtime, noise, hardware noise, longest single noise and noise
 * sources of src into dst's by CPU (a CPU src lists with no period is listed in dst too), and
 * the sources' drops, as lh_report_fold() does: for a caller that keeps them
 * apart, e.g. per host. Return: 0, or -1 when ops was told of a sum past 2^64.
 */
int lh_report_fold_noise(struct lh_report *dst, const struct lh_report *src,
			 const struct lh_report_fold_ops *ops);
/*
 * Folds one CPU's osnoise figures s into dst's slot of that CPU, as lh_report_fold_noise()
 * does for each: for a reader that decodes them one CPU at a time. Return: 0, or -1 when ops
 * was told of a sum past 2^64.
 */
int lh_report_fold_noise_cpu(struct lh_report *dst, const struct lh_report_noise *s,
			     const struct lh_report_fold_ops *ops);

/*
 * Folds one report src into dst, as one report of all their sections would count them:
 * tracers (lh_report_fold_tracer()), offenders by signature and the 'other' group, rules by
 * id (a severity that differs goes to ops->conflict; dst keeps the first), the kernel's
 * histograms by source, kind and CPU (counted in their nr_folded), osnoise's periods, runtime
 * and noise by CPU (the % CPU available of the fold is that of every period), and with
 * ops->parts the IRQ statistics (whose sums saturate, as irqstat.h says). Runs, inputs and
 * kept records are not folded: the caller says what they are of. src is borrowed for the
 * call only.
 * Return: 0, or -1 when ops was told of a problem.
 */
int lh_report_fold(struct lh_report *dst, const struct lh_report *src,
		   const struct lh_report_fold_ops *ops);

#endif /* LH_REPORT_FOLD_H */
