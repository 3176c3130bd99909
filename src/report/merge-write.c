// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fleet report's writers (merge.h): text, JSON (json-c) and JUnit XML (junit.h), each
 * with the verdict lh_merge_finish() judged.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
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
	char name[160], cut[64], pct[16];
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

static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *jus(bool seen, uint64_t us)
{
	return seen ? json_object_new_int64(us > INT64_MAX ? INT64_MAX : (int64_t)us) : NULL;
}

static void add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

/* µs from ns, exact (lh_report_json_us()). */
static json_object *jns(uint64_t ns)
{
	return lh_report_json_us_object(ns, false);
}

/* A histogram object of doc/report-json.md (its #histograms section). */
static json_object *jhist(const struct lh_histogram *h)
{
	json_object *o = json_object_new_object(), *p, *r, *a, *b;
	uint64_t lo, hi;
	unsigned int i;
	size_t k;

	add(o, "unit", jstr("us"));
	add(o, "count", json_object_new_uint64(h->count));
	add(o, "min", h->count ? jns(h->min_ns) : NULL);
	add(o, "max", h->count ? jns(h->max_ns) : NULL);
	add(o, "mean", h->count ? jns((uint64_t)(lh_histogram_mean_ns(h) + 0.5)) : NULL);
	p = json_object_new_object();
	r = json_object_new_object();
	for (i = 0; i < LH_HISTOGRAM_NR_PCT; i++) {
		bool known = lh_histogram_percentile(h, i, &lo, &hi);

		add(p, lh_histogram_pct_key[i], known ? jns(hi) : NULL);
		add(r, lh_histogram_pct_key[i], known ? jns(hi - lo) : NULL);
	}
	add(o, "percentiles", p);
	add(o, "resolution", r);
	a = json_object_new_array();
	for (k = 0; k < h->nr; k++) {
		b = json_object_new_object();
		add(b, "lo", jns(h->b[k].lo_ns));
		add(b, "hi", jns(h->b[k].hi_ns));
		add(b, "count", json_object_new_uint64(h->b[k].count));
		json_object_array_add(a, b);
	}
	add(o, "buckets", a);
	add(o, "dropped", json_object_new_uint64(h->dropped));
	return o;
}

static json_object *jhost_ref(const struct lh_merge_host *h)
{
	json_object *o = json_object_new_object();

	add(o, "board", jstr(h->board));
	add(o, "host", jstr(h->host));
	add(o, "kernel", jstr(h->kernel));
	return o;
}

static json_object *jtracers(const struct lh_merge *m)
{
	json_object *o = json_object_new_object(), *e, *a, *c;
	size_t slot;
	int i;

	for (i = 0; i < LH_TRACER_NR; i++) {
		const struct lh_merge_tracer *mt = &m->tracers[lh_tracer_at(i)];
		const struct lh_report_tracer *ft = lh_merge_fleet_tracer(m, lh_tracer_at(i));
		const struct lh_report_where *w = &ft->worst, *g = &ft->gate;

		if (!ft->count && !mt->not_measured)
			continue;
		e = json_object_new_object();
		add(e, "sections", json_object_new_uint64(ft->count));
		add(e, "worst_us", jus(w->set, w->latency_us));
		add(e, "worst_host", w->set ? jhost_ref(&m->hosts[mt->worst_host]) : NULL);
		add(e, "gate_worst_us", jus(g->set, g->latency_us));
		add(e, "gate_worst_host", g->set ? jhost_ref(&m->hosts[mt->gate_host]) : NULL);
		add(e, "not_measured", jstr(mt->not_measured));
		add(e, "every_section", json_object_new_boolean(!mt->maxima_only));
		add(e, "histogram", jhist(&ft->hist));
		a = json_object_new_array();
		for (slot = 0; slot < ft->nr_cpus; slot++) {
			if (!ft->cpus[slot].count)
				continue;
			c = json_object_new_object();
			add(c, "cpu", slot ? json_object_new_int(lh_report_slot_cpu(slot)) : NULL);
			add(c, "sections", json_object_new_uint64(ft->cpus[slot].count));
			add(c, "max_us", jus(true, ft->cpus[slot].max_us));
			add(c, "histogram", jhist(&ft->cpus[slot].dist));
			json_object_array_add(a, c);
		}
		add(e, "cpus", a);
		add(o, lh_tracer_name(lh_tracer_at(i)), e);
	}
	return o;
}

/* A host's osnoise figures per CPU, as a report's noise_cpus; [] when none. */
static json_object *jnoise(const struct lh_merge_host *h)
{
	json_object *a = json_object_new_array(), *e;
	uint32_t milli;
	size_t i;

	for (i = 0; h->noise && i < h->noise->nr_noise; i++) {
		const struct lh_report_noise *n = &h->noise->noise[i];

		e = json_object_new_object();
		add(e, "cpu", json_object_new_int(n->cpu));
		add(e, "periods", json_object_new_uint64(n->periods));
		add(e, "runtime_us", jns(n->runtime_ns));
		add(e, "noise_us", jns(n->noise_ns));
		add(e, "available_percent", lh_gate_available(n->runtime_ns, n->noise_ns, &milli) ?
		    NULL : json_object_new_double((double)milli / 1000.0));
		json_object_array_add(a, e);
	}
	return a;
}

/* The hosts in output order; pos[i]: where host i is in it. */
static json_object *jhosts(const struct lh_merge *m, const uint32_t *v)
{
	json_object *a = json_object_new_array(), *e, *tr, *x;
	size_t i;
	int t;

	for (i = 0; i < m->nr_hosts; i++) {
		const struct lh_merge_host *h = &m->hosts[v[i]];

		e = jhost_ref(h);
		add(e, "reports", json_object_new_uint64(h->reports));
		add(e, "reports_fail", json_object_new_uint64(h->reports_fail));
		add(e, "reports_error", json_object_new_uint64(h->reports_error));
		tr = json_object_new_object();
		for (t = 0; t < LH_TRACER_NR; t++) {
			if (!h->sections[lh_tracer_at(t)])
				continue;
			x = json_object_new_object();
			add(x, "sections", json_object_new_uint64(h->sections[lh_tracer_at(t)]));
			add(x, "worst_us", jus(true, h->worst_us[lh_tracer_at(t)]));
			add(tr, lh_tracer_name(lh_tracer_at(t)), x);
		}
		add(e, "tracers", tr);
		add(e, "noise_cpus", jnoise(h));
		json_object_array_add(a, e);
	}
	return a;
}

static json_object *jhost_set(const struct lh_merge_hosts *s, const uint32_t *pos)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < s->nr; i++)
		json_object_array_add(a, json_object_new_uint64(pos[s->v[i]]));
	return a;
}

static json_object *jsigs(const struct lh_merge *m, const uint32_t *pos)
{
	size_t i, n = m->fleet->nr_offenders;
	uint32_t *v = sorted(m, n, cmp_sig);
	json_object *a = json_object_new_array(), *e;

	for (i = 0; i < n; i++) {
		const struct lh_merge_sig *s = &m->sigs[v[i]];
		const struct lh_report_offender *o = &m->fleet->offenders[v[i]];

		e = json_object_new_object();
		add(e, "signature", jstr(o->signature));
		add(e, "tracer", jstr(lh_tracer_name(o->sig.tracer)));
		add(e, "sections", json_object_new_uint64(o->count));
		add(e, "worst_us", jus(true, o->worst_us));
		add(e, "worst_host", json_object_new_uint64(pos[s->worst_host]));
		add(e, "hosts", jhost_set(&s->hosts, pos));
		json_object_array_add(a, e);
	}
	free(v);
	return a;
}

static json_object *jrules(const struct lh_merge *m, const uint32_t *pos)
{
	json_object *a = json_object_new_array(), *e;
	size_t i;

	for (i = 0; i < lh_merge_nr_rules(m); i++) {
		const struct lh_rule *d = lh_rules_get(m->fleet->own_rules, i);
		const struct lh_report_rule *r = lh_merge_rule(m, i);

		e = json_object_new_object();
		add(e, "id", jstr(d->id));
		add(e, "severity", jstr(lh_severity_name(d->severity)));
		add(e, "hits", json_object_new_uint64(r->hits));
		add(e, "gate_hits", json_object_new_uint64(r->gate_hits));
		add(e, "unevaluated", json_object_new_uint64(r->unevaluated));
		add(e, "worst_us", jus(r->hits, r->worst_us));
		add(e, "hosts", jhost_set(&m->rule_hosts[i], pos));
		json_object_array_add(a, e);
	}
	return a;
}

static int write_json(const struct lh_merge *m, FILE *out)
{
	json_object *root = json_object_new_object(), *a, *o;
	uint32_t *v = sorted(m, m->nr_hosts, cmp_host), *pos;
	size_t i;
	int t;

	pos = lh_xcalloc(m->nr_hosts ? m->nr_hosts : 1, sizeof(*pos));
	for (i = 0; i < m->nr_hosts; i++)
		pos[v[i]] = (uint32_t)i;
	add(root, "lathound", jstr(LH_VERSION));
	add(root, "merge_version", json_object_new_int(1));
	add(root, "verdict", jstr(lh_merge_verdict(m)));
	add(root, "error", jstr(m->verdict.error));
	a = json_object_new_array();
	for (i = 0; i < m->verdict.nr_violations; i++)
		json_object_array_add(a, jstr(m->verdict.violations[i]));
	add(root, "violations", a);
	o = json_object_new_object();
	for (t = 0; t < LH_TRACER_NR; t++)
		if (m->o.gate.has_max[t])
			add(o, t == LH_TRACER_UNKNOWN ? "all" : lh_tracer_name(t),
			    json_object_new_double((double)m->o.gate.max_ns[t] / 1000));
	a = json_object_new_object();
	add(a, "max_us", o);
	add(a, "fail_on", jstr(lh_gate_fail_on_name(&m->o.gate)));
	o = json_object_new_object();
	if (m->o.gate.has_min_available)
		add(o, "osnoise", json_object_new_double((double)m->o.gate.min_available_milli /
							 1000.0));
	add(a, "min_available_percent", o);
	add(root, "gate", a);
	add(root, "reports", json_object_new_uint64(m->reports));
	add(root, "reports_unreadable", json_object_new_uint64(m->unread));
	add(root, "reports_error", json_object_new_uint64(m->reports_error));
	a = json_object_new_array();
	for (i = 0; i < m->nr_problems && i < LH_MERGE_PROBLEMS; i++)
		json_object_array_add(a, jstr(m->problems[i]));
	add(root, "problems", a);
	add(root, "problems_total", json_object_new_uint64(m->nr_problems));
	add(root, "tracers", jtracers(m));
	add(root, "hosts", jhosts(m, v));
	add(root, "offenders", jsigs(m, pos));
	o = json_object_new_object();
	add(o, "sections", json_object_new_uint64(m->fleet->other_count));
	add(o, "worst_us", jus(m->fleet->other_count, m->fleet->other_worst_us));
	add(root, "offenders_other", o);
	add(root, "rules", jrules(m, pos));
	a = json_object_new_array();
	for (i = 0; i < m->fleet->nr_hists; i++) {
		const struct lh_report_histogram *k = &m->fleet->hists[i];

		o = jhist(&k->h);
		json_object_object_add_ex(o, "source", jstr(k->source), 0);
		json_object_object_add_ex(o, "kind", jstr(k->kind), 0);
		json_object_object_add_ex(o, "cpu", k->cpu < 0 ? NULL : json_object_new_int(k->cpu),
					  0);
		json_object_array_add(a, o);
	}
	add(root, "histograms", a);
	free(v);
	free(pos);
	return lh_escape_json_write(root, out);
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
