// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JUnit XML report, for CI: one testcase per tracer under a latency budget (its own
 * --max, or --max all= for every tracer measured) and per rule, with a <failure> when that
 * gate failed, and for a record run one for the run itself, and the suite's <properties>
 * (each tracer's armed and blind seconds). Rules that cannot fail the gate (severity below
 * --fail-on, or 'ignore') pass and say their hits in <system-out>.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "junit.h"
#include "report-priv.h"

struct junit_case {
	const char	*classname;
	char		name[160];
	char		*failure;	/* a gate failed (the violation); NULL: passed */
	char		*detail;	/* where the failure was: file, sites, handler, rule */
	double		time;		/* seconds it measured (a tracer's armed time) */
	char		*error;		/* it could not be judged (verdict error) */
	char		*skipped;	/* not judged, and accepted so (--allow-unreadable) */
	char		*out;		/* system-out text */
};

/* Appends "; v" to *acc (taking v). */
static void join(char **acc, char *v)
{
	char *s;

	if (!v)
		return;
	if (!*acc) {
		*acc = v;
		return;
	}
	s = lh_xmalloc(strlen(*acc) + strlen(v) + 3);
	sprintf(s, "%s; %s", *acc, v);
	free(*acc);
	free(v);
	*acc = s;
}

static char *tracer_summary(const struct lh_report *rep, enum lh_tracer t)
{
	const struct lh_report_tracer *tr = &rep->tracers[t];

	if (!tr->count)
		return lh_xasprintf("no %s sections", lh_tracer_name(t));
	if (!tr->accepted)
		return lh_xasprintf("%s: %" PRIu64 " section%s, worst %lluus", lh_tracer_name(t),
				    tr->count, tr->count == 1 ? "" : "s",
				    (unsigned long long)tr->worst.latency_us);
	return lh_xasprintf("%s: %" PRIu64 " section%s, worst %lluus; %" PRIu64 " accepted by 'ignore' rules, worst of the others %lluus",
			    lh_tracer_name(t), tr->count, tr->count == 1 ? "" : "s",
			    (unsigned long long)tr->worst.latency_us, tr->accepted,
			    (unsigned long long)(tr->gate.set ? tr->gate.latency_us : 0));
}

/*
 * A record run's own testcase: how long each tracer was armed, what was captured and lost,
 * the command's status, and what could not be measured; failed when the run failed.
 */
static void run_case(const struct lh_report *rep, struct junit_case *c)
{
	const struct lh_run_info *run = &rep->run;
	bool armed = false;
	int t;

	c->classname = "lathound.run";
	snprintf(c->name, sizeof(c->name), "run");
	if (run->ended_ns > run->started_ns)
		c->time = (double)(run->ended_ns - run->started_ns) / 1e9;
	if (rep->verdict.error)
		c->error = lh_xstrdup(rep->verdict.error);
	join(&c->out, lh_xasprintf("ended by %s", run->end_reason ? run->end_reason : "?"));
	for (t = 1; t < LH_TRACER_NR; t++) {
		if (!run->armed_ns[t])
			continue;
		join(&c->out, lh_xasprintf("%s armed %.1f s (blind %.1f s)", lh_tracer_name(t),
					   (double)run->armed_ns[t] / 1e9,
					   (double)run->blind_ns[t] / 1e9));
		armed = true;
	}
	if (armed || run->wait_method)
		join(&c->out, lh_xasprintf("%" PRIu64 " capture%s, %" PRIu64 " section%s lost", run->captures,
					   run->captures == 1 ? "" : "s", run->sections_lost,
					   run->sections_lost == 1 ? "" : "s"));
	else
		join(&c->out, lh_xstrdup("no latency tracer armed (IRQ statistics only)"));
	if (run->command && run->command_status >= 0)
		join(&c->out, lh_xasprintf("command %s: exit status %d", run->command,
					   run->command_status));
	for (t = 1; t < LH_TRACER_NR; t++)
		if (run->not_measured[t])
			join(&c->out, lh_xasprintf("%s not measured (%s)", lh_tracer_name(t),
						   run->not_measured[t]));
}

/* A record run's figures CI may plot: per tracer armed, seconds armed and blind. */
static void write_properties(const struct lh_report *rep, FILE *out)
{
	const struct lh_run_info *run = &rep->run;
	bool any = false;
	int t;

	for (t = 1; rep->has_run && t < LH_TRACER_NR; t++) {
		if (!run->armed_ns[t])
			continue;
		if (!any)
			fprintf(out, "    <properties>\n");
		any = true;
		fprintf(out, "      <property name=\"%s.armed_s\" value=\"%.3f\"/>\n",
			lh_tracer_name(t), (double)run->armed_ns[t] / 1e9);
		fprintf(out, "      <property name=\"%s.blind_s\" value=\"%.3f\"/>\n",
			lh_tracer_name(t), (double)run->blind_ns[t] / 1e9);
	}
	if (any)
		fprintf(out, "    </properties>\n");
}

/* Return: whether --max all= gives tracer t its budget: t measured and without its own. */
static bool all_applies(const struct lh_report *rep, int t)
{
	bool measured = rep->tracers[t].count || (rep->has_run && rep->run.armed_ns[t]);

	return rep->gate.has_max[LH_TRACER_UNKNOWN] && measured &&
	       (t == LH_TRACER_UNKNOWN || !rep->gate.has_max[t]);
}

static bool covered_by_all(const struct lh_report *rep)
{
	int t;

	for (t = 0; t < LH_TRACER_NR; t++)
		if (all_applies(rep, t))
			return true;
	return false;
}

/*
 * The testcase of tracer t's budget, its own --max or all=, named after the tracer alone so
 * that CI histories follow it across budget changes (the budget is in the text).
 * Return: whether t has one (filled in c).
 */
static bool max_case(const struct lh_report *rep, int t, struct junit_case *c)
{
	bool own = t != LH_TRACER_UNKNOWN && rep->gate.has_max[t];
	char budget[32];

	if (!own && !all_applies(rep, t))
		return false;
	c->classname = "lathound.max";
	snprintf(c->name, sizeof(c->name), "%s", lh_tracer_name(t));
	c->failure = lh_report_max_violation(rep, t);
	if (c->failure)
		c->detail = lh_report_where_text(&rep->tracers[t].gate, true);
	if (rep->has_run)
		c->time = (double)rep->run.armed_ns[t] / 1e9;
	c->out = lh_xasprintf("budget --max %s=%s", own ? lh_tracer_name(t) : "all",
			      lh_duration_format(rep->gate.max_ns[own ? t : LH_TRACER_UNKNOWN],
						 budget, sizeof(budget)));
	join(&c->out, tracer_summary(rep, t));
	return true;
}

/*
 * --min-available: one testcase per CPU osnoise measured or was to (a CPU without a period is
 * an error, as the verdict says), or one error when it measured none. Return: cases added.
 */
static size_t available_cases(const struct lh_report *rep, struct junit_case *cs)
{
	char got[16], min[16];
	uint32_t milli;
	size_t i;

	if (!rep->gate.has_min_available)
		return 0;
	lh_gate_fmt_available(rep->gate.min_available_milli, min, sizeof(min));
	if (!rep->nr_noise) {
		cs[0].classname = "lathound.min_available";
		snprintf(cs[0].name, sizeof(cs[0].name), "osnoise");
		cs[0].error = lh_xasprintf("osnoise measured no period: --min-available osnoise=%s cannot be judged",
					   min);
		return 1;
	}
	for (i = 0; i < rep->nr_noise; i++) {
		const struct lh_report_noise *nz = &rep->noise[i];
		struct junit_case *c = &cs[i];

		c->classname = "lathound.min_available";
		snprintf(c->name, sizeof(c->name), "osnoise.CPU%d", nz->cpu);
		if (lh_gate_available(nz->runtime_ns, nz->noise_ns, &milli)) {
			c->error = lh_xasprintf("CPU%d measured no osnoise period: --min-available osnoise=%s cannot be judged",
						nz->cpu, min);
			continue;
		}
		c->failure = lh_report_available_violation(&rep->gate, nz);
		c->out = lh_xasprintf("%s %% available over %" PRIu64 " period%s; --min-available osnoise=%s",
				      lh_gate_fmt_available(milli, got, sizeof(got)), nz->periods,
				      nz->periods == 1 ? "" : "s", min);
	}
	return rep->nr_noise;
}

/* Return: the testcases, *nr of them (free each with free_cases()). */
static struct junit_case *make_cases(const struct lh_report *rep, size_t *nr)
{
	size_t n = 0, i, nrules = rep->rules ? lh_rules_count(rep->rules) : 0;
	struct junit_case *cs = lh_xcalloc(LH_TRACER_NR + nrules + rep->nr_noise + 1 + rep->inputs_unread +
					   rep->inputs_accepted + 2, sizeof(*cs));
	char budget[32];
	int t;

	if (rep->has_run) {
		run_case(rep, &cs[n++]);
	} else if (rep->verdict.error && !rep->inputs_unread) {
		struct junit_case *c = &cs[n++];

		c->classname = "lathound.input";
		snprintf(c->name, sizeof(c->name), "input");
		c->error = lh_xstrdup(rep->verdict.error);
		c->out = lh_xstrdup("the run failed: the other testcases cover only what was read");
	}
	/* Each input not read in full, named by its file: an error, or skipped when accepted. */
	for (i = 0; i < rep->nr_inputs; i++) {
		const struct lh_report_input *in = &rep->inputs[i];
		struct junit_case *c;

		if (!in->problem)
			continue;
		c = &cs[n++];
		c->classname = "lathound.input";
		snprintf(c->name, sizeof(c->name), "%s", in->name);
		if (in->accepted)
			c->skipped = lh_xasprintf("%s (accepted: --allow-unreadable)", in->problem);
		else
			c->error = lh_xstrdup(in->problem);
		c->out = lh_xasprintf("%" PRIu64 " snapshot%s read, %" PRIu64 " skipped as malformed; the other testcases cover only what was read",
				      in->snapshots, in->snapshots == 1 ? "" : "s", in->skipped);
	}
	/* Tracers named first, records of a tracer lathound does not know last. */
	for (i = 1; i <= LH_TRACER_NR; i++) {
		t = (int)(i % LH_TRACER_NR);
		if (max_case(rep, t, &cs[n]))
			n++;
	}
	if (rep->gate.has_max[LH_TRACER_UNKNOWN] && !covered_by_all(rep)) {
		struct junit_case *c = &cs[n++];

		c->classname = "lathound.max";
		snprintf(c->name, sizeof(c->name), "all");
		c->out = lh_xasprintf("--max all=%s: no section of a tracer without its own budget was read",
				      lh_duration_format(rep->gate.max_ns[LH_TRACER_UNKNOWN],
							 budget, sizeof(budget)));
	}
	n += available_cases(rep, &cs[n]);
	for (i = 0; i < nrules; i++) {
		const struct lh_rule *rule = lh_rules_get(rep->rules, i);
		const struct lh_report_rule *ra = i < rep->nr_rules ? &rep->rule_agg[i] : NULL;
		unsigned long hits = ra ? ra->hits : 0, acc = ra ? ra->accepted : 0;
		struct junit_case *c = &cs[n++];
		const char *why;

		c->classname = "lathound.rules";
		snprintf(c->name, sizeof(c->name), "%s", rule->id);
		c->failure = lh_report_rule_violation(rep, i);
		if (c->failure)
			c->detail = lh_report_where_text(&ra->gate_where, false);
		if (ra && ra->gate_unevaluated && lh_report_rule_gated(rep, i))
			join(&c->failure, lh_xasprintf("rule %s could not be evaluated on %" PRIu64 " record%s (%s): the gate cannot be decided",
						       rule->id, ra->gate_unevaluated,
						       ra->gate_unevaluated == 1 ? "" : "s",
						       rule->limit_hit));
		if (rule->severity == LH_SEV_IGNORE)
			why = "an 'ignore' rule accepts its offenders";
		else if (lh_report_rule_gated(rep, i))
			why = "at or above --fail-on";
		else
			why = "below --fail-on";
		c->out = lh_xasprintf("%lu hit%s (%lu accepted), worst %lluus; severity %s, --fail-on %s: %s",
				      hits, hits == 1 ? "" : "s", acc,
				      (unsigned long long)(ra ? ra->worst_us : 0),
				      lh_severity_name(rule->severity),
				      lh_gate_fail_on_name(&rep->gate), why);
	}
	*nr = n;
	return cs;
}

static void free_cases(struct junit_case *cs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(cs[i].failure);
		free(cs[i].detail);
		free(cs[i].error);
		free(cs[i].skipped);
		free(cs[i].out);
	}
	free(cs);
}

/*
 * <failure>, <error> or <skipped/>: the message, and for the first two the same text with
 * detail (may be NULL) after it as the element's text.
 */
int lh_report_write_junit(struct lh_report *rep, FILE *out)
{
	size_t n, i, failures = 0, errors = 0, skipped = 0;
	struct junit_case *cs = make_cases(rep, &n);
	uint64_t start = rep->created_ns, end = lh_wall_ns();
	char stamp[32], suite[48];
	double secs;

	if (rep->has_run) {
		start = rep->run.started_ns;
		end = rep->run.ended_ns > start ? rep->run.ended_ns : start;
	}
	secs = end > start ? (double)(end - start) / 1e9 : 0;
	if (!lh_report_iso8601(start, stamp, sizeof(stamp)))
		snprintf(stamp, sizeof(stamp), "1970-01-01T00:00:00Z");
	for (i = 0; i < n; i++) {
		failures += cs[i].failure != NULL;
		errors += cs[i].error != NULL;
		skipped += cs[i].skipped != NULL;
	}
	snprintf(suite, sizeof(suite), "lathound %s",
		 rep->has_run && rep->run.mode ? rep->run.mode : "analyze");
	errno = 0;
	lh_junit_begin(out, &(struct lh_junit_suite){
		.name = suite, .tests = n, .failures = failures, .errors = errors, .timed = true,
		.skipped = skipped, .time = secs, .timestamp = stamp,
	});
	write_properties(rep, out);
	for (i = 0; i < n; i++)
		lh_junit_case(out, &(struct lh_junit_case){
			.classname = cs[i].classname, .name = cs[i].name, .error = cs[i].error,
			.failure = cs[i].failure, .detail = cs[i].detail, .skipped = cs[i].skipped,
			.out = cs[i].out ? cs[i].out : "", .typed = true, .time = cs[i].time,
		});
	lh_junit_end(out);
	free_cases(cs, n);
	return lh_report_stream_status(out);
}
