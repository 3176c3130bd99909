// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the comparison of two sets of reports (src/report/diff*.c): growth per tracer and
 * CPU on the worst case or p99.9, offenders new, gone and grown, rules with new hits, the
 * three gates and every way the verdict must be error, and the writers (JSON parsed back,
 * JUnit escaped).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/diff.h"
#include "check-main.h"
#include "report-feed.h"

static const char test_rules[] =
	"[raid-irq-held]\n"
	"match    = ^fakeraid\n"
	"in       = stack\n"
	"severity = critical\n"
	"\n"
	"[slow-alloc]\n"
	"match    = ^slob_\n"
	"in       = stack\n"
	"severity = warning\n";

enum { R_RAID, R_SLOW };

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

static struct lh_report *rep_alloc(void)
{
	return lh_report_alloc(rules, NULL);
}


static struct lh_report *base_rep, *new_rep;
static const char *const base_name[] = { "base.json" }, *const new_name[] = { "new.json" };

/* Return: new_rep compared with base_rep (both evaluated first) under g. */
static struct lh_diff *compare(const struct lh_diff_gate *g)
{
	struct lh_diff_side b = { &base_rep, base_name, 1, NULL }, n = { &new_rep, new_name, 1, NULL };

	feed_evaluate(base_rep);
	feed_evaluate(new_rep);
	return lh_diff_compute(&b, &n, g);
}

static void both_free(struct lh_diff *d)
{
	lh_diff_free(d);
	lh_report_free(base_rep);
	lh_report_free(new_rep);
	base_rep = new_rep = NULL;
}

static const struct lh_diff_row *row(const struct lh_diff *d, enum lh_tracer t, int cpu)
{
	size_t i;

	for (i = 0; i < d->nr_rows; i++)
		if (d->rows[i].tracer == t && !d->rows[i].kind && d->rows[i].cpu == cpu)
			return &d->rows[i];
	return NULL;
}

static struct lh_diff_gate gate(const char *growth)
{
	struct lh_diff_gate g;
	const char *err;

	lh_diff_gate_init(&g);
	if (growth)
		ck_assert_int_eq(lh_diff_gate_parse_growth(&g, growth, &err), 0);
	return g;
}

static char *render(const struct lh_diff *d, enum lh_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(lh_diff_write(d, f, out), 0);
	ck_assert_int_eq(fclose(out), 0);
	return buf;
}

START_TEST(parse_growth)
{
	struct lh_diff_gate g;
	const char *err = NULL;

	lh_diff_gate_init(&g);
	ck_assert_int_eq(lh_diff_gate_parse_growth(&g, "irqsoff=10", &err), 0);
	ck_assert(g.has_growth[LH_TRACER_IRQSOFF]);
	ck_assert(g.growth_pct[LH_TRACER_IRQSOFF] == 10);
	ck_assert_int_eq(lh_diff_gate_parse_growth(&g, "all=2.5%", &err), 0);
	ck_assert(g.growth_pct[LH_TRACER_UNKNOWN] == 2.5);
	ck_assert_int_eq(lh_diff_gate_parse_growth(&g, "irqsoff=20", &err), -1);
	ck_assert_str_eq(err, "a growth limit for this tracer was already given");
	ck_assert_int_eq(lh_diff_gate_parse_growth(&g, "wakeup_rt=-1", &err), -1);
	ck_assert_int_eq(lh_diff_gate_parse_growth(&g, "wakeup_rt=5us", &err), -1);
	ck_assert_int_eq(lh_diff_gate_parse_growth(&g, "wakeup_rt=", &err), -1);
	ck_assert_int_eq(lh_diff_gate_parse_growth(&g, "bogus=5", &err), -1);
	ck_assert_int_eq(lh_diff_gate_parse_growth(&g, "5", &err), -1);
	ck_assert_str_eq(err, "expected TRACER=PCT, e.g. irqsoff=10 or all=5%");
	ck_assert(!g.has_growth[LH_TRACER_WAKEUP_RT]);
}
END_TEST

START_TEST(equal_reports_pass)
{
	struct lh_diff_gate g = gate("all=0");
	struct lh_diff *d;

	g.has_max_new = true;
	g.fail_on_new = LH_SEV_INFO;
	base_rep = rep_alloc();
	new_rep = rep_alloc();
	add(base_rep, LH_TRACER_IRQSOFF, 100, 0, "fakeraid_isr", 1);
	add(new_rep, LH_TRACER_IRQSOFF, 100, 0, "fakeraid_isr", 1);
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	ck_assert_ptr_null(d->verdict.error);
	ck_assert_uint_eq(d->nr_offenders, 0);
	ck_assert_uint_eq(d->nr_rules, 0);
	ck_assert(row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS)->gated);
	ck_assert(row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS)->change_pct == 0);
	ck_assert_ptr_nonnull(row(d, LH_TRACER_IRQSOFF, 0));
	ck_assert_ptr_null(row(d, LH_TRACER_PREEMPTOFF, LH_DIFF_ALL_CPUS));
	both_free(d);
}
END_TEST

START_TEST(growth_per_tracer_and_cpu)
{
	struct lh_diff_gate g = gate("irqsoff=10");
	const struct lh_diff_row *r;
	struct lh_diff *d;

	base_rep = rep_alloc();
	new_rep = rep_alloc();
	add(base_rep, LH_TRACER_IRQSOFF, 100, 0, "a", 1);
	add(base_rep, LH_TRACER_IRQSOFF, 80, 1, "a", 1);
	add(new_rep, LH_TRACER_IRQSOFF, 150, 1, "a", 1);
	add(new_rep, LH_TRACER_IRQSOFF, 90, 0, "a", 1);
	d = compare(&g);
	r = row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS);
	ck_assert_int_eq(r->basis, LH_DIFF_WORST);
	ck_assert_uint_eq(r->base_ns, 100000);
	ck_assert_uint_eq(r->new_ns, 150000);
	ck_assert_double_eq_tol(r->change_pct, 50, 1e-9);
	ck_assert(r->failed);
	/* The CPUs of both sides are judged by the tracer's limit too. */
	r = row(d, LH_TRACER_IRQSOFF, 0);
	ck_assert_double_eq_tol(r->change_pct, -10, 1e-9);
	ck_assert(r->gated && !r->failed);
	r = row(d, LH_TRACER_IRQSOFF, 1);
	ck_assert_double_eq_tol(r->change_pct, 87.5, 1e-9);
	ck_assert(r->gated && r->failed);
	ck_assert_str_eq(lh_diff_verdict(d), "fail");
	ck_assert_uint_eq(d->verdict.nr_violations, 2);
	ck_assert_str_eq(d->verdict.violations[0],
			 "irqsoff: worst grew +50.0% (100us -> 150us), over --max-growth irqsoff=10%");
	ck_assert_str_eq(d->verdict.violations[1],
			 "irqsoff on CPU 1: worst grew +87.5% (80us -> 150us), over --max-growth irqsoff=10%");
	lh_diff_free(d);

	/* 'all' applies when the tracer has no limit of its own: 50% and 87.5% within 90%. */
	g = gate("all=90");
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	ck_assert(row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS)->gated);
	both_free(d);
}
END_TEST

START_TEST(p999_when_both_count_enough)
{
	struct lh_diff_gate g = gate("irqsoff=10");
	const struct lh_diff_row *r;
	struct lh_diff *d;

	/* One unlucky 900us sample in the new set does not move p99.9 over 2000 sections. */
	base_rep = rep_alloc();
	new_rep = rep_alloc();
	add(base_rep, LH_TRACER_IRQSOFF, 10, 0, "a", 2000);
	add(base_rep, LH_TRACER_IRQSOFF, 50, 0, "a", 1);
	add(new_rep, LH_TRACER_IRQSOFF, 10, 0, "a", 2000);
	add(new_rep, LH_TRACER_IRQSOFF, 900, 0, "a", 1);
	d = compare(&g);
	r = row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS);
	ck_assert_int_eq(r->basis, LH_DIFF_P999);
	ck_assert_uint_eq(r->base.worst_ns, 50000);
	ck_assert_uint_eq(r->new.worst_ns, 900000);
	ck_assert_uint_eq(r->base_ns, r->new_ns);
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	lh_diff_free(d);
	lh_report_free(new_rep);

	/* Shifted distribution: p99.9 grows, the gate fails. */
	new_rep = rep_alloc();
	add(new_rep, LH_TRACER_IRQSOFF, 30, 0, "a", 2001);
	d = compare(&g);
	r = row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS);
	ck_assert_int_eq(r->basis, LH_DIFF_P999);
	ck_assert(r->new_ns > r->base_ns);
	ck_assert_str_eq(lh_diff_verdict(d), "fail");
	ck_assert_ptr_nonnull(strstr(d->verdict.violations[0], "p99.9 grew"));
	lh_diff_free(d);
	lh_report_free(new_rep);

	/* Fewer than LH_DIFF_MIN_DIST sections on one side: the worst case is compared. */
	new_rep = rep_alloc();
	add(new_rep, LH_TRACER_IRQSOFF, 10, 0, "a", LH_DIFF_MIN_DIST - 1);
	d = compare(&g);
	ck_assert_int_eq(row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS)->basis, LH_DIFF_WORST);
	both_free(d);
}
END_TEST

START_TEST(running_maxima_compare_worst)
{
	struct lh_run_info run = { .mode = "record", .threshold_ns = 0, .command_status = -1 };
	struct lh_diff_gate g = gate(NULL);
	struct lh_diff *d;

	/* A record run of running maxima counts each new maximum: no distribution. */
	base_rep = rep_alloc();
	new_rep = rep_alloc();
	lh_report_set_run(base_rep, &run);
	add(base_rep, LH_TRACER_IRQSOFF, 10, 0, "a", 2000);
	add(new_rep, LH_TRACER_IRQSOFF, 10, 0, "a", 2000);
	d = compare(&g);
	ck_assert_int_eq(row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS)->basis, LH_DIFF_WORST);
	ck_assert(!row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS)->base.dist);
	ck_assert(row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS)->new.dist);
	both_free(d);
}
END_TEST

/* n samples of kind of us each on cpu, then one of top us: cpu's histogram and all CPUs'. */
static void samples(struct lh_report *rep, const char *kind, int cpu, uint64_t us,
		    unsigned int n, uint64_t top)
{
	struct lh_histogram h = { 0 };
	unsigned int i;

	for (i = 0; i < n; i++)
		lh_histogram_add(&h, us * 1000);
	lh_histogram_add(&h, top * 1000);
	lh_report_set_histogram(rep, kind, -1, &h);
	lh_report_set_histogram(rep, kind, cpu, &h);
	lh_histogram_release(&h);
}

/*
 * The kernel's histogram (record --hist) of kind over all CPUs and of CPU 0, where every
 * section was: n values of us each, then one of top.
 */
static void kernel_hist(struct lh_report *rep, const char *kind, uint64_t us, unsigned int n,
			uint64_t top)
{
	samples(rep, kind, 0, us, n, top);
}

START_TEST(kernel_histograms_compare_percentiles)
{
	struct lh_run_info run = { .mode = "record", .threshold_ns = 0, .command_status = -1 };
	struct lh_diff_gate g = gate("irqsoff=10");
	const struct lh_diff_row *r;
	struct lh_diff *d;

	/*
	 * Running maxima (no distribution of sections), but the kernel counted every section:
	 * its p99.9 is compared, and one 900us outlier in the new run does not move it.
	 */
	base_rep = rep_alloc();
	new_rep = rep_alloc();
	lh_report_set_run(base_rep, &run);
	lh_report_set_run(new_rep, &run);
	add(base_rep, LH_TRACER_IRQSOFF, 50, 0, "a", 1);
	add(new_rep, LH_TRACER_IRQSOFF, 900, 0, "a", 1);
	kernel_hist(base_rep, "irqsoff", 10, 5000, 50);
	kernel_hist(new_rep, "irqsoff", 10, 5000, 900);
	d = compare(&g);
	r = row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS);
	ck_assert_int_eq(r->basis, LH_DIFF_P999);
	ck_assert_int_eq(r->dist, LH_DIFF_DIST_KERNEL);
	ck_assert(r->base.kernel.set && r->new.kernel.set);
	ck_assert_uint_eq(r->base_ns, r->new_ns);
	ck_assert_uint_eq(r->base_p99_ns, 11000);	/* the 1us bucket [10, 11) us */
	ck_assert_uint_eq(r->new.worst_ns, 900000);
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	lh_diff_free(d);
	lh_report_free(new_rep);

	/* The new kernel's distribution shifted: p99 and p99.9 grow, the gate fails. */
	new_rep = rep_alloc();
	lh_report_set_run(new_rep, &run);
	add(new_rep, LH_TRACER_IRQSOFF, 60, 0, "a", 1);
	kernel_hist(new_rep, "irqsoff", 40, 5000, 60);
	d = compare(&g);
	r = row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS);
	ck_assert_int_eq(r->dist, LH_DIFF_DIST_KERNEL);
	ck_assert_uint_eq(r->new_p99_ns, 41000);
	ck_assert_str_eq(lh_diff_verdict(d), "fail");
	ck_assert_str_eq(d->verdict.violations[0],
			 "irqsoff: p99.9 grew +272.7% (11us -> 41us), over --max-growth irqsoff=10%");
	lh_diff_free(d);
	lh_report_free(new_rep);

	/* One side without the kernel's histogram: the worst cases are compared. */
	new_rep = rep_alloc();
	lh_report_set_run(new_rep, &run);
	add(new_rep, LH_TRACER_IRQSOFF, 60, 0, "a", 1);
	d = compare(&g);
	r = row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS);
	ck_assert_int_eq(r->basis, LH_DIFF_WORST);
	ck_assert_int_eq(r->dist, LH_DIFF_DIST_NONE);
	both_free(d);
}
END_TEST

static const struct lh_diff_row *sample_row(const struct lh_diff *d, const char *kind, int cpu)
{
	size_t i;

	for (i = 0; i < d->nr_rows; i++)
		if (d->rows[i].kind && !strcmp(d->rows[i].kind, kind) && d->rows[i].cpu == cpu)
			return &d->rows[i];
	return NULL;
}

/*
 * timerlat's samples (the kernel's timerlat_irq and timerlat_thread histograms) are rows of
 * their own, over all CPUs and per CPU: by p99.9 from 1000 samples, by their largest below,
 * judged by --max-growth timerlat; a kind one side lacks cannot be judged.
 */
/*
 * A timerlat run on CPU 1 (one record of 50us): n samples of us per context and one of top,
 * thread_n 0 for none of the thread's.
 */
static struct lh_report *timerlat_run(uint64_t irq_us, uint64_t irq_top, uint64_t thread_us,
				      unsigned int thread_n, uint64_t thread_top)
{
	struct lh_run_info run = { .mode = "record", .command_status = -1 };
	struct lh_report *rep = rep_alloc();

	lh_report_set_run(rep, &run);
	add(rep, LH_TRACER_TIMERLAT, 50, 1, NULL, 1);
	samples(rep, "timerlat_irq", 1, irq_us, 2000, irq_top);
	if (thread_n)
		samples(rep, "timerlat_thread", 1, thread_us, thread_n, thread_top);
	return rep;
}

/*
 * timerlat's samples (the kernel's timerlat_irq and timerlat_thread histograms) are rows of
 * their own, over all CPUs and per CPU: by p99.9 from 1000 samples, by their largest below,
 * judged by --max-growth timerlat; a kind one side lacks cannot be judged.
 */
START_TEST(timerlat_samples_compared)
{
	struct lh_diff_gate g = gate("timerlat=10");
	const struct lh_diff_row *r;
	struct lh_diff *d;

	/* Equal distributions, one outlier in the new run: p99.9 does not move. */
	base_rep = timerlat_run(5, 20, 10, 2000, 50);
	new_rep = timerlat_run(5, 900, 10, 2000, 50);
	d = compare(&g);
	r = sample_row(d, "timerlat_irq", LH_DIFF_ALL_CPUS);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->tracer, LH_TRACER_TIMERLAT);
	ck_assert_int_eq(r->basis, LH_DIFF_P999);
	ck_assert_int_eq(r->dist, LH_DIFF_DIST_KERNEL);
	ck_assert_uint_eq(r->base_ns, 6000);	/* the 1us bucket [5, 6) us */
	ck_assert_uint_eq(r->new_ns, 6000);
	ck_assert_uint_eq(r->new.worst_ns, 900000);
	ck_assert_uint_eq(r->new.count, 2001);
	ck_assert(r->gated);
	ck_assert_ptr_nonnull(sample_row(d, "timerlat_irq", 1));
	ck_assert(sample_row(d, "timerlat_irq", 1)->gated);
	ck_assert_ptr_null(sample_row(d, "timerlat_irq", 0));
	ck_assert_ptr_nonnull(sample_row(d, "timerlat_thread", LH_DIFF_ALL_CPUS));
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	lh_diff_free(d);
	lh_report_free(new_rep);

	/* The thread's latencies shifted: its rows fail, the IRQ's pass. */
	new_rep = timerlat_run(5, 20, 40, 2000, 50);
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "fail");
	ck_assert_uint_eq(d->verdict.nr_violations, 2);
	ck_assert_str_eq(d->verdict.violations[0],
			 "timerlat_thread: p99.9 grew +272.7% (11us -> 41us), over --max-growth timerlat=10%");
	ck_assert_str_eq(d->verdict.violations[1],
			 "timerlat_thread on CPU 1: p99.9 grew +272.7% (11us -> 41us), over --max-growth timerlat=10%");
	ck_assert(!sample_row(d, "timerlat_irq", LH_DIFF_ALL_CPUS)->failed);
	lh_diff_free(d);
	lh_report_free(new_rep);

	/* Fewer than 1000 samples: their largest is compared. */
	new_rep = timerlat_run(5, 20, 10, 10, 80);
	d = compare(&g);
	r = sample_row(d, "timerlat_thread", LH_DIFF_ALL_CPUS);
	ck_assert_int_eq(r->basis, LH_DIFF_WORST);
	ck_assert_uint_eq(r->base_ns, 50000);
	ck_assert_uint_eq(r->new_ns, 80000);
	ck_assert_str_eq(d->verdict.violations[0],
			 "timerlat_thread: worst grew +60.0% (50us -> 80us), over --max-growth timerlat=10%");
	lh_diff_free(d);
	lh_report_free(new_rep);

	/* The new run lacks the thread's samples: gated, an error; not gated, shown as gone. */
	new_rep = timerlat_run(5, 20, 0, 0, 0);
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "error");
	ck_assert_str_eq(d->verdict.error,
			 "timerlat is gated by --max-growth but only the base reports counted its timerlat_thread samples");
	lh_diff_free(d);
	g = gate("irqsoff=10");
	add(base_rep, LH_TRACER_IRQSOFF, 50, 0, "a", 1);
	add(new_rep, LH_TRACER_IRQSOFF, 50, 0, "a", 1);
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	r = sample_row(d, "timerlat_thread", LH_DIFF_ALL_CPUS);
	ck_assert(r->base.present && !r->new.present && !r->gated);
	both_free(d);

	/* Samples and no record over -T on either side: measured, judged. */
	g = gate("timerlat=10");
	base_rep = rep_alloc();
	new_rep = rep_alloc();
	samples(base_rep, "timerlat_irq", 0, 5, 10, 20);
	samples(new_rep, "timerlat_irq", 0, 5, 10, 30);
	d = compare(&g);
	ck_assert_ptr_null(row(d, LH_TRACER_TIMERLAT, LH_DIFF_ALL_CPUS));
	ck_assert_str_eq(lh_diff_verdict(d), "fail");
	ck_assert_str_eq(d->verdict.violations[0],
			 "timerlat_irq: worst grew +50.0% (20us -> 30us), over --max-growth timerlat=10%");
	both_free(d);
}
END_TEST

/* Histograms of one kind whose buckets differ do not add up: gated, they cannot be compared. */
START_TEST(timerlat_samples_misfit)
{
	struct lh_report *b[2];
	const char *bn[] = { "b1", "b2" };
	struct lh_diff_side bs = { b, bn, 2, NULL }, ns = { &new_rep, new_name, 1, NULL };
	struct lh_diff_gate g = gate("timerlat=10");
	struct lh_histogram h = { 0 };
	struct lh_diff *d;
	size_t i;

	for (i = 0; i < 2; i++)
		b[i] = rep_alloc();
	new_rep = rep_alloc();
	samples(b[0], "timerlat_irq", 0, 5, 10, 20);
	ck_assert_int_eq(lh_histogram_add_bucket(&h, 5000, 5500, 3), 0);
	lh_report_set_histogram(b[1], "timerlat_irq", 0, &h);
	lh_report_set_histogram(b[1], "timerlat_irq", -1, &h);
	lh_histogram_release(&h);
	samples(new_rep, "timerlat_irq", 0, 5, 10, 20);
	for (i = 0; i < 2; i++)
		feed_evaluate(b[i]);
	feed_evaluate(new_rep);
	d = lh_diff_compute(&bs, &ns, &g);
	ck_assert_str_eq(lh_diff_verdict(d), "error");
	ck_assert_str_eq(d->verdict.error,
			 "timerlat is gated by --max-growth but the base reports' timerlat_irq histograms do not add up (their buckets differ): they cannot be compared");
	ck_assert_ptr_null(sample_row(d, "timerlat_irq", LH_DIFF_ALL_CPUS));
	lh_diff_free(d);
	for (i = 0; i < 2; i++)
		lh_report_free(b[i]);
	lh_report_free(new_rep);
	new_rep = NULL;
}
END_TEST

/* Compares base_rep with a new run of one record of tracer t under gate arg: error why. */
static void new_run_error(enum lh_tracer t, const char *arg, const char *why)
{
	struct lh_diff_gate g = gate(arg);
	struct lh_diff *d;

	new_rep = rep_alloc();
	add(new_rep, t, 30, 1, NULL, 1);
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "error");
	ck_assert_str_eq(d->verdict.error, why);
	lh_diff_free(d);
	lh_report_free(new_rep);
	new_rep = NULL;
}

/*
 * hwlat's samples (the kernel's "hwlat" histograms: every gap the hardware or firmware made)
 * are rows named hwlat_samples beside the records' rows named hwlat, judged by --max-growth
 * hwlat or all; a side that counted none cannot be judged.
 */
START_TEST(hwlat_samples_compared)
{
	struct lh_diff_gate g = gate("hwlat=10");
	const struct lh_diff_row *r;
	struct lh_diff *d;

	/* All CPUs' and CPU 1's: 2000 gaps of 12us and one of 30us; the new CPU 1 gaps at 40us. */
	base_rep = rep_alloc();
	new_rep = rep_alloc();
	add(base_rep, LH_TRACER_HWLAT, 30, 1, NULL, 1);
	add(new_rep, LH_TRACER_HWLAT, 30, 1, NULL, 1);
	samples(base_rep, "hwlat", 1, 12, 2000, 30);
	samples(new_rep, "hwlat", 1, 12, 2000, 30);
	d = compare(&g);
	r = sample_row(d, "hwlat", LH_DIFF_ALL_CPUS);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->tracer, LH_TRACER_HWLAT);
	ck_assert_str_eq(lh_diff_row_name(r), "hwlat_samples");
	ck_assert_int_eq(r->basis, LH_DIFF_P999);
	ck_assert_int_eq(r->dist, LH_DIFF_DIST_KERNEL);
	ck_assert_uint_eq(r->base_ns, 13000);	/* the 1us bucket [12, 13) us */
	ck_assert(r->gated);
	ck_assert(sample_row(d, "hwlat", 1)->gated);
	/* the records' row keeps the tracer's name */
	ck_assert_str_eq(lh_diff_row_name(row(d, LH_TRACER_HWLAT, LH_DIFF_ALL_CPUS)), "hwlat");
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	lh_diff_free(d);
	lh_report_free(new_rep);

	new_rep = rep_alloc();
	add(new_rep, LH_TRACER_HWLAT, 30, 1, NULL, 1);
	samples(new_rep, "hwlat", 1, 40, 2000, 30);
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "fail");
	ck_assert_uint_eq(d->verdict.nr_violations, 2);
	ck_assert_str_eq(d->verdict.violations[0],
			 "hwlat_samples: p99.9 grew +207.7% (13us -> 40us), over --max-growth hwlat=10%");
	ck_assert_str_eq(d->verdict.violations[1],
			 "hwlat_samples on CPU 1: p99.9 grew +207.7% (13us -> 40us), over --max-growth hwlat=10%");
	lh_diff_free(d);
	lh_report_free(new_rep);

	/* The new run's records but no samples: gated by 'all', an error. */
	new_run_error(LH_TRACER_HWLAT, "all=10",
		      "hwlat is gated by --max-growth but only the base reports counted its hwlat samples");
	/* A new run without hwlat at all: gated, it was measured on one side only. */
	new_run_error(LH_TRACER_TIMERLAT, "hwlat=10",
		      "hwlat is gated by --max-growth but only the base reports measured it");
	lh_report_free(base_rep);
	base_rep = NULL;
}
END_TEST

/* osnoise on cpu: two periods of 1 s and noise_us of noise in them (0, 0: none measured). */
static void noise(struct lh_report *rep, int cpu, uint64_t periods, uint64_t noise_us)
{
	lh_report_set_noise(rep, &(struct lh_report_noise){
		.cpu = cpu, .periods = periods, .runtime_ns = periods * 1000000000,
		.noise_ns = noise_us * 1000,
	});
}

static struct lh_diff_gate drop_gate(const char *arg)
{
	struct lh_diff_gate g;
	const char *err;

	lh_diff_gate_init(&g);
	ck_assert_int_eq(lh_diff_gate_parse_available_drop(&g, arg, &err), 0);
	return g;
}

START_TEST(parse_available_drop)
{
	struct lh_diff_gate g = drop_gate("osnoise=0.5%");
	const char *err;

	ck_assert(g.has_available_drop);
	ck_assert_uint_eq(g.available_drop_milli, 500);
	ck_assert_int_eq(lh_diff_gate_parse_available_drop(&g, "osnoise=1", &err), -1);
	ck_assert_str_eq(err, "a drop for osnoise was already given");
	lh_diff_gate_init(&g);
	ck_assert_int_eq(lh_diff_gate_parse_available_drop(&g, "timerlat=1", &err), -1);
	ck_assert_str_eq(err, "only osnoise measures the CPU available (use osnoise=PCT)");
	ck_assert_int_eq(lh_diff_gate_parse_available_drop(&g, "osnoise=101", &err), -1);
	ck_assert_int_eq(lh_diff_gate_parse_available_drop(&g, "osnoise=-1", &err), -1);
	ck_assert_int_eq(lh_diff_gate_parse_available_drop(&g, "5", &err), -1);
	ck_assert_str_eq(err, "expected osnoise=PCT, e.g. osnoise=5");
	ck_assert(!g.has_available_drop);
}
END_TEST

/*
 * osnoise's % CPU available per CPU, base and new, and --max-available-drop in points; a CPU
 * it cannot compare is an error under the gate, only shown without it.
 */
START_TEST(available_drop_gated)
{
	struct lh_diff_gate g = drop_gate("osnoise=1");
	const struct lh_diff_available *x;
	struct lh_diff *d;
	char *s;

	base_rep = rep_alloc();
	new_rep = rep_alloc();
	noise(base_rep, 0, 2, 40);		/* 99.998 % */
	noise(base_rep, 1, 2, 16040);		/* 99.198 % */
	noise(new_rep, 0, 2, 40);
	noise(new_rep, 1, 2, 30000);		/* 98.500 %: 0.698 points down */
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	ck_assert_uint_eq(d->nr_available, 2);
	x = &d->available[1];
	ck_assert_int_eq(x->cpu, 1);
	ck_assert_uint_eq(x->base.milli, 99198);
	ck_assert_uint_eq(x->new.milli, 98500);
	ck_assert_int_eq(x->change_milli, -698);
	ck_assert(x->gated && !x->failed);
	lh_diff_free(d);

	/* 95 %: 4.198 points down, over 1 */
	noise(new_rep, 1, 2, 100000);
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "fail");
	ck_assert_uint_eq(d->verdict.nr_violations, 1);
	ck_assert_str_eq(d->verdict.violations[0],
			 "osnoise's CPU1: 95.000 % available, 4.198 points down from 99.198, over --max-available-drop osnoise=1.000");
	s = render(d, LH_FORMAT_TEXT);
	ck_assert_ptr_nonnull(strstr(s, "1          99.198       95.000  -4.198  FAIL\n"));
	ck_assert_ptr_nonnull(strstr(s, "Gates: --max-available-drop osnoise=1.000\n"));
	free(s);
	s = render(d, LH_FORMAT_JUNIT);
	ck_assert_ptr_nonnull(strstr(s, "<testcase classname=\"lathound.diff\" name=\"osnoise available drop\">\n      <failure message=\"osnoise&#39;s CPU1: 95.000 % available"));
	free(s);
	lh_diff_free(d);

	/* A CPU in the new reports only, and one without a period in the base. */
	noise(new_rep, 1, 2, 16040);
	noise(new_rep, 2, 2, 0);
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "error");
	ck_assert_str_eq(d->verdict.error,
			 "osnoise is gated by --max-available-drop but CPU2 is listed in the new reports only: its availability cannot be compared");
	lh_diff_free(d);
	noise(base_rep, 2, 0, 0);
	d = compare(&g);
	ck_assert_str_eq(d->verdict.error,
			 "osnoise is gated by --max-available-drop but CPU2 measured no period in the base reports: its availability cannot be compared");
	ck_assert(!d->available[2].base.measured && d->available[2].base.listed);
	lh_diff_free(d);

	/* Not gated: the same is shown, and passes. */
	lh_diff_gate_init(&g);
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	s = render(d, LH_FORMAT_TEXT);
	ck_assert_ptr_nonnull(strstr(s, "2       no period      100.000  -\n"));
	free(s);
	both_free(d);

	/* A side without osnoise, or whose run could not measure it. */
	g = drop_gate("osnoise=1");
	base_rep = rep_alloc();
	new_rep = rep_alloc();
	noise(base_rep, 0, 2, 40);
	add(new_rep, LH_TRACER_IRQSOFF, 50, 0, "a", 1);
	d = compare(&g);
	ck_assert_str_eq(d->verdict.error,
			 "osnoise is gated by --max-available-drop but the new reports measured no period");
	lh_diff_free(d);
	{
		struct lh_run_info run = { .mode = "record", .command_status = -1 };

		noise(new_rep, 0, 2, 40);
		run.not_measured[LH_TRACER_OSNOISE] = "osnoise is not in available_tracers";
		lh_report_set_run(new_rep, &run);
		d = compare(&g);
		ck_assert_str_eq(d->verdict.error,
				 "osnoise is gated by --max-available-drop but a new report did not measure it: osnoise is not in available_tracers");
		lh_diff_free(d);
	}
	both_free(NULL);
}
END_TEST

/* n runs of handler (irq 24, "fakeraid") of us each on CPU 0, then one of top us. */
static struct lh_irqstat *irq_runs(uint64_t us, unsigned int n, uint64_t top)
{
	struct lh_irqstat *st = lh_irqstat_alloc();
	unsigned int i;

	for (i = 0; i < n; i++)
		lh_irqstat_add(st, 0, 24, "fakeraid", us * 1000);
	lh_irqstat_add(st, 0, 24, "fakeraid", top * 1000);
	lh_irqstat_sort(st);
	return st;
}

START_TEST(irq_handlers_gated)
{
	struct lh_run_info run = { .mode = "record", .threshold_ns = 1000, .command_status = -1 };
	struct lh_irqstat *bs = irq_runs(5, 2000, 30), *ns = irq_runs(5, 2000, 80);
	struct lh_diff_gate g = gate(NULL);
	struct lh_diff *d;

	g.has_irq_growth = true;
	g.irq_growth_pct = 10;
	base_rep = rep_alloc();
	new_rep = rep_alloc();
	add(base_rep, LH_TRACER_IRQSOFF, 50, 0, "a", 1);
	add(new_rep, LH_TRACER_IRQSOFF, 50, 0, "a", 1);
	run.irqstat = bs;
	lh_report_set_run(base_rep, &run);
	run.irqstat = ns;
	lh_report_set_run(new_rep, &run);
	/* The longest run grew 30us -> 80us, p99 of 2001 runs did not: listed, not failed. */
	d = compare(&g);
	ck_assert_uint_eq(d->nr_irqs, 1);
	ck_assert_int_eq(d->irqs[0].basis, LH_DIFF_P99);
	ck_assert_uint_eq(d->irqs[0].new_max_ns, 80000);
	ck_assert(!d->irqs[0].failed);
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	lh_diff_free(d);
	lh_irqstat_free(ns);

	/* Its p99 grew 6us -> 21us: over --max-irq-growth 10%. */
	ns = irq_runs(20, 2000, 80);
	run.irqstat = ns;
	lh_report_set_run(new_rep, &run);
	d = compare(&g);
	ck_assert(d->irqs[0].failed);
	ck_assert_str_eq(lh_diff_verdict(d), "fail");
	ck_assert_str_eq(d->verdict.violations[0],
			 "irq 24 fakeraid: p99 grew +250.0%, over --max-irq-growth 10%");
	lh_diff_free(d);

	/* Without IRQ statistics on one side the gate cannot be judged: an error. */
	run.irqstat = NULL;
	lh_report_set_run(base_rep, &run);
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "error");
	ck_assert_str_eq(d->verdict.error,
			 "--max-irq-growth cannot be judged: no base report collected IRQ statistics");
	both_free(d);
	lh_irqstat_free(bs);
	lh_irqstat_free(ns);
}
END_TEST

START_TEST(offenders_new_gone_grown)
{
	struct lh_diff_gate g = gate(NULL);
	struct lh_diff *d;

	g.has_max_new = true;
	g.max_new_offenders = 1;
	base_rep = rep_alloc();
	new_rep = rep_alloc();
	add(base_rep, LH_TRACER_IRQSOFF, 100, 0, "kept_same", 1);
	add(base_rep, LH_TRACER_IRQSOFF, 100, 0, "grows", 1);
	add(base_rep, LH_TRACER_IRQSOFF, 100, 0, "goes", 1);
	add(new_rep, LH_TRACER_IRQSOFF, 100, 0, "kept_same", 1);
	add(new_rep, LH_TRACER_IRQSOFF, 120, 0, "grows", 2);
	add(new_rep, LH_TRACER_IRQSOFF, 300, 0, "comes_big", 1);
	d = compare(&g);
	ck_assert_uint_eq(d->nr_offenders, 3);
	ck_assert_uint_eq(d->nr_new_offenders, 1);
	ck_assert_int_eq(d->offenders[0].change, LH_DIFF_NEW);
	ck_assert_ptr_nonnull(strstr(d->offenders[0].signature, "comes_big"));
	ck_assert_uint_eq(d->offenders[0].new_worst_us, 300);
	ck_assert_int_eq(d->offenders[1].change, LH_DIFF_GROWN);
	ck_assert_ptr_nonnull(strstr(d->offenders[1].signature, "grows"));
	ck_assert_uint_eq(d->offenders[1].new_count, 2);
	ck_assert_int_eq(d->offenders[2].change, LH_DIFF_GONE);
	ck_assert_ptr_nonnull(strstr(d->offenders[2].signature, "goes"));
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	lh_diff_free(d);

	g.max_new_offenders = 0;
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "fail");
	ck_assert_ptr_nonnull(strstr(d->verdict.violations[0], "1 new offender signature, over --max-new-offenders 0"));
	both_free(d);
}
END_TEST

START_TEST(new_rule_hits_by_severity)
{
	struct lh_diff_gate g = gate(NULL);
	struct lh_diff *d;

	base_rep = rep_alloc();
	new_rep = rep_alloc();
	add(base_rep, LH_TRACER_IRQSOFF, 100, 0, "slob_alloc", 1);
	add(new_rep, LH_TRACER_IRQSOFF, 100, 0, "slob_alloc", 3);
	add(new_rep, LH_TRACER_IRQSOFF, 100, 0, "fakeraid_isr", 1);
	g.fail_on_new = LH_SEV_CRITICAL;
	d = compare(&g);
	ck_assert_uint_eq(d->nr_rules, 2);
	ck_assert_str_eq(lh_diff_verdict(d), "fail");
	ck_assert_uint_eq(d->verdict.nr_violations, 1);
	ck_assert_ptr_nonnull(strstr(d->verdict.violations[0], "rule 'raid-irq-held' (critical) hit 1 record, none in the base"));
	lh_diff_free(d);

	/* slow-alloc grew from 1 to 3 hits, but it was not new: only reported. */
	lh_report_free(new_rep);
	new_rep = rep_alloc();
	add(new_rep, LH_TRACER_IRQSOFF, 100, 0, "slob_alloc", 3);
	g.fail_on_new = LH_SEV_INFO;
	d = compare(&g);
	ck_assert_uint_eq(d->nr_rules, 1);
	ck_assert_str_eq(d->rules[0].id, "slow-alloc");
	ck_assert_uint_eq(d->rules[0].base_hits, 1);
	ck_assert_uint_eq(d->rules[0].new_hits, 3);
	ck_assert(!d->rules[0].failed);
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	both_free(d);
}
END_TEST

START_TEST(fail_closed)
{
	struct lh_diff_gate g = gate("preemptoff=10");
	struct lh_diff *d;

	/* Gated, measured by neither side. */
	base_rep = rep_alloc();
	new_rep = rep_alloc();
	add(base_rep, LH_TRACER_IRQSOFF, 100, 0, "a", 1);
	add(new_rep, LH_TRACER_IRQSOFF, 100, 0, "a", 1);
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "error");
	ck_assert_str_eq(d->verdict.error, "preemptoff is gated by --max-growth but neither side measured it");
	lh_diff_free(d);

	/* Gated by 'all', measured by the base only: the new kernel lost a measurement. */
	g = gate("all=10");
	add(base_rep, LH_TRACER_PREEMPTOFF, 50, 0, "a", 1);
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "error");
	ck_assert_str_eq(d->verdict.error, "preemptoff is gated by --max-growth but only the base reports measured it");
	lh_diff_free(d);

	/* Gated, measured on both sides, but one board of the new set measured nothing. */
	{
		struct lh_run_info run = { .mode = "record", .command_status = -1 };

		run.not_measured[LH_TRACER_IRQSOFF] = "irqsoff is not in available_tracers";
		lh_report_set_run(new_rep, &run);
		g = gate("irqsoff=10");
		d = compare(&g);
		ck_assert_str_eq(lh_diff_verdict(d), "error");
		ck_assert_str_eq(d->verdict.error, "irqsoff is gated by --max-growth but a new report did not measure it: irqsoff is not in available_tracers");
		lh_diff_free(d);
		run.not_measured[LH_TRACER_IRQSOFF] = NULL;
		lh_report_set_run(new_rep, &run);
	}

	/* Not gated: the same difference is only shown. */
	g = gate("irqsoff=10");
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	lh_diff_free(d);

	/* A report that could not be read, whatever the others say. */
	{
		struct lh_diff_side b = { &base_rep, base_name, 1, NULL };
		struct lh_diff_side n = { NULL, NULL, 0, "cannot open report 'x.json'" };

		d = lh_diff_compute(&b, &n, &g);
		ck_assert_str_eq(d->verdict.error, "a new report could not be read: cannot open report 'x.json'");
		lh_diff_free(d);
	}

	/* A report whose own verdict is error, unless accepted. */
	lh_report_set_error(new_rep, "cannot read 'x.trace'");
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "error");
	ck_assert_str_eq(d->verdict.error, "new report 'new.json': its verdict is error (cannot read 'x.trace'); --accept-error compares it anyway");
	lh_diff_free(d);
	g.accept_error = true;
	d = compare(&g);
	ck_assert_str_eq(lh_diff_verdict(d), "pass");
	both_free(d);
}
END_TEST

START_TEST(sets_of_reports)
{
	struct lh_report *b[2], *n[3];
	const char *bn[] = { "b1", "b2" }, *nn[] = { "n1", "n2", "n3" };
	struct lh_diff_side bs = { b, bn, 2, NULL }, ns = { n, nn, 3, NULL };
	struct lh_diff_gate g = gate("all=20");
	struct lh_diff *d;
	size_t i;

	for (i = 0; i < 2; i++)
		b[i] = rep_alloc();
	for (i = 0; i < 3; i++)
		n[i] = rep_alloc();
	add(b[0], LH_TRACER_IRQSOFF, 100, 0, "a", 1);
	add(b[1], LH_TRACER_IRQSOFF, 200, 1, "a", 1);
	add(n[0], LH_TRACER_IRQSOFF, 150, 0, "a", 1);
	add(n[1], LH_TRACER_IRQSOFF, 210, 1, "a", 1);
	add(n[2], LH_TRACER_WAKEUP_RT, 10, 2, "b", 1);
	for (i = 0; i < 2; i++)
		feed_evaluate(b[i]);
	for (i = 0; i < 3; i++)
		feed_evaluate(n[i]);
	g.has_growth[LH_TRACER_UNKNOWN] = false;
	g.has_growth[LH_TRACER_IRQSOFF] = true;
	g.growth_pct[LH_TRACER_IRQSOFF] = 20;
	d = lh_diff_compute(&bs, &ns, &g);
	/* The worst of every board: 200us -> 210us, +5%. */
	ck_assert_uint_eq(row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS)->base_ns, 200000);
	ck_assert_uint_eq(row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS)->new_ns, 210000);
	ck_assert_uint_eq(row(d, LH_TRACER_IRQSOFF, LH_DIFF_ALL_CPUS)->new.count, 2);
	ck_assert_double_eq_tol(row(d, LH_TRACER_IRQSOFF, 0)->change_pct, 50, 1e-9);
	ck_assert(!row(d, LH_TRACER_WAKEUP_RT, LH_DIFF_ALL_CPUS)->base.present);
	/* +5% over all CPUs passes; CPU 0 of the boards went 100us -> 150us and fails */
	ck_assert_str_eq(lh_diff_verdict(d), "fail");
	ck_assert_uint_eq(d->verdict.nr_violations, 1);
	ck_assert_str_eq(d->verdict.violations[0],
			 "irqsoff on CPU 0: worst grew +50.0% (100us -> 150us), over --max-growth irqsoff=20%");
	lh_diff_free(d);
	for (i = 0; i < 2; i++)
		lh_report_free(b[i]);
	for (i = 0; i < 3; i++)
		lh_report_free(n[i]);
}
END_TEST

START_TEST(writers)
{
	struct lh_diff_gate g = gate("irqsoff=10");
	json_object *root, *rows, *r0;
	struct lh_diff *d;
	char *s;

	g.has_max_new = true;
	base_rep = rep_alloc();
	new_rep = rep_alloc();
	add(base_rep, LH_TRACER_IRQSOFF, 100, 0, "a", 1);
	add(new_rep, LH_TRACER_IRQSOFF, 200, 0, "<b>&\"x\x01", 1);
	d = compare(&g);

	s = render(d, LH_FORMAT_JSON);
	root = json_tokener_parse(s);
	ck_assert_ptr_nonnull(root);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(root, "verdict")), "fail");
	rows = json_object_object_get(root, "rows");
	r0 = json_object_array_get_idx(rows, 0);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(r0, "by")), "worst");
	ck_assert_double_eq_tol(json_object_get_double(json_object_object_get(r0, "change_pct")),
				100, 1e-9);
	ck_assert_int_eq(json_object_get_int(json_object_object_get(root, "new_offenders")), 1);
	json_object_put(root);
	free(s);

	s = render(d, LH_FORMAT_JUNIT);
	/* comparison, irqsoff, new offenders, new rule hits, irq handlers */
	ck_assert_ptr_nonnull(strstr(s, "<testsuite name=\"lathound diff\" tests=\"5\" failures=\"2\" errors=\"0\">"));
	ck_assert_ptr_nonnull(strstr(s, "<failure message=\"irqsoff: worst grew +100.0% (100us -&gt; 200us), over --max-growth irqsoff=10%; irqsoff on CPU 0: worst grew"));
	ck_assert_ptr_null(strstr(s, "<b>"));
	ck_assert_ptr_null(strchr(s, '\x01'));
	free(s);

	s = render(d, LH_FORMAT_TEXT);
	ck_assert_ptr_nonnull(strstr(s, "irqsoff         all  worst         100us        200us  +100us (+100.0%)  FAIL\n"));
	ck_assert_ptr_nonnull(strstr(s, "Verdict: FAIL\n"));
	free(s);
	both_free(d);
}
END_TEST

static Suite *diff_suite(void)
{
	Suite *s = suite_create("diff");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, parse_growth);
	tcase_add_test(tc, equal_reports_pass);
	tcase_add_test(tc, growth_per_tracer_and_cpu);
	tcase_add_test(tc, p999_when_both_count_enough);
	tcase_add_test(tc, running_maxima_compare_worst);
	tcase_add_test(tc, kernel_histograms_compare_percentiles);
	tcase_add_test(tc, timerlat_samples_compared);
	tcase_add_test(tc, timerlat_samples_misfit);
	tcase_add_test(tc, hwlat_samples_compared);
	tcase_add_test(tc, parse_available_drop);
	tcase_add_test(tc, available_drop_gated);
	tcase_add_test(tc, irq_handlers_gated);
	tcase_add_test(tc, offenders_new_gone_grown);
	tcase_add_test(tc, new_rule_hits_by_severity);
	tcase_add_test(tc, fail_closed);
	tcase_add_test(tc, sets_of_reports);
	tcase_add_test(tc, writers);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(diff_suite)
