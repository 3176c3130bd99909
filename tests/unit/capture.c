// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of section notifications and reads (src/kernel/capture.c), against plain files
 * standing in for tracing_max_latency and 'trace': inotify reports writes to both alike, and
 * the test plays the kernel (a section = a new 'trace' and a write of its latency).
 */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check-main.h"
#include "kernel/capture.h"

static char dir[64], maxp[96], tracep[96], pausep[96];
static struct lh_diag diag;
static char *buf;
static size_t alloc, len;

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* One write, so one IN_MODIFY, as the kernel sends one per section. */
static void set_max(const char *v)
{
	char text[16];
	int fd = open(maxp, O_WRONLY);

	snprintf(text, sizeof(text), "%-7s\n", v);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, text, 8, 0), 8);
	close(fd);
}

/* A section as the kernel records it: the snapshot, then the latency. */
static void section(const char *text, const char *us)
{
	put(tracep, text);
	set_max(us);
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/lh-capture-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(maxp, sizeof(maxp), "%s/tracing_max_latency", dir);
	snprintf(tracep, sizeof(tracep), "%s/trace", dir);
	snprintf(pausep, sizeof(pausep), "%s/pause-on-trace", dir);
	put(maxp, "0\n");
	put(pausep, "0\n");
	put(tracep, "# tracer: irqsoff\n");
	memset(&diag, 0, sizeof(diag));
	buf = NULL;
	alloc = len = 0;
}

static void teardown(void)
{
	unlink(maxp);
	unlink(tracep);
	unlink(pausep);
	rmdir(dir);
	lh_diag_release(&diag);
	free(buf);
}

static struct lh_capture *open_capture(bool threshold, bool poll)
{
	struct lh_capture_opts o = { .max_latency = maxp, .trace = tracep, .pause = pausep,
				     .threshold = threshold, .poll = poll };
	struct lh_capture *c;

	ck_assert_int_eq(lh_capture_open(&c, &o, &diag), 0);
	return c;
}

/* Reads as the record loop does; counts the capture when a section is new. */
static int take(struct lh_capture *c, bool final)
{
	int ret = lh_capture_read(c, &buf, &alloc, &len, final, &diag);

	if (ret == 1)
		lh_capture_captured(c);
	return ret;
}

START_TEST(inotify_counts_notifications)
{
	struct lh_capture *c = open_capture(false, false);

	ck_assert_str_eq(lh_capture_method(c), "inotify");
	ck_assert_int_ge(lh_capture_fd(c), 0);
	ck_assert_uint_eq(lh_capture_poll_interval(c), 0);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	set_max("150");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	set_max("200");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 2);
	lh_capture_close(c);
}
END_TEST

START_TEST(rearm_discards_own_writes)
{
	struct lh_capture *c = open_capture(false, false);

	set_max("0");	/* arming writes tracing_max_latency = 0 */
	lh_capture_rearm(c, 0, false);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 0);
	/* Nothing recorded since arming: whatever 'trace' shows is not a section. */
	ck_assert_int_eq(take(c, true), 0);
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 0);
	lh_capture_close(c);
}
END_TEST

START_TEST(rearm_continues_from_the_running_max)
{
	struct lh_capture *c = open_capture(false, false);

	/* Armed again: tracing_max_latency = the tracer's worst; 'trace' is what it was. */
	put(tracep, "# latency: 2500 us\nold\n");
	set_max("2500");
	lh_capture_rearm(c, 2500, false);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	/* The end of a slice without a section: the old snapshot is not read again. */
	ck_assert_int_eq(take(c, true), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 0);
	/* A section within the microsecond above the seed shows the same value: notified, new. */
	section("# latency: 2500 us\nnew\n", "2500");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 1);
	ck_assert_str_eq(buf, "# latency: 2500 us\nnew\n");
	/* Armed again at 2500: a longer section taken at the slice's end, before its event. */
	set_max("2500");
	lh_capture_rearm(c, 2500, false);
	put(tracep, "# latency: 2600 us\nlonger\n");
	set_max("2600");
	lh_capture_rearm(c, 2500, false);	/* (its event held back, as if the workqueue had not run) */
	ck_assert_int_eq(take(c, true), 1);
	ck_assert_str_eq(buf, "# latency: 2600 us\nlonger\n");
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 2);
	ck_assert_uint_eq(lh_capture_lost(c), 0);
	lh_capture_close(c);
}
END_TEST

START_TEST(running_max_reads_each_section_once)
{
	struct lh_capture *c = open_capture(false, false);

	lh_capture_rearm(c, 0, false);
	section("# latency: 100 us\nA\n", "100");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 1);
	ck_assert_str_eq(buf, "# latency: 100 us\nA\n");
	ck_assert_uint_eq(len, strlen(buf));
	/* Sections 2 and 3 notified; 3 overwrote 2 before it was read. */
	section("# latency: 110 us\nB\n", "110");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	section("# latency: 120 us\nC\n", "120");
	ck_assert_int_eq(take(c, false), 1);
	ck_assert_str_eq(buf, "# latency: 120 us\nC\n");
	/* 3's notification arrives after 3 was read: nothing new. */
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 0);
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 3);
	ck_assert_uint_eq(lh_capture_counts(c)->captured, 2);
	ck_assert_uint_eq(lh_capture_counts(c)->stale, 1);
	ck_assert_uint_eq(lh_capture_lost(c), 1);
	/* A new maximum whose text only differs: new. The same value, another text: new. */
	section("# latency: 130 us\nC\n", "130");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 1);
	put(tracep, "# latency: 130 us\nD\n");
	ck_assert_int_eq(take(c, false), 1);
	lh_capture_close(c);
}
END_TEST

START_TEST(threshold_identical_sections_are_all_taken)
{
	struct lh_capture *c = open_capture(true, false);
	int i;

	lh_capture_rearm(c, 0, false);
	/* 20 byte-identical sections (the same injection under icount): each one counts. */
	for (i = 0; i < 20; i++) {
		section("# latency: 2008 us\nsame\n", "2008");
		ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
		ck_assert_int_eq(take(c, false), 1);
	}
	ck_assert_uint_eq(lh_capture_counts(c)->captured, 20);
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 20);
	ck_assert_uint_eq(lh_capture_lost(c), 0);
	/* Each read reset tracing_max_latency: our own write is not a notification. */
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	lh_capture_close(c);
}
END_TEST

START_TEST(threshold_late_notification)
{
	struct lh_capture *c = open_capture(true, false);

	lh_capture_rearm(c, 0, false);
	/* Section A is notified; B ends before A is read, its notification still on its way. */
	section("# latency: 1500 us\nA\n", "1500");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	section("# latency: 1600 us\nB\n", "1600");
	lh_capture_rearm(c, 0, false);	/* (B's event, held back: as if the workqueue had not run) */
	ck_assert_int_eq(take(c, false), 1);
	ck_assert_str_eq(buf, "# latency: 1600 us\nB\n");
	/* B's notification comes: tracing_max_latency is still the 0 the read left. */
	set_max("0");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 0);
	/* Two sections notified, one captured: A was lost. */
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 2);
	ck_assert_uint_eq(lh_capture_lost(c), 1);
	lh_capture_close(c);
}
END_TEST

START_TEST(threshold_overwritten_section_is_lost)
{
	struct lh_capture *c = open_capture(true, false);

	lh_capture_rearm(c, 0, false);
	section("# latency: 1500 us\nA\n", "1500");
	section("# latency: 1600 us\nB\n", "1600");
	/* inotify merged the two unread identical events: one notification for two sections. */
	ck_assert_int_ge(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 1);
	ck_assert_str_eq(buf, "# latency: 1600 us\nB\n");
	ck_assert_uint_eq(lh_capture_counts(c)->captured, 1);
	/* A lower bound: what inotify merged is not seen. */
	ck_assert_uint_le(lh_capture_lost(c), 1);
	lh_capture_close(c);
}
END_TEST

/*
 * The kernel of a live read: 'trace' is a FIFO served by a child, one text per open; with
 * then, the child records a section (a write of tracing_max_latency) while the reader has
 * the first text, before it sees the end of the file.
 */
static pid_t serve_trace(const char *first, const char *then, const char *second)
{
	char ev[256] __attribute__((aligned(__alignof__(struct inotify_event))));
	pid_t pid;
	int fd, ifd;

	unlink(tracep);
	ck_assert_int_eq(mkfifo(tracep, 0644), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid)
		return pid;
	/* The second text only once the reader of the first has closed it. */
	ifd = inotify_init1(IN_CLOEXEC);
	if (ifd < 0 || inotify_add_watch(ifd, tracep, IN_CLOSE_NOWRITE) < 0)
		_exit(1);
	fd = open(tracep, O_WRONLY);
	if (fd < 0 || write(fd, first, strlen(first)) != (ssize_t)strlen(first))
		_exit(1);
	if (then)
		set_max(then);
	close(fd);
	if (read(ifd, ev, sizeof(ev)) <= 0)
		_exit(1);
	fd = open(tracep, O_WRONLY);
	if (fd < 0 || write(fd, second, strlen(second)) != (ssize_t)strlen(second))
		_exit(1);
	close(fd);
	_exit(0);
}

/* Return: what options/pause-on-trace holds (static). */
static const char *pause_value(void)
{
	static char v[8];
	int fd = open(pausep, O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, v, sizeof(v) - 1);
	close(fd);
	v[n > 0 ? n : 0] = '\0';
	return v;
}

static void served(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Live reads: tracing_max_latency is 0 from before the read to after it: nothing tore it. */
START_TEST(live_read_whole)
{
	struct lh_capture *c = open_capture(true, false);
	pid_t pid;

	lh_capture_rearm(c, 0, true);
	ck_assert(lh_capture_live(c));
	pid = serve_trace("# latency: 1500 us\nA\n", NULL, "# latency: 1500 us\nA2\n");
	set_max("1500");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 1);
	ck_assert_str_eq(buf, "# latency: 1500 us\nA\n");
	ck_assert_uint_eq(lh_capture_counts(c)->torn, 0);
	/* Marked taken before the read: our write is not a notification. */
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	ck_assert_int_eq(take(c, false), 0);
	/* (the second open serves the child's last text) */
	ck_assert_int_eq(take(c, false), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	lh_capture_close(c);
}
END_TEST

/*
 * A section recorded while 'trace' is read: the text read may be half of each, so it is
 * dropped (torn: A is lost) and the section that replaced it read whole, paused: sections
 * come faster than a read, so pause-on-trace is set again for a while.
 */
START_TEST(live_read_torn_is_read_again)
{
	struct lh_capture *c = open_capture(true, false);
	pid_t pid;

	lh_capture_rearm(c, 0, true);
	pid = serve_trace("# latency: 1500 us\nA\n", "1600", "# latency: 1600 us\nB\n");
	set_max("1500");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 1);
	served(pid);
	ck_assert_str_eq(buf, "# latency: 1600 us\nB\n");
	ck_assert_uint_eq(lh_capture_counts(c)->torn, 1);
	ck_assert_uint_eq(lh_capture_counts(c)->captured, 1);
	ck_assert_uint_gt(lh_capture_counts(c)->paused_ns, 0);
	ck_assert_str_eq(pause_value(), "1\n");
	/* B's notification was counted by the second read's reset, not swallowed by it. */
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 2);
	ck_assert_uint_eq(lh_capture_lost(c), 1);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	/* Arming again clears pause-on-trace (the session does): reads are live again. */
	lh_capture_rearm(c, 0, true);
	unlink(tracep);		/* a file again */
	put(tracep, "# latency: 1700 us\nC\n");
	set_max("1700");
	ck_assert_int_eq(take(c, false), 1);
	ck_assert_uint_eq(lh_capture_counts(c)->torn, 1);
	ck_assert_str_eq(pause_value(), "1\n");	/* not written: arming clears it */
	lh_capture_close(c);
}
END_TEST

/* Without a threshold reads pause, even where pause-on-trace is off: no torn check there. */
START_TEST(live_needs_a_threshold)
{
	struct lh_capture *c = open_capture(false, false);

	lh_capture_rearm(c, 0, true);
	ck_assert(!lh_capture_live(c));
	lh_capture_close(c);
}
END_TEST

/* The kernel kept the old body under a new header, and said so: not a section read. */
START_TEST(failed_swap_is_torn)
{
	struct lh_capture *c = open_capture(true, false);

	lh_capture_rearm(c, 0, false);
	section("# latency: 1600 us\nA\n"
		"lhx-78 0d.... 1590us : Failed to swap buffers due to commit or resize in progress\n",
		"1600");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 0);
	ck_assert_uint_eq(lh_capture_counts(c)->torn, 1);
	ck_assert_uint_eq(lh_capture_lost(c), 1);
	/* Marked taken: not read again. */
	ck_assert_int_eq(take(c, false), 0);
	ck_assert_uint_eq(lh_capture_counts(c)->torn, 1);
	lh_capture_close(c);
}
END_TEST

/*
 * The kernel counted the max buffer's entries while it changed: a count below zero, printed
 * unsigned. Not a section read; the next one with a sane count is.
 */
START_TEST(wrapped_entry_count_is_torn)
{
	struct lh_capture *c = open_capture(true, false);

	lh_capture_rearm(c, 0, true);
	section("# tracer: irqsoff\n# latency: 1500 us, #18446744073709551614/18446744073709551614, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)\nA\n",
		"1500");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 0);
	ck_assert_uint_eq(lh_capture_counts(c)->torn, 1);
	ck_assert_uint_eq(lh_capture_lost(c), 1);
	section("# tracer: irqsoff\n# latency: 1502 us, #4/4, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)\nB\n",
		"1502");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 1);
	ck_assert_ptr_nonnull(memmem(buf, len, "\nB\n", 3));
	ck_assert_uint_eq(lh_capture_counts(c)->torn, 1);
	lh_capture_close(c);
}
END_TEST

START_TEST(final_read_takes_unnotified_section)
{
	struct lh_capture *c = open_capture(false, false);

	lh_capture_rearm(c, 0, false);
	/* A section whose notification has not come yet when the run ends. */
	put(tracep, "# latency: 2000 us\nlast\n");
	set_max("2000");
	/* (its event is discarded here, as if the workqueue had not run yet) */
	lh_capture_rearm(c, 0, false);
	ck_assert_int_eq(take(c, true), 1);
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 1);
	ck_assert_uint_eq(lh_capture_counts(c)->captured, 1);
	ck_assert_uint_eq(lh_capture_lost(c), 0);
	/* Read again at the very end: nothing new, nothing counted. */
	ck_assert_int_eq(take(c, true), 0);
	ck_assert_uint_eq(lh_capture_counts(c)->notifications, 1);
	lh_capture_close(c);
}
END_TEST

START_TEST(poll_fallback)
{
	struct lh_capture *c = open_capture(false, true);

	ck_assert_str_eq(lh_capture_method(c), "poll");
	ck_assert_int_eq(lh_capture_fd(c), -1);
	ck_assert_uint_eq(lh_capture_poll_interval(c), LH_CAPTURE_POLL_NS);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	set_max("150");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	/* The same value again is not seen: polling undercounts, as documented. */
	set_max("150");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	set_max("0");
	lh_capture_rearm(c, 0, false);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	lh_capture_close(c);
}
END_TEST

START_TEST(poll_with_threshold_sees_equal_sections)
{
	struct lh_capture *c = open_capture(true, true);

	lh_capture_rearm(c, 0, false);
	/* The reset after each read makes equal latencies in a row visible to polling. */
	section("# latency: 1500 us\nA\n", "1500");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 1);
	ck_assert_int_eq(lh_capture_pending(c, &diag), 0);
	section("# latency: 1500 us\nA\n", "1500");
	ck_assert_int_eq(lh_capture_pending(c, &diag), 1);
	ck_assert_int_eq(take(c, false), 1);
	ck_assert_uint_eq(lh_capture_counts(c)->captured, 2);
	ck_assert_uint_eq(lh_capture_lost(c), 0);
	lh_capture_close(c);
}
END_TEST

START_TEST(errors)
{
	struct lh_capture_opts o = { .max_latency = "/nonexistent/tracing_max_latency",
				     .trace = tracep };
	struct lh_capture *c = (struct lh_capture *)1;

	ck_assert_int_eq(lh_capture_open(&c, &o, &diag), -1);
	ck_assert_ptr_null(c);
	ck_assert_uint_eq(diag.errors, 1);
	ck_assert(strstr(diag.msgs[0].text,
			 "cannot open '/nonexistent/tracing_max_latency': No such file"));
	lh_capture_close(NULL);
	/* 'trace' gone: the read fails and says which file. */
	c = open_capture(false, false);
	unlink(tracep);
	set_max("10");
	ck_assert_int_eq(take(c, false), -1);
	ck_assert(strstr(diag.msgs[diag.nr - 1].text, "/trace': No such file"));
	lh_capture_close(c);
}
END_TEST

static Suite *capture_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, inotify_counts_notifications);
	tcase_add_test(tc, rearm_discards_own_writes);
	tcase_add_test(tc, rearm_continues_from_the_running_max);
	tcase_add_test(tc, running_max_reads_each_section_once);
	tcase_add_test(tc, threshold_identical_sections_are_all_taken);
	tcase_add_test(tc, threshold_late_notification);
	tcase_add_test(tc, threshold_overwritten_section_is_lost);
	tcase_add_test(tc, live_read_whole);
	tcase_add_test(tc, live_read_torn_is_read_again);
	tcase_add_test(tc, live_needs_a_threshold);
	tcase_add_test(tc, failed_swap_is_torn);
	tcase_add_test(tc, wrapped_entry_count_is_torn);
	tcase_add_test(tc, final_read_takes_unnotified_section);
	tcase_add_test(tc, poll_fallback);
	tcase_add_test(tc, poll_with_threshold_sees_equal_sections);
	tcase_add_test(tc, errors);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(capture_suite)
