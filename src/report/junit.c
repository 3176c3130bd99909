// SPDX-License-Identifier: GPL-2.0-only
/* JUnit XML (junit.h). */
#include "escape.h"
#include "junit.h"

void lh_junit_begin(FILE *out, const struct lh_junit_suite *s)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	if (!s->timed) {
		fprintf(out, "<testsuites>\n  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
			s->name, s->tests, s->failures, s->errors);
		return;
	}
	fprintf(out, "<testsuites name=\"lathound\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\" timestamp=\"%s\">\n",
		s->tests, s->failures, s->errors, s->skipped, s->time, s->timestamp);
	fprintf(out, "  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\" timestamp=\"%s\">\n",
		s->name, s->tests, s->failures, s->errors, s->skipped, s->time, s->timestamp);
}

void lh_junit_end(FILE *out)
{
	fputs("  </testsuite>\n</testsuites>\n", out);
}

/* <tag message="text"/>, or (type) <tag message="text" type="type">text\ndetail</tag>. */
static int outcome(FILE *out, const char *tag, const char *text, const char *detail,
		   const char *type)
{
	int ret;

	fprintf(out, "      <%s message=\"", tag);
	ret = lh_escape_xml(out, text);
	if (!type) {
		fputs("\"/>\n", out);
		return ret;
	}
	fprintf(out, "\" type=\"%s\">", type);
	ret |= lh_escape_xml(out, text);
	if (detail && *detail) {
		putc('\n', out);
		ret |= lh_escape_xml(out, detail);
	}
	fprintf(out, "</%s>\n", tag);
	return ret;
}

int lh_junit_case(FILE *out, const struct lh_junit_case *c)
{
	const char *type = c->typed ? c->classname : NULL;
	int ret = 0;

	fputs("    <testcase classname=\"", out);
	ret |= lh_escape_xml(out, c->classname);
	fputs("\" name=\"", out);
	ret |= lh_escape_xml(out, c->name);
	if (c->typed)
		fprintf(out, "\" time=\"%.3f", c->time);
	fputs("\">\n", out);
	if (c->error)
		ret |= outcome(out, "error", c->error, NULL, type);
	if (c->failure)
		ret |= outcome(out, "failure", c->failure, c->detail, type);
	if (c->skipped)
		ret |= outcome(out, "skipped", c->skipped, NULL, NULL);
	if (c->out) {
		fputs("      <system-out>", out);
		ret |= lh_escape_xml(out, c->out);
		fputs("</system-out>\n", out);
	}
	fputs("    </testcase>\n", out);
	return ret;
}
