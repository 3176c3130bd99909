// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTML report: one self-contained page (inline CSS and SVG, no script, a
 * Content-Security-Policy that loads nothing) for people to read after a soak: the verdict,
 * log-y histograms per tracer and CPU with the budget line, the progression of maxima, IRQ
 * handler histograms, histograms the kernel counted and the callers of their longest
 * sections, top offenders with their stacks, rule hits, the run. Every string of a trace or
 * of a report read back is written through lh_escape_xml() (put() and esc()): none can open
 * a tag or end an attribute.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "report-priv.h"
#include "rules/rules.h"
#include "svg.h"

#define TOP_OFFENDERS	20	/* offenders listed */
#define TOP_RECORDS	10	/* records kept in full shown with their stacks */
#define TOP_IRQS	12	/* IRQ handlers plotted (worst first) */
#define MAX_SERIES	9	/* CPUs overlaid on one chart; more get small charts only */
#define CHART_W		720
#define CHART_H		300
#define SMALL_W		340
#define SMALL_H		200

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 16px;color:#222}"
	"h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;margin-top:28px}"
	"h3{font-size:15px;margin:18px 0 6px}"
	"table{border-collapse:collapse;margin:6px 0}td,th{padding:2px 8px;text-align:left;"
	"vertical-align:top}th{background:#f0f0f0}tr:nth-child(even) td{background:#fafafa}"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	"code,pre{font:12px ui-monospace,monospace}pre{margin:2px 0;white-space:pre-wrap}"
	".verdict{display:inline-block;padding:4px 14px;border-radius:4px;color:#fff;"
	"font-weight:bold;font-size:18px}.pass{background:#2ca02c}.fail{background:#d62728}"
	".error{background:#7f3f98}.note{color:#555}.caption{color:#555;margin:2px 0}"
	".small{display:inline-block;vertical-align:top;margin-right:8px}"
	"svg.chart{display:block;background:#fff}svg .plot{fill:#fcfcfc}"
	"svg .frame{fill:none;stroke:#444}svg .grid{stroke:#e4e4e4}"
	"svg .tick,svg .axis-label,svg .legend text{font:11px sans-serif;fill:#333}"
	"svg .ref-label{font:11px sans-serif}svg path{fill:none;stroke-width:1.6}"
	"svg .budget{stroke-width:1.5;stroke-dasharray:6 3}svg .legend line{stroke-width:2}";

/* Text of a trace or a report, escaped. */
static void esc(FILE *out, const char *s)
{
	lh_escape_xml(out, s);
}

/* printf, then the result escaped: for text any part of which may come from a trace. */
static void __attribute__((format(printf, 2, 0))) vput(FILE *out, const char *fmt, va_list ap)
{
	char *s = lh_xvasprintf(fmt, ap);

	esc(out, s);
	free(s);
}

static void __attribute__((format(printf, 2, 3))) put(FILE *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput(out, fmt, ap);
	va_end(ap);
}

/* A table row: <th>name</th> and the formatted text, escaped, in <td>. */
static void __attribute__((format(printf, 3, 4))) row(FILE *out, const char *name,
						      const char *fmt, ...)
{
	va_list ap;

	fprintf(out, "<tr><th>%s</th><td>", name);
	va_start(ap, fmt);
	vput(out, fmt, ap);
	va_end(ap);
	fputs("</td></tr>", out);
}

static const char *verdict_class(const struct lh_report *rep)
{
	return rep->verdict.error ? "error" : rep->passed ? "pass" : "fail";
}

/* "CPU3", or "CPU?" for an unknown CPU. Return: buf. */
static char *cpu_name(int cpu, char *buf, size_t len)
{
	return lh_report_cpu_name(cpu, "CPU", "CPU?", buf, len);
}

static void td_task(FILE *out, const char *comm, int pid)
{
	fputs("<td>", out);
	if (comm && *comm && pid >= 0)
		put(out, "%s-%d", comm, pid);
	else if (comm && *comm)
		esc(out, comm);
	else if (pid >= 0)
		put(out, "pid %d", pid);
	else
		fputs("?", out);
	fputs("</td>", out);
}

static void td_sites(FILE *out, const char *start, const char *end)
{
	fputs("<td><code>", out);
	if ((start && *start) || (end && *end))
		put(out, "%s -> %s", start && *start ? start : "?", end && *end ? end : "?");
	else
		fputs("-", out);
	fputs("</code></td>", out);
}

/* One histogram to plot and its name in the legend. */
struct series {
	const char			*name;
	const struct lh_histogram	*h;
};

/*
 * A histogram chart: x the latency in us (log10 when the values span more than a decade
 * and a half), y the count on a log10 axis so that a tail of one section shows; one outline
 * per series; the budget as a red line when there is one.
 */
static void hist_chart(FILE *out, const char *cls, const char *title, const struct series *s,
		       size_t n, bool has_budget, uint64_t budget_ns, double w, double hgt)
{
	struct lh_svg_axis x = { .label = "latency (us)", .div = 1 };
	struct lh_svg_axis y = { .lo = 0.5, .hi = 10, .log = true, .label = "count (log)",
				 .div = 1 };
	const char *names[MAX_SERIES], *colors[MAX_SERIES];
	double lo_ns = 0, hi_ns = 0, *blo, *bhi, *bc;
	struct lh_svg_chart c;
	bool first = true;
	size_t i, k, most = 0;
	char label[64], d[32];

	for (i = 0; i < n; i++) {
		const struct lh_histogram *h = s[i].h;

		if (!h->nr)
			continue;
		if (first || h->b[0].lo_ns < lo_ns)
			lo_ns = (double)h->b[0].lo_ns;
		if (first || h->b[h->nr - 1].hi_ns > hi_ns)
			hi_ns = (double)h->b[h->nr - 1].hi_ns;
		first = false;
		most = h->nr > most ? h->nr : most;
		for (k = 0; k < h->nr; k++)
			if ((double)h->b[k].count * 2 > y.hi)
				y.hi = (double)h->b[k].count * 2;
	}
	if (has_budget) {
		if (first || (double)budget_ns < lo_ns)
			lo_ns = (double)budget_ns;
		if (first || (double)budget_ns * 1.05 > hi_ns)
			hi_ns = (double)budget_ns * 1.05;
	}
	/* a bucket reaching UINT64_MAX is drawn to twice its lo */
	if (hi_ns > 4e15)
		hi_ns = 4e15;
	/* some room around the buckets, so that a lone one is a bar, not the frame */
	x.lo = lo_ns / 1e3 * 0.8;
	x.hi = hi_ns / 1e3 * 1.25;
	if (x.lo < 1)
		x.lo = x.hi > 100 ? 1 : 0;
	x.log = x.lo > 0 && x.hi / x.lo > 30;
	lh_svg_begin(&c, out, w, hgt, &x, &y, cls, title);
	blo = lh_xcalloc(most ? most : 1, sizeof(*blo));
	bhi = lh_xcalloc(most ? most : 1, sizeof(*bhi));
	bc = lh_xcalloc(most ? most : 1, sizeof(*bc));
	for (i = 0; i < n; i++) {
		const struct lh_histogram *h = s[i].h;
		char sc[32];

		for (k = 0; k < h->nr; k++) {
			blo[k] = (double)h->b[k].lo_ns / 1e3;
			bhi[k] = h->b[k].hi_ns > 4e15 ? 2 * blo[k] : (double)h->b[k].hi_ns / 1e3;
			bc[k] = (double)h->b[k].count;
		}
		snprintf(sc, sizeof(sc), "series s%zu", i);
		lh_svg_outline(&c, blo, bhi, bc, h->nr, lh_svg_color(i), sc);
		if (i < MAX_SERIES) {
			names[i] = s[i].name;
			colors[i] = lh_svg_color(i);
		}
	}
	free(blo);
	free(bhi);
	free(bc);
	if (has_budget) {
		snprintf(label, sizeof(label), "--max %s",
			 lh_duration_format(budget_ns, d, sizeof(d)));
		lh_svg_vline(&c, (double)budget_ns / 1e3, LH_SVG_BUDGET_COLOR, "budget", label);
	}
	if (n > 1)
		lh_svg_legend(&c, names, colors, n < MAX_SERIES ? n : MAX_SERIES);
	lh_svg_end(&c);
}

/* "count 4, min 39us, mean 1160.8us, max 2093us; p50 <= 520us (10us) ..." */
static void hist_caption(FILE *out, const struct lh_histogram *h)
{
	char a[32], b[32];
	uint64_t lo, hi;
	unsigned int p;

	fprintf(out, "<p class=\"caption\">%llu values, min %s, mean %.1fus, max %s",
		(unsigned long long)h->count, lh_report_fmt_us(h->min_ns, a, sizeof(a)),
		lh_histogram_mean_ns(h) / 1e3, lh_report_fmt_us(h->max_ns, b, sizeof(b)));
	for (p = 0; p < LH_HISTOGRAM_NR_PCT; p++)
		if (lh_histogram_percentile(h, p, &lo, &hi))
			fprintf(out, "; %s &le; %s (%s)", lh_histogram_pct_name[p],
				lh_report_fmt_us(hi, a, sizeof(a)),
				hi == lo ? "exact" : lh_report_fmt_us(hi - lo, b, sizeof(b)));
	if (h->dropped)
		fprintf(out, "; %llu not counted", (unsigned long long)h->dropped);
	fputs("</p>\n", out);
}

static void write_head(const struct lh_report *rep, FILE *out)
{
	const char *mode = rep->has_run && rep->run.mode ? rep->run.mode : "analyze";

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", out);
	put(out, "lathound %s report: %s", mode, rep->verdict.error ? "ERROR" : rep->passed ? "PASS" : "FAIL");
	if (rep->has_run && rep->run.host)
		put(out, " (%s)", rep->run.host);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	fputs("<h1>", out);
	put(out, "lathound %s %s report", LH_VERSION, mode);
	fputs("</h1>\n", out);
}

static void write_verdict(const struct lh_report *rep, FILE *out)
{
	char gates[512];
	size_t i;

	fprintf(out, "<section id=\"verdict\"><p><span class=\"verdict %s\">%s</span> ",
		verdict_class(rep), rep->verdict.error ? "ERROR" : rep->passed ? "PASS" : "FAIL");
	esc(out, lh_report_gates_text(rep, gates, sizeof(gates)));
	fputs("</p>\n", out);
	if (rep->verdict.error) {
		fputs("<p class=\"error-text\"><b>error:</b> ", out);
		esc(out, rep->verdict.error);
		put(out, " (the gates, for what was read: %s)", rep->passed ? "pass" : "FAIL");
		fputs("</p>\n", out);
	}
	if (rep->verdict.nr_violations) {
		fputs("<ul class=\"violations\">\n", out);
		for (i = 0; i < rep->verdict.nr_violations; i++) {
			fputs("<li>", out);
			esc(out, rep->verdict.violations[i]);
			fputs("</li>\n", out);
		}
		fputs("</ul>\n", out);
	}
	fputs("</section>\n", out);
}

static void write_tracers(const struct lh_report *rep, FILE *out)
{
	char cpu[16];
	int i;

	fputs("<h2 id=\"tracers\">Worst latency per tracer</h2>\n", out);
	if (!rep->total) {
		fputs("<p>No latency sections found.</p>\n", out);
		return;
	}
	fputs("<table><tr><th>tracer</th><th class=\"n\">worst</th><th class=\"n\">sections</th>"
	      "<th class=\"n\">accepted</th><th>CPU</th><th>task</th><th>started at -&gt; ended at</th>"
	      "<th>source</th></tr>\n", out);
	for (i = 0; i < LH_TRACER_NR; i++) {
		const struct lh_report_tracer *tr = &rep->tracers[lh_tracer_at(i)];
		const struct lh_report_where *wh = &tr->worst;

		if (!tr->count)
			continue;
		fprintf(out, "<tr><td>%s</td><td class=\"n\">%llu us</td><td class=\"n\">%" PRIu64 "</td>"
			"<td class=\"n\">%" PRIu64 "</td><td>%s</td>", lh_tracer_name(lh_tracer_at(i)),
			(unsigned long long)wh->latency_us, tr->count, tr->accepted,
			cpu_name(wh->cpu, cpu, sizeof(cpu)));
		td_task(out, wh->comm, wh->pid);
		td_sites(out, wh->started, wh->ended);
		fputs("<td><code>", out);
		if (wh->source)
			put(out, "%s:%lu", wh->source, wh->line);
		fputs("</code></td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* A CPU's noise sources as the kernel counted them: each kept one, then the rest summed. */
static void write_sources(const struct lh_report_noise *n, FILE *out)
{
	size_t i;

	if (!n->has_sources) {
		fputs("not counted", out);
		return;
	}
	for (i = 0; i < n->nr_sources; i++) {
		const struct lh_report_source *s = &n->sources[i];

		fprintf(out, "%s%s ", i ? "<br>" : "", lh_spike_kind_name(s->kind));
		lh_escape_xml(out, s->name);
		fprintf(out, " %.3f us (%" PRIu64 ")", (double)s->noise_ns / 1e3, s->count);
	}
	if (n->other_sources)
		fprintf(out, "<br>%" PRIu64 " more %.3f us (%" PRIu64 ")", n->other_sources,
			(double)n->other_ns / 1e3, n->other_count);
	if (!n->nr_sources)
		fputs("none", out);
}

/*
 * osnoise per CPU: periods, runtime, noise, the % CPU available, the longest single noise,
 * hardware noise and the noise sources.
 */
static void write_noise(const struct lh_report *rep, FILE *out)
{
	char pct[16];
	uint32_t milli;
	size_t i;

	if (!rep->nr_noise)
		return;
	fputs("<h2 id=\"noise\">osnoise: CPU available</h2>\n<table><tr><th>CPU</th>"
	      "<th class=\"n\">periods</th><th class=\"n\">runtime</th><th class=\"n\">noise</th>"
	      "<th class=\"n\">available</th><th class=\"n\">longest single</th>"
	      "<th class=\"n\">hardware</th><th>noisiest sources (events)</th></tr>\n", out);
	for (i = 0; i < rep->nr_noise; i++) {
		const struct lh_report_noise *n = &rep->noise[i];

		fprintf(out, "<tr><td>CPU%d</td><td class=\"n\">%" PRIu64 "</td>"
			"<td class=\"n\">%.3f us</td><td class=\"n\">%.3f us</td><td class=\"n\">",
			n->cpu, n->periods, (double)n->runtime_ns / 1e3, (double)n->noise_ns / 1e3);
		if (lh_gate_available(n->runtime_ns, n->noise_ns, &milli))
			fputs("no period", out);
		else
			fprintf(out, "%s %%", lh_gate_fmt_available(milli, pct, sizeof(pct)));
		fprintf(out, "</td><td class=\"n\">%.3f us</td><td class=\"n\">%" PRIu64 "</td><td>",
			(double)n->max_single_ns / 1e3, n->hw_count);
		write_sources(n, out);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	if (rep->noise_dropped)
		fprintf(out, "<p class=\"note\">%" PRIu64 " noise events the kernel could not count by source.</p>\n",
			rep->noise_dropped);
}

/* hwlat's samples per CPU beside the software tracers' worst there (lh_report_floors()). */
static void write_floor(const struct lh_report *rep, FILE *out)
{
	char worst[32], p99[40], sw[LH_REPORT_FLOOR_TEXT];
	size_t n, i;
	struct lh_report_floor *f = lh_report_floors(rep, &n);

	if (!n)
		return;
	fputs("<h2 id=\"floor\">Hardware floor</h2>\n<p>hwlat's gaps per CPU, measured with "
	      "interrupts off (SMIs, firmware, a hypervisor, NMIs), beside each software tracer's "
	      "worst on that CPU. Within the floor: hwlat saw a gap as long there, so the hardware "
	      "alone may explain it; over: longer than any gap hwlat saw there.</p>\n"
	      "<table><tr><th>CPU</th><th class=\"n\">samples</th><th class=\"n\">worst</th>"
	      "<th class=\"n\">p99</th><th>software worst on the CPU</th></tr>\n", out);
	for (i = 0; i < n; i++) {
		lh_report_fmt_us(f[i].hwlat->max_ns, worst, sizeof(worst));
		fprintf(out, "<tr><td>CPU%d</td><td class=\"n\">%" PRIu64 "</td>"
			"<td class=\"n\">%s</td><td class=\"n\">%s</td><td>", f[i].cpu,
			f[i].hwlat->count, worst, lh_report_floor_p99(&f[i], "&le; ", p99, sizeof(p99)));
		/* tracer names and figures only: nothing to escape */
		fprintf(out, "%s</td></tr>\n", lh_report_floor_text(&f[i], sw, sizeof(sw)));
	}
	fputs("</table>\n", out);
	free(f);
}

/* Per tracer: all CPUs overlaid (up to MAX_SERIES), then one small chart per CPU. */
static void write_distributions(const struct lh_report *rep, FILE *out)
{
	struct series s[MAX_SERIES];
	char caption[96], title[192], names[MAX_SERIES][16], cpu[16];
	uint64_t budget = 0;
	bool has;
	int i;

	if (!rep->total)
		return;
	fprintf(out, "<h2 id=\"distributions\">Latency distribution</h2>\n<p class=\"note\">"
		"Histograms of %s; counts on a log scale; the red line is the --max budget.</p>\n",
		lh_report_sections_caption(rep, caption, sizeof(caption)));
	for (i = 0; i < LH_TRACER_NR; i++) {
		enum lh_tracer t = lh_tracer_at(i);
		const struct lh_report_tracer *tr = &rep->tracers[t];
		size_t slot, k, n = 0, cpus = 0;

		if (!tr->count)
			continue;
		has = lh_gate_budget(&rep->gate, t, &budget);
		for (k = 0; k < tr->nr_cpus; k++)
			cpus += tr->cpus[k].count > 0;
		/* known CPUs in order, the unknown one last */
		for (k = 0; k < tr->nr_cpus && n < MAX_SERIES; k++) {
			slot = (k + 1) % tr->nr_cpus;
			if (!tr->cpus[slot].count)
				continue;
			s[n].name = cpu_name(lh_report_slot_cpu(slot), names[n], sizeof(names[n]));
			s[n++].h = &tr->cpus[slot].dist;
		}
		fprintf(out, "<h3>%s</h3>\n", lh_tracer_name(t));
		snprintf(title, sizeof(title), "%s: latency histogram%s", lh_tracer_name(t),
			 cpus > 1 ? " per CPU" : "");
		if (cpus > MAX_SERIES || !n) {
			s[0].name = "all CPUs";
			s[0].h = &tr->hist;
			n = 1;
		}
		hist_chart(out, "hist tracer", title, s, n, has, budget, CHART_W, CHART_H);
		hist_caption(out, &tr->hist);
		if (cpus < 2)
			continue;
		for (k = 0; k < tr->nr_cpus; k++) {
			struct series one;

			slot = (k + 1) % tr->nr_cpus;
			if (!tr->cpus[slot].count)
				continue;
			one.name = cpu_name(lh_report_slot_cpu(slot), cpu, sizeof(cpu));
			one.h = &tr->cpus[slot].dist;
			snprintf(title, sizeof(title), "%s on %s", lh_tracer_name(t), one.name);
			fputs("<div class=\"small\">", out);
			put(out, "%s: %llu, max %llu us", one.name, (unsigned long long)tr->cpus[slot].count,
			    (unsigned long long)tr->cpus[slot].worst->latency_us);
			hist_chart(out, "hist cpu", title, &one, 1, has, budget, SMALL_W, SMALL_H);
			fputs("</div>\n", out);
		}
	}
}

/* The callers of a kernel histogram with the longest sections, as the text report lists them. */
static void kernel_callers(FILE *out, const struct lh_report_histogram *kh)
{
	char m[32];
	size_t i;

	fputs("<p class=\"caption\">Longest sections by caller:", out);
	if (!kh->nr_callers) {
		fputs(" none counted</p>\n", out);
		return;
	}
	fputs("</p>\n<table class=\"callers\"><tr><th class=\"n\">max</th>"
	      "<th class=\"n\">sections</th><th>caller</th></tr>\n", out);
	for (i = 0; i < kh->nr_callers; i++) {
		fprintf(out, "<tr class=\"caller\"><td class=\"n\">%s</td><td class=\"n\">%llu</td>"
			"<td><code>", lh_report_fmt_us(kh->callers[i].max_ns, m, sizeof(m)),
			(unsigned long long)kh->callers[i].count);
		esc(out, kh->callers[i].symbol);
		fputs("</code></td></tr>\n", out);
	}
	fputs("</table>\n", out);
	if (kh->callers_note) {
		fputs("<p class=\"note\">", out);
		put(out, "(%s: offsets from _stext)", kh->callers_note);
		fputs("</p>\n", out);
	}
}

/* Each kind the kernel counted: one series per CPU (or the all-CPU one), then its callers. */
static void write_kernel_hists(const struct lh_report *rep, FILE *out)
{
	struct series s[MAX_SERIES];
	char names[MAX_SERIES][16], title[160];
	uint64_t budget = 0;
	size_t i, k, n;
	bool has;

	if (!rep->nr_hists)
		return;
	fputs("<h2 id=\"kernel-histograms\">Histograms the kernel counted</h2>\n"
	      "<p class=\"note\">Every section, counted in the kernel: a distribution whatever -T "
	      "captured.</p>\n", out);
	for (i = 0; i < rep->nr_hists; i++) {
		const struct lh_report_histogram *kh = &rep->hists[i];
		enum lh_tracer t;

		for (k = 0; k < i; k++)
			if (!strcmp(rep->hists[k].kind, kh->kind) &&
			    !strcmp(rep->hists[k].source, kh->source))
				break;
		if (k < i)
			continue;
		for (n = 0, k = i; k < rep->nr_hists && n < MAX_SERIES; k++) {
			if (strcmp(rep->hists[k].kind, kh->kind) ||
			    strcmp(rep->hists[k].source, kh->source))
				continue;
			lh_report_cpu_name(rep->hists[k].cpu, "CPU", "all CPUs", names[n],
					   sizeof(names[n]));
			s[n].name = names[n];
			s[n++].h = &rep->hists[k].h;
		}
		t = lh_tracer_from_name(kh->kind, strlen(kh->kind));
		has = lh_gate_budget(&rep->gate, t, &budget);
		snprintf(title, sizeof(title), "%s, counted by the kernel", kh->kind);
		fputs("<h3>", out);
		esc(out, title);
		fputs("</h3>\n", out);
		hist_chart(out, "hist kernel", title, s, n, has, budget, CHART_W, CHART_H);
		for (k = 0; k < n; k++) {
			fputs("<p class=\"caption\"><b>", out);
			esc(out, s[k].name);
			fputs("</b></p>", out);
			hist_caption(out, s[k].h);
		}
		for (k = i; k < rep->nr_hists; k++)
			if (!strcmp(rep->hists[k].kind, kh->kind) &&
			    !strcmp(rep->hists[k].source, kh->source) && rep->hists[k].has_callers)
				kernel_callers(out, &rep->hists[k]);
	}
}

/*
 * The progression of maxima per tracer: the maximum of each CPU as a staircase over the
 * time of capture (live runs) or the order of the records (offline), with the budget.
 */
static void write_progression(const struct lh_report *rep, FILE *out)
{
	struct lh_svg_axis x = { .label = "record (in order read)", .div = 1 };
	struct lh_svg_axis y = { .lo = 0, .label = "new maximum (us)", .div = 1 };
	const char *names[MAX_SERIES], *colors[MAX_SERIES];
	char nm[MAX_SERIES][16], label[64], d[32], title[96], tip[96];
	double *xs, *ys;
	uint64_t budget = 0, t0 = 0;
	bool timed, has, any = false;
	int i;

	for (i = 0; i < LH_TRACER_NR; i++)
		any |= rep->tracers[lh_tracer_at(i)].nr_steps > 0;
	if (!any)
		return;
	fputs("<h2 id=\"progression\">Progression of maxima</h2>\n", out);
	for (i = 0; i < LH_TRACER_NR; i++) {
		enum lh_tracer t = lh_tracer_at(i);
		const struct lh_report_tracer *tr = &rep->tracers[t];
		struct lh_svg_chart c;
		size_t k, j, n, series = 0;

		if (!tr->nr_steps)
			continue;
		timed = true;
		for (k = 0; k < tr->nr_steps; k++)
			timed &= tr->steps[k].at_ns != 0;
		t0 = timed && rep->has_run && rep->run.started_ns &&
		     rep->run.started_ns <= tr->steps[0].at_ns ? rep->run.started_ns :
		     tr->steps[0].at_ns;
		x = (struct lh_svg_axis){ .lo = 0, .hi = (double)tr->nr_steps, .div = 1,
					  .label = timed ? "time into the run (s)" :
							   "step (in the order read)" };
		y.hi = 1;
		for (k = 0; k < tr->nr_steps; k++) {
			if ((double)tr->steps[k].latency_us * 1.1 > y.hi)
				y.hi = (double)tr->steps[k].latency_us * 1.1;
			if (timed && (double)(tr->steps[k].at_ns - t0) / 1e9 * 1.02 > x.hi)
				x.hi = (double)(tr->steps[k].at_ns - t0) / 1e9 * 1.02;
		}
		if (timed)
			x.hi = x.hi > 1 ? x.hi : 1;
		has = lh_gate_budget(&rep->gate, t, &budget);
		if (has && (double)budget / 1e3 * 1.1 > y.hi)
			y.hi = (double)budget / 1e3 * 1.1;
		snprintf(title, sizeof(title), "%s: progression of maxima per CPU",
			 lh_tracer_name(t));
		fprintf(out, "<h3>%s</h3>\n", lh_tracer_name(t));
		lh_svg_begin(&c, out, CHART_W, CHART_H, &x, &y, "progression", title);
		xs = lh_xcalloc(tr->nr_steps, sizeof(*xs));
		ys = lh_xcalloc(tr->nr_steps, sizeof(*ys));
		for (j = 0; j < tr->nr_cpus && series < MAX_SERIES; j++) {
			int cpu = lh_report_slot_cpu((j + 1) % tr->nr_cpus);

			for (n = 0, k = 0; k < tr->nr_steps; k++) {
				const struct lh_report_step *st = &tr->steps[k];

				if (st->cpu != cpu)
					continue;
				xs[n] = timed ? (double)(st->at_ns - t0) / 1e9 : (double)k;
				ys[n] = (double)st->latency_us;
				n++;
			}
			if (!n)
				continue;
			lh_svg_stairs(&c, xs, ys, n, x.hi, lh_svg_color(series), "series");
			for (k = 0; k < n; k++) {
				snprintf(tip, sizeof(tip), "%s: %.0f us", cpu_name(cpu, d, sizeof(d)),
					 ys[k]);
				lh_svg_marker(&c, xs[k], ys[k], lh_svg_color(series), tip);
			}
			names[series] = cpu_name(cpu, nm[series], sizeof(nm[series]));
			colors[series] = lh_svg_color(series);
			series++;
		}
		free(xs);
		free(ys);
		if (has) {
			snprintf(label, sizeof(label), "--max %s",
				 lh_duration_format(budget, d, sizeof(d)));
			lh_svg_hline(&c, (double)budget / 1e3, LH_SVG_BUDGET_COLOR, "budget", label);
		}
		if (series > 1)
			lh_svg_legend(&c, names, colors, series);
		lh_svg_end(&c);
		if (tr->steps_dropped)
			fprintf(out, "<p class=\"note\">%" PRIu64 " steps not kept</p>\n", tr->steps_dropped);
	}
}

/* Frames as a list, innermost first. */
static void frames_pre(FILE *out, const char *const *frames, size_t n)
{
	size_t i;

	fputs("<pre>", out);
	for (i = 0; i < n; i++) {
		esc(out, frames[i]);
		fputc('\n', out);
	}
	fputs("</pre>", out);
}

static void write_offenders(const struct lh_report *rep, FILE *out)
{
	struct lh_report_kept **kept = lh_report_kept_sorted(rep);
	size_t *order, i, k, n = rep->nr_offenders < TOP_OFFENDERS ? rep->nr_offenders :
								    TOP_OFFENDERS;
	char cpu[16];

	if (!rep->nr_offenders) {
		free(kept);
		return;
	}
	order = lh_report_offenders_sorted(rep);
	fprintf(out, "<h2 id=\"offenders\">Top offenders (%zu of %zu signatures, worst first)</h2>\n"
		"<table><tr><th class=\"n\">worst</th><th class=\"n\">count</th>"
		"<th class=\"n\">accepted</th><th>tracer</th><th>CPU</th><th>task</th>"
		"<th>started at -&gt; ended at</th><th>stack</th></tr>\n", n, rep->nr_offenders);
	for (i = 0; i < n; i++) {
		const struct lh_report_offender *o = &rep->offenders[order[i]];
		const struct lh_record *r = NULL;

		/* the stack of a record kept in full with this signature, else the frames */
		for (k = 0; k < rep->nr_heap && !r; k++)
			if (!strcmp(kept[k]->signature, o->signature))
				r = kept[k]->rec;
		fprintf(out, "<tr class=\"offender\"><td class=\"n\">%llu us</td><td class=\"n\">%" PRIu64 "</td>"
			"<td class=\"n\">%" PRIu64 "</td><td>%s</td><td>%s</td>",
			(unsigned long long)o->worst_us, o->count, o->accepted,
			lh_tracer_name(o->sig.tracer), cpu_name(o->cpu, cpu, sizeof(cpu)));
		td_task(out, o->comm, o->pid);
		td_sites(out, o->sig.started, o->sig.ended);
		fputs("<td><details><summary><code>", out);
		for (k = 0; k < o->sig.nr_frames; k++) {
			if (k)
				fputs(" &lt; ", out);
			esc(out, o->sig.frames[k]);
		}
		if (o->sig.has_wakeup && o->sig.woken)
			put(out, " (woke %s)", o->sig.woken);
		fputs("</code></summary>", out);
		if (r && r->nr_stacks)
			frames_pre(out, r->stacks[0].frames, r->stacks[0].nr);
		else
			frames_pre(out, o->sig.frames, o->sig.nr_frames);
		fputs("</details></td></tr>\n", out);
	}
	fputs("</table>\n", out);
	if (rep->other_count)
		fprintf(out, "<p class=\"note\">%" PRIu64 " more sections of signatures beyond the table's "
			"bound, worst %llu us</p>\n", rep->other_count,
			(unsigned long long)rep->other_worst_us);
	free(order);
	free(kept);
}

static void write_rules(const struct lh_report *rep, FILE *out)
{
	size_t i, n = rep->rules ? lh_rules_count(rep->rules) : 0, fired = 0;

	for (i = 0; i < n && i < rep->nr_rules; i++)
		fired += rep->rule_agg[i].hits > 0;
	fprintf(out, "<h2 id=\"rules\">Rules (%zu loaded, %zu fired)</h2>\n", n, fired);
	if (!fired && !rep->unevaluated_records)
		return;
	fputs("<table><tr><th>rule</th><th>severity</th><th class=\"n\">hits</th>"
	      "<th class=\"n\">accepted</th><th class=\"n\">worst</th>"
	      "<th class=\"n\">not evaluated</th><th>message</th></tr>\n", out);
	for (i = 0; i < n && i < rep->nr_rules; i++) {
		const struct lh_rule *rule = lh_rules_get(rep->rules, i);
		const struct lh_report_rule *ra = &rep->rule_agg[i];

		if (!ra->hits && !ra->unevaluated)
			continue;
		fputs("<tr class=\"rule\"><td><code>", out);
		esc(out, rule->id);
		fprintf(out, "</code></td><td>%s</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td>"
			"<td class=\"n\">%llu us</td><td class=\"n\">%" PRIu64 "</td><td>",
			lh_severity_name(rule->severity), ra->hits, ra->accepted,
			(unsigned long long)ra->worst_us, ra->unevaluated);
		esc(out, rule->message);
		if (ra->unevaluated && rule->limit_hit) {
			fputs(" <i>(not evaluated: ", out);
			esc(out, rule->limit_hit);
			fputs(")</i>", out);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* The most important records kept in full: stacks, IRQs, rules. */
/* "95.4 %" of a spike's latency. */
static void put_share(FILE *out, uint64_t ns, uint64_t latency_ns)
{
	unsigned int pm = lh_spike_permille(ns, latency_ns);

	fprintf(out, "%u.%u %%", pm / 10, pm % 10);
}

/* A spike's task row: "blocking", "culprit" with how long it ran and its share. */
static void spike_task_row(FILE *out, const char *what, const struct lh_task *t, uint64_t ns,
			   uint64_t latency_ns)
{
	fprintf(out, "<tr><th>%s</th>", what);
	td_task(out, t->comm, t->pid);
	fprintf(out, "<td>%.3f us</td><td>", (double)ns / 1e3);
	put_share(out, ns, latency_ns);
	fputs("</td></tr>", out);
}

/* A sampling tracer's spike: latencies, its tasks, each part with its share. */
static void spike_rows(FILE *out, const struct lh_spike *sp)
{
	char section[LH_REPORT_SECTION_TEXT];
	size_t k;

	fputs("<tr><th>spike</th><td>", out);
	fprintf(out, "%.3f us", (double)sp->latency_ns / 1e3);
	if (sp->has_irq)
		fprintf(out, ", irq latency %.3f us", (double)sp->irq_latency_ns / 1e3);
	if (sp->has_thread)
		fprintf(out, ", thread latency %.3f us", (double)sp->thread_latency_ns / 1e3);
	if (sp->has_period)
		fprintf(out, "; period noise %.3f us of %.3f us runtime",
			(double)sp->noise_ns / 1e3, (double)sp->runtime_ns / 1e3);
	fputs("; parts explain ", out);
	put_share(out, sp->explained_ns, sp->latency_ns);
	fputs("<table class=\"spike\"><tr><th></th><th>task</th><th>ran</th><th>share</th></tr>",
	      out);
	if (sp->has_irq)
		spike_task_row(out, "blocking", &sp->blocking, sp->blocking_ns, sp->latency_ns);
	spike_task_row(out, "culprit", &sp->culprit, sp->culprit_ns, sp->latency_ns);
	fputs("</table>", out);
	if (*lh_report_section_text(sp, section, sizeof(section))) {
		fputs("<p class=\"section\">section: ", out);
		esc(out, section);
		fputs("</p>", out);
	}
	if (sp->nr_parts)
		fputs("<table class=\"spike\"><tr><th>kind</th><th>name</th><th>vector</th>"
		      "<th>offset</th><th>duration</th><th>overlap</th><th>share</th></tr>", out);
	for (k = 0; k < sp->nr_parts; k++) {
		const struct lh_spike_part *p = &sp->parts[k];

		fprintf(out, "<tr><td>%s</td>", lh_spike_kind_name(p->kind));
		if (p->kind == LH_SPIKE_THREAD) {
			td_task(out, p->name, p->pid);
		} else {
			fputs("<td>", out);
			esc(out, p->name ? p->name : "?");
			fputs("</td>", out);
		}
		if (p->vector >= 0)
			fprintf(out, "<td>%d</td>", p->vector);
		else
			fputs("<td>-</td>", out);
		fprintf(out, "<td>%.3f us</td><td>%.3f us</td><td>%.3f us</td><td>",
			(double)p->offset_ns / 1e3, (double)p->duration_ns / 1e3,
			(double)p->overlap_ns / 1e3);
		put_share(out, p->overlap_ns, sp->latency_ns);
		fputs("</td></tr>", out);
	}
	if (sp->nr_parts)
		fputs("</table>", out);
	if (sp->more_parts)
		fprintf(out, "and %u more, %.3f us", sp->more_parts, (double)sp->more_ns / 1e3);
	fputs("</td></tr>", out);
}

static void write_records(const struct lh_report *rep, FILE *out)
{
	struct lh_report_kept **kept = lh_report_kept_sorted(rep);
	size_t i, k, n = rep->nr_heap < TOP_RECORDS ? rep->nr_heap : TOP_RECORDS;
	char cpu[16], body[LH_REPORT_BODY_TEXT];

	if (n) {
		fprintf(out, "<h2 id=\"records\">Records kept in full (%zu of %zu, most important "
			"first)</h2>\n", n, rep->nr_heap);
	}
	for (i = 0; i < n; i++) {
		const struct lh_report_kept *kp = kept[i];
		const struct lh_record *r = kp->rec;

		fprintf(out, "<details class=\"record\"%s><summary>", i ? "" : " open");
		put(out, "%s, %llu us on %s, ", lh_report_tracer_name(r),
		    (unsigned long long)r->latency_us, cpu_name(r->cpu, cpu, sizeof(cpu)));
		if (r->task.comm)
			put(out, "%s-%d", r->task.comm, r->task.pid);
		if (kp->nr_hits) {
			fputs(" &mdash; rules:", out);
			for (k = 0; k < kp->nr_hits; k++)
				put(out, " %s", lh_rules_get(rep->rules, kp->hits[k])->id);
		}
		if (kp->accepted)
			fputs(" (accepted)", out);
		fputs("</summary>\n<table>", out);
		if (r->source)
			row(out, "source", "%s:%lu", r->source, r->line);
		fputs("<tr><th>sites</th>", out);
		td_sites(out, r->started_at, r->ended_at);
		fputs("</tr>", out);
		if (r->kernel)
			row(out, "kernel", "%s, %s", r->kernel,
			    r->preempt_model ? r->preempt_model : "?");
		if (*lh_report_body_text(r, body, sizeof(body)))
			row(out, "body", "%s", body);
		if (r->spike.set)
			spike_rows(out, &r->spike);
		for (k = 0; !r->spike.set && k < r->nr_irqs; k++) {
			const struct lh_irq *q = &r->irqs[k];

			fputs("<tr><th>IRQ</th><td>", out);
			put(out, "%d %s: ", q->irq, q->name ? q->name : "?");
			if (q->duration_us >= 0)
				put(out, "%.3f us, %s", q->duration_us, q->ret ? q->ret : "?");
			else
				fputs("no exit seen", out);
			fputs("</td></tr>", out);
		}
		for (k = 0; k < r->nr_stacks; k++) {
			fputs("<tr><th>stack</th><td>", out);
			frames_pre(out, r->stacks[k].frames, r->stacks[k].nr);
			fputs("</td></tr>", out);
		}
		fputs("</table></details>\n", out);
	}
	free(kept);
}

static void write_irqs(const struct lh_report *rep, FILE *out)
{
	const struct lh_irqstat *st = rep->has_run ? rep->run.irqstat : NULL;
	size_t i, n, *order, shown;
	char title[160];

	if (!st)
		return;
	n = lh_irqstat_count(st);
	fprintf(out, "<h2 id=\"irqs\">IRQ handlers</h2>\n<p>%llu runs accounted, %llu events lost, "
		"%llu dropped</p>\n", (unsigned long long)lh_irqstat_events(st),
		(unsigned long long)lh_irqstat_lost(st), (unsigned long long)lh_irqstat_dropped(st));
	if (!n)
		return;
	fputs("<table><tr><th class=\"n\">IRQ</th><th>name</th><th>CPU</th><th class=\"n\">count</th>"
	      "<th class=\"n\">max</th><th class=\"n\">mean</th><th class=\"n\">p99 &le;</th></tr>\n",
	      out);
	/* worst first: the handlers plotted */
	order = lh_xcalloc(n, sizeof(*order));
	for (i = 0; i < n; i++) {
		const struct lh_irqstat_entry *e = lh_irqstat_get(st, i);
		uint64_t lo = 0, hi = 0;
		size_t j = i;

		lh_histogram_percentile(&e->dist, 1, &lo, &hi);
		fprintf(out, "<tr><td class=\"n\">%d</td><td>", e->irq);
		esc(out, e->name);
		fprintf(out, "</td><td>%d</td><td class=\"n\">%llu</td><td class=\"n\">%.3f us</td>"
			"<td class=\"n\">%.3f us</td><td class=\"n\">%.3f us</td></tr>\n", e->cpu,
			(unsigned long long)e->count, (double)e->max_ns / 1e3,
			e->count ? (double)e->sum_ns / (double)e->count / 1e3 : 0.0, (double)hi / 1e3);
		while (j > 0 && lh_irqstat_get(st, order[j - 1])->max_ns < e->max_ns) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	fputs("</table>\n", out);
	shown = n < TOP_IRQS ? n : TOP_IRQS;
	fprintf(out, "<p class=\"note\">Durations of the %zu longest-running handlers "
		"(counts on a log scale).</p>\n", shown);
	for (i = 0; i < shown; i++) {
		const struct lh_irqstat_entry *e = lh_irqstat_get(st, order[i]);
		struct series one = { .name = e->name, .h = &e->dist };

		snprintf(title, sizeof(title), "IRQ %d %s on CPU%d: handler durations", e->irq,
			 e->name, e->cpu);
		fputs("<div class=\"small\">", out);
		put(out, "IRQ %d %s, CPU%d", e->irq, e->name, e->cpu);
		hist_chart(out, "hist irq", title, &one, 1, false, 0, SMALL_W, SMALL_H);
		fputs("</div>\n", out);
	}
	free(order);
}

static void write_run(const struct lh_report *rep, FILE *out)
{
	const struct lh_run_info *run = &rep->run;
	char a[40], b[40];
	size_t i;

	fprintf(out, "<h2 id=\"input\">Input</h2>\n<p>%" PRIu64 " snapshots parsed, %" PRIu64 " skipped as "
		"malformed, %" PRIu64 " bad lines, %" PRIu64 " warnings; %" PRIu64 " sections, %zu kept "
		"in full</p>\n",
		rep->parse.snapshots, rep->parse.skipped, rep->parse.bad_lines,
		rep->warnings_total, rep->total, rep->nr_heap);
	if (rep->nr_warnings) {
		fputs("<details><summary>warnings</summary><pre>", out);
		for (i = 0; i < rep->nr_warnings; i++) {
			esc(out, rep->warnings[i]);
			fputc('\n', out);
		}
		fputs("</pre></details>\n", out);
	}
	for (i = 0; i < rep->nr_merged_from; i++) {
		fputs(i ? ", " : "<p>merged from: ", out);
		esc(out, rep->merged_from[i]);
	}
	if (rep->nr_merged_from)
		fputs("</p>\n", out);
	if (!rep->has_run)
		return;
	fputs("<h2 id=\"run\">Run</h2>\n<table>", out);
	row(out, "from", "%s to %s (%.1f s)",
	    lh_report_iso8601(run->started_ns, a, sizeof(a)) ?: "?",
	    lh_report_iso8601(run->ended_ns, b, sizeof(b)) ?: "?",
	    (double)lh_report_run_duration_ns(rep) / 1e9);
	if (run->end_reason)
		row(out, "ended by", "%s", run->end_reason);
	row(out, "captures", "%lu (threshold %s), %lu sections lost, %lu snapshots dropped",
	    (unsigned long)run->captures,
	    lh_report_fmt_us(run->threshold_ns, a, sizeof(a)), (unsigned long)run->sections_lost,
	    (unsigned long)run->snapshots_dropped);
	if (run->command)
		row(out, "command", "%s (exit status %d)", run->command, run->command_status);
	if (run->kernel)
		row(out, "kernel", "%s", run->kernel);
	if (run->host)
		row(out, "host", "%s", run->host);
	for (i = 0; i < LH_TRACER_NR; i++)
		if (run->not_measured[i])
			row(out, "not measured", "%s: %s", lh_tracer_name((enum lh_tracer)i),
			    run->not_measured[i]);
	fputs("</table>\n", out);
}

int lh_report_write_html(struct lh_report *rep, FILE *out)
{
	errno = 0;
	write_head(rep, out);
	write_verdict(rep, out);
	write_tracers(rep, out);
	write_noise(rep, out);
	write_floor(rep, out);
	write_distributions(rep, out);
	write_kernel_hists(rep, out);
	write_progression(rep, out);
	write_irqs(rep, out);
	write_offenders(rep, out);
	write_rules(rep, out);
	write_records(rep, out);
	write_run(rep, out);
	fputs("<h2>Verdict</h2>\n", out);
	write_verdict(rep, out);
	fputs("</body>\n</html>\n", out);
	return lh_report_stream_status(out);
}
