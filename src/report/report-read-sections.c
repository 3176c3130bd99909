// SPDX-License-Identifier: GPL-2.0-only
/*
 * A saved report's sections read into the report being built (report-read.h): each tracer, rule,
 * offender, input, run, IRQ statistics, kernel histogram and gate is read into a value of its
 * own, checked against what it summarizes and folded in (report-fold.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/hist.h"
#include "report-read.h"
#include "rules/rules.h"
#include "trace/record.h"

/*
 * The fields of a histogram object (doc/report-json.md) in v, added to h.
 * Return: the count it states (0 when it states none).
 */
static uint64_t get_hist_fields(struct lh_report_read *c, json_object *v, struct lh_histogram *h)
{
	json_object *a, *b;
	struct lh_histogram x = { 0 };
	enum lh_report_fold_status why;
	uint64_t count, sum = 0;
	size_t i, n;
	const char *unit;

	unit = lh_report_read_str(c, v, "unit", false, &c->rep->arena);
	if (unit && strcmp(unit, "us"))
		lh_report_read_bad(c, "unit", "'%s' is not \"us\"", unit);
	a = lh_report_read_member(c, v, "buckets", json_type_array, false);
	n = a ? json_object_array_length(a) : 0;
	for (i = 0; i < n; i++) {
		size_t q = lh_report_read_push(c, "buckets", 0);
		uint64_t lo, hi, k;

		lh_report_read_push(c, NULL, i);
		b = json_object_array_get_idx(a, i);
		if (!json_object_is_type(b, json_type_object)) {
			lh_report_read_bad(c, NULL, "expected an object");
			lh_report_read_pop(c, q);
			continue;
		}
		lo = lh_report_read_ns(c, b, "lo", 1000);
		hi = lh_report_read_ns(c, b, "hi", 1000);
		k = lh_report_read_u64(c, b, "count");
		if (!c->failed && lh_histogram_add_bucket(&x, lo, hi, k))
			lh_report_read_bad(c, NULL,
					   "bucket [%llu, %llu) ns is empty or overlaps another",
					   (unsigned long long)lo, (unsigned long long)hi);
		lh_report_read_pop(c, q);
	}
	count = lh_report_read_u64(c, v, "count");
	lh_report_read_same_count(c, "count", count, "the buckets count", x.count);
	if (count) {
		json_object *mean = lh_report_read_member(c, v, "mean", json_type_double, false);

		x.min_ns = lh_report_read_ns(c, v, "min", 1000);
		x.max_ns = lh_report_read_ns(c, v, "max", 1000);
		/* the mean is kept to the ns: so is the sum, to count/2 ns */
		sum = mean ? lh_sat_mul(lh_report_read_number_ns(c, mean, "mean", 1000), count) : 0;
	}
	x.sum_ns = sum;
	x.dropped = lh_report_read_u64(c, v, "dropped");
	why = c->failed ? LH_REPORT_FOLD_OK : lh_report_fold_hist(h, &x);
	if (why == LH_REPORT_FOLD_OVERFLOW)
		lh_report_read_overflowed(c, NULL);
	else if (why == LH_REPORT_FOLD_MISFIT)
		lh_report_read_misfitted(c, NULL);
	lh_histogram_release(&x);
	return count;
}

/* The histogram object member key of o, added to h. Return: the count it states. */
static uint64_t get_hist(struct lh_report_read *c, json_object *o, const char *key,
			 struct lh_histogram *h)
{
	json_object *v = lh_report_read_member(c, o, key, json_type_object, false);
	uint64_t count;
	size_t p;

	if (!v)
		return 0;
	p = lh_report_read_push(c, key, 0);
	count = get_hist_fields(c, v, h);
	lh_report_read_pop(c, p);
	return count;
}

/* Return: a where object (or null) as *w; false when null or bad. */
static bool get_where(struct lh_report_read *c, json_object *o, const char *key,
		      struct lh_report_where *w)
{
	json_object *v = lh_report_read_member(c, o, key, json_type_object, true), *t;
	struct lh_arena *a = &c->rep->arena;
	const char *s;
	size_t p;

	memset(w, 0, sizeof(*w));
	if (!v)
		return false;
	p = lh_report_read_push(c, key, 0);
	w->set = true;
	w->latency_us = lh_report_read_u64(c, v, "latency_us");
	w->cpu = lh_report_read_int(c, v, "cpu", true);
	t = lh_report_read_member(c, v, "task", json_type_object, false);
	if (t) {
		size_t q = lh_report_read_push(c, "task", 0);

		s = lh_report_read_str(c, t, "comm", true, a);
		snprintf(w->comm, sizeof(w->comm), "%s", s ? s : "");
		w->pid = lh_report_read_int(c, t, "pid", true);
		lh_report_read_pop(c, q);
	}
	s = lh_report_read_str(c, v, "started_at", true, a);
	snprintf(w->started, sizeof(w->started), "%s", s ? s : "");
	s = lh_report_read_str(c, v, "ended_at", true, a);
	snprintf(w->ended, sizeof(w->ended), "%s", s ? s : "");
	lh_report_read_source(c, v, "source", a, &w->source, &w->line);
	s = lh_report_read_str(c, v, "irq", true, a);
	snprintf(w->irq, sizeof(w->irq), "%s", s ? s : "");
	s = lh_report_read_str(c, v, "rule", true, a);
	snprintf(w->rule, sizeof(w->rule), "%s", s ? s : "");
	lh_report_read_pop(c, p);
	return !c->failed;
}

/*
 * The per-CPU view of a tracer, into tr (a tracer of this report alone): a CPU listed twice
 * is an error, not a sum. Return: the sum of the CPUs' counts (saturated).
 */
static uint64_t load_cpus(struct lh_report_read *c, json_object *o, struct lh_report_tracer *tr)
{
	bool listed[LH_REPORT_MAX_CPUS + 1] = { 0 };
	json_object *a, *e;
	uint64_t sum = 0;
	size_t i, n, p;

	a = lh_report_read_array(c, o, "cpus", &n);
	for (i = 0; i < n; i++) {
		struct lh_report_where w;
		struct lh_report_cpu *slot;
		int cpu;

		p = lh_report_read_push(c, "cpus", 0);
		lh_report_read_push(c, NULL, i);
		e = lh_report_read_element(c, a, i);
		cpu = lh_report_read_int(c, e, "cpu", true);
		slot = e ? lh_report_cpu_slot(tr, cpu) : NULL;
		if (e && !slot)
			lh_report_read_bad(c, "cpu", "CPU %d is beyond the %d a report tracks", cpu,
					   LH_REPORT_MAX_CPUS);
		if (slot && listed[cpu + 1]) {
			lh_report_read_bad(c, "cpu", "CPU %d is listed twice", cpu);
			slot = NULL;
		}
		if (slot) {
			uint64_t count = lh_report_read_u64(c, e, "count");

			listed[cpu + 1] = true;
			slot->count = count;
			sum = lh_sat_add(sum, count);
			lh_report_read_u64(c, e, "max_us");
			lh_report_read_same_count(c, "count", count, "its histogram counts",
						  get_hist(c, e, "histogram", &slot->dist));
			if (get_where(c, e, "worst", &w)) {
				slot->worst = lh_xcalloc(1, sizeof(*slot->worst));
				*slot->worst = w;
			}
		}
		lh_report_read_pop(c, p);
	}
	return sum;
}

static void load_progression(struct lh_report_read *c, json_object *o, struct lh_report_tracer *tr)
{
	json_object *a, *e;
	size_t i, n, p;

	a = lh_report_read_array(c, o, "progression", &n);
	for (i = 0; i < n; i++) {
		struct lh_report_step *s;

		p = lh_report_read_push(c, "progression", 0);
		lh_report_read_push(c, NULL, i);
		e = lh_report_read_element(c, a, i);
		if (e) {
			LH_GROW(tr->steps, tr->nr_steps + 1, tr->alloc_steps);
			s = &tr->steps[tr->nr_steps++];
			s->cpu = lh_report_read_int(c, e, "cpu", true);
			s->latency_us = lh_report_read_u64(c, e, "latency_us");
			s->at_ns = lh_report_read_time(c, e, "at");
			lh_report_read_source(c, e, "source", &c->rep->arena, &s->source, &s->line);
		}
		lh_report_read_pop(c, p);
	}
	tr->steps_dropped = lh_report_read_u64(c, o, "progression_dropped");
}

/*
 * Tracer t's worst and worst_gated, set in tr, once checked against what they summarize:
 * worst is there when a section was counted and is the max_us; worst_gated, the worst of the
 * sections no 'ignore' rule accepted, is there exactly when some were not accepted, is no
 * longer than worst, and is worst when none was accepted.
 */
static void check_worsts(struct lh_report_read *c, json_object *v, uint64_t count,
			 uint64_t accepted, enum lh_tracer t, struct lh_report_tracer *tr)
{
	struct lh_report_where w, g;
	bool has_w = get_where(c, v, "worst", &w), has_g = get_where(c, v, "worst_gated", &g);
	uint64_t max_us = lh_report_read_u64(c, v, "max_us");

	if (c->failed)
		return;
	if (accepted > count)
		lh_report_read_bad(c, "accepted",
				   "%llu, but its count is %llu", (unsigned long long)accepted,
				   (unsigned long long)count);
	else if (has_w != (count > 0))
		lh_report_read_bad(c, "worst", "%s with a count of %llu", has_w ? "set" : "null",
				   (unsigned long long)count);
	else if (has_w && w.latency_us != max_us)
		lh_report_read_bad(c, "max_us", "%llu, but its worst is %llu",
				   (unsigned long long)max_us, (unsigned long long)w.latency_us);
	else if (has_g != (count > accepted))
		lh_report_read_bad(c, "worst_gated", "%s with %llu of %llu sections accepted",
				   has_g ? "set" : "null", (unsigned long long)accepted,
				   (unsigned long long)count);
	else if (has_g && g.latency_us > w.latency_us)
		lh_report_read_bad(c, "worst_gated", "%llu, longer than its worst %llu",
				   (unsigned long long)g.latency_us,
				   (unsigned long long)w.latency_us);
	else if (has_g && !accepted && g.latency_us != w.latency_us)
		lh_report_read_bad(c, "worst_gated",
				   "%llu, but no section was accepted and its worst is %llu",
				   (unsigned long long)g.latency_us,
				   (unsigned long long)w.latency_us);
	if (c->failed)
		return;
	c->tracer[t].worst_us = has_w ? w.latency_us : 0;
	c->tracer[t].gate_us = has_g ? g.latency_us : 0;
	tr->worst = w;
	tr->gate = g;
}

/*
 * A CPU's noise sources ("sources" and "sources_other", absent when the kernel did not count
 * them) into got: at most LH_REPORT_NOISE_SOURCES, of known kinds, each once, in the writers'
 * order, each with an event; the rest summed, with an event each, none noisier than the last
 * kept and only once that many are kept.
 */
static void load_sources(struct lh_report_read *c, json_object *e, struct lh_report_noise *got)
{
	json_object *a, *o, *s;
	size_t i, j, n, p;

	if (!json_object_object_get_ex(e, "sources", NULL))
		return;
	got->has_sources = true;
	a = lh_report_read_array(c, e, "sources", &n);
	if (!c->failed && n > LH_REPORT_NOISE_SOURCES)
		lh_report_read_bad(c, "sources", "%zu sources, more than the %d a report keeps", n,
				   LH_REPORT_NOISE_SOURCES);
	for (i = 0; i < n && !c->failed; i++) {
		struct lh_report_source *src = &got->sources[i];
		const char *kind, *name;

		p = lh_report_read_push(c, "sources", 0);
		lh_report_read_push(c, NULL, i);
		s = lh_report_read_element(c, a, i);
		kind = lh_report_read_str(c, s, "kind", false, &c->rep->arena);
		name = lh_report_read_str(c, s, "name", false, &c->rep->arena);
		src->count = lh_report_read_u64(c, s, "count");
		src->noise_ns = lh_report_read_ns(c, s, "noise_us", 1000);
		if (c->failed) {
			lh_report_read_pop(c, p);
			break;
		}
		if (lh_spike_kind_parse(kind, &src->kind))
			lh_report_read_bad(c, "kind", "'%s' is not a kind of noise", kind);
		else if (strlen(name) >= LH_REPORT_SOURCE_NAME)
			lh_report_read_bad(c, "name",
					   "longer than the %d bytes a source's name has",
					   LH_REPORT_SOURCE_NAME - 1);
		else if (!src->count)
			lh_report_read_bad(c, "count", "a source without an event");
		if (!c->failed) {
			snprintf(src->name, sizeof(src->name), "%s", name);
			for (j = 0; j < i; j++)
				if (got->sources[j].kind == src->kind &&
				    !strcmp(got->sources[j].name, src->name))
					lh_report_read_bad(c, "name",
							   "%s '%s' is listed twice", kind, name);
			if (!c->failed && i &&
			    lh_report_source_cmp(&got->sources[i - 1], src) >= 0)
				lh_report_read_bad(c, NULL, "not noisier than the source before it, yet listed after it");
		}
		lh_report_read_pop(c, p);
		got->nr_sources = i + 1;
	}
	o = lh_report_read_member(c, e, "sources_other", json_type_object, false);
	if (c->failed)
		return;
	p = lh_report_read_push(c, "sources_other", 0);
	got->other_sources = lh_report_read_u64(c, o, "sources");
	got->other_count = lh_report_read_u64(c, o, "count");
	got->other_ns = lh_report_read_ns(c, o, "noise_us", 1000);
	if (!c->failed && !got->other_sources && (got->other_count || got->other_ns))
		lh_report_read_bad(c, NULL, "noise of no source");
	else if (!c->failed && got->other_sources && got->nr_sources < LH_REPORT_NOISE_SOURCES)
		lh_report_read_bad(c, "sources", "%llu summed while only %zu are kept",
				   (unsigned long long)got->other_sources, got->nr_sources);
	else if (!c->failed && got->other_count < got->other_sources)
		lh_report_read_bad(c, "count", "%llu events of %llu sources",
				   (unsigned long long)got->other_count,
				   (unsigned long long)got->other_sources);
	else if (!c->failed && got->other_sources &&
		 got->other_ns > lh_sat_mul(got->other_sources,
					    got->sources[got->nr_sources - 1].noise_ns))
		lh_report_read_bad(c, "noise_us", "%llu ns of %llu sources, each at most the last kept (%llu ns)",
				   (unsigned long long)got->other_ns,
				   (unsigned long long)got->other_sources,
				   (unsigned long long)got->sources[got->nr_sources - 1].noise_ns);
	lh_report_read_pop(c, p);
}

/*
 * osnoise's per-CPU figures ("noise_cpus", absent before it), folded into the report's as
 * merge and diff fold them (lh_report_fold_noise_cpu()): a CPU listed twice, noise over
 * runtime, periods without runtime, or an availability that is not the one its sums give is
 * an error.
 */
static void load_noise(struct lh_report_read *c, json_object *o)
{
	const struct lh_report_fold_ops ops = LH_REPORT_READ_OPS(c, 0);
	bool listed[LH_REPORT_MAX_CPUS] = { 0 };
	char want[16];
	json_object *a, *e, *v;
	size_t i, n, p;

	if (!json_object_object_get_ex(o, "noise_cpus", NULL))
		return;
	if (json_object_object_get_ex(o, "sources_dropped", NULL))
		LH_REPORT_READ_ADD_COUNT(c, "sources_dropped", c->rep->noise_dropped,
					 lh_report_read_u64(c, o, "sources_dropped"));
	a = lh_report_read_array(c, o, "noise_cpus", &n);
	for (i = 0; i < n && !c->failed; i++) {
		struct lh_report_noise got;
		uint32_t milli = 0;
		bool has;

		p = lh_report_read_push(c, "noise_cpus", 0);
		lh_report_read_push(c, NULL, i);
		e = lh_report_read_element(c, a, i);
		memset(&got, 0, sizeof(got));
		got.cpu = lh_report_read_int(c, e, "cpu", false);
		got.periods = lh_report_read_u64(c, e, "periods");
		got.runtime_ns = lh_report_read_ns(c, e, "runtime_us", 1000);
		got.noise_ns = lh_report_read_ns(c, e, "noise_us", 1000);
		/* (absent from reports written before them) */
		if (json_object_object_get_ex(e, "max_single_us", NULL))
			got.max_single_ns = lh_report_read_ns(c, e, "max_single_us", 1000);
		if (json_object_object_get_ex(e, "hw_count", NULL))
			got.hw_count = lh_report_read_u64(c, e, "hw_count");
		load_sources(c, e, &got);
		v = lh_report_read_member(c, e, "available_percent", json_type_double, true);
		if (c->failed) {
			lh_report_read_pop(c, p);
			break;
		}
		has = !lh_gate_available(got.runtime_ns, got.noise_ns, &milli);
		snprintf(want, sizeof(want), "%s", "null");
		if (has)
			lh_gate_fmt_available(milli, want, sizeof(want));
		if (got.cpu < 0 || got.cpu >= LH_REPORT_MAX_CPUS)
			lh_report_read_bad(c, "cpu", "CPU %d is beyond the %d a report tracks",
					   got.cpu, LH_REPORT_MAX_CPUS);
		else if (listed[got.cpu])
			lh_report_read_bad(c, "cpu", "CPU %d is listed twice", got.cpu);
		else if (got.noise_ns > got.runtime_ns)
			lh_report_read_bad(c, "noise_us",
					   "%llu ns, more than its runtime of %llu ns",
					   (unsigned long long)got.noise_ns,
					   (unsigned long long)got.runtime_ns);
		else if (!got.periods != !got.runtime_ns)
			lh_report_read_bad(c, "periods", "%llu periods of %llu ns of runtime",
					   (unsigned long long)got.periods,
					   (unsigned long long)got.runtime_ns);
		else if (!v != !has || (v && llround(json_object_get_double(v) * 1000) != milli))
			lh_report_read_bad(c, "available_percent",
					   "%s, but its noise and runtime give %s",
					   v ? json_object_get_string(v) : "null", want);
		else if (got.max_single_ns > got.noise_ns)
			lh_report_read_bad(c, "max_single_us",
					   "%llu ns, more than the CPU's noise of %llu ns",
					   (unsigned long long)got.max_single_ns,
					   (unsigned long long)got.noise_ns);
		else if (!got.periods && got.hw_count)
			lh_report_read_bad(c, "hw_count", "hardware noise in no period");
		lh_report_read_pop(c, p);
		if (!c->failed) {
			/* (a sum past 2^64 named as the fold names it: noise_cpus.periods) */
			listed[got.cpu] = true;
			lh_report_fold_noise_cpu(c->rep, &got, &ops);
		}
	}
}

void lh_report_read_tracers(struct lh_report_read *c, json_object *root)
{
	const struct lh_report_fold_ops ops = LH_REPORT_READ_OPS(c, LH_REPORT_FOLD_PROGRESSIONS);
	json_object *o = lh_report_read_member(c, root, "tracers", json_type_object, false);
	struct lh_report *rep = c->rep;
	uint64_t n, count;

	if (!o)
		return;
	json_object_object_foreach(o, key, v) {
		size_t p = lh_report_read_push(c, "tracers", 0);
		struct lh_report_tracer own = { 0 }, *tr = &own;
		enum lh_tracer t;
		bool known;

		t = lh_report_read_tracer_of(key, &known);
		if (!known || !json_object_is_type(v, json_type_object)) {
			lh_report_read_bad(c, lh_report_read_inert(&rep->arena, key, strlen(key)),
					   known ? "expected an object" : "unknown tracer");
			lh_report_read_pop(c, p);
			continue;
		}
		lh_report_read_push(c, key, 0);
		count = lh_report_read_u64(c, v, "count");
		tr->count = count;
		c->tracer_counts = lh_sat_add(c->tracer_counts, count);
		n = lh_report_read_u64(c, v, "accepted");
		tr->accepted = n;
		LH_REPORT_READ_ADD_COUNT(c, "accepted", rep->accepted_records, n);
		if (rep->has_run && json_object_object_get_ex(v, "armed_s", NULL))
			LH_REPORT_READ_ADD_COUNT(c, "armed_s", rep->run.armed_ns[t],
						 lh_report_read_ns(c, v, "armed_s", 1e9));
		if (rep->has_run && json_object_object_get_ex(v, "blind_s", NULL))
			LH_REPORT_READ_ADD_COUNT(c, "blind_s", rep->run.blind_ns[t],
						 lh_report_read_ns(c, v, "blind_s", 1e9));
		c->tracer[t].count = count;
		c->tracer[t].accepted = n;
		check_worsts(c, v, count, n, t, tr);
		/* each record is counted in the histogram, and in its CPU's when it has one */
		lh_report_read_same_count(c, "count", count, "its histogram counts",
					  get_hist(c, v, "histogram", &tr->hist));
		n = load_cpus(c, v, tr);
		if (!c->failed && n > count)
			lh_report_read_bad(c, "count", "%llu, but its CPUs count %llu",
					   (unsigned long long)count, (unsigned long long)n);
		load_progression(c, v, tr);
		if (t == LH_TRACER_OSNOISE)
			load_noise(c, v);
		lh_report_fold_tracer(&rep->tracers[t], tr, &ops);
		lh_report_tracer_release(tr);
		lh_report_read_pop(c, p);
	}
}

void lh_report_read_rules(struct lh_report_read *c, json_object *root)
{
	const struct lh_report_fold_ops ops = LH_REPORT_READ_OPS(c, 0);
	struct lh_arena *a = &c->rep->arena;
	json_object *arr, *e;
	size_t i, n, p;

	arr = lh_report_read_array(c, root, "rules", &n);
	for (i = 0; i < n; i++) {
		struct lh_rule desc = { 0 };
		struct lh_report_rule src;
		struct lh_report_read_own_rule *own;
		const char *sev;
		uint64_t uneval, gate_uneval;
		bool conflict;
		size_t idx;

		p = lh_report_read_push(c, "rules", 0);
		lh_report_read_push(c, NULL, i);
		e = lh_report_read_element(c, arr, i);
		desc.id = lh_report_read_str(c, e, "id", false, a);
		sev = lh_report_read_str(c, e, "severity", false, a);
		if (sev && lh_severity_parse(sev, &desc.severity))
			lh_report_read_bad(c, "severity", "'%s' is not a severity", sev);
		desc.message = lh_report_read_str(c, e, "message", true, a);
		desc.limit_hit = lh_report_read_str(c, e, "unevaluated_reason", true, a);
		if (c->failed) {
			lh_report_read_pop(c, p);
			continue;
		}
		idx = lh_report_own_rule(c->rep, &desc, &conflict);
		if (conflict) {
			const struct lh_rule *was = lh_rules_get(c->rep->own_rules, idx);

			lh_report_read_bad(c, "severity",
					   "rule '%s' is %s here and %s in a report read before",
					   desc.id, sev, lh_severity_name(was->severity));
		}
		own = lh_report_read_own_rule(c, idx);
		if (own->listed)
			lh_report_read_bad(c, "id", "rule '%s' is listed twice", desc.id);
		own->listed = true;
		own->hits = lh_report_read_u64(c, e, "hits");
		own->accepted = lh_report_read_u64(c, e, "accepted");
		own->worst_us = lh_report_read_u64(c, e, "worst_us");
		own->gate_worst_us = lh_report_read_u64(c, e, "gate_worst_us");
		uneval = lh_report_read_u64(c, e, "unevaluated");
		gate_uneval = lh_report_read_u64(c, e, "gate_unevaluated");
		src = (struct lh_report_rule){
			.hits = own->hits, .accepted = own->accepted, .worst_us = own->worst_us,
			.gate_worst_us = own->gate_worst_us, .unevaluated = uneval,
			.gate_unevaluated = gate_uneval,
		};
		/* what is derived from the hits must fit them, or B's 'accepted' hides A's hits */
		if (!c->failed && own->accepted > own->hits)
			lh_report_read_bad(c, "accepted", "%llu, more than its %llu hits",
					   (unsigned long long)own->accepted,
					   (unsigned long long)own->hits);
		else if (!c->failed && gate_uneval > uneval)
			lh_report_read_bad(c, "gate_unevaluated",
					   "%llu, more than its %llu unevaluated",
					   (unsigned long long)gate_uneval,
					   (unsigned long long)uneval);
		else if (!c->failed && own->gate_worst_us > own->worst_us)
			lh_report_read_bad(c, "gate_worst_us",
					   "%llu, longer than its worst_us %llu",
					   (unsigned long long)own->gate_worst_us,
					   (unsigned long long)own->worst_us);
		if (c->failed) {
			lh_report_read_pop(c, p);
			continue;
		}
		lh_report_fold_rule(c->rep, idx, &src, &ops);
		LH_GROW(c->listed_desc, c->nr_listed + 1, c->alloc_listed_desc);
		LH_GROW(c->listed, c->nr_listed + 1, c->alloc_listed);
		c->listed_desc[c->nr_listed] = desc;
		c->listed[c->nr_listed++].gate_unevaluated = gate_uneval;
		lh_report_read_pop(c, p);
	}
}

void lh_report_read_offenders(struct lh_report_read *c, json_object *root)
{
	const struct lh_report_fold_ops ops = LH_REPORT_READ_OPS(c, 0);
	struct lh_report *rep = c->rep;
	struct lh_arena *a = &rep->arena;
	json_object *arr, *e, *f, *t;
	size_t i, j, n, nf, p;

	arr = lh_report_read_array(c, root, "offenders", &n);
	for (i = 0; i < n; i++) {
		struct lh_report_offender o = { .pid = -1 };
		struct lh_signature sig = { 0 };
		char text[LH_SIGNATURE_LEN];
		const char *tracer, *saved, *comm = NULL;
		bool known;

		p = lh_report_read_push(c, "offenders", 0);
		lh_report_read_push(c, NULL, i);
		e = lh_report_read_element(c, arr, i);
		saved = lh_report_read_str(c, e, "signature", false, a);
		tracer = lh_report_read_str(c, e, "tracer", false, a);
		if (tracer) {
			sig.tracer = lh_report_read_tracer_of(tracer, &known);
			if (!known)
				lh_report_read_bad(c, "tracer", "unknown tracer '%s'", tracer);
		}
		sig.started = lh_report_read_str(c, e, "started_at", true, a);
		sig.ended = lh_report_read_str(c, e, "ended_at", true, a);
		f = lh_report_read_array(c, e, "frames", &nf);
		if (nf > LH_SIGNATURE_FRAMES)
			lh_report_read_bad(c, "frames", "%zu frames, a signature has at most %d",
					   nf, LH_SIGNATURE_FRAMES);
		for (j = 0; j < nf && j < LH_SIGNATURE_FRAMES; j++) {
			json_object *s = json_object_array_get_idx(f, j);

			if (!json_object_is_type(s, json_type_string)) {
				lh_report_read_bad(c, "frames", "expected strings");
				break;
			}
			sig.frames[sig.nr_frames++] =
				lh_report_read_inert(a, json_object_get_string(s),
						     (size_t)json_object_get_string_len(s));
		}
		sig.has_wakeup = lh_report_read_bool(c, e, "wakeup");
		sig.woken = lh_report_read_str(c, e, "woken", true, a);
		o.count = lh_report_read_u64(c, e, "count");
		o.worst_us = lh_report_read_u64(c, e, "worst_us");
		o.accepted = lh_report_read_u64(c, e, "accepted");
		o.cpu = lh_report_read_int(c, e, "cpu", true);
		t = lh_report_read_member(c, e, "task", json_type_object, false);
		if (t) {
			comm = lh_report_read_str(c, t, "comm", true, a);
			o.pid = lh_report_read_int(c, t, "pid", true);
		}
		snprintf(o.comm, sizeof(o.comm), "%s", comm ? comm : "");
		if (!c->failed && strcmp(lh_signature_text(&sig, text, sizeof(text)), saved))
			lh_report_read_bad(c, "signature",
					   "'%s' does not match its fields ('%s')", saved, text);
		if (c->failed) {
			lh_report_read_pop(c, p);
			continue;
		}
		o.sig = sig;
		lh_report_fold_offender(rep, &o, &ops);
		lh_report_read_pop(c, p);
	}
	e = lh_report_read_member(c, root, "offenders_other", json_type_object, false);
	if (e) {
		uint64_t count, accepted;

		p = lh_report_read_push(c, "offenders_other", 0);
		count = lh_report_read_u64(c, e, "count");
		accepted = lh_report_read_u64(c, e, "accepted");
		lh_report_fold_other(rep, count, accepted, lh_report_read_u64(c, e, "worst_us"),
				     &ops);
		lh_report_read_pop(c, p);
	}
}

void lh_report_read_input(struct lh_report_read *c, json_object *root)
{
	const struct lh_report_fold_ops ops = LH_REPORT_READ_OPS(c, 0);
	json_object *o = lh_report_read_member(c, root, "input", json_type_object, false), *a, *s;
	struct lh_parse_stats parse = { 0 };
	struct lh_report *rep = c->rep;
	size_t i, n, p, unread, accepted;

	if (!o)
		return;
	p = lh_report_read_push(c, "input", 0);
	unread = rep->inputs_unread;
	accepted = rep->inputs_accepted;
	parse.snapshots = lh_report_read_u64(c, o, "snapshots");
	parse.skipped = lh_report_read_u64(c, o, "skipped");
	parse.bad_lines = lh_report_read_u64(c, o, "bad_lines");
	parse.incomplete = lh_report_read_u64(c, o, "incomplete");
	parse.cut_lines = lh_report_read_u64(c, o, "cut_lines");
	lh_report_fold_parse(rep, &parse, lh_report_read_u64(c, o, "warnings_total"), &ops);
	a = lh_report_read_array(c, o, "warnings", &n);
	for (i = 0; i < n; i++) {
		s = json_object_array_get_idx(a, i);
		if (!json_object_is_type(s, json_type_string)) {
			lh_report_read_bad(c, "warnings", "expected strings");
			break;
		}
		if (rep->nr_warnings >= LH_REPORT_WARNINGS)
			continue;
		LH_GROW(rep->warnings, rep->nr_warnings + 1, rep->alloc_warnings);
		rep->warnings[rep->nr_warnings++] =
			lh_xstrdup(lh_report_read_inert(&rep->arena, json_object_get_string(s),
							(size_t)json_object_get_string_len(s)));
	}
	a = lh_report_read_array(c, o, "files", &n);
	for (i = 0; i < n; i++) {
		struct lh_report_input in = { 0 };
		size_t q;

		q = lh_report_read_push(c, "files", 0);
		lh_report_read_push(c, NULL, i);
		s = lh_report_read_element(c, a, i);
		if (s) {
			in.name = lh_report_read_str(c, s, "name", false, &rep->arena);
			in.snapshots = lh_report_read_u64(c, s, "snapshots");
			in.skipped = lh_report_read_u64(c, s, "skipped");
			in.problem = lh_report_read_str(c, s, "problem", true, &rep->arena);
			if (in.problem)
				in.accepted = lh_report_read_bool(c, s, "accepted");
			if (in.name)
				lh_report_add_input(rep, &in);
		}
		lh_report_read_pop(c, q);
	}
	/* Derived from the files: a report that says otherwise is not one lathound wrote. */
	n = lh_report_read_u64(c, o, "unread");
	if (!c->failed && n != rep->inputs_unread - unread)
		lh_report_read_bad(c, "unread", "%zu, but 'files' lists %zu inputs not read", n,
				   rep->inputs_unread - unread);
	n = lh_report_read_u64(c, o, "unread_accepted");
	if (!c->failed && n != rep->inputs_accepted - accepted)
		lh_report_read_bad(c, "unread_accepted", "%zu, but 'files' lists %zu accepted", n,
				   rep->inputs_accepted - accepted);
	lh_report_read_pop(c, p);
}

bool lh_report_read_run(struct lh_report_read *c, json_object *root, const char *mode,
			struct lh_run_info *run, uint64_t *duration_ns)
{
	json_object *o = lh_report_read_member(c, root, "run", json_type_object, true), *nm;
	struct lh_arena *a = &c->rep->arena;
	size_t p;

	memset(run, 0, sizeof(*run));
	run->command_status = -1;
	if (!o)
		return false;
	p = lh_report_read_push(c, "run", 0);
	run->mode = mode;
	run->started_ns = lh_report_read_time(c, o, "started_at");
	run->ended_ns = lh_report_read_time(c, o, "ended_at");
	*duration_ns = lh_report_read_ns(c, o, "duration_s", 1e9);
	run->threshold_ns = lh_report_read_ns(c, o, "threshold_us", 1000);
	run->captures = lh_report_read_u64(c, o, "captures");
	run->sections_lost = lh_report_read_u64(c, o, "sections_lost");
	/* Optional: reports before live reads have none. */
	if (json_object_object_get_ex(o, "sections_torn", NULL))
		run->sections_torn = lh_report_read_u64(c, o, "sections_torn");
	run->snapshots_dropped = lh_report_read_u64(c, o, "snapshots_dropped");
	run->wait_method = lh_report_read_str(c, o, "wait_method", true, a);
	run->command = lh_report_read_str(c, o, "command", true, a);
	run->command_status = lh_report_read_int(c, o, "command_status", true);
	run->end_reason = lh_report_read_str(c, o, "end_reason", true, a);
	run->kernel = lh_report_read_str(c, o, "kernel", true, a);
	run->host = lh_report_read_str(c, o, "host", true, a);
	run->run_id = lh_report_read_str(c, o, "run_id", true, a);
	nm = lh_report_read_member(c, o, "not_measured", json_type_object, false);
	if (nm) {
		json_object_object_foreach(nm, key, v) {
			enum lh_tracer t;
			bool known;

			t = lh_report_read_tracer_of(key, &known);
			if (!known || t == LH_TRACER_UNKNOWN ||
			    !json_object_is_type(v, json_type_string)) {
				lh_report_read_bad(c, "not_measured",
						   "'%s' is not a tracer with a reason",
						   lh_report_read_inert(a, key, strlen(key)));
				continue;
			}
			run->not_measured[t] =
				lh_report_read_inert(a, json_object_get_string(v),
						     (size_t)json_object_get_string_len(v));
		}
	}
	lh_report_read_pop(c, p);
	return true;
}

void lh_report_read_irq_stats(struct lh_report_read *c, json_object *root)
{
	json_object *o = lh_report_read_member(c, root, "irq_stats", json_type_object,
					       true), *a, *e, *h;
	struct lh_report *rep = c->rep;
	uint64_t events, sum = 0, k;
	size_t i, j, n, nh, p, q;

	if (!o)
		return;
	if (!rep->has_run) {
		lh_report_read_bad(c, "irq_stats", "present without a run");
		return;
	}
	if (!rep->own_irqstat)
		rep->own_irqstat = lh_irqstat_alloc();
	rep->run.irqstat = rep->own_irqstat;
	p = lh_report_read_push(c, "irq_stats", 0);
	events = lh_report_read_u64(c, o, "events");
	lh_irqstat_add_lost(rep->own_irqstat, lh_report_read_u64(c, o, "lost"));
	lh_irqstat_add_dropped(rep->own_irqstat, lh_report_read_u64(c, o, "dropped"));
	a = lh_report_read_array(c, o, "handlers", &n);
	for (i = 0; i < n; i++) {
		struct lh_irqstat_entry ent = { 0 };
		uint64_t counted = 0;
		const char *name;

		q = lh_report_read_push(c, "handlers", 0);
		lh_report_read_push(c, NULL, i);
		e = lh_report_read_element(c, a, i);
		ent.irq = lh_report_read_int(c, e, "irq", false);
		ent.cpu = lh_report_read_int(c, e, "cpu", false);
		name = lh_report_read_str(c, e, "name", false, &rep->arena);
		snprintf(ent.name, sizeof(ent.name), "%s", name ? name : "");
		ent.count = lh_report_read_u64(c, e, "count");
		ent.max_ns = lh_report_read_ns(c, e, "max_us", 1000);
		ent.sum_ns = lh_report_read_ns(c, e, "mean_us", 1000) * ent.count;
		h = lh_report_read_array(c, e, "histogram", &nh);
		for (j = 0; j < nh; j++) {
			json_object *b = json_object_array_get_idx(h, j), *le_us;
			uint64_t le;

			if (!json_object_is_type(b, json_type_object)) {
				lh_report_read_bad(c, "histogram", "expected objects");
				break;
			}
			le = lh_report_read_ns(c, b, "le_us", 1000);
			if (le < 2 || (le & (le - 1)) || __builtin_ctzll(le) > LH_IRQSTAT_BUCKETS) {
				/* (a le_us that is no number is said by lh_report_read_ns()) */
				le_us = json_object_object_get(b, "le_us");
				if (!c->failed)
					lh_report_read_bad(c, "histogram",
							   "le_us %s is not a power of two of ns",
							   json_object_get_string(le_us));
				break;
			}
			k = lh_report_read_u64(c, b, "count");
			/* no bucket wraps unless the sum saturates: then it is not the count */
			counted = lh_sat_add(counted, k);
			ent.hist[__builtin_ctzll(le) - 1] += k;
		}
		/* each run is counted in both histograms */
		lh_report_read_same_count(c, "count", ent.count, "its histogram counts", counted);
		lh_report_read_same_count(c, "count", ent.count, "its distribution counts",
					  get_hist(c, e, "distribution", &ent.dist));
		sum = lh_sat_add(sum, ent.count);
		if (!c->failed && lh_irqstat_merge_entry(rep->own_irqstat, &ent))
			lh_report_read_bad(c, NULL,
					   "the handler does not fit the statistics read before");
		lh_histogram_release(&ent.dist);
		lh_report_read_pop(c, q);
	}
	lh_report_read_same_count(c, "events", events, "the handlers count", sum);
	lh_report_read_pop(c, p);
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
static void load_callers(struct lh_report_read *c, json_object *e, struct lh_report_histogram *kh)
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
	a = lh_report_read_array(c, e, "callers", &n);
	note = lh_report_read_str(c, e, "callers_note", true, &c->rep->arena);
	for (i = 0; i < n && !c->failed; i++) {
		size_t q = lh_report_read_push(c, "callers", 0);

		lh_report_read_push(c, NULL, i);
		o = lh_report_read_element(c, a, i);
		x.symbol = (char *)lh_report_read_str(c, o, "symbol", false, &c->rep->arena);
		x.count = lh_report_read_u64(c, o, "count");
		x.max_ns = lh_report_read_ns(c, o, "max_us", 1000);
		lh_report_read_pop(c, q);
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

void lh_report_read_hists(struct lh_report_read *c, json_object *root)
{
	struct lh_report *rep = c->rep;
	json_object *a, *e;
	size_t i, n, p;

	a = lh_report_read_array(c, root, "histograms", &n);
	for (i = 0; i < n; i++) {
		struct lh_report_histogram *kh;
		const char *source, *kind;
		int cpu;

		p = lh_report_read_push(c, "histograms", 0);
		lh_report_read_push(c, NULL, i);
		e = lh_report_read_element(c, a, i);
		source = lh_report_read_str(c, e, "source", false, &rep->arena);
		kind = lh_report_read_str(c, e, "kind", false, &rep->arena);
		cpu = lh_report_read_int(c, e, "cpu", true);
		if (c->failed) {
			lh_report_read_pop(c, p);
			continue;
		}
		kh = lh_report_khist(rep, source, kind, cpu);
		/* the histogram's own fields are at the entry's level */
		get_hist_fields(c, e, &kh->h);
		if (json_object_object_get_ex(e, "callers", NULL))
			load_callers(c, e, kh);
		lh_report_read_pop(c, p);
	}
}

/* The gate's "min_available_percent" ({} or {"osnoise": PCT}; absent before it: none). */
static void load_min_available(struct lh_report_read *c, json_object *o, struct lh_gate *g)
{
	json_object *m, *v;
	double d;

	if (!json_object_object_get_ex(o, "min_available_percent", NULL))
		return;
	m = lh_report_read_member(c, o, "min_available_percent", json_type_object, false);
	if (!m)
		return;
	json_object_object_foreach(m, key, val) {
		(void)val;
		if (strcmp(key, "osnoise")) {
			lh_report_read_bad(c, "min_available_percent", "'%s' is not osnoise",
					   lh_report_read_inert(&c->rep->arena, key, strlen(key)));
			return;
		}
	}
	if (!json_object_object_get_ex(m, "osnoise", NULL))
		return;
	v = lh_report_read_member(c, m, "osnoise", json_type_double, false);
	if (!v)
		return;
	d = json_object_get_double(v) * 1000;
	if (!isfinite(d) || d < 0 || d > 100000 || fabs(d - round(d)) > 1e-6) {
		lh_report_read_bad(c, "min_available_percent",
				   "%s is not a percentage with at most 3 decimals",
				   json_object_get_string(v));
		return;
	}
	g->has_min_available = true;
	g->min_available_milli = (uint32_t)llround(d);
}

void lh_report_read_gate(struct lh_report_read *c, json_object *root, struct lh_gate *g)
{
	json_object *o = lh_report_read_member(c, root, "gate", json_type_object, false), *m;
	const char *fail_on, *err;
	size_t p;

	lh_gate_init(g);
	if (!o)
		return;
	p = lh_report_read_push(c, "gate", 0);
	m = lh_report_read_member(c, o, "max_us", json_type_object, false);
	if (m) {
		json_object_object_foreach(m, key, v) {
			enum lh_tracer t;
			bool known;

			t = lh_report_read_tracer_of(key, &known);
			if ((!known || t == LH_TRACER_UNKNOWN) && strcmp(key, "all")) {
				const char *shown;

				shown = lh_report_read_inert(&c->rep->arena, key, strlen(key));
				lh_report_read_bad(c, "max_us", "'%s' is not a tracer", shown);
				continue;
			}
			if (!json_object_is_type(v, json_type_int) &&
			    !json_object_is_type(v, json_type_double)) {
				lh_report_read_bad(c, "max_us", "%s: expected a number", key);
				continue;
			}
			g->has_max[t] = true;
			g->max_ns[t] = lh_report_read_number_ns(c, v, "max_us", 1000);
		}
	}
	load_min_available(c, o, g);
	fail_on = lh_report_read_str(c, o, "fail_on", false, &c->rep->arena);
	if (fail_on && lh_gate_parse_fail_on(g, fail_on, &err))
		lh_report_read_bad(c, "fail_on", "%s", err);
	lh_report_read_pop(c, p);
}

