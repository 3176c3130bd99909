// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON report (doc/report-json.md), streamed to the file as it is walked: no tree of it
 * is built, so memory stays what the report holds (and, -j 2 and up, two texts of a kept
 * record) however many functions its records name (a json-c tree of the 100 records kept of
 * a Zipf corpus took 190 MB, bench/README.md).
 * json-c escapes every string that needs it (one string object, reused), and the layout is
 * json-c's JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED: the output is byte for byte
 * what json_object_to_json_string_ext() prints of the same document (tests/unit/report.c
 * checks it with json-c as the oracle).
 * Unknown numbers (-1 in a record) and absent strings are written as null.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report-priv.h"

#define JSON_FLAGS \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

#define JW_MAX_DEPTH	16	/* the report nests 8 deep */
#define JW_MAX_INDENT	(2 * JW_MAX_DEPTH)
#define JW_PLAIN_MAX	4096	/* longer strings go through json-c whatever they hold */
#define JW_MAX_KEY	256	/* keys are names such as "function_counts" */

/*
 * A JSON writer on a FILE, or (out NULL) into a text in memory, through a buffer of its own.
 * Keys are this file's own constants (never trace text) and are written as they are; every
 * string value is written as json-c escapes it.
 */
struct jw {
	FILE		*out;
	json_object	*str;		/* the string being escaped */
	int		depth;		/* containers open */
	bool		had[JW_MAX_DEPTH];	/* container at that depth has a member */
	char		close[JW_MAX_DEPTH];
	int		err;		/* errno of the first failure, 0 if none */
	char		*mem;		/* out NULL: the text written, mem_len bytes */
	size_t		mem_len;
	size_t		mem_alloc;
	size_t		len;		/* bytes in buf */
	char		buf[64 * 1024];
};

/* Return: a writer on out (NULL: into w->mem), or NULL with errno ENOMEM. */
static struct jw *jw_alloc(FILE *out)
{
	struct jw *w = malloc(sizeof(*w));

	if (w)
		*w = (struct jw){ .out = out, .str = json_object_new_string("") };
	if (!w || !w->str) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	return w;
}

static void jw_free(struct jw *w)
{
	if (!w)
		return;
	json_object_put(w->str);
	free(w->mem);
	free(w);
}

static void jw_fail(struct jw *w, int err)
{
	if (!w->err)
		w->err = err;
}

/* Writes s[0..n) past the buffer: to the file, or to the text in memory. */
static void jw_sink(struct jw *w, const char *s, size_t n)
{
	if (!n || w->err)
		return;
	if (!w->out) {
		LH_GROW(w->mem, w->mem_len + n, w->mem_alloc);
		memcpy(w->mem + w->mem_len, s, n);
		w->mem_len += n;
	} else if (fwrite(s, 1, n, w->out) != n) {
		jw_fail(w, errno ? errno : EIO);
	}
}

static void jw_flush(struct jw *w)
{
	jw_sink(w, w->buf, w->len);
	w->len = 0;
}

/* Return: where the next n (at most sizeof(w->buf)) bytes go; the caller advances w->len. */
static char *jw_room(struct jw *w, size_t n)
{
	if (n > sizeof(w->buf) - w->len)
		jw_flush(w);
	return w->buf + w->len;
}

static void jw_put(struct jw *w, const char *s, size_t n)
{
	if (n > sizeof(w->buf)) {
		jw_flush(w);
		jw_sink(w, s, n);
		return;
	}
	memcpy(jw_room(w, n), s, n);
	w->len += n;
}

/* Write the indent of the current depth at p. Return: where it ends. */
static char *jw_indent(struct jw *w, char *p)
{
	static const char spaces[JW_MAX_INDENT] = { [0 ... JW_MAX_INDENT - 1] = ' ' };

	memcpy(p, spaces, JW_MAX_INDENT);	/* a fixed size: two stores, no call */
	return p + 2 * w->depth;
}

/* Start the next member (key) or element (key NULL) of the open container. */
static void jw_next(struct jw *w, const char *key)
{
	size_t k = key ? strlen(key) : 0;
	char *p;

	if (!w->depth)
		return;
	if (k > JW_MAX_KEY) {
		jw_fail(w, ENAMETOOLONG);
		return;
	}
	p = jw_room(w, 2 + JW_MAX_INDENT + JW_MAX_KEY + 4);
	if (w->had[w->depth]) {
		*p++ = ',';
		*p++ = '\n';
	}
	w->had[w->depth] = true;
	p = jw_indent(w, p);
	if (key) {
		*p++ = '"';
		memcpy(p, key, k);
		p += k;
		memcpy(p, "\": ", 3);
		p += 3;
	}
	w->len = (size_t)(p - w->buf);
}

/* Open an object ('{') or array ('['), as the next member or element. */
static void jw_open(struct jw *w, const char *key, char open)
{
	jw_next(w, key);
	if (w->depth + 1 >= JW_MAX_DEPTH) {
		jw_fail(w, EOVERFLOW);
		return;
	}
	jw_put(w, open == '{' ? "{\n" : "[\n", 2);
	w->depth++;
	w->had[w->depth] = false;
	w->close[w->depth] = open == '{' ? '}' : ']';
}

static void jw_obj(struct jw *w, const char *key)
{
	jw_open(w, key, '{');
}

static void jw_arr(struct jw *w, const char *key)
{
	jw_open(w, key, '[');
}

static void jw_end(struct jw *w)
{
	char *p;

	if (!w->depth)
		return;
	p = jw_room(w, 1 + JW_MAX_INDENT + 1);
	if (w->had[w->depth])
		*p++ = '\n';
	w->depth--;
	p = jw_indent(w, p);
	*p++ = w->close[w->depth + 1];
	w->len = (size_t)(p - w->buf);
}

static void jw_null(struct jw *w, const char *key)
{
	jw_next(w, key);
	jw_put(w, "null", 4);
}

typedef unsigned char jw_v16 __attribute__((vector_size(16)));

/* Return: whether json-c would escape one of the 16 bytes at s (SSE2, NEON). */
static inline bool jw_escaped16(const char *s)
{
	jw_v16 c, bad;
	uint64_t lo, hi;

	memcpy(&c, s, sizeof(c));
	bad = (jw_v16)((c < ' ') | (c == '"') | (c == '\\'));
	memcpy(&lo, &bad, 8);
	memcpy(&hi, (const char *)&bad + 8, 8);
	return lo | hi;
}

/*
 * Return: whether json-c writes s[0..n) as it is: no control character, quote or backslash
 * in it (most strings: trace text was made inert where it was parsed); tested 16 bytes at a
 * time.
 */
static bool jw_is_plain(const char *s, size_t n)
{
	char pad[16];
	bool bad = false;
	size_t i;

	if (n > JW_PLAIN_MAX)
		return false;
	if (n < 16) {
		memset(pad, 'x', sizeof(pad));	/* a byte kept as is */
		memcpy(pad, s, n);
		return !jw_escaped16(pad);
	}
	for (i = 0; i + 16 < n; i += 16)
		bad |= jw_escaped16(s + i);
	bad |= jw_escaped16(s + n - 16);	/* the last 16, overlapping */
	return !bad;
}

/* Write s[0..n) as it is when json-c would. Return: whether it was written. */
static bool jw_plain(struct jw *w, const char *s, size_t n)
{
	char *p;

	if (!jw_is_plain(s, n))
		return false;
	p = jw_room(w, n + 2);
	*p = '"';
	memcpy(p + 1, s, n);
	p[n + 1] = '"';
	w->len += n + 2;
	return true;
}

/* A string s (NULL: null) of length len. */
static void jw_strn(struct jw *w, const char *key, const char *s, size_t len)
{
	const char *text;
	size_t n;

	if (!s) {
		jw_null(w, key);
		return;
	}
	jw_next(w, key);
	if (jw_plain(w, s, len))
		return;
	if (len > INT_MAX || json_object_set_string_len(w->str, s, (int)len) != 1) {
		jw_fail(w, ENOMEM);
		return;
	}
	text = json_object_to_json_string_length(w->str, JSON_FLAGS, &n);
	if (!text) {
		jw_fail(w, ENOMEM);
		return;
	}
	jw_put(w, text, n);
}

static void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_strn(w, key, s, s ? strlen(s) : 0);
}

static void jw_bool(struct jw *w, const char *key, bool b)
{
	jw_next(w, key);
	if (b)
		jw_put(w, "true", 4);
	else
		jw_put(w, "false", 5);
}

static void jw_int(struct jw *w, const char *key, int64_t v)
{
	char buf[24], *p = buf + sizeof(buf);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	jw_next(w, key);
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	jw_put(w, p, (size_t)(buf + sizeof(buf) - p));
}

/* JSON integers are read as signed: a (saturated) count or latency past INT64_MAX stays there. */
static void jw_uint(struct jw *w, const char *key, uint64_t v)
{
	jw_int(w, key, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

/* -1 (unknown) becomes null. */
static void jw_known(struct jw *w, const char *key, int v)
{
	if (v < 0)
		jw_null(w, key);
	else
		jw_int(w, key, v);
}

/* A number with at most 3 decimals, written as such ("1990.0", "0.002"), not %.17g. */
static void jw_double(struct jw *w, const char *key, double v)
{
	char buf[64];
	size_t n;

	snprintf(buf, sizeof(buf), "%.3f", v);
	n = strlen(buf);
	while (n > 2 && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	jw_next(w, key);
	jw_put(w, buf, n);
}

/* µs from ns, exact (lh_report_json_us()). */
static void jw_us(struct jw *w, const char *key, uint64_t ns)
{
	char buf[32];

	lh_report_json_us(ns, buf, sizeof(buf));
	jw_next(w, key);
	jw_put(w, buf, strlen(buf));
}

/* µs from signed ns, as jw_us(). */
static void jw_sus(struct jw *w, const char *key, int64_t ns)
{
	if (ns >= 0)
		jw_us(w, key, (uint64_t)ns);
	else if (ns % 1000 == 0)
		jw_int(w, key, ns / 1000);
	else
		jw_double(w, key, (double)ns / 1000.0);
}

/* jw_us(), or null when !has. */
static void jw_us_if(struct jw *w, const char *key, bool has, uint64_t ns)
{
	if (has)
		jw_us(w, key, ns);
	else
		jw_null(w, key);
}

static void jw_time(struct jw *w, const char *key, uint64_t ns)
{
	char buf[32];

	jw_str(w, key, lh_report_iso8601(ns, buf, sizeof(buf)));
}

static void jw_source(struct jw *w, const char *key, const char *source, unsigned long line)
{
	char buf[4096];

	if (source && line) {
		snprintf(buf, sizeof(buf), "%s:%lu", source, line);
		source = buf;
	}
	jw_str(w, key, source);
}

static void jw_str_or_null(struct jw *w, const char *key, const char *s)
{
	jw_str(w, key, s && *s ? s : NULL);
}

/* A histogram's members (doc/report-json.md): values in us, up to ns precision. */
static void hist_members(struct jw *w, const struct lh_histogram *h)
{
	uint64_t lo, hi;
	unsigned int i;
	size_t k;

	jw_str(w, "unit", "us");
	jw_uint(w, "count", h->count);
	if (h->count) {
		jw_us(w, "min", h->min_ns);
		jw_us(w, "max", h->max_ns);
		jw_double(w, "mean", lh_histogram_mean_ns(h) / 1e3);
	} else {
		jw_null(w, "min");
		jw_null(w, "max");
		jw_null(w, "mean");
	}
	jw_obj(w, "percentiles");
	for (i = 0; i < LH_HISTOGRAM_NR_PCT; i++)
		if (lh_histogram_percentile(h, i, &lo, &hi))
			jw_us(w, lh_histogram_pct_key[i], hi);
		else
			jw_null(w, lh_histogram_pct_key[i]);
	jw_end(w);
	jw_obj(w, "resolution");
	for (i = 0; i < LH_HISTOGRAM_NR_PCT; i++)
		if (lh_histogram_percentile(h, i, &lo, &hi))
			jw_us(w, lh_histogram_pct_key[i], hi - lo);
		else
			jw_null(w, lh_histogram_pct_key[i]);
	jw_end(w);
	jw_arr(w, "buckets");
	for (k = 0; k < h->nr; k++) {
		jw_obj(w, NULL);
		jw_us(w, "lo", h->b[k].lo_ns);
		jw_us(w, "hi", h->b[k].hi_ns);
		jw_uint(w, "count", h->b[k].count);
		jw_end(w);
	}
	jw_end(w);
	jw_uint(w, "dropped", h->dropped);
}

static void hist_json(struct jw *w, const char *key, const struct lh_histogram *h)
{
	jw_obj(w, key);
	hist_members(w, h);
	jw_end(w);
}

/* Where a worst section was: {latency_us, cpu, task, started_at, ended_at, source}. */
static void where_json(struct jw *w, const char *key, const struct lh_report_where *wh)
{
	if (!wh || !wh->set) {
		jw_null(w, key);
		return;
	}
	jw_obj(w, key);
	jw_uint(w, "latency_us", wh->latency_us);
	jw_known(w, "cpu", wh->cpu);
	jw_obj(w, "task");
	jw_str_or_null(w, "comm", wh->comm);
	jw_known(w, "pid", wh->pid);
	jw_end(w);
	jw_str_or_null(w, "started_at", wh->started);
	jw_str_or_null(w, "ended_at", wh->ended);
	jw_source(w, "source", wh->source, wh->line);
	jw_str_or_null(w, "irq", wh->irq);
	jw_str_or_null(w, "rule", wh->rule);
	jw_end(w);
}

static void task_json(struct jw *w, const char *key, const struct lh_task *t)
{
	jw_obj(w, key);
	jw_str(w, "comm", t->comm);
	jw_known(w, "pid", t->pid);
	jw_known(w, "uid", t->uid);
	jw_known(w, "policy", t->policy);
	jw_known(w, "rt_prio", t->rt_prio);
	jw_end(w);
}

/* The woken task and its waker, from a wakeup tracer's '+' and '==>' lines (null if none). */
static void wake_json(struct jw *w, const char *key, const struct lh_task *t, bool has)
{
	char state[2] = { t->state, '\0' };

	if (!has) {
		jw_null(w, key);
		return;
	}
	jw_obj(w, key);
	jw_str(w, "comm", t->comm);
	jw_known(w, "pid", t->pid);
	jw_known(w, "prio", t->prio);
	jw_str(w, "state", t->state ? state : NULL);
	jw_end(w);
}

/* The blocking task or the culprit of a spike: {comm, pid, us, share_permille}. */
static void spike_task_json(struct jw *w, const char *key, const struct lh_spike *sp,
			    const struct lh_task *t, uint64_t ns)
{
	jw_obj(w, key);
	jw_str(w, "comm", t->comm);
	jw_known(w, "pid", t->pid);
	jw_us(w, "us", ns);
	jw_uint(w, "share_permille", lh_spike_permille(ns, sp->latency_ns));
	jw_end(w);
}

/* What overlapped a spike's window: its offset, duration, overlap and share of latency_ns. */
static void overlap_json(struct jw *w, int64_t offset_ns, uint64_t duration_ns,
			 uint64_t overlap_ns, uint64_t latency_ns)
{
	jw_sus(w, "offset_us", offset_ns);
	jw_us(w, "duration_us", duration_ns);
	jw_us(w, "overlap_us", overlap_ns);
	jw_uint(w, "share_permille", lh_spike_permille(overlap_ns, latency_ns));
}

/*
 * The section behind a timerlat spike, when the run watched one (absent otherwise):
 * {state, watched, min_us[, tracer, caller, offset_us, duration_us, overlap_us,
 * share_permille]}.
 */
static void spike_section_json(struct jw *w, const struct lh_spike *sp)
{
	const struct lh_spike_section *x = &sp->section;
	static const enum lh_tracer watchable[] = { LH_TRACER_IRQSOFF, LH_TRACER_PREEMPTOFF };
	size_t i;

	if (!x->watched)
		return;
	jw_obj(w, "section");
	jw_str(w, "state", lh_spike_section_state_name(x->state));
	jw_arr(w, "watched");
	for (i = 0; i < LH_ARRAY_SIZE(watchable); i++)
		if (x->watched & (1u << watchable[i]))
			jw_str(w, NULL, lh_tracer_name(watchable[i]));
	jw_end(w);
	jw_us(w, "min_us", x->min_ns);
	if (x->state == LH_SPIKE_SECTION_FOUND) {
		jw_str(w, "tracer", lh_tracer_name(x->tracer));
		jw_str_or_null(w, "caller", x->caller);
		overlap_json(w, x->offset_ns, x->duration_ns, x->overlap_ns, sp->latency_ns);
	}
	jw_end(w);
}

/* A sampling tracer's spike broken into its parts (null for the other tracers). */
static void spike_json(struct jw *w, const struct lh_spike *sp)
{
	size_t i;

	if (!sp->set) {
		jw_null(w, "spike");
		return;
	}
	jw_obj(w, "spike");
	jw_us(w, "latency_us", sp->latency_ns);
	jw_us_if(w, "irq_latency_us", sp->has_irq, sp->irq_latency_ns);
	jw_us_if(w, "thread_latency_us", sp->has_thread, sp->thread_latency_ns);
	jw_us_if(w, "noise_us", sp->has_period, sp->noise_ns);
	jw_us_if(w, "runtime_us", sp->has_period, sp->runtime_ns);
	spike_task_json(w, "blocking", sp, &sp->blocking, sp->blocking_ns);
	spike_task_json(w, "culprit", sp, &sp->culprit, sp->culprit_ns);
	jw_arr(w, "parts");
	for (i = 0; i < sp->nr_parts; i++) {
		const struct lh_spike_part *p = &sp->parts[i];

		jw_obj(w, NULL);
		jw_str(w, "kind", lh_spike_kind_name(p->kind));
		jw_str(w, "name", p->name);
		jw_known(w, "vector", p->vector);
		jw_known(w, "pid", p->pid);
		overlap_json(w, p->offset_ns, p->duration_ns, p->overlap_ns, sp->latency_ns);
		jw_end(w);
	}
	jw_end(w);
	jw_uint(w, "more_parts", sp->more_parts);
	jw_us(w, "more_us", sp->more_ns);
	jw_us(w, "explained_us", sp->explained_ns);
	jw_uint(w, "explained_permille", lh_spike_permille(sp->explained_ns, sp->latency_ns));
	spike_section_json(w, sp);
	jw_end(w);
}

/* A stack's frame names, or (offsets) what the trace printed after each name, or []. */
static void frames_json(struct jw *w, const char *key, const struct lh_stack *s, bool offsets)
{
	size_t i;

	jw_arr(w, key);
	for (i = 0; s && i < s->nr; i++)
		jw_str(w, NULL, offsets ? s->offsets[i] : s->frames[i]);
	jw_end(w);
}

/* The ids of rules[0..n) (indices into rep->rules) that name a loaded rule. */
static void rule_ids_json(struct jw *w, const char *key, const struct lh_report *rep,
			  const size_t *rules, size_t n)
{
	size_t i, nr = rep->rules ? lh_rules_count(rep->rules) : 0;

	jw_arr(w, key);
	for (i = 0; i < n; i++)
		if (rules[i] < nr)
			jw_str(w, NULL, lh_rules_get(rep->rules, rules[i])->id);
	jw_end(w);
}

/*
 * A function_counts element, {"name": f's name, "count": f's count}: what jw_obj(),
 * jw_str(), jw_int() and jw_end() write, in one piece when the name is plain (these elements
 * are most of a kept record's bytes, and most of the writer's time).
 */
static void jw_name_count(struct jw *w, const struct lh_func *f)
{
	static const char key1[] = "\"name\": \"", key2[] = "\",\n", key3[] = "\"count\": ";
	char num[16], *q = num + sizeof(num), *p;
	unsigned int count = f->count;
	size_t n = f->len;

	if (w->depth + 2 >= JW_MAX_DEPTH || !f->name || !jw_is_plain(f->name, n)) {
		jw_obj(w, NULL);
		jw_strn(w, "name", f->name, n);
		jw_int(w, "count", count);
		jw_end(w);
		return;
	}
	do
		*--q = (char)('0' + count % 10);
	while (count /= 10);
	p = jw_room(w, 2 + 3 * JW_MAX_INDENT + n + (size_t)(num + sizeof(num) - q) + 64);
	if (w->had[w->depth]) {
		*p++ = ',';
		*p++ = '\n';
	}
	w->had[w->depth] = true;
	p = jw_indent(w, p);
	*p++ = '{';
	*p++ = '\n';
	w->depth++;
	p = jw_indent(w, p);
	memcpy(p, key1, sizeof(key1) - 1);
	p += sizeof(key1) - 1;
	memcpy(p, f->name, n);
	p += n;
	memcpy(p, key2, sizeof(key2) - 1);
	p += sizeof(key2) - 1;
	p = jw_indent(w, p);
	memcpy(p, key3, sizeof(key3) - 1);
	p += sizeof(key3) - 1;
	memcpy(p, q, (size_t)(num + sizeof(num) - q));
	p += num + sizeof(num) - q;
	*p++ = '\n';
	w->depth--;
	p = jw_indent(w, p);
	*p++ = '}';
	w->len = (size_t)(p - w->buf);
}

static void record_json(struct jw *w, const struct lh_report *rep, const struct lh_report_kept *k)
{
	const struct lh_record *r = k->rec;
	const struct lh_stack *s0 = r->nr_stacks ? &r->stacks[0] : NULL;
	char buf[32];
	size_t i;

	jw_obj(w, NULL);
	jw_str(w, "tracer", lh_report_tracer_name(r));
	jw_uint(w, "latency_us", r->latency_us);
	jw_known(w, "cpu", r->cpu);
	jw_known(w, "nr_cpus", r->nr_cpus);
	jw_str(w, "preempt_model", r->preempt_model);
	jw_str(w, "kernel", r->kernel);
	task_json(w, "task", &r->task);
	jw_str(w, "started_at", r->started_at);
	jw_str(w, "started_at_offset", r->started_at_offset);
	jw_str(w, "ended_at", r->ended_at);
	jw_str(w, "ended_at_offset", r->ended_at_offset);
	frames_json(w, "stack", s0, false);
	frames_json(w, "stack_offsets", s0, true);
	jw_arr(w, "stacks");
	for (i = 0; i < r->nr_stacks; i++)
		frames_json(w, NULL, &r->stacks[i], false);
	jw_end(w);
	if (r->entries)
		jw_uint(w, "entries", r->entries);
	else
		jw_null(w, "entries");
	jw_uint(w, "entries_present", r->entries_present);
	jw_str(w, "body", lh_body_name(lh_record_body(r)));

	jw_arr(w, "functions");
	for (i = 0; i < r->nr_funcs; i++)
		jw_strn(w, NULL, r->funcs[i].name, r->funcs[i].len);
	jw_end(w);
	jw_arr(w, "function_counts");
	for (i = 0; i < r->nr_funcs; i++)
		jw_name_count(w, &r->funcs[i]);
	jw_end(w);

	jw_arr(w, "irqs");
	for (i = 0; i < r->nr_irqs; i++) {
		const struct lh_irq *q = &r->irqs[i];

		jw_obj(w, NULL);
		jw_known(w, "irq", q->irq);
		jw_str(w, "name", q->name);
		if (q->duration_us < 0)
			jw_null(w, "duration_us");
		else
			jw_double(w, "duration_us", q->duration_us);
		jw_str(w, "ret", q->ret);
		jw_end(w);
	}
	jw_end(w);
	spike_json(w, &r->spike);
	wake_json(w, "woken", &r->woken, r->has_wakeup);
	wake_json(w, "waker", &r->waker, r->has_wakeup);

	rule_ids_json(w, "rules", rep, k->hits, k->nr_hits);
	rule_ids_json(w, "unevaluated_rules", rep, k->unevaluated, k->nr_unevaluated);
	jw_str(w, "severity", k->has_worst ? lh_severity_name(k->worst) : NULL);
	jw_bool(w, "accepted", k->accepted);
	jw_str(w, "signature", k->signature);
	jw_source(w, "source", r->source, r->line);
	jw_str(w, "captured_at", lh_report_iso8601(r->captured_ns, buf, sizeof(buf)));
	jw_end(w);
}

/*
 * The kept records are most of a report's bytes (15 of the 18 MB of a Zipf corpus's). Given
 * two threads (opts.jobs), a second one renders records into texts of its own while this one
 * puts each text in at its place and makes the write calls, which cost as much here as the
 * rendering. Records are claimed in order by whichever thread is free: the second one while
 * it has a free text (it always takes the first), this one when the next record to write is
 * not claimed yet (it then writes it itself). A text is what the one writer gives there:
 * the same depth, after a member unless it is the first (so ",\n" first). The texts are
 * reused, so that their pages are faulted in once.
 */
#define TWIN_TEXTS	2

struct twin {
	const struct lh_report		*rep;
	struct lh_report_kept *const	*kept;
	size_t				n;
	int				depth;
	size_t				next;	/* the first record nobody claimed */
	struct jw			*text[TWIN_TEXTS];
	size_t				rec[TWIN_TEXTS];	/* the record a text holds */
	bool				busy[TWIN_TEXTS];	/* claimed, not put in yet */
	bool				ready[TWIN_TEXTS];	/* its record is rendered */
	pthread_mutex_t			lock;
	pthread_cond_t			cond;
};

/* Return: a text of t not busy, or -1. */
static int twin_free_text(const struct twin *t)
{
	int k;

	for (k = 0; k < TWIN_TEXTS; k++)
		if (!t->busy[k])
			return k;
	return -1;
}

static void *twin_render(void *arg)
{
	struct twin *t = arg;
	struct jw *w;
	size_t i;
	int k;

	for (;;) {
		pthread_mutex_lock(&t->lock);
		while ((k = twin_free_text(t)) < 0 && t->next < t->n)
			pthread_cond_wait(&t->cond, &t->lock);
		if (t->next >= t->n) {
			pthread_mutex_unlock(&t->lock);
			return NULL;
		}
		i = t->next++;
		t->rec[k] = i;
		t->busy[k] = true;
		t->ready[k] = false;
		pthread_cond_broadcast(&t->cond);	/* twin_records() waits for the first */
		pthread_mutex_unlock(&t->lock);

		w = t->text[k];
		w->mem_len = 0;
		w->depth = t->depth;
		w->had[w->depth] = i > 0;
		record_json(w, t->rep, t->kept[i]);
		jw_flush(w);

		pthread_mutex_lock(&t->lock);
		t->ready[k] = true;
		pthread_cond_broadcast(&t->cond);
		pthread_mutex_unlock(&t->lock);
	}
}

/* Puts record i in: rendered here if nobody claimed it, else the second thread's text. */
static void twin_put(struct jw *w, struct twin *t, size_t i)
{
	struct jw *text;
	int k;

	pthread_mutex_lock(&t->lock);
	if (t->next == i) {
		t->next++;
		pthread_mutex_unlock(&t->lock);
		record_json(w, t->rep, t->kept[i]);
		return;
	}
	for (;;) {
		for (k = 0; k < TWIN_TEXTS; k++)
			if (t->busy[k] && t->rec[k] == i && t->ready[k])
				break;
		if (k < TWIN_TEXTS)
			break;
		pthread_cond_wait(&t->cond, &t->lock);
	}
	pthread_mutex_unlock(&t->lock);
	text = t->text[k];
	jw_put(w, text->mem, text->mem_len);
	if (text->err)
		jw_fail(w, text->err);
	w->had[w->depth] = true;
	pthread_mutex_lock(&t->lock);
	t->busy[k] = false;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

/* Return: whether the records were written by two threads (not: write them with one). */
static bool twin_records(struct jw *w, const struct lh_report *rep,
			 struct lh_report_kept *const *kept, size_t n)
{
	struct twin t = { .rep = rep, .kept = kept, .n = n, .depth = w->depth };
	pthread_t thread;
	bool ok = true;
	size_t i;
	int k;

	if (rep->opts.jobs < 2 || n < 2)
		return false;
	for (k = 0; k < TWIN_TEXTS; k++)
		ok &= (t.text[k] = jw_alloc(NULL)) != NULL;
	pthread_mutex_init(&t.lock, NULL);
	pthread_cond_init(&t.cond, NULL);
	ok = ok && !pthread_create(&thread, NULL, twin_render, &t);
	if (ok) {
		/* the second thread takes the first record: it always has a part (tests see it) */
		pthread_mutex_lock(&t.lock);
		while (!t.next)
			pthread_cond_wait(&t.cond, &t.lock);
		pthread_mutex_unlock(&t.lock);
		for (i = 0; i < n; i++)
			twin_put(w, &t, i);
		pthread_join(thread, NULL);
	}
	for (k = 0; k < TWIN_TEXTS; k++)
		jw_free(t.text[k]);
	pthread_cond_destroy(&t.cond);
	pthread_mutex_destroy(&t.lock);
	return ok;
}

/* The per-CPU view of a tracer: known CPUs in order, then the unknown one. */
static void cpus_json(struct jw *w, const struct lh_report_tracer *tr)
{
	size_t i;

	jw_arr(w, "cpus");
	for (i = 0; i < tr->nr_cpus; i++) {
		size_t slot = (i + 1) % tr->nr_cpus;
		const struct lh_report_cpu *c = &tr->cpus[slot];

		if (!c->count)
			continue;
		jw_obj(w, NULL);
		jw_known(w, "cpu", lh_report_slot_cpu(slot));
		jw_uint(w, "count", c->count);
		jw_uint(w, "max_us", c->worst ? c->worst->latency_us : 0);
		where_json(w, "worst", c->worst);
		hist_json(w, "histogram", &c->dist);
		jw_end(w);
	}
	jw_end(w);
}

/* A CPU's noise sources, the kernel's counts: the noisiest, then the rest summed. */
static void sources_json(struct jw *w, const struct lh_report_noise *n)
{
	size_t i;

	jw_arr(w, "sources");
	for (i = 0; i < n->nr_sources; i++) {
		const struct lh_report_source *s = &n->sources[i];

		jw_obj(w, NULL);
		jw_str(w, "kind", lh_spike_kind_name(s->kind));
		jw_str(w, "name", s->name);
		jw_uint(w, "count", s->count);
		jw_us(w, "noise_us", s->noise_ns);
		jw_end(w);
	}
	jw_end(w);
	jw_obj(w, "sources_other");
	jw_uint(w, "sources", n->other_sources);
	jw_uint(w, "count", n->other_count);
	jw_us(w, "noise_us", n->other_ns);
	jw_end(w);
}

/*
 * osnoise per CPU: its periods, their runtime and noise, the % CPU available, the longest
 * single noise, hardware noise and, when the kernel counted them, the sources.
 */
static void noise_json(struct jw *w, const struct lh_report *rep)
{
	uint32_t milli;
	size_t i;

	for (i = 0; i < rep->nr_noise && !rep->noise[i].has_sources; i++)
		;
	if (i < rep->nr_noise)
		jw_uint(w, "sources_dropped", rep->noise_dropped);
	jw_arr(w, "noise_cpus");
	for (i = 0; i < rep->nr_noise; i++) {
		const struct lh_report_noise *n = &rep->noise[i];

		jw_obj(w, NULL);
		jw_int(w, "cpu", n->cpu);
		jw_uint(w, "periods", n->periods);
		jw_us(w, "runtime_us", n->runtime_ns);
		jw_us(w, "noise_us", n->noise_ns);
		if (lh_gate_available(n->runtime_ns, n->noise_ns, &milli))
			jw_null(w, "available_percent");
		else
			jw_double(w, "available_percent", (double)milli / 1000.0);
		jw_us(w, "max_single_us", n->max_single_ns);
		jw_uint(w, "hw_count", n->hw_count);
		if (n->has_sources)
			sources_json(w, n);
		jw_end(w);
	}
	jw_end(w);
}

static void tracer_json(struct jw *w, const struct lh_report *rep, enum lh_tracer t)
{
	const struct lh_report_tracer *tr = &rep->tracers[t];
	size_t i;

	jw_obj(w, lh_tracer_name(t));
	jw_uint(w, "max_us", tr->worst.set ? tr->worst.latency_us : 0);
	jw_uint(w, "count", tr->count);
	if (rep->has_run) {
		jw_double(w, "armed_s", (double)rep->run.armed_ns[t] / 1e9);
		jw_double(w, "blind_s", (double)rep->run.blind_ns[t] / 1e9);
	}
	jw_uint(w, "accepted", tr->accepted);
	where_json(w, "worst", &tr->worst);
	where_json(w, "worst_gated", &tr->gate);
	hist_json(w, "histogram", &tr->hist);
	cpus_json(w, tr);
	if (t == LH_TRACER_OSNOISE)
		noise_json(w, rep);
	jw_uint(w, "progression_dropped", tr->steps_dropped);
	jw_arr(w, "progression");
	for (i = 0; i < tr->nr_steps; i++) {
		const struct lh_report_step *s = &tr->steps[i];

		jw_obj(w, NULL);
		jw_known(w, "cpu", s->cpu);
		jw_uint(w, "latency_us", s->latency_us);
		jw_time(w, "at", s->at_ns);
		jw_source(w, "source", s->source, s->line);
		jw_end(w);
	}
	jw_end(w);
	jw_end(w);
}

static void gate_json(struct jw *w, const struct lh_report *rep)
{
	int t;

	jw_obj(w, "gate");
	jw_obj(w, "max_us");
	for (t = 1; t < LH_TRACER_NR; t++)
		if (rep->gate.has_max[t])
			jw_us(w, lh_tracer_name(t), rep->gate.max_ns[t]);
	if (rep->gate.has_max[LH_TRACER_UNKNOWN])
		jw_us(w, "all", rep->gate.max_ns[LH_TRACER_UNKNOWN]);
	jw_end(w);
	jw_obj(w, "min_available_percent");
	if (rep->gate.has_min_available)
		jw_double(w, "osnoise", (double)rep->gate.min_available_milli / 1000.0);
	jw_end(w);
	jw_str(w, "fail_on", lh_gate_fail_on_name(&rep->gate));
	jw_end(w);
}

static void rules_json(struct jw *w, const struct lh_report *rep)
{
	/* for rules loaded after the report was allocated that never fired */
	static const struct lh_report_rule none;
	size_t i, n = rep->rules ? lh_rules_count(rep->rules) : 0;

	jw_arr(w, "rules");
	for (i = 0; i < n; i++) {
		const struct lh_rule *rule = lh_rules_get(rep->rules, i);
		const struct lh_report_rule *ra = i < rep->nr_rules ? &rep->rule_agg[i] : &none;

		jw_obj(w, NULL);
		jw_str(w, "id", rule->id);
		jw_str(w, "severity", lh_severity_name(rule->severity));
		jw_uint(w, "hits", ra->hits);
		jw_uint(w, "worst_us", ra->worst_us);
		jw_uint(w, "accepted", ra->accepted);
		jw_uint(w, "unevaluated", ra->unevaluated);
		jw_str(w, "unevaluated_reason", rule->limit_hit);
		jw_str(w, "message", rule->message);
		jw_uint(w, "gate_worst_us", ra->gate_worst_us);
		jw_uint(w, "gate_unevaluated", ra->gate_unevaluated);
		jw_end(w);
	}
	jw_end(w);
}

static void offenders_json(struct jw *w, const struct lh_report *rep)
{
	size_t *order = lh_report_offenders_sorted(rep), i, j;

	jw_arr(w, "offenders");
	for (i = 0; i < rep->nr_offenders; i++) {
		const struct lh_report_offender *o = &rep->offenders[order[i]];

		jw_obj(w, NULL);
		jw_str(w, "signature", o->signature);
		jw_str(w, "tracer", lh_tracer_name(o->sig.tracer));
		jw_str(w, "started_at", o->sig.started);
		jw_str(w, "ended_at", o->sig.ended);
		jw_arr(w, "frames");
		for (j = 0; j < o->sig.nr_frames; j++)
			jw_str(w, NULL, o->sig.frames[j]);
		jw_end(w);
		jw_uint(w, "count", o->count);
		jw_uint(w, "worst_us", o->worst_us);
		jw_uint(w, "accepted", o->accepted);
		jw_bool(w, "wakeup", o->sig.has_wakeup);
		jw_str(w, "woken", o->sig.woken);
		jw_known(w, "cpu", o->cpu);
		jw_obj(w, "task");
		jw_str_or_null(w, "comm", o->comm);
		jw_known(w, "pid", o->pid);
		jw_end(w);
		jw_end(w);
	}
	jw_end(w);
	free(order);
}

static void input_json(struct jw *w, const struct lh_report *rep)
{
	size_t i;

	jw_obj(w, "input");
	jw_uint(w, "snapshots", rep->parse.snapshots);
	jw_uint(w, "skipped", rep->parse.skipped);
	jw_uint(w, "bad_lines", rep->parse.bad_lines);
	jw_uint(w, "incomplete", rep->parse.incomplete);
	jw_uint(w, "cut_lines", rep->parse.cut_lines);
	jw_arr(w, "warnings");
	for (i = 0; i < rep->nr_warnings; i++)
		jw_str(w, NULL, rep->warnings[i]);
	jw_end(w);
	jw_uint(w, "warnings_total", rep->warnings_total);
	jw_arr(w, "files");
	for (i = 0; i < rep->nr_inputs; i++) {
		const struct lh_report_input *in = &rep->inputs[i];

		jw_obj(w, NULL);
		jw_str(w, "name", in->name);
		jw_uint(w, "snapshots", in->snapshots);
		jw_uint(w, "skipped", in->skipped);
		jw_str(w, "problem", in->problem);
		if (in->problem)
			jw_bool(w, "accepted", in->accepted);
		else
			jw_null(w, "accepted");
		jw_end(w);
	}
	jw_end(w);
	jw_uint(w, "unread", rep->inputs_unread);
	jw_uint(w, "unread_accepted", rep->inputs_accepted);
	jw_end(w);
}

static void run_json(struct jw *w, const struct lh_report *rep)
{
	const struct lh_run_info *run = &rep->run;
	int t;

	if (!rep->has_run) {
		jw_null(w, "run");
		return;
	}
	jw_obj(w, "run");
	jw_time(w, "started_at", run->started_ns);
	jw_time(w, "ended_at", run->ended_ns);
	jw_double(w, "duration_s", (double)lh_report_run_duration_ns(rep) / 1e9);
	jw_us(w, "threshold_us", run->threshold_ns);
	jw_uint(w, "captures", run->captures);
	jw_uint(w, "sections_lost", run->sections_lost);
	jw_uint(w, "sections_torn", run->sections_torn);
	jw_uint(w, "snapshots_dropped", run->snapshots_dropped);
	jw_str(w, "wait_method", run->wait_method);
	jw_str(w, "command", run->command);
	if (run->command && run->command_status >= 0)
		jw_int(w, "command_status", run->command_status);
	else
		jw_null(w, "command_status");
	jw_str(w, "end_reason", run->end_reason);
	jw_obj(w, "not_measured");
	for (t = 1; t < LH_TRACER_NR; t++)
		if (run->not_measured[t])
			jw_str(w, lh_tracer_name(t), run->not_measured[t]);
	jw_end(w);
	jw_str(w, "kernel", run->kernel);
	jw_str(w, "host", run->host);
	jw_str(w, "run_id", run->run_id);
	jw_end(w);
}

static void irq_stats_json(struct jw *w, const struct lh_report *rep)
{
	const struct lh_irqstat *st = rep->has_run ? rep->run.irqstat : NULL;
	size_t i, n;
	int k;

	if (!st) {
		jw_null(w, "irq_stats");
		return;
	}
	jw_obj(w, "irq_stats");
	jw_uint(w, "events", lh_irqstat_events(st));
	jw_uint(w, "lost", lh_irqstat_lost(st));
	jw_uint(w, "dropped", lh_irqstat_dropped(st));
	n = lh_irqstat_count(st);
	jw_arr(w, "handlers");
	for (i = 0; i < n; i++) {
		const struct lh_irqstat_entry *s = lh_irqstat_get(st, i);

		jw_obj(w, NULL);
		jw_int(w, "irq", s->irq);
		jw_str(w, "name", s->name);
		jw_int(w, "cpu", s->cpu);
		jw_uint(w, "count", s->count);
		jw_us(w, "max_us", s->max_ns);
		jw_double(w, "mean_us",
			  s->count ? (double)s->sum_ns / (double)s->count / 1e3 : 0);
		jw_us(w, "p99_us", lh_irqstat_p99(s));
		jw_arr(w, "histogram");
		for (k = 0; k < LH_IRQSTAT_BUCKETS; k++) {
			if (!s->hist[k])
				continue;
			jw_obj(w, NULL);
			jw_double(w, "le_us", (double)(2ULL << k) / 1e3);
			jw_uint(w, "count", s->hist[k]);
			jw_end(w);
		}
		jw_end(w);
		hist_json(w, "distribution", &s->dist);
		jw_end(w);
	}
	jw_end(w);
	jw_end(w);
}

/* The callers with the longest sections of a kernel histogram. */
static void callers_json(struct jw *w, const struct lh_report_histogram *k)
{
	size_t i;

	jw_arr(w, "callers");
	for (i = 0; i < k->nr_callers; i++) {
		jw_obj(w, NULL);
		jw_str(w, "symbol", k->callers[i].symbol);
		jw_uint(w, "count", k->callers[i].count);
		jw_us(w, "max_us", k->callers[i].max_ns);
		jw_end(w);
	}
	jw_end(w);
	jw_str(w, "callers_note", k->callers_note);
}

/* The histograms the kernel counted, as set. */
static void hists_json(struct jw *w, const struct lh_report *rep)
{
	size_t i;

	jw_arr(w, "histograms");
	for (i = 0; i < rep->nr_hists; i++) {
		const struct lh_report_histogram *k = &rep->hists[i];

		jw_obj(w, NULL);
		hist_members(w, &k->h);
		jw_str(w, "source", k->source);
		jw_str(w, "kind", k->kind);
		jw_known(w, "cpu", k->cpu);
		if (k->has_callers)
			callers_json(w, k);
		jw_end(w);
	}
	jw_end(w);
}

/* hwlat's samples per CPU beside the software tracers' worst there (lh_report_floors()). */
static void floor_json(struct jw *w, const struct lh_report *rep)
{
	size_t n, i, k;
	struct lh_report_floor *f = lh_report_floors(rep, &n);

	jw_arr(w, "hardware_floor");
	for (i = 0; i < n; i++) {
		jw_obj(w, NULL);
		jw_int(w, "cpu", f[i].cpu);
		jw_uint(w, "samples", f[i].hwlat->count);
		jw_us(w, "worst_us", f[i].hwlat->max_ns);
		if (f[i].has_p99)
			jw_us(w, "p99_us", f[i].p99_ns);
		else
			jw_null(w, "p99_us");
		jw_arr(w, "software");
		for (k = 0; k < f[i].nr_sw; k++) {
			jw_obj(w, NULL);
			jw_str(w, "tracer", lh_tracer_name(f[i].sw[k].tracer));
			jw_uint(w, "worst_us", f[i].sw[k].worst_us);
			jw_bool(w, "within_floor",
				lh_report_floor_within(&f[i], f[i].sw[k].worst_us));
			jw_end(w);
		}
		jw_end(w);
		jw_end(w);
	}
	jw_end(w);
	free(f);
}

static void report_json(struct jw *w, const struct lh_report *rep)
{
	struct lh_report_kept **kept;
	size_t i;
	int t;

	jw_obj(w, NULL);
	jw_str(w, "lathound", LH_VERSION);
	jw_int(w, "report_version", LH_REPORT_VERSION);
	jw_str(w, "mode", rep->has_run && rep->run.mode ? rep->run.mode : "analyze");
	jw_str(w, "board", rep->opts.board);
	jw_str(w, "verdict", lh_report_verdict(rep));
	jw_str(w, "error", rep->verdict.error);
	jw_arr(w, "violations");
	for (i = 0; i < rep->verdict.nr_violations; i++)
		jw_str(w, NULL, rep->verdict.violations[i]);
	jw_end(w);
	gate_json(w, rep);

	jw_obj(w, "tracers");
	for (t = 1; t <= LH_TRACER_NR; t++) {
		enum lh_tracer tt = t == LH_TRACER_NR ? LH_TRACER_UNKNOWN : t;

		if (rep->tracers[tt].count || (rep->has_run && rep->run.armed_ns[tt]) ||
		    (tt == LH_TRACER_OSNOISE && rep->nr_noise))
			tracer_json(w, rep, tt);
	}
	jw_end(w);
	rules_json(w, rep);
	offenders_json(w, rep);
	jw_obj(w, "offenders_other");
	jw_uint(w, "count", rep->other_count);
	jw_uint(w, "worst_us", rep->other_worst_us);
	jw_uint(w, "accepted", rep->other_accepted);
	jw_end(w);

	kept = lh_report_kept_sorted(rep);
	jw_arr(w, "records");
	if (!twin_records(w, rep, kept, rep->nr_heap))
		for (i = 0; i < rep->nr_heap; i++)
			record_json(w, rep, kept[i]);
	jw_end(w);
	free(kept);
	jw_uint(w, "records_total", rep->total);
	jw_uint(w, "records_kept", rep->nr_heap);
	jw_uint(w, "records_dropped", rep->total - rep->nr_heap);
	input_json(w, rep);
	run_json(w, rep);
	irq_stats_json(w, rep);
	hists_json(w, rep);
	floor_json(w, rep);
	jw_arr(w, "merged_from");
	for (i = 0; i < rep->nr_merged_from; i++)
		jw_str(w, NULL, rep->merged_from[i]);
	jw_end(w);
	jw_end(w);
	jw_put(w, "\n", 1);
}

int lh_report_write_json(struct lh_report *rep, FILE *out)
{
	struct jw *w = jw_alloc(out);
	int err;

	if (!w)
		return -1;
	errno = 0;
	report_json(w, rep);
	jw_flush(w);
	err = w->err;
	if (!err && ferror(out))
		err = EIO;
	jw_free(w);
	errno = err;
	return err ? -1 : 0;
}
