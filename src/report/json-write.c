// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one JSON writer (json-write.h), streamed through a buffer of its own. json-c escapes
 * the strings that need it (one string object, reused) and is the oracle of the layout:
 * the output is byte for byte what json_object_to_json_string_ext() prints of the same
 * document with JSON_FLAGS. Unknown numbers and absent strings are written as null.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "json-write.h"
#include "report-priv.h"

#define JSON_FLAGS \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

#define JW_MAX_INDENT	(2 * LH_JSON_MAX_DEPTH)
#define JW_PLAIN_MAX	4096	/* longer strings go through json-c whatever they hold */
#define JW_MAX_KEY	256	/* keys are names such as "function_counts" */

struct lh_json *lh_json_alloc(FILE *out)
{
	struct lh_json *w = malloc(sizeof(*w));

	if (w)
		*w = (struct lh_json){ .out = out, .str = json_object_new_string("") };
	if (!w || !w->str) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	return w;
}

void lh_json_free(struct lh_json *w)
{
	if (!w)
		return;
	json_object_put(w->str);
	free(w->mem);
	free(w);
}

void lh_json_fail(struct lh_json *w, int err)
{
	if (!w->err)
		w->err = err;
}

/* Writes s[0..n) past the buffer: to the file, or to the text in memory. */
static void jw_sink(struct lh_json *w, const char *s, size_t n)
{
	if (!n || w->err)
		return;
	if (!w->out) {
		LH_GROW(w->mem, w->mem_len + n, w->mem_alloc);
		memcpy(w->mem + w->mem_len, s, n);
		w->mem_len += n;
	} else {
		errno = 0;	/* not an earlier call's */
		if (fwrite(s, 1, n, w->out) != n)
			lh_json_fail(w, errno ? errno : EIO);
	}
}

void lh_json_flush(struct lh_json *w)
{
	jw_sink(w, w->buf, w->len);
	w->len = 0;
}

/* Return: where the next n (at most sizeof(w->buf)) bytes go; the caller advances w->len. */
static char *jw_room(struct lh_json *w, size_t n)
{
	if (n > sizeof(w->buf) - w->len)
		lh_json_flush(w);
	return w->buf + w->len;
}

void lh_json_put(struct lh_json *w, const char *s, size_t n)
{
	if (n > sizeof(w->buf)) {
		lh_json_flush(w);
		jw_sink(w, s, n);
		return;
	}
	memcpy(jw_room(w, n), s, n);
	w->len += n;
}

/* Write the indent of the current depth at p. Return: where it ends. */
static char *jw_indent(struct lh_json *w, char *p)
{
	static const char spaces[JW_MAX_INDENT] = { [0 ... JW_MAX_INDENT - 1] = ' ' };

	memcpy(p, spaces, JW_MAX_INDENT);	/* a fixed size: two stores, no call */
	return p + 2 * w->depth;
}

/* Start the next member (key) or element (key NULL) of the open container. */
static void jw_next(struct lh_json *w, const char *key)
{
	size_t k = key ? strlen(key) : 0;
	char *p;

	if (!w->depth)
		return;
	if (k > JW_MAX_KEY) {
		lh_json_fail(w, ENAMETOOLONG);
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
static void jw_open(struct lh_json *w, const char *key, char open)
{
	jw_next(w, key);
	if (w->depth + 1 >= LH_JSON_MAX_DEPTH) {
		lh_json_fail(w, EOVERFLOW);
		return;
	}
	lh_json_put(w, open == '{' ? "{\n" : "[\n", 2);
	w->depth++;
	w->had[w->depth] = false;
	w->close[w->depth] = open == '{' ? '}' : ']';
}

void lh_json_obj(struct lh_json *w, const char *key)
{
	jw_open(w, key, '{');
}

void lh_json_arr(struct lh_json *w, const char *key)
{
	jw_open(w, key, '[');
}

void lh_json_end(struct lh_json *w)
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

void lh_json_null(struct lh_json *w, const char *key)
{
	jw_next(w, key);
	lh_json_put(w, "null", 4);
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
static bool jw_plain(struct lh_json *w, const char *s, size_t n)
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

void lh_json_strn(struct lh_json *w, const char *key, const char *s, size_t len)
{
	const char *text;
	size_t n;

	if (!s) {
		lh_json_null(w, key);
		return;
	}
	jw_next(w, key);
	if (jw_plain(w, s, len))
		return;
	if (len > INT_MAX || json_object_set_string_len(w->str, s, (int)len) != 1) {
		lh_json_fail(w, ENOMEM);
		return;
	}
	text = json_object_to_json_string_length(w->str, JSON_FLAGS, &n);
	if (!text) {
		lh_json_fail(w, ENOMEM);
		return;
	}
	lh_json_put(w, text, n);
}

void lh_json_str(struct lh_json *w, const char *key, const char *s)
{
	lh_json_strn(w, key, s, s ? strlen(s) : 0);
}

void lh_json_bool(struct lh_json *w, const char *key, bool b)
{
	jw_next(w, key);
	if (b)
		lh_json_put(w, "true", 4);
	else
		lh_json_put(w, "false", 5);
}

/* u, negative when negative. */
static void jw_integer(struct lh_json *w, const char *key, uint64_t u, bool negative)
{
	char buf[24], *p = buf + sizeof(buf);

	jw_next(w, key);
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (negative)
		*--p = '-';
	lh_json_put(w, p, (size_t)(buf + sizeof(buf) - p));
}

void lh_json_int(struct lh_json *w, const char *key, int64_t v)
{
	jw_integer(w, key, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

void lh_json_uint(struct lh_json *w, const char *key, uint64_t v)
{
	jw_integer(w, key, v > INT64_MAX && !w->exact_u64 ? INT64_MAX : v, false);
}

void lh_json_known(struct lh_json *w, const char *key, int v)
{
	if (v < 0)
		lh_json_null(w, key);
	else
		lh_json_int(w, key, v);
}

void lh_json_double(struct lh_json *w, const char *key, double v)
{
	char buf[64];
	size_t n;

	if (!isfinite(v)) {
		lh_json_null(w, key);
		return;
	}
	snprintf(buf, sizeof(buf), "%.3f", v);
	n = strlen(buf);
	while (n > 2 && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	jw_next(w, key);
	lh_json_put(w, buf, n);
}

void lh_json_real(struct lh_json *w, const char *key, double v)
{
	char buf[64];
	size_t n;

	if (!isfinite(v)) {
		lh_json_null(w, key);
		return;
	}
	n = (size_t)snprintf(buf, sizeof(buf) - 2, "%.17g", v);
	if (!strpbrk(buf, ".e")) {
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	jw_next(w, key);
	lh_json_put(w, buf, n);
}

void lh_json_us_sign(struct lh_json *w, const char *key, uint64_t ns, bool negative)
{
	char buf[32];

	buf[0] = '-';
	lh_report_json_us(ns, buf + negative, sizeof(buf) - 1);
	jw_next(w, key);
	lh_json_put(w, buf, strlen(buf));
}

void lh_json_us(struct lh_json *w, const char *key, uint64_t ns)
{
	lh_json_us_sign(w, key, ns, false);
}

void lh_json_sus(struct lh_json *w, const char *key, int64_t ns)
{
	lh_json_us_sign(w, key, ns < 0 ? -(uint64_t)ns : (uint64_t)ns, ns < 0);
}

void lh_json_us_if(struct lh_json *w, const char *key, bool has, uint64_t ns)
{
	if (has)
		lh_json_us(w, key, ns);
	else
		lh_json_null(w, key);
}

void lh_json_time(struct lh_json *w, const char *key, uint64_t ns)
{
	char buf[32];

	lh_json_str(w, key, lh_report_iso8601(ns, buf, sizeof(buf)));
}

void lh_json_source(struct lh_json *w, const char *key, const char *source, unsigned long line)
{
	char buf[4096];

	if (source && line) {
		snprintf(buf, sizeof(buf), "%s:%lu", source, line);
		source = buf;
	}
	lh_json_str(w, key, source);
}

void lh_json_str_or_null(struct lh_json *w, const char *key, const char *s)
{
	lh_json_str(w, key, s && *s ? s : NULL);
}

void lh_json_hist_members(struct lh_json *w, const struct lh_histogram *h)
{
	uint64_t lo, hi;
	unsigned int i;
	size_t k;

	lh_json_str(w, "unit", "us");
	lh_json_uint(w, "count", h->count);
	if (h->count) {
		lh_json_us(w, "min", h->min_ns);
		lh_json_us(w, "max", h->max_ns);
		lh_json_double(w, "mean", lh_histogram_mean_ns(h) / 1e3);
	} else {
		lh_json_null(w, "min");
		lh_json_null(w, "max");
		lh_json_null(w, "mean");
	}
	lh_json_obj(w, "percentiles");
	for (i = 0; i < LH_HISTOGRAM_NR_PCT; i++)
		if (lh_histogram_percentile(h, i, &lo, &hi))
			lh_json_us(w, lh_histogram_pct_key[i], hi);
		else
			lh_json_null(w, lh_histogram_pct_key[i]);
	lh_json_end(w);
	lh_json_obj(w, "resolution");
	for (i = 0; i < LH_HISTOGRAM_NR_PCT; i++)
		if (lh_histogram_percentile(h, i, &lo, &hi))
			lh_json_us(w, lh_histogram_pct_key[i], hi - lo);
		else
			lh_json_null(w, lh_histogram_pct_key[i]);
	lh_json_end(w);
	lh_json_arr(w, "buckets");
	for (k = 0; k < h->nr; k++) {
		lh_json_obj(w, NULL);
		lh_json_us(w, "lo", h->b[k].lo_ns);
		lh_json_us(w, "hi", h->b[k].hi_ns);
		lh_json_uint(w, "count", h->b[k].count);
		lh_json_end(w);
	}
	lh_json_end(w);
	lh_json_uint(w, "dropped", h->dropped);
}

void lh_json_khist_members(struct lh_json *w, const struct lh_report_histogram *k)
{
	lh_json_hist_members(w, &k->h);
	lh_json_str(w, "source", k->source);
	lh_json_str(w, "kind", k->kind);
	lh_json_known(w, "cpu", k->cpu);
}

void lh_json_hist(struct lh_json *w, const char *key, const struct lh_histogram *h)
{
	lh_json_obj(w, key);
	lh_json_hist_members(w, h);
	lh_json_end(w);
}

/*
 * What lh_json_obj(), lh_json_strn(), lh_json_int() and lh_json_end() write, in one piece
 * when the name is plain (a report's function_counts elements are most of a kept record's
 * bytes, and most of the writer's time).
 */
void lh_json_name_count(struct lh_json *w, const char *name, size_t n, unsigned int count)
{
	static const char key1[] = "\"name\": \"", key2[] = "\",\n", key3[] = "\"count\": ";
	char num[16], *q = num + sizeof(num), *p;

	if (w->depth + 2 >= LH_JSON_MAX_DEPTH || !name || !jw_is_plain(name, n)) {
		lh_json_obj(w, NULL);
		lh_json_strn(w, "name", name, n);
		lh_json_int(w, "count", count);
		lh_json_end(w);
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
	memcpy(p, name, n);
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

void lh_json_noise_members(struct lh_json *w, const struct lh_report_noise *n)
{
	uint32_t milli;

	lh_json_uint(w, "periods", n->periods);
	lh_json_us(w, "runtime_us", n->runtime_ns);
	lh_json_us(w, "noise_us", n->noise_ns);
	if (lh_gate_available(n->runtime_ns, n->noise_ns, &milli))
		lh_json_null(w, "available_percent");
	else
		lh_json_double(w, "available_percent", (double)milli / 1000.0);
}

/* A CPU's noise sources, the kernel's counts: the noisiest, then the rest summed. */
static void sources_json(struct lh_json *w, const struct lh_report_noise *n)
{
	size_t i;

	lh_json_arr(w, "sources");
	for (i = 0; i < n->nr_sources; i++) {
		const struct lh_report_source *s = &n->sources[i];

		lh_json_obj(w, NULL);
		lh_json_str(w, "kind", lh_spike_kind_name(s->kind));
		lh_json_str(w, "name", s->name);
		lh_json_uint(w, "count", s->count);
		lh_json_us(w, "noise_us", s->noise_ns);
		lh_json_end(w);
	}
	lh_json_end(w);
	lh_json_obj(w, "sources_other");
	lh_json_uint(w, "sources", n->other_sources);
	lh_json_uint(w, "count", n->other_count);
	lh_json_us(w, "noise_us", n->other_ns);
	lh_json_end(w);
}

/* One CPU of noise_cpus. */
static void noise_cpu_json(struct lh_json *w, const struct lh_report_noise *n)
{
	lh_json_obj(w, NULL);
	lh_json_int(w, "cpu", n->cpu);
	lh_json_noise_members(w, n);
	lh_json_us(w, "max_single_us", n->max_single_ns);
	lh_json_uint(w, "hw_count", n->hw_count);
	if (n->has_sources)
		sources_json(w, n);
	lh_json_end(w);
}

void lh_json_noise_cpus(struct lh_json *w, const struct lh_report *rep)
{
	size_t i, n = rep ? rep->nr_noise : 0;

	for (i = 0; i < n && !rep->noise[i].has_sources; i++)
		;
	if (i < n)
		lh_json_uint(w, "sources_dropped", rep->noise_dropped);
	lh_json_arr(w, "noise_cpus");
	for (i = 0; i < n; i++)
		noise_cpu_json(w, &rep->noise[i]);
	lh_json_end(w);
}

void lh_json_verdict(struct lh_json *w, const char *name, const struct lh_verdict *v)
{
	size_t i;

	lh_json_str(w, "verdict", name);
	lh_json_str(w, "error", v->error);
	lh_json_arr(w, "violations");
	for (i = 0; i < v->nr_violations; i++)
		lh_json_str(w, NULL, v->violations[i]);
	lh_json_end(w);
}

void lh_json_gate(struct lh_json *w, const struct lh_gate *g)
{
	int t;

	lh_json_obj(w, "gate");
	lh_json_obj(w, "max_us");
	for (t = 1; t < LH_TRACER_NR; t++)
		if (g->has_max[t])
			lh_json_us(w, lh_tracer_name(t), g->max_ns[t]);
	if (g->has_max[LH_TRACER_UNKNOWN])
		lh_json_us(w, "all", g->max_ns[LH_TRACER_UNKNOWN]);
	lh_json_end(w);
	lh_json_obj(w, "min_available_percent");
	if (g->has_min_available)
		lh_json_double(w, "osnoise", (double)g->min_available_milli / 1000.0);
	lh_json_end(w);
	lh_json_str(w, "fail_on", lh_gate_fail_on_name(g));
	lh_json_end(w);
}

int lh_json_close(struct lh_json *w)
{
	int err;

	if (!w)
		return -1;
	lh_json_put(w, "\n", 1);
	lh_json_flush(w);
	err = w->err;
	if (!err && w->out && ferror(w->out))
		err = EIO;
	if (!err && w->depth)
		err = EINVAL;	/* an object or array left open: no JSON document */
	lh_json_free(w);
	errno = err;
	return err ? -1 : 0;
}
