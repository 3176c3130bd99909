/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Many boards, one view: any number of saved reports (boards, runs, nights; 'record' and
 * 'analyze') folded into one fleet report. Per host (board id, hostname, kernel) the worst
 * per tracer; offender signatures across hosts (which boards hit the same culprit); the
 * fleet's worst case per tracer and its host; histograms summed bucket by bucket; rule hits
 * per rule across hosts; osnoise's % CPU available per host and CPU. Then the gates: --max on
 * the fleet's worst, --min-available on each host's CPUs.
 *
 * Reports are folded one at a time (lh_merge_add()) into one fleet report by lh_report_fold()
 * (report-fold.h, which 'lathound report' and each side of 'diff' fold through too); beside
 * it a merge keeps only which host each worst, signature and rule hit is of. So memory grows
 * with the distinct hosts, signatures, rules and histograms, not with the reports (their
 * progressions are not kept): the one per-report cost is the 16-byte slot of a run_id's
 * hash, kept to refuse the same run twice. Pure but for the writers, which take a FILE *; the reports are read by
 * report-load.c.
 *
 * Fail closed: a report that cannot be read (unless allowed), whose own verdict is error
 * (unless accepted), that is the same run as one folded before, whose histograms do not fit
 * the bucket layout of those folded before, whose counts would make a sum wrap past 2^64, or
 * whose rule has another severity than the same rule elsewhere, makes the verdict error; so
 * does a gated tracer that no report measured or that a report says it could not measure,
 * and under --min-available a host whose reports measured no osnoise period, or listed a CPU
 * without one, or that says it could not measure osnoise.
 */
#ifndef LH_MERGE_H
#define LH_MERGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "util/histogram.h"
#include "util/htab.h"

#define LH_MERGE_PROBLEMS	20	/* problem texts kept (all are counted) */

struct lh_merge_opts {
	struct lh_gate	gate;			/* --max on the fleet's worst, --min-available on
						 * each host's CPUs, --fail-on */
	bool		allow_unreadable;	/* a report that cannot be read is listed only */
	bool		accept_error;		/* fold reports whose own verdict is error */
};

/* One host: a board id, a hostname and a kernel (each NULL when its reports do not say). */
struct lh_merge_host {
	char		*board, *host, *kernel;
	unsigned long	reports;
	unsigned long	reports_fail;		/* whose own verdict is fail */
	unsigned long	reports_error;		/* whose own verdict is error (accepted) */
	uint64_t	sections[LH_TRACER_NR];
	uint64_t	worst_us[LH_TRACER_NR];
	/* its reports' osnoise figures folded by CPU (lh_report_fold_noise()); NULL: none */
	struct lh_report *noise;
	char		*osnoise_not_measured;	/* the first report that could not measure it */
};

/* Which host a fleet's tracer has its worst sections from, and what only a merge says of it. */
struct lh_merge_tracer {
	bool			measured;	/* sections counted, or a run had it armed */
	size_t			worst_host;	/* of the fleet's worst (fleet->tracers[].worst) */
	size_t			gate_host;	/* of its worst gated: what --max judges */
	bool			maxima_only;	/* a report counted only each new maximum */
	char			*not_measured;	/* the first report that could not measure it */
};

/* A sorted set of host indices. */
struct lh_merge_hosts {
	uint32_t	*v;
	size_t		nr, alloc;
};

/* The hosts of one of the fleet's offender groups (fleet->offenders[], same index). */
struct lh_merge_sig {
	size_t			worst_host;
	struct lh_merge_hosts	hosts;
};

struct lh_merge {
	struct lh_merge_opts	o;
	unsigned long		reports;	/* folded */
	unsigned long		unread;		/* could not be read (allowed, or an error) */
	unsigned long		reports_error;	/* folded although their verdict is error */
	struct lh_merge_host	*hosts;
	size_t			nr_hosts, alloc_hosts;
	struct lh_htab		host_htab;
	/*
	 * every report folded into one (lh_report_fold()): tracers, offenders (past
	 * LH_REPORT_SIGNATURES in its 'other' group), rules by id, the kernel's histograms
	 */
	struct lh_report	*fleet;
	struct lh_merge_tracer	tracers[LH_TRACER_NR];
	struct lh_merge_sig	*sigs;		/* by fleet->offenders[] index */
	size_t			alloc_sigs;
	struct lh_merge_hosts	*rule_hosts;	/* hosts a rule hit on, by fleet rule index */
	size_t			alloc_rule_hosts;
	struct lh_htab		runs;		/* run_id hashes */
	struct lh_verdict	verdict;
	unsigned long		nr_errors;
	char			*problems[LH_MERGE_PROBLEMS];	/* errors and listed unreadables */
	unsigned long		nr_problems;
	bool			finished;
};

/* Return: an empty fleet (o copied; NULL: no gate); free it with lh_merge_free(). */
struct lh_merge *lh_merge_alloc(const struct lh_merge_opts *o);
void lh_merge_free(struct lh_merge *m);

/*
 * Folds the report rep (read by lh_report_loader_finish(), borrowed for the call only) named
 * name into m. Return: 0, or -1 when it could not be folded (why is m's error).
 */
int lh_merge_add(struct lh_merge *m, const char *name, const struct lh_report *rep);
/*
 * Notes a report that could not be read, why (a sentence naming it): an error unless
 * allowed, listed either way.
 */
void lh_merge_unreadable(struct lh_merge *m, const char *why);
/*
 * Notes an error that is no one report's, why (a sentence): e.g. a list of reports that could
 * not be read. The verdict is error, whatever is allowed.
 */
void lh_merge_error(struct lh_merge *m, const char *why);
/* Evaluates the gate once every report is folded; call before writing. */
void lh_merge_finish(struct lh_merge *m);

/* Return: "error", "fail" or "pass" (static). */
const char *lh_merge_verdict(const struct lh_merge *m);

/*
 * Writes m as text (80 columns), JSON or, JUnit XML (html: -1 with EINVAL).
 * Return: 0, or -1 with errno when writing failed.
 */
int lh_merge_write(const struct lh_merge *m, enum lh_format f, FILE *out);

#endif /* LH_MERGE_H */
