// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the release gates (src/report/gate.c, lh_report_evaluate()): --max budgets per
 * tracer and 'all', --fail-on severities, accepted records that never fail, and the
 * violation sentences.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/report.h"
#include "check-main.h"

static const char test_rules[] =
	"[raid-irq-held]\n"
	"match    = fakeraid\n"
	"in       = irq\n"
	"severity = critical\n"
	"\n"
	"[slow-alloc]\n"
	"match    = ^slob_\n"
	"severity = warning\n"
	"\n"
	"[note]\n"
	"match    = ^note\n"
	"severity = info\n"
	"\n"
	"[known-nic]\n"
	"match    = ^igb_\n"
	"severity = ignore\n";

enum { R_CRIT, R_WARN, R_INFO, R_IGNORE };

static struct lh_rules *rules;
static struct lh_report *rep;
static struct lh_gate gate;

static void setup(void)
{
	struct lh_diag d = { 0 };

	rules = lh_rules_alloc();
	ck_assert_int_eq(lh_rules_load_buffer(rules, "gate.rules", test_rules,
					      strlen(test_rules), &d), 0);
	ck_assert_uint_eq(lh_rules_count(rules), 4);
	lh_diag_release(&d);
	rep = lh_report_alloc(rules, NULL);
	lh_gate_init(&gate);
}

static void teardown(void)
{
	lh_report_free(rep);
	lh_rules_free(rules);
}

static void max(const char *arg)
{
	const char *err = NULL;

	ck_assert_msg(!lh_gate_parse_max(&gate, arg, &err), "--max %s: %s", arg, err);
}

static void fail_on(const char *arg)
{
	const char *err = NULL;

	ck_assert_msg(!lh_gate_parse_fail_on(&gate, arg, &err), "--fail-on %s: %s", arg, err);
}

/* Adds a record of tracer t that fired the rules in hits (-1 terminated). */
static void add(enum lh_tracer t, uint64_t lat, int cpu, const char *comm, int pid,
		const int *hits)
{
	struct lh_record *r = lh_record_alloc();
	struct lh_match m = { 0 };

	r->tracer = t;
	r->latency_us = lat;
	r->cpu = cpu;
	r->task.comm = comm;
	r->task.pid = pid;
	for (; hits && *hits >= 0; hits++) {
		const struct lh_rule *rule = lh_rules_get(rules, (size_t)*hits);

		LH_GROW(m.hits, m.nr_hits + 1, m.alloc_hits);
		m.hits[m.nr_hits++] = (size_t)*hits;
		if (rule->severity == LH_SEV_IGNORE) {
			m.accepted = true;
		} else if (!m.has_worst || rule->severity > m.worst) {
			m.has_worst = true;
			m.worst = rule->severity;
		}
	}
	lh_report_add(rep, r, &m);
	lh_match_release(&m);
	lh_record_free(r);
}

static bool has_violation(const char *text)
{
	size_t i;

	for (i = 0; i < lh_report_nr_violations(rep); i++)
		if (!strcmp(lh_report_violation(rep, i), text))
			return true;
	return false;
}

static void dump(void)
{
	size_t i;

	for (i = 0; i < lh_report_nr_violations(rep); i++)
		fprintf(stderr, "violation: %s\n", lh_report_violation(rep, i));
}

START_TEST(parse_max)
{
	const char *err;
	uint64_t ns;

	max("irqsoff=500us");
	ck_assert(gate.has_max[LH_TRACER_IRQSOFF]);
	ck_assert_uint_eq(gate.max_ns[LH_TRACER_IRQSOFF], 500000);
	max("all=1ms");
	ck_assert(gate.has_max[LH_TRACER_UNKNOWN]);
	ck_assert_uint_eq(gate.max_ns[LH_TRACER_UNKNOWN], 1000000);
	max("wakeup_rt=150");		/* a bare number is µs */
	ck_assert_uint_eq(gate.max_ns[LH_TRACER_WAKEUP_RT], 150000);
	err = NULL;			/* a second budget for one tracer is refused */
	ck_assert_int_eq(lh_gate_parse_max(&gate, "irqsoff=80us", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "already given"));
	ck_assert_uint_eq(gate.max_ns[LH_TRACER_IRQSOFF], 500000);
	/* no latency budget: 0, and 1s or more ("1m" meant as 1 ms was a minute) */
	err = NULL;
	ck_assert_int_eq(lh_gate_parse_max(&gate, "preemptirqsoff=0", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "0 is not a latency budget"));
	err = NULL;
	ck_assert_int_eq(lh_gate_parse_max(&gate, "preemptirqsoff=1m", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "did you mean 'ms'?"));
	ck_assert(!gate.has_max[LH_TRACER_PREEMPTIRQSOFF]);

	ck_assert(lh_gate_budget(&gate, LH_TRACER_IRQSOFF, &ns));
	ck_assert_uint_eq(ns, 500000);
	ck_assert(lh_gate_budget(&gate, LH_TRACER_PREEMPTOFF, &ns));	/* from all */
	ck_assert_uint_eq(ns, 1000000);
	ck_assert(lh_gate_budget(&gate, LH_TRACER_UNKNOWN, &ns));
	ck_assert_uint_eq(ns, 1000000);

	lh_gate_init(&gate);
	ck_assert(!lh_gate_budget(&gate, LH_TRACER_IRQSOFF, &ns));
	ck_assert_int_eq(gate.fail_on, LH_SEV_CRITICAL);
	err = NULL;
	ck_assert_int_eq(lh_gate_parse_max(&gate, "irqsoff", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "TRACER=DURATION"));
	ck_assert_int_eq(lh_gate_parse_max(&gate, "=1ms", &err), -1);
	err = NULL;
	ck_assert_int_eq(lh_gate_parse_max(&gate, "irqsof=1ms", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown tracer"));
	ck_assert_int_eq(lh_gate_parse_max(&gate, "unknown=1ms", &err), -1);
	err = NULL;
	ck_assert_int_eq(lh_gate_parse_max(&gate, "irqsoff=1parsec", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "unit"));
	ck_assert_int_eq(lh_gate_parse_max(&gate, "irqsoff=-1ms", &err), -1);
	ck_assert_int_eq(lh_gate_parse_max(&gate, "irqsoff=", &err), -1);
	ck_assert_int_eq(lh_gate_parse_max(&gate, "", &err), -1);
	/* Failed parses change nothing. */
	ck_assert(!lh_gate_budget(&gate, LH_TRACER_IRQSOFF, &ns));
	/* After the failed ones, a first budget is taken; a second "all" is refused too. */
	ck_assert_int_eq(lh_gate_parse_max(&gate, "all=2ms", &err), 0);
	ck_assert_int_eq(lh_gate_parse_max(&gate, "all=5ms", &err), -1);
	ck_assert(lh_gate_budget(&gate, LH_TRACER_IRQSOFF, &ns));
	ck_assert_uint_eq(ns, 2000000);
}
END_TEST

START_TEST(parse_fail_on)
{
	const char *err = NULL;

	fail_on("info");
	ck_assert_int_eq(gate.fail_on, LH_SEV_INFO);
	ck_assert_str_eq(lh_gate_fail_on_name(&gate), "info");
	fail_on("warning");
	ck_assert_int_eq(gate.fail_on, LH_SEV_WARNING);
	fail_on("none");
	ck_assert_int_eq(gate.fail_on, LH_GATE_FAIL_NONE);
	ck_assert_str_eq(lh_gate_fail_on_name(&gate), "none");
	fail_on("critical");
	ck_assert_str_eq(lh_gate_fail_on_name(&gate), "critical");
	ck_assert_int_eq(lh_gate_parse_fail_on(&gate, "ignore", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "info, warning, critical or none"));
	ck_assert_int_eq(lh_gate_parse_fail_on(&gate, "Critical", &err), -1);
	ck_assert_int_eq(lh_gate_parse_fail_on(&gate, "", &err), -1);
	ck_assert_int_eq(gate.fail_on, LH_SEV_CRITICAL);
}
END_TEST

START_TEST(parse_min_available)
{
	static const struct { const char *arg; uint32_t milli; const char *err; } cases[] = {
		{ "osnoise=99.5", 99500, NULL },
		{ "osnoise=99.5%", 99500, NULL },
		{ "osnoise=100", 100000, NULL },
		{ "osnoise=0.001", 1, NULL },
		{ "osnoise=0", 0, NULL },
		{ "osnoise=99.1234", 0, "at most 3 decimals" },
		{ "osnoise=100.001", 0, "a percentage is at most 100" },
		{ "osnoise=99999999999", 0, "a percentage is at most 100" },
		{ "osnoise=", 0, "expected a percentage, e.g. 99.5" },
		{ "osnoise=99.", 0, "expected a percentage, e.g. 99.5" },
		{ "osnoise=-1", 0, "expected a percentage, e.g. 99.5" },
		{ "osnoise=99x", 0, "expected a percentage, e.g. 99.5" },
		{ "timerlat=99", 0, "only osnoise measures the CPU available (use osnoise=PCT)" },
		{ "all=99", 0, "only osnoise measures the CPU available (use osnoise=PCT)" },
		{ "99", 0, "expected osnoise=PCT, e.g. osnoise=99.5" },
	};
	const char *err;
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(cases); i++) {
		struct lh_gate g;
		int rc;

		lh_gate_init(&g);
		err = NULL;
		rc = lh_gate_parse_min_available(&g, cases[i].arg, &err);
		if (cases[i].err) {
			ck_assert_msg(rc == -1, "%s accepted", cases[i].arg);
			ck_assert_str_eq(err, cases[i].err);
			ck_assert(!g.has_min_available);
		} else {
			ck_assert_msg(rc == 0, "%s: %s", cases[i].arg, err);
			ck_assert(g.has_min_available);
			ck_assert_uint_eq(g.min_available_milli, cases[i].milli);
			/* twice is a typo in a CI script */
			ck_assert_int_eq(lh_gate_parse_min_available(&g, "osnoise=1", &err), -1);
			ck_assert_str_eq(err, "a minimum for osnoise was already given");
		}
	}
}
END_TEST

/* 100 % - noise / runtime, the noise rounded up, without overflow. */
START_TEST(available_arithmetic)
{
	static const struct { uint64_t runtime, noise; uint32_t milli; } cases[] = {
		{ 1000000000, 0, 100000 },
		{ 1000000000, 1000000000, 0 },
		{ 1000000000, 2000000000, 0 },		/* noise over runtime: none available */
		{ 4000000000ULL, 8060000, 99798 },	/* 0.2015 % of noise: 99.7985 -> 99.798 */
		{ 3, 1, 66666 },			/* 33.333... % rounded up */
		{ 1000000000, 1, 99999 },		/* a nanosecond of noise is not 100 % */
		{ 1000000000000000ULL, 500000000000000ULL, 50000 },	/* noise * 1e5 > 2^64 */
		{ UINT64_MAX, UINT64_MAX / 2, 50000 },
		{ UINT64_MAX, UINT64_MAX, 0 },
		{ UINT64_MAX, 0, 100000 },
		{ 1, 0, 100000 },
	};
	uint32_t milli = 12345;
	char buf[16];
	size_t i;

	ck_assert_int_eq(lh_gate_available(0, 0, &milli), -1);
	ck_assert_int_eq(lh_gate_available(0, 5, &milli), -1);
	ck_assert_uint_eq(milli, 12345);	/* untouched: nothing measured */
	for (i = 0; i < LH_ARRAY_SIZE(cases); i++) {
		ck_assert_int_eq(lh_gate_available(cases[i].runtime, cases[i].noise, &milli), 0);
		ck_assert_msg(milli == cases[i].milli, "case %zu: %u, not %u", i, milli,
			      cases[i].milli);
	}
	ck_assert_str_eq(lh_gate_fmt_available(99798, buf, sizeof(buf)), "99.798");
	ck_assert_str_eq(lh_gate_fmt_available(100000, buf, sizeof(buf)), "100.000");
	ck_assert_str_eq(lh_gate_fmt_available(5, buf, sizeof(buf)), "0.005");
}
END_TEST

static void noise_cpu(int cpu, uint64_t periods, uint64_t runtime, uint64_t noise)
{
	struct lh_report_noise n = {
		.cpu = cpu, .periods = periods, .runtime_ns = runtime, .noise_ns = noise,
	};

	lh_report_set_noise(rep, &n);
}

static void min_available(const char *arg)
{
	const char *err = NULL;

	ck_assert_msg(!lh_gate_parse_min_available(&gate, arg, &err), "%s: %s", arg, err);
}

/* Each CPU judged on its own, strictly below the minimum. */
START_TEST(min_available_judged)
{
	min_available("osnoise=99.798");
	noise_cpu(1, 4, 4000000000ULL, 8060000);	/* 99.798 % */
	noise_cpu(0, 4, 4000000000ULL, 0);
	ck_assert(lh_report_evaluate(rep, &gate));
	noise_cpu(1, 5, 5000000000ULL, 18060000);	/* replaced: 99.638 % */
	ck_assert(!lh_report_evaluate(rep, &gate));
	ck_assert_ptr_null(lh_report_error(rep));
	ck_assert_uint_eq(lh_report_nr_violations(rep), 1);
	ck_assert_str_eq(lh_report_violation(rep, 0),
			 "osnoise: CPU1 has 99.638 % available, below --min-available osnoise=99.798");
}
END_TEST

/* Fail closed: no period at all, or a CPU of the set without one, is an error. */
START_TEST(min_available_unmeasured)
{
	struct lh_report *r2;
	struct lh_gate none;

	lh_gate_init(&none);
	noise_cpu(0, 0, 0, 0);
	/* ungated, a CPU without a period is no error */
	ck_assert(lh_report_evaluate(rep, &none));
	min_available("osnoise=90");
	noise_cpu(1, 3, 3000000000ULL, 0);
	ck_assert(!lh_report_evaluate(rep, &gate));
	ck_assert_str_eq(lh_report_error(rep),
			 "osnoise is gated by --min-available but CPU0 measured no period: its availability cannot be judged");
	r2 = lh_report_alloc(rules, NULL);
	ck_assert(!lh_report_evaluate(r2, &gate));
	ck_assert_str_eq(lh_report_error(r2),
			 "osnoise is gated by --min-available but no period was measured (the input holds none of its periods): its availability cannot be judged");
	lh_report_free(r2);
}
END_TEST

START_TEST(no_gate_passes)
{
	add(LH_TRACER_IRQSOFF, 100000, 0, "a", 1, NULL);
	ck_assert(lh_report_evaluate(rep, &gate));
	ck_assert_uint_eq(lh_report_nr_violations(rep), 0);
	ck_assert_ptr_null(lh_report_violation(rep, 0));
}
END_TEST

/* A section fails only when strictly longer than its budget. */
START_TEST(max_is_strict)
{
	max("irqsoff=1ms");
	add(LH_TRACER_IRQSOFF, 1000, 0, "a", 1, NULL);
	ck_assert(lh_report_evaluate(rep, &gate));
	add(LH_TRACER_IRQSOFF, 1001, 3, "b", 2, NULL);
	ck_assert(!lh_report_evaluate(rep, &gate));
	ck_assert_uint_eq(lh_report_nr_violations(rep), 1);
	ck_assert_str_eq(lh_report_violation(rep, 0),
			 "irqsoff: worst 1001us (b-2 on CPU3) exceeds --max irqsoff=1ms by 1us");
}
END_TEST

START_TEST(max_violation_text)
{
	max("irqsoff=1ms");
	max("preemptoff=1500ns");
	add(LH_TRACER_IRQSOFF, 150, 0, "irq_test", 82, NULL);
	add(LH_TRACER_IRQSOFF, 2002, 0, "irq_test", 82, NULL);
	add(LH_TRACER_PREEMPTOFF, 2, -1, NULL, -1, NULL);
	ck_assert(!lh_report_evaluate(rep, &gate));
	dump();
	ck_assert_uint_eq(lh_report_nr_violations(rep), 2);
	ck_assert(has_violation(
		"irqsoff: worst 2002us (irq_test-82 on CPU0) exceeds --max irqsoff=1ms by 1002us"));
	ck_assert(has_violation("preemptoff: worst 2us exceeds --max preemptoff=1500ns by 0.500us"));
}
END_TEST

/* all= covers every tracer without its own budget; a tracer's own budget overrides it. */
START_TEST(all_and_override)
{
	max("all=1ms");
	max("irqsoff=5ms");
	add(LH_TRACER_IRQSOFF, 2000, 0, "a", 1, NULL);	/* under its own 5ms */
	add(LH_TRACER_PREEMPTOFF, 2000, 1, "b", 2, NULL);	/* over all=1ms */
	add(LH_TRACER_WAKEUP_RT, 999, 1, "c", 3, NULL);
	ck_assert(!lh_report_evaluate(rep, &gate));
	dump();
	ck_assert_uint_eq(lh_report_nr_violations(rep), 1);
	ck_assert(has_violation(
		"preemptoff: worst 2000us (b-2 on CPU1) exceeds --max all=1ms by 1000us"));

	/* The order of the options does not matter. */
	lh_gate_init(&gate);
	max("irqsoff=1500us");
	max("all=10ms");
	ck_assert(!lh_report_evaluate(rep, &gate));
	ck_assert_uint_eq(lh_report_nr_violations(rep), 1);
	ck_assert(has_violation(
		"irqsoff: worst 2000us (a-1 on CPU0) exceeds --max irqsoff=1500us by 500us"));

	/* An unknown tracer's records fall under all=. */
	lh_gate_init(&gate);
	max("all=1ms");
	max("irqsoff=999ms");
	max("preemptoff=999ms");
	add(LH_TRACER_UNKNOWN, 3000, 0, "d", 4, NULL);
	ck_assert(!lh_report_evaluate(rep, &gate));
	ck_assert(has_violation("unknown: worst 3000us (d-4 on CPU0) exceeds --max all=1ms by 2000us"));
	ck_assert_uint_eq(lh_report_nr_violations(rep), 1);
}
END_TEST

START_TEST(fail_on_severity)
{
	static const int crit[] = { R_CRIT, -1 }, warn[] = { R_WARN, -1 };
	static const int info[] = { R_INFO, -1 };

	add(LH_TRACER_IRQSOFF, 10, 0, "a", 1, info);
	add(LH_TRACER_IRQSOFF, 20, 0, "a", 1, info);
	add(LH_TRACER_IRQSOFF, 30, 0, "a", 1, warn);
	ck_assert(lh_report_evaluate(rep, &gate));		/* critical by default */
	fail_on("warning");
	ck_assert(!lh_report_evaluate(rep, &gate));
	ck_assert_uint_eq(lh_report_nr_violations(rep), 1);
	ck_assert_str_eq(lh_report_violation(rep, 0),
			 "rule slow-alloc (warning) hit by 1 record, worst 30us");
	fail_on("info");
	ck_assert(!lh_report_evaluate(rep, &gate));
	ck_assert_uint_eq(lh_report_nr_violations(rep), 2);
	ck_assert(has_violation("rule note (info) hit by 2 records, worst 20us"));
	fail_on("none");
	add(LH_TRACER_IRQSOFF, 2002, 0, "a", 1, crit);
	ck_assert(lh_report_evaluate(rep, &gate));
	fail_on("critical");
	ck_assert(!lh_report_evaluate(rep, &gate));
	ck_assert(has_violation("rule raid-irq-held (critical) hit by 1 record, worst 2002us"));
	ck_assert_uint_eq(lh_report_rule_hits(rep), 4);
}
END_TEST

/* Records an 'ignore' rule accepted fail neither --max nor --fail-on. */
START_TEST(accepted_never_fails)
{
	static const int crit_ign[] = { R_CRIT, R_IGNORE, -1 }, crit[] = { R_CRIT, -1 };

	max("irqsoff=1ms");
	fail_on("info");
	add(LH_TRACER_IRQSOFF, 9000, 0, "nic", 5, crit_ign);
	add(LH_TRACER_IRQSOFF, 900, 1, "ok", 6, NULL);
	ck_assert(lh_report_evaluate(rep, &gate));
	ck_assert_uint_eq(lh_report_nr_violations(rep), 0);
	ck_assert_uint_eq(lh_report_worst_us(rep, LH_TRACER_IRQSOFF), 9000);	/* still shown */
	ck_assert_uint_eq(lh_report_rule_hits(rep), 0);

	/* The --max worst is the worst non-accepted section. */
	add(LH_TRACER_IRQSOFF, 1200, 1, "bad", 7, crit);
	ck_assert(!lh_report_evaluate(rep, &gate));
	dump();
	ck_assert_uint_eq(lh_report_nr_violations(rep), 2);
	ck_assert(has_violation(
		"irqsoff: worst 1200us (bad-7 on CPU1) exceeds --max irqsoff=1ms by 200us"));
	ck_assert(has_violation("rule raid-irq-held (critical) hit by 1 record, worst 1200us"));
}
END_TEST

/* An ignore rule alone neither fails nor counts as a rule hit, even with --fail-on info. */
START_TEST(ignore_rule_alone)
{
	static const int ign[] = { R_IGNORE, -1 };

	fail_on("info");
	add(LH_TRACER_WAKEUP, 50, 0, "x", 1, ign);
	ck_assert(lh_report_evaluate(rep, &gate));
	ck_assert_uint_eq(lh_report_rule_hits(rep), 0);
}
END_TEST

/*
 * A latency so large that it overflows when turned into ns (a corrupt or hostile trace: the
 * parser saturates its numbers) must still fail --max, never wrap around below the budget;
 * and the JSON report must not turn it into a negative number.
 */
START_TEST(huge_latency_fails_max)
{
	const int crit[] = { R_CRIT, -1 };
	json_object *root, *o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	max("all=1us");
	fail_on("critical");
	/* 2^64 / 1000 rounded up: times 1000 wraps to 384ns */
	add(LH_TRACER_IRQSOFF, 18446744073709552ULL, 0, "a", 1, crit);
	add(LH_TRACER_PREEMPTOFF, UINT64_MAX, 1, "b", 2, NULL);
	ck_assert(!lh_report_evaluate(rep, &gate));
	dump();
	ck_assert_uint_eq(lh_report_nr_violations(rep), 3);
	ck_assert_ptr_nonnull(strstr(lh_report_violation(rep, 0), "irqsoff: worst "));
	ck_assert_ptr_nonnull(strstr(lh_report_violation(rep, 1), "preemptoff: worst "));
	ck_assert_ptr_nonnull(strstr(lh_report_violation(rep, 2), "rule raid-irq-held"));

	f = open_memstream(&buf, &len);
	ck_assert_int_eq(lh_report_write(rep, LH_FORMAT_JSON, f), 0);
	fclose(f);
	root = json_tokener_parse(buf);
	ck_assert_ptr_nonnull(root);
	ck_assert(json_object_object_get_ex(root, "tracers", &o));
	ck_assert(json_object_object_get_ex(o, "preemptoff", &o));
	ck_assert(json_object_object_get_ex(o, "max_us", &o));
	ck_assert_int_eq(json_object_get_int64(o), INT64_MAX);
	ck_assert(json_object_object_get_ex(root, "rules", &o));
	o = json_object_array_get_idx(o, R_CRIT);
	ck_assert(json_object_object_get_ex(o, "worst_us", &o));
	ck_assert_int_eq(json_object_get_int64(o), 18446744073709552LL);
	json_object_put(root);
	free(buf);
}
END_TEST

/* Evaluating again replaces the verdict and violations; writing uses the last one. */
START_TEST(reevaluate)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	add(LH_TRACER_IRQSOFF, 2000, 0, "a", 1, NULL);
	max("irqsoff=1ms");
	ck_assert(!lh_report_evaluate(rep, &gate));
	lh_gate_init(&gate);
	max("irqsoff=2ms");
	ck_assert(lh_report_evaluate(rep, &gate));
	ck_assert_uint_eq(lh_report_nr_violations(rep), 0);
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(lh_report_write(rep, LH_FORMAT_JSON, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "\"verdict\": \"pass\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"irqsoff\": 2000"));
	ck_assert_ptr_nonnull(strstr(buf, "\"fail_on\": \"critical\""));
	free(buf);
}
END_TEST

/* Adds a record on which the rules in uneval (-1 terminated) could not be evaluated. */
static void add_unevaluated(uint64_t lat, const int *hits, const int *uneval)
{
	struct lh_record *r = lh_record_alloc();
	struct lh_match m = { 0 };

	r->tracer = LH_TRACER_IRQSOFF;
	r->latency_us = lat;
	for (; hits && *hits >= 0; hits++) {
		LH_GROW(m.hits, m.nr_hits + 1, m.alloc_hits);
		m.hits[m.nr_hits++] = (size_t)*hits;
		m.accepted |= lh_rules_get(rules, (size_t)*hits)->severity == LH_SEV_IGNORE;
	}
	for (; *uneval >= 0; uneval++) {
		LH_GROW(m.unevaluated, m.nr_unevaluated + 1, m.alloc_unevaluated);
		m.unevaluated[m.nr_unevaluated++] = (size_t)*uneval;
	}
	lh_report_add(rep, r, &m);
	lh_match_release(&m);
	lh_record_free(r);
}

/* A rule the gate depends on that could not be evaluated: the verdict is error, not pass. */
START_TEST(unevaluated_rule_is_error)
{
	static const int crit[] = { R_CRIT, -1 }, warn[] = { R_WARN, -1 };
	static const int ignore[] = { R_IGNORE, -1 };

	/* below --fail-on critical: no gate depends on it */
	add_unevaluated(100, NULL, warn);
	ck_assert(lh_report_evaluate(rep, &gate));
	ck_assert_ptr_null(lh_report_error(rep));
	/* on a record an 'ignore' rule accepted: no gate looks at that record */
	add_unevaluated(100, ignore, crit);
	ck_assert(lh_report_evaluate(rep, &gate));
	ck_assert_ptr_null(lh_report_error(rep));
	/* --fail-on warning depends on the warning rule */
	fail_on("warning");
	ck_assert(!lh_report_evaluate(rep, &gate));	/* not a pass, whatever the caller */
	ck_assert_ptr_nonnull(lh_report_error(rep));
	ck_assert_str_eq(lh_report_error(rep), "rule slow-alloc (warning) could not be evaluated "
			 "on 1 record (PCRE2 error): the --fail-on warning gate cannot be decided");
}
END_TEST

START_TEST(unevaluated_critical_rule)
{
	static const int crit[] = { R_CRIT, -1 }, both[] = { R_CRIT, R_WARN, -1 };

	add_unevaluated(100, NULL, crit);
	add_unevaluated(200, NULL, both);
	ck_assert(!lh_report_evaluate(rep, &gate));
	ck_assert_str_eq(lh_report_error(rep), "rule raid-irq-held (critical) could not be "
			 "evaluated on 2 records (PCRE2 error): the --fail-on critical gate cannot be "
			 "decided");
	/* the gate itself found nothing: the error is what stops the pass */
	ck_assert_uint_eq(lh_report_nr_violations(rep), 0);
}
END_TEST

/* --max judged once: its own budget needs the tracer measured, 'all' what a run could not. */
START_TEST(judge_max_values)
{
	struct lh_gate g;
	struct lh_gate_measure none = { 0 }, worst = { .measured = true, .has_worst = true,
						       .worst_ns = 2000000 };
	struct lh_gate_measure armed = { .measured = true };
	struct lh_gate_measure lost = { .measured = true, .not_measured = "not in --tracer" };
	const char *err;
	uint64_t ns;
	bool own;

	lh_gate_init(&g);
	ck_assert_int_eq(lh_gate_judge_max(&g, LH_TRACER_IRQSOFF, &worst, &ns, &own),
			 LH_GATE_MAX_NONE);
	ck_assert_int_eq(lh_gate_parse_max(&g, "irqsoff=1ms", &err), 0);
	ck_assert_int_eq(lh_gate_judge_max(&g, LH_TRACER_IRQSOFF, &worst, &ns, &own),
			 LH_GATE_MAX_OVER);
	ck_assert(own);
	ck_assert_uint_eq(ns, 1000000);
	ck_assert_int_eq(lh_gate_judge_max(&g, LH_TRACER_IRQSOFF, &armed, &ns, &own),
			 LH_GATE_MAX_PASS);
	ck_assert_int_eq(lh_gate_judge_max(&g, LH_TRACER_IRQSOFF, &none, &ns, &own),
			 LH_GATE_MAX_UNMEASURED);
	ck_assert_int_eq(lh_gate_judge_max(&g, LH_TRACER_IRQSOFF, &lost, &ns, &own),
			 LH_GATE_MAX_UNMEASURED);
	ck_assert_int_eq(lh_gate_judge_max(&g, LH_TRACER_PREEMPTOFF, &none, &ns, &own),
			 LH_GATE_MAX_NONE);
	ck_assert_int_eq(lh_gate_parse_max(&g, "all=5ms", &err), 0);
	/* 'all' judges what was measured, and errs on what a run says it could not */
	ck_assert_int_eq(lh_gate_judge_max(&g, LH_TRACER_PREEMPTOFF, &none, &ns, &own),
			 LH_GATE_MAX_PASS);
	ck_assert(!own);
	ck_assert_int_eq(lh_gate_judge_max(&g, LH_TRACER_PREEMPTOFF, &lost, &ns, &own),
			 LH_GATE_MAX_UNMEASURED);
	ck_assert_int_eq(lh_gate_judge_max(&g, LH_TRACER_UNKNOWN, &worst, &ns, &own),
			 LH_GATE_MAX_PASS);
}
END_TEST

/* One verdict for reports, merges and diffs: the first error wins, violations make it fail. */
START_TEST(verdict_values)
{
	struct lh_verdict v = { 0 };

	ck_assert_str_eq(lh_verdict_name(&v), "pass");
	lh_verdict_violation(&v, NULL);
	ck_assert_str_eq(lh_verdict_name(&v), "pass");
	lh_verdict_violation(&v, lh_xstrdup("irqsoff: over"));
	ck_assert_str_eq(lh_verdict_name(&v), "fail");
	lh_verdict_error_of(&v, LH_VERDICT_UNDECIDED, lh_xstrdup("first"));
	lh_verdict_error(&v, lh_xstrdup("second"));
	ck_assert_str_eq(lh_verdict_name(&v), "error");
	ck_assert_str_eq(v.error, "first");
	/* the kind is the first error's, carried with it */
	ck_assert_int_eq(v.error_kind, LH_VERDICT_UNDECIDED);
	lh_verdict_clear_violations(&v);
	ck_assert_uint_eq(v.nr_violations, 0);
	ck_assert_str_eq(lh_verdict_name(&v), "error");
	lh_verdict_release(&v);
	ck_assert_str_eq(lh_verdict_name(&v), "pass");
	lh_verdict_error(&v, lh_xstrdup("of the run"));
	ck_assert_int_eq(v.error_kind, LH_VERDICT_RUN);
	lh_verdict_release(&v);
}
END_TEST

static Suite *gate_suite(void)
{
	Suite *s = suite_create("gate");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, parse_max);
	tcase_add_test(tc, parse_min_available);
	tcase_add_test(tc, available_arithmetic);
	tcase_add_test(tc, min_available_judged);
	tcase_add_test(tc, min_available_unmeasured);
	tcase_add_test(tc, parse_fail_on);
	tcase_add_test(tc, no_gate_passes);
	tcase_add_test(tc, max_is_strict);
	tcase_add_test(tc, max_violation_text);
	tcase_add_test(tc, all_and_override);
	tcase_add_test(tc, fail_on_severity);
	tcase_add_test(tc, accepted_never_fails);
	tcase_add_test(tc, ignore_rule_alone);
	tcase_add_test(tc, reevaluate);
	tcase_add_test(tc, huge_latency_fails_max);
	tcase_add_test(tc, unevaluated_rule_is_error);
	tcase_add_test(tc, unevaluated_critical_rule);
	tcase_add_test(tc, judge_max_values);
	tcase_add_test(tc, verdict_values);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(gate_suite)
