/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The per-CPU ring buffers of one of lathound's tracefs instances, read as binary sub-buffers
 * (trace_pipe_raw, through libtracefs) and cut into events with libtraceevent's kbuffer: the
 * one reader of irqtrace.c (irq events) and noisetrace.c (timerlat, osnoise, hwlat).
 * No printing: problems go to the caller's lh_diag.
 */
#ifndef LH_RINGBUF_H
#define LH_RINGBUF_H

#include <stdint.h>

#include "util/util.h"

struct tep_handle;
struct tracefs_instance;
struct lh_ringbuf;

/*
 * Return: an event parser that knows this machine's ring-buffer page header and no event yet
 * (free with tep_free()): cheaper than tracefs_local_events(), which also parses
 * /proc/kallsyms. NULL with the reason in diag.
 */
struct tep_handle *lh_ringbuf_tep(struct lh_diag *diag);

/*
 * Opens the per-CPU buffers of inst (named name in messages), whose events tep decodes
 * (borrowed for the reader's lifetime). Return: 0 and *rb (close with lh_ringbuf_close()),
 * or -1 with the reason in diag.
 */
int lh_ringbuf_open(struct lh_ringbuf **rb, struct tracefs_instance *inst, const char *name,
		    struct tep_handle *tep, struct lh_diag *diag);
/* Closes the buffers (before the instance is removed: open files keep it busy). NULL-safe. */
void lh_ringbuf_close(struct lh_ringbuf *rb);

/* One event of cpu: its data (size bytes, valid for the call) and trace-clock time. */
typedef void (*lh_ringbuf_event_fn)(void *arg, int cpu, void *data, int size, uint64_t ts);
/* The sub-buffer read next on cpu says that missed events were lost before it (>= 1). */
typedef void (*lh_ringbuf_lost_fn)(void *arg, int cpu, uint64_t missed);

/*
 * Reads every event waiting, CPU by CPU, at most one buffer's worth a CPU (a flood cannot
 * keep the caller here), without blocking. *busiest (may be NULL) is set to the bytes read
 * from the busiest CPU. Return: events read, or -1 with the reason in diag.
 */
long lh_ringbuf_read(struct lh_ringbuf *rb, lh_ringbuf_event_fn event, lh_ringbuf_lost_fn lost,
		     void *arg, uint64_t *busiest, struct lh_diag *diag);

/*
 * Copies the __data_loc (or __rel_loc) string field f of an event's data (size bytes) into
 * buf, bounded by the event. Return: buf, "" when the field points outside the event.
 */
struct tep_format_field;
const char *lh_ringbuf_dyn_string(const struct tep_format_field *f, const void *data, int size,
				  char *buf, size_t len);

/* Return: the CPUs (possible ones: event CPUs are below it). */
int lh_ringbuf_nr_cpus(const struct lh_ringbuf *rb);
/* Return: whether cpu has a buffer open. */
int lh_ringbuf_has_cpu(const struct lh_ringbuf *rb, int cpu);
/* Return: the size of one CPU's buffer in bytes. */
long lh_ringbuf_bytes(const struct lh_ringbuf *rb);

#endif /* LH_RINGBUF_H */
