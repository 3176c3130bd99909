// SPDX-License-Identifier: GPL-2.0-only
/*
 * lathound: hunt latency on real-time Linux with the ftrace latency tracers.
 * The command table; every subcommand lives in its own cmd-*.c.
 */
#include <string.h>

#include "cmd/cmds.h"
#include "rules/rules.h"

static const struct lh_command {
	const char	*name;
	int		(*fn)(int argc, char **argv);
	const char	*help;
} commands[] = {
	{ "record",	lh_cmd_record,	"hunt latency live: arm the latency tracers, capture every section" },
	{ "analyze",	lh_cmd_analyze,	"read saved latency traces, match rules, report and gate" },
	{ "report",	lh_cmd_report,	"render saved report.json files again, judge and merge them" },
	{ "diff",	lh_cmd_diff,	"compare reports of two kernels: what grew, and the regression gate" },
	{ "merge",	lh_cmd_merge,	"merge the reports of many boards into one fleet report" },
	{ "doctor",	lh_cmd_doctor,	"check that this kernel and system can run lathound, and how to fix it" },
	{ "reset",	lh_cmd_reset,	"restore tracefs state left by a lathound run that was killed" },
	{ "rules",	lh_cmd_rules,	"validate rule files ('lathound rules check PATH...')" },
	/* Not listed: the histogram engine's test harness for tests/live and tests/vm ('record' reads
	 * the same histograms at its checkpoints, --hist). */
	{ "hist",	lh_cmd_hist,	NULL },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: lathound [--version] [--help] <command> [<args>]\n\n"
		   "commands:\n");
	for (i = 0; i < LH_ARRAY_SIZE(commands); i++)
		if (commands[i].help)
			fprintf(f, "    %-10s%s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'lathound <command> --help' shows a command's options; "
		   "'man lathound-<command>' explains them.\n"
		   "exit status: 0 passed, 1 error, 2 a gate (--max, --fail-on) failed\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return LH_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return lh_finish_stdout(LH_EXIT_PASS);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		char engine[64];

		printf("lathound %s\n", LH_VERSION);
		/* how rules are matched: lathound-rules(1), "The prefilter" */
		if (lh_rules_prefilter_engine(engine, sizeof(engine)))
			printf("rules prefilter: %s\n", engine);
		else
			printf("rules prefilter: none (built without Vectorscan: PCRE2 alone)\n");
		return lh_finish_stdout(LH_EXIT_PASS);
	}
	for (i = 0; i < LH_ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);

	lh_error("'%s' is not a lathound command; see 'lathound --help'", argv[1]);
	return LH_EXIT_ERROR;
}
