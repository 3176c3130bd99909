/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tracefs session of a live run: borrows the top-level instance's latency-tracer
 * knobs through libtracefs, and gives every one of them back.
 *
 * lh_session_create() mounts tracefs if needed, takes the run lock, restores the state a
 * killed run left behind (into the tracefs it came from only), saves every knob it will
 * touch to a state file under /run/lathound/ (JSON, written atomically and fsync'd before
 * anything changes; state.h) and configures what is common to all
 * tracers (options, filters, irq events in the top-level instance, kprobes).
 * lh_session_arm() switches the armed tracer (time slices rotate through it).
 * lh_session_destroy() restores everything, removes the state file and drops the lock;
 * it is NULL-safe and idempotent, and is what every exit path (signals included) runs.
 * No printing: problems go to the caller's lh_diag.
 */
#ifndef LH_SESSION_H
#define LH_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#include "state.h"
#include "trace/record.h"
#include "util/util.h"

#define LH_STATE_DIR	"/run/lathound"
#define LH_STATE_FILE	"state"		/* in the state dir: what to give back (state.h) */
#define LH_LOCK_FILE	"lock"		/* in the state dir: flock'd by the running lathound */

struct lh_session_opts {
	unsigned int	tracers;	/* 1 << enum lh_tracer wanted */
	uint64_t	threshold_ns;	/* tracing_thresh; 0 = running maxima */
	bool		function_trace;	/* options/function-trace (off by default) */
	bool		irq_events;	/* irq:irq_handler_entry/exit in the top-level instance */
	const char	**filters;	/* set_ftrace_filter globs, NULL-terminated or NULL */
	const char	**notrace;	/* set_ftrace_notrace globs */
	const char	**kprobes;	/* kprobe_events definitions ("p:lh/x func" or "func") */
	unsigned long	buffer_kb;	/* buffer_size_kb, 0 = leave as is */
	bool		buffer_default;	/* buffer_kb is lathound's choice, not the user's:
					 * left as is where the CPUs' sizes differ */
	bool		force;		/* go on when another tracer is in use */
	const char	*state_dir;	/* NULL = LH_STATE_DIR (tests point it elsewhere) */
	bool		no_tracer;	/* arm none: lock, save, configure, restore only
					 * ('record --irq-only'); tracers must be 0 */
};

struct lh_session;

/*
 * In this order: finds (mounts) tracefs, takes the lock, restores what a killed run left
 * (warning "restored tracefs state left by lathound pid N (killed?)"), refuses another
 * tool's current_tracer unless o->force, checks the tracers and kprobe events, saves every
 * knob it will touch to the state file (written atomically, fsync'd), then changes them:
 * tracing off, options (function-trace as asked; display-graph, stacktrace, verbose... off;
 * irq-info, pause-on-trace... on), filters, buffer size, irq events, kprobes. Any failure
 * after the state file is written restores everything before returning.
 * Return: 0 and *s (destroy with lh_session_destroy()), or -1 with the reason in diag
 * (tracefs not mountable, lock held by pid N, current_tracer 'function' in use, no
 * requested tracer available...). Tracers the kernel lacks are dropped with a warning
 * naming the CONFIG_ option; -1 when none is left.
 */
int lh_session_create(struct lh_session **s, const struct lh_session_opts *o,
		      struct lh_diag *diag);
/*
 * Restores every saved knob, removes the state file, unlocks and frees s. NULL-safe and
 * idempotent: a session already destroyed is recognised and left alone. When a knob
 * cannot be restored the state file is kept for 'lathound reset'. A session still live
 * at exit() is destroyed by an atexit handler (in the creating process only).
 * Return: 0, or -1 when something could not be restored (diag says what).
 */
int lh_session_destroy(struct lh_session *s, struct lh_diag *diag);

/* Return: the tracers actually available of those asked (1 << enum lh_tracer). */
unsigned int lh_session_tracers(const struct lh_session *s);

/*
 * Arms tracer t: tracing off, current_tracer t, tracing_thresh (threshold_ns in µs, rounded
 * up), tracing_max_latency max_us (the running maximum t continues from: only a longer
 * section is recorded; 0 from scratch, and with a threshold), options/pause-on-trace off
 * with a threshold (lh_session_live_reads()), tracing on.
 * Return: 0, or -1 with the reason in diag.
 */
int lh_session_arm(struct lh_session *s, enum lh_tracer t, uint64_t max_us,
		   struct lh_diag *diag);

/*
 * Disarms the top-level tracer (tracing off, current_tracer nop): a sampling tracer runs
 * in its own instance meanwhile. Return: 0, or -1 with the reason in diag.
 */
int lh_session_disarm(struct lh_session *s, struct lh_diag *diag);

/*
 * Return: whether reading 'trace' leaves the tracer armed last running (with a threshold,
 * options/pause-on-trace cleared after arming); false when reads pause it.
 */
bool lh_session_live_reads(const struct lh_session *s);
/*
 * Return: the fd to poll for POLLIN while the armed tracer's live buffer of lathound's own
 * CPU is drained by the caller (drain.h: lathound confined to one CPU), else -1. Valid until
 * the next lh_session_arm(), lh_session_disarm() or failed lh_session_drain().
 */
int lh_session_drain_fd(const struct lh_session *s);
/*
 * Call when poll() set revents on lh_session_drain_fd(): reads and discards what that live
 * buffer holds. A buffer that cannot be read (an error, or revents other than POLLIN) is
 * no longer drained: reads are then slower, not wrong.
 * Return: bytes read (0 without such a buffer), or -1 when it failed.
 */
long lh_session_drain(struct lh_session *s, short revents);
/*
 * Makes the drains of the armed tracer's live buffers (drain.h) poll them anew: call after
 * a new maximum (its section swapped a CPU's live buffer away). NULL-safe.
 */
void lh_session_drain_kick(struct lh_session *s);
/* Return: the path of tracing_max_latency, for inotify (borrowed from s). */
const char *lh_session_max_latency_path(const struct lh_session *s);

/*
 * Async-signal-safe: stops tracing (writes 0 to the pre-opened tracing_on fd). For a
 * second SIGINT before the normal unwind restores the rest.
 */
void lh_session_stop_tracing(struct lh_session *s);

/*
 * Restores a state file left by a run that was killed (SIGKILL, power loss) if there is
 * one, and removes it. Used by 'lathound reset' and at the start of every session.
 * Return: 1 restored, 0 nothing to do, -1 error (diag says why).
 */
int lh_session_recover(const char *state_dir, struct lh_diag *diag);
/*
 * lh_session_recover() that also hands back what it restored (for 'lathound reset' to
 * list it). Return: as lh_session_recover(); *restored is set when 1 is returned (free it
 * with lh_state_free()), NULL otherwise.
 */
int lh_session_recover_state(const char *state_dir, struct lh_state **restored,
			     struct lh_diag *diag);

/* The run lock of a state directory (lh_session_lock()). */
struct lh_session_lock;

/*
 * Takes the run lock of state_dir (NULL = LH_STATE_DIR), as a session does, for work that
 * must not run beside a live lathound. The directory (and its missing parents) and the lock
 * file are created as needed. The directory is opened without following a link, and it and
 * the lock file must be owned by root (or the user lathound runs as) and writable by it
 * alone (lh_check_trusted()): a state file planted there would be written into tracefs.
 * Temporary files a killed run left there are removed.
 * Return: the lock (give it back with lh_session_unlock()), or NULL with the reason in diag
 * (errno EWOULDBLOCK: "another lathound (pid N) is using the latency tracers").
 */
struct lh_session_lock *lh_session_lock(const char *state_dir, struct lh_diag *diag);
/* Drops a lock taken with lh_session_lock() and frees it. NULL-safe. */
void lh_session_unlock(struct lh_session_lock *lock);
/*
 * lh_session_recover_state() for a caller that holds the lock, so that it can clean up more
 * before another run may start ('lathound reset' removes the killed run's tracefs
 * instance). The state file is given back only to the tracefs it names, when that is the
 * one in use now (lh_session_tracing_dir()); otherwise it is kept and -1 returned.
 * Return: as lh_session_recover_state().
 */
int lh_session_recover_locked(struct lh_session_lock *lock, struct lh_state **restored,
			      struct lh_diag *diag);

/*
 * Finds tracefs (libtracefs mounts it when it is not mounted). Return: 0 and *dir
 * (borrowed from libtracefs), or -1 with why in diag and errno set: EACCES/EPERM when
 * tracefs cannot be looked into ("cannot access tracefs at 'DIR': Permission denied (run
 * lathound record as root)"), else a mount failure or a directory that is not tracefs (with
 * the mount command), or a tracefs without current_tracer.
 */
int lh_session_tracing_dir(const char **dir, struct lh_diag *diag);

/*
 * Return: the pid of the lathound holding the lock in state_dir (NULL = LH_STATE_DIR),
 * 0 when none does, -1 when it cannot be told. Creates nothing.
 */
pid_t lh_session_lock_holder(const char *state_dir);

/* Writes what tracer t needs into buf ("CONFIG_IRQSOFF_TRACER=y"). Return: buf. */
const char *lh_session_tracer_needs(enum lh_tracer t, char *buf, size_t len);

#endif /* LH_SESSION_H */
