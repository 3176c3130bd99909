// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of section notifications and snapshot identity (src/capture.c), against a
 * regular file standing in for tracing_max_latency (inotify reports writes to both alike).
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"

static char path[64];
static struct lh_diag diag;

static void setup(void)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/lh-capture-test.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "0\n", 2), 2);
	close(fd);
	memset(&diag, 0, sizeof(diag));
}

static void teardown(void)
{
	unlink(path);
	lh_diag_release(&diag);
}

/* Writes a value as the kernel would when it records a section. */
static void set_value(const char *v)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, v, strlen(v)), (ssize_t)strlen(v));
	close(fd);
}

START_TEST(inotify_counts_notifications)
{
	struct lh_capture *c;

	ck_assert_int_eq(lh_capture_open(&c, path, false, &diag), 0);
	ck_assert_str_eq(lh_capture_method(c), "inotify");
	ck_assert_int_ge(lh_capture_fd(c), 0);
	ck_assert_uint_eq(lh_capture_poll_interval(c), 0);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	set_value("150\n");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	set_value("200\n");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 2);
	lh_capture_close(c);
}
END_TEST

START_TEST(rearm_discards_own_writes)
{
	struct lh_capture *c;

	ck_assert_int_eq(lh_capture_open(&c, path, false, &diag), 0);
	set_value("0\n");	/* arming writes tracing_max_latency = 0 */
	lh_capture_rearm(c, "empty", 5);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 0);
	lh_capture_close(c);
}
END_TEST

START_TEST(lost_sections)
{
	struct lh_capture *c;

	ck_assert_int_eq(lh_capture_open(&c, path, false, &diag), 0);
	lh_capture_rearm(c, "", 0);
	/* Section 1 notified and read. */
	set_value("100\n");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert(lh_capture_is_new(c, "snap1", 5));
	lh_capture_captured(c);
	/* Sections 2 and 3 notified; 3 overwrote 2 before it was read. */
	set_value("110\n");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	set_value("120\n");
	ck_assert(lh_capture_is_new(c, "snap3", 5));
	lh_capture_captured(c);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	/* The notification of 3 arrives after 3 was read: the same snapshot again. */
	ck_assert(!lh_capture_is_new(c, "snap3", 5));
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 3);
	ck_assert_uint_eq(lh_capture_counts(c)->captured, 2);
	ck_assert_uint_eq(lh_capture_counts(c)->duplicates, 1);
	ck_assert_uint_eq(lh_capture_lost(c), 1);
	lh_capture_close(c);
}
END_TEST

START_TEST(identity)
{
	struct lh_capture *c;

	ck_assert_int_eq(lh_capture_open(&c, path, false, &diag), 0);
	lh_capture_rearm(c, "stale", 5);
	/* The snapshot present at arming is not new. */
	ck_assert(!lh_capture_is_new(c, "stale", 5));
	ck_assert(lh_capture_is_new(c, "# latency: 150 us\nA", 19));
	ck_assert(!lh_capture_is_new(c, "# latency: 150 us\nA", 19));
	ck_assert(lh_capture_is_new(c, "# latency: 150 us\nB", 19));
	/* A prefix is not the same snapshot. */
	ck_assert(lh_capture_is_new(c, "# latency: 150 us\n", 18));
	ck_assert(lh_capture_is_new(c, "# latency: 150 us\nB", 19));
	ck_assert_uint_eq(lh_capture_lost(c), 0);	/* never below zero */
	lh_capture_close(c);
}
END_TEST

START_TEST(poll_fallback)
{
	struct lh_capture *c;

	ck_assert_int_eq(lh_capture_open(&c, path, true, &diag), 0);
	ck_assert_str_eq(lh_capture_method(c), "poll");
	ck_assert_int_eq(lh_capture_fd(c), -1);
	ck_assert_uint_eq(lh_capture_poll_interval(c), LH_CAPTURE_POLL_NS);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	set_value("150\n");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	/* The same value again is not seen: polling undercounts, as documented. */
	set_value("150\n");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	set_value("0\n");
	lh_capture_rearm(c, "", 0);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	lh_capture_close(c);
}
END_TEST

START_TEST(unreadable_file)
{
	struct lh_capture *c = (struct lh_capture *)1;

	ck_assert_int_eq(lh_capture_open(&c, "/nonexistent/tracing_max_latency", false, &diag),
			 -1);
	ck_assert_ptr_null(c);
	ck_assert_uint_eq(diag.errors, 1);
	ck_assert(strstr(diag.msgs[0].text,
			 "cannot open '/nonexistent/tracing_max_latency': No such file"));
	lh_capture_close(NULL);
}
END_TEST

static Suite *capture_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, inotify_counts_notifications);
	tcase_add_test(tc, rearm_discards_own_writes);
	tcase_add_test(tc, lost_sections);
	tcase_add_test(tc, identity);
	tcase_add_test(tc, poll_fallback);
	tcase_add_test(tc, unreadable_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(capture_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
