// SPDX-License-Identifier: GPL-2.0-only
/*
 * Latency histograms counted in the kernel (hist.h; the design and its validation are in
 * doc/histograms.md).
 *
 * Why the start/end triggers are written here and not by tracefs_synth_create(): the
 * libtracefs of Debian 12 (1.6.4) has no tracefs_synth_set_instance() (1.7), so
 * tracefs_synth_create() would put them in the top-level instance, where they would collide
 * with a user's own triggers and variables on the same events. The histograms themselves
 * are tracefs_hist objects started in lathound's instance.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "hist.h"
#include "state.h"
#include "trace/record.h"

/* ---- buckets and the pure core ------------------------------------------------------- */

static const char *const kind_names[LH_HIST_NR] = {
	[LH_HIST_IRQSOFF] = "irqsoff",
	[LH_HIST_PREEMPTOFF] = "preemptoff",
	[LH_HIST_WAKEUP] = "wakeup",
};

const char *lh_hist_kind_name(enum lh_hist_kind k)
{
	return k < LH_HIST_NR ? kind_names[k] : "?";
}

const char *lh_hist_kind_events(enum lh_hist_kind k)
{
	static const char *const events[LH_HIST_NR] = {
		[LH_HIST_IRQSOFF] = "preemptirq:irq_disable -> preemptirq:irq_enable",
		[LH_HIST_PREEMPTOFF] =
			"preemptirq:preempt_disable -> preemptirq:preempt_enable or power:cpu_idle",
		[LH_HIST_WAKEUP] = "sched:sched_waking (prio < 100) -> sched:sched_switch",
	};

	return k < LH_HIST_NR ? events[k] : "?";
}

char *lh_hist_kinds_format(unsigned int kinds, char *buf, size_t len)
{
	size_t n = 0;
	int k;

	snprintf(buf, len, "none");
	for (k = 0; k < LH_HIST_NR; k++)
		if (kinds & (1u << k) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
					      kind_names[k]);
	return buf;
}

int lh_hist_parse_kinds(const char *arg, unsigned int *kinds, const char **err)
{
	const char *p = arg, *end;
	unsigned int k;

	*kinds = 0;
	if (!strcmp(arg, "none"))
		return 0;
	if (!strcmp(arg, "all")) {
		*kinds = (1u << LH_HIST_NR) - 1;
		return 0;
	}
	for (; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ',');
		for (k = 0; k < LH_HIST_NR; k++)
			if ((size_t)(end - p) == strlen(kind_names[k]) &&
			    !strncmp(p, kind_names[k], (size_t)(end - p)))
				break;
		if (k == LH_HIST_NR) {
			*err = "unknown histogram: expected irqsoff, preemptoff, wakeup (comma-separated), all or none";
			return -1;
		}
		*kinds |= 1u << k;
	}
	if (!*kinds) {
		*err = "no histogram named: expected irqsoff, preemptoff, wakeup, all or none";
		return -1;
	}
	return 0;
}

void lh_hist_report_release(struct lh_hist_report *r)
{
	int k;

	for (k = 0; k < LH_HIST_NR; k++) {
		lh_hist_data_release(&r->data[k]);
		free(r->error[k]);
		free(r->why_not[k]);
	}
	memset(r, 0, sizeof(*r));
}

void lh_hist_data_release(struct lh_hist_data *d)
{
	size_t i;

	for (i = 0; i < d->nr_callers; i++)
		free(d->callers[i].symbol);
	free(d->callers);
	free(d->bins);
	free(d->sources);
	memset(d, 0, sizeof(*d));
}

static void add_bin(struct lh_hist_data *d, const struct lh_hist_bin *b)
{
	size_t i;

	for (i = 0; i < d->nr; i++) {
		struct lh_hist_bin *o = &d->bins[i];

		if (o->cpu == b->cpu && o->lo_ns == b->lo_ns && o->hi_ns == b->hi_ns) {
			o->count += b->count;
			o->sum_ns += b->sum_ns;
			return;
		}
	}
	LH_GROW(d->bins, d->nr + 1, d->alloc);
	d->bins[d->nr++] = *b;
}

/* Parses a decimal number at *p (leading blanks skipped). Return: 0, or -1. */
static int number(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t n = 0;

	while (s < end && *s == ' ')
		s++;
	if (s == end || !isdigit((unsigned char)*s))
		return -1;
	for (; s < end && isdigit((unsigned char)*s); s++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*v = n;
	return 0;
}

/* Return: whether [p, end) starts with s (then *p is moved past it). */
static bool skip(const char **p, const char *end, const char *s)
{
	size_t n = strlen(s);

	while (*p < end && **p == ' ')
		(*p)++;
	if ((size_t)(end - *p) < n || memcmp(*p, s, n))
		return false;
	*p += n;
	return true;
}

/*
 * The range of a latency key as the kernel prints it: "N" (exact), "~ LO-HI" (.buckets,
 * HI = LO + width - 1) or "~ 2^K" (.log2: order_base_2(value) == K). Return: 0, or -1.
 */
static int key_range(const char **p, const char *end, struct lh_hist_bin *b)
{
	uint64_t lo, hi;

	if (!skip(p, end, "~")) {
		if (number(p, end, &lo) || lo == UINT64_MAX)
			return -1;
		b->lo_ns = lo;
		b->hi_ns = lo + 1;
		return 0;
	}
	if (skip(p, end, "2^")) {
		if (number(p, end, &lo) || lo > 64)
			return -1;
		/* order_base_2(v) == K: v in (2^(K-1), 2^K], or v <= 1 for K == 0. */
		b->lo_ns = lo ? (1ull << (lo - 1)) + 1 : 0;
		b->hi_ns = lo == 64 ? UINT64_MAX : (1ull << lo) + 1;
		if (!lo)
			b->hi_ns = 2;
		return 0;
	}
	if (number(p, end, &lo) || !skip(p, end, "-") || number(p, end, &hi) || hi < lo ||
	    hi == UINT64_MAX)
		return -1;
	b->lo_ns = lo;
	b->hi_ns = hi + 1;
	return 0;
}

static int parse_values(const char *p, const char *end, uint64_t *count, uint64_t *sum,
			const char **what);

/*
 * One entry: "{ common_cpu: 0, lat: ~ 1000-1999 } hitcount: 5  lat: 7500". The CPU key
 * is common_cpu (or cpu); the other key is the latency. Return: 0, or -1 with *what set.
 */
static int parse_entry(const char *p, const char *end, struct lh_hist_bin *b,
		       const char **what)
{
	bool have_cpu = false, have_lat = false;
	uint64_t v;

	memset(b, 0, sizeof(*b));
	p++;	/* '{' */
	for (;;) {
		const char *name = p, *colon;

		while (name < end && *name == ' ')
			name++;
		colon = memchr(name, ':', (size_t)(end - name));
		if (!colon) {
			*what = "key without ':'";
			return -1;
		}
		p = colon + 1;
		if ((colon - name == 10 && !memcmp(name, "common_cpu", 10)) ||
		    (colon - name == 3 && !memcmp(name, "cpu", 3))) {
			if (number(&p, end, &v) || v > INT_MAX) {
				*what = "bad CPU number";
				return -1;
			}
			b->cpu = (int)v;
			have_cpu = true;
		} else if (!have_lat) {
			if (key_range(&p, end, b)) {
				*what = "bad latency key";
				return -1;
			}
			have_lat = true;
		} else {
			*what = "more than two keys";
			return -1;
		}
		if (skip(&p, end, "}"))
			break;
		if (!skip(&p, end, ",")) {
			*what = "expected ',' or '}' after a key";
			return -1;
		}
	}
	if (!have_cpu || !have_lat) {
		*what = "keys are not common_cpu and a latency";
		return -1;
	}
	return parse_values(p, end, &b->count, &b->sum_ns, what);
}

/*
 * An entry's values after its keys: "hitcount: N", then one sum "NAME: N".
 * Return: 0, or -1 with *what set.
 */
static int parse_values(const char *p, const char *end, uint64_t *count, uint64_t *sum,
			const char **what)
{
	bool have_count = false;
	uint64_t v;

	while (p < end) {
		const char *name = p, *colon;

		while (name < end && *name == ' ')
			name++;
		if (name == end)
			break;
		colon = memchr(name, ':', (size_t)(end - name));
		if (!colon) {
			*what = "value without ':'";
			return -1;
		}
		p = colon + 1;
		if (number(&p, end, &v)) {
			*what = "bad value";
			return -1;
		}
		if (colon - name == 8 && !memcmp(name, "hitcount", 8)) {
			*count = v;
			have_count = true;
		} else {
			*sum = v;
		}
	}
	if (!have_count) {
		*what = "no hitcount";
		return -1;
	}
	return 0;
}

/*
 * One entry of the callers' table: "{ caller: N } hitcount: N" (N the s32 key as the kernel
 * prints it, sign-extended to 64 bits). Return: 0, or -1 with *what set.
 */
static int parse_caller(const char *p, const char *end, struct lh_hist_caller *c,
			const char **what)
{
	uint64_t v;

	memset(c, 0, sizeof(*c));
	if (!skip(&p, end, "{") || !skip(&p, end, "caller:") || number(&p, end, &v) ||
	    (v > UINT32_MAX && v < (uint64_t)INT32_MIN)) {
		*what = "bad caller key";
		return -1;
	}
	c->offs = (int32_t)(uint32_t)v;
	if (!skip(&p, end, "}") || !skip(&p, end, "hitcount:") || number(&p, end, &c->count)) {
		*what = "no hitcount";
		return -1;
	}
	return 0;
}

/* The source keys of osnoise:*_noise tables after the CPU, and the kind each names. */
static const struct {
	const char		*key;
	enum lh_spike_kind	kind;
} source_keys[] = {
	{ "desc", LH_SPIKE_IRQ }, { "vector", LH_SPIKE_SOFTIRQ }, { "comm", LH_SPIKE_THREAD },
};

/*
 * Skips a CPU key, "common_cpu:" or "cpu:" as the kernel names it (6.1 prints
 * common_cpu for a trigger keyed by cpu). Return: whether there was one.
 */
static bool skip_cpu_key(const char **p, const char *end)
{
	return skip(p, end, "common_cpu:") || skip(p, end, "cpu:");
}

enum table { TABLE_LATENCY, TABLE_CALLERS, TABLE_SOURCES };

/*
 * The kind of table a "# trigger info: " line (after it, at p) begins: keys=caller, a
 * CPU alone or a CPU and a source key (sources), anything else a latency table.
 */
static enum table table_kind(const char *p, const char *end)
{
	const char *k;
	size_t i;

	if (skip(&p, end, "hist:keys=caller:"))
		return TABLE_CALLERS;
	if (!skip(&p, end, "hist:keys=") ||
	    (!skip(&p, end, "common_cpu") && !skip(&p, end, "cpu")))
		return TABLE_LATENCY;
	if (skip(&p, end, ":"))
		return TABLE_SOURCES;
	if (!skip(&p, end, ","))
		return TABLE_LATENCY;
	for (k = p; k < end && *k != ':' && *k != ','; k++)
		;
	for (i = 0; i < LH_ARRAY_SIZE(source_keys); i++)
		if (strlen(source_keys[i].key) == (size_t)(k - p) &&
		    !memcmp(p, source_keys[i].key, (size_t)(k - p)) && k < end && *k == ':')
			return TABLE_SOURCES;
	return TABLE_LATENCY;
}

/*
 * One entry of a sources' table: "{ common_cpu: 1, desc: local_timer   } hitcount: 9
 * duration: 4000" (a string key is padded with blanks; it ends at the last '}' before the
 * values), "{ common_cpu: 1, vector: 7 } ..." or "{ common_cpu: 1 } ...".
 * Return: 0, or -1 with *what set.
 */
static int parse_source(const char *p, const char *end, struct lh_hist_source *s,
			const char **what)
{
	const char *close, *v0, *v1;
	uint64_t v;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->kind = LH_SPIKE_NMI;
	s->vector = -1;
	if (!skip(&p, end, "{") || !skip_cpu_key(&p, end) || number(&p, end, &v) || v > INT_MAX) {
		*what = "bad CPU key";
		return -1;
	}
	s->cpu = (int)v;
	if (skip(&p, end, "}"))
		return parse_values(p, end, &s->count, &s->sum_ns, what);
	if (!skip(&p, end, ",")) {
		*what = "expected ',' or '}' after the CPU";
		return -1;
	}
	for (i = 0; i < LH_ARRAY_SIZE(source_keys); i++) {
		const char *q = p;

		if (skip(&q, end, source_keys[i].key) && q < end && *q == ':') {
			p = q + 1;
			break;
		}
	}
	if (i == LH_ARRAY_SIZE(source_keys)) {
		*what = "not a noise source key";
		return -1;
	}
	s->kind = source_keys[i].kind;
	if (s->kind == LH_SPIKE_SOFTIRQ) {
		if (number(&p, end, &v) || v > INT_MAX || !skip(&p, end, "}")) {
			*what = "bad vector";
			return -1;
		}
		s->vector = (int)v;
		return parse_values(p, end, &s->count, &s->sum_ns, what);
	}
	v0 = p;
	v1 = memmem(p, (size_t)(end - p), "hitcount:", 9);
	for (close = v1 ? v1 : v0; close > v0 && *close != '}'; close--)
		;
	if (!v1 || close == v0) {
		*what = "no '}' after a name";
		return -1;
	}
	while (v0 < close && *v0 == ' ')
		v0++;
	for (v1 = close; v1 > v0 && v1[-1] == ' '; v1--)
		;
	/* a driver's or a task's own text: inert from here on */
	lh_record_escape(s->name, sizeof(s->name), v0, (size_t)(v1 - v0));
	return parse_values(close + 1, end, &s->count, &s->sum_ns, what);
}

int lh_hist_parse(const char *buf, size_t len, const char *name, struct lh_hist_data *d,
		  struct lh_diag *diag)
{
	const char *p = buf, *end = buf + len;
	unsigned long line = 0;
	enum table table = TABLE_LATENCY;
	bool callers = false;	/* in the callers' table */

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q;
		const char *what = NULL;
		struct lh_hist_bin b;
		uint64_t v;

		if (!eol)
			eol = end;
		line++;
		q = p;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if (skip(&q, eol, "# trigger info:")) {
			table = table_kind(q, eol);
			callers = table == TABLE_CALLERS;
		} else if (table == TABLE_SOURCES && q < eol && *q == '{') {
			LH_GROW(d->sources, d->nr_sources + 1, d->alloc_sources);
			if (parse_source(q, eol, &d->sources[d->nr_sources], &what))
				goto bad;
			d->nr_sources++;
		} else if (table == TABLE_SOURCES && skip(&q, eol, "Totals:")) {
			d->source_tables++;
		} else if (callers && q < eol && *q == '{') {
			LH_GROW(d->callers, d->nr_callers + 1, d->alloc_callers);
			if (parse_caller(q, eol, &d->callers[d->nr_callers], &what))
				goto bad;
			d->nr_callers++;
		} else if (callers && skip(&q, eol, "max:")) {
			if (!d->nr_callers || number(&q, eol, &v)) {
				what = "bad max";
				goto bad;
			}
			d->callers[d->nr_callers - 1].max_ns = v;
		} else if (callers) {
			if (skip(&q, eol, "Totals:"))
				d->caller_tables++;
		} else if (q < eol && *q == '{') {
			if (parse_entry(q, eol, &b, &what))
				goto bad;
			add_bin(d, &b);
		} else if (skip(&q, eol, "Hits:")) {
			if (number(&q, eol, &v))
				goto bad_total;
			d->hits += v;
		} else if (skip(&q, eol, "Dropped:")) {
			if (number(&q, eol, &v))
				goto bad_total;
			d->dropped += v;
		} else if (skip(&q, eol, "Totals:")) {
			d->tables++;
		}
		p = eol + (eol < end);
		continue;
bad_total:
		what = "bad total";
bad:
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot parse histogram '%s': line %lu: %s", name,
			    line, what);
		return -1;
	}
	return 0;
}

static int cmp_bin(const void *a, const void *b)
{
	const struct lh_hist_bin *x = a, *y = b;

	if (x->lo_ns != y->lo_ns)
		return x->lo_ns < y->lo_ns ? -1 : 1;
	return 0;
}

void lh_hist_clip(struct lh_hist_data *d)
{
	size_t i, t;

	for (i = 0; i < d->nr; i++) {
		struct lh_hist_bin *b = &d->bins[i];

		for (t = 0; t < LH_HISTOGRAM_NR_TIERS; t++) {
			const struct lh_histogram_tier *tr = &lh_histogram_tiers[t];

			if (b->hi_ns - 1 < tr->lo_ns || b->hi_ns - 1 >= tr->hi_ns)
				continue;
			if (b->lo_ns < tr->lo_ns)
				b->lo_ns = tr->lo_ns;
			break;
		}
	}
}

static int cmp_caller(const void *a, const void *b)
{
	const struct lh_hist_caller *x = a, *y = b;

	if (x->max_ns != y->max_ns)
		return x->max_ns > y->max_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->offs > y->offs) - (x->offs < y->offs);
}

void lh_hist_top_callers(struct lh_hist_data *d, size_t n)
{
	size_t i;

	qsort(d->callers, d->nr_callers, sizeof(*d->callers), cmp_caller);
	for (i = n; i < d->nr_callers; i++)
		free(d->callers[i].symbol);
	if (d->nr_callers > n)
		d->nr_callers = n;
}

/* ---- kernel symbols ------------------------------------------------------------------- */

struct ksym {
	uint64_t	addr;
	char		*name;		/* "name" or "name [module]" */
};

struct lh_ksyms {
	struct ksym	*syms;		/* by address */
	size_t		nr;
	uint64_t	stext;
	struct lh_arena	names;		/* every ksym's name: one allocation per block */
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

void lh_ksyms_free(struct lh_ksyms *ks)
{
	if (!ks)
		return;
	lh_arena_release(&ks->names);
	free(ks->syms);
	free(ks);
}

/*
 * A symbol's name (whole: the kernel's may have 512 bytes) and its module, untrusted (a
 * module names its own symbols): each made inert by lh_record_escape(), in ks's arena.
 * Return: "name" or "name [module]".
 */
static char *ksym_name(struct lh_ksyms *ks, const char *name, size_t nlen, const char *mod,
		       size_t mlen, char **buf, size_t *alloc)
{
	size_t n;

	LH_GROW(*buf, lh_record_escape_len(nlen) + lh_record_escape_len(mlen) + 1, *alloc);
	n = lh_record_escape(*buf, lh_record_escape_len(nlen), name, nlen);
	if (mlen) {
		(*buf)[n++] = ' ';
		lh_record_escape(*buf + n, lh_record_escape_len(mlen), mod, mlen);
	}
	return lh_arena_strdup(&ks->names, *buf);
}

struct lh_ksyms *lh_ksyms_load(const char *path, const char **why)
{
	struct lh_ksyms *ks;
	char *line = NULL, *buf = NULL;
	size_t cap = 0, alloc = 0, balloc = 0, nlen, mlen;
	bool stext = false, nonzero = false;
	unsigned long long addr;
	const char *name, *mod;
	char type;
	int off;
	FILE *f = fopen(path, "re");

	if (!f) {
		*why = "kallsyms cannot be read";
		return NULL;
	}
	ks = lh_xcalloc(1, sizeof(*ks));
	while (getline(&line, &cap, f) > 0) {
		/* "ADDRESS TYPE NAME" and, for a module's, "\t[MODULE]" */
		off = -1;
		if (sscanf(line, "%llx %c %n", &addr, &type, &off) < 2 || off < 0 ||
		    (type != 't' && type != 'T'))
			continue;
		name = line + off;
		nlen = strcspn(name, " \t\n");
		if (!nlen)
			continue;
		mod = name + nlen + strspn(name + nlen, " \t");
		mlen = strcspn(mod, "\n");
		nonzero |= addr != 0;
		if (nlen == 6 && !memcmp(name, "_stext", 6) && !mlen) {
			ks->stext = addr;
			stext = true;
		}
		LH_GROW(ks->syms, ks->nr + 1, alloc);
		ks->syms[ks->nr].addr = addr;
		ks->syms[ks->nr++].name = ksym_name(ks, name, nlen, mod, mlen, &buf, &balloc);
	}
	free(buf);
	free(line);
	fclose(f);
	if (!nonzero || !stext) {
		*why = !nonzero ? "kallsyms hides addresses (kptr_restrict)" : "no _stext in kallsyms";
		lh_ksyms_free(ks);
		return NULL;
	}
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_ksym);
	return ks;
}

char *lh_ksyms_name(const struct lh_ksyms *ks, int32_t offs)
{
	uint64_t addr, off;
	size_t lo = 0, hi, i;
	const char *mod;

	if (!ks)
		goto raw;
	addr = ks->stext + (uint64_t)(int64_t)offs;
	/* the last symbol at or below addr */
	for (hi = ks->nr; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		goto raw;
	i = lo - 1;
	off = addr - ks->syms[i].addr;
	mod = strchr(ks->syms[i].name, ' ');
	mod = mod ? mod : "";
	while (lo < ks->nr && ks->syms[lo].addr == ks->syms[i].addr)
		lo++;
	if (lo == ks->nr)
		return lh_xasprintf("%.*s+0x%" PRIx64 "%s", (int)strcspn(ks->syms[i].name, " "),
				    ks->syms[i].name, off, mod);
	return lh_xasprintf("%.*s+0x%" PRIx64 "/0x%" PRIx64 "%s",
			    (int)strcspn(ks->syms[i].name, " "), ks->syms[i].name, off,
			    ks->syms[lo].addr - ks->syms[i].addr, mod);
raw:
	return offs < 0 ? lh_xasprintf("_stext-0x%" PRIx64, (uint64_t)-(int64_t)offs) :
			  lh_xasprintf("_stext+0x%" PRIx32, (uint32_t)offs);
}

int lh_hist_nr_cpus(const struct lh_hist_data *d)
{
	int n = 0;
	size_t i;

	for (i = 0; i < d->nr; i++)
		if (d->bins[i].cpu >= n)
			n = d->bins[i].cpu + 1;
	return n;
}

size_t lh_hist_cpu_bins(const struct lh_hist_data *d, int cpu, struct lh_hist_bin **bins)
{
	size_t i, n = 0;

	*bins = NULL;
	if (!d->nr)
		return 0;
	*bins = lh_xmalloc(d->nr * sizeof(**bins));
	for (i = 0; i < d->nr; i++)
		if ((cpu < 0 || d->bins[i].cpu == cpu) && d->bins[i].count)
			(*bins)[n++] = d->bins[i];
	qsort(*bins, n, sizeof(**bins), cmp_bin);
	return n;
}

int lh_hist_histogram(const struct lh_hist_data *d, int cpu, struct lh_histogram *h)
{
	struct lh_hist_bin *bins;
	size_t i, n = lh_hist_cpu_bins(d, cpu, &bins);
	int ret = 0;

	lh_histogram_release(h);
	for (i = 0; i < n && !ret; i++) {
		ret = lh_histogram_add_bucket(h, bins[i].lo_ns, bins[i].hi_ns, bins[i].count);
		h->sum_ns = lh_sat_add(h->sum_ns, bins[i].sum_ns);
	}
	free(bins);
	if (cpu < 0)
		h->dropped = d->dropped;
	return ret;
}

/* ---- the kernel side ------------------------------------------------------------------ */

/* How one kind is counted: its synthetic event and the triggers that feed it. */
struct kind_def {
	const char	*fields;	/* of the synthetic event */
	const char	*start_sys;
	const char	*start_ev;
	const char	*start;		/* trigger; '@': extra filter (wakeup) */
	const char	*end_sys;
	const char	*end_ev;
	const char	*end;		/* trigger; '@': the synthetic event's name */
	const char	*idle;		/* power:cpu_idle trigger ending a section, or NULL */
	const char	*callers;	/* trigger on the synthetic event keyed by caller, or NULL */
};

/*
 * Variables carry the start time (ns, the instance's clock) and the start site; a section
 * ends at the matching end event, and a preempt-off one also where the CPU goes idle (as
 * the preemptoff tracer's stop_critical_timings() does), so that idle time is not counted
 * as preempt-off (doc/histograms.md).
 */
static const struct kind_def kinds[LH_HIST_NR] = {
	[LH_HIST_IRQSOFF] = {
		"u64 lat; s32 caller",
		"preemptirq", "irq_disable",
		"hist:keys=common_cpu:lh_it=common_timestamp:lh_ic=caller_offs",
		"preemptirq", "irq_enable",
		"hist:keys=common_cpu:lh_il=common_timestamp-$lh_it:onmatch(preemptirq.irq_disable).trace(@,$lh_il,$lh_ic)",
		NULL,
		"hist:keys=caller:lh_im=lat:onmax($lh_im).save(lat)",
	},
	[LH_HIST_PREEMPTOFF] = {
		"u64 lat; s32 caller",
		"preemptirq", "preempt_disable",
		"hist:keys=common_cpu:lh_pt=common_timestamp:lh_pc=caller_offs",
		"preemptirq", "preempt_enable",
		"hist:keys=common_cpu:lh_pl=common_timestamp-$lh_pt:onmatch(preemptirq.preempt_disable).trace(@,$lh_pl,$lh_pc)",
		"hist:keys=common_cpu:lh_pi=common_timestamp-$lh_pt:onmatch(preemptirq.preempt_disable).trace(@,$lh_pi,$lh_pc) if state != 4294967295",
		"hist:keys=caller:lh_pm=lat:onmax($lh_pm).save(lat)",
	},
	[LH_HIST_WAKEUP] = {
		"u64 lat; pid_t pid",
		"sched", "sched_waking",
		"hist:keys=pid:lh_wt=common_timestamp if prio < 100@",
		"sched", "sched_switch",
		"hist:keys=next_pid:lh_wl=common_timestamp-$lh_wt:onmatch(sched.sched_waking).trace(@,$lh_wl,next_pid)",
		NULL,
		NULL,
	},
};

/* One trigger lathound wrote, to be removed with the same text. */
struct trigger {
	const char	*sys;
	const char	*ev;
	char		*text;
};

#define MAX_TRIGGERS	(LH_HIST_NR * 4)

struct lh_hist {
	char			inst_name[48];
	struct tracefs_instance	*inst;
	pid_t			pid;
	unsigned int		kinds;
	char			synth[LH_HIST_NR][64];
	bool			synth_made[LH_HIST_NR];
	struct tep_handle	*tep;
	struct tracefs_hist	*hists[LH_HIST_NR][LH_HISTOGRAM_NR_TIERS];
	bool			hist_started[LH_HIST_NR][LH_HISTOGRAM_NR_TIERS];
	struct trigger		trig[MAX_TRIGGERS];
	int			nr_trig;
	struct lh_ksyms		*ksyms;		/* names the callers; NULL: offsets */
	const char		*ksyms_why;	/* why ksyms is NULL (static) */
};

static bool event_exists(const char *sys, const char *ev, const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), "events/%s/%s/%s", sys, ev, file);
	return lh_state_knob_exists(path);
}

unsigned int lh_hist_supported(const char **why)
{
	unsigned int k = 0;

	if (why)
		*why = NULL;
	if (!lh_state_knob_exists("synthetic_events")) {
		if (why)
			*why = "no synthetic events (CONFIG_SYNTH_EVENTS)";
		return 0;
	}
	if (!event_exists("sched", "sched_switch", "hist")) {
		if (why)
			*why = "no hist triggers (CONFIG_HIST_TRIGGERS)";
		return 0;
	}
	if (event_exists("preemptirq", "irq_disable", "trigger") &&
	    event_exists("preemptirq", "irq_enable", "trigger"))
		k |= 1u << LH_HIST_IRQSOFF;
	if (event_exists("preemptirq", "preempt_disable", "trigger") &&
	    event_exists("preemptirq", "preempt_enable", "trigger"))
		k |= 1u << LH_HIST_PREEMPTOFF;
	if (event_exists("sched", "sched_waking", "trigger"))
		k |= 1u << LH_HIST_WAKEUP;
	if (!k && why)
		*why = "no preemptirq or sched_waking events";
	return k;
}

const char *lh_hist_unsupported(enum lh_hist_kind k)
{
	static const char *const need[LH_HIST_NR] = {
		[LH_HIST_IRQSOFF] = "no preemptirq:irq_disable/irq_enable events (CONFIG_IRQSOFF_TRACER)",
		[LH_HIST_PREEMPTOFF] =
			"no preemptirq:preempt_disable/preempt_enable events (CONFIG_PREEMPT_TRACER)",
		[LH_HIST_WAKEUP] = "no sched:sched_waking event",
	};
	const char *why;
	unsigned int have = lh_hist_supported(&why);

	if (have & (1u << k))
		return NULL;
	return have ? need[k] : why;
}

unsigned int lh_hist_kinds(const struct lh_hist *h)
{
	return h ? h->kinds : 0;
}

const char *lh_hist_synth(const struct lh_hist *h, enum lh_hist_kind k)
{
	return h && (unsigned int)k < LH_HIST_NR && (h->kinds & (1u << k)) && h->synth_made[k] ?
		       h->synth[k] : NULL;
}

const struct lh_ksyms *lh_hist_ksyms(const struct lh_hist *h)
{
	return h ? h->ksyms : NULL;
}

/* Writes a trigger into the instance and remembers it for removal. Return: 0, or -1. */
static int add_trigger(struct lh_hist *h, const char *sys, const char *ev, char *text,
		       struct lh_diag *diag)
{
	if (tracefs_event_file_append(h->inst, sys, ev, "trigger", text) < 0) {
		char *log = tracefs_error_last(NULL);

		lh_diag_add(diag, LH_DIAG_ERROR, "cannot add a histogram trigger to '%s:%s': %s%s%s",
			    sys, ev, strerror(errno), log ? ": " : "", log ? log : "");
		free(log);
		free(text);
		return -1;
	}
	h->trig[h->nr_trig].sys = sys;
	h->trig[h->nr_trig].ev = ev;
	h->trig[h->nr_trig].text = text;
	h->nr_trig++;
	return 0;
}

/* A tep that knows the synthetic event just defined, for tracefs_hist_alloc(). */
static int load_synth_format(struct lh_hist *h, const char *name, struct lh_diag *diag)
{
	char *buf;
	int size;

	if (!h->tep) {
		h->tep = tep_alloc();
		if (!h->tep)
			lh_oom();
	}
	buf = tracefs_event_file_read(NULL, "synthetic", name, "format", &size);
	if (!buf || tep_parse_event(h->tep, buf, (unsigned long)size, "synthetic")) {
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "cannot read the format of synthetic event '%s': %s", name,
			    strerror(errno ? errno : EINVAL));
		free(buf);
		return -1;
	}
	free(buf);
	return 0;
}

/* The histograms of a kind on its synthetic event: one tracefs_hist per tier. */
static int start_hists(struct lh_hist *h, enum lh_hist_kind k, struct lh_diag *diag)
{
	size_t t;

	for (t = 0; t < LH_HISTOGRAM_NR_TIERS; t++) {
		const struct lh_histogram_tier *tr = &lh_histogram_tiers[t];
		struct tracefs_hist *hi;
		char lo[24], hi_s[24];
		int err;

		hi = tracefs_hist_alloc(h->tep, "synthetic", h->synth[k], "common_cpu",
					TRACEFS_HIST_KEY_NORMAL);
		if (!hi)
			goto fail;
		h->hists[k][t] = hi;
		snprintf(lo, sizeof(lo), "%" PRIu64, tr->lo_ns);
		snprintf(hi_s, sizeof(hi_s), "%" PRIu64, tr->hi_ns);
		err = tr->width_ns ?
			tracefs_hist_add_key_cnt(hi, "lat", TRACEFS_HIST_KEY_BUCKETS,
						 (int)tr->width_ns) :
			tracefs_hist_add_key(hi, "lat", TRACEFS_HIST_KEY_LOG);
		err = err ?: tracefs_hist_add_value(hi, "lat");
		if (tr->lo_ns)
			err = err ?: tracefs_hist_append_filter(hi, TRACEFS_FILTER_COMPARE, "lat",
								 TRACEFS_COMPARE_GE, lo);
		if (tr->lo_ns && tr->hi_ns != UINT64_MAX)
			err = err ?: tracefs_hist_append_filter(hi, TRACEFS_FILTER_AND, NULL, 0,
								 NULL);
		if (tr->hi_ns != UINT64_MAX)
			err = err ?: tracefs_hist_append_filter(hi, TRACEFS_FILTER_COMPARE, "lat",
								 TRACEFS_COMPARE_LT, hi_s);
		if (err)
			goto fail;
		if (tracefs_hist_start(h->inst, hi))
			goto fail;
		h->hist_started[k][t] = true;
	}
	return 0;
fail:
	lh_diag_add(diag, LH_DIAG_ERROR, "cannot start the %s histogram on '%s': %s",
		    kind_names[k], h->synth[k], strerror(errno ? errno : EINVAL));
	return -1;
}

/* Return: the wakeup start trigger's extra filter for o (static buffer), or NULL if bad. */
static const char *wakeup_filter(const struct lh_hist_opts *o, char *buf, size_t len,
				 struct lh_diag *diag)
{
	size_t n = 0;
	const char *c;

	buf[0] = '\0';
	if (o->comm) {
		for (c = o->comm; *c; c++)
			if (!isprint((unsigned char)*c) || *c == '"' || *c == '\\')
				break;
		if (*c || !*o->comm || strlen(o->comm) > 15) {
			lh_diag_add(diag, LH_DIAG_ERROR,
				    "invalid task name for the wakeup histogram (1-15 printable characters, no quotes)");
			return NULL;
		}
		n = (size_t)snprintf(buf, len, " && comm == \"%s\"", o->comm);
	}
	if (o->pid > 0)
		snprintf(buf + n, len - n, " && pid == %d", o->pid);
	return buf;
}

/* Return: tmpl with its '@', if any, replaced by value (the caller frees it). */
static char *subst(const char *tmpl, const char *value)
{
	const char *at = strchr(tmpl, '@');

	if (!at)
		return lh_xstrdup(tmpl);
	return lh_xasprintf("%.*s%s%s", (int)(at - tmpl), tmpl, value, at + 1);
}

/* Creates one kind: synthetic event, histograms, then start and end triggers. */
static int create_kind(struct lh_hist *h, enum lh_hist_kind k, const struct lh_hist_opts *o,
		       struct lh_diag *diag)
{
	const struct kind_def *kd = &kinds[k];
	char extra[64];
	const char *filter = "";
	char *def;

	snprintf(h->synth[k], sizeof(h->synth[k]), LH_HIST_SYNTH_PREFIX "%d_%s", (int)h->pid,
		 kind_names[k]);
	if (k == LH_HIST_WAKEUP) {
		filter = wakeup_filter(o, extra, sizeof(extra), diag);
		if (!filter)
			return -1;
	}
	def = lh_xasprintf("%s %s", h->synth[k], kd->fields);
	if (tracefs_instance_file_append(NULL, "synthetic_events", def) < 0) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot define synthetic event '%s': %s",
			    h->synth[k], strerror(errno));
		free(def);
		return -1;
	}
	free(def);
	h->synth_made[k] = true;
	if (load_synth_format(h, h->synth[k], diag) || start_hists(h, k, diag))
		return -1;
	if (kd->callers &&
	    add_trigger(h, "synthetic", h->synth[k], lh_xstrdup(kd->callers), diag))
		return -1;
	if (add_trigger(h, kd->start_sys, kd->start_ev, subst(kd->start, filter), diag))
		return -1;
	if (kd->idle && add_trigger(h, "power", "cpu_idle", subst(kd->idle, h->synth[k]),
				    diag))
		return -1;
	return add_trigger(h, kd->end_sys, kd->end_ev, subst(kd->end, h->synth[k]), diag);
}

int lh_hist_create(struct lh_hist **hp, const struct lh_hist_opts *o, struct lh_diag *diag)
{
	struct lh_hist *h = lh_xcalloc(1, sizeof(*h));
	unsigned int have;
	const char *why;
	int k;

	*hp = NULL;
	have = lh_hist_supported(&why) & o->kinds;
	if (!have) {
		lh_diag_add(diag, LH_DIAG_ERROR, "this kernel cannot count latency histograms: %s",
			    why ? why : "none of the events asked for");
		free(h);
		return -1;
	}
	h->pid = getpid();
	if (have & ((1u << LH_HIST_IRQSOFF) | (1u << LH_HIST_PREEMPTOFF))) {
		h->ksyms = lh_ksyms_load(o->kallsyms ? o->kallsyms : "/proc/kallsyms",
					 &h->ksyms_why);
	}
	snprintf(h->inst_name, sizeof(h->inst_name), LH_HIST_PREFIX "%d", (int)h->pid);
	h->inst = tracefs_instance_create(h->inst_name);
	if (!h->inst) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot create tracefs instance '%s': %s",
			    h->inst_name, strerror(errno));
		goto fail;
	}
	for (k = 0; k < LH_HIST_NR; k++) {
		if (!(have & (1u << k)))
			continue;
		if (o->kinds & (1u << k))
			h->kinds |= 1u << k;
		if (create_kind(h, k, o, diag))
			goto fail;
	}
	*hp = h;
	return 0;
fail:
	lh_hist_destroy(h, diag);
	return -1;
}

int lh_hist_read(struct lh_hist *h, enum lh_hist_kind k, struct lh_hist_data *d,
		 struct lh_diag *diag)
{
	char *buf, name[96];
	int size;
	size_t i;

	lh_hist_data_release(d);
	if (!h || k >= LH_HIST_NR || !(h->kinds & (1u << k))) {
		lh_diag_add(diag, LH_DIAG_ERROR, "no %s histogram in this run", lh_hist_kind_name(k));
		return -1;
	}
	buf = tracefs_event_file_read(h->inst, "synthetic", h->synth[k], "hist", &size);
	if (!buf) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot read the %s histogram: %s", kind_names[k],
			    strerror(errno ? errno : EIO));
		return -1;
	}
	snprintf(name, sizeof(name), "%s/events/synthetic/%s/hist", h->inst_name, h->synth[k]);
	if (lh_hist_parse(buf, (size_t)size, name, d, diag)) {
		free(buf);
		return -1;
	}
	free(buf);
	lh_hist_clip(d);
	if (d->tables != LH_HISTOGRAM_NR_TIERS || d->caller_tables != !!kinds[k].callers) {
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "histogram '%s': %u tables and %u of callers, expected %d and %d",
			    name, d->tables, d->caller_tables, LH_HISTOGRAM_NR_TIERS,
			    !!kinds[k].callers);
		return -1;
	}
	lh_hist_top_callers(d, LH_HIST_TOP_CALLERS);
	for (i = 0; i < d->nr_callers; i++)
		d->callers[i].symbol = lh_ksyms_name(h->ksyms, d->callers[i].offs);
	d->callers_note = h->ksyms ? NULL : h->ksyms_why;
	return 0;
}

/* Removes a synthetic event by name. Return: 0, or -1 with errno. */
static int remove_synth(const char *name)
{
	char *cmd = lh_xasprintf("!%s", name);
	int ret = tracefs_instance_file_append(NULL, "synthetic_events", cmd) < 0 ? -1 : 0;

	free(cmd);
	return ret;
}

int lh_hist_destroy(struct lh_hist *h, struct lh_diag *diag)
{
	int ret = 0, i, k;
	size_t t;

	if (!h)
		return 0;
	/* End triggers first: from then on no section reaches the histograms. */
	for (i = h->nr_trig - 1; i >= 0; i--) {
		char *cmd = lh_xasprintf("!%s", h->trig[i].text);

		if (tracefs_event_file_append(h->inst, h->trig[i].sys, h->trig[i].ev, "trigger",
					      cmd) < 0) {
			lh_diag_add(diag, LH_DIAG_ERROR, "cannot remove a trigger of '%s:%s': %s",
				    h->trig[i].sys, h->trig[i].ev, strerror(errno));
			ret = -1;
		}
		free(cmd);
		free(h->trig[i].text);
	}
	for (k = 0; k < LH_HIST_NR; k++) {
		for (t = 0; t < LH_HISTOGRAM_NR_TIERS; t++) {
			if (h->hist_started[k][t] && tracefs_hist_destroy(h->inst, h->hists[k][t])) {
				lh_diag_add(diag, LH_DIAG_ERROR,
					    "cannot remove a histogram of '%s': %s", h->synth[k],
					    strerror(errno));
				ret = -1;
			}
			tracefs_hist_free(h->hists[k][t]);
		}
	}
	if (lh_state_instance_destroy(h->inst, h->inst_name, diag))
		ret = -1;
	for (k = 0; k < LH_HIST_NR; k++) {
		if (h->synth_made[k] && remove_synth(h->synth[k])) {
			lh_diag_add(diag, LH_DIAG_ERROR,
				    "cannot remove synthetic event '%s': %s (remove it with 'lathound reset')",
				    h->synth[k], strerror(errno));
			ret = -1;
		}
	}
	tep_free(h->tep);
	lh_ksyms_free(h->ksyms);
	free(h);
	return ret;
}

/* ---- leftovers of a killed run -------------------------------------------------------- */

int lh_hist_clear_triggers(struct tracefs_instance *inst, const char *sys, const char *ev)
{
	char *buf = tracefs_event_file_read(inst, sys, ev, "trigger", NULL), *line, *save;
	int left = 0;

	if (!buf)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *br, *cmd;

		if (*line == '#' || !*line)
			continue;
		br = strstr(line, " [");
		if (br)
			*br = '\0';
		cmd = lh_xasprintf("!%s", line);
		if (tracefs_event_file_append(inst, sys, ev, "trigger", cmd) < 0)
			left++;
		free(cmd);
	}
	free(buf);
	return left;
}

/* Removes a killed run's instance, its triggers first (end triggers go on the first pass). */
static int remove_stale_instance(const char *name)
{
	struct tracefs_instance *inst = tracefs_instance_alloc(NULL, name);
	int pass, left = 1, k, ret;
	DIR *dir;
	struct dirent *de;

	if (!inst)
		return -1;
	for (pass = 0; pass < 4 && left; pass++) {
		char *path;

		left = 0;
		for (k = 0; k < LH_HIST_NR; k++) {
			left += lh_hist_clear_triggers(inst, kinds[k].end_sys, kinds[k].end_ev);
			left += lh_hist_clear_triggers(inst, kinds[k].start_sys, kinds[k].start_ev);
		}
		left += lh_hist_clear_triggers(inst, "power", "cpu_idle");
		path = tracefs_instance_get_file(inst, "events/synthetic");
		dir = path ? opendir(path) : NULL;
		tracefs_put_tracing_file(path);
		while (dir && (de = readdir(dir)))
			if (de->d_name[0] != '.' && strcmp(de->d_name, "enable") &&
			    strcmp(de->d_name, "filter"))
				left += lh_hist_clear_triggers(inst, "synthetic", de->d_name);
		if (dir)
			closedir(dir);
	}
	ret = lh_state_instance_remove(inst, name);
	tracefs_instance_free(inst);
	return ret;
}

int lh_hist_remove_stale(struct lh_diag *diag)
{
	int removed, failed = 0, pid;
	char *buf, *line, *save;

	removed = lh_state_remove_stale_instances(LH_HIST_PREFIX, remove_stale_instance, diag);
	if (removed < 0) {
		removed = 0;
		failed++;
	}
	buf = tracefs_instance_file_read(NULL, "synthetic_events", NULL);
	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " \t")] = '\0';
		pid = lh_state_name_pid(line, LH_HIST_SYNTH_PREFIX, '_');
		if (!pid || lh_pid_is_lathound(pid))
			continue;
		if (remove_synth(line)) {
			lh_diag_add(diag, LH_DIAG_WARNING,
				    "cannot remove synthetic event '%s' left by a killed run: %s",
				    line, strerror(errno));
			failed++;
		} else {
			removed++;
		}
	}
	free(buf);
	return failed ? -1 : removed;
}
