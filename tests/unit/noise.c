// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the timerlat/osnoise breakdown (src/trace/noise.c): event sequences as one CPU's
 * ring buffer gives them, on a made-up trace clock, including lost and out-of-order events.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/noise.h"
#include "rules/rules.h"
#include "check-main.h"

#define US	1000ULL
#define MS	(1000 * US)
#define E	(10 * 1000 * MS)	/* a timer's expiry, 10 s into the trace clock */

static struct lh_noise *n;
static struct lh_noise_spike got[16];
static size_t nr_got;

static int on_spike(const struct lh_noise_spike *s, void *arg)
{
	ck_assert_uint_lt(nr_got, LH_ARRAY_SIZE(got));
	got[nr_got++] = *s;
	return 0;
}

static void setup_thresh(uint64_t thresh)
{
	nr_got = 0;
	n = lh_noise_alloc(2, thresh, on_spike, NULL);
}

static void setup(void)
{
	setup_thresh(100 * US);
}

static void teardown(void)
{
	lh_noise_free(n);
	n = NULL;
}

static void noise(int cpu, enum lh_noise_kind k, uint64_t start, uint64_t dur, int pid_or_vec,
		  const char *name)
{
	struct lh_noise_event ev = {
		.kind = k, .start_ns = start, .duration_ns = dur,
		.vector = k == LH_NOISE_THREAD ? -1 : pid_or_vec,
		.pid = k == LH_NOISE_THREAD ? pid_or_vec : -1,
	};

	snprintf(ev.name, sizeof(ev.name), "%s", name ? name : "");
	/* The kernel emits a noise event when the noise ends. */
	lh_noise_event(n, cpu, start + dur, &ev);
}

static const struct lh_noise_part *part_named(const struct lh_noise_spike *s,
					      enum lh_noise_kind k, const char *name)
{
	size_t i;

	for (i = 0; i < s->nr_parts; i++)
		if (s->parts[i].ev.kind == k && !strcmp(s->parts[i].ev.name, name))
			return &s->parts[i];
	return NULL;
}

/*
 * A SCHED_FIFO 99 task spinning 4.1 ms on CPU 1 when the timer fires: the IRQ comes in
 * 5 us, the timerlat thread runs only when the spinner stops, 2.2 ms after the expiry.
 */
static void blocked_cycle(uint64_t seq, uint64_t e)
{
	noise(1, LH_NOISE_IRQ, e + 4 * US, 3 * US, 236, "local_timer");
	lh_noise_timerlat(n, 1, e + 5 * US, seq, false, 5 * US, 4242);
	noise(1, LH_NOISE_THREAD, e - 2 * MS, 4100 * US, 4242, "spin99");
	lh_noise_timerlat(n, 1, e + 2200 * US, seq, true, 2200 * US, 77);
}

START_TEST(blocking_task_named)
{
	const struct lh_noise_part *p;
	const struct lh_noise_spike *s;

	/* A noise that ended before the expiry explains nothing of this timer. */
	noise(1, LH_NOISE_THREAD, E - 5 * MS, 1 * MS, 99, "kworker/1:1");
	blocked_cycle(7, E);
	ck_assert_uint_eq(nr_got, 0);	/* judged when the cycle is known complete */
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	s = &got[0];
	ck_assert_int_eq(s->tracer, LH_NOISE_TIMERLAT);
	ck_assert_int_eq(s->cpu, 1);
	ck_assert_uint_eq(s->seqnum, 7);
	ck_assert_uint_eq(s->latency_ns, 2200 * US);
	ck_assert(s->has_irq && s->has_thread);
	ck_assert_uint_eq(s->irq_latency_ns, 5 * US);
	ck_assert_uint_eq(s->start_ns, E);
	ck_assert_int_eq(s->blocking_pid, 4242);
	ck_assert_str_eq(s->blocking_comm, "spin99");
	ck_assert_uint_eq(s->blocking_ns, 2100 * US);
	ck_assert_int_eq(s->culprit_pid, 4242);
	ck_assert_str_eq(s->culprit_comm, "spin99");
	ck_assert_uint_eq(s->nr_parts, 2);
	/* longest first */
	ck_assert_str_eq(s->parts[0].ev.name, "spin99");
	ck_assert(s->parts[0].blocking);
	ck_assert_uint_eq(lh_noise_share(s, &s->parts[0]), 954);
	p = part_named(s, LH_NOISE_IRQ, "local_timer");
	ck_assert_ptr_nonnull(p);
	ck_assert(p->timer_irq);
	ck_assert_int_eq(p->offset_ns, 4 * US);
	ck_assert_ptr_null(part_named(s, LH_NOISE_THREAD, "kworker/1:1"));
	ck_assert_uint_eq(s->explained_ns, 2103 * US);
	ck_assert_uint_eq(lh_noise_stats(n)->unpaired, 0);
}
END_TEST

START_TEST(spike_judged_at_next_timer)
{
	blocked_cycle(7, E);
	/* The next IRQ sample on that CPU closes the cycle before it. */
	lh_noise_timerlat(n, 1, E + 3 * MS, 8, false, 2 * US, 0);
	ck_assert_uint_eq(nr_got, 1);
	ck_assert_str_eq(got[0].blocking_comm, "spin99");
}
END_TEST

START_TEST(irq_sample_lost)
{
	const struct lh_noise_spike *s;

	/* The IRQ sample of timer 7 never arrives: who was running is unknown, not guessed. */
	noise(1, LH_NOISE_THREAD, E - 2 * MS, 4100 * US, 4242, "spin99");
	lh_noise_timerlat(n, 1, E + 2200 * US, 7, true, 2200 * US, 77);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	s = &got[0];
	ck_assert(!s->has_irq);
	ck_assert_int_eq(s->blocking_pid, -1);
	ck_assert_str_eq(s->blocking_comm, "");
	ck_assert_uint_eq(s->blocking_ns, 0);
	/* the noise is still what overlapped the window, by time: it is the culprit */
	ck_assert_uint_eq(s->nr_parts, 1);
	ck_assert(!s->parts[0].blocking);
	ck_assert_int_eq(s->culprit_pid, 4242);
	ck_assert_str_eq(s->culprit_comm, "spin99");
	ck_assert_uint_eq(lh_noise_stats(n)->unpaired, 1);
}
END_TEST

START_TEST(thread_sample_of_another_timer)
{
	const struct lh_noise_spike *s;

	/*
	 * IRQ sample 4 (pid 4242 interrupted), then the thread sample of timer 5: the IRQ of 5
	 * and the thread of 4 were lost. The pid of timer 4 must not be charged with timer 5.
	 */
	lh_noise_timerlat(n, 1, E + 5 * US, 4, false, 5 * US, 4242);
	noise(1, LH_NOISE_THREAD, E + 1100 * US, 300 * US, 555, "other");
	lh_noise_timerlat(n, 1, E + 1500 * US, 5, true, 400 * US, 77);
	lh_noise_flush(n);
	/* timer 4 (5 us) is under the threshold; timer 5 is the spike */
	ck_assert_uint_eq(nr_got, 1);
	s = &got[0];
	ck_assert_uint_eq(s->seqnum, 5);
	ck_assert_int_eq(s->blocking_pid, -1);
	ck_assert_str_eq(s->blocking_comm, "");
	ck_assert_int_eq(s->culprit_pid, 555);	/* what ran in its window, not timer 4's task */
	ck_assert_str_eq(s->culprit_comm, "other");
	ck_assert_uint_eq(s->nr_parts, 1);
	ck_assert_str_eq(s->parts[0].ev.name, "other");
	ck_assert_uint_eq(s->parts[0].overlap_ns, 300 * US);
	ck_assert_uint_eq(lh_noise_stats(n)->unpaired, 2);
}
END_TEST

START_TEST(noise_missing_is_unexplained)
{
	const struct lh_noise_spike *s;

	/* The blocking task's noise event was lost: its pid is known, its name is not. */
	lh_noise_timerlat(n, 0, E + 5 * US, 1, false, 5 * US, 4242);
	lh_noise_timerlat(n, 0, E + 900 * US, 1, true, 900 * US, 77);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	s = &got[0];
	ck_assert_int_eq(s->blocking_pid, 4242);
	ck_assert_str_eq(s->blocking_comm, "");
	ck_assert_int_eq(s->culprit_pid, 4242);
	ck_assert_str_eq(s->culprit_comm, "");
	ck_assert_uint_eq(s->nr_parts, 0);
	ck_assert_uint_eq(s->explained_ns, 0);
}
END_TEST

START_TEST(idle_is_swapper)
{
	lh_noise_timerlat(n, 0, E + 150 * US, 1, false, 150 * US, 0);
	lh_noise_timerlat(n, 0, E + 160 * US, 1, true, 160 * US, 77);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	ck_assert_int_eq(got[0].blocking_pid, 0);
	ck_assert_str_eq(got[0].blocking_comm, "swapper/0");
	ck_assert_str_eq(got[0].culprit_comm, "swapper/0");
}
END_TEST

START_TEST(idle_then_a_thread_woken_with_the_timer)
{
	/*
	 * The timer fired on an idle CPU; the spinner woke with it and, above the timerlat
	 * thread, ran first: the blocking task is idle, the culprit the spinner.
	 */
	lh_noise_timerlat(n, 1, E + 20 * US, 3, false, 20 * US, 0);
	noise(1, LH_NOISE_THREAD, E + 30 * US, 8 * MS, 4242, "spin99");
	noise(1, LH_NOISE_THREAD, E + 8030 * US, 50 * US, 0, "swapper/1");
	lh_noise_timerlat(n, 1, E + 8100 * US, 3, true, 8100 * US, 77);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	ck_assert_int_eq(got[0].blocking_pid, 0);
	ck_assert_str_eq(got[0].blocking_comm, "swapper/1");
	ck_assert_int_eq(got[0].culprit_pid, 4242);
	ck_assert_str_eq(got[0].culprit_comm, "spin99");
	ck_assert_uint_eq(got[0].culprit_ns, 8 * MS);
}
END_TEST

START_TEST(thread_sample_lost)
{
	/* Only the IRQ sample: judged on the IRQ latency when the next timer comes. */
	lh_noise_timerlat(n, 0, E + 300 * US, 1, false, 300 * US, 4242);
	lh_noise_timerlat(n, 0, E + 2 * MS, 2, false, 3 * US, 0);
	ck_assert_uint_eq(nr_got, 1);
	ck_assert(!got[0].has_thread);
	ck_assert_uint_eq(got[0].latency_ns, 300 * US);
	ck_assert_int_eq(got[0].blocking_pid, 4242);
}
END_TEST

START_TEST(lost_events_break_pairs)
{
	noise(1, LH_NOISE_THREAD, E - 2 * MS, 4100 * US, 4242, "spin99");
	lh_noise_lost(n, 1);
	/* After the gap: the spinner's event before it is not used. */
	lh_noise_timerlat(n, 1, E + 2200 * US, 7, true, 2200 * US, 77);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	ck_assert_uint_eq(got[0].nr_parts, 0);
}
END_TEST

START_TEST(running_maximum)
{
	teardown();
	setup_thresh(0);
	lh_noise_timerlat(n, 0, E + 10 * US, 1, true, 10 * US, -1);
	lh_noise_timerlat(n, 1, E + 8 * US, 1, true, 8 * US, -1);
	lh_noise_timerlat(n, 0, E + 1 * MS + 30 * US, 2, true, 30 * US, -1);
	lh_noise_timerlat(n, 1, E + 1 * MS + 30 * US, 2, true, 30 * US, -1);
	lh_noise_flush(n);
	/* 10 then 30 on CPU 0 beat every sample before them; 8 and the second 30 do not */
	ck_assert_uint_eq(nr_got, 2);
	ck_assert_uint_eq(got[0].latency_ns, 10 * US);
	ck_assert_uint_eq(got[1].latency_ns, 30 * US);
	ck_assert_uint_eq(lh_noise_max(n), 30 * US);
	lh_noise_set_max(n, 100 * US);
	lh_noise_timerlat(n, 0, E + 2 * MS + 50 * US, 3, true, 50 * US, -1);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 2);
}
END_TEST

START_TEST(stack_follows_thread_sample)
{
	static const char *const frames[] = {
		"timerlat_irq", "__hrtimer_run_queues", "hrtimer_interrupt",
		"__sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt",
		"asm_sysvec_apic_timer_interrupt", "spin_loop", "do_spin", "entry_SYSCALL_64",
	};

	blocked_cycle(7, E);
	lh_noise_stack(n, 1, frames, 9);
	/* a second stack, or one on a CPU without a thread sample, belongs to nothing */
	lh_noise_stack(n, 1, frames, 9);
	lh_noise_stack(n, 0, frames, 9);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	/* timerlat's own frames left out: what ran when the timer fired */
	ck_assert_uint_eq(got[0].nr_frames, 3);
	ck_assert_str_eq(got[0].frames[0], "spin_loop");
	ck_assert_uint_eq(lh_noise_stats(n)->stray_stacks, 2);
}
END_TEST

/*
 * The new maximum's irq_work interrupt comes between the thread sample and its stack
 * (notify_new_max_latency()): the stack is still the sample's. gcc's clones of timerlat's
 * own frames ("timerlat_save_stack.constprop.0") are left out too.
 */
START_TEST(stack_after_irq_work)
{
	static const char *const frames[] = {
		"timerlat_save_stack.constprop.0", "timerlat_irq", "__hrtimer_run_queues",
		"hrtimer_interrupt", "lhx_spin", "lhx_preempt_hog", "kthread",
	};

	blocked_cycle(7, E);
	noise(1, LH_NOISE_IRQ, E + 2201 * US, 2 * US, 246, "irq_work");
	lh_noise_stack(n, 1, frames, 7);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	ck_assert_uint_eq(got[0].nr_frames, 3);
	ck_assert_str_eq(got[0].frames[0], "lhx_spin");
	ck_assert_uint_eq(lh_noise_stats(n)->stray_stacks, 0);
}
END_TEST

/*
 * 6.1's osnoise with a nested interrupt (fakeraid run from the timer interrupt's hrtimer,
 * 2 ms with interrupts off): the outer local_timer and the thread it interrupted come out
 * seconds long. They are left out (counted); the spike is the fakeraid interrupt's.
 */
START_TEST(nested_irq_durations_left_out)
{
	const uint64_t e = E;

	/* the previous timer: timerlat's thread ran at e - 1 ms + 10 us */
	lh_noise_timerlat(n, 1, e - MS + 5 * US, 6, false, 5 * US, 0);
	lh_noise_timerlat(n, 1, e - MS + 10 * US, 6, true, 10 * US, 0);
	/* the section: fakeraid from e - 500 us to e + 1500 us; the timer waits for it */
	noise(1, LH_NOISE_IRQ, e - 500 * US, 2000 * US, 11, "fakeraid");
	/* the outer interrupt: 4.7 s, from before the thread ran */
	noise(1, LH_NOISE_IRQ, e + 1505 * US - 4700 * MS, 4700 * MS, 236, "local_timer");
	/* ends 4.5 s after it is emitted */
	{
		struct lh_noise_event ev = { .kind = LH_NOISE_THREAD, .start_ns = e - 200 * US,
					     .duration_ns = 4500 * MS, .vector = -1, .pid = 81 };

		snprintf(ev.name, sizeof(ev.name), "lhx/fakeraid");
		lh_noise_event(n, 1, e + 1506 * US, &ev);
	}
	lh_noise_timerlat(n, 1, e + 1510 * US, 7, false, 1510 * US, 81);
	lh_noise_timerlat(n, 1, e + 1520 * US, 7, true, 1520 * US, 0);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	ck_assert_uint_eq(got[0].nr_parts, 1);
	ck_assert_str_eq(got[0].parts[0].ev.name, "fakeraid");
	ck_assert_uint_eq(lh_noise_stats(n)->implausible, 2);
}
END_TEST

START_TEST(histograms_every_sample)
{
	const struct lh_histogram *h;

	blocked_cycle(7, E);
	lh_noise_timerlat(n, 1, E + 1 * MS + 2 * US, 8, false, 2 * US, 0);
	lh_noise_timerlat(n, 1, E + 1 * MS + 9 * US, 8, true, 9 * US, 77);
	lh_noise_flush(n);
	h = lh_noise_histogram(n, 1, LH_NOISE_HIST_THREAD);
	ck_assert_uint_eq(h->count, 2);
	ck_assert_uint_eq(h->max_ns, 2200 * US);
	ck_assert_uint_eq(h->min_ns, 9 * US);
	ck_assert_uint_eq(lh_noise_histogram(n, 1, LH_NOISE_HIST_IRQ)->count, 2);
	ck_assert_uint_eq(lh_noise_histogram(n, 0, LH_NOISE_HIST_IRQ)->count, 0);
	ck_assert_ptr_null(lh_noise_histogram(n, 2, LH_NOISE_HIST_IRQ));
	/* events of a CPU it does not know are counted, never a crash */
	lh_noise_timerlat(n, 5, E, 1, true, 1 * MS, 1);
	lh_noise_timerlat(n, -1, E, 1, true, 1 * MS, 1);
	ck_assert_uint_eq(lh_noise_stats(n)->bad_cpu, 2);
}
END_TEST

START_TEST(osnoise_top_thread)
{
	const struct lh_noise_spike *s;
	uint64_t rt, no;

	/* A 1 s osnoise period on CPU 1 where spin99 ran 8 ms and a kworker 40 us. */
	noise(1, LH_NOISE_THREAD, E + 100 * MS, 40 * US, 31, "kworker/1:0");
	noise(1, LH_NOISE_IRQ, E + 200 * MS, 20 * US, 236, "local_timer");
	noise(1, LH_NOISE_THREAD, E + 300 * MS, 8 * MS, 4242, "spin99");
	lh_noise_osnoise(n, 1, E + 1000 * MS, 1000 * MS, 8060 * US, 8 * MS, 2);
	ck_assert_uint_eq(nr_got, 1);
	s = &got[0];
	ck_assert_int_eq(s->tracer, LH_NOISE_OSNOISE);
	ck_assert_uint_eq(s->latency_ns, 8 * MS);
	ck_assert_str_eq(s->culprit_comm, "spin99");
	ck_assert_int_eq(s->culprit_pid, 4242);
	ck_assert_int_eq(s->blocking_pid, -1);
	ck_assert_uint_eq(s->nr_parts, 3);
	ck_assert_str_eq(s->parts[0].ev.name, "spin99");
	lh_noise_cpu_time(n, 1, &rt, &no);
	ck_assert_uint_eq(rt, 1000 * MS);
	ck_assert_uint_eq(no, 8060 * US);
	ck_assert_uint_eq(lh_noise_histogram(n, 1, LH_NOISE_HIST_OSNOISE)->count, 1);
	/* the period's hardware noise, per CPU; none elsewhere */
	ck_assert_uint_eq(lh_noise_cpu_hw(n, 1), 2);
	ck_assert_uint_eq(lh_noise_cpu_hw(n, 0), 0);
	ck_assert_uint_eq(lh_noise_cpu_hw(n, 99), 0);
}
END_TEST

START_TEST(hwlat_sample)
{
	struct lh_record *r = lh_record_alloc();

	lh_noise_hwlat(n, 0, E, 50 * US);
	lh_noise_hwlat(n, 0, E + 1 * MS, 150 * US);
	/* the hardware's own: a sample over the threshold, nothing to explain it with */
	ck_assert_uint_eq(nr_got, 1);
	ck_assert_int_eq(got[0].tracer, LH_NOISE_HWLAT);
	ck_assert_uint_eq(got[0].nr_parts, 0);
	ck_assert_uint_eq(lh_noise_histogram(n, 0, LH_NOISE_HIST_HWLAT)->count, 2);
	lh_noise_spike_record(&got[0], r);
	ck_assert_int_eq(r->tracer, LH_TRACER_HWLAT);
	ck_assert_uint_eq(r->latency_us, 150);
	ck_assert_ptr_null(r->task.comm);
	lh_record_free(r);
}
END_TEST

/*
 * The fakeraid interrupt holding IRQs off 2 ms on CPU 0: the timer expires in it, its IRQ
 * runs when the section ends, the thread right after.
 */
static void irqsoff_cycle(uint64_t seq, uint64_t e)
{
	lh_noise_section(n, 0, e + 1500 * US, LH_TRACER_IRQSOFF, 2000 * US, "irqentry_enter+0x1/0x2");
	noise(0, LH_NOISE_IRQ, e - 500 * US, 2000 * US, 11, "lhx_fakeraid");
	lh_noise_timerlat(n, 0, e + 1510 * US, seq, false, 1510 * US, 0);
	lh_noise_timerlat(n, 0, e + 1530 * US, seq, true, 1530 * US, 0);
}

#define BOTH	((1u << LH_TRACER_IRQSOFF) | (1u << LH_TRACER_PREEMPTOFF))

START_TEST(section_behind_spike)
{
	const struct lh_spike_section *x;
	struct lh_record *r = lh_record_alloc();

	lh_noise_watch_sections(n, BOTH, 25 * US);
	/* shorter than watched, or before the window, or another CPU's: not it */
	lh_noise_section(n, 0, E + 100 * US, LH_TRACER_PREEMPTOFF, 24 * US, "short");
	lh_noise_section(n, 0, E - 10 * US, LH_TRACER_PREEMPTOFF, 900 * US, "before");
	lh_noise_section(n, 1, E + 1400 * US, LH_TRACER_IRQSOFF, 1900 * US, "cpu1");
	/* a preempt-off one inside the window, shorter than the irqs-off one */
	lh_noise_section(n, 0, E + 1000 * US, LH_TRACER_PREEMPTOFF, 300 * US, "inside");
	irqsoff_cycle(3, E);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	x = &got[0].section;
	ck_assert_int_eq(x->state, LH_SPIKE_SECTION_FOUND);
	ck_assert_uint_eq(x->watched, BOTH);
	ck_assert_uint_eq(x->min_ns, 25 * US);
	ck_assert_int_eq(x->tracer, LH_TRACER_IRQSOFF);
	ck_assert_int_eq(x->offset_ns, -500 * (int64_t)US);
	ck_assert_uint_eq(x->duration_ns, 2000 * US);
	ck_assert_uint_eq(x->overlap_ns, 1500 * US);
	ck_assert_str_eq(got[0].section_caller, "irqentry_enter+0x1/0x2");
	lh_noise_spike_record(&got[0], r);
	ck_assert_int_eq(r->spike.section.state, LH_SPIKE_SECTION_FOUND);
	ck_assert_str_eq(r->spike.section.caller, "irqentry_enter+0x1/0x2");
	ck_assert_uint_eq(lh_spike_permille(r->spike.section.overlap_ns, r->spike.latency_ns), 980);
	lh_record_free(r);
}
END_TEST

START_TEST(section_none_or_not_measured)
{
	/* nothing watched: nothing said */
	irqsoff_cycle(1, E);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	ck_assert_int_eq(got[0].section.state, LH_SPIKE_SECTION_NOT_MEASURED);
	ck_assert_uint_eq(got[0].section.watched, 0);
	/* watched, and none overlapped: said as none */
	lh_noise_watch_sections(n, 1u << LH_TRACER_PREEMPTOFF, 25 * US);
	blocked_cycle(2, E + 10 * MS);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 2);
	ck_assert_int_eq(got[1].section.state, LH_SPIKE_SECTION_NONE);
	ck_assert_uint_eq(got[1].section.watched, 1u << LH_TRACER_PREEMPTOFF);
	/* an irqs-off section is not looked for when only preempt-off ones are watched */
	irqsoff_cycle(3, E + 20 * MS);
	lh_noise_flush(n);
	ck_assert_int_eq(got[2].section.state, LH_SPIKE_SECTION_NONE);
	/* after a loss the CPU's sections are unknown until its events come again */
	lh_noise_lost(n, 1);
	lh_noise_section(n, 1, E + 30 * MS + 100 * US, LH_TRACER_PREEMPTOFF, 30 * US, "x");
	blocked_cycle(4, E + 30 * MS);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 4);
	ck_assert_int_eq(got[3].section.state, LH_SPIKE_SECTION_NOT_MEASURED);
	ck_assert_uint_eq(got[3].section.watched, 1u << LH_TRACER_PREEMPTOFF);
	/* and known again for the next window */
	blocked_cycle(5, E + 40 * MS);
	lh_noise_flush(n);
	ck_assert_int_eq(got[4].section.state, LH_SPIKE_SECTION_NONE);
}
END_TEST

START_TEST(section_ring_wrapped)
{
	int i;

	lh_noise_watch_sections(n, BOTH, 25 * US);
	noise(1, LH_NOISE_IRQ, E + 4 * US, 3 * US, 236, "local_timer");
	lh_noise_timerlat(n, 1, E + 5 * US, 1, false, 5 * US, 4242);
	/* the section behind the spike, then more after the window than the ring keeps */
	lh_noise_section(n, 1, E + 2100 * US, LH_TRACER_PREEMPTOFF, 2100 * US, "behind");
	lh_noise_timerlat(n, 1, E + 2200 * US, 1, true, 2200 * US, 77);
	for (i = 0; i < LH_NOISE_SECTIONS; i++)
		lh_noise_section(n, 1, E + (2300 + 40 * (uint64_t)i) * US, LH_TRACER_PREEMPTOFF,
				 30 * US, "after");
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	/* it was pushed out: finding none among those kept proves nothing */
	ck_assert_int_eq(got[0].section.state, LH_SPIKE_SECTION_NOT_MEASURED);
	ck_assert_uint_eq(got[0].section.watched, BOTH);
}
END_TEST

START_TEST(spike_as_record)
{
	static const char *const frames[] = { "spin\x1b[31m", "do_spin" };
	struct lh_record *r = lh_record_alloc();

	noise(1, LH_NOISE_SOFTIRQ, E + 10 * US, 20 * US, 1, NULL);
	noise(1, LH_NOISE_NMI, E + 40 * US, 2 * US, -1, NULL);
	blocked_cycle(7, E);
	lh_noise_stack(n, 1, frames, 2);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	lh_noise_spike_record(&got[0], r);
	ck_assert_int_eq(r->tracer, LH_TRACER_TIMERLAT);
	ck_assert_str_eq(r->tracer_name, "timerlat");
	ck_assert_uint_eq(r->latency_us, 2200);
	ck_assert_int_eq(r->cpu, 1);
	ck_assert_str_eq(r->task.comm, "spin99");
	ck_assert_int_eq(r->task.pid, 4242);
	ck_assert_str_eq(r->started_at, "thread:spin99");
	ck_assert_uint_eq(r->nr_irqs, 4);
	ck_assert_str_eq(r->irqs[0].name, "thread:spin99");
	ck_assert_str_eq(r->irqs[1].name, "softirq:TIMER");
	ck_assert_int_eq(r->irqs[1].irq, -1);
	ck_assert_str_eq(r->irqs[2].name, "local_timer");
	ck_assert_int_eq(r->irqs[2].irq, 236);
	ck_assert_str_eq(r->irqs[3].name, "nmi");
	ck_assert_uint_eq(r->nr_stacks, 1);
	ck_assert_uint_eq(r->stacks[0].nr, 2);
	/* trace text never reaches a terminal raw */
	ck_assert_str_eq(r->stacks[0].frames[0], "spin\\x1b[31m");
	/* the breakdown itself, in the record */
	ck_assert(r->spike.set);
	ck_assert_uint_eq(r->spike.latency_ns, 2200 * US);
	ck_assert(r->spike.has_irq && r->spike.has_thread && !r->spike.has_period);
	ck_assert_uint_eq(r->spike.irq_latency_ns, 5 * US);
	ck_assert_uint_eq(r->spike.thread_latency_ns, 2200 * US);
	ck_assert_str_eq(r->spike.blocking.comm, "spin99");
	ck_assert_int_eq(r->spike.blocking.pid, 4242);
	ck_assert_uint_eq(r->spike.blocking_ns, 2100 * US);
	ck_assert_str_eq(r->spike.culprit.comm, "spin99");
	ck_assert_uint_eq(r->spike.culprit_ns, 2100 * US);
	ck_assert_uint_eq(r->spike.nr_parts, 4);
	ck_assert_int_eq(r->spike.parts[0].kind, LH_SPIKE_THREAD);
	ck_assert_int_eq(r->spike.parts[0].pid, 4242);
	ck_assert_int_eq(r->spike.parts[0].vector, -1);
	ck_assert_int_eq(r->spike.parts[0].offset_ns, -2 * (int64_t)MS);
	ck_assert_uint_eq(r->spike.parts[0].duration_ns, 4100 * US);
	ck_assert_uint_eq(r->spike.parts[0].overlap_ns, 2100 * US);
	ck_assert_int_eq(r->spike.parts[1].kind, LH_SPIKE_SOFTIRQ);
	ck_assert_ptr_null(r->spike.parts[1].name);	/* the kernel gives no name */
	ck_assert_int_eq(r->spike.parts[1].vector, 1);
	ck_assert_int_eq(r->spike.parts[2].kind, LH_SPIKE_IRQ);
	ck_assert_str_eq(r->spike.parts[2].name, "local_timer");
	ck_assert_int_eq(r->spike.parts[3].kind, LH_SPIKE_NMI);
	ck_assert_uint_eq(r->spike.explained_ns, 2125 * US);
	ck_assert_uint_eq(lh_spike_permille(r->spike.explained_ns, r->spike.latency_ns), 965);
	/* records are reused: a reset forgets the spike */
	lh_record_reset(r);
	ck_assert(!r->spike.set);
	ck_assert_uint_eq(r->spike.nr_parts, 0);
	ck_assert_int_eq(r->spike.blocking.pid, -1);
	lh_record_free(r);
}
END_TEST

START_TEST(unknown_task_record)
{
	struct lh_record *r = lh_record_alloc();

	lh_noise_timerlat(n, 0, E + 900 * US, 1, true, 900 * US + 1, 77);
	lh_noise_flush(n);
	lh_noise_spike_record(&got[0], r);
	ck_assert_uint_eq(r->latency_us, 901);	/* rounded up: never under the budget it broke */
	ck_assert_ptr_null(r->task.comm);
	ck_assert_int_eq(r->task.pid, -1);
	ck_assert_ptr_null(r->started_at);
	lh_record_free(r);
}
END_TEST

/* Return: whether shipped rule id (rules/noise.rules) fires on r. */
static bool fires(struct lh_rules *rs, const struct lh_record *r, const char *id)
{
	struct lh_match m = { 0 };
	struct lh_diag d = { 0 };
	bool hit = false;
	size_t i;

	ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
	for (i = 0; i < m.nr_hits; i++)
		hit |= !strcmp(lh_rules_get(rs, m.hits[i])->id, id);
	lh_match_release(&m);
	lh_diag_release(&d);
	return hit;
}

START_TEST(shipped_noise_rules)
{
	struct lh_rules *rs = lh_rules_alloc();
	struct lh_record *r = lh_record_alloc();
	struct lh_diag d = { 0 };

	ck_assert_int_eq(lh_rules_load(rs, LH_TEST_DATA "/../../rules/noise.rules", &d), 0);
	/* the culprit a kworker: the task line "kworker/1:2-31" */
	lh_noise_timerlat(n, 1, E + 5 * US, 1, false, 5 * US, 31);
	noise(1, LH_NOISE_THREAD, E, 400 * US, 31, "kworker/1:2");
	noise(1, LH_NOISE_THREAD, E + 400 * US, 30 * US, 12, "rcuc/1");
	lh_noise_timerlat(n, 1, E + 500 * US, 1, true, 500 * US, 77);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	lh_noise_spike_record(&got[0], r);
	ck_assert(fires(rs, r, "percpu-kworker-noise"));
	ck_assert(fires(rs, r, "rcuc-noise"));	/* a part: "thread:rcuc/1" */
	ck_assert(!fires(rs, r, "migration-noise"));
	ck_assert(!fires(rs, r, "ksoftirqd-noise"));
	lh_record_free(r);
	lh_rules_free(rs);
	lh_diag_release(&d);
}
END_TEST

/* The osnoise period's figures are the record's; hwlat's spike is its latency alone. */
START_TEST(osnoise_and_hwlat_records)
{
	struct lh_record *r = lh_record_alloc();

	noise(1, LH_NOISE_THREAD, E + 300 * MS, 8 * MS, 4242, "spin99");
	lh_noise_osnoise(n, 1, E + 1000 * MS, 1000 * MS, 8060 * US, 8 * MS, 0);
	ck_assert_uint_eq(nr_got, 1);
	lh_noise_spike_record(&got[0], r);
	ck_assert(r->spike.set && r->spike.has_period && !r->spike.has_irq);
	ck_assert_uint_eq(r->spike.noise_ns, 8060 * US);
	ck_assert_uint_eq(r->spike.runtime_ns, 1000 * MS);
	ck_assert_int_eq(r->spike.blocking.pid, -1);
	ck_assert_str_eq(r->spike.culprit.comm, "spin99");
	ck_assert_uint_eq(r->spike.explained_ns, 8 * MS);
	lh_record_reset(r);
	lh_noise_hwlat(n, 0, E + 2000 * MS, 150 * US);
	lh_noise_spike_record(&got[1], r);
	ck_assert(r->spike.set && !r->spike.has_period && !r->spike.has_irq);
	ck_assert_uint_eq(r->spike.latency_ns, 150 * US);
	ck_assert_uint_eq(r->spike.nr_parts, 0);
	lh_record_free(r);
}
END_TEST

/* Return: whether the rule "[x] match = PATTERN in = SUBJECTS" fires on r. */
static bool rule_fires(const char *pattern, const char *in, const struct lh_record *r)
{
	struct lh_rules *rs = lh_rules_alloc();
	struct lh_match m = { 0 };
	struct lh_diag d = { 0 };
	char *text = lh_xasprintf("[x]\nmatch = %s\nin = %s\nseverity = warning\n", pattern, in);
	bool hit;

	ck_assert_int_eq(lh_rules_load_buffer(rs, "t.rules", text, strlen(text), &d), 0);
	ck_assert_int_eq(lh_rules_match(rs, r, &m, &d), 0);
	hit = m.nr_hits == 1;
	lh_match_release(&m);
	lh_diag_release(&d);
	lh_rules_free(rs);
	free(text);
	return hit;
}

/*
 * 'in = blocking' is the task the timer interrupted, as "comm-pid": idle here, while the
 * culprit (the task subject) is the thread that ran first.
 */
START_TEST(blocking_subject)
{
	struct lh_record *r = lh_record_alloc();

	lh_noise_timerlat(n, 1, E + 20 * US, 3, false, 20 * US, 0);
	noise(1, LH_NOISE_THREAD, E + 30 * US, 8 * MS, 4242, "spin99");
	lh_noise_timerlat(n, 1, E + 8100 * US, 3, true, 8100 * US, 77);
	lh_noise_flush(n);
	ck_assert_uint_eq(nr_got, 1);
	lh_noise_spike_record(&got[0], r);
	ck_assert(rule_fires("^swapper/1-0$", "blocking", r));
	ck_assert(!rule_fires("^swapper/1-0$", "task", r));
	ck_assert(rule_fires("^spin99-4242$", "task", r));
	ck_assert(!rule_fires("^spin99", "blocking", r));
	/* every subject by default, the blocking task among them */
	ck_assert(rule_fires("^swapper/1-0$", "stack functions irq task start end blocking", r));
	/* a record that is not a spike has no blocking task */
	r->spike.set = false;
	ck_assert(!rule_fires("^swapper/1-0$", "blocking", r));
	lh_record_free(r);
}
END_TEST

/* osnoise/cpus as the kernel lists them: the CPUs whose availability must be measured. */
START_TEST(cpu_set)
{
	ck_assert(lh_noise_cpu_expected(n, 0) && lh_noise_cpu_expected(n, 1));
	ck_assert(!lh_noise_cpu_expected(n, 2));	/* beyond the breakdown's 2 */
	ck_assert_int_eq(lh_noise_set_cpus(n, "1\n"), 0);
	ck_assert(!lh_noise_cpu_expected(n, 0) && lh_noise_cpu_expected(n, 1));
	ck_assert_int_eq(lh_noise_set_cpus(n, "0-1,7"), 0);
	ck_assert(lh_noise_cpu_expected(n, 0) && lh_noise_cpu_expected(n, 1));
	ck_assert_int_eq(lh_noise_set_cpus(n, "1"), 0);
	/* a list that is not one changes nothing */
	ck_assert_int_eq(lh_noise_set_cpus(n, "0-x"), -1);
	ck_assert_int_eq(lh_noise_set_cpus(n, "2-0"), -1);
	ck_assert_int_eq(lh_noise_set_cpus(n, "0,,1"), -1);
	ck_assert_int_eq(lh_noise_set_cpus(n, "99999999999"), -1);
	ck_assert(!lh_noise_cpu_expected(n, 0) && lh_noise_cpu_expected(n, 1));
	ck_assert_int_eq(lh_noise_set_cpus(n, ""), 0);	/* none */
	ck_assert(!lh_noise_cpu_expected(n, 1));
}
END_TEST

static Suite *noise_suite(void)
{
	Suite *s = suite_create("noise");
	TCase *tc = tcase_create("breakdown");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, blocking_task_named);
	tcase_add_test(tc, spike_judged_at_next_timer);
	tcase_add_test(tc, irq_sample_lost);
	tcase_add_test(tc, thread_sample_of_another_timer);
	tcase_add_test(tc, noise_missing_is_unexplained);
	tcase_add_test(tc, idle_is_swapper);
	tcase_add_test(tc, idle_then_a_thread_woken_with_the_timer);
	tcase_add_test(tc, thread_sample_lost);
	tcase_add_test(tc, lost_events_break_pairs);
	tcase_add_test(tc, running_maximum);
	tcase_add_test(tc, stack_follows_thread_sample);
	tcase_add_test(tc, histograms_every_sample);
	tcase_add_test(tc, osnoise_top_thread);
	tcase_add_test(tc, hwlat_sample);
	tcase_add_test(tc, stack_after_irq_work);
	tcase_add_test(tc, nested_irq_durations_left_out);
	tcase_add_test(tc, section_behind_spike);
	tcase_add_test(tc, section_none_or_not_measured);
	tcase_add_test(tc, section_ring_wrapped);
	tcase_add_test(tc, spike_as_record);
	tcase_add_test(tc, unknown_task_record);
	tcase_add_test(tc, shipped_noise_rules);
	tcase_add_test(tc, osnoise_and_hwlat_records);
	tcase_add_test(tc, blocking_subject);
	tcase_add_test(tc, cpu_set);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(noise_suite)
