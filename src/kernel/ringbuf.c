// SPDX-License-Identifier: GPL-2.0-only
/* The per-CPU ring buffers of a tracefs instance, read raw and cut into events. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "ringbuf.h"

struct lh_ringbuf {
	const char		*name;		/* borrowed, for messages */
	struct kbuffer		*kbuf;
	struct tracefs_cpu	**cpus;		/* NULL where a CPU has no buffer */
	int			nr_cpus;
	void			*page;		/* one sub-buffer */
	int			page_size;
	long			bytes;		/* per-CPU ring buffer size */
};

struct tep_handle *lh_ringbuf_tep(struct lh_diag *diag)
{
	enum tep_endian endian = tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN;
	struct tep_handle *tep = tep_alloc();
	char *buf = NULL;
	int size;

	if (!tep)
		goto fail;
	tep_set_long_size(tep, (int)sizeof(long));
	tep_set_file_bigendian(tep, endian);
	tep_set_local_bigendian(tep, endian);
	tep_set_page_size(tep, getpagesize());
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || tep_parse_header_page(tep, buf, (unsigned long)size, (int)sizeof(long)))
		goto fail;
	free(buf);
	return tep;
fail:
	lh_diag_add(diag, LH_DIAG_ERROR, "cannot read the format of 'events/header_page': %s",
		    strerror(errno ? errno : EINVAL));
	free(buf);
	tep_free(tep);
	return NULL;
}

int lh_ringbuf_open(struct lh_ringbuf **rbp, struct tracefs_instance *inst, const char *name,
		    struct tep_handle *tep, struct lh_diag *diag)
{
	struct lh_ringbuf *rb = lh_xcalloc(1, sizeof(*rb));
	ssize_t kb;
	int cpu;

	*rbp = NULL;
	rb->name = name;
	rb->kbuf = tep_kbuffer(tep);
	if (!rb->kbuf) {
		lh_diag_fail(diag, "cannot allocate a ring-buffer reader: %s", strerror(errno));
		goto fail;
	}
	rb->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (rb->nr_cpus < 1)
		rb->nr_cpus = 1;
	rb->cpus = lh_xcalloc((size_t)rb->nr_cpus, sizeof(*rb->cpus));
	for (cpu = 0; cpu < rb->nr_cpus; cpu++) {
		rb->cpus[cpu] = tracefs_cpu_open(inst, cpu, true);
		if (rb->cpus[cpu] && !rb->page_size)
			rb->page_size = tracefs_cpu_read_size(rb->cpus[cpu]);
	}
	if (rb->page_size <= 0) {
		lh_diag_fail(diag, "cannot open the per-CPU buffers of instance '%s': %s", name,
			     strerror(errno ? errno : ENOENT));
		goto fail;
	}
	rb->page = lh_xmalloc((size_t)rb->page_size);
	kb = tracefs_instance_get_buffer_size(inst, 0);
	rb->bytes = kb > 0 ? (long)kb * 1024 : 1024 * 1024;
	*rbp = rb;
	return 0;
fail:
	lh_ringbuf_close(rb);
	return -1;
}

void lh_ringbuf_close(struct lh_ringbuf *rb)
{
	int cpu;

	if (!rb)
		return;
	for (cpu = 0; rb->cpus && cpu < rb->nr_cpus; cpu++)
		tracefs_cpu_close(rb->cpus[cpu]);
	free(rb->cpus);
	if (rb->kbuf)
		kbuffer_free(rb->kbuf);
	free(rb->page);
	free(rb);
}

long lh_ringbuf_read(struct lh_ringbuf *rb, lh_ringbuf_event_fn event, lh_ringbuf_lost_fn lost,
		     void *arg, uint64_t *busiest, struct lh_diag *diag)
{
	uint64_t most = 0;
	long events = 0;
	int cpu;

	for (cpu = 0; cpu < rb->nr_cpus; cpu++) {
		uint64_t bytes = 0;
		long pages;
		int n = 0;

		if (!rb->cpus[cpu])
			continue;
		for (pages = rb->bytes / rb->page_size + 1; pages > 0; pages--) {
			unsigned long long ts;
			void *data;
			int missed;

			n = tracefs_cpu_read(rb->cpus[cpu], rb->page, true);
			if (n <= 0)
				break;
			bytes += (uint64_t)n;
			if (kbuffer_load_subbuffer(rb->kbuf, rb->page) < 0)
				continue;
			missed = kbuffer_missed_events(rb->kbuf);
			/* A count the kernel could not store is at least one event. */
			if (missed)
				lost(arg, cpu, missed > 0 ? (uint64_t)missed : 1);
			while ((data = kbuffer_read_event(rb->kbuf, &ts))) {
				event(arg, cpu, data, kbuffer_event_size(rb->kbuf), ts);
				events++;
				kbuffer_next_event(rb->kbuf, NULL);
			}
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return lh_diag_fail(diag, "cannot read the ring buffer of CPU %d in instance '%s': %s",
					    cpu, rb->name, strerror(errno));
		if (bytes > most)
			most = bytes;
	}
	if (busiest)
		*busiest = most;
	return events;
}

int lh_ringbuf_nr_cpus(const struct lh_ringbuf *rb)
{
	return rb->nr_cpus;
}

int lh_ringbuf_has_cpu(const struct lh_ringbuf *rb, int cpu)
{
	return cpu >= 0 && cpu < rb->nr_cpus && rb->cpus[cpu] != NULL;
}

long lh_ringbuf_bytes(const struct lh_ringbuf *rb)
{
	return rb->bytes;
}

const char *lh_ringbuf_dyn_string(const struct tep_format_field *f, const void *data, int size,
				  char *buf, size_t len)
{
	unsigned long long v;
	unsigned int off, n;
	const char *s;
	size_t i;

	buf[0] = '\0';
	if (f->offset + f->size > size || tep_read_number_field((struct tep_format_field *)f,
								 data, &v))
		return buf;
	off = (unsigned int)(v & 0xffff);
	n = (unsigned int)((v >> 16) & 0xffff);
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (unsigned int)(f->offset + f->size);
	if (off >= (unsigned int)size)
		return buf;
	if (n > (unsigned int)size - off)
		n = (unsigned int)size - off;
	s = (const char *)data + off;
	for (i = 0; i < n && i + 1 < len && s[i]; i++)
		buf[i] = s[i];
	buf[i] = '\0';
	return buf;
}
