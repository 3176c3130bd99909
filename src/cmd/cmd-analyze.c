// SPDX-License-Identifier: GPL-2.0-only
/*
 * lathound analyze: read saved latency traces, match the rules, report, gate.
 * Only the edge lives here (options, files, messages, exit code); parsing, matching,
 * aggregation and the writers are the same ones 'lathound record' uses.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cmds.h"
#include "opts.h"
#include "report/report.h"
#include "rules/parallel.h"
#include "rules/rules.h"
#include "trace/parse.h"
#include "trace/tracedat.h"
#include "util/util.h"

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
	"    1  error: bad option, broken rule file, report not written, or a FILE not read\n"
	"       in full (unreadable, no latency snapshot, a snapshot skipped as malformed or\n"
	"       whose body is cut) unless --allow-unreadable; the report covers what could\n"
	"       be read\n"
	"    2  a gate failed: a tracer exceeded its --max, or a rule at or above --fail-on fired\n"
	"\nexample:\n"
	"    lathound analyze --max irqsoff=500us --max all=1ms --fail-on warning \\\n"
	"        --format junit -o latency.xml traces/*.trace\n";

struct analyze {
	struct lh_rule_paths	rules;
	struct lh_gate	gate;
	enum lh_format	format;
	const char	*output;
	struct lh_report_files	files;
	unsigned long	keep;
	const char	*board;
	unsigned long	jobs;		/* 0: one per CPU it may use, at most 4 */
	unsigned long	chunk;		/* bytes per chunk of a parallel parse (tests) */
	int		quiet;
	int		allow_unreadable;
};

/* What reading an input needs: the parser, where its records and warnings go, threads. */
struct reader {
	struct lh_parser	*p;
	struct lh_report	*rep;
	struct lh_rules		*rules;	/* the report's */
	struct lh_diag		*diag;
	unsigned int		jobs;
	size_t			chunk;
};

/* Return: 0, or -1 when a rule file is broken or missing (every problem printed). */
static int load_rules(struct lh_rules *rs, const struct analyze *a)
{
	struct lh_diag diag = { 0 };
	int ret;

	ret = lh_load_rules(rs, &a->rules, &diag);
	lh_print_diag(&diag, (size_t)-1, !a->quiet);
	lh_diag_release(&diag);
	return ret;
}

/* One input: what the report gets, and the sentence that says why it was not read in full. */
struct input {
	struct lh_report_input	in;
	bool			binary;	/* NUL bytes near its start: not text */
	bool			tracedat;	/* a trace.dat: kernel text, read by libtracecmd */
	char			shown[1024];	/* its name, escaped for messages */
	char			why[1536];
	char			damage[160];	/* a trace.dat's first record the kernel never wrote */
	struct lh_report	*rep;		/* where a trace.dat's records go */
};

/* The first reason an input was not read in full wins. */
static void __attribute__((format(printf, 2, 3)))
unread(struct input *inp, const char *fmt, ...)
{
	va_list ap;

	if (inp->in.problem)
		return;
	va_start(ap, fmt);
	vsnprintf(inp->why, sizeof(inp->why), fmt, ap);
	va_end(ap);
	inp->in.problem = inp->why;
}

/*
 * What one piece of input costs: a regular file is mapped and read MAP_PIECE bytes at a time,
 * each piece given back to the page cache once parsed (so that RSS stays bounded); anything
 * else (standard input, a pipe, a device) is read READ_PIECE bytes at a time. A trace.dat is
 * the exception: libtracecmd needs it whole (a pipe's is held, up to LH_TRACEDAT_STREAM_MAX),
 * and its latency text comes back a piece at a time, as a text input's.
 */
#define MAP_PIECE	(8 << 20)
#define READ_PIECE	(256 << 10)

/* Gives the pages of a parsed piece of a mapped file back (they stay in the page cache). */
static void release_pages(const char *s, size_t n)
{
	uintptr_t a = (uintptr_t)s & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);

	madvise((void *)a, n + ((uintptr_t)s - a), MADV_DONTNEED);
}

/*
 * A record of a trace.dat's latency data, which is the kernel's text as it printed it (and
 * trace-cmd's compressed chunks carry no checksum): a known tracer, the '#N/M' the kernel
 * always prints, every entry it declares and no elision. Anything else is damage, noted.
 */
static int tracedat_record(struct lh_record *r, void *arg)
{
	struct input *inp = arg;
	const char *what = NULL;

	if (r->tracer == LH_TRACER_UNKNOWN)
		what = "a tracer that is no latency tracer lathound knows";
	else if (!r->entries)
		what = "no '#N/M' entry count in its header";
	else if (lh_record_body(r) != LH_BODY_COMPLETE)
		what = r->elided ? "an elision or text between its entries" : "a cut body";
	if (what && !inp->damage[0])
		snprintf(inp->damage, sizeof(inp->damage), "line %lu: %s", r->line, what);
	return lh_report_feed(r, inp->rep);
}

/* A piece of a trace.dat's latency text, for the parser as a text input's would be. */
static int feed_text(const char *text, size_t len, void *parser)
{
	return lh_parse_feed(parser, text, len);
}

/*
 * Parses the latency text of a trace.dat whose bytes buf[0..len) (all of them) were read
 * from fd. Return: 0, or -1 when it cannot be read (inp says why).
 */
static int feed_tracedat(int fd, const char *buf, size_t len, struct input *inp,
			 struct lh_parser *p)
{
	const char *why;

	inp->tracedat = true;
	lh_parse_begin(p, inp->in.name, tracedat_record, inp);	/* nothing was fed yet */
	if (lh_tracedat_read_latency(fd, buf, len, feed_text, p, &why)) {
		unread(inp, "cannot read trace.dat '%s': %s", inp->shown, why);
		return -1;
	}
	return 0;
}

/* Notes whether the first bytes of an input hold NUL bytes: binary data, not trace text. */
static void note_binary(struct input *inp, const char *buf, size_t len)
{
	inp->binary = memchr(buf, '\0', len < 4096 ? len : 4096) != NULL;
}

/*
 * Feeds a regular file, mapped: by rd->jobs threads when it holds at least two chunks
 * (lh_parallel_parse(), the same outcome as this thread's parser alone).
 * Return: 0, -1 when it is a trace.dat that cannot be read (inp says why), or -2 when it
 * cannot be mapped (nothing read).
 */
static int feed_mapped(int fd, size_t len, struct input *inp, const struct reader *rd)
{
	struct lh_parallel_opts po = {
		.jobs = rd->jobs, .chunk = rd->chunk, .piece = MAP_PIECE, .release = release_pages,
		.rules = lh_rules_count(rd->rules) ? rd->rules : NULL,
		.matched = lh_report_feed_matched,
	};
	struct lh_parser *p = rd->p;
	size_t off, n;
	char *map;
	int ret = 0;

	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return -2;
	madvise(map, len, MADV_SEQUENTIAL);
	if (lh_tracedat_detect(map, len)) {
		ret = feed_tracedat(fd, map, len, inp, p);
		goto out;
	}
	note_binary(inp, map, len);
	if (rd->jobs > 1 && len / 2 >= rd->chunk &&
	    lh_parallel_parse(p, inp->in.name, map, len, &po, lh_report_feed, rd->rep,
			      rd->diag) != -2)
		goto out;
	for (off = 0; off < len; off += n) {
		n = len - off < MAP_PIECE ? len - off : MAP_PIECE;
		if (lh_parse_feed(p, map + off, n))
			break;
		release_pages(map + off, n);
	}
out:
	munmap(map, len);
	return ret;
}

/*
 * Feeds what fd reads until its end: READ_PIECE bytes at a time, or all of it at once when
 * its first bytes are a trace.dat's. Return: 0, -1 when it is a trace.dat that cannot be
 * read (inp says why), or -2 with errno when reading failed.
 */
static int feed_stream(int fd, struct input *inp, struct lh_parser *p)
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
			note_binary(inp, buf, len);
		}
		if (whole) {
			if (!n) {
				ret = feed_tracedat(fd, buf, len, inp, p);
				break;
			}
			if (len >= LH_TRACEDAT_STREAM_MAX) {
				unread(inp, "cannot read trace.dat '%s': more than %u MiB through a "
				       "pipe (libtracecmd needs it whole: give it as a file)",
				       inp->shown, LH_TRACEDAT_STREAM_MAX >> 20);
				ret = -1;
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

/*
 * What the parser made of one input: no snapshot at all, snapshots it skipped as malformed,
 * or snapshots whose body is cut (lh_parser_first_cut(); an elided one is read as published)
 * leave the input unread (in part), and the gate cannot judge what it did not read. A
 * trace.dat holds the kernel's text as it wrote it: an elision or a line of no known layout
 * there is damage (trace-cmd's compressed chunks carry no checksum), not a person's choice.
 */
static void judge_input(struct input *inp, const struct lh_parser *p,
			const struct lh_parse_stats *before)
{
	const struct lh_parse_stats *st = lh_parser_stats(p);
	const char *skip = lh_parser_first_skip(p);
	uint64_t n = st->snapshots - before->snapshots, k = st->skipped - before->skipped;
	uint64_t c = st->cut - before->cut, bad = st->bad_lines - before->bad_lines;
	uint64_t odd = st->odd_entries - before->odd_entries;
	char reason[256];

	inp->in.snapshots = n;
	inp->in.skipped = k;
	if (inp->in.problem)
		return;
	if (!n && !k)
		unread(inp, "no latency snapshot in trace '%s': %s", inp->shown,
		       inp->binary ? "binary data, not the text of a latency trace" :
		       lh_parser_why_empty(p, reason, sizeof(reason)) ?: "none found");
	else if (!n)
		unread(inp, "no latency snapshot read from trace '%s': %" PRIu64 " skipped as malformed (%s)",
		       inp->shown, k, skip ? skip : "?");
	else if (k)
		unread(inp, "trace '%s': %" PRIu64 " of %" PRIu64 " snapshots skipped as malformed (%s)",
		       inp->shown, k, k + n, skip ? skip : "?");
	else if (c)
		unread(inp, "trace '%s': %" PRIu64 " of %" PRIu64 " snapshots cut, read in part (%s)", inp->shown, c,
		       n, lh_parser_first_cut(p) ?: "?");
	else if (inp->tracedat && (inp->damage[0] || bad || odd))
		unread(inp, "trace.dat '%s': libtracecmd returned latency text the kernel never "
		       "writes, damaged (%s)", inp->shown, inp->damage[0] ? inp->damage :
		       bad ? "lines of no known layout" :
		       "entries that are no function call or event the kernel prints");
}

/* Parses one trace file ("-": standard input) into the report; inp says how much was read. */
static void analyze_file(const char *path, struct input *inp, const struct reader *rd)
{
	struct lh_parser *p = rd->p;
	struct lh_parse_stats before = *lh_parser_stats(p);
	bool is_stdin = !strcmp(path, "-");
	struct stat st;
	int fd, ret = -2;

	inp->in.name = is_stdin ? "<stdin>" : path;
	inp->rep = rd->rep;
	lh_record_escape(inp->shown, sizeof(inp->shown), inp->in.name, strlen(inp->in.name));
	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		unread(inp, "cannot open trace '%s': %s", inp->shown, strerror(errno));
		return;
	}
	lh_parse_begin(p, inp->in.name, lh_report_feed, rd->rep);
	if (fstat(fd, &st))
		goto err_read;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto err_read;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0)
		ret = feed_mapped(fd, (size_t)st.st_size, inp, rd);
	if (ret == -2)
		ret = feed_stream(fd, inp, p);
	if (ret == -2)
		goto err_read;
	lh_parse_end(p);
	judge_input(inp, p, &before);
	if (!is_stdin)
		close(fd);
	return;

err_read:
	unread(inp, "cannot read trace '%s': %s", inp->shown, strerror(errno));
	lh_parse_end(p);
	judge_input(inp, p, &before);
	if (!is_stdin)
		close(fd);
}

int lh_cmd_analyze(int argc, char **argv)
{
	struct analyze a = { .format = LH_FORMAT_TEXT, .keep = LH_REPORT_KEEP };
	const struct lh_option options[] = {
		LH_OPT_GROUP("rules"),
		LH_OPT_RULES(&a.rules),
		LH_OPT_GROUP("report"),
		LH_OPT_CALLBACK('f', "format", &a.format, "FORMAT",
				"text (default), json, junit or html", lh_opt_format),
		LH_OPT_STRING('o', "output", &a.output, "FILE",
			      "write the --format report to FILE (atomically; '-': standard output)"),
		LH_OPT_REPORT_FILES(&a.files),
		LH_OPT_UINT(0, "keep", &a.keep, "N",
			    "records kept in full, rule hits then worst first (default 100)"),
		LH_OPT_BOARD(&a.board),
		LH_OPT_BOOL('q', "quiet", &a.quiet, "print no warnings or notes on stderr"),
		LH_OPT_GROUP("input"),
		LH_OPT_UINT('j', "jobs", &a.jobs, "N",
			    "threads that parse a large trace file (default: one per CPU it may use, at most 4)"),
		LH_OPT_HIDDEN(LH_OPT_UINT(0, "chunk", &a.chunk, "BYTES",
					  "bytes per chunk of a parallel parse (for tests)")),
		LH_OPT_GATES(&a.gate),
		LH_OPT_BOOL(0, "allow-unreadable", &a.allow_unreadable,
			    "an input not read in full (no snapshot, a malformed or cut one) is listed, not an error"),
		LH_OPT_END(),
	};
	struct lh_report_opts ropts = { 0 };
	struct lh_diag diag = { 0 };
	struct lh_rules *rules = NULL;
	struct lh_report *rep = NULL;
	struct lh_parser *parser = NULL;
	struct reader rd = { 0 };
	cpu_set_t cpus;
	static char *stdin_only[] = { "-", NULL };
	struct input *inputs = NULL;
	char **files;
	int i, nfiles, first, code = LH_EXIT_ERROR;
	bool failed = false, passed;

	lh_gate_init(&a.gate);
	first = lh_parse_command(argc, argv, options, analyze_usage, analyze_epilogue,
				 LH_OPERANDS_FILES);
	if (first == LH_OPTS_HELP) {
		lh_rule_paths_release(&a.rules);
		return lh_finish_stdout(LH_EXIT_PASS);
	}
	if (first < 0 || lh_report_files_check(&a.files, a.output, a.format))
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

	/* the CPUs it may run on: none of an RT machine's isolated ones under taskset */
	if (!a.jobs)
		a.jobs = sched_getaffinity(0, sizeof(cpus), &cpus) ? 1 :
			 (unsigned long)CPU_COUNT(&cpus);
	if (a.jobs > LH_PARALLEL_MAX_JOBS)
		a.jobs = LH_PARALLEL_MAX_JOBS;
	ropts.keep = a.keep;
	ropts.board = a.board;
	ropts.diag = &diag;
	ropts.jobs = (unsigned int)a.jobs;
	rep = lh_report_alloc(rules, &ropts);
	parser = lh_parser_alloc(&diag);
	inputs = lh_xcalloc((size_t)nfiles, sizeof(*inputs));
	rd = (struct reader){
		.p = parser, .rep = rep, .rules = rules, .diag = &diag,
		.jobs = (unsigned int)a.jobs,
		.chunk = a.chunk ? a.chunk : LH_PARALLEL_CHUNK,
	};
	for (i = 0; i < nfiles; i++) {
		analyze_file(files[i], &inputs[i], &rd);
		inputs[i].in.accepted = a.allow_unreadable;
		lh_report_add_input(rep, &inputs[i].in);
	}

	if (!a.quiet)
		lh_print_diag(&diag, SHOW_WARNINGS, true);
	/* Each input not read in full, named with why: an error unless --allow-unreadable. */
	for (i = 0; i < nfiles; i++) {
		if (!inputs[i].in.problem)
			continue;
		if (!a.allow_unreadable) {
			lh_error("%s", inputs[i].in.problem);
			failed = true;
		} else if (!a.quiet) {
			lh_warn("%s (accepted: --allow-unreadable)", inputs[i].in.problem);
		}
	}
	lh_report_add_parse_stats(rep, lh_parser_stats(parser));
	lh_report_add_diag(rep, &diag);
	passed = lh_report_evaluate(rep, &a.gate);
	/* Nothing read at all must not pass a gate, even with --allow-unreadable. */
	if (!lh_report_error(rep) && !lh_parser_stats(parser)->snapshots)
		lh_report_set_error(rep, "no latency snapshot in the input: nothing to analyze or gate");
	if (!failed && lh_report_error(rep)) {
		lh_error("%s", lh_report_error(rep));
		failed = true;
	}

	if (lh_report_files_write(rep, &a.files, passed))
		failed = true;
	code = failed ? LH_EXIT_ERROR : passed ? LH_EXIT_PASS : LH_EXIT_GATE;
out:
	if (parser)
		lh_parser_free(parser);
	lh_report_free(rep);
	if (rules)
		lh_rules_free(rules);
	lh_diag_release(&diag);
	free(inputs);
	lh_rule_paths_release(&a.rules);
	return lh_finish_stdout(code);
}
