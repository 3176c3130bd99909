/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rule files: PCRE2 patterns that name known offenders in a record's call chain.
 * Loading (rule-file syntax, diagnostics) is rules-load.c, matching is rules.c.
 * A pattern is matched against each line of a subject, as grep does; a rule that says
 * 'span = lines' is matched with PCRE2_MULTILINE against the subject's lines joined with
 * '\n'. Each pattern is compiled once (JIT when available) and run with match, depth and
 * heap limits; match data is created once and reused. Pure: errors and warnings go to an
 * lh_diag as "file:line:column: message", nothing is printed.
 */
#ifndef LH_RULES_H
#define LH_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/record.h"
#include "util/util.h"

enum lh_severity {
	LH_SEV_INFO,
	LH_SEV_WARNING,
	LH_SEV_CRITICAL,
	LH_SEV_IGNORE,		/* accepted offender: never fails a gate */
	LH_SEV_NR,
};

/* Return: "info"... (static). */
const char *lh_severity_name(enum lh_severity s);
/* Return: 0 and *s, or -1 when name is not a severity. */
int lh_severity_parse(const char *name, enum lh_severity *s);

/* Subjects a pattern is searched in. */
enum lh_subject {
	LH_SUBJ_STACK		= 1 << 0,
	LH_SUBJ_FUNCTIONS	= 1 << 1,
	LH_SUBJ_IRQ		= 1 << 2,
	LH_SUBJ_TASK		= 1 << 3,
	LH_SUBJ_START		= 1 << 4,
	LH_SUBJ_END		= 1 << 5,
	LH_SUBJ_BLOCKING	= 1 << 6,	/* a timerlat spike's blocking task */
	LH_SUBJ_ALL		= (1 << 7) - 1,
};

struct lh_rule {
	const char		*id;
	const char		*pattern;
	const char		*message;	/* NULL when the rule has none */
	const char		*file;
	unsigned int		line;		/* of the '[id]' header */
	unsigned int		subjects;	/* LH_SUBJ_* mask */
	unsigned int		tracers;	/* 1 << enum lh_tracer; 0 = every tracer */
	uint64_t		min_ns;		/* 0 = any latency */
	enum lh_severity	severity;
	bool			span;		/* 'span = lines': matched on joined lines */
	const char		*limit_hit;	/* why it once could not be evaluated, or NULL */
	bool			prefiltered;	/* in the prefilter (lh_rules_prepare() sets it) */
};

/*
 * PCRE2 limits on one match of a pattern against one line (or, for 'span = lines', one
 * joined subject): about a millisecond of backtracking (bench/rules-cost.sh).
 */
#define LH_RULES_MATCH_LIMIT	100000
#define LH_RULES_DEPTH_LIMIT	10000
#define LH_RULES_HEAP_LIMIT_KIB	(20 * 1024)
/* The JIT stack: JIT code without one has 32 KiB, enough for names, but be generous. */
#define LH_RULES_JIT_STACK_START	(32 * 1024)
#define LH_RULES_JIT_STACK_MAX	(1024 * 1024)

struct lh_rules;

/* Return: an empty rule set; free with lh_rules_free(). */
struct lh_rules *lh_rules_alloc(void);
void lh_rules_free(struct lh_rules *rs);

/*
 * Loads a rule file, or every *.rules file of a directory (sorted by name; a directory
 * without any is an error: "no rule files (*.rules) in 'DIR'"). A rule file must be a
 * regular file: it is opened non-blocking, so a FIFO or a device is an error, never waited
 * on; in a directory, a symbolic link is refused too. Each problem is added to diag as an
 * error "file:line:column: message" (PCRE2's message and offset for a broken regex);
 * loading goes on to find every error.
 * Return: 0, or -1 when any error was found (rs then holds only the good rules).
 */
int lh_rules_load(struct lh_rules *rs, const char *path, struct lh_diag *diag);
/* Same, from a buffer named file (for tests and fuzzing). Return: as lh_rules_load(). */
int lh_rules_load_buffer(struct lh_rules *rs, const char *file, const char *buf, size_t len,
			 struct lh_diag *diag);

/*
 * Adds a rule known only by its description: desc's id, message, severity, tracers, min and
 * limit_hit are copied; it has no pattern and no subject, so matching never runs it. For a
 * rule read back from a saved report, which the report lists and gates as it did.
 * Return: its index.
 */
size_t lh_rules_add_described(struct lh_rules *rs, const struct lh_rule *desc);

/* Return: how many good rules are loaded (rule indices are 0 to this, exclusive). */
size_t lh_rules_count(const struct lh_rules *rs);

/* Return: the number of files loaded so far, in load order. */
size_t lh_rules_nr_files(const struct lh_rules *rs);
/* Return: file i's name (borrowed); *nr_rules (when not NULL) = its good rules. */
const char *lh_rules_file(const struct lh_rules *rs, size_t i, size_t *nr_rules);
/* Return: rule i (borrowed, valid until lh_rules_free()). */
const struct lh_rule *lh_rules_get(const struct lh_rules *rs, size_t i);

/* A rule a PCRE2 limit (or another PCRE2 error, rc) stopped on a line of the record. */
struct lh_limit_hit {
	size_t		rule;
	int		rc;
};

/*
 * The outcome of matching one record. A rule that fired on no line but could not be
 * evaluated on one (a PCRE2 limit or error) is unevaluated: the record may match it.
 * Only rules whose tracer and min hold for the record are listed.
 */
struct lh_match {
	size_t			*hits;		/* indices of the rules that fired, in rule order */
	size_t			nr_hits;
	size_t			alloc_hits;
	size_t			*unevaluated;	/* indices of unevaluated rules, in rule order */
	size_t			nr_unevaluated;
	size_t			alloc_unevaluated;
	bool			accepted;	/* an 'ignore' rule fired */
	bool			has_worst;	/* any non-ignore rule fired */
	enum lh_severity	worst;		/* highest non-ignore severity that fired */
	struct lh_limit_hit	*limits;	/* for lh_rules_warn(): first per rule, in order */
	size_t			nr_limits;
	size_t			alloc_limits;
};

/* Frees m's storage; m is zeroed and can be reused. */
void lh_match_release(struct lh_match *m);

/*
 * Matches r against every rule. A pattern that hits a PCRE2 limit (or another PCRE2 error)
 * on a line is unevaluated there (see struct lh_match); each such rule is warned about
 * once in diag, naming the rule, and its lh_rule.limit_hit says why. Threads may call it
 * at once on one rule set (with their own m): they take turns on a mutex and share the
 * line cache; loading and the setters below must not run meanwhile.
 * Return: 0 (m filled, its storage reused between calls).
 */
int lh_rules_match(struct lh_rules *rs, const struct lh_record *r, struct lh_match *m,
		   struct lh_diag *diag);

/*
 * A thread's own matcher, so that threads match at once without taking turns: its own
 * PCRE2 match data and JIT stack, prefilter scratch and line cache (bounded by 1/share of
 * the rule set's bound, lh_rules_set_cache_limit()). Loading and the setters below must
 * not run while one exists.
 * Return: the matcher; free it with lh_rules_matcher_free() before rs changes or is freed.
 */
struct lh_rules_matcher *lh_rules_matcher_alloc(struct lh_rules *rs, unsigned int share);
/* Frees mt (NULL-safe), adding its counters to lh_rules_stats(); not while rs is matching. */
void lh_rules_matcher_free(struct lh_rules_matcher *mt);
/*
 * As lh_rules_match(), in the calling thread alone, without a diag: the limit hits are
 * noted in m for lh_rules_warn(), which must see every record, in input order, so that
 * the warnings are the ones lh_rules_match() gives. Return: 0.
 */
int lh_rules_matcher_match(struct lh_rules_matcher *mt, const struct lh_record *r,
			   struct lh_match *m);
/*
 * Says the limit hits noted in m for record r as lh_rules_match() would have (once per rule,
 * the first in input order) and sets each rule's limit_hit. One thread at a time.
 */
void lh_rules_warn(struct lh_rules *rs, const struct lh_record *r, const struct lh_match *m,
		   struct lh_diag *diag);

/*
 * The line rules' prefilter, where lathound was built with Vectorscan: all their patterns
 * in one Vectorscan database (HS_FLAG_PREFILTER), so that a line new to the cache costs one
 * scan, and PCRE2 then decides each rule the scan names; the result is PCRE2's. A rule the
 * scan does not name cannot match the line, and PCRE2 does not run it there (so it cannot
 * hit a limit there either). Patterns Vectorscan refuses, or may read otherwise than PCRE2,
 * are run by PCRE2 on every new line (lh_rules_stats(): always_run).
 * Return: the engine, as "Vectorscan 5.4.9" in buf, or NULL when built without one (PCRE2
 * then runs every line rule on every new line).
 */
const char *lh_rules_prefilter_engine(char *buf, size_t len);

/* Turns the prefilter on (the default, where built) or off; for tests and benchmarks. */
void lh_rules_set_prefilter(struct lh_rules *rs, bool on);

/*
 * Builds what matching needs (the first lh_rules_match() after a load does otherwise),
 * so that lh_rules_stats() says how the rules will be matched.
 */
void lh_rules_prepare(struct lh_rules *rs);

/*
 * How matching went, for tests and benchmarks. Which line rules match a line (and which
 * could not be evaluated on it) depends only on its text: it is computed once per distinct
 * line and kept in a cache keyed by the text, as a list of rule indices, whose memory is
 * bounded (emptied when it would exceed it). 'span = lines' rules run on each record.
 */
struct lh_rules_stats {
	unsigned long	records;	/* lh_rules_match() calls */
	unsigned long	lines;		/* subject lines looked up */
	unsigned long	cache_hits;
	unsigned long	cache_misses;	/* distinct lines matched against the rules */
	unsigned long	cache_clears;	/* times the cache reached its bound and was emptied */
	size_t		cache_entries;	/* lines cached now */
	size_t		cache_bytes;	/* memory the cache holds now */
	unsigned long	regex_runs;	/* pcre2 match calls */
	size_t		jit;		/* rules JIT-compiled */
	size_t		joined;		/* 'span = lines' rules */
	size_t		prefiltered;	/* line rules in the prefilter */
	size_t		always_run;	/* line rules PCRE2 runs on every new line */
	const char	*no_prefilter;	/* why there is no prefilter (static), or NULL */
	bool		prefilter_cached;	/* its database came from the cache */
	bool		block_scan;	/* it scans a record's lines of a subject at once */
	unsigned long	scans;		/* prefilter scans */
	unsigned long	scan_only;	/* lines the scan alone settled (no cache lookup) */
};

/* Return: the counters (borrowed, updated by every lh_rules_match()). */
const struct lh_rules_stats *lh_rules_stats(const struct lh_rules *rs);

#define LH_RULES_CACHE_DEFAULT	(64UL << 20)

/* Bounds the line cache to about bytes (default LH_RULES_CACHE_DEFAULT); 0 disables it. */
void lh_rules_set_cache_limit(struct lh_rules *rs, size_t bytes);

#endif /* LH_RULES_H */
