// SPDX-License-Identifier: GPL-2.0-only
/*
 * lathound hist (not listed: the test harness of hist.c, which 'record --hist' also uses): counts
 * latency histograms in the kernel while COMMAND runs, then prints every bucket and the
 * summaries as lines a script can read:
 *
 *	hist KIND hits N dropped N
 *	bin KIND CPU LO_NS HI_NS COUNT SUM_NS
 *	summary KIND CPU|all count N mean_ns M min LO-HI max LO-HI p50 LO-HI ... p99.99 LO-HI
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "kernel/hist.h"
#include "kernel/session.h"
#include "opts.h"
#include "util/util.h"

static const char *const hist_usage[] = {
	"lathound hist [<options>] -- COMMAND [ARGS...]",
	NULL,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static int opt_kinds(const struct lh_option *opt, const char *arg)
{
	const char *err;

	if (lh_hist_parse_kinds(arg, opt->value, &err))
		return lh_error("%s in --%s '%s'", err, opt->long_name, arg);
	return 0;
}

static void print_range(const char *name, uint64_t lo_ns, uint64_t hi_ns)
{
	printf(" %s %llu-%llu", name, (unsigned long long)lo_ns, (unsigned long long)hi_ns);
}

/* The summary line of one CPU (cpu >= 0) or of all: the reports' statistics (histogram.h). */
static void print_summary(enum lh_hist_kind k, const struct lh_hist_data *d, int cpu)
{
	struct lh_histogram h = { 0 };
	uint64_t lo, hi;
	unsigned int i;

	if (lh_hist_histogram(d, cpu, &h) || !h.count) {
		lh_histogram_release(&h);
		return;
	}
	printf("summary %s ", lh_hist_kind_name(k));
	if (cpu < 0)
		printf("all");
	else
		printf("%d", cpu);
	printf(" count %llu mean_ns %.0f", (unsigned long long)h.count, lh_histogram_mean_ns(&h));
	print_range("min", h.b[0].lo_ns, h.b[0].hi_ns);
	print_range("max", h.b[h.nr - 1].lo_ns, h.b[h.nr - 1].hi_ns);
	for (i = 0; i < LH_HISTOGRAM_NR_PCT; i++)
		if (lh_histogram_percentile(&h, i, &lo, &hi))
			print_range(lh_histogram_pct_name[i], lo, hi);
	printf("\n");
	lh_histogram_release(&h);
}

/* Runs argv and waits for it; a signal to lathound ends the wait. Return: its status. */
static int run_command(char **argv)
{
	int status = 0;
	pid_t child = fork();

	if (child < 0)
		return lh_error("cannot fork: %s", strerror(errno));
	if (!child) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "lathound: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
		if (stop)
			kill(child, SIGTERM);
	}
	return status;
}

int lh_cmd_hist(int argc, char **argv)
{
	struct lh_hist_opts o = { .kinds = (1u << LH_HIST_NR) - 1 };
	const char *state_dir = NULL, *dir;
	unsigned long pid = 0;
	const struct lh_option options[] = {
		LH_OPT_CALLBACK('k', "kinds", &o.kinds, "LIST",
				"irqsoff,preemptoff,wakeup (default all the kernel has)", opt_kinds),
		LH_OPT_STRING(0, "comm", &o.comm, "COMM", "wakeup: only tasks named COMM"),
		LH_OPT_UINT(0, "pid", &pid, "PID", "wakeup: only this pid"),
		LH_OPT_STRING(0, "state-dir", &state_dir, "DIR", "directory of the run lock"),
		LH_OPT_END(),
	};
	struct lh_hist *h = NULL;
	struct lh_hist_data d = { 0 };
	struct lh_diag diag = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct lh_session_lock *lock;
	int first, code = LH_EXIT_ERROR, k, cpu;

	first = lh_parse_command(argc, argv, options, hist_usage, NULL,
				 LH_OPERANDS_COMMAND);
	if (first == LH_OPTS_HELP)
		return lh_finish_stdout(LH_EXIT_PASS);
	if (first < 0)
		return LH_EXIT_ERROR;
	if (first >= argc)
		return lh_error("no COMMAND given (lathound hist [<options>] -- COMMAND)");
	if (pid > 4194304)
		return lh_error("invalid --pid %lu", pid);
	o.pid = (int)pid;
	if (lh_session_tracing_dir(&dir, &diag)) {
		lh_print_diag(&diag, 5, true);
		lh_diag_release(&diag);
		return LH_EXIT_ERROR;
	}
	lock = lh_session_lock(state_dir, &diag);
	if (!lock)
		goto out;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (lh_hist_remove_stale(&diag) < 0 || lh_hist_create(&h, &o, &diag))
		goto out_unlock;
	run_command(argv + first);
	code = LH_EXIT_PASS;
	for (k = 0; k < LH_HIST_NR; k++) {
		if (!(lh_hist_kinds(h) & (1u << k)))
			continue;
		if (lh_hist_read(h, k, &d, &diag)) {
			code = LH_EXIT_ERROR;
			continue;
		}
		printf("hist %s hits %llu dropped %llu\n", lh_hist_kind_name(k),
		       (unsigned long long)d.hits, (unsigned long long)d.dropped);
		for (size_t i = 0; i < d.nr; i++)
			printf("bin %s %d %llu %llu %llu %llu\n", lh_hist_kind_name(k),
			       d.bins[i].cpu, (unsigned long long)d.bins[i].lo_ns,
			       (unsigned long long)d.bins[i].hi_ns,
			       (unsigned long long)d.bins[i].count,
			       (unsigned long long)d.bins[i].sum_ns);
		for (cpu = 0; cpu < lh_hist_nr_cpus(&d); cpu++)
			print_summary(k, &d, cpu);
		print_summary(k, &d, -1);
		if (d.dropped)
			code = LH_EXIT_ERROR;
	}
	lh_hist_data_release(&d);
out_unlock:
	if (lh_hist_destroy(h, &diag))
		code = LH_EXIT_ERROR;
	lh_session_unlock(lock);
out:
	lh_print_diag(&diag, 10, true);
	lh_diag_release(&diag);
	return lh_finish_stdout(code);
}
