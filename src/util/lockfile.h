/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one way lathound writes a file (reports, checkpoints, raw snapshots, the state file),
 * modelled on git's lockfile.c, because lathound runs as root in directories others may
 * write (CI workspaces, /tmp):
 *
 *  - the content goes to an exclusive temporary file beside the target
 *    (".NAME.lathound-XXXXXX", created with O_EXCL|O_NOFOLLOW, a random name), mode
 *    0644 less the umask;
 *  - it is flushed and fsync'd, then rename()d over the target, which replaces whatever link
 *    may have been planted there rather than following it, then the directory is fsync'd:
 *    after a crash the target holds the old content or the complete new one;
 *  - an existing target that is not a regular file (a symbolic link, a FIFO, a device, a
 *    directory) is refused: nothing is written through it;
 *  - the temporary file is flock'd while it is written, so that one left by a killed run can
 *    be told apart from one being written, and removed (lh_lockfile_clean()).
 *
 * Directories are named by an fd (opened with O_NOFOLLOW by whoever owns them) and files by
 * a plain name in it. No printing: problems go to the caller's lh_diag.
 */
#ifndef LH_LOCKFILE_H
#define LH_LOCKFILE_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

/* A temporary file is "." NAME LH_LOCKFILE_MARK and six random letters or digits. */
#define LH_LOCKFILE_MARK	".lathound-"

/* Writes a file's content to f. Return: 0, or -1 with errno set. */
typedef int (*lh_lockfile_write_fn)(FILE *f, void *arg);

/*
 * Replaces name (a plain file name, no '/') in the directory open at dfd with what fn
 * writes. label names the target in messages, quoted: "report 'out/r.json'" gives
 * "cannot write report 'out/r.json': No space left on device".
 * Return: 0, or -1 with errno set and the reason in diag (the target is then as it was and
 * no temporary file is left). EEXIST: the target exists and is not a regular file.
 */
int lh_lockfile_write(int dfd, const char *name, const char *label, lh_lockfile_write_fn fn,
		      void *arg, struct lh_diag *diag);
/* lh_lockfile_write() of buf[0..len). Return: as lh_lockfile_write(). */
int lh_lockfile_write_buf(int dfd, const char *name, const char *label, const void *buf,
			  size_t len, struct lh_diag *diag);
/*
 * lh_lockfile_write() of a path as a user gives it ("-o out/r.json"): the directories on the
 * way are the user's to choose (links followed), the last component is handled as above.
 * Return: as lh_lockfile_write().
 */
int lh_lockfile_write_path(const char *path, const char *label, lh_lockfile_write_fn fn,
			   void *arg, struct lh_diag *diag);

/*
 * Removes the temporary files a killed lathound left in the directory open at dfd: those of
 * target name, or all of them when name is NULL. Only regular files of this user that no
 * live writer holds (flock) are removed. Return: how many were removed.
 */
int lh_lockfile_clean(int dfd, const char *name);

#endif /* LH_LOCKFILE_H */
