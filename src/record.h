/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One latency section as a structured record: what the kernel's latency snapshot says
 * about the worst (or latest over-threshold) section, parsed once by parse.c, matched by
 * rules.c, aggregated by report.c.
 */
#ifndef LH_RECORD_H
#define LH_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum lh_tracer {
	LH_TRACER_UNKNOWN = 0,
	LH_TRACER_IRQSOFF,
	LH_TRACER_PREEMPTOFF,
	LH_TRACER_PREEMPTIRQSOFF,
	LH_TRACER_WAKEUP,
	LH_TRACER_WAKEUP_RT,
	LH_TRACER_WAKEUP_DL,
	LH_TRACER_NR,
};

/* Return: the tracefs name ("irqsoff"...), "unknown" for LH_TRACER_UNKNOWN. Static. */
const char *lh_tracer_name(enum lh_tracer t);
/* Return: the tracer called name[0..len), or LH_TRACER_UNKNOWN. */
enum lh_tracer lh_tracer_from_name(const char *name, size_t len);
/* Return: whether t is one of the wakeup tracers (wakeup, wakeup_rt, wakeup_dl). */
bool lh_tracer_is_wakeup(enum lh_tracer t);
/* Return: the kernel option that provides tracer t ("CONFIG_IRQSOFF_TRACER"). Static. */
const char *lh_tracer_config(enum lh_tracer t);

/* A task as the snapshot names it. Unknown numbers are -1, unknown strings NULL. */
struct lh_task {
	const char	*comm;
	int		pid;
	int		uid;
	int		nice;
	int		policy;
	int		rt_prio;
	int		prio;	/* kernel prio from the wakeup '==>' line, else -1 */
	char		state;	/* 'R', 'S', 'D'... from the wakeup lines, else 0 */
};

/* A function that ran inside the section, in first-seen order. */
struct lh_func {
	const char	*name;
	unsigned int	count;
};

/* An interrupt handler that ran inside the section (irq_handler_entry/exit events). */
struct lh_irq {
	int		irq;
	const char	*name;
	double		start_us;	/* snapshot-relative time of the entry event */
	double		duration_us;	/* exit - entry; -1 when no exit was seen */
	const char	*ret;		/* "handled", "unhandled"; NULL when no exit was seen */
};

#define LH_MAX_STACKS 4

struct lh_stack {
	const char	**frames;	/* innermost first */
	size_t		nr;
	size_t		alloc;
};

struct lh_record {
	enum lh_tracer	tracer;
	const char	*tracer_name;	/* as written in '# tracer:', even when unknown */
	uint64_t	latency_us;
	int		cpu;
	int		nr_cpus;	/* '#P:' */
	const char	*preempt_model;	/* "preempt", "server", "desktop", "preempt_rt"... */
	const char	*kernel;	/* "6.1.192" from 'latency trace v1.1.5 on X' */
	unsigned long	entries;	/* '#4/4': entries shown */
	unsigned long	entries_total;

	struct lh_task	task;		/* the task charged with the section ('| task:') */
	const char	*started_at;	/* NULL for wakeup tracers */
	const char	*ended_at;

	/* wakeup tracers: the woken task and the task running when it was woken */
	struct lh_task	woken;
	struct lh_task	waker;
	bool		has_wakeup;

	struct lh_stack	stacks[LH_MAX_STACKS];
	size_t		nr_stacks;

	struct lh_func	*funcs;
	size_t		nr_funcs;
	size_t		alloc_funcs;

	struct lh_irq	*irqs;
	size_t		nr_irqs;
	size_t		alloc_irqs;

	const char	*source;	/* file name, or "<tracefs>" for live captures */
	unsigned long	line;		/* first line of the snapshot in source */
	uint64_t	captured_ns;	/* CLOCK_REALTIME of a live capture, 0 offline */

	/* Storage: every string above lives in this arena. */
	struct lh_arena	arena;
};

/* Return: a zeroed record (numbers set to -1 where unknown); free with lh_record_free(). */
struct lh_record *lh_record_alloc(void);
/* Empties r for reuse, keeping its memory: no allocation once warm. */
void lh_record_reset(struct lh_record *r);
/* Frees r, its arrays and every string in its arena. NULL-safe. */
void lh_record_free(struct lh_record *r);
/* Return: a standalone deep copy of r, compactly allocated; free with lh_record_free(). */
struct lh_record *lh_record_dup(const struct lh_record *r);

/* Appends a frame to stack i (< LH_MAX_STACKS), copying the text into r's arena. */
void lh_record_add_frame(struct lh_record *r, size_t stack, const char *s, size_t len);
/*
 * Return: a new irq slot (zeroed, irq and duration -1, valid until the next
 * lh_record_add_irq()) whose strings the caller sets from r's arena.
 */
struct lh_irq *lh_record_add_irq(struct lh_record *r);
/* Return: a new function slot, count 0 (valid until the next lh_record_add_func()). */
struct lh_func *lh_record_add_func(struct lh_record *r);

/*
 * The frames that name the culprit: of the first stack (for a wakeup tracer, the last one:
 * what ran until the woken task got the CPU), innermost first, after the tracer's and the
 * scheduler's own frames. Fills frames[0..max) with pointers borrowed from r.
 * Return: how many.
 */
size_t lh_record_culprit_frames(const struct lh_record *r, const char **frames, size_t max);

/*
 * The offender's signature, the one definition of "the same offender": tracer, start and end
 * sites, the LH_SIGNATURE_FRAMES innermost culprit frames (lh_record_culprit_frames()) and,
 * for a wakeup, the woken task. Records with equal signatures are one offender group in the
 * report and one "worst of its signature" in the snapshot store.
 */
#define LH_SIGNATURE_FRAMES	3	/* every irqs-off stack ends alike: more says nothing */
#define LH_SIGNATURE_LEN	512	/* text, truncated beyond */

struct lh_signature {
	enum lh_tracer	tracer;
	const char	*started;
	const char	*ended;
	const char	*frames[LH_SIGNATURE_FRAMES];
	size_t		nr_frames;
	bool		has_wakeup;
	const char	*woken;		/* the woken task's comm, when has_wakeup */
};

/* Fills sig with r's signature fields: pointers borrowed from r. */
void lh_record_signature_of(const struct lh_record *r, struct lh_signature *sig);
/* Return: a hash of sig's fields (NULL and "" differ), for in-memory tables only. */
uint64_t lh_signature_hash(const struct lh_signature *sig);
/* Return: whether a and b are the same offender. */
bool lh_signature_equal(const struct lh_signature *a, const struct lh_signature *b);
/*
 * Writes sig as text, e.g. "irqsoff|fake_irq_handler|fake_irq_handler|a<b<c" (a wakeup ends
 * with "|woken"), truncated to len. Return: buf.
 */
char *lh_signature_text(const struct lh_signature *sig, char *buf, size_t len);

/* lh_signature_text() of r's signature. Return: buf. */
char *lh_record_signature(const struct lh_record *r, char *buf, size_t len);
/* Return: lh_signature_hash() of r's signature. */
uint64_t lh_record_signature_hash(const struct lh_record *r);

#endif /* LH_RECORD_H */
