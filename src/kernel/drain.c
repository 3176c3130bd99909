// SPDX-License-Identifier: GPL-2.0-only
/* Reading one CPU's live buffer as it fills, to keep it nearly empty (drain.h says why). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "drain.h"

struct lh_drain {
	int			fd;
	struct tracefs_cpu	*tcpu;		/* over fd */
	void			*page;		/* one sub-buffer, reused */
	int			page_size;
	long			pages;		/* a buffer's worth: the most one read takes */
	uint64_t		bytes;
};

int lh_drain_open(struct lh_drain **dp, int cpu, struct lh_diag *diag)
{
	struct lh_drain *d = lh_xcalloc(1, sizeof(*d));
	char path[64];
	ssize_t kb;

	*dp = NULL;
	d->page_size = getpagesize();
	snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	d->fd = tracefs_instance_file_open(NULL, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (d->fd < 0) {
		lh_diag_fail(diag, "cannot open '%s': %s", path, strerror(errno));
		goto fail;
	}
	d->tcpu = tracefs_cpu_alloc_fd(d->fd, d->page_size, true);
	if (!d->tcpu) {
		lh_diag_fail(diag, "cannot read '%s': %s", path, strerror(errno));
		goto fail;
	}
	d->page = lh_xmalloc((size_t)d->page_size);
	kb = tracefs_instance_get_buffer_size(NULL, cpu);
	d->pages = (kb > 0 ? (long)kb * 1024 : 1024 * 1024) / d->page_size + 1;
	/*
	 * The kernel wakes a poller once buffer_percent of the buffer's pages are full, the
	 * page being written counted as full: a buffer of two pages (--buffer-size 4K) meets
	 * that even empty and polls ready for ever, and draining it would spin. Emptied, the
	 * buffer must not poll ready.
	 */
	if (lh_drain_read(d) < 0 || poll(&(struct pollfd){ .fd = d->fd, .events = POLLIN }, 1, 0)) {
		lh_diag_fail(diag, "'%s' polls ready when empty (a buffer of too few pages for buffer_percent): not drained",
			     path);
		goto fail;
	}
	*dp = d;
	return 0;
fail:
	lh_drain_close(d);
	return -1;
}

void lh_drain_close(struct lh_drain *d)
{
	if (!d)
		return;
	if (d->tcpu)
		tracefs_cpu_free_fd(d->tcpu);	/* leaves fd open */
	if (d->fd >= 0)
		close(d->fd);
	free(d->page);
	free(d);
}

int lh_drain_fd(const struct lh_drain *d)
{
	return d ? d->fd : -1;
}

long lh_drain_read(struct lh_drain *d)
{
	long pages, bytes = 0;
	int n = 0;

	for (pages = d->pages; pages > 0; pages--) {
		n = tracefs_cpu_read(d->tcpu, d->page, true);
		if (n <= 0)
			break;
		bytes += n;
	}
	d->bytes += (uint64_t)bytes;
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return -1;
	return bytes;
}

uint64_t lh_drain_bytes(const struct lh_drain *d)
{
	return d ? d->bytes : 0;
}
