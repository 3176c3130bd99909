// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the histogram core (src/kernel/hist.c): the parser of the kernel's 'hist' text
 * (real output captured in the test VM, tests/data/hist/, and hand-made edge cases) and
 * the percentile math.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/hist.h"
#include "check-main.h"

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/hist/%s", LH_TEST_DATA, name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Return: the count of bucket [lo, hi) of cpu in d (0 when absent). */
static uint64_t bin(const struct lh_hist_data *d, int cpu, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		if (d->bins[i].cpu == cpu && d->bins[i].lo_ns == lo && d->bins[i].hi_ns == hi)
			return d->bins[i].count;
	return 0;
}

static uint64_t total(const struct lh_hist_data *d)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < d->nr; i++)
		n += d->bins[i].count;
	return n;
}

static int parse_str(const char *s, struct lh_hist_data *d, struct lh_diag *diag)
{
	return lh_hist_parse(s, strlen(s), "test", d, diag);
}

/* lathound's four tiers, read from the VM after 10 x 5000 us and 5 x 4500 us injected. */
START_TEST(real_tiers)
{
	struct lh_hist_data d = { 0 };
	struct lh_diag diag = { 0 };
	struct lh_histogram h = { 0 };
	size_t len;
	char *buf = slurp("vm-irqsoff.hist", &len);

	ck_assert_int_eq(lh_hist_parse(buf, len, "vm-irqsoff.hist", &d, &diag), 0);
	ck_assert_uint_eq(d.tables, 4);
	ck_assert_uint_eq(d.dropped, 0);
	ck_assert_uint_eq(bin(&d, 0, 5000000, 5100000), 10);
	ck_assert_uint_eq(bin(&d, 0, 4500000, 4600000), 5);
	/* Read while sections went on: entries first, totals after. */
	ck_assert_uint_ge(d.hits, total(&d));
	ck_assert_int_eq(lh_hist_histogram(&d, -1, &h), 0);
	ck_assert_uint_gt(h.count, 1000);
	ck_assert_uint_eq(h.b[h.nr - 1].lo_ns, 5000000);
	ck_assert_uint_eq(h.max_ns, 5100000);
	ck_assert_uint_eq(h.b[0].hi_ns - h.b[0].lo_ns, 1000);
	lh_histogram_release(&h);
	lh_hist_data_release(&d);
	lh_diag_release(&diag);
	free(buf);
}
END_TEST

/* Two CPUs: 200 ms with interrupts off on CPU 1, 300 ms on CPU 0, in log2 buckets. */
START_TEST(real_percpu)
{
	struct lh_hist_data d = { 0 };
	struct lh_diag diag = { 0 };
	struct lh_histogram h = { 0 };
	size_t len;
	char *buf = slurp("vm-smp2-irqsoff.hist", &len);

	ck_assert_int_eq(lh_hist_parse(buf, len, "smp2", &d, &diag), 0);
	lh_hist_clip(&d);
	ck_assert_int_eq(lh_hist_nr_cpus(&d), 2);
	ck_assert_uint_eq(bin(&d, 1, (1ull << 27) + 1, (1ull << 28) + 1), 1);
	ck_assert_uint_eq(bin(&d, 0, (1ull << 28) + 1, (1ull << 29) + 1), 1);
	ck_assert_uint_eq(bin(&d, 0, (1ull << 27) + 1, (1ull << 28) + 1), 0);
	lh_hist_histogram(&d, 1, &h);
	ck_assert_uint_eq(h.max_ns, (1ull << 28) + 1);
	lh_hist_histogram(&d, 0, &h);
	ck_assert_uint_eq(h.max_ns, (1ull << 29) + 1);
	lh_histogram_release(&h);
	lh_hist_data_release(&d);
	lh_diag_release(&diag);
	free(buf);
}
END_TEST

/*
 * A probe's two tables on the same synthetic event (log2 and 1 us buckets, hitcount only),
 * read after the end trigger was removed: both counted every section, 10 fakeraid
 * handlers of 2500 us among them.
 */
START_TEST(real_two_tables)
{
	struct lh_hist_data d = { 0 };
	struct lh_diag diag = { 0 };
	size_t len;
	char *buf = slurp("vm-probe-two-tables.hist", &len);

	ck_assert_int_eq(lh_hist_parse(buf, len, "probe", &d, &diag), 0);
	ck_assert_uint_eq(d.tables, 2);
	ck_assert_uint_eq(d.hits, 2 * 66379);
	ck_assert_uint_eq(total(&d), d.hits);
	ck_assert_uint_eq(bin(&d, 0, 2505000, 2506000), 10);
	/* ~ 2^22: order_base_2(v) == 22, v in (2^21, 2^22]. */
	ck_assert_uint_eq(bin(&d, 0, (1ull << 21) + 1, (1ull << 22) + 1), 13);
	lh_hist_data_release(&d);
	lh_diag_release(&diag);
	free(buf);
}
END_TEST

START_TEST(key_forms)
{
	struct lh_hist_data d = { 0 };
	struct lh_diag diag = { 0 };

	ck_assert_int_eq(parse_str("{ common_cpu:          3, lat: ~ 2^0  } hitcount: 2  lat: 1\n"
				   "{ common_cpu: 3, lat: ~ 2^11 } hitcount:          4  lat: 8000\n"
				   "{ common_cpu: 3, lat: ~ 2^64 } hitcount: 1\n"
				   "{ cpu: 1, lat:       1234 } hitcount: 7 lat: 8638\n"
				   "{ common_cpu: 0, lat: ~ 7000-7999 } hitcount: 1 lat: 7500\n",
				   &d, &diag), 0);
	ck_assert_uint_eq(bin(&d, 3, 0, 2), 2);
	ck_assert_uint_eq(bin(&d, 3, 1025, 2049), 4);
	ck_assert_uint_eq(bin(&d, 3, (1ull << 63) + 1, UINT64_MAX), 1);
	ck_assert_uint_eq(bin(&d, 1, 1234, 1235), 7);
	ck_assert_uint_eq(bin(&d, 0, 7000, 8000), 1);
	ck_assert_uint_eq(d.bins[4].sum_ns, 7500);
	lh_hist_data_release(&d);
	lh_diag_release(&diag);
}
END_TEST

START_TEST(merges_and_totals)
{
	struct lh_hist_data d = { 0 };
	struct lh_diag diag = { 0 };

	ck_assert_int_eq(parse_str("# event histogram\n#\n"
				   "{ common_cpu: 0, lat: ~ 1000-1999 } hitcount: 2 lat: 3000\n"
				   "\nTotals:\n    Hits: 2\n    Entries: 1\n    Dropped: 5\n"
				   "{ common_cpu: 0, lat: ~ 1000-1999 } hitcount: 3 lat: 4500\n"
				   "Totals:\n    Hits: 3\n    Entries: 1\n    Dropped: 1\n",
				   &d, &diag), 0);
	ck_assert_uint_eq(d.nr, 1);
	ck_assert_uint_eq(d.bins[0].count, 5);
	ck_assert_uint_eq(d.bins[0].sum_ns, 7500);
	ck_assert_uint_eq(d.hits, 5);
	ck_assert_uint_eq(d.dropped, 6);
	ck_assert_uint_eq(d.tables, 2);
	lh_hist_data_release(&d);
	lh_diag_release(&diag);
}
END_TEST

START_TEST(malformed)
{
	static const char *const bad[] = {
		"{ common_cpu: 0, lat: ~ 1000-1999 }\n",			/* no hitcount */
		"{ common_cpu: 0 } hitcount: 1\n",				/* no latency */
		"{ lat: 5 } hitcount: 1\n",					/* no CPU */
		"{ common_cpu: x, lat: 5 } hitcount: 1\n",
		"{ common_cpu: 0, lat: ~ 2^65 } hitcount: 1\n",
		"{ common_cpu: 0, lat: ~ 9-3 } hitcount: 1\n",
		"{ common_cpu: 0, lat: 99999999999999999999999 } hitcount: 1\n",
		"{ common_cpu: 0, lat: 5, pid: 3 } hitcount: 1\n",
		"{ common_cpu: 0, lat: 5 } hitcount: -1\n",
		"{ common_cpu: 0, lat: 5\n",
		"    Hits: lots\n",
	};
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(bad); i++) {
		struct lh_hist_data d = { 0 };
		struct lh_diag diag = { 0 };
		char *two = lh_xasprintf("# header\n%s", bad[i]);

		ck_assert_msg(parse_str(two, &d, &diag) == -1, "accepted: %s", bad[i]);
		ck_assert_uint_eq(diag.errors, 1);
		ck_assert_msg(strstr(diag.msgs[0].text, "cannot parse histogram 'test': line 2: "),
			      "%s", diag.msgs[0].text);
		free(two);
		lh_hist_data_release(&d);
		lh_diag_release(&diag);
	}
}
END_TEST

/* Nearest rank over buckets: 90 in [0,1us), 9 in [1,2us), 1 in [5,6us). */
START_TEST(percentiles)
{
	struct lh_hist_bin bins[] = {
		{ 0, 5000, 6000, 1, 5500 },
		{ 0, 0, 1000, 90, 45000 },
		{ 0, 1000, 2000, 9, 13500 },
	};
	struct lh_hist_data d = { .bins = bins, .nr = 3 };
	struct lh_histogram h = { 0 };
	uint64_t lo, hi;

	ck_assert_int_eq(lh_hist_histogram(&d, -1, &h), 0);
	ck_assert_uint_eq(h.count, 100);
	ck_assert_uint_eq(h.sum_ns, 64000);
	ck_assert(lh_histogram_mean_ns(&h) == 640.0);
	ck_assert_uint_eq(h.min_ns, 0);
	ck_assert_uint_eq(h.b[h.nr - 1].lo_ns, 5000);
	ck_assert(lh_histogram_percentile(&h, 0, &lo, &hi));
	ck_assert_uint_eq(hi, 1000);	/* p50: rank 50 */
	ck_assert(lh_histogram_percentile(&h, 1, &lo, &hi));
	ck_assert_uint_eq(hi, 2000);	/* p99: rank 99 */
	ck_assert(lh_histogram_percentile(&h, 2, &lo, &hi));
	ck_assert_uint_eq(hi, 6000);	/* p99.9: rank 100 */
	ck_assert(lh_histogram_percentile(&h, 3, &lo, &hi));
	ck_assert_uint_eq(lo, 5000);
	ck_assert_int_eq(lh_hist_histogram(&d, 1, &h), 0);
	ck_assert_uint_eq(h.count, 0);
	ck_assert(!lh_histogram_percentile(&h, 0, &lo, &hi));
	lh_histogram_release(&h);
}
END_TEST

START_TEST(percentile_rank_edges)
{
	struct lh_hist_bin bins[] = {
		{ 0, 0, 1000, 9999, 0 },
		{ 1, 7000, 8000, 1, 7000 },
	};
	struct lh_hist_data d = { .bins = bins, .nr = 2 };
	struct lh_histogram h = { 0 };
	uint64_t lo, hi;

	/* 10000 sections: p99.99 is rank 9999, still the first bucket; the max is not. */
	lh_hist_histogram(&d, -1, &h);
	ck_assert(lh_histogram_percentile(&h, 3, &lo, &hi));
	ck_assert_uint_eq(hi, 1000);
	ck_assert_uint_eq(h.max_ns, 8000);
	lh_hist_histogram(&d, 1, &h);
	ck_assert_uint_eq(h.count, 1);
	ck_assert(lh_histogram_percentile(&h, 0, &lo, &hi));
	ck_assert_uint_eq(lo, 7000);
	lh_histogram_release(&h);
	ck_assert_int_eq(lh_hist_nr_cpus(&d), 2);
}
END_TEST

START_TEST(tiers_and_clip)
{
	const struct lh_histogram_tier *t = lh_histogram_tiers;
	size_t nr = LH_HISTOGRAM_NR_TIERS, i;
	struct lh_hist_bin bins[] = { { 0, (1ull << 23) + 1, (1ull << 24) + 1, 1, 9000000 } };
	struct lh_hist_data d = { .bins = bins, .nr = 1 };

	ck_assert_uint_eq(t[0].lo_ns, 0);
	for (i = 1; i < nr; i++)
		ck_assert_uint_eq(t[i].lo_ns, t[i - 1].hi_ns);
	ck_assert_uint_eq(t[nr - 1].hi_ns, UINT64_MAX);
	ck_assert_uint_eq(t[nr - 1].width_ns, 0);
	/* Each linear tier has at most 100 buckets: at most 10 % resolution in a decade. */
	for (i = 0; i + 1 < nr; i++)
		ck_assert_uint_le((t[i].hi_ns - t[i].lo_ns) / t[i].width_ns, 100);
	lh_hist_clip(&d);
	ck_assert_uint_eq(bins[0].lo_ns, t[nr - 1].lo_ns);
	ck_assert_uint_eq(bins[0].hi_ns, (1ull << 24) + 1);
}
END_TEST

/* The callers' table (an onmax() trigger keyed by caller) beside a tier table. */
START_TEST(callers_table)
{
	static const char text[] =
		"# event histogram\n#\n"
		"# trigger info: hist:keys=common_cpu,lat.buckets=1000:vals=hitcount,lat:sort=hitcount:size=2048 if lat < 100000 [active]\n#\n\n"
		"{ common_cpu:          0, lat: ~ 6000-6999 } hitcount:          3  lat:      18000\n\n"
		"Totals:\n    Hits: 3\n    Entries: 1\n    Dropped: 0\n\n"
		"# event histogram\n#\n"
		"# trigger info: hist:keys=caller:vals=hitcount:lh_im=lat:sort=hitcount:size=2048:onmax($lh_im).save(lat) [active]\n#\n\n"
		"{ caller:       4112 } hitcount:          2\n"
		"\tmax:       6100  lat:       6100\n"
		"{ caller: 18446744073709551600 } hitcount:          1\n"
		"\tmax:       9000  lat:       9000\n"
		"{ caller: 1056964634 } hitcount:          7\n"
		"\tmax:       6000  lat:       6000\n\n"
		"Totals:\n    Hits: 10\n    Entries: 3\n    Dropped: 0\n";
	struct lh_hist_data d = { 0 };
	struct lh_diag diag = { 0 };

	ck_assert_int_eq(parse_str(text, &d, &diag), 0);
	ck_assert_uint_eq(d.tables, 1);
	ck_assert_uint_eq(d.hits, 3);
	ck_assert_uint_eq(d.caller_tables, 1);
	ck_assert_uint_eq(d.nr_callers, 3);
	lh_hist_top_callers(&d, 2);
	ck_assert_uint_eq(d.nr_callers, 2);
	ck_assert_int_eq(d.callers[0].offs, -16);
	ck_assert_uint_eq(d.callers[0].max_ns, 9000);
	ck_assert_int_eq(d.callers[1].offs, 4112);
	ck_assert_uint_eq(d.callers[1].count, 2);
	ck_assert_uint_eq(d.callers[1].max_ns, 6100);
	lh_hist_data_release(&d);
	ck_assert_int_eq(parse_str("# trigger info: hist:keys=caller:vals=hitcount [active]\n"
				   "\tmax: 5\n", &d, &diag), -1);
	ck_assert_int_eq(parse_str("# trigger info: hist:keys=caller:vals=hitcount [active]\n"
				   "{ caller: x } hitcount: 1\n", &d, &diag), -1);
	lh_hist_data_release(&d);
	lh_diag_release(&diag);
}
END_TEST

/*
 * osnoise's noise sources (noisetrace.c's triggers), as 6.1 prints them: the CPU key named
 * common_cpu, a string key padded to 50 columns, a vector as a number, nmi by CPU alone.
 * One table each, their hits and drops added; a latency table after them is one again.
 */
START_TEST(sources_tables)
{
	static const char text[] =
		"# event histogram\n#\n"
		"# trigger info: hist:keys=common_cpu,desc:vals=hitcount,duration:sort=hitcount:size=2048 [active]\n#\n\n"
		"{ common_cpu:          1, desc: call_function_single                               } hitcount:          1  duration:      10715506\n"
		"{ common_cpu:          1, desc: virtio0-input.0 }x}                                } hitcount:          2  duration:          4000\n"
		"{ common_cpu:          1, desc: local_timer                                        } hitcount:        638  duration:     186180233\n\n"
		"Totals:\n    Hits: 641\n    Entries: 3\n    Dropped: 2\n\n"
		"# event histogram\n#\n"
		"# trigger info: hist:keys=common_cpu,vector:vals=hitcount,duration:sort=hitcount:size=2048 [active]\n#\n\n"
		"{ common_cpu:          0, vector:          9 } hitcount:         12  duration:         96000\n\n"
		"Totals:\n    Hits: 12\n    Entries: 1\n    Dropped: 0\n\n"
		"# event histogram\n#\n"
		"# trigger info: hist:keys=common_cpu:vals=hitcount,duration:sort=hitcount:size=2048 [active]\n#\n\n"
		"Totals:\n    Hits: 0\n    Entries: 0\n    Dropped: 0\n\n"
		"# event histogram\n#\n"
		"# trigger info: hist:keys=common_cpu,comm:vals=hitcount,duration:sort=hitcount:size=2048 [active]\n#\n\n"
		"{ common_cpu:          1, comm: lhspin                                             } hitcount:         31  duration:     398481748\n"
		"{ cpu:          1, comm: \x1b[31mred                                        } hitcount:          1  duration:           100\n\n"
		"Totals:\n    Hits: 32\n    Entries: 2\n    Dropped: 0\n\n"
		"# event histogram\n#\n"
		"# trigger info: hist:keys=common_cpu,lat.buckets=1000:vals=hitcount,lat:sort=hitcount:size=2048 [active]\n#\n\n"
		"{ common_cpu:          0, lat: ~ 6000-6999 } hitcount:          3  lat:      18000\n\n"
		"Totals:\n    Hits: 3\n    Entries: 1\n    Dropped: 0\n";
	struct lh_hist_data d = { 0 };
	struct lh_diag diag = { 0 };

	ck_assert_int_eq(parse_str(text, &d, &diag), 0);
	ck_assert_uint_eq(d.source_tables, 4);
	ck_assert_uint_eq(d.tables, 1);
	ck_assert_uint_eq(d.nr, 1);
	ck_assert_uint_eq(d.hits, 641 + 12 + 32 + 3);
	ck_assert_uint_eq(d.dropped, 2);
	ck_assert_uint_eq(d.nr_sources, 6);
	ck_assert_int_eq(d.sources[0].cpu, 1);
	ck_assert_int_eq(d.sources[0].kind, LH_SPIKE_IRQ);
	ck_assert_str_eq(d.sources[0].name, "call_function_single");
	ck_assert_uint_eq(d.sources[0].sum_ns, 10715506);
	/* a '}' in a desc: the name runs to the last one before the values */
	ck_assert_str_eq(d.sources[1].name, "virtio0-input.0 }x}");
	ck_assert_uint_eq(d.sources[2].count, 638);
	ck_assert_int_eq(d.sources[3].kind, LH_SPIKE_SOFTIRQ);
	ck_assert_int_eq(d.sources[3].vector, 9);
	ck_assert_str_eq(d.sources[3].name, "");
	ck_assert_int_eq(d.sources[4].kind, LH_SPIKE_THREAD);
	ck_assert_str_eq(d.sources[4].name, "lhspin");
	ck_assert_uint_eq(d.sources[4].count, 31);
	ck_assert_uint_eq(d.sources[4].sum_ns, 398481748);
	/* a task's own name made inert */
	ck_assert_str_eq(d.sources[5].name, "\\x1b[31mred");
	lh_hist_data_release(&d);

	/* an nmi entry: the CPU alone */
	ck_assert_int_eq(parse_str("# trigger info: hist:keys=common_cpu:vals=hitcount,duration [active]\n"
				   "{ common_cpu:          3 } hitcount:          2  duration:       50\n",
				   &d, &diag), 0);
	ck_assert_uint_eq(d.nr_sources, 1);
	ck_assert_int_eq(d.sources[0].kind, LH_SPIKE_NMI);
	ck_assert_int_eq(d.sources[0].cpu, 3);
	ck_assert_uint_eq(d.sources[0].sum_ns, 50);
	lh_hist_data_release(&d);
	/* refused: no values, a vector that is not a number, an unknown key, no hitcount */
	ck_assert_int_eq(parse_str("# trigger info: hist:keys=common_cpu,comm:vals=hitcount [active]\n"
				   "{ common_cpu: 1, comm: x }\n", &d, &diag), -1);
	ck_assert_int_eq(parse_str("# trigger info: hist:keys=common_cpu,vector:vals=hitcount [active]\n"
				   "{ common_cpu: 1, vector: x } hitcount: 1\n", &d, &diag), -1);
	ck_assert_int_eq(parse_str("# trigger info: hist:keys=common_cpu,comm:vals=hitcount [active]\n"
				   "{ common_cpu: 1, pid: 7 } hitcount: 1\n", &d, &diag), -1);
	ck_assert_int_eq(parse_str("# trigger info: hist:keys=common_cpu,desc:vals=hitcount [active]\n"
				   "{ common_cpu: 1, desc: a } duration: 1\n", &d, &diag), -1);
	lh_hist_data_release(&d);
	lh_diag_release(&diag);
}
END_TEST

/*
 * The real thing: noisetrace.c's four triggers as Debian's 6.1 RT kernel printed them (the
 * RT suite's killed osnoise run, tests/vm/scenarios/timerlat.sh, both CPUs).
 */
START_TEST(real_sources)
{
	struct lh_hist_data d = { 0 };
	struct lh_diag diag = { 0 };
	size_t len, i;
	char *buf = slurp("vm-rt-osnoise-sources.hist", &len);
	uint64_t count = 0;

	ck_assert_int_eq(lh_hist_parse(buf, len, "real", &d, &diag), 0);
	ck_assert_uint_eq(d.source_tables, 4);
	ck_assert_uint_eq(d.tables, 0);
	ck_assert_uint_eq(d.nr_sources, 6 + 22);
	ck_assert_uint_eq(d.hits, 535 + 422);
	ck_assert_uint_eq(d.dropped, 0);
	for (i = 0; i < d.nr_sources; i++)
		count += d.sources[i].count;
	/* read while osnoise ran: the kernel printed the totals after entries, 3 events later */
	ck_assert_uint_eq(count, 954);
	ck_assert_int_eq(d.sources[5].cpu, 1);
	ck_assert_int_eq(d.sources[5].kind, LH_SPIKE_IRQ);
	ck_assert_str_eq(d.sources[5].name, "local_timer");
	ck_assert_uint_eq(d.sources[5].sum_ns, 72116893);
	ck_assert_int_eq(d.sources[19].kind, LH_SPIKE_THREAD);
	ck_assert_str_eq(d.sources[19].name, "lathound");
	ck_assert_uint_eq(d.sources[19].count, 23);
	lh_hist_data_release(&d);
	lh_diag_release(&diag);
	free(buf);
}
END_TEST

/* Writes text to a temporary file. Return: its path (static). */
static const char *fake_kallsyms(const char *text)
{
	static char path[] = "/tmp/lh-kallsyms-XXXXXX";
	int fd;

	strcpy(path, "/tmp/lh-kallsyms-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* Return: lh_ksyms_name() of offs checked against want. */
static void name_is(const struct lh_ksyms *ks, int32_t offs, const char *want)
{
	char *got = lh_ksyms_name(ks, offs);

	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(ksyms)
{
	char longname[300], text[1024];
	const char *why = NULL, *path;
	struct lh_ksyms *ks;

	path = fake_kallsyms("ffffffff81000000 T _stext\n"
			     "ffffffff81001000 t foo\n"
			     "ffffffff81001040 T bar\n"
			     "ffffffff81001800 D some_data\n"
			     "ffffffff81002000 T baz\n"
			     "ffffffffc0001000 t lhx_irqs_hog\t[lhx]\n"
			     "ffffffffc0001080 t lhx_preempt_hog\t[lhx]\n");
	ks = lh_ksyms_load(path, &why);
	unlink(path);
	ck_assert_ptr_nonnull(ks);
	name_is(ks, 0x1010, "foo+0x10/0x40");
	name_is(ks, 0x1040, "bar+0x0/0xfc0");	/* data symbols are not text */
	name_is(ks, 0x3f00101a, "lhx_irqs_hog+0x1a/0x80 [lhx]");
	name_is(ks, 0x3f001085, "lhx_preempt_hog+0x5 [lhx]");
	name_is(ks, -0x10, "_stext-0x10");	/* before the first symbol */
	lh_ksyms_free(ks);

	/*
	 * Names are untrusted (a module names its own symbols) and whole (KSYM_NAME_LEN is 512
	 * since Rust): control bytes as \xHH, as every other text lathound quotes, and a long
	 * name is neither cut nor split into a name and a module.
	 */
	memset(longname, 'r', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	snprintf(text, sizeof(text), "ffffffff81000000 T _stext\n"
		 "ffffffff81001000 t evil\x1b]0;pwned\x07\t[m\x1b[2Jod]\n"
		 "ffffffff81002000 t %s\n"
		 "ffffffff81003000 t %s\t[lhx]\n"
		 "ffffffff81004000 T end\n", longname, longname);
	path = fake_kallsyms(text);
	ks = lh_ksyms_load(path, &why);
	unlink(path);
	ck_assert_ptr_nonnull(ks);
	name_is(ks, 0x1008, "evil\\x1b]0;pwned\\x07+0x8/0x1000 [m\\x1b[2Jod]");
	snprintf(text, sizeof(text), "%s+0x10/0x1000", longname);
	name_is(ks, 0x2010, text);
	snprintf(text, sizeof(text), "%s+0x0/0x1000 [lhx]", longname);
	name_is(ks, 0x3000, text);
	lh_ksyms_free(ks);

	/* kptr_restrict: every address zero */
	path = fake_kallsyms("0000000000000000 T _stext\n0000000000000000 t foo\n");
	ks = lh_ksyms_load(path, &why);
	unlink(path);
	ck_assert_ptr_null(ks);
	ck_assert_ptr_nonnull(strstr(why, "kptr_restrict"));
	name_is(NULL, 0x1010, "_stext+0x1010");

	path = fake_kallsyms("ffffffff81001000 t foo\n");
	ck_assert_ptr_null(lh_ksyms_load(path, &why));
	unlink(path);
	ck_assert_str_eq(why, "no _stext in kallsyms");
	ck_assert_ptr_null(lh_ksyms_load("/nonexistent/kallsyms", &why));
}
END_TEST

static Suite *hist_suite(void)
{
	Suite *s = suite_create("hist");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, real_tiers);
	tcase_add_test(tc, real_percpu);
	tcase_add_test(tc, real_two_tables);
	tcase_add_test(tc, key_forms);
	tcase_add_test(tc, merges_and_totals);
	tcase_add_test(tc, malformed);
	tcase_add_test(tc, percentiles);
	tcase_add_test(tc, percentile_rank_edges);
	tcase_add_test(tc, tiers_and_clip);
	tcase_add_test(tc, callers_table);
	tcase_add_test(tc, sources_tables);
	tcase_add_test(tc, real_sources);
	tcase_add_test(tc, ksyms);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(hist_suite)
