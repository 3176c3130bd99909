/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keeping the top-level instance's live buffer of one CPU nearly empty while an irqsoff-family
 * tracer is armed, so that a snapshot reads fast (capture.h: a live read races the next
 * section, a paused one leaves the tracer blind while it lasts).
 *
 * When such a tracer records a section it swaps the CPU's live buffer into the max buffer:
 * whatever the live buffer held before the section (the IRQ events of every handler since
 * the last swap) comes along, and each read of 'trace' walks all of it up to the section's
 * start, twice (at open and at the first read). On the test kernel a live read of one
 * 1500 us section took 5.9-7.0 ms that way, longer than the gap between sections at
 * 200 a second, so reads were torn. Reading per_cpu/cpuN/trace_pipe_raw as it fills
 * (the kernel wakes a poller at buffer_percent) consumes those events before the swap.
 *
 * Only safe where lathound cannot run while a section is open on the drained CPU: on a
 * machine of one CPU, a section keeps interrupts or preemption off on the only CPU, so no
 * read can consume its first entries. lh_session_arm() decides.
 * The kernel refuses a tracer change (EBUSY) while a trace_pipe file is open: the drain is
 * closed before every write of current_tracer; the kernel closes it when lathound is killed.
 * No printing: problems go to the caller's lh_diag.
 */
#ifndef LH_DRAIN_H
#define LH_DRAIN_H

#include <stdint.h>

#include "util/util.h"

struct lh_drain;

/*
 * Opens per_cpu/cpu<cpu>/trace_pipe_raw of the top-level instance, non-blocking.
 * Return: 0 and *d (close with lh_drain_close()), or -1 with the reason in diag.
 */
int lh_drain_open(struct lh_drain **d, int cpu, struct lh_diag *diag);
/* Closes the buffer file and frees d. NULL-safe. */
void lh_drain_close(struct lh_drain *d);
/* Return: the fd to poll for POLLIN (the buffer is buffer_percent full). */
int lh_drain_fd(const struct lh_drain *d);
/*
 * Reads and discards what the buffer holds, at most one buffer's worth (a flood cannot keep
 * the caller here), without blocking. Return: bytes read, or -1 with errno.
 */
long lh_drain_read(struct lh_drain *d);
/* Return: the bytes read and discarded since lh_drain_open(). */
uint64_t lh_drain_bytes(const struct lh_drain *d);

#endif /* LH_DRAIN_H */
