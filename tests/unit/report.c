// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the report (src/report/report*.c): aggregation, offenders by signature, the
 * bounded set of records kept in full, progression of maxima, and the three writers
 * (JSON parsed back with json-c, JUnit checked for well-formedness, text for key lines).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "report/report-priv.h"
#include "report/report.h"
#include "check-main.h"
#include "test-dir.h"

static const char test_rules[] =
	"[raid-irq-held]\n"
	"match    = ^fakeraid\n"
	"in       = irq\n"
	"severity = critical\n"
	"message  = fakeraid handler runs with IRQs off\n"
	"\n"
	"[slow-alloc]\n"
	"match    = ^slob_\n"
	"in       = functions stack\n"
	"severity = warning\n"
	"message  = slob allocator walk\n"
	"\n"
	"[known-nic]\n"
	"match    = ^igb_\n"
	"in       = stack\n"
	"severity = ignore\n"
	"message  = known NIC refill\n"
	"\n"
	"[note]\n"
	"match    = ^note_me$\n"
	"in       = stack\n"
	"severity = info\n";

enum { R_RAID, R_SLOW, R_NIC, R_NOTE };

static struct lh_rules *rules;

static void setup(void)
{
	struct lh_diag d = { 0 };

	rules = lh_rules_alloc();
	ck_assert_int_eq(lh_rules_load_buffer(rules, "test.rules", test_rules,
					      strlen(test_rules), &d), 0);
	ck_assert_uint_eq(lh_rules_count(rules), 4);
	ck_assert_str_eq(lh_rules_get(rules, R_RAID)->id, "raid-irq-held");
	ck_assert_str_eq(lh_rules_get(rules, R_NIC)->id, "known-nic");
	lh_diag_release(&d);
}

static void teardown(void)
{
	lh_rules_free(rules);
	rules = NULL;
}

/* A record as the parser would hand it over; frames is NULL-terminated (innermost first). */
static struct lh_record *mk(enum lh_tracer t, uint64_t lat, int cpu, const char *comm, int pid,
			    const char *start, const char *end, const char *const *frames)
{
	struct lh_record *r = lh_record_alloc();

	r->tracer = t;
	r->tracer_name = lh_arena_strdup(&r->arena, lh_tracer_name(t));
	r->latency_us = lat;
	r->cpu = cpu;
	r->nr_cpus = 2;
	r->task.comm = comm ? lh_arena_strdup(&r->arena, comm) : NULL;
	r->task.pid = pid;
	r->started_at = start ? lh_arena_strdup(&r->arena, start) : NULL;
	r->ended_at = end ? lh_arena_strdup(&r->arena, end) : NULL;
	for (; frames && *frames; frames++)
		lh_record_add_frame(r, 0, *frames, strlen(*frames));
	r->source = lh_arena_strdup(&r->arena, "t.trace");
	r->line = 1;
	return r;
}

/* A match as lh_rules_match() would fill it: hits are rule indices, in rule order. */
static void set_match(struct lh_match *m, const size_t *hits, size_t n)
{
	size_t i;

	m->nr_hits = 0;
	m->accepted = false;
	m->has_worst = false;
	for (i = 0; i < n; i++) {
		const struct lh_rule *rule = lh_rules_get(rules, hits[i]);

		LH_GROW(m->hits, m->nr_hits + 1, m->alloc_hits);
		m->hits[m->nr_hits++] = hits[i];
		if (rule->severity == LH_SEV_IGNORE) {
			m->accepted = true;
		} else if (!m->has_worst || rule->severity > m->worst) {
			m->has_worst = true;
			m->worst = rule->severity;
		}
	}
}

/* Return: the report written in format f (free it). */
static char *render(struct lh_report *rep, enum lh_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(lh_report_write(rep, f, out), 0);
	ck_assert_int_eq(fclose(out), 0);
	return buf;
}

/* Return: how often needle occurs in s. */
static size_t count_of(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

static json_object *render_json(struct lh_report *rep)
{
	char *text = render(rep, LH_FORMAT_JSON);
	json_object *o = json_tokener_parse(text);

	ck_assert_msg(o != NULL, "report is not JSON:\n%s", text);
	free(text);
	return o;
}

/* Return: member key of o, which must exist (its value may be null). */
static json_object *jk(json_object *o, const char *key)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no member '%s'", key);
	return v;
}

static int64_t ji(json_object *o, const char *key)
{
	json_object *v = jk(o, key);

	ck_assert_msg(json_object_is_type(v, json_type_int), "'%s' is not an integer", key);
	return json_object_get_int64(v);
}

static const char *js(json_object *o, const char *key)
{
	json_object *v = jk(o, key);

	ck_assert_msg(json_object_is_type(v, json_type_string), "'%s' is not a string", key);
	return json_object_get_string(v);
}

static bool jnull(json_object *o, const char *key)
{
	return jk(o, key) == NULL;
}

static json_object *ja(json_object *o, const char *key, size_t len)
{
	json_object *v = jk(o, key);

	ck_assert_msg(json_object_is_type(v, json_type_array), "'%s' is not an array", key);
	ck_assert_uint_eq(json_object_array_length(v), len);
	return v;
}

static json_object *at(json_object *a, size_t i)
{
	return json_object_array_get_idx(a, i);
}

static const char *const irq_frames[] = { "fake_irq_handler", "__handle_irq_event_percpu",
					  "handle_irq_event", "common_interrupt", NULL };
static const char *const alloc_frames[] = { "slob_alloc", "kmalloc", "kernfs_new_node", NULL };
static const char *const nic_frames[] = { "igb_alloc_rx_buffers", "igb_poll", NULL };

START_TEST(aggregates_per_tracer)
{
	struct lh_report *rep = lh_report_alloc(rules, NULL);
	struct lh_record *r;
	json_object *root, *tr;
	uint64_t lat[] = { 150, 2002, 900 };
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(lat); i++) {
		r = mk(LH_TRACER_IRQSOFF, lat[i], (int)i % 2, "irq_test", 82, "a", "b", irq_frames);
		lh_report_add(rep, r, NULL);
		lh_record_free(r);
	}
	r = mk(LH_TRACER_WAKEUP_RT, 77, 1, "cyclictest", 99, NULL, NULL, NULL);
	lh_report_add(rep, r, NULL);
	lh_record_free(r);

	ck_assert_uint_eq(lh_report_records(rep), 4);
	ck_assert_uint_eq(lh_report_worst_us(rep, LH_TRACER_IRQSOFF), 2002);
	ck_assert_uint_eq(lh_report_worst_us(rep, LH_TRACER_WAKEUP_RT), 77);
	ck_assert_uint_eq(lh_report_worst_us(rep, LH_TRACER_PREEMPTOFF), 0);
	ck_assert_uint_eq(lh_report_rule_hits(rep), 0);

	root = render_json(rep);
	tr = jk(root, "tracers");
	ck_assert_int_eq(json_object_object_length(tr), 2);
	ck_assert_int_eq(ji(jk(tr, "irqsoff"), "max_us"), 2002);
	ck_assert_int_eq(ji(jk(tr, "irqsoff"), "count"), 3);
	ck_assert_int_eq(ji(jk(tr, "wakeup_rt"), "max_us"), 77);
	ck_assert_int_eq(ji(jk(tr, "wakeup_rt"), "count"), 1);
	ck_assert(!json_object_object_get_ex(jk(tr, "irqsoff"), "armed_s", NULL));
	ck_assert_int_eq(ji(root, "records_total"), 4);
	ck_assert_int_eq(ji(root, "records_kept"), 4);
	ck_assert_int_eq(ji(root, "records_dropped"), 0);
	ck_assert_str_eq(js(root, "mode"), "analyze");
	ck_assert_str_eq(js(root, "verdict"), "pass");
	ck_assert(jnull(root, "run"));
	ck_assert(jnull(root, "irq_stats"));
	/* Records come worst first. */
	ck_assert_int_eq(ji(at(ja(root, "records", 4), 0), "latency_us"), 2002);
	ck_assert_int_eq(ji(at(ja(root, "records", 4), 3), "latency_us"), 77);
	json_object_put(root);
	lh_report_free(rep);
}
END_TEST

START_TEST(offenders_grouped_by_signature)
{
	struct lh_report *rep = lh_report_alloc(rules, NULL);
	struct lh_record *r;
	json_object *root, *offs, *o, *fr;
	char sig[512];
	int i;

	for (i = 0; i < 5; i++) {
		r = mk(LH_TRACER_IRQSOFF, 100 + (uint64_t)i * 10, 0, "a", 1, "lock", "unlock",
		       irq_frames);
		lh_report_add(rep, r, NULL);
		lh_record_free(r);
	}
	for (i = 0; i < 2; i++) {
		r = mk(LH_TRACER_IRQSOFF, 500 + (uint64_t)i, 1, "b", 2, "lock", "unlock",
		       alloc_frames);
		lh_report_add(rep, r, NULL);
		if (!i)
			lh_record_signature(r, sig, sizeof(sig));
		lh_record_free(r);
	}
	/* Same sites and frames under another tracer: another offender. */
	r = mk(LH_TRACER_PREEMPTOFF, 50, 0, "a", 1, "lock", "unlock", irq_frames);
	lh_report_add(rep, r, NULL);
	lh_record_free(r);

	root = render_json(rep);
	offs = ja(root, "offenders", 3);
	o = at(offs, 0);	/* worst first */
	ck_assert_str_eq(js(o, "signature"), sig);
	ck_assert_str_eq(js(o, "tracer"), "irqsoff");
	ck_assert_int_eq(ji(o, "count"), 2);
	ck_assert_int_eq(ji(o, "worst_us"), 501);
	ck_assert_str_eq(js(o, "started_at"), "lock");
	ck_assert_str_eq(js(o, "ended_at"), "unlock");
	fr = ja(o, "frames", 3);
	ck_assert_str_eq(json_object_get_string(at(fr, 0)), "slob_alloc");
	ck_assert_str_eq(json_object_get_string(at(fr, 2)), "kernfs_new_node");
	o = at(offs, 1);
	ck_assert_int_eq(ji(o, "count"), 5);
	ck_assert_int_eq(ji(o, "worst_us"), 140);
	ja(o, "frames", 3);	/* the innermost three of four */
	o = at(offs, 2);
	ck_assert_str_eq(js(o, "tracer"), "preemptoff");
	ck_assert_int_eq(ji(o, "count"), 1);
	ck_assert_int_eq(ji(jk(root, "offenders_other"), "count"), 0);
	json_object_put(root);
	lh_report_free(rep);
}
END_TEST

START_TEST(signature_table_is_capped)
{
	struct lh_report_opts o = { .keep = 1 };
	struct lh_report *rep = lh_report_alloc(NULL, &o);
	struct lh_record *r = mk(LH_TRACER_IRQSOFF, 1, 0, "a", 1, NULL, "end", NULL);
	json_object *root;
	char name[32];
	int i, n = LH_REPORT_SIGNATURES + 25;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "site_%d", i);
		r->started_at = lh_arena_strdup(&r->arena, name);
		r->latency_us = (uint64_t)i + 1;
		lh_report_add(rep, r, NULL);
	}
	/* A known signature still counts in its own group once the table is full. */
	r->started_at = "site_0";
	lh_report_add(rep, r, NULL);
	lh_record_free(r);

	root = render_json(rep);
	ja(root, "offenders", LH_REPORT_SIGNATURES);
	ck_assert_int_eq(ji(jk(root, "offenders_other"), "count"), 25);
	ck_assert_int_eq(ji(jk(root, "offenders_other"), "worst_us"), n);
	ck_assert_int_eq(ji(jk(jk(root, "tracers"), "irqsoff"), "count"), n + 1);
	ck_assert_int_eq(ji(root, "records_total"), n + 1);
	ck_assert_int_eq(ji(root, "records_kept"), 1);
	json_object_put(root);
	lh_report_free(rep);
}
END_TEST

/* 10000 records, keep 100: the rule hits first (most severe first), then the worst. */
START_TEST(keep_is_bounded)
{
	struct lh_report_opts o = { .keep = 100 };
	struct lh_report *rep = lh_report_alloc(rules, &o);
	struct lh_match m = { 0 };
	size_t crit[] = { R_RAID }, warn[] = { R_SLOW }, ign[] = { R_RAID, R_NIC };
	json_object *root, *recs;
	unsigned long ncrit = 0, nwarn = 0, nign = 0;
	int i;

	for (i = 0; i < 10000; i++) {
		/* Latencies in a scrambled order, all distinct: 1..10000. */
		uint64_t lat = (uint64_t)((i * 7919) % 10000) + 1;
		struct lh_record *r = mk(LH_TRACER_IRQSOFF, lat, i % 4, "t", i, "x", "y",
					 irq_frames);

		if (lat <= 30 && lat % 3 == 0) {
			set_match(&m, crit, 1);		/* 10 critical hits, low latency */
			ncrit++;
		} else if (lat <= 30 && lat % 3 == 1) {
			set_match(&m, warn, 1);		/* 10 warnings */
			nwarn++;
		} else if (lat > 9990) {
			set_match(&m, ign, 2);		/* accepted: ranks by latency only */
			nign++;
		} else {
			set_match(&m, NULL, 0);
		}
		lh_report_add(rep, r, &m);
		lh_record_free(r);
	}
	ck_assert_uint_eq(ncrit, 10);
	ck_assert_uint_eq(nwarn, 10);
	ck_assert_uint_eq(nign, 10);
	ck_assert_uint_eq(lh_report_records(rep), 10000);
	ck_assert_uint_eq(lh_report_rule_hits(rep), 20);

	root = render_json(rep);
	recs = ja(root, "records", 100);
	ck_assert_int_eq(ji(root, "records_total"), 10000);
	ck_assert_int_eq(ji(root, "records_kept"), 100);
	ck_assert_int_eq(ji(root, "records_dropped"), 9900);
	ck_assert_int_eq(ji(jk(jk(root, "tracers"), "irqsoff"), "count"), 10000);
	ck_assert_int_eq(ji(jk(jk(root, "tracers"), "irqsoff"), "max_us"), 10000);
	for (i = 0; i < 100; i++) {
		json_object *rec = at(recs, (size_t)i);
		int64_t lat = ji(rec, "latency_us");

		if (i < 10) {
			/* Critical hits first, worst of them first. */
			ck_assert_str_eq(js(rec, "severity"), "critical");
			ck_assert_int_eq(lat % 3, 0);
			ck_assert_int_le(lat, 30);
			if (i)
				ck_assert_int_lt(lat, ji(at(recs, (size_t)i - 1), "latency_us"));
		} else if (i < 20) {
			ck_assert_str_eq(js(rec, "severity"), "warning");
			ck_assert_int_le(lat, 30);
		} else {
			/* Then the 80 worst latencies, accepted ones included. */
			ck_assert_int_eq(lat, 10000 - (i - 20));
			ck_assert(json_object_get_boolean(jk(rec, "accepted")) == (lat > 9990));
		}
	}
	/* Rule aggregates count every hit, kept or not. */
	ck_assert_int_eq(ji(at(ja(root, "rules", 4), R_RAID), "hits"), 20);
	ck_assert_int_eq(ji(at(ja(root, "rules", 4), R_RAID), "accepted"), 10);
	ck_assert_int_eq(ji(at(ja(root, "rules", 4), R_NIC), "hits"), 10);
	json_object_put(root);
	lh_match_release(&m);
	lh_report_free(rep);
}
END_TEST

START_TEST(keep_zero_keeps_none)
{
	struct lh_report_opts o = { .keep = 0 };
	struct lh_report *rep = lh_report_alloc(rules, &o);
	struct lh_record *r = mk(LH_TRACER_IRQSOFF, 5, 0, "a", 1, "x", "y", NULL);
	json_object *root;

	lh_report_add(rep, r, NULL);
	lh_record_free(r);
	root = render_json(rep);
	ja(root, "records", 0);
	ck_assert_int_eq(ji(root, "records_total"), 1);
	ck_assert_int_eq(ji(root, "records_dropped"), 1);
	ck_assert_int_eq(ji(jk(jk(root, "tracers"), "irqsoff"), "max_us"), 5);
	json_object_put(root);
	lh_report_free(rep);
}
END_TEST

/* A record that is kept survives the caller reusing (resetting) its own record. */
START_TEST(kept_records_are_copies)
{
	struct lh_report *rep = lh_report_alloc(rules, NULL);
	struct lh_record *r = mk(LH_TRACER_IRQSOFF, 42, 3, "keepme", 7, "s", "e", irq_frames);
	json_object *root, *rec;

	lh_report_add(rep, r, NULL);
	lh_record_reset(r);
	r->tracer = LH_TRACER_PREEMPTOFF;
	r->latency_us = 1;
	lh_record_add_frame(r, 0, "overwritten_overwritten", 23);
	lh_report_add(rep, r, NULL);
	lh_record_free(r);

	root = render_json(rep);
	rec = at(ja(root, "records", 2), 0);
	ck_assert_str_eq(js(jk(rec, "task"), "comm"), "keepme");
	ck_assert_str_eq(json_object_get_string(at(ja(rec, "stack", 4), 0)), "fake_irq_handler");
	json_object_put(root);
	lh_report_free(rep);
}
END_TEST

START_TEST(per_cpu_views_and_histograms)
{
	struct lh_report *rep = lh_report_alloc(rules, NULL);
	json_object *root, *tr, *cpus, *c, *h;
	uint64_t lat[] = { 150, 2002, 900, 40 };
	char *text, *line;
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(lat); i++) {
		/* CPUs 1, 0, 1, unknown */
		struct lh_record *r = mk(LH_TRACER_IRQSOFF, lat[i], i == 3 ? -1 : (int)(i + 1) % 2,
					 i == 1 ? "worst" : "t", 7, "a", "b", NULL);

		lh_report_add(rep, r, NULL);
		lh_record_free(r);
	}
	root = render_json(rep);
	tr = jk(jk(root, "tracers"), "irqsoff");
	h = jk(tr, "histogram");
	ck_assert_int_eq(ji(h, "count"), 4);
	ck_assert_str_eq(js(h, "unit"), "us");
	ck_assert(json_object_get_double(jk(h, "min")) == 40.0);
	ck_assert(json_object_get_double(jk(h, "max")) == 2002.0);
	ck_assert(json_object_get_double(jk(jk(h, "percentiles"), "p50")) == 160.0);
	ck_assert(json_object_get_double(jk(jk(h, "percentiles"), "p99")) == 2002.0);
	ck_assert(json_object_get_double(jk(jk(h, "resolution"), "p99")) == 2.0);
	ja(h, "buckets", 4);
	ck_assert_str_eq(js(jk(jk(tr, "worst"), "task"), "comm"), "worst");
	/* known CPUs in order, the unknown one last */
	cpus = ja(tr, "cpus", 3);
	c = at(cpus, 0);
	ck_assert_int_eq(ji(c, "cpu"), 0);
	ck_assert_int_eq(ji(c, "count"), 1);
	ck_assert_int_eq(ji(c, "max_us"), 2002);
	c = at(cpus, 1);
	ck_assert_int_eq(ji(c, "cpu"), 1);
	ck_assert_int_eq(ji(c, "count"), 2);
	ck_assert_int_eq(ji(c, "max_us"), 900);
	ck_assert_int_eq(ji(jk(c, "histogram"), "count"), 2);
	ck_assert(jnull(at(cpus, 2), "cpu"));
	json_object_put(root);

	/* text: one row per 1-2-5 step, every row within 80 columns */
	text = render(rep, LH_FORMAT_TEXT);
	ck_assert_msg(strstr(text, "Latency distribution"), "%s", text);
	ck_assert_msg(strstr(text, "irqsoff, every section in the input: 4, min 40us"), "%s", text);
	ck_assert_msg(strstr(text, "    CPU1       900 us         2"), "%s", text);
	line = strstr(text, "Latency distribution");
	for (; line && *line && strncmp(line, "\nTop offenders", 14); line = strchr(line + 1, '\n')) {
		char *end = strchr(line + 1, '\n');

		ck_assert_msg(!end || end - line - 1 <= 80, "longer than 80 columns: %.*s",
			      (int)(end - line), line);
	}
	free(text);
	lh_report_free(rep);
}
END_TEST

START_TEST(html_record_run)
{
	struct lh_report *rep = lh_report_alloc(rules, NULL);
	struct lh_irqstat *st = lh_irqstat_alloc();
	struct lh_run_info run = { 0 };
	struct lh_gate g;
	char *html;
	int i;

	for (i = 0; i < 10; i++)
		lh_irqstat_add(st, 1, 24, "fake<raid>", 2000000 + (uint64_t)i * 1000);
	lh_irqstat_sort(st);
	for (i = 0; i < 3; i++) {
		struct lh_record *r = mk(LH_TRACER_IRQSOFF, 100 * (uint64_t)(i + 1), i % 2,
					 "a&b\x01<i>", 7, "x\"y", "z", irq_frames);

		r->captured_ns = 1796148001000000000ULL + (uint64_t)i * 1000000000ULL;
		lh_report_add(rep, r, NULL);
		lh_record_free(r);
	}
	run.mode = "record";
	run.started_ns = 1796148000000000000ULL;
	run.ended_ns = run.started_ns + 12000000000ULL;
	run.host = "board<42>";
	run.irqstat = st;
	lh_report_set_run(rep, &run);
	lh_gate_init(&g);
	ck_assert_int_eq(lh_gate_parse_max(&g, "irqsoff=250us", NULL), 0);
	lh_report_evaluate(rep, &g);

	html = render(rep, LH_FORMAT_HTML);
	ck_assert_msg(strstr(html, "<title>lathound record report: FAIL (board&lt;42&gt;)</title>"),
		      "%s", html);
	ck_assert(strstr(html, "<svg class=\"chart hist tracer\""));
	ck_assert_uint_eq(count_of(html, "<svg class=\"chart hist cpu\""), 2);
	ck_assert(strstr(html, "<line class=\"budget\""));
	ck_assert(strstr(html, "time into the run (s)"));
	ck_assert(strstr(html, "<svg class=\"chart hist irq\""));
	ck_assert(strstr(html, "IRQ 24 fake&lt;raid&gt;, CPU1"));
	/* trace text: entities, the control byte replaced (U+FFFD) */
	ck_assert_msg(strstr(html, "a&amp;b\xef\xbf\xbd&lt;i&gt;-7"), "%s", html);
	ck_assert(strstr(html, "x&quot;y -&gt; z"));
	ck_assert(!strstr(html, "<i>"));
	ck_assert(!strstr(html, "\x01"));
	free(html);
	lh_report_free(rep);
	lh_irqstat_free(st);
}
END_TEST

START_TEST(progression_of_maxima)
{
	struct lh_report *rep = lh_report_alloc(NULL, NULL);
	struct {
		int cpu;
		uint64_t lat;
	} in[] = { { 0, 100 }, { 0, 50 }, { 1, 10 }, { 0, 200 }, { 0, 200 }, { 1, 20 },
		   { 0, 150 }, { 0, 300 }, { 1, 5 } };
	struct {
		int cpu;
		int64_t lat;
		unsigned long line;
	} want[] = { { 0, 100, 1 }, { 1, 10, 3 }, { 0, 200, 4 }, { 1, 20, 6 }, { 0, 300, 8 } };
	json_object *root, *prog;
	char src[32];
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(in); i++) {
		struct lh_record *r = mk(LH_TRACER_IRQSOFF, in[i].lat, in[i].cpu, "t", 1, "x",
					 "y", NULL);

		r->line = i + 1;
		r->captured_ns = i == 0 ? 1796148001000000000ULL : 0;
		lh_report_add(rep, r, NULL);
		lh_record_free(r);
	}
	root = render_json(rep);
	prog = ja(jk(jk(root, "tracers"), "irqsoff"), "progression", LH_ARRAY_SIZE(want));
	for (i = 0; i < LH_ARRAY_SIZE(want); i++) {
		json_object *s = at(prog, i);

		ck_assert_int_eq(ji(s, "cpu"), want[i].cpu);
		ck_assert_int_eq(ji(s, "latency_us"), want[i].lat);
		snprintf(src, sizeof(src), "t.trace:%lu", want[i].line);
		ck_assert_str_eq(js(s, "source"), src);
		if (i)
			ck_assert(jnull(s, "at"));
	}
	ck_assert_str_eq(js(at(prog, 0), "at"), "2026-12-01T18:00:01Z");
	json_object_put(root);
	lh_report_free(rep);
}
END_TEST

START_TEST(progression_is_capped)
{
	struct lh_report_opts o = { .keep = 1 };
	struct lh_report *rep = lh_report_alloc(NULL, &o);
	struct lh_record *r = mk(LH_TRACER_WAKEUP, 0, 2, "t", 1, NULL, NULL, NULL);
	json_object *root;
	int i;

	for (i = 1; i <= LH_REPORT_STEPS + 50; i++) {
		r->latency_us = (uint64_t)i;
		lh_report_add(rep, r, NULL);
	}
	lh_record_free(r);
	root = render_json(rep);
	ja(jk(jk(root, "tracers"), "wakeup"), "progression", LH_REPORT_STEPS);
	ck_assert_int_eq(ji(jk(jk(root, "tracers"), "wakeup"), "max_us"), LH_REPORT_STEPS + 50);
	json_object_put(root);
	lh_report_free(rep);
}
END_TEST

/* Every field of a rich record, written and read back. */
START_TEST(json_record_fields)
{
	struct lh_report *rep = lh_report_alloc(rules, NULL);
	struct lh_record *r = mk(LH_TRACER_IRQSOFF, 2002, 0, "irq_test", 82,
				 "execute_preemptirqtest", "execute_preemptirqtest", irq_frames);
	struct lh_match m = { 0 };
	size_t hits[] = { R_RAID, R_NOTE };
	json_object *root, *rec, *a, *e;
	struct lh_func *f;
	struct lh_irq *q;

	r->nr_cpus = 1;
	r->preempt_model = "preempt";
	r->kernel = "6.1.192";
	r->task.uid = 0;
	r->task.policy = 0;
	r->task.rt_prio = 0;
	r->task.nice = 0;
	lh_record_add_frame(r, 1, "second_stack", 12);
	f = lh_record_add_func(r, "slob_next", 9);
	f->count = 1440;
	f = lh_record_add_func(r, "tracer_hardirqs_on", 18);
	f->count = 1;
	q = lh_record_add_irq(r);
	q->irq = 24;
	q->name = "fakeraid";
	q->start_us = 3;
	q->duration_us = 1990.0;
	q->ret = "handled";
	q = lh_record_add_irq(r);
	q->irq = 11;
	q->name = "virtio0";
	r->captured_ns = 1796148001500000000ULL;
	r->line = 14;
	set_match(&m, hits, 2);
	lh_report_add(rep, r, &m);
	lh_record_free(r);

	root = render_json(rep);
	ck_assert_str_eq(js(root, "lathound"), LH_VERSION);
	rec = at(ja(root, "records", 1), 0);
	ck_assert_str_eq(js(rec, "tracer"), "irqsoff");
	ck_assert_int_eq(ji(rec, "latency_us"), 2002);
	ck_assert_int_eq(ji(rec, "cpu"), 0);
	ck_assert_int_eq(ji(rec, "nr_cpus"), 1);
	ck_assert_str_eq(js(rec, "preempt_model"), "preempt");
	ck_assert_str_eq(js(rec, "kernel"), "6.1.192");
	e = jk(rec, "task");
	ck_assert_str_eq(js(e, "comm"), "irq_test");
	ck_assert_int_eq(ji(e, "pid"), 82);
	ck_assert_int_eq(ji(e, "uid"), 0);
	ck_assert_int_eq(ji(e, "policy"), 0);
	ck_assert_int_eq(ji(e, "rt_prio"), 0);
	ck_assert_str_eq(js(rec, "started_at"), "execute_preemptirqtest");
	ck_assert_str_eq(js(rec, "ended_at"), "execute_preemptirqtest");
	a = ja(rec, "stack", 4);
	ck_assert_str_eq(json_object_get_string(at(a, 0)), "fake_irq_handler");
	ck_assert_str_eq(json_object_get_string(at(a, 3)), "common_interrupt");
	a = ja(rec, "stacks", 2);
	ck_assert_uint_eq(json_object_array_length(at(a, 0)), 4);
	ck_assert_str_eq(json_object_get_string(at(at(a, 1), 0)), "second_stack");
	a = ja(rec, "functions", 2);
	ck_assert_str_eq(json_object_get_string(at(a, 0)), "slob_next");
	a = ja(rec, "function_counts", 2);
	ck_assert_str_eq(js(at(a, 0), "name"), "slob_next");
	ck_assert_int_eq(ji(at(a, 0), "count"), 1440);
	a = ja(rec, "irqs", 2);
	ck_assert_int_eq(ji(at(a, 0), "irq"), 24);
	ck_assert_str_eq(js(at(a, 0), "name"), "fakeraid");
	ck_assert(json_object_is_type(jk(at(a, 0), "duration_us"), json_type_double));
	ck_assert(json_object_get_double(jk(at(a, 0), "duration_us")) == 1990.0);
	ck_assert_str_eq(js(at(a, 0), "ret"), "handled");
	ck_assert(jnull(at(a, 1), "duration_us"));
	ck_assert(jnull(at(a, 1), "ret"));
	ck_assert(jnull(rec, "woken"));
	ck_assert(jnull(rec, "waker"));
	a = ja(rec, "rules", 2);
	ck_assert_str_eq(json_object_get_string(at(a, 0)), "raid-irq-held");
	ck_assert_str_eq(json_object_get_string(at(a, 1)), "note");
	ck_assert_str_eq(js(rec, "severity"), "critical");
	ck_assert(!json_object_get_boolean(jk(rec, "accepted")));
	ck_assert_str_eq(js(rec, "signature"),
			 "irqsoff|execute_preemptirqtest|execute_preemptirqtest|"
			 "fake_irq_handler<__handle_irq_event_percpu<handle_irq_event");
	ck_assert_str_eq(js(rec, "source"), "t.trace:14");
	ck_assert_str_eq(js(rec, "captured_at"), "2026-12-01T18:00:01Z");

	/* The rules array lists every loaded rule, hits 0 included. */
	a = ja(root, "rules", 4);
	ck_assert_str_eq(js(at(a, R_RAID), "id"), "raid-irq-held");
	ck_assert_str_eq(js(at(a, R_RAID), "severity"), "critical");
	ck_assert_int_eq(ji(at(a, R_RAID), "hits"), 1);
	ck_assert_int_eq(ji(at(a, R_RAID), "worst_us"), 2002);
	ck_assert_int_eq(ji(at(a, R_RAID), "accepted"), 0);
	ck_assert_str_eq(js(at(a, R_RAID), "message"), "fakeraid handler runs with IRQs off");
	ck_assert_int_eq(ji(at(a, R_SLOW), "hits"), 0);
	ck_assert_str_eq(js(at(a, R_NIC), "severity"), "ignore");
	ck_assert(jnull(at(a, R_NOTE), "message"));
	lh_match_release(&m);
	json_object_put(root);
	lh_report_free(rep);
}
END_TEST

/*
 * The JSON report is streamed, not built as a json-c tree: it must be byte for byte what
 * json-c prints for the same document (json-c is the oracle: parse it, print it again), with
 * every byte value at every place of a string, strings past the writer's fast path and
 * buffer, and a record with thousands of functions.
 */
START_TEST(json_streamed_as_json_c_prints)
{
	enum { NR_FUNCS = 3000, LONG = 70000 };
	struct lh_report *rep = lh_report_alloc(rules, NULL);
	struct lh_record *r = mk(LH_TRACER_IRQSOFF, 2002, 1, "odd\x01comm\"", 82, "a\\b",
				 NULL, irq_frames);
	char **names = calloc(NR_FUNCS + 3, sizeof(*names)), *big = malloc(LONG + 1);
	struct lh_match m = { 0 };
	json_object *root, *a, *rec;
	struct lh_func *f;
	struct lh_irq *q;
	const char *again;
	char name[64], *text;
	size_t i, n;

	ck_assert(names && big);
	/* the record's strings are the test's: lh_report_add() copies what it keeps */
	for (i = 0; i < NR_FUNCS; i++) {
		/* byte 1..255 at each place of names 0..39 long, between plain letters */
		size_t len = i % 40, at = len ? (i / 40) % len : 0;

		memset(name, 'a' + (int)(i % 26), len);
		name[len] = '\0';
		if (len)
			name[at] = (char)(1 + i % 255);
		names[i] = strdup(name);
		f = lh_record_add_func(r, names[i], strlen(names[i]));
		f->count = (unsigned int)(i * 1000003);
	}
	memset(big, 'x', LONG);
	big[LONG] = '\0';
	names[NR_FUNCS] = strdup(big);	/* past the buffer */
	big[4999] = '"';
	big[5000] = '\0';
	names[NR_FUNCS + 1] = strdup(big);	/* past the fast path */
	big[4999] = 'x';
	names[NR_FUNCS + 2] = strdup(big);
	for (i = NR_FUNCS; i < NR_FUNCS + 3; i++) {
		f = lh_record_add_func(r, names[i], strlen(names[i]));
		f->count = 1;
	}
	lh_record_add_frame(r, 1, "tab\there", 8);
	q = lh_record_add_irq(r);
	q->irq = 24;
	q->name = "irq\x7f\xff\n";
	q->duration_us = 0.5;
	lh_report_add(rep, r, &m);
	lh_record_free(r);

	text = render(rep, LH_FORMAT_JSON);
	root = json_tokener_parse(text);
	ck_assert_msg(root != NULL, "report is not JSON");
	again = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					       JSON_C_TO_STRING_SPACED |
					       JSON_C_TO_STRING_NOSLASHESCAPE);
	n = strlen(again);
	ck_assert_uint_eq(strlen(text), n + 1);
	ck_assert_msg(!strncmp(text, again, n) && text[n] == '\n',
		      "the report is not what json-c prints of it");

	rec = at(ja(root, "records", 1), 0);
	ck_assert_str_eq(js(jk(rec, "task"), "comm"), "odd\x01comm\"");
	ck_assert_str_eq(js(rec, "started_at"), "a\\b");
	ck_assert_str_eq(json_object_get_string(at(at(ja(rec, "stacks", 2), 1), 0)), "tab\there");
	ck_assert_str_eq(js(at(ja(rec, "irqs", 1), 0), "name"), "irq\x7f\xff\n");
	ja(rec, "functions", NR_FUNCS + 3);
	a = ja(rec, "function_counts", NR_FUNCS + 3);
	for (i = 0; i < NR_FUNCS + 3; i++) {
		ck_assert_str_eq(js(at(a, i), "name"), names[i]);
		ck_assert_int_eq(ji(at(a, i), "count"),
				 i < NR_FUNCS ? (unsigned int)(i * 1000003) : 1);
	}
	for (i = 0; i < NR_FUNCS + 3; i++)
		free(names[i]);
	free(text);
	free(big);
	free(names);
	json_object_put(root);
	lh_report_free(rep);
}
END_TEST

/*
 * Given two threads, the report's kept records are written by both (the second one takes the
 * first record, then whichever thread is free takes the next; the second one's texts are
 * put in at their places): the bytes must be the one thread's, for every number of records
 * (one text, two texts reused), records of thousands of functions (texts past the writer's
 * buffer) and names json-c escapes.
 */
START_TEST(json_two_threads_same_bytes)
{
	const struct lh_report_opts one = { .keep = LH_REPORT_KEEP, .jobs = 1 },
				    two = { .keep = LH_REPORT_KEEP, .jobs = 2 };
	struct lh_report *rep[2];
	struct lh_record *r;
	struct lh_func *f;
	char name[64], *text[2];
	size_t n, i, j;

	for (n = 0; n <= 8; n++) {
		rep[0] = lh_report_alloc(rules, &one);
		rep[1] = lh_report_alloc(rules, &two);
		for (i = 0; i < n; i++) {
			r = mk(LH_TRACER_IRQSOFF, 100 + i, (int)i % 2, "t\"q", (int)i, "a", "b",
			       irq_frames);
			for (j = 0; j < (i % 3 == 1 ? 5000 : 3 + i); j++) {
				snprintf(name, sizeof(name), j % 7 ? "fn_%zu_%zu" : "fn\t%zu\\%zu",
					 i, j);
				f = lh_record_add_func(r, lh_arena_strdup(&r->arena, name),
						       strlen(name));
				f->count = (unsigned int)(j * 7919);
			}
			lh_report_add(rep[0], r, NULL);
			lh_report_add(rep[1], r, NULL);
			lh_record_free(r);
		}
		text[0] = render(rep[0], LH_FORMAT_JSON);
		text[1] = render(rep[1], LH_FORMAT_JSON);
		ck_assert_msg(!strcmp(text[0], text[1]),
			      "%zu records: two threads wrote other bytes than one", n);
		ck_assert_uint_eq(count_of(text[1], "\"function_counts\""), n);
		free(text[0]);
		free(text[1]);
		lh_report_free(rep[0]);
		lh_report_free(rep[1]);
	}
}
END_TEST

START_TEST(json_wakeup_and_unknowns)
{
	struct lh_report *rep = lh_report_alloc(NULL, NULL);
	struct lh_record *r = lh_record_alloc();
	json_object *root, *rec, *w;

	r->tracer = LH_TRACER_WAKEUP_RT;
	r->latency_us = 88;
	r->has_wakeup = true;
	r->woken.comm = "cyclictest";
	r->woken.pid = 64;
	r->woken.prio = 49;
	r->woken.state = 'R';
	r->waker.comm = "kworker/0:1";
	r->waker.pid = 65;
	r->waker.prio = 120;
	r->waker.state = 'R';
	lh_report_add(rep, r, NULL);
	lh_record_free(r);

	root = render_json(rep);
	rec = at(ja(root, "records", 1), 0);
	ck_assert_str_eq(js(rec, "tracer"), "wakeup_rt");
	ck_assert(jnull(rec, "cpu"));
	ck_assert(jnull(rec, "started_at"));
	ck_assert(jnull(rec, "kernel"));
	ck_assert(jnull(rec, "source"));
	ck_assert(jnull(rec, "captured_at"));
	ck_assert(jnull(rec, "severity"));
	ck_assert(jnull(jk(rec, "task"), "comm"));
	ck_assert(jnull(jk(rec, "task"), "pid"));
	ja(rec, "stack", 0);
	ja(rec, "rules", 0);
	w = jk(rec, "woken");
	ck_assert_str_eq(js(w, "comm"), "cyclictest");
	ck_assert_int_eq(ji(w, "pid"), 64);
	ck_assert_int_eq(ji(w, "prio"), 49);
	ck_assert_str_eq(js(w, "state"), "R");
	ck_assert_str_eq(js(jk(rec, "waker"), "comm"), "kworker/0:1");
	ja(root, "rules", 0);
	json_object_put(root);
	lh_report_free(rep);
}
END_TEST

START_TEST(json_input_and_warnings)
{
	struct lh_report *rep = lh_report_alloc(NULL, NULL);
	struct lh_parse_stats st = { .lines = 100, .snapshots = 4, .skipped = 2, .bad_lines = 3 };
	struct lh_parse_stats st2 = { .lines = 10, .snapshots = 1, .skipped = 1, .bad_lines = 1 };
	struct lh_diag d = { 0 }, d2 = { 0 };
	json_object *root, *in;
	int i;

	/* Counters add up (a live run passes what they grew by at each checkpoint). */
	lh_report_add_parse_stats(rep, &st);
	st.snapshots = 1;
	st.lines = st.skipped = st.bad_lines = 0;
	lh_report_add_parse_stats(rep, &st);
	lh_report_add_parse_stats(rep, &st2);
	/* Diags add up too: a run releases its notes after handing them over. */
	for (i = 0; i < 10; i++)
		lh_diag_add(&d, LH_DIAG_WARNING, "f.trace:%d: odd line", i + 1);
	lh_report_add_diag(rep, &d);
	lh_diag_release(&d);
	for (; i < LH_REPORT_WARNINGS + 19; i++)
		lh_diag_add(&d, LH_DIAG_WARNING, "f.trace:%d: odd line", i + 1);
	lh_report_add_diag(rep, &d);
	lh_diag_add(&d2, LH_DIAG_ERROR, "rule x: match limit");
	lh_report_add_diag(rep, &d2);
	lh_diag_release(&d);
	lh_diag_release(&d2);

	root = render_json(rep);
	in = jk(root, "input");
	ck_assert_int_eq(ji(in, "snapshots"), 6);
	ck_assert_int_eq(ji(in, "skipped"), 3);
	ck_assert_int_eq(ji(in, "bad_lines"), 4);
	ck_assert_int_eq(ji(in, "warnings_total"), LH_REPORT_WARNINGS + 20);
	ck_assert_str_eq(json_object_get_string(at(ja(in, "warnings", LH_REPORT_WARNINGS), 0)),
			 "f.trace:1: odd line");
	ck_assert_str_eq(json_object_get_string(at(jk(in, "warnings"), 10)), "f.trace:11: odd line");
	ck_assert_str_eq(json_object_get_string(at(jk(in, "warnings"), LH_REPORT_WARNINGS - 1)),
			 "f.trace:100: odd line");
	json_object_put(root);
	lh_report_free(rep);
}
END_TEST

/* Record mode: run info, armed time per tracer, irq statistics. */
START_TEST(json_run_and_irq_stats)
{
	struct lh_report *rep = lh_report_alloc(NULL, NULL);
	struct lh_irqstat *st = lh_irqstat_alloc();
	struct lh_run_info run = { 0 };
	json_object *root, *o, *h;
	char *text;
	int i;

	for (i = 0; i < 10; i++)
		lh_irqstat_add(st, 0, 24, "fakeraid", 2000000);
	lh_irqstat_add_lost(st, 3);
	run.mode = "record";
	run.started_ns = 1796148000000000000ULL;
	run.ended_ns = run.started_ns + 12000000000ULL;
	run.armed_ns[LH_TRACER_IRQSOFF] = 12000000000ULL;
	run.threshold_ns = 100000;
	run.captures = 7;
	run.sections_lost = 1;
	run.snapshots_dropped = 2;
	run.wait_method = "inotify";
	run.command = "cyclictest -D 12";
	run.command_status = 0;
	run.end_reason = "command";
	run.kernel = "6.1.192";
	run.irqstat = st;
	lh_report_set_run(rep, &run);

	root = render_json(rep);
	ck_assert_str_eq(js(root, "mode"), "record");
	o = jk(jk(root, "tracers"), "irqsoff");
	ck_assert_int_eq(ji(o, "count"), 0);
	ck_assert(json_object_get_double(jk(o, "armed_s")) == 12.0);
	o = jk(root, "run");
	ck_assert_str_eq(js(o, "started_at"), "2026-12-01T18:00:00Z");
	ck_assert_str_eq(js(o, "ended_at"), "2026-12-01T18:00:12Z");
	ck_assert(json_object_get_double(jk(o, "duration_s")) == 12.0);
	ck_assert_int_eq(ji(o, "threshold_us"), 100);
	ck_assert_int_eq(ji(o, "captures"), 7);
	ck_assert_int_eq(ji(o, "sections_lost"), 1);
	ck_assert_int_eq(ji(o, "snapshots_dropped"), 2);
	ck_assert_str_eq(js(o, "wait_method"), "inotify");
	ck_assert_str_eq(js(o, "command"), "cyclictest -D 12");
	ck_assert_int_eq(ji(o, "command_status"), 0);
	ck_assert_str_eq(js(o, "end_reason"), "command");
	ck_assert_str_eq(js(o, "kernel"), "6.1.192");
	o = jk(root, "irq_stats");
	ck_assert_int_eq(ji(o, "events"), 10);
	ck_assert_int_eq(ji(o, "lost"), 3);
	ck_assert_int_eq(ji(o, "dropped"), 0);
	h = at(ja(o, "handlers", 1), 0);
	ck_assert_int_eq(ji(h, "irq"), 24);
	ck_assert_str_eq(js(h, "name"), "fakeraid");
	ck_assert_int_eq(ji(h, "cpu"), 0);
	ck_assert_int_eq(ji(h, "count"), 10);
	ck_assert(json_object_get_double(jk(h, "max_us")) == 2000.0);
	ck_assert(json_object_get_double(jk(h, "mean_us")) == 2000.0);
	ck_assert(json_object_get_double(jk(h, "p99_us")) >= 2000.0);
	o = at(ja(h, "histogram", 1), 0);
	ck_assert_int_eq(ji(o, "count"), 10);
	ck_assert(json_object_get_double(jk(o, "le_us")) >= 2000.0);
	json_object_put(root);

	text = render(rep, LH_FORMAT_TEXT);
	ck_assert_msg(strstr(text, "lathound " LH_VERSION " record report"), "%s", text);
	ck_assert_msg(strstr(text, "Run: 2026-12-01T18:00:00Z to 2026-12-01T18:00:12Z (12.0 s), ended by command"), "%s", text);
	ck_assert_msg(strstr(text, "threshold 100us, 7 captures (inotify), 1 section lost, 2 snapshots dropped"), "%s", text);
	ck_assert_msg(strstr(text, "armed: irqsoff 12.0 s"), "%s", text);
	ck_assert_msg(strstr(text, "command: cyclictest -D 12 (exit status 0)"), "%s", text);
	ck_assert_msg(strstr(text, "IRQ handlers: 10 runs accounted, 3 events lost, 0 dropped"), "%s", text);
	ck_assert_msg(strstr(text, "   IRQ  NAME      CPU      COUNT        MAX       MEAN        P99      RES\n"
				   "    24  fakeraid    0         10   2000.000   2000.000   2000.000    0.000\n"),
		      "%s", text);
	free(text);
	lh_report_free(rep);
	lh_irqstat_free(st);
}
END_TEST

/* 'record --irq-only': run info without a tracer armed says so, not "0 captures (?)". */
START_TEST(text_run_irq_only)
{
	struct lh_report *rep = lh_report_alloc(NULL, NULL);
	struct lh_irqstat *st = lh_irqstat_alloc();
	struct lh_run_info run = { 0 };
	json_object *root;
	char *text;

	lh_irqstat_add(st, 1, 30, "virtio0", 5000);
	run.mode = "record";
	run.started_ns = 1796148000000000000ULL;
	run.ended_ns = run.started_ns + 4000000000ULL;
	run.command_status = -1;
	run.end_reason = "duration";
	run.irqstat = st;
	lh_report_set_run(rep, &run);

	text = render(rep, LH_FORMAT_TEXT);
	ck_assert_msg(strstr(text, "ended by duration\n  no latency tracer armed (IRQ statistics only)\n"),
		      "%s", text);
	ck_assert_msg(!strstr(text, "capture"), "%s", text);
	ck_assert_msg(!strstr(text, "armed:"), "%s", text);
	ck_assert_msg(strstr(text, "IRQ handlers: 1 run accounted"), "%s", text);
	free(text);
	root = render_json(rep);
	ck_assert(jnull(jk(root, "run"), "wait_method"));
	ck_assert_int_eq(ji(jk(root, "run"), "captures"), 0);
	json_object_put(root);

	/* A tracer armed with no wait method known still lists what was armed. */
	run.armed_ns[LH_TRACER_WAKEUP_RT] = 4000000000ULL;
	lh_report_set_run(rep, &run);
	text = render(rep, LH_FORMAT_TEXT);
	ck_assert_msg(strstr(text, "0 captures (?)"), "%s", text);
	ck_assert_msg(strstr(text, "armed: wakeup_rt 4.0 s"), "%s", text);
	ck_assert_msg(!strstr(text, "no latency tracer armed"), "%s", text);
	free(text);
	lh_report_free(rep);
	lh_irqstat_free(st);
}
END_TEST

/* lh_report_feed() matches with the report's rules, as analyze and record use it. */
START_TEST(feed_matches_rules)
{
	struct lh_diag d = { 0 };
	struct lh_report_opts o = { .keep = 10, .diag = &d };
	struct lh_report *rep = lh_report_alloc(rules, &o);
	struct lh_record *r = mk(LH_TRACER_IRQSOFF, 2002, 0, "irq_test", 82, "a", "b", NULL);
	struct lh_irq *q = lh_record_add_irq(r);
	json_object *root, *rec;

	q->irq = 24;
	q->name = lh_arena_strdup(&r->arena, "fakeraid");
	q->duration_us = 1990;
	ck_assert_int_eq(lh_report_feed(r, rep), 0);
	lh_record_free(r);
	r = mk(LH_TRACER_IRQSOFF, 10, 0, "x", 1, "a", "b", nic_frames);
	ck_assert_int_eq(lh_report_feed(r, rep), 0);
	lh_record_free(r);

	ck_assert_uint_eq(lh_report_rule_hits(rep), 1);
	root = render_json(rep);
	rec = at(ja(root, "records", 2), 0);
	ck_assert_str_eq(json_object_get_string(at(ja(rec, "rules", 1), 0)), "raid-irq-held");
	rec = at(ja(root, "records", 2), 1);
	ck_assert_str_eq(json_object_get_string(at(ja(rec, "rules", 1), 0)), "known-nic");
	ck_assert(json_object_get_boolean(jk(rec, "accepted")));
	ck_assert(jnull(rec, "severity"));
	ck_assert_str_eq(js(root, "verdict"), "fail");
	json_object_put(root);
	lh_report_free(rep);
	lh_diag_release(&d);
}
END_TEST

/*
 * A small XML well-formedness check: tags nest and close, attributes are quoted, and
 * every '&' starts one of the five entities. Return: the number of <name ...> elements.
 */
static int xml_count(const char *x, const char *name)
{
	const char *stack[16], *p = x;
	size_t depth = 0, nlen = strlen(name);
	int count = 0;

	ck_assert_msg(!strncmp(p, "<?xml ", 6), "no XML declaration");
	p = strstr(p, "?>") + 2;
	while (*p) {
		if (*p == '&') {
			ck_assert_msg(!strncmp(p, "&amp;", 5) || !strncmp(p, "&lt;", 4) ||
				      !strncmp(p, "&gt;", 4) || !strncmp(p, "&quot;", 6) ||
				      !strncmp(p, "&#39;", 5), "bad entity at '%.20s'", p);
			p++;
			continue;
		}
		ck_assert_msg(*p != '>', "stray '>' at '%.20s'", p);
		if (*p != '<') {
			p++;
			continue;
		}
		if (p[1] == '/') {
			size_t n = strcspn(p + 2, ">");

			ck_assert_msg(depth > 0, "close without open at '%.20s'", p);
			depth--;
			ck_assert_msg(!strncmp(stack[depth], p + 2, n) &&
				      (stack[depth][n] == ' ' || stack[depth][n] == '>' ||
				       stack[depth][n] == '/'), "mismatched close at '%.20s'", p);
			p += n + 3;
			continue;
		}
		if (!strncmp(p + 1, name, nlen) && (p[1 + nlen] == ' ' || p[1 + nlen] == '>'))
			count++;
		{
			const char *q = p + 1;
			bool in_quote = false;

			for (; *q && (in_quote || *q != '>'); q++) {
				if (*q == '"')
					in_quote = !in_quote;
				ck_assert_msg(in_quote || *q != '<', "'<' inside tag at '%.20s'", p);
				ck_assert_msg(!in_quote || *q != '<', "raw '<' in attribute");
			}
			ck_assert_msg(*q == '>', "unterminated tag");
			if (q[-1] != '/') {
				ck_assert(depth < LH_ARRAY_SIZE(stack));
				stack[depth++] = p + 1;
			}
			p = q + 1;
		}
	}
	ck_assert_msg(depth == 0, "unclosed elements");
	return count;
}

START_TEST(junit_well_formed_and_escaped)
{
	struct lh_report *rep = lh_report_alloc(rules, NULL);
	struct lh_record *r = mk(LH_TRACER_IRQSOFF, 2002, 0, "a<b>&\"c'", 82, "s", "e", NULL);
	struct lh_match m = { 0 };
	size_t crit[] = { R_RAID }, info[] = { R_NOTE };
	struct lh_gate g;
	const char *err;
	char *x;

	lh_report_add(rep, r, NULL);
	lh_record_free(r);
	r = mk(LH_TRACER_PREEMPTOFF, 300, 1, "p", 2, "s", "e", NULL);
	set_match(&m, crit, 1);
	lh_report_add(rep, r, &m);
	set_match(&m, info, 1);
	lh_report_add(rep, r, &m);
	lh_record_free(r);
	lh_match_release(&m);
	/* (a budget on a tracer never measured is an error: wakeup was) */
	r = mk(LH_TRACER_WAKEUP, 50, 2, "w", 3, "s", "e", NULL);
	lh_report_add(rep, r, NULL);
	lh_record_free(r);

	lh_gate_init(&g);
	ck_assert_int_eq(lh_gate_parse_max(&g, "irqsoff=1ms", &err), 0);
	ck_assert_int_eq(lh_gate_parse_max(&g, "all=10ms", &err), 0);
	ck_assert_int_eq(lh_gate_parse_max(&g, "wakeup=1ms", &err), 0);
	ck_assert(!lh_report_evaluate(rep, &g));
	x = render(rep, LH_FORMAT_JUNIT);
	/*
	 * irqsoff and wakeup budgets, all= for preemptoff (read, without its own) + 4 rules;
	 * irqsoff and raid-irq-held fail. Budget testcases are named by their tracer alone.
	 */
	ck_assert_int_eq(xml_count(x, "testcase"), 7);
	ck_assert_int_eq(xml_count(x, "failure"), 2);
	ck_assert_ptr_nonnull(strstr(x, "tests=\"7\" failures=\"2\""));
	ck_assert_ptr_nonnull(strstr(x, "classname=\"lathound.max\" name=\"irqsoff\""));
	ck_assert_ptr_nonnull(strstr(x, "<system-out>budget --max irqsoff=1ms; irqsoff: "));
	ck_assert_ptr_nonnull(strstr(x, "classname=\"lathound.max\" name=\"wakeup\""));
	ck_assert_ptr_nonnull(strstr(x, "classname=\"lathound.max\" name=\"preemptoff\""));
	ck_assert_ptr_nonnull(strstr(x, "<system-out>budget --max all=10ms; preemptoff: "));
	ck_assert_ptr_nonnull(strstr(x, "classname=\"lathound.rules\" name=\"raid-irq-held\""));
	ck_assert_ptr_nonnull(strstr(x, "(a&lt;b&gt;&amp;&quot;c&#39;-82 on CPU0)"));
	ck_assert_ptr_null(strstr(x, "a<b>"));
	ck_assert_ptr_nonnull(strstr(x, "<failure message=\"rule raid-irq-held (critical) hit by 1 record, worst 300us\""));
	/* The info rule passes under --fail-on critical, but says its hit. */
	ck_assert_ptr_nonnull(strstr(x, "1 hit (0 accepted), worst 300us; severity info, --fail-on critical: below --fail-on"));
	free(x);
	lh_report_free(rep);
}
END_TEST

/* Inputs not read in full: an error unless accepted, listed in every format either way. */
START_TEST(inputs_not_read_are_errors)
{
	struct lh_report_input good = { .name = "good.trace", .snapshots = 1 };
	struct lh_report_input bad = {
		.name = "bad.trace", .skipped = 1,
		.problem = "no latency snapshot read from trace 'bad.trace': 1 skipped",
	};
	struct lh_record *r = mk(LH_TRACER_IRQSOFF, 200, 0, "t", 1, "s", "e", NULL);
	struct lh_report *rep;
	json_object *root, *f;
	struct lh_gate g;
	char *x;
	int accept;

	lh_gate_init(&g);
	for (accept = 0; accept < 2; accept++) {
		rep = lh_report_alloc(NULL, NULL);
		lh_report_add(rep, r, NULL);
		bad.accepted = accept;
		lh_report_add_input(rep, &good);
		lh_report_add_input(rep, &bad);
		ck_assert(lh_report_evaluate(rep, &g) == (bool)accept);
		if (accept)
			ck_assert_ptr_null(lh_report_error(rep));
		else
			ck_assert_str_eq(lh_report_error(rep),
					 "1 of 2 inputs could not be read in full; first: no latency snapshot read from trace 'bad.trace': 1 skipped");

		root = render_json(rep);
		ck_assert_str_eq(js(root, "verdict"), accept ? "pass" : "error");
		f = at(ja(jk(root, "input"), "files", 2), 1);
		ck_assert_str_eq(js(f, "name"), "bad.trace");
		ck_assert_str_eq(js(f, "problem"), bad.problem);
		ck_assert(json_object_get_boolean(jk(f, "accepted")) == (bool)accept);
		ck_assert(jnull(at(jk(jk(root, "input"), "files"), 0), "problem"));
		ck_assert_int_eq(ji(jk(root, "input"), "unread"), !accept);
		ck_assert_int_eq(ji(jk(root, "input"), "unread_accepted"), accept);
		json_object_put(root);

		x = render(rep, LH_FORMAT_TEXT);
		ck_assert_ptr_nonnull(strstr(x, accept ?
			"NOT READ (accepted: --allow-unreadable): no latency snapshot read from trace 'bad.trace'" :
			"NOT READ: no latency snapshot read from trace 'bad.trace'"));
		ck_assert_ptr_nonnull(strstr(x, accept ? "Verdict: PASS" : "Verdict: ERROR: 1 of 2"));
		free(x);

		x = render(rep, LH_FORMAT_JUNIT);
		ck_assert_ptr_nonnull(strstr(x, "<testcase classname=\"lathound.input\" name=\"bad.trace\" "));
		ck_assert_ptr_null(strstr(x, "name=\"good.trace\""));
		if (accept) {
			ck_assert_ptr_nonnull(strstr(x, "errors=\"0\" skipped=\"1\""));
			ck_assert_int_eq(xml_count(x, "skipped"), 1);
		} else {
			ck_assert_ptr_nonnull(strstr(x, "errors=\"1\" skipped=\"0\""));
			ck_assert_ptr_nonnull(strstr(x, "<error message=\"no latency snapshot read from trace &#39;bad.trace&#39;: 1 skipped\""));
		}
		free(x);
		lh_report_free(rep);
	}
	lh_record_free(r);
}
END_TEST

START_TEST(junit_no_gates_no_rules)
{
	struct lh_report *rep = lh_report_alloc(NULL, NULL);
	char *x = render(rep, LH_FORMAT_JUNIT);

	ck_assert_int_eq(xml_count(x, "testcase"), 0);
	ck_assert_ptr_nonnull(strstr(x, "tests=\"0\" failures=\"0\""));
	free(x);
	lh_report_free(rep);
}
END_TEST

START_TEST(text_has_key_lines)
{
	struct lh_report *rep = lh_report_alloc(rules, NULL);
	struct lh_record *r = mk(LH_TRACER_IRQSOFF, 2002, 0, "irq_test", 82,
				 "execute_preemptirqtest", "execute_preemptirqtest", irq_frames);
	struct lh_match m = { 0 };
	size_t crit[] = { R_RAID }, ign[] = { R_NIC };
	struct lh_parse_stats st = { .snapshots = 3, .skipped = 1, .bad_lines = 2 };
	struct lh_diag d = { 0 };
	struct lh_irq *q = lh_record_add_irq(r);
	struct lh_func *f = lh_record_add_func(r, "slob_next", 9);
	struct lh_gate g;
	const char *err;
	char *t;

	q->irq = 24;
	q->name = "fakeraid";
	q->duration_us = 1990.5;
	q->ret = "handled";
	f->count = 1440;
	set_match(&m, crit, 1);
	lh_report_add(rep, r, &m);
	lh_record_free(r);
	r = mk(LH_TRACER_IRQSOFF, 5000, 1, "nic", 3, "a", "b", nic_frames);
	set_match(&m, ign, 1);
	lh_report_add(rep, r, &m);
	lh_record_free(r);
	lh_match_release(&m);
	lh_diag_add(&d, LH_DIAG_WARNING, "x.trace:14: truncated snapshot");
	lh_report_add_parse_stats(rep, &st);
	lh_report_add_diag(rep, &d);
	lh_diag_release(&d);
	lh_gate_init(&g);
	ck_assert_int_eq(lh_gate_parse_max(&g, "irqsoff=1ms", &err), 0);
	ck_assert(!lh_report_evaluate(rep, &g));

	t = render(rep, LH_FORMAT_TEXT);
	ck_assert_msg(strstr(t, "Worst latency per tracer"), "%s", t);
	/* The worst is the accepted 5000us section; the table says so. */
	ck_assert_msg(strstr(t, "irqsoff     5000 us         2     1  nic-3"), "%s", t);
	ck_assert_msg(strstr(t, "1 section accepted by 'ignore' rules"), "%s", t);
	ck_assert_msg(strstr(t, "2002 us               0  irq_test-82           worst not accepted"),
		      "%s", t);
	ck_assert_msg(strstr(t, "fake_irq_handler < __handle_irq_event_percpu < handle_irq_event"),
		      "%s", t);
	ck_assert_msg(strstr(t, "Rules (4 loaded, 2 fired)"), "%s", t);
	ck_assert_msg(strstr(t, "raid-irq-held  critical        1         0     2002 us  fakeraid handler runs with IRQs off"), "%s", t);
	/* The detail shows the worst non-accepted section. */
	ck_assert_msg(strstr(t, "Worst section: irqsoff, 2002 us on CPU0"), "%s", t);
	ck_assert_msg(strstr(t, "rules:       raid-irq-held (critical)"), "%s", t);
	ck_assert_msg(strstr(t, "      24  fakeraid               1990.500 us  handled"), "%s", t);
	ck_assert_msg(strstr(t, "       1440  slob_next"), "%s", t);
	ck_assert_msg(strstr(t, "Input: 3 snapshots parsed, 1 skipped as malformed, 2 bad lines, 1 warning"), "%s", t);
	ck_assert_msg(strstr(t, "  x.trace:14: truncated snapshot"), "%s", t);
	ck_assert_msg(strstr(t, "Verdict: FAIL (--fail-on critical, --max irqsoff=1ms)"), "%s", t);
	ck_assert_msg(strstr(t, "  - irqsoff: worst 2002us (irq_test-82 on CPU0) exceeds --max irqsoff=1ms by 1002us"), "%s", t);
	ck_assert_msg(strstr(t, "  - rule raid-irq-held (critical) hit by 1 record, worst 2002us"), "%s", t);
	free(t);
	lh_report_free(rep);
}
END_TEST

/* hwlat's samples on cpu: 9 gaps of 12us and one of top_us, on the CPU and over all. */
static void hwlat_samples(struct lh_report *rep, int cpu, uint64_t top_us)
{
	struct lh_histogram h = { 0 };
	int i;

	for (i = 0; i < 9; i++)
		lh_histogram_add(&h, 12000);
	lh_histogram_add(&h, top_us * 1000);
	lh_report_set_histogram(rep, "hwlat", cpu, &h);
	lh_histogram_release(&h);
}

/*
 * The hardware floor: hwlat's samples per CPU beside each software tracer's worst there,
 * within it or over it; none without a software tracer's records.
 */
START_TEST(hardware_floor)
{
	struct lh_report *rep = lh_report_alloc(NULL, NULL);
	struct lh_record *r;
	json_object *root, *f, *sw;
	char *t;

	hwlat_samples(rep, 1, 7000);
	hwlat_samples(rep, 0, 3500);
	t = render(rep, LH_FORMAT_TEXT);
	ck_assert_msg(!strstr(t, "Hardware floor"), "%s", t);
	free(t);
	root = render_json(rep);
	ja(root, "hardware_floor", 0);
	json_object_put(root);

	r = mk(LH_TRACER_TIMERLAT, 4100, 0, "spin", 7, "a", "b", nic_frames);
	lh_report_add(rep, r, NULL);
	lh_record_free(r);
	r = mk(LH_TRACER_TIMERLAT, 6301, 1, "spin", 7, "a", "b", nic_frames);
	lh_report_add(rep, r, NULL);
	lh_record_free(r);
	r = mk(LH_TRACER_OSNOISE, 8000, 1, "spin", 7, "a", "b", nic_frames);
	lh_report_add(rep, r, NULL);
	lh_record_free(r);
	t = render(rep, LH_FORMAT_TEXT);
	ck_assert_msg(strstr(t, "  CPU0           10        3500us     <= 3500us  timerlat 4100us (600us over it)\n"),
		      "%s", t);
	ck_assert_msg(strstr(t, "  CPU1           10        7000us     <= 7000us  timerlat 6301us (within the floor), osnoise 8000us (1000us over it)\n"),
		      "%s", t);
	free(t);
	t = render(rep, LH_FORMAT_HTML);
	ck_assert_msg(strstr(t, "<td>timerlat 6301us (within the floor), osnoise 8000us (1000us over it)</td>"),
		      "%s", t);
	ck_assert_msg(strstr(t, "<td class=\"n\">7000us</td><td class=\"n\">&le; 7000us</td>"),
		      "%s", t);
	free(t);
	root = render_json(rep);
	f = at(ja(root, "hardware_floor", 2), 0);
	ck_assert_int_eq(ji(f, "cpu"), 0);
	ck_assert_int_eq(ji(f, "samples"), 10);
	ck_assert_int_eq(ji(f, "worst_us"), 3500);
	sw = at(ja(f, "software", 1), 0);
	ck_assert_str_eq(js(sw, "tracer"), "timerlat");
	ck_assert_int_eq(ji(sw, "worst_us"), 4100);
	ck_assert(!json_object_get_boolean(jk(sw, "within_floor")));
	f = at(ja(root, "hardware_floor", 2), 1);
	sw = at(ja(f, "software", 2), 0);
	ck_assert(json_object_get_boolean(jk(sw, "within_floor")));
	json_object_put(root);
	lh_report_free(rep);
}
END_TEST

START_TEST(text_empty_report)
{
	struct lh_report *rep = lh_report_alloc(NULL, NULL);
	char *t = render(rep, LH_FORMAT_TEXT);
	json_object *root;

	ck_assert_msg(strstr(t, "no latency sections found"), "%s", t);
	ck_assert_msg(strstr(t, "Verdict: PASS (--fail-on critical)"), "%s", t);
	free(t);
	/* No record kept: nothing to sort (memcpy/qsort from NULL is undefined, see UBSan). */
	root = render_json(rep);
	ja(root, "records", 0);
	ck_assert_int_eq(ji(root, "records_total"), 0);
	json_object_put(root);
	t = render(rep, LH_FORMAT_JUNIT);
	ck_assert_msg(strstr(t, "tests=\"0\" failures=\"0\""), "%s", t);
	free(t);
	lh_report_free(rep);
}
END_TEST

START_TEST(write_file_is_atomic)
{
	struct lh_report *rep = lh_report_alloc(NULL, NULL);
	char dir[] = "/tmp/lh-report-XXXXXX", path[64], buf[64];
	struct lh_diag diag = { 0 };
	json_object *root;
	struct stat st;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	f = fopen(path, "w");
	fputs("old", f);
	fclose(f);
	ck_assert_int_eq(lh_report_write_file(rep, LH_FORMAT_JSON, path, &diag), 0);
	ck_assert_int_eq(dir_entries(dir, NULL), 1);	/* no temporary file left */
	root = json_object_from_file(path);
	ck_assert_ptr_nonnull(root);
	ck_assert_str_eq(js(root, "verdict"), "pass");
	json_object_put(root);
	ck_assert_uint_eq(diag.nr, 0);

	/* A directory that does not exist: error, nothing left behind. */
	snprintf(buf, sizeof(buf), "%s/no/such.json", dir);
	errno = 0;
	ck_assert_int_eq(lh_report_write_file(rep, LH_FORMAT_TEXT, buf, &diag), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_uint_eq(diag.errors, 1);
	ck_assert_ptr_nonnull(strstr(diag.msgs[0].text, "cannot write report '"));
	ck_assert_ptr_nonnull(strstr(diag.msgs[0].text, "/no/such.json': No such file or directory"));

	/* A device is not a regular file: refused, and left as it is. */
	if (!stat("/dev/full", &st)) {
		errno = 0;
		ck_assert_int_eq(lh_report_write_file(rep, LH_FORMAT_JSON, "/dev/full", &diag), -1);
		ck_assert_int_eq(errno, EEXIST);
		ck_assert_str_eq(diag.msgs[1].text,
				 "cannot write report '/dev/full': it is a character device, and only a regular file is replaced");
		ck_assert_int_eq(stat("/dev/full", &st), 0);
		ck_assert(S_ISCHR(st.st_mode));
	}
	unlink(path);
	rmdir(dir);
	lh_diag_release(&diag);
	lh_report_free(rep);
}
END_TEST

START_TEST(format_names)
{
	enum lh_format f;

	ck_assert_int_eq(lh_format_parse("text", &f), 0);
	ck_assert_int_eq(f, LH_FORMAT_TEXT);
	ck_assert_int_eq(lh_format_parse("json", &f), 0);
	ck_assert_int_eq(f, LH_FORMAT_JSON);
	ck_assert_int_eq(lh_format_parse("junit", &f), 0);
	ck_assert_int_eq(f, LH_FORMAT_JUNIT);
	ck_assert_int_eq(lh_format_parse("xml", &f), -1);
	ck_assert_int_eq(lh_format_parse("", &f), -1);
	ck_assert_int_eq(lh_format_parse(NULL, &f), -1);
}
END_TEST

/* osnoise's noisiest sources in words: three named, the rest summed; the edges. */
START_TEST(sources_text)
{
	struct lh_report_noise n = { .cpu = 1, .has_sources = true };
	char buf[LH_REPORT_SOURCES_TEXT], name[LH_REPORT_SOURCE_NAME];
	size_t i;

	ck_assert_str_eq(lh_report_sources_text(&n, buf, sizeof(buf)), "none counted");
	n.other_sources = 3;
	n.other_count = 9;
	n.other_ns = 12000;
	ck_assert_str_eq(lh_report_sources_text(&n, buf, sizeof(buf)),
			 "none counted, 3 more 12.000 us");
	n.other_sources = n.other_count = n.other_ns = 0;
	n.sources[n.nr_sources++] = (struct lh_report_source){ LH_SPIKE_THREAD, "lhspin", 40,
								320000000 };
	n.sources[n.nr_sources++] = (struct lh_report_source){ LH_SPIKE_IRQ, "local_timer", 4000,
								4100000 };
	ck_assert_str_eq(lh_report_sources_text(&n, buf, sizeof(buf)),
			 "thread lhspin 320000.000 us (40), irq local_timer 4100.000 us (4000)");
	n.sources[n.nr_sources++] = (struct lh_report_source){ LH_SPIKE_SOFTIRQ, "TIMER", 20, 9500 };
	n.sources[n.nr_sources++] = (struct lh_report_source){ LH_SPIKE_SOFTIRQ, "RCU", 2, 500 };
	n.other_sources = 1;
	n.other_ns = 100;
	ck_assert_str_eq(lh_report_sources_text(&n, buf, sizeof(buf)),
			 "thread lhspin 320000.000 us (40), irq local_timer 4100.000 us (4000), "
			 "softirq TIMER 9.500 us (20), 2 more 0.600 us");
	/* the longest names and figures fit the size given for them */
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (i = 0; i < 3; i++) {
		n.sources[i] = (struct lh_report_source){ LH_SPIKE_SOFTIRQ, "", UINT64_MAX, UINT64_MAX };
		memcpy(n.sources[i].name, name, sizeof(name));
	}
	n.other_sources = n.other_ns = UINT64_MAX;
	lh_report_sources_text(&n, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, " more "));
	ck_assert_uint_lt(strlen(buf), sizeof(buf) - 1);
	/* not counted by source: nothing to say */
	n.has_sources = false;
	ck_assert_str_eq(lh_report_sources_text(&n, buf, sizeof(buf)), "");
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, aggregates_per_tracer);
	tcase_add_test(tc, offenders_grouped_by_signature);
	tcase_add_test(tc, signature_table_is_capped);
	tcase_add_test(tc, keep_is_bounded);
	tcase_add_test(tc, keep_zero_keeps_none);
	tcase_add_test(tc, kept_records_are_copies);
	tcase_add_test(tc, per_cpu_views_and_histograms);
	tcase_add_test(tc, html_record_run);
	tcase_add_test(tc, progression_of_maxima);
	tcase_add_test(tc, progression_is_capped);
	tcase_add_test(tc, json_record_fields);
	tcase_add_test(tc, json_streamed_as_json_c_prints);
	tcase_add_test(tc, json_two_threads_same_bytes);
	tcase_add_test(tc, json_wakeup_and_unknowns);
	tcase_add_test(tc, json_input_and_warnings);
	tcase_add_test(tc, json_run_and_irq_stats);
	tcase_add_test(tc, text_run_irq_only);
	tcase_add_test(tc, feed_matches_rules);
	tcase_add_test(tc, junit_well_formed_and_escaped);
	tcase_add_test(tc, junit_no_gates_no_rules);
	tcase_add_test(tc, inputs_not_read_are_errors);
	tcase_add_test(tc, text_has_key_lines);
	tcase_add_test(tc, text_empty_report);
	tcase_add_test(tc, hardware_floor);
	tcase_add_test(tc, write_file_is_atomic);
	tcase_add_test(tc, format_names);
	tcase_add_test(tc, sources_text);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(report_suite)
