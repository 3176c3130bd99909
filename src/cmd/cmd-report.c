// SPDX-License-Identifier: GPL-2.0-only
/*
 * lathound report: render saved report.json files again (the board records, the laptop
 * renders), judged by their own gates or by new ones, and merge reports of one board into
 * one. Only the edge lives here; the reading is report-load.c, the writers are the ones
 * 'analyze' and 'record' use.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "opts.h"
#include "report/report-load.h"
#include "util/util.h"

static const char *const report_usage[] = {
	"lathound report [<options>] FILE.json...",
	NULL,
};

static const char report_epilogue[] =
	"\nFILE.json is a report that 'lathound record' (DIR/report.json) or 'lathound analyze\n"
	"--format json' wrote; '-' reads standard input. Several reports of one board (same\n"
	"host and kernel, different runs) are merged into one. The verdict is judged again from\n"
	"the saved data, by the saved gates; --max replaces the saved budgets, --fail-on the\n"
	"saved severity.\n"
	"\nexit status:\n"
	"    0  every gate passed\n"
	"    1  error: a report unreadable, inconsistent or of another board, a run that\n"
	"       failed, the report not written\n"
	"    2  a gate failed\n"
	"\nexamples:\n"
	"    lathound report --format html -o board42.html board42/report.json\n"
	"    lathound report --max irqsoff=100us night1/report.json night2/report.json\n";

struct report_args {
	struct lh_gate	gate;
	bool		fail_on_given;
	enum lh_format	format;
	const char	*output;
	unsigned long	keep;
	int		quiet;
};

static struct report_args *args;

/* --fail-on, noting that it was given: it then replaces the saved severity. */
static int opt_fail_on(const struct lh_option *opt, const char *arg)
{
	args->fail_on_given = true;
	return lh_opt_fail_on(opt, arg);
}

int lh_cmd_report(int argc, char **argv)
{
	struct report_args a = { .format = LH_FORMAT_TEXT };
	const struct lh_option options[] = {
		LH_OPT_GROUP("report"),
		LH_OPT_CALLBACK('f', "format", &a.format, "FORMAT",
				"text (default), json, junit or html", lh_opt_format),
		LH_OPT_STRING('o', "output", &a.output, "FILE",
			      "write the report to FILE (atomically), not standard output"),
		LH_OPT_UINT(0, "keep", &a.keep, "N",
			    "records kept in full (default: as many as the report that kept most)"),
		LH_OPT_BOOL('q', "quiet", &a.quiet, "print no warnings or notes on stderr"),
		LH_OPT_GROUP("gates (default: the saved ones)"),
		LH_OPT_CALLBACK(0, "max", &a.gate, "TRACER=DURATION",
				"fail when TRACER's worst section is longer (repeatable; 'all' for every tracer); replaces the saved budgets",
				lh_opt_max),
		LH_OPT_MIN_AVAILABLE(&a.gate, "; replaces the saved budgets, as --max does"),
		LH_OPT_CALLBACK(0, "fail-on", &a.gate, "SEVERITY",
				"fail on rule hits of SEVERITY or above: info, warning, critical, none; replaces the saved one",
				opt_fail_on),
		LH_OPT_END(),
	};
	struct lh_report_load_opts lo = { 0 };
	struct lh_report_loader *l = NULL;
	struct lh_report *rep = NULL;
	struct lh_diag diag = { 0 };
	bool max_given = false, failed = false;
	int i, t, first, code = LH_EXIT_ERROR;
	size_t v;

	args = &a;
	lh_gate_init(&a.gate);
	first = lh_parse_command(argc, argv, options, report_usage, report_epilogue,
				 LH_OPERANDS_FILES);
	if (first == LH_OPTS_HELP)
		return lh_finish_stdout(LH_EXIT_PASS);
	if (first < 0)
		goto out;
	if (first == argc) {
		lh_error("no report given; see 'lathound report --help'");
		goto out;
	}
	lh_quiet = a.quiet;
	max_given = a.gate.has_min_available;
	for (t = 0; t < LH_TRACER_NR; t++)
		max_given |= a.gate.has_max[t];
	lo.keep = a.keep;
	lo.max = max_given ? &a.gate : NULL;
	lo.fail_on = a.fail_on_given ? &a.gate : NULL;

	l = lh_report_loader_alloc(&lo);
	for (i = first; i < argc; i++)
		failed |= lh_report_loader_add_file(l, argv[i], &diag) != 0;
	if (!failed)
		rep = lh_report_loader_finish(l, &diag);
	lh_print_diag(&diag, LH_DIAG_KEEP, !a.quiet);
	if (!rep)
		goto out;
	if (lh_report_output(rep, a.format, a.output))
		failed = true;
	if (lh_report_error(rep)) {
		lh_error("%s", lh_report_error(rep));
		failed = true;
	}
	if (!failed && lh_report_nr_violations(rep) && (a.output || a.format != LH_FORMAT_TEXT))
		for (v = 0; v < lh_report_nr_violations(rep); v++)
			lh_info("gate failed: %s", lh_report_violation(rep, v));
	code = failed ? LH_EXIT_ERROR : lh_report_nr_violations(rep) ? LH_EXIT_GATE : LH_EXIT_PASS;
out:
	lh_report_free(rep);
	lh_report_loader_free(l);
	lh_diag_release(&diag);
	return lh_finish_stdout(code);
}
