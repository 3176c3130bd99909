// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target of the latency-snapshot parser: any bytes through the parser, each record
 * checked for the invariants the rest of lathound relies on, then through the reports, with
 * their owners as oracles: the JSON report must parse with json-c's strict UTF-8 tokener, the
 * JUnit report with libxml2 (linked into this target only), the text report must hold no
 * control byte. The input fed whole and in small pieces must give the same report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "trace/parse.h"

/* Whether s holds only valid UTF-8 and no control byte (the record's promise). */
static bool inert(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	for (; s && *p; p += n) {
		n = 1;
		if (*p < 0x20 || *p == 0x7f)
			return false;
		if (*p < 0x80)
			continue;
		n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
		if (*p < 0xc2 || *p > 0xf4 || strnlen((const char *)p, n) < n)
			return false;
	}
	return true;
}

static void inert_task(const struct lh_task *t)
{
	if (!inert(t->comm))
		abort();
}

static int check(struct lh_record *r, void *arg)
{
	size_t i, j;

	if (!r->tracer_name || !r->source || r->nr_stacks > LH_MAX_STACKS)
		abort();
	if (!inert(r->tracer_name) || !inert(r->source) || !inert(r->kernel) ||
	    !inert(r->preempt_model) || !inert(r->started_at) || !inert(r->ended_at) ||
	    !inert(r->started_at_offset) || !inert(r->ended_at_offset))
		abort();
	inert_task(&r->task);
	inert_task(&r->woken);
	inert_task(&r->waker);
	for (i = 0; i < r->nr_stacks; i++)
		for (j = 0; j < r->stacks[i].nr; j++)
			if (!inert(r->stacks[i].frames[j]) || !inert(r->stacks[i].offsets[j]))
				abort();
	for (i = 0; i < r->nr_funcs; i++)
		if (!r->funcs[i].count || !inert(r->funcs[i].name))
			abort();
	for (i = 0; i < r->nr_irqs; i++)
		if (!inert(r->irqs[i].name) || !inert(r->irqs[i].ret))
			abort();
	/* a copy must survive the parser reusing its record */
	lh_record_free(lh_record_dup(r));
	return lh_report_feed(r, arg);
}

/* Parses data into a report, whole (piece 0) or piece bytes at a time. Return: its JSON. */
static char *parse(const unsigned char *data, size_t size, size_t piece, struct lh_report **out)
{
	struct lh_diag diag = { 0 };
	struct lh_parser *p = lh_parser_alloc(&diag);
	struct lh_report_opts o = { .keep = 4, .diag = &diag };
	struct lh_report *rep = lh_report_alloc(NULL, &o);
	size_t off, len;
	char *json;

	lh_parse_begin(p, "fuzz.trace", check, rep);
	for (off = 0; off < size; off += piece ? piece : size)
		lh_parse_feed(p, (const char *)data + off, piece && size - off > piece ?
			      piece : size - off);
	lh_parse_end(p);
	lh_report_add_parse_stats(rep, lh_parser_stats(p));
	lh_report_add_diag(rep, &diag);
	json = fuzz_report_text(rep, LH_FORMAT_JSON, &len);
	lh_parser_free(p);
	lh_diag_release(&diag);
	*out = rep;
	return json;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct lh_report *rep, *rep2;
	char *json, *json2, *xml, *text;
	size_t len;

	json = parse(data, size, 0, &rep);
	/* in pieces of 1 to 16 bytes: the same report */
	json2 = parse(data, size, size ? 1 + data[0] % 16 : 1, &rep2);
	if (strcmp(json, json2))
		abort();
	fuzz_check_json(json, strlen(json));
	xml = fuzz_report_text(rep, LH_FORMAT_JUNIT, &len);
	fuzz_check_junit(xml, len);
	text = fuzz_report_text(rep, LH_FORMAT_TEXT, &len);
	fuzz_check_no_control(text, len);

	free(text);
	free(xml);
	free(json);
	free(json2);
	lh_report_free(rep);
	lh_report_free(rep2);
	return 0;
}
