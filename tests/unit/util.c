// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the shared helpers (src/util/util.c): durations both ways, the diagnostics list,
 * the string arena, the hashes, and reading and writing an fd whole.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "check-main.h"

typedef int (*parse_fn)(const char *s, uint64_t *ns, const char **err);

/* Return: what f (lh_duration_parse, lh_budget_parse) makes of s, which it must take. */
static uint64_t parsed(parse_fn f, const char *s)
{
	const char *err = NULL;
	uint64_t ns = 0;

	ck_assert_msg(!f(s, &ns, &err), "'%s': %s", s, err);
	return ns;
}

/* Return: why f refuses s, which it must refuse without touching the result. */
static const char *refused(parse_fn f, const char *s)
{
	const char *err = NULL;
	uint64_t ns = 12345;

	ck_assert_msg(f(s, &ns, &err) == -1, "'%s' parsed as %llu", s, (unsigned long long)ns);
	ck_assert_ptr_nonnull(err);
	ck_assert_uint_eq(ns, 12345);
	return err;
}

#define dur(s)		parsed(lh_duration_parse, s)
#define dur_err(s)	refused(lh_duration_parse, s)
#define budget(s)	parsed(lh_budget_parse, s)
#define budget_err(s)	refused(lh_budget_parse, s)

START_TEST(duration_parse)
{
	ck_assert_uint_eq(dur("250ns"), 250);
	ck_assert_uint_eq(dur("500us"), 500000);
	ck_assert_uint_eq(dur("2ms"), 2000000);
	ck_assert_uint_eq(dur("1.5s"), 1500000000);
	ck_assert_uint_eq(dur("10m"), 600000000000ULL);
	ck_assert_uint_eq(dur("12h"), 43200000000000ULL);
	/* a run length: a bare number is seconds, as rtla's and cyclictest's -d/-D */
	ck_assert_uint_eq(dur("12"), 12000000000ULL);
	ck_assert_uint_eq(dur("1.5"), 1500000000ULL);
	ck_assert_uint_eq(dur("0"), 0);
	ck_assert_uint_eq(dur(".5us"), 500);
	ck_assert_uint_eq(dur("1e3us"), 1000000);
	ck_assert_uint_eq(dur("1.4ns"), 1);		/* rounded to the nearest ns */
	ck_assert_uint_eq(dur("1.5ns"), 2);
	/* The largest durations a uint64_t of ns holds, exactly where it matters. */
	ck_assert_uint_eq(dur("18446744073709549568ns"), 18446744073709549568ULL);
	ck_assert_uint_eq(dur("9300000000s"), 9300000000000000000ULL);
}
END_TEST

START_TEST(duration_parse_errors)
{
	ck_assert_str_eq(dur_err(""), "empty duration");
	ck_assert_ptr_nonnull(strstr(dur_err("-1ms"), "positive"));
	ck_assert_ptr_nonnull(strstr(dur_err("+1ms"), "positive"));
	ck_assert_ptr_nonnull(strstr(dur_err(" 5ms"), "positive"));
	ck_assert_ptr_nonnull(strstr(dur_err("\t5ms"), "positive"));
	ck_assert_ptr_nonnull(strstr(dur_err("ms"), "positive"));
	ck_assert_ptr_nonnull(strstr(dur_err("5 ms"), "unit"));
	ck_assert_ptr_nonnull(strstr(dur_err("1parsec"), "unit"));
	ck_assert_ptr_nonnull(strstr(dur_err("5MS"), "unit"));
	/* strtod() would take these: a duration is decimal */
	dur_err("0x10ms");
	dur_err("0x1p3us");
	dur_err("nan");
	dur_err("inf");
	dur_err("1e999s");
	/* Past 2^64 ns: refused, never wrapped or clamped (llround() overflowed at 2^63). */
	ck_assert_str_eq(dur_err("18446744073709551616ns"), "duration too large");
	ck_assert_str_eq(dur_err("9999999999999999999999ns"), "duration too large");
	ck_assert_str_eq(dur_err("5124096h"), "duration too large");
	ck_assert_str_eq(dur_err("1e19s"), "duration too large");
}
END_TEST

/* Budgets: a bare number is µs (tracing_thresh), and what cannot be a latency is refused. */
START_TEST(budget_parse)
{
	ck_assert_uint_eq(budget("150"), 150000);
	ck_assert_uint_eq(budget("1ms"), 1000000);
	ck_assert_uint_eq(budget("1500ns"), 1500);
	ck_assert_uint_eq(budget("999ms"), 999000000);
	ck_assert_uint_eq(budget("999999"), 999999000);
	/* "--max irqsoff=1m", meant as 1 ms, was a minute */
	ck_assert_str_eq(budget_err("1m"),
			 "'m' is minutes, and a latency budget is under 1s: did you mean 'ms'?");
	ck_assert_ptr_nonnull(strstr(budget_err("1s"), "did you mean ms or us?"));
	ck_assert_ptr_nonnull(strstr(budget_err("1000ms"), "under 1s"));
	ck_assert_ptr_nonnull(strstr(budget_err("1h"), "under 1s"));
	ck_assert_ptr_nonnull(strstr(budget_err("1000000"), "a bare number is microseconds"));
	ck_assert_ptr_nonnull(strstr(budget_err("0"), "0 is not a latency budget"));
	ck_assert_ptr_nonnull(strstr(budget_err("0us"), "0 is not a latency budget"));
	ck_assert_ptr_nonnull(strstr(budget_err("0.4ns"), "0 is not a latency budget"));
	/* the syntax is the same as a run length's */
	ck_assert_str_eq(budget_err(""), "empty duration");
	ck_assert_ptr_nonnull(strstr(budget_err("1parsec"), "unit"));
	ck_assert_ptr_nonnull(strstr(budget_err("-1ms"), "positive"));
}
END_TEST

START_TEST(duration_format)
{
	static const struct {
		uint64_t	ns;
		const char	*text;
	} cases[] = {
		{ 0, "0us" }, { 1, "1ns" }, { 1500, "1500ns" }, { 2000, "2us" },
		{ 1500000, "1500us" }, { 2000000, "2ms" }, { 1500000000, "1500ms" },
		{ 90000000000ULL, "90s" }, { 600000000000ULL, "10m" },
		{ 43200000000000ULL, "12h" },
	};
	char buf[32];
	uint64_t ns;
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(cases); i++) {
		ck_assert_str_eq(lh_duration_format(cases[i].ns, buf, sizeof(buf)),
				 cases[i].text);
		/* what it writes parses back to the same value */
		ns = dur(buf);
		ck_assert_uint_eq(ns, cases[i].ns);
	}
	ck_assert_str_eq(lh_duration_format(UINT64_MAX, buf, sizeof(buf)),
			 "18446744073709551615ns");
}
END_TEST

START_TEST(diag_keeps_and_counts)
{
	struct lh_diag d = { 0 };
	unsigned int i;

	lh_diag_add(&d, LH_DIAG_WARNING, "f.trace:%d: %s", 12, "odd line");
	lh_diag_add(&d, LH_DIAG_ERROR, "cannot open '%s'", "x");
	ck_assert_uint_eq(d.nr, 2);
	ck_assert_uint_eq(d.warnings, 1);
	ck_assert_uint_eq(d.errors, 1);
	ck_assert_str_eq(d.msgs[0].text, "f.trace:12: odd line");
	ck_assert_int_eq(d.msgs[1].level, LH_DIAG_ERROR);
	for (i = 0; i < 2 * LH_DIAG_KEEP; i++)
		lh_diag_add(&d, LH_DIAG_WARNING, "w%u", i);
	ck_assert_uint_eq(d.nr, LH_DIAG_KEEP);		/* bounded text */
	ck_assert_uint_eq(d.warnings, 1 + 2 * LH_DIAG_KEEP);	/* every one counted */
	lh_diag_release(&d);
	ck_assert_uint_eq(d.nr, 0);
	ck_assert_uint_eq(d.warnings + d.errors, 0);
	ck_assert_ptr_null(d.msgs);
	lh_diag_release(&d);				/* again: harmless */
}
END_TEST

START_TEST(arena_reuses_memory)
{
	struct lh_arena a = { 0 };
	char *p, *big, *first;
	size_t i;

	first = lh_arena_strdup(&a, "hello");
	ck_assert_str_eq(first, "hello");
	p = lh_arena_strndup(&a, "worldwide", 5);
	ck_assert_str_eq(p, "world");
	ck_assert_uint_eq((uintptr_t)p % 8, 0);
	ck_assert_str_eq(first, "hello");		/* never moves */
	big = lh_arena_alloc(&a, 200000);		/* larger than a block */
	memset(big, 'x', 200000);
	for (i = 0; i < 10000; i++)
		lh_arena_strdup(&a, "some text that fills blocks");
	ck_assert_str_eq(first, "hello");
	ck_assert_str_eq(p, "world");

	/* Once warm, a reset arena hands out the same memory again. */
	lh_arena_reset(&a);
	ck_assert_uint_eq(a.used, 0);
	ck_assert_ptr_eq(lh_arena_strdup(&a, "again"), first);
	lh_arena_release(&a);
	ck_assert_ptr_null(a.first);
	lh_arena_release(&a);
}
END_TEST

START_TEST(grow)
{
	size_t *v = NULL, alloc = 0, i;

	for (i = 0; i < 1000; i++) {
		LH_GROW(v, i + 1, alloc);
		v[i] = i;
	}
	ck_assert_uint_ge(alloc, 1000);
	LH_GROW(v, 10, alloc);				/* never shrinks */
	ck_assert_uint_ge(alloc, 1000);
	ck_assert_uint_eq(v[999], 999);
	free(v);
}
END_TEST

/* A size that overflows is out of memory (exit 1, atexit handlers run), never a short buffer. */
START_TEST(grow_overflow_exits)
{
	uint64_t *v = NULL;
	size_t alloc = 0;

	LH_GROW(v, SIZE_MAX / 4, alloc);
}
END_TEST

START_TEST(xasprintf)
{
	char *s = lh_xasprintf("%s-%d", "irq_test", 82);

	ck_assert_str_eq(s, "irq_test-82");
	free(s);
}
END_TEST

START_TEST(hashes)
{
	/* FNV-1a's published test vector, and a seed that changes it */
	ck_assert_uint_eq(lh_hash("a", 1, 0), 0xaf63dc4c8601ec8cULL);
	ck_assert_uint_ne(lh_hash("a", 1, 1), lh_hash("a", 1, 0));
	/* the fast hash: equal texts agree, every length and byte counts */
	ck_assert_uint_eq(lh_hash_fast("do_idle_loop", 12, 0), lh_hash_fast("do_idle_loop", 12, 0));
	ck_assert_uint_ne(lh_hash_fast("do_idle_loop", 12, 0), lh_hash_fast("do_idle_loop", 11, 0));
	ck_assert_uint_ne(lh_hash_fast("do_idle_loop", 12, 0), lh_hash_fast("do_idle_lool", 12, 0));
	ck_assert_uint_ne(lh_hash_fast("", 0, 0), lh_hash_fast("", 0, 1));
}
END_TEST

/*
 * The fast hash reads a tail from the 8 bytes that end the text: the hash of s[0..len) is
 * that of its bytes alone (the same text amid other bytes, at any alignment, hashes the same),
 * and each of its bytes counts, for every length around the 8-byte steps.
 */
START_TEST(hash_fast_tail)
{
	char a[64], b[80];
	size_t len, off, i;
	uint64_t h;

	for (len = 0; len <= 40; len++) {
		memset(a, 'x', sizeof(a));
		for (i = 0; i < len; i++)
			a[8 + i] = (char)('a' + (i * 7) % 26);
		h = lh_hash_fast(a + 8, len, 3);
		for (off = 0; off < 16; off++) {
			memset(b, (int)('A' + off), sizeof(b));
			memcpy(b + 8 + off, a + 8, len);
			ck_assert_msg(lh_hash_fast(b + 8 + off, len, 3) == h,
				      "length %zu at offset %zu: the bytes around it count",
				      len, off);
		}
		for (i = 0; i < len; i++) {
			a[8 + i] ^= 1;
			ck_assert_msg(lh_hash_fast(a + 8, len, 3) != h,
				      "length %zu: byte %zu does not count", len, i);
			a[8 + i] ^= 1;
		}
	}
}
END_TEST

/* Writes n bytes of a repeating pattern into a temporary file. Return: its fd, at offset 0. */
static int pattern_file(size_t n)
{
	char tmpl[] = "/tmp/lh-util-XXXXXX", *buf = lh_xmalloc(n);
	int fd = mkstemp(tmpl);
	size_t i;

	ck_assert_int_ge(fd, 0);
	unlink(tmpl);
	for (i = 0; i < n; i++)
		buf[i] = "0123456789"[i % 10];
	ck_assert_int_eq(lh_write_fd(fd, buf, n), 0);
	free(buf);
	ck_assert_int_eq(lseek(fd, 0, SEEK_END), (off_t)n);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

START_TEST(read_write_fd)
{
	size_t alloc = 0, len = 12345, i;
	char *buf = NULL;
	int fd;

	/* past several growth steps, NUL-terminated, every byte where it belongs */
	fd = pattern_file(200000);
	ck_assert_int_eq(lh_read_fd(fd, &buf, &alloc, &len, SIZE_MAX), 0);
	ck_assert_uint_eq(len, 200000);
	ck_assert_int_eq(buf[len], '\0');
	for (i = 0; i < len; i++)
		ck_assert_int_eq(buf[i], "0123456789"[i % 10]);
	close(fd);
	/* the buffer is reused: an empty input gives an empty string */
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(lh_read_fd(fd, &buf, &alloc, &len, SIZE_MAX), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_str_eq(buf, "");
	close(fd);
	free(buf);
	/* the bound: EFBIG, not a truncated read */
	buf = NULL;
	alloc = 0;
	fd = pattern_file(200000);
	errno = 0;
	ck_assert_int_eq(lh_read_fd(fd, &buf, &alloc, &len, 100000), -1);
	ck_assert_int_eq(errno, EFBIG);
	close(fd);
	free(buf);
}
END_TEST

/* One overflow policy: a sum stays at its largest and says so, whatever its width. */
START_TEST(add_checked)
{
	uint64_t a = UINT64_MAX - 1;
	uint32_t b = UINT32_MAX - 1;
	unsigned long c = 5;

	ck_assert_int_eq(LH_ADD_CHECKED(a, 1), 0);
	ck_assert_uint_eq(a, UINT64_MAX);
	ck_assert_int_eq(LH_ADD_CHECKED(a, 1), -1);
	ck_assert_uint_eq(a, UINT64_MAX);
	ck_assert_int_eq(LH_ADD_CHECKED(b, 2), -1);
	ck_assert_uint_eq(b, UINT32_MAX);
	ck_assert_int_eq(LH_ADD_CHECKED(c, 7), 0);
	ck_assert_uint_eq(c, 12);
	ck_assert_uint_eq(lh_sat_add(UINT64_MAX - 2, 5), UINT64_MAX);
	ck_assert_uint_eq(lh_sat_add(2, 5), 7);
}
END_TEST

static Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("util");

	tcase_add_test(tc, duration_parse);
	tcase_add_test(tc, duration_parse_errors);
	tcase_add_test(tc, budget_parse);
	tcase_add_test(tc, duration_format);
	tcase_add_test(tc, diag_keeps_and_counts);
	tcase_add_test(tc, arena_reuses_memory);
	tcase_add_test(tc, grow);
	tcase_add_exit_test(tc, grow_overflow_exits, 1);
	tcase_add_test(tc, xasprintf);
	tcase_add_test(tc, hashes);
	tcase_add_test(tc, hash_fast_tail);
	tcase_add_test(tc, read_write_fd);
	tcase_add_test(tc, add_checked);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(util_suite)
