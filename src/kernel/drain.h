/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keeping the top-level instance's live buffers nearly empty while an irqsoff-family tracer
 * is armed, so that a snapshot reads fast (capture.h: a live read races the next section, a
 * paused one leaves the tracer blind while it lasts).
 *
 * When such a tracer records a section it swaps the CPU's live buffer into the max buffer:
 * whatever the live buffer held before the section (the IRQ events of every handler since
 * the last swap) comes along, and each read of 'trace' walks all of it up to the section's
 * start, twice (at open and at the first read). On the test kernel a live read of one
 * 1500 us section took 5.9-7.0 ms that way, longer than the gap between sections at
 * 200 a second, so reads were torn. Reading per_cpu/cpuN/trace_pipe_raw as it fills
 * (the kernel wakes a poller at buffer_percent) consumes those events before the swap.
 *
 * Only safe where no section can be open on CPU N while its buffer is read: a section keeps
 * interrupts or preemption off on its CPU, so a reader that runs on CPU N and nowhere else
 * cannot consume its first entries. Each CPU's buffer is therefore read by a thread bound
 * to that CPU, but when lathound may run on one CPU alone (on a machine of one CPU, always),
 * it reads that one in its wait (lh_drain_fd()). A CPU outside lathound's affinity (kept
 * for other tasks), or that a thread cannot run on (offline), is not drained: its reads
 * are slower, not wrong.
 * The kernel refuses a tracer change (EBUSY) while a trace_pipe file is open: the drain is
 * stopped before every write of current_tracer; the kernel closes it when lathound is killed.
 * No printing: problems go to the caller's lh_diag.
 */
#ifndef LH_DRAIN_H
#define LH_DRAIN_H

#include "util/util.h"

struct lh_drain;

/*
 * Starts reading per_cpu/cpuN/trace_pipe_raw of the top-level instance as it fills: one
 * thread for each CPU the caller may run on, bound to it, but when that is one CPU alone,
 * the caller reads it (lh_drain_fd()). Signals stay with the calling thread. A thread that
 * cannot be started leaves its CPU and the next ones undrained (a warning in diag).
 * Return: 0 and *d (end with lh_drain_stop()), or -1 with the reason in diag.
 */
int lh_drain_start(struct lh_drain **d, struct lh_diag *diag);
/* Return: the fd of the caller's own CPU's buffer, to poll for POLLIN; -1: none. */
int lh_drain_fd(const struct lh_drain *d);
/*
 * Call when poll() set revents on lh_drain_fd(): reads and discards what that buffer holds,
 * at most a buffer's worth, without blocking. A buffer that fails (an error, or revents other
 * than POLLIN) is closed: lh_drain_fd() is then -1.
 * Return: bytes read, 0 without that buffer, or -1 when it failed.
 */
long lh_drain_read(struct lh_drain *d, short revents);
/*
 * Makes every thread poll its buffer anew: call after a new maximum. A poller waits on
 * the CPU's buffer as it was when it polled; a section swaps that into the max buffer, and
 * the poller would sleep there, undrained, until the next swap brings it back. NULL-safe.
 */
void lh_drain_kick(struct lh_drain *d);
/*
 * Ends the threads, which close the buffers, and frees d. NULL-safe. A thread still running
 * after STOP_WAIT_S (a task of higher priority holds its CPU) is raised to SCHED_FIFO's top
 * priority and waited for as long again.
 * Return: 0, or -1 with errno when a thread still runs after that (its buffer may be open;
 * d is kept: call again).
 */
int lh_drain_stop(struct lh_drain *d);

#endif /* LH_DRAIN_H */
