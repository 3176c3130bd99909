/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Worst-case latency reports and release gates. The report aggregates records (per
 * tracer, per CPU progression of maxima, offenders grouped by signature, rule hits),
 * keeps a bounded number of records in full, evaluates the gate, and writes text, JSON
 * (json-c) or JUnit XML. Pure except for the writers, which take a FILE *.
 */
#ifndef LH_REPORT_H
#define LH_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "irqstat.h"
#include "parse.h"
#include "record.h"
#include "rules.h"

/* --max TRACER=DURATION and --fail-on SEVERITY. */
struct lh_gate {
	bool			has_max[LH_TRACER_NR];	/* [LH_TRACER_UNKNOWN] is 'all' */
	uint64_t		max_ns[LH_TRACER_NR];
	enum lh_severity	fail_on;		/* default LH_SEV_CRITICAL */
};

void lh_gate_init(struct lh_gate *g);
/* "irqsoff=500us", "all=1ms". Return: 0, or -1 with *err a static message. */
int lh_gate_parse_max(struct lh_gate *g, const char *arg, const char **err);
/* "info" | "warning" | "critical". Return: 0, or -1 with *err a static message. */
int lh_gate_parse_fail_on(struct lh_gate *g, const char *arg, const char **err);

enum lh_format { LH_FORMAT_TEXT, LH_FORMAT_JSON, LH_FORMAT_JUNIT };
/* Return: 0, or -1 when name is not text, json or junit. */
int lh_format_parse(const char *name, enum lh_format *f);

/* What a live run adds to a report; analyze leaves it zeroed (mode "analyze"). */
struct lh_run_info {
	const char	*mode;			/* "analyze" or "record" */
	uint64_t	started_ns;		/* CLOCK_REALTIME */
	uint64_t	ended_ns;
	uint64_t	armed_ns[LH_TRACER_NR];	/* how long each tracer was armed */
	uint64_t	threshold_ns;		/* tracing_thresh, 0 = running maxima */
	unsigned long	captures;		/* snapshots read from tracefs */
	unsigned long	sections_lost;		/* overwritten before they could be read */
	unsigned long	snapshots_dropped;	/* raw snapshots not stored (disk budget) */
	const char	*wait_method;		/* "inotify" or "poll" */
	const char	*command;		/* the workload, NULL when none */
	int		command_status;		/* exit status, -1 when none */
	const char	*end_reason;		/* "duration", "command", "SIGINT"... */
	const char	*kernel;		/* uname -r */
	const struct lh_irqstat *irqstat;	/* borrowed; NULL when not collected */
};

struct lh_report_opts {
	size_t		keep;		/* records kept in full (worst first); default 100 */
};

struct lh_report;

/* Return: an empty report; rules and opts are borrowed for its lifetime. */
struct lh_report *lh_report_alloc(const struct lh_rules *rules, const struct lh_report_opts *o);
void lh_report_free(struct lh_report *rep);

/* Adds one record and its rule match (both borrowed; copied if kept). Return: 0. */
int lh_report_add(struct lh_report *rep, const struct lh_record *r, const struct lh_match *m);
/* Parse counters and warnings (lines skipped, snapshots skipped) to show in the report. */
void lh_report_add_parse_stats(struct lh_report *rep, const struct lh_parse_stats *st);
/* Warnings from rule matching (limits hit) and other run notes, counted and listed. */
void lh_report_add_diag(struct lh_report *rep, const struct lh_diag *d);
/* Run metadata for record mode (copied; strings must outlive the report). */
void lh_report_set_run(struct lh_report *rep, const struct lh_run_info *run);

/* Evaluates the gate. Return: true when it passed; call before writing. */
bool lh_report_evaluate(struct lh_report *rep, const struct lh_gate *g);

/* Writers. Return: 0, or -1 when writing to f failed (errno set). */
int lh_report_write(struct lh_report *rep, enum lh_format f, FILE *out);

/* Worst latency seen for tracer t in µs (0 when none), for status lines. */
uint64_t lh_report_worst_us(const struct lh_report *rep, enum lh_tracer t);
unsigned long lh_report_records(const struct lh_report *rep);
unsigned long lh_report_rule_hits(const struct lh_report *rep);

#endif /* LH_REPORT_H */
