/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One input, parsed by several threads: snapshots are independent, so a large regular file
 * is cut into chunks that each start at a '# tracer:' line at column 0, threads parse the
 * chunks, and the caller's thread hands their records to the callback in input order, with
 * their warnings where a single parser gives them. The outcome (records, counters, warnings
 * and their line numbers) is the one lh_parse_feed() over the whole input gives: where the
 * input's own state crosses a chunk's end (a mail encoding in effect, a line cut short, a
 * header left half read), the caller's parser reads the rest of the input alone.
 */
#ifndef LH_PARALLEL_H
#define LH_PARALLEL_H

#include "rules.h"
#include "trace/parse.h"

#define LH_PARALLEL_MAX_JOBS	4
/*
 * Bytes per chunk, about: the records of 2 * jobs chunks are in memory at once, and their
 * pages cost page faults (bench/README.md: 1 MB has a quarter fewer than 4 MB).
 */
#define LH_PARALLEL_CHUNK	(1 << 20)

struct lh_parallel_opts {
	unsigned int	jobs;	/* parsing threads, 2 to LH_PARALLEL_MAX_JOBS */
	size_t		chunk;	/* bytes per chunk, about (0: LH_PARALLEL_CHUNK) */
	size_t		piece;	/* bytes fed to lh_parse_feed() at a time */
	/* called with each piece once parsed (may be NULL): e.g. to give its pages back */
	void		(*release)(const char *s, size_t n);
	/*
	 * Where set (with matched), each thread matches the records it parses against these
	 * rules (a matcher of its own, lh_rules_matcher_match()), and they reach matched()
	 * with their match instead of fn: the caller says the limit hits (lh_rules_warn()).
	 */
	struct lh_rules	*rules;
	int		(*matched)(struct lh_record *r, struct lh_match *m, void *arg);
};

/*
 * Parses buf[0..len), the whole input that p has begun (lh_parse_begin(p, source, fn, arg))
 * and that nothing was fed to yet. Records reach fn(r, arg) in this thread, in input order;
 * the threads' warnings reach diag (p's) in the order p would have put them there, each
 * before the record p would have handed over after it. The caller then ends the input with
 * lh_parse_end(p), as after lh_parse_feed(). The threads' parsers share nothing with p: fn
 * may use what this thread owns (rules, a report) without locking. No I/O, no printing.
 * Return: 0, -1 once fn asked to stop, or -2 with errno when no thread could be started
 * (nothing was parsed: the caller feeds buf to p itself).
 */
int lh_parallel_parse(struct lh_parser *p, const char *source, const char *buf, size_t len,
		      const struct lh_parallel_opts *o, lh_record_fn fn, void *arg,
		      struct lh_diag *diag);

#endif /* LH_PARALLEL_H */
