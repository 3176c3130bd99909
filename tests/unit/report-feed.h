/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reports built as analyze builds them (lh_report_feed()), for the tests of what reads,
 * folds, merges and compares reports (diff.c, merge.c, report-fold.c, report-load.c).
 * Header-only.
 */
#ifndef LH_TEST_REPORT_FEED_H
#define LH_TEST_REPORT_FEED_H

#include <check.h>
#include <string.h>

#include "report/report.h"
#include "rules/rules.h"

/* Return: the rules of text, loaded as file t.rules (free them with lh_rules_free()). */
static inline struct lh_rules *feed_rules(const char *text)
{
	struct lh_rules *rules = lh_rules_alloc();
	struct lh_diag d = { 0 };

	ck_assert_int_eq(lh_rules_load_buffer(rules, "t.rules", text, strlen(text), &d), 0);
	lh_diag_release(&d);
	return rules;
}

/* Evaluates rep by no gate but --fail-on none, so that its verdict passes. */
static inline void feed_evaluate(struct lh_report *rep)
{
	struct lh_gate g;

	lh_gate_init(&g);
	g.fail_on = LH_GATE_FAIL_NONE;
	lh_report_evaluate(rep, &g);
}

/* Adds n sections of lat us on cpu with the stack frame (NULL: none), matched against rules. */
static inline void add(struct lh_report *rep, enum lh_tracer t, uint64_t lat, int cpu,
		       const char *frame, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct lh_record *r = lh_record_alloc();

		r->tracer = t;
		r->tracer_name = lh_arena_strdup(&r->arena, lh_tracer_name(t));
		r->latency_us = lat;
		r->cpu = cpu;
		r->nr_cpus = 4;
		r->task.pid = 1;
		if (frame)
			lh_record_add_frame(r, 0, frame, strlen(frame));
		r->source = lh_arena_strdup(&r->arena, "t.trace");
		r->line = 1;
		ck_assert_int_eq(lh_report_feed(r, rep), 0);
		lh_record_free(r);
	}
}

#endif /* LH_TEST_REPORT_FEED_H */
