// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the one file writer (src/util/lockfile.c): atomic replacement, refusal of a
 * target that is not a regular file, no trace of a failed write, removal of the temporary
 * files a killed run left (and only those).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "util/lockfile.h"
#include "check-main.h"

static char dir[64];
static int dfd;
static struct lh_diag diag;

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/lh-lockfile-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
	memset(&diag, 0, sizeof(diag));
}

static void teardown(void)
{
	char cmd[128];

	close(dfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
	lh_diag_release(&diag);
}

static const char *path_of(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void put(const char *name, const char *content)
{
	FILE *f = fopen(path_of(name), "w");

	ck_assert_ptr_nonnull(f);
	fputs(content, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Return: the content of dir/name (static), "(missing)" when it cannot be read. */
static const char *slurp(const char *name)
{
	static char buf[4096];
	FILE *f = fopen(path_of(name), "r");
	size_t n;

	if (!f)
		return "(missing)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Return: the names in dir, sorted (bytes) and joined with ' ' (static). */
static const char *listing(void)
{
	static char buf[4096];
	struct dirent **names;
	int n, i;

	buf[0] = '\0';
	n = scandir(dir, &names, NULL, by_name);
	ck_assert_int_ge(n, 0);
	for (i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
			if (buf[0])
				strcat(buf, " ");
			strcat(buf, names[i]->d_name);
		}
		free(names[i]);
	}
	free(names);
	return buf;
}

static bool diag_has(const char *needle)
{
	size_t i;

	for (i = 0; i < diag.nr; i++)
		if (strstr(diag.msgs[i].text, needle))
			return true;
	return false;
}

#define ck_diag(needle) ck_assert_msg(diag_has(needle), "no diagnostic '%s'%s%s", (needle), \
				      diag.nr ? ": " : "", diag.nr ? diag.msgs[0].text : "")

static int write_text(FILE *f, void *arg)
{
	return fputs(arg, f) < 0 ? -1 : 0;
}

static int write_then_fail(FILE *f, void *arg)
{
	fputs("partial", f);
	errno = ENOSPC;
	return -1;
}

START_TEST(replaces_atomically)
{
	struct stat st;
	mode_t mask = umask(027);

	ck_assert_int_eq(lh_lockfile_write(dfd, "r.json", "report 'r.json'", write_text, "one\n",
					   &diag), 0);
	ck_assert_str_eq(slurp("r.json"), "one\n");
	ck_assert_int_eq(stat(path_of("r.json"), &st), 0);
	/* 0644 less the umask: never writable by group or others */
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(lh_lockfile_write_buf(dfd, "r.json", "x", "two\n", 4, &diag), 0);
	ck_assert_str_eq(slurp("r.json"), "two\n");
	ck_assert_str_eq(listing(), "r.json");
	ck_assert_uint_eq(diag.nr, 0);
	umask(mask);
}
END_TEST

START_TEST(failure_keeps_the_old_file)
{
	put("r.json", "old\n");
	errno = 0;
	ck_assert_int_eq(lh_lockfile_write(dfd, "r.json", "report 'r.json'", write_then_fail,
					   NULL, &diag), -1);
	ck_assert_int_eq(errno, ENOSPC);
	ck_diag("cannot write report 'r.json': No space left on device");
	ck_assert_str_eq(slurp("r.json"), "old\n");
	ck_assert_str_eq(listing(), "r.json");
}
END_TEST

/*
 * What another user may plant at the target in a shared directory: a link to a root-only
 * file, a FIFO (which would block), a directory. Nothing is written through any of them,
 * and each stays as it was.
 */
START_TEST(refuses_what_is_not_a_regular_file)
{
	static const struct {
		const char	*name;
		const char	*what;
	} cases[] = {
		{ "link", "it is a symbolic link" },
		{ "dangling", "it is a symbolic link" },
		{ "fifo", "it is a FIFO" },
		{ "dir", "it is a directory" },
	};
	struct stat st;
	size_t i;

	put("secret", "root only\n");
	ck_assert_int_eq(symlinkat(path_of("secret"), dfd, "link"), 0);
	ck_assert_int_eq(symlinkat(path_of("nowhere"), dfd, "dangling"), 0);
	ck_assert_int_eq(mkfifo(path_of("fifo"), 0666), 0);
	ck_assert_int_eq(mkdir(path_of("dir"), 0755), 0);
	for (i = 0; i < LH_ARRAY_SIZE(cases); i++) {
		char want[128];

		errno = 0;
		ck_assert_int_eq(lh_lockfile_write(dfd, cases[i].name, cases[i].name, write_text,
						   "report\n", &diag), -1);
		ck_assert_int_eq(errno, EEXIST);
		snprintf(want, sizeof(want), "cannot write %s: %s, and only a regular file is replaced",
			 cases[i].name, cases[i].what);
		ck_diag(want);
	}
	ck_assert_str_eq(slurp("secret"), "root only\n");
	ck_assert_int_eq(lstat(path_of("link"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_ne(access(path_of("nowhere"), F_OK), 0);
	ck_assert_int_eq(lstat(path_of("fifo"), &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_str_eq(listing(), "dangling dir fifo link secret");

	/* a name with a '/' is not a name in the directory */
	ck_assert_int_eq(lh_lockfile_write(dfd, "dir/x", "x", write_text, "", &diag), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/*
 * The old writer used the predictable "PATH.tmp": whoever created it first owned root's
 * report. A planted file of that name (or any other) is neither written nor used.
 */
START_TEST(temporary_name_is_not_predictable)
{
	struct stat st;

	put("r.json.tmp", "planted\n");
	put(".r.json.lathound-XXXXXX", "planted\n");
	ck_assert_int_eq(lh_lockfile_write_buf(dfd, "r.json", "r.json", "report\n", 7, &diag), 0);
	ck_assert_str_eq(slurp("r.json"), "report\n");
	ck_assert_str_eq(slurp("r.json.tmp"), "planted\n");
	ck_assert_str_eq(slurp(".r.json.lathound-XXXXXX"), "planted\n");
	ck_assert_int_eq(stat(path_of("r.json"), &st), 0);
	ck_assert_uint_eq(st.st_nlink, 1);
}
END_TEST

START_TEST(write_path)
{
	char path[PATH_MAX], cwd[PATH_MAX];

	snprintf(path, sizeof(path), "%s/p.txt", dir);
	ck_assert_int_eq(lh_lockfile_write_path(path, "report 'p.txt'", write_text, "p\n", &diag),
			 0);
	ck_assert_str_eq(slurp("p.txt"), "p\n");
	/* a bare name is in the current directory */
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(dir), 0);
	ck_assert_int_eq(lh_lockfile_write_path("q.txt", "q", write_text, "q\n", &diag), 0);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_str_eq(slurp("q.txt"), "q\n");
	/* a directory that does not exist */
	snprintf(path, sizeof(path), "%s/no/such.txt", dir);
	errno = 0;
	ck_assert_int_eq(lh_lockfile_write_path(path, "report 'such.txt'", write_text, "", &diag),
			 -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_diag("cannot write report 'such.txt': No such file or directory");
	/* a path naming a directory */
	snprintf(path, sizeof(path), "%s/", dir);
	ck_assert_int_eq(lh_lockfile_write_path(path, "d", write_text, "", &diag), -1);
	ck_diag("cannot write d: it is a directory");
	ck_assert_str_eq(listing(), "p.txt q.txt");
}
END_TEST

/* The longest name a file system takes still gets a temporary file beside it. */
START_TEST(long_names)
{
	char name[NAME_MAX + 1];

	memset(name, 'n', NAME_MAX);
	name[NAME_MAX] = '\0';
	ck_assert_int_eq(lh_lockfile_write_buf(dfd, name, "long", "x", 1, &diag), 0);
	ck_assert_str_eq(slurp(name), "x");
	ck_assert_str_eq(listing(), name);
}
END_TEST

static void plant(const char *name)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL, 0600);

	ck_assert_int_ge(fd, 0);
	close(fd);
}

START_TEST(clean_removes_only_stale_temporary_files)
{
	int held;
	pid_t pid;
	int status;

	plant(".r.json.lathound-Ab12Cd");	/* r.json's, left by a killed run */
	plant(".r.json.lathound-Ef34Gh");
	plant(".s.json.lathound-Ij56Kl");	/* another target's */
	plant(".r.json.lathound-Ab1");		/* not the pattern: too short */
	plant(".r.json.lathound-Ab12C!");	/* nor this */
	plant("r.json.backup");			/* the user's */
	plant(".r.json.lathound-L1ve00");	/* being written: held */
	held = openat(dfd, ".r.json.lathound-L1ve00", O_RDONLY);
	ck_assert_int_eq(flock(held, LOCK_EX), 0);
	ck_assert_int_eq(symlinkat("/etc/passwd", dfd, ".r.json.lathound-Link00"), 0);

	ck_assert_int_eq(lh_lockfile_clean(dfd, "r.json"), 2);
	ck_assert_str_eq(listing(),
			 ".r.json.lathound-Ab1 .r.json.lathound-Ab12C! .r.json.lathound-L1ve00 .r.json.lathound-Link00 .s.json.lathound-Ij56Kl r.json.backup");
	/* every target's, when no name is given */
	ck_assert_int_eq(lh_lockfile_clean(dfd, NULL), 1);
	ck_assert_int_eq(access(path_of(".s.json.lathound-Ij56Kl"), F_OK), -1);
	ck_assert_int_eq(access(path_of(".r.json.lathound-L1ve00"), F_OK), 0);
	close(held);

	/* A file of another user is not ours to remove (needs root to make one). */
	if (geteuid() == 0) {
		ck_assert_int_eq(fchownat(dfd, ".r.json.lathound-L1ve00", 65534, 65534, 0), 0);
		ck_assert_int_eq(lh_lockfile_clean(dfd, NULL), 0);
		ck_assert_int_eq(access(path_of(".r.json.lathound-L1ve00"), F_OK), 0);
	}

	/* A writer killed with SIGKILL: its lock goes with it, and its file is then stale. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int fd = openat(dfd, ".k.lathound-Kil1ed", O_WRONLY | O_CREAT | O_EXCL, 0600);

		flock(fd, LOCK_EX);
		kill(getpid(), SIGKILL);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(lh_lockfile_clean(dfd, "k"), 1);
}
END_TEST

static Suite *lockfile_suite(void)
{
	Suite *s = suite_create("lockfile");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, replaces_atomically);
	tcase_add_test(tc, failure_keeps_the_old_file);
	tcase_add_test(tc, refuses_what_is_not_a_regular_file);
	tcase_add_test(tc, temporary_name_is_not_predictable);
	tcase_add_test(tc, write_path);
	tcase_add_test(tc, long_names);
	tcase_add_test(tc, clean_removes_only_stale_temporary_files);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(lockfile_suite)
