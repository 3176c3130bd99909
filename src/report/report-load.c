// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON report read back into the report model (report-load.h): json-c parses, this file
 * checks each field's presence and type, reads a section (a tracer, a rule, an offender, the
 * run) into a value of its own and folds it into the report being built (report-fold.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kernel/hist.h"
#include "report-fold.h"
#include "report-load.h"
#include "rules/rules.h"
#include "trace/record.h"

/*
 * Memory is bounded by the input: a report larger than LH_REPORT_MAX_BYTES is refused, and so
 * is one whose json-c tree would take more than TREE_FACTOR times its size plus TREE_SLACK
 * (tree_bytes()): real reports take 5 to 18 times their size, 3 bytes of "{}," take 800.
 */
#define TREE_FACTOR		16
#define TREE_SLACK		(64ULL << 20)

/* One input's identity, for the checks that reports merged are of one board. */
struct input {
	char	*name;
	char	*board;
	char	*host;
	char	*kernel;
	char	*run_id;
};

struct lh_report_loader {
	struct lh_report_load_opts	o;
	struct lh_report		*rep;
	struct lh_htab			runs;		/* run ids read (lh_report_run_seen()) */
	unsigned long			seq;		/* records read, in order */
	size_t				max_kept;
	struct input			*inputs;
	size_t				nr_inputs;
	size_t				alloc_inputs;
	char				**merged;	/* what merged_from will say */
	size_t				nr_merged;
	size_t				alloc_merged;
	/* the first report's gate, and whether another one's differs */
	struct lh_gate			gate;
	bool				budgets_differ;
	bool				fail_on_differ;
	char				*differ;	/* the report that differs first */
	/* a single report's own verdict, to check that its data reach it */
	char				*verdict;
};

/* What reading one report needs: its name, where problems go, the field being read. */
struct ctx {
	struct lh_report_loader	*l;
	struct lh_report	*rep;
	const char		*name;
	struct lh_diag		*diag;
	char			path[256];
	size_t			len;
	uint64_t		tracer_counts;	/* this report's tracers' counts, summed */
	/* this report's own counts, which its kept records must fit */
	struct own_tracer {
		uint64_t	count, accepted;
		uint64_t	worst_us, gate_us;	/* of worst and worst_gated (0: null) */
		uint64_t	kept, kept_accepted;
	}			tracer[LH_TRACER_NR];
	struct own_rule {
		bool		listed;
		uint64_t	hits, accepted, worst_us, gate_worst_us;
		uint64_t	kept, kept_accepted;
	}			*rule;		/* by rule index */
	size_t			nr_rule, alloc_rule;
	/* its rules as it lists them, for the error its own gate derives (error_kind_of()) */
	struct lh_report_undecided *listed;
	struct lh_rule		*listed_desc;
	size_t			nr_listed, alloc_listed, alloc_listed_desc;
	bool			failed;
};

static void __attribute__((format(printf, 3, 4)))
bad(struct ctx *c, const char *key, const char *fmt, ...)
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

/* Appends ".seg" (or "[i]" when seg is NULL) to the path. Return: the length to pop to. */
static size_t push(struct ctx *c, const char *seg, size_t i)
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

static void pop(struct ctx *c, size_t len)
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

/*
 * Return: member key of o, which must be there and of type want (a number may be an
 * integer); NULL when it is null and nullable, or after an error.
 */
static json_object *member(struct ctx *c, json_object *o, const char *key, json_type want,
			   bool nullable)
{
	json_object *v;
	json_type t;

	if (!o)
		return NULL;
	if (!json_object_object_get_ex(o, key, &v)) {
		bad(c, key, "missing");
		return NULL;
	}
	t = json_object_get_type(v);
	if (t == want || (want == json_type_double && t == json_type_int))
		return v;
	if (t == json_type_null && nullable)
		return NULL;
	bad(c, key, "expected %s%s, got %s", type_name(want), nullable ? " or null" : "",
	    type_name(t));
	return NULL;
}

static uint64_t get_u64(struct ctx *c, json_object *o, const char *key)
{
	json_object *v = member(c, o, key, json_type_int, false);
	int64_t n;

	if (!v)
		return 0;
	n = json_object_get_int64(v);
	if (n < 0) {
		bad(c, key, "negative count %lld", (long long)n);
		return 0;
	}
	return (uint64_t)n;
}

/* An int, null (nullable) being -1. */
static int get_int(struct ctx *c, json_object *o, const char *key, bool nullable)
{
	json_object *v = member(c, o, key, json_type_int, nullable);
	int64_t n;

	if (!v)
		return -1;
	n = json_object_get_int64(v);
	if (n < (nullable ? 0 : INT_MIN) || n > INT_MAX) {
		bad(c, key, "%lld is out of range", (long long)n);
		return -1;
	}
	return (int)n;
}

static bool get_bool(struct ctx *c, json_object *o, const char *key)
{
	json_object *v = member(c, o, key, json_type_boolean, false);

	return v && json_object_get_boolean(v);
}

/* A number of unit (1000: us, 1e9: s) as ns, exact to the ns the writers keep. */
static uint64_t number_ns(struct ctx *c, json_object *v, const char *key, double unit)
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
	bad(c, key, "%s is not a duration", json_object_get_string(v));
	return 0;
}

static uint64_t get_ns(struct ctx *c, json_object *o, const char *key, double unit)
{
	json_object *v = member(c, o, key, json_type_double, false);

	return v ? number_ns(c, v, key, unit) : 0;
}

/* Return: s[0..len) made inert (lh_record_escape()), in arena a. */
static char *inert(struct lh_arena *a, const char *s, size_t len)
{
	char *out = lh_arena_alloc(a, lh_record_escape_len(len));

	lh_record_escape(out, lh_record_escape_len(len), s, len);
	return out;
}

/* A string or null (nullable), inert, in arena a. */
static const char *get_str(struct ctx *c, json_object *o, const char *key, bool nullable,
			   struct lh_arena *a)
{
	json_object *v = member(c, o, key, json_type_string, nullable);

	if (!v)
		return NULL;
	return inert(a, json_object_get_string(v), (size_t)json_object_get_string_len(v));
}

/* "2026-11-29T18:00:01Z" or null as CLOCK_REALTIME ns (0: null). */
static uint64_t get_time(struct ctx *c, json_object *o, const char *key)
{
	json_object *v = member(c, o, key, json_type_string, true);
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
	bad(c, key, "'%s' is not a time as YYYY-MM-DDTHH:MM:SSZ", inert(&c->rep->arena, s,
									  strlen(s)));
	return 0;
}

/* A "FILE:LINE" source (or FILE alone) into *file (in arena a) and *line. */
static void get_source(struct ctx *c, json_object *o, const char *key, struct lh_arena *a,
		       const char **file, unsigned long *line)
{
	const char *s = get_str(c, o, key, true, a), *colon;
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

/*
 * A count the report states (key) against the values it lists ("the buckets count"): a
 * report that contradicts itself is not one lathound wrote.
 */
static void same_count(struct ctx *c, const char *key, uint64_t count, const char *what,
		       uint64_t counted)
{
	if (!c->failed && count != counted)
		bad(c, key, "%llu, but %s %llu", (unsigned long long)count, what,
		    (unsigned long long)counted);
}

/* What this report adds to those read before could not be added: key names it. */
static void overflowed(struct ctx *c, const char *key)
{
	bad(c, key, "the reports' counts add up past 2^64");
}

static void misfitted(struct ctx *c, const char *key)
{
	bad(c, key, "its buckets do not fit those of the same histogram read before");
}

/* (lh_report_fold_ops: the field is of the section being read) */
static void fold_overflow(void *arg, const struct lh_report_fold_at *at)
{
	overflowed(arg, at->field);
}

static void fold_misfit(void *arg, const struct lh_report_fold_at *at)
{
	misfitted(arg, at->field);
}

#define LOAD_OPS(c, p)								\
	{ .overflow = fold_overflow, .misfit = fold_misfit, .arg = (c), .parts = (p) }

/*
 * sum += n, where sum adds up what several reports count, or the load fails: a sum past 2^64
 * must not read as a small one, which gates would judge again (it stays at its largest).
 */
#define ADD_COUNT(c, key, sum, n)						\
	do {									\
		if (LH_ADD_CHECKED(sum, n))					\
			overflowed((c), (key));					\
	} while (0)

/* Return: the tracer a key or field names: a known one, "unknown", or (any) unknown. */
static enum lh_tracer tracer_of(const char *name, bool *known)
{
	enum lh_tracer t = lh_tracer_from_name(name, strlen(name));

	*known = t != LH_TRACER_UNKNOWN || !strcmp(name, "unknown");
	return t;
}

/*
 * The fields of a histogram object (doc/report-json.md) in v, added to h.
 * Return: the count it states (0 when it states none).
 */
static uint64_t get_hist_fields(struct ctx *c, json_object *v, struct lh_histogram *h)
{
	json_object *a, *b;
	struct lh_histogram x = { 0 };
	enum lh_report_fold_status why;
	uint64_t count, sum = 0;
	size_t i, n;
	const char *unit;

	unit = get_str(c, v, "unit", false, &c->rep->arena);
	if (unit && strcmp(unit, "us"))
		bad(c, "unit", "'%s' is not \"us\"", unit);
	a = member(c, v, "buckets", json_type_array, false);
	n = a ? json_object_array_length(a) : 0;
	for (i = 0; i < n; i++) {
		size_t q = push(c, "buckets", 0);
		uint64_t lo, hi, k;

		push(c, NULL, i);
		b = json_object_array_get_idx(a, i);
		if (!json_object_is_type(b, json_type_object)) {
			bad(c, NULL, "expected an object");
			pop(c, q);
			continue;
		}
		lo = get_ns(c, b, "lo", 1000);
		hi = get_ns(c, b, "hi", 1000);
		k = get_u64(c, b, "count");
		if (!c->failed && lh_histogram_add_bucket(&x, lo, hi, k))
			bad(c, NULL, "bucket [%llu, %llu) ns is empty or overlaps another",
			    (unsigned long long)lo, (unsigned long long)hi);
		pop(c, q);
	}
	count = get_u64(c, v, "count");
	same_count(c, "count", count, "the buckets count", x.count);
	if (count) {
		json_object *mean = member(c, v, "mean", json_type_double, false);

		x.min_ns = get_ns(c, v, "min", 1000);
		x.max_ns = get_ns(c, v, "max", 1000);
		/* the mean is kept to the ns: so is the sum, to count/2 ns */
		sum = mean ? lh_sat_mul(number_ns(c, mean, "mean", 1000), count) : 0;
	}
	x.sum_ns = sum;
	x.dropped = get_u64(c, v, "dropped");
	why = c->failed ? LH_REPORT_FOLD_OK : lh_report_fold_hist(h, &x);
	if (why == LH_REPORT_FOLD_OVERFLOW)
		overflowed(c, NULL);
	else if (why == LH_REPORT_FOLD_MISFIT)
		misfitted(c, NULL);
	lh_histogram_release(&x);
	return count;
}

/* The histogram object member key of o, added to h. Return: the count it states. */
static uint64_t get_hist(struct ctx *c, json_object *o, const char *key, struct lh_histogram *h)
{
	json_object *v = member(c, o, key, json_type_object, false);
	uint64_t count;
	size_t p;

	if (!v)
		return 0;
	p = push(c, key, 0);
	count = get_hist_fields(c, v, h);
	pop(c, p);
	return count;
}

/* Return: a where object (or null) as *w; false when null or bad. */
static bool get_where(struct ctx *c, json_object *o, const char *key, struct lh_report_where *w)
{
	json_object *v = member(c, o, key, json_type_object, true), *t;
	struct lh_arena *a = &c->rep->arena;
	const char *s;
	size_t p;

	memset(w, 0, sizeof(*w));
	if (!v)
		return false;
	p = push(c, key, 0);
	w->set = true;
	w->latency_us = get_u64(c, v, "latency_us");
	w->cpu = get_int(c, v, "cpu", true);
	t = member(c, v, "task", json_type_object, false);
	if (t) {
		size_t q = push(c, "task", 0);

		s = get_str(c, t, "comm", true, a);
		snprintf(w->comm, sizeof(w->comm), "%s", s ? s : "");
		w->pid = get_int(c, t, "pid", true);
		pop(c, q);
	}
	s = get_str(c, v, "started_at", true, a);
	snprintf(w->started, sizeof(w->started), "%s", s ? s : "");
	s = get_str(c, v, "ended_at", true, a);
	snprintf(w->ended, sizeof(w->ended), "%s", s ? s : "");
	get_source(c, v, "source", a, &w->source, &w->line);
	s = get_str(c, v, "irq", true, a);
	snprintf(w->irq, sizeof(w->irq), "%s", s ? s : "");
	s = get_str(c, v, "rule", true, a);
	snprintf(w->rule, sizeof(w->rule), "%s", s ? s : "");
	pop(c, p);
	return !c->failed;
}

/* Return: array key of o (length in *n), or NULL (n 0). */
static json_object *array(struct ctx *c, json_object *o, const char *key, size_t *n)
{
	json_object *a = member(c, o, key, json_type_array, false);

	*n = a ? json_object_array_length(a) : 0;
	return a;
}

/* Return: element i of a when it is an object; else NULL after an error. */
static json_object *element(struct ctx *c, json_object *a, size_t i)
{
	json_object *e = json_object_array_get_idx(a, i);

	if (json_object_is_type(e, json_type_object))
		return e;
	bad(c, NULL, "expected an object, got %s", type_name(json_object_get_type(e)));
	return NULL;
}

/*
 * The per-CPU view of a tracer, into tr (a tracer of this report alone): a CPU listed twice
 * is an error, not a sum. Return: the sum of the CPUs' counts (saturated).
 */
static uint64_t load_cpus(struct ctx *c, json_object *o, struct lh_report_tracer *tr)
{
	bool listed[LH_REPORT_MAX_CPUS + 1] = { 0 };
	json_object *a, *e;
	uint64_t sum = 0;
	size_t i, n, p;

	a = array(c, o, "cpus", &n);
	for (i = 0; i < n; i++) {
		struct lh_report_where w;
		struct lh_report_cpu *slot;
		int cpu;

		p = push(c, "cpus", 0);
		push(c, NULL, i);
		e = element(c, a, i);
		cpu = get_int(c, e, "cpu", true);
		slot = e ? lh_report_cpu_slot(tr, cpu) : NULL;
		if (e && !slot)
			bad(c, "cpu", "CPU %d is beyond the %d a report tracks", cpu,
			    LH_REPORT_MAX_CPUS);
		if (slot && listed[cpu + 1]) {
			bad(c, "cpu", "CPU %d is listed twice", cpu);
			slot = NULL;
		}
		if (slot) {
			uint64_t count = get_u64(c, e, "count");

			listed[cpu + 1] = true;
			slot->count = count;
			sum = lh_sat_add(sum, count);
			get_u64(c, e, "max_us");
			same_count(c, "count", count, "its histogram counts",
				   get_hist(c, e, "histogram", &slot->dist));
			if (get_where(c, e, "worst", &w)) {
				slot->worst = lh_xcalloc(1, sizeof(*slot->worst));
				*slot->worst = w;
			}
		}
		pop(c, p);
	}
	return sum;
}

static void load_progression(struct ctx *c, json_object *o, struct lh_report_tracer *tr)
{
	json_object *a, *e;
	size_t i, n, p;

	a = array(c, o, "progression", &n);
	for (i = 0; i < n; i++) {
		struct lh_report_step *s;

		p = push(c, "progression", 0);
		push(c, NULL, i);
		e = element(c, a, i);
		if (e) {
			LH_GROW(tr->steps, tr->nr_steps + 1, tr->alloc_steps);
			s = &tr->steps[tr->nr_steps++];
			s->cpu = get_int(c, e, "cpu", true);
			s->latency_us = get_u64(c, e, "latency_us");
			s->at_ns = get_time(c, e, "at");
			get_source(c, e, "source", &c->rep->arena, &s->source, &s->line);
		}
		pop(c, p);
	}
	tr->steps_dropped = get_u64(c, o, "progression_dropped");
}

/*
 * Tracer t's worst and worst_gated, set in tr, once checked against what they summarize:
 * worst is there when a section was counted and is the max_us; worst_gated, the worst of the
 * sections no 'ignore' rule accepted, is there exactly when some were not accepted, is no
 * longer than worst, and is worst when none was accepted.
 */
static void check_worsts(struct ctx *c, json_object *v, uint64_t count, uint64_t accepted,
			 enum lh_tracer t, struct lh_report_tracer *tr)
{
	struct lh_report_where w, g;
	bool has_w = get_where(c, v, "worst", &w), has_g = get_where(c, v, "worst_gated", &g);
	uint64_t max_us = get_u64(c, v, "max_us");

	if (c->failed)
		return;
	if (accepted > count)
		bad(c, "accepted", "%llu, but its count is %llu", (unsigned long long)accepted,
		    (unsigned long long)count);
	else if (has_w != (count > 0))
		bad(c, "worst", "%s with a count of %llu", has_w ? "set" : "null",
		    (unsigned long long)count);
	else if (has_w && w.latency_us != max_us)
		bad(c, "max_us", "%llu, but its worst is %llu", (unsigned long long)max_us,
		    (unsigned long long)w.latency_us);
	else if (has_g != (count > accepted))
		bad(c, "worst_gated", "%s with %llu of %llu sections accepted",
		    has_g ? "set" : "null", (unsigned long long)accepted,
		    (unsigned long long)count);
	else if (has_g && g.latency_us > w.latency_us)
		bad(c, "worst_gated", "%llu, longer than its worst %llu",
		    (unsigned long long)g.latency_us, (unsigned long long)w.latency_us);
	else if (has_g && !accepted && g.latency_us != w.latency_us)
		bad(c, "worst_gated", "%llu, but no section was accepted and its worst is %llu",
		    (unsigned long long)g.latency_us, (unsigned long long)w.latency_us);
	if (c->failed)
		return;
	c->tracer[t].worst_us = has_w ? w.latency_us : 0;
	c->tracer[t].gate_us = has_g ? g.latency_us : 0;
	tr->worst = w;
	tr->gate = g;
}

/*
 * osnoise's per-CPU figures ("noise_cpus", absent before it), added to the report's: a CPU
 * listed twice, noise over runtime, periods without runtime, or an availability that is not
 * the one its sums give is an error.
 */
static void load_noise(struct ctx *c, json_object *o)
{
	bool listed[LH_REPORT_MAX_CPUS] = { 0 };
	char want[16];
	json_object *a, *e, *v;
	size_t i, n, p;

	if (!json_object_object_get_ex(o, "noise_cpus", NULL))
		return;
	a = array(c, o, "noise_cpus", &n);
	for (i = 0; i < n && !c->failed; i++) {
		struct lh_report_noise got, *slot;
		uint32_t milli = 0;
		bool has;

		p = push(c, "noise_cpus", 0);
		push(c, NULL, i);
		e = element(c, a, i);
		got.cpu = get_int(c, e, "cpu", false);
		got.periods = get_u64(c, e, "periods");
		got.runtime_ns = get_ns(c, e, "runtime_us", 1000);
		got.noise_ns = get_ns(c, e, "noise_us", 1000);
		v = member(c, e, "available_percent", json_type_double, true);
		if (c->failed) {
			pop(c, p);
			break;
		}
		has = !lh_gate_available(got.runtime_ns, got.noise_ns, &milli);
		snprintf(want, sizeof(want), "%s", "null");
		if (has)
			lh_gate_fmt_available(milli, want, sizeof(want));
		if (got.cpu < 0 || got.cpu >= LH_REPORT_MAX_CPUS)
			bad(c, "cpu", "CPU %d is beyond the %d a report tracks", got.cpu,
			    LH_REPORT_MAX_CPUS);
		else if (listed[got.cpu])
			bad(c, "cpu", "CPU %d is listed twice", got.cpu);
		else if (got.noise_ns > got.runtime_ns)
			bad(c, "noise_us", "%llu ns, more than its runtime of %llu ns",
			    (unsigned long long)got.noise_ns, (unsigned long long)got.runtime_ns);
		else if (!got.periods != !got.runtime_ns)
			bad(c, "periods", "%llu periods of %llu ns of runtime",
			    (unsigned long long)got.periods, (unsigned long long)got.runtime_ns);
		else if (!v != !has || (v && llround(json_object_get_double(v) * 1000) != milli))
			bad(c, "available_percent", "%s, but its noise and runtime give %s",
			    v ? json_object_get_string(v) : "null", want);
		if (!c->failed) {
			listed[got.cpu] = true;
			slot = lh_report_noise_slot(c->rep, got.cpu);
			ADD_COUNT(c, "periods", slot->periods, got.periods);
			ADD_COUNT(c, "runtime_us", slot->runtime_ns, got.runtime_ns);
			ADD_COUNT(c, "noise_us", slot->noise_ns, got.noise_ns);
		}
		pop(c, p);
	}
}

/* Each tracer is read into a tracer of its own, then folded into the report's. */
static void load_tracers(struct ctx *c, json_object *root)
{
	const struct lh_report_fold_ops ops = LOAD_OPS(c, LH_REPORT_FOLD_PROGRESSIONS);
	json_object *o = member(c, root, "tracers", json_type_object, false);
	struct lh_report *rep = c->rep;
	uint64_t n, count;

	if (!o)
		return;
	json_object_object_foreach(o, key, v) {
		size_t p = push(c, "tracers", 0);
		struct lh_report_tracer own = { 0 }, *tr = &own;
		enum lh_tracer t;
		bool known;

		t = tracer_of(key, &known);
		if (!known || !json_object_is_type(v, json_type_object)) {
			bad(c, inert(&rep->arena, key, strlen(key)),
			    known ? "expected an object" : "unknown tracer");
			pop(c, p);
			continue;
		}
		push(c, key, 0);
		count = get_u64(c, v, "count");
		tr->count = count;
		c->tracer_counts = lh_sat_add(c->tracer_counts, count);
		n = get_u64(c, v, "accepted");
		tr->accepted = n;
		ADD_COUNT(c, "accepted", rep->accepted_records, n);
		if (rep->has_run && json_object_object_get_ex(v, "armed_s", NULL))
			ADD_COUNT(c, "armed_s", rep->run.armed_ns[t], get_ns(c, v, "armed_s", 1e9));
		if (rep->has_run && json_object_object_get_ex(v, "blind_s", NULL))
			ADD_COUNT(c, "blind_s", rep->run.blind_ns[t], get_ns(c, v, "blind_s", 1e9));
		c->tracer[t].count = count;
		c->tracer[t].accepted = n;
		check_worsts(c, v, count, n, t, tr);
		/* each record is counted in the histogram, and in its CPU's when it has one */
		same_count(c, "count", count, "its histogram counts",
			   get_hist(c, v, "histogram", &tr->hist));
		n = load_cpus(c, v, tr);
		if (!c->failed && n > count)
			bad(c, "count", "%llu, but its CPUs count %llu", (unsigned long long)count,
			    (unsigned long long)n);
		load_progression(c, v, tr);
		if (t == LH_TRACER_OSNOISE)
			load_noise(c, v);
		lh_report_fold_tracer(&rep->tracers[t], tr, &ops);
		lh_report_tracer_release(tr);
		pop(c, p);
	}
}

/* Return: this report's counts of rule idx (zero until its entry is read). */
static struct own_rule *own_rule(struct ctx *c, size_t idx)
{
	if (idx >= c->nr_rule) {
		LH_GROW(c->rule, idx + 1, c->alloc_rule);
		memset(c->rule + c->nr_rule, 0, (idx + 1 - c->nr_rule) * sizeof(*c->rule));
		c->nr_rule = idx + 1;
	}
	return &c->rule[idx];
}

/* Each rule is read into counters of its own, then folded into the report's rule of its id. */
static void load_rules(struct ctx *c, json_object *root)
{
	const struct lh_report_fold_ops ops = LOAD_OPS(c, 0);
	struct lh_arena *a = &c->rep->arena;
	json_object *arr, *e;
	size_t i, n, p;

	arr = array(c, root, "rules", &n);
	for (i = 0; i < n; i++) {
		struct lh_rule desc = { 0 };
		struct lh_report_rule src;
		struct own_rule *own;
		const char *sev;
		uint64_t uneval, gate_uneval;
		bool conflict;
		size_t idx;

		p = push(c, "rules", 0);
		push(c, NULL, i);
		e = element(c, arr, i);
		desc.id = get_str(c, e, "id", false, a);
		sev = get_str(c, e, "severity", false, a);
		if (sev && lh_severity_parse(sev, &desc.severity))
			bad(c, "severity", "'%s' is not a severity", sev);
		desc.message = get_str(c, e, "message", true, a);
		desc.limit_hit = get_str(c, e, "unevaluated_reason", true, a);
		if (c->failed) {
			pop(c, p);
			continue;
		}
		idx = lh_report_own_rule(c->rep, &desc, &conflict);
		if (conflict)
			bad(c, "severity", "rule '%s' is %s here and %s in a report read before",
			    desc.id, sev, lh_severity_name(lh_rules_get(c->rep->own_rules,
									 idx)->severity));
		own = own_rule(c, idx);
		if (own->listed)
			bad(c, "id", "rule '%s' is listed twice", desc.id);
		own->listed = true;
		own->hits = get_u64(c, e, "hits");
		own->accepted = get_u64(c, e, "accepted");
		own->worst_us = get_u64(c, e, "worst_us");
		own->gate_worst_us = get_u64(c, e, "gate_worst_us");
		uneval = get_u64(c, e, "unevaluated");
		gate_uneval = get_u64(c, e, "gate_unevaluated");
		src = (struct lh_report_rule){
			.hits = own->hits, .accepted = own->accepted, .worst_us = own->worst_us,
			.gate_worst_us = own->gate_worst_us, .unevaluated = uneval,
			.gate_unevaluated = gate_uneval,
		};
		/* what is derived from the hits must fit them, or B's 'accepted' hides A's hits */
		if (!c->failed && own->accepted > own->hits)
			bad(c, "accepted", "%llu, more than its %llu hits",
			    (unsigned long long)own->accepted, (unsigned long long)own->hits);
		else if (!c->failed && gate_uneval > uneval)
			bad(c, "gate_unevaluated", "%llu, more than its %llu unevaluated",
			    (unsigned long long)gate_uneval, (unsigned long long)uneval);
		else if (!c->failed && own->gate_worst_us > own->worst_us)
			bad(c, "gate_worst_us", "%llu, longer than its worst_us %llu",
			    (unsigned long long)own->gate_worst_us,
			    (unsigned long long)own->worst_us);
		if (c->failed) {
			pop(c, p);
			continue;
		}
		lh_report_fold_rule(c->rep, idx, &src, &ops);
		LH_GROW(c->listed_desc, c->nr_listed + 1, c->alloc_listed_desc);
		LH_GROW(c->listed, c->nr_listed + 1, c->alloc_listed);
		c->listed_desc[c->nr_listed] = desc;
		c->listed[c->nr_listed++].gate_unevaluated = gate_uneval;
		pop(c, p);
	}
}

static void load_offenders(struct ctx *c, json_object *root)
{
	const struct lh_report_fold_ops ops = LOAD_OPS(c, 0);
	struct lh_report *rep = c->rep;
	struct lh_arena *a = &rep->arena;
	json_object *arr, *e, *f, *t;
	size_t i, j, n, nf, p;

	arr = array(c, root, "offenders", &n);
	for (i = 0; i < n; i++) {
		struct lh_report_offender o = { .pid = -1 };
		struct lh_signature sig = { 0 };
		char text[LH_SIGNATURE_LEN];
		const char *tracer, *saved, *comm = NULL;
		bool known;

		p = push(c, "offenders", 0);
		push(c, NULL, i);
		e = element(c, arr, i);
		saved = get_str(c, e, "signature", false, a);
		tracer = get_str(c, e, "tracer", false, a);
		if (tracer) {
			sig.tracer = tracer_of(tracer, &known);
			if (!known)
				bad(c, "tracer", "unknown tracer '%s'", tracer);
		}
		sig.started = get_str(c, e, "started_at", true, a);
		sig.ended = get_str(c, e, "ended_at", true, a);
		f = array(c, e, "frames", &nf);
		if (nf > LH_SIGNATURE_FRAMES)
			bad(c, "frames", "%zu frames, a signature has at most %d", nf,
			    LH_SIGNATURE_FRAMES);
		for (j = 0; j < nf && j < LH_SIGNATURE_FRAMES; j++) {
			json_object *s = json_object_array_get_idx(f, j);

			if (!json_object_is_type(s, json_type_string)) {
				bad(c, "frames", "expected strings");
				break;
			}
			sig.frames[sig.nr_frames++] = inert(a, json_object_get_string(s),
							    (size_t)json_object_get_string_len(s));
		}
		sig.has_wakeup = get_bool(c, e, "wakeup");
		sig.woken = get_str(c, e, "woken", true, a);
		o.count = get_u64(c, e, "count");
		o.worst_us = get_u64(c, e, "worst_us");
		o.accepted = get_u64(c, e, "accepted");
		o.cpu = get_int(c, e, "cpu", true);
		t = member(c, e, "task", json_type_object, false);
		if (t) {
			comm = get_str(c, t, "comm", true, a);
			o.pid = get_int(c, t, "pid", true);
		}
		snprintf(o.comm, sizeof(o.comm), "%s", comm ? comm : "");
		if (!c->failed && strcmp(lh_signature_text(&sig, text, sizeof(text)), saved))
			bad(c, "signature", "'%s' does not match its fields ('%s')", saved, text);
		if (c->failed) {
			pop(c, p);
			continue;
		}
		o.sig = sig;
		lh_report_fold_offender(rep, &o, &ops);
		pop(c, p);
	}
	e = member(c, root, "offenders_other", json_type_object, false);
	if (e) {
		uint64_t count, accepted;

		p = push(c, "offenders_other", 0);
		count = get_u64(c, e, "count");
		accepted = get_u64(c, e, "accepted");
		lh_report_fold_other(rep, count, accepted, get_u64(c, e, "worst_us"), &ops);
		pop(c, p);
	}
}

static void load_task(struct ctx *c, json_object *o, const char *key, struct lh_record *r,
		      struct lh_task *t, bool wake)
{
	json_object *v = member(c, o, key, json_type_object, false);
	const char *state;
	size_t p;

	if (!v)
		return;
	p = push(c, key, 0);
	t->comm = get_str(c, v, "comm", true, &r->arena);
	t->pid = get_int(c, v, "pid", true);
	if (wake) {
		t->prio = get_int(c, v, "prio", true);
		state = get_str(c, v, "state", true, &r->arena);
		if (state && strlen(state) != 1)
			bad(c, "state", "'%s' is not a task state", state);
		t->state = state ? state[0] : 0;
	} else {
		t->uid = get_int(c, v, "uid", true);
		t->policy = get_int(c, v, "policy", true);
		t->rt_prio = get_int(c, v, "rt_prio", true);
	}
	pop(c, p);
}

/* A list of rule ids as rule indices, in rule order. */
static void rule_ids(struct ctx *c, json_object *o, const char *key, size_t **v, size_t *nr,
		     size_t *alloc)
{
	json_object *a, *s;
	size_t i, n, k, idx;

	a = array(c, o, key, &n);
	for (i = 0; i < n; i++) {
		s = json_object_array_get_idx(a, i);
		if (!json_object_is_type(s, json_type_string)) {
			bad(c, key, "expected rule ids");
			return;
		}
		idx = lh_report_own_rule_find(c->rep, json_object_get_string(s));
		if (idx == (size_t)-1) {
			bad(c, key, "rule '%s' is not in the report's rules",
			    inert(&c->rep->arena, json_object_get_string(s),
				  (size_t)json_object_get_string_len(s)));
			return;
		}
		LH_GROW(*v, *nr + 1, *alloc);
		for (k = *nr; k > 0 && (*v)[k - 1] > idx; k--)
			(*v)[k] = (*v)[k - 1];
		(*v)[k] = idx;
		(*nr)++;
	}
}

static void load_stacks(struct ctx *c, json_object *e, struct lh_record *r)
{
	json_object *a, *st, *f, *offs, *o;
	size_t i, j, n, nf, no;

	/* "stack_offsets": what the trace printed after each frame of the first stack */
	offs = array(c, e, "stack_offsets", &no);
	a = array(c, e, "stacks", &n);
	if (n > LH_MAX_STACKS)
		bad(c, "stacks", "%zu stacks, a record has at most %d", n, LH_MAX_STACKS);
	for (i = 0; i < n && i < LH_MAX_STACKS; i++) {
		st = json_object_array_get_idx(a, i);
		if (!json_object_is_type(st, json_type_array)) {
			bad(c, "stacks", "expected arrays of frames");
			return;
		}
		nf = json_object_array_length(st);
		for (j = 0; j < nf; j++) {
			const char *s;

			f = json_object_array_get_idx(st, j);
			if (!json_object_is_type(f, json_type_string)) {
				bad(c, "stacks", "expected frames as strings");
				return;
			}
			s = inert(&r->arena, json_object_get_string(f),
				  (size_t)json_object_get_string_len(f));
			o = i == 0 && j < no ? json_object_array_get_idx(offs, j) : NULL;
			if (o && !json_object_is_type(o, json_type_string)) {
				bad(c, "stack_offsets", "expected offsets as strings or null");
				return;
			}
			if (o) {
				const char *t = inert(&r->arena, json_object_get_string(o),
						      (size_t)json_object_get_string_len(o));

				lh_record_add_frame_off(r, i, s, strlen(s), t, strlen(t));
			} else {
				lh_record_add_frame(r, i, s, strlen(s));
			}
		}
		r->nr_stacks = i + 1;
	}
}

/* A spike's duration in µs (or null, nullable: *has false), as ns; a day or more is absurd. */
static uint64_t spike_ns(struct ctx *c, json_object *o, const char *key, bool nullable,
			 bool *has)
{
	json_object *v = member(c, o, key, json_type_double, nullable);
	uint64_t ns;

	if (has)
		*has = v != NULL;
	if (!v)
		return 0;
	ns = number_ns(c, v, key, 1000);
	if (ns > LH_SPIKE_MAX_NS) {
		bad(c, key, "%s is longer than a day", json_object_get_string(v));
		return 0;
	}
	return ns;
}

/* A part's offset from the timer's expiry in µs, signed, as ns; a day or more is absurd. */
static int64_t spike_offset_ns(struct ctx *c, json_object *o, const char *key)
{
	json_object *v = member(c, o, key, json_type_double, false);
	double d;

	if (!v)
		return 0;
	d = json_object_get_double(v) * 1000;
	if (!isfinite(d) || fabs(d) > (double)LH_SPIKE_MAX_NS) {
		bad(c, key, "%s is not an offset within a day", json_object_get_string(v));
		return 0;
	}
	return (int64_t)llround(d);
}

/* A share the report states (per mille) against ns of latency_ns: recomputed, not trusted. */
static void spike_share(struct ctx *c, json_object *o, const char *key, uint64_t ns,
			uint64_t latency_ns)
{
	uint64_t pm = get_u64(c, o, key);

	if (c->failed)
		return;
	if (pm > 1000)
		bad(c, key, "%llu, a share over 100 %%", (unsigned long long)pm);
	else if (pm != lh_spike_permille(ns, latency_ns))
		bad(c, key, "%llu, but its duration makes it %u", (unsigned long long)pm,
		    lh_spike_permille(ns, latency_ns));
}

/* The blocking task or the culprit of a spike, in t and *ns, no longer than window_ns. */
static void spike_task(struct ctx *c, json_object *o, const char *key, struct lh_record *r,
		       struct lh_task *t, uint64_t *ns, uint64_t window_ns)
{
	json_object *v = member(c, o, key, json_type_object, false);
	size_t p;

	if (!v)
		return;
	p = push(c, key, 0);
	t->comm = get_str(c, v, "comm", true, &r->arena);
	t->pid = get_int(c, v, "pid", true);
	*ns = spike_ns(c, v, "us", false, NULL);
	if (!c->failed && *ns > window_ns)
		bad(c, "us", "%llu ns, longer than the spike's window of %llu ns",
		    (unsigned long long)*ns, (unsigned long long)window_ns);
	spike_share(c, v, "share_permille", *ns, r->spike.latency_ns);
	pop(c, p);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* One part of a spike into q, no longer than window_ns where it overlaps. */
static void spike_part(struct ctx *c, json_object *x, struct lh_record *r,
		       struct lh_spike_part *q, uint64_t window_ns)
{
	const char *kind = get_str(c, x, "kind", false, &r->arena);
	enum lh_spike_kind k;

	if (kind && lh_spike_kind_parse(kind, &k))
		bad(c, "kind", "'%s' is not a kind of noise (irq, softirq, nmi, thread)", kind);
	else if (kind)
		q->kind = k;
	q->name = get_str(c, x, "name", true, &r->arena);
	q->vector = get_int(c, x, "vector", true);
	q->pid = get_int(c, x, "pid", true);
	q->offset_ns = spike_offset_ns(c, x, "offset_us");
	q->duration_ns = spike_ns(c, x, "duration_us", false, NULL);
	q->overlap_ns = spike_ns(c, x, "overlap_us", false, NULL);
	if (c->failed)
		return;
	if (q->overlap_ns > q->duration_ns)
		bad(c, "overlap_us", "%llu ns, longer than the part's duration of %llu ns",
		    (unsigned long long)q->overlap_ns, (unsigned long long)q->duration_ns);
	else if (q->overlap_ns > window_ns)
		bad(c, "overlap_us", "%llu ns, longer than the spike's window of %llu ns",
		    (unsigned long long)q->overlap_ns, (unsigned long long)window_ns);
	spike_share(c, x, "share_permille", q->overlap_ns, r->spike.latency_ns);
}

/* A tracer whose sections a spike can watch, by name: LH_TRACER_UNKNOWN for any other. */
static enum lh_tracer section_tracer(const char *name)
{
	enum lh_tracer t = name ? lh_tracer_from_name(name, strlen(name)) : LH_TRACER_UNKNOWN;

	return t == LH_TRACER_IRQSOFF || t == LH_TRACER_PREEMPTOFF ? t : LH_TRACER_UNKNOWN;
}

/*
 * The section behind a timerlat spike (its "section", absent when none was watched): a
 * found one of a watched tracer, no shorter than the minimum watched, overlapping the
 * window by no more than its own length or the window's, its share recomputed.
 */
static void spike_section(struct ctx *c, json_object *v, struct lh_record *r,
			  uint64_t window_ns)
{
	struct lh_spike_section *x = &r->spike.section;
	const char *state;
	json_object *o, *a;
	size_t i, n, p;

	if (!json_object_object_get_ex(v, "section", NULL))
		return;
	o = member(c, v, "section", json_type_object, false);
	if (!o)
		return;
	p = push(c, "section", 0);
	if (r->tracer != LH_TRACER_TIMERLAT) {
		bad(c, NULL, "a spike of %s watches no section", lh_tracer_name(r->tracer));
		goto out;
	}
	state = get_str(c, o, "state", false, &r->arena);
	if (state && lh_spike_section_state_parse(state, &x->state))
		bad(c, "state", "'%s' is not a section's state (found, none, not_measured)", state);
	a = array(c, o, "watched", &n);
	for (i = 0; i < n && !c->failed; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		enum lh_tracer t = section_tracer(json_object_is_type(e, json_type_string) ?
						  json_object_get_string(e) : NULL);

		if (t == LH_TRACER_UNKNOWN)
			bad(c, "watched", "'%s' is not a tracer whose sections are watched (irqsoff, preemptoff)",
			    json_object_get_string(e));
		else
			x->watched |= 1u << t;
	}
	if (!c->failed && !x->watched)
		bad(c, "watched", "empty: a section written is a section watched");
	x->min_ns = spike_ns(c, o, "min_us", false, NULL);
	if (c->failed || x->state != LH_SPIKE_SECTION_FOUND)
		goto out;
	x->tracer = section_tracer(get_str(c, o, "tracer", false, &r->arena));
	x->caller = get_str(c, o, "caller", true, &r->arena);
	x->offset_ns = spike_offset_ns(c, o, "offset_us");
	x->duration_ns = spike_ns(c, o, "duration_us", false, NULL);
	x->overlap_ns = spike_ns(c, o, "overlap_us", false, NULL);
	if (c->failed)
		goto out;
	if (x->caller && strlen(x->caller) >= LH_REPORT_SECTION_CALLER)
		bad(c, "caller", "%zu bytes, longer than a kernel symbol's name and offset",
		    strlen(x->caller));
	else if (!(x->watched & (1u << x->tracer)))
		bad(c, "tracer", "not one of the tracers watched");
	else if (x->duration_ns < x->min_ns)
		bad(c, "duration_us", "%llu ns, shorter than the minimum watched of %llu ns",
		    (unsigned long long)x->duration_ns, (unsigned long long)x->min_ns);
	else if (!x->overlap_ns || x->overlap_ns > x->duration_ns || x->overlap_ns > window_ns)
		bad(c, "overlap_us", "%llu ns, not within the section's %llu ns and the window's %llu ns",
		    (unsigned long long)x->overlap_ns, (unsigned long long)x->duration_ns,
		    (unsigned long long)window_ns);
	spike_share(c, o, "share_permille", x->overlap_ns, r->spike.latency_ns);
out:
	pop(c, p);
}

/*
 * A sampling tracer's spike (the record's "spike", absent in reports written before it): every
 * duration bounded, every share and the total explained recomputed from the parts, the
 * latencies the record's.
 */
static void load_spike(struct ctx *c, json_object *e, struct lh_record *r)
{
	struct lh_spike *sp = &r->spike;
	uint64_t window, sum = 0, longest = 0, explained;
	json_object *v, *a, *x;
	size_t i, n, p, q;
	bool has;

	if (!json_object_object_get_ex(e, "spike", NULL))
		return;
	v = member(c, e, "spike", json_type_object, true);
	if (!v)
		return;
	p = push(c, "spike", 0);
	if (!lh_tracer_is_sampling(r->tracer)) {
		bad(c, NULL, "a record of %s has no spike", lh_tracer_name(r->tracer));
		goto out;
	}
	sp->set = true;
	sp->latency_ns = spike_ns(c, v, "latency_us", false, NULL);
	sp->irq_latency_ns = spike_ns(c, v, "irq_latency_us", true, &sp->has_irq);
	sp->thread_latency_ns = spike_ns(c, v, "thread_latency_us", true, &sp->has_thread);
	sp->noise_ns = spike_ns(c, v, "noise_us", true, &sp->has_period);
	sp->runtime_ns = spike_ns(c, v, "runtime_us", true, &has);
	if (c->failed)
		goto out;
	if (r->latency_us != sp->latency_ns / 1000 + (sp->latency_ns % 1000 != 0))
		bad(c, "latency_us", "%llu ns, but the record's latency_us is %llu",
		    (unsigned long long)sp->latency_ns, (unsigned long long)r->latency_us);
	else if (r->tracer == LH_TRACER_TIMERLAT &&
		 (sp->has_thread ? sp->thread_latency_ns : sp->has_irq ? sp->irq_latency_ns :
		  ~sp->latency_ns) != sp->latency_ns)
		bad(c, "latency_us", "%llu ns, not its thread latency (its IRQ latency without one)",
		    (unsigned long long)sp->latency_ns);
	else if (r->tracer != LH_TRACER_TIMERLAT && (sp->has_irq || sp->has_thread))
		bad(c, "irq_latency_us", "set in a record of %s", lh_tracer_name(r->tracer));
	else if (has != sp->has_period || sp->has_period != (r->tracer == LH_TRACER_OSNOISE))
		bad(c, "noise_us", "noise_us and runtime_us are an osnoise period's, both set");
	else if (sp->noise_ns > sp->runtime_ns)
		bad(c, "noise_us", "%llu ns, more than the period's runtime of %llu ns",
		    (unsigned long long)sp->noise_ns, (unsigned long long)sp->runtime_ns);
	if (c->failed)
		goto out;
	/* the window: the timer's expiry to the thread's wakeup, or the osnoise period */
	window = sp->has_period ? sp->runtime_ns : sp->latency_ns;
	spike_task(c, v, "blocking", r, &sp->blocking, &sp->blocking_ns, window);
	spike_task(c, v, "culprit", r, &sp->culprit, &sp->culprit_ns, window);
	if (!c->failed && (sp->culprit.pid != r->task.pid ||
			   !same_str(sp->culprit.comm, r->task.comm)))
		bad(c, "culprit", "is not the record's task");
	a = array(c, v, "parts", &n);
	if (n > LH_SPIKE_PARTS)
		bad(c, "parts", "%zu parts, a spike keeps at most %d", n, LH_SPIKE_PARTS);
	for (i = 0; i < n && !c->failed; i++) {
		q = push(c, "parts", 0);
		push(c, NULL, i);
		x = element(c, a, i);
		if (x) {
			spike_part(c, x, r, &sp->parts[i], window);
			sp->nr_parts = i + 1;
			sum += sp->parts[i].overlap_ns;	/* each at most a day: no overflow */
			if (sp->parts[i].overlap_ns > longest)
				longest = sp->parts[i].overlap_ns;
		}
		pop(c, q);
	}
	n = get_u64(c, v, "more_parts");
	sp->more_parts = n > UINT_MAX ? UINT_MAX : (unsigned int)n;
	sp->more_ns = spike_ns(c, v, "more_us", false, NULL);
	sp->explained_ns = spike_ns(c, v, "explained_us", false, NULL);
	if (c->failed)
		goto out;
	if (sp->more_parts && sp->nr_parts < LH_SPIKE_PARTS)
		bad(c, "more_parts", "%u, but only %zu parts are listed", sp->more_parts,
		    sp->nr_parts);
	else if (sp->more_ns > (uint64_t)sp->more_parts * window)
		bad(c, "more_us", "%llu ns in %u parts of a window of %llu ns",
		    (unsigned long long)sp->more_ns, sp->more_parts, (unsigned long long)window);
	if (c->failed)
		goto out;
	/*
	 * What the parts explain: their overlaps summed (timerlat), the longest single one
	 * (osnoise: its latency is the period's longest noise), never past the latency.
	 */
	explained = sp->has_period ? longest : sum + sp->more_ns;
	if (explained > sp->latency_ns)
		explained = sp->latency_ns;
	if (sp->explained_ns > sp->latency_ns)
		bad(c, "explained_us", "%llu ns, more than the latency of %llu ns",
		    (unsigned long long)sp->explained_ns, (unsigned long long)sp->latency_ns);
	else if (sp->explained_ns != explained)
		bad(c, "explained_us", "%llu ns, but its parts explain %llu ns",
		    (unsigned long long)sp->explained_ns, (unsigned long long)explained);
	spike_share(c, v, "explained_permille", sp->explained_ns, sp->latency_ns);
	spike_section(c, v, r, window);
out:
	pop(c, p);
}

static void load_record(struct ctx *c, json_object *e, struct lh_record *r, struct lh_match *m)
{
	json_object *a, *x;
	const char *s;
	size_t i, n, p;
	bool known;

	s = get_str(c, e, "tracer", false, &r->arena);
	if (s) {
		r->tracer = tracer_of(s, &known);
		r->tracer_name = s;
	}
	r->latency_us = get_u64(c, e, "latency_us");
	r->cpu = get_int(c, e, "cpu", true);
	r->nr_cpus = get_int(c, e, "nr_cpus", true);
	r->preempt_model = get_str(c, e, "preempt_model", true, &r->arena);
	r->kernel = get_str(c, e, "kernel", true, &r->arena);
	load_task(c, e, "task", r, &r->task, false);
	r->started_at = get_str(c, e, "started_at", true, &r->arena);
	r->started_at_offset = get_str(c, e, "started_at_offset", true, &r->arena);
	r->ended_at = get_str(c, e, "ended_at", true, &r->arena);
	r->ended_at_offset = get_str(c, e, "ended_at_offset", true, &r->arena);
	load_stacks(c, e, r);
	if (member(c, e, "entries", json_type_int, true))
		r->entries = get_u64(c, e, "entries");
	r->entries_present = get_u64(c, e, "entries_present");
	s = get_str(c, e, "body", false, &r->arena);
	if (s && !strcmp(s, lh_body_name(LH_BODY_ELIDED)))
		r->elided = true;
	else if (s && !strcmp(s, lh_body_name(LH_BODY_CUT)))
		r->truncated = r->entries_present >= r->entries;
	else if (s && strcmp(s, lh_body_name(LH_BODY_COMPLETE)))
		bad(c, "body", "unknown body state");
	a = array(c, e, "function_counts", &n);
	for (i = 0; i < n; i++) {
		struct lh_func *f;
		const char *name;

		p = push(c, "function_counts", 0);
		push(c, NULL, i);
		x = element(c, a, i);
		if (x) {
			int64_t k = (int64_t)get_u64(c, x, "count");

			name = get_str(c, x, "name", true, &r->arena);
			f = lh_record_add_func(r, name, name ? strlen(name) : 0);
			f->count = k > UINT_MAX ? UINT_MAX : (unsigned int)k;
		}
		pop(c, p);
	}
	a = array(c, e, "irqs", &n);
	for (i = 0; i < n; i++) {
		struct lh_irq *q;
		json_object *d;

		p = push(c, "irqs", 0);
		push(c, NULL, i);
		x = element(c, a, i);
		if (x) {
			q = lh_record_add_irq(r);
			q->irq = get_int(c, x, "irq", true);
			q->name = get_str(c, x, "name", true, &r->arena);
			d = member(c, x, "duration_us", json_type_double, true);
			if (d)
				q->duration_us = (double)number_ns(c, d, "duration_us", 1000) / 1e3;
			q->ret = get_str(c, x, "ret", true, &r->arena);
		}
		pop(c, p);
	}
	load_spike(c, e, r);
	x = member(c, e, "woken", json_type_object, true);
	if (x) {
		r->has_wakeup = true;
		load_task(c, e, "woken", r, &r->woken, true);
		load_task(c, e, "waker", r, &r->waker, true);
	}
	rule_ids(c, e, "rules", &m->hits, &m->nr_hits, &m->alloc_hits);
	rule_ids(c, e, "unevaluated_rules", &m->unevaluated, &m->nr_unevaluated,
		 &m->alloc_unevaluated);
	m->accepted = get_bool(c, e, "accepted");
	for (i = 0; i < m->nr_hits; i++) {
		enum lh_severity sev = lh_rules_get(c->rep->own_rules, m->hits[i])->severity;

		if (sev != LH_SEV_IGNORE && (!m->has_worst || sev > m->worst)) {
			m->has_worst = true;
			m->worst = sev;
		}
	}
	get_source(c, e, "source", &r->arena, &r->source, &r->line);
	r->captured_ns = get_time(c, e, "captured_at");
}

/*
 * A kept record r with its match m against this report's counts: the record is one of its
 * tracer's sections and of each rule's hits, accepted exactly when an 'ignore' rule hit it,
 * and no longer than the worsts it is counted in.
 */
static void check_kept(struct ctx *c, const struct lh_record *r, const struct lh_match *m)
{
	enum lh_tracer t = (unsigned int)r->tracer < LH_TRACER_NR ? r->tracer : LH_TRACER_UNKNOWN;
	struct own_tracer *ot = &c->tracer[t];
	bool ignored = false;
	size_t i;

	ot->kept++;
	ot->kept_accepted += m->accepted;
	if (ot->kept > ot->count || ot->kept_accepted > ot->accepted ||
	    ot->kept - ot->kept_accepted > ot->count - ot->accepted)
		bad(c, NULL, "a %s record%s more than its tracer counts", lh_tracer_name(t),
		    m->accepted ? " accepted" : " not accepted");
	else if (r->latency_us > ot->worst_us || (!m->accepted && r->latency_us > ot->gate_us))
		bad(c, "latency_us", "%llu, longer than its tracer's %s",
		    (unsigned long long)r->latency_us, m->accepted ? "worst" : "worst_gated");
	for (i = 0; i < m->nr_hits && !c->failed; i++) {
		const struct lh_rule *rule = lh_rules_get(c->rep->own_rules, m->hits[i]);
		struct own_rule *or = own_rule(c, m->hits[i]);

		ignored |= rule->severity == LH_SEV_IGNORE;
		or->kept++;
		or->kept_accepted += m->accepted;
		if (!or->listed)
			bad(c, "rules", "rule '%s' is not in the report's rules", rule->id);
		else if (or->kept > or->hits || or->kept_accepted > or->accepted ||
			 or->kept - or->kept_accepted > or->hits - or->accepted)
			bad(c, "rules", "rule '%s' hits more %srecords than its hits and accepted say",
			    rule->id, m->accepted ? "accepted " : "");
		else if (r->latency_us > or->worst_us ||
			 (!m->accepted && r->latency_us > or->gate_worst_us))
			bad(c, "rules", "rule '%s' hits it, but its %s is shorter", rule->id,
			    m->accepted ? "worst_us" : "gate_worst_us");
	}
	if (!c->failed && ignored != m->accepted)
		bad(c, "accepted", "%s, but %s of its rules is 'ignore'",
		    m->accepted ? "true" : "false", ignored ? "one" : "none");
}

static void load_records(struct ctx *c, json_object *root)
{
	struct lh_match m = { 0 };
	json_object *a, *e;
	size_t i, n, p, kept;
	uint64_t total;

	a = array(c, root, "records", &n);
	for (i = 0; i < n; i++) {
		struct lh_record *r = lh_record_alloc();

		p = push(c, "records", 0);
		push(c, NULL, i);
		m.nr_hits = m.nr_unevaluated = 0;
		m.accepted = m.has_worst = false;
		e = element(c, a, i);
		if (e)
			load_record(c, e, r, &m);
		if (!c->failed)
			check_kept(c, r, &m);
		if (!c->failed)
			lh_report_keep(c->rep, r, &m, c->l->seq++);
		lh_record_free(r);
		pop(c, p);
	}
	lh_match_release(&m);
	/* each record is counted in its tracer's count */
	total = get_u64(c, root, "records_total");
	same_count(c, "records_total", total, "its tracers count", c->tracer_counts);
	ADD_COUNT(c, "records_total", c->rep->total, total);
	kept = (size_t)get_u64(c, root, "records_kept");
	if (!c->failed && kept != n)
		bad(c, "records_kept", "%zu, but 'records' holds %zu", kept, n);
	if (kept > c->l->max_kept)
		c->l->max_kept = kept;
}

static void load_input(struct ctx *c, json_object *root)
{
	const struct lh_report_fold_ops ops = LOAD_OPS(c, 0);
	json_object *o = member(c, root, "input", json_type_object, false), *a, *s;
	struct lh_parse_stats parse = { 0 };
	struct lh_report *rep = c->rep;
	size_t i, n, p, unread, accepted;

	if (!o)
		return;
	p = push(c, "input", 0);
	unread = rep->inputs_unread;
	accepted = rep->inputs_accepted;
	parse.snapshots = get_u64(c, o, "snapshots");
	parse.skipped = get_u64(c, o, "skipped");
	parse.bad_lines = get_u64(c, o, "bad_lines");
	parse.incomplete = get_u64(c, o, "incomplete");
	parse.cut_lines = get_u64(c, o, "cut_lines");
	lh_report_fold_parse(rep, &parse, get_u64(c, o, "warnings_total"), &ops);
	a = array(c, o, "warnings", &n);
	for (i = 0; i < n; i++) {
		s = json_object_array_get_idx(a, i);
		if (!json_object_is_type(s, json_type_string)) {
			bad(c, "warnings", "expected strings");
			break;
		}
		if (rep->nr_warnings >= LH_REPORT_WARNINGS)
			continue;
		LH_GROW(rep->warnings, rep->nr_warnings + 1, rep->alloc_warnings);
		rep->warnings[rep->nr_warnings++] =
			lh_xstrdup(inert(&rep->arena, json_object_get_string(s),
					 (size_t)json_object_get_string_len(s)));
	}
	a = array(c, o, "files", &n);
	for (i = 0; i < n; i++) {
		struct lh_report_input in = { 0 };
		size_t q;

		q = push(c, "files", 0);
		push(c, NULL, i);
		s = element(c, a, i);
		if (s) {
			in.name = get_str(c, s, "name", false, &rep->arena);
			in.snapshots = get_u64(c, s, "snapshots");
			in.skipped = get_u64(c, s, "skipped");
			in.problem = get_str(c, s, "problem", true, &rep->arena);
			if (in.problem)
				in.accepted = get_bool(c, s, "accepted");
			if (in.name)
				lh_report_add_input(rep, &in);
		}
		pop(c, q);
	}
	/* Derived from the files: a report that says otherwise is not one lathound wrote. */
	n = get_u64(c, o, "unread");
	if (!c->failed && n != rep->inputs_unread - unread)
		bad(c, "unread", "%zu, but 'files' lists %zu inputs not read", n,
		    rep->inputs_unread - unread);
	n = get_u64(c, o, "unread_accepted");
	if (!c->failed && n != rep->inputs_accepted - accepted)
		bad(c, "unread_accepted", "%zu, but 'files' lists %zu accepted", n,
		    rep->inputs_accepted - accepted);
	pop(c, p);
}

/* The run: its fields into *run (strings in the report's arena). Return: false when null. */
static bool load_run(struct ctx *c, json_object *root, const char *mode, struct lh_run_info *run,
		     uint64_t *duration_ns)
{
	json_object *o = member(c, root, "run", json_type_object, true), *nm;
	struct lh_arena *a = &c->rep->arena;
	size_t p;

	memset(run, 0, sizeof(*run));
	run->command_status = -1;
	if (!o)
		return false;
	p = push(c, "run", 0);
	run->mode = mode;
	run->started_ns = get_time(c, o, "started_at");
	run->ended_ns = get_time(c, o, "ended_at");
	*duration_ns = get_ns(c, o, "duration_s", 1e9);
	run->threshold_ns = get_ns(c, o, "threshold_us", 1000);
	run->captures = get_u64(c, o, "captures");
	run->sections_lost = get_u64(c, o, "sections_lost");
	/* Optional: reports before live reads have none. */
	if (json_object_object_get_ex(o, "sections_torn", NULL))
		run->sections_torn = get_u64(c, o, "sections_torn");
	run->snapshots_dropped = get_u64(c, o, "snapshots_dropped");
	run->wait_method = get_str(c, o, "wait_method", true, a);
	run->command = get_str(c, o, "command", true, a);
	run->command_status = get_int(c, o, "command_status", true);
	run->end_reason = get_str(c, o, "end_reason", true, a);
	run->kernel = get_str(c, o, "kernel", true, a);
	run->host = get_str(c, o, "host", true, a);
	run->run_id = get_str(c, o, "run_id", true, a);
	nm = member(c, o, "not_measured", json_type_object, false);
	if (nm) {
		json_object_object_foreach(nm, key, v) {
			enum lh_tracer t;
			bool known;

			t = tracer_of(key, &known);
			if (!known || t == LH_TRACER_UNKNOWN ||
			    !json_object_is_type(v, json_type_string)) {
				bad(c, "not_measured", "'%s' is not a tracer with a reason",
				    inert(a, key, strlen(key)));
				continue;
			}
			run->not_measured[t] = inert(a, json_object_get_string(v),
						     (size_t)json_object_get_string_len(v));
		}
	}
	pop(c, p);
	return true;
}

static void load_irq_stats(struct ctx *c, json_object *root)
{
	json_object *o = member(c, root, "irq_stats", json_type_object, true), *a, *e, *h;
	struct lh_report *rep = c->rep;
	uint64_t events, sum = 0, k;
	size_t i, j, n, nh, p, q;

	if (!o)
		return;
	if (!rep->has_run) {
		bad(c, "irq_stats", "present without a run");
		return;
	}
	if (!rep->own_irqstat)
		rep->own_irqstat = lh_irqstat_alloc();
	rep->run.irqstat = rep->own_irqstat;
	p = push(c, "irq_stats", 0);
	events = get_u64(c, o, "events");
	lh_irqstat_add_lost(rep->own_irqstat, get_u64(c, o, "lost"));
	lh_irqstat_add_dropped(rep->own_irqstat, get_u64(c, o, "dropped"));
	a = array(c, o, "handlers", &n);
	for (i = 0; i < n; i++) {
		struct lh_irqstat_entry ent = { 0 };
		uint64_t counted = 0;
		const char *name;

		q = push(c, "handlers", 0);
		push(c, NULL, i);
		e = element(c, a, i);
		ent.irq = get_int(c, e, "irq", false);
		ent.cpu = get_int(c, e, "cpu", false);
		name = get_str(c, e, "name", false, &rep->arena);
		snprintf(ent.name, sizeof(ent.name), "%s", name ? name : "");
		ent.count = get_u64(c, e, "count");
		ent.max_ns = get_ns(c, e, "max_us", 1000);
		ent.sum_ns = get_ns(c, e, "mean_us", 1000) * ent.count;
		h = array(c, e, "histogram", &nh);
		for (j = 0; j < nh; j++) {
			json_object *b = json_object_array_get_idx(h, j);
			uint64_t le;

			if (!json_object_is_type(b, json_type_object)) {
				bad(c, "histogram", "expected objects");
				break;
			}
			le = get_ns(c, b, "le_us", 1000);
			if (le < 2 || (le & (le - 1)) || __builtin_ctzll(le) > LH_IRQSTAT_BUCKETS) {
				/* (a le_us that is no number is said by get_ns()) */
				if (!c->failed)
					bad(c, "histogram", "le_us %s is not a power of two of ns",
					    json_object_get_string(json_object_object_get(b,
											  "le_us")));
				break;
			}
			k = get_u64(c, b, "count");
			/* no bucket wraps unless the sum saturates: then it is not the count */
			counted = lh_sat_add(counted, k);
			ent.hist[__builtin_ctzll(le) - 1] += k;
		}
		/* each run is counted in both histograms */
		same_count(c, "count", ent.count, "its histogram counts", counted);
		same_count(c, "count", ent.count, "its distribution counts",
			   get_hist(c, e, "distribution", &ent.dist));
		sum = lh_sat_add(sum, ent.count);
		if (!c->failed && lh_irqstat_merge_entry(rep->own_irqstat, &ent))
			bad(c, NULL, "the handler does not fit the statistics read before");
		lh_histogram_release(&ent.dist);
		pop(c, q);
	}
	same_count(c, "events", events, "the handlers count", sum);
	pop(c, p);
}

/* Return: the index in all of the caller of symbol sym (of hash h) in t, or UINT32_MAX. */
static uint32_t caller_find(const struct lh_htab *t, const struct lh_report_caller *all,
			    uint64_t h, const char *sym)
{
	size_t pos = 0;
	uint32_t k;

	while (lh_htab_find(t, h, &pos, &k))
		if (!strcmp(all[k].symbol, sym))
			return k;
	return UINT32_MAX;
}

/*
 * The callers of a kernel histogram (optional: reports before them have none), added to
 * those of the same histogram read before: counts summed, maxima kept, longest first.
 */
static void load_callers(struct ctx *c, json_object *e, struct lh_report_histogram *kh)
{
	struct lh_report_caller *all = NULL, x;
	struct lh_htab by_symbol = { 0 };
	size_t i, n, nr = 0, alloc = 0;
	const char *note;
	json_object *a, *o;
	uint32_t k;
	uint64_t h;

	for (i = 0; i < kh->nr_callers; i++) {
		LH_GROW(all, nr + 1, alloc);
		all[nr] = kh->callers[i];
		h = lh_hash(all[nr].symbol, strlen(all[nr].symbol), 0);
		lh_htab_add(&by_symbol, h, (uint32_t)nr++);
	}
	a = array(c, e, "callers", &n);
	note = get_str(c, e, "callers_note", true, &c->rep->arena);
	for (i = 0; i < n && !c->failed; i++) {
		size_t q = push(c, "callers", 0);

		push(c, NULL, i);
		o = element(c, a, i);
		x.symbol = (char *)get_str(c, o, "symbol", false, &c->rep->arena);
		x.count = get_u64(c, o, "count");
		x.max_ns = get_ns(c, o, "max_us", 1000);
		pop(c, q);
		if (c->failed)
			break;
		h = lh_hash(x.symbol, strlen(x.symbol), 0);
		k = caller_find(&by_symbol, all, h, x.symbol);
		if (k == UINT32_MAX) {
			LH_GROW(all, nr + 1, alloc);
			all[nr] = x;
			lh_htab_add(&by_symbol, h, (uint32_t)nr++);
			continue;
		}
		all[k].count = lh_sat_add(all[k].count, x.count);
		all[k].max_ns = all[k].max_ns > x.max_ns ? all[k].max_ns : x.max_ns;
	}
	if (!c->failed)
		lh_report_histogram_set_callers(kh, all, nr, LH_HIST_TOP_CALLERS,
						note ? note : kh->callers_note);
	lh_htab_release(&by_symbol);
	free(all);
}

static void load_hists(struct ctx *c, json_object *root)
{
	struct lh_report *rep = c->rep;
	json_object *a, *e;
	size_t i, n, p;

	a = array(c, root, "histograms", &n);
	for (i = 0; i < n; i++) {
		struct lh_report_histogram *kh;
		const char *source, *kind;
		int cpu;

		p = push(c, "histograms", 0);
		push(c, NULL, i);
		e = element(c, a, i);
		source = get_str(c, e, "source", false, &rep->arena);
		kind = get_str(c, e, "kind", false, &rep->arena);
		cpu = get_int(c, e, "cpu", true);
		if (c->failed) {
			pop(c, p);
			continue;
		}
		kh = lh_report_khist(rep, source, kind, cpu);
		/* the histogram's own fields are at the entry's level */
		get_hist_fields(c, e, &kh->h);
		if (json_object_object_get_ex(e, "callers", NULL))
			load_callers(c, e, kh);
		pop(c, p);
	}
}

/* The gate's "min_available_percent" ({} or {"osnoise": PCT}; absent before it: none). */
static void load_min_available(struct ctx *c, json_object *o, struct lh_gate *g)
{
	json_object *m, *v;
	double d;

	if (!json_object_object_get_ex(o, "min_available_percent", NULL))
		return;
	m = member(c, o, "min_available_percent", json_type_object, false);
	if (!m)
		return;
	json_object_object_foreach(m, key, val) {
		(void)val;
		if (strcmp(key, "osnoise")) {
			bad(c, "min_available_percent", "'%s' is not osnoise",
			    inert(&c->rep->arena, key, strlen(key)));
			return;
		}
	}
	if (!json_object_object_get_ex(m, "osnoise", NULL))
		return;
	v = member(c, m, "osnoise", json_type_double, false);
	if (!v)
		return;
	d = json_object_get_double(v) * 1000;
	if (!isfinite(d) || d < 0 || d > 100000 || fabs(d - round(d)) > 1e-6) {
		bad(c, "min_available_percent", "%s is not a percentage with at most 3 decimals",
		    json_object_get_string(v));
		return;
	}
	g->has_min_available = true;
	g->min_available_milli = (uint32_t)llround(d);
}

static void load_gate(struct ctx *c, json_object *root, struct lh_gate *g)
{
	json_object *o = member(c, root, "gate", json_type_object, false), *m;
	const char *fail_on, *err;
	size_t p;

	lh_gate_init(g);
	if (!o)
		return;
	p = push(c, "gate", 0);
	m = member(c, o, "max_us", json_type_object, false);
	if (m) {
		json_object_object_foreach(m, key, v) {
			enum lh_tracer t;
			bool known;

			t = tracer_of(key, &known);
			if ((!known || t == LH_TRACER_UNKNOWN) && strcmp(key, "all")) {
				bad(c, "max_us", "'%s' is not a tracer", inert(&c->rep->arena, key,
									      strlen(key)));
				continue;
			}
			if (!json_object_is_type(v, json_type_int) &&
			    !json_object_is_type(v, json_type_double)) {
				bad(c, "max_us", "%s: expected a number", key);
				continue;
			}
			g->has_max[t] = true;
			g->max_ns[t] = number_ns(c, v, "max_us", 1000);
		}
	}
	load_min_available(c, o, g);
	fail_on = get_str(c, o, "fail_on", false, &c->rep->arena);
	if (fail_on && lh_gate_parse_fail_on(g, fail_on, &err))
		bad(c, "fail_on", "%s", err);
	pop(c, p);
}

static bool same_budgets(const struct lh_gate *a, const struct lh_gate *b)
{
	int t;

	if (a->has_min_available != b->has_min_available ||
	    (a->has_min_available && a->min_available_milli != b->min_available_milli))
		return false;
	for (t = 0; t < LH_TRACER_NR; t++)
		if (a->has_max[t] != b->has_max[t] ||
		    (a->has_max[t] && a->max_ns[t] != b->max_ns[t]))
			return false;
	return true;
}

/* The report's board and run, and whether they fit those read before. */
static void check_input(struct ctx *c, const struct lh_run_info *run, const char *board)
{
	struct lh_report_loader *l = c->l;
	const char *kernel = run->kernel ? run->kernel : lh_report_kernel(l->rep);
	struct input *in;
	uint32_t first;
	size_t i;

	LH_GROW(l->inputs, l->nr_inputs + 1, l->alloc_inputs);
	in = &l->inputs[l->nr_inputs++];
	in->name = lh_xstrdup(c->name);
	in->board = board ? lh_xstrdup(board) : NULL;
	in->host = run->host ? lh_xstrdup(run->host) : NULL;
	in->kernel = kernel ? lh_xstrdup(kernel) : NULL;
	in->run_id = run->run_id ? lh_xstrdup(run->run_id) : NULL;
	if (lh_report_run_seen(&l->runs, in->run_id, (uint32_t)(l->nr_inputs - 1), &first)) {
		bad(c, NULL, "the same run (run_id %s) as '%s': merging would count it twice",
		    in->run_id, l->inputs[first].name);
		return;
	}
	for (i = 0; i + 1 < l->nr_inputs; i++) {
		const struct input *o = &l->inputs[i];

		if (!in->board != !o->board || (in->board && strcmp(in->board, o->board)))
			bad(c, NULL, "board '%s', but '%s' is of board '%s': only reports of one board merge here",
			    in->board ? in->board : "(none)", o->name, o->board ? o->board : "(none)");
		else if (in->host && o->host && strcmp(in->host, o->host))
			bad(c, NULL, "host '%s', but '%s' is of host '%s': only reports of one board merge here",
			    in->host, o->name, o->host);
		else if (in->kernel && o->kernel && strcmp(in->kernel, o->kernel))
			bad(c, NULL, "kernel '%s', but '%s' is of kernel '%s': only reports of one board merge here",
			    in->kernel, o->name, o->kernel);
		else
			continue;
		break;
	}
}

static void add_merged(struct lh_report_loader *l, const char *name)
{
	LH_GROW(l->merged, l->nr_merged + 1, l->alloc_merged);
	l->merged[l->nr_merged++] = lh_xstrdup(name);
}

/*
 * Return: the kind of this report's error err: LH_VERDICT_UNDECIDED when it is the error its
 * own gate g derives from its rules' counts (a claim checked against the data, as the
 * verdict is, never told by its words), else LH_VERDICT_RUN.
 */
static enum lh_verdict_kind error_kind_of(struct ctx *c, const struct lh_gate *g,
					  const char *err)
{
	enum lh_verdict_kind kind = LH_VERDICT_RUN;
	char *derived;
	size_t i;

	/* (listed_desc may have moved while it grew: point at it now) */
	for (i = 0; i < c->nr_listed; i++)
		c->listed[i].rule = &c->listed_desc[i];
	derived = lh_report_undecided_error(c->listed, c->nr_listed, g);
	if (derived && !strcmp(derived, err))
		kind = LH_VERDICT_UNDECIDED;
	free(derived);
	return kind;
}

static int load(struct ctx *c, json_object *root)
{
	const struct lh_report_fold_ops ops = LOAD_OPS(c, 0);
	struct lh_report_loader *l = c->l;
	struct lh_report *rep = c->rep;
	struct lh_run_info run;
	uint64_t duration_ns = 0;
	json_object *v, *a;
	const char *mode, *verdict, *error, *board = NULL;
	struct lh_gate gate;
	size_t i, n;
	int64_t version;

	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "lathound", NULL)) {
		bad(c, NULL, "not a lathound report");
		return -1;
	}
	if (!json_object_object_get_ex(root, "report_version", &v) ||
	    !json_object_is_type(v, json_type_int)) {
		bad(c, NULL, "no report_version: written by a lathound older than this reader knows");
		return -1;
	}
	version = json_object_get_int64(v);
	if (version != LH_REPORT_VERSION) {
		v = json_object_object_get(root, "lathound");
		bad(c, NULL, "report_version %lld (written by lathound %s), but this lathound (%s) reads version %d%s",
		    (long long)version, json_object_is_type(v, json_type_string) ?
		    inert(&rep->arena, json_object_get_string(v),
			  (size_t)json_object_get_string_len(v)) : "?",
		    LH_VERSION, LH_REPORT_VERSION,
		    version > LH_REPORT_VERSION ? ": a newer lathound wrote it" : "");
		return -1;
	}
	mode = get_str(c, root, "mode", false, &rep->arena);
	if (mode && strcmp(mode, "analyze") && strcmp(mode, "record"))
		bad(c, "mode", "'%s' is neither analyze nor record", mode);
	verdict = get_str(c, root, "verdict", false, &rep->arena);
	if (verdict && strcmp(verdict, "pass") && strcmp(verdict, "fail") &&
	    strcmp(verdict, "error"))
		bad(c, "verdict", "'%s' is not pass, fail or error", verdict);
	error = get_str(c, root, "error", true, &rep->arena);
	if (!c->failed && (error != NULL) != !strcmp(verdict, "error"))
		bad(c, "error", "%s with the verdict '%s'", error ? "set" : "null", verdict);
	/* "board" came with --board: a report written before says none */
	if (json_object_object_get_ex(root, "board", NULL))
		board = get_str(c, root, "board", true, &rep->arena);
	load_gate(c, root, &gate);
	if (load_run(c, root, mode, &run, &duration_ns)) {
		if (mode && strcmp(mode, "record"))
			bad(c, "run", "present in a report of mode '%s'", mode);
		lh_report_fold_run(rep, &run, duration_ns, &ops);
	}
	if (c->failed)
		return -1;
	load_rules(c, root);
	load_tracers(c, root);
	load_offenders(c, root);
	load_records(c, root);
	load_input(c, root);
	load_irq_stats(c, root);
	load_hists(c, root);
	a = array(c, root, "merged_from", &n);
	for (i = 0; i < n; i++) {
		v = json_object_array_get_idx(a, i);
		if (!json_object_is_type(v, json_type_string)) {
			bad(c, "merged_from", "expected report names");
			break;
		}
		add_merged(l, inert(&rep->arena, json_object_get_string(v),
				    (size_t)json_object_get_string_len(v)));
	}
	if (!n)
		add_merged(l, c->name);
	if (c->failed)
		return -1;
	check_input(c, &run, board);
	if (c->failed)
		return -1;
	rep->opts.board = board;

	if (l->nr_inputs == 1) {
		l->gate = gate;
		l->verdict = lh_xstrdup(verdict);
	} else if (!l->differ && (!same_budgets(&l->gate, &gate) ||
				  l->gate.fail_on != gate.fail_on)) {
		l->budgets_differ = !same_budgets(&l->gate, &gate);
		l->fail_on_differ = l->gate.fail_on != gate.fail_on;
		l->differ = lh_xstrdup(c->name);
	}
	/* an error of the run stays; one the gates derive is derived again */
	if (error && error_kind_of(c, &gate, error) != LH_VERDICT_UNDECIDED) {
		char *why = l->nr_inputs == 1 ? lh_xstrdup(error) :
			    lh_xasprintf("'%s': %s", c->name, error);

		lh_report_set_error(rep, why);
		free(why);
	}
	return 0;
}

struct lh_report_loader *lh_report_loader_alloc(const struct lh_report_load_opts *o)
{
	struct lh_report_loader *l = lh_xcalloc(1, sizeof(*l));

	if (o)
		l->o = *o;
	l->rep = lh_report_fold_alloc();
	return l;
}

void lh_report_loader_free(struct lh_report_loader *l)
{
	size_t i;

	if (!l)
		return;
	lh_report_free(l->rep);
	lh_htab_release(&l->runs);
	for (i = 0; i < l->nr_inputs; i++) {
		free(l->inputs[i].name);
		free(l->inputs[i].board);
		free(l->inputs[i].host);
		free(l->inputs[i].kernel);
		free(l->inputs[i].run_id);
	}
	free(l->inputs);
	for (i = 0; i < l->nr_merged; i++)
		free(l->merged[i]);
	free(l->merged);
	free(l->differ);
	free(l->verdict);
	free(l);
}

/*
 * Return: about what json-c takes to hold the tree of buf[0..len), from its structure alone:
 * an object about 800 bytes (its hash table), an array 160, a member or element 100 (json-c
 * 0.16 on 64-bit: RSS of 200,000 of each, less the buffer).
 */
static uint64_t tree_bytes(const char *buf, size_t len)
{
	uint64_t objects = 0, arrays = 0, items = 1;
	bool in_str = false;
	size_t i;

	for (i = 0; i < len; i++) {
		char ch = buf[i];

		if (in_str) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_str = false;
			continue;
		}
		switch (ch) {
		case '"':
			in_str = true;
			break;
		case '{':
			objects++;
			break;
		case '[':
			arrays++;
			break;
		case ',':
		case ':':
			items++;
			break;
		}
	}
	return objects * 800 + arrays * 160 + items * 100;
}

int lh_report_loader_add(struct lh_report_loader *l, const char *name, const char *buf,
			 size_t len, struct lh_diag *diag)
{
	char *shown = lh_record_escape_dup(name);
	struct ctx c = { .l = l, .rep = l->rep, .name = shown, .diag = diag };
	struct json_tokener *tok;
	json_object *root;
	int ret;

	if (!l->rep) {
		lh_diag_add(diag, LH_DIAG_ERROR, "report '%s': the reading already ended", shown);
		free(shown);
		return -1;
	}
	if (len > LH_REPORT_MAX_BYTES || tree_bytes(buf, len) > TREE_FACTOR * len + TREE_SLACK) {
		lh_diag_add(diag, LH_DIAG_ERROR, len > LH_REPORT_MAX_BYTES ?
			    "report '%s': larger than %d MiB, more than a report of lathound's holds" :
			    "report '%s': its structure would take more than %d times its size in memory: not a report lathound wrote",
			    shown, len > LH_REPORT_MAX_BYTES ? (int)(LH_REPORT_MAX_BYTES >> 20) :
			    TREE_FACTOR);
		free(shown);
		return -1;
	}
	tok = json_tokener_new();
	if (!tok)
		lh_oom();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = len > INT_MAX ? NULL : json_tokener_parse_ex(tok, buf, (int)len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) < len) {
		enum json_tokener_error e = json_tokener_get_error(tok);
		size_t end = json_tokener_get_parse_end(tok);

		/* what follows the value must be white space only */
		while (root && e == json_tokener_success && end < len &&
		       strchr(" \t\r\n", buf[end]) && buf[end])
			end++;
		if (!root || e != json_tokener_success || end < len) {
			lh_diag_add(diag, LH_DIAG_ERROR, "report '%s': not JSON: %s at byte %zu",
				    shown, root && e == json_tokener_success ?
				    "data after the report" : len ? json_tokener_error_desc(e) :
				    "the file is empty", end);
			json_object_put(root);
			json_tokener_free(tok);
			free(shown);
			return -1;
		}
	}
	json_tokener_free(tok);
	ret = load(&c, root);
	free(c.rule);
	free(c.listed);
	free(c.listed_desc);
	json_object_put(root);
	free(shown);
	return ret;
}

int lh_report_loader_add_file(struct lh_report_loader *l, const char *path,
			      struct lh_diag *diag)
{
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	size_t alloc = 0, len = 0;
	char *buf = NULL;
	int fd, ret;

	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		char *shown = lh_record_escape_dup(path);

		lh_diag_add(diag, LH_DIAG_ERROR, "cannot open report '%s': %s", shown,
			    strerror(errno));
		free(shown);
		return -1;
	}
	if (!is_stdin) {
		/* a FIFO was opened without waiting for a writer: read it like a file */
		int fl = fcntl(fd, F_GETFL);

		if (fl >= 0)
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	ret = lh_read_fd(fd, &buf, &alloc, &len, LH_REPORT_MAX_BYTES + 8192);
	if (ret && errno == EFBIG) {
		/* (said by lh_report_loader_add(), as for a buffer) */
		ret = 0;
		len = LH_REPORT_MAX_BYTES + 1;
	} else if (ret) {
		char *shown = lh_record_escape_dup(path);

		lh_diag_add(diag, LH_DIAG_ERROR, "cannot read report '%s': %s", shown,
			    strerror(errno));
		free(shown);
	}
	if (!is_stdin)
		close(fd);
	if (!ret)
		ret = lh_report_loader_add(l, name, buf ? buf : "", len, diag);
	free(buf);
	return ret;
}

struct lh_report *lh_report_load_file(const char *path, struct lh_diag *diag, char **why)
{
	struct lh_report_loader *l = lh_report_loader_alloc(NULL);
	struct lh_report *rep = NULL;
	size_t i, first = diag->nr;

	*why = NULL;
	if (!lh_report_loader_add_file(l, path, diag))
		rep = lh_report_loader_finish(l, diag);
	lh_report_loader_free(l);
	for (i = first; !rep && !*why && i < diag->nr; i++)
		if (diag->msgs[i].level == LH_DIAG_ERROR)
			*why = lh_xstrdup(diag->msgs[i].text);
	if (!rep && !*why) {
		char *shown = lh_record_escape_dup(path);

		*why = lh_xasprintf("cannot read report '%s'", shown);
		free(shown);
	}
	return rep;
}

static int cmp_step(const void *a, const void *b)
{
	const struct lh_report_step *x = a, *y = b;

	if (x->at_ns != y->at_ns)
		return x->at_ns < y->at_ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Each tracer's progression in time order (steps without a time first, in reading order),
 * a step kept only where it beats its CPU's maximum so far: what the run (or the runs,
 * merged) would have recorded.
 */
static void order_progressions(struct lh_report *rep)
{
	int t;

	for (t = 0; t < LH_TRACER_NR; t++) {
		struct lh_report_tracer *tr = &rep->tracers[t];
		size_t i, k = 0, slot;

		/* qsort is not stable: ties are broken by the address, the reading order */
		if (tr->nr_steps > 1)	/* (none: steps may be NULL, which UBSan flags) */
			qsort(tr->steps, tr->nr_steps, sizeof(*tr->steps), cmp_step);
		for (slot = 0; slot < tr->nr_cpus; slot++) {
			tr->cpus[slot].steps = 0;
			tr->cpus[slot].seen = false;
		}
		for (i = 0; i < tr->nr_steps; i++) {
			struct lh_report_step *s = &tr->steps[i];
			struct lh_report_cpu *c = lh_report_cpu_slot(tr, s->cpu);

			if (!c || (c->seen && s->latency_us <= c->max_us))
				continue;
			c->seen = true;
			c->max_us = s->latency_us;
			if (c->steps >= LH_REPORT_STEPS) {
				tr->steps_dropped++;
				continue;
			}
			c->steps++;
			tr->steps[k++] = *s;
		}
		tr->nr_steps = k;
		/* the maxima are those of every record, stepped or not */
		for (slot = 0; slot < tr->nr_cpus; slot++) {
			struct lh_report_cpu *c = &tr->cpus[slot];

			if (c->worst && c->worst->set) {
				c->seen = true;
				c->max_us = c->worst->latency_us;
			}
		}
	}
}

struct lh_report *lh_report_loader_finish(struct lh_report_loader *l, struct lh_diag *diag)
{
	struct lh_report *rep = l->rep;
	struct lh_gate gate = l->gate;
	const char *verdict;
	size_t i, keep;
	int t;

	if (!rep || !l->nr_inputs) {
		lh_diag_add(diag, LH_DIAG_ERROR, "no report was read");
		return NULL;
	}
	if ((l->budgets_differ && !l->o.max) || (l->fail_on_differ && !l->o.fail_on)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "report '%s' was judged by other gates (%s) than '%s': give the gates to judge them all by (%s)",
			    l->differ, l->budgets_differ ? "--max" : "--fail-on", l->inputs[0].name,
			    l->budgets_differ ? "--max" : "--fail-on");
		return NULL;
	}
	for (i = 0; l->nr_inputs > 1 && i < l->nr_inputs; i++)
		if (!l->inputs[i].host || !l->inputs[i].kernel)
			lh_diag_add(diag, LH_DIAG_WARNING, "report '%s' does not say its %s: it cannot be checked to be of the same board",
				    l->inputs[i].name, !l->inputs[i].host ? "host" : "kernel");
	order_progressions(rep);
	keep = l->o.keep ? l->o.keep : l->max_kept;
	lh_report_trim_kept(rep, keep);
	rep->opts.keep = keep;
	if (rep->own_irqstat)
		lh_irqstat_sort(rep->own_irqstat);
	if (l->nr_inputs > 1 || l->nr_merged > 1) {
		rep->merged_from = l->merged;
		rep->nr_merged_from = rep->alloc_merged_from = l->nr_merged;
		l->merged = NULL;
		l->nr_merged = 0;
	}
	if (l->o.max) {
		for (t = 0; t < LH_TRACER_NR; t++) {
			gate.has_max[t] = l->o.max->has_max[t];
			gate.max_ns[t] = l->o.max->max_ns[t];
		}
		gate.has_min_available = l->o.max->has_min_available;
		gate.min_available_milli = l->o.max->min_available_milli;
	}
	if (l->o.fail_on)
		gate.fail_on = l->o.fail_on->fail_on;
	lh_report_evaluate(rep, &gate);
	verdict = rep->verdict.error ? "error" : rep->passed ? "pass" : "fail";
	if (l->nr_inputs == 1 && !l->o.max && !l->o.fail_on && strcmp(verdict, l->verdict)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "report '%s': its verdict is '%s', but its data judged by its own gates give '%s': the report is inconsistent",
			    l->inputs[0].name, l->verdict, verdict);
		return NULL;
	}
	l->rep = NULL;
	return rep;
}
