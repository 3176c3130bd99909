// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests of rules.c: rule-file parsing, every error message, matching, limits, cache. */
#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "trace/record.h"
#include "rules/rules.h"
#include "util/util.h"
#include "check-main.h"
#include "rules-oracle.h"

#define RULES_DATA LH_TEST_DATA "/rules"


/* Helpers */

static struct lh_rules *load(const char *text, struct lh_diag *d)
{
	struct lh_rules *rs = lh_rules_alloc();

	lh_rules_load_buffer(rs, "x.rules", text, strlen(text), d);
	return rs;
}

static const struct lh_rule *rule_by_id(const struct lh_rules *rs, const char *id)
{
	size_t i;

	for (i = 0; i < lh_rules_count(rs); i++)
		if (!strcmp(lh_rules_get(rs, i)->id, id))
			return lh_rules_get(rs, i);
	return NULL;
}

static void dump_diag(const struct lh_diag *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		fprintf(stderr, "  diag: %s\n", d->msgs[i].text);
}

/* Loads text, which must give exactly one error, with this exact message. */
static void expect_error(const char *text, const char *msg)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = lh_rules_alloc();
	int ret = lh_rules_load_buffer(rs, "x.rules", text, strlen(text), &d);

	if (d.errors != 1 || strcmp(d.msgs[0].text, msg))
		dump_diag(&d);
	ck_assert_int_eq(ret, -1);
	ck_assert_uint_eq(d.errors, 1);
	ck_assert_str_eq(d.msgs[0].text, msg);
	lh_diag_release(&d);
	lh_rules_free(rs);
}

static struct lh_record *rec_new(enum lh_tracer t, uint64_t latency_us)
{
	struct lh_record *r = lh_record_alloc();

	r->tracer = t;
	r->latency_us = latency_us;
	r->source = "t.trace";
	r->line = 1;
	return r;
}

static void rec_func(struct lh_record *r, const char *name)
{
	struct lh_func *f = lh_record_add_func(r, lh_arena_strdup(&r->arena, name), strlen(name));

	f->count = 1;
}

static void rec_frame(struct lh_record *r, size_t stack, const char *name)
{
	lh_record_add_frame(r, stack, name, strlen(name));
}

static void rec_irq(struct lh_record *r, const char *name)
{
	struct lh_irq *q = lh_record_add_irq(r);

	q->irq = 24;
	q->name = lh_arena_strdup(&r->arena, name);
}

static void rec_task(struct lh_task *t, struct lh_record *r, const char *comm, int pid)
{
	t->comm = lh_arena_strdup(&r->arena, comm);
	t->pid = pid;
}

/* Return: whether the rule called id fired on r (match storage reused). */
static bool fires(struct lh_rules *rs, struct lh_record *r, const char *id)
{
	struct lh_match m = { 0 };
	struct lh_diag d = { 0 };
	bool found = false;
	size_t i;

	ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
	for (i = 0; i < m.nr_hits; i++)
		if (!strcmp(lh_rules_get(rs, m.hits[i])->id, id))
			found = true;
	lh_match_release(&m);
	lh_diag_release(&d);
	return found;
}

/* Parsing */

START_TEST(test_severity)
{
	enum lh_severity s;

	ck_assert_str_eq(lh_severity_name(LH_SEV_INFO), "info");
	ck_assert_str_eq(lh_severity_name(LH_SEV_WARNING), "warning");
	ck_assert_str_eq(lh_severity_name(LH_SEV_CRITICAL), "critical");
	ck_assert_str_eq(lh_severity_name(LH_SEV_IGNORE), "ignore");
	ck_assert_int_eq(lh_severity_parse("critical", &s), 0);
	ck_assert_int_eq(s, LH_SEV_CRITICAL);
	ck_assert_int_eq(lh_severity_parse("ignore", &s), 0);
	ck_assert_int_eq(s, LH_SEV_IGNORE);
	ck_assert_int_eq(lh_severity_parse("Critical", &s), -1);
	ck_assert_int_eq(lh_severity_parse("", &s), -1);
}
END_TEST

START_TEST(test_every_key)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("# comment\n"
				   "\n"
				   "[raid-irq-held]                   # id comment\n"
				   "match    = ^(megasas|mpt3sas|fakeraid)\n"
				   "in       = irq functions stack    # subjects\n"
				   "tracer   = irqsoff preemptirqsoff # tracers\n"
				   "min      = 500us                  # min\n"
				   "severity = critical\n"
				   "message  = RAID driver kept interrupts disabled   # shown in reports\n",
				   &d);
	const struct lh_rule *r;

	dump_diag(&d);
	ck_assert_uint_eq(d.errors, 0);
	ck_assert_uint_eq(lh_rules_count(rs), 1);
	r = lh_rules_get(rs, 0);
	ck_assert_str_eq(r->id, "raid-irq-held");
	ck_assert_str_eq(r->pattern, "^(megasas|mpt3sas|fakeraid)");
	ck_assert_uint_eq(r->subjects, LH_SUBJ_IRQ | LH_SUBJ_FUNCTIONS | LH_SUBJ_STACK);
	ck_assert_uint_eq(r->tracers, (1U << LH_TRACER_IRQSOFF) | (1U << LH_TRACER_PREEMPTIRQSOFF));
	ck_assert_uint_eq(r->min_ns, 500000);
	ck_assert_int_eq(r->severity, LH_SEV_CRITICAL);
	ck_assert_str_eq(r->message, "RAID driver kept interrupts disabled");
	ck_assert_str_eq(r->file, "x.rules");
	ck_assert_uint_eq(r->line, 3);
	ck_assert_ptr_null(lh_rules_get(rs, 1));
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_defaults_and_lists)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[a.b_c-1]\nmatch=x\n"
				   "[all]\nmatch = y\nin = task,start, end\ntracer = wakeup,wakeup_rt "
				   "wakeup_dl preemptoff\nmin = 2ms\nseverity = ignore\n"
				   "[bare]\nmatch = z\nmin = 250\n",
				   &d);
	const struct lh_rule *r;

	ck_assert_uint_eq(d.errors, 0);
	r = rule_by_id(rs, "a.b_c-1");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->pattern, "x");
	ck_assert_uint_eq(r->subjects, LH_SUBJ_ALL);
	ck_assert_uint_eq(r->tracers, 0);
	ck_assert_uint_eq(r->min_ns, 0);
	ck_assert_int_eq(r->severity, LH_SEV_WARNING);
	ck_assert_ptr_null(r->message);
	ck_assert_uint_eq(r->line, 1);
	r = rule_by_id(rs, "all");
	ck_assert_uint_eq(r->subjects, LH_SUBJ_TASK | LH_SUBJ_START | LH_SUBJ_END);
	ck_assert_uint_eq(r->tracers, (1U << LH_TRACER_WAKEUP) | (1U << LH_TRACER_WAKEUP_RT) |
				      (1U << LH_TRACER_WAKEUP_DL) | (1U << LH_TRACER_PREEMPTOFF));
	ck_assert_uint_eq(r->min_ns, 2000000);
	ck_assert_int_eq(r->severity, LH_SEV_IGNORE);
	/* a bare number's meaning is lh_budget_parse()'s: tests/unit/util.c */
	ck_assert_uint_eq(rule_by_id(rs, "bare")->min_ns, 250000);
	lh_rules_free(rs);
}
END_TEST

/* 'min' is a latency budget: 0 and a second or more are refused, as --max refuses them. */
START_TEST(test_min_is_a_budget)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[m]\nmatch = x\nmin = 1m\n[z]\nmatch = y\nmin = 0\n", &d);

	ck_assert_uint_eq(d.errors, 2);
	ck_assert_ptr_nonnull(strstr(d.msgs[0].text, "x.rules:3:7: invalid duration '1m' for 'min'"));
	ck_assert_ptr_nonnull(strstr(d.msgs[0].text, "did you mean 'ms'?"));
	ck_assert_ptr_nonnull(strstr(d.msgs[1].text, ":6:7: invalid duration '0' for 'min'"));
	lh_rules_free(rs);
	lh_diag_release(&d);
}
END_TEST

START_TEST(test_match_verbatim)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("  # indented comment\r\n"
				   "[h]\r\n"
				   "match   =   ^weird#name # not a comment   \r\n"
				   "message = bug#12 is fine, but # this is a comment\r\n"
				   "[m]\n"
				   "match = a=b\n"
				   "message = #only a comment\n",
				   &d);
	const struct lh_rule *r;

	if (d.errors != 1)
		dump_diag(&d);
	ck_assert_uint_eq(d.errors, 1);	/* 'message' of [m] is empty once its comment goes */
	ck_assert_str_eq(d.msgs[0].text, "x.rules:7:11: empty value for 'message'");
	r = rule_by_id(rs, "h");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->pattern, "^weird#name # not a comment");
	ck_assert_str_eq(r->message, "bug#12 is fine, but");
	ck_assert_ptr_null(rule_by_id(rs, "m"));
	lh_diag_release(&d);
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_errors)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "# broken regex\n[a]\nmatch = foo(\n", "x.rules:3:13: missing closing parenthesis" },
		{ "[a]\nmatch   =   ab[c\n",
		  "x.rules:2:17: missing terminating ] for character class" },
		{ "[a]\nmatch = a{2,1}\n",
		  "x.rules:2:14: numbers out of order in {} quantifier" },
		{ "match = x\n",
		  "x.rules:1:1: 'match' outside a rule section (start one with '[id]')" },
		{ "[a]\nmatch = x\ncolour = red\n",
		  "x.rules:3:1: unknown key 'colour' (use match, in, tracer, min, severity, span or message)" },
		{ "[a]\n  in = irq\n", "x.rules:1:1: rule 'a' has no 'match' pattern" },
		{ "[bad id]\nmatch = x\n",
		  "x.rules:1:5: invalid character ' ' in rule id 'bad id' (use letters, digits, '-', '_' and '.')" },
		{ "[a/b]\nmatch = x\n",
		  "x.rules:1:3: invalid character '/' in rule id 'a/b' (use letters, digits, '-', '_' and '.')" },
		{ "[]\nmatch = x\n", "x.rules:1:2: empty rule id" },
		{ "[a\nmatch = x\n", "x.rules:1:1: unterminated section header (expected '[id]')" },
		{ "[a] b\nmatch = x\n", "x.rules:1:5: unexpected text after section header '[a]'" },
		{ "[a]\nmatch = x\nmin = 5xs\n",
		  "x.rules:3:7: invalid duration '5xs' for 'min': unknown duration unit (use ns, us, ms, s, m or h)" },
		{ "[a]\nmatch = x\nmin = -5us\n",
		  "x.rules:3:7: invalid duration '-5us' for 'min': a duration is a positive number with a unit (ns, us, ms, s, m, h)" },
		{ "[a]\nmatch = x\ntracer = irqsoff function\n",
		  "x.rules:3:18: unknown tracer 'function' (use irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt or wakeup_dl)" },
		{ "[a]\nmatch = x\nin = irq, stacks\n",
		  "x.rules:3:11: unknown subject 'stacks' (use stack, functions, irq, task, blocking, start or end)" },
		{ "[a]\nmatch = x\nseverity = fatal\n",
		  "x.rules:3:12: unknown severity 'fatal' (use info, warning, critical or ignore)" },
		{ "[a]\nmatch = x\nmatch = y\n", "x.rules:3:1: duplicate key 'match' (first at line 2)" },
		{ "[a]\nmatch = x\nspan = words\n",
		  "x.rules:3:8: unknown span 'words' (use line or lines)" },
		{ "[a]\nspan = lines\nmatch = x\nspan = line\n",
		  "x.rules:4:1: duplicate key 'span' (first at line 2)" },
		{ "[a]\nspan = lines\nmatch = (?<=a\n",
		  "x.rules:3:14: missing closing parenthesis" },
		{ "[a]\nmatch =   \n", "x.rules:2:11: empty value for 'match'" },
		{ "[a]\nmatch = x\nin = # nothing\n", "x.rules:3:6: empty value for 'in'" },
		{ "[a]\nmatch\n", "x.rules:2:6: expected '=' after 'match'" },
		{ "[a]\nmatch = x\nin irq\n", "x.rules:3:3: expected '=' after 'in'" },
		{ "[a]\nmatch = x\nfoo bar\n", "x.rules:3:1: expected 'key = value' or '[id]'" },
		{ "[a]\nmatch = x\n[a]\nmatch = y\n",
		  "x.rules:3:2: duplicate rule id 'a' (first defined at x.rules:1)" },
	};
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(cases); i++)
		expect_error(cases[i].text, cases[i].msg);
}
END_TEST

START_TEST(test_nul_byte)
{
	static const char text[] = "[a]\nmatch = x\0y\n[b]\nmatch = ok\n";
	struct lh_diag d = { 0 };
	struct lh_rules *rs = lh_rules_alloc();

	ck_assert_int_eq(lh_rules_load_buffer(rs, "x.rules", text, sizeof(text) - 1, &d), -1);
	ck_assert_uint_eq(d.errors, 2);
	ck_assert_str_eq(d.msgs[0].text, "x.rules:2:10: NUL byte in rule file");
	/* the line is skipped, so [a] has no pattern; [b] is fine */
	ck_assert_str_eq(d.msgs[1].text, "x.rules:1:1: rule 'a' has no 'match' pattern");
	ck_assert_uint_eq(lh_rules_count(rs), 1);
	ck_assert_str_eq(lh_rules_get(rs, 0)->id, "b");
	lh_diag_release(&d);
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_all_errors_listed)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = lh_rules_alloc();
	static const char *const want[] = {
		"broken/many.rules:2:1: 'severity' outside a rule section (start one with '[id]')",
		"broken/many.rules:5:5: invalid character ' ' in rule id 'bad id' (use letters, digits, '-', '_' and '.')",
		"broken/many.rules:9:16: unknown subject 'stacks' (use stack, functions, irq, task, blocking, start or end)",
		"broken/many.rules:10:20: unknown tracer 'preemptof' (use irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt or wakeup_dl)",
		"broken/many.rules:11:12: invalid duration '5 parsecs' for 'min': unknown duration unit (use ns, us, ms, s, m or h)",
		"broken/many.rules:12:12: unknown severity 'fatal' (use info, warning, critical or ignore)",
		"broken/many.rules:13:1: unknown key 'colour' (use match, in, tracer, min, severity, span or message)",
		"broken/many.rules:14:1: duplicate key 'match' (first at line 8)",
		"broken/many.rules:15:1: rule 'no-match' has no 'match' pattern",
		"broken/many.rules:17:2: duplicate rule id 'ok-rule' (first defined at broken/many.rules:3)",
		"broken/many.rules:19:2: empty rule id",
		"broken/many.rules:21:1: unterminated section header (expected '[id]')",
		"broken/many.rules:23:12: unexpected text after section header '[trailing]'",
		"broken/many.rules:26:17: missing terminating ] for character class",
	};
	char cwd_path[] = RULES_DATA;
	size_t i;

	ck_assert_int_eq(chdir(cwd_path), 0);
	ck_assert_int_eq(lh_rules_load(rs, "broken/many.rules", &d), -1);
	if (d.errors != LH_ARRAY_SIZE(want))
		dump_diag(&d);
	ck_assert_uint_eq(d.errors, LH_ARRAY_SIZE(want));
	for (i = 0; i < LH_ARRAY_SIZE(want); i++)
		ck_assert_str_eq(d.msgs[i].text, want[i]);
	/* only the good rule is kept */
	ck_assert_uint_eq(lh_rules_count(rs), 1);
	ck_assert_str_eq(lh_rules_get(rs, 0)->id, "ok-rule");
	lh_diag_release(&d);
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_duplicate_across_files)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = lh_rules_alloc();

	ck_assert_int_eq(lh_rules_load(rs, RULES_DATA "/dup", &d), -1);
	ck_assert_uint_eq(d.errors, 1);
	ck_assert_str_eq(d.msgs[0].text, RULES_DATA "/dup/b.rules:5:2: duplicate rule id "
			 "'shared-id' (first defined at " RULES_DATA "/dup/a.rules:1)");
	ck_assert_uint_eq(lh_rules_count(rs), 2);
	lh_diag_release(&d);

	/* across separate loads into the same set, too */
	ck_assert_int_eq(lh_rules_load_buffer(rs, "y.rules", "[other]\nmatch=o\n", 16, &d), -1);
	ck_assert_str_eq(d.msgs[0].text, "y.rules:1:2: duplicate rule id 'other' (first defined at "
			 RULES_DATA "/dup/b.rules:2)");
	lh_diag_release(&d);
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_load_missing)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = lh_rules_alloc();

	ck_assert_int_eq(lh_rules_load(rs, "no-such-dir/x.rules", &d), -1);
	ck_assert_uint_eq(d.errors, 1);
	ck_assert_str_eq(d.msgs[0].text,
			 "cannot open rule file 'no-such-dir/x.rules': No such file or directory");
	ck_assert_uint_eq(lh_rules_nr_files(rs), 0);
	lh_diag_release(&d);
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_load_dir)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = lh_rules_alloc();
	size_t n;

	ck_assert_int_eq(lh_rules_load(rs, RULES_DATA "/good/", &d), 0);
	dump_diag(&d);
	ck_assert_uint_eq(d.errors + d.warnings, 0);
	ck_assert_uint_eq(lh_rules_nr_files(rs), 2);	/* README is skipped */
	ck_assert_str_eq(lh_rules_file(rs, 0, &n), RULES_DATA "/good/a-storage.rules");
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(lh_rules_file(rs, 1, &n), RULES_DATA "/good/b-misc.rules");
	ck_assert_uint_eq(n, 2);
	ck_assert_ptr_null(lh_rules_file(rs, 2, &n));
	ck_assert_uint_eq(lh_rules_count(rs), 5);
	ck_assert_str_eq(lh_rules_get(rs, 0)->id, "fixture-raid");
	ck_assert_str_eq(lh_rules_get(rs, 4)->id, "fixture-accepted");
	ck_assert_str_eq(rule_by_id(rs, "fixture-hash")->pattern, "^weird#name # not a comment");
	ck_assert_str_eq(rule_by_id(rs, "fixture-raid-isr")->message, "RAID handler");
	lh_rules_free(rs);

	/* a directory without *.rules is an error, for every command that loads rules */
	rs = lh_rules_alloc();
	ck_assert_int_eq(lh_rules_load(rs, RULES_DATA "/norules", &d), -1);
	ck_assert_uint_eq(d.errors, 1);
	ck_assert_str_eq(d.msgs[0].text, "no rule files (*.rules) in '" RULES_DATA "/norules'");
	ck_assert_uint_eq(lh_rules_nr_files(rs), 0);
	lh_diag_release(&d);
	lh_rules_free(rs);
}
END_TEST

/* A FIFO (or anything but a regular file) named *.rules is refused, never waited on. */
START_TEST(test_load_special_files)
{
	char dir[] = "/tmp/lh-rules-XXXXXX", path[128], target[128], want[256];
	struct lh_diag d = { 0 };
	struct lh_rules *rs;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a-good.rules", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[good]\nmatch = ^x$\n", f);
	fclose(f);
	snprintf(target, sizeof(target), "%s/outside", dir);
	f = fopen(target, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[linked]\nmatch = ^y$\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/b-fifo.rules", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/c-link.rules", dir);
	ck_assert_int_eq(symlink(target, path), 0);

	rs = lh_rules_alloc();
	ck_assert_int_eq(lh_rules_load(rs, dir, &d), -1);
	if (d.errors != 2)
		dump_diag(&d);
	ck_assert_uint_eq(d.errors, 2);
	snprintf(want, sizeof(want), "cannot read rule file '%s/b-fifo.rules': not a regular file",
		 dir);
	ck_assert_str_eq(d.msgs[0].text, want);
	snprintf(want, sizeof(want),
		 "cannot open rule file '%s/c-link.rules': a symbolic link in a rule directory", dir);
	ck_assert_str_eq(d.msgs[1].text, want);
	ck_assert_uint_eq(lh_rules_count(rs), 1);	/* the good file still loads */
	lh_diag_release(&d);
	lh_rules_free(rs);

	/* named on its own: a FIFO is refused too, a link is followed (the user named it) */
	rs = lh_rules_alloc();
	snprintf(path, sizeof(path), "%s/b-fifo.rules", dir);
	ck_assert_int_eq(lh_rules_load(rs, path, &d), -1);
	ck_assert_uint_eq(d.errors, 1);
	snprintf(path, sizeof(path), "%s/c-link.rules", dir);
	ck_assert_int_eq(lh_rules_load(rs, path, &d), 0);
	ck_assert_uint_eq(lh_rules_count(rs), 1);
	lh_diag_release(&d);
	lh_rules_free(rs);

	unlink(path);
	snprintf(path, sizeof(path), "%s/b-fifo.rules", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/a-good.rules", dir);
	unlink(path);
	unlink(target);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Matching */

START_TEST(test_subjects)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[irq]\nmatch = ^fakeraid$\nin = irq\n"
				   "[func]\nmatch = ^fakeraid$\nin = functions\n"
				   "[stack]\nmatch = ^fakeraid$\nin = stack\n"
				   "[task]\nmatch = ^fakeraid-12$\nin = task\n"
				   "[start]\nmatch = ^fakeraid$\nin = start\n"
				   "[end]\nmatch = ^fakeraid$\nin = end\n"
				   "[any]\nmatch = ^fakeraid\n",
				   &d);
	struct lh_record *r;

	ck_assert_uint_eq(d.errors, 0);

	r = rec_new(LH_TRACER_IRQSOFF, 100);
	rec_func(r, "fakeraid");
	ck_assert(!fires(rs, r, "irq"));	/* a function of the same name is not an irq */
	ck_assert(fires(rs, r, "func"));
	ck_assert(!fires(rs, r, "stack"));
	ck_assert(!fires(rs, r, "task"));
	ck_assert(!fires(rs, r, "start"));
	ck_assert(fires(rs, r, "any"));
	lh_record_free(r);

	r = rec_new(LH_TRACER_IRQSOFF, 100);
	rec_irq(r, "fakeraid");
	ck_assert(fires(rs, r, "irq"));
	ck_assert(!fires(rs, r, "func"));
	ck_assert(fires(rs, r, "any"));
	lh_record_free(r);

	r = rec_new(LH_TRACER_IRQSOFF, 100);
	rec_frame(r, 0, "other");
	rec_frame(r, 1, "fakeraid");	/* the second stack counts too */
	ck_assert(fires(rs, r, "stack"));
	ck_assert(!fires(rs, r, "irq"));
	lh_record_free(r);

	r = rec_new(LH_TRACER_IRQSOFF, 100);
	rec_task(&r->task, r, "fakeraid", 12);
	ck_assert(fires(rs, r, "task"));
	ck_assert(!fires(rs, r, "func"));
	ck_assert(fires(rs, r, "any"));
	lh_record_free(r);

	r = rec_new(LH_TRACER_IRQSOFF, 100);
	r->started_at = "fakeraid";
	ck_assert(fires(rs, r, "start"));
	ck_assert(!fires(rs, r, "end"));
	r->started_at = NULL;
	r->ended_at = "fakeraid";
	ck_assert(fires(rs, r, "end"));
	ck_assert(!fires(rs, r, "start"));
	lh_record_free(r);

	/* an empty record fires nothing */
	r = rec_new(LH_TRACER_IRQSOFF, 100);
	ck_assert(!fires(rs, r, "any"));
	lh_record_free(r);
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_task_wakeup)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[woken]\nmatch = ^cyclictest-[0-9]+$\nin = task\n", &d);
	struct lh_record *r = rec_new(LH_TRACER_WAKEUP_RT, 100);

	rec_task(&r->task, r, "kworker/0:1", 7);
	rec_task(&r->woken, r, "cyclictest", 1234);
	rec_task(&r->waker, r, "swapper/0", 0);
	ck_assert(fires(rs, r, "woken"));
	/* the woken/waker tasks are subjects of wakeup tracers only */
	r->tracer = LH_TRACER_IRQSOFF;
	r->has_wakeup = false;
	ck_assert(!fires(rs, r, "woken"));
	r->has_wakeup = true;
	ck_assert(fires(rs, r, "woken"));
	lh_record_free(r);
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_tracer_min)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[r]\nmatch = ^slow_fn$\ntracer = irqsoff\nmin = 500us\n", &d);
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 499);

	rec_func(r, "slow_fn");
	ck_assert(!fires(rs, r, "r"));
	r->latency_us = 500;	/* at or above */
	ck_assert(fires(rs, r, "r"));
	r->latency_us = 100000;
	ck_assert(fires(rs, r, "r"));
	r->tracer = LH_TRACER_PREEMPTOFF;
	ck_assert(!fires(rs, r, "r"));
	r->tracer = LH_TRACER_UNKNOWN;
	ck_assert(!fires(rs, r, "r"));
	lh_record_free(r);
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_multiline_anchors)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[exact]\nmatch = ^foo$\nin = stack\n"
				   "[start]\nmatch = ^bar\nin = stack\n"
				   "[end]\nmatch = _irq$\nin = stack\n"
				   "[span]\nmatch = ^foo\\nbar\nin = stack\nspan = lines\n"
				   "[space]\nmatch = foo\\s+bar\nin = stack\nspan = lines\n"
				   "[line-nl]\nmatch = ^foo\\nbar\nin = stack\n"
				   "[line-space]\nmatch = foo\\s+bar\nin = stack\n",
				   &d);
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);

	ck_assert_uint_eq(d.errors, 0);
	/* PCRE2 says the pattern holds a line break: a line rule never sees one */
	ck_assert_uint_eq(d.warnings, 1);
	ck_assert_str_eq(d.msgs[0].text, "x.rules:19:9: rule 'line-nl': the pattern holds a line "
			 "break, which a line never does; add 'span = lines' to match across lines");
	rec_frame(r, 0, "xfoo");
	rec_frame(r, 0, "foo_irq_x");
	ck_assert(!fires(rs, r, "exact"));
	ck_assert(!fires(rs, r, "end"));
	ck_assert(!fires(rs, r, "span"));
	rec_frame(r, 0, "foo");		/* third line: ^ and $ anchor at every line */
	rec_frame(r, 0, "barrier_irq");
	ck_assert(fires(rs, r, "exact"));
	ck_assert(fires(rs, r, "start"));
	ck_assert(fires(rs, r, "end"));
	/* with 'span = lines', a newline matches between consecutive lines, and so does \s */
	ck_assert(fires(rs, r, "span"));
	ck_assert(fires(rs, r, "space"));
	/* without it, a pattern matches one line at a time, as grep does */
	ck_assert(!fires(rs, r, "line-nl"));
	ck_assert(!fires(rs, r, "line-space"));
	lh_record_reset(r);
	rec_frame(r, 0, "foo \t bar");
	ck_assert(fires(rs, r, "line-space"));
	ck_assert(fires(rs, r, "space"));
	lh_diag_release(&d);
	lh_record_free(r);
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_span_key)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[a]\nmatch = x\n"
				   "[b]\nmatch = x\nspan = line\n"
				   "[c]\nspan = lines   # joined\nmatch = x$\\n^y\nin = functions\n",
				   &d);

	dump_diag(&d);
	ck_assert_uint_eq(d.errors + d.warnings, 0);
	ck_assert(!rule_by_id(rs, "a")->span);
	ck_assert(!rule_by_id(rs, "b")->span);
	ck_assert(rule_by_id(rs, "c")->span);
	ck_assert_str_eq(rule_by_id(rs, "c")->pattern, "x$\\n^y");
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_severity_outcome)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[i]\nmatch = ^a$\nseverity = info\n"
				   "[c]\nmatch = ^b$\nseverity = critical\n"
				   "[ok]\nmatch = ^c$\nseverity = ignore\n"
				   "[w]\nmatch = ^[ab]$\n",
				   &d);
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);
	struct lh_match m = { 0 };

	rec_func(r, "c");
	ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
	ck_assert_uint_eq(m.nr_hits, 1);
	ck_assert(m.accepted);
	ck_assert(!m.has_worst);

	rec_func(r, "a");
	ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
	ck_assert_uint_eq(m.nr_hits, 3);
	ck_assert_uint_eq(m.hits[0], 0);	/* in rule order */
	ck_assert_uint_eq(m.hits[1], 2);
	ck_assert_uint_eq(m.hits[2], 3);
	ck_assert(m.accepted);
	ck_assert(m.has_worst);
	ck_assert_int_eq(m.worst, LH_SEV_WARNING);

	rec_func(r, "b");
	ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
	ck_assert_uint_eq(m.nr_hits, 4);
	ck_assert_int_eq(m.worst, LH_SEV_CRITICAL);

	lh_record_reset(r);
	rec_func(r, "zzz");
	ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
	ck_assert_uint_eq(m.nr_hits, 0);
	ck_assert(!m.accepted);
	ck_assert(!m.has_worst);
	ck_assert_uint_eq(d.errors + d.warnings, 0);
	lh_match_release(&m);
	lh_record_free(r);
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_no_rules)
{
	struct lh_rules *rs = lh_rules_alloc();
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);
	struct lh_match m = { 0 };

	rec_func(r, "x");
	ck_assert_int_eq(lh_rules_match(rs, r, &m, NULL), 0);
	ck_assert_uint_eq(m.nr_hits, 0);
	ck_assert_uint_eq(lh_rules_count(rs), 0);
	lh_match_release(&m);
	lh_record_free(r);
	lh_rules_free(rs);
	lh_rules_free(NULL);
}
END_TEST

START_TEST(test_load_after_match)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[a]\nmatch = ^one$\n", &d);
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);

	rec_func(r, "one");
	rec_func(r, "two");
	ck_assert(fires(rs, r, "a"));
	ck_assert_int_eq(lh_rules_load_buffer(rs, "y.rules", "[b]\nmatch = ^two$\n", 17, &d), 0);
	ck_assert(fires(rs, r, "a"));
	ck_assert(fires(rs, r, "b"));
	lh_record_free(r);
	lh_rules_free(rs);
}
END_TEST

/* Return: buf, size - 2 times 'a' then 'b': what nested quantifiers over 'a' choke on. */
/* Return: whether this build has the rules' prefilter (Vectorscan). */
static bool have_prefilter(void)
{
	char buf[64];

	return lh_rules_prefilter_engine(buf, sizeof(buf)) != NULL;
}

static char *a_then_b(char *buf, size_t size)
{
	memset(buf, 'a', size - 2);
	buf[size - 2] = 'b';
	buf[size - 1] = '\0';
	return buf;
}

/* Pathological patterns end in a warning naming the rule, never a hang. */
START_TEST(test_match_limit)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("# catastrophic backtracking\n"
				   "[patho]\nmatch = ^(a+)+$\nin = stack\nseverity = critical\n"
				   "[fine]\nmatch = ^a+b$\nin = stack\n",
				   &d);
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);
	struct lh_match m = { 0 };
	char frame[4098];
	uint64_t t0;
	int i;

	/* PCRE2 alone: the prefilter would rule the line out (test_prefilter_limit) */
	lh_rules_set_prefilter(rs, false);
	rec_frame(r, 0, a_then_b(frame, sizeof(frame)));
	t0 = lh_now_ns();
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
		ck_assert_uint_eq(m.nr_hits, 1);	/* 'fine' fired */
		ck_assert_uint_eq(m.hits[0], 1);
		/* 'patho' did not, and could not be evaluated: the record may match it */
		ck_assert_uint_eq(m.nr_unevaluated, 1);
		ck_assert_uint_eq(m.unevaluated[0], 0);
		ck_assert(m.has_worst);
		ck_assert_int_eq(m.worst, LH_SEV_WARNING);
		/* a new line each time, so the cache cannot hide the work */
		frame[i] = 'c';
		lh_record_reset(r);
		rec_frame(r, 0, frame + i + 1);
	}
	/* the limits bound a rule to milliseconds a line (seconds under valgrind) */
	ck_assert_uint_lt(lh_now_ns() - t0, 2000000000ULL);
	if (d.warnings != 1)
		dump_diag(&d);
	ck_assert_uint_eq(d.warnings, 1);	/* once per rule, not per record */
	ck_assert_uint_eq(d.errors, 0);
	ck_assert_str_eq(d.msgs[0].text,
			 "x.rules:2: rule 'patho': pattern hit the PCRE2 match limit (catastrophic "
			 "backtracking); records where this happens are marked as not evaluated for "
			 "it (first in t.trace:1)");
	ck_assert_str_eq(lh_rules_get(rs, 0)->limit_hit,
			 "pattern hit the PCRE2 match limit (catastrophic backtracking)");
	ck_assert_ptr_null(lh_rules_get(rs, 1)->limit_hit);
	lh_diag_release(&d);
	lh_match_release(&m);
	lh_record_free(r);
	lh_rules_free(rs);
}
END_TEST

/* Unevaluated means: no line matched, and a limit stopped PCRE2 on one; in scope only. */
START_TEST(test_unevaluated)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[patho]\nmatch = ^(a|aa)+$|^ok$\nin = functions\n"
				   "tracer = irqsoff\n"
				   "[span-patho]\nmatch = ^(a|aa)+$|^ok$\nin = functions\nspan = lines\n",
				   &d);
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);
	struct lh_match m = { 0 };
	char line[200];
	int pass;

	lh_rules_set_prefilter(rs, false);	/* PCRE2 alone (test_prefilter_limit) */
	rec_func(r, a_then_b(line, sizeof(line)));
	for (pass = 0; pass < 2; pass++) {	/* the second from the cache */
		ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
		ck_assert_uint_eq(m.nr_hits, 0);
		ck_assert_uint_eq(m.nr_unevaluated, 2);
		ck_assert_uint_eq(m.unevaluated[0], 0);
		ck_assert_uint_eq(m.unevaluated[1], 1);
		ck_assert_uint_eq(oracle_check(rs, r, &m), 0);
	}
	/* out of the rule's scope (tracer): not listed */
	r->tracer = LH_TRACER_PREEMPTOFF;
	ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
	ck_assert_uint_eq(m.nr_unevaluated, 1);
	ck_assert_uint_eq(m.unevaluated[0], 1);
	/*
	 * A line rule that matched another line fired: it is not unevaluated. On joined text,
	 * the limit stops PCRE2's whole search before it reaches the next line.
	 */
	r->tracer = LH_TRACER_IRQSOFF;
	rec_func(r, "ok");
	ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
	ck_assert_uint_eq(m.nr_hits, 1);
	ck_assert_uint_eq(m.hits[0], 0);
	ck_assert_uint_eq(m.nr_unevaluated, 1);
	ck_assert_uint_eq(m.unevaluated[0], 1);
	ck_assert_uint_eq(oracle_check(rs, r, &m), 0);
	ck_assert_uint_eq(d.warnings, 2);
	lh_diag_release(&d);
	lh_match_release(&m);
	lh_record_free(r);
	lh_rules_free(rs);
}
END_TEST

START_TEST(test_depth_limit)
{
	struct lh_diag d = { 0 };
	/* (*NO_JIT): the interpreter, which has a depth limit (JIT has a stack limit) */
	struct lh_rules *rs = load("[deep]\nmatch = (*NO_JIT)^(a|b)*$\n"
				   "[jit]\nmatch = ^(a|aa)*$\n",
				   &d);
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);
	struct lh_match m = { 0 };
	char *frame = malloc(200001);
	uint64_t t0;

	memset(frame, 'a', 200000);
	frame[200000] = '\0';
	rec_func(r, frame);
	t0 = lh_now_ns();
	ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
	ck_assert_uint_lt(lh_now_ns() - t0, 2000000000ULL);
	ck_assert_uint_eq(m.nr_hits, 0);
	ck_assert_uint_eq(m.nr_unevaluated, 2);
	if (d.warnings != 2)
		dump_diag(&d);
	ck_assert_uint_eq(d.warnings, 2);
	ck_assert_str_eq(d.msgs[0].text,
			 "x.rules:1: rule 'deep': pattern hit the PCRE2 depth limit (backtracking "
			 "nested too deeply); records where this happens are marked as not evaluated "
			 "for it (first in t.trace:1)");
	if (lh_rules_stats(rs)->jit)
		ck_assert_str_eq(d.msgs[1].text,
				 "x.rules:3: rule 'jit': pattern hit the PCRE2 JIT stack limit "
				 "(backtracking nested too deeply); records where this happens are "
				 "marked as not evaluated for it (first in t.trace:1)");
	else
		ck_assert_str_eq(d.msgs[1].text,
				 "x.rules:3: rule 'jit': pattern hit the PCRE2 depth limit "
				 "(backtracking nested too deeply); records where this happens are "
				 "marked as not evaluated for it (first in t.trace:1)");
	free(frame);
	lh_diag_release(&d);
	lh_match_release(&m);
	lh_record_free(r);
	lh_rules_free(rs);
}
END_TEST

/* The cache must never change a result. */

static const char *const patterns[] = {
	"^_raw_spin_lock", "^(slob_next|slob_page_alloc)$", "rcu_", "^preempt_count_(add|sub)$",
	"(?i)^KTIME_GET", "_irq$", "^[a-z]+_tick$", "\\bcore\\b", "isra\\.0$",
	"^(megasas|mpt3sas|fakeraid)", "colou?r_", "ab+c", "x{2,3}y", "(foo|)bar",
	"(?:tick|timer)_(sched|program)", "^(?=update_)[a-z_]*time", "(?<name>clock)_?event",
	"[0-9]", ".", "^$", "(?i)LoCk", "\\.", "a.c", "^(?:a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q)x",
	"(?|(abc)|(xyz))q", "(?>hrtimer_)run", "(?s)tick.sched", "\\Qa.b\\E", "\\x61bc",
	"(?x) t i c k", "(*UTF)tick", "[[:digit:]]+", "^insmod-[0-9]+$", "(a)\\1",
	"[]x]y", "[^a-z_]", "\\d{2,}", "q+?r", "(?-i:Tick)", "__?hrtimer",
};

static const char *const lines[] = {
	"_raw_spin_lock_irqsave", "slob_next", "slob_page_alloc", "rcu_core", "RCU_core",
	"preempt_count_add", "preempt_count_sub", "ktime_get", "ktime_get_update_offsets_now",
	"tick_sched_timer", "rcu_nocb_unlock_irqrestore.constprop.0", "slob_alloc.isra.0",
	"megasas0-msix3", "fakeraid", "colour_x", "color_y", "abbbc", "xxy", "xxxxy", "bar",
	"foobar", "update_wall_time", "clockevent", "clock_event", "12", "", "LOCK", "a.b",
	"abc", "abcq", "xyzq", "hrtimer_run_queues", "tick\nsched", "tick sched", "insmod-96",
	"aa", "]y", "x!", "qqr", "Tick", "__hrtimer_run_queues", "timer_program", "\xff\xfe",
	"tick", "ticksched",
};

static char *pattern_rules(void)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	for (i = 0; i < LH_ARRAY_SIZE(patterns); i++)
		fprintf(f, "[p%zu]\nmatch = %s\nin = functions stack irq\n", i, patterns[i]);
	fclose(f);
	return buf;
}

/* Return: the hits of every (pattern, line) pair as a string of 0/1, one line per record. */
static char *results(struct lh_rules *rs)
{
	size_t nl = LH_ARRAY_SIZE(lines), np = lh_rules_count(rs), i, j;
	char *out = calloc(nl * (np + 1) * 2 + 1, 1);
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);
	struct lh_match m = { 0 };
	int pass;

	/* twice: the second pass is served from the cache when there is one */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nl; i++) {
			char *row = out + (pass * nl + i) * (np + 1);

			lh_record_reset(r);
			rec_func(r, lines[i]);
			rec_irq(r, "unrelated");
			ck_assert_int_eq(lh_rules_match(rs, r, &m, NULL), 0);
			memset(row, '0', np);
			row[np] = '\n';
			for (j = 0; j < m.nr_hits; j++)
				row[m.hits[j]] = '1';
		}
	}
	lh_match_release(&m);
	lh_record_free(r);
	return out;
}

START_TEST(test_cache_equivalence)
{
	char *text = pattern_rules(), *want = NULL;
	struct lh_diag d = { 0 };
	int mode;

	for (mode = 0; mode < 3; mode++) {
		struct lh_rules *rs = lh_rules_alloc();
		char *got;

		ck_assert_int_eq(lh_rules_load_buffer(rs, "p.rules", text, strlen(text), &d), 0);
		lh_rules_set_cache_limit(rs, mode == 0 ? LH_RULES_CACHE_DEFAULT : mode == 1 ? 0 :
					 1024);
		got = results(rs);
		if (mode == 0) {
			want = got;	/* the default cache: the reference */
		} else {
			if (strcmp(got, want))
				fprintf(stderr, "mode %d:\n%s\nwant:\n%s\n", mode, got, want);
			ck_assert_str_eq(got, want);
			free(got);
		}
		if (mode == 2)
			ck_assert_uint_gt(lh_rules_stats(rs)->cache_clears, 0);
		lh_rules_free(rs);
	}
	/* spot checks of the reference itself */
	ck_assert_int_eq(want[0], '1');	/* ^_raw_spin_lock on _raw_spin_lock_irqsave */
	ck_assert_uint_eq(d.errors, 0);
	free(want);
	free(text);
}
END_TEST

/*
 * PCRE2 is the oracle: patterns that a reading of PCRE2 syntax by hand got wrong (a
 * comment holding '[', PCRE2 10.43's {,n}, classes and escapes that match a blank or any
 * byte, inline options, lookbehind, verbs) fire exactly where PCRE2 matches a line.
 */
START_TEST(test_pcre2_meaning)
{
	static const char *const pats[] = {
		"unlock_irq(?#[)[^a]run_timer", "unlock_irq(?#\\Q)\\wrun", "x{,3}y", "^a{,2}$",
		"\\s", "a\\sb", "[^a]", "^[^a-z_]+$", "(?s)a.b", "(?s:a.)", "\\n", "a\\Rb",
		"(?<=_)irq", "(?<!raw)_spin", "(?=lock)l", "(*UCP)\\w+_", "(*NO_START_OPT)ab",
		"(*COMMIT)b", "(*ACCEPT)", "(*FAIL)|x", "(*UTF)\\x{c4}", "(*UTF)^\\X$",
		"\\Aa", "a\\z", "\\Gab", "(?m)^x$", "(?-m)^x", "(?x) a b # comment", "(?xx)[ ^a]b",
		"\\Qa.b\\E", "(a)\\1", "[[:space:]]", "[[:^alpha:]]", "\\p{L}+", "\\N+", "\\C",
		"\\x61b", "\\o{141}b", "\\cJ", "[\\x00-\\x7f]b", "^foo", "^(megasas|mpt3sas)",
		"(?i)^MEGA", "[a-z]+_irq$", "(foo|)bar", "colou?r", ".*", "\\d+", "^(foo|.)",
		"(?x)foo", "\\Qfoo\\E", "(*UTF)foo", "[[:alpha:]]x", "a?", "a++b", "(?|(a)|(b))\\1",
		"(?(?=a)ab|b)", "(?<n>x)\\k<n>", "(?R)?x", "a(?#comment)b", "(*LIMIT_MATCH=10)a",
		"(*CR)a.b", "(*ANYCRLF)a$", "\\h", "\\v", "\\H+", "\\V+", "\\bx\\b", "\\Bx",
	};
	static const char *const lines_[] = {
		"unlock_irqXrun_timer", "unlock_irq_run_timer", "unlock_irqarun_timer", "y", "xy",
		"xxxy", "xxxxy", "a", "aa", "aaa", "a b", "a\tb", "ab", "a_b", "AB", "x", "_irq",
		"raw_spin", "_raw_spin", "r_spin", "lock", "\xc3\x84", "\xc4", "\xff\xfe", "a.b",
		"foo", "foobar", "bar", "megasas0-msix3", "MEGARAID", "ata_irq", "color", "colour",
		"123", "xx", "ba", "x y", "a\rb", "a\vb", "\xe2\x80\x83", "",
	};
	size_t i, j, len = 0, ng = 0;
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);
	struct lh_match m = { 0 };
	struct lh_diag d = { 0 };
	char *text = NULL;
	FILE *f = open_memstream(&text, &len);
	struct lh_rules *rs;

	for (i = 0; i < LH_ARRAY_SIZE(pats); i++) {
		fprintf(f, "[p%zu]\nmatch = %s\nin = functions\n", i, pats[i]);
		fprintf(f, "[s%zu]\nmatch = %s\nin = functions\nspan = lines\n", i, pats[i]);
	}
	fclose(f);
	rs = load(text, &d);
	if (d.errors)
		dump_diag(&d);
	ck_assert_uint_eq(d.errors, 0);
	ck_assert_uint_eq(lh_rules_count(rs), 2 * LH_ARRAY_SIZE(pats));
	/* the rule a hand-written reader silently dropped fires, as PCRE2 says */
	rec_func(r, "unlock_irqXrun_timer");
	ck_assert(fires(rs, r, "p0"));
	ck_assert(fires(rs, r, "p1"));
	/* each line alone, then all of them as one record (joined for span = lines) */
	for (i = 0; i <= LH_ARRAY_SIZE(lines_); i++) {
		lh_record_reset(r);
		for (j = 0; j < LH_ARRAY_SIZE(lines_); j++)
			if (i == j || i == LH_ARRAY_SIZE(lines_))
				rec_func(r, lines_[j]);
		ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
		ng += m.nr_hits;
		ck_assert_uint_eq(oracle_check(rs, r, &m), 0);
	}
	ck_assert_uint_gt(ng, LH_ARRAY_SIZE(pats));
	lh_diag_release(&d);
	lh_match_release(&m);
	lh_record_free(r);
	lh_rules_free(rs);
	free(text);
}
END_TEST

/* A rule set like bench/rules-gen.sh's: anchored names, alternations, subjects... */
static char *generated_rules(size_t n)
{
	static const char *const syl[] = { "ka", "ro", "zu", "mi", "te", "vo", "qua", "lex" };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	for (i = 0; i < n; i++) {
		const char *a = syl[i % 8], *b = syl[i / 8 % 8], *c = syl[i / 64 % 8];

		fprintf(f, "[gen-%zu]\n", i);
		switch (i % 5) {
		case 0:
			fprintf(f, "match = ^(%s%s%s|%s%s)_(irq|isr)\nin = irq functions stack\n"
				   "tracer = irqsoff\nmin = %zuus\n", a, b, c, c, a, i % 700 + 1);
			break;
		case 1:
			fprintf(f, "match = ^%s%s%s_[a-z_]*(lock|poll)\nin = functions\n", b, c, a);
			break;
		case 2:
			fprintf(f, "match = _%s%s%s_(flush|drain)$\nseverity = info\n", c, b, a);
			break;
		case 3:
			fprintf(f, "match = (?i)^%s%s%s[0-9]*-[0-9]+$\nin = task\n", a, c, b);
			break;
		default:
			fprintf(f, "match = ^%s_%s%s_%zu$\nin = start end stack\n", a, b, c, i);
			break;
		}
	}
	/* and a few that do match the records below */
	fprintf(f, "[real-1]\nmatch = ^slob_\n[real-2]\nmatch = ^rcu_core$\nin = functions\n"
		   "[real-3]\nmatch = ^insmod-\nin = task\nseverity = critical\n");
	fclose(f);
	return buf;
}

static void fill_record(struct lh_record *r, size_t k)
{
	static const char *const names[] = {
		"slob_next", "slob_page_alloc", "rcu_core", "preempt_count_sub", "ktime_get",
		"kaquazu_irq", "rozu_reset_lock", "_voteka_drain", "tick_sched_timer",
	};
	char name[64];
	size_t i;

	lh_record_reset(r);
	r->tracer = k % 3 ? LH_TRACER_IRQSOFF : LH_TRACER_PREEMPTOFF;
	r->latency_us = 100 * k;
	for (i = 0; i < LH_ARRAY_SIZE(names); i++) {
		if ((k + i) % 4 == 0)
			continue;
		rec_func(r, names[i]);
		snprintf(name, sizeof(name), "%s.isra.%zu", names[i], k % 7);
		rec_func(r, name);
	}
	rec_frame(r, 0, "do_syscall_64");
	rec_frame(r, 0, k % 2 ? "kaquazu_isr" : "entry_SYSCALL_64");
	rec_irq(r, k % 5 ? "kaquazu_irq" : "timer");
	rec_task(&r->task, r, k % 2 ? "insmod" : "KAZUQUA12", (int)k);
	r->started_at = k % 3 ? "ka_zuro_12" : "x";
}

START_TEST(test_generated_1000)
{
	char *text = generated_rules(1000);
	struct lh_diag d = { 0 };
	struct lh_rules *ref = lh_rules_alloc(), *rs = lh_rules_alloc();
	struct lh_record *r = lh_record_alloc();
	struct lh_match m1 = { 0 }, m2 = { 0 };
	unsigned long total = 0;
	size_t k, i;

	ck_assert_int_eq(lh_rules_load_buffer(rs, "gen.rules", text, strlen(text), &d), 0);
	ck_assert_int_eq(lh_rules_load_buffer(ref, "gen.rules", text, strlen(text), &d), 0);
	dump_diag(&d);
	ck_assert_uint_eq(lh_rules_count(rs), 1003);
	/* the reference matches naively: no cache */
	lh_rules_set_cache_limit(ref, 0);
	/* a small cache, so that it fills and is emptied along the way */
	lh_rules_set_cache_limit(rs, 20000);
	for (k = 0; k < 300; k++) {
		fill_record(r, k);
		ck_assert_int_eq(lh_rules_match(rs, r, &m1, &d), 0);
		ck_assert_int_eq(lh_rules_match(ref, r, &m2, &d), 0);
		ck_assert_uint_eq(m1.nr_hits, m2.nr_hits);
		for (i = 0; i < m1.nr_hits; i++)
			ck_assert_uint_eq(m1.hits[i], m2.hits[i]);
		ck_assert_int_eq(m1.accepted, m2.accepted);
		ck_assert_int_eq(m1.has_worst, m2.has_worst);
		ck_assert_int_eq(m1.worst, m2.worst);
		if (k % 30 == 0)
			ck_assert_uint_eq(oracle_check(rs, r, &m1), 0);
		total += m1.nr_hits;
	}
	ck_assert_uint_gt(total, 300);
	ck_assert_uint_gt(lh_rules_stats(rs)->cache_clears, 0);
	ck_assert_uint_gt(lh_rules_stats(rs)->cache_hits, 0);
	ck_assert_uint_le(lh_rules_stats(rs)->cache_bytes, 20000);
	/* the cache ran far fewer regexes than the naive reference */
	ck_assert_uint_lt(lh_rules_stats(rs)->regex_runs * 3, lh_rules_stats(ref)->regex_runs);
	ck_assert_uint_eq(d.errors + d.warnings, 0);
	lh_match_release(&m1);
	lh_match_release(&m2);
	lh_record_free(r);
	lh_rules_free(rs);
	lh_rules_free(ref);
	free(text);
}
END_TEST

START_TEST(test_cache_hits)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[a]\nmatch = ^foo\n[b]\nmatch = bar$\nin = functions\n", &d);
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);
	const struct lh_rules_stats *st = lh_rules_stats(rs);
	int i;

	rec_func(r, "foobar");
	rec_func(r, "other");
	lh_rules_set_prefilter(rs, false);
	for (i = 0; i < 5; i++) {
		ck_assert(fires(rs, r, "a"));
		ck_assert(fires(rs, r, "b"));
	}
	ck_assert_uint_eq(st->records, 10);
	ck_assert_uint_eq(st->cache_misses, 2);		/* two distinct lines */
	ck_assert_uint_eq(st->cache_hits, 18);
	ck_assert_uint_eq(st->cache_entries, 2);
	ck_assert_uint_eq(st->cache_clears, 0);
	ck_assert_uint_eq(st->regex_runs, 4);		/* each rule on each line, once */
	ck_assert_uint_eq(st->scans, 0);
	ck_assert_uint_eq(st->jit, lh_under_valgrind() ? 0 : 2);	/* no JIT under valgrind */
	if (have_prefilter()) {
		/* 'other': the scan names no rule, no lookup; 'foobar': computed once */
		lh_rules_set_prefilter(rs, true);
		for (i = 0; i < 5; i++) {
			ck_assert(fires(rs, r, "a"));
			ck_assert(fires(rs, r, "b"));
		}
		ck_assert_uint_eq(st->records, 20);
		ck_assert_uint_eq(st->prefiltered, 2);
		ck_assert_uint_eq(st->scan_only, 10);
		ck_assert_uint_eq(st->cache_misses, 2 + 1);
		ck_assert_uint_eq(st->cache_hits, 18 + 9);
		ck_assert_uint_eq(st->cache_entries, 1);
		ck_assert_uint_eq(st->regex_runs, 4 + 2);	/* a and b on 'foobar' */
	}
	lh_record_free(r);
	lh_rules_free(rs);
}
END_TEST

/*
 * Lines or joined text: the result must be PCRE2's, on each line alone for a line rule and on
 * each subject's joined lines for 'span = lines' (the oracle, rules-oracle.h).
 */

/* Patterns that may match across lines, then line-local ones. */
static const char *const cross_patterns[] = {
	"kthread\\sret_from_fork", "kthread[^_]ret_from_fork",
	"(?s)execute_preemptirqtest.*ret_from_fork", "kthread\\Rret_from_fork", "a\\Wb", "x\\Dy",
	"[[:space:]]", "foo$\\n^bar", "a\\vb", "a\\Hb", "a\\x0ab", "a\\012b", "a\\o{12}b",
	"a\\cJb", "a\\pCb", "a\\PLb", "a\\Xb", "a[\\t-z]b", "a[[:^alpha:]]b", "a[[:cntrl:]]b",
	"a[[:ascii:]]b", "(*CR)a.b", "(*ANYCRLF)a$", "(?s:a.b)", "(?ms)a.b", "(?-m)^b",
	"(?^)^b", "\\Ab", "a\\z", "a\\Z", "\\Gb", "a[^x]*b", "(?<=\\W)b", "a(?=\\s)", "b$\\s^a",
	"\\n", "a\\C+b", "^x\\s*$", "a[\\x00-\\x7f]b", "(*UTF)a", "(*COMMIT)b",
	"(*NOTEMPTY_ATSTART)x?", "(?xx)a[ ^x]b", "[ ]\\w[^a]",
};
static const char *const local_patterns[] = {
	"^a$", "^b", "a$", "\\ba", "b\\b", "a.b", "\\Bb", "(?<!a)b", "a(?!b)", "^$", "x*",
	"(?i)^A", "[[:alpha:]]+_", "\\d", "\\w+ \\w+", "a\\S*b", "(a)\\1", "\\Qa.b\\E", "a\\N+b",
	"a[\\d_]b", "(?x) a b", "[]a]b", "[a-z]_[a-z]", "a\\.b", "(?i:a)b", "a\\hb",
	"(?<n>a)\\k<n>", "^(foo|bar)$", "a|^b", "[ -~]b", "(*NO_JIT)a$", "(*UCP)\\w+_", "[ ]b",
	"a[ ]",
};

static const char *const stack_lines[] = {
	"kthread", "ret_from_fork", "execute_preemptirqtest", "a", "b", "x", "y", "foo", "bar",
	"a b", "a_b", "aa", "xay", "a.b", "", "A", "x_a", "ab", "a_", "b_a", " ", "1",
};

/* Return: whether pattern p alone, with span = lines or not, is matched on joined text. */
static bool on_joined_path(const char *p, bool span)
{
	struct lh_diag d = { 0 };
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);
	struct lh_match m = { 0 };
	struct lh_rules *rs;
	char buf[256];
	bool joined;

	snprintf(buf, sizeof(buf), "[p]\nmatch = %s\n%s", p, span ? "span = lines\n" : "");
	rs = load(buf, &d);
	ck_assert_uint_eq(d.errors, 0);
	rec_func(r, "x");
	ck_assert_int_eq(lh_rules_match(rs, r, &m, NULL), 0);
	joined = lh_rules_stats(rs)->joined;
	lh_diag_release(&d);
	lh_match_release(&m);
	lh_record_free(r);
	lh_rules_free(rs);
	return joined;
}

/*
 * Matches nr random records (a stack of up to 6 of the lines, its functions the same lines
 * reversed) with every pattern, as a line rule and as a 'span = lines' rule, with and
 * without a (small) cache, and compares every verdict with the oracle. Patterns PCRE2
 * refuses are left out.
 */
static void check_joined(const char *const *pats, size_t np, const char *const *lines_,
			 size_t nlines, size_t nr, unsigned int seed)
{
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);
	size_t len = 0, i, k, j, ng = 0;
	struct lh_match m = { 0 };
	char *text = NULL;
	FILE *f = open_memstream(&text, &len);
	int mode;

	for (i = 0; i < np; i++) {
		PCRE2_SIZE off;
		int err;
		pcre2_code *code = pcre2_compile((PCRE2_SPTR)pats[i], PCRE2_ZERO_TERMINATED, 0,
						 &err, &off, NULL);

		if (!code)
			continue;
		pcre2_code_free(code);
		ng++;
		fprintf(f, "[p%zu]\nmatch = %s\nin = stack functions\n", i, pats[i]);
		fprintf(f, "[s%zu]\nmatch = %s\nin = stack functions\nspan = lines\n", i, pats[i]);
	}
	fclose(f);
	for (mode = 0; mode < 2; mode++) {
		struct lh_diag d = { 0 };
		struct lh_rules *rs = lh_rules_alloc();
		unsigned int rnd = seed;

		ck_assert_int_eq(lh_rules_load_buffer(rs, "j.rules", text, len, &d), 0);
		ck_assert_uint_eq(lh_rules_count(rs), 2 * ng);
		lh_rules_set_cache_limit(rs, mode ? 0 : 4096);
		for (k = 0; k < nr; k++) {
			size_t n = 1 + rand_r(&rnd) % 6;
			const char *st[6];

			lh_record_reset(r);
			for (j = 0; j < n; j++) {
				st[j] = lines_[rand_r(&rnd) % nlines];
				rec_frame(r, 0, st[j]);
			}
			for (j = 0; j < n; j++)
				rec_func(r, st[n - 1 - j]);
			ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
			if (!oracle_check(rs, r, &m))
				continue;
			fprintf(stderr, "mode %d, stack:", mode);
			for (j = 0; j < n; j++)
				fprintf(stderr, " '%s'", st[j]);
			fprintf(stderr, "\n");
			ck_abort_msg("lathound and PCRE2 disagree");
		}
		/* warnings: (*UTF) patterns on invalid UTF-8 are unevaluated, as in the oracle */
		if (d.errors)
			dump_diag(&d);
		ck_assert_uint_eq(d.errors, 0);
		lh_diag_release(&d);
		lh_rules_free(rs);
	}
	free(text);
	lh_match_release(&m);
	lh_record_free(r);
}

START_TEST(test_joined_equivalence)
{
	size_t i;

	/* no guessing: only 'span = lines' puts a rule on the joined text */
	for (i = 0; i < LH_ARRAY_SIZE(cross_patterns); i++) {
		ck_assert(!on_joined_path(cross_patterns[i], false));
		ck_assert(on_joined_path(cross_patterns[i], true));
	}
	for (i = 0; i < LH_ARRAY_SIZE(local_patterns); i++) {
		ck_assert(!on_joined_path(local_patterns[i], false));
		ck_assert(on_joined_path(local_patterns[i], true));
	}
	check_joined(cross_patterns, LH_ARRAY_SIZE(cross_patterns), stack_lines,
		     LH_ARRAY_SIZE(stack_lines), 400, 1);
	check_joined(local_patterns, LH_ARRAY_SIZE(local_patterns), stack_lines,
		     LH_ARRAY_SIZE(stack_lines), 400, 2);
	check_joined(patterns, LH_ARRAY_SIZE(patterns), lines, LH_ARRAY_SIZE(lines), 200, 3);
}
END_TEST

/*
 * The prefilter (Vectorscan) against PCRE2 alone. PCRE2 runs a prefiltered rule only on the
 * lines the scan names: a line the scan rules out does not match, so no limit is hit there;
 * one it names still fails closed.
 */
START_TEST(test_prefilter_limit)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[patho]\nmatch = ^(a+)+$\nin = stack\n"
				   "[look]\nmatch = ^(a+)+(?!b)b\nin = stack\n", &d);
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);
	struct lh_match m = { 0 };
	char frame[4098];

	rec_frame(r, 0, a_then_b(frame, sizeof(frame)));
	ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
	ck_assert_uint_eq(m.nr_hits, 0);
	if (have_prefilter()) {
		/* 'patho' cannot match a line ending in b: the scan says so, PCRE2 is not run */
		ck_assert(lh_rules_get(rs, 0)->prefiltered);
		ck_assert(lh_rules_get(rs, 1)->prefiltered);
		ck_assert_uint_eq(m.nr_unevaluated, 1);
		ck_assert_uint_eq(m.unevaluated[0], 1);
		ck_assert_uint_eq(d.warnings, 1);
		ck_assert_ptr_null(lh_rules_get(rs, 0)->limit_hit);
	} else {
		ck_assert(!lh_rules_get(rs, 0)->prefiltered);
		ck_assert_uint_eq(m.nr_unevaluated, 2);
		ck_assert_uint_eq(d.warnings, 2);
	}
	/* the lookahead, which the scan relaxes, sent the line to PCRE2, which gave up */
	ck_assert_str_eq(lh_rules_get(rs, 1)->limit_hit,
			 "pattern hit the PCRE2 match limit (catastrophic backtracking)");
	ck_assert_uint_eq(oracle_check(rs, r, &m), 0);
	lh_diag_release(&d);
	lh_match_release(&m);
	lh_record_free(r);
	lh_rules_free(rs);
}
END_TEST

/* Patterns where a second reader of PCRE2's syntax may go wrong. */
/* Tricky patterns a block of lines joined with '\n' would read otherwise (rules-prefilter.c) */
static const char *const not_line_local[] = {
	"\\A_", "irq\\z", "irq\\Z", "\\Ga", "(?^)^b", "(?^i)RCU", "(?-m)^b", "(?i-m)^b$",
	"(?s-m:^b)", "^$", "^", "$", "x*", "a?", "(*ACCEPT)", "(*NOTEMPTY)x?", "\\\\A",
};

static bool listed(const char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static const char *const tricky_patterns[] = {
	"x{,3}y", "^a{,2}$", "_{,1}irq", "a{2}", "a{2,}b", "a{,}", "a{1,2}{,3}", "\\Qa.b\\E",
	"\\Q{,2}\\E", "a\\Eb", "\\Qx", "(?i)^RAW_spin", "(?i:LOCK)_irq", "a(?i)B", "(?-i:Tick)",
	"(?i)(?-i:r)cu", "(?s)a.b", "(?m)^x$", "(?x) r c u _ # comment", "(?xx)[ ^a]b",
	"(?xx)a[ ^x]b", "(?^)^b", "(?^i)RCU", "[]a]", "[^]a]_", "[\\w-.]", "[a-\\d]", "[[:word:]]+$",
	"[[:^alpha:]]", "[[:punct:]]", "[\\x00-\\x2f]", "[^\\x00-\\x7f]", "\\x{41}", "\\o{137}",
	"\\101", "\\12", "\\0", "\\cA", "\\e", "\\bidle\\b", "\\Bcpu", "\\b_", "_\\b", "\\A_",
	"irq\\z", "irq\\Z", "^$", "^", "$", "", "x*", "a?", ".", "(?<=_)irq", "(?<!raw)_spin",
	"(?=lock)l", "(?!_)x", "(a)\\1", "(?<n>_)\\k<n>", "(\\w)\\1", "(?|(a)|(b))\\1",
	"(?(1)a|b)", "(a)(?1)", "(?R)?x", "(?>a+)b", "a++b", "a*+_", "a{1,3}+b", "x|y|z_",
	"^(rcu|tick|sched)_", "rcu_(core|do_batch)$", "^(?:a|ab)(?:c|bcd)$", "\\d+$",
	"\\w+\\s\\w+", "[[:space:]]", "\\s", "\\S+", "\\h", "\\H", "\\v", "\\V+", "\\N", "\\R",
	"\\X", "\\C", "\\p{L}+", "\\P{L}", "(*UTF)\\x{e9}", "(*UCP)\\w+", "(*UTF)(*UCP)^\\w+$",
	"(*NO_JIT)ab", "(*NO_START_OPT)ab", "(*NO_AUTO_POSSESS)a+b", "(*NOTEMPTY)x?",
	"(*LIMIT_MATCH=5)(a+)+$", "(*CR)a.b", "(*ANY)a$", "(*BSR_UNICODE)\\R", "(*COMMIT)b",
	"(*ACCEPT)", "(*FAIL)|x", "a(*SKIP)b", "(?C1)a", "\\K_", "\\Ga", "é", "(?i)É",
	"\\xc3\\xa9", "caf.$", "^.{3}$", "^.{40,}$", "(?U)a+b", ".*_irq$", "^[^_]", "\\.isra\\.",
	"\\+0x", "\\[", "\\]$", "{", "}", "a{", "a{1", "a{1,", "a{,", "x{2,1}?", "\\Q\\E",
};

/* Kernel names to try them on: this machine's, when /proc/kallsyms says them. */
static size_t kernel_names(char ***v, size_t max)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256];
	size_t n = 0, alloc = 0, seen = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %255s", name) != 1 || seen++ % 4)
			continue;		/* every fourth: neighbours share prefixes */
		LH_GROW(*v, n + 1, alloc);
		(*v)[n++] = lh_xstrdup(name);
		if (n == max)
			break;
	}
	if (f)
		fclose(f);
	return n;
}

/* The lines: names, their mutations, and lines made for the tricky patterns. */
static char **differential_lines(size_t max, size_t *nr)
{
	static const char *const odd[] = {
		"x{,3}y", "xy", "xxxy", "a{,2}", "aa", "a.b", "{,2}", "a b", " ", "[ ^a]b", "ab",
		"a]", "]", "_irq", "raw_spin", "_raw_spin", "lock", "café", "CAFÉ", "é", "\xc3",
		"Tick", "tick", "RCU_core", "rcu_core", "idle", "cpu_idle", "a{1,2}", "x{2,1}",
		"aab", "abcd", "abc", "ac", "e", "{", "}", "a{", "a{1,", "\\Q", "Ab", "AB", "+0x1a",
		"[lhx]", "name.isra.0", "_", "x", "0", "a_b", "__x", "x__",
	};
	char **names = NULL, **out = NULL;
	size_t n = kernel_names(&names, max), alloc = 0, i, k = 0;
	static const char *const fallback[] = {
		"_raw_spin_lock_irqsave", "rcu_do_batch", "tick_sched_timer", "hrtimer_interrupt",
		"smp_call_function_many_cond", "kmem_cache_free", "do_syscall_64", "ktime_get",
		"__schedule", "irq_exit_rcu", "megasas_isr", "i915_irq_handler", "insmod-96",
	};

	if (!n)
		fprintf(stderr, "differential: /proc/kallsyms is not readable: fixed names only\n");
	/* names the shipped and generated rules are about */
	for (i = 0; i < LH_ARRAY_SIZE(fallback); i++) {
		LH_GROW(names, n + 1, alloc);
		names[n++] = lh_xstrdup(fallback[i]);
	}
	alloc = 0;
	LH_GROW(out, 5 * n + LH_ARRAY_SIZE(odd), alloc);
	for (i = 0; i < n; i++) {
		char *up = lh_xstrdup(names[i]), *p;

		for (p = up; *p; p++)
			*p = *p >= 'a' && *p <= 'z' ? *p - 32 : *p;
		out[k++] = names[i];
		out[k++] = up;
		out[k++] = lh_xasprintf("_%s.isra.0", names[i]);
		out[k++] = lh_xasprintf("%sé{,2}", names[i] + (names[i][1] != '\0'));
		out[k++] = lh_xasprintf("%s-%zu", names[i], i);
	}
	for (i = 0; i < LH_ARRAY_SIZE(odd); i++)
		out[k++] = lh_xstrdup(odd[i]);
	free(names);
	*nr = k;
	return out;
}

/* Rule text without its 'tracer' and 'min' lines, so every rule is compared everywhere. */
static char *unscoped(const char *text)
{
	char *out = lh_xmalloc(strlen(text) + 1), *o = out;
	const char *line = text;

	while (*line) {
		size_t len = strcspn(line, "\n") + (line[strcspn(line, "\n")] == '\n');

		if (strncmp(line, "tracer", 6) && strncmp(line, "min", 3)) {
			memcpy(o, line, len);
			o += len;
		}
		line += len;
	}
	*o = '\0';
	return out;
}

static char *read_text(const char *cmd_or_path, bool cmd)
{
	FILE *f = cmd ? popen(cmd_or_path, "r") : fopen(cmd_or_path, "r");
	char *buf = NULL;
	size_t alloc = 0, len = 0;

	ck_assert_msg(f, "cannot read %s", cmd_or_path);
	ck_assert_int_eq(lh_read_fd(fileno(f), &buf, &alloc, &len, 64 << 20), 0);
	if (cmd)
		ck_assert_int_eq(pclose(f), 0);
	else
		fclose(f);
	return buf;
}

/*
 * r matched by on (with the prefilter) and off (without): the same hits, and unevaluated
 * rules only where PCRE2 alone has them too. first: r's first line.
 */
static void same_match(const char *what, const char *first, const struct lh_record *r,
		       struct lh_rules *on, struct lh_rules *off, struct lh_match *m1,
		       struct lh_match *m2)
{
	size_t k, rule;

	ck_assert_int_eq(lh_rules_match(on, r, m1, NULL), 0);
	ck_assert_int_eq(lh_rules_match(off, r, m2, NULL), 0);
	for (k = 0; k < m1->nr_hits && k < m2->nr_hits && m1->hits[k] == m2->hits[k]; k++)
		;
	rule = k < m1->nr_hits ? m1->hits[k] : k < m2->nr_hits ? m2->hits[k] : 0;
	ck_assert_msg(m1->nr_hits == m2->nr_hits && k == m1->nr_hits,
		      "%s: record from line '%s': rule '%s' (match = %s) fires %s the prefilter only",
		      what, first, lh_rules_get(on, rule)->id, lh_rules_get(on, rule)->pattern,
		      k < m1->nr_hits && (k >= m2->nr_hits || m1->hits[k] < m2->hits[k]) ?
		      "with" : "without");
	for (k = 0; k < m1->nr_unevaluated; k++)
		ck_assert(oracle_listed(m2->unevaluated, m2->nr_unevaluated, m1->unevaluated[k]));
	ck_assert_int_eq(m1->accepted, m2->accepted);
}

/* Lines a record in the second pass of differential() */
#define DIFF_BLOCK	37

/*
 * Each line alone in every subject of a record, then DIFF_BLOCK lines a record, matched with
 * the prefilter and without: the same hits, and unevaluated rules only where PCRE2 alone
 * has them too. block: whether the prefilter must scan a record's lines at once.
 * Return: the hits of the first pass.
 */
static unsigned long differential(const char *what, const char *rules_text, char **lines_,
				  size_t nr_lines, bool block)
{
	char *text = unscoped(rules_text);
	struct lh_rules *on = lh_rules_alloc(), *off = lh_rules_alloc();
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 1000000000);
	struct lh_match m1 = { 0 }, m2 = { 0 };
	struct lh_diag d = { 0 };
	unsigned long hits = 0;
	size_t i, k;

	ck_assert_int_eq(lh_rules_load_buffer(on, what, text, strlen(text), &d), 0);
	ck_assert_int_eq(lh_rules_load_buffer(off, what, text, strlen(text), &d), 0);
	lh_rules_set_prefilter(off, false);
	lh_rules_prepare(on);
	lh_rules_prepare(off);
	ck_assert_uint_eq(lh_rules_stats(off)->prefiltered, 0);
	uint64_t t0 = lh_now_ns();
	fprintf(stderr, "differential %s: %zu rules, %zu prefiltered, %zu lines\n", what,
		lh_rules_count(on), lh_rules_stats(on)->prefiltered, nr_lines);
	for (i = 0; i < nr_lines; i++) {
		lh_record_reset(r);
		rec_func(r, lines_[i]);
		rec_frame(r, 0, lines_[i]);
		rec_irq(r, lines_[i]);
		rec_task(&r->task, r, lines_[i], -1);
		r->started_at = r->ended_at = lh_arena_strdup(&r->arena, lines_[i]);
		same_match(what, lines_[i], r, on, off, &m1, &m2);
		hits += m1.nr_hits;
	}
	/* many lines a record, as in a trace: the prefilter scans them at once (block) */
	for (i = 0; i < nr_lines; i += DIFF_BLOCK) {
		lh_record_reset(r);
		for (k = i; k < nr_lines && k < i + DIFF_BLOCK; k++) {
			rec_func(r, lines_[k]);
			rec_frame(r, 0, lines_[k]);
			rec_irq(r, lines_[k]);
		}
		same_match(what, lines_[i], r, on, off, &m1, &m2);
	}
	ck_assert_int_eq(lh_rules_stats(on)->block_scan, block);
	fprintf(stderr, "  %lu hits, %.1f s\n", hits, (lh_now_ns() - t0) / 1e9);
	lh_diag_release(&d);
	lh_match_release(&m1);
	lh_match_release(&m2);
	lh_record_free(r);
	lh_rules_free(on);
	lh_rules_free(off);
	free(text);
	return hits;
}

/*
 * Return: the rules of text (freed) that the prefilter covers, as rule-file text (free it):
 * where PCRE2 alone runs a rule on a subject, its lines are scanned one at a time.
 */
static char *prefiltered_only(char *text)
{
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load(text, &d);
	char *out = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&out, &len);

	lh_rules_prepare(rs);
	for (i = 0; i < lh_rules_count(rs); i++)
		if (lh_rules_get(rs, i)->prefiltered || !have_prefilter())
			fprintf(f, "[%s]\nmatch = %s\n", lh_rules_get(rs, i)->id,
				lh_rules_get(rs, i)->pattern);
	fclose(f);
	lh_rules_free(rs);
	lh_diag_release(&d);
	free(text);
	return out;
}

START_TEST(test_prefilter_differential)
{
	const char *env = getenv("LH_DIFFERENTIAL_NAMES");
	size_t nr, i, max = env ? strtoul(env, NULL, 10) : 500;
	char **lines_ = differential_lines(max ? max : (size_t)-1, &nr);
	char *text = NULL, *shipped = NULL, *local = NULL, *nonlocal, *gen, *mine;
	size_t len = 0, slen = 0, llen = 0;
	FILE *f = open_memstream(&text, &len), *sf = open_memstream(&shipped, &slen);
	FILE *lf = open_memstream(&local, &llen);
	bool pf = have_prefilter();
	glob_t files;

	for (i = 0; i < LH_ARRAY_SIZE(tricky_patterns); i++) {
		pcre2_code *code;
		PCRE2_SIZE off;
		uint32_t min = 0;
		int err;

		code = pcre2_compile((PCRE2_SPTR)tricky_patterns[i], PCRE2_ZERO_TERMINATED, 0,
				     &err, &off, NULL);
		if (code)
			pcre2_pattern_info(code, PCRE2_INFO_MINLENGTH, &min);
		pcre2_code_free(code);
		if (!code || !*tricky_patterns[i])
			continue;	/* a rule file refuses it */
		fprintf(f, "[t%zu]\nmatch = %s\n", i, tricky_patterns[i]);
		if (min && !listed(not_line_local, LH_ARRAY_SIZE(not_line_local),
				   tricky_patterns[i]))
			fprintf(lf, "[t%zu]\nmatch = %s\n", i, tricky_patterns[i]);
	}
	for (i = 0; i < LH_ARRAY_SIZE(patterns); i++)
		fprintf(f, "[p%zu]\nmatch = %s\n", i, patterns[i]);
	for (i = 0; i < LH_ARRAY_SIZE(local_patterns); i++)
		fprintf(f, "[l%zu]\nmatch = %s\n", i, local_patterns[i]);
	fclose(f);
	fclose(lf);
	/* every file of the shipped library, as a list of names would miss the next one */
	ck_assert_int_eq(glob(LH_TEST_DATA "/../../rules/*.rules", 0, NULL, &files), 0);
	ck_assert_uint_ge(files.gl_pathc, 8);
	for (i = 0; i < files.gl_pathc; i++) {
		char *t = read_text(files.gl_pathv[i], false);

		fprintf(sf, "%s\n", t);
		free(t);
	}
	globfree(&files);
	fclose(sf);
	gen = read_text(LH_TEST_DATA "/../../bench/rules-gen.sh 1000", true);
	mine = generated_rules(1000);
	ck_assert_uint_gt(differential("tricky", text, lines_, nr, false), 0);
	for (i = 0; i < LH_ARRAY_SIZE(not_line_local); i++) {	/* each spoils a block */
		nonlocal = prefiltered_only(lh_xasprintf("[n]\nmatch = %s\n", not_line_local[i]));
		if (*nonlocal)
			differential(not_line_local[i], nonlocal, lines_, nr, false);
		free(nonlocal);
	}
	local = prefiltered_only(local);
	ck_assert_uint_gt(differential("tricky, line-local", local, lines_, nr, pf), 0);
	ck_assert_uint_gt(differential("shipped", shipped, lines_, nr, pf), 0);
	ck_assert_uint_gt(differential("rules-gen.sh 1000", gen, lines_, nr, pf), 0);
	ck_assert_uint_gt(differential("generated 1000", mine, lines_, nr, pf), 0);
	for (i = 0; i < nr; i++)
		free(lines_[i]);
	free(lines_);
	free(text);
	free(shipped);
	free(local);
	free(gen);
	free(mine);
}
END_TEST

/*
 * A pattern that anchors to the subject's ends, turns multiline off or may match empty
 * cannot be scanned in a block of lines: one such rule keeps the whole set to line scans.
 */
START_TEST(test_block_screen)
{
	static const char *const local[] = {
		"(?i)x", "(?-i:Tick)", "(?m)^x$", "(?s)a.b", "(?i)(?-i:r)cu", "^rcu_$", "\\\\b",
	};
	char *text;
	size_t i;

	if (!have_prefilter()) {
		fprintf(stderr, "test_block_screen: skipped: built without Vectorscan\n");
		return;
	}
	for (i = 0; i < LH_ARRAY_SIZE(not_line_local) + LH_ARRAY_SIZE(local); i++) {
		bool bad = i < LH_ARRAY_SIZE(not_line_local);
		const char *p = bad ? not_line_local[i] : local[i - LH_ARRAY_SIZE(not_line_local)];
		struct lh_diag d = { 0 };
		struct lh_rules *rs;

		text = lh_xasprintf("[a]\nmatch = ^rcu_do_batch$\n[b]\nmatch = %s\n", p);
		rs = load(text, &d);
		lh_rules_prepare(rs);
		/* a pattern Vectorscan refuses is PCRE2's alone: it has no say in the block */
		ck_assert_msg(bad || lh_rules_stats(rs)->prefiltered == 2,
			      "'%s': %zu prefiltered", p, lh_rules_stats(rs)->prefiltered);
		if (lh_rules_stats(rs)->prefiltered == 2)
			ck_assert_msg(lh_rules_stats(rs)->block_scan == !bad,
				      "'%s': block scan %s", p, bad ? "on" : "off");
		lh_rules_free(rs);
		lh_diag_release(&d);
		free(text);
	}
}
END_TEST

START_TEST(test_audit_stacks)
{
	static const char *const ids[] = { "s", "neg", "dotall", "bsr" };
	struct lh_diag d = { 0 };
	struct lh_rules *rs = load("[s]\nmatch = kthread\\sret_from_fork\nin = stack\nspan = lines\n"
				   "[neg]\nmatch = kthread[^_]ret_from_fork\nin = stack\n"
				   "span = lines\n"
				   "[dotall]\nmatch = (?s)execute_preemptirqtest.*ret_from_fork\n"
				   "in = stack\nspan = lines\n"
				   "[bsr]\nmatch = kthread\\Rret_from_fork\nin = stack\nspan = lines\n"
				   "[line-s]\nmatch = kthread\\sret_from_fork\nin = stack\n"
				   "[line-neg]\nmatch = kthread[^_]ret_from_fork\nin = stack\n"
				   "[line-dotall]\nmatch = (?s)execute_preemptirqtest.*ret_from_fork\n"
				   "in = stack\n"
				   "[line-bsr]\nmatch = kthread\\Rret_from_fork\nin = stack\n", &d);
	struct lh_record *r = rec_new(LH_TRACER_IRQSOFF, 10);
	size_t i;

	ck_assert_uint_eq(d.errors, 0);
	rec_frame(r, 0, "execute_preemptirqtest");
	rec_frame(r, 0, "kthread");
	ck_assert(!fires(rs, r, "s"));
	ck_assert(!fires(rs, r, "dotall"));
	rec_frame(r, 0, "ret_from_fork");
	for (i = 0; i < LH_ARRAY_SIZE(ids); i++) {
		char line_id[32];

		/* a frame followed by another: only a rule that says it spans lines sees it */
		snprintf(line_id, sizeof(line_id), "line-%s", ids[i]);
		ck_assert(fires(rs, r, ids[i]));
		ck_assert(!fires(rs, r, line_id));
	}
	ck_assert_uint_eq(lh_rules_stats(rs)->joined, 4);
	/* a subject at a time: the functions do not continue the stack */
	lh_record_reset(r);
	rec_frame(r, 0, "kthread");
	rec_func(r, "ret_from_fork");
	ck_assert(!fires(rs, r, "s"));
	lh_record_free(r);
	lh_rules_free(rs);
}
END_TEST

/* Random patterns over atoms that do and do not cross lines, random lines. */
START_TEST(test_joined_random)
{
	unsigned int seed = 11 + _i;
	static const char *const atoms[] = {
		"a", "b", "x", "[ ]", "_", ".", "\\s", "\\W", "[^a]", "$", "^", "\\n", "\\b", "\\S",
		"[ab]", "(?s)", "\\z", "\\A", "\\D", "[[:space:]]", "\\w", "(?<!a)", "(?=b)",
		"\\N", "\\h", "\\V", "\\t", "[[:alpha:]]", "(?i)", "(?m)", "\\Qa b\\E", "[]a]",
		"\\x0a", "\\R", "(a)", "\\1", "[\\x01-a]", "\\B", "\\Z", "(?<=\\s)", "(?#[)",
		"{,2}", "(*COMMIT)", "(?-m)",
	};
	static const char alphabet[] = "abx _";
	enum { NP = 300, NL = 24 };
	static char pbuf[NP][48], lbuf[NL][4];
	const char *pats[NP], *ls[NL];
	unsigned int rnd = 7 + _i;
	size_t i, j, n;

	for (i = 0; i < NL; i++) {
		n = rand_r(&rnd) % 4;
		for (j = 0; j < n; j++)
			lbuf[i][j] = alphabet[rand_r(&rnd) % 5];
		lbuf[i][n] = '\0';
		ls[i] = lbuf[i];
	}
	for (i = 0; i < NP; i++) {
		size_t len = 0, nat = 1 + rand_r(&rnd) % 4;

		for (j = 0; j < nat; j++) {
			const char *a = atoms[rand_r(&rnd) % LH_ARRAY_SIZE(atoms)];

			len += snprintf(pbuf[i] + len, sizeof(pbuf[i]) - len, "%s%s", a,
					rand_r(&rnd) % 4 ? "" : rand_r(&rnd) % 2 ? "*" : "|");
		}
		pats[i] = pbuf[i];
	}
	check_joined(pats, NP, ls, NL, 300, seed);
}
END_TEST

START_TEST(test_binary_text_escaped)
{
	static const char bin[] = "\x7f" "ELF\x02\x01 = x\n[ok]\nmatch = a\nin = st\x1b[2Jack\n"
				  "s\xc3\xa9verity = x\nm\xc2\x9b = y\n";
	struct lh_diag d = { 0 };
	struct lh_rules *rs = lh_rules_alloc();
	size_t i;

	ck_assert_int_eq(lh_rules_load_buffer(rs, "b.rules", bin, sizeof(bin) - 1, &d), -1);
	if (d.errors != 4)
		dump_diag(&d);
	ck_assert_uint_eq(d.errors, 4);
	ck_assert_str_eq(d.msgs[0].text, "b.rules:1:1: '\\x7fELF\\x02\\x01' outside a rule "
			 "section (start one with '[id]')");
	ck_assert_str_eq(d.msgs[1].text, "b.rules:4:6: unknown subject 'st\\x1b[2Jack' (use "
			 "stack, functions, irq, task, blocking, start or end)");
	/* valid UTF-8 is kept, C1 controls are not */
	ck_assert_str_eq(d.msgs[2].text, "b.rules:5:1: unknown key 's\xc3\xa9verity' (use match, "
			 "in, tracer, min, severity, span or message)");
	ck_assert_str_eq(d.msgs[3].text, "b.rules:6:1: unknown key 'm\\xc2\\x9b' (use match, "
			 "in, tracer, min, severity, span or message)");
	for (i = 0; i < d.nr; i++) {
		const unsigned char *p = (const unsigned char *)d.msgs[i].text;

		for (; *p; p++)
			ck_assert(*p >= 0x20 && *p != 0x7f);
	}
	lh_diag_release(&d);
	lh_rules_free(rs);
}
END_TEST

static Suite *rules_suite(void)
{
	Suite *s = suite_create("rules");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_severity);
	tcase_add_test(tc, test_every_key);
	tcase_add_test(tc, test_defaults_and_lists);
	tcase_add_test(tc, test_min_is_a_budget);
	tcase_add_test(tc, test_match_verbatim);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_nul_byte);
	tcase_add_test(tc, test_all_errors_listed);
	tcase_add_test(tc, test_duplicate_across_files);
	tcase_add_test(tc, test_load_missing);
	tcase_add_test(tc, test_load_dir);
	tcase_add_test(tc, test_load_special_files);
	tcase_add_test(tc, test_binary_text_escaped);
	suite_add_tcase(s, tc);

	tc = tcase_create("match");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_subjects);
	tcase_add_test(tc, test_task_wakeup);
	tcase_add_test(tc, test_tracer_min);
	tcase_add_test(tc, test_multiline_anchors);
	tcase_add_test(tc, test_severity_outcome);
	tcase_add_test(tc, test_no_rules);
	tcase_add_test(tc, test_load_after_match);
	tcase_add_test(tc, test_match_limit);
	tcase_add_test(tc, test_depth_limit);
	tcase_add_test(tc, test_unevaluated);
	tcase_add_test(tc, test_span_key);
	tcase_add_test(tc, test_cache_equivalence);
	tcase_add_test(tc, test_pcre2_meaning);
	tcase_add_test(tc, test_cache_hits);
	tcase_add_test(tc, test_prefilter_limit);
	tcase_add_test(tc, test_audit_stacks);
	suite_add_tcase(s, tc);

	/* 1000 rules, joined patterns against each rule alone: the slowest of "match" */
	tc = tcase_create("scale");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_generated_1000);
	tcase_add_test(tc, test_joined_equivalence);
	tcase_add_loop_test(tc, test_joined_random, 0, 4);
	suite_add_tcase(s, tc);

	/* seconds here; minutes with LH_DIFFERENTIAL_NAMES=0 (every kallsyms name) */
	tc = tcase_create("prefilter");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_prefilter_differential);
	tcase_add_test(tc, test_block_screen);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(rules_suite)
