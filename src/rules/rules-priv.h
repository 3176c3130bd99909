/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rule set's insides, shared by rules-load.c (rule-file syntax) and rules.c
 * (matching). Not for other modules.
 */
#ifndef LH_RULES_PRIV_H
#define LH_RULES_PRIV_H

#include <pthread.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "rules.h"
#include "util/htab.h"

#define LH_RULES_NR_SUBJ	7

struct lh_rules_rule {
	struct lh_rule	pub;
	pcre2_code	*code;
	bool		jit;		/* run with pcre2_jit_match() */
	bool		warned;		/* its limit hit was said in a diag */
};

struct lh_rules_file {
	const char	*name;
	size_t		nr_rules;
};

/* Every id seen (good rule or not), for duplicate detection across files. */
struct lh_rules_id {
	const char	*id;
	const char	*file;
	unsigned int	line;
};

/*
 * A cached line of a subject: the rules searching that subject that match it, then those
 * unevaluated on it, then its text.
 */
struct lh_rules_line {
	uint32_t	len;
	uint32_t	subj;
	uint32_t	nr_hits;
	uint32_t	nr_unevaluated;
	uint32_t	idx[];
};

struct lh_rules {
	struct lh_rules_rule	**rules;
	size_t			nr;
	size_t			alloc;
	struct lh_arena		arena;		/* rules, strings */

	struct lh_rules_file	*files;
	size_t			nr_files;
	size_t			alloc_files;

	struct lh_rules_id	*ids;
	size_t			nr_ids;
	size_t			alloc_ids;
	struct lh_htab		id_tab;		/* id's hash -> index into ids */

	pcre2_compile_context	*cctx;
	pcre2_match_context	*probe;		/* match limit 1, no JIT: see run_rule() */

	size_t			cache_limit;
	bool			prefilter_off;	/* lh_rules_set_prefilter(rs, false) */
	pthread_mutex_t		lock;		/* held by lh_rules_match(), lh_rules_prepare() */

	/* Matching state, built by the first match after a load (rules.c); from here on,
	 * lh_rules_unprepare() zeroes every field but the stats. Read-only once built. */
	bool			ready;
	uint32_t		*line_rules[LH_RULES_NR_SUBJ];	/* rules matched line by line */
	size_t			nr_line_rules[LH_RULES_NR_SUBJ];	/* in each subject */
	uint32_t		*always_rules[LH_RULES_NR_SUBJ];	/* those not prefiltered */
	size_t			nr_always[LH_RULES_NR_SUBJ];
	struct lh_prefilter	*pf;		/* the line rules' prefilter, or NULL */
	uint32_t		*span_rules;	/* indices of 'span = lines' rules */
	size_t			nr_span_rules;
	struct lh_rules_matcher	*own;		/* lh_rules_match()'s */

	struct lh_rules_stats	stats;
};

/* What one thread needs to match records (rules.c). */
struct lh_rules_matcher {
	struct lh_rules		*rs;
	struct lh_rules_stats	*stats;		/* rs's for rs->own, else own_stats */
	struct lh_rules_stats	own_stats;	/* added to rs's when freed */
	pcre2_match_context	*mctx;		/* the limits, and jit_stack */
	pcre2_jit_stack		*jit_stack;
	pcre2_match_data	*md;
	struct lh_prefilter_scratch *ps;

	uint32_t		*cand;		/* a line's candidates, in rule order */
	uint32_t		gen;		/* the record being matched, for the stamps */
	uint32_t		*fired_gen;	/* per rule: gen when it fired */
	uint32_t		*uneval_gen;	/* per rule: gen when it was unevaluated */
	uint32_t		*limit_gen;	/* per rule: gen when its limit hit was noted */
	uint32_t		*scratch;	/* a line's hits, then its unevaluated rules */
	size_t			alloc_scratch;
	size_t			*uneval;	/* this record's unevaluated rules */
	size_t			nr_uneval;
	size_t			alloc_uneval;
	struct lh_match		*m;		/* the match being filled */

	size_t			cache_limit;
	struct lh_htab		line_tab;	/* the line cache: hash -> index into lines */
	struct lh_rules_line	**lines;
	size_t			nr_lines;
	size_t			alloc_lines;
	struct lh_arena		cache;

	char			*buf;		/* task lines */
	size_t			alloc_buf;
	char			*joined[LH_RULES_NR_SUBJ];
	size_t			joined_len[LH_RULES_NR_SUBJ];
	size_t			alloc_joined[LH_RULES_NR_SUBJ];
	bool			have_joined[LH_RULES_NR_SUBJ];
	char			*block;		/* a subject's lines, for one block scan */
	bool			block_full;	/* they would pass BLOCK_MAX */
	size_t			block_len;
	size_t			alloc_block;
	uint32_t		*starts;	/* of each line in block */
	size_t			nr_starts;
	size_t			alloc_starts;
};

/*
 * The line rules' multi-pattern prefilter (rules-prefilter.c). Builds one over rules
 * idx[0..n) of rs; always[i] is set to false for each rule i it covers and left alone for
 * the others, which PCRE2 alone must run on every line. Return: the prefilter (free with
 * lh_prefilter_free()), or NULL and *why (static) when there is none. Read-only once built:
 * threads share it, each scanning with a scratch of its own.
 */
struct lh_prefilter *lh_prefilter_build(struct lh_rules *rs, const uint32_t *idx, size_t n,
					bool *always, const char **why);
/* Return: whether pf's databases came from the cache rather than a compile. */
bool lh_prefilter_cached(const struct lh_prefilter *pf);
void lh_prefilter_free(struct lh_prefilter *pf);

/* Return: a thread's scan state for pf (free with lh_prefilter_scratch_free()). */
struct lh_prefilter_scratch *lh_prefilter_scratch_alloc(const struct lh_prefilter *pf);
void lh_prefilter_scratch_free(struct lh_prefilter_scratch *ps);
/*
 * Scans s[0..len): *cand = the rules that may match it (each once, in no order; valid until
 * the next scan). Return: their number, or (size_t)-1 when the scan failed (every rule may).
 */
size_t lh_prefilter_scan(const struct lh_prefilter *pf, struct lh_prefilter_scratch *ps,
			 const char *s, size_t len, const uint32_t **cand);

/* A rule that may match a line of a block. */
struct lh_prefilter_pair {
	uint32_t	line;
	uint32_t	rule;
};

/* Return: whether pf scans blocks of lines (every pattern in it allows it). */
bool lh_prefilter_has_block(const struct lh_prefilter *pf);
/*
 * Scans nr lines at once: text[0..len) holds them joined with '\n', line i from starts[i].
 * A line's candidates are those lh_prefilter_scan() of the line alone names, and maybe more:
 * one scan for a record's functions costs what a few lines' scans cost one at a time.
 * Return: the (line, rule) pairs in *pairs, sorted, each once (valid until the next scan),
 * or (size_t)-1 when the lines must be scanned one at a time (no block database, a failed
 * scan, or more matches than the text has bytes twice over).
 */
size_t lh_prefilter_scan_lines(const struct lh_prefilter *pf, struct lh_prefilter_scratch *ps,
			       const char *text, size_t len, const uint32_t *starts, size_t nr,
			       const struct lh_prefilter_pair **pairs);

/* Drops the matching state (after a load, a new cache limit, at free). */
void lh_rules_unprepare(struct lh_rules *rs);

#endif /* LH_RULES_PRIV_H */
