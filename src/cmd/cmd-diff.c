// SPDX-License-Identifier: GPL-2.0-only
/*
 * lathound diff: the regression gate between two sets of saved reports (the last release's
 * and the new kernel's). Only the edge lives here; the reading is report-load.c, the
 * comparison diff.c, its writers diff-write.c.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "opts.h"
#include "report/diff.h"
#include "report/report-load.h"
#include "trace/record.h"
#include "util/util.h"

static const char *const diff_usage[] = {
	"lathound diff [<options>] BASE.json NEW.json",
	"lathound diff [<options>] --base BASE.json... --new NEW.json...",
	NULL,
};

static const char diff_epilogue[] =
	"\nBASE.json and NEW.json are reports that 'lathound record' (DIR/report.json) or\n"
	"'lathound analyze --format json' wrote: e.g. every board of the last release against\n"
	"every board of the new kernel. Per tracer and CPU the worst case old -> new; a worst\n"
	"case is one sample, so a row compares p99.9 instead when both sides have histograms of\n"
	"at least 1000 sections: the kernel's (record --hist), else those of the sections\n"
	"captured when every section was (analyze, or record with -T). Each row says which it\n"
	"used ('by', 'from'); p99 and the worst are shown beside p99.9. --max-growth judges\n"
	"the tracer rows and the per-CPU rows of both sides. timerlat and hwlat have rows of\n"
	"their samples too (timerlat_irq, timerlat_thread, hwlat_samples: p99.9 from 1000\n"
	"samples, else the largest).\n"
	"osnoise's % CPU available per CPU, base and new; --max-available-drop judges it.\n"
	"\nexit status:\n"
	"    0  every gate passed\n"
	"    1  error: a report unreadable or invalid, a report whose own verdict is error\n"
	"       (unless --accept-error), a gated tracer (or its samples) measured on one side\n"
	"       only, offenders or rules a gate needs that could not be counted, a CPU\n"
	"       --max-available-drop cannot compare (on one side only, or without a period)\n"
	"    2  a gate failed\n"
	"\nexamples:\n"
	"    lathound diff --max-growth all=10 release/report.json candidate/report.json\n"
	"    lathound diff --max-available-drop osnoise=0.5 release/report.json candidate/report.json\n"
	"    lathound diff -f junit --max-new-offenders 0 --fail-on-new warning \\\n"
	"        --base v6.6/board1.json --base v6.6/board2.json \\\n"
	"        --new v6.12/board1.json --new v6.12/board2.json\n";

struct diff_args {
	struct lh_diff_gate	gate;
	struct lh_strlist	base, new;
	enum lh_format		format;
	const char		*output;
	unsigned long		max_new;
	int			accept_error;
	int			quiet;
};

static struct diff_args *args;

static int opt_growth(const struct lh_option *opt, const char *arg)
{
	const char *err;

	if (lh_diff_gate_parse_growth(opt->value, arg, &err))
		return lh_error("invalid --max-growth '%s': %s", arg, err);
	return 0;
}

static int opt_irq_growth(const struct lh_option *opt, const char *arg)
{
	struct lh_diff_gate *g = opt->value;
	const char *err;

	if (lh_diff_parse_pct(arg, &g->irq_growth_pct, &err))
		return lh_error("invalid --max-irq-growth '%s': %s", arg, err);
	g->has_irq_growth = true;
	return 0;
}

static int opt_available_drop(const struct lh_option *opt, const char *arg)
{
	const char *err;

	if (lh_diff_gate_parse_available_drop(opt->value, arg, &err))
		return lh_error("invalid --max-available-drop '%s': %s", arg, err);
	return 0;
}

static int opt_fail_on_new(const struct lh_option *opt, const char *arg)
{
	struct lh_gate g;
	const char *err;

	if (lh_gate_parse_fail_on(&g, arg, &err))
		return lh_error("invalid --fail-on-new '%s': %s", arg, err);
	((struct lh_diff_gate *)opt->value)->fail_on_new = g.fail_on;
	return 0;
}

/*
 * Reads the reports of one side; those that cannot be read are left out, and side->unread
 * (*why, to free) says why the first could not. names[]: the paths made inert (to free).
 */
static void load_side(const struct lh_strlist *paths, struct lh_report **reps,
			const char **names, char **why, struct lh_diff_side *side)
{
	size_t i;

	side->nr = 0;
	for (i = 0; i < paths->nr; i++) {
		struct lh_diag diag = { 0 };
		char *w;

		reps[side->nr] = lh_report_load_file(paths->v[i], &diag, &w);
		lh_print_diag(&diag, LH_DIAG_KEEP, !args->quiet);
		lh_diag_release(&diag);
		if (reps[side->nr])
			names[side->nr++] = lh_record_escape_dup(paths->v[i]);
		else if (!*why)
			*why = w;
		else
			free(w);
	}
	side->reps = reps;
	side->names = names;
	side->unread = *why;
}

static int write_diff(FILE *f, void *d)
{
	return lh_diff_write(d, args->format, f);
}

int lh_cmd_diff(int argc, char **argv)
{
	/* max_new ULONG_MAX: --max-new-offenders not given */
	struct diff_args a = { .format = LH_FORMAT_TEXT, .max_new = ULONG_MAX };
	const struct lh_option options[] = {
		LH_OPT_GROUP("diff"),
		LH_OPT_CALLBACK('b', "base", &a.base, "FILE",
				"a report of the base (repeatable; instead of the BASE.json operand)",
				lh_opt_list),
		LH_OPT_CALLBACK('n', "new", &a.new, "FILE",
				"a report of the new kernel (repeatable; instead of the NEW.json operand)",
				lh_opt_list),
		LH_OPT_CALLBACK('f', "format", &a.format, "FORMAT", "text (default), json or junit",
				lh_opt_format),
		LH_OPT_STRING('o', "output", &a.output, "FILE",
			      "write the comparison to FILE (atomically), not standard output"),
		LH_OPT_BOOL(0, "accept-error", &a.accept_error,
			    "compare reports whose own verdict is error (default: an error)"),
		LH_OPT_BOOL('q', "quiet", &a.quiet, "print no warnings or notes on stderr"),
		LH_OPT_GROUP("gates"),
		LH_OPT_CALLBACK(0, "max-growth", &a.gate, "TRACER=PCT",
				"fail when TRACER's worst (or p99.9) grew by more than PCT percent (repeatable; 'all' for every tracer)",
				opt_growth),
		LH_OPT_CALLBACK(0, "max-irq-growth", &a.gate, "PCT",
				"fail when an IRQ handler's p99 (or longest run) grew by more than PCT percent, or is new",
				opt_irq_growth),
		LH_OPT_UINT(0, "max-new-offenders", &a.max_new, "N",
			    "fail when more than N offender signatures are new"),
		LH_OPT_CALLBACK(0, "fail-on-new", &a.gate, "SEVERITY",
				"fail when a rule of SEVERITY or above hits and did not in the base: info, warning, critical, none (default)",
				opt_fail_on_new),
		LH_OPT_CALLBACK(0, "max-available-drop", &a.gate, "osnoise=PCT",
				"fail when a CPU's % CPU available (osnoise) fell by more than PCT points",
				opt_available_drop),
		LH_OPT_END(),
	};
	struct lh_report **base = NULL, **new = NULL;
	const char **base_names = NULL, **new_names = NULL;
	char *base_why = NULL, *new_why = NULL;
	struct lh_diff_side bs, ns;
	struct lh_diff *d = NULL;
	int first, code = LH_EXIT_ERROR;
	size_t i;

	args = &a;
	lh_diff_gate_init(&a.gate);
	first = lh_parse_command(argc, argv, options, diff_usage, diff_epilogue,
				 LH_OPERANDS_FILES);
	if (first == LH_OPTS_HELP)
		return lh_finish_stdout(LH_EXIT_PASS);
	if (first < 0)
		goto out;
	lh_quiet = a.quiet;
	if (a.format == LH_FORMAT_HTML) {
		lh_error("diff writes text, json or junit, not html");
		goto out;
	}
	if (a.base.nr || a.new.nr) {
		if (first < argc) {
			lh_error("unexpected argument '%s': give the reports as operands or with --base and --new, not both",
				 argv[first]);
			goto out;
		}
	} else if (argc - first == 2) {
		lh_opt_list(&options[1], argv[first]);
		lh_opt_list(&options[2], argv[first + 1]);
	}
	if (!a.base.nr || !a.new.nr) {
		lh_error("expected BASE.json NEW.json, or --base and --new; see 'lathound diff --help'");
		goto out;
	}
	a.gate.accept_error = a.accept_error;
	a.gate.has_max_new = a.max_new != ULONG_MAX;
	a.gate.max_new_offenders = a.max_new;
	base = lh_xcalloc(a.base.nr, sizeof(*base));
	new = lh_xcalloc(a.new.nr, sizeof(*new));
	base_names = lh_xcalloc(a.base.nr, sizeof(*base_names));
	new_names = lh_xcalloc(a.new.nr, sizeof(*new_names));
	/* Reports that cannot be read make the verdict error, said in the output too. */
	load_side(&a.base, base, base_names, &base_why, &bs);
	load_side(&a.new, new, new_names, &new_why, &ns);
	d = lh_diff_compute(&bs, &ns, &a.gate);
	if (lh_output_write(a.output, "diff", write_diff, d))
		goto out;
	code = lh_gate_exit(&d->verdict, !a.output && a.format == LH_FORMAT_TEXT);
out:
	lh_diff_free(d);
	for (i = 0; base && i < a.base.nr; i++) {
		lh_report_free(base[i]);
		free((char *)base_names[i]);
	}
	for (i = 0; new && i < a.new.nr; i++) {
		lh_report_free(new[i]);
		free((char *)new_names[i]);
	}
	free(base);
	free(new);
	free(base_names);
	free(new_names);
	free(base_why);
	free(new_why);
	free(a.base.v);
	free(a.new.v);
	return lh_finish_stdout(code);
}
