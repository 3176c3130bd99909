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

#include "util/util.h"

enum lh_tracer {
	LH_TRACER_UNKNOWN = 0,
	LH_TRACER_IRQSOFF,
	LH_TRACER_PREEMPTOFF,
	LH_TRACER_PREEMPTIRQSOFF,
	LH_TRACER_WAKEUP,
	LH_TRACER_WAKEUP_RT,
	LH_TRACER_WAKEUP_DL,
	LH_TRACER_TIMERLAT,	/* the tracers that sample instead of recording sections */
	LH_TRACER_OSNOISE,
	LH_TRACER_HWLAT,
	LH_TRACER_NR,
};

/* Return: the tracefs name ("irqsoff"...), "unknown" for LH_TRACER_UNKNOWN. Static. */
const char *lh_tracer_name(enum lh_tracer t);
/* Return: the i-th tracer in the order reports list them: the known ones, then the unknown. */
static inline enum lh_tracer lh_tracer_at(int i)
{
	return i + 1 < LH_TRACER_NR ? (enum lh_tracer)(i + 1) : LH_TRACER_UNKNOWN;
}
/*
 * Return: the tracer called name[0..len) in any case ("wakeup_RT" is wakeup_rt, as some
 * kernels print it), or LH_TRACER_UNKNOWN.
 */
enum lh_tracer lh_tracer_from_name(const char *name, size_t len);
/* Return: whether t is one of the wakeup tracers (wakeup, wakeup_rt, wakeup_dl). */
bool lh_tracer_is_wakeup(enum lh_tracer t);
/*
 * Return: whether t samples (timerlat, osnoise, hwlat: events read from lathound's own
 * instance) rather than records a latency snapshot.
 */
bool lh_tracer_is_sampling(enum lh_tracer t);
/* Return: the sampling tracers, as a mask of 1 << enum lh_tracer. */
unsigned int lh_tracer_sampling_mask(void);
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
	const char	*name;	/* NULL: unknown (a saved report's null) */
	unsigned int	count;
	unsigned int	len;	/* strlen(name) (0 for NULL): no writer needs strlen() */
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

/* What kind of noise a part of a spike is (osnoise:*_noise). */
enum lh_spike_kind {
	LH_SPIKE_IRQ,
	LH_SPIKE_SOFTIRQ,
	LH_SPIKE_NMI,
	LH_SPIKE_THREAD,
	LH_SPIKE_KIND_NR,
};

/* Return: "irq", "softirq", "nmi", "thread" (static); "unknown" out of range. */
const char *lh_spike_kind_name(enum lh_spike_kind k);
/* Return: 0 and *k for "irq", "softirq", "nmi" or "thread"; -1 otherwise. */
int lh_spike_kind_parse(const char *name, enum lh_spike_kind *k);

#define LH_SPIKE_PARTS	16	/* parts kept per spike, longest overlap first; the rest summed */
/* No duration a spike states (latency, part, period) is longer: a day is absurd. */
#define LH_SPIKE_MAX_NS	(86400ULL * 1000000000ULL)

/* A noise event that overlapped a spike's window. Durations in ns. */
struct lh_spike_part {
	enum lh_spike_kind	kind;
	const char		*name;		/* irq desc, softirq name, comm; NULL: unknown */
	int			vector;		/* irq or softirq vector; -1 */
	int			pid;		/* a thread's pid; -1 */
	int64_t			offset_ns;	/* its start from the window's start (the timer's
						 * expiry): negative when it began before */
	uint64_t		duration_ns;	/* as the kernel measured it */
	uint64_t		overlap_ns;	/* how much of the window it covers */
};

/* What the section histograms of the same run say of a timerlat spike. */
enum lh_spike_section_state {
	LH_SPIKE_SECTION_NOT_MEASURED,	/* no section histogram ran, or its events were lost */
	LH_SPIKE_SECTION_NONE,		/* none of min_ns or longer overlapped the window */
	LH_SPIKE_SECTION_FOUND,
};

/* Return: "not_measured", "none", "found" (static); "unknown" out of range. */
const char *lh_spike_section_state_name(enum lh_spike_section_state s);
/* Return: 0 and *s for one of the names above; -1 otherwise. */
int lh_spike_section_state_parse(const char *name, enum lh_spike_section_state *s);

/*
 * The irqs-off or preempt-off section that overlapped a timerlat spike's window most, of the
 * sections the kernel's histograms counted in the same run (hist.h) on the spike's CPU.
 */
struct lh_spike_section {
	enum lh_spike_section_state state;
	unsigned int	watched;	/* 1u << LH_TRACER_IRQSOFF, PREEMPTOFF: looked for */
	uint64_t	min_ns;		/* the shortest section looked for */
	enum lh_tracer	tracer;		/* found: LH_TRACER_IRQSOFF or LH_TRACER_PREEMPTOFF */
	const char	*caller;	/* where it began ("name+0xOFF/0xSIZE"); NULL unknown */
	int64_t		offset_ns;	/* its start from the window's start */
	uint64_t	duration_ns;
	uint64_t	overlap_ns;	/* how much of the window it covers */
};

/*
 * A timerlat, osnoise or hwlat spike broken into its parts (noise.h's breakdown), kept in
 * full in the record: no allocation but the names in the record's arena.
 */
struct lh_spike {
	bool			set;		/* a sampling tracer's record */
	uint64_t		latency_ns;	/* what is judged (latency_us, exact) */
	bool			has_irq;	/* timerlat: the IRQ sample was seen */
	uint64_t		irq_latency_ns;
	bool			has_thread;	/* timerlat: the thread sample was seen */
	uint64_t		thread_latency_ns;
	bool			has_period;	/* osnoise: the period's figures */
	uint64_t		noise_ns;
	uint64_t		runtime_ns;
	struct lh_task		blocking;	/* the task the timer interrupted (comm, pid) */
	uint64_t		blocking_ns;	/* its thread noise in the window */
	struct lh_task		culprit;	/* the task charged with the spike (comm, pid) */
	uint64_t		culprit_ns;	/* its thread noise in the window */
	struct lh_spike_part	parts[LH_SPIKE_PARTS];
	size_t			nr_parts;
	unsigned int		more_parts;	/* beyond LH_SPIKE_PARTS */
	uint64_t		more_ns;	/* their overlap */
	uint64_t		explained_ns;	/* what the parts explain, at most latency_ns */
	struct lh_spike_section	section;	/* timerlat: the section behind it */
};

/*
 * Return: ns as a share of a spike's latency_ns, in per mille (rounded down, at most 1000;
 * 0 when the latency is 0): the one way a report states a share.
 */
unsigned int lh_spike_permille(uint64_t ns, uint64_t latency_ns);

/*
 * A stack trace. frames[i] is the function's name alone, what rules match ("shrink_node");
 * offsets[i] is what the trace printed after it, for display ("+0x1dd/0x4b0",
 * "+0x10/0x20 [lhx]", " [lhx]"), or NULL when it printed nothing.
 */
struct lh_stack {
	const char	**frames;	/* innermost first */
	const char	**offsets;	/* parallel to frames */
	size_t		nr;
	size_t		alloc;
};

/* How much of its body a snapshot shows: see lh_record_body(). */
enum lh_body {
	LH_BODY_COMPLETE,	/* every entry the header declares is there */
	LH_BODY_ELIDED,		/* an elision: '[...]', '...', '<snip>', prose between entries */
	LH_BODY_CUT,		/* fewer entries than declared and no elision, the input ended
				   inside it, cut by a cap, or its first entries lost in the
				   kernel's ring buffer (start_lost_us) */
};

struct lh_record {
	enum lh_tracer	tracer;
	const char	*tracer_name;	/* as written in '# tracer:', even when unknown */
	uint64_t	latency_us;
	int		cpu;
	int		nr_cpus;	/* '#P:' */
	const char	*preempt_model;	/* "preempt", "server", "desktop", "preempt_rt"... */
	const char	*kernel;	/* "6.1.192" from 'latency trace v1.1.5 on X' */
	unsigned long	entries;	/* '#4/4': entries shown (0 when not declared) */
	unsigned long	entries_total;
	unsigned long	entries_present;	/* entry lines read ('<stack trace>' + frames: 1) */
	bool		elided;		/* the body has an elision marker or a gap of prose */
	bool		truncated;	/* a cap of lathound's cut it (long line, record size) */
	bool		unended;	/* the input ended inside its body, mid-line */
	/*
	 * The body's first entry is this far into the section (#N/M said the ring buffer lost
	 * M - N entries): the section's first ones were among them. 0: none lost, or not told.
	 */
	uint64_t	start_lost_us;

	struct lh_task	task;		/* the task charged with the section ('| task:') */
	const char	*started_at;	/* the site's name; NULL for wakeup tracers */
	const char	*ended_at;
	const char	*started_at_offset;	/* "+0x1a/0x40" as printed after it, or NULL */
	const char	*ended_at_offset;

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

	struct lh_spike	spike;		/* sampling tracers: the spike's breakdown */

	const char	*source;	/* file name, or "<tracefs>" for live captures */
	unsigned long	line;		/* first line of the snapshot in source */
	uint64_t	captured_ns;	/* CLOCK_REALTIME of a live capture, 0 offline */

	/*
	 * Storage: every string above lives in this arena. Strings from a trace hold no
	 * control byte and only valid UTF-8 (lh_record_escape()), so that any writer can
	 * print them as they are.
	 */
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
/*
 * Makes dst a deep copy of src, reusing dst's storage (no allocation once warm): for
 * records handed between threads. dst and src must differ.
 */
void lh_record_copy(struct lh_record *dst, const struct lh_record *src);

/*
 * Appends a frame to stack i (< LH_MAX_STACKS): its name s[0..len) and what the trace printed
 * after the name, off[0..off_len) (off NULL: nothing), both copied into r's arena as they are
 * (the parser escapes a trace's text first, with lh_record_strndup()).
 */
void lh_record_add_frame_off(struct lh_record *r, size_t stack, const char *s, size_t len,
			     const char *off, size_t off_len);
/* lh_record_add_frame_off() without an offset. */
void lh_record_add_frame(struct lh_record *r, size_t stack, const char *s, size_t len);

/*
 * Copies untrusted text into dst (of size bytes, size > 0): printable ASCII and valid UTF-8
 * as they are, every other byte (control bytes, DEL, C1 controls, invalid or overlong UTF-8,
 * U+FFFE/U+FFFF) as "\xHH". dst is NUL-terminated; the copy stops short rather than cut an
 * escape or a character. lh_record_escape_len() bytes (with the NUL) are always enough.
 * Return: the length written.
 */
size_t lh_record_escape(char *dst, size_t size, const char *s, size_t len);
/* Return: the size lh_record_escape() needs for len bytes at most (4 * len + 1). */
static inline size_t lh_record_escape_len(size_t len)
{
	return 4 * len + 1;
}
/* Return: a copy of untrusted s (a file name) through lh_record_escape() (the caller frees). */
char *lh_record_escape_dup(const char *s);
/* Return: a copy of untrusted s[0..len) in r's arena, through lh_record_escape(). */
const char *lh_record_strndup(struct lh_record *r, const char *s, size_t len);

/* Return: how much of its body r shows (complete, elided, cut). */
enum lh_body lh_record_body(const struct lh_record *r);
/* Return: "complete", "elided" or "cut" (static). */
const char *lh_body_name(enum lh_body b);
/*
 * Return: a new irq slot (zeroed, irq and duration -1, valid until the next
 * lh_record_add_irq()) whose strings the caller sets from r's arena.
 */
struct lh_irq *lh_record_add_irq(struct lh_record *r);
/*
 * Return: a new function slot named name (NUL-terminated at len; NULL, 0: unknown), which
 * lives as long as r (in r's arena, or a constant), count 0. Valid until the next
 * lh_record_add_func().
 */
struct lh_func *lh_record_add_func(struct lh_record *r, const char *name, size_t len);

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
