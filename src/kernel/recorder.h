/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run engine of 'lathound record': arms the latency tracers in turn (one --slice each),
 * waits for the sections they record, reads each one once (after a short delay in
 * running-maximum mode, so that a rising burst is read once, at its largest), parses and
 * matches it into the report, keeps its raw snapshot, reads the IRQ statistics, rewrites the
 * report at every checkpoint, and ends on its duration, on the caller's event (a signal, the
 * workload's exit) or on an error.
 *
 * It reaches the kernel and the clock only through struct lh_recorder_ops, so that slicing,
 * deadlines, checkpoints, end reasons and loss accounting run in unit tests against a
 * scripted kernel and clock. lh_recorder_tracefs_create() (recorder-tracefs.c) is the real
 * one, over session.c, capture.c and irqtrace.c.
 *
 * No printing, no exit: what the user should hear at once goes to hooks->message(); the
 * rest (notes, counters, what was not measured, why the run failed) goes into the report,
 * which the caller writes.
 */
#ifndef LH_RECORDER_H
#define LH_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "noisetrace.h"
#include "output.h"
#include "report/report.h"
#include "rules/rules.h"
#include "session.h"
#include "trace/irqstat.h"
#include "trace/record.h"
#include "util/util.h"

/* What woke lh_recorder_ops.wait() up (bits; 0 when the deadline passed). */
#define LH_RECORDER_WAKE_NOTIFY	1u	/* a section notification may be waiting */
#define LH_RECORDER_WAKE_EVENT	2u	/* the caller's event source is ready */

/*
 * The kernel and the clock, as the engine sees them. ctx is the implementation's own.
 * Every function but irq_read/irq_interval, hist_read and the sample_* ones is required;
 * those two only when lh_recorder_opts.irqstat is set, hist_read when
 * lh_recorder_opts.hist_kinds is not 0, the sample_* ones when opts.tracers has a sampling
 * tracer (lh_tracer_is_sampling()).
 */
struct lh_recorder_ops {
	/* CLOCK_MONOTONIC in ns: deadlines, armed time. */
	uint64_t	(*now)(void *ctx);
	/* CLOCK_REALTIME in ns: the times the report shows. */
	uint64_t	(*wall)(void *ctx);
	/*
	 * Sleeps until now() reaches deadline (UINT64_MAX: no deadline), or a notification may
	 * be waiting, or the caller's event source is ready.
	 * Return: LH_RECORDER_WAKE_* bits (0: the deadline passed), or -1 with errno.
	 */
	int		(*wait)(void *ctx, uint64_t deadline);
	/*
	 * Arms tracer t with its running maximum at max_us (tracing_max_latency: only a longer
	 * section is recorded; 0 from scratch, and with a threshold) and forgets the
	 * notifications arming caused. Return: 0, or -1 with the reason in diag.
	 */
	int		(*arm)(void *ctx, enum lh_tracer t, uint64_t max_us, struct lh_diag *diag);
	/* Never blocks. Return: notifications since the last call, or -1 (reason in diag). */
	long		(*pending)(void *ctx, struct lh_diag *diag);
	/*
	 * Reads the snapshot into *buf (grown as needed, owned by the engine), its length in
	 * *len; with final, a section found before its notification came counts as notified.
	 * Return: 1 when it holds a section not read before, 0 when not, -1 (reason in diag).
	 */
	int		(*read)(void *ctx, char **buf, size_t *alloc, size_t *len, bool final,
				struct lh_diag *diag);
	/*
	 * Optional (NULL: every read() pauses tracing while it lasts). Return: the time reads
	 * paused tracing so far, ns (the armed tracer is blind then).
	 */
	uint64_t	(*paused_ns)(void *ctx);
	/*
	 * Optional (NULL: none). Return: the snapshots dropped so far because a section
	 * replaced the one being read, or the kernel kept an old body under a new header (each
	 * such section is lost: notified, not captured).
	 */
	unsigned long	(*torn)(void *ctx);
	/* The snapshot read() returned 1 for held a section. */
	void		(*captured)(void *ctx);
	/* Return: the notifications counted so far, pending() and read() included. */
	unsigned long	(*notifications)(void *ctx);
	/* Return: how often to call pending() when wait() cannot wake on one (ns), else 0. */
	uint64_t	(*poll_interval)(void *ctx);
	/*
	 * Reads the IRQ events waiting into the statistics; with sync_lost also the kernel's
	 * loss counters. Return: events read, or -1 with the reason in diag.
	 */
	long		(*irq_read)(void *ctx, bool sync_lost, struct lh_diag *diag);
	/* Return: how long the IRQ buffers may wait for the next irq_read(), in [min, max] ns. */
	uint64_t	(*irq_interval)(void *ctx, uint64_t min_ns, uint64_t max_ns);
	/*
	 * Reads what histogram kind k has counted since the run started into d (released
	 * first). Return: 0, or -1 with the reason in diag.
	 */
	int		(*hist_read)(void *ctx, enum lh_hist_kind k, struct lh_hist_data *d,
				     struct lh_diag *diag);
	/*
	 * A sampling tracer is armed: reads its events and hands each spike's record to
	 * feed(record, arg); with final, the samples still pending are judged too.
	 * Return: events read, or -1 with the reason in diag.
	 */
	long		(*sample_read)(void *ctx, bool final, lh_record_fn feed, void *arg,
				       struct lh_diag *diag);
	/* Sets the sampling tracers' histograms (every sample, per CPU) into rep. */
	void		(*sample_hist)(void *ctx, struct lh_report *rep);
	/* Return: the events the sampling tracers' ring buffers lost so far. */
	uint64_t	(*sample_lost)(void *ctx);
};

enum lh_recorder_say { LH_RECORDER_INFO, LH_RECORDER_WARNING, LH_RECORDER_ERROR };

struct lh_recorder;

/* The caller's side of the run. Every function may be NULL. */
struct lh_recorder_hooks {
	void		*arg;
	/*
	 * Something the user should hear now: an error that ends the run, the first failure
	 * of a streak (checkpoint, snapshot, IRQ read; the rest go to the report only), a
	 * recovery. text is borrowed for the call.
	 */
	void		(*message)(void *arg, enum lh_recorder_say level, const char *text);
	/* Every lh_recorder_opts.status_ns, for a status line. */
	void		(*status)(void *arg, const struct lh_recorder *rec, uint64_t now);
	/*
	 * wait() said the event source is ready. Return: why the run ends ("SIGINT",
	 * "command"; must outlive the report), or NULL to go on.
	 */
	const char	*(*event)(void *arg);
};

struct lh_recorder_opts {
	unsigned int	tracers;	/* 1 << t: armed in turn; 0 = none (IRQ statistics only) */
	unsigned int	wanted;		/* 1 << t: what the run is to measure (--tracer); any of
					 * these, or of the gated ones, not measured is said */
	uint64_t	threshold_ns;	/* tracing_thresh; 0 = running maxima */
	uint64_t	slice_ns;	/* > 0 */
	uint64_t	duration_ns;	/* 0 = until an event ends the run */
	uint64_t	checkpoint_ns;	/* > 0 */
	uint64_t	status_ns;	/* 0 = no hooks->status */
	struct lh_irqstat *irqstat;	/* fed by ops->irq_read(), sorted at each update
					 * (borrowed); NULL: no IRQ statistics */
	const struct lh_gate *gate;	/* copied */
	struct lh_rules	*rules;		/* borrowed for the recorder's lifetime; NULL: none */
	size_t		keep;		/* records kept in full (lh_report_opts.keep) */
	const char	*board;		/* lh_report_opts.board (borrowed) */
	struct lh_output *out;		/* borrowed: checkpoints, raw snapshots */
	unsigned int	hist_kinds;	/* 1 << enum lh_hist_kind: histograms counted in the
					 * kernel, read at every checkpoint and at the end */
	const char	*hist_why_not[LH_HIST_NR];	/* the others asked: why (copied),
							 * said in the report's warnings */
	const char	*metrics;	/* Prometheus file rewritten at start and at every
					 * checkpoint (lh_recorder_write_metrics()); NULL: none */
	/* The run's description; the recorder fills the times and counters (copied). */
	const struct lh_run_info *info;
};

/* How often the IRQ events are read, at the least and at the most. */
#define LH_RECORDER_IRQ_MIN	(50 * 1000 * 1000ULL)
#define LH_RECORDER_IRQ_MAX	(1000 * 1000 * 1000ULL)
/* How often an armed sampling tracer's events are read. */
#define LH_RECORDER_SAMPLE_EVERY (100 * 1000 * 1000ULL)
/* Without a threshold, a notified section is read this long after the first notification. */
#define LH_RECORDER_TAKE_DELAY	(20 * 1000 * 1000ULL)
/* lh_recorder_settle(): this long without a section, at most LH_RECORDER_SETTLE_MAX. */
#define LH_RECORDER_SETTLE_QUIET (100 * 1000 * 1000ULL)
#define LH_RECORDER_SETTLE_MAX	(2 * 1000 * 1000 * 1000ULL)

/* One tracer's share of the run. */
struct lh_recorder_tracer {
	uint64_t	armed_ns;	/* armed so far */
	/*
	 * Of that, blind: reading snapshots with tracing paused (ops->paused_ns()), the reads
	 * at a slice's end included. A section that ends then is not recorded at all.
	 */
	uint64_t	blind_ns;
	uint64_t	max_us;		/* the longest section captured: its running maximum */
	unsigned long	arms;		/* times armed (slices begun) */
	unsigned long	notifications;	/* sections the kernel notified while it was armed */
	unsigned long	captures;	/* sections read and found in their snapshot */
};

/* The run so far (lh_recorder_stats()). */
struct lh_recorder_stats {
	uint64_t	started;	/* ops->now() when the run started */
	enum lh_tracer	armed;		/* LH_TRACER_UNKNOWN when none */
	unsigned long	captures;
	unsigned long	notifications;
	unsigned long	lost;		/* sum over tracers of notifications - captures */
	unsigned long	stale;		/* reads that found nothing new */
	unsigned long	read_errors;
	unsigned long	cut;		/* captures whose body is cut: an error (see take()) */
	unsigned long	torn;		/* ops->torn() after the last read */
	unsigned long	checkpoints;	/* report.json rewrites tried */
	struct lh_recorder_tracer tracer[LH_TRACER_NR];
};

/* Why lh_recorder_run() returned. */
enum lh_recorder_end {
	LH_RECORDER_END_DURATION,	/* --duration passed */
	LH_RECORDER_END_EVENT,		/* hooks->event() gave a reason */
	LH_RECORDER_END_ERROR,		/* said with hooks->message(); the report says it too */
};

/*
 * Return: a recorder over ops/ctx (both borrowed for its lifetime), with an empty report;
 * free with lh_recorder_free(). o and hooks (may be NULL) are copied.
 */
struct lh_recorder *lh_recorder_alloc(const struct lh_recorder_ops *ops, void *ctx,
				      const struct lh_recorder_opts *o,
				      const struct lh_recorder_hooks *hooks);
/* Frees rec and its report. NULL-safe. */
void lh_recorder_free(struct lh_recorder *rec);

/*
 * Starts the clock of the run and arms the first tracer (none with opts.tracers 0).
 * Return: 0, or -1 (said with hooks->message()).
 */
int lh_recorder_start(struct lh_recorder *rec);

/*
 * Before a workload starts: a tracer just armed records a flurry of small maxima, and each
 * read pauses tracing, so the workload's first section could fall into a pause. Waits until
 * no section was notified for LH_RECORDER_SETTLE_QUIET (LH_RECORDER_SETTLE_MAX at most),
 * capturing what comes. An event that ends the run ends the wait too (lh_recorder_ended()).
 * Return: 0, or -1 (said).
 */
int lh_recorder_settle(struct lh_recorder *rec);

/* Return: whether the run has ended (an event during lh_recorder_settle(), or run's end). */
bool lh_recorder_ended(const struct lh_recorder *rec);

/*
 * Runs until the duration passes, an event ends it or an error; on an error the report's
 * verdict is "error" with the reason. Returns at once when the run has ended already.
 * Return: why it ended.
 */
enum lh_recorder_end lh_recorder_run(struct lh_recorder *rec);

/*
 * Ends the capture: with drain, what was notified and buffered up to now is taken first
 * (the last snapshot, the IRQ events); the histograms are read a last time, drain or not;
 * then the armed time stops counting. Call it before the tracers and histograms are given
 * back; again is harmless.
 */
void lh_recorder_stop(struct lh_recorder *rec, bool drain);

/*
 * The report as the run ends: counters, notes, and each tracer of opts.wanted or with a
 * --max budget that measured nothing (not available, never armed, or armed less than one
 * slice without a capture), said in the report; when such a tracer has a budget the
 * verdict is "error". Evaluates the gate. Call after lh_recorder_stop(), before writing.
 * Return: true when the gates passed (lh_recorder_failed() says whether the run failed).
 */
bool lh_recorder_finish(struct lh_recorder *rec);

/* Return: whether the run failed (an error ended it, or a budget could not be judged). */
bool lh_recorder_failed(const struct lh_recorder *rec);

/*
 * Marks the run failed for a reason of the caller's (a workload that failed, tracefs not
 * restored): the report's verdict is "error"; the first reason is the one it names.
 */
void lh_recorder_fail(struct lh_recorder *rec, const char *why);

/*
 * Writes the report in format f to name in the output directory, atomically
 * (lh_output_replace()). Return: 0, or -1 with the reason in diag.
 */
int lh_recorder_write(struct lh_recorder *rec, const char *name, enum lh_format f,
		      struct lh_diag *diag);

/*
 * Writes the Prometheus metrics of the run (metrics.h) to opts.metrics through
 * lh_lockfile_write_path(), atomically; after lh_recorder_stop() they are the final ones
 * (lathound_running 0). Return: 0 (also without opts.metrics), or -1 with the reason in diag.
 */
int lh_recorder_write_metrics(struct lh_recorder *rec, struct lh_diag *diag);

/* Return: the report (borrowed, freed with rec). */
struct lh_report *lh_recorder_report(const struct lh_recorder *rec);
/* Return: the run's description (borrowed; command_status is the caller's to set). */
struct lh_run_info *lh_recorder_info(struct lh_recorder *rec);
/* Return: the counters so far (borrowed). */
const struct lh_recorder_stats *lh_recorder_stats(const struct lh_recorder *rec);
/* Return: the histograms as last read (borrowed, freed with rec). */
const struct lh_hist_report *lh_recorder_hist(const struct lh_recorder *rec);

/*
 * ---- The real kernel: tracefs, through session.c, capture.c and irqtrace.c ----
 */

struct lh_recorder_tracefs_opts {
	const char	*tracefs;	/* tracefs directory; NULL = found (or mounted) */
	struct lh_session_opts session;	/* .no_tracer: IRQ statistics only */
	bool		poll;		/* poll tracing_max_latency instead of inotify */
	struct lh_irqstat *irqstat;	/* fed by the IRQ instance (borrowed) */
	int		event_fd;	/* readable: LH_RECORDER_WAKE_EVENT; -1 = none */
	/* .kinds: the histograms to count (0: none); those the kernel lacks are left out */
	struct lh_hist_opts hist;
	bool		hist_required;	/* a kind asked that cannot be counted is an error */
	bool		hist_default;	/* the default kinds: those the kernel lacks are not asked */
	/* timerlat, osnoise, hwlat: their instance (.threshold_ns is the session's) */
	struct lh_noisetrace_opts noise;
};

struct lh_recorder_tracefs;

/* The ops over a struct lh_recorder_tracefs * as ctx. */
extern const struct lh_recorder_ops lh_recorder_tracefs_ops;

/*
 * Borrows tracefs: the session (lock, saved state, common knobs; see lh_session_create()),
 * lathound's IRQ instance (a run with tracers goes on without it, with a warning), the
 * histograms (hist.c; without hist_required, a run goes on without those it cannot count)
 * and the watch on tracing_max_latency. Warnings go to diag (tracers the kernel lacks, a
 * leftover instance removed, no IRQ statistics, polling instead of inotify).
 * Return: 0 and *t (give it back with lh_recorder_tracefs_destroy()), or -1 with the
 * reason in diag and tracefs as it was.
 */
int lh_recorder_tracefs_create(struct lh_recorder_tracefs **t,
			       const struct lh_recorder_tracefs_opts *o, struct lh_diag *diag);
/*
 * Gives everything back: the watch, the IRQ instance, then every knob of the session.
 * NULL-safe. Return: 0, or -1 when something could not be restored (diag says what).
 */
int lh_recorder_tracefs_destroy(struct lh_recorder_tracefs *t, struct lh_diag *diag);

/* Return: the tracers this kernel has of those asked (1 << enum lh_tracer). */
unsigned int lh_recorder_tracefs_tracers(const struct lh_recorder_tracefs *t);
/* Return: whether the IRQ statistics are collected. */
bool lh_recorder_tracefs_irq_stats(const struct lh_recorder_tracefs *t);
/* Return: "inotify" or "poll" (static), NULL when no tracer is watched. */
const char *lh_recorder_tracefs_method(const struct lh_recorder_tracefs *t);
/*
 * Return: the histograms counted (1 << enum lh_hist_kind); why_not[k] (borrowed from t, or
 * static) says why for each kind asked but not counted, NULL for the others.
 */
unsigned int lh_recorder_tracefs_hist(const struct lh_recorder_tracefs *t,
				      const char *why_not[LH_HIST_NR]);

#endif /* LH_RECORDER_H */
