// SPDX-License-Identifier: GPL-2.0-only
/*
 * Release gates: --max TRACER=DURATION budgets and the --fail-on severity, --max judged, and
 * the verdict that reports, merges and diffs reach.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *const fail_on_names[] = {
	[LH_SEV_INFO]		= "info",
	[LH_SEV_WARNING]	= "warning",
	[LH_SEV_CRITICAL]	= "critical",
};

void lh_gate_init(struct lh_gate *g)
{
	memset(g, 0, sizeof(*g));
	g->fail_on = LH_SEV_CRITICAL;
}

int lh_gate_parse_key(const char *arg, const char *expected, enum lh_tracer *t,
		      const char **value, const char **err)
{
	const char *eq = arg ? strchr(arg, '=') : NULL;

	if (!eq || eq == arg) {
		*err = expected;
		return -1;
	}
	if (eq - arg == 3 && !memcmp(arg, "all", 3)) {
		*t = LH_TRACER_UNKNOWN;
	} else {
		*t = lh_tracer_from_name(arg, (size_t)(eq - arg));
		if (*t == LH_TRACER_UNKNOWN) {
			*err = "unknown tracer (use irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt, wakeup_dl or all)";
			return -1;
		}
	}
	*value = eq + 1;
	return 0;
}

int lh_gate_parse_max(struct lh_gate *g, const char *arg, const char **err)
{
	const char *value;
	enum lh_tracer t;
	uint64_t ns;

	if (lh_gate_parse_key(arg, "expected TRACER=DURATION, e.g. irqsoff=500us or all=1ms", &t,
			      &value, err))
		return -1;
	if (lh_budget_parse(value, &ns, err))
		return -1;
	/* Two budgets for one tracer is a typo in a CI script: keeping either would hide it. */
	if (g->has_max[t]) {
		*err = "a budget for this tracer was already given";
		return -1;
	}
	g->has_max[t] = true;
	g->max_ns[t] = ns;
	return 0;
}

int lh_gate_parse_osnoise_pct(const char *arg, const char *expected, const char *twice,
			      bool *has, uint32_t *milli, const char **err)
{
	const char *value, *p;
	uint32_t m = 0, digits = 0;
	enum lh_tracer t;

	if (lh_gate_parse_key(arg, expected, &t, &value, err))
		return -1;
	if (t != LH_TRACER_OSNOISE) {
		*err = "only osnoise measures the CPU available (use osnoise=PCT)";
		return -1;
	}
	for (p = value; *p >= '0' && *p <= '9' && m <= 100000; p++)
		m = m * 10 + (uint32_t)(*p - '0') * 1000;
	if (p == value) {
		*err = "expected a percentage, e.g. 99.5";
		return -1;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (++digits > 3) {
				*err = "at most 3 decimals";
				return -1;
			}
			m += (uint32_t)(*p - '0') * (digits == 1 ? 100 : digits == 2 ? 10 : 1);
		}
		if (!digits) {
			*err = "expected a percentage, e.g. 99.5";
			return -1;
		}
	}
	if (*p == '%')
		p++;
	if (*p || m > 100000) {
		*err = *p && (*p < '0' || *p > '9') ? "expected a percentage, e.g. 99.5" :
		       "a percentage is at most 100";
		return -1;
	}
	/* two for one tracer is a typo in a CI script: keeping either would hide it */
	if (*has) {
		*err = twice;
		return -1;
	}
	*has = true;
	*milli = m;
	return 0;
}

int lh_gate_parse_min_available(struct lh_gate *g, const char *arg, const char **err)
{
	return lh_gate_parse_osnoise_pct(arg, "expected osnoise=PCT, e.g. osnoise=99.5",
					 "a minimum for osnoise was already given",
					 &g->has_min_available, &g->min_available_milli, err);
}

int lh_gate_available(uint64_t runtime_ns, uint64_t noise_ns, uint32_t *milli)
{
	uint64_t rem, q = 0;
	int i;

	if (!runtime_ns)
		return -1;
	if (noise_ns > runtime_ns)
		noise_ns = runtime_ns;
	/* below, rem < runtime_ns: rem * 10 cannot overflow (58 years of runtime and more) */
	while (runtime_ns > UINT64_MAX / 10) {
		runtime_ns >>= 1;
		noise_ns >>= 1;
	}
	/* q = noise * 100000 / runtime, one decimal digit at a time */
	rem = noise_ns;
	for (i = 0; i < 5; i++) {
		rem *= 10;
		q = q * 10 + rem / runtime_ns;
		rem %= runtime_ns;
	}
	if (rem)
		q++;
	*milli = (uint32_t)(100000 - q);
	return 0;
}

char *lh_gate_fmt_available(uint32_t milli, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%03u", milli / 1000, milli % 1000);
	return buf;
}

int lh_gate_parse_fail_on(struct lh_gate *g, const char *arg, const char **err)
{
	size_t i;

	if (arg && !strcmp(arg, "none")) {
		g->fail_on = LH_GATE_FAIL_NONE;
		return 0;
	}
	for (i = 0; arg && i < LH_ARRAY_SIZE(fail_on_names); i++) {
		if (!strcmp(arg, fail_on_names[i])) {
			g->fail_on = (enum lh_severity)i;
			return 0;
		}
	}
	*err = "expected info, warning, critical or none";
	return -1;
}

const char *lh_gate_fail_on_name(const struct lh_gate *g)
{
	if ((size_t)g->fail_on < LH_ARRAY_SIZE(fail_on_names))
		return fail_on_names[g->fail_on];
	return "none";
}

bool lh_gate_budget(const struct lh_gate *g, enum lh_tracer t, uint64_t *ns)
{
	if ((unsigned int)t < LH_TRACER_NR && t != LH_TRACER_UNKNOWN && g->has_max[t]) {
		*ns = g->max_ns[t];
		return true;
	}
	if (g->has_max[LH_TRACER_UNKNOWN]) {
		*ns = g->max_ns[LH_TRACER_UNKNOWN];
		return true;
	}
	return false;
}

enum lh_gate_max lh_gate_judge_max(const struct lh_gate *g, enum lh_tracer t,
				   const struct lh_gate_measure *m, uint64_t *budget_ns, bool *own)
{
	if (!lh_gate_budget(g, t, budget_ns))
		return LH_GATE_MAX_NONE;
	*own = t != LH_TRACER_UNKNOWN && g->has_max[t];
	if (m->not_measured || (*own && !m->measured))
		return LH_GATE_MAX_UNMEASURED;
	if (m->has_worst && m->worst_ns > *budget_ns)
		return LH_GATE_MAX_OVER;
	return LH_GATE_MAX_PASS;
}

void lh_verdict_error_of(struct lh_verdict *v, enum lh_verdict_kind kind, char *why)
{
	if (v->error) {
		free(why);
		return;
	}
	v->error = why;
	v->error_kind = kind;
}

void lh_verdict_error(struct lh_verdict *v, char *why)
{
	lh_verdict_error_of(v, LH_VERDICT_RUN, why);
}

void lh_verdict_violation(struct lh_verdict *v, char *what)
{
	if (!what)
		return;
	LH_GROW(v->violations, v->nr_violations + 1, v->alloc_violations);
	v->violations[v->nr_violations++] = what;
}

void lh_verdict_clear_violations(struct lh_verdict *v)
{
	size_t i;

	for (i = 0; i < v->nr_violations; i++)
		free(v->violations[i]);
	v->nr_violations = 0;
}

void lh_verdict_release(struct lh_verdict *v)
{
	lh_verdict_clear_violations(v);
	free(v->violations);
	free(v->error);
	memset(v, 0, sizeof(*v));
}

const char *lh_verdict_name(const struct lh_verdict *v)
{
	return v->error ? "error" : v->nr_violations ? "fail" : "pass";
}
