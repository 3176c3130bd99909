/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reports built as analyze builds them (lh_report_feed()), for the tests of what reads,
 * folds and compares reports (diff.c, report-load.c). Header-only.
 */
#ifndef LH_TEST_REPORT_FEED_H
#define LH_TEST_REPORT_FEED_H

#include <check.h>
#include <string.h>

#include "report.h"

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
