// SPDX-License-Identifier: GPL-2.0-only
/*
 * lathound rules check PATH...: loads rule files exactly as analyze and record do (all
 * together, so an id defined twice across files is an error), lists every problem as
 * "file:line:column: message" on stderr and sums up on stdout.
 * lathound rules list [--rules PATH] [--add-rules PATH]: the rules analyze and record would
 * load with the same options, each with its severity and the file:line it comes from.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "opts.h"
#include "rules/rules.h"
#include "util/util.h"

static const char *const rules_usage[] = {
	"lathound rules check [-q] PATH...",
	"lathound rules list [--rules PATH]... [--add-rules PATH]...",
	NULL,
};

static int quiet;

static const struct lh_option check_options[] = {
	LH_OPT_BOOL('q', "quiet", &quiet, "print nothing when every rule is valid"),
	LH_OPT_END(),
};

static int rules_check(int argc, char **argv)
{
	struct lh_diag diag = { 0 };
	struct lh_rules *rs;
	size_t i, nr_rules;
	int n, code = LH_EXIT_PASS;

	n = lh_parse_options(argc, argv, check_options, rules_usage);
	if (n == LH_OPTS_HELP)
		return lh_finish_stdout(LH_EXIT_PASS);
	if (n < 0)
		return LH_EXIT_ERROR;
	if (n >= argc) {
		lh_error("'rules check' needs at least one rule file or directory");
		lh_usage(stderr, rules_usage, check_options);
		return LH_EXIT_ERROR;
	}

	rs = lh_rules_alloc();
	for (; n < argc; n++)
		lh_rules_load(rs, argv[n], &diag);
	lh_print_diag(&diag, (size_t)-1, true);
	if (diag.errors) {
		lh_error("rule check failed: %lu error%s", diag.errors,
			 diag.errors == 1 ? "" : "s");
		code = LH_EXIT_ERROR;
	} else if (!quiet) {
		for (i = 0; i < lh_rules_nr_files(rs); i++) {
			const char *name = lh_rules_file(rs, i, &nr_rules);

			printf("%s: %zu rule%s ok\n", name, nr_rules, nr_rules == 1 ? "" : "s");
		}
		nr_rules = lh_rules_count(rs);
		printf("total: %zu rule%s in %zu file%s ok\n", nr_rules, nr_rules == 1 ? "" : "s",
		       lh_rules_nr_files(rs), lh_rules_nr_files(rs) == 1 ? "" : "s");
	}
	lh_diag_release(&diag);
	lh_rules_free(rs);
	return lh_finish_stdout(code);
}

/* How the line rules will be matched: through the prefilter, or by PCRE2 on every line. */
static void print_prefilter(struct lh_rules *rs)
{
	const struct lh_rules_stats *st;
	char engine[64];
	size_t i;

	lh_rules_prepare(rs);
	st = lh_rules_stats(rs);
	if (!lh_rules_count(rs))
		return;
	if (st->no_prefilter)
		printf("prefilter: none (%s): PCRE2 runs every line rule on every new line\n",
		       st->no_prefilter);
	else
		printf("prefilter: %s: %zu line rule%s, %zu run by PCRE2 on every new line; %s\n",
		       lh_rules_prefilter_engine(engine, sizeof(engine)), st->prefiltered,
		       st->prefiltered == 1 ? "" : "s", st->always_run,
		       st->block_scan ? "a record's lines scanned at once" :
		       "a line at a time (a pattern anchors to the subject's ends or may match empty)");
	for (i = 0; !st->no_prefilter && i < lh_rules_count(rs); i++) {
		const struct lh_rule *r = lh_rules_get(rs, i);

		if (!r->prefiltered && !r->span)
			printf("  not prefiltered: %s (%s:%u)\n", r->id, r->file, r->line);
	}
}

static int rules_list(int argc, char **argv)
{
	struct lh_rule_paths paths = { 0 };
	const struct lh_option options[] = {
		LH_OPT_RULES(&paths),
		LH_OPT_END(),
	};
	struct lh_diag diag = { 0 };
	struct lh_rules *rs;
	size_t i, nr;
	int n, code = LH_EXIT_ERROR;

	n = lh_parse_options(argc, argv, options, rules_usage);
	if (n == LH_OPTS_HELP) {
		code = lh_finish_stdout(LH_EXIT_PASS);
		goto out;
	}
	if (n < 0)
		goto out;
	if (n < argc) {
		lh_error("unexpected argument '%s'; name rule files with --rules or --add-rules",
			 argv[n]);
		goto out;
	}
	rs = lh_rules_alloc();
	if (!lh_load_rules(rs, &paths, &diag))
		code = LH_EXIT_PASS;
	lh_print_diag(&diag, (size_t)-1, true);
	print_prefilter(rs);
	nr = lh_rules_count(rs);
	for (i = 0; i < nr; i++) {
		const struct lh_rule *r = lh_rules_get(rs, i);

		printf("%-32s %-8s %s:%u\n", r->id, lh_severity_name(r->severity), r->file,
		       r->line);
	}
	printf("%zu rule%s from %zu file%s\n", nr, nr == 1 ? "" : "s", lh_rules_nr_files(rs),
	       lh_rules_nr_files(rs) == 1 ? "" : "s");
	lh_diag_release(&diag);
	lh_rules_free(rs);
	code = lh_finish_stdout(code);
out:
	lh_rule_paths_release(&paths);
	return code;
}

int lh_cmd_rules(int argc, char **argv)
{
	if (argc < 2) {
		lh_error("'rules' needs a subcommand: 'check' or 'list'");
		lh_usage(stderr, rules_usage, check_options);
		return LH_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		lh_usage(stdout, rules_usage, check_options);
		return lh_finish_stdout(LH_EXIT_PASS);
	}
	if (!strcmp(argv[1], "check"))
		return rules_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return rules_list(argc - 1, argv + 1);
	lh_error("'%s' is not a rules subcommand ('check' or 'list')", argv[1]);
	lh_usage(stderr, rules_usage, check_options);
	return LH_EXIT_ERROR;
}
