// SPDX-License-Identifier: GPL-2.0-only
/*
 * A saved report's records kept in full read back (report-read.h): each record with its
 * spike and its match, checked against the counts of its tracer and rules, then kept as
 * lh_report_add() would have kept it.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "report-read.h"
#include "rules/rules.h"
#include "trace/record.h"

/*
 * Task key of o, a record's or a spike's: its comm and pid into *t. Return: the task's object,
 * its path pushed (pop to *p), or NULL when it is not there.
 */
static json_object *task_open(struct lh_report_read *c, json_object *o, const char *key,
			      struct lh_record *r, struct lh_task *t, size_t *p)
{
	json_object *v = lh_report_read_member(c, o, key, json_type_object, false);

	if (!v)
		return NULL;
	*p = lh_report_read_push(c, key, 0);
	t->comm = lh_report_read_str(c, v, "comm", true, &r->arena);
	t->pid = lh_report_read_int(c, v, "pid", true);
	return v;
}

static void load_task(struct lh_report_read *c, json_object *o, const char *key,
		      struct lh_record *r, struct lh_task *t, bool wake)
{
	json_object *v;
	const char *state;
	size_t p;

	v = task_open(c, o, key, r, t, &p);
	if (!v)
		return;
	if (wake) {
		t->prio = lh_report_read_int(c, v, "prio", true);
		state = lh_report_read_str(c, v, "state", true, &r->arena);
		if (state && strlen(state) != 1)
			lh_report_read_bad(c, "state", "'%s' is not a task state", state);
		t->state = state ? state[0] : 0;
	} else {
		t->uid = lh_report_read_int(c, v, "uid", true);
		t->policy = lh_report_read_int(c, v, "policy", true);
		t->rt_prio = lh_report_read_int(c, v, "rt_prio", true);
	}
	lh_report_read_pop(c, p);
}

/* A list of rule ids as rule indices, in rule order. */
static void rule_ids(struct lh_report_read *c, json_object *o, const char *key, size_t **v,
		     size_t *nr, size_t *alloc)
{
	json_object *a, *s;
	size_t i, n, k, idx;

	a = lh_report_read_array(c, o, key, &n);
	for (i = 0; i < n; i++) {
		s = json_object_array_get_idx(a, i);
		if (!json_object_is_type(s, json_type_string)) {
			lh_report_read_bad(c, key, "expected rule ids");
			return;
		}
		idx = lh_report_own_rule_find(c->rep, json_object_get_string(s));
		if (idx == (size_t)-1) {
			size_t len = (size_t)json_object_get_string_len(s);

			lh_report_read_bad(c, key, "rule '%s' is not in the report's rules",
					   lh_report_read_inert(&c->rep->arena,
								json_object_get_string(s), len));
			return;
		}
		LH_GROW(*v, *nr + 1, *alloc);
		for (k = *nr; k > 0 && (*v)[k - 1] > idx; k--)
			(*v)[k] = (*v)[k - 1];
		(*v)[k] = idx;
		(*nr)++;
	}
}

/* The record's "start_lost_us" (absent in reports written before it): 0 for null. */
static uint64_t read_start_lost(struct lh_report_read *c, json_object *e)
{
	json_object *v;

	if (!json_object_object_get_ex(e, "start_lost_us", &v) || json_object_is_type(v, json_type_null))
		return 0;
	return lh_report_read_u64(c, e, "start_lost_us");
}

static void load_stacks(struct lh_report_read *c, json_object *e, struct lh_record *r)
{
	json_object *a, *st, *f, *offs, *o;
	size_t i, j, n, nf, no;

	/* "stack_offsets": what the trace printed after each frame of the first stack */
	offs = lh_report_read_array(c, e, "stack_offsets", &no);
	a = lh_report_read_array(c, e, "stacks", &n);
	if (n > LH_MAX_STACKS)
		lh_report_read_bad(c, "stacks", "%zu stacks, a record has at most %d", n,
				   LH_MAX_STACKS);
	for (i = 0; i < n && i < LH_MAX_STACKS; i++) {
		st = json_object_array_get_idx(a, i);
		if (!json_object_is_type(st, json_type_array)) {
			lh_report_read_bad(c, "stacks", "expected arrays of frames");
			return;
		}
		nf = json_object_array_length(st);
		for (j = 0; j < nf; j++) {
			const char *s;

			f = json_object_array_get_idx(st, j);
			if (!json_object_is_type(f, json_type_string)) {
				lh_report_read_bad(c, "stacks", "expected frames as strings");
				return;
			}
			s = lh_report_read_inert(&r->arena, json_object_get_string(f),
						 (size_t)json_object_get_string_len(f));
			o = i == 0 && j < no ? json_object_array_get_idx(offs, j) : NULL;
			if (o && !json_object_is_type(o, json_type_string)) {
				lh_report_read_bad(c, "stack_offsets",
						   "expected offsets as strings or null");
				return;
			}
			if (o) {
				const char *t;

				t = lh_report_read_inert(&r->arena, json_object_get_string(o),
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
static uint64_t spike_ns(struct lh_report_read *c, json_object *o, const char *key, bool nullable,
			 bool *has)
{
	json_object *v = lh_report_read_member(c, o, key, json_type_double, nullable);
	uint64_t ns;

	if (has)
		*has = v != NULL;
	if (!v)
		return 0;
	ns = lh_report_read_number_ns(c, v, key, 1000);
	if (ns > LH_SPIKE_MAX_NS) {
		lh_report_read_bad(c, key, "%s is longer than a day", json_object_get_string(v));
		return 0;
	}
	return ns;
}

/* A part's offset from the timer's expiry in µs, signed, as ns; a day or more is absurd. */
static int64_t spike_offset_ns(struct lh_report_read *c, json_object *o, const char *key)
{
	json_object *v = lh_report_read_member(c, o, key, json_type_double, false);
	double d;

	if (!v)
		return 0;
	d = json_object_get_double(v) * 1000;
	if (!isfinite(d) || fabs(d) > (double)LH_SPIKE_MAX_NS) {
		lh_report_read_bad(c, key, "%s is not an offset within a day",
				   json_object_get_string(v));
		return 0;
	}
	return (int64_t)llround(d);
}

/* A share the report states (per mille) against ns of latency_ns: recomputed, not trusted. */
static void spike_share(struct lh_report_read *c, json_object *o, const char *key, uint64_t ns,
			uint64_t latency_ns)
{
	uint64_t pm = lh_report_read_u64(c, o, key);

	if (c->failed)
		return;
	if (pm > 1000)
		lh_report_read_bad(c, key, "%llu, a share over 100 %%", (unsigned long long)pm);
	else if (pm != lh_spike_permille(ns, latency_ns))
		lh_report_read_bad(c, key, "%llu, but its duration makes it %u",
				   (unsigned long long)pm, lh_spike_permille(ns, latency_ns));
}

/* The blocking task or the culprit of a spike, in t and *ns, no longer than window_ns. */
static void spike_task(struct lh_report_read *c, json_object *o, const char *key,
		       struct lh_record *r, struct lh_task *t, uint64_t *ns, uint64_t window_ns)
{
	json_object *v;
	size_t p;

	v = task_open(c, o, key, r, t, &p);
	if (!v)
		return;
	*ns = spike_ns(c, v, "us", false, NULL);
	if (!c->failed && *ns > window_ns)
		lh_report_read_bad(c, "us", "%llu ns, longer than the spike's window of %llu ns",
				   (unsigned long long)*ns, (unsigned long long)window_ns);
	spike_share(c, v, "share_permille", *ns, r->spike.latency_ns);
	lh_report_read_pop(c, p);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* One part of a spike into q, no longer than window_ns where it overlaps. */
static void spike_part(struct lh_report_read *c, json_object *x, struct lh_record *r,
		       struct lh_spike_part *q, uint64_t window_ns)
{
	const char *kind = lh_report_read_str(c, x, "kind", false, &r->arena);
	enum lh_spike_kind k;

	if (kind && lh_spike_kind_parse(kind, &k))
		lh_report_read_bad(c, "kind",
				   "'%s' is not a kind of noise (irq, softirq, nmi, thread)", kind);
	else if (kind)
		q->kind = k;
	q->name = lh_report_read_str(c, x, "name", true, &r->arena);
	q->vector = lh_report_read_int(c, x, "vector", true);
	q->pid = lh_report_read_int(c, x, "pid", true);
	q->offset_ns = spike_offset_ns(c, x, "offset_us");
	q->duration_ns = spike_ns(c, x, "duration_us", false, NULL);
	q->overlap_ns = spike_ns(c, x, "overlap_us", false, NULL);
	if (c->failed)
		return;
	if (q->overlap_ns > q->duration_ns)
		lh_report_read_bad(c, "overlap_us",
				   "%llu ns, longer than the part's duration of %llu ns",
				   (unsigned long long)q->overlap_ns,
				   (unsigned long long)q->duration_ns);
	else if (q->overlap_ns > window_ns)
		lh_report_read_bad(c, "overlap_us",
				   "%llu ns, longer than the spike's window of %llu ns",
				   (unsigned long long)q->overlap_ns,
				   (unsigned long long)window_ns);
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
static void spike_section(struct lh_report_read *c, json_object *v, struct lh_record *r,
			  uint64_t window_ns)
{
	struct lh_spike_section *x = &r->spike.section;
	const char *state;
	json_object *o, *a;
	size_t i, n, p;

	if (!json_object_object_get_ex(v, "section", NULL))
		return;
	o = lh_report_read_member(c, v, "section", json_type_object, false);
	if (!o)
		return;
	p = lh_report_read_push(c, "section", 0);
	if (r->tracer != LH_TRACER_TIMERLAT) {
		lh_report_read_bad(c, NULL, "a spike of %s watches no section",
				   lh_tracer_name(r->tracer));
		goto out;
	}
	state = lh_report_read_str(c, o, "state", false, &r->arena);
	if (state && lh_spike_section_state_parse(state, &x->state))
		lh_report_read_bad(c, "state",
				   "'%s' is not a section's state (found, none, not_measured)",
				   state);
	a = lh_report_read_array(c, o, "watched", &n);
	for (i = 0; i < n && !c->failed; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		enum lh_tracer t = section_tracer(json_object_is_type(e, json_type_string) ?
						  json_object_get_string(e) : NULL);

		if (t == LH_TRACER_UNKNOWN)
			lh_report_read_bad(c, "watched",
					   "'%s' is not a tracer whose sections are watched (irqsoff, preemptoff)",
					   json_object_get_string(e));
		else
			x->watched |= 1u << t;
	}
	if (!c->failed && !x->watched)
		lh_report_read_bad(c, "watched", "empty: a section written is a section watched");
	x->min_ns = spike_ns(c, o, "min_us", false, NULL);
	if (c->failed || x->state != LH_SPIKE_SECTION_FOUND)
		goto out;
	x->tracer = section_tracer(lh_report_read_str(c, o, "tracer", false, &r->arena));
	x->caller = lh_report_read_str(c, o, "caller", true, &r->arena);
	x->offset_ns = spike_offset_ns(c, o, "offset_us");
	x->duration_ns = spike_ns(c, o, "duration_us", false, NULL);
	x->overlap_ns = spike_ns(c, o, "overlap_us", false, NULL);
	if (c->failed)
		goto out;
	if (x->caller && strlen(x->caller) >= LH_REPORT_SECTION_CALLER)
		lh_report_read_bad(c, "caller",
				   "%zu bytes, longer than a kernel symbol's name and offset",
				   strlen(x->caller));
	else if (!(x->watched & (1u << x->tracer)))
		lh_report_read_bad(c, "tracer", "not one of the tracers watched");
	else if (x->duration_ns < x->min_ns)
		lh_report_read_bad(c, "duration_us",
				   "%llu ns, shorter than the minimum watched of %llu ns",
				   (unsigned long long)x->duration_ns,
				   (unsigned long long)x->min_ns);
	else if (!x->overlap_ns || x->overlap_ns > x->duration_ns || x->overlap_ns > window_ns)
		lh_report_read_bad(c, "overlap_us",
				   "%llu ns, not within the section's %llu ns and the window's %llu ns",
				   (unsigned long long)x->overlap_ns,
				   (unsigned long long)x->duration_ns,
				   (unsigned long long)window_ns);
	spike_share(c, o, "share_permille", x->overlap_ns, r->spike.latency_ns);
out:
	lh_report_read_pop(c, p);
}

/*
 * A sampling tracer's spike (the record's "spike", absent in reports written before it): every
 * duration bounded, every share and the total explained recomputed from the parts, the
 * latencies the record's.
 */
static void load_spike(struct lh_report_read *c, json_object *e, struct lh_record *r)
{
	struct lh_spike *sp = &r->spike;
	uint64_t window, sum = 0, longest = 0, explained;
	json_object *v, *a, *x;
	size_t i, n, p, q;
	bool has;

	if (!json_object_object_get_ex(e, "spike", NULL))
		return;
	v = lh_report_read_member(c, e, "spike", json_type_object, true);
	if (!v)
		return;
	p = lh_report_read_push(c, "spike", 0);
	if (!lh_tracer_is_sampling(r->tracer)) {
		lh_report_read_bad(c, NULL, "a record of %s has no spike",
				   lh_tracer_name(r->tracer));
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
		lh_report_read_bad(c, "latency_us", "%llu ns, but the record's latency_us is %llu",
				   (unsigned long long)sp->latency_ns,
				   (unsigned long long)r->latency_us);
	else if (r->tracer == LH_TRACER_TIMERLAT &&
		 (sp->has_thread ? sp->thread_latency_ns : sp->has_irq ? sp->irq_latency_ns :
		  ~sp->latency_ns) != sp->latency_ns)
		lh_report_read_bad(c, "latency_us",
				   "%llu ns, not its thread latency (its IRQ latency without one)",
				   (unsigned long long)sp->latency_ns);
	else if (r->tracer != LH_TRACER_TIMERLAT && (sp->has_irq || sp->has_thread))
		lh_report_read_bad(c, "irq_latency_us", "set in a record of %s",
				   lh_tracer_name(r->tracer));
	else if (has != sp->has_period || sp->has_period != (r->tracer == LH_TRACER_OSNOISE))
		lh_report_read_bad(c, "noise_us",
				   "noise_us and runtime_us are an osnoise period's, both set");
	else if (sp->noise_ns > sp->runtime_ns)
		lh_report_read_bad(c, "noise_us",
				   "%llu ns, more than the period's runtime of %llu ns",
				   (unsigned long long)sp->noise_ns,
				   (unsigned long long)sp->runtime_ns);
	if (c->failed)
		goto out;
	/* the window: the timer's expiry to the thread's wakeup, or the osnoise period */
	window = sp->has_period ? sp->runtime_ns : sp->latency_ns;
	spike_task(c, v, "blocking", r, &sp->blocking, &sp->blocking_ns, window);
	spike_task(c, v, "culprit", r, &sp->culprit, &sp->culprit_ns, window);
	if (!c->failed && (sp->culprit.pid != r->task.pid ||
			   !same_str(sp->culprit.comm, r->task.comm)))
		lh_report_read_bad(c, "culprit", "is not the record's task");
	a = lh_report_read_array(c, v, "parts", &n);
	if (n > LH_SPIKE_PARTS)
		lh_report_read_bad(c, "parts", "%zu parts, a spike keeps at most %d", n,
				   LH_SPIKE_PARTS);
	for (i = 0; i < n && !c->failed; i++) {
		q = lh_report_read_push(c, "parts", 0);
		lh_report_read_push(c, NULL, i);
		x = lh_report_read_element(c, a, i);
		if (x) {
			spike_part(c, x, r, &sp->parts[i], window);
			sp->nr_parts = i + 1;
			sum += sp->parts[i].overlap_ns;	/* each at most a day: no overflow */
			if (sp->parts[i].overlap_ns > longest)
				longest = sp->parts[i].overlap_ns;
		}
		lh_report_read_pop(c, q);
	}
	n = lh_report_read_u64(c, v, "more_parts");
	sp->more_parts = n > UINT_MAX ? UINT_MAX : (unsigned int)n;
	sp->more_ns = spike_ns(c, v, "more_us", false, NULL);
	sp->explained_ns = spike_ns(c, v, "explained_us", false, NULL);
	if (c->failed)
		goto out;
	if (sp->more_parts && sp->nr_parts < LH_SPIKE_PARTS)
		lh_report_read_bad(c, "more_parts", "%u, but only %zu parts are listed",
				   sp->more_parts, sp->nr_parts);
	else if (sp->more_ns > (uint64_t)sp->more_parts * window)
		lh_report_read_bad(c, "more_us", "%llu ns in %u parts of a window of %llu ns",
				   (unsigned long long)sp->more_ns, sp->more_parts,
				   (unsigned long long)window);
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
		lh_report_read_bad(c, "explained_us", "%llu ns, more than the latency of %llu ns",
				   (unsigned long long)sp->explained_ns,
				   (unsigned long long)sp->latency_ns);
	else if (sp->explained_ns != explained)
		lh_report_read_bad(c, "explained_us", "%llu ns, but its parts explain %llu ns",
				   (unsigned long long)sp->explained_ns,
				   (unsigned long long)explained);
	spike_share(c, v, "explained_permille", sp->explained_ns, sp->latency_ns);
	spike_section(c, v, r, window);
out:
	lh_report_read_pop(c, p);
}

static void load_record(struct lh_report_read *c, json_object *e, struct lh_record *r,
			struct lh_match *m)
{
	json_object *a, *x;
	const char *s;
	size_t i, n, p;
	bool known;

	s = lh_report_read_str(c, e, "tracer", false, &r->arena);
	if (s) {
		r->tracer = lh_report_read_tracer_of(s, &known);
		r->tracer_name = s;
	}
	r->latency_us = lh_report_read_u64(c, e, "latency_us");
	r->cpu = lh_report_read_int(c, e, "cpu", true);
	r->nr_cpus = lh_report_read_int(c, e, "nr_cpus", true);
	r->preempt_model = lh_report_read_str(c, e, "preempt_model", true, &r->arena);
	r->kernel = lh_report_read_str(c, e, "kernel", true, &r->arena);
	load_task(c, e, "task", r, &r->task, false);
	r->started_at = lh_report_read_str(c, e, "started_at", true, &r->arena);
	r->started_at_offset = lh_report_read_str(c, e, "started_at_offset", true, &r->arena);
	r->ended_at = lh_report_read_str(c, e, "ended_at", true, &r->arena);
	r->ended_at_offset = lh_report_read_str(c, e, "ended_at_offset", true, &r->arena);
	load_stacks(c, e, r);
	if (lh_report_read_member(c, e, "entries", json_type_int, true))
		r->entries = lh_report_read_u64(c, e, "entries");
	r->entries_present = lh_report_read_u64(c, e, "entries_present");
	s = lh_report_read_str(c, e, "body", false, &r->arena);
	r->start_lost_us = read_start_lost(c, e);
	if (s && !strcmp(s, lh_body_name(LH_BODY_ELIDED)))
		r->elided = true;
	else if (s && !strcmp(s, lh_body_name(LH_BODY_CUT)))
		r->truncated = r->entries_present >= r->entries && !r->start_lost_us;
	else if (s && strcmp(s, lh_body_name(LH_BODY_COMPLETE)))
		lh_report_read_bad(c, "body", "unknown body state");
	if (r->start_lost_us && !(s && !strcmp(s, lh_body_name(LH_BODY_CUT))))
		lh_report_read_bad(c, "start_lost_us", "set on a body that is not cut");
	a = lh_report_read_array(c, e, "function_counts", &n);
	for (i = 0; i < n; i++) {
		struct lh_func *f;
		const char *name;

		p = lh_report_read_push(c, "function_counts", 0);
		lh_report_read_push(c, NULL, i);
		x = lh_report_read_element(c, a, i);
		if (x) {
			int64_t k = (int64_t)lh_report_read_u64(c, x, "count");

			name = lh_report_read_str(c, x, "name", true, &r->arena);
			f = lh_record_add_func(r, name, name ? strlen(name) : 0);
			f->count = k > UINT_MAX ? UINT_MAX : (unsigned int)k;
		}
		lh_report_read_pop(c, p);
	}
	a = lh_report_read_array(c, e, "irqs", &n);
	for (i = 0; i < n; i++) {
		struct lh_irq *q;
		json_object *d;

		p = lh_report_read_push(c, "irqs", 0);
		lh_report_read_push(c, NULL, i);
		x = lh_report_read_element(c, a, i);
		if (x) {
			q = lh_record_add_irq(r);
			q->irq = lh_report_read_int(c, x, "irq", true);
			q->name = lh_report_read_str(c, x, "name", true, &r->arena);
			d = lh_report_read_member(c, x, "duration_us", json_type_double, true);
			if (d)
				q->duration_us = (double)lh_report_read_number_ns(c, d,
										  "duration_us",
										  1000) / 1e3;
			q->ret = lh_report_read_str(c, x, "ret", true, &r->arena);
		}
		lh_report_read_pop(c, p);
	}
	load_spike(c, e, r);
	x = lh_report_read_member(c, e, "woken", json_type_object, true);
	if (x) {
		r->has_wakeup = true;
		load_task(c, e, "woken", r, &r->woken, true);
		load_task(c, e, "waker", r, &r->waker, true);
	}
	rule_ids(c, e, "rules", &m->hits, &m->nr_hits, &m->alloc_hits);
	rule_ids(c, e, "unevaluated_rules", &m->unevaluated, &m->nr_unevaluated,
		 &m->alloc_unevaluated);
	m->accepted = lh_report_read_bool(c, e, "accepted");
	for (i = 0; i < m->nr_hits; i++) {
		enum lh_severity sev = lh_rules_get(c->rep->own_rules, m->hits[i])->severity;

		if (sev != LH_SEV_IGNORE && (!m->has_worst || sev > m->worst)) {
			m->has_worst = true;
			m->worst = sev;
		}
	}
	lh_report_read_source(c, e, "source", &r->arena, &r->source, &r->line);
	r->captured_ns = lh_report_read_time(c, e, "captured_at");
}

/*
 * A kept record r with its match m against this report's counts: the record is one of its
 * tracer's sections and of each rule's hits, accepted exactly when an 'ignore' rule hit it,
 * and no longer than the worsts it is counted in.
 */
static void check_kept(struct lh_report_read *c, const struct lh_record *r,
		       const struct lh_match *m)
{
	enum lh_tracer t = (unsigned int)r->tracer < LH_TRACER_NR ? r->tracer : LH_TRACER_UNKNOWN;
	struct lh_report_read_own_tracer *ot = &c->tracer[t];
	bool ignored = false;
	size_t i;

	ot->kept++;
	ot->kept_accepted += m->accepted;
	if (ot->kept > ot->count || ot->kept_accepted > ot->accepted ||
	    ot->kept - ot->kept_accepted > ot->count - ot->accepted)
		lh_report_read_bad(c, NULL, "a %s record%s more than its tracer counts",
				   lh_tracer_name(t), m->accepted ? " accepted" : " not accepted");
	else if (r->latency_us > ot->worst_us || (!m->accepted && r->latency_us > ot->gate_us))
		lh_report_read_bad(c, "latency_us", "%llu, longer than its tracer's %s",
				   (unsigned long long)r->latency_us,
				   m->accepted ? "worst" : "worst_gated");
	for (i = 0; i < m->nr_hits && !c->failed; i++) {
		const struct lh_rule *rule = lh_rules_get(c->rep->own_rules, m->hits[i]);
		struct lh_report_read_own_rule *or = lh_report_read_own_rule(c, m->hits[i]);

		ignored |= rule->severity == LH_SEV_IGNORE;
		or->kept++;
		or->kept_accepted += m->accepted;
		if (!or->listed)
			lh_report_read_bad(c, "rules", "rule '%s' is not in the report's rules",
					   rule->id);
		else if (or->kept > or->hits || or->kept_accepted > or->accepted ||
			 or->kept - or->kept_accepted > or->hits - or->accepted)
			lh_report_read_bad(c, "rules",
					   "rule '%s' hits more %srecords than its hits and accepted say",
					   rule->id, m->accepted ? "accepted " : "");
		else if (r->latency_us > or->worst_us ||
			 (!m->accepted && r->latency_us > or->gate_worst_us))
			lh_report_read_bad(c, "rules", "rule '%s' hits it, but its %s is shorter",
					   rule->id, m->accepted ? "worst_us" : "gate_worst_us");
	}
	if (!c->failed && ignored != m->accepted)
		lh_report_read_bad(c, "accepted", "%s, but %s of its rules is 'ignore'",
				   m->accepted ? "true" : "false", ignored ? "one" : "none");
}

void lh_report_read_records(struct lh_report_read *c, json_object *root)
{
	struct lh_match m = { 0 };
	json_object *a, *e;
	size_t i, n, p, kept;
	uint64_t total;

	a = lh_report_read_array(c, root, "records", &n);
	for (i = 0; i < n; i++) {
		struct lh_record *r = lh_record_alloc();

		p = lh_report_read_push(c, "records", 0);
		lh_report_read_push(c, NULL, i);
		m.nr_hits = m.nr_unevaluated = 0;
		m.accepted = m.has_worst = false;
		e = lh_report_read_element(c, a, i);
		if (e)
			load_record(c, e, r, &m);
		if (!c->failed)
			check_kept(c, r, &m);
		if (!c->failed)
			lh_report_keep(c->rep, r, &m, c->l->seq++);
		lh_record_free(r);
		lh_report_read_pop(c, p);
	}
	lh_match_release(&m);
	/* each record is counted in its tracer's count */
	total = lh_report_read_u64(c, root, "records_total");
	lh_report_read_same_count(c, "records_total", total, "its tracers count", c->tracer_counts);
	LH_REPORT_READ_ADD_COUNT(c, "records_total", c->rep->total, total);
	kept = (size_t)lh_report_read_u64(c, root, "records_kept");
	if (!c->failed && kept != n)
		lh_report_read_bad(c, "records_kept", "%zu, but 'records' holds %zu", kept, n);
	if (kept > c->l->max_kept)
		c->l->max_kept = kept;
}
