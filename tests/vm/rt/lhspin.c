// SPDX-License-Identifier: GPL-2.0-only
/*
 * The culprit of the timerlat/osnoise scenarios on Debian's RT kernel: a SCHED_FIFO 99
 * thread pinned to one CPU that spins SPIN_MS every PERIOD_MS, COUNT times. It runs above
 * timerlat's threads (FIFO 95), so each spin that covers a timer blocks its thread until
 * the spin ends. Busybox has no chrt: built static for the guest by tests/vm/rt/run.
 *
 *	lhspin CPU SPIN_MS PERIOD_MS COUNT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 99 };
	long long spin, period, next;
	cpu_set_t set;
	int cpu, count, i;

	if (argc != 5) {
		fprintf(stderr, "usage: lhspin CPU SPIN_MS PERIOD_MS COUNT\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	spin = atoll(argv[2]) * 1000000LL;
	period = atoll(argv[3]) * 1000000LL;
	count = atoi(argv[4]);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "lhspin: %s\n", strerror(errno));
		return 1;
	}
	next = now_ns();
	for (i = 0; i < count; i++) {
		long long end = now_ns() + spin;
		struct timespec ts;

		while (now_ns() < end)
			;
		next += period;
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	printf("lhspin: %d spins of %lld ms on CPU %d\n", count, spin / 1000000, cpu);
	return 0;
}
