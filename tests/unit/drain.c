// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the live buffers' drain (src/kernel/drain.c) against a tracefs tree of FIFOs
 * standing in for per_cpu/cpuN/trace_pipe_raw (tracefs_set_tracing_dir()): the test writes
 * what a CPU's tracer would, and the drain must read it from that CPU's thread, or from the
 * caller when the caller runs on one CPU alone, and close every buffer when stopped (the
 * kernel refuses a tracer change while one is open). The real buffers are read in the smp2
 * guest of tests/vm/run (percpu: each CPU's 'read events').
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <tracefs.h>

#include "check-main.h"
#include "kernel/drain.h"

static char dir[64];
static int nr_cpus;
static struct lh_diag diag;

static void path(char *p, size_t size, int cpu, const char *file)
{
	snprintf(p, size, "%s/per_cpu/cpu%d/%s", dir, cpu, file);
}

static void setup(void)
{
	char p[160];
	int cpu, fd;

	snprintf(dir, sizeof(dir), "/tmp/lh-drain-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	snprintf(p, sizeof(p), "%s/per_cpu", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		snprintf(p, sizeof(p), "%s/per_cpu/cpu%d", dir, cpu);
		ck_assert_int_eq(mkdir(p, 0755), 0);
		path(p, sizeof(p), cpu, "trace_pipe_raw");
		ck_assert_int_eq(mkfifo(p, 0600), 0);
		path(p, sizeof(p), cpu, "buffer_size_kb");
		fd = open(p, O_WRONLY | O_CREAT, 0644);
		ck_assert_int_eq(write(fd, "8\n", 2), 2);
		close(fd);
	}
	ck_assert_int_eq(tracefs_set_tracing_dir(dir), 0);
	memset(&diag, 0, sizeof(diag));
}

static void teardown(void)
{
	char p[160];
	int cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		path(p, sizeof(p), cpu, "trace_pipe_raw");
		unlink(p);
		path(p, sizeof(p), cpu, "buffer_size_kb");
		unlink(p);
		snprintf(p, sizeof(p), "%s/per_cpu/cpu%d", dir, cpu);
		rmdir(p);
	}
	snprintf(p, sizeof(p), "%s/per_cpu", dir);
	rmdir(p);
	rmdir(dir);
	lh_diag_release(&diag);
}

/* Binds this process to the first CPU it may run on. Return: that CPU. */
static int confine(void)
{
	cpu_set_t all, one;
	int cpu;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	for (cpu = 0; !CPU_ISSET(cpu, &all); cpu++)
		;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	return cpu;
}

/* The write end of CPU cpu's buffer, once its reader has it open (-1 after 5 s). */
static int writer(int cpu)
{
	char p[160];
	int i, fd = -1;

	path(p, sizeof(p), cpu, "trace_pipe_raw");
	for (i = 0; i < 500 && fd < 0; i++) {
		fd = open(p, O_WRONLY | O_NONBLOCK);
		if (fd < 0 && errno == ENXIO)	/* no reader (yet) */
			usleep(10000);
	}
	return fd;
}

/* Return: bytes written to fd that nobody has read yet. */
static int unread(int fd)
{
	int n = -1;

	ck_assert_int_eq(ioctl(fd, FIONREAD, &n), 0);
	return n;
}

/* Waits up to 5 s for fd's bytes to be read. Return: the bytes still unread. */
static int wait_read(int fd)
{
	int i;

	for (i = 0; i < 500 && unread(fd); i++)
		usleep(10000);
	return unread(fd);
}

/* Return: whether CPU cpu's buffer is open for reading (a writer can open it). */
static bool reader_open(int cpu)
{
	char p[160];
	int fd;

	path(p, sizeof(p), cpu, "trace_pipe_raw");
	fd = open(p, O_WRONLY | O_NONBLOCK);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* Every CPU this process may run on is read: by its thread, or by the caller if it is the only one. */
START_TEST(every_cpu_read_by_its_thread)
{
	struct lh_drain *d;
	cpu_set_t all;
	int cpu, fd[CPU_SETSIZE];
	bool own;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	own = CPU_COUNT(&all) == 1;
	ck_assert_int_eq(lh_drain_start(&d, &diag), 0);
	ck_assert_int_eq(lh_drain_fd(d) >= 0, own);
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		if (!CPU_ISSET(cpu, &all))
			continue;
		fd[cpu] = writer(cpu);
		ck_assert_msg(fd[cpu] >= 0, "CPU %d's buffer was never opened", cpu);
		ck_assert_int_eq(write(fd[cpu], "events of a CPU", 15), 15);
		if (own)
			ck_assert_int_eq(lh_drain_read(d, POLLIN), 15);
		ck_assert_msg(wait_read(fd[cpu]) == 0, "CPU %d's buffer was not read", cpu);
		/*
		 * A kick (after a section's swap) leaves the thread reading: on a FIFO nothing
		 * swaps, so what the kick is for is checked on a kernel (tests/vm/run, percpu).
		 */
		lh_drain_kick(d);
		ck_assert_int_eq(write(fd[cpu], "more", 4), 4);
		if (own)
			ck_assert_int_eq(lh_drain_read(d, POLLIN), 4);
		ck_assert_msg(wait_read(fd[cpu]) == 0, "CPU %d's buffer was not read again", cpu);
	}
	ck_assert_int_eq(lh_drain_stop(d), 0);
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		if (!CPU_ISSET(cpu, &all))
			continue;
		close(fd[cpu]);
		ck_assert_msg(!reader_open(cpu), "CPU %d's buffer is still open after the stop", cpu);
	}
}
END_TEST

START_TEST(own_cpu_read_by_the_caller)
{
	struct lh_drain *d;
	int cpu, fd;

	/* Confined to one CPU, the caller reads that CPU's buffer in its own wait. */
	cpu = confine();
	ck_assert_int_eq(lh_drain_start(&d, &diag), 0);
	ck_assert_int_ge(lh_drain_fd(d), 0);
	fd = writer(cpu);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "events of a CPU", 15), 15);
	usleep(100000);
	ck_assert_int_eq(unread(fd), 15);	/* no thread read it */
	ck_assert_int_eq(poll(&(struct pollfd){ .fd = lh_drain_fd(d), .events = POLLIN }, 1, 0), 1);
	ck_assert_int_eq(lh_drain_read(d, POLLIN), 15);
	ck_assert_int_eq(unread(fd), 0);
	/* An error on the buffer closes it: reads are then slower, not wrong. */
	ck_assert_int_eq(lh_drain_read(d, POLLERR), -1);
	ck_assert_int_eq(lh_drain_fd(d), -1);
	ck_assert(!reader_open(cpu));
	ck_assert_int_eq(lh_drain_read(d, POLLIN), 0);
	ck_assert_int_eq(lh_drain_stop(d), 0);
	close(fd);
}
END_TEST

START_TEST(a_buffer_ready_when_empty_is_not_drained)
{
	struct lh_drain *d;
	char p[160];
	int cpu, fd;

	/* A buffer that polls ready with nothing in it (a regular file does) would spin. */
	cpu = confine();
	path(p, sizeof(p), cpu, "trace_pipe_raw");
	ck_assert_int_eq(unlink(p), 0);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(lh_drain_start(&d, &diag), 0);
	ck_assert_int_eq(lh_drain_fd(d), -1);
	ck_assert_int_eq(lh_drain_stop(d), 0);
}
END_TEST

START_TEST(stop_is_null_safe)
{
	ck_assert_int_eq(lh_drain_stop(NULL), 0);
	lh_drain_kick(NULL);
	ck_assert_int_eq(lh_drain_fd(NULL), -1);
	ck_assert_int_eq(lh_drain_read(NULL, POLLIN), 0);
}
END_TEST

static Suite *drain_suite(void)
{
	Suite *s = suite_create("drain");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);	/* the waits' 5 s say what failed, not Check's 4 s */
	tcase_add_test(tc, every_cpu_read_by_its_thread);
	tcase_add_test(tc, own_cpu_read_by_the_caller);
	tcase_add_test(tc, a_buffer_ready_when_empty_is_not_drained);
	tcase_add_test(tc, stop_is_null_safe);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(drain_suite)
