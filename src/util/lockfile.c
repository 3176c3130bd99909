// SPDX-License-Identifier: GPL-2.0-only
/*
 * Atomic file replacement through an exclusive, flock'd temporary file (git's lockfile.c
 * is the model), and the removal of the temporary files a killed run left.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "lockfile.h"

#define RANDOM_LEN	6
/* Of the target's name, this much goes into the temporary one (NAME_MAX is 255). */
#define NAME_KEEP	(NAME_MAX - 1 - (sizeof(LH_LOCKFILE_MARK) - 1) - RANDOM_LEN)

static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

struct lockfile {
	int	dfd;
	int	fd;
	char	tmp[NAME_MAX + 1];
};

static const char *type_name(mode_t m)
{
	if (S_ISLNK(m))
		return "symbolic link";
	if (S_ISDIR(m))
		return "directory";
	if (S_ISFIFO(m))
		return "FIFO";
	if (S_ISCHR(m))
		return "character device";
	if (S_ISBLK(m))
		return "block device";
	if (S_ISSOCK(m))
		return "socket";
	return "special file";
}

static int fail(struct lh_diag *diag, int err, const char *how, const char *label)
{
	lh_diag_add(diag, LH_DIAG_ERROR, "%s %s: %s", how, label, strerror(err));
	errno = err;
	return -1;
}

/* 0644 less the umask: never writable by group or others, private when the umask says so. */
static mode_t file_mode(void)
{
	mode_t mask = umask(022);

	umask(mask);
	return 0644 & ~mask;
}

/* Fills the last RANDOM_LEN characters of s with random letters and digits. */
static void randomize(char *s)
{
	unsigned char r[RANDOM_LEN];
	size_t i;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		uint64_t v = lh_now_ns() ^ ((uint64_t)getpid() << 32) ^ (uintptr_t)s;

		for (i = 0; i < sizeof(r); i++, v = v * 6364136223846793005ULL + 1)
			r[i] = (unsigned char)(v >> 33);
	}
	for (i = 0; i < RANDOM_LEN; i++)
		s[i] = letters[r[i] % (sizeof(letters) - 1)];
}

/* Removes the temporary file, if any; errno is kept. */
static void rollback(struct lockfile *lk)
{
	int err = errno;

	if (lk->fd < 0)
		return;
	unlinkat(lk->dfd, lk->tmp, 0);
	close(lk->fd);
	lk->fd = -1;
	errno = err;
}

/*
 * Refuses a target that exists and is not a regular file, then creates and flocks the
 * temporary file. Return: 0, or -1 with errno and the reason in diag.
 */
static int hold(struct lockfile *lk, int dfd, const char *name, const char *label,
		struct lh_diag *diag)
{
	struct stat st;
	int tries, n, err;

	lk->dfd = dfd;
	lk->fd = -1;
	if (!*name || strchr(name, '/'))
		return fail(diag, EINVAL, "cannot write", label);
	if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && !S_ISREG(st.st_mode)) {
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "cannot write %s: it is a %s, and only a regular file is replaced",
			    label, type_name(st.st_mode));
		errno = EEXIST;
		return -1;
	}
	n = snprintf(lk->tmp, sizeof(lk->tmp), ".%.*s%sXXXXXX", (int)NAME_KEEP, name,
		     LH_LOCKFILE_MARK);
	for (tries = 0; tries < 100; tries++) {
		randomize(lk->tmp + n - RANDOM_LEN);
		lk->fd = openat(dfd, lk->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				0600);
		if (lk->fd < 0) {
			if (errno == EEXIST)
				continue;
			return fail(diag, errno, "cannot write", label);
		}
		/*
		 * Held while written: lh_lockfile_clean() removes only files it can lock. One
		 * that got in between open and flock holds it, or has unlinked it already:
		 * leave the file to it and take another name.
		 */
		if (!flock(lk->fd, LOCK_EX | LOCK_NB)) {
			if (fstat(lk->fd, &st))
				break;
			if (st.st_nlink)
				return 0;
		} else if (errno != EWOULDBLOCK) {
			break;
		}
		close(lk->fd);
		lk->fd = -1;
	}
	/* flock() or fstat() failed on the one open; or a hundred names were all taken. */
	err = lk->fd >= 0 ? errno : EEXIST;
	rollback(lk);
	return fail(diag, err, "cannot write", label);
}

/* Sets the mode, syncs, renames over name and syncs the directory. Return: 0, or -1. */
static int commit(struct lockfile *lk, const char *name, const char *label,
		  struct lh_diag *diag)
{
	int err;

	if (fchmod(lk->fd, file_mode()) || fsync(lk->fd) ||
	    renameat(lk->dfd, lk->tmp, lk->dfd, name)) {
		err = errno;
		rollback(lk);
		return fail(diag, err, "cannot write", label);
	}
	err = close(lk->fd) ? errno : 0;
	lk->fd = -1;
	if (err)
		return fail(diag, err, "cannot write", label);
	/* The rename itself is durable only once the directory is. */
	if (fsync(lk->dfd))
		return fail(diag, errno, "cannot sync the directory of", label);
	return 0;
}

int lh_lockfile_write(int dfd, const char *name, const char *label, lh_lockfile_write_fn fn,
		      void *arg, struct lh_diag *diag)
{
	struct lockfile lk;
	FILE *f = NULL;
	int fd, err;

	if (hold(&lk, dfd, name, label, diag))
		return -1;
	/* A stream on a second fd: closing it keeps lk.fd, and its lock, until the rename. */
	fd = dup(lk.fd);
	if (fd >= 0) {
		f = fdopen(fd, "w");
		if (!f)
			close(fd);
	}
	errno = 0;
	if (!f || fn(f, arg) || fflush(f) || ferror(f)) {
		err = errno ? errno : EIO;
		if (f)
			fclose(f);
		rollback(&lk);
		return fail(diag, err, "cannot write", label);
	}
	if (fclose(f)) {
		err = errno ? errno : EIO;
		rollback(&lk);
		return fail(diag, err, "cannot write", label);
	}
	return commit(&lk, name, label, diag);
}

int lh_lockfile_write_buf(int dfd, const char *name, const char *label, const void *buf,
			  size_t len, struct lh_diag *diag)
{
	struct lockfile lk;

	if (hold(&lk, dfd, name, label, diag))
		return -1;
	if (lh_write_fd(lk.fd, buf, len)) {
		int err = errno;

		rollback(&lk);
		return fail(diag, err, "cannot write", label);
	}
	return commit(&lk, name, label, diag);
}

int lh_lockfile_write_path(const char *path, const char *label, lh_lockfile_write_fn fn,
			   void *arg, struct lh_diag *diag)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char *dir;
	int dfd, ret;

	if (!slash)
		dir = lh_xstrdup(".");
	else if (slash == path)
		dir = lh_xstrdup("/");
	else
		dir = lh_xasprintf("%.*s", (int)(slash - path), path);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dfd < 0)
		return fail(diag, errno, "cannot write", label);
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
		close(dfd);
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "cannot write %s: it is a directory, and only a regular file is replaced",
			    label);
		errno = EEXIST;
		return -1;
	}
	lh_lockfile_clean(dfd, name);
	ret = lh_lockfile_write(dfd, name, label, fn, arg, diag);
	close(dfd);
	return ret;
}

/* Return: whether d is a temporary file of target name (of any target when name is NULL). */
static bool is_temp(const char *d, const char *name)
{
	size_t mark = strlen(LH_LOCKFILE_MARK), n = strlen(d), i;

	if (d[0] != '.' || n < 2 + mark + RANDOM_LEN)
		return false;
	for (i = n - RANDOM_LEN; i < n; i++)
		if (!strchr(letters, d[i]))
			return false;
	if (memcmp(d + n - RANDOM_LEN - mark, LH_LOCKFILE_MARK, mark))
		return false;
	if (!name)
		return true;
	n -= 1 + mark + RANDOM_LEN;
	return n == strnlen(name, NAME_KEEP) && !memcmp(d + 1, name, n);
}

int lh_lockfile_clean(int dfd, const char *name)
{
	struct dirent *de;
	int fd, removed = 0;
	struct stat st;
	DIR *dir;

	/* Its own fd: a dup() of dfd would share, and move, the caller's directory offset. */
	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(dir))) {
		if (!is_temp(de->d_name, name))
			continue;
		fd = openat(dfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    !flock(fd, LOCK_EX | LOCK_NB) && !unlinkat(dfd, de->d_name, 0))
			removed++;
		close(fd);
	}
	closedir(dir);
	return removed;
}
