// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for rule files, with an oracle: loads the input (up to a line "%%") as
 * a rule file and matches every rule against a record, made of the lines after "%%" (in
 * turn a function, a stack frame and an IRQ handler name) or a fixed one, as lathound does
 * (the Vectorscan prefilter where built, a tiny line cache which fills and is emptied) and
 * with PCRE2 alone (no prefilter, no cache). Besides crashes and sanitizer reports, any rule
 * on which lathound's verdict (fired, not, unevaluated) differs from plain PCRE2 applied as
 * lathound-rules(1) says (tests/unit/rules-oracle.h) is a bug (abort). The engine is
 * printed first; compiled prefilter databases are not cached (every input is new).
 *   ./fuzz-rules -dict=rules.dict -max_total_time=180 corpus-rules/ ../../rules/
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/record.h"
#include "rules/rules.h"
#include "util/util.h"
#include "../unit/rules-oracle.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char buf[64];
	const char *engine = lh_rules_prefilter_engine(buf, sizeof(buf));

	setenv("LATHOUND_CACHE_DIR", "", 1);
	fprintf(stderr, "fuzz-rules: rules prefilter: %s\n", engine ? engine : "none");
	return 0;
}

static void add_func(struct lh_record *r, const char *name, size_t len)
{
	struct lh_func *f = lh_record_add_func(r, lh_arena_strndup(&r->arena, name, len), len);

	f->count = 1;
}

static void add_irq(struct lh_record *r, const char *name, size_t len)
{
	struct lh_irq *q = lh_record_add_irq(r);

	q->irq = 24;
	q->name = lh_arena_strndup(&r->arena, name, len);
}

static void fill_fixed(struct lh_record *r)
{
	static const char *const funcs[] = {
		"_raw_spin_lock_irqsave", "slob_next", "slob_page_alloc", "rcu_core",
		"preempt_count_sub", "rcu_nocb_unlock_irqrestore.constprop.0", "megasas_isr_fusion",
		"lhx_preempt_hog", "KTime_Get", "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "",
		"x y#z", "\xc3\x84\xc3\x96_utf8", "\xff\xfe\x80", "__hrtimer_run_queues",
		"unlock_irqXrun_timer",
	};
	static const char *const frames[] = {
		"preempt_count_sub", "__raw_spin_unlock_irqrestore", "slob_alloc.isra.0",
		"execute_preemptirqtest", "0xffffffffa0000034", "ret_from_fork",
	};
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(funcs); i++)
		add_func(r, funcs[i], strlen(funcs[i]));
	for (i = 0; i < LH_ARRAY_SIZE(frames); i++)
		lh_record_add_frame(r, i % 2, frames[i], strlen(frames[i]));
	add_irq(r, "fakeraid", 8);
	add_irq(r, "megasas0-msix3", 14);
}

/* The record: lines of text (after "%%\n") in turn as function, frame and IRQ name. */
static void make_record(struct lh_record *r, const char *text, size_t len)
{
	size_t n = 0;

	lh_record_reset(r);
	r->tracer = LH_TRACER_WAKEUP_RT;
	r->latency_us = 2079;
	r->source = "fuzz.trace";
	r->line = 1;
	r->task.comm = "insmod";
	r->task.pid = 96;
	r->woken.comm = "cyclictest";
	r->woken.pid = 1234;
	r->waker.comm = "swapper/0";
	r->waker.pid = 0;
	r->started_at = "_raw_spin_lock_irqsave";
	r->ended_at = "preempt_count_sub";
	if (!text) {
		fill_fixed(r);
		return;
	}
	while (len) {
		const char *nl = memchr(text, '\n', len);
		size_t l = nl ? (size_t)(nl - text) : len;

		if (memchr(text, '\0', l))
			l = strnlen(text, l);	/* the parser never gives a NUL inside a name */
		if (n % 3 == 0)
			add_func(r, text, l);
		else if (n % 3 == 1)
			lh_record_add_frame(r, 0, text, l);
		else
			add_irq(r, text, l);
		n++;
		l = nl ? (size_t)(nl - text) + 1 : len;
		text += l;
		len -= l;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lh_record *rec;
	struct lh_rules *cached = lh_rules_alloc(), *plain = lh_rules_alloc();
	const char *text = (const char *)data, *sep = memmem(data, size, "\n%%\n", 4);
	size_t rules_len = sep ? (size_t)(sep - text) + 1 : size;
	struct lh_match m1 = { 0 }, m2 = { 0 };
	struct lh_diag d = { 0 };
	int pass;

	if (!rec)
		rec = lh_record_alloc();
	make_record(rec, sep ? sep + 4 : NULL, sep ? size - rules_len - 3 : 0);
	lh_rules_load_buffer(cached, "fuzz.rules", text, rules_len, &d);
	lh_rules_load_buffer(plain, "fuzz.rules", text, rules_len, &d);
	lh_rules_set_cache_limit(cached, 2048);
	lh_rules_set_cache_limit(plain, 0);
	lh_rules_set_prefilter(plain, false);
	for (pass = 0; pass < 2; pass++) {
		lh_rules_match(cached, rec, &m1, &d);
		lh_rules_match(plain, rec, &m2, &d);
		if (oracle_check(cached, rec, &m1) || oracle_check(plain, rec, &m2)) {
			fprintf(stderr, "fuzz-rules: lathound's verdict differs from PCRE2's\n");
			abort();
		}
	}
	/* the loaded rules are readable and well formed */
	if (lh_rules_count(cached) != lh_rules_count(plain))
		abort();
	if (lh_rules_count(cached) &&
	    (!lh_rules_get(cached, 0)->id || !lh_rules_get(cached, 0)->pattern))
		abort();
	lh_match_release(&m1);
	lh_match_release(&m2);
	lh_diag_release(&d);
	lh_rules_free(cached);
	lh_rules_free(plain);
	return 0;
}
