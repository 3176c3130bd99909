// SPDX-License-Identifier: GPL-2.0-only
/* The output directory: atomic file replacement and raw snapshots under a disk budget. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "output.h"

struct snap {
	char		*name;
	uint64_t	signature;
	uint64_t	latency_us;
	uint64_t	bytes;
	unsigned long	seq;		/* order of arrival */
	bool		rule_hit;
	bool		worst;		/* the longest stored snapshot of its signature */
};

struct lh_output {
	char			*dir;
	int			dfd;
	int			sfd;		/* snapshots/, -1 until the first one */
	bool			created;	/* this run made dir */
	bool			wrote;
	struct lh_output_opts	opts;
	struct snap		*snaps;
	size_t			nr;
	size_t			alloc;
	uint64_t		bytes;
	unsigned long		seq;
	unsigned long		dropped;
};

/* Opens name in dfd (AT_FDCWD: a path) as a directory, never through a symbolic link. */
static int open_dir(int dfd, const char *name, const char *label, struct lh_diag *diag)
{
	int fd = lh_open_dir(dfd, name);

	if (fd >= 0)
		return fd;
	if (errno == ELOOP)
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "output directory '%s' is a symbolic link: refusing to follow it",
			    label);
	else
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot open output directory '%s': %s", label,
			    strerror(errno));
	return -1;
}

int lh_output_open(struct lh_output **outp, const struct lh_output_opts *o, struct lh_diag *diag)
{
	struct lh_output *out;
	bool created = false;
	struct stat st;
	int dfd;

	*outp = NULL;
	if (mkdir(o->dir, 0755) == 0) {
		created = true;
	} else if (errno != EEXIST) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot create output directory '%s': %s", o->dir,
			    strerror(errno));
		return -1;
	}
	dfd = open_dir(AT_FDCWD, o->dir, o->dir, diag);
	if (dfd < 0)
		return -1;
	if (!created && fstatat(dfd, "report.json", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "output directory '%s' already holds a report; choose another with -o",
			    o->dir);
		close(dfd);
		return -1;
	}
	/* A run killed while writing there left its temporary files. */
	if (!created)
		lh_lockfile_clean(dfd, NULL);
	out = lh_xcalloc(1, sizeof(*out));
	out->dir = lh_xstrdup(o->dir);
	out->dfd = dfd;
	out->sfd = -1;
	out->created = created;
	out->opts = *o;
	out->opts.dir = out->dir;
	*outp = out;
	return 0;
}

void lh_output_free(struct lh_output *out)
{
	size_t i;

	if (!out)
		return;
	for (i = 0; i < out->nr; i++)
		free(out->snaps[i].name);
	free(out->snaps);
	if (out->sfd >= 0)
		close(out->sfd);
	close(out->dfd);
	free(out->dir);
	free(out);
}

void lh_output_discard(struct lh_output *out)
{
	if (!out || !out->created || out->wrote || out->nr)
		return;
	if (out->sfd >= 0)
		unlinkat(out->dfd, LH_OUTPUT_SNAPSHOTS, AT_REMOVEDIR);
	rmdir(out->dir);
}

const char *lh_output_dir(const struct lh_output *out)
{
	return out->dir;
}

int lh_output_replace(struct lh_output *out, const char *name, lh_output_write_fn fn, void *arg,
		      struct lh_diag *diag)
{
	char *label = lh_xasprintf("'%s/%s'", out->dir, name);
	int ret;

	out->wrote = true;
	ret = lh_lockfile_write(out->dfd, name, label, fn, arg, diag);
	free(label);
	return ret;
}

/* Class of a stored snapshot: the higher, the longer it is kept. */
static int snap_class(const struct snap *s)
{
	return s->rule_hit ? 2 : s->worst ? 1 : 0;
}

/* Return: true when a is worth less than b (a goes first). */
static bool worth_less(const struct snap *a, const struct snap *b)
{
	if (snap_class(a) != snap_class(b))
		return snap_class(a) < snap_class(b);
	if (a->latency_us != b->latency_us)
		return a->latency_us < b->latency_us;
	return a->seq > b->seq;		/* the first seen of equals stays */
}

/* Return: the index of the longest stored snapshot of signature sig, or -1. */
static long worst_of(const struct lh_output *out, uint64_t sig, size_t skip)
{
	long best = -1;
	size_t i;

	for (i = 0; i < out->nr; i++) {
		const struct snap *s = &out->snaps[i];

		if (i == skip || s->signature != sig)
			continue;
		if (best < 0 || s->latency_us > out->snaps[best].latency_us)
			best = (long)i;
	}
	return best;
}

static void evict(struct lh_output *out, size_t i)
{
	struct snap s = out->snaps[i];
	long next;

	unlinkat(out->sfd, s.name, 0);
	out->bytes -= s.bytes;
	out->dropped++;
	free(s.name);
	out->snaps[i] = out->snaps[--out->nr];
	if (s.worst) {
		next = worst_of(out, s.signature, (size_t)-1);
		if (next >= 0)
			out->snaps[next].worst = true;
	}
}

static int open_snapshots(struct lh_output *out, struct lh_diag *diag)
{
	char *label;
	int created;

	if (out->sfd >= 0)
		return 0;
	created = !mkdirat(out->dfd, LH_OUTPUT_SNAPSHOTS, 0755);
	if (!created && errno != EEXIST) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot create '%s/%s': %s", out->dir,
			    LH_OUTPUT_SNAPSHOTS, strerror(errno));
		return -1;
	}
	label = lh_xasprintf("%s/%s", out->dir, LH_OUTPUT_SNAPSHOTS);
	out->sfd = open_dir(out->dfd, LH_OUTPUT_SNAPSHOTS, label, diag);
	free(label);
	if (out->sfd >= 0 && !created)
		lh_lockfile_clean(out->sfd, NULL);
	return out->sfd >= 0 ? 0 : -1;
}

int lh_output_snapshot(struct lh_output *out, const struct lh_snapshot_meta *meta,
		       const char *buf, size_t len, struct lh_diag *diag)
{
	struct snap s = {
		.signature = meta->signature, .latency_us = meta->latency_us, .bytes = len,
		.seq = out->seq++, .rule_hit = meta->rule_hit,
	};
	char *label;
	long prev;
	int err;

	if (len > out->opts.disk_budget || !out->opts.max_snapshots) {
		out->dropped++;
		return 0;
	}
	prev = worst_of(out, s.signature, (size_t)-1);
	s.worst = prev < 0 || s.latency_us > out->snaps[prev].latency_us;

	/* Make room from the least valuable end; give up when the newcomer is worth less. */
	while (out->bytes + len > out->opts.disk_budget || out->nr >= out->opts.max_snapshots) {
		size_t i, victim = 0;

		for (i = 1; i < out->nr; i++)
			if (worth_less(&out->snaps[i], &out->snaps[victim]))
				victim = i;
		if (!out->nr || !worth_less(&out->snaps[victim], &s)) {
			out->dropped++;
			return 0;
		}
		evict(out, victim);
	}
	if (open_snapshots(out, diag)) {
		out->dropped++;
		return -1;
	}
	label = lh_xasprintf("'%s/%s/%s'", out->dir, LH_OUTPUT_SNAPSHOTS, meta->name);
	err = lh_lockfile_write_buf(out->sfd, meta->name, label, buf, len, diag);
	free(label);
	if (err) {
		out->dropped++;
		return -1;
	}
	/* Evictions may have changed which stored snapshot is its signature's worst. */
	prev = worst_of(out, s.signature, (size_t)-1);
	s.worst = prev < 0 || s.latency_us > out->snaps[prev].latency_us;
	if (s.worst && prev >= 0)
		out->snaps[prev].worst = false;
	s.name = lh_xstrdup(meta->name);
	LH_GROW(out->snaps, out->nr + 1, out->alloc);
	out->snaps[out->nr++] = s;
	out->bytes += len;
	return 1;
}

unsigned long lh_output_kept(const struct lh_output *out)
{
	return out->nr;
}

uint64_t lh_output_bytes(const struct lh_output *out)
{
	return out->bytes;
}

unsigned long lh_output_dropped(const struct lh_output *out)
{
	return out->dropped;
}
