// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reports folded into one (report-fold.h).
 */
#include <stdio.h>
#include <string.h>

#include "report-fold.h"
#include "rules/rules.h"
#include "trace/irqstat.h"

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

/* Where a field of what no tracer counts is. */
#define AT(f, w)	(&(struct lh_report_fold_at){ .field = (f), .tracer = -1,		\
					      .cpu = LH_REPORT_FOLD_NO_CPU, .what = (w) })
/* Where a field of tracer t (-1: unknown) on cpu is. */
#define AT_TRACER(f, t, c)	(&(struct lh_report_fold_at){ .field = (f), .tracer = (t),	\
						      .cpu = (c) })

/* Tells ops that at could not be folded. Return: -1. */
static int said(const struct lh_report_fold_ops *ops, enum lh_report_fold_status why,
		const struct lh_report_fold_at *at)
{
	if (why == LH_REPORT_FOLD_MISFIT && ops->misfit)
		ops->misfit(ops->arg, at);
	else if (why == LH_REPORT_FOLD_OVERFLOW && ops->overflow)
		ops->overflow(ops->arg, at);
	return -1;
}

/* sum += n, told to ops as at's when it would wrap. Return: 0, or -1. */
#define FOLD_ADD(ops, at, sum, n)						\
	(LH_ADD_CHECKED(sum, n) ? said((ops), LH_REPORT_FOLD_OVERFLOW, (at)) : 0)

/* Folds histogram src into dst, telling ops of at when it cannot. Return: 0, or -1. */
static int fold_hist(const struct lh_report_fold_ops *ops, const struct lh_report_fold_at *at,
		     struct lh_histogram *dst, const struct lh_histogram *src)
{
	enum lh_report_fold_status why = lh_report_fold_hist(dst, src);

	return why == LH_REPORT_FOLD_OK ? 0 : said(ops, why, at);
}

static int fold_cpu(struct lh_report_cpu *dst, const struct lh_report_cpu *src,
		    const struct lh_report_fold_ops *ops, int t, int cpu)
{
	int ret = 0;

	dst->seen |= src->seen;
	if (src->max_us > dst->max_us)
		dst->max_us = src->max_us;
	dst->steps += src->steps;
	ret |= FOLD_ADD(ops, AT_TRACER("cpus.count", t, cpu), dst->count, src->count);
	if (src->worst) {
		if (!dst->worst)
			dst->worst = lh_xcalloc(1, sizeof(*dst->worst));
		lh_report_fold_where(dst->worst, src->worst);
	}
	ret |= fold_hist(ops, AT_TRACER("cpus.histogram", t, cpu), &dst->dist, &src->dist);
	return ret;
}

/* lh_report_fold_tracer() of tracer t (-1: unsaid). */
static int fold_tracer(struct lh_report_tracer *dst, const struct lh_report_tracer *src,
		       const struct lh_report_fold_ops *ops, int t)
{
	const int all = LH_REPORT_FOLD_NO_CPU;
	int ret = 0;
	size_t i;

	ret |= FOLD_ADD(ops, AT_TRACER("count", t, all), dst->count, src->count);
	ret |= FOLD_ADD(ops, AT_TRACER("accepted", t, all), dst->accepted, src->accepted);
	lh_report_fold_where(&dst->worst, &src->worst);
	lh_report_fold_where(&dst->gate, &src->gate);
	ret |= fold_hist(ops, AT_TRACER("histogram", t, all), &dst->hist, &src->hist);
	for (i = 0; i < src->nr_cpus; i++)
		ret |= fold_cpu(lh_report_cpu_slot(dst, lh_report_slot_cpu(i)), &src->cpus[i],
				ops, t, lh_report_slot_cpu(i));
	if (!(ops->parts & LH_REPORT_FOLD_PROGRESSIONS))
		return ret;
	if (src->nr_steps) {
		LH_GROW(dst->steps, dst->nr_steps + src->nr_steps, dst->alloc_steps);
		memcpy(dst->steps + dst->nr_steps, src->steps,
		       src->nr_steps * sizeof(*src->steps));
		dst->nr_steps += src->nr_steps;
	}
	ret |= FOLD_ADD(ops, AT_TRACER("progression_dropped", t, all), dst->steps_dropped,
			src->steps_dropped);
	return ret;
}

int lh_report_fold_tracer(struct lh_report_tracer *dst, const struct lh_report_tracer *src,
			  const struct lh_report_fold_ops *ops)
{
	return fold_tracer(dst, src, ops, -1);
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
		ret |= FOLD_ADD(ops, AT("duration_s", NULL), dst->duration_ns, duration_ns);
		ret |= FOLD_ADD(ops, AT("captures", NULL), r->captures, run->captures);
		ret |= FOLD_ADD(ops, AT("sections_lost", NULL), r->sections_lost,
				run->sections_lost);
		ret |= FOLD_ADD(ops, AT("sections_torn", NULL), r->sections_torn,
				run->sections_torn);
		ret |= FOLD_ADD(ops, AT("snapshots_dropped", NULL), r->snapshots_dropped,
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
		ret |= FOLD_ADD(ops, AT("armed_s", NULL), r->armed_ns[t], run->armed_ns[t]);
		ret |= FOLD_ADD(ops, AT("blind_s", NULL), r->blind_ns[t], run->blind_ns[t]);
	}
	return ret;
}

int lh_report_fold_other(struct lh_report *dst, uint64_t count, uint64_t accepted,
			 uint64_t worst_us, const struct lh_report_fold_ops *ops)
{
	int ret = 0;

	ret |= FOLD_ADD(ops, AT("count", NULL), dst->other_count, count);
	ret |= FOLD_ADD(ops, AT("accepted", NULL), dst->other_accepted, accepted);
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
	ret |= FOLD_ADD(ops, AT("count", o->signature), o->count, src->count);
	ret |= FOLD_ADD(ops, AT("accepted", o->signature), o->accepted, src->accepted);
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
	const char *id = lh_rules_get(dst->own_rules, idx)->id;
	int ret = 0;

	ret |= FOLD_ADD(ops, AT("hits", id), r->hits, src->hits);
	ret |= FOLD_ADD(ops, AT("accepted", id), r->accepted, src->accepted);
	r->gate_hits = r->hits - r->accepted;
	if (src->worst_us > r->worst_us)
		r->worst_us = src->worst_us;
	if (src->gate_worst_us > r->gate_worst_us)
		r->gate_worst_us = src->gate_worst_us;
	lh_report_fold_where(&r->gate_where, &src->gate_where);
	ret |= FOLD_ADD(ops, AT("unevaluated", id), r->unevaluated, src->unevaluated);
	/* records a rule could not be evaluated on: only said when not none */
	dst->unevaluated_records = lh_sat_add(dst->unevaluated_records, src->unevaluated);
	ret |= FOLD_ADD(ops, AT("gate_unevaluated", id), r->gate_unevaluated,
			src->gate_unevaluated);
	return ret;
}

int lh_report_fold_parse(struct lh_report *dst, const struct lh_parse_stats *src,
			 uint64_t warnings_total, const struct lh_report_fold_ops *ops)
{
	struct lh_parse_stats *p = &dst->parse;
	int ret = 0;

	ret |= FOLD_ADD(ops, AT("lines", NULL), p->lines, src->lines);
	ret |= FOLD_ADD(ops, AT("snapshots", NULL), p->snapshots, src->snapshots);
	ret |= FOLD_ADD(ops, AT("skipped", NULL), p->skipped, src->skipped);
	ret |= FOLD_ADD(ops, AT("bad_lines", NULL), p->bad_lines, src->bad_lines);
	ret |= FOLD_ADD(ops, AT("incomplete", NULL), p->incomplete, src->incomplete);
	ret |= FOLD_ADD(ops, AT("cut_lines", NULL), p->cut_lines, src->cut_lines);
	ret |= FOLD_ADD(ops, AT("warnings_total", NULL), dst->warnings_total, warnings_total);
	return ret;
}

struct lh_report *lh_report_fold_alloc(void)
{
	struct lh_report_opts o = { .keep = SIZE_MAX };
	struct lh_rules *rules = lh_rules_alloc();
	struct lh_report *rep = lh_report_alloc(rules, &o);

	rep->own_rules = rules;
	return rep;
}

static uint64_t khist_hash(const char *source, const char *kind, int cpu)
{
	return lh_hash(kind, strlen(kind) + 1,
		       lh_hash(source, strlen(source) + 1, (uint64_t)(int64_t)cpu));
}

struct lh_report_histogram *lh_report_khist_find(const struct lh_report *dst, const char *source,
						 const char *kind, int cpu)
{
	size_t pos = 0;
	uint32_t k;

	while (lh_htab_find(&dst->hist_ids, khist_hash(source, kind, cpu), &pos, &k))
		if (dst->hists[k].cpu == cpu && !strcmp(dst->hists[k].kind, kind) &&
		    !strcmp(dst->hists[k].source, source))
			return &dst->hists[k];
	return NULL;
}

struct lh_report_histogram *lh_report_khist(struct lh_report *dst, const char *source,
					    const char *kind, int cpu)
{
	struct lh_report_histogram *kh = lh_report_khist_find(dst, source, kind, cpu);

	if (kh)
		return kh;
	LH_GROW(dst->hists, dst->nr_hists + 1, dst->alloc_hists);
	lh_htab_add(&dst->hist_ids, khist_hash(source, kind, cpu), (uint32_t)dst->nr_hists);
	kh = &dst->hists[dst->nr_hists++];
	memset(kh, 0, sizeof(*kh));
	kh->source = lh_arena_strdup(&dst->arena, source);
	kh->kind = lh_arena_strdup(&dst->arena, kind);
	kh->cpu = cpu;
	return kh;
}

static int fold_rules(struct lh_report *dst, const struct lh_report *src,
		      const struct lh_report_fold_ops *ops)
{
	size_t i, n = src->rules ? lh_rules_count(src->rules) : 0, idx;
	bool conflict;
	int ret = 0;

	for (i = 0; i < n; i++) {
		const struct lh_rule *rule = lh_rules_get(src->rules, i);

		idx = lh_report_own_rule(dst, rule, &conflict);
		if (conflict) {
			if (ops->conflict)
				ops->conflict(ops->arg, lh_rules_get(dst->own_rules, idx), rule);
			ret = -1;
		}
		/* (counters grow with a rule's first hit) */
		if (i < src->nr_rules)
			ret |= lh_report_fold_rule(dst, idx, &src->rule_agg[i], ops);
	}
	return ret;
}

static int fold_khists(struct lh_report *dst, const struct lh_report *src,
		       const struct lh_report_fold_ops *ops)
{
	const struct lh_report_histogram *e;
	struct lh_report_histogram *kh;
	enum lh_report_fold_status why;
	int ret = 0;
	size_t i;

	for (i = 0; i < src->nr_hists; i++) {
		e = &src->hists[i];
		kh = lh_report_khist(dst, e->source, e->kind, e->cpu);
		why = lh_report_fold_hist(&kh->h, &e->h);
		if (why == LH_REPORT_FOLD_OK) {
			kh->nr_folded++;
			continue;
		}
		ret = said(ops, why, &(struct lh_report_fold_at){
			.field = "histograms", .tracer = -1, .cpu = e->cpu, .what = e->kind,
			.source = e->source,
		});
	}
	return ret;
}

/*
 * osnoise's figures by CPU: periods, runtime and noise add, so that the % CPU available of the
 * fold is the one of every period counted; a CPU listed with no period stays listed (one
 * that was to be measured and was not: --min-available fails closed on it). Hardware noise
 * and sources add too (sources by kind and name, the top kept: report.h), the longest
 * single noise is the longer.
 */
int lh_report_fold_noise_cpu(struct lh_report *dst, const struct lh_report_noise *s,
			     const struct lh_report_fold_ops *ops)
{
	const int t = LH_TRACER_OSNOISE;
	struct lh_report_noise *n = lh_report_noise_slot(dst, s->cpu);
	int ret = 0;

	if (!n)
		return 0;	/* (a report read back tracks no such CPU) */
	ret |= FOLD_ADD(ops, AT_TRACER("noise_cpus.periods", t, s->cpu), n->periods, s->periods);
	ret |= FOLD_ADD(ops, AT_TRACER("noise_cpus.runtime_us", t, s->cpu), n->runtime_ns,
			s->runtime_ns);
	ret |= FOLD_ADD(ops, AT_TRACER("noise_cpus.noise_us", t, s->cpu), n->noise_ns,
			s->noise_ns);
	ret |= FOLD_ADD(ops, AT_TRACER("noise_cpus.hw_count", t, s->cpu), n->hw_count,
			s->hw_count);
	if (s->max_single_ns > n->max_single_ns)
		n->max_single_ns = s->max_single_ns;
	if (lh_report_noise_add_sources(n, s))
		ret = said(ops, LH_REPORT_FOLD_OVERFLOW, AT_TRACER("noise_cpus.sources", t, s->cpu));
	return ret;
}

int lh_report_fold_noise(struct lh_report *dst, const struct lh_report *src,
			 const struct lh_report_fold_ops *ops)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < src->nr_noise; i++)
		ret |= lh_report_fold_noise_cpu(dst, &src->noise[i], ops);
	if (src->nr_noise)
		ret |= FOLD_ADD(ops, AT_TRACER("sources_dropped", LH_TRACER_OSNOISE,
					       LH_REPORT_FOLD_NO_CPU),
				dst->noise_dropped, src->noise_dropped);
	return ret;
}

/* Handlers are matched by (irq, name, CPU); their sums saturate (irqstat.h). */
static int fold_irqstat(struct lh_report *dst, const struct lh_irqstat *src,
			const struct lh_report_fold_ops *ops)
{
	int ret = 0;
	size_t i;

	if (!dst->own_irqstat)
		dst->own_irqstat = lh_irqstat_alloc();
	lh_irqstat_add_lost(dst->own_irqstat, lh_irqstat_lost(src));
	lh_irqstat_add_dropped(dst->own_irqstat, lh_irqstat_dropped(src));
	for (i = 0; i < lh_irqstat_count(src); i++) {
		const struct lh_irqstat_entry *e = lh_irqstat_get(src, i);

		if (lh_irqstat_merge_entry(dst->own_irqstat, e))
			ret = said(ops, LH_REPORT_FOLD_MISFIT, &(struct lh_report_fold_at){
				.field = "irq_stats.handlers", .tracer = -1, .cpu = e->cpu,
				.what = e->name,
			});
	}
	return ret;
}

int lh_report_fold(struct lh_report *dst, const struct lh_report *src,
		   const struct lh_report_fold_ops *ops)
{
	const struct lh_irqstat *st = src->has_run ? src->run.irqstat : NULL;
	int ret = 0, t;
	size_t i;

	for (t = 0; t < LH_TRACER_NR; t++)
		ret |= fold_tracer(&dst->tracers[t], &src->tracers[t], ops, t);
	ret |= lh_report_fold_other(dst, src->other_count, src->other_accepted,
				    src->other_worst_us, ops);
	for (i = 0; i < src->nr_offenders; i++)
		ret |= lh_report_fold_offender(dst, &src->offenders[i], ops);
	ret |= fold_rules(dst, src, ops);
	ret |= fold_khists(dst, src, ops);
	ret |= lh_report_fold_noise(dst, src, ops);
	if ((ops->parts & LH_REPORT_FOLD_IRQSTAT) && st)
		ret |= fold_irqstat(dst, st, ops);
	return ret;
}
