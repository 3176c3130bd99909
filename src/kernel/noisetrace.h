/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sampling tracers (timerlat, osnoise, hwlat) in lathound's own tracefs instance,
 * "lathound-noise-<pid>": their samples (the ftrace:timerlat, ftrace:osnoise and ftrace:hwlat
 * entries; Debian 12's 6.1 has no osnoise:timerlat_sample event), the osnoise:*_noise events
 * and print_stack's stacks, read from the per-CPU ring buffers and decoded with
 * libtraceevent into the breakdown of noise.c, whose spikes go to the caller.
 *
 * While osnoise is armed, hist triggers on the instance's osnoise:*_noise events count its
 * noise by CPU and source in the kernel (lh_noisetrace_sources()); they are paused while
 * another tracer runs and removed before the instance (a killed run's by
 * lh_noisetrace_remove_stale()).
 *
 * The osnoise/ knobs are global, not per instance: the session saves them before anything
 * changes (session.c), this module writes them (timerlat_period_us, cpus, print_stack, the
 * stops), and the session gives them back. The instance is created with tracing off and no
 * tracer; lh_noisetrace_arm() sets one, lh_noisetrace_disarm() takes it away.
 * No printing: problems go to the caller's lh_diag.
 */
#ifndef LH_NOISETRACE_H
#define LH_NOISETRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"
#include "trace/noise.h"
#include "trace/record.h"
#include "util/util.h"

/* Instance names are this prefix and the pid of the lathound that created them. */
#define LH_NOISETRACE_PREFIX	"lathound-noise-"

/* The global knobs a run may change, under the tracing dir. */
extern const char *const lh_noisetrace_knobs[];

struct lh_noisetrace_opts {
	uint64_t	threshold_ns;	/* -T: every sample above is a spike; 0 = running maxima */
	unsigned int	period_us;	/* timerlat_period_us; 0 = as it is */
	const char	*cpus;		/* osnoise/cpus ("0-1"); NULL = as it is */
	bool		stack;		/* print_stack: the blocking task's stack (kallsyms) */
};

struct lh_noisetrace;

/*
 * Creates the instance LH_NOISETRACE_PREFIX<pid> (tracing off, no tracer), reads the event
 * formats it needs and enables the noise events in it; spikes go to fn(spike, arg).
 * tracefs must be mounted and the osnoise knobs saved (lh_session_create()).
 * Return: 0 and *t (give it back with lh_noisetrace_destroy()), or -1 with the reason in diag.
 */
int lh_noisetrace_create(struct lh_noisetrace **t, const struct lh_noisetrace_opts *o,
			 lh_noise_spike_fn fn, void *arg, struct lh_diag *diag);
/*
 * Stops the instance, removes it and frees t. NULL-safe. Return: 0, or -1 when the
 * instance could not be removed (diag says which).
 */
int lh_noisetrace_destroy(struct lh_noisetrace *t, struct lh_diag *diag);

/*
 * Arms sampling tracer tr in the instance, its buffer emptied (read what the last tracer
 * sampled first), spikes judged against max_ns (the running maximum so far, without a
 * threshold). The kernel runs one timerlat or osnoise at a time: when
 * another user holds it (rtla, another instance) it answers EBUSY, said as such.
 * Return: 0, or -1 with the reason in diag.
 */
int lh_noisetrace_arm(struct lh_noisetrace *t, enum lh_tracer tr, uint64_t max_ns,
		      struct lh_diag *diag);
/*
 * Stops the instance and sets its tracer to nop (read what it sampled first:
 * lh_noisetrace_read() with final). Return: 0, or -1 with the reason in diag.
 */
int lh_noisetrace_disarm(struct lh_noisetrace *t, struct lh_diag *diag);

/*
 * Reads every event waiting in the instance's buffers into the breakdown; with final, the
 * samples still pending are judged too (the end of a slice or of the run).
 * Return: events decoded, or -1 with the reason in diag.
 */
long lh_noisetrace_read(struct lh_noisetrace *t, bool final, struct lh_diag *diag);

/*
 * Watches the sections of tracer (LH_TRACER_IRQSOFF or PREEMPTOFF) that the histograms'
 * synthetic event synth emits (hist.h): enabled in this instance, filtered to those of a
 * quarter of the spike threshold (or running maximum) and longer, their start sites named
 * with ks (may be NULL). Each timerlat spike then says the section that overlapped it most.
 * Call before the first lh_noisetrace_arm(). Return: 0, or -1 with the reason in diag.
 */
int lh_noisetrace_watch(struct lh_noisetrace *t, enum lh_tracer tracer, const char *synth,
			const struct lh_ksyms *ks, struct lh_diag *diag);

/* Return: the breakdown (histograms, counters; borrowed). */
const struct lh_noise *lh_noisetrace_noise(const struct lh_noisetrace *t);
/*
 * osnoise's noise by source as the kernel counted it (hist triggers on the osnoise:*_noise
 * events of the instance, counting while osnoise is armed), as of the last final read of an
 * osnoise slice: entries by CPU and source, hits and what the kernel dropped.
 * Return: the tables (borrowed), or NULL with *why (static) when they are not counted.
 */
const struct lh_hist_data *lh_noisetrace_sources(const struct lh_noisetrace *t, const char **why);
/* Return: events the ring buffers lost so far (sub-buffers' missed counts). */
uint64_t lh_noisetrace_lost(const struct lh_noisetrace *t);

/*
 * Removes every LH_NOISETRACE_PREFIX<pid> instance whose lathound no longer runs (its tracer
 * stops with it). Call with the session lock held. Return: instances removed, or -1.
 */
int lh_noisetrace_remove_stale(struct lh_diag *diag);

/*
 * Stops the tracer of every instance lh_noisetrace_remove_stale() would remove, and keeps the
 * instances (it removes them after). Before a killed run's state is written back: a sampling
 * tracer gives back what it changed when cleared, and hwlat keeps the tracing_thresh it reads
 * then as its next default (6.1 hwlat_tracer_reset()); cleared after the restore, it would
 * keep the user's 0 (every sample recorded) in place of its own 10 us. Call with the session
 * lock held. Return: nothing: best effort, the removal says what failed.
 */
void lh_noisetrace_stop_stale(void);

#endif /* LH_NOISETRACE_H */
