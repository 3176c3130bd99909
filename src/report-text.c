// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text report, for an RT engineer at a terminal: worst latency per tracer and where,
 * top offenders, rule hits, the worst section in detail, what was lost, and the verdict.
 * Latencies are in microseconds ("us", as the kernel's own latency trace writes them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report-priv.h"

#define TOP_OFFENDERS	10
#define TOP_FUNCTIONS	10
#define TOP_STEPS	8	/* progression steps shown per CPU */
#define TEXT_WARNINGS	10

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* "comm-pid", "comm", "pid N" or "-". Return: buf. */
static char *task_name(const char *comm, int pid, char *buf, size_t len)
{
	if (comm && *comm && pid >= 0)
		snprintf(buf, len, "%s-%d", comm, pid);
	else if (comm && *comm)
		snprintf(buf, len, "%s", comm);
	else if (pid >= 0)
		snprintf(buf, len, "pid %d", pid);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* "0", or "-" for an unknown CPU. Return: buf. */
static char *cpu_name(int cpu, char *buf, size_t len)
{
	if (cpu >= 0)
		snprintf(buf, len, "%d", cpu);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* Tracers in the order of enum lh_tracer, 'unknown' last. */
static enum lh_tracer tracer_at(int i)
{
	return i + 1 < LH_TRACER_NR ? (enum lh_tracer)(i + 1) : LH_TRACER_UNKNOWN;
}

#define TOP_CPUS	16	/* CPUs whose progression is shown per tracer */

/* "irqsoff CPU0: 150 -> 900 -> 2002 us" for each CPU whose maximum rose. */
static void print_progression(const struct lh_report_tracer *tr, enum lh_tracer t, FILE *out)
{
	size_t slot, i, n, skip, seen, cpus = 0, more = 0;

	for (slot = 0; slot < tr->nr_cpus; slot++) {
		int cpu = (int)slot - 1;
		char name[16];

		if (!tr->cpus[slot].seen || tr->cpus[slot].steps < 2)
			continue;
		if (cpus++ >= TOP_CPUS) {
			more++;
			continue;
		}
		n = tr->cpus[slot].steps;
		skip = n > TOP_STEPS ? n - TOP_STEPS : 0;
		fprintf(out, "    %s CPU%s: %s", lh_tracer_name(t),
			cpu_name(cpu, name, sizeof(name)), skip ? "... -> " : "");
		for (i = 0, seen = 0; i < tr->nr_steps; i++) {
			if (tr->steps[i].cpu != cpu || seen++ < skip)
				continue;
			fprintf(out, "%s%llu", seen > skip + 1 ? " -> " : "",
				(unsigned long long)tr->steps[i].latency_us);
		}
		fprintf(out, " us\n");
	}
	if (more)
		fprintf(out, "    %s: and %zu more CPU%s\n", lh_tracer_name(t), more,
			more == 1 ? "" : "s");
	if (tr->steps_dropped)
		fprintf(out, "    %s: %lu later step%s beyond %d per CPU not kept\n",
			lh_tracer_name(t), tr->steps_dropped, tr->steps_dropped == 1 ? "" : "s",
			LH_REPORT_STEPS);
}

static void print_tracers(const struct lh_report *rep, FILE *out)
{
	unsigned long accepted = 0;
	bool progression = false;
	char task[64], cpu[16];
	int i, w = 6;

	for (i = 0; i < LH_TRACER_NR; i++) {
		const struct lh_report_tracer *tr = &rep->tracers[tracer_at(i)];
		size_t s;

		if (!tr->count)
			continue;
		w = max_int(w, (int)strlen(lh_tracer_name(tracer_at(i))));
		accepted += tr->accepted;
		for (s = 0; s < tr->nr_cpus; s++)
			progression |= tr->cpus[s].steps > 1;
	}
	fprintf(out, "Worst latency per tracer\n");
	if (!rep->total) {
		fprintf(out, "  no latency sections found\n");
		return;
	}
	fprintf(out, "  %-*s  %10s  %8s  %4s  %-20s  %s\n", w, "TRACER", "WORST", "SECTIONS",
		"CPU", "TASK", "STARTED AT -> ENDED AT");
	for (i = 0; i < LH_TRACER_NR; i++) {
		const struct lh_report_tracer *tr = &rep->tracers[tracer_at(i)];
		const struct lh_report_where *wh = &tr->worst;

		if (!tr->count)
			continue;
		fprintf(out, "  %-*s  %7llu us  %8lu  %4s  %-20s  ", w,
			lh_tracer_name(tracer_at(i)), (unsigned long long)wh->latency_us, tr->count,
			cpu_name(wh->cpu, cpu, sizeof(cpu)),
			task_name(wh->comm, wh->pid, task, sizeof(task)));
		if (wh->started[0] || wh->ended[0])
			fprintf(out, "%s -> %s", wh->started[0] ? wh->started : "?",
				wh->ended[0] ? wh->ended : "?");
		else
			fputc('-', out);
		fputc('\n', out);
		if (wh->source)
			fprintf(out, "  %-*s  %10s  %8s  %4s  at %s:%lu\n", w, "", "", "", "",
				wh->source, wh->line);
		if (tr->gate.set && tr->gate.latency_us != wh->latency_us)
			fprintf(out, "  %-*s  %7llu us  %8s  %4s  %-20s  worst not accepted (what --max sees)\n",
				w, "", (unsigned long long)tr->gate.latency_us, "",
				cpu_name(tr->gate.cpu, cpu, sizeof(cpu)),
				task_name(tr->gate.comm, tr->gate.pid, task, sizeof(task)));
	}
	if (accepted)
		fprintf(out, "  %lu section%s accepted by 'ignore' rules (shown, never gated)\n",
			accepted, accepted == 1 ? "" : "s");
	if (!progression)
		return;
	fprintf(out, "  progression of maxima:\n");
	for (i = 0; i < LH_TRACER_NR; i++)
		if (rep->tracers[tracer_at(i)].count)
			print_progression(&rep->tracers[tracer_at(i)], tracer_at(i), out);
}

static void print_offenders(const struct lh_report *rep, FILE *out)
{
	size_t *order, i, j, n = rep->nr_offenders < TOP_OFFENDERS ? rep->nr_offenders :
								    TOP_OFFENDERS;
	int w = 6;

	if (!rep->nr_offenders)
		return;
	order = lh_report_offenders_sorted(rep);
	for (i = 0; i < n; i++)
		w = max_int(w, (int)strlen(lh_tracer_name(rep->offenders[order[i]].sig.tracer)));
	fprintf(out, "\nTop offenders (%zu of %zu signature%s, worst first)\n", n,
		rep->nr_offenders, rep->nr_offenders == 1 ? "" : "s");
	fprintf(out, "  %10s  %7s  %-*s  %s\n", "WORST", "COUNT", w, "TRACER",
		"STARTED AT -> ENDED AT / INNERMOST FRAMES");
	for (i = 0; i < n; i++) {
		const struct lh_report_offender *o = &rep->offenders[order[i]];

		fprintf(out, "  %7llu us  %7lu  %-*s  %s -> %s", (unsigned long long)o->worst_us,
			o->count, w, lh_tracer_name(o->sig.tracer), o->sig.started ? o->sig.started : "-",
			o->sig.ended ? o->sig.ended : "-");
		if (o->accepted)
			fprintf(out, "  [%lu accepted]", o->accepted);
		fputc('\n', out);
		if (o->sig.nr_frames) {
			fprintf(out, "  %10s  %7s  %-*s  ", "", "", w, "");
			for (j = 0; j < o->sig.nr_frames; j++)
				fprintf(out, "%s%s", j ? " < " : "", o->sig.frames[j]);
			fputc('\n', out);
		}
	}
	if (rep->other_count)
		fprintf(out, "  other: %lu section%s beyond %d signatures, worst %llu us\n",
			rep->other_count, rep->other_count == 1 ? "" : "s", LH_REPORT_SIGNATURES,
			(unsigned long long)rep->other_worst_us);
	free(order);
}

static void print_rules(const struct lh_report *rep, FILE *out)
{
	size_t i, n = rep->rules ? lh_rules_count(rep->rules) : 0, fired = 0;
	int w = 4;

	for (i = 0; i < n; i++) {
		w = max_int(w, (int)strlen(lh_rules_get(rep->rules, i)->id));
		fired += i < rep->nr_rules && rep->rule_agg[i].hits;
	}
	fprintf(out, "\nRules (%zu loaded, %zu fired)\n", n, fired);
	if (!fired && !rep->unevaluated_records)
		return;
	fprintf(out, "  %-*s  %-8s  %7s  %8s  %10s  %s\n", w, "RULE", "SEVERITY", "HITS",
		"ACCEPTED", "WORST", "MESSAGE");
	for (i = 0; i < n && i < rep->nr_rules; i++) {
		const struct lh_rule *rule = lh_rules_get(rep->rules, i);
		const struct lh_report_rule *ra = &rep->rule_agg[i];

		if (!ra->hits)
			continue;
		fprintf(out, "  %-*s  %-8s  %7lu  %8lu  %7llu us  %s\n", w, rule->id,
			lh_severity_name(rule->severity), ra->hits, ra->accepted,
			(unsigned long long)ra->worst_us, rule->message ? rule->message : "");
	}
	for (i = 0; i < n && i < rep->nr_rules; i++)
		if (rep->rule_agg[i].unevaluated)
			fprintf(out, "  rule %s could not be evaluated on %lu record%s: %s\n",
				lh_rules_get(rep->rules, i)->id, rep->rule_agg[i].unevaluated,
				rep->rule_agg[i].unevaluated == 1 ? "" : "s",
				lh_rules_get(rep->rules, i)->limit_hit);
}

static int cmp_func_count(const void *a, const void *b)
{
	const struct lh_func *x = *(const struct lh_func *const *)a;
	const struct lh_func *y = *(const struct lh_func *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x < y ? -1 : 1;
}

static void print_wake(const char *what, const struct lh_task *t, FILE *out)
{
	char task[64];

	fprintf(out, "  %-12s %s", what, task_name(t->comm, t->pid, task, sizeof(task)));
	if (t->prio >= 0)
		fprintf(out, " prio %d", t->prio);
	if (t->state)
		fprintf(out, " state %c", t->state);
	fputc('\n', out);
}

/* The worst section kept in full (not accepted if any), in detail. */
static void print_worst(const struct lh_report *rep, FILE *out)
{
	const struct lh_report_kept *k = NULL;
	const struct lh_record *r;
	const struct lh_func **fv;
	char task[64], buf[32];
	size_t i;

	for (i = 0; i < rep->nr_heap; i++) {
		const struct lh_report_kept *c = rep->heap[i];

		if (!k || (k->accepted && !c->accepted) ||
		    (k->accepted == c->accepted && (c->rec->latency_us > k->rec->latency_us ||
		     (c->rec->latency_us == k->rec->latency_us && c->seq < k->seq))))
			k = c;
	}
	if (!k)
		return;
	r = k->rec;
	fprintf(out, "\nWorst section: %s, %llu us", lh_report_tracer_name(r),
		(unsigned long long)r->latency_us);
	if (r->cpu >= 0)
		fprintf(out, " on CPU%d", r->cpu);
	if (k->accepted)
		fprintf(out, " (accepted)");
	fputc('\n', out);
	if (r->source)
		fprintf(out, "  %-12s %s:%lu\n", "source:", r->source, r->line);
	if (r->captured_ns)
		fprintf(out, "  %-12s %s\n", "captured:",
			lh_report_iso8601(r->captured_ns, buf, sizeof(buf)));
	fprintf(out, "  %-12s %s", "task:", task_name(r->task.comm, r->task.pid, task,
						       sizeof(task)));
	if (r->task.uid >= 0)
		fprintf(out, " (uid %d, policy %d, rt_prio %d)", r->task.uid, r->task.policy,
			r->task.rt_prio);
	fputc('\n', out);
	if (r->kernel || r->preempt_model || r->nr_cpus >= 0) {
		fprintf(out, "  %-12s %s", "kernel:", r->kernel ? r->kernel : "?");
		if (r->preempt_model)
			fprintf(out, ", %s", r->preempt_model);
		if (r->nr_cpus >= 0)
			fprintf(out, ", %d CPU%s", r->nr_cpus, r->nr_cpus == 1 ? "" : "s");
		fputc('\n', out);
	}
	if (r->started_at || r->ended_at) {
		fprintf(out, "  %-12s %s\n", "started at:", r->started_at ? r->started_at : "-");
		fprintf(out, "  %-12s %s\n", "ended at:", r->ended_at ? r->ended_at : "-");
	}
	if (r->has_wakeup) {
		print_wake("woken:", &r->woken, out);
		print_wake("waker:", &r->waker, out);
	}
	if (k->nr_hits) {
		fprintf(out, "  %-12s", "rules:");
		for (i = 0; i < k->nr_hits; i++) {
			const struct lh_rule *rule = rep->rules &&
				k->hits[i] < lh_rules_count(rep->rules) ?
				lh_rules_get(rep->rules, k->hits[i]) : NULL;

			if (rule)
				fprintf(out, "%s%s (%s)", i ? ", " : " ", rule->id,
					lh_severity_name(rule->severity));
		}
		fputc('\n', out);
	}
	if (k->nr_unevaluated) {
		/* rules that could not tell whether they match this record */
		fprintf(out, "  %-12s", "unevaluated:");
		for (i = 0; i < k->nr_unevaluated; i++)
			fprintf(out, "%s%s", i ? ", " : " ",
				lh_rules_get(rep->rules, k->unevaluated[i])->id);
		fputc('\n', out);
	}
	if (r->nr_irqs) {
		fprintf(out, "  irq handlers:\n    %4s  %-20s  %12s  %s\n", "IRQ", "NAME",
			"DURATION", "RET");
		for (i = 0; i < r->nr_irqs; i++) {
			const struct lh_irq *q = &r->irqs[i];

			if (q->irq >= 0)
				fprintf(out, "    %4d", q->irq);
			else
				fprintf(out, "    %4s", "-");
			fprintf(out, "  %-20s  ", q->name ? q->name : "-");
			if (q->duration_us >= 0)
				fprintf(out, "%9.3f us", q->duration_us);
			else
				fprintf(out, "%12s", "no exit");
			fprintf(out, "  %s\n", q->ret ? q->ret : "-");
		}
	}
	if (r->nr_stacks && r->stacks[0].nr) {
		fprintf(out, "  stack (innermost first):\n");
		for (i = 0; i < r->stacks[0].nr; i++)
			fprintf(out, "    %s\n", r->stacks[0].frames[i]);
	}
	if (r->nr_funcs) {
		size_t n = r->nr_funcs < TOP_FUNCTIONS ? r->nr_funcs : TOP_FUNCTIONS;

		fv = lh_xmalloc(r->nr_funcs * sizeof(*fv));
		for (i = 0; i < r->nr_funcs; i++)
			fv[i] = &r->funcs[i];
		qsort(fv, r->nr_funcs, sizeof(*fv), cmp_func_count);
		fprintf(out, "  top functions (%zu of %zu):\n    %7s  %s\n", n, r->nr_funcs,
			"CALLS", "FUNCTION");
		for (i = 0; i < n; i++)
			fprintf(out, "    %7u  %s\n", fv[i]->count,
				fv[i]->name ? fv[i]->name : "?");
		free(fv);
	}
}

static void print_input(const struct lh_report *rep, FILE *out)
{
	size_t i, n = rep->nr_warnings < TEXT_WARNINGS ? rep->nr_warnings : TEXT_WARNINGS;

	fprintf(out, "\nInput: %lu snapshot%s parsed, %lu skipped as malformed, %lu bad line%s, "
		     "%lu warning%s\n",
		rep->parse.snapshots, rep->parse.snapshots == 1 ? "" : "s", rep->parse.skipped,
		rep->parse.bad_lines, rep->parse.bad_lines == 1 ? "" : "s", rep->warnings_total,
		rep->warnings_total == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		fprintf(out, "  %s\n", rep->warnings[i]);
	if (rep->warnings_total > n)
		fprintf(out, "  and %lu more\n", rep->warnings_total - (unsigned long)n);
	for (i = 0; i < rep->nr_inputs; i++)
		if (rep->inputs[i].problem)
			fprintf(out, "  NOT READ%s: %s\n",
				rep->inputs[i].accepted ? " (accepted: --allow-unreadable)" : "",
				rep->inputs[i].problem);
	fprintf(out, "Records: %lu section%s, %zu kept in full, %lu dropped after aggregation\n",
		rep->total, rep->total == 1 ? "" : "s", rep->nr_heap,
		rep->total - (unsigned long)rep->nr_heap);
}

static void print_run(const struct lh_report *rep, FILE *out)
{
	const struct lh_run_info *run = &rep->run;
	char a[32], b[32], thr[32];
	const char *start, *end;
	bool armed = false;
	double secs;
	int i;

	if (!rep->has_run)
		return;
	for (i = 0; i < LH_TRACER_NR; i++)
		armed |= run->armed_ns[i] != 0;
	start = lh_report_iso8601(run->started_ns, a, sizeof(a));
	end = lh_report_iso8601(run->ended_ns, b, sizeof(b));
	secs = run->ended_ns > run->started_ns ? (double)(run->ended_ns - run->started_ns) / 1e9
					       : 0;
	fprintf(out, "\nRun: %s to %s (%.1f s)", start ? start : "?", end ? end : "?", secs);
	if (run->end_reason)
		fprintf(out, ", ended by %s", run->end_reason);
	fputc('\n', out);
	if (!run->wait_method && !armed) {
		/* 'record --irq-only': no tracer was armed, nothing waited for sections. */
		fprintf(out, "  no latency tracer armed (IRQ statistics only)\n");
	} else {
		fprintf(out, "  threshold %s, %lu capture%s (%s), %lu section%s lost, %lu snapshot%s dropped\n",
			run->threshold_ns ? lh_report_fmt_us(run->threshold_ns, thr, sizeof(thr)) :
					    "0 (running maxima)",
			run->captures, run->captures == 1 ? "" : "s",
			run->wait_method ? run->wait_method : "?",
			run->sections_lost, run->sections_lost == 1 ? "" : "s",
			run->snapshots_dropped, run->snapshots_dropped == 1 ? "" : "s");
		fprintf(out, "  armed:");
		for (i = 0; i < LH_TRACER_NR; i++)
			if (run->armed_ns[tracer_at(i)])
				fprintf(out, " %s %.1f s", lh_tracer_name(tracer_at(i)),
					(double)run->armed_ns[tracer_at(i)] / 1e9);
		fputc('\n', out);
	}
	for (i = 1; i < LH_TRACER_NR; i++)
		if (run->not_measured[i])
			fprintf(out, "  not measured: %s (%s)\n", lh_tracer_name(i),
				run->not_measured[i]);
	if (run->command) {
		fprintf(out, "  command: %s", run->command);
		if (run->command_status >= 0)
			fprintf(out, " (exit status %d)", run->command_status);
		fputc('\n', out);
	}
	if (run->kernel)
		fprintf(out, "  kernel: %s\n", run->kernel);
}

static void print_irqstat(const struct lh_report *rep, FILE *out)
{
	const struct lh_irqstat *st = rep->has_run ? rep->run.irqstat : NULL;
	size_t i, n;
	int w = 4;

	if (!st)
		return;
	n = lh_irqstat_count(st);
	fprintf(out, "\nIRQ handlers: %llu run%s accounted, %llu event%s lost, %llu dropped\n",
		(unsigned long long)lh_irqstat_events(st), lh_irqstat_events(st) == 1 ? "" : "s",
		(unsigned long long)lh_irqstat_lost(st), lh_irqstat_lost(st) == 1 ? "" : "s",
		(unsigned long long)lh_irqstat_dropped(st));
	if (!n)
		return;
	for (i = 0; i < n; i++)
		w = max_int(w, (int)strlen(lh_irqstat_get(st, i)->name));
	fprintf(out, "  %4s  %-*s  %4s  %10s  %12s  %12s  %12s\n", "IRQ", w, "NAME", "CPU",
		"COUNT", "MAX", "MEAN", "P99<=");
	for (i = 0; i < n; i++) {
		const struct lh_irqstat_entry *e = lh_irqstat_get(st, i);

		fprintf(out, "  %4d  %-*s  %4d  %10llu  %9.3f us  %9.3f us  %9.3f us\n", e->irq, w,
			e->name, e->cpu, (unsigned long long)e->count, (double)e->max_ns / 1e3,
			e->count ? (double)e->sum_ns / (double)e->count / 1e3 : 0.0,
			(double)lh_irqstat_p99(e) / 1e3);
	}
}

static void print_verdict(const struct lh_report *rep, FILE *out)
{
	char buf[32];
	int t;

	if (rep->error)
		fprintf(out, "\nVerdict: ERROR: %s\nGates, for what was read: %s (--fail-on %s",
			rep->error, rep->passed ? "pass" : "FAIL", lh_gate_fail_on_name(&rep->gate));
	else
		fprintf(out, "\nVerdict: %s (--fail-on %s", rep->passed ? "PASS" : "FAIL",
			lh_gate_fail_on_name(&rep->gate));
	for (t = 1; t < LH_TRACER_NR; t++)
		if (rep->gate.has_max[t])
			fprintf(out, ", --max %s=%s", lh_tracer_name(t),
				lh_duration_format(rep->gate.max_ns[t], buf, sizeof(buf)));
	if (rep->gate.has_max[LH_TRACER_UNKNOWN])
		fprintf(out, ", --max all=%s",
			lh_duration_format(rep->gate.max_ns[LH_TRACER_UNKNOWN], buf, sizeof(buf)));
	fprintf(out, ")\n");
	for (t = 0; (size_t)t < rep->nr_violations; t++)
		fprintf(out, "  - %s\n", rep->violations[t]);
}

int lh_report_write_text(struct lh_report *rep, FILE *out)
{
	errno = 0;
	fprintf(out, "lathound %s %s report\n\n", LH_VERSION,
		rep->has_run && rep->run.mode ? rep->run.mode : "analyze");
	print_tracers(rep, out);
	print_offenders(rep, out);
	print_rules(rep, out);
	print_worst(rep, out);
	print_input(rep, out);
	print_run(rep, out);
	print_irqstat(rep, out);
	print_verdict(rep, out);
	return lh_report_stream_status(out);
}
