// SPDX-License-Identifier: GPL-2.0-only
/*
 * Release gates: --max TRACER=DURATION budgets and the --fail-on severity, --max judged, and
 * the verdict that reports, merges and diffs reach.
 */
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
