// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON report (doc/report-json.md), streamed to the file as it is walked: no tree of it
 * is built, so memory stays what the report holds (and, -j 2 and up, two texts of a kept
 * record) however many functions its records name (a json-c tree of the 100 records kept of
 * a Zipf corpus took 190 MB, bench/README.md), through the one JSON writer (json-write.h).
 * Unknown numbers (-1 in a record) and absent strings are written as null.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "json-write.h"
#include "report-priv.h"

/* Where a worst section was: {latency_us, cpu, task, started_at, ended_at, source}. */
static void where_json(struct lh_json *w, const char *key, const struct lh_report_where *wh)
{
	if (!wh || !wh->set) {
		lh_json_null(w, key);
		return;
	}
	lh_json_obj(w, key);
	lh_json_uint(w, "latency_us", wh->latency_us);
	lh_json_known(w, "cpu", wh->cpu);
	lh_json_obj(w, "task");
	lh_json_str_or_null(w, "comm", wh->comm);
	lh_json_known(w, "pid", wh->pid);
	lh_json_end(w);
	lh_json_str_or_null(w, "started_at", wh->started);
	lh_json_str_or_null(w, "ended_at", wh->ended);
	lh_json_source(w, "source", wh->source, wh->line);
	lh_json_str_or_null(w, "irq", wh->irq);
	lh_json_str_or_null(w, "rule", wh->rule);
	lh_json_end(w);
}

static void task_json(struct lh_json *w, const char *key, const struct lh_task *t)
{
	lh_json_obj(w, key);
	lh_json_str(w, "comm", t->comm);
	lh_json_known(w, "pid", t->pid);
	lh_json_known(w, "uid", t->uid);
	lh_json_known(w, "policy", t->policy);
	lh_json_known(w, "rt_prio", t->rt_prio);
	lh_json_end(w);
}

/* The woken task and its waker, from a wakeup tracer's '+' and '==>' lines (null if none). */
static void wake_json(struct lh_json *w, const char *key, const struct lh_task *t, bool has)
{
	char state[2] = { t->state, '\0' };

	if (!has) {
		lh_json_null(w, key);
		return;
	}
	lh_json_obj(w, key);
	lh_json_str(w, "comm", t->comm);
	lh_json_known(w, "pid", t->pid);
	lh_json_known(w, "prio", t->prio);
	lh_json_str(w, "state", t->state ? state : NULL);
	lh_json_end(w);
}

/* The blocking task or the culprit of a spike: {comm, pid, us, share_permille}. */
static void spike_task_json(struct lh_json *w, const char *key, const struct lh_spike *sp,
			    const struct lh_task *t, uint64_t ns)
{
	lh_json_obj(w, key);
	lh_json_str(w, "comm", t->comm);
	lh_json_known(w, "pid", t->pid);
	lh_json_us(w, "us", ns);
	lh_json_uint(w, "share_permille", lh_spike_permille(ns, sp->latency_ns));
	lh_json_end(w);
}

/* What overlapped a spike's window: its offset, duration, overlap and share of latency_ns. */
static void overlap_json(struct lh_json *w, int64_t offset_ns, uint64_t duration_ns,
			 uint64_t overlap_ns, uint64_t latency_ns)
{
	lh_json_sus(w, "offset_us", offset_ns);
	lh_json_us(w, "duration_us", duration_ns);
	lh_json_us(w, "overlap_us", overlap_ns);
	lh_json_uint(w, "share_permille", lh_spike_permille(overlap_ns, latency_ns));
}

/*
 * The section behind a timerlat spike, when the run watched one (absent otherwise):
 * {state, watched, min_us[, tracer, caller, offset_us, duration_us, overlap_us,
 * share_permille]}.
 */
static void spike_section_json(struct lh_json *w, const struct lh_spike *sp)
{
	const struct lh_spike_section *x = &sp->section;
	static const enum lh_tracer watchable[] = { LH_TRACER_IRQSOFF, LH_TRACER_PREEMPTOFF };
	size_t i;

	if (!x->watched)
		return;
	lh_json_obj(w, "section");
	lh_json_str(w, "state", lh_spike_section_state_name(x->state));
	lh_json_arr(w, "watched");
	for (i = 0; i < LH_ARRAY_SIZE(watchable); i++)
		if (x->watched & (1u << watchable[i]))
			lh_json_str(w, NULL, lh_tracer_name(watchable[i]));
	lh_json_end(w);
	lh_json_us(w, "min_us", x->min_ns);
	if (x->state == LH_SPIKE_SECTION_FOUND) {
		lh_json_str(w, "tracer", lh_tracer_name(x->tracer));
		lh_json_str_or_null(w, "caller", x->caller);
		overlap_json(w, x->offset_ns, x->duration_ns, x->overlap_ns, sp->latency_ns);
	}
	lh_json_end(w);
}

/* A sampling tracer's spike broken into its parts (null for the other tracers). */
static void spike_json(struct lh_json *w, const struct lh_spike *sp)
{
	size_t i;

	if (!sp->set) {
		lh_json_null(w, "spike");
		return;
	}
	lh_json_obj(w, "spike");
	lh_json_us(w, "latency_us", sp->latency_ns);
	lh_json_us_if(w, "irq_latency_us", sp->has_irq, sp->irq_latency_ns);
	lh_json_us_if(w, "thread_latency_us", sp->has_thread, sp->thread_latency_ns);
	lh_json_us_if(w, "noise_us", sp->has_period, sp->noise_ns);
	lh_json_us_if(w, "runtime_us", sp->has_period, sp->runtime_ns);
	spike_task_json(w, "blocking", sp, &sp->blocking, sp->blocking_ns);
	spike_task_json(w, "culprit", sp, &sp->culprit, sp->culprit_ns);
	lh_json_arr(w, "parts");
	for (i = 0; i < sp->nr_parts; i++) {
		const struct lh_spike_part *p = &sp->parts[i];

		lh_json_obj(w, NULL);
		lh_json_str(w, "kind", lh_spike_kind_name(p->kind));
		lh_json_str(w, "name", p->name);
		lh_json_known(w, "vector", p->vector);
		lh_json_known(w, "pid", p->pid);
		overlap_json(w, p->offset_ns, p->duration_ns, p->overlap_ns, sp->latency_ns);
		lh_json_end(w);
	}
	lh_json_end(w);
	lh_json_uint(w, "more_parts", sp->more_parts);
	lh_json_us(w, "more_us", sp->more_ns);
	lh_json_us(w, "explained_us", sp->explained_ns);
	lh_json_uint(w, "explained_permille", lh_spike_permille(sp->explained_ns, sp->latency_ns));
	spike_section_json(w, sp);
	lh_json_end(w);
}

/* A stack's frame names, or (offsets) what the trace printed after each name, or []. */
static void frames_json(struct lh_json *w, const char *key, const struct lh_stack *s, bool offsets)
{
	size_t i;

	lh_json_arr(w, key);
	for (i = 0; s && i < s->nr; i++)
		lh_json_str(w, NULL, offsets ? s->offsets[i] : s->frames[i]);
	lh_json_end(w);
}

/* The ids of rules[0..n) (indices into rep->rules) that name a loaded rule. */
static void rule_ids_json(struct lh_json *w, const char *key, const struct lh_report *rep,
			  const size_t *rules, size_t n)
{
	size_t i, nr = rep->rules ? lh_rules_count(rep->rules) : 0;

	lh_json_arr(w, key);
	for (i = 0; i < n; i++)
		if (rules[i] < nr)
			lh_json_str(w, NULL, lh_rules_get(rep->rules, rules[i])->id);
	lh_json_end(w);
}

static void record_json(struct lh_json *w, const struct lh_report *rep,
			const struct lh_report_kept *k)
{
	const struct lh_record *r = k->rec;
	const struct lh_stack *s0 = r->nr_stacks ? &r->stacks[0] : NULL;
	size_t i;

	lh_json_obj(w, NULL);
	lh_json_str(w, "tracer", lh_report_tracer_name(r));
	lh_json_uint(w, "latency_us", r->latency_us);
	lh_json_known(w, "cpu", r->cpu);
	lh_json_known(w, "nr_cpus", r->nr_cpus);
	lh_json_str(w, "preempt_model", r->preempt_model);
	lh_json_str(w, "kernel", r->kernel);
	task_json(w, "task", &r->task);
	lh_json_str(w, "started_at", r->started_at);
	lh_json_str(w, "started_at_offset", r->started_at_offset);
	lh_json_str(w, "ended_at", r->ended_at);
	lh_json_str(w, "ended_at_offset", r->ended_at_offset);
	frames_json(w, "stack", s0, false);
	frames_json(w, "stack_offsets", s0, true);
	lh_json_arr(w, "stacks");
	for (i = 0; i < r->nr_stacks; i++)
		frames_json(w, NULL, &r->stacks[i], false);
	lh_json_end(w);
	if (r->entries)
		lh_json_uint(w, "entries", r->entries);
	else
		lh_json_null(w, "entries");
	lh_json_uint(w, "entries_present", r->entries_present);
	lh_json_str(w, "body", lh_body_name(lh_record_body(r)));
	if (r->start_lost_us)
		lh_json_uint(w, "start_lost_us", r->start_lost_us);
	else
		lh_json_null(w, "start_lost_us");

	lh_json_arr(w, "functions");
	for (i = 0; i < r->nr_funcs; i++)
		lh_json_strn(w, NULL, r->funcs[i].name, r->funcs[i].len);
	lh_json_end(w);
	lh_json_arr(w, "function_counts");
	for (i = 0; i < r->nr_funcs; i++)
		lh_json_name_count(w, r->funcs[i].name, r->funcs[i].len, r->funcs[i].count);
	lh_json_end(w);

	lh_json_arr(w, "irqs");
	for (i = 0; i < r->nr_irqs; i++) {
		const struct lh_irq *q = &r->irqs[i];

		lh_json_obj(w, NULL);
		lh_json_known(w, "irq", q->irq);
		lh_json_str(w, "name", q->name);
		if (q->duration_us < 0)
			lh_json_null(w, "duration_us");
		else
			lh_json_double(w, "duration_us", q->duration_us);
		lh_json_str(w, "ret", q->ret);
		lh_json_end(w);
	}
	lh_json_end(w);
	spike_json(w, &r->spike);
	wake_json(w, "woken", &r->woken, r->has_wakeup);
	wake_json(w, "waker", &r->waker, r->has_wakeup);

	rule_ids_json(w, "rules", rep, k->hits, k->nr_hits);
	rule_ids_json(w, "unevaluated_rules", rep, k->unevaluated, k->nr_unevaluated);
	lh_json_str(w, "severity", k->has_worst ? lh_severity_name(k->worst) : NULL);
	lh_json_bool(w, "accepted", k->accepted);
	lh_json_str(w, "signature", k->signature);
	lh_json_source(w, "source", r->source, r->line);
	lh_json_time(w, "captured_at", r->captured_ns);
	lh_json_end(w);
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
	struct lh_json			*text[TWIN_TEXTS];
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
	struct lh_json *w;
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
		lh_json_flush(w);

		pthread_mutex_lock(&t->lock);
		t->ready[k] = true;
		pthread_cond_broadcast(&t->cond);
		pthread_mutex_unlock(&t->lock);
	}
}

/* Puts record i in: rendered here if nobody claimed it, else the second thread's text. */
static void twin_put(struct lh_json *w, struct twin *t, size_t i)
{
	struct lh_json *text;
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
	lh_json_put(w, text->mem, text->mem_len);
	if (text->err)
		lh_json_fail(w, text->err);
	w->had[w->depth] = true;
	pthread_mutex_lock(&t->lock);
	t->busy[k] = false;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

/* Return: whether the records were written by two threads (not: write them with one). */
static bool twin_records(struct lh_json *w, const struct lh_report *rep,
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
		ok &= (t.text[k] = lh_json_alloc(NULL)) != NULL;
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
		lh_json_free(t.text[k]);
	pthread_cond_destroy(&t.cond);
	pthread_mutex_destroy(&t.lock);
	return ok;
}

/* The per-CPU view of a tracer: known CPUs in order, then the unknown one. */
static void cpus_json(struct lh_json *w, const struct lh_report_tracer *tr)
{
	size_t i;

	lh_json_arr(w, "cpus");
	for (i = 0; i < tr->nr_cpus; i++) {
		size_t slot = (i + 1) % tr->nr_cpus;
		const struct lh_report_cpu *c = &tr->cpus[slot];

		if (!c->count)
			continue;
		lh_json_obj(w, NULL);
		lh_json_known(w, "cpu", lh_report_slot_cpu(slot));
		lh_json_uint(w, "count", c->count);
		lh_json_uint(w, "max_us", c->worst ? c->worst->latency_us : 0);
		where_json(w, "worst", c->worst);
		lh_json_hist(w, "histogram", &c->dist);
		lh_json_end(w);
	}
	lh_json_end(w);
}

static void tracer_json(struct lh_json *w, const struct lh_report *rep, enum lh_tracer t)
{
	const struct lh_report_tracer *tr = &rep->tracers[t];
	size_t i;

	lh_json_obj(w, lh_tracer_name(t));
	lh_json_uint(w, "max_us", tr->worst.set ? tr->worst.latency_us : 0);
	lh_json_uint(w, "count", tr->count);
	if (rep->has_run) {
		lh_json_double(w, "armed_s", (double)rep->run.armed_ns[t] / 1e9);
		lh_json_double(w, "blind_s", (double)rep->run.blind_ns[t] / 1e9);
	}
	lh_json_uint(w, "accepted", tr->accepted);
	where_json(w, "worst", &tr->worst);
	where_json(w, "worst_gated", &tr->gate);
	lh_json_hist(w, "histogram", &tr->hist);
	cpus_json(w, tr);
	if (t == LH_TRACER_OSNOISE)
		lh_json_noise_cpus(w, rep);
	lh_json_uint(w, "progression_dropped", tr->steps_dropped);
	lh_json_arr(w, "progression");
	for (i = 0; i < tr->nr_steps; i++) {
		const struct lh_report_step *s = &tr->steps[i];

		lh_json_obj(w, NULL);
		lh_json_known(w, "cpu", s->cpu);
		lh_json_uint(w, "latency_us", s->latency_us);
		lh_json_time(w, "at", s->at_ns);
		lh_json_source(w, "source", s->source, s->line);
		lh_json_end(w);
	}
	lh_json_end(w);
	lh_json_end(w);
}

static void rules_json(struct lh_json *w, const struct lh_report *rep)
{
	/* for rules loaded after the report was allocated that never fired */
	static const struct lh_report_rule none;
	size_t i, n = rep->rules ? lh_rules_count(rep->rules) : 0;

	lh_json_arr(w, "rules");
	for (i = 0; i < n; i++) {
		const struct lh_rule *rule = lh_rules_get(rep->rules, i);
		const struct lh_report_rule *ra = i < rep->nr_rules ? &rep->rule_agg[i] : &none;

		lh_json_obj(w, NULL);
		lh_json_str(w, "id", rule->id);
		lh_json_str(w, "severity", lh_severity_name(rule->severity));
		lh_json_uint(w, "hits", ra->hits);
		lh_json_uint(w, "worst_us", ra->worst_us);
		lh_json_uint(w, "accepted", ra->accepted);
		lh_json_uint(w, "unevaluated", ra->unevaluated);
		lh_json_str(w, "unevaluated_reason", rule->limit_hit);
		lh_json_str(w, "message", rule->message);
		lh_json_uint(w, "gate_worst_us", ra->gate_worst_us);
		lh_json_uint(w, "gate_unevaluated", ra->gate_unevaluated);
		lh_json_end(w);
	}
	lh_json_end(w);
}

static void offenders_json(struct lh_json *w, const struct lh_report *rep)
{
	size_t *order = lh_report_offenders_sorted(rep), i, j;

	lh_json_arr(w, "offenders");
	for (i = 0; i < rep->nr_offenders; i++) {
		const struct lh_report_offender *o = &rep->offenders[order[i]];

		lh_json_obj(w, NULL);
		lh_json_str(w, "signature", o->signature);
		lh_json_str(w, "tracer", lh_tracer_name(o->sig.tracer));
		lh_json_str(w, "started_at", o->sig.started);
		lh_json_str(w, "ended_at", o->sig.ended);
		lh_json_arr(w, "frames");
		for (j = 0; j < o->sig.nr_frames; j++)
			lh_json_str(w, NULL, o->sig.frames[j]);
		lh_json_end(w);
		lh_json_uint(w, "count", o->count);
		lh_json_uint(w, "worst_us", o->worst_us);
		lh_json_uint(w, "accepted", o->accepted);
		lh_json_bool(w, "wakeup", o->sig.has_wakeup);
		lh_json_str(w, "woken", o->sig.woken);
		lh_json_known(w, "cpu", o->cpu);
		lh_json_obj(w, "task");
		lh_json_str_or_null(w, "comm", o->comm);
		lh_json_known(w, "pid", o->pid);
		lh_json_end(w);
		lh_json_end(w);
	}
	lh_json_end(w);
	free(order);
}

static void input_json(struct lh_json *w, const struct lh_report *rep)
{
	size_t i;

	lh_json_obj(w, "input");
	lh_json_uint(w, "snapshots", rep->parse.snapshots);
	lh_json_uint(w, "skipped", rep->parse.skipped);
	lh_json_uint(w, "bad_lines", rep->parse.bad_lines);
	lh_json_uint(w, "incomplete", rep->parse.incomplete);
	lh_json_uint(w, "cut_lines", rep->parse.cut_lines);
	lh_json_arr(w, "warnings");
	for (i = 0; i < rep->nr_warnings; i++)
		lh_json_str(w, NULL, rep->warnings[i]);
	lh_json_end(w);
	lh_json_uint(w, "warnings_total", rep->warnings_total);
	lh_json_arr(w, "files");
	for (i = 0; i < rep->nr_inputs; i++) {
		const struct lh_report_input *in = &rep->inputs[i];

		lh_json_obj(w, NULL);
		lh_json_str(w, "name", in->name);
		lh_json_uint(w, "snapshots", in->snapshots);
		lh_json_uint(w, "skipped", in->skipped);
		lh_json_str(w, "problem", in->problem);
		if (in->problem)
			lh_json_bool(w, "accepted", in->accepted);
		else
			lh_json_null(w, "accepted");
		lh_json_end(w);
	}
	lh_json_end(w);
	lh_json_uint(w, "unread", rep->inputs_unread);
	lh_json_uint(w, "unread_accepted", rep->inputs_accepted);
	lh_json_end(w);
}

static void run_json(struct lh_json *w, const struct lh_report *rep)
{
	const struct lh_run_info *run = &rep->run;
	int t;

	if (!rep->has_run) {
		lh_json_null(w, "run");
		return;
	}
	lh_json_obj(w, "run");
	lh_json_time(w, "started_at", run->started_ns);
	lh_json_time(w, "ended_at", run->ended_ns);
	lh_json_double(w, "duration_s", (double)lh_report_run_duration_ns(rep) / 1e9);
	lh_json_us(w, "threshold_us", run->threshold_ns);
	lh_json_uint(w, "captures", run->captures);
	lh_json_uint(w, "sections_lost", run->sections_lost);
	lh_json_uint(w, "sections_torn", run->sections_torn);
	lh_json_uint(w, "snapshots_dropped", run->snapshots_dropped);
	lh_json_str(w, "wait_method", run->wait_method);
	lh_json_str(w, "command", run->command);
	if (run->command && run->command_status >= 0)
		lh_json_int(w, "command_status", run->command_status);
	else
		lh_json_null(w, "command_status");
	lh_json_str(w, "end_reason", run->end_reason);
	lh_json_obj(w, "not_measured");
	for (t = 1; t < LH_TRACER_NR; t++)
		if (run->not_measured[t])
			lh_json_str(w, lh_tracer_name(t), run->not_measured[t]);
	lh_json_end(w);
	lh_json_str(w, "kernel", run->kernel);
	lh_json_str(w, "host", run->host);
	lh_json_str(w, "run_id", run->run_id);
	lh_json_end(w);
}

static void irq_stats_json(struct lh_json *w, const struct lh_report *rep)
{
	const struct lh_irqstat *st = rep->has_run ? rep->run.irqstat : NULL;
	size_t i, n;
	int k;

	if (!st) {
		lh_json_null(w, "irq_stats");
		return;
	}
	lh_json_obj(w, "irq_stats");
	lh_json_uint(w, "events", lh_irqstat_events(st));
	lh_json_uint(w, "lost", lh_irqstat_lost(st));
	lh_json_uint(w, "dropped", lh_irqstat_dropped(st));
	n = lh_irqstat_count(st);
	lh_json_arr(w, "handlers");
	for (i = 0; i < n; i++) {
		const struct lh_irqstat_entry *s = lh_irqstat_get(st, i);

		lh_json_obj(w, NULL);
		lh_json_int(w, "irq", s->irq);
		lh_json_str(w, "name", s->name);
		lh_json_int(w, "cpu", s->cpu);
		lh_json_uint(w, "count", s->count);
		lh_json_us(w, "max_us", s->max_ns);
		lh_json_double(w, "mean_us",
			  s->count ? (double)s->sum_ns / (double)s->count / 1e3 : 0);
		lh_json_us(w, "p99_us", lh_irqstat_p99(s));
		lh_json_arr(w, "histogram");
		for (k = 0; k < LH_IRQSTAT_BUCKETS; k++) {
			if (!s->hist[k])
				continue;
			lh_json_obj(w, NULL);
			lh_json_double(w, "le_us", (double)(2ULL << k) / 1e3);
			lh_json_uint(w, "count", s->hist[k]);
			lh_json_end(w);
		}
		lh_json_end(w);
		lh_json_hist(w, "distribution", &s->dist);
		lh_json_end(w);
	}
	lh_json_end(w);
	lh_json_end(w);
}

/* The callers with the longest sections of a kernel histogram. */
static void callers_json(struct lh_json *w, const struct lh_report_histogram *k)
{
	size_t i;

	lh_json_arr(w, "callers");
	for (i = 0; i < k->nr_callers; i++) {
		lh_json_obj(w, NULL);
		lh_json_str(w, "symbol", k->callers[i].symbol);
		lh_json_uint(w, "count", k->callers[i].count);
		lh_json_us(w, "max_us", k->callers[i].max_ns);
		lh_json_end(w);
	}
	lh_json_end(w);
	lh_json_str(w, "callers_note", k->callers_note);
}

/* The histograms the kernel counted, as set. */
static void hists_json(struct lh_json *w, const struct lh_report *rep)
{
	size_t i;

	lh_json_arr(w, "histograms");
	for (i = 0; i < rep->nr_hists; i++) {
		const struct lh_report_histogram *k = &rep->hists[i];

		lh_json_obj(w, NULL);
		lh_json_khist_members(w, k);
		if (k->has_callers)
			callers_json(w, k);
		lh_json_end(w);
	}
	lh_json_end(w);
}

/* hwlat's samples per CPU beside the software tracers' worst there (lh_report_floors()). */
static void floor_json(struct lh_json *w, const struct lh_report *rep)
{
	size_t n, i, k;
	struct lh_report_floor *f = lh_report_floors(rep, &n);

	lh_json_arr(w, "hardware_floor");
	for (i = 0; i < n; i++) {
		lh_json_obj(w, NULL);
		lh_json_int(w, "cpu", f[i].cpu);
		lh_json_uint(w, "samples", f[i].hwlat->count);
		lh_json_us(w, "worst_us", f[i].hwlat->max_ns);
		lh_json_us_if(w, "p99_us", f[i].has_p99, f[i].p99_ns);
		lh_json_arr(w, "software");
		for (k = 0; k < f[i].nr_sw; k++) {
			lh_json_obj(w, NULL);
			lh_json_str(w, "tracer", lh_tracer_name(f[i].sw[k].tracer));
			lh_json_uint(w, "worst_us", f[i].sw[k].worst_us);
			lh_json_bool(w, "within_floor",
				     lh_report_floor_within(&f[i], f[i].sw[k].worst_us));
			lh_json_end(w);
		}
		lh_json_end(w);
		lh_json_end(w);
	}
	lh_json_end(w);
	free(f);
}

static void report_json(struct lh_json *w, const struct lh_report *rep)
{
	struct lh_report_kept **kept;
	size_t i;
	int t;

	lh_json_obj(w, NULL);
	lh_json_str(w, "lathound", LH_VERSION);
	lh_json_int(w, "report_version", LH_REPORT_VERSION);
	lh_json_str(w, "mode", rep->has_run && rep->run.mode ? rep->run.mode : "analyze");
	lh_json_str(w, "board", rep->opts.board);
	lh_json_verdict(w, lh_report_verdict(rep), &rep->verdict);
	lh_json_gate(w, &rep->gate);

	lh_json_obj(w, "tracers");
	for (t = 1; t <= LH_TRACER_NR; t++) {
		enum lh_tracer tt = t == LH_TRACER_NR ? LH_TRACER_UNKNOWN : t;

		if (rep->tracers[tt].count || (rep->has_run && rep->run.armed_ns[tt]) ||
		    (tt == LH_TRACER_OSNOISE && rep->nr_noise))
			tracer_json(w, rep, tt);
	}
	lh_json_end(w);
	rules_json(w, rep);
	offenders_json(w, rep);
	lh_json_obj(w, "offenders_other");
	lh_json_uint(w, "count", rep->other_count);
	lh_json_uint(w, "worst_us", rep->other_worst_us);
	lh_json_uint(w, "accepted", rep->other_accepted);
	lh_json_end(w);

	kept = lh_report_kept_sorted(rep);
	lh_json_arr(w, "records");
	if (!twin_records(w, rep, kept, rep->nr_heap))
		for (i = 0; i < rep->nr_heap; i++)
			record_json(w, rep, kept[i]);
	lh_json_end(w);
	free(kept);
	lh_json_uint(w, "records_total", rep->total);
	lh_json_uint(w, "records_kept", rep->nr_heap);
	lh_json_uint(w, "records_dropped", rep->total - rep->nr_heap);
	input_json(w, rep);
	run_json(w, rep);
	irq_stats_json(w, rep);
	hists_json(w, rep);
	floor_json(w, rep);
	lh_json_arr(w, "merged_from");
	for (i = 0; i < rep->nr_merged_from; i++)
		lh_json_str(w, NULL, rep->merged_from[i]);
	lh_json_end(w);
	lh_json_end(w);
}

int lh_report_write_json(struct lh_report *rep, FILE *out)
{
	struct lh_json *w = lh_json_alloc(out);

	if (!w)
		return -1;
	errno = 0;
	report_json(w, rep);
	return lh_json_close(w);
}
