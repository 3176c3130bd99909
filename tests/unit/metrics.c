// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the Prometheus writer (src/report/metrics.c): buckets, exact seconds, escaping of
 * untrusted label values, and the metrics of a report as a user reads them. promtool and
 * node_exporter judge the real files in tests/cli/metrics.sh and tests/live/metrics.sh.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/irqstat.h"
#include "report/metrics.h"
#include "report/report-load.h"
#include "report/report.h"
#include "rules/rules.h"
#include "check-main.h"

static char *buf;
static size_t len;
static FILE *out;

static void setup(void)
{
	out = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(out);
}

static void teardown(void)
{
	if (out)
		fclose(out);
	out = NULL;
	free(buf);
	buf = NULL;
}

/* Return: what was written so far (owned by the stream). */
static const char *text(void)
{
	fflush(out);
	return buf;
}

/* The text must hold line as a whole line. */
#define ck_line(line) ck_line_in(text(), line)
static void ck_line_in(const char *t, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = t; (p = strstr(p, line)); p++)
		if ((p == t || p[-1] == '\n') && p[n] == '\n')
			return;
	ck_abort_msg("line '%s' not in the %zu bytes written", line, strlen(t));
}

START_TEST(bucket_bounds)
{
	const uint64_t le[] = { 1000, 2000, 5000 };

	ck_assert_uint_eq(lh_metrics_bucket(le, 3, 0), 0);
	ck_assert_uint_eq(lh_metrics_bucket(le, 3, 1000), 0);	/* le is inclusive */
	ck_assert_uint_eq(lh_metrics_bucket(le, 3, 1001), 1);
	ck_assert_uint_eq(lh_metrics_bucket(le, 3, 5000), 2);
	ck_assert_uint_eq(lh_metrics_bucket(le, 3, 5001), 3);	/* +Inf */
	ck_assert_uint_eq(lh_metrics_bucket(le, 3, UINT64_MAX), 3);
	ck_assert_uint_eq(lh_metrics_bucket(le, 0, 7), 0);
	/* A source bucket [1500, 2500) straddles 2000: it goes above, never below. */
	ck_assert_uint_eq(lh_metrics_bucket(le, 3, 2500 - 1), 2);
}
END_TEST

START_TEST(histogram_cumulative)
{
	const uint64_t le[] = { 1000, 2000, 5000 }, count[] = { 3, 0, 2, 1 };
	struct lh_metrics_hist h = { .le_ns = le, .nr = 3, .count = count, .sum_ns = 12345678 };
	const struct lh_metrics_label l[] = { { "tracer", "irqsoff" }, { "cpu", "1" } };

	lh_metrics_histogram(out, "x_seconds", l, 2, &h);
	ck_assert_str_eq(text(),
		"x_seconds_bucket{tracer=\"irqsoff\",cpu=\"1\",le=\"0.000001\"} 3\n"
		"x_seconds_bucket{tracer=\"irqsoff\",cpu=\"1\",le=\"0.000002\"} 3\n"
		"x_seconds_bucket{tracer=\"irqsoff\",cpu=\"1\",le=\"0.000005\"} 5\n"
		"x_seconds_bucket{tracer=\"irqsoff\",cpu=\"1\",le=\"+Inf\"} 6\n"
		"x_seconds_sum{tracer=\"irqsoff\",cpu=\"1\"} 0.012345678\n"
		"x_seconds_count{tracer=\"irqsoff\",cpu=\"1\"} 6\n");
}
END_TEST

START_TEST(histogram_no_labels)
{
	const uint64_t count[] = { 4 };
	struct lh_metrics_hist h = { .nr = 0, .count = count, .sum_ns = 2000000000 };

	lh_metrics_histogram(out, "y_seconds", NULL, 0, &h);
	ck_assert_str_eq(text(), "y_seconds_bucket{le=\"+Inf\"} 4\ny_seconds_sum 2\n"
				 "y_seconds_count 4\n");
}
END_TEST

START_TEST(seconds_exact)
{
	lh_metrics_seconds(out, "a", NULL, 0, 0);
	lh_metrics_seconds(out, "b", NULL, 0, 2001000);
	lh_metrics_seconds(out, "c", NULL, 0, 1796085138976897443ULL);
	lh_metrics_seconds(out, "d", NULL, 0, 3000000000ULL);
	lh_metrics_seconds(out, "e", NULL, 0, 1);
	lh_metrics_u64(out, "f", NULL, 0, UINT64_MAX);
	ck_assert_str_eq(text(), "a 0\nb 0.002001\nc 1796085138.976897443\nd 3\ne 0.000000001\n"
				 "f 18446744073709551615\n");
}
END_TEST

START_TEST(label_escapes)
{
	/* A comm with a quote, a backslash, a newline, a control byte, bad UTF-8 and a µ. */
	const struct lh_metrics_label l[] = {
		{ "comm", "a\"b\\c\nd\x01" "e\xff\xc3(\xc2\xb5s" }, { "empty", NULL },
	};

	lh_metrics_u64(out, "x", l, 2, 1);
	ck_assert_str_eq(text(),
		"x{comm=\"a\\\"b\\\\c\\nd\\\\x01e\\\\xff\\\\xc3(\xc2\xb5s\",empty=\"\"} 1\n");
}
END_TEST

START_TEST(family_header)
{
	lh_metrics_family(out, "z_total", "counter", "Back\\slash and\nnewline.");
	ck_assert_str_eq(text(), "# HELP z_total Back\\\\slash and\\nnewline.\n"
				 "# TYPE z_total counter\n");
}
END_TEST

static const char test_rules[] =
	"[raid]\nmatch = ^fakeraid\nseverity = critical\n"
	"[console]\nmatch = serial8250\nseverity = warning\n";

/* A record as the parser would hand it over. */
static struct lh_record *mk(enum lh_tracer t, uint64_t lat, int cpu, const char *comm,
			    const char *irq)
{
	struct lh_record *r = lh_record_alloc();

	r->tracer = t;
	r->tracer_name = lh_arena_strdup(&r->arena, lh_tracer_name(t));
	r->latency_us = lat;
	r->cpu = cpu;
	r->task.comm = lh_arena_strdup(&r->arena, comm);
	r->task.pid = 42;
	r->started_at = lh_arena_strdup(&r->arena, "lhx_fakeraid_irq");
	r->ended_at = lh_arena_strdup(&r->arena, "lhx_fakeraid_irq");
	lh_record_add_frame(r, 0, irq, strlen(irq));
	r->source = lh_arena_strdup(&r->arena, "<tracefs>");
	r->line = 1;
	return r;
}

struct run_fixture {
	struct lh_rules		*rules;
	struct lh_report	*rep;
	struct lh_irqstat	*irq;
	struct lh_run_info	info;
	struct lh_metrics_run	run;
};

/* A record run: irqsoff on two CPUs (2001 us hits the critical rule), wakeup_rt 80 us. */
static void run_fixture(struct run_fixture *f, const char *gate_max)
{
	static const struct {
		enum lh_tracer	t;
		uint64_t	lat;
		int		cpu;
		const char	*comm, *frame;
	} recs[] = {
		{ LH_TRACER_IRQSOFF, 150, 1, "kworker/1:0", "other" },
		{ LH_TRACER_IRQSOFF, 2001, 0, "bad\"comm\xff", "fakeraid_irq" },
		{ LH_TRACER_IRQSOFF, 2000, 0, "x", "y" },
		{ LH_TRACER_WAKEUP_RT, 80, 1, "rt", "z" },
	};
	const char *err;
	size_t i;
	struct lh_gate g;
	struct lh_diag d = { 0 };
	struct lh_record *r;

	memset(f, 0, sizeof(*f));
	f->rules = lh_rules_alloc();
	ck_assert_int_eq(lh_rules_load_buffer(f->rules, "t.rules", test_rules,
					      strlen(test_rules), &d), 0);
	f->rep = lh_report_alloc(f->rules, NULL);
	for (i = 0; i < LH_ARRAY_SIZE(recs); i++) {
		r = mk(recs[i].t, recs[i].lat, recs[i].cpu, recs[i].comm, recs[i].frame);
		lh_report_feed(r, f->rep);
		lh_record_free(r);
	}

	f->irq = lh_irqstat_alloc();
	lh_irqstat_add(f->irq, 0, 24, "fakeraid", 1500);	/* [1024, 2048) */
	lh_irqstat_add(f->irq, 0, 24, "fakeraid", 300);		/* below 1023 ns */
	lh_irqstat_add(f->irq, 0, 24, "fakeraid", 5000000000ULL);	/* the last bucket */
	lh_irqstat_add_lost(f->irq, 7);
	lh_irqstat_sort(f->irq);
	f->info = (struct lh_run_info){
		.mode = "record", .started_ns = 1796085138000000000ULL, .kernel = "6.1.0-lhvm",
		.irqstat = f->irq, .command_status = -1,
	};
	f->info.armed_ns[LH_TRACER_IRQSOFF] = 90500000000ULL;
	f->info.armed_ns[LH_TRACER_WAKEUP_RT] = 30000000000ULL;
	lh_report_set_run(f->rep, &f->info);
	lh_gate_init(&g);
	if (gate_max)
		ck_assert_int_eq(lh_gate_parse_max(&g, gate_max, &err), 0);
	g.fail_on = LH_GATE_FAIL_NONE;
	lh_report_evaluate(f->rep, &g);
	f->run = (struct lh_metrics_run){
		.tracers = 1u << LH_TRACER_IRQSOFF | 1u << LH_TRACER_WAKEUP_RT,
		.wanted = 1u << LH_TRACER_IRQSOFF | 1u << LH_TRACER_WAKEUP_RT,
		.armed = LH_TRACER_WAKEUP_RT, .running = true,
		.now_ns = 1796085258500000000ULL,
	};
	f->run.captured[LH_TRACER_IRQSOFF] = 3;
	f->run.lost[LH_TRACER_IRQSOFF] = 1;
	f->run.captured[LH_TRACER_WAKEUP_RT] = 1;
}

static void run_free(struct run_fixture *f)
{
	lh_report_free(f->rep);
	lh_rules_free(f->rules);
	lh_irqstat_free(f->irq);
}

START_TEST(run_sections)
{
	struct run_fixture f;

	run_fixture(&f, "irqsoff=1ms");
	ck_assert_int_eq(lh_metrics_write(f.rep, &f.run, out), 0);
	/* The worst per tracer and CPU, in seconds. */
	ck_line("lathound_section_max_latency_seconds{tracer=\"irqsoff\",cpu=\"0\"} 0.002001");
	ck_line("lathound_section_max_latency_seconds{tracer=\"irqsoff\",cpu=\"1\"} 0.00015");
	ck_line("lathound_section_max_latency_seconds{tracer=\"wakeup_rt\",cpu=\"1\"} 0.00008");
	/*
	 * The kernel truncates a section's ns to the us it shows: one shown as 2000 us lasted
	 * up to 2000.999 us, so it is above the le=2ms bound, as 2001 us is.
	 */
	ck_line("lathound_section_latency_seconds_bucket{tracer=\"irqsoff\",cpu=\"0\",le=\"0.001\"} 0");
	ck_line("lathound_section_latency_seconds_bucket{tracer=\"irqsoff\",cpu=\"0\",le=\"0.002\"} 0");
	ck_line("lathound_section_latency_seconds_bucket{tracer=\"irqsoff\",cpu=\"0\",le=\"0.005\"} 2");
	ck_line("lathound_section_latency_seconds_bucket{tracer=\"irqsoff\",cpu=\"0\",le=\"+Inf\"} 2");
	ck_line("lathound_section_latency_seconds_sum{tracer=\"irqsoff\",cpu=\"0\"} 0.004001");
	ck_line("lathound_section_latency_seconds_count{tracer=\"irqsoff\",cpu=\"0\"} 2");
	ck_line("lathound_section_latency_seconds_bucket{tracer=\"irqsoff\",cpu=\"1\",le=\"0.0001\"} 0");
	ck_line("lathound_section_latency_seconds_bucket{tracer=\"irqsoff\",cpu=\"1\",le=\"0.0002\"} 1");
	/* The worst section's task is untrusted text: escaped, the file stays valid. */
	ck_line("lathound_worst_section_info{tracer=\"irqsoff\",cpu=\"0\",comm=\"bad\\\"comm\\\\xff\","
		"pid=\"42\",started=\"lhx_fakeraid_irq\",ended=\"lhx_fakeraid_irq\"} 1");
	ck_line("lathound_sections_captured_total{tracer=\"irqsoff\"} 3");
	ck_line("lathound_sections_lost_total{tracer=\"irqsoff\"} 1");
	ck_line("lathound_sections_lost_total{tracer=\"wakeup_rt\"} 0");
	/* Tracers not in the run have no series. */
	ck_assert_ptr_null(strstr(text(), "tracer=\"preemptoff\""));
	run_free(&f);
}
END_TEST

START_TEST(run_state_and_gate)
{
	struct run_fixture f;

	run_fixture(&f, "irqsoff=1ms");
	ck_assert_int_eq(lh_metrics_write(f.rep, &f.run, out), 0);
	ck_line("lathound_run_info{version=\"" LH_VERSION "\",kernel=\"6.1.0-lhvm\"} 1");
	ck_line("lathound_run_start_timestamp_seconds 1796085138");
	ck_line("lathound_last_checkpoint_timestamp_seconds 1796085258.5");
	ck_line("lathound_running 1");
	ck_line("lathound_tracer_armed{tracer=\"irqsoff\"} 0");
	ck_line("lathound_tracer_armed{tracer=\"wakeup_rt\"} 1");
	ck_line("lathound_tracer_armed_seconds_total{tracer=\"irqsoff\"} 90.5");
	ck_line("lathound_tracer_armed_seconds_total{tracer=\"wakeup_rt\"} 30");
	/* --max irqsoff=1ms over 2001 us: the verdict so far is fail. */
	ck_line("lathound_verdict{verdict=\"pass\"} 0");
	ck_line("lathound_verdict{verdict=\"fail\"} 1");
	ck_line("lathound_verdict{verdict=\"error\"} 0");
	ck_line("lathound_budget_seconds{tracer=\"irqsoff\"} 0.001");
	ck_line("lathound_budget_exceeded{tracer=\"irqsoff\"} 1");
	ck_assert_ptr_null(strstr(text(), "lathound_budget_seconds{tracer=\"wakeup_rt\"}"));
	/* Whether a tracer measured is known at the end only. */
	ck_assert_ptr_null(strstr(text(), "lathound_tracer_measured"));
	ck_line("lathound_rule_hits_total{rule=\"raid\",severity=\"critical\"} 1");
	ck_line("lathound_rule_hits_total{rule=\"console\",severity=\"warning\"} 0");
	ck_line("lathound_rule_unevaluated_total{rule=\"raid\",severity=\"critical\"} 0");
	run_free(&f);
}
END_TEST

START_TEST(run_final)
{
	struct run_fixture f;

	run_fixture(&f, "all=5ms");
	f.run.running = false;
	f.info.not_measured[LH_TRACER_WAKEUP_RT] = "armed less than one --slice, without a capture";
	lh_report_set_run(f.rep, &f.info);
	ck_assert_int_eq(lh_metrics_write(f.rep, &f.run, out), 0);
	ck_line("lathound_running 0");
	ck_line("lathound_tracer_armed{tracer=\"wakeup_rt\"} 0");
	ck_line("lathound_tracer_measured{tracer=\"irqsoff\"} 1");
	ck_line("lathound_tracer_measured{tracer=\"wakeup_rt\"} 0");
	/* --max all applies to every tracer of the run. */
	ck_line("lathound_budget_seconds{tracer=\"irqsoff\"} 0.005");
	ck_line("lathound_budget_seconds{tracer=\"wakeup_rt\"} 0.005");
	ck_line("lathound_budget_exceeded{tracer=\"irqsoff\"} 0");
	ck_line("lathound_verdict{verdict=\"pass\"} 1");
	run_free(&f);
}
END_TEST

START_TEST(run_error_verdict)
{
	struct run_fixture f;

	run_fixture(&f, NULL);
	lh_report_set_error(f.rep, "the command exited with status 3");
	ck_assert_int_eq(lh_metrics_write(f.rep, &f.run, out), 0);
	ck_line("lathound_verdict{verdict=\"error\"} 1");
	ck_line("lathound_verdict{verdict=\"pass\"} 0");
	ck_assert_ptr_null(strstr(text(), "lathound_budget_seconds{"));
	run_free(&f);
}
END_TEST

START_TEST(run_irq_handlers)
{
	struct run_fixture f;
	const char *p;
	int n = 0;

	run_fixture(&f, NULL);
	ck_assert_int_eq(lh_metrics_write(f.rep, &f.run, out), 0);
	ck_line("lathound_irq_handler_max_seconds{irq=\"24\",name=\"fakeraid\",cpu=\"0\"} 5");
	/* Power-of-two buckets: [2^b, 2^(b+1)) ns is le=2^(b+1)-1 ns, from 1023 ns. */
	ck_line("lathound_irq_handler_duration_seconds_bucket{irq=\"24\",name=\"fakeraid\",cpu=\"0\",le=\"0.000001023\"} 1");
	ck_line("lathound_irq_handler_duration_seconds_bucket{irq=\"24\",name=\"fakeraid\",cpu=\"0\",le=\"0.000002047\"} 2");
	ck_line("lathound_irq_handler_duration_seconds_bucket{irq=\"24\",name=\"fakeraid\",cpu=\"0\",le=\"2.147483647\"} 2");
	ck_line("lathound_irq_handler_duration_seconds_bucket{irq=\"24\",name=\"fakeraid\",cpu=\"0\",le=\"+Inf\"} 3");
	ck_line("lathound_irq_handler_duration_seconds_sum{irq=\"24\",name=\"fakeraid\",cpu=\"0\"} 5.0000018");
	ck_line("lathound_irq_handler_duration_seconds_count{irq=\"24\",name=\"fakeraid\",cpu=\"0\"} 3");
	ck_line("lathound_irq_events_lost_total 7");
	ck_line("lathound_irq_runs_dropped_total 0");
	/* 22 bounds and +Inf. */
	for (p = text(); (p = strstr(p, "duration_seconds_bucket{")); p++)
		n++;
	ck_assert_int_eq(n, 23);
	run_free(&f);
}
END_TEST

/*
 * A handler folded from several reports (report A B --metrics) saturates its buckets at
 * 2^64 - 1: two of them in one metrics bucket, and the cumulative counts, stay there rather
 * than wrap to a small count.
 */
START_TEST(run_irq_handler_saturated)
{
	struct run_fixture f;
	struct lh_irqstat_entry e = { .irq = 25, .cpu = 0, .name = "big", .count = UINT64_MAX };

	run_fixture(&f, NULL);
	/* [1, 2) and [2, 4) ns: both below the first bound, 1023 ns */
	e.hist[0] = UINT64_MAX / 2 + 1;
	e.hist[1] = UINT64_MAX / 2 + 1;
	ck_assert_int_eq(lh_irqstat_merge_entry(f.irq, &e), 0);
	ck_assert_int_eq(lh_metrics_write(f.rep, &f.run, out), 0);
	ck_line("lathound_irq_handler_duration_seconds_bucket{irq=\"25\",name=\"big\",cpu=\"0\",le=\"0.000001023\"} 18446744073709551615");
	ck_line("lathound_irq_handler_duration_seconds_bucket{irq=\"25\",name=\"big\",cpu=\"0\",le=\"+Inf\"} 18446744073709551615");
	lh_histogram_release(&e.dist);
	run_free(&f);
}
END_TEST

/* Histograms the kernel counted: its buckets in the 1-2-5 ones, per kind and CPU. */
START_TEST(run_kernel_hists)
{
	struct run_fixture f;
	struct lh_histogram h = { 0 }, all = { 0 };

	run_fixture(&f, NULL);
	ck_assert_int_eq(lh_metrics_write(f.rep, &f.run, out), 0);
	ck_assert_ptr_null(strstr(text(), "lathound_kernel_"));	/* none counted: no family */
	/* 3 in [1.9, 2 ms), 2 in [2, 2.1 ms), 1 in the log2 bucket (2^24, 2^25] ns. */
	ck_assert_int_eq(lh_histogram_add_bucket(&h, 1900000, 2000000, 3), 0);
	ck_assert_int_eq(lh_histogram_add_bucket(&h, 2000000, 2100000, 2), 0);
	ck_assert_int_eq(lh_histogram_add_bucket(&h, (1ull << 24) + 1, (1ull << 25) + 1, 1), 0);
	h.sum_ns = 3 * 1950000 + 2 * 2050000 + 20000000;
	lh_report_set_histogram(f.rep, "preemptoff", 1, &h);
	lh_histogram_copy(&all, &h);
	all.dropped = 4;
	lh_report_set_histogram(f.rep, "preemptoff", -1, &all);
	teardown();
	setup();
	ck_assert_int_eq(lh_metrics_write(f.rep, &f.run, out), 0);
	ck_line("# TYPE lathound_kernel_latency_seconds histogram");
	ck_line("lathound_kernel_latency_seconds_bucket{kind=\"preemptoff\",cpu=\"1\",le=\"0.001\"} 0");
	ck_line("lathound_kernel_latency_seconds_bucket{kind=\"preemptoff\",cpu=\"1\",le=\"0.002\"} 3");
	ck_line("lathound_kernel_latency_seconds_bucket{kind=\"preemptoff\",cpu=\"1\",le=\"0.005\"} 5");
	/* (2^24, 2^25] ns ends at 33.6 ms: counted at 50 ms, never below what it may be. */
	ck_line("lathound_kernel_latency_seconds_bucket{kind=\"preemptoff\",cpu=\"1\",le=\"0.02\"} 5");
	ck_line("lathound_kernel_latency_seconds_bucket{kind=\"preemptoff\",cpu=\"1\",le=\"0.05\"} 6");
	ck_line("lathound_kernel_latency_seconds_bucket{kind=\"preemptoff\",cpu=\"1\",le=\"+Inf\"} 6");
	ck_line("lathound_kernel_latency_seconds_sum{kind=\"preemptoff\",cpu=\"1\"} 0.02995");
	ck_line("lathound_kernel_latency_seconds_count{kind=\"preemptoff\",cpu=\"1\"} 6");
	/* The all-CPU one is Prometheus's sum, not a series; its drops are. */
	ck_assert_ptr_null(strstr(text(), "cpu=\"-1\""));
	ck_line("lathound_kernel_sections_dropped_total{kind=\"preemptoff\"} 4");
	lh_histogram_release(&h);
	lh_histogram_release(&all);
	run_free(&f);
}
END_TEST

/* Return: the lines of t that start with prefix, in order (the caller frees). */
static char *lines_of(const char *t, const char *prefix)
{
	size_t n = strlen(prefix), size = 0;
	char *s = NULL;
	FILE *f = open_memstream(&s, &size);
	const char *p, *end;

	ck_assert_ptr_nonnull(f);
	for (p = t; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '\n');
		if (!strncmp(p, prefix, n))
			fprintf(f, "%.*s\n", (int)(end - p), p);
	}
	fclose(f);
	return s;
}

/*
 * A saved report read back (the JSON reader, as 'lathound report' reads one) has the
 * section histograms of the run that wrote it: the metrics are counted from the sections'
 * distribution, which the report carries, not from counters only a live run fills.
 */
START_TEST(run_saved_report)
{
	struct run_fixture f;
	struct lh_report_loader *l = lh_report_loader_alloc(NULL);
	struct lh_report *saved;
	struct lh_diag d = { 0 };
	char *json = NULL, *live, *read;
	size_t n = 0;
	FILE *j = open_memstream(&json, &n);

	run_fixture(&f, "irqsoff=1ms");
	ck_assert_int_eq(lh_report_write(f.rep, LH_FORMAT_JSON, j), 0);
	fclose(j);
	ck_assert_int_eq(lh_report_loader_add(l, "report.json", json, n, &d), 0);
	saved = lh_report_loader_finish(l, &d);
	ck_assert_msg(saved, "the report does not read back: %s", d.nr ? d.msgs[0].text : "");
	ck_assert_int_eq(lh_metrics_write(f.rep, &f.run, out), 0);
	live = lines_of(text(), "lathound_section_latency_seconds");
	teardown();
	setup();
	ck_assert_int_eq(lh_metrics_write(saved, &f.run, out), 0);
	read = lines_of(text(), "lathound_section_latency_seconds");
	ck_line("lathound_section_latency_seconds_bucket{tracer=\"irqsoff\",cpu=\"0\",le=\"0.005\"} 2");
	ck_line("lathound_section_latency_seconds_sum{tracer=\"irqsoff\",cpu=\"0\"} 0.004001");
	ck_line("lathound_section_latency_seconds_count{tracer=\"irqsoff\",cpu=\"0\"} 2");
	ck_line("lathound_section_latency_seconds_bucket{tracer=\"wakeup_rt\",cpu=\"1\",le=\"+Inf\"} 1");
	/* every sample as the live run wrote it */
	ck_assert_str_eq(read, live);
	free(live);
	free(read);
	free(json);
	lh_report_free(saved);
	lh_report_loader_free(l);
	lh_diag_release(&d);
	run_free(&f);
}
END_TEST

/* osnoise per CPU as counters; a CPU to be measured and not is at 0. None: no family. */
START_TEST(run_osnoise_cpus)
{
	struct run_fixture f;
	struct lh_report_noise one = {
		.cpu = 1, .periods = 5, .runtime_ns = 5000000000ULL, .noise_ns = 412500000ULL,
		.max_single_ns = 8000000, .hw_count = 4,
	}, none = { .cpu = 0 };
	const struct lh_report_source spin = { .kind = LH_SPIKE_THREAD, .name = "lhspin",
					       .count = 40, .noise_ns = 400000000ULL };
	const struct lh_report_source quote = { .kind = LH_SPIKE_IRQ, .name = "a\"b",
						.count = 2, .noise_ns = 5000 };

	run_fixture(&f, NULL);
	ck_assert_int_eq(lh_metrics_write(f.rep, &f.run, out), 0);
	ck_assert_ptr_null(strstr(text(), "lathound_osnoise_"));
	lh_report_noise_add_source(&one, &spin);
	lh_report_noise_add_source(&one, &quote);
	lh_report_set_noise(f.rep, &one);
	lh_report_set_noise(f.rep, &none);
	teardown();
	setup();
	ck_assert_int_eq(lh_metrics_write(f.rep, &f.run, out), 0);
	ck_line("# TYPE lathound_osnoise_periods_total counter");
	ck_line("lathound_osnoise_periods_total{cpu=\"0\"} 0");
	ck_line("lathound_osnoise_periods_total{cpu=\"1\"} 5");
	ck_line("# TYPE lathound_osnoise_runtime_seconds_total counter");
	ck_line("lathound_osnoise_runtime_seconds_total{cpu=\"1\"} 5");
	ck_line("# TYPE lathound_osnoise_noise_seconds_total counter");
	ck_line("lathound_osnoise_noise_seconds_total{cpu=\"1\"} 0.4125");
	ck_line("lathound_osnoise_noise_seconds_total{cpu=\"0\"} 0");
	ck_line("# TYPE lathound_osnoise_max_single_noise_seconds gauge");
	ck_line("lathound_osnoise_max_single_noise_seconds{cpu=\"1\"} 0.008");
	/* by source: each kept one of each CPU, its name a label value escaped */
	ck_line("# TYPE lathound_osnoise_source_events_total counter");
	ck_line("lathound_osnoise_source_events_total{cpu=\"1\",kind=\"thread\",name=\"lhspin\"} 40");
	ck_line("lathound_osnoise_source_noise_seconds_total{cpu=\"1\",kind=\"thread\",name=\"lhspin\"} 0.4");
	ck_line("lathound_osnoise_source_noise_seconds_total{cpu=\"1\",kind=\"irq\",name=\"a\\\"b\"} 0.000005");
	ck_line("lathound_osnoise_hw_noise_total{cpu=\"1\"} 4");
	run_free(&f);
}
END_TEST

START_TEST(write_error)
{
	struct run_fixture f;
	FILE *full = fopen("/dev/full", "w");

	ck_assert_ptr_nonnull(full);
	run_fixture(&f, NULL);
	errno = 0;
	ck_assert_int_eq(lh_metrics_write(f.rep, &f.run, full), -1);
	ck_assert_int_eq(errno, ENOSPC);
	fclose(full);
	run_free(&f);
}
END_TEST

static Suite *metrics_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, bucket_bounds);
	tcase_add_test(tc, histogram_cumulative);
	tcase_add_test(tc, histogram_no_labels);
	tcase_add_test(tc, seconds_exact);
	tcase_add_test(tc, label_escapes);
	tcase_add_test(tc, family_header);
	tcase_add_test(tc, run_sections);
	tcase_add_test(tc, run_state_and_gate);
	tcase_add_test(tc, run_final);
	tcase_add_test(tc, run_error_verdict);
	tcase_add_test(tc, run_irq_handlers);
	tcase_add_test(tc, run_irq_handler_saturated);
	tcase_add_test(tc, run_kernel_hists);
	tcase_add_test(tc, run_saved_report);
	tcase_add_test(tc, run_osnoise_cpus);
	tcase_add_test(tc, write_error);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(metrics_suite)
