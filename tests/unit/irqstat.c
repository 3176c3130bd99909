// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests of the per-IRQ statistics core (src/trace/irqstat.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/irqstat.h"
#include "check-main.h"

static struct lh_irqstat *st;

static void setup(void)
{
	st = lh_irqstat_alloc();
}

static void teardown(void)
{
	lh_irqstat_free(st);
	st = NULL;
}

/* Return: the entry for (cpu, irq, name), or NULL. */
static const struct lh_irqstat_entry *find(int cpu, int irq, const char *name)
{
	size_t i;

	for (i = 0; i < lh_irqstat_count(st); i++) {
		const struct lh_irqstat_entry *e = lh_irqstat_get(st, i);

		if (e->cpu == cpu && e->irq == irq && !strcmp(e->name, name))
			return e;
	}
	return NULL;
}

START_TEST(pairs_per_cpu)
{
	const struct lh_irqstat_entry *e;

	/* Interleaved on two CPUs: each exit pairs with its own CPU's entry. */
	lh_irqstat_entry(st, 0, 24, "fakeraid", 1000);
	lh_irqstat_entry(st, 1, 24, "fakeraid", 1500);
	lh_irqstat_exit(st, 1, 24, 1700);
	lh_irqstat_exit(st, 0, 24, 4000);
	ck_assert_uint_eq(lh_irqstat_count(st), 2);
	e = find(0, 24, "fakeraid");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->count, 1);
	ck_assert_uint_eq(e->max_ns, 3000);
	e = find(1, 24, "fakeraid");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->max_ns, 200);
	ck_assert_uint_eq(lh_irqstat_events(st), 2);
	ck_assert_uint_eq(lh_irqstat_dropped(st), 0);
}
END_TEST

START_TEST(shared_line_names)
{
	/* Two handlers on one shared line are two entries, named by their entry event. */
	lh_irqstat_entry(st, 0, 11, "ehci_hcd:usb1", 0);
	lh_irqstat_exit(st, 0, 11, 100);
	lh_irqstat_entry(st, 0, 11, "eth0", 200);
	lh_irqstat_exit(st, 0, 11, 500);
	ck_assert_uint_eq(lh_irqstat_count(st), 2);
	ck_assert_uint_eq(find(0, 11, "ehci_hcd:usb1")->sum_ns, 100);
	ck_assert_uint_eq(find(0, 11, "eth0")->sum_ns, 300);
}
END_TEST

START_TEST(nesting)
{
	/* A handler interrupted by another on the same CPU: both are accounted. */
	lh_irqstat_entry(st, 0, 30, "outer", 0);
	lh_irqstat_entry(st, 0, 31, "inner", 100);
	lh_irqstat_exit(st, 0, 31, 150);
	lh_irqstat_exit(st, 0, 30, 1000);
	ck_assert_uint_eq(find(0, 31, "inner")->max_ns, 50);
	ck_assert_uint_eq(find(0, 30, "outer")->max_ns, 1000);
	ck_assert_uint_eq(lh_irqstat_dropped(st), 0);
}
END_TEST

START_TEST(lost_exit_inside_nesting)
{
	/* The inner handler's exit is missing: the outer exit closes both, one is dropped. */
	lh_irqstat_entry(st, 0, 30, "outer", 0);
	lh_irqstat_entry(st, 0, 31, "inner", 100);
	lh_irqstat_exit(st, 0, 30, 1000);
	ck_assert_uint_eq(find(0, 30, "outer")->count, 1);
	ck_assert_uint_eq(find(0, 31, "inner")->count, 0);
	ck_assert_uint_eq(lh_irqstat_dropped(st), 1);
	ck_assert_uint_eq(lh_irqstat_events(st), 1);
}
END_TEST

START_TEST(unmatched_exit)
{
	lh_irqstat_exit(st, 0, 24, 100);		/* nothing pending */
	lh_irqstat_entry(st, 0, 24, "a", 200);
	lh_irqstat_exit(st, 0, 25, 300);		/* another irq's exit */
	lh_irqstat_exit(st, 0, 24, 400);
	ck_assert_uint_eq(lh_irqstat_dropped(st), 2);
	ck_assert_uint_eq(lh_irqstat_events(st), 1);
	ck_assert_uint_eq(find(0, 24, "a")->max_ns, 200);
}
END_TEST

START_TEST(exit_before_entry_time)
{
	/* A timestamp going backwards (clock change) is dropped, not a huge duration. */
	lh_irqstat_entry(st, 0, 24, "a", 1000);
	lh_irqstat_exit(st, 0, 24, 10);
	ck_assert_uint_eq(lh_irqstat_dropped(st), 1);
	ck_assert_uint_eq(find(0, 24, "a")->count, 0);
}
END_TEST

START_TEST(deep_nesting_bounded)
{
	int i;

	/* Entries that never exit: the per-CPU stack stays bounded, overflow is dropped. */
	for (i = 0; i < 100; i++)
		lh_irqstat_entry(st, 0, 24, "a", (uint64_t)i);
	ck_assert_uint_eq(lh_irqstat_dropped(st), 100 - 8);
	lh_irqstat_exit(st, 0, 24, 1000);
	ck_assert_uint_eq(find(0, 24, "a")->max_ns, 1000 - 99);
}
END_TEST

START_TEST(cpu_out_of_range)
{
	lh_irqstat_entry(st, -1, 24, "a", 0);
	lh_irqstat_entry(st, LH_IRQSTAT_MAX_CPUS, 24, "a", 0);
	lh_irqstat_exit(st, LH_IRQSTAT_MAX_CPUS + 5, 24, 10);
	lh_irqstat_add(st, -3, 24, "a", 10);
	ck_assert_uint_eq(lh_irqstat_dropped(st), 4);
	ck_assert_uint_eq(lh_irqstat_count(st), 0);
	/* The highest CPU in range works. */
	lh_irqstat_entry(st, LH_IRQSTAT_MAX_CPUS - 1, 24, "a", 0);
	lh_irqstat_exit(st, LH_IRQSTAT_MAX_CPUS - 1, 24, 10);
	ck_assert_uint_eq(lh_irqstat_events(st), 1);
}
END_TEST

START_TEST(histogram_buckets)
{
	const struct lh_irqstat_entry *e;

	lh_irqstat_add(st, 0, 1, "x", 0);		/* bucket 0 */
	lh_irqstat_add(st, 0, 1, "x", 1);		/* bucket 0: [1, 2) */
	lh_irqstat_add(st, 0, 1, "x", 2);		/* bucket 1: [2, 4) */
	lh_irqstat_add(st, 0, 1, "x", 3);		/* bucket 1 */
	lh_irqstat_add(st, 0, 1, "x", 1024);		/* bucket 10 */
	lh_irqstat_add(st, 0, 1, "x", 2047);		/* bucket 10 */
	lh_irqstat_add(st, 0, 1, "x", 2048);		/* bucket 11 */
	lh_irqstat_add(st, 0, 1, "x", 1ULL << 40);	/* past the last: bucket 31 */
	e = find(0, 1, "x");
	ck_assert_uint_eq(e->hist[0], 2);
	ck_assert_uint_eq(e->hist[1], 2);
	ck_assert_uint_eq(e->hist[10], 2);
	ck_assert_uint_eq(e->hist[11], 1);
	ck_assert_uint_eq(e->hist[LH_IRQSTAT_BUCKETS - 1], 1);
	ck_assert_uint_eq(e->count, 8);
	ck_assert_uint_eq(e->max_ns, 1ULL << 40);
}
END_TEST

START_TEST(mean_and_max)
{
	const struct lh_irqstat_entry *e;

	lh_irqstat_add(st, 2, 40, "nvme0q1", 1000);
	lh_irqstat_add(st, 2, 40, "nvme0q1", 3000);
	lh_irqstat_add(st, 2, 40, "nvme0q1", 2000);
	e = find(2, 40, "nvme0q1");
	ck_assert_uint_eq(e->sum_ns / e->count, 2000);
	ck_assert_uint_eq(e->max_ns, 3000);
}
END_TEST

START_TEST(p99)
{
	struct lh_irqstat_entry e;
	int i;

	/* 99 short runs and 1 long one: the 99th percentile is in the short bucket. */
	memset(&e, 0, sizeof(e));
	for (i = 0; i < 99; i++) {
		e.hist[9]++;		/* [512, 1024) */
		e.count++;
	}
	e.hist[20]++;
	e.count++;
	e.max_ns = 1500000;
	ck_assert_uint_eq(lh_irqstat_p99(&e), 1024);
	/* 2 long runs of 100: the 99th percentile is a long one. */
	e.hist[9]--;
	e.hist[20]++;
	ck_assert_uint_eq(lh_irqstat_p99(&e), 2ULL << 20);
	/* A single run: p99 is its bucket. */
	memset(&e, 0, sizeof(e));
	e.hist[3] = 1;
	e.count = 1;
	ck_assert_uint_eq(lh_irqstat_p99(&e), 16);
	/* Open-ended last bucket: the largest duration seen. */
	memset(&e, 0, sizeof(e));
	e.hist[LH_IRQSTAT_BUCKETS - 1] = 1;
	e.count = 1;
	e.max_ns = 5ULL << 33;
	ck_assert_uint_eq(lh_irqstat_p99(&e), 5ULL << 33);
	/* No runs: 0. */
	memset(&e, 0, sizeof(e));
	ck_assert_uint_eq(lh_irqstat_p99(&e), 0);
}
END_TEST

START_TEST(p99_from_events)
{
	const struct lh_irqstat_entry *e;
	int i;

	/* 1000 runs of 100..1099 ns: the 990th smallest is 1089 ns, in [1024, 2048). */
	for (i = 0; i < 1000; i++)
		lh_irqstat_add(st, 0, 5, "t", 100 + (uint64_t)i);
	e = find(0, 5, "t");
	ck_assert_uint_eq(lh_irqstat_p99(e), 2048);
}
END_TEST

START_TEST(bounded_table)
{
	char name[32];
	int i;

	/* More distinct handlers than the table holds: the excess is counted as dropped. */
	for (i = 0; i < LH_IRQSTAT_MAX + 10; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		lh_irqstat_entry(st, 0, i, name, 0);
		lh_irqstat_exit(st, 0, i, 10);
	}
	ck_assert_uint_eq(lh_irqstat_count(st), LH_IRQSTAT_MAX);
	ck_assert_uint_eq(lh_irqstat_dropped(st), 10);
	ck_assert_uint_eq(lh_irqstat_events(st), LH_IRQSTAT_MAX);
	/* Known handlers are still accounted once the table is full. */
	lh_irqstat_add(st, 0, 7, "h7", 99);
	ck_assert_uint_eq(find(0, 7, "h7")->count, 2);
	ck_assert_uint_eq(lh_irqstat_dropped(st), 10);
}
END_TEST

START_TEST(long_names_truncated)
{
	const char *longname = "a-very-long-interrupt-handler-name-beyond-32";

	lh_irqstat_add(st, 0, 9, longname, 5);
	lh_irqstat_add(st, 0, 9, longname, 7);
	ck_assert_uint_eq(lh_irqstat_count(st), 1);
	ck_assert_uint_eq(strlen(lh_irqstat_get(st, 0)->name), LH_IRQSTAT_NAME - 1);
	ck_assert_uint_eq(lh_irqstat_get(st, 0)->count, 2);
}
END_TEST

START_TEST(lost_events)
{
	lh_irqstat_add_lost(st, 5);
	lh_irqstat_add_lost(st, 7);
	ck_assert_uint_eq(lh_irqstat_lost(st), 12);
	/* A gap on CPU 1 forgets its pending handler: the exit after the gap is unmatched. */
	lh_irqstat_entry(st, 1, 24, "a", 0);
	lh_irqstat_entry(st, 0, 24, "a", 0);
	lh_irqstat_lost_on_cpu(st, 1, 3);
	ck_assert_uint_eq(lh_irqstat_lost(st), 15);
	ck_assert_uint_eq(lh_irqstat_dropped(st), 1);
	lh_irqstat_exit(st, 1, 24, 999999);
	ck_assert_uint_eq(lh_irqstat_dropped(st), 2);
	ck_assert_uint_eq(find(1, 24, "a")->count, 0);
	/* CPU 0 is untouched. */
	lh_irqstat_exit(st, 0, 24, 50);
	ck_assert_uint_eq(find(0, 24, "a")->max_ns, 50);
	/* A CPU never seen: only counted. */
	lh_irqstat_lost_on_cpu(st, 900, 1);
	ck_assert_uint_eq(lh_irqstat_lost(st), 16);
}
END_TEST

START_TEST(sorted_order)
{
	const struct lh_irqstat_entry *e;

	lh_irqstat_add(st, 1, 40, "b", 1);
	lh_irqstat_add(st, 0, 40, "b", 1);
	lh_irqstat_add(st, 0, 40, "a", 1);
	lh_irqstat_add(st, 3, 2, "z", 1);
	lh_irqstat_sort(st);
	e = lh_irqstat_get(st, 0);
	ck_assert_int_eq(e->irq, 2);
	e = lh_irqstat_get(st, 1);
	ck_assert(e->irq == 40 && !strcmp(e->name, "a"));
	e = lh_irqstat_get(st, 2);
	ck_assert(e->irq == 40 && !strcmp(e->name, "b") && e->cpu == 0);
	e = lh_irqstat_get(st, 3);
	ck_assert(e->irq == 40 && !strcmp(e->name, "b") && e->cpu == 1);
	ck_assert_ptr_null(lh_irqstat_get(st, 4));
	/* Sorting keeps accounting working: a pending handler still lands on its entry. */
	lh_irqstat_entry(st, 1, 40, "b", 0);
	lh_irqstat_sort(st);
	lh_irqstat_exit(st, 1, 40, 77);
	ck_assert_uint_eq(find(1, 40, "b")->max_ns, 77);
	ck_assert_uint_eq(lh_irqstat_count(st), 4);
}
END_TEST

static Suite *irqstat_suite(void)
{
	Suite *s = suite_create("irqstat");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pairs_per_cpu);
	tcase_add_test(tc, shared_line_names);
	tcase_add_test(tc, nesting);
	tcase_add_test(tc, lost_exit_inside_nesting);
	tcase_add_test(tc, unmatched_exit);
	tcase_add_test(tc, exit_before_entry_time);
	tcase_add_test(tc, deep_nesting_bounded);
	tcase_add_test(tc, cpu_out_of_range);
	tcase_add_test(tc, histogram_buckets);
	tcase_add_test(tc, mean_and_max);
	tcase_add_test(tc, p99);
	tcase_add_test(tc, p99_from_events);
	tcase_add_test(tc, bounded_table);
	tcase_add_test(tc, long_names_truncated);
	tcase_add_test(tc, lost_events);
	tcase_add_test(tc, sorted_order);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(irqstat_suite)
