/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Command-line helpers that main.c and the commands (cmd-*.c) share: exit codes, the
 * check of stdout at exit, printing diagnostics, loading the rules named on the command
 * line, and the options of the commands that report and gate. Edge code: it prints.
 */
#ifndef LH_CLI_H
#define LH_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "opts.h"
#include "report/report.h"
#include "util/util.h"

/* Exit codes, as rtla: 0 passed, 1 error, 2 gate failed. */
#define LH_EXIT_PASS	0
#define LH_EXIT_ERROR	1
#define LH_EXIT_GATE	2

/*
 * Closes stdout and reports a failed write ("write error on standard output: No space
 * left on device"), as git does at exit. Return: code, or LH_EXIT_ERROR when it failed.
 */
int lh_finish_stdout(int code);

/*
 * Writes rep in format f to the file at path, atomically (problems printed), or to standard
 * output when path is NULL (why a write failed is kept for lh_finish_stdout() to report).
 * Return: 0, or -1 when writing failed.
 */
int lh_report_output(struct lh_report *rep, enum lh_format f, const char *path);

/*
 * Writes with fn(out, arg) to the file at path, atomically (label names it in messages;
 * problems printed), or to standard output when path is NULL. Return: fn's, or -1.
 */
int lh_output_write(const char *path, const char *label, int (*fn)(FILE *out, void *arg),
		    void *arg);

/*
 * The end of a command that gates saved reports (diff, merge), once its output is written:
 * v's error printed, else each violation printed as a note when the text output did not show
 * it (shown: false). Return: LH_EXIT_ERROR, LH_EXIT_GATE or LH_EXIT_PASS.
 */
int lh_gate_exit(const struct lh_verdict *v, bool shown);

/*
 * The rule directory used when no --rules is given: ./rules in a source tree, else the
 * installed one. Return: a static path.
 */
const char *lh_default_rules_dir(void);

/*
 * Prints the diagnostics library code collected in d on stderr: errors with lh_error(),
 * warnings with lh_warn() (or not at all without warnings), at most show of them, then
 * "and N more" for those not shown (counted, or dropped past LH_DIAG_KEEP).
 */
void lh_print_diag(const struct lh_diag *d, size_t show, bool warnings);

/*
 * Option callbacks of the commands that report and gate (analyze, record): the option's
 * value is an enum lh_format * (lh_opt_format) or a struct lh_gate * (lh_opt_max,
 * lh_opt_fail_on). Return: 0, or -1 after printing what is wrong with arg.
 */
int lh_opt_format(const struct lh_option *opt, const char *arg);
int lh_opt_max(const struct lh_option *opt, const char *arg);
int lh_opt_fail_on(const struct lh_option *opt, const char *arg);
int lh_opt_min_available(const struct lh_option *opt, const char *arg);

/* --min-available, declared once for every command that gates (gate: struct lh_gate *). */
#define LH_OPT_MIN_AVAILABLE(gate, help)							\
	LH_OPT_CALLBACK(0, "min-available", (gate), "osnoise=PCT",				\
			"fail when a CPU's % CPU available (osnoise) is lower" help,		\
			lh_opt_min_available)

/* The "gates" options, declared once for every command that gates (gate: struct lh_gate *). */
#define LH_OPT_GATES(gate)									\
	LH_OPT_GROUP("gates"),									\
	LH_OPT_CALLBACK(0, "max", (gate), "TRACER=DURATION",					\
			"fail when TRACER's worst section is longer (repeatable; "		\
			"'all' for every tracer)", lh_opt_max),					\
	LH_OPT_MIN_AVAILABLE(gate, ""),								\
	LH_OPT_CALLBACK(0, "fail-on", (gate), "SEVERITY",					\
			"fail on rule hits of SEVERITY or above: info, warning, "		\
			"critical (default), none", lh_opt_fail_on)

/*
 * --board ID: the board's id written into the report ("board"), so that 'lathound merge'
 * tells apart boards that share a hostname. 1 to 64 of A-Z a-z 0-9 . _ : / -.
 */
int lh_opt_board(const struct lh_option *opt, const char *arg);

#define LH_OPT_BOARD(board)								\
	LH_OPT_CALLBACK(0, "board", (board), "ID",					\
			"the board's id, written into the report (fleets share hostnames)",	\
			lh_opt_board)

/*
 * --text FILE, --json FILE, --junit FILE, --html FILE: each report format to a file of its own, written
 * atomically, or to standard output for '-'. A run that writes files this way prints no
 * other report on standard output, so that a workload's own output never lands in a report.
 */
struct lh_report_files {
	const char	*path[LH_FORMAT_NR];	/* NULL: not written */
};

#define LH_OPT_REPORT_FILES(files)							\
	LH_OPT_STRING(0, "text", &(files)->path[LH_FORMAT_TEXT], "FILE",			\
		      "write the text report to FILE ('-': standard output)"),			\
	LH_OPT_STRING(0, "json", &(files)->path[LH_FORMAT_JSON], "FILE",			\
		      "write the JSON report to FILE ('-': standard output)"),			\
	LH_OPT_STRING(0, "junit", &(files)->path[LH_FORMAT_JUNIT], "FILE",			\
		      "write the JUnit XML report to FILE ('-': standard output)"),		\
	LH_OPT_STRING(0, "html", &(files)->path[LH_FORMAT_HTML], "FILE",			\
		      "write the HTML report to FILE ('-': standard output)")

/*
 * Checks what --text, --json, --junit and --html name, with extra (may be NULL: analyze's -o FILE)
 * for the format fmt (--format): a format at most once, standard output at most once. When
 * none is named, the fmt report goes to standard output.
 * Return: 0 with f completed, or -1 (printed).
 */
int lh_report_files_check(struct lh_report_files *f, const char *extra, enum lh_format fmt);
/*
 * Writes the report in each format f names, every one tried (a failure is printed), then
 * when !passed prints each violation on stderr unless the text report went to stdout.
 * Return: 0, or -1 when one could not be written.
 */
int lh_report_files_write(struct lh_report *rep, const struct lh_report_files *f, bool passed);

/*
 * --rules PATH replaces the default rule directory; --add-rules PATH is loaded after it (or
 * after the --rules files), so a site's own rules join the shipped library without naming
 * where it is installed. Both repeatable; lh_rule_paths_release() frees them.
 */
struct lh_rule_paths {
	struct lh_strlist	rules;
	struct lh_strlist	add;
};

#define LH_OPT_RULES(paths)								\
	LH_OPT_CALLBACK('r', "rules", &(paths)->rules, "PATH",				\
			"rule file or directory (repeatable; replaces the defaults)",	\
			lh_opt_list),							\
	LH_OPT_CALLBACK(0, "add-rules", &(paths)->add, "PATH",				\
			"rule file or directory loaded after the defaults (repeatable)",	\
			lh_opt_list)

void lh_rule_paths_release(struct lh_rule_paths *p);

/*
 * Loads the rule files of p: the --rules paths, or the default rule directory when there are
 * none, then the --add-rules paths. A missing default directory is a warning in diag.
 * Return: 0, or -1 when a rule file is broken or missing (every problem in diag).
 */
struct lh_rules;
int lh_load_rules(struct lh_rules *rs, const struct lh_rule_paths *p, struct lh_diag *diag);

#endif /* LH_CLI_H */
