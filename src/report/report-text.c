// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text report, for an RT engineer at a terminal: worst latency per tracer and where,
 * top offenders, rule hits, the worst section in detail, what was lost, and the verdict.
 * Latencies are in microseconds ("us", as the kernel's own latency trace writes them).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
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
	return lh_report_cpu_name(cpu, "", "-", buf, len);
}

#define TOP_CPUS	16	/* CPUs whose progression is shown per tracer */

/* "irqsoff CPU0: 150 -> 900 -> 2002 us" for each CPU whose maximum rose. */
static void print_progression(const struct lh_report_tracer *tr, enum lh_tracer t, FILE *out)
{
	size_t slot, i, n, skip, seen, cpus = 0, more = 0;

	for (slot = 0; slot < tr->nr_cpus; slot++) {
		int cpu = (int)slot - 1;
		char name[16];

		if (!tr->cpus[slot].seen || !tr->cpus[slot].steps)
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
		fprintf(out, "    %s: %" PRIu64 " later step%s beyond %d per CPU not kept\n",
			lh_tracer_name(t), tr->steps_dropped, tr->steps_dropped == 1 ? "" : "s",
			LH_REPORT_STEPS);
}

/* "  CPU1   512 us   1   1  irq_test-83   a -> b": each CPU's worst, when there are several. */
static void print_cpus(const struct lh_report_tracer *tr, int w, FILE *out)
{
	char task[64], cpu[16], name[24];
	size_t i, slot, seen = 0;

	for (slot = 0; slot < tr->nr_cpus; slot++)
		seen += tr->cpus[slot].count > 0;
	if (seen < 2)
		return;
	for (i = 0; i < tr->nr_cpus; i++) {
		/* known CPUs in order, the unknown one last */
		const struct lh_report_cpu *c = &tr->cpus[(i + 1) % tr->nr_cpus];
		const struct lh_report_where *wh = c->worst;

		if (!c->count || !wh)
			continue;
		snprintf(name, sizeof(name), "  CPU%s",
			 cpu_name(lh_report_slot_cpu((i + 1) % tr->nr_cpus), cpu, sizeof(cpu)));
		fprintf(out, "  %-*s  %7llu us  %8lu  %4s  %-20s  ", w, name,
			(unsigned long long)wh->latency_us, (unsigned long)c->count,
			cpu_name(wh->cpu, cpu, sizeof(cpu)),
			task_name(wh->comm, wh->pid, task, sizeof(task)));
		if (wh->started[0] || wh->ended[0])
			fprintf(out, "%s -> %s\n", wh->started[0] ? wh->started : "?",
				wh->ended[0] ? wh->ended : "?");
		else
			fprintf(out, "-\n");
	}
}

static void print_tracers(const struct lh_report *rep, FILE *out)
{
	unsigned long accepted = 0;
	bool progression = false;
	char task[64], cpu[16];
	int i, w = 6;

	for (i = 0; i < LH_TRACER_NR; i++) {
		const struct lh_report_tracer *tr = &rep->tracers[lh_tracer_at(i)];
		size_t s;

		if (!tr->count)
			continue;
		w = max_int(w, (int)strlen(lh_tracer_name(lh_tracer_at(i))));
		if (tr->nr_cpus > 1)	/* "  CPU8191" */
			w = max_int(w, 5 + snprintf(NULL, 0, "%zu", tr->nr_cpus - 2));
		accepted += tr->accepted;
		for (s = 0; s < tr->nr_cpus; s++)
			progression |= tr->cpus[s].steps > 0;
	}
	fprintf(out, "Worst latency per tracer\n");
	if (!rep->total) {
		fprintf(out, "  no latency sections found\n");
		return;
	}
	fprintf(out, "  %-*s  %10s  %8s  %4s  %-20s  %s\n", w, "TRACER", "WORST", "SECTIONS",
		"CPU", "TASK", "STARTED AT -> ENDED AT");
	for (i = 0; i < LH_TRACER_NR; i++) {
		const struct lh_report_tracer *tr = &rep->tracers[lh_tracer_at(i)];
		const struct lh_report_where *wh = &tr->worst;

		if (!tr->count)
			continue;
		fprintf(out, "  %-*s  %7llu us  %8" PRIu64 "  %4s  %-20s  ", w,
			lh_tracer_name(lh_tracer_at(i)), (unsigned long long)wh->latency_us, tr->count,
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
		print_cpus(tr, w, out);
	}
	if (accepted)
		fprintf(out, "  %lu section%s accepted by 'ignore' rules (shown, never gated)\n",
			accepted, accepted == 1 ? "" : "s");
	if (!progression)
		return;
	fprintf(out, "  progression of maxima:\n");
	for (i = 0; i < LH_TRACER_NR; i++)
		if (rep->tracers[lh_tracer_at(i)].count)
			print_progression(&rep->tracers[lh_tracer_at(i)], lh_tracer_at(i), out);
}

/*
 * "           noisiest: thread lhspin 320000.000 us (40), irq local_timer 4100.000 us (4000),
 * 9 more 12.000 us" (on one line).
 */
static void print_sources(const struct lh_report_noise *n, FILE *out)
{
	char buf[LH_REPORT_SOURCES_TEXT];

	if (*lh_report_sources_text(n, buf, sizeof(buf)))
		fprintf(out, "           noisiest: %s\n", buf);
}

/* osnoise per CPU: "  CPU1   4 periods   4000000.000 us runtime   8060.000 us noise   99.798 %". */
static void print_noise(const struct lh_report *rep, FILE *out)
{
	char pct[16];
	uint32_t milli;
	size_t i;

	if (!rep->nr_noise)
		return;
	fprintf(out, "\nosnoise: %% CPU available (100 %% - noise / runtime, every period)\n"
		"  %-7s  %8s  %18s  %15s  %10s\n", "CPU", "PERIODS", "RUNTIME", "NOISE",
		"AVAILABLE");
	for (i = 0; i < rep->nr_noise; i++) {
		const struct lh_report_noise *n = &rep->noise[i];

		fprintf(out, "  CPU%-4d  %8" PRIu64 "  %15.3f us  %12.3f us  ", n->cpu, n->periods,
			(double)n->runtime_ns / 1e3, (double)n->noise_ns / 1e3);
		if (lh_gate_available(n->runtime_ns, n->noise_ns, &milli))
			fprintf(out, "%10s\n", "no period");
		else
			fprintf(out, "%8s %%\n", lh_gate_fmt_available(milli, pct, sizeof(pct)));
		if (n->periods)
			fprintf(out, "           longest single noise %.3f us, hardware noise %" PRIu64 "\n",
				(double)n->max_single_ns / 1e3, n->hw_count);
		print_sources(n, out);
	}
	if (rep->noise_dropped)
		fprintf(out, "  %" PRIu64 " noise events the kernel could not count by source (its histograms were full)\n",
			rep->noise_dropped);
}

/*
 * hwlat's samples per CPU beside the software tracers' worst there: a software worst within
 * the floor may be the hardware's, one over it is longer than any gap hwlat saw on that CPU.
 */
static void print_floor(const struct lh_report *rep, FILE *out)
{
	char worst[32], p99[40], name[16], sw[LH_REPORT_FLOOR_TEXT];
	size_t n, i;
	struct lh_report_floor *f = lh_report_floors(rep, &n);

	if (!n)
		return;
	fprintf(out, "\nHardware floor: hwlat's gaps per CPU, measured with interrupts off (SMIs, firmware, a hypervisor, NMIs)\n"
		"  %-7s  %8s  %12s  %12s  %s\n", "CPU", "SAMPLES", "WORST", "P99",
		"SOFTWARE WORST ON THE CPU");
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "CPU%d", f[i].cpu);
		lh_report_fmt_us(f[i].hwlat->max_ns, worst, sizeof(worst));
		fprintf(out, "  %-7s  %8" PRIu64 "  %12s  %12s  ", name, f[i].hwlat->count, worst,
			lh_report_floor_p99(&f[i], "<= ", p99, sizeof(p99)));
		fprintf(out, "%s\n", lh_report_floor_text(&f[i], sw, sizeof(sw)));
	}
	fprintf(out, "  within: hwlat saw a gap as long on that CPU, so the hardware alone may explain it;\n"
		"  over: longer than any gap hwlat saw there\n");
	free(f);
}

#define HIST_BAR	24	/* columns of the longest bar */

/* "p99 <= 1999us (99us)", "p50 <= 512us (exact)". */
static void print_pct(const struct lh_histogram *h, unsigned int i, FILE *out)
{
	char v[32], r[32];
	uint64_t lo, hi;

	if (!lh_histogram_percentile(h, i, &lo, &hi))
		return;
	fprintf(out, "%-6s <= %-10s (%s)", lh_histogram_pct_name[i],
		lh_report_fmt_us(hi, v, sizeof(v)),
		hi == lo ? "exact" : lh_report_fmt_us(hi - lo, r, sizeof(r)));
}

/*
 * A histogram in rows of 1-2-5 steps with a bar each, logarithmic in the count so that a
 * tail of one section still shows; the row the budget falls in is marked.
 */
static void print_hist(const char *title, const struct lh_histogram *h, bool has_budget,
		       uint64_t budget_ns, FILE *out)
{
	struct lh_histogram_row rows[LH_HISTOGRAM_MAX_ROWS];
	size_t n = lh_histogram_rows(h, rows, LH_ARRAY_SIZE(rows)), i;
	char a[32], b[32], c[32];
	uint64_t most = 0;
	bool marked = false;
	unsigned int p;

	fprintf(out, "  %s: %llu, min %s, mean %.1fus, max %s\n", title,
		(unsigned long long)h->count, lh_report_fmt_us(h->min_ns, a, sizeof(a)),
		lh_histogram_mean_ns(h) / 1e3, lh_report_fmt_us(h->max_ns, b, sizeof(b)));
	for (p = 0; p < LH_HISTOGRAM_NR_PCT; p++) {
		fputs(p % 2 ? "  " : "    ", out);
		print_pct(h, p, out);
		if (p % 2)
			fputc('\n', out);
	}
	for (i = 0; i < n; i++)
		if (rows[i].count > most)
			most = rows[i].count;
	for (i = 0; i < n; i++) {
		int bar = rows[i].count ? 1 + (int)((HIST_BAR - 1) * log1p((double)rows[i].count) /
						    log1p((double)most)) : 0;

		fprintf(out, "    %10s - %-10s %9llu", lh_report_fmt_us(rows[i].lo_ns, a, sizeof(a)),
			lh_report_fmt_us(rows[i].hi_ns, b, sizeof(b)),
			(unsigned long long)rows[i].count);
		if (bar)
			fprintf(out, "  %.*s", bar, "########################");
		if (has_budget && budget_ns >= rows[i].lo_ns && budget_ns < rows[i].hi_ns) {
			fprintf(out, "%*s <- --max %s", HIST_BAR - bar + (bar ? 0 : 2), "",
				lh_duration_format(budget_ns, c, sizeof(c)));
			marked = true;
		}
		fputc('\n', out);
	}
	if (has_budget && !marked && n)
		fprintf(out, "    the budget (--max %s) is %s every section\n",
			lh_duration_format(budget_ns, c, sizeof(c)),
			budget_ns < rows[0].lo_ns ? "below" : "above");
}

/* The callers of a kernel histogram with the longest sections: names made inert by hist.c. */
static void print_callers(const struct lh_report_histogram *kh, FILE *out)
{
	char m[32];
	size_t i;

	fprintf(out, "    longest sections by caller:\n");
	if (!kh->nr_callers)
		fprintf(out, "      none counted\n");
	else
		fprintf(out, "      %10s  %10s  %s\n", "MAX", "SECTIONS", "CALLER");
	for (i = 0; i < kh->nr_callers; i++)
		fprintf(out, "      %10s  %10llu  %.50s\n",
			lh_report_fmt_us(kh->callers[i].max_ns, m, sizeof(m)),
			(unsigned long long)kh->callers[i].count, kh->callers[i].symbol);
	if (kh->callers_note)
		fprintf(out, "      (%.60s: offsets from _stext)\n", kh->callers_note);
}

/* The histograms the kernel counted, one per kind, all CPUs together. */
static void print_kernel_hists(const struct lh_report *rep, FILE *out)
{
	struct lh_histogram sum = { 0 };
	char title[96];
	size_t i, k;

	for (i = 0; i < rep->nr_hists; i++) {
		const struct lh_report_histogram *kh = &rep->hists[i];
		bool first = true, has_all = false, has;
		enum lh_tracer t;
		uint64_t budget = 0;

		for (k = 0; k < i && first; k++)
			first = strcmp(rep->hists[k].kind, kh->kind) || strcmp(rep->hists[k].source, kh->source);
		if (!first)
			continue;
		lh_histogram_release(&sum);
		for (k = i; k < rep->nr_hists; k++)
			has_all |= !strcmp(rep->hists[k].kind, kh->kind) && rep->hists[k].cpu < 0;
		for (k = i; k < rep->nr_hists; k++)
			if (!strcmp(rep->hists[k].kind, kh->kind) &&
			    !strcmp(rep->hists[k].source, kh->source) &&
			    (has_all ? rep->hists[k].cpu < 0 : rep->hists[k].cpu >= 0))
				lh_histogram_merge(&sum, &rep->hists[k].h);
		snprintf(title, sizeof(title), "%s, every section counted by the kernel", kh->kind);
		t = lh_tracer_from_name(kh->kind, strlen(kh->kind));
		has = lh_gate_budget(&rep->gate, t, &budget);
		print_hist(title, &sum, has, budget, out);
		if (sum.dropped)
			fprintf(out, "    %llu section%s the kernel could not count\n",
				(unsigned long long)sum.dropped, sum.dropped == 1 ? "" : "s");
		for (k = i; k < rep->nr_hists; k++)
			if (!strcmp(rep->hists[k].kind, kh->kind) &&
			    !strcmp(rep->hists[k].source, kh->source) && rep->hists[k].has_callers)
				print_callers(&rep->hists[k], out);
	}
	lh_histogram_release(&sum);
}

static void print_distributions(const struct lh_report *rep, FILE *out)
{
	char caption[96], title[160];
	uint64_t budget = 0;
	bool has;
	int i;

	if (!rep->total && !rep->nr_hists)
		return;
	fprintf(out, "\nLatency distribution (bars: log of the count; percentiles: at most the\n"
		     "value shown, within the resolution in brackets)\n");
	print_kernel_hists(rep, out);
	for (i = 0; i < LH_TRACER_NR; i++) {
		enum lh_tracer t = lh_tracer_at(i);
		const struct lh_report_tracer *tr = &rep->tracers[t];

		if (!tr->count)
			continue;
		snprintf(title, sizeof(title), "%s, %s", lh_tracer_name(t),
			 lh_report_sections_caption(rep, caption, sizeof(caption)));
		has = lh_gate_budget(&rep->gate, t, &budget);
		print_hist(title, &tr->hist, has, budget, out);
	}
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
	fprintf(out, "  %10s  %7s  %-*s  %4s  %-20s  %s\n", "WORST", "COUNT", w, "TRACER", "CPU",
		"TASK", "STARTED AT -> ENDED AT");
	for (i = 0; i < n; i++) {
		const struct lh_report_offender *o = &rep->offenders[order[i]];
		char cpu[16], task[64];

		fprintf(out, "  %7llu us  %7" PRIu64 "  %-*s  %4s  %-20s  %s -> %s",
			(unsigned long long)o->worst_us, o->count, w, lh_tracer_name(o->sig.tracer),
			cpu_name(o->cpu, cpu, sizeof(cpu)),
			task_name(o->comm, o->pid, task, sizeof(task)),
			o->sig.started ? o->sig.started : "-", o->sig.ended ? o->sig.ended : "-");
		if (o->accepted)
			fprintf(out, "  [%" PRIu64 " accepted]", o->accepted);
		fputc('\n', out);
		if (o->sig.nr_frames) {
			fprintf(out, "  %10s  %7s  %-*s  innermost: ", "", "", w, "");
			for (j = 0; j < o->sig.nr_frames; j++)
				fprintf(out, "%s%s", j ? " < " : "", o->sig.frames[j]);
			fputc('\n', out);
		}
	}
	if (rep->other_count)
		fprintf(out, "  other: %" PRIu64 " section%s beyond %d signatures, worst %llu us\n",
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
		fprintf(out, "  %-*s  %-8s  %7" PRIu64 "  %8" PRIu64 "  %7llu us  %s\n", w, rule->id,
			lh_severity_name(rule->severity), ra->hits, ra->accepted,
			(unsigned long long)ra->worst_us, rule->message ? rule->message : "");
	}
	for (i = 0; i < n && i < rep->nr_rules; i++)
		if (rep->rule_agg[i].unevaluated)
			fprintf(out, "  rule %s could not be evaluated on %" PRIu64 " record%s: %s\n",
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
/* "95.4 %": a share of a spike's latency. Return: buf. */
static char *share(uint64_t ns, uint64_t latency_ns, char *buf, size_t len)
{
	unsigned int pm = lh_spike_permille(ns, latency_ns);

	snprintf(buf, len, "%u.%u %%", pm / 10, pm % 10);
	return buf;
}

/* A sampling tracer's spike: its latencies, its tasks and each part with its share. */
static void print_spike(const struct lh_spike *sp, FILE *out)
{
	char task[64], pct[16], name[64], section[LH_REPORT_SECTION_TEXT];
	size_t i;

	fprintf(out, "  %-12s %.3f us", "spike:", (double)sp->latency_ns / 1e3);
	if (sp->has_irq)
		fprintf(out, ", irq latency %.3f us", (double)sp->irq_latency_ns / 1e3);
	if (sp->has_thread)
		fprintf(out, ", thread latency %.3f us", (double)sp->thread_latency_ns / 1e3);
	fprintf(out, "; parts explain %s\n", share(sp->explained_ns, sp->latency_ns, pct,
						   sizeof(pct)));
	if (sp->has_period)
		fprintf(out, "  %-12s noise %.3f us of %.3f us runtime\n", "period:",
			(double)sp->noise_ns / 1e3, (double)sp->runtime_ns / 1e3);
	if (sp->has_irq)
		fprintf(out, "  %-12s %s, ran %.3f us of it (%s)\n", "blocking:",
			task_name(sp->blocking.comm, sp->blocking.pid, task, sizeof(task)),
			(double)sp->blocking_ns / 1e3,
			share(sp->blocking_ns, sp->latency_ns, pct, sizeof(pct)));
	if (sp->culprit.pid >= 0 || sp->culprit.comm)
		fprintf(out, "  %-12s %s, ran %.3f us of it (%s)\n", "culprit:",
			task_name(sp->culprit.comm, sp->culprit.pid, task, sizeof(task)),
			(double)sp->culprit_ns / 1e3,
			share(sp->culprit_ns, sp->latency_ns, pct, sizeof(pct)));
	if (*lh_report_section_text(sp, section, sizeof(section)))
		fprintf(out, "  %-12s %s\n", "section:", section);
	if (!sp->nr_parts)
		return;
	fprintf(out, "  noise (longest first):\n    %-7s  %-24s  %6s  %12s  %12s  %12s  %7s\n",
		"KIND", "NAME", "VECTOR", "OFFSET", "DURATION", "OVERLAP", "SHARE");
	for (i = 0; i < sp->nr_parts; i++) {
		const struct lh_spike_part *p = &sp->parts[i];

		if (p->kind == LH_SPIKE_THREAD)
			task_name(p->name, p->pid, name, sizeof(name));
		else
			snprintf(name, sizeof(name), "%s", p->name ? p->name : "-");
		fprintf(out, "    %-7s  %-24s  ", lh_spike_kind_name(p->kind), name);
		if (p->vector >= 0)
			fprintf(out, "%6d", p->vector);
		else
			fprintf(out, "%6s", "-");
		fprintf(out, "  %9.3f us  %9.3f us  %9.3f us  %7s\n", (double)p->offset_ns / 1e3,
			(double)p->duration_ns / 1e3, (double)p->overlap_ns / 1e3,
			share(p->overlap_ns, sp->latency_ns, pct, sizeof(pct)));
	}
	if (sp->more_parts)
		fprintf(out, "    and %u more, %.3f us\n", sp->more_parts, (double)sp->more_ns / 1e3);
}

static void print_worst(const struct lh_report *rep, FILE *out)
{
	const struct lh_report_kept *k = NULL;
	const struct lh_record *r;
	const struct lh_func **fv;
	char task[64], buf[32], body[LH_REPORT_BODY_TEXT];
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
		fprintf(out, "  %-12s %s%s\n", "started at:", r->started_at ? r->started_at : "-",
			r->started_at_offset ? r->started_at_offset : "");
		fprintf(out, "  %-12s %s%s\n", "ended at:", r->ended_at ? r->ended_at : "-",
			r->ended_at_offset ? r->ended_at_offset : "");
	}
	if (*lh_report_body_text(r, body, sizeof(body)))
		fprintf(out, "  %-12s %s\n", "body:", body);
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
	if (r->spike.set)
		print_spike(&r->spike, out);
	else if (r->nr_irqs) {
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
			fprintf(out, "    %s%s\n", r->stacks[0].frames[i],
				r->stacks[0].offsets[i] ? r->stacks[0].offsets[i] : "");
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

	fprintf(out, "\nInput: %" PRIu64 " snapshot%s parsed, %" PRIu64 " skipped as malformed, %" PRIu64 " bad line%s, "
		     "%" PRIu64 " warning%s\n",
		rep->parse.snapshots, rep->parse.snapshots == 1 ? "" : "s", rep->parse.skipped,
		rep->parse.bad_lines, rep->parse.bad_lines == 1 ? "" : "s", rep->warnings_total,
		rep->warnings_total == 1 ? "" : "s");
	if (rep->parse.incomplete)
		fprintf(out, "  %" PRIu64 " snapshot%s with an incomplete body (elided or cut)\n",
			rep->parse.incomplete, rep->parse.incomplete == 1 ? "" : "s");
	if (rep->parse.cut_lines)
		fprintf(out, "  %" PRIu64 " line%s longer than %d KiB, read up to there\n",
			rep->parse.cut_lines, rep->parse.cut_lines == 1 ? "" : "s",
			LH_PARSE_LINE_MAX >> 10);
	for (i = 0; i < n; i++)
		fprintf(out, "  %s\n", rep->warnings[i]);
	if (rep->warnings_total > n)
		fprintf(out, "  and %" PRIu64 " more\n", rep->warnings_total - (unsigned long)n);
	for (i = 0; i < rep->nr_inputs; i++)
		if (rep->inputs[i].problem)
			fprintf(out, "  NOT READ%s: %s\n",
				rep->inputs[i].accepted ? " (accepted: --allow-unreadable)" : "",
				rep->inputs[i].problem);
	fprintf(out, "Records: %" PRIu64 " section%s, %zu kept in full, %" PRIu64 " dropped after aggregation\n",
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
		fprintf(out, "  threshold %s, %" PRIu64 " capture%s (%s), %" PRIu64 " section%s lost",
			run->threshold_ns ? lh_report_fmt_us(run->threshold_ns, thr, sizeof(thr)) :
					    "0 (running maxima)",
			run->captures, run->captures == 1 ? "" : "s",
			run->wait_method ? run->wait_method : "?",
			run->sections_lost, run->sections_lost == 1 ? "" : "s");
		if (run->sections_torn)
			fprintf(out, " (%" PRIu64 " replaced while read)", run->sections_torn);
		fprintf(out, ", %" PRIu64 " snapshot%s dropped\n", run->snapshots_dropped,
			run->snapshots_dropped == 1 ? "" : "s");
		fprintf(out, "  armed:");
		for (i = 0; i < LH_TRACER_NR; i++)
			if (run->armed_ns[lh_tracer_at(i)])
				fprintf(out, " %s %.1f s (blind %.1f s)",
					lh_tracer_name(lh_tracer_at(i)),
					(double)run->armed_ns[lh_tracer_at(i)] / 1e9,
					(double)run->blind_ns[lh_tracer_at(i)] / 1e9);
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
	fprintf(out, "  durations in us; p99 from the histogram: at most P99, at least P99 - RES\n");
	fprintf(out, "  %4s  %-*s  %3s  %9s  %9s  %9s  %9s  %7s\n", "IRQ", w, "NAME", "CPU",
		"COUNT", "MAX", "MEAN", "P99", "RES");
	for (i = 0; i < n; i++) {
		const struct lh_irqstat_entry *e = lh_irqstat_get(st, i);
		uint64_t lo = 0, hi = 0;

		lh_histogram_percentile(&e->dist, 1, &lo, &hi);
		fprintf(out, "  %4d  %-*s  %3d  %9llu  %9.3f  %9.3f  %9.3f  %7.3f\n", e->irq, w,
			e->name, e->cpu, (unsigned long long)e->count, (double)e->max_ns / 1e3,
			e->count ? (double)e->sum_ns / (double)e->count / 1e3 : 0.0,
			(double)hi / 1e3, (double)(hi - lo) / 1e3);
	}
}

static void print_verdict(const struct lh_report *rep, FILE *out)
{
	char buf[512];
	int t;

	if (rep->verdict.error)
		fprintf(out, "\nVerdict: ERROR: %s\nGates, for what was read: %s (%s)\n",
			rep->verdict.error, rep->passed ? "pass" : "FAIL",
			lh_report_gates_text(rep, buf, sizeof(buf)));
	else
		fprintf(out, "\nVerdict: %s (%s)\n", rep->passed ? "PASS" : "FAIL",
			lh_report_gates_text(rep, buf, sizeof(buf)));
	for (t = 0; (size_t)t < rep->verdict.nr_violations; t++)
		fprintf(out, "  - %s\n", rep->verdict.violations[t]);
}

int lh_report_write_text(struct lh_report *rep, FILE *out)
{
	errno = 0;
	fprintf(out, "lathound %s %s report\n\n", LH_VERSION,
		rep->has_run && rep->run.mode ? rep->run.mode : "analyze");
	print_tracers(rep, out);
	print_noise(rep, out);
	print_floor(rep, out);
	print_distributions(rep, out);
	print_offenders(rep, out);
	print_rules(rep, out);
	print_worst(rep, out);
	print_input(rep, out);
	print_run(rep, out);
	print_irqstat(rep, out);
	print_verdict(rep, out);
	return lh_report_stream_status(out);
}

void lh_report_verdict_text(const struct lh_verdict *v, FILE *out)
{
	size_t i;

	if (v->error)
		fprintf(out, "Verdict: ERROR: %s\n", v->error);
	else
		fprintf(out, "Verdict: %s\n", v->nr_violations ? "FAIL" : "PASS");
	for (i = 0; i < v->nr_violations; i++)
		fprintf(out, "  %s\n", v->violations[i]);
}
