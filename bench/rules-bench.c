// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rule matching alone: parses a trace file held in memory and matches each record against
 * a rule file, then prints the CPU time spent in lh_rules_match() and its counters (lines
 * looked up, distinct lines computed, regex runs, cache clears).
 *
 *   bench/out/rules-bench RULES FILE
 */
#include <stdio.h>
#include <sys/mman.h>

#include "bench.h"
#include "rules/rules.h"
#include "trace/parse.h"

struct run {
	struct lh_rules		*rs;
	struct lh_match		m;
	struct lh_diag		diag;
	uint64_t		ns;
	unsigned long		hits;
};

static int match(struct lh_record *r, void *arg)
{
	struct run *run = arg;
	uint64_t t0 = cpu_ns();

	lh_rules_match(run->rs, r, &run->m, &run->diag);
	run->ns += cpu_ns() - t0;
	run->hits += run->m.nr_hits;
	return 0;
}

int main(int argc, char **argv)
{
	struct run run = { 0 };
	struct lh_diag pdiag = { 0 };
	const struct lh_rules_stats *s;
	struct lh_parser *p;
	size_t size;
	char *buf;

	if (argc != 3) {
		fprintf(stderr, "usage: %s RULES FILE\n", argv[0]);
		return 1;
	}
	run.rs = lh_rules_alloc();
	if (lh_rules_load(run.rs, argv[1], &run.diag)) {
		fprintf(stderr, "cannot load rules '%s'\n", argv[1]);
		return 1;
	}
	buf = map_file(argv[2], &size);
	if (!buf)
		return 1;
	p = lh_parser_alloc(&pdiag);
	lh_parse_buffer(p, argv[2], buf, size, match, &run);
	s = lh_rules_stats(run.rs);
	printf("%zu rules: %.3f CPU s matching %lu records (%lu hits)\n", lh_rules_count(run.rs),
	       (double)run.ns / 1e9, s->records, run.hits);
	printf("  %lu lines looked up, %lu distinct computed, %lu cache hits, %lu clears\n",
	       s->lines, s->cache_misses, s->cache_hits, s->cache_clears);
	printf("  %lu regex runs, %zu cache entries, %zu cache bytes\n", s->regex_runs,
	       s->cache_entries, s->cache_bytes);
	printf("  prefilter: %zu line rules, %zu always run (%s%s), %lu scans, %lu lines settled by them\n",
	       s->prefiltered, s->always_run, s->no_prefilter ? s->no_prefilter :
	       s->prefilter_cached ? "on, from the cache" : "on, compiled",
	       s->block_scan ? ", a record's lines at once" : "", s->scans, s->scan_only);
	lh_parser_free(p);
	lh_match_release(&run.m);
	lh_diag_release(&run.diag);
	lh_diag_release(&pdiag);
	lh_rules_free(run.rs);
	munmap(buf, size);
	return 0;
}
