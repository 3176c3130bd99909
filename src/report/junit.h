/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * JUnit XML, the one writer of its envelope and testcases for the reports of analyze and
 * record (report-junit.c), merge and diff. Every text is escaped (lh_escape_xml()).
 */
#ifndef LH_JUNIT_H
#define LH_JUNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A <testsuite> inside <testsuites>. */
struct lh_junit_suite {
	const char	*name;		/* "lathound merge" */
	size_t		tests, failures, errors;
	/* a run's suite: skipped, time and timestamp too, and on <testsuites> as well */
	bool		timed;
	size_t		skipped;
	double		time;		/* seconds */
	const char	*timestamp;	/* ISO 8601 */
};

/*
 * One <testcase>: an <error> when error, a <failure> when failure, a <skipped> when skipped,
 * a <system-out> when out (each NULL: none). typed: the outcomes carry type="CLASSNAME" and
 * their message again as text (with detail on a line of its own), and the case its time.
 */
struct lh_junit_case {
	const char	*classname;
	const char	*name;
	const char	*error;
	const char	*failure;
	const char	*detail;
	const char	*skipped;
	const char	*out;
	bool		typed;
	double		time;		/* seconds, when typed */
};

/* Writes the XML declaration and opens <testsuites> and the <testsuite> s. */
void lh_junit_begin(FILE *out, const struct lh_junit_suite *s);
/* Closes what lh_junit_begin() opened. */
void lh_junit_end(FILE *out);
/* Writes c. Return: 0, or -1 when writing failed. */
int lh_junit_case(FILE *out, const struct lh_junit_case *c);

#endif /* LH_JUNIT_H */
