// SPDX-License-Identifier: GPL-2.0-only
/*
 * Matching records against rules.
 *
 * A subject (stack, functions, irq, task, start, end, blocking) is a list of lines, and a rule fires
 * when its pattern matches one line of one of its subjects, as grep matches a file: the
 * meaning is PCRE2's, line by line, and nothing here reads the pattern. A rule that says
 * 'span = lines' is matched instead against each of its subjects' non-empty lines joined
 * with '\n' (compiled with PCRE2_MULTILINE), once per record.
 *
 * Which line rules match a line depends only on the line's text, so that is computed once
 * per distinct line for the whole run and cached, keyed by the text, as the short list of
 * the rules that matched (and of those a PCRE2 limit stopped): a record then costs a
 * lookup per line and work in proportion to what fired, whatever the number of rules.
 * Kernel traces repeat the same few thousand function names; a run computes each once.
 * On a long soak's traces (names drawn from the whole symbol table) most lines are new,
 * so computing one must not cost a PCRE2 run per rule: a multi-pattern prefilter
 * (rules-prefilter.c, Vectorscan) scans the line once and names the few rules that may
 * match it, and PCRE2 decides those, plus any rule the prefilter does not cover.
 *
 * Patterns are user input: each runs with match, depth and heap limits (LH_RULES_*_LIMIT)
 * and a JIT stack of bounded size, so one careless rule costs about a millisecond per
 * distinct line, and a limit hit makes the rule unevaluated on that record rather than
 * silently not firing.
 */
#include <stdlib.h>
#include <string.h>

#include "rules-priv.h"

static const char *const severity_names[LH_SEV_NR] = {
	[LH_SEV_INFO]		= "info",
	[LH_SEV_WARNING]	= "warning",
	[LH_SEV_CRITICAL]	= "critical",
	[LH_SEV_IGNORE]		= "ignore",
};

const char *lh_severity_name(enum lh_severity s)
{
	return (unsigned int)s < LH_SEV_NR ? severity_names[s] : "unknown";
}

int lh_severity_parse(const char *name, enum lh_severity *s)
{
	int i;

	for (i = 0; i < LH_SEV_NR; i++) {
		if (!strcmp(name, severity_names[i])) {
			*s = i;
			return 0;
		}
	}
	return -1;
}

/* Allocation, freeing and introspection */

struct lh_rules *lh_rules_alloc(void)
{
	struct lh_rules *rs = lh_xcalloc(1, sizeof(*rs));

	rs->cache_limit = LH_RULES_CACHE_DEFAULT;
	pthread_mutex_init(&rs->lock, NULL);
	rs->cctx = pcre2_compile_context_create(NULL);
	rs->probe = pcre2_match_context_create(NULL);
	if (!rs->cctx || !rs->probe)
		lh_oom();
	/* lines are joined with '\n': make it the newline whatever PCRE2's build default */
	pcre2_set_newline(rs->cctx, PCRE2_NEWLINE_LF);
	pcre2_set_match_limit(rs->probe, 1);
	return rs;
}

void lh_rules_free(struct lh_rules *rs)
{
	size_t i;

	if (!rs)
		return;
	lh_rules_unprepare(rs);
	for (i = 0; i < rs->nr; i++)
		pcre2_code_free(rs->rules[i]->code);
	free(rs->rules);
	free(rs->files);
	free(rs->ids);
	lh_htab_release(&rs->id_tab);
	lh_arena_release(&rs->arena);
	pcre2_match_context_free(rs->probe);
	pcre2_compile_context_free(rs->cctx);
	pthread_mutex_destroy(&rs->lock);
	free(rs);
}

size_t lh_rules_count(const struct lh_rules *rs)
{
	return rs->nr;
}

const struct lh_rule *lh_rules_get(const struct lh_rules *rs, size_t i)
{
	return i < rs->nr ? &rs->rules[i]->pub : NULL;
}

size_t lh_rules_nr_files(const struct lh_rules *rs)
{
	return rs->nr_files;
}

const char *lh_rules_file(const struct lh_rules *rs, size_t i, size_t *nr_rules)
{
	if (i >= rs->nr_files)
		return NULL;
	if (nr_rules)
		*nr_rules = rs->files[i].nr_rules;
	return rs->files[i].name;
}

const struct lh_rules_stats *lh_rules_stats(const struct lh_rules *rs)
{
	return &rs->stats;
}

void lh_rules_set_cache_limit(struct lh_rules *rs, size_t bytes)
{
	lh_rules_unprepare(rs);
	rs->cache_limit = bytes;
}

void lh_rules_set_prefilter(struct lh_rules *rs, bool on)
{
	lh_rules_unprepare(rs);
	rs->prefilter_off = !on;
}

void lh_match_release(struct lh_match *m)
{
	free(m->hits);
	free(m->unevaluated);
	free(m->limits);
	memset(m, 0, sizeof(*m));
}

/* Preparing and running patterns */

static void cache_release(struct lh_rules_matcher *mt);

void lh_rules_unprepare(struct lh_rules *rs)
{
	if (!rs->ready)
		return;
	lh_rules_matcher_free(rs->own);
	free(rs->line_rules[0]);
	lh_prefilter_free(rs->pf);
	memset(&rs->ready, 0, sizeof(*rs) - offsetof(struct lh_rules, ready) -
	       sizeof(rs->stats));
	rs->stats.cache_entries = rs->stats.cache_bytes = 0;
}

/* Splits the line rules between the prefilter and the always-run lists. */
static void prepare_prefilter(struct lh_rules *rs)
{
	bool *always = lh_xmalloc((rs->nr + 1) * sizeof(*always));
	uint32_t *idx = lh_xmalloc((rs->nr + 1) * sizeof(*idx));
	size_t i, k, n = 0;
	int s;

	for (i = 0; i < rs->nr; i++) {
		always[i] = true;
		if (!rs->rules[i]->pub.span)
			idx[n++] = i;
	}
	rs->stats.no_prefilter = "turned off";
	if (!rs->prefilter_off && n)
		rs->pf = lh_prefilter_build(rs, idx, n, always, &rs->stats.no_prefilter);
	if (rs->pf)
		rs->stats.no_prefilter = NULL;
	rs->stats.prefilter_cached = rs->pf && lh_prefilter_cached(rs->pf);
	rs->stats.block_scan = rs->pf && lh_prefilter_has_block(rs->pf);
	rs->stats.prefiltered = rs->stats.always_run = 0;
	for (k = 0; k < n; k++) {
		rs->rules[idx[k]]->pub.prefiltered = !always[idx[k]];
		if (always[idx[k]])
			rs->stats.always_run++;
		else
			rs->stats.prefiltered++;
	}
	for (s = 0; s < LH_RULES_NR_SUBJ; s++)
		for (k = 0; k < rs->nr_line_rules[s]; k++)
			if (always[rs->line_rules[s][k]])
				rs->always_rules[s][rs->nr_always[s]++] = rs->line_rules[s][k];
	free(always);
	free(idx);
}

static struct lh_rules_matcher *matcher_new(struct lh_rules *rs, size_t cache_limit);

static void prepare(struct lh_rules *rs)
{
	uint32_t *lists = lh_xmalloc((2 * LH_RULES_NR_SUBJ + 1) * (rs->nr + 1) * sizeof(*lists));
	size_t i;
	int s;

	for (s = 0; s < LH_RULES_NR_SUBJ; s++) {
		rs->line_rules[s] = lists + s * (rs->nr + 1);
		rs->always_rules[s] = lists + (LH_RULES_NR_SUBJ + s) * (rs->nr + 1);
	}
	rs->span_rules = lists + 2 * LH_RULES_NR_SUBJ * (rs->nr + 1);
	rs->stats.joined = 0;
	for (i = 0; i < rs->nr; i++) {
		const struct lh_rule *r = &rs->rules[i]->pub;

		if (r->span) {
			rs->span_rules[rs->nr_span_rules++] = i;
			rs->stats.joined++;
			continue;
		}
		for (s = 0; s < LH_RULES_NR_SUBJ; s++)
			if (r->subjects & (1U << s))
				rs->line_rules[s][rs->nr_line_rules[s]++] = i;
	}
	prepare_prefilter(rs);
	rs->ready = true;
	rs->own = matcher_new(rs, rs->cache_limit);
	rs->own->stats = &rs->stats;
}

void lh_rules_prepare(struct lh_rules *rs)
{
	pthread_mutex_lock(&rs->lock);
	if (!rs->ready)
		prepare(rs);
	pthread_mutex_unlock(&rs->lock);
}

/* Matchers */

static struct lh_rules_matcher *matcher_new(struct lh_rules *rs, size_t cache_limit)
{
	struct lh_rules_matcher *mt = lh_xcalloc(1, sizeof(*mt));

	mt->rs = rs;
	mt->stats = &mt->own_stats;
	mt->mctx = pcre2_match_context_create(NULL);
	mt->md = pcre2_match_data_create(1, NULL);
	if (!mt->mctx || !mt->md)
		lh_oom();
	pcre2_set_match_limit(mt->mctx, LH_RULES_MATCH_LIMIT);
	pcre2_set_depth_limit(mt->mctx, LH_RULES_DEPTH_LIMIT);
	pcre2_set_heap_limit(mt->mctx, LH_RULES_HEAP_LIMIT_KIB);
	mt->jit_stack = pcre2_jit_stack_create(LH_RULES_JIT_STACK_START, LH_RULES_JIT_STACK_MAX,
					       NULL);
	if (mt->jit_stack)
		pcre2_jit_stack_assign(mt->mctx, NULL, mt->jit_stack);
	if (rs->pf)
		mt->ps = lh_prefilter_scratch_alloc(rs->pf);
	mt->cand = lh_xmalloc((rs->nr + 1) * sizeof(*mt->cand));
	mt->fired_gen = lh_xcalloc(3 * (rs->nr + 1), sizeof(*mt->fired_gen));
	mt->uneval_gen = mt->fired_gen + rs->nr + 1;
	mt->limit_gen = mt->uneval_gen + rs->nr + 1;
	mt->cache_limit = cache_limit;
	/* 256 slots to start with, unless that passes a quarter of a small cache bound */
	lh_htab_init(&mt->line_tab,
		     256 * sizeof(*mt->line_tab.slots) > cache_limit / 4 ? 16 : 256);
	return mt;
}

struct lh_rules_matcher *lh_rules_matcher_alloc(struct lh_rules *rs, unsigned int share)
{
	lh_rules_prepare(rs);
	return matcher_new(rs, rs->cache_limit / (share ? share : 1));
}

/* Adds the counters of from to to. */
static void stats_add(struct lh_rules_stats *to, const struct lh_rules_stats *from)
{
	to->records += from->records;
	to->lines += from->lines;
	to->cache_hits += from->cache_hits;
	to->cache_misses += from->cache_misses;
	to->cache_clears += from->cache_clears;
	to->regex_runs += from->regex_runs;
	to->scans += from->scans;
	to->scan_only += from->scan_only;
}

void lh_rules_matcher_free(struct lh_rules_matcher *mt)
{
	int s;

	if (!mt)
		return;
	if (mt->stats == &mt->own_stats) {
		pthread_mutex_lock(&mt->rs->lock);
		stats_add(&mt->rs->stats, &mt->own_stats);
		pthread_mutex_unlock(&mt->rs->lock);
	}
	cache_release(mt);
	lh_prefilter_scratch_free(mt->ps);
	pcre2_match_data_free(mt->md);
	pcre2_match_context_free(mt->mctx);
	pcre2_jit_stack_free(mt->jit_stack);
	free(mt->cand);
	free(mt->fired_gen);
	free(mt->scratch);
	free(mt->uneval);
	free(mt->buf);
	for (s = 0; s < LH_RULES_NR_SUBJ; s++)
		free(mt->joined[s]);
	free(mt->block);
	free(mt->starts);
	free(mt);
}

static const char *limit_reason(int rc, char *buf, size_t len)
{
	switch (rc) {
	case PCRE2_ERROR_MATCHLIMIT:
		return "pattern hit the PCRE2 match limit (catastrophic backtracking)";
	case PCRE2_ERROR_DEPTHLIMIT:
		return "pattern hit the PCRE2 depth limit (backtracking nested too deeply)";
	case PCRE2_ERROR_HEAPLIMIT:
		return "pattern hit the PCRE2 heap limit (backtracking needs too much memory)";
	case PCRE2_ERROR_JIT_STACKLIMIT:
		return "pattern hit the PCRE2 JIT stack limit (backtracking nested too deeply)";
	case PCRE2_ERROR_NOMEMORY:
		return "out of memory while matching the pattern";
	}
	if (pcre2_get_error_message(rc, (PCRE2_UCHAR *)buf, len) < 0)
		snprintf(buf, len, "PCRE2 error %d", rc);
	return buf;
}

/* Says once per rule why it could not be evaluated, and where it first happened. */
static void warn_limit(struct lh_rules *rs, size_t i, int rc, const struct lh_record *rec,
		       struct lh_diag *diag)
{
	struct lh_rule *r = &rs->rules[i]->pub;
	char where[512] = "", buf[256];

	if (!r->limit_hit) {
		const char *why = limit_reason(rc, buf, sizeof(buf));

		r->limit_hit = why == buf ? lh_arena_strdup(&rs->arena, buf) : why;
	}
	if (rs->rules[i]->warned || !diag)
		return;
	rs->rules[i]->warned = true;
	if (rec && rec->source)
		snprintf(where, sizeof(where), " (first in %s:%lu)", rec->source, rec->line);
	lh_diag_add(diag, LH_DIAG_WARNING,
		    "%s:%u: rule '%s': %s; records where this happens are marked as not evaluated for it%s",
		    r->file, r->line, r->id, r->limit_hit, where);
}

void lh_rules_warn(struct lh_rules *rs, const struct lh_record *r, const struct lh_match *m,
		   struct lh_diag *diag)
{
	size_t i;

	for (i = 0; i < m->nr_limits; i++)
		warn_limit(rs, m->limits[i].rule, m->limits[i].rc, r, diag);
}

/* Notes, for lh_rules_warn(), the first limit hit of rule i in this record. */
static void note_limit(struct lh_rules_matcher *mt, size_t i, int rc)
{
	struct lh_match *m = mt->m;

	if (mt->limit_gen[i] == mt->gen)
		return;
	mt->limit_gen[i] = mt->gen;
	LH_GROW(m->limits, m->nr_limits + 1, m->alloc_limits);
	m->limits[m->nr_limits++] = (struct lh_limit_hit){ i, rc };
}

/* Return: 1 when rule i matches s[0..len), 0 when not, -1 when it could not tell. */
static int run_rule(struct lh_rules_matcher *mt, size_t i, const char *s, size_t len)
{
	const struct lh_rules_rule *r = mt->rs->rules[i];
	int rc;

	mt->stats->regex_runs++;
	if (r->jit) {
		/*
		 * The interpreter first, on a budget of one step: PCRE2's own start-of-match
		 * optimizations (a first or required code unit, a minimum length) settle most
		 * lines without entering the pattern's JIT code, whose cache misses are what
		 * costs with thousands of rules (bench/rules-cost.sh: 3x faster at 20000 rules).
		 * Whatever it cannot settle at once, the JIT decides under the real limits.
		 */
		rc = pcre2_match(r->code, (PCRE2_SPTR)s, len, 0, PCRE2_NO_JIT, mt->md,
				 mt->rs->probe);
		if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
			rc = pcre2_jit_match(r->code, (PCRE2_SPTR)s, len, 0, 0, mt->md, mt->mctx);
	} else {
		rc = pcre2_match(r->code, (PCRE2_SPTR)s, len, 0, 0, mt->md, mt->mctx);
	}
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	note_limit(mt, i, rc);
	return -1;
}

/* The line cache */

/* A line's result: the rules matching it, then those unevaluated on it. */
struct line_result {
	const uint32_t	*idx;
	uint32_t	nr_hits;
	uint32_t	nr_unevaluated;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The rules of subject subj that the prefilter names for s[0..len), in rule order, in
 * mt->cand. Return: their number, or (size_t)-1 when every rule of the subject may match.
 */
static size_t candidates(struct lh_rules_matcher *mt, int subj, const char *s, size_t len)
{
	const struct lh_rules *rs = mt->rs;
	const uint32_t *cand;
	size_t k, n = 0, nc;

	mt->stats->scans++;
	nc = lh_prefilter_scan(rs->pf, mt->ps, s, len, &cand);
	if (nc == (size_t)-1)
		return nc;
	for (k = 0; k < nc; k++)
		if (rs->rules[cand[k]]->pub.subjects & (1U << subj))
			mt->cand[n++] = cand[k];
	if (n > 1)
		qsort(mt->cand, n, sizeof(*mt->cand), cmp_u32);
	return n;
}

/* compute_line() without the candidates at hand */
#define NOT_SCANNED	((size_t)-2)

/*
 * Runs the line rules of subject subj on s[0..len), in rule order: those the prefilter
 * names (nc of them in mt->cand, or NOT_SCANNED yet) and those it does not cover (all of
 * them without a prefilter). Hits, then unevaluated rules, in mt->scratch.
 */
static struct line_result compute_line(struct lh_rules_matcher *mt, int subj, const char *s,
				       size_t len, size_t nc)
{
	const struct lh_rules *rs = mt->rs;
	size_t nh = 0, nu = 0, nr = rs->nr_line_rules[subj];
	const uint32_t *always = rs->always_rules[subj];
	size_t a = 0, na = rs->nr_always[subj], k = 0;

	LH_GROW(mt->scratch, 2 * nr + 1, mt->alloc_scratch);
	if (nc == NOT_SCANNED)
		nc = rs->pf && nr > na ? candidates(mt, subj, s, len) : 0;
	if (rs->pf && nr > na) {
		if (nc == (size_t)-1) {		/* PCRE2 runs them all */
			nc = 0;
			always = rs->line_rules[subj];
			na = nr;
		}
	}
	while (a < na || k < nc) {
		uint32_t i = a < na && (k == nc || always[a] < mt->cand[k]) ? always[a++] :
			     mt->cand[k++];
		int rc = run_rule(mt, i, s, len);

		if (rc > 0)
			mt->scratch[nh++] = i;
		else if (rc < 0)
			mt->scratch[nr + nu++] = i;
	}
	memmove(mt->scratch + nh, mt->scratch + nr, nu * sizeof(*mt->scratch));
	return (struct line_result){ mt->scratch, nh, nu };
}

static size_t cache_bytes(const struct lh_rules_matcher *mt)
{
	return mt->cache.used + lh_htab_bytes(&mt->line_tab) +
	       mt->alloc_lines * sizeof(*mt->lines);
}

static void cache_clear(struct lh_rules_matcher *mt)
{
	if (!mt->nr_lines)
		return;
	lh_htab_clear(&mt->line_tab);
	lh_arena_reset(&mt->cache);
	mt->nr_lines = 0;
	mt->stats->cache_clears++;
}

static void cache_release(struct lh_rules_matcher *mt)
{
	lh_htab_release(&mt->line_tab);
	free(mt->lines);
	lh_arena_release(&mt->cache);
}

/* Return: the bytes the line table will take once one more line is added. */
static size_t table_bytes_next(const struct lh_htab *t)
{
	if (!lh_htab_will_grow(t))
		return lh_htab_bytes(t);
	return t->slots ? 2 * lh_htab_bytes(t) : t->min * sizeof(*t->slots);
}

static const char *line_text(const struct lh_rules_line *e)
{
	return (const char *)(e->idx + e->nr_hits + e->nr_unevaluated);
}

/*
 * Return: the result of subject subj's line rules on s, from the cache or computed (valid
 * until the next call); nc: as compute_line().
 */
static struct line_result line_result(struct lh_rules_matcher *mt, int subj, const char *s,
				      size_t len, size_t nc)
{
	size_t need, pos = 0;
	struct lh_rules_line *e;
	struct line_result res;
	uint32_t i;
	uint64_t h;

	if (!mt->cache_limit || len > UINT32_MAX) {
		mt->stats->cache_misses++;
		return compute_line(mt, subj, s, len, nc);
	}
	h = lh_hash_fast(s, len, subj);
	while (lh_htab_find(&mt->line_tab, h, &pos, &i)) {
		e = mt->lines[i];
		if (e->len == len && e->subj == (uint32_t)subj && !memcmp(line_text(e), s, len)) {
			mt->stats->cache_hits++;
			return (struct line_result){ e->idx, e->nr_hits, e->nr_unevaluated };
		}
	}
	mt->stats->cache_misses++;
	res = compute_line(mt, subj, s, len, nc);
	need = sizeof(*e) + (res.nr_hits + res.nr_unevaluated) * sizeof(*e->idx) + len;
	if (cache_bytes(mt) + need > mt->cache_limit)
		cache_clear(mt);
	/* The table may take a quarter of the bound, the lines the rest. */
	if (table_bytes_next(&mt->line_tab) > mt->cache_limit / 4)
		cache_clear(mt);
	if (cache_bytes(mt) - lh_htab_bytes(&mt->line_tab) + table_bytes_next(&mt->line_tab) +
	    need + sizeof(*mt->lines) > mt->cache_limit)
		return res;		/* a line larger than the whole cache: not kept */
	e = lh_arena_alloc(&mt->cache, need);
	e->len = len;
	e->subj = subj;
	e->nr_hits = res.nr_hits;
	e->nr_unevaluated = res.nr_unevaluated;
	memcpy(e->idx, res.idx, (res.nr_hits + res.nr_unevaluated) * sizeof(*e->idx));
	memcpy((char *)line_text(e), s, len);
	LH_GROW(mt->lines, mt->nr_lines + 1, mt->alloc_lines);
	mt->lines[mt->nr_lines] = e;
	lh_htab_add(&mt->line_tab, h, (uint32_t)mt->nr_lines++);
	return res;
}

/* Records */

static void fire(struct lh_rules_matcher *mt, size_t i)
{
	struct lh_match *m = mt->m;

	if (mt->fired_gen[i] == mt->gen)
		return;
	mt->fired_gen[i] = mt->gen;
	LH_GROW(m->hits, m->nr_hits + 1, m->alloc_hits);
	m->hits[m->nr_hits++] = i;
}

static void unevaluated(struct lh_rules_matcher *mt, size_t i)
{
	if (mt->uneval_gen[i] == mt->gen)
		return;
	mt->uneval_gen[i] = mt->gen;
	LH_GROW(mt->uneval, mt->nr_uneval + 1, mt->alloc_uneval);
	mt->uneval[mt->nr_uneval++] = i;
}

/* What one subject's lines are fed to: a record's match state, or a joined text. */
struct feed {
	struct lh_rules_matcher		*mt;
	const struct lh_record		*rec;
	int				subj;
};

/* The outcome of subject f->subj's line rules on a line: fires what matched. */
static void take_result(struct feed *f, struct line_result res)
{
	uint32_t k;

	for (k = 0; k < res.nr_hits; k++)
		fire(f->mt, res.idx[k]);
	for (k = res.nr_hits; k < res.nr_hits + res.nr_unevaluated; k++)
		unevaluated(f->mt, res.idx[k]);
}

/* A line of subject f->subj: the line rules that search that subject and matched it. */
static void feed_line(struct feed *f, const char *s, size_t len)
{
	struct lh_rules_matcher *mt = f->mt;
	const struct lh_rules *rs = mt->rs;
	size_t nc = NOT_SCANNED;

	mt->stats->lines++;
	/*
	 * Where the prefilter covers every rule of the subject, its scan comes first: a line
	 * it names no rule for (nearly all of them) is settled without the cache, whose
	 * lookups cost more than the scan when most lines are new.
	 */
	if (rs->pf && !rs->nr_always[f->subj]) {
		nc = candidates(mt, f->subj, s, len);
		if (!nc) {
			mt->stats->scan_only++;
			return;
		}
	}
	take_result(f, line_result(mt, f->subj, s, len, nc));
}

static void feed_joined(struct feed *f, const char *s, size_t len)
{
	struct lh_rules_matcher *mt = f->mt;
	size_t n = mt->joined_len[f->subj];

	LH_GROW(mt->joined[f->subj], n + len + 2, mt->alloc_joined[f->subj]);
	if (n)
		mt->joined[f->subj][n++] = '\n';
	memcpy(mt->joined[f->subj] + n, s, len);
	mt->joined_len[f->subj] = n + len;
}

/* Blocks past this are scanned a line at a time: the offsets are 32-bit. */
#define BLOCK_MAX	(1U << 30)

/* Adds a line to the block that feed_block() scans at once (unless it would pass BLOCK_MAX). */
static void feed_block_line(struct feed *f, const char *s, size_t len)
{
	struct lh_rules_matcher *mt = f->mt;
	size_t n = mt->block_len + !!mt->nr_starts;

	if (mt->block_full || n + len > BLOCK_MAX) {
		mt->block_full = true;
		return;
	}
	LH_GROW(mt->block, n + len + 1, mt->alloc_block);
	LH_GROW(mt->starts, mt->nr_starts + 2, mt->alloc_starts);
	if (mt->nr_starts)
		mt->block[n - 1] = '\n';
	mt->starts[mt->nr_starts++] = (uint32_t)n;
	memcpy(mt->block + n, s, len);
	mt->block_len = n + len;
}

/* Return: the length of line k of the block. */
static size_t block_line_len(const struct lh_rules_matcher *mt, size_t k)
{
	return (k + 1 < mt->nr_starts ? mt->starts[k + 1] - 1 : mt->block_len) - mt->starts[k];
}

static void each_line(struct feed *f, void (*fn)(struct feed *, const char *, size_t));

/*
 * Subject f->subj's lines in one prefilter scan (lh_prefilter_scan_lines()), where the
 * prefilter covers every rule of the subject: a line it names no rule for is settled, the
 * others go to the cache and PCRE2 with their candidates, as feed_line() does.
 */
static void feed_block(struct feed *f)
{
	struct lh_rules_matcher *mt = f->mt;
	const struct lh_rules *rs = mt->rs;
	const struct lh_prefilter_pair *pairs;
	size_t np, p = 0, k, nc;

	mt->block_len = mt->nr_starts = 0;
	mt->block_full = false;
	each_line(f, feed_block_line);
	if (mt->block_full) {		/* the record's own lines, one at a time */
		each_line(f, feed_line);
		return;
	}
	np = mt->nr_starts > 1 ?
	     lh_prefilter_scan_lines(rs->pf, mt->ps, mt->block, mt->block_len, mt->starts,
				     mt->nr_starts, &pairs) : (size_t)-1;
	if (np == (size_t)-1) {
		for (k = 0; k < mt->nr_starts; k++)
			feed_line(f, mt->block + mt->starts[k], block_line_len(mt, k));
		return;
	}
	mt->stats->scans++;
	for (k = 0; k < mt->nr_starts; k++) {
		mt->stats->lines++;
		for (nc = 0; p < np && pairs[p].line == k; p++)
			if (rs->rules[pairs[p].rule]->pub.subjects & (1U << f->subj))
				mt->cand[nc++] = pairs[p].rule;
		if (!nc) {
			mt->stats->scan_only++;
			continue;
		}
		take_result(f, line_result(mt, f->subj, mt->block + mt->starts[k],
					   block_line_len(mt, k), nc));
	}
}

/* Formats a task as "comm-pid" in mt->buf. Return: its length, or 0 without a comm. */
static size_t task_line(struct lh_rules_matcher *mt, const struct lh_task *t)
{
	size_t n;

	if (!t->comm)
		return 0;
	n = strlen(t->comm) + 16;
	LH_GROW(mt->buf, n, mt->alloc_buf);
	if (t->pid >= 0)
		return snprintf(mt->buf, n, "%s-%d", t->comm, t->pid);
	return snprintf(mt->buf, n, "%s", t->comm);
}

static void feed_str(struct feed *f, void (*fn)(struct feed *, const char *, size_t),
		     const char *s)
{
	if (s && *s)
		fn(f, s, strlen(s));
}

/* Calls fn on every non-empty line of subject f->subj of f->rec. */
static void each_line(struct feed *f, void (*fn)(struct feed *, const char *, size_t))
{
	const struct lh_record *r = f->rec;
	const struct lh_task *tasks[3] = { &r->task, NULL, NULL };
	size_t i, j, n;

	switch (1U << f->subj) {
	case LH_SUBJ_STACK:
		for (i = 0; i < r->nr_stacks && i < LH_MAX_STACKS; i++)
			for (j = 0; j < r->stacks[i].nr; j++)
				feed_str(f, fn, r->stacks[i].frames[j]);
		break;
	case LH_SUBJ_FUNCTIONS:
		for (i = 0; i < r->nr_funcs; i++)
			if (r->funcs[i].len)
				fn(f, r->funcs[i].name, r->funcs[i].len);
		break;
	case LH_SUBJ_IRQ:
		for (i = 0; i < r->nr_irqs; i++)
			feed_str(f, fn, r->irqs[i].name);
		break;
	case LH_SUBJ_TASK:
		if (r->has_wakeup || lh_tracer_is_wakeup(r->tracer)) {
			tasks[1] = &r->woken;
			tasks[2] = &r->waker;
		}
		for (i = 0; i < 3 && tasks[i]; i++) {
			n = task_line(f->mt, tasks[i]);
			if (n)
				fn(f, f->mt->buf, n);
		}
		break;
	case LH_SUBJ_START:
		feed_str(f, fn, r->started_at);
		break;
	case LH_SUBJ_END:
		feed_str(f, fn, r->ended_at);
		break;
	case LH_SUBJ_BLOCKING:
		n = r->spike.set && r->spike.has_irq ? task_line(f->mt, &r->spike.blocking) : 0;
		if (n)
			fn(f, f->mt->buf, n);
		break;
	}
}

static bool rule_applies(const struct lh_rule *r, const struct lh_record *rec)
{
	if (r->tracers && !(r->tracers & (1U << rec->tracer)))
		return false;
	if (r->min_ns && (rec->latency_us > UINT64_MAX / 1000 ? UINT64_MAX :
			  rec->latency_us * 1000) < r->min_ns)
		return false;
	return true;
}

/* A 'span = lines' rule on each of its subjects' joined lines (joined once per record). */
static void match_span(struct feed *f, size_t i)
{
	struct lh_rules_matcher *mt = f->mt;
	bool failed = false;
	int rc;

	for (f->subj = 0; f->subj < LH_RULES_NR_SUBJ; f->subj++) {
		if (!(mt->rs->rules[i]->pub.subjects & (1U << f->subj)))
			continue;
		if (!mt->have_joined[f->subj]) {
			mt->joined_len[f->subj] = 0;
			each_line(f, feed_joined);
			mt->have_joined[f->subj] = true;
		}
		if (!mt->joined_len[f->subj])
			continue;
		rc = run_rule(mt, i, mt->joined[f->subj], mt->joined_len[f->subj]);
		if (rc > 0) {
			fire(mt, i);
			return;
		}
		failed |= rc < 0;
	}
	if (failed)
		unevaluated(mt, i);
}

static int cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Empties m, keeping its storage. */
static void match_reset(struct lh_match *m)
{
	m->nr_hits = m->nr_unevaluated = m->nr_limits = 0;
	m->accepted = false;
	m->has_worst = false;
	m->worst = LH_SEV_INFO;
}

/* Subjects whose lines may be many: scanned a block at a time where the prefilter can. */
#define BLOCK_SUBJECTS	(LH_SUBJ_STACK | LH_SUBJ_FUNCTIONS | LH_SUBJ_IRQ)

int lh_rules_matcher_match(struct lh_rules_matcher *mt, const struct lh_record *r,
			   struct lh_match *m)
{
	const struct lh_rules *rs = mt->rs;
	struct feed f = { .mt = mt, .rec = r };
	bool block = rs->pf && lh_prefilter_has_block(rs->pf);
	size_t i, n;

	match_reset(m);
	if (!rs->nr)
		return 0;
	mt->m = m;
	mt->stats->records++;
	if (!++mt->gen) {		/* the stamps wrapped: forget them */
		memset(mt->fired_gen, 0, 3 * (rs->nr + 1) * sizeof(*mt->fired_gen));
		mt->gen = 1;
	}
	mt->nr_uneval = 0;

	for (f.subj = 0; f.subj < LH_RULES_NR_SUBJ; f.subj++) {
		if (!rs->nr_line_rules[f.subj])
			continue;
		if (block && !rs->nr_always[f.subj] && (BLOCK_SUBJECTS & (1U << f.subj)))
			feed_block(&f);
		else
			each_line(&f, feed_line);
	}
	memset(mt->have_joined, 0, sizeof(mt->have_joined));
	for (i = 0; i < rs->nr_span_rules; i++)
		if (rule_applies(&rs->rules[rs->span_rules[i]]->pub, r))
			match_span(&f, rs->span_rules[i]);

	/* in rule order, those whose tracer and min hold */
	if (m->nr_hits > 1)
		qsort(m->hits, m->nr_hits, sizeof(*m->hits), cmp_index);
	for (i = n = 0; i < m->nr_hits; i++) {
		const struct lh_rule *rule = &rs->rules[m->hits[i]]->pub;

		if (!rule_applies(rule, r))
			continue;
		m->hits[n++] = m->hits[i];
		if (rule->severity == LH_SEV_IGNORE) {
			m->accepted = true;
		} else if (!m->has_worst || rule->severity > m->worst) {
			m->has_worst = true;
			m->worst = rule->severity;
		}
	}
	m->nr_hits = n;
	for (i = 0; i < mt->nr_uneval; i++) {
		size_t k = mt->uneval[i];

		if (mt->fired_gen[k] == mt->gen || !rule_applies(&rs->rules[k]->pub, r))
			continue;
		LH_GROW(m->unevaluated, m->nr_unevaluated + 1, m->alloc_unevaluated);
		m->unevaluated[m->nr_unevaluated++] = k;
	}
	if (m->nr_unevaluated > 1)
		qsort(m->unevaluated, m->nr_unevaluated, sizeof(*m->unevaluated), cmp_index);
	mt->m = NULL;
	return 0;
}

int lh_rules_match(struct lh_rules *rs, const struct lh_record *r, struct lh_match *m,
		   struct lh_diag *diag)
{
	if (!rs->nr) {
		match_reset(m);
		return 0;
	}
	pthread_mutex_lock(&rs->lock);
	if (!rs->ready)
		prepare(rs);
	lh_rules_matcher_match(rs->own, r, m);
	lh_rules_warn(rs, r, m, diag);
	rs->stats.cache_entries = rs->own->nr_lines;
	rs->stats.cache_bytes = cache_bytes(rs->own);
	pthread_mutex_unlock(&rs->lock);
	return 0;
}
