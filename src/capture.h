/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Waiting for a latency tracer to record a new section, and telling new snapshots from
 * ones already read.
 *
 * The kernel notifies inotify watchers of tracing_max_latency (IN_MODIFY) from a workqueue
 * shortly after it records a section; where inotify cannot watch the file the value is
 * polled instead. Each notification stands for one recorded section (several may be merged
 * into one: inotify merges identical unread events and the kernel's work item runs once
 * for sections that end before it does). The snapshot read from 'trace' after a
 * notification is the latest section; one identical to the last snapshot read is the same
 * section, not a new one. So sections lost (overwritten before they were read) =
 * notifications - distinct snapshots captured, a lower bound of the true count.
 * No printing: problems go to the caller's lh_diag.
 */
#ifndef LH_CAPTURE_H
#define LH_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* How often tracing_max_latency is read where inotify is not available. */
#define LH_CAPTURE_POLL_NS	(100 * 1000 * 1000ULL)

struct lh_capture;

/* What the capture saw; sections_lost derives from the first two. */
struct lh_capture_counts {
	unsigned long	notifications;	/* sections the kernel said it recorded */
	unsigned long	captured;	/* distinct snapshots holding a section */
	unsigned long	duplicates;	/* reads that found the snapshot already captured */
};

/*
 * Watches path (tracing_max_latency) with inotify, or polls its value every
 * LH_CAPTURE_POLL_NS when inotify cannot watch it (the reason goes to diag as a warning)
 * or when force_poll is set. Return: 0 and *c (free with lh_capture_close()), or -1 with
 * the reason in diag when the file cannot even be read.
 */
int lh_capture_open(struct lh_capture **c, const char *path, bool force_poll,
		    struct lh_diag *diag);
/* Closes the watch and frees c. NULL-safe. */
void lh_capture_close(struct lh_capture *c);

/* Return: "inotify" or "poll" (static). */
const char *lh_capture_method(const struct lh_capture *c);
/* Return: the fd to wait on for POLLIN (inotify), or -1 when polling. */
int lh_capture_fd(const struct lh_capture *c);
/* Return: how often to call lh_capture_pending() when polling, 0 with inotify. */
uint64_t lh_capture_poll_interval(const struct lh_capture *c);

/*
 * Call right after (re)arming a tracer, with the 'trace' text as it is then: discards the
 * notifications our own writes to tracing_max_latency caused, and takes buf as the
 * snapshot already seen, so a stale one read after a late notification is not taken for a
 * new section.
 */
void lh_capture_rearm(struct lh_capture *c, const char *buf, size_t len);

/*
 * Return: the sections notified since the last call (0 when none), or -1 with the reason
 * in diag. Never blocks.
 */
long lh_capture_pending(struct lh_capture *c, struct lh_diag *diag);

/*
 * Return: true when the snapshot buf differs from the last one seen (it is then
 * remembered); false for a duplicate, which is counted.
 */
bool lh_capture_is_new(struct lh_capture *c, const char *buf, size_t len);
/* The caller found a section in the new snapshot: counts it as captured. */
void lh_capture_captured(struct lh_capture *c);

/* Return: the counters (borrowed). */
const struct lh_capture_counts *lh_capture_counts(const struct lh_capture *c);
/* Return: notifications - captured, or 0. */
unsigned long lh_capture_lost(const struct lh_capture *c);

#endif /* LH_CAPTURE_H */
