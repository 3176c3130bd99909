// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for rule files: loads the input as a rule file, then matches every rule
 * against a fixed record, twice: with the literal prefilter and a tiny line cache (which
 * fills and is emptied), and naively (every regex on every line, no cache). Besides crashes
 * and sanitizer reports, any difference between the two is a bug (abort).
 *   ./fuzz-rules -dict=rules.dict -max_total_time=180 corpus-rules/ ../../rules/
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "rules.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void add_func(struct lh_record *r, const char *name)
{
	struct lh_func *f = lh_record_add_func(r);

	f->name = lh_arena_strdup(&r->arena, name);
	f->count = 1;
}

static struct lh_record *fixed_record(void)
{
	static const char *const funcs[] = {
		"_raw_spin_lock_irqsave", "slob_next", "slob_page_alloc", "rcu_core",
		"preempt_count_sub", "rcu_nocb_unlock_irqrestore.constprop.0", "megasas_isr_fusion",
		"lhx_preempt_hog", "KTime_Get", "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "",
		"x y#z", "\xc3\x84\xc3\x96_utf8", "\xff\xfe\x80", "__hrtimer_run_queues",
	};
	static const char *const frames[] = {
		"preempt_count_sub", "__raw_spin_unlock_irqrestore", "slob_alloc.isra.0",
		"execute_preemptirqtest", "0xffffffffa0000034", "ret_from_fork",
	};
	struct lh_record *r = lh_record_alloc();
	struct lh_irq *q;
	size_t i;

	r->tracer = LH_TRACER_WAKEUP_RT;
	r->latency_us = 2079;
	r->source = "fuzz.trace";
	r->line = 1;
	for (i = 0; i < LH_ARRAY_SIZE(funcs); i++)
		add_func(r, funcs[i]);
	for (i = 0; i < LH_ARRAY_SIZE(frames); i++)
		lh_record_add_frame(r, i % 2, frames[i], strlen(frames[i]));
	q = lh_record_add_irq(r);
	q->irq = 24;
	q->name = "fakeraid";
	q = lh_record_add_irq(r);
	q->name = "megasas0-msix3";
	r->task.comm = "insmod";
	r->task.pid = 96;
	r->woken.comm = "cyclictest";
	r->woken.pid = 1234;
	r->waker.comm = "swapper/0";
	r->waker.pid = 0;
	r->started_at = "_raw_spin_lock_irqsave";
	r->ended_at = "preempt_count_sub";
	return r;
}

static void check_same(const struct lh_match *a, const struct lh_match *b)
{
	size_t i;

	if (a->nr_hits != b->nr_hits || a->accepted != b->accepted ||
	    a->has_worst != b->has_worst || (a->has_worst && a->worst != b->worst))
		goto differ;
	for (i = 0; i < a->nr_hits; i++)
		if (a->hits[i] != b->hits[i])
			goto differ;
	return;
differ:
	fprintf(stderr, "fuzz-rules: prefiltered/cached matching differs from plain matching "
		"(%zu vs %zu hits)\n", a->nr_hits, b->nr_hits);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lh_record *rec;
	struct lh_rules *fast = lh_rules_alloc(), *plain = lh_rules_alloc();
	struct lh_match m1 = { 0 }, m2 = { 0 };
	struct lh_diag d = { 0 };
	int pass;

	if (!rec)
		rec = fixed_record();
	lh_rules_load_buffer(fast, "fuzz.rules", (const char *)data, size, &d);
	lh_rules_load_buffer(plain, "fuzz.rules", (const char *)data, size, &d);
	lh_rules_set_cache_limit(fast, 2048);
	lh_rules_set_prefilter(plain, false);
	lh_rules_set_cache_limit(plain, 0);
	for (pass = 0; pass < 2; pass++) {
		lh_rules_match(fast, rec, &m1, &d);
		lh_rules_match(plain, rec, &m2, &d);
		check_same(&m1, &m2);
	}
	/* the loaded rules are readable and well formed */
	if (lh_rules_count(fast) != lh_rules_count(plain))
		abort();
	if (lh_rules_count(fast) && (!lh_rules_get(fast, 0)->id || !lh_rules_get(fast, 0)->pattern))
		abort();
	lh_match_release(&m1);
	lh_match_release(&m2);
	lh_diag_release(&d);
	lh_rules_free(fast);
	lh_rules_free(plain);
	return 0;
}
