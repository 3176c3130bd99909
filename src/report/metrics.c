// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus metrics of a live run (metrics.h; doc/metrics.md is the user's list of series).
 * Reads the report's aggregates directly, as its other writers do (report-priv.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "report-priv.h"
#include "rules/rules.h"
#include "trace/irqstat.h"

#define NS_PER_S	1000000000ULL

/* The IRQ handler buckets kept apart: [2^b, 2^(b+1)) ns from b = 9 (under 1.024 us merged). */
#define IRQ_FIRST	9
#define IRQ_NR		(LH_IRQSTAT_BUCKETS - 1 - IRQ_FIRST)

size_t lh_metrics_bucket(const uint64_t *le_ns, size_t nr, uint64_t max_ns)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (le_ns[mid] < max_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Writes s as a label value: '\', '"' and newline escaped as the format says, printable
 * ASCII and printable UTF-8 as they are, any other byte as the text "\xHH".
 */
static void put_value(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n;

	while (*p) {
		if (*p == '\\' || *p == '"') {
			fputc('\\', out);
			fputc(*p++, out);
		} else if (*p == '\n') {
			fputs("\\n", out);
			p++;
		} else if (*p >= 0x20 && *p < 0x7f) {
			fputc(*p++, out);
		} else if ((n = lh_utf8_printable(p))) {
			fwrite(p, 1, n, out);
			p += n;
		} else {
			fprintf(out, "\\\\x%02x", *p++);
		}
	}
}

/* Writes "{a="x",b="y"" without the closing brace (a histogram adds le), or nothing. */
static void put_labels(FILE *out, const struct lh_metrics_label *l, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		fprintf(out, "%s%s=\"", i ? "," : "{", l[i].name);
		put_value(out, l[i].value);
		fputc('"', out);
	}
}

/* Writes ns as seconds, exactly: "0", "2", "0.002001". */
static void put_seconds(FILE *out, uint64_t ns)
{
	char frac[16];
	int n;

	fprintf(out, "%llu", (unsigned long long)(ns / NS_PER_S));
	if (!(ns % NS_PER_S))
		return;
	n = snprintf(frac, sizeof(frac), "%09llu", (unsigned long long)(ns % NS_PER_S));
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	fprintf(out, ".%s", frac);
}

void lh_metrics_family(FILE *out, const char *name, const char *type, const char *help)
{
	const char *p;

	fprintf(out, "# HELP %s ", name);
	for (p = help; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else
			fputc(*p, out);
	}
	fprintf(out, "\n# TYPE %s %s\n", name, type);
}

void lh_metrics_u64(FILE *out, const char *name, const struct lh_metrics_label *l, size_t nr,
		    uint64_t v)
{
	fputs(name, out);
	put_labels(out, l, nr);
	fprintf(out, "%s %llu\n", nr ? "}" : "", (unsigned long long)v);
}

void lh_metrics_seconds(FILE *out, const char *name, const struct lh_metrics_label *l,
			size_t nr, uint64_t ns)
{
	fputs(name, out);
	put_labels(out, l, nr);
	fputs(nr ? "} " : " ", out);
	put_seconds(out, ns);
	fputc('\n', out);
}

void lh_metrics_histogram(FILE *out, const char *name, const struct lh_metrics_label *l,
			  size_t nr, const struct lh_metrics_hist *h)
{
	uint64_t cum = 0;
	size_t i;

	for (i = 0; i <= h->nr; i++) {
		cum = lh_sat_add(cum, h->count[i]);	/* a saved report's counts are untrusted */
		fprintf(out, "%s_bucket", name);
		put_labels(out, l, nr);
		fputs(nr ? ",le=\"" : "{le=\"", out);
		if (i < h->nr)
			put_seconds(out, h->le_ns[i]);
		else
			fputs("+Inf", out);
		fprintf(out, "\"} %llu\n", (unsigned long long)cum);
	}
	fprintf(out, "%s_sum", name);
	put_labels(out, l, nr);
	fputs(nr ? "} " : " ", out);
	put_seconds(out, h->sum_ns);
	fprintf(out, "\n%s_count", name);
	put_labels(out, l, nr);
	fprintf(out, "%s %llu\n", nr ? "}" : "", (unsigned long long)cum);
}

/*
 * The 1-2-5 bounds of the latency histograms (sections, the kernel's), in µs: a budget such
 * as 100us or 2ms is a bound.
 */
static const uint64_t le_125_us[] = {
	1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000,
	200000, 500000, 1000000,
};
#define LE_125_NR	LH_ARRAY_SIZE(le_125_us)

/*
 * Writes h in the 1-2-5 buckets. A bucket [lo, hi) of h is counted at the first bound at or
 * above its last value, hi - 1 ns: never shown lower than it may be. A section the kernel
 * shows as N us lasted N.000 to N.999 us (it truncates its ns to us), as histogram.h's bucket
 * holding N us says, so that a section of 2000 us counts above le 0.002. Every bound up to
 * 10 ms is the edge of a histogram.h bucket, and the counts are exact there; above, its
 * power-of-two buckets straddle the bounds and count at the one above. The counts saturate
 * (a saved report's are untrusted).
 */
static void put_hist_125(FILE *out, const char *name, const struct lh_metrics_label *l,
			 size_t nr, const struct lh_histogram *h)
{
	uint64_t le[LE_125_NR], count[LE_125_NR + 1] = { 0 };
	struct lh_metrics_hist m = { .le_ns = le, .nr = LE_125_NR, .count = count,
				     .sum_ns = h->sum_ns };
	size_t i;

	for (i = 0; i < LE_125_NR; i++)
		le[i] = lh_report_us_to_ns(le_125_us[i]);
	for (i = 0; i < h->nr; i++) {
		size_t k = lh_metrics_bucket(le, LE_125_NR, h->b[i].hi_ns - 1);

		count[k] = lh_sat_add(count[k], h->b[i].count);
	}
	lh_metrics_histogram(out, name, l, nr, &m);
}

/* ---- the run's metrics ---- */

struct writer {
	FILE				*out;
	struct lh_report		*rep;
	const struct lh_run_info	*info;	/* NULL outside a live run */
	const struct lh_metrics_run	*run;
	unsigned int			tracers;	/* every tracer of the run (1 << t) */
};

/* A family of one sample without labels: an integer, or (seconds) ns as seconds. */
static void scalar(struct writer *w, const char *name, const char *type, const char *help,
		   uint64_t v, bool seconds)
{
	lh_metrics_family(w->out, name, type, help);
	if (seconds)
		lh_metrics_seconds(w->out, name, NULL, 0, v);
	else
		lh_metrics_u64(w->out, name, NULL, 0, v);
}

/* A one-label sample per tracer of mask (1 << t), in tracer order. */
static void per_tracer(struct writer *w, unsigned int mask, const char *name, const uint64_t *v,
		       bool seconds)
{
	int t;

	for (t = 1; t < LH_TRACER_NR; t++) {
		struct lh_metrics_label l = { "tracer", lh_tracer_name(t) };

		if (!(mask & (1u << t)))
			continue;
		if (seconds)
			lh_metrics_seconds(w->out, name, &l, 1, v[t]);
		else
			lh_metrics_u64(w->out, name, &l, 1, v[t]);
	}
}

static void write_state(struct writer *w)
{
	const struct lh_metrics_run *run = w->run;
	struct lh_metrics_label info[] = {
		{ "version", LH_VERSION },
		{ "kernel", w->info && w->info->kernel ? w->info->kernel : "" },
	};
	static const char *const verdicts[] = { "pass", "fail", "error" };
	const char *verdict = lh_report_verdict(w->rep);
	uint64_t v[LH_TRACER_NR] = { 0 };
	size_t i;
	int t;

	lh_metrics_family(w->out, "lathound_run_info", "gauge",
			  "Always 1: the lathound version and the kernel release of the run.");
	lh_metrics_u64(w->out, "lathound_run_info", info, LH_ARRAY_SIZE(info), 1);
	scalar(w, "lathound_run_start_timestamp_seconds", "gauge",
	       "When the run started, in seconds since the Unix epoch.",
	       w->info ? w->info->started_ns : 0, true);
	scalar(w, "lathound_last_checkpoint_timestamp_seconds", "gauge",
	       "When this file was written (a checkpoint, or the end of the run), in seconds since the Unix epoch.",
	       run->now_ns, true);
	scalar(w, "lathound_running", "gauge",
	       "1 while the run goes on, 0 once it is over (the file then holds its final state).",
	       run->running, false);
	lh_metrics_family(w->out, "lathound_verdict", "gauge",
			  "1 for the verdict so far (pass, fail: a gate failed, error: the run cannot be judged), 0 for the others.");
	for (i = 0; i < LH_ARRAY_SIZE(verdicts); i++) {
		struct lh_metrics_label l = { "verdict", verdicts[i] };

		lh_metrics_u64(w->out, "lathound_verdict", &l, 1, !strcmp(verdict, verdicts[i]));
	}

	lh_metrics_family(w->out, "lathound_tracer_armed", "gauge",
			  "1 for the latency tracer armed now, 0 for the run's other tracers.");
	for (t = 1; t < LH_TRACER_NR; t++)
		v[t] = run->running && (int)run->armed == t;
	per_tracer(w, w->tracers, "lathound_tracer_armed", v, false);
	lh_metrics_family(w->out, "lathound_tracer_armed_seconds_total", "counter",
			  "How long each latency tracer was armed so far: tracers share a run in time slices.");
	for (t = 1; t < LH_TRACER_NR; t++)
		v[t] = w->info ? w->info->armed_ns[t] : 0;
	per_tracer(w, w->tracers, "lathound_tracer_armed_seconds_total", v, true);
	if (!run->running) {
		lh_metrics_family(w->out, "lathound_tracer_measured", "gauge",
				  "At the end of the run: 1 when the tracer measured, 0 when it did not (never armed, not available, armed less than one slice without a capture).");
		for (t = 1; t < LH_TRACER_NR; t++)
			v[t] = !(w->info && w->info->not_measured[t]);
		per_tracer(w, w->tracers, "lathound_tracer_measured", v, false);
	}
}

static void write_budgets(struct writer *w)
{
	uint64_t budget[LH_TRACER_NR] = { 0 }, exceeded[LH_TRACER_NR] = { 0 };
	unsigned int mask = 0;
	char *why;
	int t;

	for (t = 1; t < LH_TRACER_NR; t++) {
		if (!(w->tracers & (1u << t)) || !lh_gate_budget(&w->rep->gate, t, &budget[t]))
			continue;
		mask |= 1u << t;
		why = lh_report_max_violation(w->rep, t);
		exceeded[t] = why != NULL;
		free(why);
	}
	lh_metrics_family(w->out, "lathound_budget_seconds", "gauge",
			  "The --max budget of each tracer that has one (its own, else --max all).");
	per_tracer(w, mask, "lathound_budget_seconds", budget, true);
	lh_metrics_family(w->out, "lathound_budget_exceeded", "gauge",
			  "1 when the tracer's worst section that no ignore rule accepted exceeds its --max budget.");
	per_tracer(w, mask, "lathound_budget_exceeded", exceeded, false);
}

/* Calls fn for every (tracer, CPU) with sections, with its labels. */
static void each_cpu(struct writer *w, void (*fn)(struct writer *w, const struct lh_report_cpu *c,
						 const struct lh_metrics_label *l))
{
	int t;
	size_t s;

	for (t = 1; t < LH_TRACER_NR; t++) {
		const struct lh_report_tracer *tr = &w->rep->tracers[t];

		for (s = 0; s < tr->nr_cpus; s++) {
			char cpu[24];
			struct lh_metrics_label l[] = {
				{ "tracer", lh_tracer_name(t) }, { "cpu", cpu },
			};

			if (!tr->cpus[s].count)
				continue;
			lh_report_cpu_name(lh_report_slot_cpu(s), "", "unknown", cpu, sizeof(cpu));
			fn(w, &tr->cpus[s], l);
		}
	}
}

static void cpu_max(struct writer *w, const struct lh_report_cpu *c,
		    const struct lh_metrics_label *l)
{
	lh_metrics_seconds(w->out, "lathound_section_max_latency_seconds", l, 2,
			   lh_report_us_to_ns(c->max_us));
}

static void cpu_hist(struct writer *w, const struct lh_report_cpu *c,
		     const struct lh_metrics_label *l)
{
	put_hist_125(w->out, "lathound_section_latency_seconds", l, 2, &c->dist);
}

static void write_sections(struct writer *w)
{
	const struct lh_metrics_run *run = w->run;
	uint64_t v[LH_TRACER_NR];
	char pid[16];
	int t;

	lh_metrics_family(w->out, "lathound_section_max_latency_seconds", "gauge",
			  "The worst latency section captured per tracer and CPU (accepted offenders included).");
	each_cpu(w, cpu_max);
	lh_metrics_family(w->out, "lathound_section_latency_seconds", "histogram",
			  "Latency sections captured per tracer and CPU: each new maximum, or with --threshold every section above it. A section shown as N us (the kernel truncates to us) lasted up to N.999 us: one of 2000 us counts above le 0.002.");
	each_cpu(w, cpu_hist);
	lh_metrics_family(w->out, "lathound_worst_section_info", "gauge",
			  "Always 1: where each tracer's worst section was (CPU, task, start and end sites).");
	for (t = 1; t < LH_TRACER_NR; t++) {
		const struct lh_report_where *wh = &w->rep->tracers[t].worst;
		char cpu[16];
		struct lh_metrics_label l[] = {
			{ "tracer", lh_tracer_name(t) }, { "cpu", cpu }, { "comm", wh->comm },
			{ "pid", pid }, { "started", wh->started }, { "ended", wh->ended },
		};

		if (!wh->set)
			continue;
		lh_report_cpu_name(wh->cpu, "", "unknown", cpu, sizeof(cpu));
		snprintf(pid, sizeof(pid), "%d", wh->pid >= 0 ? wh->pid : 0);
		if (wh->pid < 0)
			pid[0] = '\0';
		lh_metrics_u64(w->out, "lathound_worst_section_info", l, LH_ARRAY_SIZE(l), 1);
	}
	lh_metrics_family(w->out, "lathound_sections_captured_total", "counter",
			  "Sections read from tracefs and added to the report, per tracer.");
	for (t = 0; t < LH_TRACER_NR; t++)
		v[t] = run->captured[t];
	per_tracer(w, w->tracers, "lathound_sections_captured_total", v, false);
	lh_metrics_family(w->out, "lathound_sections_lost_total", "counter",
			  "Sections the kernel notified that were overwritten before lathound could read them, per tracer.");
	for (t = 0; t < LH_TRACER_NR; t++)
		v[t] = run->lost[t];
	per_tracer(w, w->tracers, "lathound_sections_lost_total", v, false);
	scalar(w, "lathound_snapshots_dropped_total", "counter",
	       "Raw snapshots not kept on disk (--disk-budget, --max-snapshots, write errors); their sections are still counted.",
	       w->info ? w->info->snapshots_dropped : 0, false);
	scalar(w, "lathound_warnings_total", "counter",
	       "Problems noted in the report: lines the parser could not read, rules stopped by a PCRE2 limit, failed writes.",
	       w->rep->warnings_total, false);
}

/* A family with one sample per rule, labelled with its id and severity. */
static void per_rule(struct writer *w, const char *name, const char *help, bool unevaluated)
{
	struct lh_report *rep = w->rep;
	size_t i, n = rep->rules ? lh_rules_count(rep->rules) : 0;

	lh_metrics_family(w->out, name, "counter", help);
	for (i = 0; i < n && i < rep->nr_rules; i++) {
		const struct lh_rule *r = lh_rules_get(rep->rules, i);
		const struct lh_report_rule *ra = &rep->rule_agg[i];
		struct lh_metrics_label l[] = {
			{ "rule", r->id }, { "severity", lh_severity_name(r->severity) },
		};

		lh_metrics_u64(w->out, name, l, 2, unevaluated ? ra->unevaluated : ra->hits);
	}
}

static void write_rules(struct writer *w)
{
	per_rule(w, "lathound_rule_hits_total",
		 "Sections that fired each rule, accepted offenders included.", false);
	per_rule(w, "lathound_rule_unevaluated_total",
		 "Sections each rule could not be evaluated on (a PCRE2 limit): it may have matched.",
		 true);
}

/* The IRQ handler entries: the family's samples of each, through fn. */
static void each_irq(struct writer *w, const struct lh_irqstat *st,
		     void (*fn)(struct writer *w, const struct lh_irqstat_entry *e,
				const struct lh_metrics_label *l))
{
	size_t i, n = lh_irqstat_count(st);

	for (i = 0; i < n; i++) {
		const struct lh_irqstat_entry *e = lh_irqstat_get(st, i);
		char irq[16], cpu[16];
		struct lh_metrics_label l[] = {
			{ "irq", irq }, { "name", e->name }, { "cpu", cpu },
		};

		snprintf(irq, sizeof(irq), "%d", e->irq);
		snprintf(cpu, sizeof(cpu), "%d", e->cpu);
		fn(w, e, l);
	}
}

static void irq_max(struct writer *w, const struct lh_irqstat_entry *e,
		    const struct lh_metrics_label *l)
{
	lh_metrics_seconds(w->out, "lathound_irq_handler_max_seconds", l, 3, e->max_ns);
}

/* From the log2 buckets, not dist: the documented le of 2^k - 1 ns are exact only there. */
static void irq_hist(struct writer *w, const struct lh_irqstat_entry *e,
		     const struct lh_metrics_label *l)
{
	uint64_t le[IRQ_NR], count[IRQ_NR + 1] = { 0 };
	struct lh_metrics_hist h = { .le_ns = le, .nr = IRQ_NR, .count = count,
				     .sum_ns = e->sum_ns };
	unsigned int b;

	for (b = 0; b < IRQ_NR; b++)
		le[b] = (2ULL << (b + IRQ_FIRST)) - 1;
	/* Bucket b holds [2^b, 2^(b+1)) ns; the last one anything longer too. */
	for (b = 0; b < LH_IRQSTAT_BUCKETS; b++) {
		uint64_t max = b + 1 < LH_IRQSTAT_BUCKETS ? (2ULL << b) - 1 : UINT64_MAX;
		size_t k = lh_metrics_bucket(le, IRQ_NR, max);

		/* saturating: handlers folded from several reports saturate theirs */
		count[k] = lh_sat_add(count[k], e->hist[b]);
	}
	lh_metrics_histogram(w->out, "lathound_irq_handler_duration_seconds", l, 3, &h);
}

static void write_irqs(struct writer *w)
{
	const struct lh_irqstat *st = w->info ? w->info->irqstat : NULL;

	if (!st)
		return;
	lh_metrics_family(w->out, "lathound_irq_handler_max_seconds", "gauge",
			  "The longest run of each interrupt handler, per IRQ, handler name and CPU.");
	each_irq(w, st, irq_max);
	lh_metrics_family(w->out, "lathound_irq_handler_duration_seconds", "histogram",
			  "How long each interrupt handler ran, per IRQ, handler name and CPU (power-of-two buckets).");
	each_irq(w, st, irq_hist);
	scalar(w, "lathound_irq_events_lost_total", "counter",
	       "IRQ handler events the kernel's ring buffer lost.", lh_irqstat_lost(st), false);
	scalar(w, "lathound_irq_runs_dropped_total", "counter",
	       "IRQ handler runs not accounted (an exit without its entry, a full table).",
	       lh_irqstat_dropped(st), false);
}

/* The histograms the kernel counted (hist.c), per kind and CPU, in the 1-2-5 buckets. */
static void write_kernel_hists(struct writer *w)
{
	const struct lh_report *rep = w->rep;
	size_t i;

	if (!rep->nr_hists)
		return;
	lh_metrics_family(w->out, "lathound_kernel_latency_seconds", "histogram",
			  "Every irqs-off section, preempt-off section or real-time wakeup, counted in the kernel per kind and CPU (record --hist).");
	for (i = 0; i < rep->nr_hists; i++) {
		const struct lh_report_histogram *kh = &rep->hists[i];
		char cpu[16];
		struct lh_metrics_label l[] = { { "kind", kh->kind }, { "cpu", cpu } };

		if (kh->cpu < 0)
			continue;
		snprintf(cpu, sizeof(cpu), "%d", kh->cpu);
		put_hist_125(w->out, "lathound_kernel_latency_seconds", l, 2, &kh->h);
	}
	lh_metrics_family(w->out, "lathound_kernel_sections_dropped_total", "counter",
			  "Sections the kernel could not count in its histograms (a full map), per kind.");
	for (i = 0; i < rep->nr_hists; i++) {
		struct lh_metrics_label l[] = { { "kind", rep->hists[i].kind } };

		if (rep->hists[i].cpu < 0)
			lh_metrics_u64(w->out, "lathound_kernel_sections_dropped_total", l, 1,
				       rep->hists[i].h.dropped);
	}
}

/*
 * osnoise's noise by source, per CPU as the report keeps them: the LH_REPORT_NOISE_SOURCES
 * noisiest of each CPU by kind and name (bounded cardinality), their events and noise; a
 * source's series begins when it enters a CPU's kept ones. Hardware noise, counted only.
 */
static void write_noise_sources(struct writer *w)
{
	const struct lh_report *rep = w->rep;
	size_t i, j;
	int pass;
	static const char *const name[] = {
		"lathound_osnoise_source_events_total",
		"lathound_osnoise_source_noise_seconds_total", "lathound_osnoise_hw_noise_total",
	};
	static const char *const help[] = {
		"Noise events of the source on the CPU, counted in the kernel (the noisiest sources of each CPU).",
		"Their noise, summed.",
		"Hardware noise osnoise saw on the CPU (counted, not timed apart).",
	};

	for (pass = 0; pass < 3; pass++) {
		lh_metrics_family(w->out, name[pass], "counter", help[pass]);
		for (i = 0; i < rep->nr_noise; i++) {
			const struct lh_report_noise *n = &rep->noise[i];
			char cpu[16];

			snprintf(cpu, sizeof(cpu), "%d", n->cpu);
			if (pass == 2) {
				lh_metrics_u64(w->out, name[pass],
					       (struct lh_metrics_label[]){ { "cpu", cpu } }, 1,
					       n->hw_count);
				continue;
			}
			for (j = 0; j < n->nr_sources; j++) {
				const struct lh_report_source *s = &n->sources[j];
				struct lh_metrics_label l[] = {
					{ "cpu", cpu }, { "kind", lh_spike_kind_name(s->kind) },
					{ "name", s->name },
				};

				if (pass == 0)
					lh_metrics_u64(w->out, name[pass], l, 3, s->count);
				else
					lh_metrics_seconds(w->out, name[pass], l, 3, s->noise_ns);
			}
		}
	}
}

/*
 * osnoise's figures per CPU, as counters: what PromQL's rate() and 1 - noise / runtime (the %
 * CPU available rtla prints) need. A CPU to be measured that had no period has its series at 0
 * (--min-available fails closed on it).
 */
static void write_noise(struct writer *w)
{
	const struct lh_report *rep = w->rep;
	size_t i;
	int pass;
	static const char *const name[] = {
		"lathound_osnoise_periods_total", "lathound_osnoise_runtime_seconds_total",
		"lathound_osnoise_noise_seconds_total", "lathound_osnoise_max_single_noise_seconds",
	};
	static const char *const help[] = {
		"osnoise periods measured on the CPU.",
		"Time osnoise's workload ran on the CPU, its periods added up.",
		"Of that, time taken by noise (IRQs, softirqs, NMIs, other threads, hardware).",
		"The longest single noise of any osnoise period on the CPU.",
	};

	if (!rep->nr_noise)
		return;
	for (pass = 0; pass < 4; pass++) {
		lh_metrics_family(w->out, name[pass], pass == 3 ? "gauge" : "counter", help[pass]);
		for (i = 0; i < rep->nr_noise; i++) {
			const struct lh_report_noise *n = &rep->noise[i];
			char cpu[16];
			struct lh_metrics_label l[] = { { "cpu", cpu } };

			snprintf(cpu, sizeof(cpu), "%d", n->cpu);
			if (pass == 0)
				lh_metrics_u64(w->out, name[pass], l, 1, n->periods);
			else
				lh_metrics_seconds(w->out, name[pass], l, 1,
						   pass == 1 ? n->runtime_ns :
						   pass == 2 ? n->noise_ns : n->max_single_ns);
		}
	}
	write_noise_sources(w);
}

int lh_metrics_write(struct lh_report *rep, const struct lh_metrics_run *run, FILE *out)
{
	struct writer w = {
		.out = out, .rep = rep, .info = rep->has_run ? &rep->run : NULL, .run = run,
		.tracers = (run->tracers | run->wanted) & ~1u,
	};

	lh_report_prepare(rep);
	errno = 0;
	write_state(&w);
	write_budgets(&w);
	write_sections(&w);
	write_rules(&w);
	write_irqs(&w);
	write_kernel_hists(&w);
	write_noise(&w);
	fflush(out);
	return lh_report_stream_status(out);
}
