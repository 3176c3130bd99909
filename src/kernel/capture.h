/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Waiting for a latency tracer to record a new section, and reading each one once.
 *
 * The kernel notifies inotify watchers of tracing_max_latency (IN_MODIFY) from a workqueue
 * shortly after it records a section, and sets tracing_max_latency to that section's
 * latency; where inotify cannot watch the file its value is polled instead.
 *
 * A snapshot is read in one of two ways:
 *   - paused: with 'trace' held open, tracing is paused (options/pause-on-trace, which the
 *     irqsoff tracers set when armed): no section can be recorded between reading
 *     tracing_max_latency and reading the snapshot, so the two belong together; but a
 *     section that ends while 'trace' is open is recorded by no one (the tracer is blind);
 *   - live, with a threshold and pause-on-trace cleared: tracing goes on while 'trace' is
 *     read. tracing_max_latency is set to 0 before the read; a section recorded during the
 *     read sets it to its latency (at least the threshold), so a value other than 0 after
 *     the read says the snapshot may have changed under the reader: that read is dropped
 *     (counted torn, its section lost) and the section that replaced it is read paused,
 *     with pause-on-trace set again for 100 ms (sections come faster than a read).
 * Either way, a snapshot whose body holds the kernel's "Failed to swap buffers" note (it
 * kept the old body under the new section's header), or whose header counts its entries
 * below zero (lh_parse_entries_wrapped()), is dropped and counted torn.
 * A live read costs two walks of the max buffer up to the section's start; the session keeps
 * the live buffers drained (drain.h) so that there is little to walk.
 * Whether it is a new section is decided from tracing_max_latency, not from the text (two
 * sections can print byte-identical snapshots):
 *   - with a threshold, tracing_max_latency is set to 0 with each read (before a live read,
 *     after a paused one, still paused); the kernel sets it to the latency of every section
 *     it records, so non-zero means new;
 *   - without one (running maxima; reads always pause: a new maximum may show the same
 *     microseconds as the old, so a change under a live read could not be told) a new
 *     section is a new maximum: new when the value or the text changed since the last
 *     read. Arming writes the running maximum the tracer continues from (0 the first
 *     time): until a section is notified, a value not above it means nothing was recorded
 *     since arming, and 'trace' is not even opened.
 *
 * Sections lost (recorded, but overwritten before they could be read) = notifications -
 * sections captured. Notifications lathound causes itself (arming, the reset above) are not
 * counted. It is a lower bound: inotify merges identical unread events and the kernel's
 * work item runs once for sections that end before it runs.
 * No printing: problems go to the caller's lh_diag.
 */
#ifndef LH_CAPTURE_H
#define LH_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/util.h"

/* How often tracing_max_latency is read where inotify is not available. */
#define LH_CAPTURE_POLL_NS	(100 * 1000 * 1000ULL)
/* After a torn live read, reads pause tracing for this long (sections come too fast). */
#define LH_CAPTURE_PAUSED_NS	(100 * 1000 * 1000ULL)

struct lh_capture;

/* What the capture saw; sections_lost derives from the first two. */
struct lh_capture_counts {
	unsigned long	notifications;	/* sections the kernel said it recorded */
	unsigned long	captured;	/* sections read and found in their snapshot */
	unsigned long	stale;		/* reads that found nothing new */
	unsigned long	torn;		/* snapshots dropped: a section replaced the one being
					 * read live, or the kernel kept the old body (lost) */
	uint64_t	paused_ns;	/* time spent in reads that paused tracing */
};

struct lh_capture_opts {
	const char	*max_latency;	/* path of tracing_max_latency */
	const char	*trace;		/* path of 'trace' */
	const char	*pause;		/* path of options/pause-on-trace, set when live reads
					 * fall back to paused ones; NULL: none */
	bool		threshold;	/* tracing_thresh is set: every section is recorded */
	bool		poll;		/* poll even where inotify works */
};

/*
 * Watches o->max_latency with inotify, or polls it every LH_CAPTURE_POLL_NS when inotify
 * cannot watch it (the reason goes to diag as a warning) or o->poll is set.
 * Return: 0 and *c (free with lh_capture_close()), or -1 with the reason in diag.
 */
int lh_capture_open(struct lh_capture **c, const struct lh_capture_opts *o,
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
 * Call right after (re)arming a tracer: discards the notifications that arming caused
 * (it writes tracing_max_latency) and forgets the last snapshot read. max_us is what arming
 * wrote to tracing_max_latency: the running maximum the tracer continues from, 0 with a
 * threshold or the first time. live: reading 'trace' does not pause tracing (pause-on-trace
 * is off); reads are then live ones when there is a threshold, paused ones otherwise.
 */
void lh_capture_rearm(struct lh_capture *c, uint64_t max_us, bool live);
/* Return: whether reads may leave tracing running (live reads, since the last rearm). */
bool lh_capture_live(const struct lh_capture *c);

/*
 * Return: the sections notified since the last call (0 when none), or -1 with the reason
 * in diag. Never blocks.
 */
long lh_capture_pending(struct lh_capture *c, struct lh_diag *diag);

/*
 * Reads the snapshot into *buf (grown as needed, owned by the caller, reused between
 * calls), its length in *len. A live read found torn is dropped and the section that
 * replaced it read paused (options/pause-on-trace set), as are the reads of the next
 * LH_CAPTURE_PAUSED_NS (their time in lh_capture_counts.paused_ns).
 * With final, a section found that was not notified yet (its notification would come after
 * the run) is counted as notified.
 * Return: 1 when it holds a section not read before, 0 when not, -1 with the reason in diag.
 */
int lh_capture_read(struct lh_capture *c, char **buf, size_t *alloc, size_t *len, bool final,
		    struct lh_diag *diag);
/* The caller found a section in the snapshot lh_capture_read() returned 1 for. */
void lh_capture_captured(struct lh_capture *c);

/* Return: the counters (borrowed). */
const struct lh_capture_counts *lh_capture_counts(const struct lh_capture *c);
/* Return: notifications - captured, or 0. */
unsigned long lh_capture_lost(const struct lh_capture *c);

#endif /* LH_CAPTURE_H */
