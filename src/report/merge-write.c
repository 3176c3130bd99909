// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fleet report's writers (merge.h): text, JSON (json-write.h) and JUnit XML (junit.h), each
 * with the verdict lh_merge_finish() judged.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json-write.h"
#include "junit.h"
#include "merge-priv.h"
#include "merge.h"
#include "report-priv.h"

#define TEXT_SIGNATURES	20	/* signatures the text lists; JSON lists them all */

static const struct lh_merge *sort_m;

static int cmp_host(const void *a, const void *b)
{
	const struct lh_merge_host *x = &sort_m->hosts[*(const uint32_t *)a];
	const struct lh_merge_host *y = &sort_m->hosts[*(const uint32_t *)b];
	const char *kx[] = { x->board, x->host, x->kernel }, *ky[] = { y->board, y->host, y->kernel };
	int i, c;

	for (i = 0; i < 3; i++) {
		if (!kx[i] != !ky[i])
			return kx[i] ? -1 : 1;
		if (kx[i] && (c = strcmp(kx[i], ky[i])))
			return c;
	}
	return 0;
}

/* Signatures hit on the most hosts first, then the worst. */
static int cmp_sig(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct lh_merge_hosts *x = &sort_m->sigs[i].hosts, *y = &sort_m->sigs[j].hosts;
	const struct lh_report_offender *ox = &sort_m->fleet->offenders[i];
	const struct lh_report_offender *oy = &sort_m->fleet->offenders[j];

	if (x->nr != y->nr)
		return x->nr > y->nr ? -1 : 1;
	if (ox->worst_us != oy->worst_us)
		return ox->worst_us > oy->worst_us ? -1 : 1;
	return strcmp(ox->signature, oy->signature);
}

/* Return: the indices of n items in the order cmp gives (free it). */
static uint32_t *sorted(const struct lh_merge *m, size_t n,
			int (*cmp)(const void *, const void *))
{
	uint32_t *v = lh_xcalloc(n ? n : 1, sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	sort_m = m;
	qsort(v, n, sizeof(*v), cmp);
	return v;
}

static char *fmt_pct(const struct lh_histogram *h, unsigned int i, char *buf, size_t len)
{
	uint64_t lo, hi;

	if (!lh_histogram_percentile(h, i, &lo, &hi))
		return strcpy(buf, "-");
	return lh_report_fmt_us(hi, buf, len);
}

static char *fmt_worst(bool seen, uint64_t us, char *buf, size_t len)
{
	if (!seen)
		return strcpy(buf, "-");
	return lh_report_fmt_us(lh_report_us_to_ns(us), buf, len);
}

/* One histogram row: what, CPU, count, p50, p99, p99.9, max (78 columns). */
static void hist_row(FILE *out, const char *what, const char *cpu, const struct lh_histogram *h)
{
	char p50[32], p99[32], p999[32], w[32], cut[20];

	fprintf(out, "  %-16s %-4.4s %10llu %10s %10s %10s %10s\n", lh_merge_fit(what, 16, cut),
		cpu,
		(unsigned long long)h->count, fmt_pct(h, 0, p50, sizeof(p50)),
		fmt_pct(h, 1, p99, sizeof(p99)), fmt_pct(h, 2, p999, sizeof(p999)),
		h->count ? lh_report_fmt_us(h->max_ns, w, sizeof(w)) : "-");
}

static void write_text_tracers(const struct lh_merge *m, FILE *out)
{
	char a[32], b[32], name[160], cut[64];
	bool any = false;
	int i;

	fputs("Fleet worst per tracer\n", out);
	fprintf(out, "  %-15s %10s %10s %10s  %s\n", "tracer", "sections", "worst", "gated",
		"on host");
	for (i = 0; i < LH_TRACER_NR; i++) {
		const struct lh_merge_tracer *mt = &m->tracers[lh_tracer_at(i)];
		const struct lh_report_tracer *ft = lh_merge_fleet_tracer(m, lh_tracer_at(i));

		if (!ft->count)
			continue;
		any = true;
		fprintf(out, "  %-15s %10" PRIu64 " %10s %10s  %s\n", lh_tracer_name(lh_tracer_at(i)),
			ft->count, fmt_worst(ft->worst.set, ft->worst.latency_us, a, sizeof(a)),
			fmt_worst(ft->gate.set, ft->gate.latency_us, b, sizeof(b)),
			ft->worst.set ?
				lh_merge_fit(lh_merge_host_name(&m->hosts[mt->worst_host], name,
								sizeof(name)), 26, cut) : "-");
	}
	if (!any)
		fputs("  (no sections)\n", out);
}

static void write_text_hosts(const struct lh_merge *m, FILE *out)
{
	uint32_t *v = sorted(m, m->nr_hosts, cmp_host);
	char name[160], cut[64], kcut[64], w[32];
	size_t i;
	int t;

	fprintf(out, "\nHosts: %zu (worst per tracer)\n", m->nr_hosts);
	fprintf(out, "  %-22s %-18s %7s  %-14s %10s\n", "board (host)", "kernel", "reports",
		"tracer", "worst");
	for (i = 0; i < m->nr_hosts; i++) {
		const struct lh_merge_host *h = &m->hosts[v[i]];
		bool first = true;

		fprintf(out, "  %-22s %-18s %7lu",
			lh_merge_fit(lh_merge_host_name(h, name, sizeof(name)), 22, cut),
			lh_merge_fit(h->kernel ? h->kernel : "?", 18, kcut), h->reports);
		for (t = 0; t < LH_TRACER_NR; t++) {
			enum lh_tracer tt = lh_tracer_at(t);

			if (!h->sections[tt])
				continue;
			if (!first)
				fprintf(out, "  %-22s %-18s %7s", "", "", "");
			fprintf(out, "  %-14.14s %10s\n", lh_tracer_name(tt),
				fmt_worst(true, h->worst_us[tt], w, sizeof(w)));
			first = false;
		}
		if (first)
			fputs("  (no sections)\n", out);
	}
	free(v);
}

/* Return: whether a host lists osnoise's figures. */
static bool any_noise(const struct lh_merge *m)
{
	size_t i;

	for (i = 0; i < m->nr_hosts; i++)
		if (m->hosts[i].noise)
			return true;
	return false;
}

static void write_text_available(const struct lh_merge *m, FILE *out)
{
	uint32_t *v;
	char name[160], cut[64], pct[16], src[LH_REPORT_SOURCES_TEXT];
	uint32_t milli;
	size_t i, j;

	if (!any_noise(m))
		return;
	v = sorted(m, m->nr_hosts, cmp_host);
	fputs("\nosnoise: % CPU available per host\n", out);
	fprintf(out, "  %-22s %4s %10s %12s\n", "board (host)", "cpu", "periods", "available");
	for (i = 0; i < m->nr_hosts; i++) {
		const struct lh_merge_host *h = &m->hosts[v[i]];

		for (j = 0; h->noise && j < h->noise->nr_noise; j++) {
			const struct lh_report_noise *n = &h->noise->noise[j];

			fprintf(out, "  %-22s %4d %10" PRIu64 " %12s\n", j ? "" :
				lh_merge_fit(lh_merge_host_name(h, name, sizeof(name)), 22, cut),
				n->cpu, n->periods,
				lh_gate_available(n->runtime_ns, n->noise_ns, &milli) ? "no period" :
				lh_gate_fmt_available(milli, pct, sizeof(pct)));
			if (*lh_report_sources_text(n, src, sizeof(src)))
				fprintf(out, "  %-22s %4s noisiest: %s\n", "", "", src);
		}
	}
	free(v);
}

static void write_text_sigs(const struct lh_merge *m, FILE *out)
{
	size_t i, n = m->fleet->nr_offenders;
	uint32_t *v = sorted(m, n, cmp_sig);
	char name[160], cut[128], w[32];

	fprintf(out, "\nOffenders across hosts: %zu signature%s, most hosts first\n", n,
		n == 1 ? "" : "s");
	for (i = 0; i < n && i < TEXT_SIGNATURES; i++) {
		const struct lh_merge_sig *s = &m->sigs[v[i]];
		const struct lh_report_offender *o = &m->fleet->offenders[v[i]];

		fprintf(out, "  %zu host%s, %" PRIu64 " section%s, worst %s on %s\n", s->hosts.nr,
			s->hosts.nr == 1 ? "" : "s", o->count, o->count == 1 ? "" : "s",
			fmt_worst(true, o->worst_us, w, sizeof(w)),
			lh_merge_fit(lh_merge_host_name(&m->hosts[s->worst_host], name, sizeof(name)),
				     30, cut));
		fprintf(out, "    %s\n", lh_merge_fit(o->signature, 76, cut));
	}
	if (n > TEXT_SIGNATURES)
		fprintf(out, "  and %zu more (the JSON report lists them all)\n",
			n - TEXT_SIGNATURES);
	if (m->fleet->other_count)
		fprintf(out, "  other (past %d signatures): %" PRIu64 " sections, worst %s\n",
			LH_REPORT_SIGNATURES, m->fleet->other_count,
			fmt_worst(true, m->fleet->other_worst_us, w, sizeof(w)));
	free(v);
}

static void write_text_rules(const struct lh_merge *m, FILE *out)
{
	char cut[64], w[32];
	size_t i, n = 0;

	for (i = 0; i < lh_merge_nr_rules(m); i++)
		n += lh_merge_rule(m, i)->hits || lh_merge_rule(m, i)->unevaluated;
	fprintf(out, "\nRule hits across hosts: %zu rule%s hit\n", n, n == 1 ? "" : "s");
	if (n)
		fprintf(out, "  %-30s %-9s %10s %6s %10s %s\n", "rule", "severity", "hits",
			"hosts", "worst", "uneval.");
	for (i = 0; i < lh_merge_nr_rules(m); i++) {
		const struct lh_rule *d = lh_rules_get(m->fleet->own_rules, i);
		const struct lh_report_rule *r = lh_merge_rule(m, i);

		if (!r->hits && !r->unevaluated)
			continue;
		fprintf(out, "  %-30s %-9s %10" PRIu64 " %6zu %10s %" PRIu64 "\n",
			lh_merge_fit(d->id, 30, cut),
			lh_severity_name(d->severity), r->hits, m->rule_hosts[i].nr,
			fmt_worst(r->hits, r->worst_us, w, sizeof(w)), r->unevaluated);
	}
}

static void write_text_hists(const struct lh_merge *m, FILE *out)
{
	char cpu[16], what[64];
	size_t i, slot;
	int t;

	fputs("\nHistograms summed (upper bounds of the percentiles)\n", out);
	fprintf(out, "  %-16s %-4s %10s %10s %10s %10s %10s\n", "histogram", "cpu", "count", "p50",
		"p99", "p99.9", "max");
	for (t = 0; t < LH_TRACER_NR; t++) {
		const struct lh_report_tracer *ft = lh_merge_fleet_tracer(m, lh_tracer_at(t));

		if (!ft->hist.count)
			continue;
		snprintf(what, sizeof(what), "%s%s", lh_tracer_name(lh_tracer_at(t)),
			 m->tracers[lh_tracer_at(t)].maxima_only ? " (maxima)" : "");
		hist_row(out, what, "all", &ft->hist);
		for (slot = 0; slot < ft->nr_cpus; slot++) {
			if (!ft->cpus[slot].dist.count)
				continue;
			lh_report_cpu_name(lh_report_slot_cpu(slot), "", "?", cpu, sizeof(cpu));
			hist_row(out, "", cpu, &ft->cpus[slot].dist);
		}
	}
	for (i = 0; i < m->fleet->nr_hists; i++) {
		const struct lh_report_histogram *k = &m->fleet->hists[i];

		snprintf(what, sizeof(what), "%s %s", k->source, k->kind);
		lh_report_cpu_name(k->cpu, "", "all", cpu, sizeof(cpu));
		hist_row(out, what, cpu, &k->h);
	}
}

static int write_text(const struct lh_merge *m, FILE *out)
{
	char b[32];
	size_t i;
	int t;

	fprintf(out, "lathound merge: %lu report%s folded, %zu host%s", m->reports,
		m->reports == 1 ? "" : "s", m->nr_hosts, m->nr_hosts == 1 ? "" : "s");
	if (m->unread)
		fprintf(out, ", %lu unreadable", m->unread);
	fputs("\n\n", out);
	write_text_tracers(m, out);
	write_text_hosts(m, out);
	write_text_available(m, out);
	write_text_sigs(m, out);
	write_text_rules(m, out);
	write_text_hists(m, out);
	if (m->nr_problems) {
		fprintf(out, "\nProblems: %lu\n", m->nr_problems);
		for (i = 0; i < m->nr_problems && i < LH_MERGE_PROBLEMS; i++)
			fprintf(out, "  %s\n", m->problems[i]);
		if (m->nr_problems > LH_MERGE_PROBLEMS)
			fprintf(out, "  and %lu more\n", m->nr_problems - LH_MERGE_PROBLEMS);
	}
	fputs("\nGates:", out);
	for (i = 0, t = 0; t < LH_TRACER_NR; t++) {
		if (!m->o.gate.has_max[t])
			continue;
		fprintf(out, "%s --max %s=%s", i++ ? "," : "",
			t == LH_TRACER_UNKNOWN ? "all" : lh_tracer_name(t),
			lh_report_fmt_us(m->o.gate.max_ns[t], b, sizeof(b)));
	}
	if (i)
		fputs(" (on the fleet's worst, sections no 'ignore' rule accepted)", out);
	if (m->o.gate.fail_on != LH_GATE_FAIL_NONE)
		fprintf(out, "%s --fail-on %s", i++ ? "\n      " : "",
			lh_gate_fail_on_name(&m->o.gate));
	if (m->o.gate.has_min_available)
		fprintf(out, "%s --min-available osnoise=%s (on each host's CPUs)",
			i++ ? "\n      " : "",
			lh_gate_fmt_available(m->o.gate.min_available_milli, b, sizeof(b)));
	fputs(i ? "\n" : " none\n", out);
	lh_report_verdict_text(&m->verdict, out);
	return 0;
}

/* A latency in whole µs, or null when !seen. */
static void json_us_seen(struct lh_json *w, const char *key, bool seen, uint64_t us)
{
	if (seen)
		lh_json_uint(w, key, us);
	else
		lh_json_null(w, key);
}

/* Who a host is: board, host, kernel (each null when its reports did not say). */
static void json_host_members(struct lh_json *w, const struct lh_merge_host *h)
{
	lh_json_str(w, "board", h->board);
	lh_json_str(w, "host", h->host);
	lh_json_str(w, "kernel", h->kernel);
}

static void json_host_ref(struct lh_json *w, const char *key, const struct lh_merge_host *h)
{
	lh_json_obj(w, key);
	json_host_members(w, h);
	lh_json_end(w);
}

static void json_tracers(struct lh_json *w, const struct lh_merge *m)
{
	size_t slot;
	int i;

	lh_json_obj(w, "tracers");
	for (i = 0; i < LH_TRACER_NR; i++) {
		const struct lh_merge_tracer *mt = &m->tracers[lh_tracer_at(i)];
		const struct lh_report_tracer *ft = lh_merge_fleet_tracer(m, lh_tracer_at(i));
		const struct lh_report_where *wh = &ft->worst, *g = &ft->gate;

		if (!ft->count && !mt->not_measured)
			continue;
		lh_json_obj(w, lh_tracer_name(lh_tracer_at(i)));
		lh_json_uint(w, "sections", ft->count);
		json_us_seen(w, "worst_us", wh->set, wh->latency_us);
		if (wh->set)
			json_host_ref(w, "worst_host", &m->hosts[mt->worst_host]);
		else
			lh_json_null(w, "worst_host");
		json_us_seen(w, "gate_worst_us", g->set, g->latency_us);
		if (g->set)
			json_host_ref(w, "gate_worst_host", &m->hosts[mt->gate_host]);
		else
			lh_json_null(w, "gate_worst_host");
		lh_json_str(w, "not_measured", mt->not_measured);
		lh_json_bool(w, "every_section", !mt->maxima_only);
		lh_json_hist(w, "histogram", &ft->hist);
		lh_json_arr(w, "cpus");
		for (slot = 0; slot < ft->nr_cpus; slot++) {
			if (!ft->cpus[slot].count)
				continue;
			lh_json_obj(w, NULL);
			lh_json_known(w, "cpu", lh_report_slot_cpu(slot));
			lh_json_uint(w, "sections", ft->cpus[slot].count);
			lh_json_uint(w, "max_us", ft->cpus[slot].max_us);
			lh_json_hist(w, "histogram", &ft->cpus[slot].dist);
			lh_json_end(w);
		}
		lh_json_end(w);
		lh_json_end(w);
	}
	lh_json_end(w);
}

/* The hosts in output order v. */
static void json_hosts(struct lh_json *w, const struct lh_merge *m, const uint32_t *v)
{
	size_t i;
	int t;

	lh_json_arr(w, "hosts");
	for (i = 0; i < m->nr_hosts; i++) {
		const struct lh_merge_host *h = &m->hosts[v[i]];

		lh_json_obj(w, NULL);
		json_host_members(w, h);
		lh_json_uint(w, "reports", h->reports);
		lh_json_uint(w, "reports_fail", h->reports_fail);
		lh_json_uint(w, "reports_error", h->reports_error);
		lh_json_obj(w, "tracers");
		for (t = 0; t < LH_TRACER_NR; t++) {
			if (!h->sections[lh_tracer_at(t)])
				continue;
			lh_json_obj(w, lh_tracer_name(lh_tracer_at(t)));
			lh_json_uint(w, "sections", h->sections[lh_tracer_at(t)]);
			lh_json_uint(w, "worst_us", h->worst_us[lh_tracer_at(t)]);
			lh_json_end(w);
		}
		lh_json_end(w);
		lh_json_noise_cpus(w, h->noise);
		lh_json_end(w);
	}
	lh_json_end(w);
}

/* The output positions (pos[] of each host index) of the hosts of s. */
static void json_host_set(struct lh_json *w, const struct lh_merge_hosts *s, const uint32_t *pos)
{
	size_t i;

	lh_json_arr(w, "hosts");
	for (i = 0; i < s->nr; i++)
		lh_json_uint(w, NULL, pos[s->v[i]]);
	lh_json_end(w);
}

static void json_sigs(struct lh_json *w, const struct lh_merge *m, const uint32_t *pos)
{
	size_t i, n = m->fleet->nr_offenders;
	uint32_t *v = sorted(m, n, cmp_sig);

	lh_json_arr(w, "offenders");
	for (i = 0; i < n; i++) {
		const struct lh_merge_sig *s = &m->sigs[v[i]];
		const struct lh_report_offender *o = &m->fleet->offenders[v[i]];

		lh_json_obj(w, NULL);
		lh_json_str(w, "signature", o->signature);
		lh_json_str(w, "tracer", lh_tracer_name(o->sig.tracer));
		lh_json_uint(w, "sections", o->count);
		lh_json_uint(w, "worst_us", o->worst_us);
		lh_json_uint(w, "worst_host", pos[s->worst_host]);
		json_host_set(w, &s->hosts, pos);
		lh_json_end(w);
	}
	lh_json_end(w);
	free(v);
}

static void json_rules(struct lh_json *w, const struct lh_merge *m, const uint32_t *pos)
{
	size_t i;

	lh_json_arr(w, "rules");
	for (i = 0; i < lh_merge_nr_rules(m); i++) {
		const struct lh_rule *d = lh_rules_get(m->fleet->own_rules, i);
		const struct lh_report_rule *r = lh_merge_rule(m, i);

		lh_json_obj(w, NULL);
		lh_json_str(w, "id", d->id);
		lh_json_str(w, "severity", lh_severity_name(d->severity));
		lh_json_uint(w, "hits", r->hits);
		lh_json_uint(w, "gate_hits", r->gate_hits);
		lh_json_uint(w, "unevaluated", r->unevaluated);
		json_us_seen(w, "worst_us", r->hits, r->worst_us);
		json_host_set(w, &m->rule_hosts[i], pos);
		lh_json_end(w);
	}
	lh_json_end(w);
}

static int write_json(const struct lh_merge *m, FILE *out)
{
	struct lh_json *w = lh_json_alloc(out);
	uint32_t *v, *pos;
	size_t i;

	if (!w)
		return -1;
	w->exact_u64 = true;	/* sums of reports, exact to 2^64 */
	v = sorted(m, m->nr_hosts, cmp_host);
	pos = lh_xcalloc(m->nr_hosts ? m->nr_hosts : 1, sizeof(*pos));
	for (i = 0; i < m->nr_hosts; i++)
		pos[v[i]] = (uint32_t)i;
	lh_json_obj(w, NULL);
	lh_json_str(w, "lathound", LH_VERSION);
	lh_json_int(w, "merge_version", 1);
	lh_json_verdict(w, lh_merge_verdict(m), &m->verdict);
	lh_json_gate(w, &m->o.gate);
	lh_json_uint(w, "reports", m->reports);
	lh_json_uint(w, "reports_unreadable", m->unread);
	lh_json_uint(w, "reports_error", m->reports_error);
	lh_json_arr(w, "problems");
	for (i = 0; i < m->nr_problems && i < LH_MERGE_PROBLEMS; i++)
		lh_json_str(w, NULL, m->problems[i]);
	lh_json_end(w);
	lh_json_uint(w, "problems_total", m->nr_problems);
	json_tracers(w, m);
	json_hosts(w, m, v);
	json_sigs(w, m, pos);
	lh_json_obj(w, "offenders_other");
	lh_json_uint(w, "sections", m->fleet->other_count);
	json_us_seen(w, "worst_us", m->fleet->other_count, m->fleet->other_worst_us);
	lh_json_end(w);
	json_rules(w, m, pos);
	lh_json_arr(w, "histograms");
	for (i = 0; i < m->fleet->nr_hists; i++) {
		const struct lh_report_histogram *k = &m->fleet->hists[i];

		lh_json_obj(w, NULL);
		lh_json_khist_members(w, k);
		lh_json_end(w);
	}
	lh_json_end(w);
	lh_json_end(w);
	free(v);
	free(pos);
	return lh_json_close(w);
}

/* Return: the violation of tracer tn's testcase ("TRACER: ..."), or NULL. */
static const char *tracer_violation(const struct lh_merge *m, const char *tn)
{
	size_t i, n = strlen(tn);

	for (i = 0; i < m->verdict.nr_violations; i++)
		if (!strncmp(m->verdict.violations[i], tn, n) && m->verdict.violations[i][n] == ':')
			return m->verdict.violations[i];
	return NULL;
}

/* Return: every rule's violation ("rule ..."), "; " between them, or NULL (free it). */
static char *rule_violations(const struct lh_merge *m)
{
	char *all = NULL, *s;
	size_t i;

	for (i = 0; i < m->verdict.nr_violations; i++) {
		if (strncmp(m->verdict.violations[i], "rule ", 5))
			continue;
		s = all ? lh_xasprintf("%s; %s", all, m->verdict.violations[i]) :
			  lh_xstrdup(m->verdict.violations[i]);
		free(all);
		all = s;
	}
	return all;
}

/* Return: host h's violations of --min-available, "; " between them, or NULL (free it). */
static char *host_available_failures(const struct lh_merge *m, const struct lh_merge_host *h)
{
	char *all = NULL, *v, *s;
	size_t i;

	for (i = 0; h->noise && i < h->noise->nr_noise; i++) {
		v = lh_report_available_violation(&m->o.gate, &h->noise->noise[i]);
		if (!v)
			continue;
		s = all ? lh_xasprintf("%s; %s", all, v) : lh_xstrdup(v);
		free(all);
		free(v);
		all = s;
	}
	return all;
}

/* How many hosts junit_available() fails (*failures) and cannot judge (*errors). */
static void available_counts(const struct lh_merge *m, size_t *failures, size_t *errors)
{
	char *why, *f;
	size_t i;

	for (i = 0; i < m->nr_hosts && m->o.gate.has_min_available; i++) {
		why = lh_merge_host_unjudged(m, &m->hosts[i]);
		f = why ? NULL : host_available_failures(m, &m->hosts[i]);
		*errors += why != NULL;
		*failures += f != NULL;
		free(why);
		free(f);
	}
}

/*
 * Under --min-available, one testcase per host (in output order): an error when it cannot
 * be judged, failed by its CPUs below the minimum. Return: what writing returned.
 */
static int junit_available(const struct lh_merge *m, FILE *out)
{
	uint32_t *v = sorted(m, m->nr_hosts, cmp_host);
	char name[200], hn[160], *why, *fail, *s;
	int ret = 0;
	size_t i;

	for (i = 0; i < m->nr_hosts; i++) {
		const struct lh_merge_host *h = &m->hosts[v[i]];
		const struct lh_report *n = h->noise;

		lh_merge_host_name(h, hn, sizeof(hn));
		snprintf(name, sizeof(name), "%s min available", hn);
		why = lh_merge_host_unjudged(m, h);
		fail = why ? NULL : host_available_failures(m, h);
		s = lh_xasprintf("%zu CPU%s of osnoise", n ? n->nr_noise : 0,
				 n && n->nr_noise == 1 ? "" : "s");
		ret |= lh_junit_case(out, &(struct lh_junit_case){
			.classname = "lathound.merge.min_available", .name = name, .error = why,
			.failure = fail, .out = s,
		});
		free(s);
		free(fail);
		free(why);
	}
	free(v);
	return ret;
}

/*
 * One testcase for the merge itself (an error when it could not be judged), one per tracer,
 * one for the rules under --fail-on (every rule that failed it in its failure), one per host
 * under --min-available.
 */
static int write_junit(const struct lh_merge *m, FILE *out)
{
	bool rules = m->o.gate.fail_on != LH_GATE_FAIL_NONE;
	char *rule_fail = rules ? rule_violations(m) : NULL;
	size_t cases = 1, failures = !!rule_fail, errors = m->verdict.error ? 1 : 0, i;
	char name[64], a[32], hn[160];
	int t, ret = 0;
	char *s;

	for (t = 0; t < LH_TRACER_NR; t++) {
		if (!lh_merge_fleet_tracer(m, t)->count)
			continue;
		cases++;
		failures += tracer_violation(m, lh_tracer_name(t)) != NULL;
	}
	cases += rules;
	if (m->o.gate.has_min_available) {
		cases += m->nr_hosts;
		available_counts(m, &failures, &errors);
	}
	lh_junit_begin(out, &(struct lh_junit_suite){
		.name = "lathound merge", .tests = cases, .failures = failures,
		.errors = errors,
	});
	s = lh_xasprintf("%lu report%s folded, %zu host%s, %lu unreadable: %s", m->reports,
			 m->reports == 1 ? "" : "s", m->nr_hosts, m->nr_hosts == 1 ? "" : "s",
			 m->unread, lh_merge_verdict(m));
	ret |= lh_junit_case(out, &(struct lh_junit_case){
		.classname = "lathound.merge", .name = "merge", .error = m->verdict.error, .out = s,
	});
	free(s);
	for (t = 0; t < LH_TRACER_NR; t++) {
		const struct lh_merge_tracer *mt = &m->tracers[lh_tracer_at(t)];
		const struct lh_report_tracer *ft = lh_merge_fleet_tracer(m, lh_tracer_at(t));
		const char *tn = lh_tracer_name(lh_tracer_at(t));

		if (!ft->count)
			continue;
		snprintf(name, sizeof(name), "%s fleet worst", tn);
		s = lh_xasprintf("worst %s on %s, %" PRIu64 " sections",
				 fmt_worst(ft->worst.set, ft->worst.latency_us, a, sizeof(a)),
				 ft->worst.set ?
				 lh_merge_host_name(&m->hosts[mt->worst_host], hn, sizeof(hn)) : "-",
				 ft->count);
		ret |= lh_junit_case(out, &(struct lh_junit_case){
			.classname = "lathound.merge", .name = name,
			.failure = tracer_violation(m, tn), .out = s,
		});
		free(s);
	}
	if (rules) {
		uint64_t hits = 0;

		for (i = 0; i < lh_merge_nr_rules(m); i++)
			hits += lh_merge_rule(m, i)->hits;
		snprintf(name, sizeof(name), "rules --fail-on %s", lh_gate_fail_on_name(&m->o.gate));
		s = lh_xasprintf("%" PRIu64 " rule hits across the fleet", hits);
		ret |= lh_junit_case(out, &(struct lh_junit_case){
			.classname = "lathound.merge", .name = name, .failure = rule_fail, .out = s,
		});
		free(s);
	}
	free(rule_fail);
	if (m->o.gate.has_min_available)
		ret |= junit_available(m, out);
	lh_junit_end(out);
	return ret ? -1 : 0;
}

int lh_merge_write(const struct lh_merge *m, enum lh_format f, FILE *out)
{
	static int (*const writers[LH_FORMAT_NR])(const struct lh_merge *, FILE *) = {
		[LH_FORMAT_TEXT] = write_text,
		[LH_FORMAT_JSON] = write_json,
		[LH_FORMAT_JUNIT] = write_junit,
	};

	if ((unsigned int)f >= LH_FORMAT_NR || !writers[f]) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	if (writers[f](m, out))
		return -1;
	return lh_report_stream_status(out);
}
