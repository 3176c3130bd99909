/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The oracle for rule matching, shared by tests/unit/rules.c and tests/fuzz/fuzz-rules.c:
 * what lathound-rules(1) says a rule means, computed with plain PCRE2 and nothing of
 * rules.c. A pattern is matched against each non-empty line of each of its subjects alone;
 * with 'span = lines', against the subject's non-empty lines joined with '\n', compiled
 * with PCRE2_MULTILINE. A rule fires when it matches somewhere; when it does not but PCRE2
 * failed (a limit) somewhere, it is unevaluated; either only when its tracer and min hold.
 * The limits, JIT stack and JIT use are lathound's, so a limit hit is the same event; but a
 * prefiltered rule is not run on the lines the prefilter rules out (oracle_check()).
 */
#ifndef LH_RULES_ORACLE_H
#define LH_RULES_ORACLE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "rules/rules.h"
#include "trace/record.h"
#include "util/util.h"

struct oracle_lines {
	char	**v;
	size_t	nr;
	size_t	alloc;
};

static void oracle_add(struct oracle_lines *l, const char *s)
{
	if (!s || !*s)
		return;
	LH_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr++] = lh_xstrdup(s);
}

/* The non-empty lines of subject bit (LH_SUBJ_*) of r, as the man page lists them. */
static void oracle_subject(const struct lh_record *r, unsigned int bit, struct oracle_lines *l)
{
	const struct lh_task *tasks[3] = { &r->task, &r->woken, &r->waker };
	size_t i, j, nt = r->has_wakeup || lh_tracer_is_wakeup(r->tracer) ? 3 : 1;
	char *task;

	if (bit == LH_SUBJ_STACK)
		for (i = 0; i < r->nr_stacks && i < LH_MAX_STACKS; i++)
			for (j = 0; j < r->stacks[i].nr; j++)
				oracle_add(l, r->stacks[i].frames[j]);
	if (bit == LH_SUBJ_FUNCTIONS)
		for (i = 0; i < r->nr_funcs; i++)
			oracle_add(l, r->funcs[i].name);
	if (bit == LH_SUBJ_IRQ)
		for (i = 0; i < r->nr_irqs; i++)
			oracle_add(l, r->irqs[i].name);
	if (bit == LH_SUBJ_TASK) {
		for (i = 0; i < nt; i++) {
			if (!tasks[i]->comm)
				continue;
			if (tasks[i]->pid >= 0)
				task = lh_xasprintf("%s-%d", tasks[i]->comm, tasks[i]->pid);
			else
				task = lh_xstrdup(tasks[i]->comm);
			oracle_add(l, task);
			free(task);
		}
	}
	if (bit == LH_SUBJ_START)
		oracle_add(l, r->started_at);
	if (bit == LH_SUBJ_END)
		oracle_add(l, r->ended_at);
	if (bit == LH_SUBJ_BLOCKING && r->spike.set && r->spike.has_irq && r->spike.blocking.comm) {
		if (r->spike.blocking.pid >= 0)
			task = lh_xasprintf("%s-%d", r->spike.blocking.comm, r->spike.blocking.pid);
		else
			task = lh_xstrdup(r->spike.blocking.comm);
		oracle_add(l, task);
		free(task);
	}
}

static void oracle_free(struct oracle_lines *l)
{
	while (l->nr)
		free(l->v[--l->nr]);
	free(l->v);
}

/* Return: 1 match, 0 no match, -1 PCRE2 could not tell (a limit, a UTF error...). */
static int oracle_run(pcre2_code *code, const char *s, size_t len)
{
	static pcre2_match_context *mc;
	static pcre2_match_data *md;
	static pcre2_jit_stack *js;
	int rc;

	if (!mc) {
		mc = pcre2_match_context_create(NULL);
		md = pcre2_match_data_create(1, NULL);
		js = pcre2_jit_stack_create(LH_RULES_JIT_STACK_START, LH_RULES_JIT_STACK_MAX,
					    NULL);
		pcre2_set_match_limit(mc, LH_RULES_MATCH_LIMIT);
		pcre2_set_depth_limit(mc, LH_RULES_DEPTH_LIMIT);
		pcre2_set_heap_limit(mc, LH_RULES_HEAP_LIMIT_KIB);
		pcre2_jit_stack_assign(mc, NULL, js);
	}
	rc = pcre2_match(code, (PCRE2_SPTR)s, len, 0, 0, md, mc);
	return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

/* Return: 1 fired, 0 not, -1 unevaluated: rule on r, by the documented semantics. */
static int oracle_rule(const struct lh_rule *rule, const struct lh_record *r)
{
	static pcre2_compile_context *cc;
	struct oracle_lines l = { 0 };
	bool failed = false;
	uint64_t lat_ns;
	PCRE2_SIZE off;
	pcre2_code *code;
	unsigned int bit;
	int err, rc = 0;
	size_t i;

	lat_ns = r->latency_us > UINT64_MAX / 1000 ? UINT64_MAX : r->latency_us * 1000;
	if ((rule->tracers && !(rule->tracers & (1U << r->tracer))) || lat_ns < rule->min_ns)
		return 0;
	if (!cc) {
		cc = pcre2_compile_context_create(NULL);
		pcre2_set_newline(cc, PCRE2_NEWLINE_LF);
	}
	code = pcre2_compile((PCRE2_SPTR)rule->pattern, PCRE2_ZERO_TERMINATED,
			     rule->span ? PCRE2_MULTILINE : 0, &err, &off, cc);
	if (!code)
		abort();	/* lathound loaded it: PCRE2 compiles it */
	if (!lh_under_valgrind())
		pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
	for (bit = 1; bit < LH_SUBJ_ALL && rc <= 0; bit <<= 1) {
		if (!(rule->subjects & bit))
			continue;
		l = (struct oracle_lines){ 0 };
		oracle_subject(r, bit, &l);
		if (rule->span && l.nr) {
			size_t len = 0;
			char *text;

			for (i = 0; i < l.nr; i++)
				len += strlen(l.v[i]) + 1;
			text = calloc(1, len);
			for (i = 0; i < l.nr; i++)
				sprintf(text + strlen(text), "%s%s", i ? "\n" : "", l.v[i]);
			rc = oracle_run(code, text, strlen(text));
			failed |= rc < 0;
			free(text);
		}
		for (i = 0; !rule->span && i < l.nr && rc <= 0; i++) {
			rc = oracle_run(code, l.v[i], strlen(l.v[i]));
			failed |= rc < 0;
		}
		oracle_free(&l);
	}
	pcre2_code_free(code);
	return rc > 0 ? 1 : failed ? -1 : 0;
}

static bool oracle_listed(const size_t *v, size_t n, size_t i)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (v[k] == i)
			return true;
	return false;
}

/* Return: how many rules of rs m disagrees with the oracle on (each said on stderr). */
static size_t oracle_check(const struct lh_rules *rs, const struct lh_record *r,
			   const struct lh_match *m)
{
	size_t i, bad = 0;

	for (i = 0; i < lh_rules_count(rs); i++) {
		const struct lh_rule *rule = lh_rules_get(rs, i);
		int want = oracle_rule(rule, r);
		int got = oracle_listed(m->hits, m->nr_hits, i) ? 1 :
			  oracle_listed(m->unevaluated, m->nr_unevaluated, i) ? -1 : 0;

		/*
		 * A line the prefilter rules out does not match, and PCRE2 does not run there
		 * (lathound-rules(1)): a limit PCRE2 alone hits on such a line is not one.
		 */
		if (got == want || (rule->prefiltered && want < 0 && got == 0))
			continue;
		fprintf(stderr, "rule '%s' (match = %s%s): lathound %d, PCRE2 %d\n", rule->id,
			rule->pattern, rule->span ? ", span = lines" : "", got, want);
		bad++;
	}
	for (i = 1; i < m->nr_hits; i++)
		bad += m->hits[i - 1] >= m->hits[i];		/* in rule order, once */
	return bad;
}

#endif /* LH_RULES_ORACLE_H */
