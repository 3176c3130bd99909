// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON report (doc/report-json.md), built as a json-c tree: json-c does every escape.
 * Unknown numbers (-1 in a record) and absent strings are written as null.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report-priv.h"

#define JSON_FLAGS \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *jint(int64_t v)
{
	return json_object_new_int64(v);
}

/* json-c's integers are signed: a (saturated) count or latency past INT64_MAX stays there. */
static json_object *juint(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

/* -1 (unknown) becomes null. */
static json_object *jint_known(int v)
{
	return v < 0 ? NULL : json_object_new_int(v);
}

/* A number with at most 3 decimals, written as such ("1990.0", "0.002"), not %.17g. */
static json_object *jdouble(double v)
{
	char buf[64];
	size_t n;

	snprintf(buf, sizeof(buf), "%.3f", v);
	n = strlen(buf);
	while (n > 2 && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	return json_object_new_double_s(v, buf);
}

/* µs from ns: an integer when whole. */
static json_object *jus(uint64_t ns)
{
	if (ns % 1000 == 0)
		return juint(ns / 1000);
	return jdouble((double)ns / 1000.0);
}

static json_object *jtime(uint64_t ns)
{
	char buf[32];

	return jstr(lh_report_iso8601(ns, buf, sizeof(buf)));
}

static json_object *jsource(const char *source, unsigned long line)
{
	char buf[4096];

	if (!source)
		return NULL;
	if (!line)
		return jstr(source);
	snprintf(buf, sizeof(buf), "%s:%lu", source, line);
	return jstr(buf);
}

static void add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

/* A histogram object (doc/report-json.md): values in us, up to ns precision. */
static json_object *hist_json(const struct lh_histogram *h)
{
	json_object *o = json_object_new_object(), *p, *r, *a, *b;
	uint64_t lo, hi;
	unsigned int i;
	size_t k;

	add(o, "unit", jstr("us"));
	add(o, "count", juint(h->count));
	add(o, "min", h->count ? jus(h->min_ns) : NULL);
	add(o, "max", h->count ? jus(h->max_ns) : NULL);
	add(o, "mean", h->count ? jdouble(lh_histogram_mean_ns(h) / 1e3) : NULL);
	p = json_object_new_object();
	r = json_object_new_object();
	for (i = 0; i < LH_HISTOGRAM_NR_PCT; i++) {
		bool known = lh_histogram_percentile(h, i, &lo, &hi);

		add(p, lh_histogram_pct_key[i], known ? jus(hi) : NULL);
		add(r, lh_histogram_pct_key[i], known ? jus(hi - lo) : NULL);
	}
	add(o, "percentiles", p);
	add(o, "resolution", r);
	a = json_object_new_array();
	for (k = 0; k < h->nr; k++) {
		b = json_object_new_object();
		add(b, "lo", jus(h->b[k].lo_ns));
		add(b, "hi", jus(h->b[k].hi_ns));
		add(b, "count", juint(h->b[k].count));
		json_object_array_add(a, b);
	}
	add(o, "buckets", a);
	add(o, "dropped", juint(h->dropped));
	return o;
}

json_object *lh_report_hist_json(const struct lh_histogram *h)
{
	return hist_json(h);
}

static json_object *str_or_null(const char *s)
{
	return s && *s ? jstr(s) : NULL;
}

/* Where a worst section was: {latency_us, cpu, task, started_at, ended_at, source}. */
static json_object *where_json(const struct lh_report_where *w)
{
	json_object *o, *t;

	if (!w || !w->set)
		return NULL;
	o = json_object_new_object();
	t = json_object_new_object();
	add(o, "latency_us", juint(w->latency_us));
	add(o, "cpu", jint_known(w->cpu));
	add(t, "comm", str_or_null(w->comm));
	add(t, "pid", jint_known(w->pid));
	add(o, "task", t);
	add(o, "started_at", str_or_null(w->started));
	add(o, "ended_at", str_or_null(w->ended));
	add(o, "source", jsource(w->source, w->line));
	add(o, "irq", str_or_null(w->irq));
	add(o, "rule", str_or_null(w->rule));
	return o;
}

static json_object *task_json(const struct lh_task *t)
{
	json_object *o = json_object_new_object();

	add(o, "comm", jstr(t->comm));
	add(o, "pid", jint_known(t->pid));
	add(o, "uid", jint_known(t->uid));
	add(o, "policy", jint_known(t->policy));
	add(o, "rt_prio", jint_known(t->rt_prio));
	return o;
}

/* The woken task and its waker, from a wakeup tracer's '+' and '==>' lines. */
static json_object *wake_json(const struct lh_task *t)
{
	json_object *o = json_object_new_object();
	char state[2] = { t->state, '\0' };

	add(o, "comm", jstr(t->comm));
	add(o, "pid", jint_known(t->pid));
	add(o, "prio", jint_known(t->prio));
	add(o, "state", t->state ? jstr(state) : NULL);
	return o;
}

/* A stack's frame names, or (offsets) what the trace printed after each name, or null. */
static json_object *frames_json(const struct lh_stack *s, bool offsets)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; s && i < s->nr; i++)
		json_object_array_add(a, jstr(offsets ? s->offsets[i] : s->frames[i]));
	return a;
}

static json_object *record_json(const struct lh_report *rep, const struct lh_report_kept *k)
{
	const struct lh_record *r = k->rec;
	json_object *o = json_object_new_object(), *a, *e;
	char buf[32];
	size_t i;

	add(o, "tracer", jstr(lh_report_tracer_name(r)));
	add(o, "latency_us", juint(r->latency_us));
	add(o, "cpu", jint_known(r->cpu));
	add(o, "nr_cpus", jint_known(r->nr_cpus));
	add(o, "preempt_model", jstr(r->preempt_model));
	add(o, "kernel", jstr(r->kernel));
	add(o, "task", task_json(&r->task));
	add(o, "started_at", jstr(r->started_at));
	add(o, "started_at_offset", jstr(r->started_at_offset));
	add(o, "ended_at", jstr(r->ended_at));
	add(o, "ended_at_offset", jstr(r->ended_at_offset));
	add(o, "stack", frames_json(r->nr_stacks ? &r->stacks[0] : NULL, false));
	add(o, "stack_offsets", frames_json(r->nr_stacks ? &r->stacks[0] : NULL, true));
	a = json_object_new_array();
	for (i = 0; i < r->nr_stacks; i++)
		json_object_array_add(a, frames_json(&r->stacks[i], false));
	add(o, "stacks", a);
	add(o, "entries", r->entries ? juint(r->entries) : NULL);
	add(o, "entries_present", juint(r->entries_present));
	add(o, "body", jstr(lh_body_name(lh_record_body(r))));

	a = json_object_new_array();
	for (i = 0; i < r->nr_funcs; i++)
		json_object_array_add(a, jstr(r->funcs[i].name));
	add(o, "functions", a);
	a = json_object_new_array();
	for (i = 0; i < r->nr_funcs; i++) {
		e = json_object_new_object();
		add(e, "name", jstr(r->funcs[i].name));
		add(e, "count", jint(r->funcs[i].count));
		json_object_array_add(a, e);
	}
	add(o, "function_counts", a);

	a = json_object_new_array();
	for (i = 0; i < r->nr_irqs; i++) {
		const struct lh_irq *q = &r->irqs[i];

		e = json_object_new_object();
		add(e, "irq", jint_known(q->irq));
		add(e, "name", jstr(q->name));
		add(e, "duration_us", q->duration_us < 0 ? NULL : jdouble(q->duration_us));
		add(e, "ret", jstr(q->ret));
		json_object_array_add(a, e);
	}
	add(o, "irqs", a);
	add(o, "woken", r->has_wakeup ? wake_json(&r->woken) : NULL);
	add(o, "waker", r->has_wakeup ? wake_json(&r->waker) : NULL);

	a = json_object_new_array();
	for (i = 0; i < k->nr_hits; i++) {
		const struct lh_rule *rule = rep->rules && k->hits[i] < lh_rules_count(rep->rules) ?
					     lh_rules_get(rep->rules, k->hits[i]) : NULL;

		if (rule)
			json_object_array_add(a, jstr(rule->id));
	}
	add(o, "rules", a);
	a = json_object_new_array();
	for (i = 0; i < k->nr_unevaluated; i++) {
		const struct lh_rule *rule = lh_rules_get(rep->rules, k->unevaluated[i]);

		if (rule)
			json_object_array_add(a, jstr(rule->id));
	}
	add(o, "unevaluated_rules", a);
	add(o, "severity", k->has_worst ? jstr(lh_severity_name(k->worst)) : NULL);
	add(o, "accepted", json_object_new_boolean(k->accepted));
	add(o, "signature", jstr(k->signature));
	add(o, "source", jsource(r->source, r->line));
	add(o, "captured_at", jstr(lh_report_iso8601(r->captured_ns, buf, sizeof(buf))));
	return o;
}

/* The per-CPU view of a tracer: known CPUs in order, then the unknown one. */
static json_object *cpus_json(const struct lh_report_tracer *tr)
{
	json_object *a = json_object_new_array(), *e;
	size_t i;

	for (i = 0; i < tr->nr_cpus; i++) {
		size_t slot = (i + 1) % tr->nr_cpus;
		const struct lh_report_cpu *c = &tr->cpus[slot];

		if (!c->count)
			continue;
		e = json_object_new_object();
		add(e, "cpu", jint_known(lh_report_slot_cpu(slot)));
		add(e, "count", juint(c->count));
		add(e, "max_us", juint(c->worst ? c->worst->latency_us : 0));
		add(e, "worst", where_json(c->worst));
		add(e, "histogram", hist_json(&c->dist));
		json_object_array_add(a, e);
	}
	return a;
}

static json_object *tracer_json(const struct lh_report *rep, enum lh_tracer t)
{
	const struct lh_report_tracer *tr = &rep->tracers[t];
	json_object *o = json_object_new_object(), *a, *e;
	size_t i;

	add(o, "max_us", juint(tr->worst.set ? tr->worst.latency_us : 0));
	add(o, "count", juint(tr->count));
	if (rep->has_run) {
		add(o, "armed_s", jdouble((double)rep->run.armed_ns[t] / 1e9));
		add(o, "blind_s", jdouble((double)rep->run.blind_ns[t] / 1e9));
	}
	add(o, "accepted", juint(tr->accepted));
	add(o, "worst", where_json(&tr->worst));
	add(o, "worst_gated", where_json(&tr->gate));
	add(o, "histogram", hist_json(&tr->hist));
	add(o, "cpus", cpus_json(tr));
	add(o, "progression_dropped", juint(tr->steps_dropped));
	a = json_object_new_array();
	for (i = 0; i < tr->nr_steps; i++) {
		const struct lh_report_step *s = &tr->steps[i];

		e = json_object_new_object();
		add(e, "cpu", jint_known(s->cpu));
		add(e, "latency_us", juint(s->latency_us));
		add(e, "at", jtime(s->at_ns));
		add(e, "source", jsource(s->source, s->line));
		json_object_array_add(a, e);
	}
	add(o, "progression", a);
	return o;
}

static json_object *gate_json(const struct lh_report *rep)
{
	json_object *o = json_object_new_object(), *m = json_object_new_object();
	int t;

	for (t = 1; t < LH_TRACER_NR; t++)
		if (rep->gate.has_max[t])
			add(m, lh_tracer_name(t), jus(rep->gate.max_ns[t]));
	if (rep->gate.has_max[LH_TRACER_UNKNOWN])
		add(m, "all", jus(rep->gate.max_ns[LH_TRACER_UNKNOWN]));
	add(o, "max_us", m);
	add(o, "fail_on", jstr(lh_gate_fail_on_name(&rep->gate)));
	return o;
}

static json_object *rules_json(const struct lh_report *rep)
{
	/* for rules loaded after the report was allocated that never fired */
	static const struct lh_report_rule none;
	json_object *a = json_object_new_array(), *e;
	size_t i, n = rep->rules ? lh_rules_count(rep->rules) : 0;

	for (i = 0; i < n; i++) {
		const struct lh_rule *rule = lh_rules_get(rep->rules, i);
		const struct lh_report_rule *ra = i < rep->nr_rules ? &rep->rule_agg[i] : &none;

		e = json_object_new_object();
		add(e, "id", jstr(rule->id));
		add(e, "severity", jstr(lh_severity_name(rule->severity)));
		add(e, "hits", juint(ra->hits));
		add(e, "worst_us", juint(ra->worst_us));
		add(e, "accepted", juint(ra->accepted));
		add(e, "unevaluated", juint(ra->unevaluated));
		add(e, "unevaluated_reason", jstr(rule->limit_hit));
		add(e, "message", jstr(rule->message));
		add(e, "gate_worst_us", juint(ra->gate_worst_us));
		add(e, "gate_unevaluated", juint(ra->gate_unevaluated));
		json_object_array_add(a, e);
	}
	return a;
}

static json_object *offenders_json(const struct lh_report *rep)
{
	size_t *order = lh_report_offenders_sorted(rep), i, j;
	json_object *a = json_object_new_array(), *e, *f;

	for (i = 0; i < rep->nr_offenders; i++) {
		const struct lh_report_offender *o = &rep->offenders[order[i]];

		e = json_object_new_object();
		add(e, "signature", jstr(o->signature));
		add(e, "tracer", jstr(lh_tracer_name(o->sig.tracer)));
		add(e, "started_at", jstr(o->sig.started));
		add(e, "ended_at", jstr(o->sig.ended));
		f = json_object_new_array();
		for (j = 0; j < o->sig.nr_frames; j++)
			json_object_array_add(f, jstr(o->sig.frames[j]));
		add(e, "frames", f);
		add(e, "count", juint(o->count));
		add(e, "worst_us", juint(o->worst_us));
		add(e, "accepted", juint(o->accepted));
		add(e, "wakeup", json_object_new_boolean(o->sig.has_wakeup));
		add(e, "woken", jstr(o->sig.woken));
		add(e, "cpu", jint_known(o->cpu));
		f = json_object_new_object();
		add(f, "comm", str_or_null(o->comm));
		add(f, "pid", jint_known(o->pid));
		add(e, "task", f);
		json_object_array_add(a, e);
	}
	free(order);
	return a;
}

static json_object *input_json(const struct lh_report *rep)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	size_t i;

	add(o, "snapshots", juint(rep->parse.snapshots));
	add(o, "skipped", juint(rep->parse.skipped));
	add(o, "bad_lines", juint(rep->parse.bad_lines));
	add(o, "incomplete", juint(rep->parse.incomplete));
	add(o, "cut_lines", juint(rep->parse.cut_lines));
	for (i = 0; i < rep->nr_warnings; i++)
		json_object_array_add(a, jstr(rep->warnings[i]));
	add(o, "warnings", a);
	add(o, "warnings_total", juint(rep->warnings_total));
	a = json_object_new_array();
	for (i = 0; i < rep->nr_inputs; i++) {
		const struct lh_report_input *in = &rep->inputs[i];
		json_object *f = json_object_new_object();

		add(f, "name", jstr(in->name));
		add(f, "snapshots", juint(in->snapshots));
		add(f, "skipped", juint(in->skipped));
		add(f, "problem", jstr(in->problem));
		add(f, "accepted", in->problem ? json_object_new_boolean(in->accepted) : NULL);
		json_object_array_add(a, f);
	}
	add(o, "files", a);
	add(o, "unread", juint(rep->inputs_unread));
	add(o, "unread_accepted", juint(rep->inputs_accepted));
	return o;
}

static json_object *run_json(const struct lh_report *rep)
{
	const struct lh_run_info *run = &rep->run;
	json_object *o, *nm;
	int t;

	if (!rep->has_run)
		return NULL;
	o = json_object_new_object();
	add(o, "started_at", jtime(run->started_ns));
	add(o, "ended_at", jtime(run->ended_ns));
	add(o, "duration_s", jdouble((double)lh_report_run_duration_ns(rep) / 1e9));
	add(o, "threshold_us", jus(run->threshold_ns));
	add(o, "captures", juint(run->captures));
	add(o, "sections_lost", juint(run->sections_lost));
	add(o, "snapshots_dropped", juint(run->snapshots_dropped));
	add(o, "wait_method", jstr(run->wait_method));
	add(o, "command", jstr(run->command));
	add(o, "command_status", run->command && run->command_status >= 0 ?
				  jint(run->command_status) : NULL);
	add(o, "end_reason", jstr(run->end_reason));
	nm = json_object_new_object();
	for (t = 1; t < LH_TRACER_NR; t++)
		if (run->not_measured[t])
			add(nm, lh_tracer_name(t), jstr(run->not_measured[t]));
	add(o, "not_measured", nm);
	add(o, "kernel", jstr(run->kernel));
	add(o, "host", jstr(run->host));
	add(o, "run_id", jstr(run->run_id));
	return o;
}

static json_object *irq_stats_json(const struct lh_report *rep)
{
	const struct lh_irqstat *st = rep->has_run ? rep->run.irqstat : NULL;
	json_object *o, *a, *e, *h, *b;
	size_t i, n;
	int k;

	if (!st)
		return NULL;
	o = json_object_new_object();
	add(o, "events", juint(lh_irqstat_events(st)));
	add(o, "lost", juint(lh_irqstat_lost(st)));
	add(o, "dropped", juint(lh_irqstat_dropped(st)));
	n = lh_irqstat_count(st);
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		const struct lh_irqstat_entry *s = lh_irqstat_get(st, i);

		e = json_object_new_object();
		add(e, "irq", jint(s->irq));
		add(e, "name", jstr(s->name));
		add(e, "cpu", jint(s->cpu));
		add(e, "count", juint(s->count));
		add(e, "max_us", jdouble((double)s->max_ns / 1e3));
		add(e, "mean_us",
		    jdouble(s->count ? (double)s->sum_ns / (double)s->count / 1e3 : 0));
		add(e, "p99_us", jdouble((double)lh_irqstat_p99(s) / 1e3));
		h = json_object_new_array();
		for (k = 0; k < LH_IRQSTAT_BUCKETS; k++) {
			if (!s->hist[k])
				continue;
			b = json_object_new_object();
			add(b, "le_us", jdouble((double)(2ULL << k) / 1e3));
			add(b, "count", juint(s->hist[k]));
			json_object_array_add(h, b);
		}
		add(e, "histogram", h);
		add(e, "distribution", hist_json(&s->dist));
		json_object_array_add(a, e);
	}
	add(o, "handlers", a);
	return o;
}

/* The histograms the kernel counted, as set. */
static json_object *hists_json(const struct lh_report *rep)
{
	json_object *a = json_object_new_array(), *e;
	size_t i;

	for (i = 0; i < rep->nr_hists; i++) {
		const struct lh_report_histogram *k = &rep->hists[i];

		e = hist_json(&k->h);
		/* context first, for people reading the file */
		json_object_object_add_ex(e, "source", jstr(k->source), 0);
		json_object_object_add_ex(e, "kind", jstr(k->kind), 0);
		json_object_object_add_ex(e, "cpu", jint_known(k->cpu), 0);
		json_object_array_add(a, e);
	}
	return a;
}

int lh_report_write_json(struct lh_report *rep, FILE *out)
{
	json_object *root = json_object_new_object(), *a, *o;
	struct lh_report_kept **kept;
	const char *text;
	size_t i;
	int t, ret = 0;

	add(root, "lathound", jstr(LH_VERSION));
	add(root, "report_version", jint(LH_REPORT_VERSION));
	add(root, "mode", jstr(rep->has_run && rep->run.mode ? rep->run.mode : "analyze"));
	add(root, "board", jstr(rep->opts.board));
	add(root, "verdict", jstr(lh_report_verdict(rep)));
	add(root, "error", rep->error ? jstr(rep->error) : NULL);
	a = json_object_new_array();
	for (i = 0; i < rep->nr_violations; i++)
		json_object_array_add(a, jstr(rep->violations[i]));
	add(root, "violations", a);
	add(root, "gate", gate_json(rep));

	o = json_object_new_object();
	for (t = 1; t <= LH_TRACER_NR; t++) {
		enum lh_tracer tt = t == LH_TRACER_NR ? LH_TRACER_UNKNOWN : t;

		if (rep->tracers[tt].count || (rep->has_run && rep->run.armed_ns[tt]))
			add(o, lh_tracer_name(tt), tracer_json(rep, tt));
	}
	add(root, "tracers", o);
	add(root, "rules", rules_json(rep));
	add(root, "offenders", offenders_json(rep));
	o = json_object_new_object();
	add(o, "count", juint(rep->other_count));
	add(o, "worst_us", juint(rep->other_worst_us));
	add(o, "accepted", juint(rep->other_accepted));
	add(root, "offenders_other", o);

	kept = lh_report_kept_sorted(rep);
	a = json_object_new_array();
	for (i = 0; i < rep->nr_heap; i++)
		json_object_array_add(a, record_json(rep, kept[i]));
	free(kept);
	add(root, "records", a);
	add(root, "records_total", juint(rep->total));
	add(root, "records_kept", juint(rep->nr_heap));
	add(root, "records_dropped", juint(rep->total - rep->nr_heap));
	add(root, "input", input_json(rep));
	add(root, "run", run_json(rep));
	add(root, "irq_stats", irq_stats_json(rep));
	add(root, "histograms", hists_json(rep));
	a = json_object_new_array();
	for (i = 0; i < rep->nr_merged_from; i++)
		json_object_array_add(a, jstr(rep->merged_from[i]));
	add(root, "merged_from", a);

	text = json_object_to_json_string_ext(root, JSON_FLAGS);
	errno = 0;
	if (!text || fputs(text, out) == EOF || putc('\n', out) == EOF || ferror(out)) {
		if (!errno)
			errno = text ? EIO : ENOMEM;
		ret = -1;
	}
	t = errno;
	json_object_put(root);
	errno = t;
	return ret;
}
