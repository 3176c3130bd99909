// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target of the latency-snapshot parser: any bytes through lh_parse_buffer, each
 * record checked for the invariants the rest of lathound relies on.
 */
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static int check(struct lh_record *r, void *arg)
{
	size_t i, j, *n = arg;

	/* every string is NUL-terminated inside the record's arena: touch all of them */
	if (!r->tracer_name || !r->source)
		abort();
	for (i = 0; i < r->nr_stacks; i++)
		for (j = 0; j < r->stacks[i].nr; j++)
			*n += strlen(r->stacks[i].frames[j]);
	for (i = 0; i < r->nr_funcs; i++) {
		if (!r->funcs[i].count)
			abort();
		*n += strlen(r->funcs[i].name);
	}
	for (i = 0; i < r->nr_irqs; i++)
		*n += (r->irqs[i].name ? strlen(r->irqs[i].name) : 0) +
		      (r->irqs[i].ret ? strlen(r->irqs[i].ret) : 0);
	*n += (r->task.comm ? strlen(r->task.comm) : 0) +
	      (r->woken.comm ? strlen(r->woken.comm) : 0) +
	      (r->waker.comm ? strlen(r->waker.comm) : 0) +
	      (r->kernel ? strlen(r->kernel) : 0) +
	      (r->preempt_model ? strlen(r->preempt_model) : 0);
	if (r->nr_stacks > LH_MAX_STACKS)
		abort();
	/* a copy must survive the parser reusing its record */
	lh_record_free(lh_record_dup(r));
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct lh_diag diag = { 0 };
	struct lh_parser *p = lh_parser_alloc(&diag);
	const struct lh_parse_stats *s;
	size_t n = 0;

	lh_parse_buffer(p, "fuzz.trace", (const char *)data, size, check, &n);
	/* twice through the same parser: nothing of the first pass may leak into the second */
	lh_parse_buffer(p, "fuzz.trace", (const char *)data, size, check, &n);
	s = lh_parser_stats(p);
	if (s->snapshots % 2 || s->skipped % 2 || s->bad_lines % 2)
		abort();
	lh_parser_free(p);
	lh_diag_release(&diag);
	return 0;
}
