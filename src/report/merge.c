// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fleet report (merge.h): reports folded one at a time into aggregates, and the --max
 * and --fail-on gates on the fleet, and how hosts are named. Its writers are merge-write.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "merge-priv.h"
#include "merge.h"
#include "report-fold.h"

struct lh_merge *lh_merge_alloc(const struct lh_merge_opts *o)
{
	struct lh_merge *m = lh_xcalloc(1, sizeof(*m));

	if (o) {
		m->o = *o;
	} else {
		lh_gate_init(&m->o.gate);
		m->o.gate.fail_on = LH_GATE_FAIL_NONE;
	}
	m->fleet = lh_report_fold_alloc();
	return m;
}

static void hosts_release(struct lh_merge_hosts *s)
{
	free(s->v);
}

void lh_merge_free(struct lh_merge *m)
{
	size_t i;
	int t;

	if (!m)
		return;
	for (i = 0; i < m->nr_hosts; i++) {
		free(m->hosts[i].board);
		free(m->hosts[i].host);
		free(m->hosts[i].kernel);
		lh_report_free(m->hosts[i].noise);
		free(m->hosts[i].osnoise_not_measured);
	}
	free(m->hosts);
	lh_htab_release(&m->host_htab);
	for (t = 0; t < LH_TRACER_NR; t++)
		free(m->tracers[t].not_measured);
	for (i = 0; i < m->fleet->nr_offenders; i++)
		hosts_release(&m->sigs[i].hosts);
	free(m->sigs);
	for (i = 0; i < lh_merge_nr_rules(m); i++)
		hosts_release(&m->rule_hosts[i]);
	free(m->rule_hosts);
	lh_report_free(m->fleet);
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

/* A report being folded into m, for the fold's problems (lh_report_fold_ops). */
struct fold_ctx {
	struct lh_merge	*m;
	const char	*name;
};

/*
 * Return: what at counts, as the merge says it (free it), or NULL for a sum that one said
 * before bounds (accepted, gate_unevaluated: no more than count and unevaluated).
 */
static char *fold_what(const struct lh_report_fold_at *at)
{
	const char *tn = at->tracer >= 0 ? lh_tracer_name(at->tracer) : "?";

	if (!strcmp(at->field, "histograms"))
		return lh_xasprintf("the %s histogram '%s'", at->source, at->what);
	if (at->tracer < 0 && !strcmp(at->field, "count"))
		return lh_xstrdup(at->what ? "the sections of a signature" :
				  "the sections of no kept signature");
	if (!strcmp(at->field, "count"))
		return lh_xasprintf("the %s sections", tn);
	if (!strcmp(at->field, "histogram"))
		return lh_xasprintf("the %s histogram", tn);
	if (!strcmp(at->field, "cpus.histogram"))
		return lh_xasprintf("the %s histogram of CPU %d", tn, at->cpu);
	if (!strcmp(at->field, "cpus.count"))
		return lh_xstrdup("the sections of a CPU");
	if (!strcmp(at->field, "hits"))
		return lh_xstrdup("a rule's hits");
	if (!strcmp(at->field, "unevaluated"))
		return lh_xstrdup("the sections a rule could not be evaluated on");
	if (!strncmp(at->field, "noise_cpus.", 11))
		return lh_xasprintf("osnoise's %s of CPU %d", at->field + 11, at->cpu);
	return NULL;
}

/*
 * A sum of report name would pass 2^64: an error (a PASS must not rest on a sum that went
 * round: the sum stays at its largest).
 */
static void fold_overflow(void *arg, const struct lh_report_fold_at *at)
{
	const struct fold_ctx *c = arg;
	char *what = fold_what(at);

	if (!what)
		return;
	if (strstr(at->field, "histogram"))
		error(c->m, lh_xasprintf("report '%s': the counts of %s add up past 2^64", c->name,
					 what));
	else
		error(c->m, lh_xasprintf("report '%s': %s add up past 2^64", c->name, what));
	free(what);
}

/* A histogram of report name does not fit the bucket layout of those folded before. */
static void fold_misfit(void *arg, const struct lh_report_fold_at *at)
{
	const struct fold_ctx *c = arg;
	char *what = fold_what(at);

	error(c->m, lh_xasprintf("report '%s': the buckets of %s do not fit those of the reports folded before: histograms are summed bucket by bucket, and their layouts must agree",
				 c->name, what ? what : at->field));
	free(what);
}

static void fold_conflict(void *arg, const struct lh_rule *had, const struct lh_rule *rule)
{
	const struct fold_ctx *c = arg;

	error(c->m, lh_xasprintf("report '%s': rule '%s' is %s there and %s in a report folded before",
				 c->name, rule->id, lh_severity_name(rule->severity),
				 lh_severity_name(had->severity)));
}

/* What only a merge says of tracer t: its hosts, whether measured, maxima only. */
static void note_tracer(struct lh_merge *m, const char *name, const struct lh_report *rep,
			enum lh_tracer t, size_t host)
{
	const struct lh_report_tracer *tr = &rep->tracers[t], *ft = &m->fleet->tracers[t];
	struct lh_merge_tracer *mt = &m->tracers[t];
	struct lh_merge_host *h = &m->hosts[host];
	const char *why = rep->has_run ? rep->run.not_measured[t] : NULL;
	uint64_t sum;

	if (why && !mt->not_measured)
		mt->not_measured = lh_xasprintf("'%s': %s", name, why);
	mt->measured |= lh_report_measure(rep, t).measured;
	if (!tr->count)
		return;
	/* the host's share, when the fleet's sum takes it (else the fold says it would wrap) */
	if (!__builtin_add_overflow(ft->count, tr->count, &sum))
		h->sections[t] += tr->count;
	/* the fleet's worst is the first report's that is over all before (lh_report_fold_where) */
	if (tr->worst.set) {
		if (!ft->worst.set || tr->worst.latency_us > ft->worst.latency_us)
			mt->worst_host = host;
		if (tr->worst.latency_us > h->worst_us[t])
			h->worst_us[t] = tr->worst.latency_us;
	}
	if (tr->gate.set && (!ft->gate.set || tr->gate.latency_us > ft->gate.latency_us))
		mt->gate_host = host;
	if (!lh_report_counts_every_section(rep))
		mt->maxima_only = true;
}

/* rep's osnoise figures, added to its host's; whether it could measure osnoise. */
static void note_noise(struct lh_merge_host *h, const char *name, const struct lh_report *rep,
		       const struct lh_report_fold_ops *ops)
{
	const char *why = rep->has_run ? rep->run.not_measured[LH_TRACER_OSNOISE] : NULL;

	if (why && !h->osnoise_not_measured)
		h->osnoise_not_measured = lh_xasprintf("'%s': %s", name, why);
	if (!rep->nr_noise)
		return;
	if (!h->noise)
		h->noise = lh_report_fold_alloc();
	lh_report_fold_noise(h->noise, rep, ops);
}

/* The hosts of rep's offender groups in the fleet (created there when new). */
static void note_offenders(struct lh_merge *m, const struct lh_report *rep, size_t host)
{
	struct lh_report_offender *o;
	struct lh_merge_sig *s;
	size_t i, k;

	for (i = 0; i < rep->nr_offenders; i++) {
		o = lh_report_offender(m->fleet, &rep->offenders[i].sig);
		if (!o)
			continue;	/* past the bound: the fleet's 'other' group */
		k = (size_t)(o - m->fleet->offenders);
		if (k >= m->alloc_sigs) {
			size_t was = m->alloc_sigs;

			LH_GROW(m->sigs, k + 1, m->alloc_sigs);
			memset(m->sigs + was, 0, (m->alloc_sigs - was) * sizeof(*m->sigs));
		}
		s = &m->sigs[k];
		if (!o->count || rep->offenders[i].worst_us > o->worst_us)
			s->worst_host = host;
		hosts_add(&s->hosts, (uint32_t)host);
	}
}

/* The hosts each rule of rep hit on, once it is folded. */
static void note_rules(struct lh_merge *m, const struct lh_report *rep, size_t host)
{
	size_t i, k, was = m->alloc_rule_hosts;

	if (lh_merge_nr_rules(m) > m->alloc_rule_hosts) {
		LH_GROW(m->rule_hosts, lh_merge_nr_rules(m), m->alloc_rule_hosts);
		memset(m->rule_hosts + was, 0,
		       (m->alloc_rule_hosts - was) * sizeof(*m->rule_hosts));
	}
	for (i = 0; i < rep->nr_rules && rep->rules && i < lh_rules_count(rep->rules); i++) {
		if (!rep->rule_agg[i].hits)
			continue;
		k = lh_report_own_rule_find(m->fleet, lh_rules_get(rep->rules, i)->id);
		hosts_add(&m->rule_hosts[k], (uint32_t)host);
	}
}

int lh_merge_add(struct lh_merge *m, const char *name, const struct lh_report *rep)
{
	const char *why = lh_report_error(rep);
	unsigned long errors = m->nr_errors;
	struct fold_ctx c = { m, name };
	const struct lh_report_fold_ops ops = {
		.overflow = fold_overflow, .misfit = fold_misfit, .arg = &c,
		.conflict = fold_conflict,
	};
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
		note_tracer(m, name, rep, t, host);
	note_offenders(m, rep, host);
	note_noise(h, name, rep, &ops);
	lh_report_fold(m->fleet, rep, &ops);
	note_rules(m, rep, host);
	return m->nr_errors > errors ? -1 : 0;
}

char *lh_merge_fit(const char *s, size_t w, char *buf)
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

char *lh_merge_host_name(const struct lh_merge_host *h, char *buf, size_t len)
{
	char *full;

	if (h->board && h->host)
		full = lh_xasprintf("%s (%s)", h->board, h->host);
	else
		full = lh_xstrdup(h->board ? h->board : h->host ? h->host : "-");
	lh_merge_fit(full, len - 1, buf);
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
	for (i = 0; i < lh_merge_nr_rules(m); i++) {
		const struct lh_rule *d = lh_rules_get(m->fleet->own_rules, i);
		const struct lh_report_rule *r = lh_merge_rule(m, i);
		const struct lh_merge_hosts *hs = &m->rule_hosts[i];

		if (d->severity == LH_SEV_IGNORE || d->severity < m->o.gate.fail_on)
			continue;
		if (r->unevaluated) {
			error(m, lh_xasprintf("rule %s (%s) could not be evaluated on %" PRIu64 " section%s: --fail-on %s cannot be judged",
					      d->id, lh_severity_name(d->severity), r->unevaluated,
					      r->unevaluated == 1 ? "" : "s",
					      lh_gate_fail_on_name(&m->o.gate)));
		} else if (r->gate_hits) {
			lh_verdict_violation(&m->verdict,
				lh_xasprintf("rule %s (%s) hit %" PRIu64 " time%s on %zu host%s, worst %s",
					     d->id, lh_severity_name(d->severity), r->gate_hits,
					     r->gate_hits == 1 ? "" : "s", hs->nr, hs->nr == 1 ? "" : "s",
					     lh_report_fmt_us(lh_report_us_to_ns(r->worst_us), a,
							      sizeof(a))));
		}
	}
}

char *lh_merge_host_unjudged(const struct lh_merge *m, const struct lh_merge_host *h)
{
	const struct lh_report *n = h->noise;

	return lh_report_available_unmeasured(&m->o.gate, n ? n->noise : NULL, n ? n->nr_noise : 0,
					      h->osnoise_not_measured ? h->osnoise_not_measured :
					      n ? NULL : "no report of the host lists one");
}

/*
 * --min-available on each host's CPUs, judged as a report judges its own
 * (lh_report_available_violation()): a host it cannot judge is an error.
 */
static void judge_available(struct lh_merge *m)
{
	const struct lh_gate *g = &m->o.gate;
	char name[160], *why, *v;
	size_t i, j;

	if (!g->has_min_available)
		return;
	for (i = 0; i < m->nr_hosts; i++) {
		const struct lh_merge_host *h = &m->hosts[i];
		const struct lh_report *n = h->noise;

		lh_merge_host_name(h, name, sizeof(name));
		why = lh_merge_host_unjudged(m, h);
		if (why) {
			error(m, lh_xasprintf("host %s: %s", name, why));
			free(why);
			continue;
		}
		for (j = 0; j < n->nr_noise; j++) {
			v = lh_report_available_violation(g, &n->noise[j]);
			if (v)
				lh_verdict_violation(&m->verdict, lh_xasprintf("host %s: %s", name, v));
			free(v);
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
		const struct lh_report_where *gw = &lh_merge_fleet_tracer(m, t)->gate;
		const struct lh_gate_measure me = {
			.measured = mt->measured, .not_measured = mt->not_measured,
			.has_worst = gw->set, .worst_ns = lh_report_us_to_ns(gw->latency_us),
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
					     lh_report_fmt_us(lh_report_us_to_ns(gw->latency_us),
							      a, sizeof(a)),
					     lh_merge_host_name(&m->hosts[mt->gate_host], name,
						       sizeof(name)),
					     own ? tn : "all",
					     lh_report_fmt_us(budget, b, sizeof(b))));
			break;
		}
	}
	judge_rules(m);
	judge_available(m);
}

const char *lh_merge_verdict(const struct lh_merge *m)
{
	return lh_verdict_name(&m->verdict);
}
