/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Latency histograms counted in the kernel: every irqs-off section, every preempt-off
 * section and every wakeup of a real-time task, per CPU, with synthetic events and hist
 * triggers (doc/histograms.md has the design and how it was validated).
 *
 * Two halves:
 *  - a pure core: lh_hist_parse() reads the text of a 'hist' file into bins, and
 *    lh_hist_histogram() turns a CPU's bins (or all) into the reports' lh_histogram, whose
 *    helpers (histogram.h) give count, mean and percentiles. No I/O.
 *  - the kernel side: lh_hist_create() defines lathound's synthetic events (global,
 *    named lathound_<pid>_<kind>) and puts every trigger in lathound's own instance,
 *    "lathound-hist-<pid>"; lh_hist_read() reads a kind's histograms; lh_hist_destroy()
 *    removes all of it. A run killed by SIGKILL leaves them under those names:
 *    lh_hist_remove_stale() removes the leftovers of lathounds that no longer run.
 * No printing: problems go to the caller's lh_diag.
 */
#ifndef LH_HIST_H
#define LH_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/record.h"
#include "util/histogram.h"
#include "util/util.h"

/* Instance names are this prefix and the pid of the lathound that created them. */
#define LH_HIST_PREFIX		"lathound-hist-"
/* Synthetic events are named LH_HIST_SYNTH_PREFIX<pid>_<kind name>. */
#define LH_HIST_SYNTH_PREFIX	"lathound_"

enum lh_hist_kind {
	LH_HIST_IRQSOFF,	/* preemptirq:irq_disable -> irq_enable */
	LH_HIST_PREEMPTOFF,	/* preemptirq:preempt_disable -> preempt_enable (or idle entry) */
	LH_HIST_WAKEUP,		/* sched:sched_waking of a real-time task -> its sched_switch */
	LH_HIST_NR
};

/*
 * What 'record' counts without --hist (doc/histograms.md, "In lathound record"): the wakeup
 * histogram, which costs nothing measurable. The irqs-off one costs ~5 us of CPU per
 * irqs-off section, of which a syscall-heavy workload makes hundreds of thousands a second;
 * with the preempt-off one on, a 'record -T' run captured 5 of 20 sections over the
 * threshold instead of 20: both opt-in.
 */
#define LH_HIST_DEFAULT		(1u << LH_HIST_WAKEUP)

/* Return: "irqsoff", "preemptoff", "wakeup" (static). */
const char *lh_hist_kind_name(enum lh_hist_kind k);

/* Return: the events a kind is counted between, "preemptirq:irq_disable -> ..." (static). */
const char *lh_hist_kind_events(enum lh_hist_kind k);

/*
 * Writes the names of kinds, comma-separated ("none" when 0), into buf.
 * Return: buf.
 */
char *lh_hist_kinds_format(unsigned int kinds, char *buf, size_t len);

/*
 * Parses a list of kinds: names separated by commas, "all" or "none".
 * Return: 0 and *kinds (1 << enum lh_hist_kind), or -1 with *err a static message.
 */
int lh_hist_parse_kinds(const char *arg, unsigned int *kinds, const char **err);

/* One bucket of one CPU: values in [lo_ns, hi_ns). */
struct lh_hist_bin {
	int		cpu;
	uint64_t	lo_ns;
	uint64_t	hi_ns;
	uint64_t	count;
	uint64_t	sum_ns;		/* sum of the values counted: exact means */
};

/* The callers a report shows per kind: those with the longest sections. */
#define LH_HIST_TOP_CALLERS	10

/*
 * Where the sections of an irqsoff/preemptoff kind began: one caller (the preemptirq
 * events' caller_offs, an offset from _stext) with its count and longest section.
 */
struct lh_hist_caller {
	int32_t		offs;
	uint64_t	count;
	uint64_t	max_ns;
	char		*symbol;	/* lh_ksyms_name() of offs (lh_hist_read()), or NULL */
};

/*
 * One source of osnoise's noise on one CPU, from a table keyed by the CPU and its source
 * (osnoise:irq_noise by desc, softirq_noise by vector, thread_noise by comm, nmi_noise by
 * the CPU alone), its values hitcount and the durations' sum.
 */
struct lh_hist_source {
	int			cpu;
	enum lh_spike_kind	kind;		/* from the key: desc, vector, comm, none */
	int			vector;		/* softirq's; -1 otherwise */
	char			name[32];	/* desc or comm, blanks trimmed; "" otherwise */
	uint64_t		count;
	uint64_t		sum_ns;
};

/* What a kind's histograms held when read: bins of every tier, and what they lost. */
struct lh_hist_data {
	struct lh_hist_bin	*bins;
	size_t			nr;
	size_t			alloc;
	uint64_t		hits;		/* sections counted ('Hits' of every tier) */
	uint64_t		dropped;	/* sections the kernel could not count ('Dropped') */
	unsigned int		tables;		/* hist tables parsed */
	struct lh_hist_caller	*callers;	/* the table keyed by caller, if any */
	size_t			nr_callers;
	size_t			alloc_callers;
	unsigned int		caller_tables;	/* of those tables parsed */
	const char		*callers_note;	/* why symbols are offsets (static), or NULL */
	struct lh_hist_source	*sources;	/* the noise sources' tables, if any */
	size_t			nr_sources;
	size_t			alloc_sources;
	unsigned int		source_tables;	/* of those tables parsed */
};

/* Frees the bins; d is zeroed, ready for reuse. */
void lh_hist_data_release(struct lh_hist_data *d);

/*
 * Parses the text of a 'hist' file (one or more tables, as the kernel prints them) whose
 * keys are common_cpu and a latency in ns (plain, .buckets=N or .log2), with the values
 * hitcount and the latency's sum, and appends its bins to d (merging equal ones). A table
 * whose trigger info says "hist:keys=caller" is the callers' one ("{ caller: N } hitcount: N"
 * then "max: N" of its onmax()): appended to d->callers. A table keyed by the CPU alone or by
 * the CPU and desc, vector or comm is a noise sources' one (osnoise:*_noise): appended to
 * d->sources, its totals to source_tables, hits and dropped. name is used in messages.
 * Return: 0, or -1 with "cannot parse histogram 'NAME': line N: ..." in diag (what was
 * parsed before stays in d).
 */
int lh_hist_parse(const char *buf, size_t len, const char *name, struct lh_hist_data *d,
		  struct lh_diag *diag);

/*
 * Narrows bins to the tier that counted them: a log2 bucket of the last tier holds values
 * from that tier's lower bound only, e.g. (2^23, 2^24] ns becomes [10 ms, 2^24].
 */
void lh_hist_clip(struct lh_hist_data *d);

/*
 * The buckets of one CPU (cpu >= 0) or of every CPU (cpu < 0, not merged) that counted
 * something, by ascending latency. Return: their number, and *bins (the caller frees it).
 */
size_t lh_hist_cpu_bins(const struct lh_hist_data *d, int cpu, struct lh_hist_bin **bins);

/*
 * Keeps the n callers of d with the longest sections (then the most), longest first.
 */
void lh_hist_top_callers(struct lh_hist_data *d, size_t n);

/*
 * Kernel text symbols from a kallsyms file ("ADDRESS TYPE NAME [MODULE]", the format of
 * /proc/kallsyms), to name the preemptirq events' caller_offs.
 */
struct lh_ksyms;

/*
 * Reads the text symbols (types t and T) of path, names whole and made inert
 * (lh_record_escape(): a module names its own). Return: the table (lh_ksyms_free()), or
 * NULL with *why a static reason: cannot be read, no _stext, or addresses hidden (all zero,
 * kptr_restrict).
 */
struct lh_ksyms *lh_ksyms_load(const char *path, const char **why);

void lh_ksyms_free(struct lh_ksyms *ks);

/*
 * Names the address _stext + offs as the kernel's %pS does: "name+0xOFF/0xSIZE" (SIZE up
 * to the next symbol; "name+0xOFF" past the last one) and " [module]" for a module's. With
 * ks NULL, or offs before the first symbol: "_stext+0xOFF" (or "_stext-0xOFF").
 * Return: the name (the caller frees it).
 */
char *lh_ksyms_name(const struct lh_ksyms *ks, int32_t offs);

/* Return: the highest CPU number in d plus one (0 when empty). */
int lh_hist_nr_cpus(const struct lh_hist_data *d);

/*
 * Makes h (released first) the histogram of one CPU (cpu >= 0) or of all (cpu < 0) as the
 * reports carry it: the kernel's buckets as they are, the exact sum, the extremes as the
 * outer bounds of the lowest and highest bucket, and (all CPUs only) the sections dropped.
 * Return: 0, or -1 when two buckets overlap (not bins of one hist.c kind).
 */
int lh_hist_histogram(const struct lh_hist_data *d, int cpu, struct lh_histogram *h);

/*
 * A run's histograms as its report shows them: what each kind held when last read, or why
 * it is not counted. The recorder fills it and gives the report each kind's histograms
 * (lh_report_set_histogram()).
 */
struct lh_hist_report {
	unsigned int		kinds;			/* counted in the kernel */
	struct lh_hist_data	data[LH_HIST_NR];	/* as last read */
	uint64_t		read_ns[LH_HIST_NR];	/* CLOCK_REALTIME of that read; 0: never */
	char			*error[LH_HIST_NR];	/* why the last read failed (data is older) */
	char			*why_not[LH_HIST_NR];	/* a kind not counted: why */
};

/* Frees what r holds; r is zeroed. */
void lh_hist_report_release(struct lh_hist_report *r);

struct lh_hist;

struct lh_hist_opts {
	unsigned int	kinds;		/* 1 << enum lh_hist_kind wanted */
	const char	*kallsyms;	/* names the callers; NULL: /proc/kallsyms */
	const char	*comm;		/* wakeup: only tasks of this comm (NULL: all) */
	int		pid;		/* wakeup: only this pid (0: all) */
};

/*
 * Return: the kinds this kernel can count (1 << enum lh_hist_kind): hist triggers and
 * synthetic events, plus preemptirq events for irqsoff/preemptoff (CONFIG_IRQSOFF_TRACER /
 * CONFIG_PREEMPT_TRACER) and sched events for wakeup. *why, when not NULL, says in a
 * static string what is missing when the answer is 0.
 */
unsigned int lh_hist_supported(const char **why);

/* Return: why this kernel cannot count kind k (static), or NULL when it can. */
const char *lh_hist_unsupported(enum lh_hist_kind k);

/*
 * Creates the instance and, for each kind asked that the kernel supports, the synthetic
 * event, its histograms (one trigger per tier) and then the start and end triggers, the
 * end ones last so that every histogram counts the same sections. tracefs must be mounted.
 * Return: 0 and *h (remove with lh_hist_destroy()), or -1 with the reason in diag (what
 * was created is removed again).
 */
int lh_hist_create(struct lh_hist **h, const struct lh_hist_opts *o, struct lh_diag *diag);

/* Return: the kinds actually counted by h. */
unsigned int lh_hist_kinds(const struct lh_hist *h);
/*
 * Return: the synthetic event that counts kind k (one event per section, its length in
 * "lat", its start site in "caller" as an offset from _stext), NULL when h does not count k.
 */
const char *lh_hist_synth(const struct lh_hist *h, enum lh_hist_kind k);
/* Return: the symbols that name h's start sites (borrowed, h's life), NULL when unread. */
const struct lh_ksyms *lh_hist_ksyms(const struct lh_hist *h);

/*
 * Reads kind k's histograms into d (released first), with its LH_HIST_TOP_CALLERS callers
 * named (lh_ksyms_name(), kallsyms read once by lh_hist_create()). Return: 0, or -1 with the reason in
 * diag.
 */
int lh_hist_read(struct lh_hist *h, enum lh_hist_kind k, struct lh_hist_data *d,
		 struct lh_diag *diag);

/*
 * Removes the triggers (end ones first), the instance and the synthetic events, and frees
 * h. NULL-safe. Return: 0, or -1 when something could not be removed (diag names it).
 */
int lh_hist_destroy(struct lh_hist *h, struct lh_diag *diag);

/*
 * Removes every LH_HIST_PREFIX<pid> instance (its triggers first) and every
 * LH_HIST_SYNTH_PREFIX<pid>_* synthetic event whose lathound no longer runs. Call with
 * the session lock held. Return: objects removed, or -1 when one could not be (diag).
 */
int lh_hist_remove_stale(struct lh_diag *diag);

struct tracefs_instance;
/*
 * Removes every trigger of event sys:ev in inst, as the kernel lists them (each line, less
 * its " [active]" or " [paused]", written back with '!'): a killed run's, before its instance
 * goes. Return: triggers left (those the kernel refused, e.g. one another needs first).
 */
int lh_hist_clear_triggers(struct tracefs_instance *inst, const char *sys, const char *ev);

#endif /* LH_HIST_H */
