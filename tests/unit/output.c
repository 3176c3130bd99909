// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests of the output directory (src/kernel/output.c): atomic replacement, disk budget. */
#include <check.h>
#include <fcntl.h>
#include <sys/file.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "kernel/output.h"
#include "check-main.h"
#include "test-dir.h"

static char base[64];
static char dir[128];
static struct lh_diag diag;

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/lh-output-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(dir, sizeof(dir), "%s/out", base);
	memset(&diag, 0, sizeof(diag));
}

static void teardown(void)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", base);
	lh_diag_release(&diag);
}

static struct lh_output *open_out(uint64_t budget, unsigned long max)
{
	struct lh_output_opts o = { .dir = dir, .disk_budget = budget, .max_snapshots = max };
	struct lh_output *out;

	ck_assert_int_eq(lh_output_open(&out, &o, &diag), 0);
	return out;
}

/* Return: the content of path (static buffer), "" when it cannot be read. */
static const char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Return: true when DIR/sub/name exists (sub may be ""). */
static bool exists_in(const char *sub, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s%s%s", dir, sub, *sub ? "/" : "", name);
	return stat(path, &st) == 0;
}

/* Return: true when DIR/sub holds a file whose name starts with '.' (a temporary file). */
static bool temp_in(const char *sub)
{
	char path[256];
	int hidden;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	dir_entries(path, &hidden);
	return hidden > 0;
}

static bool snap_exists(const char *name)
{
	return exists_in("snapshots", name);
}

static int write_text(FILE *f, void *arg)
{
	return fputs(arg, f) < 0 ? -1 : 0;
}

/* A writer that starts, then fails as a full disk would. */
static int write_enospc(FILE *f, void *arg)
{
	fputs("{\"partial\":", f);
	errno = ENOSPC;
	return -1;
}

static bool diag_has(const char *needle)
{
	size_t i;

	for (i = 0; i < diag.nr; i++)
		if (strstr(diag.msgs[i].text, needle))
			return true;
	return false;
}

START_TEST(replace_writes_and_leaves_no_temp)
{
	struct lh_output *out = open_out(1024, 10);
	char path[256];

	ck_assert_int_eq(lh_output_replace(out, "report.json", write_text, "{\"a\":1}\n", &diag), 0);
	snprintf(path, sizeof(path), "%s/report.json", dir);
	ck_assert_str_eq(slurp(path), "{\"a\":1}\n");
	ck_assert_int_eq(lh_output_replace(out, "report.json", write_text, "{\"a\":2}\n", &diag), 0);
	ck_assert_str_eq(slurp(path), "{\"a\":2}\n");
	ck_assert(!temp_in(""));
	ck_assert_uint_eq(diag.nr, 0);
	lh_output_free(out);
}
END_TEST

START_TEST(failed_replace_keeps_old_file)
{
	struct lh_output *out = open_out(1024, 10);
	char path[256];

	ck_assert_int_eq(lh_output_replace(out, "report.json", write_text, "old\n", &diag), 0);
	errno = 0;
	ck_assert_int_eq(lh_output_replace(out, "report.json", write_enospc, NULL, &diag), -1);
	ck_assert_int_eq(errno, ENOSPC);
	snprintf(path, sizeof(path), "%s/report.json", dir);
	ck_assert_str_eq(slurp(path), "old\n");
	ck_assert(!temp_in(""));
	ck_assert(diag_has("cannot write '"));
	ck_assert(diag_has("/report.json': No space left on device"));
	lh_output_free(out);
}
END_TEST

/* A real full disk: a tiny tmpfs in a private mount namespace, gone with the process. */
START_TEST(real_enospc_on_tiny_tmpfs)
{
	char path[256], big[8192];
	struct lh_output *out;
	FILE *f;
	int i;

	if (geteuid() != 0 || unshare(CLONE_NEWNS) ||
	    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) ||
	    mkdir(dir, 0755) || mount("lh-test", dir, "tmpfs", 0, "size=64k")) {
		fprintf(stderr, "# real ENOSPC test skipped: needs root and a private tmpfs mount\n");
		return;
	}
	out = open_out(1 << 20, 100);
	ck_assert_int_eq(lh_output_replace(out, "report.json", write_text, "old\n", &diag), 0);
	/* Fill the file system. */
	snprintf(path, sizeof(path), "%s/filler", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	memset(big, 'x', sizeof(big));
	for (i = 0; i < 64; i++)
		if (fwrite(big, 1, sizeof(big), f) != sizeof(big) || fflush(f))
			break;
	fclose(f);
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(lh_output_replace(out, "report.json", write_text, big, &diag), -1);
	ck_assert(errno == ENOSPC);
	snprintf(path, sizeof(path), "%s/report.json", dir);
	ck_assert_str_eq(slurp(path), "old\n");
	ck_assert(!temp_in(""));
	ck_assert(diag_has("No space left on device"));
	/* A snapshot that cannot be written: counted as dropped, no partial file left. */
	{
		struct lh_snapshot_meta m = { .name = "s1.trace", .signature = 1, .latency_us = 9 };

		ck_assert_int_eq(lh_output_snapshot(out, &m, big, sizeof(big), &diag), -1);
		ck_assert_uint_eq(lh_output_dropped(out), 1);
		ck_assert_uint_eq(lh_output_kept(out), 0);
		ck_assert(!snap_exists("s1.trace"));
		ck_assert(!temp_in("snapshots"));
	}
	/* Space comes back: the next replacement works. */
	snprintf(path, sizeof(path), "%s/filler", dir);
	unlink(path);
	ck_assert_int_eq(lh_output_replace(out, "report.json", write_text, "new\n", &diag), 0);
	snprintf(path, sizeof(path), "%s/report.json", dir);
	ck_assert_str_eq(slurp(path), "new\n");
	lh_output_free(out);
	umount(dir);
}
END_TEST

START_TEST(open_refuses_a_previous_report)
{
	struct lh_output *out = open_out(1024, 10);

	ck_assert_int_eq(lh_output_replace(out, "report.json", write_text, "{}\n", &diag), 0);
	lh_output_free(out);
	{
		struct lh_output_opts o = { .dir = dir, .disk_budget = 1, .max_snapshots = 1 };

		ck_assert_int_eq(lh_output_open(&out, &o, &diag), -1);
		ck_assert(diag_has("already holds a report"));
	}
}
END_TEST

START_TEST(open_errors_and_discard)
{
	struct lh_output_opts o = { .dir = "/nonexistent-parent/x", .disk_budget = 1 };
	struct lh_output *out;
	struct stat st;

	ck_assert_int_eq(lh_output_open(&out, &o, &diag), -1);
	ck_assert(diag_has("cannot create output directory '/nonexistent-parent/x'"));
	/* A directory this run created and left empty is removed on discard... */
	out = open_out(1024, 10);
	lh_output_discard(out);
	lh_output_free(out);
	ck_assert_int_ne(stat(dir, &st), 0);
	/* ...but one that existed before is kept. */
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	out = open_out(1024, 10);
	lh_output_discard(out);
	lh_output_free(out);
	ck_assert_int_eq(stat(dir, &st), 0);
}
END_TEST

static char hundred[101];

static int snap(struct lh_output *out, const char *name, uint64_t sig, uint64_t us, bool hit)
{
	struct lh_snapshot_meta m = { .name = name, .signature = sig, .latency_us = us,
				      .rule_hit = hit };

	memset(hundred, 'a', 100);
	return lh_output_snapshot(out, &m, hundred, 100, &diag);
}

START_TEST(budget_eviction_order)
{
	struct lh_output *out = open_out(300, 100);	/* room for three */

	ck_assert_int_eq(snap(out, "A", 1, 10, false), 1);
	ck_assert_int_eq(snap(out, "B", 1, 20, false), 1);	/* worst of sig 1; A is plain */
	ck_assert_int_eq(snap(out, "C", 2, 5, false), 1);	/* worst of sig 2 */
	ck_assert_uint_eq(lh_output_bytes(out), 300);
	/* A rule hit needs room: the plain capture A goes first. */
	ck_assert_int_eq(snap(out, "D", 1, 15, true), 1);
	ck_assert(!snap_exists("A"));
	ck_assert(snap_exists("B") && snap_exists("C"));
	ck_assert_uint_eq(lh_output_dropped(out), 1);
	/* A new signature's worst at 1us is worth less than every stored one: not stored. */
	ck_assert_int_eq(snap(out, "E", 3, 1, false), 0);
	ck_assert(!snap_exists("E"));
	ck_assert_uint_eq(lh_output_dropped(out), 2);
	/* A plain capture never displaces a signature's worst. */
	ck_assert_int_eq(snap(out, "F", 1, 12, false), 0);
	ck_assert_uint_eq(lh_output_dropped(out), 3);
	/* A longer worst of sig 2 replaces the shorter worst C. */
	ck_assert_int_eq(snap(out, "G", 2, 50, false), 1);
	ck_assert(!snap_exists("C") && snap_exists("G"));
	ck_assert_uint_eq(lh_output_dropped(out), 4);
	/* Rule hits are kept over everything else: H evicts the worst-of-signature B (20us)... */
	ck_assert_int_eq(snap(out, "H", 4, 1, true), 1);
	ck_assert(!snap_exists("B"));
	/* ...then G, and a third rule hit finds only rule hits: the shortest one goes. */
	ck_assert_int_eq(snap(out, "I", 5, 2, true), 1);
	ck_assert(!snap_exists("G"));
	ck_assert_int_eq(snap(out, "J", 6, 30, true), 1);
	ck_assert(!snap_exists("H"));
	ck_assert(snap_exists("D") && snap_exists("I") &&
		  snap_exists("J"));
	ck_assert_uint_eq(lh_output_kept(out), 3);
	ck_assert_uint_eq(lh_output_bytes(out), 300);
	ck_assert_uint_eq(lh_output_dropped(out), 7);
	lh_output_free(out);
}
END_TEST

START_TEST(worst_moves_on_eviction)
{
	struct lh_output *out = open_out(300, 100);

	/* X2 is plain while X1 is the worst of sig 7: X2 goes first, then X1 (40us < Y). */
	ck_assert_int_eq(snap(out, "X1", 7, 40, false), 1);
	ck_assert_int_eq(snap(out, "X2", 7, 30, false), 1);
	ck_assert_int_eq(snap(out, "Y", 8, 100, false), 1);	/* worst of sig 8 */
	ck_assert_int_eq(snap(out, "R1", 9, 1, true), 1);	/* evicts X2 (plain) */
	ck_assert(!snap_exists("X2"));
	ck_assert_int_eq(snap(out, "R2", 9, 2, true), 1);	/* evicts X1 (worst, 40us) */
	ck_assert(!snap_exists("X1") && snap_exists("Y"));
	ck_assert_uint_eq(lh_output_dropped(out), 2);
	lh_output_free(out);
}
END_TEST

START_TEST(count_cap_and_oversize)
{
	struct lh_output *out = open_out(1 << 20, 2);
	char big[2048];
	struct lh_snapshot_meta m = { .name = "big", .signature = 1, .latency_us = 1000 };

	ck_assert_int_eq(snap(out, "a", 1, 10, false), 1);
	ck_assert_int_eq(snap(out, "b", 2, 20, false), 1);
	ck_assert_int_eq(snap(out, "c", 3, 30, false), 1);	/* evicts a (10us) */
	ck_assert_uint_eq(lh_output_kept(out), 2);
	ck_assert(!snap_exists("a"));
	lh_output_free(out);

	/* A snapshot larger than the whole budget is dropped without touching the others. */
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "2");
	out = open_out(1000, 10);
	ck_assert_int_eq(snap(out, "small", 1, 10, false), 1);
	memset(big, 'b', sizeof(big));
	ck_assert_int_eq(lh_output_snapshot(out, &m, big, sizeof(big), &diag), 0);
	ck_assert_uint_eq(lh_output_dropped(out), 1);
	ck_assert_uint_eq(lh_output_kept(out), 1);
	lh_output_free(out);

	/* A zero budget keeps nothing and counts everything. */
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "3");
	out = open_out(0, 10);
	ck_assert_int_eq(snap(out, "z", 1, 10, true), 0);
	ck_assert_uint_eq(lh_output_dropped(out), 1);
	lh_output_free(out);
}
END_TEST

START_TEST(snapshot_content)
{
	struct lh_output *out = open_out(1000, 10);
	struct lh_snapshot_meta m = { .name = "capture-000001-irqsoff-2002us.trace",
				      .signature = 1, .latency_us = 2002 };
	char path[256];

	ck_assert_int_eq(lh_output_snapshot(out, &m, "# tracer: irqsoff\n", 18, &diag), 1);
	snprintf(path, sizeof(path), "%s/snapshots/%s", dir, m.name);
	ck_assert_str_eq(slurp(path), "# tracer: irqsoff\n");
	ck_assert_str_eq(lh_output_dir(out), dir);
	lh_output_free(out);
}
END_TEST

/*
 * An output directory is never reached through a symbolic link planted where it is named
 * (another user's link to a root-only directory), nor is snapshots/ in it.
 */
START_TEST(open_refuses_a_link)
{
	struct lh_output_opts o = { .dir = dir, .disk_budget = 1000, .max_snapshots = 10 };
	char target[128], path[256];
	struct lh_output *out;

	snprintf(target, sizeof(target), "%s/private", base);
	ck_assert_int_eq(mkdir(target, 0700), 0);
	ck_assert_int_eq(symlink(target, dir), 0);
	ck_assert_int_eq(lh_output_open(&out, &o, &diag), -1);
	ck_assert(diag_has("is a symbolic link: refusing to follow it"));
	unlink(dir);

	/* snapshots/ planted as a link in an existing directory */
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/snapshots", dir);
	ck_assert_int_eq(symlink(target, path), 0);
	out = open_out(1000, 10);
	ck_assert_int_eq(snap(out, "s", 1, 10, false), -1);
	ck_assert(diag_has("/snapshots' is a symbolic link: refusing to follow it"));
	ck_assert_uint_eq(lh_output_dropped(out), 1);
	/* a report file planted as a link is not written through either */
	snprintf(path, sizeof(path), "%s/report.txt", dir);
	snprintf(target + strlen(target), sizeof(target) - strlen(target), "/secret");
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(lh_output_replace(out, "report.txt", write_text, "x\n", &diag), -1);
	ck_assert(diag_has("report.txt': it is a symbolic link, and only a regular file is replaced"));
	ck_assert_int_ne(access(target, F_OK), 0);
	lh_output_free(out);
}
END_TEST

/* Temporary files a killed run left are removed when the directory is used again. */
START_TEST(open_removes_stale_temporary_files)
{
	char path[256], live[256];
	struct lh_output *out;
	int fd, held;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/snapshots", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/.report.json.lathound-Ab12Cd", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/snapshots/.capture-000001.trace.lathound-zz99ZZ", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* one still being written (held) stays */
	snprintf(live, sizeof(live), "%s/.report.txt.lathound-L1ve00", dir);
	held = open(live, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(held, 0);
	ck_assert_int_eq(flock(held, LOCK_EX), 0);

	out = open_out(1000, 10);
	ck_assert(!exists_in("", ".report.json.lathound-Ab12Cd"));
	ck_assert(exists_in("", ".report.txt.lathound-L1ve00"));
	ck_assert_int_eq(snap(out, "s", 1, 10, false), 1);
	ck_assert(!exists_in("snapshots", ".capture-000001.trace.lathound-zz99ZZ"));
	lh_output_free(out);
	close(held);
}
END_TEST

static Suite *output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, replace_writes_and_leaves_no_temp);
	tcase_add_test(tc, failed_replace_keeps_old_file);
	tcase_add_test(tc, real_enospc_on_tiny_tmpfs);
	tcase_add_test(tc, open_refuses_a_previous_report);
	tcase_add_test(tc, open_errors_and_discard);
	tcase_add_test(tc, budget_eviction_order);
	tcase_add_test(tc, worst_moves_on_eviction);
	tcase_add_test(tc, count_cap_and_oversize);
	tcase_add_test(tc, snapshot_content);
	tcase_add_test(tc, open_refuses_a_link);
	tcase_add_test(tc, open_removes_stale_temporary_files);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(output_suite)
