// SPDX-License-Identifier: GPL-2.0-only
/*
 * The comparison's writers (diff.h): text, JSON (json-write.h) and JUnit XML (junit.h), each with
 * the verdict lh_diff_compute() judged.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "json-write.h"
#include "junit.h"
#include "report-priv.h"

static const char *const change_names[] = { "new", "grown", "gone" };

/* "+50us (+25.0%)", "-3us (-1.2%)", "+7us (from 0)", "=" . Return: buf. */
static char *fmt_change(const struct lh_diff_row *r, char *buf, size_t len)
{
	char us[32];
	uint64_t delta = r->new_ns > r->base_ns ? r->new_ns - r->base_ns : r->base_ns - r->new_ns;

	if (!r->base.present || !r->new.present)
		snprintf(buf, len, "%s", r->base.present ? "gone" : "new");
	else if (!delta)
		snprintf(buf, len, "=");
	else if (isinf(r->change_pct))
		snprintf(buf, len, "+%s (from 0)", lh_report_fmt_us(delta, us, sizeof(us)));
	else
		snprintf(buf, len, "%c%s (%+.1f%%)", r->new_ns > r->base_ns ? '+' : '-',
			 lh_report_fmt_us(delta, us, sizeof(us)), r->change_pct);
	return buf;
}

static char *fmt_side(const struct lh_diff_value *v, uint64_t ns, char *buf, size_t len)
{
	if (!v->present)
		return strcpy(buf, "-");
	return lh_report_fmt_us(ns, buf, len);
}

static void write_gates_text(const struct lh_diff *d, FILE *out)
{
	const char *sep = "";
	char pts[16];
	int t;

	fputs("Gates:", out);
	for (t = 0; t < LH_TRACER_NR; t++) {
		if (!d->gate.has_growth[t])
			continue;
		fprintf(out, "%s --max-growth %s=%g%%", sep,
			t == LH_TRACER_UNKNOWN ? "all" : lh_tracer_name(t), d->gate.growth_pct[t]);
		sep = ",";
	}
	if (d->gate.has_irq_growth) {
		fprintf(out, "%s --max-irq-growth %g%%", sep, d->gate.irq_growth_pct);
		sep = ",";
	}
	if (d->gate.has_max_new) {
		fprintf(out, "%s --max-new-offenders %lu", sep, d->gate.max_new_offenders);
		sep = ",";
	}
	if (d->gate.fail_on_new != LH_GATE_FAIL_NONE) {
		fprintf(out, "%s --fail-on-new %s", sep, lh_severity_name(d->gate.fail_on_new));
		sep = ",";
	}
	if (d->gate.has_available_drop) {
		fprintf(out, "%s --max-available-drop osnoise=%s", sep,
			lh_gate_fmt_available(d->gate.available_drop_milli, pts, sizeof(pts)));
		sep = ",";
	}
	fputs(*sep ? "\n" : " none\n", out);
}

static void write_names(const struct lh_diff_side *s, const char *label, FILE *out)
{
	size_t i;

	fprintf(out, "%-5s %zu report%s:", label, s->nr, s->nr == 1 ? "" : "s");
	for (i = 0; i < s->nr; i++)
		fprintf(out, " %s", s->names[i]);
	fputc('\n', out);
}

/* "-4.198", "+0.500", "=": a change of % CPU available in points. Return: buf. */
static char *fmt_points(int64_t milli, char *buf, size_t len)
{
	char p[16];

	if (!milli)
		return strcpy(buf, "=");
	lh_gate_fmt_available((uint32_t)(milli < 0 ? -milli : milli), p, sizeof(p));
	snprintf(buf, len, "%c%s", milli < 0 ? '-' : '+', p);
	return buf;
}

/* "99.198", "-" (not listed), "none" (no period): one side's % CPU available. */
static char *fmt_noise(const struct lh_diff_noise *v, char *buf, size_t len)
{
	if (!v->listed)
		return strcpy(buf, "-");
	if (!v->measured)
		return strcpy(buf, "no period");
	return lh_gate_fmt_available(v->milli, buf, len);
}

static void write_available_text(const struct lh_diff *d, FILE *out)
{
	char a[16], b[16], c[32];
	size_t i;

	if (!d->nr_available)
		return;
	fprintf(out, "\nosnoise: %% CPU available\n%-4s %12s %12s  %s\n", "CPU", "base", "new",
		"change (points)");
	for (i = 0; i < d->nr_available; i++) {
		const struct lh_diff_available *x = &d->available[i];

		fprintf(out, "%-4d %12s %12s  %s%s\n", x->cpu, fmt_noise(&x->base, a, sizeof(a)),
			fmt_noise(&x->new, b, sizeof(b)),
			x->base.measured && x->new.measured ?
			fmt_points(x->change_milli, c, sizeof(c)) : "-",
			x->failed ? "  FAIL" : "");
	}
}

static int write_text(const struct lh_diff *d, FILE *out)
{
	char a[32], b[32], c[64], cpu[16];
	size_t i;

	fputs("lathound diff\n", out);
	write_names(&d->base, "Base:", out);
	write_names(&d->new, "New:", out);
	fprintf(out, "A worst case is one sample: 'by' p99.9 when both sides' histograms count >= %d sections\n"
		"(the kernel's of record --hist, else the sections captured), worst otherwise;\n"
		"--max-growth judges 'by'. p99 and worst are shown beside p99.9.\n",
		LH_DIFF_MIN_DIST);
	for (i = 0; i < d->nr_rows && !d->rows[i].kind; i++)
		;
	if (i < d->nr_rows)
		fprintf(out, "timerlat_irq, timerlat_thread and hwlat_samples rows: every sample of the tracer, by p99.9 from %d samples.\n",
			LH_DIFF_MIN_DIST);
	fputc('\n', out);
	fprintf(out, "%-15s %-4s %-6s %12s %12s  %s\n", "Tracer", "CPU", "by", "base", "new",
		"change");
	for (i = 0; i < d->nr_rows; i++) {
		const struct lh_diff_row *r = &d->rows[i];

		if (r->cpu == LH_DIFF_ALL_CPUS)
			strcpy(cpu, "all");
		else
			lh_report_cpu_name(r->cpu, "", "?", cpu, sizeof(cpu));
		fprintf(out, "%-15s %-4s %-6s %12s %12s  %s%s%s%s\n", lh_diff_row_name(r),
			cpu, lh_diff_basis_name(r->basis),
			fmt_side(&r->base, r->base_ns, a, sizeof(a)),
			fmt_side(&r->new, r->new_ns, b, sizeof(b)), fmt_change(r, c, sizeof(c)),
			r->dist == LH_DIFF_DIST_NONE ? "" : "  from ",
			r->dist == LH_DIFF_DIST_NONE ? "" : lh_diff_dist_name(r->dist),
			r->failed ? "  FAIL" : "");
		if (r->dist != LH_DIFF_DIST_NONE) {
			struct lh_diff_row x = *r;

			/* the measures beside the basis, not judged */
			x.basis = LH_DIFF_P99;
			x.base_ns = r->base_p99_ns;
			x.new_ns = r->new_p99_ns;
			x.change_pct = lh_diff_change_pct(x.base_ns, x.new_ns);
			fprintf(out, "%-20s %-6s %12s %12s  %s\n", "", "p99",
				lh_report_fmt_us(x.base_ns, a, sizeof(a)),
				lh_report_fmt_us(x.new_ns, b, sizeof(b)), fmt_change(&x, c, sizeof(c)));
			x.basis = LH_DIFF_WORST;
			x.base_ns = r->base.worst_ns;
			x.new_ns = r->new.worst_ns;
			x.change_pct = lh_diff_change_pct(x.base_ns, x.new_ns);
			fprintf(out, "%-20s %-6s %12s %12s  %s\n", "", "worst",
				lh_report_fmt_us(x.base_ns, a, sizeof(a)),
				lh_report_fmt_us(x.new_ns, b, sizeof(b)), fmt_change(&x, c, sizeof(c)));
		}
	}
	if (!d->nr_rows)
		fputs("(no sections on either side)\n", out);
	write_available_text(d, out);
	fprintf(out, "\nOffenders: %zu new, %zu changed in all\n", d->nr_new_offenders,
		d->nr_offenders);
	for (i = 0; i < d->nr_offenders; i++) {
		const struct lh_diff_offender *o = &d->offenders[i];

		fprintf(out, "  %-5s %lluus -> %lluus (%" PRIu64 " -> %" PRIu64 " sections)  %s\n",
			change_names[o->change], (unsigned long long)o->base_worst_us,
			(unsigned long long)o->new_worst_us, o->base_count, o->new_count,
			o->signature);
	}
	fprintf(out, "\nRules whose hits grew: %zu\n", d->nr_rules);
	for (i = 0; i < d->nr_rules; i++)
		fprintf(out, "  %s (%s): %" PRIu64 " -> %" PRIu64 "%s%s\n", d->rules[i].id,
			lh_severity_name(d->rules[i].severity), d->rules[i].base_hits,
			d->rules[i].new_hits, d->rules[i].in_base ? "" : " (not in the base rules)",
			d->rules[i].failed ? "  FAIL" : "");
	fprintf(out, "\nIRQ handlers whose max or p99 grew: %zu\n", d->nr_irqs);
	for (i = 0; i < d->nr_irqs; i++) {
		const struct lh_diff_irq *q = &d->irqs[i];

		fprintf(out, "  irq %d %s: max %s -> %s", q->irq, q->name,
			q->base_count ? lh_report_fmt_us(q->base_max_ns, a, sizeof(a)) : "-",
			lh_report_fmt_us(q->new_max_ns, b, sizeof(b)));
		if (q->basis == LH_DIFF_P99)
			fprintf(out, ", p99 %s -> %s", lh_report_fmt_us(q->base_pct.p99_ns, a, sizeof(a)),
				lh_report_fmt_us(q->new_pct.p99_ns, b, sizeof(b)));
		if (!q->base_count)
			fputs(" (new)", out);
		else
			fprintf(out, " (%s %+.1f%%)", lh_diff_basis_name(q->basis), q->change_pct);
		fputs(q->failed ? "  FAIL\n" : "\n", out);
	}
	fputc('\n', out);
	write_gates_text(d, out);
	lh_report_verdict_text(&d->verdict, out);
	return 0;
}

/* One side of row r: "sections" of its records, or "samples" of its kind (null: absent). */
static void json_side(struct lh_json *w, const char *key, const struct lh_diff_row *r,
		      const struct lh_diff_value *v)
{
	if (!v->present) {
		lh_json_null(w, key);
		return;
	}
	lh_json_obj(w, key);
	lh_json_uint(w, r->kind ? "samples" : "sections", v->count);
	lh_json_us(w, "worst_us", v->worst_ns);
	lh_json_us_if(w, "p99_us", v->dist, v->p99_ns);
	lh_json_us_if(w, "p99_9_us", v->dist, v->p999_ns);
	lh_json_us_if(w, "kernel_p99_us", v->kernel.set, v->kernel.p99_ns);
	lh_json_us_if(w, "kernel_p99_9_us", v->kernel.set, v->kernel.p999_ns);
	lh_json_end(w);
}

static void json_names(struct lh_json *w, const char *key, const struct lh_diff_side *s)
{
	size_t i;

	lh_json_arr(w, key);
	for (i = 0; i < s->nr; i++)
		lh_json_str(w, NULL, s->names[i]);
	lh_json_end(w);
}

static void json_row(struct lh_json *w, const struct lh_diff_row *r)
{
	bool both = r->base.present && r->new.present;

	lh_json_obj(w, NULL);
	lh_json_str(w, "tracer", lh_tracer_name(r->tracer));
	lh_json_str(w, "samples", r->kind);
	if (r->cpu == LH_DIFF_ALL_CPUS)
		lh_json_str(w, "cpu", "all");
	else
		lh_json_int(w, "cpu", r->cpu);
	lh_json_str(w, "by", lh_diff_basis_name(r->basis));
	lh_json_str(w, "from", r->dist == LH_DIFF_DIST_NONE ? NULL : lh_diff_dist_name(r->dist));
	json_side(w, "base", r, &r->base);
	json_side(w, "new", r, &r->new);
	if (both)
		lh_json_us_sign(w, "change_us", r->new_ns > r->base_ns ? r->new_ns - r->base_ns :
				r->base_ns - r->new_ns, r->new_ns < r->base_ns);
	else
		lh_json_null(w, "change_us");
	lh_json_real(w, "change_pct", both ? r->change_pct : NAN);
	lh_json_bool(w, "gated", r->gated);
	if (r->gated)
		lh_json_real(w, "max_growth_pct", r->limit_pct);
	lh_json_bool(w, "failed", r->failed);
	lh_json_end(w);
}

/* One side of a CPU's availability: its figures as a report writes them, or null. */
static void json_noise(struct lh_json *w, const char *key, const struct lh_diff_noise *v)
{
	if (!v->listed) {
		lh_json_null(w, key);
		return;
	}
	lh_json_obj(w, key);
	lh_json_noise_members(w, &v->n);
	lh_json_end(w);
}

static void json_available(struct lh_json *w, const struct lh_diff *d)
{
	size_t i;

	lh_json_arr(w, "available");
	for (i = 0; i < d->nr_available; i++) {
		const struct lh_diff_available *x = &d->available[i];

		lh_json_obj(w, NULL);
		lh_json_int(w, "cpu", x->cpu);
		json_noise(w, "base", &x->base);
		json_noise(w, "new", &x->new);
		if (x->base.measured && x->new.measured)
			lh_json_double(w, "change_points", (double)x->change_milli / 1000.0);
		else
			lh_json_null(w, "change_points");
		lh_json_bool(w, "gated", x->gated);
		if (x->gated)
			lh_json_double(w, "max_drop_points",
				       (double)d->gate.available_drop_milli / 1000.0);
		lh_json_bool(w, "failed", x->failed);
		lh_json_end(w);
	}
	lh_json_end(w);
}

static void json_offenders(struct lh_json *w, const struct lh_diff *d)
{
	size_t i;

	lh_json_arr(w, "offenders");
	for (i = 0; i < d->nr_offenders; i++) {
		const struct lh_diff_offender *o = &d->offenders[i];

		lh_json_obj(w, NULL);
		lh_json_str(w, "change", change_names[o->change]);
		lh_json_str(w, "signature", o->signature);
		lh_json_uint(w, "base_count", o->base_count);
		lh_json_uint(w, "new_count", o->new_count);
		lh_json_uint(w, "base_worst_us", o->base_worst_us);
		lh_json_uint(w, "new_worst_us", o->new_worst_us);
		lh_json_end(w);
	}
	lh_json_end(w);
}

static void json_rules(struct lh_json *w, const struct lh_diff *d)
{
	size_t i;

	lh_json_arr(w, "rules");
	for (i = 0; i < d->nr_rules; i++) {
		lh_json_obj(w, NULL);
		lh_json_str(w, "id", d->rules[i].id);
		lh_json_str(w, "severity", lh_severity_name(d->rules[i].severity));
		lh_json_bool(w, "in_base", d->rules[i].in_base);
		lh_json_uint(w, "base_hits", d->rules[i].base_hits);
		lh_json_uint(w, "new_hits", d->rules[i].new_hits);
		lh_json_bool(w, "failed", d->rules[i].failed);
		lh_json_end(w);
	}
	lh_json_end(w);
}

static void json_irqs(struct lh_json *w, const struct lh_diff *d)
{
	size_t i;

	lh_json_arr(w, "irq_handlers");
	for (i = 0; i < d->nr_irqs; i++) {
		const struct lh_diff_irq *q = &d->irqs[i];

		lh_json_obj(w, NULL);
		lh_json_int(w, "irq", q->irq);
		lh_json_str(w, "name", q->name);
		lh_json_us_if(w, "base_max_us", q->base_count, q->base_max_ns);
		lh_json_us(w, "new_max_us", q->new_max_ns);
		lh_json_us_if(w, "base_p99_us", q->base_pct.set, q->base_pct.p99_ns);
		lh_json_us_if(w, "new_p99_us", q->new_pct.set, q->new_pct.p99_ns);
		lh_json_str(w, "by", lh_diff_basis_name(q->basis));
		lh_json_real(w, "change_pct", q->change_pct);
		lh_json_bool(w, "failed", q->failed);
		lh_json_end(w);
	}
	lh_json_end(w);
}

static int write_json(const struct lh_diff *d, FILE *out)
{
	struct lh_json *w = lh_json_alloc(out);
	size_t i;

	if (!w)
		return -1;
	w->exact_u64 = true;	/* sums of reports, exact to 2^64 */
	lh_json_obj(w, NULL);
	lh_json_int(w, "diff_version", 1);
	lh_json_verdict(w, lh_diff_verdict(d), &d->verdict);
	json_names(w, "base", &d->base);
	json_names(w, "new", &d->new);
	lh_json_int(w, "p99_9_min_sections", LH_DIFF_MIN_DIST);
	lh_json_arr(w, "rows");
	for (i = 0; i < d->nr_rows; i++)
		json_row(w, &d->rows[i]);
	lh_json_end(w);
	lh_json_uint(w, "new_offenders", d->nr_new_offenders);
	json_offenders(w, d);
	json_rules(w, d);
	json_irqs(w, d);
	json_available(w, d);
	lh_json_end(w);
	return lh_json_close(w);
}

/* Return: the violations whose subject is what ("irqsoff", "irq ") joined by "; ", or NULL. */
static char *violations_of(const struct lh_diff *d, const char *what)
{
	size_t i, n = strlen(what);
	char *s = NULL, *t;

	for (i = 0; i < d->verdict.nr_violations; i++) {
		const char *v = d->verdict.violations[i];

		if (strncmp(v, what, n) || (what[n - 1] != ' ' && v[n] != ':' && v[n] != ' '))
			continue;
		t = lh_xasprintf("%s%s%s", s ? s : "", s ? "; " : "", v);
		free(s);
		s = t;
	}
	return s;
}

/*
 * One testcase per tracer (failed when its growth gate failed over all CPUs or on one), one
 * for new offenders, one for new rule hits, one for IRQ handlers, and one for the comparison
 * itself (an error when it could not be judged).
 */
static int write_junit(const struct lh_diff *d, FILE *out)
{
	bool avail = d->nr_available || d->gate.has_available_drop;
	char *avail_fail = violations_of(d, "osnoise's ");
	size_t i, failures = 0, cases = 4 + avail;
	bool new_fail = d->gate.has_max_new && d->nr_new_offenders > d->gate.max_new_offenders;
	char *rules = NULL, *irqs = violations_of(d, "irq "), *s, *f;
	int ret = 0;

	for (i = 0; i < d->nr_rules; i++) {
		if (!d->rules[i].failed)
			continue;
		s = lh_xasprintf("%s%s'%s' %" PRIu64 " new hits", rules ? rules : "", rules ? "; " : "",
				 d->rules[i].id, d->rules[i].new_hits);
		free(rules);
		rules = s;
	}
	for (i = 0; i < d->nr_rows; i++) {
		if (d->rows[i].cpu != LH_DIFF_ALL_CPUS)
			continue;
		cases++;
		f = violations_of(d, lh_diff_row_name(&d->rows[i]));
		failures += f != NULL;
		free(f);
	}
	failures += new_fail + (rules != NULL) + (irqs != NULL) + (avail_fail != NULL);
	lh_junit_begin(out, &(struct lh_junit_suite){
		.name = "lathound diff", .tests = cases, .failures = failures,
		.errors = d->verdict.error ? 1 : 0,
	});
	ret |= lh_junit_case(out, &(struct lh_junit_case){
		.classname = "lathound.diff", .name = "comparison", .error = d->verdict.error,
		.out = lh_diff_verdict(d),
	});
	for (i = 0; i < d->nr_rows; i++) {
		const struct lh_diff_row *r = &d->rows[i];
		char name[64], a[32], b[32], c[64];

		if (r->cpu != LH_DIFF_ALL_CPUS)
			continue;
		snprintf(name, sizeof(name), "%s %s growth", lh_diff_row_name(r),
			 lh_diff_basis_name(r->basis));
		s = lh_xasprintf("%s: %s -> %s, %s%s", lh_diff_basis_name(r->basis),
				 fmt_side(&r->base, r->base_ns, a, sizeof(a)),
				 fmt_side(&r->new, r->new_ns, b, sizeof(b)),
				 fmt_change(r, c, sizeof(c)), r->gated ? "" : " (not gated)");
		f = violations_of(d, lh_diff_row_name(r));
		ret |= lh_junit_case(out, &(struct lh_junit_case){
			.classname = "lathound.diff", .name = name, .failure = f, .out = s,
		});
		free(f);
		free(s);
	}
	s = lh_xasprintf("%zu new offender signature%s%s", d->nr_new_offenders,
			 d->nr_new_offenders == 1 ? "" : "s",
			 d->gate.has_max_new ? "" : " (not gated)");
	ret |= lh_junit_case(out, &(struct lh_junit_case){
		.classname = "lathound.diff", .name = "new offenders",
		.failure = new_fail ? s : NULL, .out = s,
	});
	free(s);
	ret |= lh_junit_case(out, &(struct lh_junit_case){
		.classname = "lathound.diff", .name = "new rule hits", .failure = rules,
		.out = d->gate.fail_on_new == LH_GATE_FAIL_NONE ? "not gated" :
		       rules ? rules : "none",
	});
	s = lh_xasprintf("%zu handler%s whose max or p99 grew%s", d->nr_irqs,
			 d->nr_irqs == 1 ? "" : "s", d->gate.has_irq_growth ? "" : " (not gated)");
	ret |= lh_junit_case(out, &(struct lh_junit_case){
		.classname = "lathound.diff", .name = "irq handler growth", .failure = irqs,
		.out = s,
	});
	free(s);
	if (avail) {
		s = lh_xasprintf("%zu CPU%s of osnoise%s", d->nr_available,
				 d->nr_available == 1 ? "" : "s",
				 d->gate.has_available_drop ? "" : " (not gated)");
		ret |= lh_junit_case(out, &(struct lh_junit_case){
			.classname = "lathound.diff", .name = "osnoise available drop",
			.failure = avail_fail, .out = s,
		});
		free(s);
	}
	free(avail_fail);
	free(rules);
	free(irqs);
	lh_junit_end(out);
	return ret ? -1 : 0;
}

int lh_diff_write(const struct lh_diff *d, enum lh_format f, FILE *out)
{
	errno = 0;
	switch (f) {
	case LH_FORMAT_TEXT:
		write_text(d, out);
		break;
	case LH_FORMAT_JSON:
		if (write_json(d, out))
			return -1;
		break;
	case LH_FORMAT_JUNIT:
		if (write_junit(d, out))
			return -1;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	return lh_report_stream_status(out);
}
