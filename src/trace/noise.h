/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The breakdown of a timerlat or osnoise spike into its parts, from the kernel's events in
 * the order one CPU's ring buffer gives them: the timerlat samples (IRQ and thread context of
 * one timer, paired by their sequence number), the osnoise noise events (irq, softirq, nmi,
 * thread: each with its start and duration), the stack print_stack adds after a thread
 * sample, and osnoise's per-period summaries. Pure: events in, spikes out through a
 * callback; no I/O, no clock (timestamps are the trace clock's, in ns).
 *
 * A timer's latency window runs from its expiry (the IRQ sample's time minus its latency)
 * to the thread sample. Every noise event that overlaps the window is one of its parts, with
 * how much of the window it covers. The blocking task is the one the IRQ sample interrupted
 * (its common_pid, as rtla names it), named by its own thread noise event; the culprit, the
 * task charged with the spike, is the thread whose noise covers most of the window (a task
 * that woke with the timer on an idle CPU and ran first blocks the timer's thread as surely
 * as one the timer interrupted), else the blocking task. Parts are found by time, not by
 * arrival order: an event lost or never emitted leaves its share unexplained, and a task
 * without a noise event in the window keeps its pid but no name. Nothing is guessed.
 *
 * Each CPU keeps the last LH_NOISE_RECENT noise events (bounded memory); each sample is
 * counted in a histogram per CPU and context (histogram.h's one scheme).
 */
#ifndef LH_NOISE_H
#define LH_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "util/histogram.h"

#define LH_NOISE_NAME	32	/* an irq's desc, a softirq's or a task's name, NUL included */
#define LH_NOISE_RECENT	512	/* noise events kept per CPU to explain the next sample
				 * (an osnoise period is 1 s: a few hundred events) */
/* How much later than its emission a noise event may say it ended (clock granularity). */
#define LH_NOISE_SLACK_NS	(10 * 1000ULL)
#define LH_NOISE_PARTS	LH_SPIKE_PARTS	/* parts kept per spike, longest first; the rest summed */
#define LH_NOISE_FRAMES	32	/* stack frames kept */
#define LH_NOISE_FRAME	96	/* a frame's name, NUL included */
#define LH_NOISE_SECTIONS 16	/* irqs-off and preempt-off sections kept per CPU */

/* The kinds a record's spike names (record.h's), in that order. */
enum lh_noise_kind {
	LH_NOISE_IRQ		= LH_SPIKE_IRQ,
	LH_NOISE_SOFTIRQ	= LH_SPIKE_SOFTIRQ,
	LH_NOISE_NMI		= LH_SPIKE_NMI,
	LH_NOISE_THREAD		= LH_SPIKE_THREAD,
	LH_NOISE_NR		= LH_SPIKE_KIND_NR,
};

/* Return: "irq", "softirq", "nmi", "thread" (static). */
const char *lh_noise_kind_name(enum lh_noise_kind k);
/* Return: the kernel's name of softirq vector v ("TIMER", "NET_RX"...), NULL when unknown. */
const char *lh_noise_softirq_name(int v);

/* One osnoise:*_noise event. */
struct lh_noise_event {
	enum lh_noise_kind	kind;
	uint64_t		start_ns;	/* when the noise began */
	uint64_t		duration_ns;	/* as the kernel measured it */
	int			vector;		/* irq or softirq vector; -1 */
	int			pid;		/* a thread's pid; -1 */
	char			name[LH_NOISE_NAME];	/* irq desc, softirq, comm; "" unknown */
};

/* A noise event that overlapped a spike's window. */
struct lh_noise_part {
	struct lh_noise_event	ev;
	int64_t			offset_ns;	/* its start from the timer's expiry */
	uint64_t		overlap_ns;	/* how much of the window it covers */
	bool			timer_irq;	/* the timer's own interrupt */
	bool			blocking;	/* the blocking task's own thread noise */
};

enum lh_noise_tracer { LH_NOISE_TIMERLAT, LH_NOISE_OSNOISE, LH_NOISE_HWLAT };

/*
 * A spike. For timerlat: the window is [expiry, thread sample] (the IRQ sample's time
 * without a thread sample); for osnoise: the period [end - runtime, end] whose largest
 * single noise was max_sample.
 */
struct lh_noise_spike {
	enum lh_noise_tracer	tracer;
	int			cpu;
	uint64_t		seqnum;		/* timerlat's; 0 for osnoise */
	uint64_t		start_ns;	/* the window: timer expiry, period start */
	uint64_t		end_ns;
	uint64_t		latency_ns;	/* what is judged: thread latency (IRQ latency
						 * when the thread sample is missing); osnoise:
						 * max_sample */
	bool			has_irq;	/* timerlat: the IRQ sample was seen */
	uint64_t		irq_latency_ns;
	bool			has_thread;
	uint64_t		thread_latency_ns;
	uint64_t		noise_ns;	/* osnoise: the period's noise */
	uint64_t		runtime_ns;	/* osnoise: the period's runtime */

	int			blocking_pid;	/* timerlat: the task the IRQ sample interrupted;
						 * -1: unknown */
	char			blocking_comm[LH_NOISE_NAME];	/* "": unknown */
	uint64_t		blocking_ns;	/* its thread noise in the window */

	int			culprit_pid;	/* the task charged with the spike; -1: unknown */
	char			culprit_comm[LH_NOISE_NAME];	/* "": unknown */
	uint64_t		culprit_ns;	/* its thread noise in the window */

	struct lh_noise_part	parts[LH_NOISE_PARTS];	/* longest overlap first */
	size_t			nr_parts;
	unsigned int		more_parts;	/* beyond LH_NOISE_PARTS */
	uint64_t		more_ns;	/* their overlap */
	uint64_t		explained_ns;	/* the parts' overlap, at most latency_ns */

	/* timerlat: the watched section that overlapped the window most (caller: below) */
	struct lh_spike_section	section;
	char			section_caller[LH_NOISE_FRAME];	/* "": unknown */

	char			frames[LH_NOISE_FRAMES][LH_NOISE_FRAME];	/* print_stack */
	size_t			nr_frames;
};

/* Return: the share of s's latency that part p explains, in per mille (lh_spike_permille()). */
unsigned int lh_noise_share(const struct lh_noise_spike *s, const struct lh_noise_part *p);

/* Called for each spike; s is borrowed for the call. Return: 0 (ignored otherwise). */
typedef int (*lh_noise_spike_fn)(const struct lh_noise_spike *s, void *arg);

struct lh_noise;

/*
 * Return: a breakdown for CPUs [0, nr_cpus) (free with lh_noise_free()). A spike is a
 * sample longer than threshold_ns, or (threshold 0) longer than every one before it on any
 * CPU, and is handed to fn.
 */
struct lh_noise *lh_noise_alloc(int nr_cpus, uint64_t threshold_ns, lh_noise_spike_fn fn,
				void *arg);
void lh_noise_free(struct lh_noise *n);

/* Sets the running maximum (threshold 0) a spike must beat, e.g. across slices. */
void lh_noise_set_max(struct lh_noise *n, uint64_t max_ns);
/* Return: the longest sample judged so far. */
uint64_t lh_noise_max(const struct lh_noise *n);

/* An osnoise:*_noise event at ts on cpu. Events of a CPU out of range are counted, not kept. */
void lh_noise_event(struct lh_noise *n, int cpu, uint64_t ts, const struct lh_noise_event *ev);
/*
 * A timerlat sample (ftrace:timerlat): its sequence number, context (thread: false for the
 * IRQ), latency, and the pid it interrupted (the IRQ sample's common_pid; -1 unknown).
 */
void lh_noise_timerlat(struct lh_noise *n, int cpu, uint64_t ts, uint64_t seqnum, bool thread,
		       uint64_t latency_ns, int pid);
/*
 * The stack print_stack printed after a thread sample (innermost first): attached to the
 * sample just before it on that CPU, dropped otherwise. The frames of the measurement itself
 * (timerlat_irq and the timer interrupt's way to it) are left out: what is kept is what ran
 * when the timer fired.
 */
void lh_noise_stack(struct lh_noise *n, int cpu, const char *const *frames, size_t nr);
/*
 * An osnoise period summary (ftrace:osnoise) at ts: runtime, noise, longest single noise, in
 * ns (the kernel's entry has µs), and the hardware noise it saw (hw_count: noise with no
 * interrupt, NMI or thread to explain it; the kernel counts it but times it only in noise).
 */
void lh_noise_osnoise(struct lh_noise *n, int cpu, uint64_t ts, uint64_t runtime_ns,
		      uint64_t noise_ns, uint64_t max_sample_ns, uint64_t hw_count);
/* An hwlat sample (ftrace:hwlat) at ts: the longer of its inner and outer latency. */
void lh_noise_hwlat(struct lh_noise *n, int cpu, uint64_t ts, uint64_t ns);
/*
 * From now on the sections of the tracers in watched (1u << LH_TRACER_IRQSOFF, PREEMPTOFF)
 * of min_ns and longer come through lh_noise_section(): each timerlat spike says the one
 * that overlapped its window most, or that none did. A CPU's spikes say nothing of sections
 * until its first event after this call (or after a loss) shows its events arrive.
 */
void lh_noise_watch_sections(struct lh_noise *n, unsigned int watched, uint64_t min_ns);
/*
 * An irqs-off or preempt-off section (tracer) that ended at ts on cpu after duration_ns,
 * begun at caller ("" unknown). Sections shorter than the watched minimum are left out.
 */
void lh_noise_section(struct lh_noise *n, int cpu, uint64_t ts, enum lh_tracer tracer,
		      uint64_t duration_ns, const char *caller);
/*
 * The ring buffer of cpu lost events: its pending sample is judged with what was seen, and
 * no sample after the loss is paired with one before it.
 */
void lh_noise_lost(struct lh_noise *n, int cpu);
/* Judges every pending sample (the end of a read, of a slice, of the run). */
void lh_noise_flush(struct lh_noise *n);

/* The samples counted: timerlat per CPU and context, osnoise max_sample, hwlat per CPU. */
enum lh_noise_hist { LH_NOISE_HIST_IRQ, LH_NOISE_HIST_THREAD, LH_NOISE_HIST_OSNOISE,
		     LH_NOISE_HIST_HWLAT, LH_NOISE_HIST_NR };
/* Return: "timerlat_irq", "timerlat_thread", "osnoise", "hwlat" (static). */
const char *lh_noise_hist_name(enum lh_noise_hist h);
/* Return: the histogram of h on cpu (borrowed), NULL when cpu is out of range. */
const struct lh_histogram *lh_noise_histogram(const struct lh_noise *n, int cpu,
					      enum lh_noise_hist h);
/* Return: the number of CPUs. */
int lh_noise_nr_cpus(const struct lh_noise *n);

/*
 * The CPUs osnoise runs on, as the kernel's osnoise/cpus lists them ("0-1,3"; a newline may
 * end it): the CPUs whose availability must be measured. CPUs beyond the breakdown's are left
 * out. Return: 0, or -1 (the set unchanged) when list is not a CPU list.
 */
int lh_noise_set_cpus(struct lh_noise *n, const char *list);
/* Return: whether cpu is in the set lh_noise_set_cpus() gave (all CPUs until it is called). */
bool lh_noise_cpu_expected(const struct lh_noise *n, int cpu);

/* What the breakdown could not use. */
struct lh_noise_stats {
	uint64_t	samples;	/* timerlat samples and osnoise periods read */
	uint64_t	unpaired;	/* timerlat samples without their other half */
	uint64_t	stray_stacks;	/* stacks without a thread sample before them */
	uint64_t	implausible;	/* noise events left out: ending after they were
					 * emitted, or begun before timerlat's thread last
					 * ran on their CPU (nested interrupts, 6.1) */
	uint64_t	bad_cpu;	/* events of a CPU out of range */
	uint64_t	runtime_ns;	/* osnoise: runtime over all CPUs */
	uint64_t	noise_ns;	/* osnoise: noise over all CPUs */
};
/* Return: the counters (borrowed). */
const struct lh_noise_stats *lh_noise_stats(const struct lh_noise *n);
/* Return: osnoise's runtime and noise on cpu so far (0 when none). */
void lh_noise_cpu_time(const struct lh_noise *n, int cpu, uint64_t *runtime_ns,
		       uint64_t *noise_ns);
/* Return: osnoise's hardware noise count (hw_count) on cpu so far (0 when none). */
uint64_t lh_noise_cpu_hw(const struct lh_noise *n, int cpu);

/*
 * Fills r (lh_record_reset() first) with spike s, so that rules, gates and reports take it
 * like any section: tracer timerlat, osnoise or hwlat, latency in µs (rounded up), the CPU, the
 * culprit as the task, the
 * noise parts as the IRQs that ran inside (irq noise by its desc; "softirq:NAME", "nmi",
 * "thread:COMM" for the others), the longest part as the start site and print_stack's frames
 * as the stack; and the whole breakdown as r->spike (latencies, blocking task, culprit, each
 * part with its kind and times). Text from the trace is escaped (lh_record_strndup()).
 */
void lh_noise_spike_record(const struct lh_noise_spike *s, struct lh_record *r);

#endif /* LH_NOISE_H */
