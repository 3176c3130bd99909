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
 * What one piece of input costs: a regular file is mapped and read MAP_PIECE bytes at a time,
 * each piece given back to the page cache once parsed (so that RSS stays bounded); anything
 * else (standard input, a pipe, a device) is read READ_PIECE bytes at a time. A trace.dat is
 * the exception: libtracecmd needs it whole, and gives back its latency text whole.
 */
#define MAP_PIECE	(8 << 20)
#define READ_PIECE	(256 << 10)

/*
 * Parses the latency text of a trace.dat whose bytes buf[0..len) (all of them) were read
 * from fd. Return: 0, or -1 (printed).
 */
static int feed_tracedat(int fd, const char *buf, size_t len, const char *shown,
			 struct lh_parser *p)
{
	const char *why;
	char *text;
	size_t text_len;

	if (lh_tracedat_read_latency(fd, buf, len, &text, &text_len, &why))
		return lh_error("cannot read trace.dat '%s': %s", shown, why);
	lh_parse_feed(p, text, text_len);
	free(text);
	return 0;
}

/*
 * Feeds a regular file, mapped. Return: 0, -1 (printed) when it is a trace.dat that cannot
 * be read, or -2 when it cannot be mapped (nothing read).
 */
static int feed_mapped(int fd, size_t len, const char *shown, struct lh_parser *p)
{
	size_t off, n;
	char *map;
	int ret = 0;

	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return -2;
	madvise(map, len, MADV_SEQUENTIAL);
	if (lh_tracedat_detect(map, len)) {
		ret = feed_tracedat(fd, map, len, shown, p);
		goto out;
	}
	for (off = 0; off < len; off += n) {
		n = len - off < MAP_PIECE ? len - off : MAP_PIECE;
		if (lh_parse_feed(p, map + off, n))
			break;
		madvise(map + off, n, MADV_DONTNEED);
	}
out:
	munmap(map, len);
	return ret;
}

/*
 * Feeds what fd reads until its end: READ_PIECE bytes at a time, or all of it at once when
 * its first bytes are a trace.dat's. Return: 0, -1 (printed) when it is a trace.dat that
 * cannot be read, or -2 with errno when reading failed.
 */
static int feed_stream(int fd, const char *shown, struct lh_parser *p)
{
	size_t alloc = READ_PIECE, len = 0;
	char *buf = lh_xmalloc(alloc);
	bool whole = false, head = true;
	ssize_t n;
	int ret = 0;

	for (;;) {
		if (whole && alloc - len < READ_PIECE)
			lh_grow((void **)&buf, &alloc, len + READ_PIECE, 1);
		n = read(fd, buf + len, alloc - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -2;
			break;
		}
		len += (size_t)n;
		if (head) {
			if (n && len < 64)	/* enough to tell a trace.dat by its magic */
				continue;
			head = false;
			whole = lh_tracedat_detect(buf, len);
		}
		if (whole) {
			if (!n) {
				ret = feed_tracedat(fd, buf, len, shown, p);
				break;
			}
			continue;
		}
		if (len && lh_parse_feed(p, buf, len))
			break;
		len = 0;
		if (!n)
			break;
	}
	n = errno;
	free(buf);
	errno = (int)n;
	return ret;
}

/* Parses one trace file ("-": standard input) into the report. Return: 0, or -1 (printed). */
static int analyze_file(const char *path, struct lh_parser *p, struct lh_report *rep,
			struct lh_diag *diag)
{
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path, *why;
	char shown[1024], reason[256];
	struct stat st;
	int fd, ret = -2;

	lh_record_escape(shown, sizeof(shown), name, strlen(name));
	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return lh_error("cannot open trace '%s': %s", shown, strerror(errno));
	if (fstat(fd, &st))
		goto err_read;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto err_read;
	}
	lh_parse_begin(p, name, lh_report_feed, rep);
	if (S_ISREG(st.st_mode) && st.st_size > 0)
		ret = feed_mapped(fd, (size_t)st.st_size, shown, p);
	if (ret == -2)
		ret = feed_stream(fd, shown, p);
	if (ret == -2)
		goto err_read;
	lh_parse_end(p);
	why = ret ? NULL : lh_parser_why_empty(p, reason, sizeof(reason));
	if (why)
		lh_diag_add(diag, LH_DIAG_WARNING, "%s: no latency snapshot found: %s", shown, why);
	if (!is_stdin)
		close(fd);
	return ret;

err_read:
	ret = lh_error("cannot read trace '%s': %s", shown, strerror(errno));
	lh_parse_end(p);
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
				"text (default), json, junit or html", lh_opt_format),
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

	if (lh_report_output(rep, a.format, a.output))
		failed = true;
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
