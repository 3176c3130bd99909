// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rule files and matching.
 *
 * A rule file is a list of '[id]' sections of 'key = value' lines (see lathound-rules(1)).
 * Each pattern is compiled once with PCRE2_MULTILINE, JIT-compiled when possible (a JIT
 * failure falls back to the interpreter), and matched with one reused match data and a
 * match context that bounds backtracking, so a pathological user pattern ends with a
 * warning instead of a hang.
 *
 * A subject (stack, functions...) is a text of lines, its non-empty lines joined with '\n',
 * and a rule fires when its pattern matches in any of its subjects. Most patterns cannot
 * match a newline nor tell a line's edges from the subject's (may_cross_lines() decides,
 * conservatively), so they match the text where they match one of its lines, and which
 * rules match a line depends only on the line's text. That set is computed once
 * per distinct line for the whole run and kept as a bitset in a cache keyed by the text;
 * a record then costs one lookup per line and an OR of bitsets per subject, whatever the
 * number of rules. Computing a new line's set is itself kept cheap with many rules by a
 * literal prefilter: from each pattern we extract (conservatively) a few strings one of
 * which every match must contain; one Aho-Corasick pass over the line names the rules
 * worth running. The other patterns (an explicit CR/LF, \s, [^...], (?s)...) are matched
 * against the joined subject text, per record.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "rules.h"

/* Backtracking bounds: a kernel symbol needs a few hundred steps at most. */
#define MATCH_LIMIT		1000000
#define DEPTH_LIMIT		10000
#define HEAP_LIMIT_KIB		(20 * 1024)
#define JIT_STACK_START		(32 * 1024)
#define JIT_STACK_MAX		(1024 * 1024)

#define RULE_FILE_MAX		(64 << 20)

/* Prefilter: literal sets per pattern node, and the automaton's size bound. */
#define LIT_SET_MAX		16
#define LIT_LEN_MAX		64	/* longest exact string tracked while extracting */
#define LIT_AC_LEN		16	/* longest literal put in the automaton (a prefix) */
#define LIT_DEPTH_MAX		300
#define AC_CELLS_MAX		(8u << 20)

#define NR_SUBJ			6

static const char *const subject_names[NR_SUBJ] = {
	"stack", "functions", "irq", "task", "start", "end",
};

static const char *const severity_names[LH_SEV_NR] = {
	[LH_SEV_INFO]		= "info",
	[LH_SEV_WARNING]	= "warning",
	[LH_SEV_CRITICAL]	= "critical",
	[LH_SEV_IGNORE]		= "ignore",
};

enum rule_key { K_MATCH, K_IN, K_TRACER, K_MIN, K_SEVERITY, K_MESSAGE, NR_KEYS };

static const char *const key_names[NR_KEYS] = {
	"match", "in", "tracer", "min", "severity", "message",
};

struct lit {
	const char	*s;
	unsigned int	len;
};

struct rule {
	struct lh_rule	pub;
	pcre2_code	*code;
	bool		span;		/* may cross lines: matched on joined subject text */
	bool		warned;		/* a match-limit warning was given */
	struct lit	*lits;		/* prefilter: every match contains one of these */
	unsigned int	nr_lits;
};

struct rule_file {
	const char	*name;
	size_t		nr_rules;
};

/* Every id seen (good rule or not), for duplicate detection across files. */
struct id_def {
	const char	*id;
	const char	*file;
	unsigned int	line;
};

/* Aho-Corasick automaton over the prefilter literals, ASCII case folded. */
struct ac {
	uint8_t		cls[256];	/* byte -> input class, 0 = in no literal */
	unsigned int	nr_cls;
	size_t		nr_states;
	int32_t		*delta;		/* nr_states * nr_cls */
	int32_t		*dict;		/* next state with outputs on the failure chain, -1 */
	uint32_t	*out_first;	/* per state: its rules are outs[out_first..+out_nr) */
	uint32_t	*out_nr;
	uint32_t	*outs;
	uint8_t		*hit;		/* state or its failure chain has outputs */
};

struct cache_entry {
	uint32_t	len;
	uint32_t	pad;
	uint64_t	bits[];		/* then the key text */
};

struct cache_slot {
	uint64_t		hash;
	struct cache_entry	*e;
};

struct cache {
	struct cache_slot	*slots;
	size_t			nr_slots;	/* power of two, or 0 */
	size_t			nr;
	struct lh_arena		arena;
};

struct lh_rules {
	struct rule		**rules;
	size_t			nr;
	size_t			alloc;
	struct lh_arena		arena;		/* rules, strings, literals */

	struct rule_file	*files;
	size_t			nr_files;
	size_t			alloc_files;

	struct id_def		*ids;
	size_t			nr_ids;
	size_t			alloc_ids;
	uint32_t		*id_slots;	/* index + 1 into ids, 0 = empty */
	size_t			nr_id_slots;

	pcre2_compile_context	*cctx;
	pcre2_match_context	*mctx;
	pcre2_match_data	*md;
	pcre2_jit_stack		*jit_stack;

	/* Matching state, built by the first match after a load. */
	bool			ready;
	bool			no_prefilter;
	size_t			cache_limit;
	size_t			words;		/* 64-bit words in a rule bitset */
	uint64_t		*masks;		/* one block of bitsets, see prepare() */
	uint64_t		*subj_mask[NR_SUBJ];	/* line rules searching subject s */
	uint64_t		*always;	/* line rules run on every new line */
	uint64_t		*acc[NR_SUBJ];	/* per record: rules matching a line of s */
	uint64_t		*cand;
	uint64_t		*tmp;
	uint64_t		*fired;
	size_t			*span;		/* rules matched on joined text */
	size_t			nr_span;
	struct ac		ac;
	struct cache		cache;

	char			*buf;		/* task lines */
	size_t			alloc_buf;
	char			*joined[NR_SUBJ];
	size_t			joined_len[NR_SUBJ];
	size_t			alloc_joined[NR_SUBJ];
	bool			have_joined[NR_SUBJ];

	struct lh_rules_stats	stats;
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

static inline void bit_set(uint64_t *b, size_t i)
{
	b[i / 64] |= 1ULL << (i % 64);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* Allocation, freeing and introspection */

static void unprepare(struct lh_rules *rs);

struct lh_rules *lh_rules_alloc(void)
{
	struct lh_rules *rs = lh_xcalloc(1, sizeof(*rs));

	rs->cache_limit = LH_RULES_CACHE_DEFAULT;
	rs->cctx = pcre2_compile_context_create(NULL);
	rs->mctx = pcre2_match_context_create(NULL);
	rs->md = pcre2_match_data_create(1, NULL);
	if (!rs->cctx || !rs->mctx || !rs->md)
		lh_oom();
	/* lines are joined with '\n': make it the newline whatever PCRE2's build default */
	pcre2_set_newline(rs->cctx, PCRE2_NEWLINE_LF);
	pcre2_set_match_limit(rs->mctx, MATCH_LIMIT);
	pcre2_set_depth_limit(rs->mctx, DEPTH_LIMIT);
	pcre2_set_heap_limit(rs->mctx, HEAP_LIMIT_KIB);
	/* Without a JIT stack, JIT code has 32 KiB: enough for names, but be generous. */
	rs->jit_stack = pcre2_jit_stack_create(JIT_STACK_START, JIT_STACK_MAX, NULL);
	if (rs->jit_stack)
		pcre2_jit_stack_assign(rs->mctx, NULL, rs->jit_stack);
	return rs;
}

void lh_rules_free(struct lh_rules *rs)
{
	size_t i;

	if (!rs)
		return;
	unprepare(rs);
	for (i = 0; i < rs->nr; i++)
		pcre2_code_free(rs->rules[i]->code);
	free(rs->rules);
	free(rs->files);
	free(rs->ids);
	free(rs->id_slots);
	lh_arena_release(&rs->arena);
	pcre2_match_data_free(rs->md);
	pcre2_match_context_free(rs->mctx);
	pcre2_compile_context_free(rs->cctx);
	pcre2_jit_stack_free(rs->jit_stack);
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
	unprepare(rs);
	rs->cache_limit = bytes;
}

void lh_rules_set_prefilter(struct lh_rules *rs, bool on)
{
	unprepare(rs);
	rs->no_prefilter = !on;
}

/* Duplicate ids */

static const struct id_def *id_find(const struct lh_rules *rs, const char *id, uint64_t h)
{
	size_t mask = rs->nr_id_slots - 1, i;

	if (!rs->nr_id_slots)
		return NULL;
	for (i = h & mask; rs->id_slots[i]; i = (i + 1) & mask)
		if (!strcmp(rs->ids[rs->id_slots[i] - 1].id, id))
			return &rs->ids[rs->id_slots[i] - 1];
	return NULL;
}

static void id_add(struct lh_rules *rs, const char *id, const char *file, unsigned int line)
{
	size_t i, mask;

	if ((rs->nr_ids + 1) * 2 > rs->nr_id_slots) {
		size_t n = rs->nr_id_slots ? rs->nr_id_slots * 2 : 64, j;

		free(rs->id_slots);
		rs->id_slots = lh_xcalloc(n, sizeof(*rs->id_slots));
		rs->nr_id_slots = n;
		for (j = 0; j < rs->nr_ids; j++) {
			const char *s = rs->ids[j].id;

			for (i = lh_hash(s, strlen(s), 0) & (n - 1); rs->id_slots[i];
			     i = (i + 1) & (n - 1))
				;
			rs->id_slots[i] = j + 1;
		}
	}
	LH_GROW(rs->ids, rs->nr_ids + 1, rs->alloc_ids);
	rs->ids[rs->nr_ids] = (struct id_def){ id, file, line };
	mask = rs->nr_id_slots - 1;
	for (i = lh_hash(id, strlen(id), 0) & mask; rs->id_slots[i]; i = (i + 1) & mask)
		;
	rs->id_slots[i] = ++rs->nr_ids;
}

/*
 * Literal prefilter extraction.
 *
 * A conservative walk over the pattern computes, for each node, 'exact': the strings the
 * node can match when that set is small and known, and 'req': strings one of which any
 * match of the node contains. Everything is ASCII-lowercased, so (?i) needs no special
 * case (the filter only has to be a necessary condition). Any syntax not understood here
 * (escapes that are letters or digits other than a few classes, \Q, (?x), (*VERB),
 * backreferences, recursion, POSIX classes, callouts...) gives up: the rule then has no
 * prefilter and is run on every new line. The fuzz target checks the prefilter against
 * plain matching.
 */

struct lset {
	int		nr;		/* -1: unknown */
	struct lit	v[LIT_SET_MAX];
};

struct lnode {
	struct lset	exact;
	struct lset	req;
};

struct px {
	const unsigned char	*p;
	size_t			len;
	size_t			pos;
	bool			fail;
	int			depth;
	struct lh_arena		*arena;
};

static void set_unknown(struct lset *s)
{
	s->nr = -1;
}

static void set_empty_string(struct lset *s)
{
	s->nr = 1;
	s->v[0] = (struct lit){ "", 0 };
}

static void node_char(struct px *x, struct lnode *n, unsigned char c)
{
	char *s = lh_arena_alloc(x->arena, 1);

	*s = (char)lower(c);
	n->exact.nr = n->req.nr = 1;
	n->exact.v[0] = n->req.v[0] = (struct lit){ s, 1 };
}

/* A set usable as a required-literal filter: known, non-empty, no empty string. */
static bool set_usable(const struct lset *s)
{
	int i;

	if (s->nr <= 0)
		return false;
	for (i = 0; i < s->nr; i++)
		if (!s->v[i].len)
			return false;
	return true;
}

static unsigned int set_score(const struct lset *s)
{
	unsigned int m = ~0U;
	int i;

	for (i = 0; i < s->nr; i++)
		if (s->v[i].len < m)
			m = s->v[i].len;
	return m > LIT_AC_LEN ? LIT_AC_LEN : m;
}

/* Keeps in *best the more selective of *best and *s (longer shortest literal, fewer). */
static void set_better(struct lset *best, const struct lset *s)
{
	unsigned int a, b;

	if (!set_usable(s))
		return;
	if (!set_usable(best)) {
		*best = *s;
		return;
	}
	a = set_score(best);
	b = set_score(s);
	if (b > a || (b == a && s->nr < best->nr))
		*best = *s;
}

static void set_cross(struct px *x, struct lset *out, const struct lset *a,
		      const struct lset *b)
{
	struct lset r;
	int i, j;

	if (a->nr < 0 || b->nr < 0 || a->nr * b->nr > LIT_SET_MAX) {
		set_unknown(out);
		return;
	}
	r.nr = 0;
	for (i = 0; i < a->nr; i++) {
		for (j = 0; j < b->nr; j++) {
			unsigned int len = a->v[i].len + b->v[j].len;
			char *s;

			if (len > LIT_LEN_MAX) {
				set_unknown(out);
				return;
			}
			if (!a->v[i].len) {
				r.v[r.nr++] = b->v[j];
				continue;
			}
			if (!b->v[j].len) {
				r.v[r.nr++] = a->v[i];
				continue;
			}
			s = lh_arena_alloc(x->arena, len);
			memcpy(s, a->v[i].s, a->v[i].len);
			memcpy(s + a->v[i].len, b->v[j].s, b->v[j].len);
			r.v[r.nr++] = (struct lit){ s, len };
		}
	}
	*out = r;
}

static void set_union(struct lset *out, const struct lset *a, const struct lset *b)
{
	int i;

	if (a->nr < 0 || b->nr < 0 || a->nr + b->nr > LIT_SET_MAX) {
		set_unknown(out);
		return;
	}
	if (out != a)
		*out = *a;
	for (i = 0; i < b->nr; i++)
		out->v[out->nr++] = b->v[i];
}

/* The best required set of a node: its req, or its exact strings if better. */
static void node_req(struct lset *out, const struct lnode *n)
{
	set_unknown(out);
	set_better(out, &n->req);
	set_better(out, &n->exact);
}

static void px_alt(struct px *x, struct lnode *out);

static bool px_peek(const struct px *x, unsigned char c)
{
	return x->pos < x->len && x->p[x->pos] == c;
}

static void node_any(struct lnode *n)
{
	set_unknown(&n->exact);
	set_unknown(&n->req);
}

static void node_zero_width(struct lnode *n)
{
	set_empty_string(&n->exact);
	set_unknown(&n->req);
}

/* '[...]': skipped as "one unknown byte"; gives up on anything ambiguous. */
static void px_class(struct px *x, struct lnode *n)
{
	x->pos++;
	if (px_peek(x, '^'))
		x->pos++;
	if (px_peek(x, ']'))
		x->pos++;
	for (;;) {
		unsigned char c;

		if (x->pos >= x->len) {
			x->fail = true;
			return;
		}
		c = x->p[x->pos];
		if (c == '\\') {
			if (x->pos + 1 >= x->len || x->p[x->pos + 1] == 'Q' ||
			    x->p[x->pos + 1] == 'E') {
				x->fail = true;
				return;
			}
			x->pos += 2;
			continue;
		}
		if (c == '[') {
			x->fail = true;
			return;
		}
		x->pos++;
		if (c == ']')
			break;
	}
	node_any(n);
}

static void px_escape(struct px *x, struct lnode *n)
{
	unsigned char c;

	if (x->pos + 1 >= x->len) {
		x->fail = true;
		return;
	}
	c = x->p[x->pos + 1];
	x->pos += 2;
	if (!is_alnum(c))
		node_char(x, n, c);
	else if (strchr("dDwWsShHvVRXN", c))
		node_any(n);
	else if (strchr("bBAzZG", c))
		node_zero_width(n);
	else
		x->fail = true;
}

/* Skips a group name up to its terminator; gives up on anything but [A-Za-z0-9_]. */
static void px_name(struct px *x, unsigned char end)
{
	while (x->pos < x->len && x->p[x->pos] != end) {
		if (!is_alnum(x->p[x->pos]) && x->p[x->pos] != '_') {
			x->fail = true;
			return;
		}
		x->pos++;
	}
	if (x->pos >= x->len)
		x->fail = true;
	else
		x->pos++;
}

static void px_group(struct px *x, struct lnode *n)
{
	bool lookaround = false;
	struct lnode inner;

	x->pos++;
	if (px_peek(x, '*')) {
		x->fail = true;
		return;
	}
	if (px_peek(x, '?')) {
		unsigned char c;

		x->pos++;
		if (x->pos >= x->len) {
			x->fail = true;
			return;
		}
		c = x->p[x->pos];
		if (c == ':' || c == '>' || c == '|') {
			x->pos++;
		} else if (c == '=' || c == '!') {
			x->pos++;
			lookaround = true;
		} else if (c == '<' && x->pos + 1 < x->len &&
			   (x->p[x->pos + 1] == '=' || x->p[x->pos + 1] == '!')) {
			x->pos += 2;
			lookaround = true;
		} else if (c == '<') {
			x->pos++;
			px_name(x, '>');
		} else if (c == '\'') {
			x->pos++;
			px_name(x, '\'');
		} else if (c == 'P' && x->pos + 1 < x->len && x->p[x->pos + 1] == '<') {
			x->pos += 2;
			px_name(x, '>');
		} else {
			/* Option letters: (?i) (?-s) (?^) or (?i:...); never (?x). */
			while (x->pos < x->len && x->p[x->pos] &&
			       strchr("imnsJU-^", x->p[x->pos]))
				x->pos++;
			if (px_peek(x, ')')) {
				x->pos++;
				node_zero_width(n);
				return;
			}
			if (!px_peek(x, ':')) {
				x->fail = true;
				return;
			}
			x->pos++;
		}
		if (x->fail)
			return;
	}
	if (++x->depth > LIT_DEPTH_MAX) {
		x->fail = true;
		return;
	}
	px_alt(x, &inner);
	x->depth--;
	if (x->fail || !px_peek(x, ')')) {
		x->fail = true;
		return;
	}
	x->pos++;
	if (lookaround)
		node_zero_width(n);
	else
		*n = inner;
}

/* Parses "{n}", "{n,}" or "{n,m}" at x->pos; anything else gives up. */
static void px_braces(struct px *x, unsigned long *min, unsigned long *max)
{
	unsigned long a = 0, b;
	size_t digits = 0;

	x->pos++;
	while (x->pos < x->len && x->p[x->pos] >= '0' && x->p[x->pos] <= '9' && digits < 6) {
		a = a * 10 + (x->p[x->pos++] - '0');
		digits++;
	}
	if (!digits) {
		x->fail = true;
		return;
	}
	b = a;
	if (px_peek(x, ',')) {
		x->pos++;
		digits = 0;
		b = 0;
		while (x->pos < x->len && x->p[x->pos] >= '0' && x->p[x->pos] <= '9' &&
		       digits < 6) {
			b = b * 10 + (x->p[x->pos++] - '0');
			digits++;
		}
		if (!digits)
			b = ~0UL;
	}
	if (!px_peek(x, '}')) {
		x->fail = true;
		return;
	}
	x->pos++;
	*min = a;
	*max = b;
}

/* One atom and its quantifier. */
static void px_atom(struct px *x, struct lnode *n)
{
	unsigned long min, max;
	struct lnode a;
	unsigned char c = x->p[x->pos];

	switch (c) {
	case '(':
		px_group(x, &a);
		break;
	case '[':
		px_class(x, &a);
		break;
	case '\\':
		px_escape(x, &a);
		break;
	case '.':
		x->pos++;
		node_any(&a);
		break;
	case '^':
	case '$':
		x->pos++;
		node_zero_width(&a);
		break;
	case '*':
	case '+':
	case '?':
	case '{':
		x->fail = true;
		return;
	default:
		x->pos++;
		node_char(x, &a, c);
		break;
	}
	if (x->fail)
		return;
	if (x->pos >= x->len || !strchr("*+?{", x->p[x->pos])) {
		*n = a;
		return;
	}
	c = x->p[x->pos];
	if (c == '{') {
		px_braces(x, &min, &max);
		if (x->fail)
			return;
	} else {
		x->pos++;
		min = c == '+';
		max = c == '?' ? 1 : ~0UL;
	}
	if (x->pos < x->len && (x->p[x->pos] == '?' || x->p[x->pos] == '+'))
		x->pos++;		/* lazy or possessive: same strings */
	if (x->pos < x->len && strchr("*+?{", x->p[x->pos])) {
		x->fail = true;
		return;
	}
	if (min == 0) {
		set_unknown(&n->req);
		if (max == 1 && a.exact.nr >= 0 && a.exact.nr < LIT_SET_MAX) {
			struct lset e;

			set_empty_string(&e);
			set_union(&n->exact, &a.exact, &e);
		} else {
			set_unknown(&n->exact);
		}
	} else {
		node_req(&n->req, &a);
		if (min == 1 && max == 1)
			n->exact = a.exact;
		else
			set_unknown(&n->exact);
	}
}

/* A sequence of atoms up to '|', ')' or the end. */
static void px_seq(struct px *x, struct lnode *out)
{
	struct lset run, req, tmp;
	bool broken = false;

	set_empty_string(&run);
	set_unknown(&req);
	while (x->pos < x->len && x->p[x->pos] != '|' && x->p[x->pos] != ')') {
		struct lnode a;

		px_atom(x, &a);
		if (x->fail)
			return;
		if (a.exact.nr >= 0) {
			set_cross(x, &tmp, &run, &a.exact);
			if (tmp.nr >= 0) {
				run = tmp;
				continue;
			}
		}
		/* The run of exactly known text ends here: keep it as a candidate. */
		broken = true;
		set_better(&req, &run);
		if (a.exact.nr >= 0) {
			run = a.exact;
		} else {
			set_better(&req, &a.req);
			set_empty_string(&run);
		}
	}
	set_better(&req, &run);
	out->req = req;
	if (broken)
		set_unknown(&out->exact);
	else
		out->exact = run;
}

static void px_alt(struct px *x, struct lnode *out)
{
	px_seq(x, out);
	while (!x->fail && px_peek(x, '|')) {
		struct lnode b;
		struct lset ra, rb;

		x->pos++;
		px_seq(x, &b);
		if (x->fail)
			return;
		set_union(&out->exact, &out->exact, &b.exact);
		node_req(&ra, out);
		node_req(&rb, &b);
		if (set_usable(&ra) && set_usable(&rb))
			set_union(&out->req, &ra, &rb);
		else
			set_unknown(&out->req);
	}
}

/* Fills r->lits from its pattern, or leaves none (no prefilter). */
static void extract_literals(struct lh_rules *rs, struct rule *r, struct lh_arena *scratch)
{
	struct px x = {
		.p = (const unsigned char *)r->pub.pattern,
		.len = strlen(r->pub.pattern),
		.arena = scratch,
	};
	struct lnode top;
	struct lset req;
	int i;

	px_alt(&x, &top);
	if (x.fail || x.pos != x.len)
		return;
	node_req(&req, &top);
	if (!set_usable(&req))
		return;
	r->lits = lh_arena_alloc(&rs->arena, req.nr * sizeof(*r->lits));
	for (i = 0; i < req.nr; i++) {
		unsigned int len = req.v[i].len > LIT_AC_LEN ? LIT_AC_LEN : req.v[i].len;

		r->lits[i].s = lh_arena_strndup(&rs->arena, req.v[i].s, len);
		r->lits[i].len = len;
	}
	r->nr_lits = req.nr;
}

/* Line-locality: which patterns can be matched line by line */

/* POSIX classes that contain no newline (":ascii:", ":cntrl:", ":space:" do). */
static const char *const posix_local[] = {
	"alnum", "alpha", "blank", "digit", "graph", "lower", "print", "punct", "upper", "word",
	"xdigit", "<", ">",
};

/* '(*' verbs that change neither what matches a newline nor where a match may start. */
static const char *const verbs_local[] = {
	"NO_JIT)", "NO_AUTO_POSSESS)", "NO_START_OPT)", "NO_DOTSTAR_ANCHOR)", "UCP)",
	"NOTEMPTY)", "LIMIT_MATCH=", "LIMIT_DEPTH=", "LIMIT_HEAP=", "LIMIT_RECURSION=", "F)",
	"FAIL)",
};

static bool verb_is_local(const char *p, size_t n)
{
	size_t i, len;

	for (i = 0; i < sizeof(verbs_local) / sizeof(verbs_local[0]); i++) {
		len = strlen(verbs_local[i]);
		if (n >= len && !memcmp(p, verbs_local[i], len))
			return true;
	}
	return false;
}

static bool posix_is_local(const char *p, size_t n)
{
	size_t i, len;

	for (i = 0; i < sizeof(posix_local) / sizeof(posix_local[0]); i++) {
		len = strlen(posix_local[i]);
		if (n == len && !memcmp(p, posix_local[i], len))
			return true;
	}
	return false;
}

/* Return: whether p[0..n) holds a control character (a class range may start at one). */
static bool has_control(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return true;
	return false;
}

/* Return: whether the escape \e (followed by p[0..n)) is safe; in_class: inside [...]. */
static bool escape_is_local(unsigned char e, const char *p, size_t n, bool in_class)
{
	if (!is_alnum(e))
		return true;			/* an escaped symbol stands for itself */
	if (strchr("dwhSVE", e))
		return true;
	if (in_class)
		return false;			/* \b, \t... may start a range over '\n' */
	if (strchr("bBKtefagk", e))
		return true;			/* assertions, single characters, back refs */
	if (e == 'N')
		return !n || p[0] != '{';	/* \N is any character but a newline */
	return e >= '1' && e <= '9' && (!n || p[0] < '0' || p[0] > '9');	/* \1..\9 */
}

/*
 * Return: whether the group opened at p[0..n) = "(?..." sets s or touches m, or sets xx
 * (blanks ignored in classes, so that "[ ^" would be negated: the scan does not follow).
 */
static bool options_cross(const char *p, size_t n)
{
	size_t j, x = 0;

	for (j = 2; j < n && (is_alnum(p[j]) || p[j] == '-' || p[j] == '^'); j++)
		x += p[j] == 'x';
	if (j == 2 || j == n || (p[j] != ')' && p[j] != ':'))
		return false;			/* not options: (?:, (?<name>, (?R)... */
	return x > 1 || memchr(p + 2, 's', j - 2) || memchr(p + 2, 'm', j - 2) ||
	       memchr(p + 2, '^', j - 2);
}

/*
 * Whether pattern p[0..n) might match differently on a subject's joined text than on each
 * of its lines alone: when it may match a newline or see a subject's edges. Conservative,
 * textual: anything that could match '\n' (a negated class, \s \v \R \H \W \D \X \C \p \P,
 * an escape that encodes a character by number, a range from a control character, ':space:'
 * and its kin), inline options that set dotall or unset multiline, '(*' verbs (newline
 * conventions, UTF checks of the whole subject, (*COMMIT)...) but a few harmless ones, and
 * the subject anchors \A \z \Z \G. Patterns passing this scan never match a newline and
 * treat a line's start and end as MULTILINE does the text around a '\n'.
 */
static bool may_cross_lines(const char *p, size_t n)
{
	bool in_class = false;
	const char *end;
	size_t i = 0;

	while (i < n) {
		unsigned char c = p[i];

		if (c < 0x20 || c == 0x7f)
			return true;
		if (c == '\\' && i + 1 < n && p[i + 1] == 'Q') {
			/* literal text up to \E */
			end = memmem(p + i + 2, n - i - 2, "\\E", 2);
			if (has_control(p + i + 2, (end ? end : p + n) - p - i - 2))
				return true;
			i = end ? (size_t)(end - p) + 2 : n;
		} else if (c == '\\') {
			if (i + 1 < n && !escape_is_local(p[i + 1], p + i + 2, n - i - 2, in_class))
				return true;
			i += 2;
		} else if (in_class) {
			if (c == ']')
				in_class = false;
			if (c == '[' && i + 1 < n && p[i + 1] == ':') {
				end = memchr(p + i + 2, ':', n - i - 2);
				if (end && end + 1 < p + n && end[1] == ']') {
					if (!posix_is_local(p + i + 2, end - p - i - 2))
						return true;
					i = end - p + 1;
				}
			}
			i++;
		} else if (c == '[') {
			i++;
			if (i < n && p[i] == '^')
				return true;
			if (i < n && p[i] == ']')
				i++;			/* a leading ']' is literal */
			in_class = true;
		} else if (c == '(' && i + 1 < n && p[i + 1] == '*') {
			if (!verb_is_local(p + i + 2, n - i - 2))
				return true;
			i += 2;
		} else if (c == '(' && i + 1 < n && p[i + 1] == '?') {
			if (options_cross(p + i, n - i))
				return true;
			i += 2;
		} else {
			i++;
		}
	}
	return false;
}

/* Loading */

struct loader {
	struct lh_rules		*rs;
	struct lh_diag		*diag;
	const char		*file;
	size_t			file_idx;
	unsigned long		errors;

	/* the section being read */
	bool			in_section;
	bool			bad;
	bool			match_seen;
	const char		*id;		/* NULL when the header was broken */
	unsigned int		line;
	unsigned int		key_line[NR_KEYS];
	pcre2_code		*code;
	const char		*pattern;
	const char		*message;
	unsigned int		subjects;
	unsigned int		tracers;
	uint64_t		min_ns;
	enum lh_severity	severity;
};

/* Return: the length of the valid UTF-8 sequence of a printable character at s, or 0. */
static size_t utf8_printable(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	cp = s[0] & (0x3f >> (n - 1));
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < 0xa0 || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;			/* C1 control, overlong, surrogate, out of range */
	return n;
}

/*
 * Rule files may be binary: messages quote their text, so control bytes and invalid UTF-8
 * are shown as \xHH rather than sent to a terminal.
 * Return: an allocated copy of s, the caller frees.
 */
static char *escape_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = lh_xmalloc(4 * strlen(s) + 1), *o = out;
	size_t n;

	while (*p) {
		if (*p >= 0x20 && *p < 0x7f) {
			*o++ = *p++;
		} else if ((n = utf8_printable(p))) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			o += sprintf(o, "\\x%02x", *p++);
		}
	}
	*o = '\0';
	return out;
}

static void __attribute__((format(printf, 4, 5)))
lerr(struct loader *l, unsigned int line, size_t col, const char *fmt, ...)
{
	char *msg, *esc;
	va_list ap;

	va_start(ap, fmt);
	msg = lh_xvasprintf(fmt, ap);
	va_end(ap);
	esc = escape_text(msg);
	lh_diag_add(l->diag, LH_DIAG_ERROR, "%s:%u:%zu: %s", l->file, line, col, esc);
	free(esc);
	free(msg);
	l->errors++;
	l->bad = true;
}

/* Ends the current section: adds the rule when it had no error. */
static void section_end(struct loader *l)
{
	struct lh_rules *rs = l->rs;
	struct rule *r;

	if (!l->in_section)
		return;
	if (l->id && !l->match_seen)
		lerr(l, l->line, 1, "rule '%s' has no 'match' pattern", l->id);
	if (!l->bad && l->id && l->code) {
		uint32_t crlf = 0;

		r = lh_arena_alloc(&rs->arena, sizeof(*r));
		memset(r, 0, sizeof(*r));
		r->pub = (struct lh_rule){
			.id = l->id,
			.pattern = l->pattern,
			.message = l->message,
			.file = l->file,
			.line = l->line,
			.subjects = l->subjects ? l->subjects : LH_SUBJ_ALL,
			.tracers = l->tracers,
			.min_ns = l->min_ns,
			.severity = l->severity,
		};
		r->code = l->code;
		pcre2_pattern_info(r->code, PCRE2_INFO_HASCRORLF, &crlf);
		r->span = crlf || may_cross_lines(l->pattern, strlen(l->pattern));
		l->code = NULL;
		LH_GROW(rs->rules, rs->nr + 1, rs->alloc);
		rs->rules[rs->nr++] = r;
		rs->files[l->file_idx].nr_rules++;
	}
	pcre2_code_free(l->code);
	l->code = NULL;
	l->in_section = false;
}

static void section_begin(struct loader *l, unsigned int line)
{
	section_end(l);
	l->in_section = true;
	l->bad = false;
	l->match_seen = false;
	l->id = NULL;
	l->line = line;
	memset(l->key_line, 0, sizeof(l->key_line));
	l->pattern = l->message = NULL;
	l->subjects = l->tracers = 0;
	l->min_ns = 0;
	l->severity = LH_SEV_WARNING;
}

/* '[id]' at s[i]; line is s[0..len). */
static void parse_header(struct loader *l, const char *s, size_t len, size_t i,
			 unsigned int line)
{
	const char *close = memchr(s + i, ']', len - i);
	const struct id_def *dup;
	size_t j, idlen;
	char *id;
	uint64_t h;

	section_begin(l, line);
	if (!close) {
		lerr(l, line, i + 1, "unterminated section header (expected '[id]')");
		return;
	}
	for (j = close - s + 1; j < len && is_blank(s[j]); j++)
		;
	if (j < len && s[j] != '#')
		lerr(l, line, j + 1, "unexpected text after section header '[%.*s]'",
		     (int)(close - s - i - 1), s + i + 1);
	idlen = close - s - i - 1;
	if (!idlen) {
		lerr(l, line, i + 2, "empty rule id");
		return;
	}
	for (j = 0; j < idlen; j++) {
		unsigned char c = s[i + 1 + j];

		if (!is_alnum(c) && c != '-' && c != '_' && c != '.') {
			lerr(l, line, i + 2 + j,
			     "invalid character '%c' in rule id '%.*s' (use letters, digits, '-', '_' and '.')",
			     c >= 0x20 && c < 0x7f ? c : '?', (int)idlen, s + i + 1);
			return;
		}
	}
	id = lh_arena_strndup(&l->rs->arena, s + i + 1, idlen);
	h = lh_hash(id, idlen, 0);
	dup = id_find(l->rs, id, h);
	if (dup) {
		lerr(l, line, i + 2, "duplicate rule id '%s' (first defined at %s:%u)", id,
		     dup->file, dup->line);
		return;
	}
	id_add(l->rs, id, l->file, line);
	l->id = id;
}

/* Splits v[0..len) at blanks and commas; calls fn on each word with its offset. */
static void each_word(struct loader *l, const char *v, size_t len, size_t col0,
		      unsigned int line, void (*fn)(struct loader *, const char *, size_t,
						    size_t, unsigned int))
{
	size_t i = 0, j;

	while (i < len) {
		while (i < len && (is_blank(v[i]) || v[i] == ','))
			i++;
		for (j = i; j < len && !is_blank(v[j]) && v[j] != ','; j++)
			;
		if (j > i)
			fn(l, v + i, j - i, col0 + i, line);
		i = j;
	}
}

static void add_subject(struct loader *l, const char *w, size_t n, size_t col,
			unsigned int line)
{
	int i;

	for (i = 0; i < NR_SUBJ; i++) {
		if (strlen(subject_names[i]) == n && !memcmp(subject_names[i], w, n)) {
			l->subjects |= 1U << i;
			return;
		}
	}
	lerr(l, line, col,
	     "unknown subject '%.*s' (use stack, functions, irq, task, start or end)", (int)n, w);
}

static void add_tracer(struct loader *l, const char *w, size_t n, size_t col,
		       unsigned int line)
{
	enum lh_tracer t = lh_tracer_from_name(w, n);

	if (t == LH_TRACER_UNKNOWN) {
		lerr(l, line, col,
		     "unknown tracer '%.*s' (use irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt or wakeup_dl)",
		     (int)n, w);
		return;
	}
	l->tracers |= 1U << t;
}

static void parse_match(struct loader *l, const char *v, size_t len, size_t col,
			unsigned int line)
{
	PCRE2_SIZE off;
	int code;

	l->match_seen = true;
	l->code = pcre2_compile((PCRE2_SPTR)v, len, PCRE2_MULTILINE, &code, &off,
				l->rs->cctx);
	if (!l->code) {
		PCRE2_UCHAR msg[256];

		if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
			snprintf((char *)msg, sizeof(msg), "PCRE2 error %d", code);
		lerr(l, line, col + off, "%s", (char *)msg);
		return;
	}
	/*
	 * PCRE2's JIT searches with SIMD loads that may read past the end of a subject (never
	 * past its page): harmless, but memcheck reports each one. Under valgrind, interpret.
	 */
	if (!lh_under_valgrind() && !pcre2_jit_compile(l->code, PCRE2_JIT_COMPLETE))
		l->rs->stats.jit++;
	l->pattern = lh_arena_strndup(&l->rs->arena, v, len);
}

/* A 'key = value' line; i is the key's offset. */
static void parse_key(struct loader *l, const char *s, size_t len, size_t i,
		      unsigned int line)
{
	const char *eq = memchr(s + i, '=', len - i);
	size_t klen, v, vend, j;
	enum lh_severity sev;
	const char *err;
	char *copy;
	int k;

	if (!eq) {
		for (klen = 0; i + klen < len && !is_blank(s[i + klen]); klen++)
			;
		for (k = 0; k < NR_KEYS; k++)
			if (strlen(key_names[k]) == klen && !memcmp(key_names[k], s + i, klen))
				break;
		if (k == NR_KEYS) {
			lerr(l, line, i + 1, "expected 'key = value' or '[id]'");
			return;
		}
		if (k == K_MATCH)
			l->match_seen = true;
		lerr(l, line, i + klen + 1, "expected '=' after '%s'", key_names[k]);
		return;
	}
	for (klen = eq - s - i; klen && is_blank(s[i + klen - 1]); klen--)
		;
	if (!l->in_section) {
		lerr(l, line, i + 1, "'%.*s' outside a rule section (start one with '[id]')",
		     (int)klen, s + i);
		return;
	}
	for (k = 0; k < NR_KEYS; k++)
		if (strlen(key_names[k]) == klen && !memcmp(key_names[k], s + i, klen))
			break;
	if (k == NR_KEYS) {
		lerr(l, line, i + 1,
		     "unknown key '%.*s' (use match, in, tracer, min, severity or message)",
		     (int)klen, s + i);
		return;
	}
	if (l->key_line[k]) {
		lerr(l, line, i + 1, "duplicate key '%s' (first at line %u)", key_names[k],
		     l->key_line[k]);
		return;
	}
	l->key_line[k] = line;
	for (v = eq - s + 1; v < len && is_blank(s[v]); v++)
		;
	vend = len;
	if (k != K_MATCH) {
		/* A '#' that starts the value or follows a blank begins a comment. */
		for (j = v; j < len; j++) {
			if (s[j] == '#' && (j == v || is_blank(s[j - 1]))) {
				vend = j;
				break;
			}
		}
	}
	while (vend > v && is_blank(s[vend - 1]))
		vend--;
	if (vend == v) {
		if (k == K_MATCH)
			l->match_seen = true;
		lerr(l, line, v + 1, "empty value for '%s'", key_names[k]);
		return;
	}
	switch (k) {
	case K_MATCH:
		parse_match(l, s + v, vend - v, v + 1, line);
		break;
	case K_IN:
		each_word(l, s + v, vend - v, v + 1, line, add_subject);
		break;
	case K_TRACER:
		each_word(l, s + v, vend - v, v + 1, line, add_tracer);
		break;
	case K_MIN:
		copy = lh_arena_strndup(&l->rs->arena, s + v, vend - v);
		if (lh_duration_parse(copy, &l->min_ns, &err))
			lerr(l, line, v + 1, "invalid duration '%s' for 'min': %s", copy, err);
		break;
	case K_SEVERITY:
		copy = lh_arena_strndup(&l->rs->arena, s + v, vend - v);
		if (lh_severity_parse(copy, &sev))
			lerr(l, line, v + 1,
			     "unknown severity '%s' (use info, warning, critical or ignore)", copy);
		else
			l->severity = sev;
		break;
	case K_MESSAGE:
		l->message = lh_arena_strndup(&l->rs->arena, s + v, vend - v);
		break;
	}
}

int lh_rules_load_buffer(struct lh_rules *rs, const char *file, const char *buf, size_t len,
			 struct lh_diag *diag)
{
	struct loader l = { .rs = rs, .diag = diag };
	unsigned int line = 0;
	size_t pos = 0;

	unprepare(rs);
	l.file = lh_arena_strdup(&rs->arena, file);
	LH_GROW(rs->files, rs->nr_files + 1, rs->alloc_files);
	rs->files[rs->nr_files] = (struct rule_file){ l.file, 0 };
	l.file_idx = rs->nr_files++;

	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos, i;
		const char *nul;

		pos += n + (nl != NULL);
		line++;
		for (i = 0; i < n && is_blank(s[i]); i++)
			;
		if (i == n || s[i] == '#')
			continue;
		nul = memchr(s, '\0', n);
		if (nul) {
			lerr(&l, line, nul - s + 1, "NUL byte in rule file");
			continue;
		}
		if (s[i] == '[')
			parse_header(&l, s, n, i, line);
		else
			parse_key(&l, s, n, i, line);
	}
	section_end(&l);
	return l.errors ? -1 : 0;
}

static int load_file(struct lh_rules *rs, const char *path, struct lh_diag *diag)
{
	size_t len = 0, alloc = 0;
	char *buf = NULL;
	struct stat st;
	ssize_t n;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot open rule file '%s': %s", path,
			    strerror(errno));
		return -1;
	}
	if (!fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot read rule file '%s': %s", path,
			    strerror(EISDIR));
		close(fd);
		return -1;
	}
	for (;;) {
		LH_GROW(buf, len + 65536, alloc);
		n = read(fd, buf + len, alloc - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
		if (len > RULE_FILE_MAX) {
			lh_diag_add(diag, LH_DIAG_ERROR, "rule file '%s' is larger than %d MiB",
				    path, RULE_FILE_MAX >> 20);
			free(buf);
			close(fd);
			return -1;
		}
	}
	if (n < 0) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot read rule file '%s': %s", path,
			    strerror(errno));
		free(buf);
		close(fd);
		return -1;
	}
	close(fd);
	ret = lh_rules_load_buffer(rs, path, buf, len, diag);
	free(buf);
	return ret;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(struct lh_rules *rs, const char *path, struct lh_diag *diag)
{
	size_t nr = 0, alloc = 0, i, plen = strlen(path);
	char **names = NULL;
	struct dirent *de;
	int ret = 0;
	DIR *d;

	d = opendir(path);
	if (!d) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot open rule directory '%s': %s", path,
			    strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (de->d_name[0] == '.' || n <= 6 || strcmp(de->d_name + n - 6, ".rules"))
			continue;
		LH_GROW(names, nr + 1, alloc);
		names[nr++] = lh_xasprintf("%s%s%s", path,
					   plen && path[plen - 1] == '/' ? "" : "/", de->d_name);
	}
	closedir(d);
	if (!nr) {
		lh_diag_add(diag, LH_DIAG_ERROR, "no rule files (*.rules) in '%s'", path);
		return -1;
	}
	qsort(names, nr, sizeof(*names), cmp_names);
	for (i = 0; i < nr; i++) {
		if (load_file(rs, names[i], diag))
			ret = -1;
		free(names[i]);
	}
	free(names);
	return ret;
}

int lh_rules_load(struct lh_rules *rs, const char *path, struct lh_diag *diag)
{
	struct stat st;

	if (stat(path, &st)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot open rule file '%s': %s", path,
			    strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return load_dir(rs, path, diag);
	return load_file(rs, path, diag);
}

/* The Aho-Corasick automaton */

static void ac_free(struct ac *ac)
{
	free(ac->delta);
	free(ac->dict);
	free(ac->out_first);
	free(ac->out_nr);
	free(ac->outs);
	free(ac->hit);
	memset(ac, 0, sizeof(*ac));
}

struct ac_out {
	uint32_t	state;
	uint32_t	rule;
};

static int cmp_out(const void *a, const void *b)
{
	const struct ac_out *x = a, *y = b;

	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

/*
 * Builds the automaton over the literals of rules that have some, until its table would
 * exceed AC_CELLS_MAX; the rules left out are run on every line. Return: the rules in it.
 */
static size_t ac_build(struct ac *ac, struct rule **rules, size_t nr, uint64_t *in_ac)
{
	size_t total = 1, i, nr_out = 0, alloc_out = 0, qh = 0, qt = 0, s, taken = 0;
	struct ac_out *out = NULL;
	unsigned int c, j;
	int32_t *fail, *queue;

	memset(ac, 0, sizeof(*ac));
	for (i = 0; i < nr && !rules[i]->nr_lits; i++)
		;
	if (i == nr)
		return 0;	/* no literal at all: no automaton */
	/* Classes: one per byte used by a literal, upper case folded onto lower. */
	for (i = 0; i < nr; i++)
		for (j = 0; j < rules[i]->nr_lits; j++)
			for (c = 0; c < rules[i]->lits[j].len; c++)
				ac->cls[(unsigned char)rules[i]->lits[j].s[c]] = 1;
	ac->nr_cls = 1;
	for (c = 0; c < 256; c++)
		if (ac->cls[c])
			ac->cls[c] = ac->nr_cls++;
	for (c = 'A'; c <= 'Z'; c++)
		ac->cls[c] = ac->cls[c + 32];

	for (i = 0; i < nr; i++) {
		size_t n = 0;

		for (j = 0; j < rules[i]->nr_lits; j++)
			n += rules[i]->lits[j].len;
		if ((total + n) * ac->nr_cls > AC_CELLS_MAX)
			continue;
		total += n;
	}
	ac->delta = lh_xmalloc(total * ac->nr_cls * sizeof(*ac->delta));
	memset(ac->delta, 0xff, total * ac->nr_cls * sizeof(*ac->delta));
	ac->nr_states = 1;
	for (i = 0; i < nr; i++) {
		size_t n = 0;

		for (j = 0; j < rules[i]->nr_lits; j++)
			n += rules[i]->lits[j].len;
		if (!rules[i]->nr_lits || ac->nr_states + n > total)
			continue;
		for (j = 0; j < rules[i]->nr_lits; j++) {
			const struct lit *lt = &rules[i]->lits[j];

			s = 0;
			for (c = 0; c < lt->len; c++) {
				int32_t *t = &ac->delta[s * ac->nr_cls +
							ac->cls[(unsigned char)lt->s[c]]];

				if (*t < 0)
					*t = ac->nr_states++;
				s = *t;
			}
			LH_GROW(out, nr_out + 1, alloc_out);
			out[nr_out++] = (struct ac_out){ s, i };
		}
		bit_set(in_ac, i);
		taken++;
	}

	if (nr_out)	/* out is NULL when every rule's literals were over the bound */
		qsort(out, nr_out, sizeof(*out), cmp_out);
	ac->out_first = lh_xcalloc(ac->nr_states, sizeof(*ac->out_first));
	ac->out_nr = lh_xcalloc(ac->nr_states, sizeof(*ac->out_nr));
	ac->outs = lh_xmalloc((nr_out + 1) * sizeof(*ac->outs));
	for (i = 0; i < nr_out; i++) {
		if (!ac->out_nr[out[i].state])
			ac->out_first[out[i].state] = i;
		ac->out_nr[out[i].state]++;
		ac->outs[i] = out[i].rule;
	}
	free(out);

	/* Breadth first: failure links, full transitions, output links. */
	fail = lh_xcalloc(ac->nr_states, sizeof(*fail));
	queue = lh_xmalloc(ac->nr_states * sizeof(*queue));
	ac->dict = lh_xmalloc(ac->nr_states * sizeof(*ac->dict));
	ac->hit = lh_xcalloc(ac->nr_states, 1);
	ac->dict[0] = -1;
	for (c = 0; c < ac->nr_cls; c++) {
		int32_t t = ac->delta[c];

		if (t < 0) {
			ac->delta[c] = 0;
			continue;
		}
		fail[t] = 0;
		ac->dict[t] = -1;
		queue[qt++] = t;
	}
	while (qh < qt) {
		int32_t u = queue[qh++];

		ac->hit[u] = ac->out_nr[u] || ac->dict[u] >= 0;
		for (c = 0; c < ac->nr_cls; c++) {
			int32_t *t = &ac->delta[(size_t)u * ac->nr_cls + c];
			int32_t f = ac->delta[(size_t)fail[u] * ac->nr_cls + c];

			if (*t < 0) {
				*t = f;
				continue;
			}
			fail[*t] = f;
			ac->dict[*t] = ac->out_nr[f] ? f : ac->dict[f];
			queue[qt++] = *t;
		}
	}
	free(fail);
	free(queue);
	return taken;
}

/* Sets in cand the rules one of whose literals occurs in s. */
static void ac_scan(const struct ac *ac, const char *s, size_t len, uint64_t *cand)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + len;
	size_t st = 0;

	for (; p < end; p++) {
		int32_t t;

		st = ac->delta[st * ac->nr_cls + ac->cls[*p]];
		if (!ac->hit[st])
			continue;
		for (t = ac->out_nr[st] ? (int32_t)st : ac->dict[st]; t >= 0; t = ac->dict[t]) {
			uint32_t k;

			for (k = 0; k < ac->out_nr[t]; k++)
				bit_set(cand, ac->outs[ac->out_first[t] + k]);
		}
	}
}

/* Matching */

static void cache_free(struct cache *c)
{
	free(c->slots);
	lh_arena_release(&c->arena);
	memset(c, 0, sizeof(*c));
}

static void unprepare(struct lh_rules *rs)
{
	int s;

	if (!rs->ready)
		return;
	ac_free(&rs->ac);
	cache_free(&rs->cache);
	free(rs->masks);
	free(rs->span);
	free(rs->buf);
	rs->buf = NULL;
	rs->alloc_buf = 0;
	for (s = 0; s < NR_SUBJ; s++) {
		free(rs->joined[s]);
		rs->joined[s] = NULL;
		rs->alloc_joined[s] = 0;
	}
	rs->masks = NULL;
	rs->span = NULL;
	rs->nr_span = 0;
	rs->stats.cache_entries = rs->stats.cache_bytes = 0;
	rs->ready = false;
}

static void prepare(struct lh_rules *rs)
{
	struct lh_arena scratch = { 0 };
	size_t w, i, blocks = 2 * NR_SUBJ + 4;
	uint64_t *line_rules, *in_ac;
	int s;

	rs->words = w = rs->nr / 64 + 1;
	rs->masks = lh_xcalloc(blocks * w, sizeof(uint64_t));
	for (s = 0; s < NR_SUBJ; s++) {
		rs->subj_mask[s] = rs->masks + s * w;
		rs->acc[s] = rs->masks + (NR_SUBJ + s) * w;
	}
	rs->always = rs->masks + 2 * NR_SUBJ * w;
	rs->cand = rs->always + w;
	rs->tmp = rs->cand + w;
	rs->fired = rs->tmp + w;
	line_rules = lh_xcalloc(2 * w, sizeof(uint64_t));
	in_ac = line_rules + w;

	rs->span = lh_xmalloc((rs->nr + 1) * sizeof(*rs->span));
	rs->stats.prefiltered = rs->stats.joined = 0;
	for (i = 0; i < rs->nr; i++) {
		struct rule *r = rs->rules[i];

		if (r->span) {
			rs->span[rs->nr_span++] = i;
			rs->stats.joined++;
			continue;
		}
		bit_set(line_rules, i);
		for (s = 0; s < NR_SUBJ; s++)
			if (r->pub.subjects & (1U << s))
				bit_set(rs->subj_mask[s], i);
		r->nr_lits = 0;
		if (!rs->no_prefilter) {
			extract_literals(rs, r, &scratch);
			lh_arena_reset(&scratch);
		}
	}
	lh_arena_release(&scratch);
	if (!rs->no_prefilter)
		rs->stats.prefiltered = ac_build(&rs->ac, rs->rules, rs->nr, in_ac);
	for (i = 0; i < w; i++)
		rs->always[i] = line_rules[i] & ~in_ac[i];
	free(line_rules);
	rs->ready = true;
}

static void warn_limit(struct lh_rules *rs, struct rule *r, int rc, const struct lh_record *rec,
		       struct lh_diag *diag)
{
	PCRE2_UCHAR msg[256];
	const char *why;
	char where[512] = "";

	if (r->warned || !diag)
		return;
	r->warned = true;
	switch (rc) {
	case PCRE2_ERROR_MATCHLIMIT:
		why = "pattern hit the PCRE2 match limit (catastrophic backtracking)";
		break;
	case PCRE2_ERROR_DEPTHLIMIT:
		why = "pattern hit the PCRE2 depth limit (backtracking nested too deeply)";
		break;
	case PCRE2_ERROR_HEAPLIMIT:
		why = "pattern hit the PCRE2 heap limit (backtracking needs too much memory)";
		break;
	case PCRE2_ERROR_JIT_STACKLIMIT:
		why = "pattern hit the PCRE2 JIT stack limit (backtracking nested too deeply)";
		break;
	case PCRE2_ERROR_NOMEMORY:
		why = "out of memory while matching the pattern";
		break;
	default:
		if (pcre2_get_error_message(rc, msg, sizeof(msg)) < 0)
			snprintf((char *)msg, sizeof(msg), "PCRE2 error %d", rc);
		why = (const char *)msg;
		break;
	}
	if (rec && rec->source)
		snprintf(where, sizeof(where), " (first in %s:%lu)", rec->source, rec->line);
	lh_diag_add(diag, LH_DIAG_WARNING,
		    "%s:%u: rule '%s': %s; it does not fire where this happens%s", r->pub.file,
		    r->pub.line, r->pub.id, why, where);
}

static bool run_rule(struct lh_rules *rs, size_t i, const char *s, size_t len,
		     const struct lh_record *rec, struct lh_diag *diag)
{
	int rc;

	rs->stats.regex_runs++;
	rc = pcre2_match(rs->rules[i]->code, (PCRE2_SPTR)s, len, 0, 0, rs->md, rs->mctx);
	if (rc >= 0)
		return true;
	if (rc != PCRE2_ERROR_NOMATCH)
		warn_limit(rs, rs->rules[i], rc, rec, diag);
	return false;
}

/* Computes into out the line rules whose pattern matches s. */
static void compute_line(struct lh_rules *rs, const char *s, size_t len, uint64_t *out,
			 const struct lh_record *rec, struct lh_diag *diag)
{
	size_t w, i;

	memcpy(rs->cand, rs->always, rs->words * sizeof(uint64_t));
	if (rs->ac.nr_states)
		ac_scan(&rs->ac, s, len, rs->cand);
	memset(out, 0, rs->words * sizeof(uint64_t));
	for (w = 0; w < rs->words; w++) {
		uint64_t b = rs->cand[w];

		while (b) {
			i = w * 64 + __builtin_ctzll(b);
			b &= b - 1;
			if (run_rule(rs, i, s, len, rec, diag))
				bit_set(out, i);
		}
	}
}

static size_t cache_bytes(const struct cache *c)
{
	return c->arena.used + c->nr_slots * sizeof(*c->slots);
}

static void cache_clear(struct lh_rules *rs)
{
	struct cache *c = &rs->cache;

	if (!c->nr)
		return;
	memset(c->slots, 0, c->nr_slots * sizeof(*c->slots));
	lh_arena_reset(&c->arena);
	c->nr = 0;
	rs->stats.cache_clears++;
}

/* Doubles the table, or empties the cache when a bigger table would pass the bound. */
static void cache_grow(struct lh_rules *rs)
{
	struct cache *c = &rs->cache;
	size_t n = c->nr_slots ? c->nr_slots * 2 : 256, i;
	struct cache_slot *slots;

	/* The table may take a quarter of the bound, the lines the rest. */
	if (n * sizeof(*slots) > rs->cache_limit / 4) {
		if (c->nr_slots) {
			cache_clear(rs);
			return;
		}
		n = 16;
	}
	slots = lh_xcalloc(n, sizeof(*slots));
	for (i = 0; i < c->nr_slots; i++) {
		size_t j;

		if (!c->slots[i].e)
			continue;
		for (j = c->slots[i].hash & (n - 1); slots[j].e; j = (j + 1) & (n - 1))
			;
		slots[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = slots;
	c->nr_slots = n;
}

/* Return: the line rules matching s, from the cache or computed (valid until next call). */
static const uint64_t *line_bits(struct lh_rules *rs, const char *s, size_t len,
				 const struct lh_record *rec, struct lh_diag *diag)
{
	struct cache *c = &rs->cache;
	size_t bits = rs->words * sizeof(uint64_t), need, mask, i;
	struct cache_entry *e;
	uint64_t h;

	rs->stats.lines++;
	if (!rs->cache_limit || len > UINT32_MAX) {
		rs->stats.cache_misses++;
		compute_line(rs, s, len, rs->tmp, rec, diag);
		return rs->tmp;
	}
	h = lh_hash_fast(s, len, 0);
	if (c->nr_slots) {
		mask = c->nr_slots - 1;
		for (i = h & mask; c->slots[i].e; i = (i + 1) & mask) {
			e = c->slots[i].e;
			if (c->slots[i].hash == h && e->len == len &&
			    !memcmp((char *)e->bits + bits, s, len)) {
				rs->stats.cache_hits++;
				return e->bits;
			}
		}
	}
	rs->stats.cache_misses++;
	need = sizeof(*e) + bits + len;
	if (cache_bytes(c) + need > rs->cache_limit)
		cache_clear(rs);
	if ((c->nr + 1) * 2 > c->nr_slots)
		cache_grow(rs);
	if (need + cache_bytes(c) > rs->cache_limit || !c->nr_slots) {
		/* A single line larger than the whole cache: not kept. */
		compute_line(rs, s, len, rs->tmp, rec, diag);
		return rs->tmp;
	}
	e = lh_arena_alloc(&c->arena, need);
	e->len = len;
	memcpy((char *)e->bits + bits, s, len);
	compute_line(rs, s, len, e->bits, rec, diag);
	mask = c->nr_slots - 1;
	for (i = h & mask; c->slots[i].e; i = (i + 1) & mask)
		;
	c->slots[i] = (struct cache_slot){ h, e };
	c->nr++;
	return e->bits;
}

static void feed(struct lh_rules *rs, int subj, const char *s, size_t len,
		 const struct lh_record *rec, struct lh_diag *diag)
{
	const uint64_t *b = line_bits(rs, s, len, rec, diag);
	uint64_t *acc = rs->acc[subj];
	size_t w;

	for (w = 0; w < rs->words; w++)
		acc[w] |= b[w];
}

/* Formats a task as "comm-pid" in rs->buf. Return: its length, or 0 without a comm. */
static size_t task_line(struct lh_rules *rs, const struct lh_task *t)
{
	size_t n;

	if (!t->comm)
		return 0;
	n = strlen(t->comm) + 16;
	LH_GROW(rs->buf, n, rs->alloc_buf);
	if (t->pid >= 0)
		return snprintf(rs->buf, n, "%s-%d", t->comm, t->pid);
	return snprintf(rs->buf, n, "%s", t->comm);
}

/* Calls fn on every non-empty line of subject s of r. */
static void each_line(struct lh_rules *rs, const struct lh_record *r, int subj,
		      void (*fn)(struct lh_rules *, int, const char *, size_t,
				 const struct lh_record *, struct lh_diag *),
		      struct lh_diag *diag)
{
	const struct lh_task *tasks[3] = { &r->task, NULL, NULL };
	size_t i, j, n;

	switch (1U << subj) {
	case LH_SUBJ_STACK:
		for (i = 0; i < r->nr_stacks && i < LH_MAX_STACKS; i++)
			for (j = 0; j < r->stacks[i].nr; j++)
				if (r->stacks[i].frames[j] && *r->stacks[i].frames[j])
					fn(rs, subj, r->stacks[i].frames[j],
					   strlen(r->stacks[i].frames[j]), r, diag);
		break;
	case LH_SUBJ_FUNCTIONS:
		for (i = 0; i < r->nr_funcs; i++)
			if (r->funcs[i].name && *r->funcs[i].name)
				fn(rs, subj, r->funcs[i].name, strlen(r->funcs[i].name), r, diag);
		break;
	case LH_SUBJ_IRQ:
		for (i = 0; i < r->nr_irqs; i++)
			if (r->irqs[i].name && *r->irqs[i].name)
				fn(rs, subj, r->irqs[i].name, strlen(r->irqs[i].name), r, diag);
		break;
	case LH_SUBJ_TASK:
		if (r->has_wakeup || lh_tracer_is_wakeup(r->tracer)) {
			tasks[1] = &r->woken;
			tasks[2] = &r->waker;
		}
		for (i = 0; i < 3 && tasks[i]; i++) {
			n = task_line(rs, tasks[i]);
			if (n)
				fn(rs, subj, rs->buf, n, r, diag);
		}
		break;
	case LH_SUBJ_START:
		if (r->started_at && *r->started_at)
			fn(rs, subj, r->started_at, strlen(r->started_at), r, diag);
		break;
	case LH_SUBJ_END:
		if (r->ended_at && *r->ended_at)
			fn(rs, subj, r->ended_at, strlen(r->ended_at), r, diag);
		break;
	}
}

static void append_joined(struct lh_rules *rs, int subj, const char *s, size_t len,
			  const struct lh_record *rec, struct lh_diag *diag)
{
	size_t n = rs->joined_len[subj];

	LH_GROW(rs->joined[subj], n + len + 2, rs->alloc_joined[subj]);
	if (n)
		rs->joined[subj][n++] = '\n';
	memcpy(rs->joined[subj] + n, s, len);
	rs->joined_len[subj] = n + len;
}

static bool rule_applies(const struct rule *r, const struct lh_record *rec)
{
	if (r->pub.tracers && !(r->pub.tracers & (1U << rec->tracer)))
		return false;
	if (r->pub.min_ns && (rec->latency_us > UINT64_MAX / 1000 ? UINT64_MAX :
			      rec->latency_us * 1000) < r->pub.min_ns)
		return false;
	return true;
}

static bool span_fires(struct lh_rules *rs, size_t i, const struct lh_record *rec,
		       struct lh_diag *diag)
{
	const struct rule *r = rs->rules[i];
	int s;

	for (s = 0; s < NR_SUBJ; s++) {
		if (!(r->pub.subjects & (1U << s)))
			continue;
		if (!rs->have_joined[s]) {
			rs->joined_len[s] = 0;
			each_line(rs, rec, s, append_joined, diag);
			rs->have_joined[s] = true;
		}
		if (rs->joined_len[s] &&
		    run_rule(rs, i, rs->joined[s], rs->joined_len[s], rec, diag))
			return true;
	}
	return false;
}

void lh_match_release(struct lh_match *m)
{
	free(m->hits);
	memset(m, 0, sizeof(*m));
}

int lh_rules_match(struct lh_rules *rs, const struct lh_record *r, struct lh_match *m,
		   struct lh_diag *diag)
{
	size_t w, i;
	int s;

	m->nr_hits = 0;
	m->accepted = false;
	m->has_worst = false;
	m->worst = LH_SEV_INFO;
	if (!rs->nr)
		return 0;
	if (!rs->ready)
		prepare(rs);
	rs->stats.records++;

	memset(rs->fired, 0, rs->words * sizeof(uint64_t));
	for (s = 0; s < NR_SUBJ; s++) {
		bool used = false;

		for (w = 0; w < rs->words && !used; w++)
			used = rs->subj_mask[s][w];
		if (!used)
			continue;
		memset(rs->acc[s], 0, rs->words * sizeof(uint64_t));
		each_line(rs, r, s, feed, diag);
		for (w = 0; w < rs->words; w++)
			rs->fired[w] |= rs->acc[s][w] & rs->subj_mask[s][w];
	}
	for (s = 0; s < NR_SUBJ; s++)
		rs->have_joined[s] = false;
	for (i = 0; i < rs->nr_span; i++)
		if (rule_applies(rs->rules[rs->span[i]], r) && span_fires(rs, rs->span[i], r, diag))
			bit_set(rs->fired, rs->span[i]);

	for (w = 0; w < rs->words; w++) {
		uint64_t b = rs->fired[w];

		while (b) {
			const struct rule *rule;

			i = w * 64 + __builtin_ctzll(b);
			b &= b - 1;
			rule = rs->rules[i];
			if (!rule_applies(rule, r))
				continue;
			LH_GROW(m->hits, m->nr_hits + 1, m->alloc_hits);
			m->hits[m->nr_hits++] = i;
			if (rule->pub.severity == LH_SEV_IGNORE) {
				m->accepted = true;
			} else if (!m->has_worst || rule->pub.severity > m->worst) {
				m->has_worst = true;
				m->worst = rule->pub.severity;
			}
		}
	}
	rs->stats.cache_entries = rs->cache.nr;
	rs->stats.cache_bytes = cache_bytes(&rs->cache);
	return 0;
}
