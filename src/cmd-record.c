// SPDX-License-Identifier: GPL-2.0-only
/*
 * lathound record: arm the latency tracers, capture every section the kernel records,
 * match the rules, keep per-IRQ statistics, checkpoint the report, gate at the end.
 *
 * The run is one loop around ppoll(): it wakes on a section notification (capture.c), a
 * signal (handlers only set flags; signals are blocked outside ppoll so none is missed),
 * or the next deadline (IRQ buffer read, tracer slice, checkpoint, status line, end).
 * Everything acquired is released by the unwind at the end, in reverse order, on every
 * path: the tracefs session is always destroyed, which gives every knob back.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <tracefs.h>

#include "capture.h"
#include "cmds.h"
#include "irqstat.h"
#include "irqtrace.h"
#include "opts.h"
#include "output.h"
#include "parse.h"
#include "report.h"
#include "rules.h"
#include "session.h"
#include "util.h"

#define NS_PER_S		1000000000ULL
#define DEFAULT_TRACERS		((1u << LH_TRACER_IRQSOFF) | (1u << LH_TRACER_WAKEUP_RT))
#define DEFAULT_SLICE		(10 * NS_PER_S)
#define DEFAULT_CHECKPOINT	(60 * NS_PER_S)
#define DEFAULT_BUDGET		(256ULL << 20)
#define DEFAULT_MAX_SNAPSHOTS	1000
#define IRQ_READ_MIN		(50 * 1000 * 1000ULL)
#define IRQ_READ_MAX		NS_PER_S
#define STATUS_EVERY		NS_PER_S
#define COMMAND_GRACE		(5 * NS_PER_S)	/* after SIGTERM, before SIGKILL */
#define SETTLE_QUIET		(100 * 1000 * 1000ULL)
#define TAKE_DELAY		(20 * 1000 * 1000ULL)
#define SETTLE_MAX		(2 * NS_PER_S)
#define SHOW_DIAG		20

static const char *const record_usage[] = {
	"lathound record [<options>] [-- COMMAND [ARGS...]]",
	NULL,
};

static const char record_epilogue[] =
	"\nDefault tracers: irqsoff,wakeup_rt. irqsoff catches every irqs-off section, a slow\n"
	"hardirq handler in the idle loop included (preemptirqsoff was seen to miss those);\n"
	"wakeup_rt measures what an RT task suffers from wakeup to running, which covers\n"
	"preempt-off sections where they matter. They share the run in --slice time slices.\n"
	"\nWith -- COMMAND, the run ends when COMMAND exits; its status goes in the report.\n"
	"The output directory holds report.json (rewritten atomically every --checkpoint),\n"
	"report.txt and snapshots/ (raw sections, within --disk-budget). Every tracefs knob\n"
	"changed is restored at exit; after a SIGKILL, the next run or 'lathound reset' does it.\n"
	"\nexit status:\n"
	"    0  every gate passed\n"
	"    1  error: bad option, broken rule file, no usable tracer, tracefs or output error\n"
	"    2  a gate failed: a tracer exceeded its --max, or a rule at or above --fail-on fired\n"
	"\nexamples:\n"
	"    lathound record -d 12h --max irqsoff=100us --max wakeup_rt=150us\n"
	"    lathound record -t irqsoff -T 50us -o soak -- ./rt-workload --cycles 1e6\n";

struct record_opts {
	unsigned int	tracers;
	uint64_t	threshold_ns;
	uint64_t	slice_ns;
	uint64_t	duration_ns;
	uint64_t	checkpoint_ns;
	const char	*output;
	uint64_t	disk_budget;
	unsigned long	max_snapshots;
	uint64_t	buffer_bytes;
	int		function_trace;
	struct lh_strlist	filters;
	struct lh_strlist	notrace;
	struct lh_strlist	kprobes;
	struct lh_strlist	rules;
	int		force;
	const char	*state_dir;
	struct lh_gate	gate;
	enum lh_format	format;
	unsigned long	keep;
	int		quiet;
	int		irq_only;
	int		poll;
	const char	*tracefs;
};

/* ---- signals: handlers set flags, the loop acts ---- */

static volatile sig_atomic_t got_signal;	/* the first terminating signal */
static volatile sig_atomic_t abort_now;		/* a second one: stop at once */
static volatile sig_atomic_t child_exited;
static struct lh_session *volatile signal_session;

static const int term_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void on_signal(int sig)
{
	if (sig == SIGCHLD) {
		child_exited = 1;
		return;
	}
	if (got_signal) {
		/* The second one: tracing stops now, the unwind still restores the rest. */
		lh_session_stop_tracing(signal_session);
		abort_now = 1;
		return;
	}
	got_signal = sig;
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGINT:	return "SIGINT";
	case SIGTERM:	return "SIGTERM";
	case SIGHUP:	return "SIGHUP";
	case SIGQUIT:	return "SIGQUIT";
	default:	return "signal";
	}
}

/* ---- options ---- */

static int opt_tracers(const struct lh_option *opt, const char *arg)
{
	unsigned int *mask = opt->value;
	const char *p = arg, *end;

	*mask = 0;
	for (; *p; p = *end ? end + 1 : end) {
		enum lh_tracer t;

		end = strchrnul(p, ',');
		t = lh_tracer_from_name(p, (size_t)(end - p));
		if (t == LH_TRACER_UNKNOWN)
			return lh_error("unknown tracer '%.*s' in --tracer '%s' (use irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt or wakeup_dl)",
					(int)(end - p), p, arg);
		*mask |= 1u << t;
	}
	if (!*mask)
		return lh_error("--tracer needs at least one tracer");
	return 0;
}

/* "256M", "1G", "512k", "4096": bytes. */
static int opt_size(const struct lh_option *opt, const char *arg)
{
	uint64_t *v = opt->value, mult = 1;
	char *end;
	double d;

	errno = 0;
	d = strtod(arg, &end);
	if (end == arg || errno || d < 0 || *arg == '-')
		goto bad;
	switch (*end) {
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	case 't': case 'T': mult = 1ULL << 40; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || d * (double)mult > 1e18)
		goto bad;
	*v = (uint64_t)(d * (double)mult);
	return 0;
bad:
	return lh_error("invalid size '%s' for --%s: a number of bytes with an optional K, M, G or T",
			arg, opt->long_name);
}

/* ---- the run ---- */

struct run {
	struct record_opts	*o;
	struct lh_session	*session;
	struct lh_irqtrace	*irqtrace;
	struct lh_irqstat	*irqstat;
	struct lh_capture	*capture;
	struct lh_parser	*parser;
	struct lh_report	*report;
	struct lh_output	*out;
	struct lh_diag		notes;		/* warnings for the report */
	struct lh_parse_stats	parse_added;	/* parser counters already in the report */
	struct lh_run_info	info;
	char			kernel[65];
	char			*command;

	char			*trace;		/* the last 'trace' read, reused */
	uint64_t		take_at;	/* when to read the notified snapshot */
	uint64_t		take_delay;	/* from the notification to the read */
	size_t			trace_alloc;
	unsigned long		seq;		/* captures read, for names */

	unsigned int		tracers;	/* available, 1 << enum lh_tracer */
	enum lh_tracer		armed;
	uint64_t		armed_since;	/* lh_now_ns() */
	uint64_t		start_mono;

	pid_t			child;
	int			child_status;
	bool			status_line;
	bool			status_shown;
	uint64_t		status_events;	/* irq events at the last status line */
	uint64_t		status_at;
	bool			checkpoint_failing;
	bool			snapshot_failing;
	bool			irq_failing;
	unsigned long		trace_read_errors;
	bool			started;	/* running: the run ends with a report */
	bool			failed;		/* exit 1 */
	sigset_t		orig_mask;	/* the signal mask lathound was started with */
	struct sigaction	old_sa[LH_ARRAY_SIZE(term_signals) + 2]; /* + CHLD, PIPE */
};

static void status_clear(struct run *r)
{
	if (r->status_shown) {
		fputs("\r\033[K", stderr);
		r->status_shown = false;
	}
}

/* Clears the status line (r may be NULL), then prints d's messages: warnings unless quiet. */
static void print_diag(struct run *r, const struct lh_diag *d, size_t show)
{
	if (r)
		status_clear(r);
	lh_print_diag(d, show, !lh_quiet);
}

/* Moves d's messages to the report's notes (so the report lists them), then empties d. */
static void note_diag(struct run *r, struct lh_diag *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		lh_diag_add(&r->notes, d->msgs[i].level, "%s", d->msgs[i].text);
	lh_diag_release(d);
}

static char *format_elapsed(uint64_t ns, char *buf, size_t len)
{
	unsigned long long s = ns / NS_PER_S;

	snprintf(buf, len, "%02llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
	return buf;
}

static void status_update(struct run *r, uint64_t now)
{
	char line[512], el[32], rem[32];
	uint64_t events = lh_irqstat_events(r->irqstat);
	struct winsize ws;
	double secs = (double)(now - r->status_at) / 1e9;
	size_t n = 0;
	int t;

	format_elapsed(now - r->start_mono, el, sizeof(el));
	if (r->o->duration_ns) {
		uint64_t end = r->start_mono + r->o->duration_ns;

		/* Rounded up: '00:00:00 left' only at the very end. */
		format_elapsed(end > now ? end - now + NS_PER_S - 1 : 0, rem, sizeof(rem));
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s, %s left", el, rem);
	} else {
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s", el);
	}
	if (r->armed) {
		n += (size_t)snprintf(line + n, sizeof(line) - n, " | %s armed | worst",
				      lh_tracer_name(r->armed));
		/* Each tracer's worst, e.g. "irqsoff 120us wakeup_rt 45us". */
		for (t = 1; t < LH_TRACER_NR && n < sizeof(line); t++)
			if (r->tracers & (1u << t))
				n += (size_t)snprintf(line + n, sizeof(line) - n, " %s %lluus",
					lh_tracer_name(t),
					(unsigned long long)lh_report_worst_us(r->report, t));
		if (n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      " | %lu captured, %lu lost, %lu rule hits",
					      lh_capture_counts(r->capture)->captured,
					      lh_capture_lost(r->capture),
					      lh_report_rule_hits(r->report));
	} else if (n < sizeof(line)) {
		n += (size_t)snprintf(line + n, sizeof(line) - n, " | irq statistics only");
	}
	if (r->irqtrace && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, " | irq %.0f/s, %llu events lost",
			 secs > 0 ? (double)(events - r->status_events) / secs : 0.0,
			 (unsigned long long)lh_irqstat_lost(r->irqstat));
	r->status_events = events;
	r->status_at = now;
	/* A line longer than the terminal would wrap, and '\r' would no longer rewrite it. */
	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 11 &&
	    (size_t)ws.ws_col - 11 < sizeof(line))
		line[ws.ws_col - 11] = '\0';
	fprintf(stderr, "\r\033[Klathound: %s", line);
	fflush(stderr);
	r->status_shown = true;
}

struct capture_ctx {
	struct run	*r;
	uint64_t	captured_ns;
	unsigned long	found;
	uint64_t	latency_us;	/* of the longest record in the snapshot */
	enum lh_tracer	tracer;
	uint64_t	signature;
};

static int on_record(struct lh_record *rec, void *arg)
{
	struct capture_ctx *c = arg;

	rec->captured_ns = c->captured_ns;
	if (!c->found || rec->latency_us > c->latency_us) {
		c->latency_us = rec->latency_us;
		c->tracer = rec->tracer;
		c->signature = lh_record_signature_hash(rec);
	}
	c->found++;
	return lh_report_feed(rec, c->r->report);
}

static void warn_snapshot(struct run *r, struct lh_diag *d)
{
	/* Said once per failing streak: a full disk would otherwise flood the terminal. */
	if (!r->snapshot_failing) {
		status_clear(r);
		lh_warn("%s; raw snapshots are not kept until writing works again (counted as dropped)",
			d->nr ? d->msgs[0].text : "cannot write a raw snapshot");
	}
	r->snapshot_failing = true;
	note_diag(r, d);
}

/* Counts the sections notified; the first one schedules a read. Return: 0, or -1 (printed). */
static int notice(struct run *r)
{
	struct lh_diag d = { 0 };
	long n = lh_capture_pending(r->capture, &d);

	if (n < 0) {
		print_diag(r, &d, SHOW_DIAG);
		lh_diag_release(&d);
		return -1;
	}
	if (n > 0 && r->take_at == UINT64_MAX)
		r->take_at = lh_now_ns() + r->take_delay;
	return 0;
}

/*
 * Reads the snapshot; a section not read before is parsed, matched, added to the report and
 * stored. With final (the end of a run or of a slice), a section whose notification is still
 * on its way is taken too.
 */
static void take(struct run *r, bool final)
{
	struct capture_ctx c = { .r = r };
	unsigned long hits_before;
	struct lh_snapshot_meta meta;
	struct lh_diag d = { 0 };
	char source[32], name[96];
	size_t len;
	int ret;

	r->take_at = UINT64_MAX;
	ret = lh_capture_read(r->capture, &r->trace, &r->trace_alloc, &len, final, &d);
	if (ret < 0) {
		/* Said once; the run goes on, every failure is listed in the report. */
		if (!r->trace_read_errors++) {
			status_clear(r);
			lh_warn("%s", d.msgs[0].text);
		}
		note_diag(r, &d);
		return;
	}
	if (!ret)
		return;

	r->seq++;
	snprintf(source, sizeof(source), "capture-%06lu", r->seq);
	c.captured_ns = lh_wall_ns();
	hits_before = lh_report_rule_hits(r->report);
	lh_parse_buffer(r->parser, source, r->trace, len, on_record, &c);
	if (!c.found)
		return;		/* a snapshot without a section (a buffer just reset) */
	lh_capture_captured(r->capture);

	snprintf(name, sizeof(name), "%s-%s-%lluus.trace", source, lh_tracer_name(c.tracer),
		 (unsigned long long)c.latency_us);
	meta = (struct lh_snapshot_meta){
		.name = name, .signature = c.signature, .latency_us = c.latency_us,
		.rule_hit = lh_report_rule_hits(r->report) > hits_before,
	};
	ret = lh_output_snapshot(r->out, &meta, r->trace, len, &d);
	if (ret < 0)
		warn_snapshot(r, &d);
	else if (ret > 0)
		r->snapshot_failing = false;
	lh_diag_release(&d);
}

/* Everything recorded up to now: the end of a run or of a slice. Return: 0, or -1. */
static int take_all(struct run *r)
{
	if (notice(r))
		return -1;
	take(r, true);
	return 0;
}

/* Adds the time the armed tracer has been armed since last time to its total. */
static void account_armed(struct run *r)
{
	uint64_t now = lh_now_ns();

	if (r->armed)
		r->info.armed_ns[r->armed] += now - r->armed_since;
	r->armed_since = now;
}

/* Arms tracer t (its snapshot starts empty). Return: 0, or -1 (printed). */
static int arm(struct run *r, enum lh_tracer t)
{
	struct lh_diag d = { 0 };

	account_armed(r);
	r->armed = LH_TRACER_UNKNOWN;
	if (lh_session_arm(r->session, t, &d)) {
		print_diag(r, &d, SHOW_DIAG);
		lh_diag_release(&d);
		return -1;
	}
	r->armed = t;
	r->armed_since = lh_now_ns();
	lh_capture_rearm(r->capture);
	return 0;
}

/* Return: the tracer after cur in r->tracers, cycling (cur itself when it is the only one). */
static enum lh_tracer next_tracer(const struct run *r, enum lh_tracer cur)
{
	int i, t;

	for (i = 1; i <= LH_TRACER_NR; i++) {
		t = ((int)cur + i) % LH_TRACER_NR;
		if (t && (r->tracers & (1u << t)))
			return t;
	}
	return cur;
}

static void irq_read(struct run *r, int sync_lost)
{
	struct lh_diag d = { 0 };

	if (!r->irqtrace)
		return;
	if (lh_irqtrace_read(r->irqtrace, sync_lost, &d) < 0) {
		if (!r->irq_failing) {
			status_clear(r);
			lh_warn("%s", d.nr ? d.msgs[0].text : "cannot read the IRQ events");
		}
		r->irq_failing = true;
		note_diag(r, &d);
	} else {
		r->irq_failing = false;
	}
	lh_diag_release(&d);
}

static int write_json(FILE *f, void *arg)
{
	return lh_report_write(arg, LH_FORMAT_JSON, f);
}

static int write_text(FILE *f, void *arg)
{
	return lh_report_write(arg, LH_FORMAT_TEXT, f);
}

/* Brings the report up to date: run info, parser counters and notes added since last time. */
static void report_update(struct run *r)
{
	const struct lh_parse_stats *ps = lh_parser_stats(r->parser);
	struct lh_parse_stats delta = {
		.lines = ps->lines - r->parse_added.lines,
		.snapshots = ps->snapshots - r->parse_added.snapshots,
		.skipped = ps->skipped - r->parse_added.skipped,
		.bad_lines = ps->bad_lines - r->parse_added.bad_lines,
	};
	struct lh_run_info *i = &r->info;

	lh_report_add_parse_stats(r->report, &delta);
	r->parse_added = *ps;
	lh_report_add_diag(r->report, &r->notes);
	lh_diag_release(&r->notes);

	i->ended_ns = lh_wall_ns();
	account_armed(r);
	if (r->capture) {
		i->captures = lh_capture_counts(r->capture)->captured;
		i->sections_lost = lh_capture_lost(r->capture);
	}
	i->snapshots_dropped = lh_output_dropped(r->out);
	lh_irqstat_sort(r->irqstat);
	lh_report_set_run(r->report, i);
	lh_report_evaluate(r->report, &r->o->gate);
}

static void checkpoint(struct run *r)
{
	struct lh_diag d = { 0 };

	irq_read(r, 1);
	report_update(r);
	if (lh_output_replace(r->out, "report.json", write_json, r->report, &d)) {
		if (!r->checkpoint_failing) {
			status_clear(r);
			lh_warn("%s; the report is kept in memory and written at the next checkpoint",
				d.nr ? d.msgs[0].text : "cannot write the checkpoint");
		}
		r->checkpoint_failing = true;
		note_diag(r, &d);
	} else if (r->checkpoint_failing) {
		status_clear(r);
		lh_info("checkpoint written again to '%s/report.json'", lh_output_dir(r->out));
		r->checkpoint_failing = false;
	}
	lh_diag_release(&d);
}

/* Starts COMMAND as lathound was started (signals, fds 0-2). Return: 0, or -1 (printed). */
static int spawn(struct run *r, char **argv, const sigset_t *orig_mask)
{
	int pfd[2], err = 0;
	ssize_t n;
	size_t i;

	if (pipe2(pfd, O_CLOEXEC))
		return lh_error("cannot create a pipe: %s", strerror(errno));
	r->child = fork();
	if (r->child < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return lh_error("cannot fork: %s", strerror(errno));
	}
	if (!r->child) {
		/* The signal dispositions and mask lathound was started with. */
		for (i = 0; i < LH_ARRAY_SIZE(term_signals); i++)
			sigaction(term_signals[i], &r->old_sa[i], NULL);
		sigaction(SIGCHLD, &r->old_sa[i], NULL);
		sigaction(SIGPIPE, &r->old_sa[i + 1], NULL);
		sigprocmask(SIG_SETMASK, orig_mask, NULL);
		/* Tracefs files held by COMMAND would keep our instance busy: only 0-2 go. */
		close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
		execvp(argv[0], argv);
		err = errno;
		n = write(pfd[1], &err, sizeof(err));
		(void)n;
		_exit(127);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == sizeof(err)) {
		waitpid(r->child, NULL, 0);
		r->child = 0;
		return lh_error("cannot run '%s': %s", argv[0], strerror(err));
	}
	return 0;
}

/* Return: true when the child has exited (its status is recorded). */
static bool reap_child(struct run *r)
{
	int status;
	pid_t p;

	if (r->child <= 0)
		return false;
	p = waitpid(r->child, &status, WNOHANG);
	if (p != r->child)
		return false;
	r->child = 0;
	r->child_status = WIFEXITED(status) ? WEXITSTATUS(status) :
			  WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
	r->info.command_status = r->child_status;
	return true;
}

/* Ends a command still running: SIGTERM, then SIGKILL after a grace period. */
static void stop_child(struct run *r, const sigset_t *wait_mask)
{
	uint64_t deadline = lh_now_ns() + COMMAND_GRACE;
	bool killed = false;

	if (r->child <= 0)
		return;
	kill(r->child, SIGTERM);
	while (!reap_child(r)) {
		uint64_t now = lh_now_ns();
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		if (!killed && (abort_now || now >= deadline)) {
			kill(r->child, SIGKILL);
			killed = true;
		}
		ppoll(NULL, 0, &ts, wait_mask);
	}
}

/* Return: argv as a shell would read it back (malloc'd), e.g. "sh -c 'sleep 1'". */
static char *join_argv(char **argv)
{
	size_t len = 1, i;
	char *s, *p;
	const char *c;

	for (i = 0; argv[i]; i++)
		len += 4 * strlen(argv[i]) + 3;
	p = s = lh_xmalloc(len);
	for (i = 0; argv[i]; i++) {
		static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789_-+=./:,@%";
		bool plain = *argv[i] && !argv[i][strspn(argv[i], safe)];

		if (i)
			*p++ = ' ';
		if (plain) {
			p = stpcpy(p, argv[i]);
			continue;
		}
		*p++ = '\'';
		for (c = argv[i]; *c; c++) {
			if (*c == '\'')
				p = stpcpy(p, "'\\''");
			else
				*p++ = *c;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return s;
}

/* Return: 0, or -1 when a rule file is broken (every problem printed). */
static int load_rules(struct lh_rules *rs, const struct record_opts *o)
{
	struct lh_diag diag = { 0 };
	int ret;

	ret = lh_load_rules(rs, o->rules.v, o->rules.nr, &diag);
	print_diag(NULL, &diag, (size_t)-1);
	lh_diag_release(&diag);
	return ret;
}

static char *default_output_dir(void)
{
	char base[64], *dir;
	struct stat st;
	time_t now = time(NULL);
	struct tm tm;
	int i;

	localtime_r(&now, &tm);
	strftime(base, sizeof(base), "lathound-%Y%m%d-%H%M%S", &tm);
	dir = lh_xstrdup(base);
	for (i = 2; !stat(dir, &st) && i < 1000; i++) {
		free(dir);
		dir = lh_xasprintf("%s-%d", base, i);
	}
	return dir;
}

static int check_opts(struct record_opts *o)
{
	if (o->irq_only && (o->tracers || o->threshold_ns || o->function_trace))
		return lh_error("--irq-only arms no latency tracer: it excludes --tracer, --threshold and --function-trace");
	if (!o->irq_only && !o->tracers)
		o->tracers = DEFAULT_TRACERS;
	if (o->slice_ns < 100 * 1000 * 1000ULL)
		return lh_error("--slice must be at least 100ms");
	if (o->checkpoint_ns < NS_PER_S)
		return lh_error("--checkpoint must be at least 1s");
	if (o->threshold_ns && o->threshold_ns < 1000)
		return lh_error("--threshold must be at least 1us (tracing_thresh counts microseconds)");
	return 0;
}

/* Handlers set flags; the signals are blocked except inside ppoll(), so none is missed. */
static void signals_catch(struct run *r)
{
	struct sigaction sa;
	sigset_t block;
	size_t i;

	sigemptyset(&block);
	for (i = 0; i < LH_ARRAY_SIZE(term_signals); i++)
		sigaddset(&block, term_signals[i]);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &r->orig_mask);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < LH_ARRAY_SIZE(term_signals); i++)
		sigaction(term_signals[i], &sa, &r->old_sa[i]);
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, &r->old_sa[i]);
	/* A closed stdout must give EPIPE, not kill us before tracefs is restored. */
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	sigaction(SIGPIPE, &sa, &r->old_sa[i + 1]);
}

static void signals_restore(struct run *r)
{
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(term_signals); i++)
		sigaction(term_signals[i], &r->old_sa[i], NULL);
	sigaction(SIGCHLD, &r->old_sa[i], NULL);
	sigaction(SIGPIPE, &r->old_sa[i + 1], NULL);
	sigprocmask(SIG_SETMASK, &r->orig_mask, NULL);
	got_signal = abort_now = child_exited = 0;
}

static int capture_open(struct run *r, struct lh_diag *d)
{
	const char *max = lh_session_max_latency_path(r->session);
	const char *slash = strrchr(max, '/');
	struct lh_capture_opts co = {
		.max_latency = max, .threshold = r->o->threshold_ns != 0, .poll = r->o->poll,
	};
	char *trace;
	int ret;

	/* 'trace' lives next to tracing_max_latency, in the top-level instance. */
	trace = lh_xasprintf("%.*strace", slash ? (int)(slash - max + 1) : 0, max);
	co.trace = trace;
	ret = lh_capture_open(&r->capture, &co, d);
	free(trace);
	return ret;
}

/* Return: 0 with the session, IRQ instance and capture ready, or -1 (printed). */
static int start_tracing(struct run *r)
{
	const struct record_opts *o = r->o;
	struct lh_session_opts so = {
		.tracers = o->irq_only ? 0 : o->tracers,
		.no_tracer = o->irq_only,
		.threshold_ns = o->threshold_ns,
		.function_trace = o->function_trace,
		.irq_events = !o->irq_only,
		.filters = o->filters.v,
		.notrace = o->notrace.v,
		.kprobes = o->kprobes.v,
		.buffer_kb = (unsigned long)(o->buffer_bytes / 1024),
		.force = o->force,
		.state_dir = o->state_dir,
	};
	struct lh_diag d = { 0 };
	int ret = -1;

	if (o->tracefs && tracefs_set_tracing_dir((char *)o->tracefs)) {
		lh_error("cannot use '%s' as tracefs: %s", o->tracefs, strerror(errno));
		return -1;
	}
	if (lh_session_create(&r->session, &so, &d)) {
		/* Even with -q: the warnings (tracers the kernel lacks, their CONFIG_) say why. */
		lh_print_diag(&d, SHOW_DIAG, true);
		goto out;
	}
	signal_session = r->session;
	/* What a session that started warns about (tracers the kernel lacks, --force). */
	print_diag(NULL, &d, SHOW_DIAG);
	note_diag(r, &d);
	r->tracers = lh_session_tracers(r->session);

	/* A run killed with SIGKILL left its instance; with the lock held, none is live. */
	if (lh_irqtrace_remove_stale(&d) > 0)
		lh_info("removed the tracefs instance of a lathound that was killed");
	print_diag(NULL, &d, SHOW_DIAG);
	lh_diag_release(&d);
	if (lh_irqtrace_create(&r->irqtrace, r->irqstat, &d)) {
		if (o->irq_only) {
			print_diag(NULL, &d, SHOW_DIAG);
			goto out;
		}
		/* The latency sections matter more than the statistics: go on without them. */
		if (!lh_quiet)
			lh_warn("%s; IRQ handler statistics are not collected",
				d.nr ? d.msgs[0].text : "cannot create the IRQ event instance");
		note_diag(r, &d);
		r->info.irqstat = NULL;
	}
	if (!o->irq_only) {
		if (capture_open(r, &d)) {
			print_diag(NULL, &d, SHOW_DIAG);
			goto out;
		}
		print_diag(NULL, &d, SHOW_DIAG);
		note_diag(r, &d);
		r->info.wait_method = lh_capture_method(r->capture);
	}
	ret = 0;
out:
	lh_diag_release(&d);
	return ret;
}

/* Gives tracefs back: capture, IRQ instance, then the session (every knob restored). */
static void stop_tracing(struct run *r)
{
	struct lh_diag d = { 0 };

	account_armed(r);
	r->armed = LH_TRACER_UNKNOWN;
	if (r->capture) {
		r->info.captures = lh_capture_counts(r->capture)->captured;
		r->info.sections_lost = lh_capture_lost(r->capture);
	}
	lh_capture_close(r->capture);
	r->capture = NULL;
	if (lh_irqtrace_destroy(r->irqtrace, &d)) {
		print_diag(NULL, &d, SHOW_DIAG);
		r->failed = true;
	}
	lh_diag_release(&d);
	r->irqtrace = NULL;
	signal_session = NULL;
	if (lh_session_destroy(r->session, &d)) {
		print_diag(NULL, &d, SHOW_DIAG);
		r->failed = true;
	}
	lh_diag_release(&d);
	r->session = NULL;
}

static void say_start(const struct run *r, bool with_command)
{
	char list[128] = "", dur[48] = "until stopped (Ctrl-C)";
	size_t n = 0;
	int t;

	for (t = 1; t < LH_TRACER_NR; t++)
		if (r->tracers & (1u << t))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? "," : "",
					      lh_tracer_name(t));
	if (r->o->duration_ns) {
		memcpy(dur, "for ", 4);
		lh_duration_format(r->o->duration_ns, dur + 4, sizeof(dur) - 4);
	} else if (with_command) {
		snprintf(dur, sizeof(dur), "while the command runs");
	}
	lh_info("recording %s%s %s, into '%s'", r->o->irq_only ? "IRQ handler statistics" : list,
		__builtin_popcount(r->tracers) > 1 ? " in turn" : "", dur, lh_output_dir(r->out));
}

/*
 * Before COMMAND starts. A tracer just armed records a flurry of small new maxima (lathound's
 * own work among them) and reading each one pauses tracing: COMMAND's first section could
 * fall into such a pause and never be recorded. So COMMAND waits until no section was
 * recorded for SETTLE_QUIET (SETTLE_MAX at most). Return: 0, or -1 (printed).
 */
static int settle(struct run *r)
{
	uint64_t start = lh_now_ns(), quiet_since = start, now;

	for (;;) {
		struct pollfd pfd = { .fd = lh_capture_fd(r->capture), .events = POLLIN };
		unsigned long seen = lh_capture_counts(r->capture)->notifications;
		struct timespec ts = { 0, (long)(SETTLE_QUIET / 4) };

		now = lh_now_ns();
		if (now >= r->take_at)
			take(r, false);
		if (got_signal || now - quiet_since >= SETTLE_QUIET || now - start >= SETTLE_MAX)
			break;
		if (r->take_at - now < (uint64_t)ts.tv_nsec)
			ts.tv_nsec = (long)(r->take_at - now);
		ppoll(&pfd, 1, &ts, &r->orig_mask);
		if (notice(r))
			return -1;
		if (lh_capture_counts(r->capture)->notifications != seen)
			quiet_since = lh_now_ns();
	}
	if (r->take_at != UINT64_MAX)
		take(r, false);
	return 0;
}

struct deadlines {
	uint64_t	take;
	uint64_t	end;
	uint64_t	checkpoint;
	uint64_t	status;
	uint64_t	irq;
	uint64_t	poll;
	uint64_t	slice;
};

static uint64_t earliest(const struct deadlines *dl)
{
	const uint64_t v[] = { dl->take, dl->end, dl->checkpoint, dl->status, dl->irq, dl->poll,
			       dl->slice };
	uint64_t m = UINT64_MAX;
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(v); i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

/* Return: why the run ended ("duration", "command", "SIGINT"...); r->failed on errors. */
static const char *run_loop(struct run *r)
{
	const struct record_opts *o = r->o;
	uint64_t now = r->start_mono;
	struct deadlines dl = {
		.end = o->duration_ns ? now + o->duration_ns : UINT64_MAX,
		.checkpoint = now + o->checkpoint_ns,
		.status = r->status_line ? now + STATUS_EVERY : UINT64_MAX,
		.irq = r->irqtrace ? now + IRQ_READ_MAX : UINT64_MAX,
		.poll = r->capture && lh_capture_poll_interval(r->capture) ?
				now + lh_capture_poll_interval(r->capture) : UINT64_MAX,
		.slice = __builtin_popcount(r->tracers) > 1 ? now + o->slice_ns : UINT64_MAX,
	};

	for (;;) {
		struct pollfd pfd = { .fd = r->capture ? lh_capture_fd(r->capture) : -1,
				      .events = POLLIN };
		uint64_t next, wait;
		struct timespec ts;
		int pr = 0;

		dl.take = r->take_at;
		next = earliest(&dl);
		now = lh_now_ns();
		wait = next > now ? next - now : 0;
		ts.tv_sec = (time_t)(wait / NS_PER_S);
		ts.tv_nsec = (long)(wait % NS_PER_S);
		if (!got_signal && !child_exited)
			pr = ppoll(&pfd, 1, &ts, &r->orig_mask);
		if (pr < 0 && errno != EINTR) {
			status_clear(r);
			lh_error("cannot wait: %s", strerror(errno));
			r->failed = true;
			return "error";
		}
		if (got_signal)
			return signal_name(got_signal);
		if (child_exited) {
			child_exited = 0;
			if (reap_child(r))
				return "command";
		}
		now = lh_now_ns();
		if ((pr > 0 && (pfd.revents & POLLIN)) || now >= dl.poll) {
			if (notice(r))
				goto fail;
			if (now >= dl.poll)
				dl.poll = now + lh_capture_poll_interval(r->capture);
		}
		if (now >= r->take_at)
			take(r, false);
		if (now >= dl.irq) {
			irq_read(r, 0);
			dl.irq = now + lh_irqtrace_interval(r->irqtrace, IRQ_READ_MIN,
							    IRQ_READ_MAX);
		}
		if (now >= dl.slice) {
			/* Sections notified so far belong to the tracer armed until now. */
			if (take_all(r) || arm(r, next_tracer(r, r->armed)))
				goto fail;
			dl.slice = now + o->slice_ns;
		}
		if (now >= dl.checkpoint) {
			checkpoint(r);
			dl.checkpoint = now + o->checkpoint_ns;
		}
		if (now >= dl.status) {
			status_update(r, now);
			dl.status = now + STATUS_EVERY;
		}
		if (now >= dl.end)
			return "duration";
	}
fail:
	r->failed = true;
	return "error";
}

/* The final report, written once tracefs is given back. */
static int finish(struct run *r)
{
	const struct record_opts *o = r->o;
	struct lh_diag d = { 0 };
	bool passed;
	size_t v;
	int ret;

	report_update(r);
	passed = lh_report_evaluate(r->report, &o->gate);
	/* Both are tried: one that cannot be written does not stop the other. */
	ret = lh_output_replace(r->out, "report.json", write_json, r->report, &d);
	ret |= lh_output_replace(r->out, "report.txt", write_text, r->report, &d);
	if (ret) {
		print_diag(NULL, &d, SHOW_DIAG);
		lh_error("the final report could not be written in full; what was written before is kept in '%s'",
			 lh_output_dir(r->out));
		r->failed = true;
	}
	lh_diag_release(&d);
	if (lh_report_write(r->report, o->format, stdout))
		r->failed = true;
	if (!passed && o->format != LH_FORMAT_TEXT)
		for (v = 0; v < lh_report_nr_violations(r->report); v++)
			lh_info("gate failed: %s", lh_report_violation(r->report, v));
	if (!ret)
		lh_info("report: '%s/report.json', '%s/report.txt'%s", lh_output_dir(r->out),
			lh_output_dir(r->out),
			lh_output_kept(r->out) ? ", raw snapshots in 'snapshots/'" : "");
	return r->failed ? LH_EXIT_ERROR : passed ? LH_EXIT_PASS : LH_EXIT_GATE;
}

static int record(struct record_opts *o, char **command)
{
	struct run r = { .o = o, .child_status = -1, .take_at = UINT64_MAX };
	struct lh_output_opts oo = {
		.dir = o->output, .disk_budget = o->disk_budget, .max_snapshots = o->max_snapshots,
	};
	struct lh_report_opts ro = { .keep = o->keep, .diag = &r.notes };
	struct lh_rules *rules = lh_rules_alloc();
	struct lh_diag d = { 0 };
	struct utsname uts;
	int code = LH_EXIT_ERROR;

	/* Rules first: a broken rule file fails before tracefs is touched. */
	if (load_rules(rules, o))
		goto out_rules;
	if (lh_output_open(&r.out, &oo, &d)) {
		print_diag(NULL, &d, SHOW_DIAG);
		goto out_rules;
	}
	r.report = lh_report_alloc(rules, &ro);
	r.parser = lh_parser_alloc(&r.notes);
	r.irqstat = lh_irqstat_alloc();
	if (!uname(&uts))
		snprintf(r.kernel, sizeof(r.kernel), "%s", uts.release);
	r.info = (struct lh_run_info){
		.mode = "record", .threshold_ns = o->threshold_ns, .command_status = -1,
		.kernel = r.kernel, .irqstat = r.irqstat,
	};
	r.info.command = r.command = command ? join_argv(command) : NULL;

	signals_catch(&r);
	if (start_tracing(&r))
		goto out_tracing;
	/*
	 * Every read of a snapshot pauses tracing. Without a threshold, the maxima come in
	 * rising bursts (a workload starting, then its real section): reading the first one at
	 * once would blind the tracer just when the larger one comes, so a read waits
	 * TAKE_DELAY and takes the largest. With a threshold every section counts: at once.
	 */
	r.take_delay = o->threshold_ns ? 0 : TAKE_DELAY;
	r.start_mono = lh_now_ns();
	r.info.started_ns = lh_wall_ns();
	if (!o->irq_only && arm(&r, next_tracer(&r, LH_TRACER_UNKNOWN)))
		goto out_tracing;
	say_start(&r, command);
	if (command && r.capture && settle(&r))
		goto out_tracing;
	if (command && spawn(&r, command, &r.orig_mask))
		goto out_tracing;
	r.started = true;
	r.status_line = !o->quiet && isatty(STDERR_FILENO);

	r.info.end_reason = run_loop(&r);

	/* What was notified and buffered up to the end still counts. */
	if (!abort_now) {
		if (r.armed && take_all(&r))
			r.failed = true;
		irq_read(&r, 1);
	}
	status_clear(&r);
	if (r.child > 0) {
		lh_info("stopping '%s'", r.command);
		stop_child(&r, &r.orig_mask);
	}
	if (r.command && r.child_status > 0)
		lh_info("the command exited with status %d", r.child_status);
out_tracing:
	stop_tracing(&r);
	if (r.started)
		code = finish(&r);
	else
		lh_output_discard(r.out);
	signals_restore(&r);
	lh_output_free(r.out);
	lh_parser_free(r.parser);
	lh_report_free(r.report);
	lh_irqstat_free(r.irqstat);
	lh_diag_release(&r.notes);
	free(r.trace);
	free(r.command);
out_rules:
	lh_rules_free(rules);
	lh_diag_release(&d);
	return code;
}

int lh_cmd_record(int argc, char **argv)
{
	struct record_opts o = {
		.slice_ns = DEFAULT_SLICE, .checkpoint_ns = DEFAULT_CHECKPOINT,
		.disk_budget = DEFAULT_BUDGET, .max_snapshots = DEFAULT_MAX_SNAPSHOTS,
		.format = LH_FORMAT_TEXT, .keep = LH_REPORT_KEEP,
	};
	const struct lh_option options[] = {
		LH_OPT_GROUP("what to trace"),
		LH_OPT_CALLBACK('t', "tracer", &o.tracers, "LIST",
				"comma-separated latency tracers (default irqsoff,wakeup_rt)",
				opt_tracers),
		LH_OPT_BUDGET('T', "threshold", &o.threshold_ns,
			      "capture every section longer than DURATION (default: each new maximum)"),
		LH_OPT_DURATION(0, "slice", &o.slice_ns,
				"how long each tracer is armed in turn (default 10s)"),
		LH_OPT_BOOL(0, "function-trace", &o.function_trace,
			    "list the functions run in a section (floods snapshots, +7-10% latency)"),
		LH_OPT_CALLBACK(0, "filter", &o.filters, "GLOB",
				"trace only functions matching GLOB (repeatable)", lh_opt_list),
		LH_OPT_CALLBACK(0, "notrace", &o.notrace, "GLOB",
				"never trace functions matching GLOB (repeatable): cures a slow tracer",
				lh_opt_list),
		LH_OPT_CALLBACK(0, "kprobe", &o.kprobes, "DEF",
				"add a kprobe event for the run (kprobe_events syntax; repeatable)",
				lh_opt_list),
		LH_OPT_CALLBACK(0, "buffer-size", &o.buffer_bytes, "SIZE",
				"ring buffer size per CPU (default: as it is)", opt_size),
		LH_OPT_BOOL(0, "irq-only", &o.irq_only,
			    "arm no latency tracer: collect IRQ handler statistics only"),
		LH_OPT_GROUP("how long"),
		LH_OPT_DURATION('d', "duration", &o.duration_ns,
				"end after DURATION (90s, 12h); default: when COMMAND ends, or a signal"),
		LH_OPT_GROUP("output"),
		LH_OPT_STRING('o', "output", &o.output, "DIR",
			      "output directory (default ./lathound-YYYYmmdd-HHMMSS)"),
		LH_OPT_DURATION(0, "checkpoint", &o.checkpoint_ns,
				"rewrite DIR/report.json this often (default 60s)"),
		LH_OPT_CALLBACK(0, "disk-budget", &o.disk_budget, "SIZE",
				"space for raw snapshots in DIR/snapshots (default 256M)",
				opt_size),
		LH_OPT_UINT(0, "max-snapshots", &o.max_snapshots, "N",
			    "raw snapshots kept at most (default 1000)"),
		LH_OPT_CALLBACK('f', "format", &o.format, "FORMAT",
				"report printed at the end: text (default), json or junit",
				lh_opt_format),
		LH_OPT_UINT(0, "keep", &o.keep, "N",
			    "records kept in full, rule hits then worst first (default 100)"),
		LH_OPT_BOOL('q', "quiet", &o.quiet, "no status line, no warnings"),
		LH_OPT_GROUP("rules"),
		LH_OPT_CALLBACK('r', "rules", &o.rules, "PATH",
				"rule file or directory (repeatable; replaces the defaults)",
				lh_opt_list),
		LH_OPT_GATES(&o.gate),
		LH_OPT_GROUP("tracefs"),
		LH_OPT_BOOL(0, "force", &o.force,
			    "take over a current_tracer that another tool left set"),
		LH_OPT_BOOL(0, "poll", &o.poll,
			    "poll tracing_max_latency every 100ms instead of using inotify"),
		/* For tests (a fake tracefs, a private lock): in the man page, not in --help. */
		LH_OPT_HIDDEN(LH_OPT_STRING(0, "tracefs", &o.tracefs, "DIR",
			      "tracefs mounted at DIR (default: found, or mounted, by libtracefs)")),
		LH_OPT_HIDDEN(LH_OPT_STRING(0, "state-dir", &o.state_dir, "DIR",
			      "directory of the saved state and the lock (default /run/lathound)")),
		LH_OPT_END(),
	};
	char **command = NULL, *outdir = NULL;
	int first, code = LH_EXIT_ERROR;

	lh_gate_init(&o.gate);
	first = lh_parse_command(argc, argv, options, record_usage, record_epilogue,
				 LH_OPERANDS_COMMAND);
	if (first == LH_OPTS_HELP) {
		code = LH_EXIT_PASS;
		goto out;
	}
	if (first < 0)
		goto out;
	if (first < argc)
		command = argv + first;
	lh_quiet = o.quiet;
	if (check_opts(&o))
		goto out;
	if (!o.output)
		o.output = outdir = default_output_dir();
	code = record(&o, command);
out:
	free(outdir);
	free(o.filters.v);
	free(o.notrace.v);
	free(o.kprobes.v);
	free(o.rules.v);
	return lh_finish_stdout(code);
}
