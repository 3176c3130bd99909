/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The output directory of a live run: files replaced atomically (report.json at every
 * checkpoint, report.txt at the end) and the raw snapshots of captured sections under a
 * disk budget and a count cap.
 *
 * When a snapshot does not fit, the least valuable ones go first: plain captures before the
 * worst capture of each offender signature, and those before captures that hit a rule;
 * within a class, the shortest latency first. Every snapshot not kept (not stored, evicted,
 * or lost to a write error) is counted as dropped. No printing: problems go to an lh_diag.
 */
#ifndef LH_OUTPUT_H
#define LH_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/lockfile.h"
#include "util/util.h"

/* Raw snapshots live in this subdirectory of the output directory. */
#define LH_OUTPUT_SNAPSHOTS	"snapshots"

struct lh_output_opts {
	const char	*dir;		/* created when missing (its parent must exist) */
	uint64_t	disk_budget;	/* bytes of raw snapshots kept; 0 = keep none */
	unsigned long	max_snapshots;	/* raw snapshots kept; 0 = keep none */
};

/* What a raw snapshot is worth when space is short. */
struct lh_snapshot_meta {
	const char	*name;		/* file name in snapshots/: "capture-000012.trace" */
	uint64_t	signature;	/* hash of the offender signature */
	uint64_t	latency_us;
	bool		rule_hit;	/* a rule (other than 'ignore') fired */
};

struct lh_output;

/*
 * Opens (creating it when missing) the output directory o->dir, never through a symbolic
 * link (its files and snapshots/ are then written relative to it). A directory that
 * already holds a report.json is refused, so that two runs never mix their snapshots;
 * temporary files a killed run left in one that does not are removed.
 * Return: 0 and *out (free with lh_output_free()), or -1 with the reason in diag.
 */
int lh_output_open(struct lh_output **out, const struct lh_output_opts *o, struct lh_diag *diag);
/* Frees out (the files stay). NULL-safe. */
void lh_output_free(struct lh_output *out);
/* Removes the directory when this run created it and wrote nothing in it. NULL-safe. */
void lh_output_discard(struct lh_output *out);

/* Return: the directory's path (borrowed). */
const char *lh_output_dir(const struct lh_output *out);

/* Writes a file's content to f. Return: 0, or -1 with errno set. */
typedef lh_lockfile_write_fn lh_output_write_fn;

/*
 * Replaces DIR/name atomically with what fn writes, through lh_lockfile_write() (an
 * exclusive temporary file, fsync'd, renamed over DIR/name, the directory fsync'd). On any
 * failure the temporary file is removed and DIR/name stays as it was. Return: 0, or -1 with
 * errno set and the reason ("cannot write 'DIR/name': No space left on device") in diag.
 */
int lh_output_replace(struct lh_output *out, const char *name, lh_output_write_fn fn, void *arg,
		      struct lh_diag *diag);

/*
 * Stores buf[0..len) as snapshots/meta->name (atomically, as lh_output_replace()) when the
 * budget allows, evicting less valuable snapshots to make room. Return: 1 stored, 0 not stored (counted as dropped), -1 when
 * writing failed (counted as dropped; the reason in diag, the partial file removed).
 */
int lh_output_snapshot(struct lh_output *out, const struct lh_snapshot_meta *meta,
		       const char *buf, size_t len, struct lh_diag *diag);

/* Counters: snapshots kept on disk now, their bytes, and snapshots dropped so far. */
unsigned long lh_output_kept(const struct lh_output *out);
uint64_t lh_output_bytes(const struct lh_output *out);
unsigned long lh_output_dropped(const struct lh_output *out);

#endif /* LH_OUTPUT_H */
