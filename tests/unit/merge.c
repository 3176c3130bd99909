// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the fleet report (src/report/merge*.c): reports of two hosts fold into one
 * view (the fleet's worst and its host, sections per host, the culprit both hosts hit, rule
 * hits across hosts, histograms summed), the --max gate on the fleet's worst, and counts that
 * would pass 2^64 refused as an error naming the report, never folded as a smaller number.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "report/merge.h"
#include "report/report-priv.h"
#include "check-main.h"
#include "report-feed.h"

static const char test_rules[] =
	"[raid-irq-held]\n"
	"match    = ^fakeraid\n"
	"in       = stack\n"
	"severity = critical\n";

static struct lh_rules *rules;

static void setup(void)
{
	rules = feed_rules(test_rules);
}

static void teardown(void)
{
	lh_rules_free(rules);
	rules = NULL;
}

/* Return: an empty report of board, judged by the test rules. */
static struct lh_report *board_rep(const char *board)
{
	const struct lh_report_opts o = { .keep = 10, .board = board };

	return lh_report_alloc(rules, &o);
}

/* Return: a fleet judged by --max irqsoff=max_us and --fail-on none. */
static struct lh_merge *fleet(uint64_t max_us)
{
	struct lh_merge_opts o = { 0 };

	lh_gate_init(&o.gate);
	o.gate.fail_on = LH_GATE_FAIL_NONE;
	o.gate.has_max[LH_TRACER_IRQSOFF] = true;
	o.gate.max_ns[LH_TRACER_IRQSOFF] = max_us * 1000;
	return lh_merge_alloc(&o);
}

static void free_all(struct lh_merge *m, struct lh_report *a, struct lh_report *b)
{
	lh_merge_free(m);
	lh_report_free(a);
	lh_report_free(b);
}

/* Folds a and b (evaluated first) into m, each expected to return ret_a and ret_b. */
static void fold_two(struct lh_merge *m, struct lh_report *a, int ret_a, struct lh_report *b,
		     int ret_b)
{
	feed_evaluate(a);
	feed_evaluate(b);
	ck_assert_int_eq(lh_merge_add(m, "a.json", a), ret_a);
	ck_assert_int_eq(lh_merge_add(m, "b.json", b), ret_b);
	lh_merge_finish(m);
}

START_TEST(two_hosts_fold)
{
	struct lh_report *a = board_rep("rig-a"), *b = board_rep("rig-b");
	struct lh_merge *m = fleet(3000);
	const struct lh_report_tracer *t;
	const struct lh_report_offender *o;
	size_t i, raid = SIZE_MAX;

	add(a, LH_TRACER_IRQSOFF, 40, 0, NULL, 3);
	add(a, LH_TRACER_IRQSOFF, 2005, 1, "fakeraid_isr", 1);
	add(b, LH_TRACER_IRQSOFF, 2093, 2, "fakeraid_isr", 1);
	add(b, LH_TRACER_IRQSOFF, 30, 0, NULL, 2);
	add(b, LH_TRACER_PREEMPTOFF, 50, 0, NULL, 1);
	fold_two(m, a, 0, b, 0);
	ck_assert_str_eq(lh_merge_verdict(m), "pass");
	ck_assert_uint_eq(m->reports, 2);
	ck_assert_uint_eq(m->nr_hosts, 2);

	/* the fleet counts what one report of all the sections would */
	t = &m->fleet->tracers[LH_TRACER_IRQSOFF];
	ck_assert_uint_eq(t->count, 7);
	ck_assert_uint_eq(t->hist.count, 7);
	ck_assert_uint_eq(t->worst.latency_us, 2093);
	ck_assert_str_eq(m->hosts[m->tracers[LH_TRACER_IRQSOFF].worst_host].board, "rig-b");
	ck_assert_uint_eq(t->cpus[1].count + t->cpus[2].count + t->cpus[3].count, 7);
	ck_assert_uint_eq(t->cpus[1].count, 5);		/* CPU 0 of both hosts */
	ck_assert_uint_eq(m->fleet->tracers[LH_TRACER_PREEMPTOFF].count, 1);

	/* and per host, its own share */
	ck_assert_uint_eq(m->hosts[0].sections[LH_TRACER_IRQSOFF], 4);
	ck_assert_uint_eq(m->hosts[0].worst_us[LH_TRACER_IRQSOFF], 2005);
	ck_assert_uint_eq(m->hosts[1].sections[LH_TRACER_IRQSOFF], 3);
	ck_assert_uint_eq(m->hosts[1].sections[LH_TRACER_PREEMPTOFF], 1);

	/* the culprit both hosts hit is one signature, on two hosts, worst on rig-b */
	for (i = 0; i < m->fleet->nr_offenders; i++)
		if (strstr(m->fleet->offenders[i].signature, "fakeraid_isr"))
			raid = i;
	ck_assert_uint_ne(raid, SIZE_MAX);
	o = &m->fleet->offenders[raid];
	ck_assert_uint_eq(o->count, 2);
	ck_assert_uint_eq(o->worst_us, 2093);
	ck_assert_uint_eq(m->sigs[raid].hosts.nr, 2);
	ck_assert_str_eq(m->hosts[m->sigs[raid].worst_host].board, "rig-b");

	/* the rule hit once on each host */
	ck_assert_uint_eq(lh_rules_count(m->fleet->own_rules), 1);
	ck_assert_uint_eq(m->fleet->rule_agg[0].hits, 2);
	ck_assert_uint_eq(m->rule_hosts[0].nr, 2);
	free_all(m, a, b);
}
END_TEST

START_TEST(max_on_the_fleets_worst)
{
	struct lh_report *a = board_rep("rig-a"), *b = board_rep("rig-b");
	struct lh_merge *m = fleet(2000);

	add(a, LH_TRACER_IRQSOFF, 1500, 0, NULL, 1);
	add(b, LH_TRACER_IRQSOFF, 2093, 0, NULL, 1);
	fold_two(m, a, 0, b, 0);
	ck_assert_str_eq(lh_merge_verdict(m), "fail");
	ck_assert_uint_eq(m->verdict.nr_violations, 1);
	ck_assert_ptr_nonnull(strstr(m->verdict.violations[0],
				     "irqsoff: the fleet's worst 2093us on rig-b is over --max"));
	free_all(m, a, b);
}
END_TEST

START_TEST(overflow_refused)
{
	struct lh_report *a = board_rep("rig-a"), *b = board_rep("rig-b");
	struct lh_merge *m = fleet(5000);
	struct lh_report_tracer *ta = &a->tracers[LH_TRACER_IRQSOFF];

	add(a, LH_TRACER_IRQSOFF, 40, 0, NULL, 1);
	add(b, LH_TRACER_IRQSOFF, 50, 0, NULL, 2);
	/* a report that counts 2^64 - 2 sections (its histogram too: the fold checks both) */
	ta->count = UINT64_MAX - 1;
	ta->hist.count = UINT64_MAX - 1;
	fold_two(m, a, 0, b, -1);
	ck_assert_str_eq(lh_merge_verdict(m), "error");
	ck_assert_str_eq(m->verdict.error,
			 "report 'b.json': the irqsoff sections add up past 2^64");
	/* never a smaller number: the sum stays at its largest, the host's share unadded */
	ck_assert_uint_eq(m->fleet->tracers[LH_TRACER_IRQSOFF].count, UINT64_MAX);
	ck_assert_uint_eq(m->hosts[1].sections[LH_TRACER_IRQSOFF], 0);
	ck_assert_uint_eq(m->nr_problems, 2);	/* the histogram's counts, said too */
	ck_assert_ptr_nonnull(strstr(m->problems[1], "the counts of the irqsoff histogram"));
	free_all(m, a, b);
}
END_TEST

/* Return: a fleet judged by --min-available osnoise=pct and --fail-on none. */
static struct lh_merge *available_fleet(const char *pct)
{
	struct lh_merge_opts o = { 0 };
	const char *err;

	lh_gate_init(&o.gate);
	o.gate.fail_on = LH_GATE_FAIL_NONE;
	ck_assert_int_eq(lh_gate_parse_min_available(&o.gate, pct, &err), 0);
	return lh_merge_alloc(&o);
}

/* osnoise on cpu: periods of 1 s each with noise_us of noise in them. */
static void noise(struct lh_report *rep, int cpu, uint64_t periods, uint64_t noise_us)
{
	lh_report_set_noise(rep, &(struct lh_report_noise){
		.cpu = cpu, .periods = periods, .runtime_ns = periods * 1000000000,
		.noise_ns = noise_us * 1000,
	});
}

/*
 * osnoise's availability is each host's, over every period of its reports (never the fleet's
 * CPU 1 of every board added up), and --min-available judges each host's CPUs.
 */
START_TEST(available_per_host)
{
	struct lh_report *a = board_rep("rig-a"), *b = board_rep("rig-b");
	struct lh_report *a2 = board_rep("rig-a");
	struct lh_merge *m = available_fleet("osnoise=99.5");
	uint32_t milli;

	noise(a, 0, 2, 40);		/* 99.998 % */
	noise(a, 1, 2, 16040);		/* 99.198 % alone; with a2's, 99.598 % */
	noise(a2, 1, 2, 40);
	noise(b, 1, 2, 100000);		/* 95 % */
	feed_evaluate(a);
	feed_evaluate(a2);
	feed_evaluate(b);
	ck_assert_int_eq(lh_merge_add(m, "a.json", a), 0);
	ck_assert_int_eq(lh_merge_add(m, "b.json", b), 0);
	ck_assert_int_eq(lh_merge_add(m, "a2.json", a2), 0);
	lh_merge_finish(m);
	ck_assert_uint_eq(m->nr_hosts, 2);
	ck_assert_uint_eq(m->hosts[0].reports, 2);
	ck_assert_uint_eq(m->hosts[0].noise->nr_noise, 2);
	ck_assert_uint_eq(m->hosts[0].noise->noise[1].periods, 4);
	ck_assert_int_eq(lh_gate_available(m->hosts[0].noise->noise[1].runtime_ns,
					   m->hosts[0].noise->noise[1].noise_ns, &milli), 0);
	ck_assert_uint_eq(milli, 99598);
	ck_assert_uint_eq(m->hosts[1].noise->nr_noise, 1);
	ck_assert_str_eq(lh_merge_verdict(m), "fail");
	ck_assert_uint_eq(m->verdict.nr_violations, 1);
	ck_assert_str_eq(m->verdict.violations[0],
			 "host rig-b: osnoise: CPU1 has 95.000 % available, below --min-available osnoise=99.500");
	lh_report_free(a2);
	free_all(m, a, b);
}
END_TEST

/* A host --min-available cannot judge is an error: no osnoise, a CPU without a period. */
START_TEST(available_fails_closed)
{
	struct lh_report *a = board_rep("rig-a"), *b = board_rep("rig-b");
	struct lh_merge *m = available_fleet("osnoise=90");

	noise(a, 0, 2, 40);
	add(b, LH_TRACER_IRQSOFF, 50, 0, NULL, 1);
	fold_two(m, a, 0, b, 0);
	ck_assert_str_eq(lh_merge_verdict(m), "error");
	ck_assert_str_eq(m->verdict.error,
			 "host rig-b: osnoise is gated by --min-available but no period was measured (no report of the host lists one): its availability cannot be judged");
	free_all(m, a, b);

	a = board_rep("rig-a");
	b = board_rep("rig-b");
	m = available_fleet("osnoise=90");
	noise(a, 0, 2, 40);
	noise(b, 0, 2, 40);
	noise(b, 3, 0, 0);
	fold_two(m, a, 0, b, 0);
	ck_assert_str_eq(m->verdict.error,
			 "host rig-b: osnoise is gated by --min-available but CPU3 measured no period: its availability cannot be judged");
	free_all(m, a, b);

	/* not gated: nothing to judge, no error */
	a = board_rep("rig-a");
	b = board_rep("rig-b");
	m = fleet(5000);
	noise(a, 0, 2, 40);
	add(a, LH_TRACER_IRQSOFF, 50, 0, NULL, 1);
	add(b, LH_TRACER_IRQSOFF, 50, 0, NULL, 1);
	fold_two(m, a, 0, b, 0);
	ck_assert_str_eq(lh_merge_verdict(m), "pass");
	ck_assert_ptr_null(m->hosts[1].noise);
	free_all(m, a, b);
}
END_TEST

static Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, two_hosts_fold);
	tcase_add_test(tc, max_on_the_fleets_worst);
	tcase_add_test(tc, overflow_refused);
	tcase_add_test(tc, available_per_host);
	tcase_add_test(tc, available_fails_closed);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(merge_suite)
