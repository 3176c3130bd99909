/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Worst-case latency reports and release gates. The report aggregates records (per
 * tracer, per CPU progression of maxima, offenders grouped by signature, rule hits),
 * keeps a bounded number of records in full, evaluates the gate, and writes text, JSON,
 * JUnit XML or HTML. Pure except for the writers, which take a FILE *.
 */
#ifndef LH_REPORT_H
#define LH_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rules/rules.h"
#include "trace/irqstat.h"
#include "trace/parse.h"
#include "trace/record.h"
#include "util/histogram.h"
#include "util/htab.h"

/*
 * --max TRACER=DURATION and --fail-on SEVERITY. A tracer's own budget overrides 'all'; a
 * section fails --max when it is strictly longer than its budget. Records that an 'ignore'
 * rule accepted never fail either gate.
 */
struct lh_gate {
	bool			has_max[LH_TRACER_NR];	/* [LH_TRACER_UNKNOWN] is 'all' */
	uint64_t		max_ns[LH_TRACER_NR];
	enum lh_severity	fail_on;		/* default LH_SEV_CRITICAL */
	/* --min-available osnoise=PCT: each CPU's % CPU available over every period */
	bool			has_min_available;
	uint32_t		min_available_milli;	/* thousandths of a percent */
};

/* --fail-on none: no rule severity fails the gate. */
#define LH_GATE_FAIL_NONE LH_SEV_NR

/* No budget, --fail-on critical. */
void lh_gate_init(struct lh_gate *g);
/*
 * The TRACER= of "irqsoff=500us" ("all": LH_TRACER_UNKNOWN), for --max and the options like it.
 * Return: 0, *t and *value (what follows '=', in arg), or -1 with *err a static message
 * (expected, static too, when there is no TRACER=).
 */
int lh_gate_parse_key(const char *arg, const char *expected, enum lh_tracer *t,
		      const char **value, const char **err);
/*
 * "irqsoff=500us", "all=1ms". Return: 0, or -1 with *err a static message (also when
 * that tracer, or "all", already has a budget).
 */
int lh_gate_parse_max(struct lh_gate *g, const char *arg, const char **err);
/*
 * "osnoise=99.5" (a '%' may follow; at most 3 decimals, 0 to 100): a percentage of osnoise's
 * CPU available, or of points of it, for --min-available and the options like it, given once
 * (*has). Return: 0, *has set and *milli (thousandths of a percent), or -1 with *err a static
 * message: expected (static too) when there is no TRACER=, twice when *has was set before;
 * also for another tracer than osnoise.
 */
int lh_gate_parse_osnoise_pct(const char *arg, const char *expected, const char *twice,
			      bool *has, uint32_t *milli, const char **err);
/*
 * --min-available "osnoise=99.5" (lh_gate_parse_osnoise_pct()). Return: 0, or -1 with *err
 * a static message (also for another tracer, or when it was given before).
 */
int lh_gate_parse_min_available(struct lh_gate *g, const char *arg, const char **err);
/*
 * The % CPU available of osnoise, as rtla osnoise prints it: 100 % - noise / runtime, over
 * every period counted, in thousandths of a percent, the noise rounded up (never more
 * available than measured); noise over runtime counts as runtime. Overflow-free for any
 * values. Return: 0 and *milli, or -1 when runtime_ns is 0 (nothing measured).
 */
int lh_gate_available(uint64_t runtime_ns, uint64_t noise_ns, uint32_t *milli);
/* "99.198": milli as a percentage with three decimals. Return: buf. */
char *lh_gate_fmt_available(uint32_t milli, char *buf, size_t len);
/* "info" | "warning" | "critical" | "none". Return: 0, or -1 with *err a static message. */
int lh_gate_parse_fail_on(struct lh_gate *g, const char *arg, const char **err);
/* Return: "info", "warning", "critical" or "none" (static). */
const char *lh_gate_fail_on_name(const struct lh_gate *g);
/*
 * The budget that applies to tracer t: its own, else 'all'.
 * Return: true and *ns when t has a budget.
 */
bool lh_gate_budget(const struct lh_gate *g, enum lh_tracer t, uint64_t *ns);

/* What the error of a verdict is of. */
enum lh_verdict_kind {
	LH_VERDICT_RUN,		/* the run, its input or the judging failed: it stays */
	LH_VERDICT_UNDECIDED,	/* a rule a gate needs could not be evaluated: other gates
				 * derive it again (lh_report_undecided_error()) */
};

/*
 * The verdict of a report, a merge or a diff: error when something it was asked to judge
 * could not be (the first reason is kept, with its kind), else fail when a gate failed, else
 * pass.
 */
struct lh_verdict {
	char			*error;		/* why the verdict is error, or NULL */
	enum lh_verdict_kind	error_kind;	/* of error */
	char			**violations;	/* the gates that failed, each a sentence */
	size_t			nr_violations, alloc_violations;
};

/* Makes the verdict error for why (taken; freed when an error was set before). */
void lh_verdict_error(struct lh_verdict *v, char *why);
/* lh_verdict_error() of an error of kind. */
void lh_verdict_error_of(struct lh_verdict *v, enum lh_verdict_kind kind, char *why);
/* Adds a failed gate, what (taken; NULL: nothing). */
void lh_verdict_violation(struct lh_verdict *v, char *what);
/* Forgets the violations (a report judged again); the error stays. */
void lh_verdict_clear_violations(struct lh_verdict *v);
/* Frees what v holds; v is then empty (pass). */
void lh_verdict_release(struct lh_verdict *v);
/* Return: "error", "fail" or "pass" (static). */
const char *lh_verdict_name(const struct lh_verdict *v);

/* What --max says of one tracer (lh_gate_judge_max()). */
enum lh_gate_max {
	LH_GATE_MAX_NONE,		/* no budget applies */
	LH_GATE_MAX_PASS,		/* measured, the worst within its budget (or no section) */
	LH_GATE_MAX_OVER,		/* measured, the worst over its budget: the gate fails */
	LH_GATE_MAX_UNMEASURED,		/* the budget cannot be judged: an error */
};

/* What was measured of one tracer, for lh_gate_judge_max(). */
struct lh_gate_measure {
	bool		measured;	/* sections were counted, or a run had it armed */
	const char	*not_measured;	/* why a run could not measure it, or NULL */
	bool		has_worst;	/* a section no 'ignore' rule accepted was seen */
	uint64_t	worst_ns;	/* the longest of them */
};

/*
 * Judges tracer t by --max: its own budget, else 'all' (the only one of LH_TRACER_UNKNOWN). A tracer with
 * its own budget must have been measured; 'all' judges the tracers that were, but one a run
 * says it could not measure is an error under either. Return: the result, with *budget_ns and
 * *own (whether the budget is t's own rather than 'all') set unless LH_GATE_MAX_NONE.
 */
enum lh_gate_max lh_gate_judge_max(const struct lh_gate *g, enum lh_tracer t,
				   const struct lh_gate_measure *m, uint64_t *budget_ns, bool *own);

enum lh_format { LH_FORMAT_TEXT, LH_FORMAT_JSON, LH_FORMAT_JUNIT, LH_FORMAT_HTML, LH_FORMAT_NR };
/* Return: 0, or -1 when name is not text, json, junit or html. */
int lh_format_parse(const char *name, enum lh_format *f);

/* What a live run adds to a report; analyze leaves it zeroed (mode "analyze"). */
struct lh_run_info {
	const char	*mode;			/* "analyze" or "record" */
	uint64_t	started_ns;		/* CLOCK_REALTIME */
	uint64_t	ended_ns;
	uint64_t	armed_ns[LH_TRACER_NR];	/* how long each tracer was armed */
	uint64_t	blind_ns[LH_TRACER_NR];	/* of that, paused by reads (lh_recorder_tracer) */
	uint64_t	threshold_ns;		/* tracing_thresh, 0 = running maxima */
	uint64_t	captures;		/* snapshots read from tracefs */
	uint64_t	sections_lost;		/* overwritten before they could be read */
	uint64_t	sections_torn;		/* of those, replaced while being read */
	uint64_t	snapshots_dropped;	/* raw snapshots not stored (disk budget) */
	const char	*wait_method;		/* "inotify" or "poll" */
	const char	*command;		/* the workload, NULL when none */
	int		command_status;		/* exit status, -1 when none */
	const char	*end_reason;		/* "duration", "command", "SIGINT"... */
	/* why a tracer the run was to measure (or to gate) measured nothing; NULL: it did */
	const char	*not_measured[LH_TRACER_NR];
	const char	*kernel;		/* uname -r */
	const char	*host;			/* uname -n, NULL when unknown */
	const char	*run_id;		/* unique per run, NULL when unknown */
	/* borrowed, in lh_irqstat_get() order (lh_irqstat_sort() it first); NULL: none */
	const struct lh_irqstat *irqstat;
};

#define LH_REPORT_KEEP		100	/* default records kept in full */
#define LH_REPORT_SIGNATURES	10000	/* offender groups; more go to one 'other' bucket */
#define LH_REPORT_STEPS		1000	/* progression steps kept per tracer and CPU */
#define LH_REPORT_WARNINGS	100	/* warning texts kept (all are counted) */

struct lh_report_opts {
	size_t		keep;		/* records kept in full (worst first); default 100 */
	struct lh_diag	*diag;		/* where lh_report_feed() puts rule-matching warnings
					 * (borrowed); NULL: straight into the report */
	const char	*board;		/* the board's id (--board), borrowed; NULL: none */
	unsigned int	jobs;		/* threads a writer may use (0, 1: the caller's) */
};

struct lh_report;

/*
 * Return: an empty report; free with lh_report_free(). rules (may be NULL: no rules) is
 * borrowed for the report's lifetime, and used by lh_report_feed() to match records; o
 * (may be NULL: defaults) is copied.
 */
struct lh_report *lh_report_alloc(struct lh_rules *rules, const struct lh_report_opts *o);
void lh_report_free(struct lh_report *rep);

/*
 * Adds one record and its rule match (m may be NULL: no rule fired). Both are borrowed;
 * the record is copied only when it is kept in full, so adding is O(1) otherwise.
 * Return: 0.
 */
int lh_report_add(struct lh_report *rep, const struct lh_record *r, const struct lh_match *m);
/*
 * Matches r against the report's rules and adds it: the lh_record_fn that analyze and
 * record hand to lh_parse_buffer() with the report as arg. Return: 0.
 */
int lh_report_feed(struct lh_record *r, void *rep);
/*
 * Adds r with m, the match of r against the report's rules that another thread made
 * (lh_rules_matcher_match()), and says its limit hits as lh_report_feed() would.
 * Records must come in input order. Return: 0.
 */
int lh_report_feed_matched(struct lh_record *r, struct lh_match *m, void *rep);
/*
 * Adds parser counters to the report's: a parser's lh_parser_stats() once when it is done,
 * or (a live run, at each checkpoint) what they grew by since the last call.
 */
void lh_report_add_parse_stats(struct lh_report *rep, const struct lh_parse_stats *st);
/*
 * Adds d's warnings and errors (parse warnings, rule-matching limits, run notes): all are
 * counted, the first LH_REPORT_WARNINGS texts of the report are kept. Every call adds all
 * of d: pass a diag once, or release it after each call.
 */
void lh_report_add_diag(struct lh_report *rep, const struct lh_diag *d);
/*
 * One input of 'analyze' and how much of it was read. An input with a problem (it could not
 * be opened or read, held no latency snapshot, or had snapshots skipped as malformed) was
 * not read in full: the verdict is "error", unless it was accepted (--allow-unreadable).
 * Every format lists such inputs either way.
 */
struct lh_report_input {
	const char	*name;		/* as given; "<stdin>" */
	uint64_t	snapshots;	/* parsed into records */
	uint64_t	skipped;	/* dropped as malformed */
	const char	*problem;	/* a sentence naming the input and why; NULL: read in full */
	bool		accepted;	/* a problem that is listed, not an error */
};

/* Adds one input (copied) in the order read. */
void lh_report_add_input(struct lh_report *rep, const struct lh_report_input *in);
/* Run metadata for record mode (copied; strings must outlive the report). */
void lh_report_set_run(struct lh_report *rep, const struct lh_run_info *run);

/*
 * Evaluates the gate (g is copied); call before writing. An input not read in full and not
 * accepted, or a rule at or above --fail-on that could not be evaluated on a record no
 * 'ignore' rule accepted, makes the verdict "error" (see lh_report_error()). Return: true when every gate passed and the verdict is not error.
 */
bool lh_report_evaluate(struct lh_report *rep, const struct lh_gate *g);
/*
 * Marks the report as the result of a run that failed (unreadable input, nothing to
 * analyze): its verdict is then "error", whatever the gates say, so that a report read
 * alone never shows a pass the exit status denies. The first call wins; what is copied.
 */
void lh_report_set_error(struct lh_report *rep, const char *what);
/*
 * Return: why the verdict is "error" (borrowed), or NULL: lh_report_set_error()'s reason, or
 * one lh_report_evaluate() found (a rule the gate depends on could not be evaluated).
 */
const char *lh_report_error(const struct lh_report *rep);
/*
 * Return: "pass", "fail" or "error" (static): the verdict of the last lh_report_evaluate(),
 * error whenever lh_report_error() says why.
 */
const char *lh_report_verdict(const struct lh_report *rep);
/*
 * The violations found by the last lh_report_evaluate(), each a sentence.
 * Return: their number; violation i (borrowed, valid until the next evaluation), or NULL.
 */
size_t lh_report_nr_violations(const struct lh_report *rep);
const char *lh_report_violation(const struct lh_report *rep, size_t i);

/*
 * Writes the report in format f to out; evaluates a default gate first when
 * lh_report_evaluate() was not called. Return: 0, or -1 when writing failed (errno set).
 */
int lh_report_write(struct lh_report *rep, enum lh_format f, FILE *out);
/*
 * Writes the report to path through lh_lockfile_write_path(): an exclusive temporary file
 * beside it, fsync'd, renamed over path, the directory fsync'd; temporary files a killed
 * run left for path are removed first. A path that exists and is not a regular file (a
 * link, a FIFO, a device) is refused. Return: 0, or -1 with errno set and the reason in
 * diag ("cannot write report 'r.json': No space left on device"); path is then as it was.
 */
int lh_report_write_file(struct lh_report *rep, enum lh_format f, const char *path,
			 struct lh_diag *diag);

/*
 * Sets the histogram the kernel counted of kind ("irqsoff", "preemptoff", "wakeup") on cpu
 * (-1: all CPUs), source "kernel", replacing the one set before: what a live run read at its
 * last checkpoint. h is copied; kind is copied.
 */
void lh_report_set_histogram(struct lh_report *rep, const char *kind, int cpu,
			     const struct lh_histogram *h);

/* The noise sources a report keeps per CPU, noisiest first; the rest are summed as "other". */
#define LH_REPORT_NOISE_SOURCES	8
/* a source's name (an irq's desc, a softirq's name, a comm), NUL included */
#define LH_REPORT_SOURCE_NAME	32

/*
 * One source of osnoise's noise on a CPU, as the kernel counted its osnoise:*_noise events:
 * kind irq (named by its desc), softirq (by the kernel's name of its vector, "TIMER",
 * "NET_RX"..., or its number), nmi (no name) or thread (its comm).
 */
struct lh_report_source {
	enum lh_spike_kind	kind;
	char			name[LH_REPORT_SOURCE_NAME];
	uint64_t		count;		/* its noise events */
	uint64_t		noise_ns;	/* their durations, summed */
};

/* osnoise's figures of one CPU, over every period counted. */
struct lh_report_noise {
	int		cpu;
	uint64_t	periods;
	uint64_t	runtime_ns;
	uint64_t	noise_ns;
	uint64_t	max_single_ns;	/* longest single noise of a period (max_sample) */
	uint64_t	hw_count;	/* hardware noise seen (hw_count): counted, not timed */
	/* by source, counted in the kernel (has_sources): the noisiest, then the rest summed */
	bool		has_sources;
	size_t		nr_sources;
	struct lh_report_source sources[LH_REPORT_NOISE_SOURCES];
	uint64_t	other_sources;	/* summed in other_*: each at most the last kept */
	uint64_t	other_count;
	uint64_t	other_ns;
};

/*
 * The order of kept sources: noisier first, then more frequent, then by kind and name.
 * Return: <0, 0 or >0 as strcmp().
 */
int lh_report_source_cmp(const struct lh_report_source *a, const struct lh_report_source *b);
/*
 * Adds source s (kind, name) to n's, by kind and name, keeping the LH_REPORT_NOISE_SOURCES
 * noisiest (then most frequent) in that order and summing the rest into other_*. The one way
 * sources are added, from the kernel, a report read back and a fold, so that one report of
 * many folded is one of their sources. Return: 0, or -1 when a sum would pass 2^64 (it then
 * stays at UINT64_MAX).
 */
int lh_report_noise_add_source(struct lh_report_noise *n, const struct lh_report_source *s);
/*
 * Adds the sources of src (its kept ones, then its "other") to dst's and marks dst as counted
 * by source. Return: 0, or -1 when a sum would pass 2^64.
 */
int lh_report_noise_add_sources(struct lh_report_noise *dst, const struct lh_report_noise *src);

/*
 * Sets n->cpu's osnoise figures (n is copied; cpu 0 to LH_REPORT_MAX_CPUS - 1, others are
 * ignored), replacing those set before: what a live run read at its last checkpoint. A CPU
 * set with no period is one that was to be measured and was not: --min-available fails
 * closed on it.
 */
void lh_report_set_noise(struct lh_report *rep, const struct lh_report_noise *n);
/*
 * Sets the noise events the kernel could not count by source (its histograms' "Dropped"),
 * replacing the figure set before. A report of sources with drops says so.
 */
void lh_report_set_noise_dropped(struct lh_report *rep, uint64_t dropped);

/* A caller with the longest sections of a kind counted in the kernel. */
struct lh_report_caller {
	char		*symbol;	/* "name+0xoff/0xsize", or "_stext+0xoff" */
	uint64_t	count;		/* sections it began */
	uint64_t	max_ns;		/* the longest of them */
};

/*
 * Sets the callers of kind's histogram over all CPUs (source "kernel"), longest first,
 * replacing those set before; note says why symbols are offsets (NULL: resolved). Copied.
 */
void lh_report_set_callers(struct lh_report *rep, const char *kind,
			   const struct lh_report_caller *c, size_t n, const char *note);

/*
 * The one check that reports are not the same run twice: run ids (128 random bits) noted in
 * runs by their hash, a hash noted before being the same run. Notes run_id (NULL: none, as
 * in an 'analyze' report or a merge of several runs: nothing is noted) with value who.
 * Return: true and *first (the value it was noted with first) when it was noted before.
 */
bool lh_report_run_seen(struct lh_htab *runs, const char *run_id, uint32_t who,
			uint32_t *first);
/* Return: rep's run id (borrowed), or NULL when it has none. */
const char *lh_report_run_id(const struct lh_report *rep);

/* Return: the worst latency seen for tracer t in µs (0 when none), for status lines. */
uint64_t lh_report_worst_us(const struct lh_report *rep, enum lh_tracer t);
/* Return: records added so far. */
uint64_t lh_report_records(const struct lh_report *rep);
/* Return: records not accepted that fired at least one rule of any severity but ignore. */
uint64_t lh_report_rule_hits(const struct lh_report *rep);

#endif /* LH_REPORT_H */
