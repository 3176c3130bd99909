// SPDX-License-Identifier: GPL-2.0-only
/*
 * lathound reset: give back the tracefs knobs a lathound that was killed (SIGKILL, power
 * loss) left changed, from its state file, and say what was restored.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <tracefs.h>

#include "cmds.h"
#include "kernel/hist.h"
#include "kernel/irqtrace.h"
#include "kernel/noisetrace.h"
#include "kernel/session.h"
#include "kernel/state.h"
#include "opts.h"
#include "util/util.h"

static const char *const reset_usage[] = {
	"lathound reset [<options>]",
	NULL,
};

static const char reset_epilogue[] =
	"\nBefore it changes anything, 'lathound record' saves every tracefs knob it will touch\n"
	"in a state file (default /run/lathound/state) and gives them back when it ends. When\n"
	"it could not (SIGKILL, power loss), 'lathound reset' restores them from that file, as\n"
	"the next 'lathound record' would before anything else, and removes the tracefs\n"
	"instance (lathound-PID) the killed run kept its irq statistics in. It refuses while a\n"
	"lathound is running.\n"
	"\nexit status:\n"
	"    0  restored, or nothing to restore\n"
	"    1  the state could not be restored (the file is kept: corrupt, saved from another\n"
	"       tracefs, or refused as another user could have written it), another lathound\n"
	"       runs, or a killed run's instance could not be removed (what was restored is\n"
	"       still listed)\n";

/* One restored knob, as the user would write it: "current_tracer = nop". */
static void print_entry(const struct lh_state_entry *e)
{
	const char *v = e->value;
	size_t n = strcspn(v, "\n");

	switch (e->kind) {
	case LH_STATE_KPROBE:
		printf("    kprobe %s removed\n", e->path);
		break;
	case LH_STATE_LIST:
		if (!*v)
			printf("    %s cleared\n", e->path);
		else if (!v[n] || !v[n + 1])
			printf("    %s = %.*s\n", e->path, (int)n, v);
		else
			printf("    %s = %.*s and more (one per line)\n", e->path, (int)n, v);
		break;
	default:
		printf("    %s = %.*s\n", e->path, (int)n, v);
		break;
	}
}

int lh_cmd_reset(int argc, char **argv)
{
	const char *state_dir = NULL, *tracefs = NULL;
	const struct lh_option options[] = {
		LH_OPT_STRING(0, "state-dir", &state_dir, "DIR",
			      "directory of the saved state and the lock (default /run/lathound)"),
		LH_OPT_HIDDEN(LH_OPT_STRING(0, "tracefs", &tracefs, "DIR", "tracefs directory")),
		LH_OPT_END(),
	};
	struct lh_session_lock *lock;
	struct lh_state *st = NULL;
	struct lh_diag d = { 0 };
	int first, ret, code, removed, hists, noise;
	size_t i;

	first = lh_parse_command(argc, argv, options, reset_usage, reset_epilogue,
				 LH_OPERANDS_NONE);
	if (first == LH_OPTS_HELP)
		return lh_finish_stdout(LH_EXIT_PASS);
	if (first < 0)
		return LH_EXIT_ERROR;
	if (!state_dir)
		state_dir = LH_STATE_DIR;
	/* A copied tree (tests): a state file is restored only into the tracefs it names. */
	if (tracefs && tracefs_set_tracing_dir((char *)tracefs)) {
		lh_error("cannot use '%s' as tracefs: %s", tracefs, strerror(errno));
		return LH_EXIT_ERROR;
	}

	/* Under the run lock: no lathound starts (or runs) while its instances are judged. */
	lock = lh_session_lock(state_dir, &d);
	if (!lock) {
		ret = -1;
		removed = hists = noise = 0;
	} else {
		ret = lh_session_recover_locked(lock, &st, &d);
		/* The killed run's own instance (irq statistics) goes too; a live run's stays. */
		removed = ret < 0 ? 0 : lh_irqtrace_remove_stale(&d);
		/*
		 * And its timerlat/osnoise instance, whose tracer runs on without it; first: the
		 * histograms' synthetic events cannot go while it has them enabled (EBUSY).
		 */
		noise = ret < 0 ? 0 : lh_noisetrace_remove_stale(&d);
		/* And its histograms: instance, triggers, synthetic events. */
		hists = ret < 0 ? 0 : lh_hist_remove_stale(&d);
		lh_session_unlock(lock);
	}
	for (i = 0; i < d.nr; i++) {
		if (d.msgs[i].level == LH_DIAG_ERROR)
			lh_error("%s", d.msgs[i].text);
		else if (ret <= 0 || strncmp(d.msgs[i].text, "restored tracefs state", 22))
			lh_warn("%s", d.msgs[i].text);	/* that one is said below, in full */
	}
	/* What was restored is said even when the stale instances could not all go. */
	if (ret > 0) {
		char when[64] = "";
		time_t t = (time_t)(st->started_ns / 1000000000ull);
		struct tm tm;

		if (st->started_ns && localtime_r(&t, &tm))
			strftime(when, sizeof(when), ", saved %Y-%m-%d %H:%M:%S", &tm);
		printf("restored tracefs state left by lathound pid %ld (killed?)%s:\n",
		       (long)st->pid, when);
		for (i = 0; i < st->nr; i++)
			print_entry(&st->entries[i]);
	} else if (!ret && !removed && !hists && !noise) {
		printf("nothing to restore (no state file in %s)\n", state_dir);
	}
	if (removed > 0)
		printf("removed %d tracefs instance%s (%s<pid>) left by a killed lathound\n",
		       removed, removed == 1 ? "" : "s", LH_IRQTRACE_PREFIX);
	if (hists > 0)
		printf("removed %d histogram object%s (%s<pid>, %s<pid>_*) left by a killed lathound\n",
		       hists, hists == 1 ? "" : "s", LH_HIST_PREFIX, LH_HIST_SYNTH_PREFIX);
	if (noise > 0)
		printf("removed %d timerlat/osnoise instance%s (%s<pid>) left by a killed lathound, its tracer stopped\n",
		       noise, noise == 1 ? "" : "s", LH_NOISETRACE_PREFIX);
	code = ret < 0 || removed < 0 || hists < 0 || noise < 0 ? LH_EXIT_ERROR : LH_EXIT_PASS;
	lh_state_free(st);
	lh_diag_release(&d);
	return lh_finish_stdout(code);
}
