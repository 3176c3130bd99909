// SPDX-License-Identifier: GPL-2.0-only
/*
 * Section notifications from tracing_max_latency (inotify IN_MODIFY, else polling its
 * value) and snapshot identity.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>

#include "capture.h"

struct lh_capture {
	char			*path;
	int			ifd;		/* inotify fd, -1 when polling */
	int			vfd;		/* tracing_max_latency, read when polling */
	char			value[32];	/* its last value */
	bool			have_last;
	uint64_t		last_hash;	/* identity of the last snapshot seen */
	size_t			last_len;
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

int lh_capture_open(struct lh_capture **cp, const char *path, bool force_poll,
		    struct lh_diag *diag)
{
	struct lh_capture *c = lh_xcalloc(1, sizeof(*c));

	*cp = NULL;
	c->path = lh_xstrdup(path);
	c->ifd = -1;
	c->vfd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->vfd < 0) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot open '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (read_value(c, c->value, sizeof(c->value)) < 0) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot read '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (!force_poll) {
		c->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (c->ifd < 0) {
			lh_diag_add(diag, LH_DIAG_WARNING,
				    "inotify is not available (%s): polling '%s' every 100ms instead",
				    strerror(errno), path);
		} else if (inotify_add_watch(c->ifd, path, IN_MODIFY) < 0) {
			lh_diag_add(diag, LH_DIAG_WARNING,
				    "cannot watch '%s' with inotify (%s): polling it every 100ms instead",
				    path, strerror(errno));
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
	free(c->path);
	free(c);
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

			if (ev->mask & IN_MODIFY)
				n++;
			if (ev->mask & IN_Q_OVERFLOW)
				n++;	/* at least one more */
			p += sizeof(*ev) + ev->len;
		}
	}
}

static uint64_t snapshot_hash(const char *buf, size_t len)
{
	return lh_hash(buf, len, 0x6c617468ULL);
}

void lh_capture_rearm(struct lh_capture *c, const char *buf, size_t len)
{
	if (c->ifd >= 0)
		read_events(c);
	else
		read_value(c, c->value, sizeof(c->value));
	c->have_last = true;
	c->last_hash = snapshot_hash(buf, len);
	c->last_len = len;
}

long lh_capture_pending(struct lh_capture *c, struct lh_diag *diag)
{
	char value[sizeof(c->value)];
	long n;

	if (c->ifd >= 0) {
		n = read_events(c);
		if (n < 0)
			lh_diag_add(diag, LH_DIAG_ERROR, "cannot read inotify events for '%s': %s",
				    c->path, strerror(errno));
		else
			c->counts.notifications += (unsigned long)n;
		return n;
	}
	/* Polling sees a change of value: sections of equal latency in a row look like one. */
	if (read_value(c, value, sizeof(value)) < 0) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot read '%s': %s", c->path, strerror(errno));
		return -1;
	}
	if (!strcmp(value, c->value))
		return 0;
	memcpy(c->value, value, sizeof(value));
	c->counts.notifications++;
	return 1;
}

bool lh_capture_is_new(struct lh_capture *c, const char *buf, size_t len)
{
	uint64_t h = snapshot_hash(buf, len);

	if (c->have_last && h == c->last_hash && len == c->last_len) {
		c->counts.duplicates++;
		return false;
	}
	c->have_last = true;
	c->last_hash = h;
	c->last_len = len;
	return true;
}

void lh_capture_captured(struct lh_capture *c)
{
	c->counts.captured++;
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
