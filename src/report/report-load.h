/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reports read back: the JSON report (doc/report-json.md) of 'analyze' or 'record' into the
 * report model, so that it can be written again in any format, judged again with other
 * gates, or merged with others (lathound report; lathound diff and merge build on it).
 *
 * The reader is strict: a report_version it does not know, a missing field, a field of the
 * wrong type, a rule a record names that the report does not list, an offender whose
 * signature does not match its fields, a derived field (worst_gated, a rule's accepted, a
 * kept record) that the counts contradict: each is an error naming the report and the field
 * ("report 'x.json': tracers.irqsoff.count: expected an integer, got a string"). Fields it
 * does not know are ignored, as doc/report-json.md asks of every consumer. Every string read
 * is made inert (control bytes and invalid UTF-8 as "\xHH"): a report file is input like a
 * trace, and its memory is bounded by its size. Pure: problems go to an lh_diag, nothing is
 * printed.
 *
 * Several reports merge into one, each read on its own and folded in (report-fold.h): counts
 * add up, maxima and worst sections are the worst of all, offenders and rules are matched by
 * signature and id, histograms add up bucket by bucket, progressions of maxima are merged in
 * time order, records kept in full compete for the same places. They must be of the same board (host and kernel, where the reports say
 * them) and not the same run twice (run_id).
 */
#ifndef LH_REPORT_LOAD_H
#define LH_REPORT_LOAD_H

#include <stddef.h>

#include "report.h"

/* A report larger than this is refused: lathound's largest real ones are about 18 MiB. */
#define LH_REPORT_MAX_BYTES	(32UL << 20)

struct lh_report_load_opts {
	/* records kept in full; 0: as many as the input that kept the most */
	size_t			keep;
	/* --max budgets that replace the saved ones (NULL: the saved ones) */
	const struct lh_gate	*max;
	/* a gate whose fail_on replaces the saved --fail-on (NULL: the saved one) */
	const struct lh_gate	*fail_on;
};

struct lh_report_loader;

/* Return: a loader (o may be NULL: defaults; copied); free with lh_report_loader_free(). */
struct lh_report_loader *lh_report_loader_alloc(const struct lh_report_load_opts *o);
/* Frees l and the report it built, unless lh_report_loader_finish() handed it over. */
void lh_report_loader_free(struct lh_report_loader *l);

/*
 * Reads the JSON report buf[0..len) named name (for messages and merged_from; made inert
 * there, as lh_record_escape() does) into the report being built. Return: 0, or -1 with
 * every problem found in diag (the report being built must then be given up).
 */
int lh_report_loader_add(struct lh_report_loader *l, const char *name, const char *buf,
			 size_t len, struct lh_diag *diag);
/* lh_report_loader_add() of the file at path ("-": standard input). Return: the same. */
int lh_report_loader_add_file(struct lh_report_loader *l, const char *path,
			      struct lh_diag *diag);
/*
 * Reads the report at path alone, judged by its own gates (diff and merge read each one so),
 * every problem in diag. Return: the report (free it with lh_report_free()), or NULL with
 * why in *why (the first error, or "cannot read report 'PATH'"; the caller frees it).
 */
struct lh_report *lh_report_load_file(const char *path, struct lh_diag *diag, char **why);

/*
 * Ends the reading: progressions ordered, records kept trimmed, the gates chosen (the saved
 * ones unless replaced; reports merged with different saved gates need them replaced) and
 * evaluated. A single report judged by its own gates must reach its own verdict: one that
 * does not is inconsistent, and an error. Warnings (reports whose board cannot be checked)
 * go to diag too. Return: the report (free it with lh_report_free()), or NULL with the
 * reason in diag.
 */
struct lh_report *lh_report_loader_finish(struct lh_report_loader *l, struct lh_diag *diag);

#endif /* LH_REPORT_LOAD_H */
