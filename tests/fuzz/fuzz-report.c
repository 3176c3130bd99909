// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target of the saved-report reader (report-load.c): any bytes read as a JSON report
 * from another board, as 'lathound report', 'diff' and 'merge' read one. A report refused is
 * fine; one accepted is written again in every format, with their owners as oracles (fuzz.h):
 * the JSON must parse with json-c's strict UTF-8 tokener, the JUnit report with libxml2, the
 * text and HTML reports must hold no control byte. And what lathound wrote, it must read back
 * the same: the JSON written, read again and written again, is byte for byte what was written
 * (the verdict included).
 *   ./fuzz-report -dict=report.dict -max_total_time=600 corpus-report/ SEEDS/
 * SEEDS: reports of real traces, e.g. 'lathound analyze -f json -o' of each tests/data trace.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "report/report-load.h"

/* Reads buf as one saved report. Return: the report, or NULL when refused. */
static struct lh_report *load(const char *buf, size_t len)
{
	struct lh_report_loader *l = lh_report_loader_alloc(NULL);
	struct lh_diag diag = { 0 };
	struct lh_report *rep = NULL;

	if (!lh_report_loader_add(l, "fuzz.json", buf, len, &diag))
		rep = lh_report_loader_finish(l, &diag);
	lh_report_loader_free(l);
	lh_diag_release(&diag);
	return rep;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct lh_report *rep, *rep2;
	char *json, *json2, *xml, *text, *html;
	size_t len, len2;

	rep = load((const char *)data, size);
	if (!rep)
		return 0;
	json = fuzz_report_text(rep, LH_FORMAT_JSON, &len);
	fuzz_check_json(json, len);
	/* what lathound wrote, it reads back the same */
	rep2 = load(json, len);
	if (!rep2)
		abort();
	json2 = fuzz_report_text(rep2, LH_FORMAT_JSON, &len2);
	if (len != len2 || memcmp(json, json2, len))
		abort();
	xml = fuzz_report_text(rep, LH_FORMAT_JUNIT, &len);
	fuzz_check_junit(xml, len);
	text = fuzz_report_text(rep, LH_FORMAT_TEXT, &len);
	fuzz_check_no_control(text, len);
	html = fuzz_report_text(rep, LH_FORMAT_HTML, &len);
	fuzz_check_no_control(html, len);

	free(html);
	free(text);
	free(xml);
	free(json2);
	free(json);
	lh_report_free(rep2);
	lh_report_free(rep);
	return 0;
}
