/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The latency-snapshot parser: the text of /sys/kernel/tracing/trace after a latency
 * tracer recorded a section (one or several snapshots concatenated, as the kernel prints them
 * or as people publish them: quoted in a mail, indented, quoted-printable, wrapped) into
 * lh_records. Pure: takes buffers, calls back with each record, never prints or exits, and
 * does not allocate per line (the record and its tables are reused between snapshots).
 * Memory is bounded by constants, whatever the input: see LH_PARSE_LINE_MAX and
 * LH_PARSE_RECORD_MAX.
 */
#ifndef LH_PARSE_H
#define LH_PARSE_H

#include "record.h"
#include "util/util.h"

/*
 * A line is read up to this many bytes; the rest of a longer line is skipped, and the line
 * and its record are flagged (a warning, lh_parse_stats.cut_lines, lh_record.truncated).
 * A kernel's latency trace line is below 1 KiB.
 */
#define LH_PARSE_LINE_MAX	(64 * 1024)
/*
 * What one record may hold (its strings and tables); a snapshot beyond it keeps what came
 * first, is flagged truncated and warned about.
 */
#define LH_PARSE_RECORD_MAX	(32 * 1024 * 1024)
/*
 * The most text of one tracefs 'trace' file read into memory at once: a live capture's read,
 * a trace.dat's latency data. A snapshot never comes close.
 */
#define LH_TRACE_TEXT_MAX	(256u << 20)

struct lh_parser;

/* What the parser saw and what it could not use; shown in every report. */
struct lh_parse_stats {
	unsigned long	lines;
	uint64_t	snapshots;	/* records handed to the callback */
	uint64_t	skipped;	/* snapshots dropped as malformed or truncated */
	uint64_t	bad_lines;	/* lines that matched no known layout */
	uint64_t	incomplete;	/* records whose body is elided or cut */
	uint64_t	cut;		/* of those, the ones whose body is cut (not read in full) */
	uint64_t	cut_lines;	/* lines longer than LH_PARSE_LINE_MAX */
	/*
	 * timed entries whose text after the time is no function call, "name: args" event or
	 * wakeup line, or an irq event without its fields: other tools' output in a published
	 * trace, damage in a kernel's own text (a trace.dat's)
	 */
	uint64_t	odd_entries;
};

/*
 * Called with each complete record. The record is borrowed: valid only during the call
 * (lh_record_dup() keeps a copy). Return: 0 to go on, -1 to stop parsing.
 */
typedef int (*lh_record_fn)(struct lh_record *r, void *arg);

/* Return: a parser; free with lh_parser_free(). Warnings go to diag (borrowed, may be NULL). */
struct lh_parser *lh_parser_alloc(struct lh_diag *diag);
void lh_parser_free(struct lh_parser *p);

/*
 * Streaming: lh_parse_begin() starts an input named source (used in warnings
 * "source:line: ..." and in each record's source field; copied), lh_parse_feed() gives its
 * bytes in pieces of any size (split anywhere, not NUL-terminated, not necessarily text),
 * lh_parse_end() ends it and hands over its last record. Records go to fn(r, arg) as soon
 * as their snapshot ends. When the input holds no snapshot, lh_parse_end() warns what it
 * saw instead. Return (feed, end): 0, or -1 once the callback asked to stop (later calls
 * do nothing and return -1).
 */
void lh_parse_begin(struct lh_parser *p, const char *source, lh_record_fn fn, void *arg);
int lh_parse_feed(struct lh_parser *p, const char *buf, size_t len);
int lh_parse_end(struct lh_parser *p);

/*
 * Parses buf[0..len) as a whole input named source: lh_parse_begin(), lh_parse_feed(),
 * lh_parse_end(). Return: 0, or -1 when the callback asked to stop.
 */
int lh_parse_buffer(struct lh_parser *p, const char *source, const char *buf, size_t len,
		    lh_record_fn fn, void *arg);

/*
 * Why the input that lh_parse_end() ended gave no record, in terms of what was seen ("the
 * '# tracer:' line 18 is followed by nothing: the trace buffer was empty"), for the caller's
 * message. Return: buf, or NULL when it gave records or skipped snapshots (warned about).
 */
const char *lh_parser_why_empty(const struct lh_parser *p, char *buf, size_t len);

/*
 * Whether the input in progress is in its first state (no mail encoding in effect, no line
 * or snapshot header half read), so that what follows parses the same in a fresh parser:
 * lets a caller hand the rest of an input to another parser (analyze's second worker).
 * Return: true when it is.
 */
bool lh_parser_at_rest(const struct lh_parser *p);

/*
 * Tells p that the bytes fed next are the input from line lineno + 1 on, a line that starts a
 * snapshot (a '# tracer:' line): the snapshot in progress ends as that line would end it.
 * Only when lh_parser_at_rest(). For a second parser that takes turns with the first.
 */
void lh_parse_jump(struct lh_parser *p, unsigned long lineno);

#define LH_PARSE_SKIP_LEN	160

/*
 * What a parser made of a piece of an input that began in its first state (a fresh input,
 * or lh_parse_jump()) and was read up to a line that starts a snapshot (or to the input's
 * end): for a caller that parses the pieces of one input with several parsers and adds what
 * each made, in order, to the one that owns the input.
 */
struct lh_parse_outcome {
	struct lh_parse_stats	stats;		/* counted during the piece */
	unsigned long		lineno;		/* input lines read up to its end */
	unsigned long		empty_line;	/* see lh_parser_why_empty(); 0: none */
	unsigned long		qp_line;
	char			first_skip[LH_PARSE_SKIP_LEN];	/* "": none skipped */
	char			first_cut[LH_PARSE_SKIP_LEN];	/* "": none cut */
};

/*
 * Fills o with what p made of the piece it read since its counters were *before (the
 * input begun with lh_parse_begin() for that piece, then lh_parse_jump() unless it is the
 * input's first).
 */
void lh_parser_outcome(const struct lh_parser *p, const struct lh_parse_stats *before,
		       struct lh_parse_outcome *o);

/*
 * Adds what another parser made of the next piece of p's input to p, as if p had read it:
 * its counters, the lines read, what lh_parser_why_empty() and lh_parser_first_skip() say.
 * Only when nothing was fed to p since lh_parse_begin() (the pieces' records went to their
 * callback elsewhere); p is then at rest at the piece's end.
 */
void lh_parse_absorb(struct lh_parser *p, const struct lh_parse_outcome *o);

/*
 * Only from p's callback: takes the record being handed over out of p, which reads on into
 * spare (a record of the caller's, lh_record_alloc()'ed; emptied before p uses it), so that
 * the record need not be copied to be kept. Return: the record, now the caller's (free it
 * with lh_record_free()).
 */
struct lh_record *lh_parser_take_record(struct lh_parser *p, struct lh_record *spare);

/* Return: the counters since the parser was allocated (borrowed). */
const struct lh_parse_stats *lh_parser_stats(const struct lh_parser *p);
/*
 * Return: why the first snapshot of the input lh_parse_end() ended was skipped,
 * "line 7: header cut before the column legend" (borrowed, valid until the next parse), or
 * NULL when it skipped none. Names the reason an input was not read in full.
 */
const char *lh_parser_first_skip(const struct lh_parser *p);
/*
 * Return: how the first record with a cut body (lh_record_body()) of the input
 * lh_parse_end() ended is cut, "line 1: snapshot 'irqsoff' shows 26 of the 167 entries its
 * header declares, and no elision marker" (borrowed, valid until the next parse), or NULL
 * when none is. An elided body ('...', '[...]', '<snip>') is a person's choice, read in full
 * as published; a cut one is an input not read in full.
 */
const char *lh_parser_first_cut(const struct lh_parser *p);
/*
 * Return: whether the first snapshot in buf[0..len) declares an entry count the kernel
 * computed below zero ('#18446744073709551614/...'): its max buffer changed while the
 * kernel walked it, so the body cannot be trusted (capture.c drops it as torn).
 */
bool lh_parse_entries_wrapped(const char *buf, size_t len);

#endif /* LH_PARSE_H */
