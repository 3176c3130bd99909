/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fake tracefs tree for the unit tests of the modules that read and write tracefs
 * (state.c, session.c, doctor.c): a temporary directory holding 'tracing' (pointed at with
 * tracefs_set_tracing_dir()) and 'run' (a state directory). No root needed. Header-only:
 * include it from one test file.
 */
#ifndef LH_FAKE_TRACEFS_H
#define LH_FAKE_TRACEFS_H

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <tracefs.h>

#define ALL_TRACERS "timerlat osnoise hwlat irqsoff preemptoff preemptirqsoff wakeup wakeup_rt "	\
	"wakeup_dl function nop\n"

static char top[64];		/* the temp dir */
static char tree[128];		/* the fake tracefs: top/tracing */
static char sdir[128];		/* the state dir: top/run */

/* Writes content to tree/rel, creating the directories on the way. */
static inline void put(const char *rel, const char *content)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	for (p = path + strlen(tree) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	ck_assert_msg(f, "cannot create %s: %s", path, strerror(errno));
	fputs(content, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Removes tree/rel, which must exist. */
static inline void drop(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	ck_assert_int_eq(unlink(path), 0);
}

/* Creates top (named after name), an empty tree with instances/, and sdir. */
static inline void fake_tracefs_create(const char *name)
{
	char path[256];

	snprintf(top, sizeof(top), "/tmp/lh-%s-test.XXXXXX", name);
	ck_assert_ptr_nonnull(mkdtemp(top));
	snprintf(tree, sizeof(tree), "%s/tracing", top);
	snprintf(sdir, sizeof(sdir), "%s/run", top);
	ck_assert_int_eq(mkdir(tree, 0755), 0);
	ck_assert_int_eq(mkdir(sdir, 0755), 0);
	snprintf(path, sizeof(path), "%s/instances", tree);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

/* Points libtracefs at the tree: call once the tree holds its files. */
static inline void fake_tracefs_use(void)
{
	ck_assert_int_eq(tracefs_set_tracing_dir(tree), 0);
}

static inline int fake_tracefs_rm(const char *path, const struct stat *sb, int flag,
				  struct FTW *ftw)
{
	return remove(path);
}

/* Points libtracefs back at the real tracefs and removes top and all below it. */
static inline void fake_tracefs_destroy(void)
{
	tracefs_set_tracing_dir(NULL);
	nftw(top, fake_tracefs_rm, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* LH_FAKE_TRACEFS_H */
