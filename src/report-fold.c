// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reports folded into one (report-fold.h).
 */
#include <stdio.h>
#include <string.h>

#include "report-fold.h"

void lh_report_fold_where(struct lh_report_where *dst, const struct lh_report_where *src)
{
	if (src->set && (!dst->set || src->latency_us > dst->latency_us))
		*dst = *src;
}

enum lh_report_fold_status lh_report_fold_hist(struct lh_histogram *dst,
					       const struct lh_histogram *src)
{
	uint64_t x;

	/*
	 * lh_histogram_merge() saturates: a count that would wrap is said, not kept (a verdict
	 * rests on it); the sum of latencies only gives the mean, and stays at its largest
	 */
	if (__builtin_add_overflow(dst->count, src->count, &x) ||
	    __builtin_add_overflow(dst->dropped, src->dropped, &x))
		return LH_REPORT_FOLD_OVERFLOW;
	return lh_histogram_merge(dst, src) ? LH_REPORT_FOLD_MISFIT : LH_REPORT_FOLD_OK;
}

/* Tells ops that field could not be folded. Return: -1. */
static int said(const struct lh_report_fold_ops *ops, enum lh_report_fold_status why,
		const char *field)
{
	if (why == LH_REPORT_FOLD_MISFIT && ops->misfit)
		ops->misfit(ops->arg, field);
	else if (why == LH_REPORT_FOLD_OVERFLOW && ops->overflow)
		ops->overflow(ops->arg, field);
	return -1;
}

/* sum += n, told to ops as field's when it would wrap. Return: 0, or -1. */
#define FOLD_ADD(ops, field, sum, n)						\
	(LH_ADD_CHECKED(sum, n) ? said((ops), LH_REPORT_FOLD_OVERFLOW, (field)) : 0)

/* Folds histogram src into dst, telling ops of field when it cannot. Return: 0, or -1. */
static int fold_hist(const struct lh_report_fold_ops *ops, const char *field,
		     struct lh_histogram *dst, const struct lh_histogram *src)
{
	enum lh_report_fold_status why = lh_report_fold_hist(dst, src);

	return why == LH_REPORT_FOLD_OK ? 0 : said(ops, why, field);
}

static int fold_cpu(struct lh_report_cpu *dst, const struct lh_report_cpu *src,
		    const struct lh_report_fold_ops *ops)
{
	int ret = 0;
	size_t i;

	dst->seen |= src->seen;
	if (src->max_us > dst->max_us)
		dst->max_us = src->max_us;
	dst->steps += src->steps;
	ret |= FOLD_ADD(ops, "cpus.count", dst->count, src->count);
	dst->sum_us = lh_sat_add(dst->sum_us, src->sum_us);
	for (i = 0; i <= LH_REPORT_HIST_NR; i++)
		dst->hist[i] = lh_sat_add(dst->hist[i], src->hist[i]);
	if (src->worst) {
		if (!dst->worst)
			dst->worst = lh_xcalloc(1, sizeof(*dst->worst));
		lh_report_fold_where(dst->worst, src->worst);
	}
	ret |= fold_hist(ops, "cpus.histogram", &dst->dist, &src->dist);
	return ret;
}

int lh_report_fold_tracer(struct lh_report_tracer *dst, const struct lh_report_tracer *src,
			  const struct lh_report_fold_ops *ops)
{
	int ret = 0;
	size_t i;

	ret |= FOLD_ADD(ops, "count", dst->count, src->count);
	ret |= FOLD_ADD(ops, "accepted", dst->accepted, src->accepted);
	lh_report_fold_where(&dst->worst, &src->worst);
	lh_report_fold_where(&dst->gate, &src->gate);
	ret |= fold_hist(ops, "histogram", &dst->hist, &src->hist);
	for (i = 0; i < src->nr_cpus; i++)
		ret |= fold_cpu(lh_report_cpu_slot(dst, lh_report_slot_cpu(i)), &src->cpus[i],
				ops);
	if (src->nr_steps) {
		LH_GROW(dst->steps, dst->nr_steps + src->nr_steps, dst->alloc_steps);
		memcpy(dst->steps + dst->nr_steps, src->steps,
		       src->nr_steps * sizeof(*src->steps));
		dst->nr_steps += src->nr_steps;
	}
	ret |= FOLD_ADD(ops, "progression_dropped", dst->steps_dropped, src->steps_dropped);
	return ret;
}
