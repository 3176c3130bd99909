/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace-cmd's trace.dat files, read through libtracecmd. 'trace-cmd record -p irqsoff' (or
 * another latency tracer) saves the text of the tracefs 'trace' file as the file's latency
 * data: the same text 'lathound analyze' parses from a saved snapshot. A trace.dat recorded
 * without a latency tracer (a flyrecord of events) holds no such text.
 * No printing: problems come back as a message for the caller. libtracecmd runs in a child
 * process, so that a damaged file cannot crash lathound or write into its output.
 */
#ifndef LH_TRACEDAT_H
#define LH_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>

/* Return: whether buf[0..len) starts with trace-cmd's file magic (the name is not looked at). */
bool lh_tracedat_detect(const void *buf, size_t len);

/*
 * Reads the latency data of a trace.dat: buf[0..len) holds the whole file, read from fd
 * (borrowed). libtracecmd reads the file itself, through a duplicate of fd when fd can seek
 * (from offset 0; fd's own offset is then left anywhere), else from a memory file holding
 * a copy of buf (a pipe). Return: 0 with *text (NUL-terminated, *text_len bytes without
 * the NUL; the caller frees it), or -1 with *err set to a static message saying why: a
 * file libtracecmd cannot read (truncated, corrupt, a newer format), or one that holds no
 * latency data (a flyrecord of events).
 */
int lh_tracedat_read_latency(int fd, const char *buf, size_t len, char **text, size_t *text_len,
			     const char **err);

#endif /* LH_TRACEDAT_H */
