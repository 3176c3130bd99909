/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The subcommands, one file each (cmd-*.c). Each takes argv as its own: argv[0] is the
 * command's name. Return: the process exit code (LH_EXIT_*).
 */
#ifndef LH_CMDS_H
#define LH_CMDS_H

#include <stdbool.h>
#include <stddef.h>

#include "opts.h"
#include "util.h"

/* Exit codes, as rtla: 0 passed, 1 error, 2 gate failed. */
#define LH_EXIT_PASS	0
#define LH_EXIT_ERROR	1
#define LH_EXIT_GATE	2

/* The subcommands (main.c's table). Return: the exit code, LH_EXIT_*. */
int lh_cmd_analyze(int argc, char **argv);
int lh_cmd_record(int argc, char **argv);
int lh_cmd_doctor(int argc, char **argv);
int lh_cmd_reset(int argc, char **argv);
int lh_cmd_rules(int argc, char **argv);
int lh_cmd_hist(int argc, char **argv);

/*
 * Closes stdout and reports a failed write ("write error on standard output: No space
 * left on device"), as git does at exit. Return: code, or LH_EXIT_ERROR when it failed.
 */
int lh_finish_stdout(int code);

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

/* The "gates" options, declared once for every command that gates (gate: struct lh_gate *). */
#define LH_OPT_GATES(gate)									\
	LH_OPT_GROUP("gates"),									\
	LH_OPT_CALLBACK(0, "max", (gate), "TRACER=DURATION",					\
			"fail when TRACER's worst section is longer (repeatable; "		\
			"'all' for every tracer)", lh_opt_max),					\
	LH_OPT_CALLBACK(0, "fail-on", (gate), "SEVERITY",					\
			"fail on rule hits of SEVERITY or above: info, warning, "		\
			"critical (default), none", lh_opt_fail_on)

/*
 * Loads the rule files named by --rules (paths[0..nr)), or the default rule directory when
 * there are none; a missing default directory is a warning in diag, not an error.
 * Return: 0, or -1 when a rule file is broken or missing (every problem in diag).
 */
struct lh_rules;
int lh_load_rules(struct lh_rules *rs, const char *const *paths, size_t nr, struct lh_diag *diag);

#endif /* LH_CMDS_H */
