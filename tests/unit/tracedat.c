// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of trace.dat reading (src/trace/tracedat.c) on the real files of tests/data: the
 * magic, the latency text through libtracecmd from a file and from a pipe, and the errors.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "trace/tracedat.h"
#include "util/util.h"
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

/* The latency text as lh_tracedat_read_latency() hands it over, joined (NUL-terminated). */
struct text {
	char	*buf;
	size_t	len;
	size_t	alloc;
	size_t	pieces;
};

static int collect(const char *s, size_t n, void *arg)
{
	struct text *t = arg;

	if (t->alloc - t->len < n + 1)
		lh_grow((void **)&t->buf, &t->alloc, t->len + n + 1, 1);
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
	t->pieces++;
	return 0;
}

/* Reads fd's latency text into *t. Return: what lh_tracedat_read_latency() returns. */
static int read_latency(int fd, const struct input *in, size_t len, struct text *t,
			const char **err)
{
	memset(t, 0, sizeof(*t));
	return lh_tracedat_read_latency(fd, in->buf, len, collect, t, err);
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
	struct text t;

	ck_assert_int_eq(read_latency(in.fd, &in, in.len, &t, &err), 0);
	ck_assert_ptr_null(err);
	ck_assert_uint_eq(t.len, strlen(t.buf));
	ck_assert(!strncmp(t.buf, "# tracer: irqsoff\n", 18));
	ck_assert_ptr_nonnull(strstr(t.buf, "\n# latency: 2007 us, #6/6, CPU#0"));
	ck_assert_ptr_nonnull(strstr(t.buf, "irq_handler_entry: irq=24 name=fakeraid\n"));
	ck_assert_ptr_nonnull(strstr(t.buf, " => ret_from_fork\n"));
	free(t.buf);
	release(&in);
}
END_TEST

START_TEST(test_latency_from_pipe)
{
	struct input in = slurp(IRQSOFF_DAT);
	struct text from_file, from_pipe;
	const char *err = NULL;
	int p[2];

	ck_assert_int_eq(read_latency(in.fd, &in, in.len, &from_file, &err), 0);
	/* A pipe cannot seek: libtracecmd gets a memory copy of the bytes already read. */
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(read_latency(p[0], &in, in.len, &from_pipe, &err), 0);
	ck_assert_uint_eq(from_pipe.len, from_file.len);
	ck_assert_mem_eq(from_pipe.buf, from_file.buf, from_file.len);
	close(p[0]);
	close(p[1]);
	free(from_file.buf);
	free(from_pipe.buf);
	release(&in);
}
END_TEST

static int stop_at_once(const char *s, size_t n, void *arg)
{
	(*(size_t *)arg)++;
	return -1;
}

/* The callback may stop the reading: no error, no more pieces, the child is ended. */
START_TEST(test_latency_stop)
{
	struct input in = slurp(IRQSOFF_DAT);
	const char *err = NULL;
	size_t calls = 0;

	ck_assert_int_eq(lh_tracedat_read_latency(in.fd, in.buf, in.len, stop_at_once, &calls,
						  &err), 0);
	ck_assert_uint_eq(calls, 1);
	release(&in);
}
END_TEST

START_TEST(test_flyrecord)
{
	struct input in = slurp(FLY_DAT);
	const char *err = NULL;
	struct text t;

	ck_assert(lh_tracedat_detect(in.buf, in.len));
	ck_assert_int_eq(read_latency(in.fd, &in, in.len, &t, &err), -1);
	ck_assert_uint_eq(t.len, 0);
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
	struct text t;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(lh_write_fd(fd, in.buf, in.len - 100), 0);
	ck_assert_int_eq(read_latency(fd, &in, in.len - 100, &t, &err), -1);
	ck_assert_uint_eq(t.len, 0);
	ck_assert(!strncmp(err, "libtracecmd ", 12));
	close(fd);
	release(&in);
}
END_TEST

/*
 * What the child that runs libtracecmd may do, checked in a child confined as it is: every
 * limit set, no descriptor but the two it is given, root's privileges gone. Each check
 * failed is a bit of the exit status.
 */
static int confined_child(int in, int out, int extra)
{
	struct rlimit as, cpu, core;
	int bad = 0;

	if (lh_tracedat_confine(in, out))
		return 0x80;
	if (getrlimit(RLIMIT_AS, &as) || getrlimit(RLIMIT_CPU, &cpu) || getrlimit(RLIMIT_CORE, &core))
		return 0x40;
#if !defined(__SANITIZE_ADDRESS__)
	bad |= as.rlim_max == RLIM_INFINITY;
#endif
	bad |= (cpu.rlim_cur > 30 || core.rlim_max != 0) << 1;
	bad |= (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) << 2;
	bad |= (fcntl(extra, F_GETFD) != -1 || fcntl(in, F_GETFD) == -1 ||
		fcntl(out, F_GETFD) == -1) << 3;
	bad |= (getuid() == 0 || geteuid() == 0 || getgid() == 0 || getgroups(0, NULL) != 0) << 4;
	/* no wall-clock limit: it would end a child whose reader is slow or stopped (Ctrl-Z) */
	bad |= (alarm(0) != 0) << 5;
	return bad;
}

/*
 * Runs confined_child() in a child that prepare (may be NULL) sets up first, and checks that
 * the child was confined; prepare failing is exit 0xff.
 */
static void check_confined(int (*prepare)(void))
{
	int in = open(IRQSOFF_DAT, O_RDONLY | O_CLOEXEC), p[2], extra = dup(0), status;
	pid_t pid;

	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(extra, 0);
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(prepare && prepare() ? 0xff : confined_child(in, p[1], extra));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_ne(WEXITSTATUS(status), 0xff);
	/* bit 4 (privileges) only means something when this test runs as root */
	ck_assert_int_eq(WEXITSTATUS(status) & (getuid() ? ~0x10 : ~0), 0);
	close(in);
	close(extra);
	close(p[0]);
	close(p[1]);
}

START_TEST(test_confine)
{
	check_confined(NULL);
}
END_TEST

#ifdef __NR_close_range
/* A kernel before 5.9, played by a seccomp filter. Return: 0, or -1 when it cannot be. */
static int no_close_range(void)
{
	static struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_close_range, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = LH_ARRAY_SIZE(f), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ||
	    close_range(100, 200, 0) != -1 || errno != ENOSYS)
		return -1;
	return 0;
}

/*
 * On a kernel before 5.9 close_range() is ENOSYS: the child is still confined (its
 * descriptors closed one at a time), not refused.
 */
START_TEST(test_confine_without_close_range)
{
	check_confined(no_close_range);
}
END_TEST
#endif

static Suite *tracedat_suite(void)
{
	Suite *s = suite_create("tracedat");
	TCase *tc = tcase_create("tracedat");
	/* the kernel's limits on the child: not emulated by qemu-user (tests/cross/run) */
	TCase *confine = tcase_create("confine");

	tcase_add_test(tc, test_detect);
	tcase_add_test(tc, test_latency_from_file);
	tcase_add_test(tc, test_latency_from_pipe);
	tcase_add_test(tc, test_latency_stop);
	tcase_add_test(tc, test_flyrecord);
	tcase_add_test(tc, test_flyrecord_cut);
	suite_add_tcase(s, tc);
	tcase_add_test(confine, test_confine);
#ifdef __NR_close_range
	tcase_add_test(confine, test_confine_without_close_range);
#endif
	suite_add_tcase(s, confine);
	return s;
}

LH_CHECK_MAIN(tracedat_suite)
