// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fleet report (merge.h): reports folded one at a time into aggregates, the --max gate
 * on the fleet's worst, and the writers (text, JSON, JUnit XML).
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "junit.h"
#include "merge.h"
#include "report-fold.h"

#define TEXT_SIGNATURES	20	/* signatures the text lists; JSON lists them all */

struct lh_merge *lh_merge_alloc(const struct lh_merge_opts *o)
{
	struct lh_merge *m = lh_xcalloc(1, sizeof(*m));

	if (o) {
		m->o = *o;
	} else {
		lh_gate_init(&m->o.gate);
		m->o.gate.fail_on = LH_GATE_FAIL_NONE;
	}
	return m;
}

static void hosts_release(struct lh_merge_hosts *s)
{
	free(s->v);
}

void lh_merge_free(struct lh_merge *m)
{
	size_t i, k;
	int t;

	if (!m)
		return;
	for (i = 0; i < m->nr_hosts; i++) {
		free(m->hosts[i].board);
		free(m->hosts[i].host);
		free(m->hosts[i].kernel);
	}
	free(m->hosts);
	lh_htab_release(&m->host_htab);
	for (t = 0; t < LH_TRACER_NR; t++) {
		struct lh_merge_tracer *tr = &m->tracers[t];

		lh_histogram_release(&tr->hist);
		for (k = 0; k < tr->nr_cpus; k++)
			lh_histogram_release(&tr->cpus[k].dist);
		free(tr->cpus);
		free(tr->not_measured);
	}
	for (i = 0; i < m->nr_sigs; i++) {
		free(m->sigs[i].signature);
		hosts_release(&m->sigs[i].hosts);
	}
	free(m->sigs);
	lh_htab_release(&m->sig_htab);
	for (i = 0; i < m->nr_rules; i++) {
		free(m->rules[i].id);
		hosts_release(&m->rules[i].hosts);
	}
	free(m->rules);
	lh_htab_release(&m->rule_htab);
	for (i = 0; i < m->nr_khists; i++) {
		free(m->khists[i].source);
		free(m->khists[i].kind);
		lh_histogram_release(&m->khists[i].h);
	}
	free(m->khists);
	lh_htab_release(&m->khist_htab);
	lh_htab_release(&m->runs);
	for (i = 0; i < m->nr_problems && i < LH_MERGE_PROBLEMS; i++)
		free(m->problems[i]);
	lh_verdict_release(&m->verdict);
	free(m);
}

/* Lists what (taken): the first LH_MERGE_PROBLEMS texts are kept, all are counted. */
static void problem(struct lh_merge *m, char *what)
{
	if (m->nr_problems < LH_MERGE_PROBLEMS)
		m->problems[m->nr_problems] = what;
	else
		free(what);
	m->nr_problems++;
}

/* An error (what, taken): the verdict is error, the first one says why. */
static void error(struct lh_merge *m, char *what)
{
	lh_verdict_error(&m->verdict, lh_xstrdup(what));
	m->nr_errors++;
	problem(m, what);
}

void lh_merge_error(struct lh_merge *m, const char *why)
{
	error(m, lh_xstrdup(why));
}

void lh_merge_unreadable(struct lh_merge *m, const char *why)
{
	m->unread++;
	if (m->o.allow_unreadable)
		problem(m, lh_xasprintf("%s (accepted: --allow-unreadable)", why));
	else
		error(m, lh_xstrdup(why));
}

/* Adds x to the sorted set s, once. */
static void hosts_add(struct lh_merge_hosts *s, uint32_t x)
{
	size_t lo = 0, hi = s->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->v[mid] == x)
			return;
		if (s->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	LH_GROW(s->v, s->nr + 1, s->alloc);
	memmove(s->v + lo + 1, s->v + lo, (s->nr - lo) * sizeof(*s->v));
	s->v[lo] = x;
	s->nr++;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Return: the hash of a host's key: its board id, hostname and kernel, each or none. */
static uint64_t host_hash(const char *board, const char *host, const char *kernel)
{
	const char *k[] = { board, host, kernel };
	uint64_t h = 0;
	size_t i;

	for (i = 0; i < 3; i++)
		h = k[i] ? lh_hash(k[i], strlen(k[i]) + 1, h) : lh_hash("", 0, h + i + 1);
	return h;
}

/* Return: the index of rep's host, added when new. */
static size_t host_of(struct lh_merge *m, const struct lh_report *rep)
{
	const char *board = rep->opts.board, *host = rep->has_run ? rep->run.host : NULL;
	const char *kernel = lh_report_kernel(rep);
	uint64_t h = host_hash(board, host, kernel);
	struct lh_merge_host *e;
	size_t pos = 0;
	uint32_t i;

	while (lh_htab_find(&m->host_htab, h, &pos, &i))
		if (same_str(m->hosts[i].board, board) && same_str(m->hosts[i].host, host) &&
		    same_str(m->hosts[i].kernel, kernel))
			return i;
	LH_GROW(m->hosts, m->nr_hosts + 1, m->alloc_hosts);
	e = &m->hosts[m->nr_hosts];
	memset(e, 0, sizeof(*e));
	e->board = board ? lh_xstrdup(board) : NULL;
	e->host = host ? lh_xstrdup(host) : NULL;
	e->kernel = kernel ? lh_xstrdup(kernel) : NULL;
	lh_htab_add(&m->host_htab, h, (uint32_t)m->nr_hosts);
	return m->nr_hosts++;
}

/*
 * Adds n to *sum, or says that report name makes the count of what wrap (a PASS must not
 * rest on a sum that went round: *sum stays at its largest). Return: 0, or -1.
 */
static int count_add(struct lh_merge *m, const char *name, const char *what,
		     uint64_t *sum, uint64_t n)
{
	if (!LH_ADD_CHECKED(*sum, n))
		return 0;
	error(m, lh_xasprintf("report '%s': %s add up past 2^64", name, what));
	return -1;
}

/* Adds src to dst, or says that its buckets do not fit (what names it). Return: 0 or -1. */
static int hist_add(struct lh_merge *m, const char *name, const char *what,
		    struct lh_histogram *dst, const struct lh_histogram *src)
{
	enum lh_report_fold_status why = lh_report_fold_hist(dst, src);

	if (why == LH_REPORT_FOLD_OK)
		return 0;
	if (why == LH_REPORT_FOLD_OVERFLOW) {
		error(m, lh_xasprintf("report '%s': the counts of %s add up past 2^64", name,
				      what));
		return -1;
	}
	error(m, lh_xasprintf("report '%s': the buckets of %s do not fit those of the reports folded before: histograms are summed bucket by bucket, and their layouts must agree",
			      name, what));
	return -1;
}

static void fold_tracer(struct lh_merge *m, const char *name, const struct lh_report *rep,
			enum lh_tracer t, size_t host)
{
	const struct lh_report_tracer *tr = &rep->tracers[t];
	struct lh_merge_tracer *mt = &m->tracers[t];
	struct lh_merge_host *h = &m->hosts[host];
	const char *why = rep->has_run ? rep->run.not_measured[t] : NULL;
	size_t slot;
	char *what;

	if (why && !mt->not_measured)
		mt->not_measured = lh_xasprintf("'%s': %s", name, why);
	mt->measured |= lh_report_measure(rep, t).measured;
	if (!tr->count)
		return;
	what = lh_xasprintf("the %s sections", lh_tracer_name(t));
	if (!count_add(m, name, what, &mt->sections, tr->count))
		count_add(m, name, what, &h->sections[t], tr->count);
	free(what);
	if (tr->worst.set) {
		if (!mt->seen || tr->worst.latency_us > mt->worst_us) {
			mt->worst_us = tr->worst.latency_us;
			mt->worst_host = host;
		}
		mt->seen = true;
		if (tr->worst.latency_us > h->worst_us[t])
			h->worst_us[t] = tr->worst.latency_us;
	}
	if (tr->gate.set && (!mt->gate_seen || tr->gate.latency_us > mt->gate_worst_us)) {
		mt->gate_seen = true;
		mt->gate_worst_us = tr->gate.latency_us;
		mt->gate_host = host;
	}
	if (!lh_report_counts_every_section(rep))
		mt->maxima_only = true;
	what = lh_xasprintf("the %s histogram", lh_tracer_name(t));
	hist_add(m, name, what, &mt->hist, &tr->hist);
	free(what);
	if (tr->nr_cpus > mt->nr_cpus) {
		LH_GROW(mt->cpus, tr->nr_cpus, mt->alloc_cpus);
		memset(mt->cpus + mt->nr_cpus, 0, (tr->nr_cpus - mt->nr_cpus) * sizeof(*mt->cpus));
		mt->nr_cpus = tr->nr_cpus;
	}
	for (slot = 0; slot < tr->nr_cpus; slot++) {
		const struct lh_report_cpu *c = &tr->cpus[slot];
		struct lh_merge_cpu *mc = &mt->cpus[slot];

		if (!c->count && !c->seen)
			continue;
		count_add(m, name, "the sections of a CPU", &mc->sections, c->count);
		if (c->max_us > mc->worst_us)
			mc->worst_us = c->max_us;
		what = lh_xasprintf("the %s histogram of CPU %d", lh_tracer_name(t),
				    lh_report_slot_cpu(slot));
		hist_add(m, name, what, &mc->dist, &c->dist);
		free(what);
	}
}

static void fold_offenders(struct lh_merge *m, const char *name, const struct lh_report *rep,
			   size_t host)
{
	size_t i, pos;
	uint32_t k;

	count_add(m, name, "the sections of no kept signature", &m->other_sections,
		  rep->other_count);
	if (rep->other_worst_us > m->other_worst_us)
		m->other_worst_us = rep->other_worst_us;
	for (i = 0; i < rep->nr_offenders; i++) {
		const struct lh_report_offender *o = &rep->offenders[i];
		struct lh_merge_sig *s = NULL;

		pos = 0;
		while (!s && lh_htab_find(&m->sig_htab, o->hash, &pos, &k))
			if (!strcmp(m->sigs[k].signature, o->signature))
				s = &m->sigs[k];
		if (!s && m->nr_sigs >= LH_MERGE_SIGNATURES) {
			count_add(m, name, "the sections of no kept signature", &m->other_sections,
				  o->count);
			if (o->worst_us > m->other_worst_us)
				m->other_worst_us = o->worst_us;
			continue;
		}
		if (!s) {
			LH_GROW(m->sigs, m->nr_sigs + 1, m->alloc_sigs);
			s = &m->sigs[m->nr_sigs];
			memset(s, 0, sizeof(*s));
			s->signature = lh_xstrdup(o->signature);
			s->tracer = o->sig.tracer;
			lh_htab_add(&m->sig_htab, o->hash, (uint32_t)m->nr_sigs++);
		}
		if (!s->sections || o->worst_us > s->worst_us) {
			s->worst_us = o->worst_us;
			s->worst_host = host;
		}
		count_add(m, name, "the sections of a signature", &s->sections, o->count);
		hosts_add(&s->hosts, (uint32_t)host);
	}
}

static void fold_rules(struct lh_merge *m, const char *name, const struct lh_report *rep,
		       size_t host)
{
	size_t i, n = rep->rules ? lh_rules_count(rep->rules) : 0, pos;
	uint32_t k;

	for (i = 0; i < n; i++) {
		const struct lh_rule *rule = lh_rules_get(rep->rules, i);
		const struct lh_report_rule *agg = i < rep->nr_rules ? &rep->rule_agg[i] : NULL;
		uint64_t h = lh_hash(rule->id, strlen(rule->id), 0);
		struct lh_merge_rule *r = NULL;

		pos = 0;
		while (!r && lh_htab_find(&m->rule_htab, h, &pos, &k))
			if (!strcmp(m->rules[k].id, rule->id))
				r = &m->rules[k];
		if (!r) {
			LH_GROW(m->rules, m->nr_rules + 1, m->alloc_rules);
			r = &m->rules[m->nr_rules];
			memset(r, 0, sizeof(*r));
			r->id = lh_xstrdup(rule->id);
			r->severity = rule->severity;
			lh_htab_add(&m->rule_htab, h, (uint32_t)m->nr_rules++);
		} else if (r->severity != rule->severity) {
			error(m, lh_xasprintf("report '%s': rule '%s' is %s there and %s in a report folded before",
					      name, rule->id, lh_severity_name(rule->severity),
					      lh_severity_name(r->severity)));
		}
		if (!agg || (!agg->hits && !agg->unevaluated))
			continue;
		count_add(m, name, "a rule's hits", &r->hits, agg->hits);
		count_add(m, name, "a rule's hits", &r->gate_hits, agg->gate_hits);
		count_add(m, name, "the sections a rule could not be evaluated on",
			  &r->unevaluated, agg->unevaluated);
		if (agg->worst_us > r->worst_us)
			r->worst_us = agg->worst_us;
		if (agg->hits)
			hosts_add(&r->hosts, (uint32_t)host);
	}
}

static void fold_khists(struct lh_merge *m, const char *name, const struct lh_report *rep)
{
	uint32_t k;
	size_t i;

	for (i = 0; i < rep->nr_hists; i++) {
		const struct lh_report_histogram *src = &rep->hists[i];
		struct lh_merge_khist *kh = NULL;
		uint64_t h = lh_hash(src->kind, strlen(src->kind) + 1,
				     lh_hash(src->source, strlen(src->source) + 1,
					     (uint64_t)(int64_t)src->cpu));
		size_t pos = 0;
		char *what;

		while (!kh && lh_htab_find(&m->khist_htab, h, &pos, &k))
			if (m->khists[k].cpu == src->cpu && !strcmp(m->khists[k].kind, src->kind) &&
			    !strcmp(m->khists[k].source, src->source))
				kh = &m->khists[k];
		if (!kh) {
			LH_GROW(m->khists, m->nr_khists + 1, m->alloc_khists);
			lh_htab_add(&m->khist_htab, h, (uint32_t)m->nr_khists);
			kh = &m->khists[m->nr_khists++];
			memset(kh, 0, sizeof(*kh));
			kh->source = lh_xstrdup(src->source);
			kh->kind = lh_xstrdup(src->kind);
			kh->cpu = src->cpu;
		}
		what = lh_xasprintf("the %s histogram '%s'", src->source, src->kind);
		hist_add(m, name, what, &kh->h, &src->h);
		free(what);
	}
}

int lh_merge_add(struct lh_merge *m, const char *name, const struct lh_report *rep)
{
	const char *why = lh_report_error(rep);
	unsigned long errors = m->nr_errors;
	struct lh_merge_host *h;
	size_t host;
	uint32_t k;
	int t;

	if (lh_report_run_seen(&m->runs, lh_report_run_id(rep), 0, &k)) {
		error(m, lh_xasprintf("report '%s': the same run (run_id %s) as a report folded before: merging would count it twice",
				      name, lh_report_run_id(rep)));
		return -1;
	}
	if (why && !m->o.accept_error) {
		error(m, lh_xasprintf("report '%s': its verdict is error (%s); --accept-error merges it anyway",
				      name, why));
		return -1;
	}
	host = host_of(m, rep);
	h = &m->hosts[host];
	h->reports++;
	if (why) {
		h->reports_error++;
		m->reports_error++;
	} else if (!rep->passed) {
		h->reports_fail++;
	}
	m->reports++;
	for (t = 0; t < LH_TRACER_NR; t++)
		fold_tracer(m, name, rep, t, host);
	fold_offenders(m, name, rep, host);
	fold_rules(m, name, rep, host);
	fold_khists(m, name, rep);
	return m->nr_errors > errors ? -1 : 0;
}

/* s cut to at most w bytes, "..." ending it when cut. Return: buf (w + 1 bytes at least). */
static char *fit(const char *s, size_t w, char *buf)
{
	size_t n = strlen(s);

	if (n <= w)
		return strcpy(buf, s);
	n = w > 3 ? w - 3 : 0;
	/* never cut a UTF-8 sequence */
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(buf, s, n);
	strcpy(buf + n, "...");
	return buf;
}

/*
 * Return: a host as people name it: "board (host)", "board", "host", or "-", cut to fit buf
 * (len bytes) as fit() does, never within a UTF-8 character. Return: buf.
 */
static char *host_name(const struct lh_merge_host *h, char *buf, size_t len)
{
	char *full;

	if (h->board && h->host)
		full = lh_xasprintf("%s (%s)", h->board, h->host);
	else
		full = lh_xstrdup(h->board ? h->board : h->host ? h->host : "-");
	fit(full, len - 1, buf);
	free(full);
	return buf;
}

/* --fail-on: a rule of that severity or above that hit, on sections no 'ignore' rule took. */
static void judge_rules(struct lh_merge *m)
{
	char a[32];
	size_t i;

	if (m->o.gate.fail_on == LH_GATE_FAIL_NONE)
		return;
	for (i = 0; i < m->nr_rules; i++) {
		const struct lh_merge_rule *r = &m->rules[i];

		if (r->severity == LH_SEV_IGNORE || r->severity < m->o.gate.fail_on)
			continue;
		if (r->unevaluated) {
			error(m, lh_xasprintf("rule %s (%s) could not be evaluated on %" PRIu64 " section%s: --fail-on %s cannot be judged",
					      r->id, lh_severity_name(r->severity), r->unevaluated,
					      r->unevaluated == 1 ? "" : "s",
					      lh_gate_fail_on_name(&m->o.gate)));
		} else if (r->gate_hits) {
			lh_verdict_violation(&m->verdict,
				lh_xasprintf("rule %s (%s) hit %" PRIu64 " time%s on %zu host%s, worst %s",
					     r->id, lh_severity_name(r->severity), r->gate_hits,
					     r->gate_hits == 1 ? "" : "s", r->hosts.nr,
					     r->hosts.nr == 1 ? "" : "s",
					     lh_report_fmt_us(lh_report_us_to_ns(r->worst_us), a,
							      sizeof(a))));
		}
	}
}

void lh_merge_finish(struct lh_merge *m)
{
	char a[32], b[32], name[160];
	uint64_t budget;
	int t;

	if (m->finished)
		return;
	m->finished = true;
	if (!m->reports && !m->nr_errors)
		error(m, lh_xstrdup(m->unread ? "no report could be read" : "no report was given"));
	for (t = 0; t < LH_TRACER_NR; t++) {
		const struct lh_merge_tracer *mt = &m->tracers[t];
		const struct lh_gate_measure me = {
			.measured = mt->measured, .not_measured = mt->not_measured,
			.has_worst = mt->gate_seen,
			.worst_ns = lh_report_us_to_ns(mt->gate_worst_us),
		};
		const char *tn = lh_tracer_name(t);
		bool own;

		switch (lh_gate_judge_max(&m->o.gate, t, &me, &budget, &own)) {
		case LH_GATE_MAX_NONE:
		case LH_GATE_MAX_PASS:
			break;
		case LH_GATE_MAX_UNMEASURED:
			if (!mt->measured)
				error(m, lh_xasprintf("%s is gated by --max but no report measured it%s%s",
						      tn, mt->not_measured ? ": " : "",
						      mt->not_measured ? mt->not_measured : ""));
			else
				error(m, lh_xasprintf("%s is gated by --max but a report could not measure it: %s",
						      tn, mt->not_measured));
			break;
		case LH_GATE_MAX_OVER:
			lh_verdict_violation(&m->verdict,
				lh_xasprintf("%s: the fleet's worst %s on %s is over --max %s=%s", tn,
					     lh_report_fmt_us(lh_report_us_to_ns(mt->gate_worst_us),
							      a, sizeof(a)),
					     host_name(&m->hosts[mt->gate_host], name,
						       sizeof(name)),
					     own ? tn : "all",
					     lh_report_fmt_us(budget, b, sizeof(b))));
			break;
		}
	}
	judge_rules(m);
}

const char *lh_merge_verdict(const struct lh_merge *m)
{
	return lh_verdict_name(&m->verdict);
}

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
	const struct lh_merge_sig *x = &sort_m->sigs[*(const uint32_t *)a];
	const struct lh_merge_sig *y = &sort_m->sigs[*(const uint32_t *)b];

	if (x->hosts.nr != y->hosts.nr)
		return x->hosts.nr > y->hosts.nr ? -1 : 1;
	if (x->worst_us != y->worst_us)
		return x->worst_us > y->worst_us ? -1 : 1;
	return strcmp(x->signature, y->signature);
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

	fprintf(out, "  %-16s %-4.4s %10llu %10s %10s %10s %10s\n", fit(what, 16, cut), cpu,
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

		if (!mt->sections)
			continue;
		any = true;
		fprintf(out, "  %-15s %10" PRIu64 " %10s %10s  %s\n", lh_tracer_name(lh_tracer_at(i)),
			mt->sections, fmt_worst(mt->seen, mt->worst_us, a, sizeof(a)),
			fmt_worst(mt->gate_seen, mt->gate_worst_us, b, sizeof(b)),
			mt->seen ? fit(host_name(&m->hosts[mt->worst_host], name, sizeof(name)),
				       26, cut) : "-");
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

		fprintf(out, "  %-22s %-18s %7lu", fit(host_name(h, name, sizeof(name)), 22, cut),
			fit(h->kernel ? h->kernel : "?", 18, kcut), h->reports);
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

static void write_text_sigs(const struct lh_merge *m, FILE *out)
{
	uint32_t *v = sorted(m, m->nr_sigs, cmp_sig);
	char name[160], cut[128], w[32];
	size_t i;

	fprintf(out, "\nOffenders across hosts: %zu signature%s, most hosts first\n", m->nr_sigs,
		m->nr_sigs == 1 ? "" : "s");
	for (i = 0; i < m->nr_sigs && i < TEXT_SIGNATURES; i++) {
		const struct lh_merge_sig *s = &m->sigs[v[i]];

		fprintf(out, "  %zu host%s, %" PRIu64 " section%s, worst %s on %s\n", s->hosts.nr,
			s->hosts.nr == 1 ? "" : "s", s->sections, s->sections == 1 ? "" : "s",
			fmt_worst(true, s->worst_us, w, sizeof(w)),
			fit(host_name(&m->hosts[s->worst_host], name, sizeof(name)), 30, cut));
		fprintf(out, "    %s\n", fit(s->signature, 76, cut));
	}
	if (m->nr_sigs > TEXT_SIGNATURES)
		fprintf(out, "  and %zu more (the JSON report lists them all)\n",
			m->nr_sigs - TEXT_SIGNATURES);
	if (m->other_sections)
		fprintf(out, "  other (past %d signatures): %" PRIu64 " sections, worst %s\n",
			LH_MERGE_SIGNATURES, m->other_sections,
			fmt_worst(true, m->other_worst_us, w, sizeof(w)));
	free(v);
}

static void write_text_rules(const struct lh_merge *m, FILE *out)
{
	char cut[64], w[32];
	size_t i, n = 0;

	for (i = 0; i < m->nr_rules; i++)
		n += m->rules[i].hits || m->rules[i].unevaluated;
	fprintf(out, "\nRule hits across hosts: %zu rule%s hit\n", n, n == 1 ? "" : "s");
	if (n)
		fprintf(out, "  %-30s %-9s %10s %6s %10s %s\n", "rule", "severity", "hits",
			"hosts", "worst", "uneval.");
	for (i = 0; i < m->nr_rules; i++) {
		const struct lh_merge_rule *r = &m->rules[i];

		if (!r->hits && !r->unevaluated)
			continue;
		fprintf(out, "  %-30s %-9s %10" PRIu64 " %6zu %10s %" PRIu64 "\n", fit(r->id, 30, cut),
			lh_severity_name(r->severity), r->hits, r->hosts.nr,
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
		const struct lh_merge_tracer *mt = &m->tracers[lh_tracer_at(t)];

		if (!mt->hist.count)
			continue;
		snprintf(what, sizeof(what), "%s%s", lh_tracer_name(lh_tracer_at(t)),
			 mt->maxima_only ? " (maxima)" : "");
		hist_row(out, what, "all", &mt->hist);
		for (slot = 0; slot < mt->nr_cpus; slot++) {
			if (!mt->cpus[slot].dist.count)
				continue;
			snprintf(cpu, sizeof(cpu), "%d", lh_report_slot_cpu(slot));
			hist_row(out, "", slot ? cpu : "?", &mt->cpus[slot].dist);
		}
	}
	for (i = 0; i < m->nr_khists; i++) {
		const struct lh_merge_khist *k = &m->khists[i];

		snprintf(what, sizeof(what), "%s %s", k->source, k->kind);
		if (k->cpu < 0)
			strcpy(cpu, "all");
		else
			snprintf(cpu, sizeof(cpu), "%d", k->cpu);
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
	fputs(i ? "\n" : " none\n", out);
	if (m->verdict.error)
		fprintf(out, "Verdict: ERROR: %s\n", m->verdict.error);
	else
		fprintf(out, "Verdict: %s\n", m->verdict.nr_violations ? "FAIL" : "PASS");
	for (i = 0; i < m->verdict.nr_violations; i++)
		fprintf(out, "  %s\n", m->verdict.violations[i]);
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

/* µs from ns: an integer when whole, else to the ns ("2.5"). */
static json_object *jns(uint64_t ns)
{
	char buf[32];

	if (ns % 1000 == 0)
		return json_object_new_int64(ns / 1000 > INT64_MAX ? INT64_MAX :
					     (int64_t)(ns / 1000));
	snprintf(buf, sizeof(buf), "%llu.%03llu", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
	while (buf[strlen(buf) - 1] == '0')
		buf[strlen(buf) - 1] = '\0';
	return json_object_new_double_s((double)ns / 1000, buf);
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

		if (!mt->sections && !mt->not_measured)
			continue;
		e = json_object_new_object();
		add(e, "sections", json_object_new_uint64(mt->sections));
		add(e, "worst_us", jus(mt->seen, mt->worst_us));
		add(e, "worst_host", mt->seen ? jhost_ref(&m->hosts[mt->worst_host]) : NULL);
		add(e, "gate_worst_us", jus(mt->gate_seen, mt->gate_worst_us));
		add(e, "gate_worst_host", mt->gate_seen ? jhost_ref(&m->hosts[mt->gate_host]) : NULL);
		add(e, "not_measured", jstr(mt->not_measured));
		add(e, "every_section", json_object_new_boolean(!mt->maxima_only));
		add(e, "histogram", jhist(&mt->hist));
		a = json_object_new_array();
		for (slot = 0; slot < mt->nr_cpus; slot++) {
			if (!mt->cpus[slot].sections)
				continue;
			c = json_object_new_object();
			add(c, "cpu", slot ? json_object_new_int(lh_report_slot_cpu(slot)) : NULL);
			add(c, "sections", json_object_new_uint64(mt->cpus[slot].sections));
			add(c, "max_us", jus(true, mt->cpus[slot].worst_us));
			add(c, "histogram", jhist(&mt->cpus[slot].dist));
			json_object_array_add(a, c);
		}
		add(e, "cpus", a);
		add(o, lh_tracer_name(lh_tracer_at(i)), e);
	}
	return o;
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
	uint32_t *v = sorted(m, m->nr_sigs, cmp_sig);
	json_object *a = json_object_new_array(), *e;
	size_t i;

	for (i = 0; i < m->nr_sigs; i++) {
		const struct lh_merge_sig *s = &m->sigs[v[i]];

		e = json_object_new_object();
		add(e, "signature", jstr(s->signature));
		add(e, "tracer", jstr(lh_tracer_name(s->tracer)));
		add(e, "sections", json_object_new_uint64(s->sections));
		add(e, "worst_us", jus(true, s->worst_us));
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

	for (i = 0; i < m->nr_rules; i++) {
		const struct lh_merge_rule *r = &m->rules[i];

		e = json_object_new_object();
		add(e, "id", jstr(r->id));
		add(e, "severity", jstr(lh_severity_name(r->severity)));
		add(e, "hits", json_object_new_uint64(r->hits));
		add(e, "gate_hits", json_object_new_uint64(r->gate_hits));
		add(e, "unevaluated", json_object_new_uint64(r->unevaluated));
		add(e, "worst_us", jus(r->hits, r->worst_us));
		add(e, "hosts", jhost_set(&r->hosts, pos));
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
	add(o, "sections", json_object_new_uint64(m->other_sections));
	add(o, "worst_us", jus(m->other_sections, m->other_worst_us));
	add(root, "offenders_other", o);
	add(root, "rules", jrules(m, pos));
	a = json_object_new_array();
	for (i = 0; i < m->nr_khists; i++) {
		o = jhist(&m->khists[i].h);
		json_object_object_add_ex(o, "source", jstr(m->khists[i].source), 0);
		json_object_object_add_ex(o, "kind", jstr(m->khists[i].kind), 0);
		json_object_object_add_ex(o, "cpu", m->khists[i].cpu < 0 ? NULL :
					  json_object_new_int(m->khists[i].cpu), 0);
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

/*
 * One testcase for the merge itself (an error when it could not be judged), one per tracer,
 * one for the rules under --fail-on (every rule that failed it in its failure).
 */
static int write_junit(const struct lh_merge *m, FILE *out)
{
	bool rules = m->o.gate.fail_on != LH_GATE_FAIL_NONE;
	char *rule_fail = rules ? rule_violations(m) : NULL;
	size_t cases = 1, failures = !!rule_fail, i;
	char name[64], a[32], hn[160];
	int t, ret = 0;
	char *s;

	for (t = 0; t < LH_TRACER_NR; t++) {
		if (!m->tracers[t].sections)
			continue;
		cases++;
		failures += tracer_violation(m, lh_tracer_name(t)) != NULL;
	}
	cases += rules;
	lh_junit_begin(out, &(struct lh_junit_suite){
		.name = "lathound merge", .tests = cases, .failures = failures,
		.errors = m->verdict.error ? 1 : 0,
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
		const char *tn = lh_tracer_name(lh_tracer_at(t));

		if (!mt->sections)
			continue;
		snprintf(name, sizeof(name), "%s fleet worst", tn);
		s = lh_xasprintf("worst %s on %s, %" PRIu64 " sections", fmt_worst(mt->seen, mt->worst_us,
									  a, sizeof(a)),
				 mt->seen ? host_name(&m->hosts[mt->worst_host], hn, sizeof(hn)) :
				 "-", mt->sections);
		ret |= lh_junit_case(out, &(struct lh_junit_case){
			.classname = "lathound.merge", .name = name,
			.failure = tracer_violation(m, tn), .out = s,
		});
		free(s);
	}
	if (rules) {
		uint64_t hits = 0;

		for (i = 0; i < m->nr_rules; i++)
			hits += m->rules[i].hits;
		snprintf(name, sizeof(name), "rules --fail-on %s", lh_gate_fail_on_name(&m->o.gate));
		s = lh_xasprintf("%" PRIu64 " rule hits across the fleet", hits);
		ret |= lh_junit_case(out, &(struct lh_junit_case){
			.classname = "lathound.merge", .name = name, .failure = rule_fail, .out = s,
		});
		free(s);
	}
	free(rule_fail);
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
