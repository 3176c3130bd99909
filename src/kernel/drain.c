// SPDX-License-Identifier: GPL-2.0-only
/* Reading each CPU's live buffer as it fills, from that CPU, to keep it nearly empty (drain.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <tracefs.h>

#include "drain.h"

/* How long lh_drain_stop() waits for a thread, before and after raising its priority. */
#define STOP_WAIT_S	2
/* Reads in a row that find a buffer polled ready empty: it is one that polls so for ever. */
#define READY_EMPTY	3

/* One CPU's live buffer and the thread that reads it, on that CPU only. */
struct drain_cpu {
	struct lh_drain		*set;
	int			cpu;
	pthread_t		thread;
	bool			started;	/* thread created: joined by lh_drain_stop() */
	bool			joined;
	int			kick_fd;	/* eventfd: poll the buffer anew (lh_drain_kick()) */
	int			fd;		/* per_cpu/cpuN/trace_pipe_raw; the thread's */
	struct tracefs_cpu	*tcpu;		/* over fd */
	void			*page;		/* one sub-buffer, reused */
	long			pages;		/* a buffer's worth: the most one read takes */
};

struct lh_drain {
	int			stop_fd;	/* eventfd: readable once the threads must end */
	int			page_size;
	int			nr_cpus;
	struct drain_cpu	*cpus;
	struct drain_cpu	*own;		/* the caller's only CPU, read by the caller */
};

/* Closes what the thread opened; the thread's last act. */
static void buffer_close(struct drain_cpu *c)
{
	if (c->tcpu)
		tracefs_cpu_free_fd(c->tcpu);	/* leaves fd open */
	c->tcpu = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->page);
	c->page = NULL;
}

/*
 * Reads and discards what the buffer holds, at most a buffer's worth, each read from the
 * buffer's CPU: moved elsewhere (its CPU taken offline, an affinity changed from outside),
 * the reader stops, since reads from another CPU are not safe (drain.h).
 * Return: bytes, or -1.
 */
static long buffer_read(struct drain_cpu *c)
{
	long pages, bytes = 0;
	int n = 0;

	for (pages = c->pages; pages > 0; pages--) {
		if (sched_getcpu() != c->cpu) {
			errno = EPERM;
			return -1;
		}
		n = tracefs_cpu_read(c->tcpu, c->page, true);
		if (n <= 0)
			break;
		bytes += n;
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return -1;
	return bytes;
}

/*
 * Opens the CPU's buffer and empties it. The kernel wakes a poller once buffer_percent of the
 * buffer's pages are full, the page being written counted as full: a buffer of two pages
 * (--buffer-size 4K) meets that even empty and polls ready for ever, and draining it would
 * spin. Emptied, the buffer must not poll ready: READY_EMPTY times in a row it did is one
 * such (once could be events written between the read and the poll).
 * Return: 0, or -1 (not drained).
 */
static int buffer_open(struct drain_cpu *c)
{
	char path[64];
	ssize_t kb;
	int i;

	snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", c->cpu);
	c->fd = tracefs_instance_file_open(NULL, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0)
		return -1;
	c->tcpu = tracefs_cpu_alloc_fd(c->fd, c->set->page_size, true);
	if (!c->tcpu)
		return -1;
	c->page = lh_xmalloc((size_t)c->set->page_size);
	kb = tracefs_instance_get_buffer_size(NULL, c->cpu);
	c->pages = (kb > 0 ? (long)kb * 1024 : 1024 * 1024) / c->set->page_size + 1;
	for (i = 0; i < READY_EMPTY; i++) {
		if (buffer_read(c) < 0)
			return -1;
		if (!poll(&(struct pollfd){ .fd = c->fd, .events = POLLIN }, 1, 0))
			return 0;
	}
	return -1;
}

/*
 * The thread of one CPU: bound to it before it opens the buffer, so that no section can be
 * open on that CPU while it reads (drain.h). A CPU it cannot run on (offline, outside
 * lathound's cpuset) is not drained; nor is one whose buffer fails, or reads empty when
 * polled ready (it would spin). Signals are blocked: they are the main thread's.
 */
static void *drain_thread(void *arg)
{
	struct drain_cpu *c = arg;
	cpu_set_t set;
	int empty = 0;

	CPU_ZERO(&set);
	CPU_SET(c->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) || buffer_open(c))
		goto out;
	for (;;) {
		struct pollfd p[3] = {
			{ .fd = c->fd, .events = POLLIN },
			{ .fd = c->set->stop_fd, .events = POLLIN },
			{ .fd = c->kick_fd, .events = POLLIN },
		};
		uint64_t kicks;
		long n;

		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents || (p[0].revents & (POLLERR | POLLHUP | POLLNVAL)))
			break;
		if (p[2].revents && read(c->kick_fd, &kicks, sizeof(kicks)) != sizeof(kicks))
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		/* Empty when ready: a section's swap came between, or a buffer ready for ever. */
		n = buffer_read(c);
		empty = n ? 0 : empty + 1;
		if (n < 0 || empty == READY_EMPTY)
			break;
	}
out:
	buffer_close(c);
	return NULL;
}

int lh_drain_start(struct lh_drain **dp, struct lh_diag *diag)
{
	struct lh_drain *d = lh_xcalloc(1, sizeof(*d));
	sigset_t all, old;
	cpu_set_t mask;
	int cpu, err = 0;

	*dp = NULL;
	d->page_size = getpagesize();
	d->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (d->nr_cpus < 1)
		d->nr_cpus = 1;
	d->cpus = lh_xcalloc((size_t)d->nr_cpus, sizeof(*d->cpus));
	for (cpu = 0; cpu < d->nr_cpus; cpu++)
		d->cpus[cpu].fd = d->cpus[cpu].kick_fd = -1;
	d->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (d->stop_fd < 0) {
		lh_diag_fail(diag, "cannot create an eventfd: %s", strerror(errno));
		free(d->cpus);
		free(d);
		return -1;
	}
	/*
	 * The caller confined to one CPU (on a machine of one CPU, always) reads that CPU's
	 * buffer in its own wait: a thread there would only add a switch per read, and was
	 * measured to tear more snapshots (bench/README.md).
	 */
	if (sched_getaffinity(0, sizeof(mask), &mask))
		CPU_ZERO(&mask);	/* unknown: every CPU */
	if (CPU_COUNT(&mask) == 1) {
		for (cpu = 0; cpu < d->nr_cpus && !CPU_ISSET(cpu, &mask); cpu++)
			;
		if (cpu < d->nr_cpus) {
			d->own = &d->cpus[cpu];
			d->own->set = d;
			d->own->cpu = cpu;
			if (buffer_open(d->own)) {
				buffer_close(d->own);
				d->own = NULL;
			}
		}
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (cpu = 0; cpu < d->nr_cpus; cpu++) {
		struct drain_cpu *c = &d->cpus[cpu];

		/*
		 * The caller's only CPU is read by the caller (or not at all when that failed);
		 * a CPU lathound may not run on is left to the tasks it was kept for.
		 */
		if (CPU_COUNT(&mask) == 1 || (CPU_COUNT(&mask) && !CPU_ISSET(cpu, &mask)))
			continue;
		c->set = d;
		c->cpu = cpu;
		c->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		err = c->kick_fd < 0 ? errno : pthread_create(&c->thread, NULL, drain_thread, c);
		if (err)
			break;
		c->started = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* The CPUs from here on are not drained: slower reads, not wrong ones. */
	if (err)
		lh_diag_add(diag, LH_DIAG_WARNING, "cannot start the thread draining CPU %d (%s)", cpu,
			    strerror(err));
	*dp = d;
	return 0;
}

void lh_drain_kick(struct lh_drain *d)
{
	uint64_t one = 1;
	int cpu;

	for (cpu = 0; d && cpu < d->nr_cpus; cpu++) {
		/* A write fails only with the counter full (EAGAIN): kicked already. */
		ssize_t n = d->cpus[cpu].started ? write(d->cpus[cpu].kick_fd, &one, sizeof(one)) : 0;

		(void)n;
	}
}

int lh_drain_fd(const struct lh_drain *d)
{
	return d && d->own ? d->own->fd : -1;
}

long lh_drain_read(struct lh_drain *d, short revents)
{
	long n = -1;

	if (!d || !d->own)
		return 0;
	/* buffer_read() fails too where the caller's affinity changed under it */
	if (!(revents & (POLLERR | POLLHUP | POLLNVAL)))
		n = buffer_read(d->own);
	if (n < 0) {
		buffer_close(d->own);
		d->own = NULL;
	}
	return n;
}

/* Joins c's thread within STOP_WAIT_S. Return: 0, or an error number (ETIMEDOUT). */
static int join_within(struct drain_cpu *c)
{
	struct timespec ts;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += STOP_WAIT_S;
	err = pthread_clockjoin_np(c->thread, NULL, CLOCK_MONOTONIC, &ts);
	c->joined = !err;
	return err;
}

int lh_drain_stop(struct lh_drain *d)
{
	uint64_t one = 1;
	int cpu, err, ret = 0;

	if (!d)
		return 0;
	if (d->own)
		buffer_close(d->own);
	d->own = NULL;
	if (write(d->stop_fd, &one, sizeof(one)) != sizeof(one))
		return -1;
	for (cpu = 0; cpu < d->nr_cpus; cpu++) {
		struct drain_cpu *c = &d->cpus[cpu];

		if (!c->started || c->joined || !join_within(c))
			continue;
		/*
		 * Its CPU is held by a task of higher priority: a thread that cannot run keeps its
		 * buffer open, and the kernel refuses a tracer change while it is (EBUSY).
		 */
		err = pthread_setschedparam(c->thread, SCHED_FIFO, &(struct sched_param){
			.sched_priority = sched_get_priority_max(SCHED_FIFO) });
		if (!err)
			err = join_within(c);
		if (err) {
			ret = -1;
			errno = err;
		}
	}
	if (ret)	/* a thread still runs: leave it what it uses; the process's end frees it */
		return -1;
	close(d->stop_fd);
	for (cpu = 0; cpu < d->nr_cpus; cpu++)
		if (d->cpus[cpu].kick_fd >= 0)
			close(d->cpus[cpu].kick_fd);
	free(d->cpus);
	free(d);
	return 0;
}
