// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of folding reports (src/report/report-fold.c): two reports' tracers fold into what one
 * report of all their sections counts (counts add, worsts are the worst, per-CPU views and
 * progressions kept); a count that would pass 2^64 and histograms whose buckets differ are
 * told to the caller, naming the field, and never folded as a smaller number; whole reports
 * fold by signature, rule id, kernel histogram and osnoise's CPU (lh_report_fold()).
 */
#include <check.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/report-fold.h"
#include "check-main.h"
#include "report-feed.h"

/* What the fold told its caller. */
struct told {
	char	overflow[64];
	char	misfit[64];
	int	n;
	int	tracer, cpu;		/* of the last overflow */
	int	conflicts;
	char	conflict[96];
};

static void on_overflow(void *arg, const struct lh_report_fold_at *at)
{
	struct told *t = arg;
	const char *field = at->field;

	snprintf(t->overflow, sizeof(t->overflow), "%s", field ? field : "");
	t->tracer = at->tracer;
	t->cpu = at->cpu;
	t->n++;
}

static void on_misfit(void *arg, const struct lh_report_fold_at *at)
{
	struct told *t = arg;
	const char *field = at->field;

	snprintf(t->misfit, sizeof(t->misfit), "%s", field ? field : "");
	t->n++;
}

static void on_conflict(void *arg, const struct lh_rule *had, const struct lh_rule *rule)
{
	struct told *t = arg;

	snprintf(t->conflict, sizeof(t->conflict), "%s %s/%s", rule->id,
		 lh_severity_name(had->severity), lh_severity_name(rule->severity));
	t->conflicts++;
}

START_TEST(fold_like_one_report)
{
	struct lh_report *a = lh_report_alloc(NULL, NULL), *b = lh_report_alloc(NULL, NULL);
	struct lh_report *all = lh_report_alloc(NULL, NULL);
	const struct lh_report_tracer *one = &all->tracers[LH_TRACER_IRQSOFF];
	struct lh_report_tracer dst = { 0 };
	struct told told = { 0 };
	const struct lh_report_fold_ops ops = {
		.overflow = on_overflow, .misfit = on_misfit, .arg = &told,
		.parts = LH_REPORT_FOLD_PROGRESSIONS,
	};

	add(a, LH_TRACER_IRQSOFF, 40, 0, NULL, 3);
	add(a, LH_TRACER_IRQSOFF, 900, 1, NULL, 1);
	add(b, LH_TRACER_IRQSOFF, 2000, 3, NULL, 1);
	add(b, LH_TRACER_IRQSOFF, 30, 0, NULL, 2);
	add(all, LH_TRACER_IRQSOFF, 40, 0, NULL, 3);
	add(all, LH_TRACER_IRQSOFF, 900, 1, NULL, 1);
	add(all, LH_TRACER_IRQSOFF, 2000, 3, NULL, 1);
	add(all, LH_TRACER_IRQSOFF, 30, 0, NULL, 2);
	ck_assert_int_eq(lh_report_fold_tracer(&dst, &a->tracers[LH_TRACER_IRQSOFF], &ops), 0);
	ck_assert_int_eq(lh_report_fold_tracer(&dst, &b->tracers[LH_TRACER_IRQSOFF], &ops), 0);
	ck_assert_int_eq(told.n, 0);
	ck_assert_uint_eq(dst.count, 7);
	ck_assert_uint_eq(dst.count, one->count);
	ck_assert(dst.worst.set);
	ck_assert_uint_eq(dst.worst.latency_us, 2000);
	ck_assert_int_eq(dst.worst.cpu, 3);
	ck_assert_uint_eq(dst.hist.count, one->hist.count);
	ck_assert_uint_eq(dst.hist.max_ns, one->hist.max_ns);
	ck_assert_uint_eq(dst.hist.sum_ns, one->hist.sum_ns);
	ck_assert_uint_eq(dst.nr_cpus, one->nr_cpus);
	ck_assert_uint_eq(dst.cpus[1].count, 5);	/* CPU 0: 3 + 2 */
	ck_assert_uint_eq(dst.cpus[1].max_us, 40);
	ck_assert_uint_eq(dst.cpus[4].count, 1);	/* CPU 3 */
	ck_assert_uint_eq(dst.cpus[4].worst->latency_us, 2000);
	ck_assert_uint_eq(dst.cpus[1].dist.count, one->cpus[1].dist.count);
	/* each report's steps are kept: ordering them is the caller's, once all are in */
	ck_assert_uint_eq(dst.nr_steps, a->tracers[LH_TRACER_IRQSOFF].nr_steps +
			  b->tracers[LH_TRACER_IRQSOFF].nr_steps);
	lh_report_tracer_release(&dst);
	lh_report_free(a);
	lh_report_free(b);
	lh_report_free(all);
}
END_TEST

START_TEST(count_past_2_64_said)
{
	struct lh_report_tracer dst = { 0 }, src = { 0 };
	struct told told = { 0 };
	const struct lh_report_fold_ops ops = {
		.overflow = on_overflow, .misfit = on_misfit, .arg = &told,
		.parts = LH_REPORT_FOLD_PROGRESSIONS,
	};

	dst.count = UINT64_MAX - 1;
	src.count = 2;
	ck_assert_int_eq(lh_report_fold_tracer(&dst, &src, &ops), -1);
	ck_assert_str_eq(told.overflow, "count");
	/* never a small number that a gate would pass: it stays at its largest */
	ck_assert_uint_eq(dst.count, UINT64_MAX);
	lh_report_tracer_release(&dst);
}
END_TEST

START_TEST(histograms_fold_one_way)
{
	struct lh_histogram a = { 0 }, b = { 0 }, c = { 0 };

	lh_histogram_add(&a, 1000);
	lh_histogram_add(&b, 1000);
	a.sum_ns = UINT64_MAX - 1;
	/* the sum only gives the mean: it saturates */
	ck_assert_int_eq(lh_report_fold_hist(&a, &b), LH_REPORT_FOLD_OK);
	ck_assert_uint_eq(a.count, 2);
	ck_assert_uint_eq(a.sum_ns, UINT64_MAX);
	/* a count that would wrap is refused, a is unchanged */
	b.count = UINT64_MAX;
	ck_assert_int_eq(lh_report_fold_hist(&a, &b), LH_REPORT_FOLD_OVERFLOW);
	ck_assert_uint_eq(a.count, 2);
	/* a bucket that overlaps another is refused */
	ck_assert_int_eq(lh_histogram_add_bucket(&c, 900, 1500, 1), 0);
	ck_assert_int_eq(lh_report_fold_hist(&a, &c), LH_REPORT_FOLD_MISFIT);
	ck_assert_uint_eq(a.count, 2);
	lh_histogram_release(&a);
	lh_histogram_release(&b);
	lh_histogram_release(&c);
}
END_TEST

START_TEST(tracer_histogram_misfit_said)
{
	struct lh_report_tracer dst = { 0 }, src = { 0 };
	struct told told = { 0 };
	const struct lh_report_fold_ops ops = {
		.overflow = on_overflow, .misfit = on_misfit, .arg = &told,
		.parts = LH_REPORT_FOLD_PROGRESSIONS,
	};

	lh_histogram_add(&dst.hist, 1000);
	ck_assert_int_eq(lh_histogram_add_bucket(&src.hist, 900, 1500, 1), 0);
	ck_assert_int_eq(lh_report_fold_tracer(&dst, &src, &ops), -1);
	ck_assert_str_eq(told.misfit, "histogram");
	ck_assert_uint_eq(dst.hist.count, 1);
	lh_report_tracer_release(&dst);
	lh_report_tracer_release(&src);
}
END_TEST

START_TEST(worst_is_the_worst)
{
	struct lh_report_where d = { .set = true, .latency_us = 50, .cpu = 1 };
	struct lh_report_where s = { .set = true, .latency_us = 40, .cpu = 2 }, none = { 0 };

	lh_report_fold_where(&d, &s);
	ck_assert_int_eq(d.cpu, 1);
	lh_report_fold_where(&d, &none);
	ck_assert_uint_eq(d.latency_us, 50);
	s.latency_us = 60;
	lh_report_fold_where(&d, &s);
	ck_assert_int_eq(d.cpu, 2);
	ck_assert_uint_eq(d.latency_us, 60);
}
END_TEST

/*
 * Whole reports fold as merge and each side of diff fold them: by tracer, signature, rule id
 * and kernel histogram; a rule of another severity and a count past 2^64 are told, with
 * where they are; progressions only when asked for.
 */
START_TEST(whole_reports_fold)
{
	struct lh_rules *crit = feed_rules("[raid]\nmatch = ^fakeraid\nin = stack\n"
					   "severity = critical\n");
	struct lh_rules *warn = feed_rules("[raid]\nmatch = ^fakeraid\nin = stack\n"
					   "severity = warning\n");
	struct lh_report *a = lh_report_alloc(crit, NULL), *b = lh_report_alloc(warn, NULL);
	struct lh_report *dst = lh_report_fold_alloc();
	struct lh_histogram h = { 0 };
	struct told told = { 0 };
	const struct lh_report_fold_ops ops = {
		.overflow = on_overflow, .misfit = on_misfit, .arg = &told,
		.conflict = on_conflict,
	};
	const struct lh_report_histogram *k;

	add(a, LH_TRACER_IRQSOFF, 2005, 0, "fakeraid_isr", 1);
	add(a, LH_TRACER_IRQSOFF, 40, 1, NULL, 2);
	add(b, LH_TRACER_IRQSOFF, 2093, 1, "fakeraid_isr", 1);
	lh_histogram_add(&h, 10000);
	lh_report_set_histogram(a, "irqsoff", -1, &h);
	lh_report_set_histogram(b, "irqsoff", -1, &h);
	lh_report_set_histogram(b, "irqsoff", 1, &h);
	ck_assert_int_eq(lh_report_fold(dst, a, &ops), 0);
	ck_assert_int_eq(lh_report_fold(dst, b, &ops), -1);
	ck_assert_int_eq(told.n, 0);
	/* the rule is kept as the first report says it, the other severity told */
	ck_assert_int_eq(told.conflicts, 1);
	ck_assert_str_eq(told.conflict, "raid critical/warning");
	ck_assert_uint_eq(lh_rules_count(dst->own_rules), 1);
	ck_assert_int_eq(lh_rules_get(dst->own_rules, 0)->severity, LH_SEV_CRITICAL);
	ck_assert_uint_eq(dst->rule_agg[0].hits, 2);
	ck_assert_uint_eq(dst->rule_agg[0].worst_us, 2093);
	/* the same culprit is one offender group */
	ck_assert_uint_eq(dst->tracers[LH_TRACER_IRQSOFF].count, 4);
	ck_assert_uint_eq(dst->tracers[LH_TRACER_IRQSOFF].worst.latency_us, 2093);
	ck_assert_uint_eq(dst->tracers[LH_TRACER_IRQSOFF].cpus[2].count, 3);
	ck_assert_uint_eq(dst->nr_offenders, 2);
	ck_assert_uint_eq(dst->offenders[0].count + dst->offenders[1].count, 4);
	/* kernel histograms by source, kind and CPU, counting the reports they came from */
	ck_assert_uint_eq(dst->nr_hists, 2);
	k = lh_report_khist_find(dst, "kernel", "irqsoff", -1);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->h.count, 2);
	ck_assert_uint_eq(k->nr_folded, 2);
	ck_assert_uint_eq(lh_report_khist_find(dst, "kernel", "irqsoff", 1)->nr_folded, 1);
	ck_assert_ptr_null(lh_report_khist_find(dst, "kernel", "irqsoff", 0));
	/* progressions were not asked for */
	ck_assert_uint_eq(dst->tracers[LH_TRACER_IRQSOFF].nr_steps, 0);
	/* a count that would pass 2^64: told with its tracer, never a smaller number */
	b->tracers[LH_TRACER_IRQSOFF].cpus[2].count = UINT64_MAX;
	ck_assert_int_eq(lh_report_fold(dst, b, &ops), -1);
	ck_assert_str_eq(told.overflow, "cpus.count");
	ck_assert_int_eq(told.tracer, LH_TRACER_IRQSOFF);
	ck_assert_int_eq(told.cpu, 1);
	ck_assert_uint_eq(dst->tracers[LH_TRACER_IRQSOFF].cpus[2].count, UINT64_MAX);
	lh_histogram_release(&h);
	lh_report_free(dst);
	lh_report_free(a);
	lh_report_free(b);
	lh_rules_free(crit);
	lh_rules_free(warn);
}
END_TEST

/*
 * osnoise's figures fold by CPU: the fold's % CPU available is that of every period, a CPU
 * that measured no period stays listed, and a sum past 2^64 is told naming the CPU.
 */
START_TEST(noise_folds_by_cpu)
{
	struct lh_report *a = lh_report_alloc(NULL, NULL), *b = lh_report_alloc(NULL, NULL);
	struct lh_report *dst = lh_report_fold_alloc();
	struct told told = { 0 };
	const struct lh_report_fold_ops ops = { .overflow = on_overflow, .arg = &told };
	uint32_t milli;

	lh_report_set_noise(a, &(struct lh_report_noise){
		.cpu = 1, .periods = 2, .runtime_ns = 2000000000, .noise_ns = 16040000 });
	lh_report_set_noise(a, &(struct lh_report_noise){ .cpu = 0 });
	lh_report_set_noise(b, &(struct lh_report_noise){
		.cpu = 1, .periods = 2, .runtime_ns = 2000000000, .noise_ns = 40000 });
	ck_assert_int_eq(lh_report_fold(dst, a, &ops), 0);
	ck_assert_int_eq(lh_report_fold(dst, b, &ops), 0);
	ck_assert_uint_eq(dst->nr_noise, 2);
	ck_assert_int_eq(dst->noise[0].cpu, 0);
	ck_assert_uint_eq(dst->noise[0].runtime_ns, 0);
	ck_assert_int_eq(dst->noise[1].cpu, 1);
	ck_assert_uint_eq(dst->noise[1].periods, 4);
	ck_assert_uint_eq(dst->noise[1].runtime_ns, 4000000000);
	ck_assert_uint_eq(dst->noise[1].noise_ns, 16080000);
	ck_assert_int_eq(lh_gate_available(dst->noise[1].runtime_ns, dst->noise[1].noise_ns,
					   &milli), 0);
	ck_assert_uint_eq(milli, 99598);
	b->noise[0].runtime_ns = UINT64_MAX;
	ck_assert_int_eq(lh_report_fold(dst, b, &ops), -1);
	ck_assert_str_eq(told.overflow, "noise_cpus.runtime_us");
	ck_assert_int_eq(told.tracer, LH_TRACER_OSNOISE);
	ck_assert_int_eq(told.cpu, 1);
	ck_assert_uint_eq(dst->noise[1].runtime_ns, UINT64_MAX);
	lh_report_free(dst);
	lh_report_free(a);
	lh_report_free(b);
}
END_TEST

/* Return: n with a source of kind, name, count and noise (us) added. */
static struct lh_report_noise *with_source(struct lh_report_noise *n, enum lh_spike_kind kind,
					   const char *name, uint64_t count, uint64_t us)
{
	struct lh_report_source s = { .kind = kind, .count = count, .noise_ns = us * 1000 };

	snprintf(s.name, sizeof(s.name), "%s", name);
	ck_assert_int_eq(lh_report_noise_add_source(n, &s), 0);
	return n;
}

/*
 * Noise sources fold by CPU, kind and name, noisiest first; hardware noise and drops add,
 * the longest single noise is the longer; a sum past 2^64 is told naming the CPU.
 */
START_TEST(noise_sources_fold)
{
	struct lh_report *a = lh_report_alloc(NULL, NULL), *b = lh_report_alloc(NULL, NULL);
	struct lh_report *dst = lh_report_fold_alloc();
	struct told told = { 0 };
	const struct lh_report_fold_ops ops = { .overflow = on_overflow, .arg = &told };
	struct lh_report_noise na = { .cpu = 1, .periods = 1, .runtime_ns = 1000000000,
				      .noise_ns = 200000, .max_single_ns = 90000, .hw_count = 1 };
	struct lh_report_noise nb = { .cpu = 1, .periods = 1, .runtime_ns = 1000000000,
				      .noise_ns = 150000, .max_single_ns = 120000, .hw_count = 2 };
	const struct lh_report_noise *n;

	with_source(with_source(&na, LH_SPIKE_THREAD, "lhspin", 10, 100), LH_SPIKE_IRQ,
		    "local_timer", 100, 50);
	with_source(with_source(&nb, LH_SPIKE_IRQ, "eth0", 7, 70), LH_SPIKE_THREAD, "lhspin", 3,
		    30);
	lh_report_set_noise(a, &na);
	lh_report_set_noise(b, &nb);
	lh_report_set_noise_dropped(a, 1);
	lh_report_set_noise_dropped(b, 2);
	ck_assert_int_eq(lh_report_fold(dst, a, &ops), 0);
	ck_assert_int_eq(lh_report_fold(dst, b, &ops), 0);
	n = &dst->noise[0];
	ck_assert(n->has_sources);
	ck_assert_uint_eq(n->nr_sources, 3);
	ck_assert_str_eq(n->sources[0].name, "lhspin");
	ck_assert_uint_eq(n->sources[0].count, 13);
	ck_assert_uint_eq(n->sources[0].noise_ns, 130000);
	ck_assert_str_eq(n->sources[1].name, "eth0");
	ck_assert_str_eq(n->sources[2].name, "local_timer");
	ck_assert_uint_eq(n->other_sources, 0);
	ck_assert_uint_eq(n->hw_count, 3);
	ck_assert_uint_eq(n->max_single_ns, 120000);
	ck_assert_uint_eq(dst->noise_dropped, 3);
	b->noise[0].sources[0].count = UINT64_MAX;
	ck_assert_int_eq(lh_report_fold(dst, b, &ops), -1);
	ck_assert_str_eq(told.overflow, "noise_cpus.sources");
	ck_assert_int_eq(told.cpu, 1);
	lh_report_free(dst);
	lh_report_free(a);
	lh_report_free(b);
}
END_TEST

/*
 * A CPU keeps its LH_REPORT_NOISE_SOURCES noisiest sources whatever the order they come in;
 * the rest is summed, none of them noisier than the last kept, nothing lost.
 */
START_TEST(noise_sources_bounded)
{
	struct lh_report_noise n = { .cpu = 0 };
	uint64_t kept = 0;
	char name[16];
	size_t i;

	/* 20 sources of 1..20 us, in a scrambled order, one of them twice */
	for (i = 0; i < 20; i++) {
		unsigned int v = (unsigned int)(i * 7 % 20) + 1;

		snprintf(name, sizeof(name), "t%u", v);
		with_source(&n, LH_SPIKE_THREAD, name, 1, v);
	}
	with_source(&n, LH_SPIKE_THREAD, "t3", 1, 3);
	ck_assert_uint_eq(n.nr_sources, LH_REPORT_NOISE_SOURCES);
	for (i = 0; i < n.nr_sources; i++) {
		ck_assert_uint_eq(n.sources[i].noise_ns, (20 - i) * 1000);
		kept += n.sources[i].noise_ns;
	}
	ck_assert_uint_eq(n.other_sources, 13);
	ck_assert_uint_eq(n.other_count, 13);
	ck_assert_uint_eq(kept + n.other_ns, (20 * 21 / 2 + 3) * 1000);
	ck_assert_uint_le(n.other_ns, n.other_sources * n.sources[n.nr_sources - 1].noise_ns);
}
END_TEST

static Suite *report_fold_suite(void)
{
	Suite *s = suite_create("report-fold");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, fold_like_one_report);
	tcase_add_test(tc, noise_sources_fold);
	tcase_add_test(tc, noise_sources_bounded);
	tcase_add_test(tc, count_past_2_64_said);
	tcase_add_test(tc, histograms_fold_one_way);
	tcase_add_test(tc, tracer_histogram_misfit_said);
	tcase_add_test(tc, worst_is_the_worst);
	tcase_add_test(tc, whole_reports_fold);
	tcase_add_test(tc, noise_folds_by_cpu);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(report_fold_suite)
