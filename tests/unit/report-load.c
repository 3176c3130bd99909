// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of reading reports back (src/report-load.c): a report written as JSON reads back
 * to the same figures and verdict; several fold into one (counts add, worsts are the worst);
 * a report whose derived fields contradict its data, the same run twice, a rule with two
 * severities or a structure that would take far more memory than its size are refused,
 * naming the field.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report-load.h"
#include "report-priv.h"
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

/* The sample report with path set to v (taken) is refused, saying what. */
static void assert_refused(const char *path, json_object *v, const char *what)
{
	char *buf = sample(2000, NULL);
	struct lh_diag diag = { 0 };

	buf = edit(buf, path, v);
	ck_assert_ptr_null(read_all(&buf, 1, &diag));
	ck_assert_msg(said(&diag, what), "not said: %s", what);
	lh_diag_release(&diag);
	free(buf);
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
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(report_load_suite)
