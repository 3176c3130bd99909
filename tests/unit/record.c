// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the record (src/trace/record.c): tracer names and CONFIG_ options, deep copies,
 * and the culprit frames that signatures and offender groups are made of.
 */
#include <string.h>

#include "check-main.h"
#include "trace/record.h"
#include "util/util.h"

static void add_stack(struct lh_record *r, size_t stack, const char *const *frames)
{
	for (; *frames; frames++)
		lh_record_add_frame(r, stack, *frames, strlen(*frames));
}

START_TEST(tracer_names)
{
	ck_assert_int_eq(lh_tracer_from_name("wakeup_rt", 9), LH_TRACER_WAKEUP_RT);
	ck_assert_int_eq(lh_tracer_from_name("wakeup", 6), LH_TRACER_WAKEUP);
	ck_assert_int_eq(lh_tracer_from_name("irqsof", 6), LH_TRACER_UNKNOWN);
	/* as some kernels print it: "# tracer: wakeup_RT" */
	ck_assert_int_eq(lh_tracer_from_name("wakeup_RT", 9), LH_TRACER_WAKEUP_RT);
	ck_assert_str_eq(lh_tracer_name(LH_TRACER_PREEMPTIRQSOFF), "preemptirqsoff");
	ck_assert_str_eq(lh_tracer_config(LH_TRACER_WAKEUP_DL), "CONFIG_SCHED_TRACER");
	ck_assert(lh_tracer_is_wakeup(LH_TRACER_WAKEUP_DL));
	ck_assert(!lh_tracer_is_wakeup(LH_TRACER_IRQSOFF));
}
END_TEST

/* An irqs-off stack starts in the tracer's hook: the culprit is the first frame after it. */
START_TEST(culprit_irqsoff)
{
	static const char *const stack[] = { "trace_hardirqs_on", "_raw_spin_unlock_irqrestore",
					     "megasas_isr", "__handle_irq_event_percpu", NULL };
	struct lh_record *r = lh_record_alloc();
	const char *f[3];
	char sig[256];

	r->tracer = LH_TRACER_IRQSOFF;
	r->started_at = "_raw_spin_lock_irqsave";
	r->ended_at = "_raw_spin_unlock_irqrestore";
	add_stack(r, 0, stack);
	ck_assert_uint_eq(lh_record_culprit_frames(r, f, 3), 3);
	ck_assert_str_eq(f[0], "_raw_spin_unlock_irqrestore");
	ck_assert_str_eq(f[1], "megasas_isr");
	ck_assert_str_eq(lh_record_signature(r, sig, sizeof(sig)),
			 "irqsoff|_raw_spin_lock_irqsave|_raw_spin_unlock_irqrestore|"
			 "_raw_spin_unlock_irqrestore<megasas_isr<__handle_irq_event_percpu");
	lh_record_free(r);
}
END_TEST

/*
 * A wakeup_rt snapshot (real layout, tests/vm driver): the first stack is the wakeup
 * probe, the second the switch; the culprit is what ran until the switch.
 */
START_TEST(culprit_wakeup)
{
	static const char *const at_wakeup[] = { "__ftrace_trace_stack", "probe_wakeup",
		"__traceiter_sched_wakeup", "trace_sched_wakeup", "ttwu_do_wakeup",
		"try_to_wake_up", "lhx_wakeup_delay", "lhx_worker", NULL };
	static const char *const at_switch[] = { "__ftrace_trace_stack",
		"probe_wakeup_sched_switch", "__traceiter_sched_switch", "__schedule",
		"preempt_schedule", "preempt_schedule_thunk", "lhx_wakeup_delay", "lhx_worker",
		"kthread", "ret_from_fork", NULL };
	struct lh_record *r = lh_record_alloc(), *c;
	const char *f[3];
	char sig[256];

	r->tracer = LH_TRACER_WAKEUP_RT;
	r->has_wakeup = true;
	r->woken.comm = "lhx_rt";
	add_stack(r, 0, at_wakeup);
	add_stack(r, 1, at_switch);
	ck_assert_uint_eq(lh_record_culprit_frames(r, f, 3), 3);
	ck_assert_str_eq(f[0], "lhx_wakeup_delay");
	ck_assert_str_eq(f[2], "kthread");
	ck_assert_str_eq(lh_record_signature(r, sig, sizeof(sig)),
			 "wakeup_rt|-|-|lhx_wakeup_delay<lhx_worker<kthread|lhx_rt");
	/* a copy gives the same signature */
	c = lh_record_dup(r);
	ck_assert_str_eq(lh_record_signature(c, sig, sizeof(sig)),
			 "wakeup_rt|-|-|lhx_wakeup_delay<lhx_worker<kthread|lhx_rt");
	lh_record_free(c);
	lh_record_free(r);
}
END_TEST

/* A stack of nothing but plumbing is kept as it is rather than emptied. */
START_TEST(culprit_all_plumbing)
{
	static const char *const stack[] = { "trace_hardirqs_on", "tracer_hardirqs_on", NULL };
	struct lh_record *r = lh_record_alloc();
	const char *f[3];

	r->tracer = LH_TRACER_IRQSOFF;
	add_stack(r, 0, stack);
	ck_assert_uint_eq(lh_record_culprit_frames(r, f, 3), 2);
	ck_assert_str_eq(f[0], "trace_hardirqs_on");
	lh_record_reset(r);
	ck_assert_uint_eq(lh_record_culprit_frames(r, f, 3), 0);
	lh_record_free(r);
}
END_TEST


/* Untrusted text made inert: printable ASCII and valid UTF-8 kept, every other byte "\xHH". */
START_TEST(escape)
{
	static const struct {
		const char	*in;
		size_t		len;
		const char	*out;
	} cases[] = {
		{ "kworker/0:1", 11, "kworker/0:1" },
		{ "\x1b]0;pwned\x07", 10, "\\x1b]0;pwned\\x07" },
		{ "a\0b", 3, "a\\x00b" },
		{ "\xff\xfe", 2, "\\xff\\xfe" },
		{ "caf\xc3\xa9", 5, "caf\xc3\xa9" },			/* é */
		{ "\xe8\xae\xb0\xe5\xbd\x95", 6, "\xe8\xae\xb0\xe5\xbd\x95" },	/* 记录 */
		{ "\xc2\x9b" "2J", 4, "\\xc2\\x9b2J" },			/* C1 CSI */
		{ "\xc0\xaf", 2, "\\xc0\\xaf" },			/* overlong '/' */
		{ "\xed\xa0\x80", 3, "\\xed\\xa0\\x80" },		/* a surrogate */
		{ "\xef\xbf\xbe", 3, "\\xef\\xbf\\xbe" },		/* U+FFFE */
		{ "\xe2\x82", 2, "\\xe2\\x82" },			/* cut short */
		{ "tab\there\x7f", 9, "tab\\x09here\\x7f" },
	};
	char buf[64];
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(cases); i++) {
		lh_record_escape(buf, sizeof(buf), cases[i].in, cases[i].len);
		ck_assert_str_eq(buf, cases[i].out);
	}
	/* a short buffer: cut before an escape or a character, never inside */
	ck_assert_uint_eq(lh_record_escape(buf, 4, "ab\x01", 3), 2);
	ck_assert_str_eq(buf, "ab");
	ck_assert_uint_eq(lh_record_escape(buf, 3, "a\xc3\xa9", 3), 1);
	ck_assert_str_eq(buf, "a");
}
END_TEST

/* A body is complete, elided or cut; a copy reuses its storage and keeps every field. */
START_TEST(body_and_copy)
{
	struct lh_record *r = lh_record_alloc(), *c = lh_record_alloc();
	char sig[16];

	r->entries = 4;
	r->entries_present = 4;
	ck_assert_int_eq(lh_record_body(r), LH_BODY_COMPLETE);
	r->entries_present = 3;
	ck_assert_int_eq(lh_record_body(r), LH_BODY_CUT);
	ck_assert_str_eq(lh_body_name(lh_record_body(r)), "cut");
	r->elided = true;
	ck_assert_int_eq(lh_record_body(r), LH_BODY_ELIDED);
	r->started_at = "shrink_node";
	r->started_at_offset = "+0x1dd/0x4b0";
	lh_record_add_frame_off(r, 0, "kswapd", 6, "+0x10f/0x320", 12);
	lh_record_add_frame(r, 0, "kthread", 7);
	lh_record_copy(c, r);
	lh_record_copy(c, r);
	ck_assert_str_eq(c->started_at_offset, "+0x1dd/0x4b0");
	ck_assert_str_eq(c->stacks[0].offsets[0], "+0x10f/0x320");
	ck_assert_ptr_null(c->stacks[0].offsets[1]);
	ck_assert_uint_eq(c->stacks[0].nr, 2);
	ck_assert_int_eq(lh_record_body(c), LH_BODY_ELIDED);
	ck_assert_uint_eq(c->entries_present, 3);
	/* a signature cut short never ends inside a UTF-8 character */
	r->tracer = LH_TRACER_IRQSOFF;
	r->started_at = "\xe8\xae\xb0\xe5\xbd\x95";
	lh_record_signature(r, sig, 11);
	ck_assert_str_eq(sig, "irqsoff|");
	lh_record_free(r);
	lh_record_free(c);
}
END_TEST

/*
 * The one signature: its text, its hash and its equality agree. Records that differ only
 * beyond the LH_SIGNATURE_FRAMES innermost culprit frames are the same offender; any other
 * field, NULL against "", or the woken task of a wakeup, makes another one.
 */
START_TEST(signature_text_hash_equal)
{
	static const char *const base[] = { "trace_hardirqs_on", "a", "b", "c", "d", NULL };
	static const char *const deeper[] = { "trace_hardirqs_on", "a", "b", "c", "other", NULL };
	static const char *const fewer[] = { "trace_hardirqs_on", "a", "b", NULL };
	struct lh_record *r[6];
	struct lh_signature sig[6];
	char t0[LH_SIGNATURE_LEN], ti[LH_SIGNATURE_LEN];
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(r); i++) {
		r[i] = lh_record_alloc();
		r[i]->tracer = LH_TRACER_IRQSOFF;
		r[i]->started_at = "s";
		r[i]->ended_at = "e";
	}
	add_stack(r[0], 0, base);
	add_stack(r[1], 0, deeper);	/* same: differs past the third culprit frame */
	add_stack(r[2], 0, fewer);
	add_stack(r[3], 0, base);
	r[3]->ended_at = NULL;		/* unknown */
	add_stack(r[4], 0, base);
	r[4]->tracer = LH_TRACER_PREEMPTIRQSOFF;
	add_stack(r[5], 0, base);
	r[5]->has_wakeup = true;
	r[5]->woken.comm = "rt";

	for (i = 0; i < LH_ARRAY_SIZE(r); i++)
		lh_record_signature_of(r[i], &sig[i]);
	ck_assert_uint_eq(sig[0].nr_frames, LH_SIGNATURE_FRAMES);
	ck_assert_str_eq(lh_record_signature(r[0], t0, sizeof(t0)), "irqsoff|s|e|a<b<c");
	ck_assert_str_eq(lh_signature_text(&sig[0], ti, sizeof(ti)), t0);
	ck_assert(lh_signature_equal(&sig[0], &sig[1]));
	ck_assert_uint_eq(lh_record_signature_hash(r[0]), lh_record_signature_hash(r[1]));
	ck_assert_uint_eq(lh_record_signature_hash(r[0]), lh_signature_hash(&sig[0]));
	ck_assert_str_eq(lh_record_signature(r[1], ti, sizeof(ti)), t0);
	for (i = 2; i < LH_ARRAY_SIZE(r); i++) {
		ck_assert_msg(!lh_signature_equal(&sig[0], &sig[i]), "record %zu", i);
		ck_assert_msg(lh_signature_hash(&sig[0]) != lh_signature_hash(&sig[i]),
			      "record %zu", i);
		ck_assert_str_ne(lh_record_signature(r[i], ti, sizeof(ti)), t0);
	}
	/* NULL (unknown) and "" are different sites */
	sig[1] = sig[3];
	sig[1].ended = "";
	ck_assert(!lh_signature_equal(&sig[1], &sig[3]));
	ck_assert_uint_ne(lh_signature_hash(&sig[1]), lh_signature_hash(&sig[3]));
	/* truncated text stays a string */
	ck_assert_str_eq(lh_record_signature(r[0], ti, 8), "irqsoff");
	for (i = 0; i < LH_ARRAY_SIZE(r); i++)
		lh_record_free(r[i]);
}
END_TEST

static Suite *record_suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("record");

	tcase_add_test(tc, tracer_names);
	tcase_add_test(tc, culprit_irqsoff);
	tcase_add_test(tc, culprit_wakeup);
	tcase_add_test(tc, culprit_all_plumbing);
	tcase_add_test(tc, escape);
	tcase_add_test(tc, body_and_copy);
	tcase_add_test(tc, signature_text_hash_equal);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(record_suite)
