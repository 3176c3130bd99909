// SPDX-License-Identifier: GPL-2.0-only
/*
 * lathound record: options, signals and the workload around the run engine (recorder.c),
 * which arms the tracers, captures, checkpoints and ends the run, over the real tracefs
 * (recorder-tracefs.c).
 *
 * Signals are blocked from the start of the run to the exit of the process and read from a
 * signalfd that the engine's wait polls with the capture watch: no handler runs, and no
 * signal is ever delivered with its default action while lathound gives tracefs back.
 * The first SIGINT, SIGTERM, SIGHUP or SIGQUIT ends the run; one more during the shutdown
 * skips the last capture and kills COMMAND without its grace period. Everything acquired is
 * released in reverse order on every path: the tracefs session is always destroyed, which
 * gives every knob back, and the report is written once the run has started.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "cmds.h"
#include "kernel/hist.h"
#include "kernel/output.h"
#include "kernel/recorder.h"
#include "opts.h"
#include "report/report.h"
#include "rules/rules.h"
#include "trace/irqstat.h"
#include "util/util.h"

#define NS_PER_S		1000000000ULL
#define DEFAULT_TRACERS		((1u << LH_TRACER_IRQSOFF) | (1u << LH_TRACER_WAKEUP_RT))
#define DEFAULT_SLICE		(10 * NS_PER_S)
#define DEFAULT_CHECKPOINT	(60 * NS_PER_S)
#define DEFAULT_BUDGET		(256ULL << 20)
#define DEFAULT_MAX_SNAPSHOTS	1000
#define STATUS_EVERY		NS_PER_S
#define COMMAND_GRACE		(5 * NS_PER_S)	/* after SIGTERM, before SIGKILL */
#define SHOW_DIAG		20
#define DEFAULT_READ_BUFFER_KB	8	/* ring buffer per CPU of snapshot reads (read_buffer()) */

static const char *const record_usage[] = {
	"lathound record [<options>] [-- COMMAND [ARGS...]]",
	NULL,
};

static const char record_epilogue[] =
	"\nDefault tracers: irqsoff,wakeup_rt. irqsoff catches every irqs-off section, a slow\n"
	"hardirq handler in the idle loop included (preemptirqsoff was seen to miss those);\n"
	"wakeup_rt measures what an RT task suffers from wakeup to running, which covers\n"
	"preempt-off sections where they matter. They share the run in --slice time slices.\n"
	"\nA histogram of every RT wakeup, per CPU, is counted in the kernel (hist triggers) where\n"
	"it can, whatever tracer is armed, and read at every checkpoint; --hist all adds those of\n"
	"every irqs-off and preempt-off section (they cost CPU time on each, and cut --threshold\n"
	"captures), --no-hist counts none. 'lathound doctor' says which the kernel counts.\n"
	"\nWith -- COMMAND, the run ends when COMMAND exits; a COMMAND that exits non-zero or is\n"
	"killed by a signal makes the run an error (exit 1) unless --allow-command-failure.\n"
	"The output directory holds report.json (rewritten atomically every --checkpoint),\n"
	"report.txt and snapshots/ (raw sections, within --disk-budget). --metrics FILE is\n"
	"rewritten at the start, at every checkpoint and at the end (e.g.\n"
	"/var/lib/prometheus/node-exporter/lathound.prom). Every tracefs knob\n"
	"changed is restored at exit; after a SIGKILL, the next run or 'lathound reset' does it.\n"
	"\nexit status:\n"
	"    0  every gate passed\n"
	"    1  error: bad option, broken rule file, no usable tracer, tracefs or output error,\n"
	"       COMMAND failed, or a tracer with a --max budget measured nothing\n"
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
	const char	*metrics;
	uint64_t	disk_budget;
	unsigned long	max_snapshots;
	uint64_t	buffer_bytes;
	int		function_trace;
	struct lh_strlist	filters;
	struct lh_strlist	notrace;
	struct lh_strlist	kprobes;
	struct lh_rule_paths	rules;
	int		force;
	const char	*state_dir;
	struct lh_gate	gate;
	enum lh_format	format;
	struct lh_report_files	files;
	unsigned long	keep;
	const char	*board;
	int		quiet;
	int		irq_only;
	int		poll;
	int		allow_command_failure;
	const char	*tracefs;
	unsigned int	hist;		/* 1 << enum lh_hist_kind */
	bool		hist_set;	/* --hist LIST: a kind the kernel lacks is an error */
	bool		hist_given;	/* --hist: not the default kinds */
	int		no_hist;
	const char	*hist_comm;
	unsigned long	hist_pid;
	unsigned long	timerlat_period;	/* µs; 0: as the kernel has it */
	const char	*noise_cpus;
};

static const int term_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

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
			return lh_error("unknown tracer '%.*s' in --tracer '%s' (use irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt, wakeup_dl, timerlat, osnoise or hwlat)",
					(int)(end - p), p, arg);
		*mask |= 1u << t;
	}
	if (!*mask)
		return lh_error("--tracer needs at least one tracer");
	return 0;
}

static int opt_hist(const struct lh_option *opt, const char *arg)
{
	struct record_opts *o = opt->value;
	const char *err;

	if (lh_hist_parse_kinds(arg, &o->hist, &err))
		return lh_error("%s in --hist '%s'", err, arg);
	/* "all" is what the kernel can; a list names what it must. */
	o->hist_set = strcmp(arg, "all") != 0;
	o->hist_given = true;
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

/* ---- the run: the command's side of it ---- */

struct run {
	struct record_opts		*o;
	struct lh_recorder		*rec;
	struct lh_recorder_tracefs	*tracefs;
	struct lh_irqstat		*irqstat;
	struct lh_output		*out;
	unsigned int			tracers;	/* available, 1 << enum lh_tracer */
	bool				irq_stats;	/* the IRQ instance was created */
	unsigned int			hist;		/* histograms counted */
	char				kernel[65];
	char				host[65];
	char				run_id[33];	/* 128 random bits in hex */
	char				*command;

	pid_t				child;
	int				child_status;	/* wait status, valid with child_done */
	bool				child_done;
	bool				command_ended;	/* its exit ended the run */

	int				sfd;		/* signalfd of term_signals and SIGCHLD */
	sigset_t			orig_mask;	/* the mask lathound was started with */
	struct sigaction		old_pipe;
	int				first_signal;	/* the one that ended the run */
	bool				stopping;	/* the run is over: shutting down */
	bool				abort;		/* a signal during the shutdown */
	bool				child_exited;	/* SIGCHLD seen */

	bool				status_shown;
	uint64_t			status_events;	/* irq events at the last status line */
	uint64_t			status_at;
};

/* Blocks the signals until exit; they are read from r->sfd. Return: 0, or -1 (printed). */
static int signals_catch(struct run *r)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };
	sigset_t block;
	size_t i;

	sigemptyset(&block);
	for (i = 0; i < LH_ARRAY_SIZE(term_signals); i++)
		sigaddset(&block, term_signals[i]);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &r->orig_mask);
	r->sfd = signalfd(-1, &block, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r->sfd < 0)
		return lh_error("cannot create a signalfd: %s", strerror(errno));
	/* A closed stdout must give EPIPE, not kill us before tracefs is restored. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, &r->old_pipe);
	return 0;
}

/* Reads every signal waiting: the first ends the run, one more aborts the shutdown. */
static void signals_read(struct run *r)
{
	struct signalfd_siginfo si;

	while (read(r->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			r->child_exited = true;
		else if (!r->first_signal && !r->stopping)
			r->first_signal = (int)si.ssi_signo;
		else
			r->abort = true;
	}
}

static void status_clear(struct run *r)
{
	if (r->status_shown) {
		fputs("\r\033[K", stderr);
		r->status_shown = false;
	}
}

/* Clears the status line, then prints d's messages: warnings unless quiet. */
static void print_diag(struct run *r, const struct lh_diag *d)
{
	status_clear(r);
	lh_print_diag(d, SHOW_DIAG, !lh_quiet);
}

static char *format_elapsed(uint64_t ns, char *buf, size_t len)
{
	unsigned long long s = ns / NS_PER_S;

	snprintf(buf, len, "%02llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
	return buf;
}

static void on_status(void *arg, const struct lh_recorder *rec, uint64_t now)
{
	const struct lh_recorder_stats *st = lh_recorder_stats(rec);
	struct lh_report *rep = lh_recorder_report(rec);
	struct run *r = arg;
	char line[512], el[32], rem[32], arm[32];
	uint64_t events = lh_irqstat_events(r->irqstat);
	struct winsize ws;
	double secs = (double)(now - (r->status_at ? r->status_at : st->started)) / 1e9;
	size_t n = 0;
	int t;

	format_elapsed(now - st->started, el, sizeof(el));
	if (r->o->duration_ns) {
		uint64_t end = st->started + r->o->duration_ns;

		/* Rounded up: '00:00:00 left' only at the very end. */
		format_elapsed(end > now ? end - now + NS_PER_S - 1 : 0, rem, sizeof(rem));
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s, %s left", el, rem);
	} else {
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s", el);
	}
	if (st->armed) {
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      " | %s armed | worst armed/blind:", lh_tracer_name(st->armed));
		/* Each tracer's worst, armed and blind time: "irqsoff 120us 00:20:00/1.2s". */
		for (t = 1; t < LH_TRACER_NR && n < sizeof(line); t++)
			if (r->tracers & (1u << t))
				n += (size_t)snprintf(line + n, sizeof(line) - n,
					" %s %lluus %s/%.1fs", lh_tracer_name(t),
					(unsigned long long)lh_report_worst_us(rep, t),
					format_elapsed(st->tracer[t].armed_ns, arm, sizeof(arm)),
					(double)st->tracer[t].blind_ns / NS_PER_S);
		if (n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      " | %lu captured, %lu lost, %" PRIu64 " rule hits",
					      st->captures, st->lost, lh_report_rule_hits(rep));
	} else if (n < sizeof(line)) {
		n += (size_t)snprintf(line + n, sizeof(line) - n, " | irq statistics only");
	}
	if (r->irq_stats && n < sizeof(line))
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

static void on_message(void *arg, enum lh_recorder_say level, const char *text)
{
	struct run *r = arg;

	status_clear(r);
	if (level == LH_RECORDER_ERROR)
		lh_error("%s", text);
	else if (level == LH_RECORDER_INFO)
		lh_info("%s", text);
	else if (!lh_quiet)
		lh_warn("%s", text);
}

/* Return: true when the child has exited (its status is kept). */
static bool reap_child(struct run *r)
{
	pid_t p;

	if (r->child <= 0)
		return false;
	p = waitpid(r->child, &r->child_status, WNOHANG);
	if (p != r->child)
		return false;
	r->child = 0;
	r->child_done = true;
	return true;
}

/* The engine's wait saw the signalfd ready. Return: why the run ends, or NULL. */
static const char *on_event(void *arg)
{
	struct run *r = arg;

	signals_read(r);
	if (r->first_signal)
		return signal_name(r->first_signal);
	if (r->child_exited) {
		r->child_exited = false;
		r->command_ended = reap_child(r);
		if (r->command_ended)
			return "command";
	}
	return NULL;
}

/* Starts COMMAND as lathound was started (signals, fds 0-2). Return: 0, or -1 (printed). */
static int spawn(struct run *r, char **argv)
{
	int pfd[2], err = 0;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC))
		return lh_error("cannot create a pipe: %s", strerror(errno));
	r->child = fork();
	if (r->child < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return lh_error("cannot fork: %s", strerror(errno));
	}
	if (!r->child) {
		/* The SIGPIPE disposition and the mask lathound was started with. */
		sigaction(SIGPIPE, &r->old_pipe, NULL);
		sigprocmask(SIG_SETMASK, &r->orig_mask, NULL);
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

/*
 * Ends a command still running: SIGTERM, then SIGKILL after a grace period, or at once when
 * a signal comes meanwhile.
 */
static void stop_child(struct run *r)
{
	uint64_t deadline = lh_now_ns() + COMMAND_GRACE;
	bool killed = false;

	if (r->child <= 0 || reap_child(r))
		return;
	lh_info("stopping '%s'", r->command);
	kill(r->child, SIGTERM);
	while (!reap_child(r)) {
		struct pollfd p = { .fd = r->sfd, .events = POLLIN };
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		signals_read(r);
		if (!killed && (r->abort || lh_now_ns() >= deadline)) {
			kill(r->child, SIGKILL);
			killed = true;
		}
		ppoll(&p, 1, &ts, NULL);
	}
}

/*
 * A COMMAND that ended the run by failing (non-zero, or killed by a signal) makes the run an
 * error, unless --allow-command-failure. When the run ended first (duration, a signal, which
 * Ctrl-C sends to COMMAND too), its status is recorded, not judged.
 */
static void judge_command(struct run *r)
{
	int st = r->child_status;
	char *why;

	if (!r->child_done)
		return;
	lh_recorder_info(r->rec)->command_status = WIFEXITED(st) ? WEXITSTATUS(st) :
						   WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return;
	if (WIFSIGNALED(st))
		why = lh_xasprintf("the command was killed by signal %d (%s)", WTERMSIG(st),
				   strsignal(WTERMSIG(st)));
	else
		why = lh_xasprintf("the command exited with status %d",
				   lh_recorder_info(r->rec)->command_status);
	if (!r->command_ended) {
		lh_info("%s", why);
	} else if (r->o->allow_command_failure) {
		lh_info("%s (accepted: --allow-command-failure)", why);
	} else {
		lh_error("%s", why);
		lh_recorder_fail(r->rec, why);
	}
	free(why);
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

	ret = lh_load_rules(rs, &o->rules, &diag);
	lh_print_diag(&diag, (size_t)-1, !lh_quiet);
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
	int t;

	if (o->irq_only && (o->tracers || o->threshold_ns || o->function_trace))
		return lh_error("--irq-only arms no latency tracer: it excludes --tracer, --threshold and --function-trace");
	for (t = 0; t < LH_TRACER_NR; t++)
		if (o->irq_only && o->gate.has_max[t])
			return lh_error("--irq-only arms no latency tracer: --max has nothing to judge");
	if (!o->irq_only && !o->tracers)
		o->tracers = DEFAULT_TRACERS;
	if (o->slice_ns < 100 * 1000 * 1000ULL)
		return lh_error("--slice must be at least 100ms");
	if (o->checkpoint_ns < NS_PER_S)
		return lh_error("--checkpoint must be at least 1s");
	if (o->threshold_ns && o->threshold_ns < 1000)
		return lh_error("--threshold must be at least 1us (tracing_thresh counts microseconds)");
	if (o->no_hist && o->hist_given)
		return lh_error("--no-hist and --hist exclude each other");
	if (o->no_hist)
		o->hist = 0;
	if ((o->hist_comm || o->hist_pid) && !(o->hist & (1u << LH_HIST_WAKEUP)))
		return lh_error("--hist-comm and --hist-pid filter the wakeup histogram, which --hist leaves out");
	if (o->hist_pid > 4194304)
		return lh_error("invalid --hist-pid %lu", o->hist_pid);
	if (o->timerlat_period && (o->timerlat_period < 100 || o->timerlat_period > 1000000))
		return lh_error("--timerlat-period must be 100 to 1000000 us, as the kernel takes it");
	if ((o->timerlat_period || o->noise_cpus) &&
	    !(o->tracers & ((1u << LH_TRACER_TIMERLAT) | (1u << LH_TRACER_OSNOISE))))
		return lh_error("--timerlat-period and --noise-cpus set timerlat and osnoise, which --tracer leaves out");
	if ((o->tracers & (1u << LH_TRACER_TIMERLAT)) && (o->tracers & (1u << LH_TRACER_OSNOISE)))
		lh_warn("timerlat and osnoise cannot run at once: they take turns, one --slice each");
	if (o->output && !strcmp(o->output, "-"))
		return lh_error("-o names the output directory; for a report on standard output give --text -, --json - or --junit -");
	return lh_report_files_check(&o->files, NULL, o->format);
}

/*
 * Return: whether the run gets small ring buffers: reading 'trace' walks the whole max buffer
 * to the section's start (1408 kB: ~100 ms in the test guest, longer than sections come with
 * a threshold, and as long blind without one, where reads pause tracing). Without
 * function-trace a section holds a few entries; with it (or --buffer-size) the buffers stay
 * as they are.
 */
static bool read_buffer(const struct record_opts *o)
{
	/* the latency tracers' snapshot only: a sampling tracer's own instance keeps its size */
	return !o->function_trace && !o->irq_only && (o->tracers & ~lh_tracer_sampling_mask());
}

/* Borrows tracefs. Return: 0, or -1 (printed; tracefs as it was). */
static int start_tracing(struct run *r, struct lh_diag *notes)
{
	const struct record_opts *o = r->o;
	struct lh_recorder_tracefs_opts to = {
		.tracefs = o->tracefs,
		.session = {
			.tracers = o->irq_only ? 0 : o->tracers,
			.no_tracer = o->irq_only,
			.threshold_ns = o->threshold_ns,
			.function_trace = o->function_trace,
			.irq_events = !o->irq_only,
			.filters = o->filters.v,
			.notrace = o->notrace.v,
			.kprobes = o->kprobes.v,
			.buffer_kb = o->buffer_bytes ? (unsigned long)(o->buffer_bytes / 1024) :
				     read_buffer(o) ? DEFAULT_READ_BUFFER_KB : 0,
			.buffer_default = !o->buffer_bytes,
			.force = o->force,
			.state_dir = o->state_dir,
		},
		.poll = o->poll,
		.irqstat = r->irqstat,
		.event_fd = r->sfd,
		.hist = { .kinds = o->hist, .comm = o->hist_comm, .pid = (int)o->hist_pid },
		.hist_required = o->hist_set,
		.hist_default = !o->hist_given,
		.noise = {
			.threshold_ns = o->threshold_ns,
			.period_us = (unsigned int)o->timerlat_period,
			.cpus = o->noise_cpus,
			.stack = true,
		},
	};

	if (lh_recorder_tracefs_create(&r->tracefs, &to, notes)) {
		/* Even with -q: the warnings (tracers the kernel lacks, their CONFIG_) say why. */
		lh_print_diag(notes, SHOW_DIAG, true);
		return -1;
	}
	/* What a session that started warns about (tracers the kernel lacks, --force). */
	print_diag(r, notes);
	r->tracers = o->irq_only ? 0 : lh_recorder_tracefs_tracers(r->tracefs);
	r->irq_stats = lh_recorder_tracefs_irq_stats(r->tracefs);
	return 0;
}

/* Gives tracefs back (every knob); a failure makes the run an error. */
static void stop_tracing(struct run *r)
{
	struct lh_diag d = { 0 };

	if (lh_recorder_tracefs_destroy(r->tracefs, &d)) {
		print_diag(r, &d);
		if (r->rec)
			lh_recorder_fail(r->rec, d.nr ? d.msgs[0].text :
					 "tracefs could not be fully restored");
	}
	lh_diag_release(&d);
	r->tracefs = NULL;
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
	if (r->hist)
		lh_info("histograms counted in the kernel: %s",
			lh_hist_kinds_format(r->hist, list, sizeof(list)));
	else if (r->o->hist_given && r->o->hist)
		lh_info("no histograms counted in the kernel (see the report, or 'lathound doctor')");
}

/* A run's id, unique among runs, for telling reports of one run from reports of two. */
static void make_run_id(char *buf, size_t len)
{
	unsigned char b[16];
	size_t i;

	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != (ssize_t)sizeof(b)) {
		uint64_t x = lh_wall_ns() ^ ((uint64_t)getpid() << 32) ^ lh_now_ns();

		for (i = 0; i < sizeof(b); i++, x = x * 6364136223846793005ULL + 1)
			b[i] = (unsigned char)(x >> 56);
	}
	for (i = 0; i < sizeof(b) && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, len - 2 * i, "%02x", b[i]);
}

/* The engine over the tracefs just borrowed; notes (the session's warnings) go in its report. */
static void recorder_alloc(struct run *r, struct lh_rules *rules, struct lh_diag *notes)
{
	const struct record_opts *o = r->o;
	struct lh_run_info info = {
		.mode = "record", .command_status = -1, .kernel = r->kernel,
		.host = r->host[0] ? r->host : NULL, .run_id = r->run_id,
		.command = r->command, .wait_method = lh_recorder_tracefs_method(r->tracefs),
	};
	struct lh_recorder_opts ro = {
		.tracers = r->tracers,
		.wanted = o->tracers,
		.threshold_ns = o->threshold_ns,
		.slice_ns = o->slice_ns,
		.duration_ns = o->duration_ns,
		.checkpoint_ns = o->checkpoint_ns,
		.status_ns = !o->quiet && isatty(STDERR_FILENO) ? STATUS_EVERY : 0,
		.irqstat = r->irq_stats ? r->irqstat : NULL,
		.gate = &o->gate,
		.rules = rules,
		.keep = o->keep,
		.board = o->board,
		.out = r->out,
		.metrics = o->metrics,
		.info = &info,
	};
	struct lh_recorder_hooks hooks = {
		.arg = r, .message = on_message, .status = on_status, .event = on_event,
	};

	ro.hist_kinds = r->hist = lh_recorder_tracefs_hist(r->tracefs, ro.hist_why_not);

	r->rec = lh_recorder_alloc(&lh_recorder_tracefs_ops, r->tracefs, &ro, &hooks);
	lh_report_add_diag(lh_recorder_report(r->rec), notes);
}

/* The final report, written once tracefs is given back. Return: the exit code. */
static int finish(struct run *r)
{
	struct lh_report *rep = lh_recorder_report(r->rec);
	const struct record_opts *o = r->o;
	struct lh_diag d = { 0 };
	bool passed, failed = false;
	int ret;

	passed = lh_recorder_finish(r->rec);
	/* Both are tried: one that cannot be written does not stop the other. */
	ret = lh_recorder_write(r->rec, "report.json", LH_FORMAT_JSON, &d);
	ret |= lh_recorder_write(r->rec, "report.txt", LH_FORMAT_TEXT, &d);
	ret |= lh_recorder_write(r->rec, "report.html", LH_FORMAT_HTML, &d);
	ret |= lh_recorder_write_metrics(r->rec, &d);
	if (ret) {
		print_diag(r, &d);
		lh_error("the final report could not be written in full; what was written before is kept in '%s'",
			 lh_output_dir(r->out));
		failed = true;
	}
	lh_diag_release(&d);
	if (lh_report_files_write(rep, &o->files, passed))
		failed = true;
	if (!ret)
		lh_info("report: '%s/report.json', '%s/report.txt', '%s/report.html'%s",
			lh_output_dir(r->out), lh_output_dir(r->out), lh_output_dir(r->out),
			lh_output_kept(r->out) ? ", raw snapshots in 'snapshots/'" : "");
	/* The report's own verdict too: a rule a gate depends on that could not be evaluated. */
	if (failed || lh_recorder_failed(r->rec) || lh_report_error(rep))
		return LH_EXIT_ERROR;
	return passed ? LH_EXIT_PASS : LH_EXIT_GATE;
}

/* The run until its end, then the shutdown up to the final report. Return: the exit code. */
static int run(struct run *r, struct lh_rules *rules, char **command)
{
	struct lh_diag notes = { 0 };
	bool started = false;
	int code = LH_EXIT_ERROR;

	if (start_tracing(r, &notes))
		goto out;
	recorder_alloc(r, rules, &notes);
	if (lh_recorder_start(r->rec))
		goto out_tracing;
	say_start(r, command);
	if (command && lh_recorder_settle(r->rec))
		goto out_tracing;
	if (command && !lh_recorder_ended(r->rec) && spawn(r, command))
		goto out_tracing;
	started = true;

	lh_recorder_run(r->rec);

	signals_read(r);
	r->stopping = true;
	/* What was notified and buffered up to the end still counts, unless told to hurry. */
	lh_recorder_stop(r->rec, !r->abort);
	status_clear(r);
	stop_child(r);
	judge_command(r);
out_tracing:
	lh_recorder_stop(r->rec, false);
	stop_tracing(r);
	if (started)
		code = finish(r);
out:
	if (!started)
		lh_output_discard(r->out);
	lh_recorder_free(r->rec);
	lh_diag_release(&notes);
	return code;
}

static int record(struct record_opts *o, char **command)
{
	struct run r = { .o = o, .sfd = -1 };
	struct lh_output_opts oo = {
		.dir = o->output, .disk_budget = o->disk_budget, .max_snapshots = o->max_snapshots,
	};
	struct lh_rules *rules = lh_rules_alloc();
	struct lh_diag d = { 0 };
	struct utsname uts;
	int code = LH_EXIT_ERROR;

	/* Rules first: a broken rule file fails before tracefs is touched. */
	if (load_rules(rules, o))
		goto out_rules;
	if (lh_output_open(&r.out, &oo, &d)) {
		lh_print_diag(&d, SHOW_DIAG, !lh_quiet);
		goto out_rules;
	}
	r.irqstat = lh_irqstat_alloc();
	if (!uname(&uts)) {
		snprintf(r.kernel, sizeof(r.kernel), "%s", uts.release);
		snprintf(r.host, sizeof(r.host), "%s", uts.nodename);
	}
	make_run_id(r.run_id, sizeof(r.run_id));
	r.command = command ? join_argv(command) : NULL;
	/* From here to the exit of the process, signals are read, never delivered. */
	if (signals_catch(&r))
		lh_output_discard(r.out);
	else
		code = run(&r, rules, command);
	if (r.sfd >= 0)
		close(r.sfd);
	lh_output_free(r.out);
	lh_irqstat_free(r.irqstat);
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
		.format = LH_FORMAT_TEXT, .keep = LH_REPORT_KEEP, .hist = LH_HIST_DEFAULT,
	};
	const struct lh_option options[] = {
		LH_OPT_GROUP("what to trace"),
		LH_OPT_CALLBACK('t', "tracer", &o.tracers, "LIST",
				"comma-separated latency tracers, timerlat, osnoise, hwlat (default irqsoff,wakeup_rt)",
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
				"ring buffer size per CPU (default: as it is; 8K for the latency tracers without --function-trace)",
				opt_size),
		LH_OPT_BOOL(0, "irq-only", &o.irq_only,
			    "arm no latency tracer: collect IRQ handler statistics only"),
		LH_OPT_CALLBACK(0, "hist", &o, "LIST",
				"irqsoff,preemptoff,wakeup, all or none: histograms counted in the kernel (default wakeup where the kernel can)",
				opt_hist),
		LH_OPT_BOOL(0, "no-hist", &o.no_hist, "count no histogram in the kernel"),
		LH_OPT_STRING(0, "hist-comm", &o.hist_comm, "COMM",
			      "wakeup histogram: only tasks named COMM"),
		LH_OPT_UINT(0, "hist-pid", &o.hist_pid, "PID", "wakeup histogram: only this pid"),
		LH_OPT_UINT(0, "timerlat-period", &o.timerlat_period, "US",
			    "timerlat's timer period in us (default: as the kernel has it, 1000)"),
		LH_OPT_STRING(0, "noise-cpus", &o.noise_cpus, "LIST",
			      "CPUs timerlat and osnoise sample (osnoise/cpus, e.g. 0-1; default all)"),
		LH_OPT_GROUP("how long"),
		LH_OPT_DURATION('d', "duration", &o.duration_ns,
				"end after DURATION (90s, 12h); default: when COMMAND ends, or a signal"),
		LH_OPT_BOOL(0, "allow-command-failure", &o.allow_command_failure,
			    "a COMMAND that fails (non-zero exit, killed) is not an error"),
		LH_OPT_GROUP("output"),
		LH_OPT_STRING('o', "output", &o.output, "DIR",
			      "output directory (default ./lathound-YYYYmmdd-HHMMSS)"),
		LH_OPT_DURATION(0, "checkpoint", &o.checkpoint_ns,
				"rewrite DIR/report.json this often (default 60s)"),
		LH_OPT_STRING(0, "metrics", &o.metrics, "FILE",
			      "Prometheus metrics for node_exporter's textfile collector"),
		LH_OPT_CALLBACK(0, "disk-budget", &o.disk_budget, "SIZE",
				"space for raw snapshots in DIR/snapshots (default 256M)",
				opt_size),
		LH_OPT_UINT(0, "max-snapshots", &o.max_snapshots, "N",
			    "raw snapshots kept at most (default 1000)"),
		LH_OPT_CALLBACK('f', "format", &o.format, "FORMAT",
				"report printed at the end: text (default), json, junit or html",
				lh_opt_format),
		LH_OPT_REPORT_FILES(&o.files),
		LH_OPT_UINT(0, "keep", &o.keep, "N",
			    "records kept in full, rule hits then worst first (default 100)"),
		LH_OPT_BOARD(&o.board),
		LH_OPT_BOOL('q', "quiet", &o.quiet, "no status line, no warnings"),
		LH_OPT_GROUP("rules"),
		LH_OPT_RULES(&o.rules),
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
	lh_rule_paths_release(&o.rules);
	return lh_finish_stdout(code);
}
