// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of trace.dat reading (src/tracedat.c) on the real files of tests/data: the magic,
 * the latency text through libtracecmd from a file and from a pipe, and the errors.
 */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracedat.h"
#include "util.h"
#include "check-main.h"

#define IRQSOFF_DAT	LH_TEST_DATA "/vm-tracecmd-irqsoff.dat"
#define FLY_DAT		LH_TEST_DATA "/vm-tracecmd-flyrecord.dat"
#define TEXT_TRACE	LH_TEST_DATA "/vm-irqsoff-fakeraid.trace"

struct input {
	int	fd;
	char	*buf;
	size_t	len;
};

/* Opens path and reads it whole, leaving fd at its end as cmd-analyze.c's reader does. */
static struct input slurp(const char *path)
{
	struct input in = { .fd = open(path, O_RDONLY | O_CLOEXEC) };
	size_t alloc = 0;

	ck_assert_int_ge(in.fd, 0);
	ck_assert_int_eq(lh_read_fd(in.fd, &in.buf, &alloc, &in.len, SIZE_MAX), 0);
	return in;
}

static void release(struct input *in)
{
	close(in->fd);
	free(in->buf);
}

START_TEST(test_detect)
{
	struct input dat = slurp(IRQSOFF_DAT), text = slurp(TEXT_TRACE);

	ck_assert(lh_tracedat_detect(dat.buf, dat.len));
	ck_assert(lh_tracedat_detect(dat.buf, 10));
	ck_assert(!lh_tracedat_detect(dat.buf, 9));
	ck_assert(!lh_tracedat_detect(text.buf, text.len));
	ck_assert(!lh_tracedat_detect("", 0));
	dat.buf[3] = 'T';
	ck_assert(!lh_tracedat_detect(dat.buf, dat.len));
	release(&dat);
	release(&text);
}
END_TEST

START_TEST(test_latency_from_file)
{
	struct input in = slurp(IRQSOFF_DAT);
	const char *err = NULL;
	size_t len = 0;
	char *text = NULL;

	ck_assert_int_eq(lh_tracedat_read_latency(in.fd, in.buf, in.len, &text, &len, &err), 0);
	ck_assert_ptr_null(err);
	ck_assert_uint_eq(len, strlen(text));
	ck_assert(!strncmp(text, "# tracer: irqsoff\n", 18));
	ck_assert_ptr_nonnull(strstr(text, "\n# latency: 2007 us, #6/6, CPU#0"));
	ck_assert_ptr_nonnull(strstr(text, "irq_handler_entry: irq=24 name=fakeraid\n"));
	ck_assert_ptr_nonnull(strstr(text, " => ret_from_fork\n"));
	free(text);
	release(&in);
}
END_TEST

START_TEST(test_latency_from_pipe)
{
	struct input in = slurp(IRQSOFF_DAT);
	char *from_file = NULL, *from_pipe = NULL;
	size_t file_len = 0, pipe_len = 0;
	const char *err = NULL;
	int p[2];

	ck_assert_int_eq(lh_tracedat_read_latency(in.fd, in.buf, in.len, &from_file, &file_len,
						  &err), 0);
	/* A pipe cannot seek: libtracecmd gets a memory copy of the bytes already read. */
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(lh_tracedat_read_latency(p[0], in.buf, in.len, &from_pipe, &pipe_len,
						  &err), 0);
	ck_assert_uint_eq(pipe_len, file_len);
	ck_assert_mem_eq(from_pipe, from_file, file_len);
	close(p[0]);
	close(p[1]);
	free(from_file);
	free(from_pipe);
	release(&in);
}
END_TEST

START_TEST(test_flyrecord)
{
	struct input in = slurp(FLY_DAT);
	const char *err = NULL;
	size_t len = 0;
	char *text = NULL;

	ck_assert(lh_tracedat_detect(in.buf, in.len));
	ck_assert_int_eq(lh_tracedat_read_latency(in.fd, in.buf, in.len, &text, &len, &err), -1);
	ck_assert_ptr_null(text);
	ck_assert_str_eq(err, "no latency data in it, only a flyrecord of events (record with 'trace-cmd record -p irqsoff' or another latency tracer)");
	release(&in);
}
END_TEST

/* libtracecmd 1.3 dies of a NULL pointer on this one: an error, and this process goes on. */
START_TEST(test_flyrecord_cut)
{
	struct input in = slurp(FLY_DAT);
	char path[] = "/tmp/lh-tracedat-test.XXXXXX";
	const char *err = NULL;
	size_t len = 0;
	char *text = NULL;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(lh_write_fd(fd, in.buf, in.len - 100), 0);
	ck_assert_int_eq(lh_tracedat_read_latency(fd, in.buf, in.len - 100, &text, &len, &err), -1);
	ck_assert_ptr_null(text);
	ck_assert(!strncmp(err, "libtracecmd ", 12));
	close(fd);
	release(&in);
}
END_TEST

static Suite *tracedat_suite(void)
{
	Suite *s = suite_create("tracedat");
	TCase *tc = tcase_create("tracedat");

	tcase_add_test(tc, test_detect);
	tcase_add_test(tc, test_latency_from_file);
	tcase_add_test(tc, test_latency_from_pipe);
	tcase_add_test(tc, test_flyrecord);
	tcase_add_test(tc, test_flyrecord_cut);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(tracedat_suite)
