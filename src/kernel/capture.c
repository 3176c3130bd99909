// SPDX-License-Identifier: GPL-2.0-only
/*
 * Section notifications from tracing_max_latency (inotify IN_MODIFY, else polling its
 * value), and reading each recorded section once: with tracing paused, or while it goes on
 * with a check that the snapshot did not change under the read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>

#include "capture.h"
#include "trace/parse.h"

/* update_max_tr_single()'s note in the max buffer when it kept the old one (6.1) */
#define FAILED_SWAP	"Failed to swap buffers due to commit or resize in progress"

struct lh_capture {
	char			*max_path;
	char			*trace_path;
	bool			threshold;
	bool			live;		/* reads may leave tracing running */
	char			*pause_path;	/* options/pause-on-trace */
	int			pfd;		/* open on it while live, else -1 */
	bool			pausing;	/* it is set: reads pause */
	uint64_t		paused_until;	/* after a torn read, reads pause until then */
	int			ifd;		/* inotify fd, -1 when polling */
	int			vfd;		/* tracing_max_latency */
	char			value[32];	/* its last value seen by polling */
	uint64_t		armed_us;	/* tracing_max_latency as arming left it */
	bool			notified;	/* a section was notified since arming */
	bool			have_last;	/* a snapshot was read since arming */
	uint64_t		last_us;	/* tracing_max_latency with it */
	uint64_t		last_hash;	/* its text */
	size_t			last_len;
	unsigned long		since_capture;	/* notified since the last capture */
	struct lh_capture_counts counts;
};

/* Return: bytes read from the value file into buf (NUL-terminated), or -1. */
static ssize_t read_value(struct lh_capture *c, char *buf, size_t len)
{
	ssize_t n = pread(c->vfd, buf, len - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Return: 0 and *us, the value of tracing_max_latency, or -1 with errno. */
static int read_us(struct lh_capture *c, uint64_t *us)
{
	char buf[32];

	if (read_value(c, buf, sizeof(buf)) < 0)
		return -1;
	*us = strtoull(buf, NULL, 10);
	return 0;
}

int lh_capture_open(struct lh_capture **cp, const struct lh_capture_opts *o,
		    struct lh_diag *diag)
{
	struct lh_capture *c = lh_xcalloc(1, sizeof(*c));

	*cp = NULL;
	c->max_path = lh_xstrdup(o->max_latency);
	c->trace_path = lh_xstrdup(o->trace);
	c->threshold = o->threshold;
	c->ifd = -1;
	c->pause_path = lh_xstrdup(o->pause ? o->pause : "");
	c->pfd = o->pause && o->threshold ? open(o->pause, O_WRONLY | O_CLOEXEC) : -1;
	/* Written with a threshold: the reset that marks a snapshot as read. */
	c->vfd = open(o->max_latency, (o->threshold ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (c->vfd < 0 || read_value(c, c->value, sizeof(c->value)) < 0) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot %s '%s': %s", c->vfd < 0 ? "open" : "read",
			    o->max_latency, strerror(errno));
		goto fail;
	}
	if (!o->poll) {
		c->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (c->ifd < 0) {
			lh_diag_add(diag, LH_DIAG_WARNING,
				    "inotify is not available (%s): polling '%s' every 100ms instead",
				    strerror(errno), o->max_latency);
		} else if (inotify_add_watch(c->ifd, o->max_latency, IN_MODIFY) < 0) {
			lh_diag_add(diag, LH_DIAG_WARNING,
				    "cannot watch '%s' with inotify (%s): polling it every 100ms instead",
				    o->max_latency, strerror(errno));
			close(c->ifd);
			c->ifd = -1;
		}
	}
	*cp = c;
	return 0;
fail:
	lh_capture_close(c);
	return -1;
}

void lh_capture_close(struct lh_capture *c)
{
	if (!c)
		return;
	if (c->ifd >= 0)
		close(c->ifd);
	if (c->vfd >= 0)
		close(c->vfd);
	if (c->pfd >= 0)
		close(c->pfd);
	free(c->pause_path);
	free(c->max_path);
	free(c->trace_path);
	free(c);
}

bool lh_capture_live(const struct lh_capture *c)
{
	return c->live;
}

const char *lh_capture_method(const struct lh_capture *c)
{
	return c->ifd >= 0 ? "inotify" : "poll";
}

int lh_capture_fd(const struct lh_capture *c)
{
	return c->ifd;
}

uint64_t lh_capture_poll_interval(const struct lh_capture *c)
{
	return c->ifd >= 0 ? 0 : LH_CAPTURE_POLL_NS;
}

/* Return: IN_MODIFY events waiting on the inotify fd, consumed; -1 on a read error. */
static long read_events(struct lh_capture *c)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	long n = 0;

	for (;;) {
		ssize_t len = read(c->ifd, buf, sizeof(buf));
		char *p;

		if (len < 0) {
			if (errno == EAGAIN)
				return n;
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (len == 0)
			return n;
		for (p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->mask & (IN_MODIFY | IN_Q_OVERFLOW))
				n++;	/* an overflow hides at least one more */
			p += sizeof(*ev) + ev->len;
		}
	}
}

static void notified(struct lh_capture *c, unsigned long n)
{
	c->counts.notifications += n;
	c->since_capture += n;
	c->notified |= n != 0;
}

void lh_capture_rearm(struct lh_capture *c, uint64_t max_us, bool live)
{
	c->live = live && c->threshold && c->pfd >= 0;
	c->pausing = false;	/* arming cleared it */
	c->paused_until = 0;
	if (c->ifd >= 0)
		read_events(c);
	else
		read_value(c, c->value, sizeof(c->value));
	c->armed_us = max_us;
	c->notified = false;
	c->have_last = false;
}

/*
 * Return: whether tracing_max_latency = us says that nothing was recorded since the last
 * read, or since arming: 0, or (before any notification or read) not above what arming
 * wrote. A section just above it that was not notified yet is left to its notification.
 */
static bool nothing_new(const struct lh_capture *c, uint64_t us)
{
	return !us || (!c->have_last && !c->notified && us <= c->armed_us);
}

long lh_capture_pending(struct lh_capture *c, struct lh_diag *diag)
{
	char value[sizeof(c->value)];
	long n;

	if (c->ifd >= 0) {
		n = read_events(c);
		if (n < 0)
			lh_diag_add(diag, LH_DIAG_ERROR, "cannot read inotify events for '%s': %s",
				    c->max_path, strerror(errno));
		else
			notified(c, (unsigned long)n);
		return n;
	}
	/* Polling sees changes of value: two equal ones in a row between polls look like one. */
	if (read_value(c, value, sizeof(value)) < 0) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot read '%s': %s", c->max_path,
			    strerror(errno));
		return -1;
	}
	if (!strcmp(value, c->value))
		return 0;
	memcpy(c->value, value, sizeof(value));
	notified(c, 1);
	return 1;
}

/*
 * Sets tracing_max_latency to 0: the mark of a snapshot taken. Our own notification is not
 * counted; the kernel's waiting are, first: inotify merges an event with the identical one
 * queued last, so ours would swallow one of the kernel's left unread.
 */
static int reset_max(struct lh_capture *c)
{
	long n;

	if (c->ifd >= 0) {
		n = read_events(c);
		if (n > 0)
			notified(c, (unsigned long)n);
	}
	if (pwrite(c->vfd, "0\n", 2, 0) != 2)
		return -1;
	if (c->ifd >= 0) {
		/* Ours is the last event queued; any before it are the kernel's. */
		n = read_events(c);
		if (n > 1)
			notified(c, (unsigned long)n - 1);
	} else {
		read_value(c, c->value, sizeof(c->value));
	}
	return 0;
}

static int fail(struct lh_diag *diag, const char *verb, const char *path)
{
	lh_diag_add(diag, LH_DIAG_ERROR, "cannot %s '%s': %s", verb, path, strerror(errno));
	return -1;
}

/* Reads 'trace' into *buf (its length in *len). Return: 0, or -1 with errno. */
static int read_trace(struct lh_capture *c, char **buf, size_t *alloc, size_t *len)
{
	int fd = open(c->trace_path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = lh_read_fd(fd, buf, alloc, len, LH_TRACE_TEXT_MAX);
	close(fd);
	return ret;
}

/*
 * A read while tracing goes on (threshold only). tracing_max_latency is set to 0 first:
 * every section the kernel records from then on sets it to its latency, which is at least
 * the threshold, so 0 after the read means that no section replaced the snapshot while it
 * was read. Return: 1 with a snapshot read whole, 0 when nothing new was recorded, 2 when
 * a section replaced the snapshot during the read (torn: not to be used), -1 (diag).
 */
static int read_live(struct lh_capture *c, char **buf, size_t *alloc, size_t *len,
		     struct lh_diag *diag)
{
	uint64_t us;

	if (read_us(c, &us))
		return fail(diag, "read", c->max_path);
	if (!us)
		return 0;
	if (reset_max(c))
		return fail(diag, "write", c->max_path);
	if (read_trace(c, buf, alloc, len))
		return fail(diag, "read", c->trace_path);
	if (read_us(c, &us))
		return fail(diag, "read", c->max_path);
	return us ? 2 : 1;
}

/*
 * A read with tracing paused while 'trace' is open: no section can be recorded between
 * reading tracing_max_latency and reading the snapshot, so the two belong together.
 * Return: 1 with a new snapshot, 0 when nothing new was recorded, -1 (diag).
 */
static int read_paused(struct lh_capture *c, char **buf, size_t *alloc, size_t *len,
		       struct lh_diag *diag)
{
	uint64_t us, hash;
	bool stale;
	int fd, ret;

	if (read_us(c, &us))
		return fail(diag, "read", c->max_path);
	if (nothing_new(c, us))
		return 0;
	fd = open(c->trace_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(diag, "open", c->trace_path);
	if (read_us(c, &us)) {
		ret = fail(diag, "read", c->max_path);
		goto out;
	}
	if (!nothing_new(c, us) && lh_read_fd(fd, buf, alloc, len, LH_TRACE_TEXT_MAX)) {
		ret = fail(diag, "read", c->trace_path);
		goto out;
	}
	hash = lh_hash(*len ? *buf : "", *len, 0x6c617468ULL);
	stale = nothing_new(c, us) || (!c->threshold && c->have_last && us == c->last_us &&
				       hash == c->last_hash && *len == c->last_len);
	if (stale) {
		ret = 0;
		goto out;
	}
	if (c->threshold && reset_max(c)) {
		ret = fail(diag, "write", c->max_path);
		goto out;
	}
	c->last_us = us;
	c->last_hash = hash;
	c->last_len = *len;
	ret = 1;
out:
	close(fd);	/* tracing resumes */
	return ret;
}

/* Sets options/pause-on-trace. Return: 0, or -1 with the reason in diag. */
static int set_pause(struct lh_capture *c, bool on, struct lh_diag *diag)
{
	if (pwrite(c->pfd, on ? "1\n" : "0\n", 2, 0) != 2)
		return fail(diag, "write", c->pause_path);
	c->pausing = on;
	return 0;
}

int lh_capture_read(struct lh_capture *c, char **buf, size_t *alloc, size_t *len, bool final,
		    struct lh_diag *diag)
{
	uint64_t start = lh_now_ns();
	int ret;

	*len = 0;
	if (c->live && c->pausing && start >= c->paused_until && set_pause(c, false, diag))
		return -1;
	if (c->live && !c->pausing) {
		ret = read_live(c, buf, alloc, len, diag);
		if (ret != 2)
			goto done;
		/*
		 * The section being read is gone, replaced by one that ended during the read:
		 * sections come faster than a read takes. That one is read paused, and so are
		 * the reads of the next LH_CAPTURE_PAUSED_NS.
		 */
		c->counts.torn++;
		if (set_pause(c, true, diag))
			return -1;
		c->paused_until = start + LH_CAPTURE_PAUSED_NS;
		start = lh_now_ns();
	}
	*len = 0;
	ret = read_paused(c, buf, alloc, len, diag);
	c->counts.paused_ns += lh_now_ns() - start;
done:
	if (ret <= 0) {
		if (!ret)
			c->counts.stale++;
		return ret;
	}
	c->have_last = true;
	/*
	 * The kernel could not swap the section's buffer in (a commit was in progress on its
	 * CPU): it set the new latency and header over the old body, and says so in it. Or the
	 * max buffer changed while the kernel counted its entries (a count below zero).
	 */
	if (memmem(*buf, *len, FAILED_SWAP, sizeof(FAILED_SWAP) - 1) ||
	    lh_parse_entries_wrapped(*buf, *len)) {
		c->counts.torn++;
		*len = 0;
		return 0;
	}
	/* Its notification would come after the run: count it as if it had. */
	if (final && !c->since_capture)
		notified(c, 1);
	return 1;
}

void lh_capture_captured(struct lh_capture *c)
{
	c->counts.captured++;
	c->since_capture = 0;
}

const struct lh_capture_counts *lh_capture_counts(const struct lh_capture *c)
{
	return &c->counts;
}

unsigned long lh_capture_lost(const struct lh_capture *c)
{
	return c->counts.notifications > c->counts.captured ?
		       c->counts.notifications - c->counts.captured : 0;
}
