// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of reading reports back (src/report/report-load.c): a report written as JSON
 * reads back to the same figures and verdict; several fold into one (counts add, worsts are
 * the worst); a report whose derived fields contradict its data, the same run twice, a rule
 * with two severities or a structure that would take far more memory than its size are
 * refused, naming the field.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "trace/noise.h"
#include "report/report-load.h"
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
	struct lh_diag d = { 0 };

	rules = lh_rules_alloc();
	ck_assert_int_eq(lh_rules_load_buffer(rules, "t.rules", test_rules, strlen(test_rules),
					      &d), 0);
	lh_diag_release(&d);
}

static void teardown(void)
{
	lh_rules_free(rules);
	rules = NULL;
}

/* Return: rep judged by --fail-on critical (and run_id, when not NULL), as JSON (free it). */
static char *json_of(struct lh_report *rep, const char *run_id)
{
	struct lh_run_info run = { .mode = "record", .command_status = -1, .kernel = "6.1.0",
				   .host = "board1", .run_id = run_id, .end_reason = "duration",
				   .armed_ns = { [LH_TRACER_IRQSOFF] = 1000000000 } };
	struct lh_gate g;
	size_t len;
	char *buf;
	FILE *f;

	if (run_id)
		lh_report_set_run(rep, &run);
	lh_gate_init(&g);
	lh_report_evaluate(rep, &g);
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(lh_report_write(rep, LH_FORMAT_JSON, f), 0);
	fclose(f);
	lh_report_free(rep);
	return buf;
}

/* Return: a report of 3 irqsoff sections on CPU 0 and 1, one of lat us with a raid hit. */
static char *sample(uint64_t lat, const char *run_id)
{
	struct lh_report *rep = lh_report_alloc(rules, NULL);

	add(rep, LH_TRACER_IRQSOFF, 40, 0, "schedule", 2);
	add(rep, LH_TRACER_IRQSOFF, lat, 1, "fakeraid_isr", 1);
	return json_of(rep, run_id);
}

/* Return: the reports bufs[0..n) read together, or NULL with the errors in diag. */
static struct lh_report *read_all(char *const *bufs, size_t n, struct lh_diag *diag)
{
	struct lh_report_loader *l = lh_report_loader_alloc(NULL);
	struct lh_report *rep = NULL;
	char name[32];
	size_t i;
	int bad = 0;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "r%zu.json", i);
		bad |= lh_report_loader_add(l, name, bufs[i], strlen(bufs[i]), diag);
	}
	if (!bad)
		rep = lh_report_loader_finish(l, diag);
	lh_report_loader_free(l);
	return rep;
}

/* Return: whether diag holds an error containing what. */
static bool said(const struct lh_diag *diag, const char *what)
{
	size_t i;

	for (i = 0; i < diag->nr; i++)
		if (diag->msgs[i].level == LH_DIAG_ERROR && strstr(diag->msgs[i].text, what))
			return true;
	return false;
}

/* Return: buf (freed) with path (". "-separated keys, numbers as array indices) set to v. */
static char *edit(char *buf, const char *path, json_object *v)
{
	json_object *root = json_tokener_parse(buf), *o = root, *next;
	char *p = strdup(path), *key, *save = NULL, *out;
	const char *last = NULL;

	ck_assert_ptr_nonnull(root);
	for (key = strtok_r(p, ".", &save); key; key = strtok_r(NULL, ".", &save)) {
		if (last) {
			if (json_object_is_type(o, json_type_array))
				next = json_object_array_get_idx(o, (size_t)atoi(last));
			else
				next = json_object_object_get(o, last);
			ck_assert_ptr_nonnull(next);
			o = next;
		}
		last = key;
	}
	if (json_object_is_type(o, json_type_array))
		json_object_array_put_idx(o, (size_t)atoi(last), v);
	else
		json_object_object_add(o, last, v);
	out = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
	json_object_put(root);
	free(p);
	free(buf);
	return out;
}

START_TEST(read_back_same)
{
	char *buf = sample(2000, NULL);
	struct lh_diag diag = { 0 };
	struct lh_report *rep = read_all(&buf, 1, &diag);

	ck_assert_ptr_nonnull(rep);
	ck_assert_str_eq(lh_report_verdict(rep), "fail");
	ck_assert_uint_eq(rep->total, 3);
	ck_assert_uint_eq(rep->tracers[LH_TRACER_IRQSOFF].count, 3);
	ck_assert_uint_eq(rep->tracers[LH_TRACER_IRQSOFF].worst.latency_us, 2000);
	ck_assert_uint_eq(rep->tracers[LH_TRACER_IRQSOFF].hist.count, 3);
	ck_assert_uint_eq(rep->rule_agg[0].gate_hits, 1);
	ck_assert_uint_eq(lh_report_nr_violations(rep), 1);
	lh_report_free(rep);
	lh_diag_release(&diag);
	free(buf);
}
END_TEST

/* Two runs of one board fold: counts add up, the worst is the worst of both. */
START_TEST(fold_two_runs)
{
	char *bufs[] = { sample(2000, "00000000000000000000000000000001"),
			 sample(3000, "00000000000000000000000000000002") };
	struct lh_diag diag = { 0 };
	struct lh_report *rep = read_all(bufs, 2, &diag);

	ck_assert_ptr_nonnull(rep);
	ck_assert_uint_eq(rep->total, 6);
	ck_assert_uint_eq(rep->tracers[LH_TRACER_IRQSOFF].count, 6);
	ck_assert_uint_eq(rep->tracers[LH_TRACER_IRQSOFF].worst.latency_us, 3000);
	ck_assert_uint_eq(rep->tracers[LH_TRACER_IRQSOFF].gate.latency_us, 3000);
	ck_assert_uint_eq(rep->rule_agg[0].hits, 2);
	ck_assert_uint_eq(rep->rule_agg[0].gate_hits, 2);
	ck_assert_uint_eq(rep->nr_merged_from, 2);
	ck_assert_str_eq(lh_report_verdict(rep), "fail");
	lh_report_free(rep);
	lh_diag_release(&diag);
	free(bufs[0]);
	free(bufs[1]);
}
END_TEST

START_TEST(same_run_twice)
{
	char *bufs[] = { sample(2000, "00000000000000000000000000000001"),
			 sample(3000, "00000000000000000000000000000001") };
	struct lh_diag diag = { 0 };

	ck_assert_ptr_null(read_all(bufs, 2, &diag));
	ck_assert(said(&diag, "the same run (run_id 00000000000000000000000000000001) as 'r0.json'"));
	lh_diag_release(&diag);
	free(bufs[0]);
	free(bufs[1]);
}
END_TEST

/* A report's 'accepted' beyond its hits would cancel another's hits: refused. */
START_TEST(accepted_over_hits)
{
	char *bufs[] = { sample(2000, NULL), sample(2000, NULL) };
	struct lh_diag diag = { 0 };

	bufs[1] = edit(bufs[1], "rules.0.hits", json_object_new_int(0));
	bufs[1] = edit(bufs[1], "rules.0.accepted", json_object_new_int(1));
	bufs[1] = edit(bufs[1], "verdict", json_object_new_string("pass"));
	ck_assert_ptr_null(read_all(bufs, 2, &diag));
	ck_assert(said(&diag, "report 'r1.json': rules[0].accepted: 1, more than its 0 hits"));
	lh_diag_release(&diag);
	free(bufs[0]);
	free(bufs[1]);
}
END_TEST

/* Report buf (taken) with path set to v (taken) is refused, saying what. */
static void assert_buf_refused(char *buf, const char *path, json_object *v, const char *what)
{
	struct lh_diag diag = { 0 };
	size_t i;

	buf = edit(buf, path, v);
	ck_assert_ptr_null(read_all(&buf, 1, &diag));
	if (!said(&diag, what))
		for (i = 0; i < diag.nr; i++)
			fprintf(stderr, "said: %s\n", diag.msgs[i].text);
	ck_assert_msg(said(&diag, what), "not said: %s", what);
	lh_diag_release(&diag);
	free(buf);
}

/* The sample report with path set to v (taken) is refused, saying what. */
static void assert_refused(const char *path, json_object *v, const char *what)
{
	assert_buf_refused(sample(2000, NULL), path, v, what);
}

/* A kept record is one of its rules' hits: a rule that says none is refused. */
START_TEST(kept_record_against_rule)
{
	assert_refused("rules.0.hits", json_object_new_int(0),
		       "rule 'raid-irq-held' hits more records than its hits and accepted say");
}
END_TEST

START_TEST(worst_gated_checked)
{
	static const char *const paths[] = { "tracers.irqsoff.worst_gated.latency_us",
					     "tracers.irqsoff.worst_gated" };
	size_t i;

	for (i = 0; i < 2; i++) {
		char *buf = sample(2000, NULL);
		struct lh_diag diag = { 0 };

		buf = edit(buf, paths[i], i ? NULL : json_object_new_int(10));
		ck_assert_ptr_null(read_all(&buf, 1, &diag));
		ck_assert(said(&diag, "tracers.irqsoff.worst_gated: "));
		lh_diag_release(&diag);
		free(buf);
	}
}
END_TEST

START_TEST(severity_conflict)
{
	char *bufs[] = { sample(2000, NULL), sample(2000, NULL) };
	struct lh_diag diag = { 0 };

	bufs[1] = edit(bufs[1], "rules.0.severity", json_object_new_string("warning"));
	bufs[1] = edit(bufs[1], "verdict", json_object_new_string("pass"));
	bufs[1] = edit(bufs[1], "violations", json_object_new_array());
	ck_assert_ptr_null(read_all(bufs, 2, &diag));
	ck_assert(said(&diag, "rule 'raid-irq-held' is warning here and critical in a report read before"));
	lh_diag_release(&diag);
	free(bufs[0]);
	free(bufs[1]);
}
END_TEST

/* A CPU listed twice in one report is an error, not a sum of the two. */
START_TEST(cpu_listed_twice)
{
	assert_refused("tracers.irqsoff.cpus.1.cpu", json_object_new_int(0),
		       "tracers.irqsoff.cpus[1].cpu: CPU 0 is listed twice");
}
END_TEST

#define US	1000ULL
#define MS	(1000 * US)
#define E	(10 * 1000 * MS)	/* a timer's expiry, 10 s into the trace clock */

/* Each spike of the breakdown, as a record, into the report arg. */
static int feed_spike(const struct lh_noise_spike *s, void *arg)
{
	struct lh_record *r = lh_record_alloc();

	lh_noise_spike_record(s, r);
	ck_assert_int_eq(lh_report_feed(r, arg), 0);
	lh_record_free(r);
	return 0;
}

static void noise_ev(struct lh_noise *n, enum lh_noise_kind k, uint64_t start, uint64_t dur,
		     int id, const char *name)
{
	struct lh_noise_event ev = {
		.kind = k, .start_ns = start, .duration_ns = dur,
		.vector = k == LH_NOISE_THREAD ? -1 : id, .pid = k == LH_NOISE_THREAD ? id : -1,
	};

	snprintf(ev.name, sizeof(ev.name), "%s", name);
	lh_noise_event(n, 1, start + dur, &ev);
}

/*
 * Return: a report (as JSON) of two spikes on CPU 1: an osnoise period (records[0], 8 ms)
 * and a timer (records[1], 2.2 ms) that spin99 (pid 4242) kept from its thread, with a
 * timer IRQ and a softirq of odd nanoseconds in its window.
 */
static char *spike_sample(void)
{
	struct lh_report *rep = lh_report_alloc(rules, NULL);
	struct lh_noise *n = lh_noise_alloc(2, 100 * US, feed_spike, rep);

	lh_noise_watch_sections(n, (1u << LH_TRACER_IRQSOFF) | (1u << LH_TRACER_PREEMPTOFF),
				25 * US);
	lh_noise_section(n, 1, E + 2150 * US, LH_TRACER_PREEMPTOFF, 2250 * US + 7,
			 "spin_lock+0x10/0x20");
	noise_ev(n, LH_NOISE_IRQ, E + 4 * US, 3 * US, 236, "local_timer");
	lh_noise_timerlat(n, 1, E + 5 * US, 7, false, 5 * US, 4242);
	noise_ev(n, LH_NOISE_SOFTIRQ, E + 10 * US + 1, 20 * US + 500, 1, "");
	noise_ev(n, LH_NOISE_THREAD, E - 2 * MS, 4100 * US, 4242, "spin99");
	lh_noise_timerlat(n, 1, E + 2200 * US, 7, true, 2200 * US, 77);
	lh_noise_flush(n);
	noise_ev(n, LH_NOISE_THREAD, E + 300 * MS, 8 * MS, 4242, "spin99");
	lh_noise_osnoise(n, 1, E + 1000 * MS, 1000 * MS, 8060 * US, 8 * MS, 0);
	lh_noise_free(n);
	return json_of(rep, NULL);
}

/* A saved spike reads back to the same JSON, byte for byte, every field of it kept. */
START_TEST(spike_read_back_same)
{
	char *buf = spike_sample(), *again;
	struct lh_diag diag = { 0 };
	struct lh_report *rep = read_all(&buf, 1, &diag);
	const struct lh_spike *sp = NULL;
	size_t i;

	ck_assert_ptr_nonnull(rep);
	for (i = 0; i < rep->nr_heap; i++)
		if (rep->heap[i]->rec->tracer == LH_TRACER_TIMERLAT)
			sp = &rep->heap[i]->rec->spike;
	ck_assert_ptr_nonnull(sp);
	ck_assert(sp->set && sp->has_irq && sp->has_thread && !sp->has_period);
	ck_assert_uint_eq(sp->latency_ns, 2200 * US);
	ck_assert_uint_eq(sp->irq_latency_ns, 5 * US);
	ck_assert_str_eq(sp->blocking.comm, "spin99");
	ck_assert_int_eq(sp->blocking.pid, 4242);
	ck_assert_uint_eq(sp->blocking_ns, 2100 * US);
	ck_assert_uint_eq(sp->nr_parts, 3);
	ck_assert_int_eq(sp->parts[1].kind, LH_SPIKE_SOFTIRQ);
	ck_assert_int_eq(sp->parts[1].vector, 1);
	ck_assert_int_eq(sp->parts[1].offset_ns, 10 * US + 1);
	ck_assert_uint_eq(sp->parts[1].duration_ns, 20 * US + 500);
	ck_assert_int_eq(sp->parts[0].offset_ns, -2 * (int64_t)MS);
	ck_assert_uint_eq(sp->explained_ns, 2100 * US + 3 * US + 20 * US + 500);
	ck_assert_int_eq(sp->section.state, LH_SPIKE_SECTION_FOUND);
	ck_assert_int_eq(sp->section.tracer, LH_TRACER_PREEMPTOFF);
	ck_assert_str_eq(sp->section.caller, "spin_lock+0x10/0x20");
	ck_assert_int_eq(sp->section.offset_ns, -100 * (int64_t)US - 7);
	ck_assert_uint_eq(sp->section.duration_ns, 2250 * US + 7);
	ck_assert_uint_eq(sp->section.overlap_ns, 2150 * US);
	again = json_of(rep, NULL);
	ck_assert_str_eq(again, buf);
	ck_assert_ptr_nonnull(strstr(buf, "\"offset_us\": -2000,"));
	ck_assert_ptr_nonnull(strstr(buf, "\"share_permille\": 954"));
	lh_diag_release(&diag);
	free(again);
	free(buf);
}
END_TEST

/* The spike sample with path set to v (taken) is refused, saying what. */
static void assert_spike_refused(const char *path, json_object *v, const char *what)
{
	assert_buf_refused(spike_sample(), path, v, what);
}

#define TL	"records.1.spike."	/* the timer's spike */
#define OS	"records.0.spike."	/* the osnoise period's */
#define TLM	"records[1].spike."	/* as messages name them */
#define OSM	"records[0].spike."

/* Each value a spike states is checked: a share, a total, a duration, a kind. */
START_TEST(spike_refused)
{
	assert_spike_refused(TL "parts.0.share_permille", json_object_new_int(1200),
			     TLM "parts[0].share_permille: 1200, a share over 100 %");
	assert_spike_refused(TL "parts.0.share_permille", json_object_new_int(900),
			     TLM "parts[0].share_permille: 900, but its duration makes it 954");
	assert_spike_refused(TL "blocking.share_permille", json_object_new_int(1001),
			     TLM "blocking.share_permille: 1001, a share over 100 %");
	assert_spike_refused(TL "explained_permille", json_object_new_int(1000),
			     TLM "explained_permille: 1000, but its duration makes it 965");
	assert_spike_refused(TL "explained_us", json_object_new_int(3000),
			     TLM "explained_us: 3000000 ns, more than the latency of 2200000 ns");
	assert_spike_refused(TL "explained_us", json_object_new_int(2100),
			     TLM "explained_us: 2100000 ns, but its parts explain 2123500 ns");
	assert_spike_refused(TL "parts.1.duration_us", json_object_new_double(-5.5),
			     TLM "parts[1].duration_us: -5.5 is not a duration");
	assert_spike_refused(TL "parts.1.duration_us", json_object_new_int64(100000000000LL),
			     TLM "parts[1].duration_us: 100000000000 is longer than a day");
	assert_spike_refused(TL "parts.1.offset_us", json_object_new_double(-1e12),
			     TLM "parts[1].offset_us: ");
	assert_spike_refused(TL "parts.2.kind", json_object_new_string("hardirq"),
			     TLM "parts[2].kind: 'hardirq' is not a kind of noise");
	assert_spike_refused(TL "parts.2.overlap_us", json_object_new_int(4),
			     TLM "parts[2].overlap_us: 4000 ns, longer than the part's duration");
	assert_spike_refused(TL "blocking.us", json_object_new_int(2300),
			     TLM "blocking.us: 2300000 ns, longer than the spike's window");
	assert_spike_refused(TL "latency_us", json_object_new_int(2300),
			     TLM "latency_us: 2300000 ns, but the record's latency_us is 2200");
	assert_spike_refused(TL "thread_latency_us", json_object_new_int(2100),
			     TLM "latency_us: 2200000 ns, not its thread latency");
	assert_spike_refused(TL "noise_us", json_object_new_int(1),
			     TLM "noise_us: noise_us and runtime_us are an osnoise period's");
	assert_spike_refused(TL "culprit.comm", json_object_new_string("other"),
			     TLM "culprit: is not the record's task");
	assert_spike_refused(TL "more_parts", json_object_new_int(1),
			     TLM "more_parts: 1, but only 3 parts are listed");
	assert_spike_refused(OS "noise_us", json_object_new_int(2000000),
			     OSM "noise_us: 2000000000 ns, more than the period's runtime");
	assert_spike_refused(OS "irq_latency_us", json_object_new_int(5),
			     OSM "irq_latency_us: set in a record of osnoise");
	assert_spike_refused("records.1.tracer", json_object_new_string("irqsoff"),
			     "records[1].spike: a record of irqsoff has no spike");
	assert_spike_refused(OS "parts", json_object_new_int(5),
			     OSM "parts: expected an array, got an integer");
	/* the section behind the timer's spike */
	assert_spike_refused(TL "section.share_permille", json_object_new_int(900),
			     TLM "section.share_permille: 900, but its duration makes it 977");
	assert_spike_refused(TL "section.state", json_object_new_string("maybe"),
			     TLM "section.state: 'maybe' is not a section's state");
	assert_spike_refused(TL "section.watched", json_object_new_array(),
			     TLM "section.watched: empty");
	assert_spike_refused(TL "section.watched.1", json_object_new_string("wakeup"),
			     TLM "section.watched: 'wakeup' is not a tracer whose sections");
	assert_spike_refused(TL "section.tracer", json_object_new_string("hwlat"),
			     TLM "section.tracer: not one of the tracers watched");
	assert_spike_refused(TL "section.min_us", json_object_new_int(3000),
			     TLM "section.duration_us: 2250007 ns, shorter than the minimum");
	assert_spike_refused(TL "section.overlap_us", json_object_new_int(2300),
			     TLM "section.overlap_us: 2300000 ns, not within");
	assert_spike_refused(TL "section.caller", json_object_new_string(
				     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
			     TLM "section.caller: 256 bytes, longer than a kernel symbol's");
	assert_spike_refused(OS "section", json_object_new_object(),
			     OSM "section: a spike of osnoise watches no section");
}
END_TEST

/* A part's name from the file is made inert like every other string. */
START_TEST(spike_strings_inert)
{
	char *buf = spike_sample();
	struct lh_diag diag = { 0 };
	struct lh_report *rep;
	size_t i;
	bool seen = false;

	buf = edit(buf, TL "parts.2.name", json_object_new_string("timer\x1b[2J"));
	rep = read_all(&buf, 1, &diag);
	ck_assert_ptr_nonnull(rep);
	for (i = 0; i < rep->nr_heap; i++) {
		const struct lh_spike *sp = &rep->heap[i]->rec->spike;

		if (rep->heap[i]->rec->tracer != LH_TRACER_TIMERLAT)
			continue;
		ck_assert_str_eq(sp->parts[2].name, "timer\\x1b[2J");
		seen = true;
	}
	ck_assert(seen);
	lh_report_free(rep);
	lh_diag_release(&diag);
	free(buf);
}
END_TEST

/* Return: a report (as JSON) of osnoise on CPUs 0 (no period), 1 (99.798 %) and 3 (100 %). */
static char *noise_sample(void)
{
	static const struct lh_report_noise cpus[] = {
		{ .cpu = 3, .periods = 2, .runtime_ns = 2000000000ULL },
		{ .cpu = 1, .periods = 4, .runtime_ns = 4000000000ULL, .noise_ns = 8060001 },
		{ .cpu = 0 },
	};
	struct lh_report *rep = lh_report_alloc(rules, NULL);
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(cpus); i++)
		lh_report_set_noise(rep, &cpus[i]);
	return json_of(rep, NULL);
}

/* osnoise's per-CPU figures read back as written; the availability recomputed, not read. */
START_TEST(noise_read_back_same)
{
	char *buf = noise_sample(), *again;
	struct lh_diag diag = { 0 };
	struct lh_report *rep = read_all(&buf, 1, &diag);

	ck_assert_ptr_nonnull(rep);
	ck_assert_uint_eq(rep->nr_noise, 3);
	ck_assert_int_eq(rep->noise[0].cpu, 0);
	ck_assert_int_eq(rep->noise[1].cpu, 1);
	ck_assert_uint_eq(rep->noise[1].periods, 4);
	ck_assert_uint_eq(rep->noise[1].noise_ns, 8060001);
	ck_assert_ptr_nonnull(strstr(buf, "\"available_percent\": 99.798"));
	ck_assert_ptr_nonnull(strstr(buf, "\"available_percent\": null"));
	again = json_of(rep, NULL);
	ck_assert_str_eq(again, buf);
	lh_diag_release(&diag);
	free(again);
	free(buf);
}
END_TEST

#define NC	"tracers.osnoise.noise_cpus."
#define NCM	"tracers.osnoise.noise_cpus"

START_TEST(noise_refused)
{
	assert_buf_refused(noise_sample(), NC "1.available_percent", json_object_new_double_s(99.9, "99.9"),
			   NCM "[1].available_percent: 99.9, but its noise and runtime give 99.798");
	assert_buf_refused(noise_sample(), NC "0.available_percent", json_object_new_int(100),
			   NCM "[0].available_percent: 100, but its noise and runtime give null");
	assert_buf_refused(noise_sample(), NC "1.noise_us", json_object_new_int(5000000),
			   NCM "[1].noise_us: 5000000000 ns, more than its runtime of 4000000000 ns");
	assert_buf_refused(noise_sample(), NC "0.periods", json_object_new_int(2),
			   NCM "[0].periods: 2 periods of 0 ns of runtime");
	assert_buf_refused(noise_sample(), NC "2.cpu", json_object_new_int(1),
			   NCM "[2].cpu: CPU 1 is listed twice");
	assert_buf_refused(noise_sample(), NC "2.cpu", json_object_new_int(-1),
			   NCM "[2].cpu: CPU -1 is beyond the 8192 a report tracks");
	assert_buf_refused(noise_sample(), NC "1.runtime_us", json_object_new_int(-4),
			   NCM "[1].runtime_us: -4 is not a duration");
	assert_buf_refused(noise_sample(), "gate.min_available_percent.osnoise",
			   json_object_new_double_s(99.1234, "99.1234"),
			   "gate.min_available_percent: 99.1234 is not a percentage with at most 3 decimals");
	assert_buf_refused(noise_sample(), "gate.min_available_percent.timerlat",
			   json_object_new_int(99), "gate.min_available_percent: 'timerlat' is not osnoise");
}
END_TEST

/*
 * A report of osnoise on CPU 1 with ten sources counted in the kernel: thread src0 (100 us,
 * the noisiest) to irq src9 (10 us); the eight noisiest kept, two summed (20 us, 2 events).
 */
static char *sources_sample(void)
{
	struct lh_report_noise n = { .cpu = 1, .periods = 4, .runtime_ns = 4000000000ULL,
				     .noise_ns = 8060001, .max_single_ns = 8000000,
				     .hw_count = 3 };
	struct lh_report *rep = lh_report_alloc(rules, NULL);
	int i;

	for (i = 0; i < 10; i++) {
		struct lh_report_source src = {
			.kind = i ? LH_SPIKE_IRQ : LH_SPIKE_THREAD, .count = 1,
			.noise_ns = (uint64_t)(10 - i) * 10000,
		};

		snprintf(src.name, sizeof(src.name), "src%d", i);
		ck_assert_int_eq(lh_report_noise_add_source(&n, &src), 0);
	}
	lh_report_set_noise(rep, &n);
	lh_report_set_noise_dropped(rep, 5);
	return json_of(rep, NULL);
}

/* Sources read back as written, their order and "other" checked; two reports add by name. */
START_TEST(sources_read_back_same)
{
	char *bufs[2] = { sources_sample(), NULL }, *again;
	struct lh_diag diag = { 0 };
	struct lh_report *rep = read_all(bufs, 1, &diag);
	const struct lh_report_noise *n;

	ck_assert_ptr_nonnull(rep);
	n = &rep->noise[0];
	ck_assert(n->has_sources);
	ck_assert_uint_eq(n->nr_sources, LH_REPORT_NOISE_SOURCES);
	ck_assert_str_eq(n->sources[0].name, "src0");
	ck_assert_int_eq(n->sources[0].kind, LH_SPIKE_THREAD);
	ck_assert_uint_eq(n->other_sources, 2);
	ck_assert_uint_eq(n->other_count, 2);
	ck_assert_uint_eq(n->other_ns, 30000);
	ck_assert_uint_eq(n->hw_count, 3);
	ck_assert_uint_eq(n->max_single_ns, 8000000);
	ck_assert_ptr_nonnull(strstr(bufs[0], "\"sources_dropped\": 5"));
	again = json_of(rep, NULL);	/* (frees rep) */
	ck_assert_str_eq(again, bufs[0]);
	free(again);

	/* the same board's second report: by kind and name, drops and hardware noise add */
	bufs[1] = strdup(bufs[0]);
	rep = read_all(bufs, 2, &diag);
	ck_assert_ptr_nonnull(rep);
	n = &rep->noise[0];
	ck_assert_uint_eq(n->sources[0].noise_ns, 200000);
	ck_assert_uint_eq(n->sources[0].count, 2);
	ck_assert_uint_eq(n->nr_sources, LH_REPORT_NOISE_SOURCES);
	ck_assert_uint_eq(n->other_sources, 4);
	ck_assert_uint_eq(n->other_ns, 60000);
	ck_assert_uint_eq(n->hw_count, 6);
	ck_assert_uint_eq(rep->noise_dropped, 10);
	lh_report_free(rep);
	lh_diag_release(&diag);
	free(bufs[0]);
	free(bufs[1]);
}
END_TEST

#define NS	NC "0.sources."
#define NSM	NCM "[0].sources"

/* What a saved report's sources must be, or it is refused. */
START_TEST(sources_refused)
{
	assert_buf_refused(sources_sample(), NS "0.kind", json_object_new_string("hw"),
			   NSM "[0].kind: 'hw' is not a kind of noise");
	assert_buf_refused(sources_sample(), NS "0.count", json_object_new_int(0),
			   NSM "[0].count: a source without an event");
	assert_buf_refused(sources_sample(), NS "0.name",
			   json_object_new_string("a-name-of-thirty-two-bytes-or-so"),
			   NSM "[0].name: longer than the 31 bytes a source's name has");
	assert_buf_refused(sources_sample(), NS "2.noise_us", json_object_new_int(95),
			   NSM "[2]: not noisier than the source before it, yet listed after it");
	/* (thread src0 and irq src0 are two sources; two irq src1 one listed twice) */
	assert_buf_refused(sources_sample(), NS "2.name", json_object_new_string("src1"),
			   NSM "[2].name: irq 'src1' is listed twice");
	assert_buf_refused(sources_sample(), NC "0.sources_other.noise_us", json_object_new_int(61),
			   NCM "[0].sources_other.noise_us: 61000 ns of 2 sources, each at most the last kept (30000 ns)");
	assert_buf_refused(sources_sample(), NC "0.sources_other.count", json_object_new_int(1),
			   NCM "[0].sources_other.count: 1 events of 2 sources");
	assert_buf_refused(sources_sample(), NC "0.sources_other.sources", json_object_new_int(0),
			   NCM "[0].sources_other: noise of no source");
	assert_buf_refused(sources_sample(), NC "0.max_single_us", json_object_new_int(9000),
			   NCM "[0].max_single_us: 9000000 ns, more than the CPU's noise of 8060001 ns");
	assert_buf_refused(sources_sample(), NC "0.sources", json_object_new_int(1),
			   NCM "[0].sources");
}
END_TEST

/* A saved minimum judges the saved figures again; a CPU below it fails the report. */
START_TEST(noise_gate_read_back)
{
	char *buf = noise_sample();
	struct lh_diag diag = { 0 };
	struct lh_report *rep;

	buf = edit(buf, "gate.min_available_percent.osnoise", json_object_new_double(99.9));
	buf = edit(buf, "verdict", json_object_new_string("error"));
	buf = edit(buf, "error", json_object_new_string("osnoise is gated by --min-available but CPU0 measured no period: its availability cannot be judged"));
	rep = read_all(&buf, 1, &diag);
	ck_assert_ptr_nonnull(rep);
	/* CPU 0 measured no period: the gate cannot be judged, whatever CPU 1 says */
	ck_assert_str_eq(lh_report_verdict(rep), "error");
	ck_assert_uint_eq(lh_report_nr_violations(rep), 1);
	lh_report_free(rep);
	lh_diag_release(&diag);
	free(buf);
}
END_TEST

/* json-c holds "{}," in about 800 bytes: such a structure is refused before it is parsed. */
START_TEST(structure_bounded)
{
	static const char head[] = "{\"lathound\":\"x\",\"report_version\":1,\"junk\":[";
	size_t n = 200000, len = strlen(head) + 3 * n + 2, i;
	char *buf = malloc(len + 1), *p = buf;
	struct lh_diag diag = { 0 };

	p += sprintf(p, "%s", head);
	for (i = 0; i < n; i++)
		p += sprintf(p, "{}%s", i + 1 < n ? "," : "");
	strcpy(p, "]}");
	ck_assert_ptr_null(read_all(&buf, 1, &diag));
	ck_assert(said(&diag, "its structure would take more than 16 times its size in memory"));
	lh_diag_release(&diag);
	free(buf);
}
END_TEST

static Suite *report_load_suite(void)
{
	Suite *s = suite_create("report-load");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, read_back_same);
	tcase_add_test(tc, fold_two_runs);
	tcase_add_test(tc, same_run_twice);
	tcase_add_test(tc, accepted_over_hits);
	tcase_add_test(tc, kept_record_against_rule);
	tcase_add_test(tc, worst_gated_checked);
	tcase_add_test(tc, severity_conflict);
	tcase_add_test(tc, cpu_listed_twice);
	tcase_add_test(tc, structure_bounded);
	tcase_add_test(tc, spike_read_back_same);
	tcase_add_test(tc, spike_refused);
	tcase_add_test(tc, spike_strings_inert);
	tcase_add_test(tc, noise_read_back_same);
	tcase_add_test(tc, noise_refused);
	tcase_add_test(tc, sources_read_back_same);
	tcase_add_test(tc, sources_refused);
	tcase_add_test(tc, noise_gate_read_back);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(report_load_suite)
