// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two sets of reports compared and the regression gates judged (diff.h): each side folded
 * (report-fold.h), then compared. Its writers are diff-write.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "report-fold.h"

void lh_diff_gate_init(struct lh_diff_gate *g)
{
	memset(g, 0, sizeof(*g));
	g->fail_on_new = LH_GATE_FAIL_NONE;
}

int lh_diff_parse_pct(const char *arg, double *pct, const char **err)
{
	char *end;

	errno = 0;
	*pct = strtod(arg, &end);
	if (*end == '%')
		end++;
	if (end == arg || *end || errno || !isfinite(*pct) || *pct < 0) {
		*err = "expected a growth in percent, e.g. 10 or 5%";
		return -1;
	}
	return 0;
}

int lh_diff_gate_parse_growth(struct lh_diff_gate *g, const char *arg, const char **err)
{
	const char *value;
	enum lh_tracer t;
	double pct;

	if (lh_gate_parse_key(arg, "expected TRACER=PCT, e.g. irqsoff=10 or all=5%", &t, &value,
			      err))
		return -1;
	if (lh_diff_parse_pct(value, &pct, err)) {
		*err = "expected a growth in percent, e.g. irqsoff=10 or all=5%";
		return -1;
	}
	if (g->has_growth[t]) {
		*err = "a growth limit for this tracer was already given";
		return -1;
	}
	g->has_growth[t] = true;
	g->growth_pct[t] = pct;
	return 0;
}

/*
 * The kernel's histograms of a tracer's samples, compared beside its records (diff.h). A row
 * is named by its kind, unless the kind is its tracer's own name: hwlat's records and samples
 * would then read alike in the text, the JUnit cases and the violations.
 */
static const struct sample_kind {
	enum lh_tracer	tracer;
	const char	*kind;
	const char	*row;
} sample_kinds[] = {
	{ LH_TRACER_TIMERLAT, "timerlat_irq", "timerlat_irq" },
	{ LH_TRACER_TIMERLAT, "timerlat_thread", "timerlat_thread" },
	{ LH_TRACER_HWLAT, "hwlat", "hwlat_samples" },
};

int lh_diff_gate_parse_available_drop(struct lh_diff_gate *g, const char *arg, const char **err)
{
	return lh_gate_parse_osnoise_pct(arg, "expected osnoise=PCT, e.g. osnoise=5",
					 "a drop for osnoise was already given",
					 &g->has_available_drop, &g->available_drop_milli, err);
}

/*
 * One side's reports folded into one (lh_report_fold()), and what the fold does not say:
 * which sections only a report of each new maximum counted, which report gave a rule first
 * and which one another severity, whether a handler's runs did not fit one distribution.
 */
struct lh_diff_sum {
	struct lh_report	*rep;
	size_t			nr;		/* reports folded */
	/* [slot + 1]: a report counting only maxima has sections there ([0]: on any CPU) */
	struct maxima {
		bool		*v;
		size_t		nr, alloc;
	}			maxima[LH_TRACER_NR];
	/* by rule index */
	struct rule_note {
		size_t			first;		/* 1 + the report that first had it */
		size_t			conflict;	/* the first with another severity, or 0 */
		enum lh_severity	conflict_sev;	/* its */
	}			*rules;
	size_t			alloc_rules;
	bool			irq_misfit;	/* a handler's runs did not fit those before */
	/* by sample_kinds[] index: a histogram of the kind did not fit those before */
	bool			sample_misfit[LH_ARRAY_SIZE(sample_kinds)];
};

/* A report of a side being folded, for the fold's problems (lh_report_fold_ops). */
struct fold_ctx {
	struct lh_diff		*d;
	struct lh_diff_sum	*sum;
	const char		*side;
	const struct lh_diff_side *s;
	size_t			i;
};

/* Return: the percentiles of h, set when it counts at least LH_DIFF_MIN_DIST values. */
static struct lh_diff_pct pct_of(const struct lh_histogram *h)
{
	struct lh_diff_pct p = { 0 };
	uint64_t lo;

	p.set = h->count >= LH_DIFF_MIN_DIST && lh_histogram_percentile(h, 1, &lo, &p.p99_ns) &&
		lh_histogram_percentile(h, 2, &lo, &p.p999_ns);
	return p;
}

/* The kind of histogram the kernel counts (hist.c) for tracer t, or NULL. */
static const char *kernel_kind(enum lh_tracer t)
{
	switch (t) {
	case LH_TRACER_IRQSOFF:
		return "irqsoff";
	case LH_TRACER_PREEMPTOFF:
		return "preemptoff";
	case LH_TRACER_WAKEUP_RT:
		return "wakeup";	/* the wakeups of RT and DL tasks */
	default:
		return NULL;
	}
}

/*
 * One side of a row: sections (a CPU's, or all), their worst, and their distribution when
 * every report counted every section and their histograms all fitted (each report's
 * histogram counts its sections: one that did not fit leaves the sum short).
 */
static struct lh_diff_value value_of(uint64_t count, uint64_t worst_us,
				     const struct lh_histogram *h, bool every)
{
	struct lh_diff_value v = { .present = count > 0, .count = count };
	struct lh_diff_pct p = pct_of(h);

	v.worst_ns = count ? lh_report_us_to_ns(worst_us) : 0;
	v.dist = v.present && every && h->count == count && p.set;
	v.p99_ns = p.p99_ns;
	v.p999_ns = p.p999_ns;
	return v;
}

/* Return: whether a report of s that counted only maxima has sections of t in slot (0: all). */
static bool maxima_in(const struct lh_diff_sum *s, enum lh_tracer t, size_t slot)
{
	return slot < s->maxima[t].nr && s->maxima[t].v[slot];
}

/* Tracer t on cpu (LH_DIFF_ALL_CPUS: every CPU) over the reports of s. */
static struct lh_diff_value side_value(const struct lh_diff_sum *s, enum lh_tracer t, int cpu)
{
	const struct lh_report_tracer *tr = &s->rep->tracers[t];
	const struct lh_report_histogram *k = NULL;
	size_t slot = (size_t)(cpu + 1);
	struct lh_diff_value v = { 0 };

	if (cpu == LH_DIFF_ALL_CPUS)
		v = value_of(tr->count, tr->worst.latency_us, &tr->hist, !maxima_in(s, t, 0));
	else if (slot < tr->nr_cpus && tr->cpus[slot].seen)
		v = value_of(tr->cpus[slot].count, tr->cpus[slot].max_us, &tr->cpus[slot].dist,
			     !maxima_in(s, t, slot + 1));
	/* the kernel's histograms, when every report of the side has one (all CPUs: cpu -1) */
	if (kernel_kind(t))
		k = lh_report_khist_find(s->rep, "kernel", kernel_kind(t),
					 cpu == LH_DIFF_ALL_CPUS ? -1 : cpu);
	if (v.present && k && k->nr_folded == s->nr)
		v.kernel = pct_of(&k->h);
	return v;
}

/* The samples of kind on cpu (-1: all CPUs) over the reports of s: their largest, percentiles. */
static struct lh_diff_value sample_value(const struct lh_diff_sum *s, const char *kind, int cpu)
{
	const struct lh_report_histogram *k = lh_report_khist_find(s->rep, "kernel", kind, cpu);
	struct lh_diff_value v = { 0 };

	if (!k || !k->h.count)
		return v;
	v.present = true;
	v.count = k->h.count;
	v.worst_ns = k->h.max_ns;
	v.kernel = pct_of(&k->h);
	return v;
}

/* Return: whether side s counted samples of tracer t (sample_kinds[]). */
static bool has_samples(const struct lh_diff_sum *s, enum lh_tracer t)
{
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(sample_kinds); i++)
		if (sample_kinds[i].tracer == t && sample_value(s, sample_kinds[i].kind, -1).present)
			return true;
	return false;
}

/* Return: why tracer t was not measured on side s (borrowed), or NULL. */
static const char *not_measured(const struct lh_diff_side *s, enum lh_tracer t)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->reps[i]->has_run && s->reps[i]->run.not_measured[t])
			return s->reps[i]->run.not_measured[t];
	return NULL;
}

/* Return: the highest CPU slot count of tracer t over both sides. */
static size_t max_slots(const struct lh_diff *d, enum lh_tracer t)
{
	size_t b = d->base_sum->rep->tracers[t].nr_cpus, n = d->new_sum->rep->tracers[t].nr_cpus;

	return b > n ? b : n;
}

/* (lh_verdict_error() and lh_verdict_violation() on d's verdict: shorter lines) */
static void set_error(struct lh_diff *d, char *why)
{
	lh_verdict_error(&d->verdict, why);
}

static void violation(struct lh_diff *d, char *what)
{
	lh_verdict_violation(&d->verdict, what);
}

static struct lh_diff_row *new_row(struct lh_diff *d)
{
	LH_GROW(d->rows, d->nr_rows + 1, d->alloc_rows);
	memset(&d->rows[d->nr_rows], 0, sizeof(d->rows[0]));
	return &d->rows[d->nr_rows++];
}

double lh_diff_change_pct(uint64_t a, uint64_t b)
{
	if (a == b)
		return 0;
	if (!a)
		return INFINITY;
	return ((double)b - (double)a) * 100 / (double)a;
}

/* The row's basis: p99.9 of the kernel's histograms, else the sections', else the worst. */
static void fill_row(struct lh_diff_row *r)
{
	if (r->base.kernel.set && r->new.kernel.set) {
		r->dist = LH_DIFF_DIST_KERNEL;
		r->base_p99_ns = r->base.kernel.p99_ns;
		r->new_p99_ns = r->new.kernel.p99_ns;
		r->base_ns = r->base.kernel.p999_ns;
		r->new_ns = r->new.kernel.p999_ns;
	} else if (r->base.dist && r->new.dist) {
		r->dist = LH_DIFF_DIST_SECTIONS;
		r->base_p99_ns = r->base.p99_ns;
		r->new_p99_ns = r->new.p99_ns;
		r->base_ns = r->base.p999_ns;
		r->new_ns = r->new.p999_ns;
	} else {
		r->dist = LH_DIFF_DIST_NONE;
		r->base_ns = r->base.worst_ns;
		r->new_ns = r->new.worst_ns;
	}
	r->basis = r->dist == LH_DIFF_DIST_NONE ? LH_DIFF_WORST : LH_DIFF_P999;
	r->change_pct = !r->base.present || !r->new.present ? 0 :
			lh_diff_change_pct(r->base_ns, r->new_ns);
}

const char *lh_diff_basis_name(enum lh_diff_basis b)
{
	return b == LH_DIFF_P999 ? "p99.9" : b == LH_DIFF_P99 ? "p99" : "worst";
}

const char *lh_diff_dist_name(enum lh_diff_dist s)
{
	return s == LH_DIFF_DIST_KERNEL ? "kernel" : "sections";
}

const char *lh_diff_row_name(const struct lh_diff_row *r)
{
	size_t k;

	for (k = 0; r->kind && k < LH_ARRAY_SIZE(sample_kinds); k++)
		if (!strcmp(r->kind, sample_kinds[k].kind))
			return sample_kinds[k].row;
	return r->kind ? r->kind : lh_tracer_name(r->tracer);
}

/* --max-growth on row r (limit_pct): a violation when it failed, named what (a tracer, CPU). */
static void gate_row(struct lh_diff *d, struct lh_diff_row *r, const char *what,
		     const char *limit_name)
{
	char a[32], b[32];

	r->failed = r->change_pct > r->limit_pct;
	if (!r->failed)
		return;
	violation(d, lh_xasprintf("%s: %s grew %+.1f%% (%s -> %s), over --max-growth %s=%g%%",
				  what, lh_diff_basis_name(r->basis), r->change_pct,
				  lh_report_fmt_us(r->base_ns, a, sizeof(a)),
				  lh_report_fmt_us(r->new_ns, b, sizeof(b)), limit_name,
				  r->limit_pct));
}

/* The --max-growth that judges a tracer's rows: its own, else 'all'. */
struct growth {
	bool		judged;		/* measured on both sides and gated: rows of both are judged */
	double		pct;
	const char	*name;		/* of the limit: the tracer's, or "all" */
};

/* Adds the row of tracer t's kind (NULL: records) on cpu with sides bv and nv, judged by g. */
static void add_row(struct lh_diff *d, enum lh_tracer t, const char *kind, int cpu,
		    const struct lh_diff_value *bv, const struct lh_diff_value *nv,
		    const struct growth *g)
{
	struct lh_diff_row *r = new_row(d);
	char *what;

	r->tracer = t;
	r->kind = kind;
	r->cpu = cpu;
	r->base = *bv;
	r->new = *nv;
	fill_row(r);
	if (!g->judged || !bv->present || !nv->present)
		return;
	if (cpu == LH_DIFF_ALL_CPUS)
		what = lh_xstrdup(lh_diff_row_name(r));
	else if (cpu < 0)
		what = lh_xasprintf("%s on an unknown CPU", lh_diff_row_name(r));
	else
		what = lh_xasprintf("%s on CPU %d", lh_diff_row_name(r), cpu);
	r->gated = true;
	r->limit_pct = g->pct;
	gate_row(d, r, what, g->name);
	free(what);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* Return: the CPUs (>= 0) with a histogram of kind on either side, ascending, *n of them (free it). */
static int *sample_cpus(const struct lh_diff *d, const char *kind, size_t *n)
{
	const struct lh_report *reps[] = { d->base_sum->rep, d->new_sum->rep };
	int *v = lh_xcalloc(reps[0]->nr_hists + reps[1]->nr_hists + 1, sizeof(*v));
	size_t i, j, k = 0;

	for (i = 0; i < 2; i++)
		for (j = 0; j < reps[i]->nr_hists; j++)
			if (reps[i]->hists[j].cpu >= 0 && !strcmp(reps[i]->hists[j].source, "kernel") &&
			    !strcmp(reps[i]->hists[j].kind, kind))
				v[k++] = reps[i]->hists[j].cpu;
	qsort(v, k, sizeof(*v), cmp_int);
	for (i = j = 0; i < k; i++)
		if (!j || v[j - 1] != v[i])
			v[j++] = v[i];
	*n = j;
	return v;
}

/*
 * The samples of tracer t (sample_kinds[]): each kind over all CPUs, then per CPU. Under the
 * gate, a kind that one side counted and the other did not, or whose histograms did not add
 * up, cannot be judged: an error.
 */
static void compare_samples(struct lh_diff *d, enum lh_tracer t, const struct growth *g)
{
	const char *name = lh_tracer_name(t);
	struct lh_diff_value bv, nv;
	size_t k, i, n;
	int *cpus;

	for (k = 0; k < LH_ARRAY_SIZE(sample_kinds); k++) {
		const char *kind = sample_kinds[k].kind;

		if (sample_kinds[k].tracer != t)
			continue;
		if (d->base_sum->sample_misfit[k] || d->new_sum->sample_misfit[k]) {
			if (g->judged)
				set_error(d, lh_xasprintf("%s is gated by --max-growth but the %s reports' %s histograms do not add up (their buckets differ): they cannot be compared",
							  name, d->base_sum->sample_misfit[k] ?
							  "base" : "new", kind));
			continue;
		}
		bv = sample_value(d->base_sum, kind, -1);
		nv = sample_value(d->new_sum, kind, -1);
		if (!bv.present && !nv.present)
			continue;
		if (g->judged && !bv.present != !nv.present)
			set_error(d, lh_xasprintf("%s is gated by --max-growth but only the %s reports counted its %s samples",
						  name, bv.present ? "base" : "new", kind));
		add_row(d, t, kind, LH_DIFF_ALL_CPUS, &bv, &nv, g);
		cpus = sample_cpus(d, kind, &n);
		for (i = 0; i < n; i++) {
			bv = sample_value(d->base_sum, kind, cpus[i]);
			nv = sample_value(d->new_sum, kind, cpus[i]);
			if (bv.present || nv.present)
				add_row(d, t, kind, cpus[i], &bv, &nv, g);
		}
		free(cpus);
	}
}

/*
 * Per tracer its records over all CPUs, then per CPU, then its samples; the --max-growth
 * gate. A tracer is measured on a side that has its records or its samples: gated, it must be
 * measured on both, and no report may say it could not measure it.
 */
static void compare_tracers(struct lh_diff *d)
{
	struct lh_diff_value bv, nv;
	size_t slot, n;
	int t;

	for (t = 0; t < LH_TRACER_NR; t++) {
		const char *name = lh_tracer_name(t), *why;
		bool own = d->gate.has_growth[t] && t != LH_TRACER_UNKNOWN;
		bool gated = own || d->gate.has_growth[LH_TRACER_UNKNOWN];
		struct growth g = {
			.pct = d->gate.growth_pct[own ? t : LH_TRACER_UNKNOWN],
			.name = own ? name : "all",
		};
		bool in_base, in_new;

		bv = side_value(d->base_sum, t, LH_DIFF_ALL_CPUS);
		nv = side_value(d->new_sum, t, LH_DIFF_ALL_CPUS);
		in_base = bv.present || has_samples(d->base_sum, t);
		in_new = nv.present || has_samples(d->new_sum, t);
		if (!in_base && !in_new) {
			if (own)
				set_error(d, lh_xasprintf("%s is gated by --max-growth but neither side measured it",
							  name));
			continue;
		}
		if (gated && in_base != in_new) {
			why = not_measured(in_base ? &d->new : &d->base, t);
			set_error(d, lh_xasprintf("%s is gated by --max-growth but only the %s reports measured it%s%s",
						  name, in_base ? "base" : "new",
						  why ? ": " : "", why ? why : ""));
		} else if (gated && (why = not_measured(&d->base, t))) {
			set_error(d, lh_xasprintf("%s is gated by --max-growth but a base report did not measure it: %s",
						  name, why));
		} else if (gated && (why = not_measured(&d->new, t))) {
			set_error(d, lh_xasprintf("%s is gated by --max-growth but a new report did not measure it: %s",
						  name, why));
		} else {
			g.judged = gated;
		}
		if (bv.present || nv.present)
			add_row(d, t, NULL, LH_DIFF_ALL_CPUS, &bv, &nv, &g);
		/* the CPUs are judged when the tracer is: a CPU of both sides, by the same limit */
		n = max_slots(d, t);
		for (slot = 0; slot < n; slot++) {
			bv = side_value(d->base_sum, t, lh_report_slot_cpu(slot));
			nv = side_value(d->new_sum, t, lh_report_slot_cpu(slot));
			if (bv.present || nv.present)
				add_row(d, t, NULL, lh_report_slot_cpu(slot), &bv, &nv, &g);
		}
		compare_samples(d, t, &g);
	}
}

/* An offender of one side, for matching by signature. */
struct sig {
	const char	*text;
	bool		new;
	uint64_t	count;
	uint64_t	worst_us;
};

static int cmp_sig(const void *a, const void *b)
{
	const struct sig *x = a, *y = b;
	int c = strcmp(x->text, y->text);

	return c ? c : (int)x->new - (int)y->new;
}

/* New first, then grown, then gone; the worst first within each. */
static int cmp_offender(const void *a, const void *b)
{
	const struct lh_diff_offender *x = a, *y = b;
	uint64_t wx = x->change == LH_DIFF_GONE ? x->base_worst_us : x->new_worst_us;
	uint64_t wy = y->change == LH_DIFF_GONE ? y->base_worst_us : y->new_worst_us;

	if (x->change != y->change)
		return (int)x->change - (int)y->change;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	return strcmp(x->signature, y->signature);
}

static size_t side_sigs(const struct lh_diff_sum *s, bool new, struct sig *v, size_t n)
{
	size_t j;

	for (j = 0; j < s->rep->nr_offenders; j++)
		v[n++] = (struct sig){ s->rep->offenders[j].signature, new,
				       s->rep->offenders[j].count, s->rep->offenders[j].worst_us };
	return n;
}

/* Offenders matched by signature; the --max-new-offenders gate. */
static void compare_offenders(struct lh_diff *d)
{
	size_t n = d->base_sum->rep->nr_offenders + d->new_sum->rep->nr_offenders, i, j, k;
	uint64_t other_base = d->base_sum->rep->other_count;
	uint64_t other_new = d->new_sum->rep->other_count;
	struct sig *v = lh_xcalloc(n + 1, sizeof(*v));

	n = side_sigs(d->base_sum, false, v, 0);
	n = side_sigs(d->new_sum, true, v, n);
	qsort(v, n, sizeof(*v), cmp_sig);
	d->offenders = lh_xcalloc(n + 1, sizeof(*d->offenders));
	for (i = 0; i < n; i = j) {
		struct lh_diff_offender o = { .signature = v[i].text };

		for (j = i; j < n && !strcmp(v[j].text, v[i].text); j++) {
			uint64_t *count = v[j].new ? &o.new_count : &o.base_count;
			uint64_t *worst = v[j].new ? &o.new_worst_us : &o.base_worst_us;

			*count += v[j].count;
			if (v[j].worst_us > *worst)
				*worst = v[j].worst_us;
		}
		if (!o.base_count)
			o.change = LH_DIFF_NEW;
		else if (!o.new_count)
			o.change = LH_DIFF_GONE;
		else if (o.new_worst_us > o.base_worst_us)
			o.change = LH_DIFF_GROWN;
		else
			continue;
		d->nr_new_offenders += o.change == LH_DIFF_NEW;
		d->offenders[d->nr_offenders++] = o;
	}
	qsort(d->offenders, d->nr_offenders, sizeof(*d->offenders), cmp_offender);
	free(v);
	if (!d->gate.has_max_new)
		return;
	if (other_base || other_new) {
		set_error(d, lh_xasprintf("--max-new-offenders cannot be judged: %" PRIu64 " sections went to the 'other' offender group (more than %d signatures)",
					  other_base + other_new, LH_REPORT_SIGNATURES));
		return;
	}
	if (d->nr_new_offenders > d->gate.max_new_offenders) {
		for (k = 0; k < d->nr_offenders && d->offenders[k].change != LH_DIFF_NEW; k++)
			;
		violation(d, lh_xasprintf("%zu new offender signature%s, over --max-new-offenders %lu (worst: %s)",
					  d->nr_new_offenders, d->nr_new_offenders == 1 ? "" : "s",
					  d->gate.max_new_offenders, d->offenders[k].signature));
	}
}

/* One rule over a side: hits on records not accepted, and records not evaluated. */
struct rule_sum {
	bool			seen;
	enum lh_severity	severity;	/* as the report that first had it says */
	size_t			idx;		/* in the side's rules */
	uint64_t		hits;
	uint64_t		unevaluated;
};

static struct rule_sum side_rule(const struct lh_diff_sum *s, const char *id)
{
	struct rule_sum sum = { .idx = lh_report_own_rule_find(s->rep, id) };

	if (sum.idx == (size_t)-1)
		return sum;
	sum.seen = true;
	sum.severity = lh_rules_get(s->rep->own_rules, sum.idx)->severity;
	if (sum.idx < s->rep->nr_rules) {	/* counters grow with the first hit */
		sum.hits = s->rep->rule_agg[sum.idx].gate_hits;
		sum.unevaluated = s->rep->rule_agg[sum.idx].gate_unevaluated;
	}
	return sum;
}

/*
 * A rule whose severity the reports of one side disagree on: which one the side's verdict
 * rests on would depend on their order.
 */
static void severity_conflict(struct lh_diff *d, const struct lh_diff_side *s,
			      const struct lh_diff_sum *sum, const char *side, const char *id,
			      const struct rule_sum *r)
{
	const struct rule_note *note = r->seen ? &sum->rules[r->idx] : NULL;

	if (!note || !note->conflict)
		return;
	set_error(d, lh_xasprintf("rule '%s' is %s in %s report '%s' and %s in '%s': a side's reports must agree on its rules",
				  id, lh_severity_name(r->severity), side,
				  s->names[note->first - 1], lh_severity_name(note->conflict_sev),
				  s->names[note->conflict]));
}

/* Rule id compared: listed when its hits grew; the --fail-on-new gate. */
static void compare_rule(struct lh_diff *d, const char *id)
{
	struct rule_sum b = side_rule(d->base_sum, id), n = side_rule(d->new_sum, id);
	bool gated;

	severity_conflict(d, &d->base, d->base_sum, "base", id, &b);
	severity_conflict(d, &d->new, d->new_sum, "new", id, &n);
	if (!n.seen)
		n.severity = b.severity;
	gated = n.severity != LH_SEV_IGNORE && n.severity >= d->gate.fail_on_new &&
		d->gate.fail_on_new != LH_GATE_FAIL_NONE;
	if (gated && (b.unevaluated || n.unevaluated))
		set_error(d, lh_xasprintf("--fail-on-new cannot be judged: rule '%s' could not be evaluated on %" PRIu64 " record%s",
					  id, lh_sat_add(b.unevaluated, n.unevaluated),
					  b.unevaluated + n.unevaluated == 1 ? "" : "s"));
	if (n.hits <= b.hits)
		return;
	LH_GROW(d->rules, d->nr_rules + 1, d->alloc_rules);
	d->rules[d->nr_rules++] = (struct lh_diff_rule){
		.id = id, .severity = n.severity, .in_base = b.seen,
		.base_hits = b.hits, .new_hits = n.hits, .failed = gated && !b.hits,
	};
	if (gated && !b.hits)
		violation(d, lh_xasprintf("rule '%s' (%s) hit %" PRIu64 " record%s, none in the base%s, at or above --fail-on-new %s",
					  id, lh_severity_name(n.severity), n.hits,
					  n.hits == 1 ? "" : "s",
					  b.seen ? "" : " (the base reports lack the rule)",
					  lh_severity_name(d->gate.fail_on_new)));
}

/* Rules by id: the new side's, then those only the base has. */
static void compare_rules(struct lh_diff *d)
{
	const struct lh_rules *nr = d->new_sum->rep->own_rules, *br = d->base_sum->rep->own_rules;
	size_t i;

	for (i = 0; i < lh_rules_count(nr); i++)
		compare_rule(d, lh_rules_get(nr, i)->id);
	for (i = 0; i < lh_rules_count(br); i++)
		if (lh_report_own_rule_find(d->new_sum->rep, lh_rules_get(br, i)->id) == (size_t)-1)
			compare_rule(d, lh_rules_get(br, i)->id);
}

/*
 * The runs of handler (irq, name) over every CPU of side s: the longest, how many, and the
 * percentiles of their durations (none when a report's did not fit one distribution).
 */
static void side_irq(const struct lh_diff_sum *s, int irq, const char *name, uint64_t *max_ns,
		     uint64_t *count, struct lh_diff_pct *pct)
{
	const struct lh_irqstat *st = s->rep->own_irqstat;
	struct lh_histogram h = { 0 };
	bool ok = !s->irq_misfit;
	size_t j;

	*max_ns = *count = 0;
	for (j = 0; st && j < lh_irqstat_count(st); j++) {
		const struct lh_irqstat_entry *e = lh_irqstat_get(st, j);

		if (e->irq != irq || strcmp(e->name, name))
			continue;
		LH_ADD_CHECKED(*count, e->count);	/* IRQ statistics saturate (irqstat.h) */
		if (e->max_ns > *max_ns)
			*max_ns = e->max_ns;
		if (e->dist.count != e->count ||
		    lh_report_fold_hist(&h, &e->dist) != LH_REPORT_FOLD_OK)
			ok = false;
	}
	*pct = ok ? pct_of(&h) : (struct lh_diff_pct){ 0 };
	lh_histogram_release(&h);
}

static bool irq_listed(const struct lh_diff *d, int irq, const char *name)
{
	size_t i;

	for (i = 0; i < d->nr_irqs; i++)
		if (d->irqs[i].irq == irq && !strcmp(d->irqs[i].name, name))
			return true;
	return false;
}

/* Handlers of the new reports whose longest run or p99 grew (or that are new); the gate. */
static void compare_irqs(struct lh_diff *d)
{
	const struct lh_irqstat *st = d->new_sum->rep->own_irqstat;
	bool base_has = d->base_sum->rep->own_irqstat;
	size_t j;

	if (d->gate.has_irq_growth && (!base_has || !st))
		set_error(d, lh_xasprintf("--max-irq-growth cannot be judged: no %s report collected IRQ statistics",
					  base_has ? "new" : "base"));
	for (j = 0; st && j < lh_irqstat_count(st); j++) {
		const struct lh_irqstat_entry *e = lh_irqstat_get(st, j);
		struct lh_diff_irq q = { .irq = e->irq, .name = e->name };

		if (irq_listed(d, e->irq, e->name))
			continue;
		side_irq(d->base_sum, e->irq, e->name, &q.base_max_ns, &q.base_count,
			 &q.base_pct);
		side_irq(d->new_sum, e->irq, e->name, &q.new_max_ns, &q.new_count,
			 &q.new_pct);
		q.basis = q.base_pct.set && q.new_pct.set ? LH_DIFF_P99 : LH_DIFF_WORST;
		q.change_pct = !q.base_count ? INFINITY : q.basis == LH_DIFF_P99 ?
			       lh_diff_change_pct(q.base_pct.p99_ns, q.new_pct.p99_ns) :
			       lh_diff_change_pct(q.base_max_ns, q.new_max_ns);
		if (q.new_max_ns <= q.base_max_ns && q.change_pct <= 0)
			continue;
		q.failed = d->gate.has_irq_growth && q.change_pct > d->gate.irq_growth_pct;
		if (q.failed && !q.base_count)
			violation(d, lh_xasprintf("irq %d %s: new in the new reports, over --max-irq-growth %g%%",
						  q.irq, q.name, d->gate.irq_growth_pct));
		else if (q.failed)
			violation(d, lh_xasprintf("irq %d %s: %s grew %+.1f%%, over --max-irq-growth %g%%",
						  q.irq, q.name, lh_diff_basis_name(q.basis),
						  q.change_pct, d->gate.irq_growth_pct));
		LH_GROW(d->irqs, d->nr_irqs + 1, d->alloc_irqs);
		d->irqs[d->nr_irqs++] = q;
	}
}

/* CPU cpu's osnoise figures on side s, listed or not. */
static struct lh_diff_noise side_noise(const struct lh_diff_sum *s, int cpu)
{
	struct lh_diff_noise v = { 0 };
	size_t i;

	for (i = 0; i < s->rep->nr_noise; i++) {
		if (s->rep->noise[i].cpu != cpu)
			continue;
		v.listed = true;
		v.n = s->rep->noise[i];
		v.measured = !lh_gate_available(v.n.runtime_ns, v.n.noise_ns, &v.milli);
	}
	return v;
}

/* Return: why --max-available-drop cannot judge CPU a (or the sides), or NULL (free it). */
static char *available_unjudged(const struct lh_diff_available *a)
{
	static const char *const gate = "osnoise is gated by --max-available-drop but";
	const struct lh_diff_noise *b = &a->base, *n = &a->new;

	if (!b->listed || !n->listed)
		return lh_xasprintf("%s CPU%d is listed in the %s reports only: its availability cannot be compared",
				    gate, a->cpu, b->listed ? "base" : "new");
	if (!b->measured || !n->measured)
		return lh_xasprintf("%s CPU%d measured no period in the %s reports: its availability cannot be compared",
				    gate, a->cpu, !b->measured ? "base" : "new");
	return NULL;
}

/*
 * osnoise's % CPU available per CPU of either side; --max-available-drop on each. Gated, a
 * side without osnoise's figures, with a report that could not measure osnoise, or a CPU
 * that cannot be compared (available_unjudged()) is an error.
 */
static void compare_available(struct lh_diff *d)
{
	const struct lh_report *br = d->base_sum->rep, *nr = d->new_sum->rep;
	const uint32_t limit = d->gate.available_drop_milli;
	const char *side = "base", *why;
	char a[16], b[16], c[16], l[16], *err;
	size_t i = 0, j = 0;

	d->available = lh_xcalloc(br->nr_noise + nr->nr_noise + 1, sizeof(*d->available));
	while (i < br->nr_noise || j < nr->nr_noise) {
		struct lh_diff_available *x = &d->available[d->nr_available++];

		bool from_base = j == nr->nr_noise ||
				 (i < br->nr_noise && br->noise[i].cpu <= nr->noise[j].cpu);

		/* both lists ascend by CPU (lh_report_noise_slot()): a merge of the two */
		x->cpu = from_base ? br->noise[i].cpu : nr->noise[j].cpu;
		i += i < br->nr_noise && br->noise[i].cpu == x->cpu;
		j += j < nr->nr_noise && nr->noise[j].cpu == x->cpu;
		x->base = side_noise(d->base_sum, x->cpu);
		x->new = side_noise(d->new_sum, x->cpu);
		if (x->base.measured && x->new.measured)
			x->change_milli = (int64_t)x->new.milli - (int64_t)x->base.milli;
	}
	if (!d->gate.has_available_drop)
		return;
	why = not_measured(&d->base, LH_TRACER_OSNOISE);
	if (!why) {
		why = not_measured(&d->new, LH_TRACER_OSNOISE);
		side = "new";
	}
	if (why) {
		set_error(d, lh_xasprintf("osnoise is gated by --max-available-drop but a %s report did not measure it: %s",
					  side, why));
		return;
	}
	if (!br->nr_noise || !nr->nr_noise) {
		set_error(d, lh_xasprintf("osnoise is gated by --max-available-drop but %s measured no period",
					  br->nr_noise ? "the new reports" : nr->nr_noise ?
					  "the base reports" : "neither side"));
		return;
	}
	for (i = 0; i < d->nr_available; i++) {
		struct lh_diff_available *x = &d->available[i];

		err = available_unjudged(x);
		if (err) {
			set_error(d, err);
			continue;
		}
		x->gated = true;
		x->failed = -x->change_milli > (int64_t)limit;
		if (x->failed)
			violation(d, lh_xasprintf("osnoise's CPU%d: %s %% available, %s points down from %s, over --max-available-drop osnoise=%s",
						  x->cpu, lh_gate_fmt_available(x->new.milli, b, sizeof(b)),
						  lh_gate_fmt_available((uint32_t)-x->change_milli, c,
									sizeof(c)),
						  lh_gate_fmt_available(x->base.milli, a, sizeof(a)),
						  lh_gate_fmt_available(limit, l, sizeof(l))));
	}
}

/* Reports whose own verdict is error are not compared unless accepted. */
static void check_reports(struct lh_diff *d, const struct lh_diff_side *s, const char *side)
{
	size_t i;

	if (s->unread)
		set_error(d, lh_xasprintf("a %s report could not be read: %s", side, s->unread));
	if (!s->nr)
		set_error(d, lh_xasprintf("no %s report", side));
	for (i = 0; i < s->nr && !d->gate.accept_error; i++)
		if (lh_report_error(s->reps[i]))
			set_error(d, lh_xasprintf("%s report '%s': its verdict is error (%s); --accept-error compares it anyway",
						  side, s->names[i], lh_report_error(s->reps[i])));
}

/*
 * No run is compared with itself, nor counted twice in a side: a glob that puts the candidate
 * into the base would make any growth zero.
 */
static void check_runs(struct lh_diff *d)
{
	const struct lh_diff_side *sides[] = { &d->base, &d->new };
	static const char *const side_names[] = { "base", "new" };
	struct lh_htab runs = { 0 };
	uint32_t first, s, i;

	for (s = 0; s < 2; s++) {
		for (i = 0; i < sides[s]->nr; i++) {
			const struct lh_report *rep = sides[s]->reps[i];
			uint32_t fs, fi;

			if (!lh_report_run_seen(&runs, lh_report_run_id(rep), s << 31 | i, &first))
				continue;
			fs = first >> 31;
			fi = first & ~(1U << 31);
			set_error(d, lh_xasprintf("%s report '%s' is the same run (run_id %s) as %s report '%s': %s",
						  side_names[s], sides[s]->names[i],
						  lh_report_run_id(rep), side_names[fs],
						  sides[fs]->names[fi], fs == s ?
						  "it would count twice" :
						  "a run compared with itself"));
		}
	}
	lh_htab_release(&runs);
}

/* Grows the per-rule notes of s to its rules. */
static void sum_grow_rules(struct lh_diff_sum *s)
{
	size_t n = lh_rules_count(s->rep->own_rules), was = s->alloc_rules;

	if (n <= was)
		return;
	LH_GROW(s->rules, n, s->alloc_rules);
	memset(s->rules + was, 0, (s->alloc_rules - was) * sizeof(*s->rules));
}

/* A sum of a side's reports would pass 2^64: an error, never a smaller number compared. */
static void sum_overflow(void *arg, const struct lh_report_fold_at *at)
{
	const struct fold_ctx *c = arg;

	set_error(c->d, lh_xasprintf("%s report '%s': %s%s%s%s: the reports' counts add up past 2^64",
				     c->side, c->s->names[c->i], at->tracer >= 0 ? "tracers." : "",
				     at->tracer >= 0 ? lh_tracer_name(at->tracer) : "",
				     at->tracer >= 0 ? "." : "", at->field ? at->field : "a count"));
}

/*
 * Histograms that do not fit are not compared: a row then compares the worst (its sum counts
 * fewer sections than its rows; a kernel histogram fewer reports: value_of(), side_value());
 * a handler's runs their longest; a kind of samples none (compare_samples()).
 */
static void sum_misfit(void *arg, const struct lh_report_fold_at *at)
{
	const struct fold_ctx *c = arg;

	size_t k;

	if (at->field && !strcmp(at->field, "irq_stats.handlers"))
		c->sum->irq_misfit = true;
	for (k = 0; at->field && !strcmp(at->field, "histograms") &&
		    k < LH_ARRAY_SIZE(sample_kinds); k++)
		if (at->what && !strcmp(at->what, sample_kinds[k].kind))
			c->sum->sample_misfit[k] = true;
}

/* The first report to give a rule another severity than the report that first had it. */
static void sum_conflict(void *arg, const struct lh_rule *had, const struct lh_rule *rule)
{
	const struct fold_ctx *c = arg;
	struct rule_note *note;

	sum_grow_rules(c->sum);
	note = &c->sum->rules[lh_report_own_rule_find(c->sum->rep, rule->id)];
	if (!note->conflict) {
		note->conflict = c->i;
		note->conflict_sev = rule->severity;
	}
}

/* Notes where rep, which counts only maxima, has sections of tracer t. */
static void note_maxima(struct lh_diff_sum *s, const struct lh_report *rep, enum lh_tracer t)
{
	const struct lh_report_tracer *tr = &rep->tracers[t];
	struct maxima *m = &s->maxima[t];
	size_t slot;

	if (!tr->count)
		return;
	if (tr->nr_cpus + 1 > m->nr) {
		LH_GROW(m->v, tr->nr_cpus + 1, m->alloc);
		memset(m->v + m->nr, 0, (tr->nr_cpus + 1 - m->nr) * sizeof(*m->v));
		m->nr = tr->nr_cpus + 1;
	}
	m->v[0] = true;
	for (slot = 0; slot < tr->nr_cpus; slot++)
		if (tr->cpus[slot].seen && tr->cpus[slot].count)
			m->v[slot + 1] = true;
}

/* Return: the reports of s folded into one (free it with sum_free()). */
static struct lh_diff_sum *fold_side(struct lh_diff *d, const struct lh_diff_side *s,
				     const char *side)
{
	struct lh_diff_sum *sum = lh_xcalloc(1, sizeof(*sum));
	struct fold_ctx c = { d, sum, side, s, 0 };
	const struct lh_report_fold_ops ops = {
		.overflow = sum_overflow, .misfit = sum_misfit, .arg = &c,
		.conflict = sum_conflict, .parts = LH_REPORT_FOLD_IRQSTAT,
	};
	const struct lh_report *rep;
	size_t j, idx;
	int t;

	sum->rep = lh_report_fold_alloc();
	sum->nr = s->nr;
	for (c.i = 0; c.i < s->nr; c.i++) {
		rep = s->reps[c.i];
		for (t = 0; t < LH_TRACER_NR && !lh_report_counts_every_section(rep); t++)
			note_maxima(sum, rep, t);
		lh_report_fold(sum->rep, rep, &ops);
		sum_grow_rules(sum);
		for (j = 0; rep->rules && j < lh_rules_count(rep->rules); j++) {
			idx = lh_report_own_rule_find(sum->rep, lh_rules_get(rep->rules, j)->id);
			if (!sum->rules[idx].first)
				sum->rules[idx].first = c.i + 1;
		}
	}
	return sum;
}

static void sum_free(struct lh_diff_sum *s)
{
	int t;

	if (!s)
		return;
	lh_report_free(s->rep);
	for (t = 0; t < LH_TRACER_NR; t++)
		free(s->maxima[t].v);
	free(s->rules);
	free(s);
}

struct lh_diff *lh_diff_compute(const struct lh_diff_side *base, const struct lh_diff_side *new,
				const struct lh_diff_gate *g)
{
	struct lh_diff *d = lh_xcalloc(1, sizeof(*d));

	d->gate = *g;
	d->base = *base;
	d->new = *new;
	check_reports(d, base, "base");
	check_reports(d, new, "new");
	check_runs(d);
	d->base_sum = fold_side(d, base, "base");
	d->new_sum = fold_side(d, new, "new");
	compare_tracers(d);
	compare_offenders(d);
	compare_rules(d);
	compare_irqs(d);
	compare_available(d);
	return d;
}

void lh_diff_free(struct lh_diff *d)
{
	if (!d)
		return;
	lh_verdict_release(&d->verdict);
	sum_free(d->base_sum);
	sum_free(d->new_sum);
	free(d->rows);
	free(d->offenders);
	free(d->rules);
	free(d->irqs);
	free(d->available);
	free(d);
}

const char *lh_diff_verdict(const struct lh_diff *d)
{
	return lh_verdict_name(&d->verdict);
}
