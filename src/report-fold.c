// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reports folded into one (report-fold.h).
 */
#include <stdio.h>
#include <string.h>

#include "report-fold.h"
#include "rules.h"

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

int lh_report_fold_run(struct lh_report *dst, const struct lh_run_info *run,
		       uint64_t duration_ns, const struct lh_report_fold_ops *ops)
{
	struct lh_run_info *r = &dst->run;
	int ret = 0, t;

	if (!dst->has_run) {
		uint64_t armed[LH_TRACER_NR], blind[LH_TRACER_NR];

		memcpy(armed, r->armed_ns, sizeof(armed));
		memcpy(blind, r->blind_ns, sizeof(blind));
		*r = *run;
		memcpy(r->armed_ns, armed, sizeof(armed));
		memcpy(r->blind_ns, blind, sizeof(blind));
		dst->has_run = true;
		dst->duration_ns = duration_ns;
	} else {
		if (run->started_ns && (!r->started_ns || run->started_ns < r->started_ns))
			r->started_ns = run->started_ns;
		if (run->ended_ns > r->ended_ns)
			r->ended_ns = run->ended_ns;
		ret |= FOLD_ADD(ops, "duration_s", dst->duration_ns, duration_ns);
		ret |= FOLD_ADD(ops, "captures", r->captures, run->captures);
		ret |= FOLD_ADD(ops, "sections_lost", r->sections_lost, run->sections_lost);
		ret |= FOLD_ADD(ops, "sections_torn", r->sections_torn, run->sections_torn);
		ret |= FOLD_ADD(ops, "snapshots_dropped", r->snapshots_dropped,
				run->snapshots_dropped);
		for (t = 0; t < LH_TRACER_NR; t++)
			if (!r->not_measured[t])
				r->not_measured[t] = run->not_measured[t];
		if (!r->command_status && run->command_status > 0)
			r->command_status = run->command_status;
		r->end_reason = run->end_reason;
		r->run_id = NULL;	/* several runs */
	}
	for (t = 0; t < LH_TRACER_NR; t++) {
		ret |= FOLD_ADD(ops, "armed_s", r->armed_ns[t], run->armed_ns[t]);
		ret |= FOLD_ADD(ops, "blind_s", r->blind_ns[t], run->blind_ns[t]);
	}
	return ret;
}

int lh_report_fold_other(struct lh_report *dst, uint64_t count, uint64_t accepted,
			 uint64_t worst_us, const struct lh_report_fold_ops *ops)
{
	int ret = 0;

	ret |= FOLD_ADD(ops, "count", dst->other_count, count);
	ret |= FOLD_ADD(ops, "accepted", dst->other_accepted, accepted);
	if (worst_us > dst->other_worst_us)
		dst->other_worst_us = worst_us;
	return ret;
}

int lh_report_fold_offender(struct lh_report *dst, const struct lh_report_offender *src,
			    const struct lh_report_fold_ops *ops)
{
	struct lh_report_offender *o = lh_report_offender(dst, &src->sig);
	int ret = 0;

	if (!o)
		return lh_report_fold_other(dst, src->count, src->accepted, src->worst_us, ops);
	if (!o->count || src->worst_us > o->worst_us) {
		o->worst_us = src->worst_us;
		o->cpu = src->cpu;
		o->pid = src->pid;
		memcpy(o->comm, src->comm, sizeof(o->comm));
	}
	ret |= FOLD_ADD(ops, "count", o->count, src->count);
	ret |= FOLD_ADD(ops, "accepted", o->accepted, src->accepted);
	return ret;
}

size_t lh_report_own_rule_find(const struct lh_report *dst, const char *id)
{
	uint64_t h = lh_hash(id, strlen(id), 0);
	size_t pos = 0;
	uint32_t idx;

	while (lh_htab_find(&dst->own_rule_ids, h, &pos, &idx))
		if (!strcmp(lh_rules_get(dst->own_rules, idx)->id, id))
			return idx;
	return (size_t)-1;
}

size_t lh_report_own_rule(struct lh_report *dst, const struct lh_rule *desc, bool *conflict)
{
	size_t idx = lh_report_own_rule_find(dst, desc->id);

	*conflict = false;
	if (idx == (size_t)-1) {
		idx = lh_rules_add_described(dst->own_rules, desc);
		lh_htab_add(&dst->own_rule_ids, lh_hash(desc->id, strlen(desc->id), 0),
			    (uint32_t)idx);
	} else {
		*conflict = lh_rules_get(dst->own_rules, idx)->severity != desc->severity;
	}
	return idx;
}

int lh_report_fold_rule(struct lh_report *dst, size_t idx, const struct lh_report_rule *src,
			const struct lh_report_fold_ops *ops)
{
	struct lh_report_rule *r = lh_report_rule_agg(dst, idx);
	int ret = 0;

	ret |= FOLD_ADD(ops, "hits", r->hits, src->hits);
	ret |= FOLD_ADD(ops, "accepted", r->accepted, src->accepted);
	r->gate_hits = r->hits - r->accepted;
	if (src->worst_us > r->worst_us)
		r->worst_us = src->worst_us;
	if (src->gate_worst_us > r->gate_worst_us)
		r->gate_worst_us = src->gate_worst_us;
	lh_report_fold_where(&r->gate_where, &src->gate_where);
	ret |= FOLD_ADD(ops, "unevaluated", r->unevaluated, src->unevaluated);
	/* records a rule could not be evaluated on: only said when not none */
	dst->unevaluated_records = lh_sat_add(dst->unevaluated_records, src->unevaluated);
	ret |= FOLD_ADD(ops, "gate_unevaluated", r->gate_unevaluated, src->gate_unevaluated);
	return ret;
}

int lh_report_fold_parse(struct lh_report *dst, const struct lh_parse_stats *src,
			 uint64_t warnings_total, const struct lh_report_fold_ops *ops)
{
	struct lh_parse_stats *p = &dst->parse;
	int ret = 0;

	ret |= FOLD_ADD(ops, "lines", p->lines, src->lines);
	ret |= FOLD_ADD(ops, "snapshots", p->snapshots, src->snapshots);
	ret |= FOLD_ADD(ops, "skipped", p->skipped, src->skipped);
	ret |= FOLD_ADD(ops, "bad_lines", p->bad_lines, src->bad_lines);
	ret |= FOLD_ADD(ops, "incomplete", p->incomplete, src->incomplete);
	ret |= FOLD_ADD(ops, "cut_lines", p->cut_lines, src->cut_lines);
	ret |= FOLD_ADD(ops, "warnings_total", dst->warnings_total, warnings_total);
	return ret;
}
