// SPDX-License-Identifier: GPL-2.0-only
/*
 * lathound merge: many boards, one view. Reads saved reports one at a time (report-load.c)
 * and folds each into the fleet report (merge.c) before reading the next, so that ten
 * thousand reports take the memory of one plus the aggregates. Only the edge lives here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "opts.h"
#include "report/merge.h"
#include "report/report-load.h"
#include "trace/record.h"
#include "util/util.h"

static const char *const merge_usage[] = {
	"lathound merge [<options>] REPORT.json...",
	"lathound merge [<options>] --from LIST",
	NULL,
};

static const char merge_epilogue[] =
	"\nREPORT.json are reports that 'lathound record' (DIR/report.json) or 'lathound analyze\n"
	"--format json' wrote, of any boards, kernels, runs and nights. Per host (the --board id\n"
	"the report was written with, its hostname and kernel) the worst per tracer; offender\n"
	"signatures across hosts; the fleet's worst per tracer and its host; histograms summed\n"
	"(their bucket layouts must agree); rule hits across hosts; osnoise's % CPU available\n"
	"and noisiest sources per host and CPU. Reports are read one at a time: memory grows\n"
	"with hosts and signatures, not with reports.\n"
	"\nexit status:\n"
	"    0  every gate passed\n"
	"    1  error: a report unreadable or inconsistent (unless --allow-unreadable), a report\n"
	"       whose own verdict is error (unless --accept-error), the same run twice,\n"
	"       histograms that do not add up, a gated tracer not measured, a host\n"
	"       --min-available cannot judge (no osnoise period, a CPU without one)\n"
	"    2  a gate failed\n"
	"\nexamples:\n"
	"    lathound merge --max all=100us board*/report.json\n"
	"    find /srv/soak -name report.json | lathound merge --from - -f json -o fleet.json\n";

struct merge_args {
	struct lh_merge_opts	o;
	enum lh_format		format;
	const char		*output;
	const char		*from;
	int			allow_unreadable;
	int			accept_error;
	int			quiet;
};

static struct merge_args *args;

/* Reads the report at path alone (judged by its own gates) and folds it into m. */
static void fold(struct lh_merge *m, const char *path)
{
	char *shown = lh_record_escape_dup(path);	/* a file name may hold any byte */
	struct lh_diag diag = { 0 };
	struct lh_report *rep;
	char *why;

	rep = lh_report_load_file(path, &diag, &why);
	/* a report given up under --allow-unreadable is a warning, listed in the output */
	if (rep || !args->allow_unreadable)
		lh_print_diag(&diag, LH_DIAG_KEEP, !args->quiet);
	if (rep) {
		lh_merge_add(m, shown, rep);
	} else {
		if (args->allow_unreadable && !args->quiet)
			lh_warn("%s (accepted: --allow-unreadable)", why);
		lh_merge_unreadable(m, why);
	}
	lh_report_free(rep);
	lh_diag_release(&diag);
	free(why);
	free(shown);
}

/*
 * Folds every report the list at path ('-': standard input) names, one per line. A list that
 * cannot be read (or not to its end) leaves reports unread: an error of the fleet report.
 */
static void fold_list(struct lh_merge *m, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	const char *failed = NULL;	/* "open", "read" */
	char *line = NULL, *shown, *why;
	size_t alloc = 0;
	ssize_t n;
	int e = 0;

	if (!f) {
		failed = "open";
		e = errno;
		goto out;
	}
	while ((n = getline(&line, &alloc, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n)
			fold(m, line);
	}
	if (ferror(f)) {
		failed = "read";
		e = errno;
	}
	free(line);
	if (f != stdin)
		fclose(f);
out:
	if (failed) {
		shown = lh_record_escape_dup(path);
		why = lh_xasprintf("cannot %s list '%s': %s", failed, shown, strerror(e));
		lh_merge_error(m, why);
		free(why);
		free(shown);
	}
}

static int write_merge(FILE *f, void *m)
{
	return lh_merge_write(m, args->format, f);
}

int lh_cmd_merge(int argc, char **argv)
{
	struct merge_args a = { .format = LH_FORMAT_TEXT };
	const struct lh_option options[] = {
		LH_OPT_GROUP("merge"),
		LH_OPT_STRING(0, "from", &a.from, "LIST",
			      "read the report paths from LIST, one per line ('-': standard input)"),
		LH_OPT_CALLBACK('f', "format", &a.format, "FORMAT", "text (default), json or junit",
				lh_opt_format),
		LH_OPT_STRING('o', "output", &a.output, "FILE",
			      "write the fleet report to FILE (atomically), not standard output"),
		LH_OPT_BOOL(0, "allow-unreadable", &a.allow_unreadable,
			    "a report that cannot be read is listed, not an error"),
		LH_OPT_BOOL(0, "accept-error", &a.accept_error,
			    "merge reports whose own verdict is error (default: an error)"),
		LH_OPT_BOOL('q', "quiet", &a.quiet, "print no warnings or notes on stderr"),
		LH_OPT_GROUP("gates"),
		LH_OPT_CALLBACK(0, "max", &a.o.gate, "TRACER=DURATION",
				"fail when the fleet's worst TRACER section is longer (repeatable; 'all' for every tracer)",
				lh_opt_max),
		LH_OPT_CALLBACK(0, "fail-on", &a.o.gate, "SEVERITY",
				"fail on rule hits of SEVERITY or above in any report: info, warning, critical (default), none",
				lh_opt_fail_on),
		LH_OPT_MIN_AVAILABLE(&a.o.gate, " on any host (over every period of its reports)"),
		LH_OPT_END(),
	};
	struct lh_merge *m = NULL;
	int first, code = LH_EXIT_ERROR, i;

	args = &a;
	lh_gate_init(&a.o.gate);
	first = lh_parse_command(argc, argv, options, merge_usage, merge_epilogue,
				 LH_OPERANDS_FILES);
	if (first == LH_OPTS_HELP)
		return lh_finish_stdout(LH_EXIT_PASS);
	if (first < 0)
		return lh_finish_stdout(LH_EXIT_ERROR);
	lh_quiet = a.quiet;
	if (a.format == LH_FORMAT_HTML) {
		lh_error("merge writes text, json or junit, not html");
		return lh_finish_stdout(LH_EXIT_ERROR);
	}
	if (first == argc && !a.from) {
		lh_error("expected REPORT.json... or --from LIST; see 'lathound merge --help'");
		return lh_finish_stdout(LH_EXIT_ERROR);
	}
	a.o.allow_unreadable = a.allow_unreadable;
	a.o.accept_error = a.accept_error;
	m = lh_merge_alloc(&a.o);
	for (i = first; i < argc; i++)
		fold(m, argv[i]);
	if (a.from)
		fold_list(m, a.from);
	lh_merge_finish(m);
	if (lh_output_write(a.output, "merge", write_merge, m))
		goto out;
	code = lh_gate_exit(&m->verdict, !a.output && a.format == LH_FORMAT_TEXT);
out:
	lh_merge_free(m);
	return lh_finish_stdout(code);
}
