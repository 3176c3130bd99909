// SPDX-License-Identifier: GPL-2.0-only
/*
 * lathound analyze: read saved latency traces, match the rules, report, gate.
 * Only the edge lives here (options, files, messages, exit code); parsing, matching,
 * aggregation and the writers are the same ones 'lathound record' uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cmds.h"
#include "opts.h"
#include "parse.h"
#include "report.h"
#include "rules.h"
#include "tracedat.h"
#include "util.h"

#define SHOW_WARNINGS	20	/* warnings printed on stderr; all are counted in the report */

static const char *const analyze_usage[] = {
	"lathound analyze [<options>] [FILE...]",
	NULL,
};

static const char analyze_epilogue[] =
	"\nFILE is a saved latency trace (the tracefs 'trace' file after a latency tracer\n"
	"recorded a section), or several concatenated, or a trace.dat of 'trace-cmd record'\n"
	"with a latency tracer (-p irqsoff...); '-' or none reads standard input.\n"
	"\nexit status:\n"
	"    0  every gate passed\n"
	"    1  error: bad option, unreadable trace, broken rule file, report not written\n"
	"       (with several FILEs, the report covers those that could be read)\n"
	"    2  a gate failed: a tracer exceeded its --max, or a rule at or above --fail-on fired\n"
	"\nexample:\n"
	"    lathound analyze --max irqsoff=500us --max all=1ms --fail-on warning \\\n"
	"        --format junit -o latency.xml traces/*.trace\n";

struct analyze {
	struct lh_strlist	rules;
	struct lh_gate	gate;
	enum lh_format	format;
	const char	*output;
	unsigned long	keep;
	int		quiet;
};

/* Return: 0, or -1 when a rule file is broken or missing (every problem printed). */
static int load_rules(struct lh_rules *rs, const struct analyze *a)
{
	struct lh_diag diag = { 0 };
	int ret;

	ret = lh_load_rules(rs, a->rules.v, a->rules.nr, &diag);
	lh_print_diag(&diag, (size_t)-1, !a->quiet);
	lh_diag_release(&diag);
	return ret;
}

/*
 * Parses the bytes of one input, read from fd, into the report: a trace.dat (known by its
 * magic) through libtracecmd, anything else as trace text. Return: 0, or -1 (printed).
 */
static int parse_input(struct lh_parser *p, const char *name, int fd, const char *buf,
		       size_t len, struct lh_report *rep)
{
	const char *why;
	char *text;
	size_t text_len;

	if (!lh_tracedat_detect(buf, len)) {
		lh_parse_buffer(p, name, buf, len, lh_report_feed, rep);
		return 0;
	}
	if (lh_tracedat_read_latency(fd, buf, len, &text, &text_len, &why))
		return lh_error("cannot read trace.dat '%s': %s", name, why);
	lh_parse_buffer(p, name, text, text_len, lh_report_feed, rep);
	free(text);
	return 0;
}

/* Parses one trace file ("-": standard input) into the report. Return: 0, or -1 (printed). */
static int analyze_file(const char *path, struct lh_parser *p, struct lh_report *rep,
			struct lh_diag *diag)
{
	unsigned long before = lh_parser_stats(p)->snapshots;
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	struct stat st;
	size_t len, alloc = 0;
	char *buf = NULL;
	int fd, ret = 0;

	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return lh_error("cannot open trace '%s': %s", path, strerror(errno));
	if (fstat(fd, &st))
		goto err_read;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto err_read;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		len = (size_t)st.st_size;
		buf = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (buf != MAP_FAILED) {
			madvise(buf, len, MADV_SEQUENTIAL);
			ret = parse_input(p, name, fd, buf, len, rep);
			munmap(buf, len);
			goto out_close;
		}
	}
	if (lh_read_fd(fd, &buf, &alloc, &len, SIZE_MAX)) {
		free(buf);
		goto err_read;
	}
	ret = parse_input(p, name, fd, buf, len, rep);
	free(buf);
out_close:
	if (!ret && lh_parser_stats(p)->snapshots == before)
		lh_diag_add(diag, LH_DIAG_WARNING, "%s: no latency snapshot found ('# tracer:' header)",
			    name);
	if (!is_stdin)
		close(fd);
	return ret;

err_read:
	ret = lh_error("cannot read trace '%s': %s", path, strerror(errno));
	if (!is_stdin)
		close(fd);
	return ret;
}

int lh_cmd_analyze(int argc, char **argv)
{
	struct analyze a = { .format = LH_FORMAT_TEXT, .keep = LH_REPORT_KEEP };
	const struct lh_option options[] = {
		LH_OPT_GROUP("rules"),
		LH_OPT_CALLBACK('r', "rules", &a.rules, "PATH",
				"rule file or directory (repeatable; replaces the defaults)",
				lh_opt_list),
		LH_OPT_GROUP("report"),
		LH_OPT_CALLBACK('f', "format", &a.format, "FORMAT",
				"text (default), json or junit", lh_opt_format),
		LH_OPT_STRING('o', "output", &a.output, "FILE",
			      "write the report to FILE (atomically), not standard output"),
		LH_OPT_UINT(0, "keep", &a.keep, "N",
			    "records kept in full, rule hits then worst first (default 100)"),
		LH_OPT_BOOL('q', "quiet", &a.quiet, "print no warnings or notes on stderr"),
		LH_OPT_GATES(&a.gate),
		LH_OPT_END(),
	};
	struct lh_report_opts ropts = { 0 };
	struct lh_diag diag = { 0 };
	struct lh_rules *rules = NULL;
	struct lh_report *rep = NULL;
	struct lh_parser *parser = NULL;
	static char *stdin_only[] = { "-", NULL };
	char **files;
	int i, nfiles, first, code = LH_EXIT_ERROR;
	bool failed = false, passed;
	size_t v, unreadable = 0;
	char why[64];

	lh_gate_init(&a.gate);
	first = lh_parse_command(argc, argv, options, analyze_usage, analyze_epilogue,
				 LH_OPERANDS_FILES);
	if (first == LH_OPTS_HELP) {
		free(a.rules.v);
		return lh_finish_stdout(LH_EXIT_PASS);
	}
	if (first < 0)
		goto out;
	files = argv + first;
	nfiles = argc - first;
	if (!nfiles) {
		if (isatty(STDIN_FILENO)) {
			lh_error("no trace given and standard input is a terminal; see 'lathound analyze --help'");
			goto out;
		}
		files = stdin_only;
		nfiles = 1;
	}
	lh_quiet = a.quiet;

	rules = lh_rules_alloc();
	if (load_rules(rules, &a))
		goto out;

	ropts.keep = a.keep;
	ropts.diag = &diag;
	rep = lh_report_alloc(rules, &ropts);
	parser = lh_parser_alloc(&diag);
	for (i = 0; i < nfiles; i++)
		if (analyze_file(files[i], parser, rep, &diag))
			unreadable++;
	if (unreadable) {
		snprintf(why, sizeof(why), "%zu of %d input%s could not be read", unreadable,
			 nfiles, nfiles == 1 ? "" : "s");
		lh_report_set_error(rep, why);
		failed = true;
	}

	if (!a.quiet)
		lh_print_diag(&diag, SHOW_WARNINGS, true);
	/* An empty or foreign input must not pass a gate by having nothing in it. */
	if (!failed && !lh_parser_stats(parser)->snapshots) {
		lh_error("no latency snapshot in the input: nothing to analyze or gate");
		lh_report_set_error(rep, "no latency snapshot in the input");
		failed = true;
	}
	lh_report_add_parse_stats(rep, lh_parser_stats(parser));
	lh_report_add_diag(rep, &diag);
	passed = lh_report_evaluate(rep, &a.gate);
	if (!failed && lh_report_error(rep)) {
		lh_error("%s", lh_report_error(rep));
		failed = true;
	}

	if (a.output) {
		struct lh_diag wd = { 0 };

		if (lh_report_write_file(rep, a.format, a.output, &wd)) {
			lh_print_diag(&wd, LH_DIAG_KEEP, false);
			failed = true;
		}
		lh_diag_release(&wd);
	} else if (lh_report_write(rep, a.format, stdout)) {
		failed = true;
	}
	if (!passed && (a.output || a.format != LH_FORMAT_TEXT))
		for (v = 0; v < lh_report_nr_violations(rep); v++)
			lh_info("gate failed: %s", lh_report_violation(rep, v));
	code = failed ? LH_EXIT_ERROR : passed ? LH_EXIT_PASS : LH_EXIT_GATE;
out:
	if (parser)
		lh_parser_free(parser);
	lh_report_free(rep);
	if (rules)
		lh_rules_free(rules);
	lh_diag_release(&diag);
	free(a.rules.v);
	return lh_finish_stdout(code);
}
