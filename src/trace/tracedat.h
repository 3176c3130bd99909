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

/*
 * The most of a trace.dat held in memory: one read from a pipe, which libtracecmd cannot seek
 * (a file is mapped, not held).
 */
#define LH_TRACEDAT_STREAM_MAX	(64u << 20)

/* Return: whether buf[0..len) starts with trace-cmd's file magic (the name is not looked at). */
bool lh_tracedat_detect(const void *buf, size_t len);

/*
 * Called with each piece of a trace.dat's latency text, in order (text[0..len), not
 * NUL-terminated, split anywhere). Return: 0 to go on, -1 to stop reading.
 */
typedef int (*lh_tracedat_text_fn)(const char *text, size_t len, void *arg);

/*
 * Reads the latency data of a trace.dat: buf[0..len) holds the whole file, read from fd
 * (borrowed). libtracecmd reads the file itself, in a confined child process, through a
 * duplicate of fd when fd can seek (from offset 0; fd's own offset is then left anywhere),
 * else from a memory file holding a copy of buf (a pipe). The text goes to fn(arg) as it
 * comes, at most LH_TRACE_TEXT_MAX bytes: memory stays bounded whatever the file says.
 * Return: 0 when the text was read to its end (or fn asked to stop), or -1 with *err set to
 * a static message saying why not: a file libtracecmd cannot read (truncated, corrupt, a
 * newer format) or crashes on, one that holds no latency data (a flyrecord of events), text
 * beyond the limit. fn may have had part of the text before an error.
 */
int lh_tracedat_read_latency(int fd, const char *buf, size_t len, lh_tracedat_text_fn fn,
			     void *arg, const char **err);

/*
 * Confines the calling process (the child that runs libtracecmd, which only reads the file
 * open at in and writes to out): address space bounded to what it has plus 1 GiB, 30 s of
 * CPU (SIGXCPU; no wall-clock limit: its reader may be slow or stopped), no core file, no privileges (root
 * becomes nobody, with no supplementary group), none to gain (no_new_privs, not dumpable),
 * and no descriptor above standard error but in and out.
 * Return: 0; -2 when root's privileges could not be dropped (a user namespace that does not
 * map nobody, a container without CAP_SETUID); -1 when anything else failed. The process
 * must read nothing after an error.
 */
int lh_tracedat_confine(int in, int out);

#endif /* LH_TRACEDAT_H */
