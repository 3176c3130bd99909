/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report's insides, shared by the modules of src/report/ that make, write and read a
 * report: report.c (aggregation), its writers (report-text.c, report-json.c, report-junit.c,
 * report-html.c, and metrics.c for Prometheus), its reader (report-load.c over report-read.c,
 * report-read-sections.c and report-read-records.c), the fold (report-fold.c), through
 * which the reader, diff.c and merge.c add reports read back, and the writers of those two
 * (diff-write.c; merge-write.c, also through merge-priv.h).
 * Not for modules outside src/report/.
 */
#ifndef LH_REPORT_PRIV_H
#define LH_REPORT_PRIV_H

#include "report.h"
#include "util/histogram.h"
#include "util/htab.h"

/*
 * The JSON report's version (its 'report_version'): raised when a reader of the old one
 * could no longer read the new one right. Fields added do not raise it.
 */
#define LH_REPORT_VERSION	1

#define LH_REPORT_MAX_CPUS	8192	/* CPUs with a progression; higher ones are not tracked */

/* Where a tracer's worst section was, copied out of the record (truncated). */
struct lh_report_where {
	bool		set;
	uint64_t	latency_us;
	int		cpu;
	int		pid;
	char		comm[32];
	char		started[128];
	char		ended[128];
	const char	*source;	/* interned */
	unsigned long	line;
	char		irq[64];	/* its longest IRQ handler: "fakeraid (irq 24, 2001us)" */
	char		rule[96];	/* its most severe rule: "raid-irq-held (critical)" */
};

/* One step of a (tracer, CPU) progression of maxima. */
struct lh_report_step {
	int		cpu;
	uint64_t	latency_us;
	uint64_t	at_ns;		/* CLOCK_REALTIME, 0 when unknown */
	const char	*source;	/* interned */
	unsigned long	line;
};

struct lh_report_cpu {
	bool			seen;
	uint64_t		max_us;
	unsigned int		steps;
	uint64_t		count;		/* sections */
	struct lh_report_where	*worst;		/* its worst record; allocated with the first */
	struct lh_histogram	dist;		/* the latencies, in histogram.h's buckets */
};

struct lh_report_tracer {
	uint64_t		count;
	uint64_t		accepted;
	struct lh_report_where	worst;		/* over every record */
	struct lh_report_where	gate;		/* over records not accepted: what --max sees */
	struct lh_report_cpu	*cpus;		/* indexed by cpu + 1 (slot 0: unknown CPU) */
	size_t			nr_cpus;	/* slots allocated, all initialised */
	struct lh_report_step	*steps;
	size_t			nr_steps;
	size_t			alloc_steps;
	uint64_t		steps_dropped;
	struct lh_histogram	hist;		/* the latencies of every record, all CPUs */
};

/* Records grouped by signature (record.h). */
struct lh_report_offender {
	uint64_t		hash;		/* lh_signature_hash(&sig) */
	const char		*signature;	/* lh_signature_text(&sig) */
	struct lh_signature	sig;		/* strings in the report's arena */
	uint64_t		count;
	uint64_t		accepted;
	uint64_t		worst_us;
	int			cpu;		/* of the worst record; -1 unknown */
	int			pid;		/* of the worst record; -1 unknown */
	char			comm[32];	/* of the worst record; "" unknown */
};

struct lh_report_rule {
	uint64_t	hits;
	uint64_t	accepted;	/* hits on records an 'ignore' rule accepted */
	uint64_t	worst_us;
	uint64_t	gate_hits;	/* hits on records not accepted */
	uint64_t	gate_worst_us;
	struct lh_report_where	gate_where;	/* the worst of those */
	uint64_t	unevaluated;	/* records in its scope it could not be evaluated on */
	uint64_t	gate_unevaluated;	/* of those, records not accepted */
};

/* A record kept in full, with its match. */
struct lh_report_kept {
	struct lh_record	*rec;
	unsigned int		prio;		/* 1 + severity of a non-accepted hit, else 0 */
	unsigned long		seq;		/* arrival order */
	size_t			*hits;
	size_t			nr_hits;
	size_t			*unevaluated;	/* rules it could not be evaluated against */
	size_t			nr_unevaluated;
	bool			accepted;
	bool			has_worst;
	enum lh_severity	worst;
	const char		*signature;	/* in rec's arena */
};

struct lh_report {
	struct lh_rules			*rules;
	size_t				nr_rules;
	struct lh_report_opts		opts;
	struct lh_arena			arena;		/* interned strings, offender texts */

	const char			*source;	/* the last record's, in the arena */

	uint64_t			total;
	uint64_t			rule_hit_records;
	uint64_t			accepted_records;
	uint64_t			unevaluated_records;	/* a rule could not be evaluated */
	struct lh_report_tracer		tracers[LH_TRACER_NR];

	struct lh_report_offender	*offenders;
	size_t				nr_offenders;
	size_t				alloc_offenders;
	struct lh_htab			offender_htab;	/* offenders by signature hash */
	uint64_t			other_count;
	uint64_t			other_accepted;
	uint64_t			other_worst_us;

	struct lh_report_rule		*rule_agg;	/* nr_rules slots, all initialised */

	struct lh_report_kept		**heap;		/* min-heap: the first to drop on top */
	size_t				nr_heap;
	size_t				alloc_heap;

	struct lh_parse_stats		parse;
	struct lh_report_input		*inputs;	/* strings in the arena */
	size_t				nr_inputs;
	size_t				alloc_inputs;
	size_t				inputs_unread;	/* with a problem, not accepted */
	size_t				inputs_accepted;	/* with a problem, accepted */
	char				**warnings;
	size_t				nr_warnings;
	size_t				alloc_warnings;
	uint64_t			warnings_total;

	bool				has_run;
	struct lh_run_info		run;

	struct lh_match			match;
	struct lh_diag			own_diag;
	size_t				own_merged_msgs;	/* of own_diag, in warnings */
	uint64_t			own_merged_count;

	uint64_t			created_ns;	/* CLOCK_REALTIME: when analyze began */
	bool				evaluated;
	bool				passed;
	struct lh_verdict		verdict;	/* error: lh_report_set_error() */
	struct lh_gate			gate;

	/* osnoise per CPU (lh_report_set_noise()), by CPU */
	struct lh_report_noise		*noise;
	size_t				nr_noise;
	size_t				alloc_noise;
	/* noise events the kernel could not count by source (lh_report_set_noise_dropped()) */
	uint64_t			noise_dropped;

	/* histograms the kernel counted (lh_report_set_histogram()) */
	struct lh_report_histogram	*hists;
	size_t				nr_hists;
	size_t				alloc_hists;
	struct lh_htab			hist_ids;	/* hists by source, kind, CPU (report-fold.c) */

	/* a report read back from files (report-load.c, report-read*.c) */
	struct lh_rules			*own_rules;	/* its rules, by description; freed with it */
	struct lh_htab			own_rule_ids;	/* own_rules by id (report-fold.c) */
	struct lh_irqstat		*own_irqstat;	/* its IRQ statistics; freed with it */
	uint64_t			duration_ns;	/* its run length; 0: ended - started */
	char				**merged_from;	/* the reports a merge was made of */
	size_t				nr_merged_from;
	size_t				alloc_merged_from;
};

/*
 * Return: cpu's osnoise figures (0 to LH_REPORT_MAX_CPUS - 1), added zeroed in CPU order when
 * not there yet; NULL for a CPU out of range.
 */
struct lh_report_noise *lh_report_noise_slot(struct lh_report *rep, int cpu);
/*
 * The one judge of --min-available (report, record, analyze, merge per host).
 * Return: the verdict's sentence when CPU n is below g's --min-available, else NULL (free it).
 */
char *lh_report_available_violation(const struct lh_gate *g, const struct lh_report_noise *n);
/*
 * Return: why g's --min-available cannot judge the CPUs v[0..n): why (NULL: nothing said) no
 * period was measured at all, no CPU listed, or a CPU listed without a period; NULL when it
 * can, or g has no minimum (free it).
 */
char *lh_report_available_unmeasured(const struct lh_gate *g, const struct lh_report_noise *v,
				     size_t n, const char *why);

/* A histogram the kernel counted: of kind ("irqsoff"...) on cpu (-1: all CPUs). */
struct lh_report_histogram {
	const char		*source;	/* "kernel"; in the report's arena */
	const char		*kind;		/* in the report's arena */
	int			cpu;
	struct lh_histogram	h;
	bool			has_callers;	/* lh_report_set_callers() */
	struct lh_report_caller	*callers;	/* longest first; symbols malloc'd */
	size_t			nr_callers;
	char			*callers_note;	/* why symbols are offsets, or NULL */
	size_t			nr_folded;	/* reports whose histogram lh_report_fold() added */
};

/* Frees the callers of e. */
void lh_report_histogram_clear_callers(struct lh_report_histogram *e);

/*
 * Sets the callers of e to copies of c, longest first, keeping the first keep of them, and
 * note (copied; NULL: none).
 */
void lh_report_histogram_set_callers(struct lh_report_histogram *e,
				     const struct lh_report_caller *c, size_t n, size_t keep,
				     const char *note);

/*
 * Keeps r (borrowed) in full when it ranks among the opts.keep most important records, as
 * lh_report_add() does; seq is its arrival order (earlier wins a tie). For records read back
 * from a saved report: nothing else is counted.
 */
void lh_report_keep(struct lh_report *rep, const struct lh_record *r, const struct lh_match *m,
		    unsigned long seq);
/* Drops the least important records kept until at most keep are. */
void lh_report_trim_kept(struct lh_report *rep, size_t keep);
/*
 * Return: the offender group of signature sig (its strings are copied), created when new;
 * NULL when the groups' bound is reached.
 */
struct lh_report_offender *lh_report_offender(struct lh_report *rep,
					      const struct lh_signature *sig);
/* Frees what tr holds; tr is zeroed, ready for reuse. */
void lh_report_tracer_release(struct lh_report_tracer *tr);
/* Return: the per-CPU slot of cpu in tr (grown as needed), or NULL when cpu is not tracked. */
struct lh_report_cpu *lh_report_cpu_slot(struct lh_report_tracer *tr, int cpu);
/*
 * A CPU as a writer names it: prefix and its number ("CPU3"), or unknown when cpu < 0 (a
 * record without one). Return: buf.
 */
char *lh_report_cpu_name(int cpu, const char *prefix, const char *unknown, char *buf, size_t len);
/* Return: the CPU of slot i of a tracer's cpus (-1: unknown). */
static inline int lh_report_slot_cpu(size_t slot)
{
	return (int)slot - 1;
}
/*
 * Return: whether rep's section histograms count every section: an 'analyze' report, or a
 * 'record' run with a threshold (without one a run sees only each new maximum).
 */
bool lh_report_counts_every_section(const struct lh_report *rep);
/*
 * Return: the kernel rep is of (borrowed): its run's, else (analyze) the one its worst record
 * kept names; NULL when unknown.
 */
const char *lh_report_kernel(const struct lh_report *rep);

/* Return: the run's length in ns (a merge's: the sum of its runs'). */
uint64_t lh_report_run_duration_ns(const struct lh_report *rep);
/*
 * What the histograms of captured sections count, for their captions: "every section in
 * the input", "sections over -T 50us captured", or "each new maximum captured (running
 * maxima): not a distribution". Return: buf.
 */
char *lh_report_sections_caption(const struct lh_report *rep, char *buf, size_t len);

/* "--fail-on critical, --max irqsoff=1ms, --max all=5ms": the gates judged by. Return: buf. */
char *lh_report_gates_text(const struct lh_report *rep, char *buf, size_t len);

/* Return: the kept records, most important first (free the array, not the records). */
struct lh_report_kept **lh_report_kept_sorted(const struct lh_report *rep);
/* Return: indices of the offenders, worst first (free it). */
size_t *lh_report_offenders_sorted(const struct lh_report *rep);
/* Return: what rep measured of tracer t, for lh_gate_judge_max(). */
struct lh_gate_measure lh_report_measure(const struct lh_report *rep, enum lh_tracer t);
/*
 * Return: the violation text for tracer t under its --max budget, or NULL when it passes,
 * has none or cannot be judged (lh_report_evaluate()'s error) (free it).
 */
char *lh_report_max_violation(const struct lh_report *rep, enum lh_tracer t);
/* Return: the violation text for rule i under --fail-on, or NULL when it passes (free it). */
char *lh_report_rule_violation(const struct lh_report *rep, size_t i);
/* A rule of a report, and the records not accepted that it could not be evaluated on. */
struct lh_report_undecided {
	const struct lh_rule	*rule;
	uint64_t		gate_unevaluated;
};
/*
 * Return: why gate g cannot be decided on the rules v[0..n) (in the report's order): a rule
 * it gates could not be evaluated on records it depends on; NULL when none (free it). The
 * error of kind LH_VERDICT_UNDECIDED: a report read back is judged by it again.
 */
char *lh_report_undecided_error(const struct lh_report_undecided *v, size_t n,
				const struct lh_gate *g);
/* Return: lh_report_undecided_error() of rep's rules under its gate, or NULL (free it). */
char *lh_report_unevaluated_error(const struct lh_report *rep);
/* Return: the counters of rule idx, grown to fit (valid until the next call). */
struct lh_report_rule *lh_report_rule_agg(struct lh_report *rep, size_t idx);
/* Return: true when rule i can fail the gate (severity at or above --fail-on, not ignore). */
bool lh_report_rule_gated(const struct lh_report *rep, size_t i);
/* The record's tracer as written ("irqsoff", or the unknown name). Return: static or r's. */
const char *lh_report_tracer_name(const struct lh_record *r);

/*
 * Where w was, for a reader who must find it: "source: f.trace:1\nsection: a -> b\n..."
 * (lines without a trailing newline), with its most severe rule when with_rule. Return: the text (free it).
 */
char *lh_report_where_text(const struct lh_report_where *w, bool with_rule);

/* Return: us in ns, saturating: a latency read from a trace may be absurdly large. */
static inline uint64_t lh_report_us_to_ns(uint64_t us)
{
	return us > UINT64_MAX / 1000 ? UINT64_MAX : us * 1000;
}

/* "2002us", "1.500us": µs from ns, exact, for people. Return: buf. */
char *lh_report_fmt_us(uint64_t ns, char *buf, size_t len);
/*
 * The section behind a timerlat spike in words, for the text and HTML writers ("irqsoff
 * 2000.101us from X, began 3.2us before the expiry, covers 99.1 % of the spike").
 * Return: buf, "" when the run watched no section.
 */
char *lh_report_section_text(const struct lh_spike *sp, char *buf, size_t len);
/*
 * How much of its section a record's body shows, in words, for the text and HTML writers
 * ("cut, 141 of 141 entries shown, from 15 us into the section (the ring buffer lost the
 * first ones)"). Return: buf, "" when the body is complete.
 */
#define LH_REPORT_BODY_TEXT	160
char *lh_report_body_text(const struct lh_record *r, char *buf, size_t len);
/*
 * osnoise's noisiest sources on one CPU in words, for the text writers: the first three
 * named, the rest summed ("thread lhspin 320000.000 us (40), irq local_timer 4100.000 us
 * (4000), 9 more 12.000 us"; "none counted"). Return: buf, "" when its sources were not
 * counted.
 */
#define LH_REPORT_SOURCES_TEXT	(3 * (LH_REPORT_SOURCE_NAME + 64) + 64)
char *lh_report_sources_text(const struct lh_report_noise *n, char *buf, size_t len);

/*
 * The hardware floor on one CPU: hwlat's samples there (gaps in which no kernel code ran:
 * hardware, firmware, a hypervisor) beside the worst record of each software tracer there.
 */
struct lh_report_floor {
	int				cpu;
	const struct lh_histogram	*hwlat;		/* borrowed from the report */
	bool				has_p99;
	uint64_t			p99_ns;		/* upper bound of its p99 */
	struct {
		enum lh_tracer		tracer;
		uint64_t		worst_us;
	}				sw[LH_TRACER_NR];
	size_t				nr_sw;
};
/*
 * The hardware floor per CPU, for the writers: only when rep has both hwlat's samples (the
 * kernel's "hwlat" histograms of a CPU) and a software tracer's records; CPUs ascending.
 * Return: the floors, *n of them, or NULL (*n 0); free it, the histograms are rep's.
 */
struct lh_report_floor *lh_report_floors(const struct lh_report *rep, size_t *n);
/* Return: whether a software worst of worst_us is within floor f (hwlat saw a gap as long). */
static inline bool lh_report_floor_within(const struct lh_report_floor *f, uint64_t worst_us)
{
	return lh_report_us_to_ns(worst_us) <= f->hwlat->max_ns;
}
/*
 * The software worsts of floor f in words, for the text and HTML writers: "timerlat 4100us
 * (600us over it), osnoise 800us (within the floor)", "-" without one. Return: buf.
 */
char *lh_report_floor_text(const struct lh_report_floor *f, char *buf, size_t len);
/*
 * Writes the floor's p99 in µs after prefix (the writer's "at most": "<= ", "&le; ") into buf,
 * or "-" when hwlat's samples give none. Return: buf.
 */
char *lh_report_floor_p99(const struct lh_report_floor *f, const char *prefix, char *buf,
			  size_t len);
#define LH_REPORT_FLOOR_TEXT	(LH_TRACER_NR * 64)
#define LH_REPORT_SECTION_CALLER 256	/* the longest start site a report may name */
#define LH_REPORT_SECTION_TEXT	(LH_REPORT_SECTION_CALLER + 192)
/*
 * "2002", "1.5": µs from ns, exact, as every JSON document writes them (report, merge,
 * diff): an integer when whole, else its decimals without trailing zeros. Return: buf.
 */
char *lh_report_json_us(uint64_t ns, char *buf, size_t len);
/* "2026-11-29T18:00:01Z", or NULL when ns is 0. Return: buf or NULL. */
char *lh_report_iso8601(uint64_t ns, char *buf, size_t len);

/*
 * The writers' last step, once errno was zeroed before writing: Return: 0, or -1 with
 * errno set (EIO when the stream failed without saying why) when out has an error.
 */
int lh_report_stream_status(FILE *out);

/*
 * Before a writer reads the report: evaluates a default gate when lh_report_evaluate() was
 * not called, and takes in the rule-matching warnings the report kept itself.
 */
void lh_report_prepare(struct lh_report *rep);

/* The writers behind lh_report_write(). Return: 0, or -1 with errno when writing failed. */
int lh_report_write_text(struct lh_report *rep, FILE *out);
int lh_report_write_json(struct lh_report *rep, FILE *out);
int lh_report_write_junit(struct lh_report *rep, FILE *out);
int lh_report_write_html(struct lh_report *rep, FILE *out);
/*
 * The text of a merge's or a diff's verdict: "Verdict: ERROR: why", "FAIL" or "PASS", then
 * each failed gate on a line of its own.
 */
void lh_report_verdict_text(const struct lh_verdict *v, FILE *out);

#endif /* LH_REPORT_PRIV_H */
