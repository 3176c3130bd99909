// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parser throughput: parses a trace file held in memory RUNS times with lh_parse_buffer and
 * prints the best run in MB/s of wall time and per CPU second (the latter is what one core
 * does, whatever else the machine runs), with what was parsed.
 *
 *   bench/out/parse-bench FILE [RUNS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"
#include "trace/parse.h"

struct totals {
	unsigned long	records;
	unsigned long	funcs;
	unsigned long	calls;
	unsigned long	frames;
	unsigned long	irqs;
};

static int count(struct lh_record *r, void *arg)
{
	struct totals *t = arg;
	size_t i;

	t->records++;
	t->funcs += r->nr_funcs;
	for (i = 0; i < r->nr_funcs; i++)
		t->calls += r->funcs[i].count;
	for (i = 0; i < r->nr_stacks; i++)
		t->frames += r->stacks[i].nr;
	t->irqs += r->nr_irqs;
	return 0;
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 5, i;
	double best = 0, best_cpu = 0;
	struct totals t;
	size_t size;
	char *buf;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE [RUNS]\n", argv[0]);
		return 1;
	}
	buf = map_file(argv[1], &size);
	if (!buf)
		return 1;
	for (i = 0; i < runs; i++) {
		struct lh_diag diag = { 0 };
		struct lh_parser *p = lh_parser_alloc(&diag);
		const struct lh_parse_stats *s;
		uint64_t t0, t1, c0, c1;
		double mbs, cpu;

		memset(&t, 0, sizeof(t));
		t0 = lh_now_ns();
		c0 = cpu_ns();
		lh_parse_buffer(p, argv[1], buf, size, count, &t);
		c1 = cpu_ns();
		t1 = lh_now_ns();
		mbs = (double)size / 1e6 / ((double)(t1 - t0) / 1e9);
		cpu = (double)size / 1e6 / ((double)(c1 - c0) / 1e9);
		if (mbs > best)
			best = mbs;
		if (cpu > best_cpu)
			best_cpu = cpu;
		s = lh_parser_stats(p);
		if (i == runs - 1) {
			printf("%s: %.1f MB, %lu lines, %lu records (%lu skipped, %lu bad lines)\n",
			       argv[1], (double)size / 1e6, s->lines, t.records, s->skipped,
			       s->bad_lines);
			printf("  %lu warnings, %lu functions, %lu calls, %lu frames, %lu irqs\n",
			       diag.warnings, t.funcs, t.calls, t.frames, t.irqs);
		}
		printf("run %d: %.0f MB/s, %.0f MB per CPU second\n", i + 1, mbs, cpu);
		lh_parser_free(p);
		lh_diag_release(&diag);
	}
	printf("best: %.0f MB/s, %.0f MB per CPU second\n", best, best_cpu);
	munmap(buf, size);
	return 0;
}
