/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The latency-snapshot parser: the text of /sys/kernel/tracing/trace after a latency
 * tracer recorded a section (one or several snapshots concatenated) into lh_records.
 * Pure: takes a buffer, calls back with each record, never prints or exits, and does not
 * allocate per line (the record and its tables are reused between snapshots).
 */
#ifndef LH_PARSE_H
#define LH_PARSE_H

#include "record.h"
#include "util.h"

struct lh_parser;

/* What the parser saw and what it could not use; shown in every report. */
struct lh_parse_stats {
	unsigned long	lines;
	unsigned long	snapshots;	/* records handed to the callback */
	unsigned long	skipped;	/* snapshots dropped as malformed or truncated */
	unsigned long	bad_lines;	/* lines that matched no known layout */
};

/*
 * Called with each complete record. The record is borrowed: valid only during the call
 * (lh_record_dup() keeps a copy). Return: 0 to go on, -1 to stop parsing.
 */
typedef int (*lh_record_fn)(struct lh_record *r, void *arg);

/* Return: a parser; free with lh_parser_free(). Warnings go to diag (borrowed). */
struct lh_parser *lh_parser_alloc(struct lh_diag *diag);
void lh_parser_free(struct lh_parser *p);

/*
 * Parses buf[0..len) as the text named source (used in warnings "source:line: ..." and in
 * each record's source field). Input need not be NUL-terminated or text.
 * Return: 0, or -1 when the callback asked to stop.
 */
int lh_parse_buffer(struct lh_parser *p, const char *source, const char *buf, size_t len,
		    lh_record_fn fn, void *arg);

/* Return: the counters since the parser was allocated (borrowed). */
const struct lh_parse_stats *lh_parser_stats(const struct lh_parser *p);
/*
 * Return: why the first snapshot that the last lh_parse_buffer() skipped was dropped,
 * "line 7: header cut before the column legend" (borrowed, valid until the next parse), or
 * NULL when it skipped none. Names the reason an input was not read in full.
 */
const char *lh_parser_first_skip(const struct lh_parser *p);

#endif /* LH_PARSE_H */
