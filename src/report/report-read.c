// SPDX-License-Identifier: GPL-2.0-only
/*
 * A saved report's fields read (report-read.h): each one present, of its type and in range,
 * its strings made inert, every problem an error that names the report and the field's path.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report-read.h"
#include "trace/record.h"

void lh_report_read_bad(struct lh_report_read *c, const char *key, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->failed = true;
	lh_diag_add(c->diag, LH_DIAG_ERROR, "report '%s': %s%s%s%s%s", c->name, c->path,
		    c->len && key ? "." : "", key ? key : "", c->len || key ? ": " : "", msg);
}

size_t lh_report_read_push(struct lh_report_read *c, const char *seg, size_t i)
{
	size_t old = c->len;
	int n;

	if (seg)
		n = snprintf(c->path + c->len, sizeof(c->path) - c->len, "%s%s",
			     c->len ? "." : "", seg);
	else
		n = snprintf(c->path + c->len, sizeof(c->path) - c->len, "[%zu]", i);
	if (n > 0)
		c->len += (size_t)n < sizeof(c->path) - c->len ? (size_t)n :
			  sizeof(c->path) - c->len - 1;
	return old;
}

void lh_report_read_pop(struct lh_report_read *c, size_t len)
{
	c->len = len;
	c->path[len] = '\0';
}

static const char *type_name(json_type t)
{
	switch (t) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
		return "a number";
	case json_type_int:
		return "an integer";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	}
	return "something else";
}

json_object *lh_report_read_member(struct lh_report_read *c, json_object *o, const char *key,
				   json_type want, bool nullable)
{
	json_object *v;
	json_type t;

	if (!o)
		return NULL;
	if (!json_object_object_get_ex(o, key, &v)) {
		lh_report_read_bad(c, key, "missing");
		return NULL;
	}
	t = json_object_get_type(v);
	if (t == want || (want == json_type_double && t == json_type_int))
		return v;
	if (t == json_type_null && nullable)
		return NULL;
	lh_report_read_bad(c, key, "expected %s%s, got %s", type_name(want),
			   nullable ? " or null" : "", type_name(t));
	return NULL;
}

uint64_t lh_report_read_u64(struct lh_report_read *c, json_object *o, const char *key)
{
	json_object *v = lh_report_read_member(c, o, key, json_type_int, false);
	int64_t n;

	if (!v)
		return 0;
	n = json_object_get_int64(v);
	if (n < 0) {
		lh_report_read_bad(c, key, "negative count %lld", (long long)n);
		return 0;
	}
	return (uint64_t)n;
}

int lh_report_read_int(struct lh_report_read *c, json_object *o, const char *key, bool nullable)
{
	json_object *v = lh_report_read_member(c, o, key, json_type_int, nullable);
	int64_t n;

	if (!v)
		return -1;
	n = json_object_get_int64(v);
	if (n < (nullable ? 0 : INT_MIN) || n > INT_MAX) {
		lh_report_read_bad(c, key, "%lld is out of range", (long long)n);
		return -1;
	}
	return (int)n;
}

bool lh_report_read_bool(struct lh_report_read *c, json_object *o, const char *key)
{
	json_object *v = lh_report_read_member(c, o, key, json_type_boolean, false);

	return v && json_object_get_boolean(v);
}

uint64_t lh_report_read_number_ns(struct lh_report_read *c, json_object *v, const char *key,
				  double unit)
{
	double d;

	if (json_object_is_type(v, json_type_int)) {
		int64_t n = json_object_get_int64(v);

		/* a saturated count or latency (INT64_MAX) stays saturated */
		if (n >= 0)
			return (uint64_t)n > UINT64_MAX / (uint64_t)unit ? UINT64_MAX :
			       (uint64_t)n * (uint64_t)unit;
	} else {
		d = json_object_get_double(v) * unit;
		if (isfinite(d) && d >= 0 && d < 1.8e19)
			return (uint64_t)llround(d);
	}
	lh_report_read_bad(c, key, "%s is not a duration", json_object_get_string(v));
	return 0;
}

uint64_t lh_report_read_ns(struct lh_report_read *c, json_object *o, const char *key, double unit)
{
	json_object *v = lh_report_read_member(c, o, key, json_type_double, false);

	return v ? lh_report_read_number_ns(c, v, key, unit) : 0;
}

char *lh_report_read_inert(struct lh_arena *a, const char *s, size_t len)
{
	char *out = lh_arena_alloc(a, lh_record_escape_len(len));

	lh_record_escape(out, lh_record_escape_len(len), s, len);
	return out;
}

const char *lh_report_read_str(struct lh_report_read *c, json_object *o, const char *key,
			       bool nullable, struct lh_arena *a)
{
	json_object *v = lh_report_read_member(c, o, key, json_type_string, nullable);

	if (!v)
		return NULL;
	return lh_report_read_inert(a, json_object_get_string(v),
				    (size_t)json_object_get_string_len(v));
}

uint64_t lh_report_read_time(struct lh_report_read *c, json_object *o, const char *key)
{
	json_object *v = lh_report_read_member(c, o, key, json_type_string, true);
	const char *s;
	struct tm tm = { 0 };
	char back[32];
	time_t t;
	int n = 0;

	if (!v)
		return 0;
	s = json_object_get_string(v);
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) == 6 && !s[n]) {
		tm.tm_year -= 1900;
		tm.tm_mon--;
		t = timegm(&tm);
		if (t > 0 && lh_report_iso8601((uint64_t)t * 1000000000ULL, back, sizeof(back)) &&
		    !strcmp(back, s))
			return (uint64_t)t * 1000000000ULL;
	}
	lh_report_read_bad(c, key, "'%s' is not a time as YYYY-MM-DDTHH:MM:SSZ",
			   lh_report_read_inert(&c->rep->arena, s,
										    strlen(s)));
	return 0;
}

void lh_report_read_source(struct lh_report_read *c, json_object *o, const char *key,
			   struct lh_arena *a, const char **file, unsigned long *line)
{
	const char *s = lh_report_read_str(c, o, key, true, a), *colon;
	char *end;

	*file = s;
	*line = 0;
	if (!s)
		return;
	colon = strrchr(s, ':');
	if (!colon || !colon[1] || colon[1] < '0' || colon[1] > '9')
		return;
	errno = 0;
	*line = strtoul(colon + 1, &end, 10);
	if (*end || errno || !*line) {
		*line = 0;
		return;
	}
	*file = lh_arena_strndup(a, s, (size_t)(colon - s));
}

void lh_report_read_same_count(struct lh_report_read *c, const char *key, uint64_t count,
			       const char *what, uint64_t counted)
{
	if (!c->failed && count != counted)
		lh_report_read_bad(c, key, "%llu, but %s %llu", (unsigned long long)count, what,
				   (unsigned long long)counted);
}

void lh_report_read_overflowed(struct lh_report_read *c, const char *key)
{
	lh_report_read_bad(c, key, "the reports' counts add up past 2^64");
}

void lh_report_read_misfitted(struct lh_report_read *c, const char *key)
{
	lh_report_read_bad(c, key,
			   "its buckets do not fit those of the same histogram read before");
}

void lh_report_read_fold_overflow(void *arg, const struct lh_report_fold_at *at)
{
	lh_report_read_overflowed(arg, at->field);
}

void lh_report_read_fold_misfit(void *arg, const struct lh_report_fold_at *at)
{
	lh_report_read_misfitted(arg, at->field);
}

enum lh_tracer lh_report_read_tracer_of(const char *name, bool *known)
{
	enum lh_tracer t = lh_tracer_from_name(name, strlen(name));

	*known = t != LH_TRACER_UNKNOWN || !strcmp(name, "unknown");
	return t;
}

json_object *lh_report_read_array(struct lh_report_read *c, json_object *o, const char *key,
				  size_t *n)
{
	json_object *a = lh_report_read_member(c, o, key, json_type_array, false);

	*n = a ? json_object_array_length(a) : 0;
	return a;
}

json_object *lh_report_read_element(struct lh_report_read *c, json_object *a, size_t i)
{
	json_object *e = json_object_array_get_idx(a, i);

	if (json_object_is_type(e, json_type_object))
		return e;
	lh_report_read_bad(c, NULL, "expected an object, got %s",
			   type_name(json_object_get_type(e)));
	return NULL;
}

struct lh_report_read_own_rule *lh_report_read_own_rule(struct lh_report_read *c, size_t idx)
{
	if (idx >= c->nr_rule) {
		LH_GROW(c->rule, idx + 1, c->alloc_rule);
		memset(c->rule + c->nr_rule, 0, (idx + 1 - c->nr_rule) * sizeof(*c->rule));
		c->nr_rule = idx + 1;
	}
	return &c->rule[idx];
}

