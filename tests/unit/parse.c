// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the latency-snapshot parser (src/trace/parse.c) on the trace corpus in tests/data:
 * every file's records asserted field by field, malformed input, state between snapshots and
 * between buffers, and edge cases built in memory.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/parse.h"
#include "check-main.h"

#define MAX_RECORDS 64

/* Every record a parse produced (deep copies), its stats and its warnings. */
struct result {
	struct lh_record	*r[MAX_RECORDS];
	size_t			nr;
	struct lh_parse_stats	stats;
	struct lh_diag		diag;
	int			ret;
	size_t			stop_after;	/* the callback stops after this many */
};

static int collect(struct lh_record *r, void *arg)
{
	struct result *res = arg;

	ck_assert_uint_lt(res->nr, MAX_RECORDS);
	res->r[res->nr++] = lh_record_dup(r);
	return res->stop_after && res->nr >= res->stop_after ? -1 : 0;
}

static void result_free(struct result *res)
{
	size_t i;

	for (i = 0; i < res->nr; i++)
		lh_record_free(res->r[i]);
	lh_diag_release(&res->diag);
	memset(res, 0, sizeof(*res));
}

/* Reads a data file into an exactly sized buffer (no NUL), so overreads are caught. */
static char *slurp(const char *name, size_t *len)
{
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", LH_TEST_DATA, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open '%s'", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	buf = malloc(n ? (size_t)n : 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void parse_mem(struct result *res, const char *source, const char *buf, size_t len)
{
	struct lh_parser *p = lh_parser_alloc(&res->diag);

	res->ret = lh_parse_buffer(p, source, buf, len, collect, res);
	res->stats = *lh_parser_stats(p);
	lh_parser_free(p);
}

static void parse_file(struct result *res, const char *name)
{
	size_t len;
	char *buf = slurp(name, &len);

	parse_mem(res, name, buf, len);
	free(buf);
}

/* Parses a string (copied to an exactly sized buffer). */
static void parse_str(struct result *res, const char *text)
{
	size_t len = strlen(text);
	char *buf = malloc(len ? len : 1);

	memcpy(buf, text, len);
	parse_mem(res, "mem.trace", buf, len);
	free(buf);
}

static bool has_warning(const struct result *res, const char *needle)
{
	size_t i;

	for (i = 0; i < res->diag.nr; i++)
		if (strstr(res->diag.msgs[i].text, needle))
			return true;
	return false;
}

static const struct lh_func *func(const struct lh_record *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_funcs; i++)
		if (!strcmp(r->funcs[i].name, name))
			return &r->funcs[i];
	return NULL;
}

#define ck_assert_str_or_null(a, b) do { \
		const char *_a = (a), *_b = (b); \
		if (!_b) \
			ck_assert_msg(_a == NULL, "'%s' is '%s', expected NULL", #a, _a); \
		else \
			ck_assert_msg(_a && !strcmp(_a, _b), "'%s' is '%s', expected '%s'", #a, \
				      _a ? _a : "(null)", _b); \
	} while (0)

/* What each record of the corpus must be. */
struct stack_exp {
	size_t		nr;
	const char	*first;	/* innermost */
	const char	*last;
};

struct record_exp {
	const char	*file;
	unsigned long	line;	/* the record's '# tracer:' line */
	enum lh_tracer	tracer;
	uint64_t	latency_us;
	int		cpu;
	int		nr_cpus;
	const char	*model;
	const char	*kernel;
	unsigned long	entries;
	const char	*comm;
	int		pid;
	const char	*started;
	const char	*ended;
	size_t		nr_stacks;
	struct stack_exp stack[2];
	size_t		nr_funcs;
	const char	*first_func;	/* first seen, and its count */
	unsigned int	first_count;
	const char	*func;		/* another one, and its count */
	unsigned int	count;
	size_t		nr_irqs;
};

static const struct record_exp records[] = {
	{ "ftrace-rst-irqsoff-format.trace", 1, LH_TRACER_IRQSOFF, 259, 2, 4, "preempt",
	  "3.8.0-test+", 4, "ps", 6143, "__lock_task_sighand", "_raw_spin_unlock_irqrestore",
	  1, { { 10, "trace_hardirqs_on_caller", "system_call_fastpath" } },
	  3, "trace_hardirqs_off", 1, "time_hardirqs_on", 1, 0 },
	{ "ftrace-rst-irqsoff.trace", 1, LH_TRACER_IRQSOFF, 16, 0, 4, "preempt", "3.8.0-test+", 4,
	  "swapper/0", 0, "run_timer_softirq", "run_timer_softirq",
	  1, { { 14, "_raw_spin_unlock_irq", "x86_64_start_kernel" } },
	  3, "_raw_spin_lock_irq", 1, "trace_hardirqs_on", 1, 0 },
	{ "ftrace-rst-irqsoff-func.trace", 1, LH_TRACER_IRQSOFF, 71, 3, 4, "preempt",
	  "3.8.0-test+", 168, "bash", 2042, "ata_scsi_queuecmd", "ata_scsi_queuecmd",
	  1, { { 25, "_raw_spin_unlock_irqrestore", "system_call_fastpath" } },
	  14, "_raw_spin_lock_irqsave", 1, "_raw_spin_unlock_irqrestore", 2, 0 },
	{ "ftrace-rst-irqsoff-graph.trace", 1, LH_TRACER_IRQSOFF, 3751, 0, 4, "desktop",
	  "4.20.0-rc6+", 274, "bash", 1507, "free_debug_processing", "return_to_handler",
	  1, { { 14, "free_debug_processing", "entry_SYSCALL_64_after_hwframe" } },
	  11, "_raw_spin_lock_irqsave", 1, "in_task_stack", 1, 0 },
	{ "ftrace-rst-preemptoff.trace", 1, LH_TRACER_PREEMPTOFF, 46, 1, 4, "preempt",
	  "3.8.0-test+", 4, "sshd", 1991, "do_IRQ", "do_IRQ",
	  1, { { 4, "sub_preempt_count", "ret_from_intr" } },
	  3, "irq_enter", 1, "trace_preempt_on", 1, 0 },
	{ "ftrace-rst-preemptoff-func.trace", 1, LH_TRACER_PREEMPTOFF, 83, 1, 4, "preempt",
	  "3.8.0-test+", 241, "bash", 1994, "wake_up_new_task", "task_rq_unlock",
	  1, { { 7, "sub_preempt_count", "stub_clone" } },
	  25, "_raw_spin_lock_irqsave", 1, "source_load", 2, 0 },
	{ "ftrace-rst-preemptirqsoff.trace", 1, LH_TRACER_PREEMPTIRQSOFF, 100, 3, 4, "preempt",
	  "3.8.0-test+", 4, "ls", 2230, "ata_scsi_queuecmd", "ata_scsi_queuecmd",
	  1, { { 19, "sub_preempt_count", "system_call_fastpath" } },
	  3, "_raw_spin_lock_irqsave", 1, "trace_preempt_on", 1, 0 },
	{ "ftrace-rst-preemptirqsoff-func.trace", 1, LH_TRACER_PREEMPTIRQSOFF, 161, 3, 4,
	  "preempt", "3.8.0-test+", 339, "ls", 2269, "schedule", "mutex_unlock",
	  1, { { 8, "__mutex_unlock_slowpath", "system_call_fastpath" } },
	  44, "__schedule", 1, "sub_preempt_count", 6, 0 },
	{ "ftrace-rst-wakeup.trace", 1, LH_TRACER_WAKEUP, 15, 3, 4, "preempt", "3.8.0-test+", 4,
	  "kworker/3:1H", 312, NULL, NULL, 0, { { 0 } },
	  2, "ttwu_do_activate.constprop.87", 1, "__schedule", 1, 0 },
	/* the documentation's block starts with a stray "# tracer: wakeup" */
	{ "ftrace-rst-wakeup_rt.trace", 3, LH_TRACER_WAKEUP_RT, 5, 3, 4, "preempt", "3.8.0-test+",
	  4, "sleep", 2389, NULL, NULL, 0, { { 0 } },
	  2, "ttwu_do_activate.constprop.87", 1, "__schedule", 1, 0 },
	{ "ftrace-rst-wakeup_rt-func.trace", 1, LH_TRACER_WAKEUP_RT, 29, 3, 4, "preempt",
	  "3.8.0-test+", 85, "sleep", 2448, NULL, NULL, 0, { { 0 } },
	  51, "ttwu_do_activate.constprop.87", 1, "sub_preempt_count", 9, 0 },
	{ "ftrace-rst-wakeup_rt-events.trace", 1, LH_TRACER_WAKEUP_RT, 6, 2, 4, "preempt",
	  "3.8.0-test+", 12, "sleep", 5882, NULL, NULL, 0, { { 0 } },
	  2, "ttwu_do_activate.constprop.87", 1, "__schedule", 1, 0 },
	{ "pidt-irqsoff-nofunc.trace", 1, LH_TRACER_IRQSOFF, 2002, 0, 1, "preempt", "6.1.192", 4,
	  "irq_test", 82, "execute_preemptirqtest", "execute_preemptirqtest",
	  1, { { 7, "preemptirq_delay_run", "ret_from_fork" } },
	  2, "execute_preemptirqtest", 2, "tracer_hardirqs_on", 1, 0 },
	{ "pidt-preemptoff-nofunc.trace", 1, LH_TRACER_PREEMPTOFF, 3002, 0, 1, "preempt",
	  "6.1.192", 4, "preempt_test", 92, "execute_preemptirqtest", "preempt_count_sub",
	  1, { { 7, "preemptirq_delay_run", "ret_from_fork" } },
	  3, "execute_preemptirqtest", 1, "tracer_preempt_on", 1, 0 },
	{ "pidt-preemptirqsoff-func.trace", 1, LH_TRACER_PREEMPTIRQSOFF, 2079, 0, 1, "preempt",
	  "6.1.192", 1821, "insmod", 96, "_raw_spin_lock_irqsave", "preempt_count_sub",
	  1, { { 15, "preempt_count_sub", "entry_SYSCALL_64_after_hwframe" } },
	  94, "_raw_spin_lock_irqsave", 8, "slob_next", 1546, 0 },
	{ "pidt-irqsoff-graph.trace", 1, LH_TRACER_IRQSOFF, 4179, 0, 1, "preempt", "6.1.192",
	  3042, "insmod", 101, "_raw_spin_lock_irqsave", "__raw_spin_unlock_irqrestore",
	  1, { { 16, "trace_hardirqs_on", "entry_SYSCALL_64_after_hwframe" } },
	  7, "_raw_spin_lock_irqsave", 1, "slob_next", 1440, 0 },
	/* tests/vm's kernel scenario: the lhx driver's sections, caught by the raw tracers */
	{ "vm-irqsoff-fakeraid.trace", 1, LH_TRACER_IRQSOFF, 2005, 0, 1, "preempt", "6.1.192", 6,
	  "lhx/fakeraid", 49, "irqentry_enter", "handle_softirqs",
	  1, { { 6, "irq_exit_rcu", "ret_from_fork" } },
	  3, "irqentry_enter", 1, "tracer_hardirqs_on", 1, 1 },
	{ "vm-irqsoff-func.trace", 1, LH_TRACER_IRQSOFF, 2093, 0, 1, "preempt", "6.1.192", 167,
	  "lhx/fakeraid", 75, "irqentry_enter", "handle_softirqs",
	  1, { { 6, "irq_exit_rcu", "ret_from_fork" } },
	  90, "irqentry_enter", 1, "preempt_count_add", 12, 1 },
	{ "vm-irqsoff-kprobe.trace", 1, LH_TRACER_IRQSOFF, 2004, 0, 1, "preempt", "6.1.192", 7,
	  "lhx/fakeraid", 78, "irqentry_enter", "asm_sysvec_apic_timer_interrupt",
	  1, { { 3, "lhx_worker", "ret_from_fork" } },
	  3, "irqentry_enter", 1, "tracer_hardirqs_on", 1, 1 },
	{ "vm-preemptoff-hog.trace", 1, LH_TRACER_PREEMPTOFF, 3001, 0, 1, "preempt", "6.1.192", 4,
	  "lhx/preempt", 52, "lhx_preempt_hog", "preempt_count_sub",
	  1, { { 3, "lhx_worker", "ret_from_fork" } },
	  3, "lhx_preempt_hog", 1, "tracer_preempt_on", 1, 0 },
	/*
	 * probe_wakeup's function line "7us#: 0" (CALLER_ADDR1 is 0 in a kernel without frame
	 * pointers) names no function and is not counted as one
	 */
	{ "vm-wakeup_rt.trace", 1, LH_TRACER_WAKEUP_RT, 2017, 0, 1, "preempt", "6.1.192", 6,
	  "lhx_rt", 59, NULL, NULL,
	  2, { { 10, "__ftrace_trace_stack", "ret_from_fork" },
	       { 10, "__ftrace_trace_stack", "ret_from_fork" } },
	  1, "__traceiter_sched_switch", 1, "__traceiter_sched_switch", 1, 0 },
	{ "vm-wakeup_dl.trace", 1, LH_TRACER_WAKEUP_DL, 2017, 0, 1, "preempt", "6.1.192", 6,
	  "lhx_dl", 67, NULL, NULL,
	  2, { { 10, "__ftrace_trace_stack", "ret_from_fork" },
	       { 10, "__ftrace_trace_stack", "ret_from_fork" } },
	  1, "__traceiter_sched_switch", 1, "__traceiter_sched_switch", 1, 0 },
	{ "handmade-irq-events.trace", 1, LH_TRACER_IRQSOFF, 2007, 0, 1, "preempt", "6.1.192", 8,
	  "irq_test", 82, "irqentry_enter", "irqentry_exit",
	  1, { { 6, "irqentry_exit", "ret_from_fork" } },
	  3, "irqentry_enter", 1, "tracer_hardirqs_on", 1, 2 },
	{ "handmade-irq-nested.trace", 1, LH_TRACER_PREEMPTIRQSOFF, 819, 0, 4, "preempt_rt",
	  "5.10.0-28-rt-amd64", 16, "kworker/0:2", 311, "irq_exit_rcu",
	  "_raw_spin_unlock_irqrestore", 1, { { 8, "preempt_count_sub", "ret_from_fork" } },
	  7, "irq_exit_rcu", 1, "fakeraid_poll_wait", 2, 4 },
	{ "handmade-graph-irq.trace", 1, LH_TRACER_IRQSOFF, 1999, 0, 1, "preempt", "6.1.192", 11,
	  "camera_poll", 145, "lhx_camera_poll_locked", "_raw_spin_unlock_irqrestore",
	  1, { { 6, "trace_hardirqs_on", "ret_from_fork" } },
	  5, "_raw_spin_lock_irqsave", 1, "lhx_camera_read_reg", 2, 1 },
	{ "handmade-wakeup_rt-6.1.trace", 1, LH_TRACER_WAKEUP_RT, 64, 0, 1, "preempt", "6.1.192",
	  6, "rt_task", 64, NULL, NULL,
	  2, { { 10, "__ftrace_trace_stack", "default_idle" },
	       { 8, "__ftrace_trace_stack", "arch_call_rest_init" } },
	  2, "ttwu_do_activate", 1, "__schedule", 1, 0 },
	{ "handmade-wakeup_dl.trace", 1, LH_TRACER_WAKEUP_DL, 11, 0, 2, "preempt_rt",
	  "6.6.15-rt22", 5, "dl_task", 1234, NULL, NULL,
	  1, { { 6, "__ftrace_trace_stack", "asm_sysvec_apic_timer_interrupt" } },
	  2, "ttwu_do_activate", 1, "__schedule", 1, 0 },
	{ "handmade-multi.trace", 1, LH_TRACER_IRQSOFF, 512, 1, 2, "preempt", "6.1.192", 4,
	  "irq_test", 83, "execute_preemptirqtest", "execute_preemptirqtest",
	  1, { { 6, "preemptirq_delay_run", "ret_from_fork" } },
	  2, "execute_preemptirqtest", 2, "tracer_hardirqs_on", 1, 0 },
	{ "handmade-multi.trace", 32, LH_TRACER_WAKEUP_RT, 64, 0, 1, "preempt", "6.1.192", 6,
	  "rt_task", 64, NULL, NULL,
	  2, { { 10, "__ftrace_trace_stack", "default_idle" },
	       { 8, "__ftrace_trace_stack", "arch_call_rest_init" } },
	  2, "ttwu_do_activate", 1, "__schedule", 1, 0 },
	/* PREEMPT_RT lazy layout (7 flags), CONFIG_SMP off: no '#P:' */
	{ "handmade-multi.trace", 74, LH_TRACER_IRQSOFF, 39, 0, -1, "preempt_rt", "6.6.15-rt22",
	  8, "cyclictest", 1201, "rt_mutex_slowunlock", "_raw_spin_unlock_irqrestore",
	  1, { { 6, "_raw_spin_unlock_irqrestore", "do_syscall_64" } },
	  7, "_raw_spin_lock_irqsave", 1, "wake_q_add", 1, 0 },
	{ "handmade-multi.trace", 111, LH_TRACER_IRQSOFF, 1999, 0, 1, "preempt", "6.1.192", 11,
	  "camera_poll", 145, "lhx_camera_poll_locked", "_raw_spin_unlock_irqrestore",
	  1, { { 6, "trace_hardirqs_on", "ret_from_fork" } },
	  5, "_raw_spin_lock_irqsave", 1, "lhx_camera_poll_locked", 1, 1 },
	{ "handmade-multi.trace", 147, LH_TRACER_PREEMPTOFF, 46, 3, 4, "server",
	  "4.19.0-26-amd64", 4, "sshd", 1991, "do_IRQ", "do_IRQ",
	  1, { { 4, "sub_preempt_count", "ret_from_intr" } },
	  3, "irq_enter", 1, "trace_preempt_on", 1, 0 },
	/* cut in the middle of a body line: no stack, still a record */
	{ "handmade-truncated-body.trace", 1, LH_TRACER_PREEMPTIRQSOFF, 2079, 0, 1, "preempt",
	  "6.1.192", 1821, "insmod", 96, "_raw_spin_lock_irqsave", "preempt_count_sub",
	  0, { { 0 } }, 4, "_raw_spin_lock_irqsave", 1, "slob_next", 35, 0 },
	{ "handmade-malformed.trace", 51, LH_TRACER_IRQSOFF, 2002, 0, 1, "preempt", "6.1.192", 4,
	  "irq_test", 82, "execute_preemptirqtest", "execute_preemptirqtest",
	  1, { { 7, "preemptirq_delay_run", "ret_from_fork" } },
	  2, "execute_preemptirqtest", 2, "tracer_hardirqs_on", 1, 0 },
	{ "handmade-malformed.trace", 103, LH_TRACER_WAKEUP, 15, 3, 4, "preempt", "3.8.0-test+",
	  4, "kworker/3:1H", 312, NULL, NULL, 0, { { 0 } },
	  2, "ttwu_do_activate.constprop.87", 1, "__schedule", 1, 0 },
	{ "handmade-binary.trace", 15, LH_TRACER_PREEMPTOFF, 3002, 0, 1, "preempt", "6.1.192", 4,
	  "preempt_test", 92, "execute_preemptirqtest", "preempt_count_sub",
	  1, { { 7, "preemptirq_delay_run", "ret_from_fork" } },
	  3, "execute_preemptirqtest", 1, "preempt_count_sub", 1, 0 },
};

/* What parsing each file as a whole must give. */
struct file_exp {
	const char	*file;
	unsigned long	records;
	unsigned long	skipped;
	unsigned long	bad_lines;
	unsigned long	warnings;
};

/*
 * The documentation's "[...]" and "...." are elisions: they mark the record elided (asserted
 * in test_elisions), they are no bad lines. The stray "# tracer: wakeup" / "#" pair that
 * starts ftrace-rst-wakeup_rt.trace is what the kernel prints for an empty buffer
 * (trace_default_header() returns early): no snapshot, nothing skipped.
 */
static const struct file_exp files[] = {
	{ "ftrace-rst-irqsoff-format.trace", 1, 0, 0, 0 },
	{ "ftrace-rst-irqsoff.trace", 1, 0, 0, 0 },
	{ "ftrace-rst-irqsoff-func.trace", 1, 0, 0, 0 },
	{ "ftrace-rst-irqsoff-graph.trace", 1, 0, 0, 0 },
	{ "ftrace-rst-preemptoff.trace", 1, 0, 0, 0 },
	{ "ftrace-rst-preemptoff-func.trace", 1, 0, 0, 0 },
	{ "ftrace-rst-preemptirqsoff.trace", 1, 0, 0, 0 },
	{ "ftrace-rst-preemptirqsoff-func.trace", 1, 0, 0, 0 },
	{ "ftrace-rst-wakeup.trace", 1, 0, 0, 0 },
	{ "ftrace-rst-wakeup_rt.trace", 1, 0, 0, 0 },
	{ "ftrace-rst-wakeup_rt-func.trace", 1, 0, 0, 0 },
	{ "ftrace-rst-wakeup_rt-events.trace", 1, 0, 0, 0 },
	{ "pidt-irqsoff-nofunc.trace", 1, 0, 0, 0 },
	{ "pidt-preemptoff-nofunc.trace", 1, 0, 0, 0 },
	{ "pidt-preemptirqsoff-func.trace", 1, 0, 0, 0 },
	{ "pidt-irqsoff-graph.trace", 1, 0, 0, 0 },
	{ "vm-irqsoff-fakeraid.trace", 1, 0, 0, 0 },
	{ "vm-irqsoff-func.trace", 1, 0, 0, 0 },
	{ "vm-irqsoff-kprobe.trace", 1, 0, 0, 0 },
	{ "vm-preemptoff-hog.trace", 1, 0, 0, 0 },
	{ "vm-wakeup_rt.trace", 1, 0, 0, 0 },
	{ "vm-wakeup_dl.trace", 1, 0, 0, 0 },
	{ "handmade-irq-events.trace", 1, 0, 0, 0 },
	{ "handmade-irq-nested.trace", 1, 0, 0, 0 },
	{ "handmade-graph-irq.trace", 1, 0, 0, 0 },
	{ "handmade-wakeup_rt-6.1.trace", 1, 0, 0, 0 },
	{ "handmade-wakeup_dl.trace", 1, 0, 0, 0 },
	{ "handmade-multi.trace", 5, 0, 0, 0 },
	/* its last line, cut short, is no entry: the record says its body is cut */
	{ "handmade-truncated-body.trace", 1, 0, 0, 0 },
	{ "handmade-truncated-header.trace", 0, 1, 0, 1 },
	/* the prose before the first snapshot is no bad line; its binary junk is */
	{ "handmade-malformed.trace", 2, 4, 2, 6 },
	/* one line of the binary junk, "g", reads as text */
	{ "handmade-binary.trace", 1, 0, 13, 1 },
};

static const struct file_exp *file_exp(const char *name)
{
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(files); i++)
		if (!strcmp(files[i].file, name))
			return &files[i];
	return NULL;
}

/* Only a count the kernel computed below zero, in the latency line, is a wrapped one. */
START_TEST(test_entries_wrapped)
{
	static const struct {
		const char	*text;
		bool		wrapped;
	} cases[] = {
		{ "# latency: 1500 us, #4/4, CPU#0 | (M:preempt VP:0)\n", false },
		{ "# latency: 1500 us, #2147483647/2147483647, CPU#0\n", false },
		{ "# latency: 1500 us, #2147483648/2147483648, CPU#0\n", true },
		{ "# tracer: irqsoff\n#\n# irqsoff latency trace v1.1.5 on 6.1.0\n"
		  "# latency: 1500 us, #18446744073709551615/18446744073709551615, CPU#0\n", true },
		{ "# latency: 1500 us, #4294967295/4294967295, CPU#0\n", true },
		{ "# latency: 1500 us, #-2/-2, CPU#0\n", true },
		{ "# latency: 1500 us\n lhx-1 0d... 5us : x, #4294967295/1\n", false },
		{ "lhx-1 0d... 5us : # latency: 1 us, #4294967295/1\n", false },
		{ "", false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(lh_parse_entries_wrapped(cases[i].text, strlen(cases[i].text)) ==
				      cases[i].wrapped, "case %zu", i);
}
END_TEST

START_TEST(test_record)
{
	const struct record_exp *x = &records[_i];
	const struct lh_record *r = NULL;
	struct result res = { 0 };
	size_t i;

	parse_file(&res, x->file);
	for (i = 0; i < res.nr; i++)
		if (res.r[i]->line == x->line)
			r = res.r[i];
	if (!r) {
		ck_abort_msg("%s: no record at line %lu", x->file, x->line);
		return;		/* not reached: for static analysers */
	}

	ck_assert_int_eq(r->tracer, x->tracer);
	ck_assert_str_eq(r->tracer_name, lh_tracer_name(x->tracer));
	ck_assert_uint_eq(r->latency_us, x->latency_us);
	ck_assert_int_eq(r->cpu, x->cpu);
	ck_assert_int_eq(r->nr_cpus, x->nr_cpus);
	ck_assert_str_or_null(r->preempt_model, x->model);
	ck_assert_str_or_null(r->kernel, x->kernel);
	ck_assert_uint_eq(r->entries, x->entries);
	ck_assert_uint_eq(r->entries_total, x->entries);
	ck_assert_str_or_null(r->task.comm, x->comm);
	ck_assert_int_eq(r->task.pid, x->pid);
	ck_assert_int_eq(r->task.uid, 0);
	ck_assert_str_or_null(r->started_at, x->started);
	ck_assert_str_or_null(r->ended_at, x->ended);

	ck_assert_uint_eq(r->nr_stacks, x->nr_stacks);
	for (i = 0; i < x->nr_stacks && i < 2; i++) {
		const struct lh_stack *s = &r->stacks[i];

		ck_assert_uint_eq(s->nr, x->stack[i].nr);
		ck_assert_str_eq(s->frames[0], x->stack[i].first);
		ck_assert_str_eq(s->frames[s->nr - 1], x->stack[i].last);
	}

	ck_assert_uint_eq(r->nr_funcs, x->nr_funcs);
	ck_assert_str_eq(r->funcs[0].name, x->first_func);
	ck_assert_uint_eq(r->funcs[0].count, x->first_count);
	ck_assert_msg(func(r, x->func) != NULL, "%s: no function '%s'", x->file, x->func);
	ck_assert_uint_eq(func(r, x->func)->count, x->count);
	ck_assert_uint_eq(r->nr_irqs, x->nr_irqs);

	ck_assert_int_eq(r->has_wakeup, lh_tracer_is_wakeup(x->tracer));
	ck_assert_int_eq(r->started_at == NULL, lh_tracer_is_wakeup(x->tracer));
	ck_assert_str_eq(r->source, x->file);
	ck_assert_uint_eq(r->captured_ns, 0);
	result_free(&res);
}
END_TEST

START_TEST(test_file)
{
	const struct file_exp *x = &files[_i];
	struct result res = { 0 };

	parse_file(&res, x->file);
	ck_assert_int_eq(res.ret, 0);
	ck_assert_uint_eq(res.nr, x->records);
	ck_assert_uint_eq(res.stats.snapshots, x->records);
	ck_assert_uint_eq(res.stats.skipped, x->skipped);
	ck_assert_uint_eq(res.stats.bad_lines, x->bad_lines);
	ck_assert_uint_eq(res.diag.warnings, x->warnings);
	ck_assert_uint_gt(res.stats.lines, 0);
	result_free(&res);
}
END_TEST

/* Each record of the corpus is asserted, and each data file has its expectations. */
START_TEST(test_corpus_covered)
{
	struct dirent *de;
	size_t i, j, n = 0;
	DIR *d = opendir(LH_TEST_DATA);

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 7 || strcmp(de->d_name + len - 6, ".trace"))
			continue;
		n++;
		ck_assert_msg(file_exp(de->d_name) != NULL, "'%s' has no expectations in %s",
			      de->d_name, __FILE__);
	}
	closedir(d);
	ck_assert_uint_eq(n, LH_ARRAY_SIZE(files));
	for (i = 0; i < LH_ARRAY_SIZE(files); i++) {
		unsigned long nr = 0;

		for (j = 0; j < LH_ARRAY_SIZE(records); j++)
			nr += !strcmp(records[j].file, files[i].file);
		ck_assert_msg(nr == files[i].records, "'%s': %lu records asserted, %lu expected",
			      files[i].file, nr, files[i].records);
	}
}
END_TEST

/* Returns the record of a one-record file (the caller frees res). */
static const struct lh_record *only(struct result *res, const char *name)
{
	parse_file(res, name);
	ck_assert_uint_eq(res->nr, 1);
	return res->r[0];
}

START_TEST(test_irq_events)
{
	struct result res = { 0 };
	const struct lh_record *r = only(&res, "handmade-irq-events.trace");

	ck_assert_uint_eq(r->nr_irqs, 2);
	ck_assert_int_eq(r->irqs[0].irq, 24);
	ck_assert_str_eq(r->irqs[0].name, "fakeraid");
	ck_assert_double_eq(r->irqs[0].start_us, 3);
	ck_assert_double_eq(r->irqs[0].duration_us, 1998);
	ck_assert_str_eq(r->irqs[0].ret, "handled");
	ck_assert_int_eq(r->irqs[1].irq, 0);
	ck_assert_str_eq(r->irqs[1].name, "timer");
	ck_assert_double_eq(r->irqs[1].start_us, 2002);
	ck_assert_double_eq(r->irqs[1].duration_us, 3);
	/* event lines are not functions */
	ck_assert_ptr_null(func(r, "irq_handler_entry"));
	result_free(&res);
}
END_TEST

START_TEST(test_irq_nested)
{
	struct result res = { 0 };
	const struct lh_record *r = only(&res, "handmade-irq-nested.trace");

	ck_assert_uint_eq(r->nr_irqs, 4);
	/* an exit without its entry: running since before the section began */
	ck_assert_int_eq(r->irqs[0].irq, 11);
	ck_assert_ptr_null(r->irqs[0].name);
	ck_assert_double_eq(r->irqs[0].start_us, 0);
	ck_assert_double_eq(r->irqs[0].duration_us, 1);
	ck_assert_str_eq(r->irqs[0].ret, "handled");
	/* the outer handler lasts past the one nested inside it */
	ck_assert_int_eq(r->irqs[1].irq, 24);
	ck_assert_str_eq(r->irqs[1].name, "fakeraid");
	ck_assert_double_eq(r->irqs[1].start_us, 5);
	ck_assert_double_eq(r->irqs[1].duration_us, 807);
	ck_assert_int_eq(r->irqs[2].irq, 1);
	ck_assert_str_eq(r->irqs[2].name, "i8042");
	ck_assert_double_eq(r->irqs[2].duration_us, 7);
	ck_assert_str_eq(r->irqs[2].ret, "unhandled");
	/* an entry without exit */
	ck_assert_int_eq(r->irqs[3].irq, 4);
	ck_assert_str_eq(r->irqs[3].name, "ttyS0");
	ck_assert_double_eq(r->irqs[3].start_us, 815);
	ck_assert_double_eq(r->irqs[3].duration_us, -1);
	ck_assert_ptr_null(r->irqs[3].ret);
	/* module functions lose their " [fakeraid]"; sched_switch is no function */
	ck_assert_uint_eq(func(r, "fakeraid_isr")->count, 1);
	ck_assert_ptr_null(func(r, "sched_switch"));
	result_free(&res);
}
END_TEST

/* display-graph: events are comments, times are the REL TIME column */
START_TEST(test_graph_irq)
{
	struct result res = { 0 };
	const struct lh_record *r = only(&res, "handmade-graph-irq.trace");

	ck_assert_uint_eq(r->nr_irqs, 1);
	ck_assert_int_eq(r->irqs[0].irq, 24);
	ck_assert_str_eq(r->irqs[0].name, "fakeraid");
	ck_assert_double_eq(r->irqs[0].start_us, 3);
	ck_assert_double_eq(r->irqs[0].duration_us, 1990);
	ck_assert_str_eq(r->irqs[0].ret, "handled");
	ck_assert_str_eq(r->funcs[1].name, "lhx_camera_poll_locked");
	result_free(&res);
}
END_TEST

/* The fakeraid interrupt in the real snapshots: entry and exit events, its handler inside. */
struct vm_irq_exp {
	const char	*file;
	double		start_us;
	double		duration_us;
	const char	*handler;	/* a function seen inside, or NULL without function-trace */
};

static const struct vm_irq_exp vm_irqs[] = {
	{ "vm-irqsoff-fakeraid.trace", 2, 2001, NULL },
	{ "vm-irqsoff-func.trace", 15, 2002, "lhx_spin" },
	{ "vm-irqsoff-kprobe.trace", 1, 2002, NULL },
};

START_TEST(test_vm_irq)
{
	const struct vm_irq_exp *x = &vm_irqs[_i];
	struct result res = { 0 };
	const struct lh_record *r = only(&res, x->file);

	ck_assert_uint_eq(r->nr_irqs, 1);
	ck_assert_int_eq(r->irqs[0].irq, 24);
	ck_assert_str_eq(r->irqs[0].name, "fakeraid");
	ck_assert_double_eq(r->irqs[0].start_us, x->start_us);
	ck_assert_double_eq(r->irqs[0].duration_us, x->duration_us);
	ck_assert_str_eq(r->irqs[0].ret, "handled");
	ck_assert_ptr_null(func(r, "irq_handler_entry"));
	ck_assert_ptr_null(func(r, "irq_handler_exit"));
	if (x->handler) {
		ck_assert_uint_eq(func(r, "lhx_fakeraid_irq")->count, 1);
		ck_assert_uint_eq(func(r, x->handler)->count, 1);
	} else {
		ck_assert_ptr_null(func(r, "lhx_fakeraid_irq"));
	}
	/* the kprobe event line "fakeraid: (lhx_fakeraid_irq+0x0/0x17 [lhx])" is no function */
	ck_assert_ptr_null(func(r, "fakeraid"));
	result_free(&res);
}
END_TEST

/* lhx_wakeup_delay wakes lhx_rt (SCHED_FIFO 50) or lhx_dl (SCHED_DEADLINE), then spins. */
struct vm_wakeup_exp {
	const char	*file;
	const char	*woken;
	int		pid;
	int		prio;	/* a deadline task's -1, in the kernel's unsigned char field */
	int		policy;
	int		rt_prio;
	int		waker_pid;
};

static const struct vm_wakeup_exp vm_wakeups[] = {
	{ "vm-wakeup_rt.trace", "lhx_rt", 59, 49, 1, 50, 58 },
	{ "vm-wakeup_dl.trace", "lhx_dl", 67, 255, 6, 0, 66 },
};

START_TEST(test_vm_wakeup)
{
	const struct vm_wakeup_exp *x = &vm_wakeups[_i];
	struct result res = { 0 };
	const struct lh_record *r = only(&res, x->file);

	ck_assert(r->has_wakeup);
	ck_assert_str_eq(r->woken.comm, x->woken);
	ck_assert_int_eq(r->woken.pid, x->pid);
	ck_assert_int_eq(r->woken.prio, x->prio);
	ck_assert_int_eq(r->woken.state, 'R');
	ck_assert_int_eq(r->task.policy, x->policy);
	ck_assert_int_eq(r->task.rt_prio, x->rt_prio);
	ck_assert_str_eq(r->waker.comm, "lhx/wake");	/* the body's cmd column is 8 wide */
	ck_assert_int_eq(r->waker.pid, x->waker_pid);
	ck_assert_int_eq(r->waker.prio, 120);
	ck_assert_int_eq(r->waker.state, 'R');
	/* the wakeup's stack, then the switch's: both through the driver */
	ck_assert_str_eq(r->stacks[0].frames[1], "probe_wakeup");
	ck_assert_str_eq(r->stacks[0].frames[6], "lhx_wakeup_delay");
	ck_assert_str_eq(r->stacks[1].frames[1], "probe_wakeup_sched_switch");
	ck_assert_str_eq(r->stacks[1].frames[6], "lhx_wakeup_delay");
	result_free(&res);
}
END_TEST

START_TEST(test_wakeup_doc)
{
	struct result res = { 0 };
	const struct lh_record *r = only(&res, "ftrace-rst-wakeup.trace");

	ck_assert(r->has_wakeup);
	ck_assert_str_eq(r->woken.comm, "kworker/3:1H");
	ck_assert_int_eq(r->woken.pid, 312);
	ck_assert_int_eq(r->woken.prio, 100);
	ck_assert_int_eq(r->woken.state, 'R');
	ck_assert_int_eq(r->woken.nice, -20);
	ck_assert_int_eq(r->task.nice, -20);
	ck_assert_str_eq(r->waker.comm, "<idle>");
	ck_assert_int_eq(r->waker.pid, 0);
	ck_assert_int_eq(r->waker.prio, 120);
	ck_assert_int_eq(r->waker.state, 'R');
	result_free(&res);
}
END_TEST

START_TEST(test_wakeup_rt)
{
	struct result res = { 0 };
	const struct lh_record *r = only(&res, "handmade-wakeup_rt-6.1.trace");

	ck_assert_str_eq(r->woken.comm, "rt_task");
	ck_assert_int_eq(r->woken.pid, 64);
	ck_assert_int_eq(r->woken.prio, 49);
	ck_assert_int_eq(r->woken.policy, 1);
	ck_assert_int_eq(r->woken.rt_prio, 50);
	ck_assert_int_eq(r->task.rt_prio, 50);
	ck_assert_str_eq(r->waker.comm, "<idle>");
	ck_assert_int_eq(r->waker.pid, 0);
	ck_assert_ptr_null(r->started_at);
	result_free(&res);
}
END_TEST

/* The waker is the '+' line's task (on CPU 1), not the task switched out on CPU 0. */
START_TEST(test_wakeup_dl)
{
	struct result res = { 0 };
	const struct lh_record *r = only(&res, "handmade-wakeup_dl.trace");

	ck_assert_str_eq(r->woken.comm, "dl_task");
	ck_assert_int_eq(r->woken.pid, 1234);
	ck_assert_int_eq(r->woken.prio, -1);
	ck_assert_int_eq(r->woken.policy, 6);
	ck_assert_str_eq(r->waker.comm, "kworker/");	/* the body's cmd column is 8 wide */
	ck_assert_int_eq(r->waker.pid, 40);
	ck_assert_int_eq(r->waker.prio, 120);
	result_free(&res);
}
END_TEST

/*
 * A file read in pieces that start at its '# tracer:' lines, each by a parser of its own from
 * its first state (lh_parse_jump() to the piece's first line), and added up in order with
 * lh_parse_absorb(): what analyze's threads do (src/rules/parallel.c). The records, warnings (with
 * their line numbers), counters and what the file's parser says of the input are those of
 * one parser over the whole file.
 */
START_TEST(test_pieces_absorbed)
{
	static const char *const names[] = {
		"handmade-malformed.trace", "handmade-multi.trace", "handmade-truncated-body.trace",
	};
	char why_whole[256], why_pieces[256];
	struct result whole, pieces;
	struct lh_parse_outcome o;
	struct lh_parse_stats before;
	struct lh_parser *p, *q;
	unsigned long line;
	const char *s, *e, *next;
	size_t f, i, len;
	char *buf;

	for (f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		memset(&whole, 0, sizeof(whole));
		memset(&pieces, 0, sizeof(pieces));
		buf = slurp(names[f], &len);
		p = lh_parser_alloc(&whole.diag);
		lh_parse_buffer(p, names[f], buf, len, collect, &whole);
		whole.stats = *lh_parser_stats(p);
		why_whole[0] = '\0';
		lh_parser_why_empty(p, why_whole, sizeof(why_whole));
		snprintf(why_whole + strlen(why_whole), 64, "|%s", lh_parser_first_skip(p) ?: "-");
		lh_parser_free(p);

		p = lh_parser_alloc(&pieces.diag);
		q = lh_parser_alloc(&pieces.diag);
		lh_parse_begin(p, names[f], collect, &pieces);
		for (s = buf, e = buf + len, line = 0; s < e; s = next) {
			next = memmem(s + 1, (size_t)(e - s - 1), "\n# tracer:", 10);
			next = next ? next + 1 : e;
			lh_parse_begin(q, names[f], collect, &pieces);
			if (s > buf)
				lh_parse_jump(q, line);
			before = *lh_parser_stats(q);
			lh_parse_feed(q, s, (size_t)(next - s));
			for (i = 0; s + i < next; i++)
				line += s[i] == '\n';
			if (next == e) {
				lh_parse_end(q);
			} else {
				ck_assert(lh_parser_at_rest(q));
				lh_parse_jump(q, line);
			}
			lh_parser_outcome(q, &before, &o);
			lh_parse_absorb(p, &o);
		}
		lh_parse_end(p);
		pieces.stats = *lh_parser_stats(p);
		why_pieces[0] = '\0';
		lh_parser_why_empty(p, why_pieces, sizeof(why_pieces));
		snprintf(why_pieces + strlen(why_pieces), 64, "|%s", lh_parser_first_skip(p) ?: "-");
		lh_parser_free(p);
		lh_parser_free(q);

		ck_assert_str_eq(why_pieces, why_whole);
		ck_assert_int_eq(memcmp(&pieces.stats, &whole.stats, sizeof(whole.stats)), 0);
		ck_assert_uint_eq(pieces.nr, whole.nr);
		for (i = 0; i < whole.nr; i++) {
			ck_assert_uint_eq(pieces.r[i]->line, whole.r[i]->line);
			ck_assert_uint_eq(pieces.r[i]->latency_us, whole.r[i]->latency_us);
			ck_assert_uint_eq(pieces.r[i]->nr_funcs, whole.r[i]->nr_funcs);
		}
		ck_assert_uint_eq(pieces.diag.nr, whole.diag.nr);
		for (i = 0; i < whole.diag.nr; i++)
			ck_assert_str_eq(pieces.diag.msgs[i].text, whole.diag.msgs[i].text);
		result_free(&whole);
		result_free(&pieces);
		free(buf);
	}
}
END_TEST

START_TEST(test_malformed)
{
	struct result res = { 0 };

	parse_file(&res, "handmade-malformed.trace");
	ck_assert(has_warning(&res, "handmade-malformed.trace:2: expected a '# tracer:' line"));
	ck_assert(has_warning(&res, "handmade-malformed.trace:7: expected '# latency:' header "
			      "line, skipping snapshot 'irqsoff' from line 4"));
	ck_assert(has_warning(&res, "handmade-malformed.trace:14: expected '# latency: N us, "
			      "...' with a number, skipping snapshot 'preemptoff' from line 10"));
	ck_assert(has_warning(&res, "handmade-malformed.trace:51: header cut before the column "
			      "legend, skipping snapshot 'irqsoff' from line 42"));
	ck_assert(has_warning(&res, "handmade-malformed.trace:73: expected a trace line"));
	ck_assert(has_warning(&res, "got '?ELF??? binary junk in the body'"));
	ck_assert(has_warning(&res, "handmade-malformed.trace:98: expected '# latency:' header "
			      "line (options/latency-format is off)"));
	/* one warning per bad snapshot; the '[...]' after the junk is an elision */
	ck_assert_uint_eq(res.diag.warnings, 6);
	ck_assert_uint_eq(res.stats.skipped, 4);
	ck_assert_uint_eq(res.stats.bad_lines, 2);
	/* what follows each malformed snapshot is still parsed */
	ck_assert_uint_eq(res.nr, 2);
	ck_assert_uint_eq(res.r[0]->latency_us, 2002);
	ck_assert_uint_eq(res.r[1]->latency_us, 15);
	ck_assert_int_eq(res.r[1]->tracer, LH_TRACER_WAKEUP);
	result_free(&res);
}
END_TEST

START_TEST(test_truncated)
{
	struct result res = { 0 };

	parse_file(&res, "handmade-truncated-header.trace");
	ck_assert_uint_eq(res.nr, 0);
	ck_assert_uint_eq(res.stats.skipped, 1);
	ck_assert(has_warning(&res, "handmade-truncated-header.trace:7: header cut before the "
			      "column legend"));
	result_free(&res);

	parse_file(&res, "handmade-truncated-body.trace");
	ck_assert_uint_eq(res.nr, 1);
	ck_assert_uint_eq(res.r[0]->nr_stacks, 0);
	ck_assert_int_eq(lh_record_body(res.r[0]), LH_BODY_CUT);
	ck_assert_uint_eq(res.r[0]->entries, 1821);
	ck_assert_uint_eq(res.r[0]->entries_present, 39);
	result_free(&res);
}
END_TEST

START_TEST(test_binary)
{
	struct result res = { 0 };

	parse_file(&res, "handmade-binary.trace");
	ck_assert_uint_eq(res.nr, 1);
	ck_assert(has_warning(&res, "handmade-binary.trace:1: expected a '# tracer:' line"));
	ck_assert_uint_eq(res.r[0]->line, 15);
	result_free(&res);
}
END_TEST

/* A textual image of everything a record holds, to compare records. */
static char *record_text(const struct lh_record *r)
{
	char *text = NULL;
	size_t len = 0, i, j;
	FILE *f = open_memstream(&text, &len);
	const struct lh_task *t[3] = { &r->task, &r->woken, &r->waker };

	fprintf(f, "%d %s %llu %d %d %s %s %lu/%lu %s %s %d %s:%lu %llu\n", r->tracer,
		r->tracer_name, (unsigned long long)r->latency_us, r->cpu, r->nr_cpus,
		r->preempt_model, r->kernel, r->entries, r->entries_total, r->started_at,
		r->ended_at, r->has_wakeup, r->source, r->line, (unsigned long long)r->captured_ns);
	for (i = 0; i < 3; i++)
		fprintf(f, "%s %d %d %d %d %d %d %d\n", t[i]->comm, t[i]->pid, t[i]->uid,
			t[i]->nice, t[i]->policy, t[i]->rt_prio, t[i]->prio, t[i]->state);
	for (i = 0; i < r->nr_stacks; i++)
		for (j = 0; j < r->stacks[i].nr; j++)
			fprintf(f, "%zu %s\n", i, r->stacks[i].frames[j]);
	for (i = 0; i < r->nr_funcs; i++)
		fprintf(f, "%s %u\n", r->funcs[i].name, r->funcs[i].count);
	for (i = 0; i < r->nr_irqs; i++)
		fprintf(f, "%d %s %f %f %s\n", r->irqs[i].irq, r->irqs[i].name, r->irqs[i].start_us,
			r->irqs[i].duration_us, r->irqs[i].ret);
	fclose(f);
	return text;
}

static int image(struct lh_record *r, void *arg)
{
	FILE *f = arg;
	char *t = record_text(r);

	fputs(t, f);
	free(t);
	return 0;
}

/* The same buffer twice through one parser gives the same records: no state leaks. */
START_TEST(test_no_state_leak)
{
	static const char *const names[] = {
		"handmade-multi.trace", "handmade-malformed.trace",
		"pidt-preemptirqsoff-func.trace",
	};
	struct lh_diag diag = { 0 };
	struct lh_parser *p = lh_parser_alloc(&diag);
	size_t n, len, img_len[2], i;
	char *img[2];
	FILE *f;

	for (n = 0; n < LH_ARRAY_SIZE(names); n++) {
		char *buf = slurp(names[n], &len);

		for (i = 0; i < 2; i++) {
			f = open_memstream(&img[i], &img_len[i]);
			ck_assert_int_eq(lh_parse_buffer(p, names[n], buf, len, image, f), 0);
			fclose(f);
		}
		ck_assert_uint_gt(img_len[0], 100);
		ck_assert_str_eq(img[0], img[1]);
		free(img[0]);
		free(img[1]);
		free(buf);
	}
	ck_assert_uint_eq(lh_parser_stats(p)->snapshots, 2 * (5 + 2 + 1));
	lh_parser_free(p);
	lh_diag_release(&diag);
}
END_TEST

/* A copy made with lh_record_dup outlives the parser's reuse of its record. */
START_TEST(test_dup_survives)
{
	struct result res = { 0 };
	char *before, *after;
	size_t len;
	char *buf = slurp("handmade-multi.trace", &len);
	struct lh_diag diag = { 0 };
	struct lh_parser *p = lh_parser_alloc(&diag);

	ck_assert_int_eq(lh_parse_buffer(p, "a.trace", buf, len, collect, &res), 0);
	ck_assert_uint_eq(res.nr, 5);
	before = record_text(res.r[1]);
	ck_assert_ptr_nonnull(strstr(before, "rt_task"));
	/* the parser's own record is overwritten by every later snapshot */
	free(buf);
	buf = slurp("pidt-preemptirqsoff-func.trace", &len);
	ck_assert_int_eq(lh_parse_buffer(p, "b.trace", buf, len, NULL, NULL), 0);
	lh_parser_free(p);
	after = record_text(res.r[1]);
	ck_assert_str_eq(before, after);
	ck_assert_str_eq(res.r[1]->source, "a.trace");
	free(before);
	free(after);
	free(buf);
	lh_diag_release(&diag);
	result_free(&res);
}
END_TEST

START_TEST(test_callback_stops)
{
	struct result res = { .stop_after = 2 };

	parse_file(&res, "handmade-multi.trace");
	ck_assert_int_eq(res.ret, -1);
	ck_assert_uint_eq(res.nr, 2);
	ck_assert_uint_eq(res.stats.snapshots, 2);
	result_free(&res);
}
END_TEST

#define LEGEND \
	"#                    _------=> CPU#            \n" \
	"#                   / _-----=> irqs-off/BH-disabled\n" \
	"#                  | / _----=> need-resched    \n" \
	"#                  || / _---=> hardirq/softirq \n" \
	"#                  ||| / _--=> preempt-depth   \n" \
	"#                  |||| / _-=> migrate-disable \n" \
	"#                  ||||| /     delay           \n" \
	"#  cmd     pid     |||||| time  |   caller     \n" \
	"#     \\   /        ||||||  \\    |    /       \n"

#define HEADER(task) \
	"# tracer: irqsoff\n" \
	"#\n" \
	"# irqsoff latency trace v1.1.5 on 6.1.192\n" \
	"# --------------------------------------------------------------------\n" \
	"# latency: 120 us, #3/3, CPU#1 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:2)\n" \
	"#    -----------------\n" \
	"#    | task: " task "\n" \
	"#    -----------------\n" \
	"#  => started at: a\n" \
	"#  => ended at:   b\n" \
	"#\n" \
	"#\n" LEGEND

START_TEST(test_empty)
{
	struct result res = { 0 };

	parse_mem(&res, "empty.trace", "", 0);
	ck_assert_uint_eq(res.nr, 0);
	ck_assert_uint_eq(res.stats.lines, 0);
	ck_assert_uint_eq(res.diag.warnings, 0);
	result_free(&res);
	parse_str(&res, "\n\n#\n");
	ck_assert_uint_eq(res.nr, 0);
	ck_assert_uint_eq(res.stats.bad_lines, 0);
	ck_assert_uint_eq(res.diag.warnings, 0);
	result_free(&res);
}
END_TEST

/* comm keeps its '-' and spaces: the pid follows the last '-' */
START_TEST(test_task_comm)
{
	struct result res = { 0 };
	const struct lh_record *r;

	parse_str(&res, HEADER("my-app worker-1234 (uid:1000 nice:-5 policy:2 rt_prio:10)")
		  "my-app w-1234       1d.... 1us : a <-c\n");
	ck_assert_uint_eq(res.nr, 1);
	r = res.r[0];
	ck_assert_str_eq(r->task.comm, "my-app worker");
	ck_assert_int_eq(r->task.pid, 1234);
	ck_assert_int_eq(r->task.uid, 1000);
	ck_assert_int_eq(r->task.nice, -5);
	ck_assert_int_eq(r->task.policy, 2);
	ck_assert_int_eq(r->task.rt_prio, 10);
	ck_assert_str_eq(r->funcs[0].name, "a");
	result_free(&res);
}
END_TEST

/* A complete header with no body (trace read before any entry): a record without functions. */
START_TEST(test_header_only)
{
	struct result res = { 0 };

	parse_str(&res, HEADER("t-1 (uid:0 nice:0 policy:0 rt_prio:0)") HEADER("u-2 (uid:0)"));
	ck_assert_uint_eq(res.nr, 2);
	ck_assert_str_eq(res.r[0]->task.comm, "t");
	ck_assert_str_eq(res.r[1]->task.comm, "u");
	ck_assert_int_eq(res.r[1]->task.nice, -1);
	ck_assert_uint_eq(res.r[0]->nr_funcs, 0);
	ck_assert_uint_eq(res.r[1]->line, 22);
	ck_assert_uint_eq(res.stats.skipped, 0);
	result_free(&res);
}
END_TEST

START_TEST(test_line_forms)
{
	struct result res = { 0 };
	const struct lh_record *r;

	parse_str(&res, HEADER("t-1 (uid:0 nice:0 policy:0 rt_prio:0)")
		  /* CRLF */
		  "       t-1       1d.... 0us : crlf_func <-x\r\n"
		  /* sym-offset option */
		  "       t-1       1d.... 1us : off_func+0x1c/0x40 <-parent+0x5/0x10\n"
		  /* a comm with ':' and digits before the time column */
		  "    a 1:2-5        1d.... 2us : colon_func <-x\n"
		  /* raw address of an unloaded module's function */
		  "       t-1       1d.... 3us : 0xffffffffa0000034 <-x\n"
		  /* lost events, graph context switch: ordinary */
		  "CPU:1 [LOST 12 EVENTS]\n"
		  " ------------------------------------------\n"
		  "       t-1       1d.... 4us : <user stack trace>\n"
		  " => <00007f1234567890>\n"
		  "       t-1       1d.... 5us : <stack trace>\n"
		  " => frame_a\n"
		  " => frame_b+0x10/0x20\n"
		  "       t-1       1d.... 6us : last_func <-y");
	ck_assert_uint_eq(res.nr, 1);
	r = res.r[0];
	ck_assert_uint_eq(res.stats.bad_lines, 0);
	ck_assert_uint_eq(res.diag.warnings, 0);
	ck_assert_uint_eq(func(r, "crlf_func")->count, 1);
	ck_assert_uint_eq(func(r, "off_func")->count, 1);
	ck_assert_uint_eq(func(r, "colon_func")->count, 1);
	ck_assert_uint_eq(func(r, "0xffffffffa0000034")->count, 1);
	ck_assert_uint_eq(func(r, "last_func")->count, 1);
	ck_assert_uint_eq(r->nr_funcs, 5);
	ck_assert_uint_eq(r->nr_stacks, 1);
	ck_assert_uint_eq(r->stacks[0].nr, 2);
	ck_assert_str_eq(r->stacks[0].frames[1], "frame_b");
	ck_assert_str_eq(r->stacks[0].offsets[1], "+0x10/0x20");
	ck_assert_ptr_null(r->stacks[0].offsets[0]);
	ck_assert_str_eq(r->started_at, "a");
	ck_assert_uint_eq(r->entries_present, 7);
	result_free(&res);

	/*
	 * Without a column legend, lines without context columns (options/context-info off)
	 * and with seconds (latency-format off) are entries too. Under a latency-format
	 * legend they are not: the kernel prints no header with context-info off, and every
	 * entry of a latency-format trace has a µs time (seconds there are trace_pipe text
	 * pasted after it, as in tests/data/published/04 and 26).
	 */
	parse_str(&res, "# tracer: irqsoff\n"
		  "# latency: 120 us, #5/5, CPU#1 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:2)\n"
		  "#    | task: t-1 (uid:0 nice:0 policy:0 rt_prio:0)\n"
		  "bare_func <-parent\n"
		  "bare_func\n"
		  "      t-1   [001] d....   100.000500: irq_handler_entry: irq=7 name=a b\n"
		  "      t-1   [001] d....   100.000750: irq_handler_exit: irq=7 ret=handled\n");
	ck_assert_uint_eq(res.nr, 1);
	r = res.r[0];
	ck_assert_uint_eq(func(r, "bare_func")->count, 2);
	ck_assert_uint_eq(r->nr_irqs, 1);
	ck_assert_str_eq(r->irqs[0].name, "a b");
	ck_assert_double_eq_tol(r->irqs[0].duration_us, 250, 1e-6);
	ck_assert_int_eq(lh_record_body(r), LH_BODY_CUT);	/* 4 of 5 */
	result_free(&res);

	parse_str(&res, HEADER("t-1 (uid:0)")
		  "       t-1       1d.... 0us : first <-x\n"
		  "bare_func <-parent\n"
		  "      t-1   [001] d....   100.000500: irq_handler_entry: irq=7 name=a b\n"
		  "       t-1       1d.... 1us : last <-x\n");
	ck_assert_uint_eq(res.nr, 1);
	r = res.r[0];
	ck_assert_ptr_null(func(r, "bare_func"));
	ck_assert_uint_eq(r->nr_irqs, 0);
	ck_assert_uint_eq(r->entries_present, 2);
	ck_assert(r->elided);	/* text between entries */
	result_free(&res);
}
END_TEST

static int arena_used(struct lh_record *r, void *arg)
{
	*(size_t *)arg = r->arena.used;
	return 0;
}

/* Repeated wakeup lines do not grow the record; a NUL inside a comm is only text. */
START_TEST(test_wakeup_repeat)
{
	static const char wake[] =
		"  <idle>-0         0dNh5.    1us+:        0:120:R   + [000]      64: 49:R rt_task\n";
	static const char hdr[] = HEADER("rt_task-64 (uid:0 nice:0 policy:1 rt_prio:50)");
	size_t used[2], n, i, len;
	struct result res = { 0 };
	char *buf;

	for (n = 0; n < 2; n++) {
		struct lh_parser *p = lh_parser_alloc(NULL);

		len = strlen(hdr) + (n ? 500 : 1) * strlen(wake);
		buf = malloc(len);
		memcpy(buf, hdr, strlen(hdr));
		for (i = 0; i < (n ? 500 : 1); i++)
			memcpy(buf + strlen(hdr) + i * strlen(wake), wake, strlen(wake));
		ck_assert_int_eq(lh_parse_buffer(p, "w.trace", buf, len, arena_used, &used[n]), 0);
		lh_parser_free(p);
		free(buf);
	}
	ck_assert_uint_eq(used[0], used[1]);

	len = strlen(hdr) + 2 * strlen(wake);
	buf = malloc(len);
	memcpy(buf, hdr, strlen(hdr));
	memcpy(buf + strlen(hdr), wake, strlen(wake));
	memcpy(buf + strlen(hdr) + strlen(wake), wake, strlen(wake));
	buf[len - 3] = '\0';	/* "rt_ta\0k": the NUL is escaped, the comm is not cut short */
	parse_mem(&res, "w.trace", buf, len);
	ck_assert_uint_eq(res.nr, 1);
	ck_assert_str_eq(res.r[0]->woken.comm, "rt_ta\\x00k");
	ck_assert_int_eq(res.r[0]->woken.prio, 49);
	free(buf);
	result_free(&res);
}
END_TEST

/* Stack blocks beyond LH_MAX_STACKS (options/func_stack_trace) are dropped, not crashed on. */
START_TEST(test_many_stacks)
{
	struct result res = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i;

	fputs(HEADER("t-1 (uid:0)"), f);
	for (i = 0; i < 10; i++)
		fprintf(f, "       t-1       1d.... %dus : <stack trace>\n => f%d\n => g\n", i, i);
	fclose(f);
	parse_str(&res, text);
	ck_assert_uint_eq(res.nr, 1);
	ck_assert_uint_eq(res.r[0]->nr_stacks, LH_MAX_STACKS);
	ck_assert_str_eq(res.r[0]->stacks[LH_MAX_STACKS - 1].frames[0], "f3");
	free(text);
	result_free(&res);
}
END_TEST

/* Distinct functions per record are bounded; the table grows and is reset per record. */
START_TEST(test_many_functions)
{
	struct result res = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i;

	fputs(HEADER("t-1 (uid:0)"), f);
	for (i = 0; i < 70000; i++)
		fprintf(f, "       t-1       1d.... 1us : fn_%d <-x\n", i % 70000);
	fputs(HEADER("t-2 (uid:0)"), f);
	for (i = 0; i < 3000; i++)
		fprintf(f, "       t-2       1d.... 1us : fn_%d <-x\n", i % 1000);
	fclose(f);
	parse_str(&res, text);
	ck_assert_uint_eq(res.nr, 2);
	ck_assert_uint_eq(res.r[0]->nr_funcs, 65536);
	ck_assert_str_eq(res.r[0]->funcs[65535].name, "fn_65535");
	ck_assert(has_warning(&res, "more than 65536 distinct functions"));
	ck_assert_uint_eq(res.r[1]->nr_funcs, 1000);
	ck_assert_str_eq(res.r[1]->funcs[999].name, "fn_999");
	ck_assert_uint_eq(res.r[1]->funcs[999].count, 3);
	free(text);
	result_free(&res);
}
END_TEST

/* Random damage to real snapshots: never a crash, never a record without its header. */
START_TEST(test_mutations)
{
	static const char *const names[] = {
		"handmade-multi.trace", "pidt-irqsoff-nofunc.trace", "handmade-irq-nested.trace",
	};
	unsigned int seed = 42;
	size_t n, len, i, k;

	for (n = 0; n < LH_ARRAY_SIZE(names); n++) {
		char *orig = slurp(names[n], &len);
		char *buf = malloc(len);

		for (i = 0; i < 300; i++) {
			struct result res = { 0 };
			size_t cut = len;

			memcpy(buf, orig, len);
			for (k = 0; k < 1 + i % 8; k++) {
				seed = seed * 1103515245 + 12345;
				buf[(seed >> 8) % len] = (char)(seed >> 24);
			}
			if (i % 3 == 0)
				cut = (seed >> 4) % len;
			parse_mem(&res, "m.trace", buf, cut);
			for (k = 0; k < res.nr; k++)
				ck_assert_ptr_nonnull(res.r[k]->tracer_name);
			ck_assert_uint_le(res.nr + res.stats.skipped, 5);
			result_free(&res);
		}
		free(buf);
		free(orig);
	}
}
END_TEST


/*
 * Layouts of published traces: one snapshot, damaged the ways people publish traces
 * (quoted, indented, quoted-printable, wrapped...), must read as the clean one does.
 */
#define BASE_LINES \
	"# tracer: irqsoff\n" \
	"#\n" \
	"# irqsoff latency trace v1.1.5 on 6.12.0-test\n" \
	"# --------------------------------------------------------------------\n" \
	"# latency: 49040 us, #6/6, CPU#1 | (M:desktop VP:0, KP:0, SP:0 HP:0 #P:8)\n" \
	"#    -----------------\n" \
	"#    | task: kswapd0-91 (uid:0 nice:0 policy:0 rt_prio:0)\n" \
	"#    -----------------\n" \
	"#  => started at: _raw_spin_lock_irq+0x1a/0x40\n" \
	"#  => ended at:   shrink_inactive_list+0x165/0x420\n" \
	"#\n" \
	"#\n" LEGEND \
	" kswapd0-91        1d....    0us : _raw_spin_lock_irq+0x1a/0x40\n" \
	" kswapd0-91        1d....    0us*: isolate_lru_folios+0x0/0x380 <-shrink_inactive_list\n" \
	" kswapd0-91        1d.... 49039us : __mod_node_page_state+0x0/0x70 <-isolate_lru_folios\n" \
	" kswapd0-91        1d.... 49040us : shrink_inactive_list+0x165/0x420\n" \
	" kswapd0-91        1d.... 49040us : tracer_hardirqs_on+0xbb/0xd0 <-shrink_inactive_list\n" \
	" kswapd0-91        1d.... 49048us : <stack trace>\n" \
	" => shrink_lruvec+0x2fc/0x470\n" \
	" => shrink_node+0x1dd/0x4b0 [vmscan_test]\n" \
	" => kswapd+0x10f/0x320\n"

static const char base_snapshot[] = BASE_LINES;

/* What a reader checks of a record, as one string: every fact but its source and line. */
static char *facts(const struct lh_record *r)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	fprintf(f, "%s %llu us cpu %d #P %d %s %s entries %lu/%lu present %lu %s\n",
		r->tracer_name, (unsigned long long)r->latency_us, r->cpu, r->nr_cpus,
		r->preempt_model, r->kernel, r->entries, r->entries_total, r->entries_present,
		lh_body_name(lh_record_body(r)));
	fprintf(f, "task %s-%d uid %d started %s%s ended %s%s\n", r->task.comm, r->task.pid,
		r->task.uid, r->started_at, r->started_at_offset ? r->started_at_offset : "",
		r->ended_at, r->ended_at_offset ? r->ended_at_offset : "");
	for (i = 0; r->nr_stacks && i < r->stacks[0].nr; i++)
		fprintf(f, "frame %s|%s\n", r->stacks[0].frames[i],
			r->stacks[0].offsets[i] ? r->stacks[0].offsets[i] : "");
	for (i = 0; i < r->nr_funcs; i++)
		fprintf(f, "func %s %u\n", r->funcs[i].name, r->funcs[i].count);
	fclose(f);
	return text;
}

/* Asserts that text holds one snapshot that reads as base_snapshot does, without a warning. */
static void reads_as_base(const char *what, const char *text)
{
	struct result want = { 0 }, got = { 0 };
	char *a, *b;

	parse_str(&want, base_snapshot);
	parse_str(&got, text);
	ck_assert_msg(got.nr == 1, "%s: %zu records", what, got.nr);
	a = facts(want.r[0]);
	b = facts(got.r[0]);
	ck_assert_msg(!strcmp(a, b), "%s: read\n%s\ninstead of\n%s", what, b, a);
	ck_assert_msg(!got.diag.warnings, "%s: %lu warnings, first: %s", what, got.diag.warnings,
		      got.diag.nr ? got.diag.msgs[0].text : "");
	free(a);
	free(b);
	result_free(&want);
	result_free(&got);
}

/* Return: text with every line prefixed (the caller frees it). */
static char *prefixed(const char *text, const char *prefix)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	const char *nl;

	for (; *text; text = nl + 1) {
		nl = strchr(text, '\n');
		fprintf(f, "%s%.*s\n", prefix, (int)(nl - text), text);
	}
	fclose(f);
	return out;
}

START_TEST(test_layout_base)
{
	struct result res = { 0 };
	const struct lh_record *r;

	parse_str(&res, base_snapshot);
	ck_assert_uint_eq(res.nr, 1);
	r = res.r[0];
	/* sym-offset: the name for rules, what followed it for display */
	ck_assert_str_eq(r->started_at, "_raw_spin_lock_irq");
	ck_assert_str_eq(r->started_at_offset, "+0x1a/0x40");
	ck_assert_str_eq(r->ended_at, "shrink_inactive_list");
	ck_assert_str_eq(r->stacks[0].frames[1], "shrink_node");
	ck_assert_str_eq(r->stacks[0].offsets[1], "+0x1dd/0x4b0 [vmscan_test]");
	ck_assert_ptr_nonnull(func(r, "isolate_lru_folios"));
	ck_assert_int_eq(r->nr_cpus, 8);
	ck_assert_uint_eq(r->entries_present, 6);
	ck_assert_int_eq(lh_record_body(r), LH_BODY_COMPLETE);
	result_free(&res);
}
END_TEST

/* Mail quoting at any depth, with or without a space, with the reply's prose around it. */
START_TEST(test_layout_quoted)
{
	static const char *const quotes[] = { "> ", ">> ", ">>>", "> > >> ", ">", "  > " };
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(quotes); i++) {
		char *q = prefixed(base_snapshot, quotes[i]), *text;

		ck_assert_int_ge(asprintf(&text, "On Monday, someone wrote:\n%s\nThanks,\nme\n", q),
				 0);
		reads_as_base(quotes[i], text);
		free(q);
		free(text);
	}
}
END_TEST

/* The reply's own lines between the quoted trace's lines are passed over. */
START_TEST(test_layout_interleaved)
{
	char *q = prefixed(base_snapshot, ">> "), *text, *cut;

	/* after the third entry: a line of the reply and one at a shallower depth */
	cut = strstr(q, "49039us");
	cut = strchr(cut, '\n') + 1;
	ck_assert_int_ge(asprintf(&text, "%.*sI do not see why this takes so long.\n"
				  "> Neither do I.\n%s", (int)(cut - q), q, cut), 0);
	reads_as_base("interleaved reply", text);
	free(q);
	free(text);
}
END_TEST

/* Code blocks of blogs and reStructuredText: the whole snapshot shifted right. */
START_TEST(test_layout_indented)
{
	static const char *const indents[] = { "  ", "   ", "\t", "    " };
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(indents); i++) {
		char *t = prefixed(base_snapshot, indents[i]), *text;

		ck_assert_int_ge(asprintf(&text, "Here is what ftrace said::\n\n%s\nThat is all.\n",
					  t), 0);
		reads_as_base("indented", text);
		free(t);
		free(text);
	}
}
END_TEST

/* Return: text quoted-printable encoded, lines soft-broken every width bytes (free it). */
static char *qp_encode(const char *text, size_t width)
{
	char *out = NULL;
	size_t len = 0, col = 0;
	FILE *f = open_memstream(&out, &len);

	for (; *text; text++) {
		char enc[4];

		if (*text == '\n') {
			fputc('\n', f);
			col = 0;
			continue;
		}
		if (*text == '=' || (*text == ' ' && text[1] == '\n'))
			snprintf(enc, sizeof(enc), "=%02X", (unsigned char)*text);
		else
			snprintf(enc, sizeof(enc), "%c", *text);
		if (col + strlen(enc) > width) {
			fputs("=\n", f);
			col = 0;
		}
		fputs(enc, f);
		col += strlen(enc);
	}
	fclose(f);
	return out;
}

/*
 * Quoted-printable mail archives: decoded where the mail's header says so. Without that
 * header the raw form is read as what it is, and no value comes out wrong: "#P:8=" followed
 * by a soft break is no CPU count of 8.
 */
START_TEST(test_layout_qp)
{
	char *qp = qp_encode(base_snapshot, 40), *text;
	struct result res = { 0 };

	ck_assert_ptr_nonnull(strstr(qp, "=3D>"));
	ck_assert_int_ge(asprintf(&text, "From: someone\nContent-Type: text/plain; charset=UTF-8\n"
				  "Content-Transfer-Encoding: quoted-printable\n\nHi,=20\n%s", qp), 0);
	reads_as_base("quoted-printable", text);
	free(text);
	free(qp);

	/* quoted and soft-broken: the quote is part of each encoded line */
	qp = prefixed(base_snapshot, "> ");
	text = qp_encode(qp, 30);
	free(qp);
	ck_assert_int_ge(asprintf(&qp, "Content-Transfer-Encoding: Quoted-Printable\n\n%s", text),
			 0);
	reads_as_base("quoted, then quoted-printable", qp);
	free(qp);
	free(text);

	/* the raw form: "#P:8" soft-broken after its first digit */
	parse_str(&res, "# tracer: irqsoff\n"
		  "# latency: 49040 us, #6/6, CPU#1 | (M:desktop VP:0, KP:0, SP:0 HP:0 #P:8=\n"
		  "24)\n"
		  "#    | task: kswapd0-91 (uid:0 nice:0 policy:0 rt_prio:0)\n"
		  "#  =3D> started at: a\n" LEGEND
		  " kswapd0-91        1d....    0us : a\n");
	ck_assert_uint_eq(res.nr, 1);
	ck_assert_int_eq(res.r[0]->nr_cpus, -1);
	ck_assert_ptr_null(res.r[0]->started_at);
	ck_assert(has_warning(&res, "mem.trace:2: cannot read the CPU count ('#P:')"));
	ck_assert(has_warning(&res, "mem.trace:5: '=3D' looks like quoted-printable text"));
	result_free(&res);
}
END_TEST

/* format=flowed mail: a line ending in a space goes on in the next one of its depth. */
START_TEST(test_layout_flowed)
{
	struct result res = { 0 };

	parse_str(&res, "Content-Type: text/plain; charset=UTF-8;\n format=flowed\n\n"
		  ">> # tracer: wakeup_rt\n"
		  ">> # latency: 2000 us, #3/3, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0)\n"
		  ">> #    | task: irq/100-enet-fe-118 (uid:0 nice:0 policy:1 rt_prio:50)\n"
		  ">> #  cmd     pid     |||||| time  |   caller\n"
		  ">>   telnetd-229       0Dnh4.    0us :      229:120:R   + [000]     118: \n"
		  ">> 49:R irq/100-enet-fe\n"
		  ">>   telnetd-229       0d..3. 2000us : __schedule\n"
		  ">>   telnetd-229       0d..3. 2000us :      229:120:R ==> [000]     118: \n"
		  ">> 49:R irq/100-enet-fe\n");
	ck_assert_uint_eq(res.nr, 1);
	ck_assert_str_eq(res.r[0]->woken.comm, "irq/100-enet-fe");
	ck_assert_int_eq(res.r[0]->woken.pid, 118);
	ck_assert_str_eq(res.r[0]->waker.comm, "telnetd");
	ck_assert_int_eq(res.r[0]->waker.pid, 229);
	ck_assert_int_eq(lh_record_body(res.r[0]), LH_BODY_COMPLETE);
	result_free(&res);
}
END_TEST

/* Header lines a mail client wrapped, or joined to the dashed line before them. */
START_TEST(test_layout_wrapped_header)
{
	static const char *const wraps[][2] = {
		{ "KP:0,", "SP:0 HP:0 #P:8)" },		/* Gmail: wrapped before SP:0 */
		{ "HP:0", "#P:8)" },			/* '#P:8)' on its own line */
	};
	const char *lat = "# latency: 49040 us, #6/6, CPU#1 | (M:desktop VP:0, KP:0, SP:0 HP:0 #P:8)";
	char *text, *at, *dashes;
	struct result res = { 0 };
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(wraps); i++) {
		at = strstr(base_snapshot, lat);
		ck_assert_int_ge(asprintf(&text, "%.*s%.*s\n%s%s", (int)(at - base_snapshot),
					  base_snapshot,
					  (int)(strstr(lat, wraps[i][0]) - lat + strlen(wraps[i][0])),
					  lat, wraps[i][1], at + strlen(lat)), 0);
		reads_as_base(wraps[i][1], text);
		/* the same, quoted, the end of the line at a shallower depth (Outlook) */
		free(text);
	}
	at = strstr(base_snapshot, "# latency:");
	dashes = strstr(base_snapshot, "# -----");
	ck_assert_int_ge(asprintf(&text, "%.*s%.*s%s", (int)(dashes - base_snapshot),
				  base_snapshot, (int)(at - dashes - 1), dashes, at), 0);
	reads_as_base("dashes joined to the latency line", text);
	free(text);

	/* a wrapped line whose end is lost: the CPU count is unknown, and said so */
	parse_str(&res, "# tracer: irqsoff\n"
		  "# latency: 49040 us, #6/6, CPU#1 | (M:desktop VP:0, KP:0,\n"
		  "#    | task: kswapd0-91 (uid:0 nice:0 policy:0 rt_prio:0)\n" LEGEND
		  " kswapd0-91        1d....    0us : a\n");
	ck_assert_uint_eq(res.nr, 1);
	ck_assert_int_eq(res.r[0]->nr_cpus, -1);
	ck_assert_int_eq(res.r[0]->task.pid, 91);
	ck_assert(has_warning(&res, "mem.trace:2: the '# latency:' line of snapshot 'irqsoff' "
			      "is cut short (wrapped?)"));
	result_free(&res);
}
END_TEST

/* Several snapshots, the later ones indented or quoted: none is swallowed by another. */
START_TEST(test_layout_starts)
{
	char *q = prefixed(base_snapshot, "> "), *ind = prefixed(base_snapshot, "  "), *text;
	struct result res = { 0 };

	ck_assert_int_ge(asprintf(&text, "%sThen, quoted:\n%s\nand indented:\n%s",
				  "# tracer: wakeup_RT\n#\n"
				  "# latency: 5 us, #2/2, CPU#3 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:4)\n"
				  "#    | task: sleep-2389 (uid:0 nice:0 policy:1 rt_prio:5)\n" LEGEND
				  "  <idle>-0       3d.h4    0us :      0:120:R   + [003]  2389: 94:R sleep\n"
				  "  <idle>-0       3d..3    5us :      0:120:R ==> [003]  2389: 94:R sleep\n",
				  q, ind), 0);
	parse_str(&res, text);
	ck_assert_uint_eq(res.nr, 3);
	/* the tracer's name in another case */
	ck_assert_int_eq(res.r[0]->tracer, LH_TRACER_WAKEUP_RT);
	ck_assert_str_eq(res.r[0]->tracer_name, "wakeup_rt");
	ck_assert_str_eq(res.r[0]->woken.comm, "sleep");
	ck_assert_int_eq(lh_record_body(res.r[0]), LH_BODY_COMPLETE);
	ck_assert_uint_eq(res.r[1]->latency_us, 49040);
	ck_assert_uint_eq(res.r[1]->nr_funcs, 5);
	ck_assert_uint_eq(res.r[2]->nr_funcs, 5);
	ck_assert_uint_eq(res.diag.warnings, 0);
	result_free(&res);
	free(text);
	free(q);
	free(ind);

	/* no '# tracer:' line: the version line starts it; an empty buffer before it */
	parse_str(&res, "# tracer: wakeup\n#\n"
		  "> # wakeup_rt latency trace v1.1.5 on 6.12.0\n"
		  "> # latency: 2000 us, #1/1, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0)\n"
		  "> #    | task: rt-7 (uid:0 nice:0 policy:1 rt_prio:50)\n"
		  "> #  cmd     pid     |||||| time  |   caller\n"
		  ">   t-9       0d..3. 2000us : __schedule\n");
	ck_assert_uint_eq(res.nr, 1);
	ck_assert_int_eq(res.r[0]->tracer, LH_TRACER_WAKEUP_RT);
	ck_assert_str_eq(res.r[0]->kernel, "6.12.0");
	ck_assert_uint_eq(res.stats.skipped, 0);
	ck_assert_uint_eq(res.diag.warnings, 0);
	result_free(&res);

	/* nor that: a latency header starts it, its tracer unknown, said so */
	parse_str(&res, "# latency: 12 us, #1/1, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:2)\n"
		  "#    | task: t-1 (uid:0 nice:0 policy:0 rt_prio:0)\n" LEGEND
		  "       t-1       1d.... 0us : a <-b\n");
	ck_assert_uint_eq(res.nr, 1);
	ck_assert_int_eq(res.r[0]->tracer, LH_TRACER_UNKNOWN);
	ck_assert_str_eq(res.r[0]->tracer_name, "unknown");
	ck_assert(has_warning(&res, "mem.trace:1: a latency header without a '# tracer:' line"));
	result_free(&res);
}
END_TEST

/* Elided and cut bodies say so; prose after the trace is not an elision. */
START_TEST(test_layout_body)
{
	static const char *const marks[] = {
		"[...]", "...", "....", "\xe2\x80\xa6\xe2\x80\xa6", "<snip>", "[omitted for brevity]",
		"[ zillions of these deleted ]", "        8182 x the above two line",
	};
	const char *third = strstr(base_snapshot, " kswapd0-91        1d.... 49039us");
	struct result res = { 0 };
	char *text;
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(marks); i++) {
		ck_assert_int_ge(asprintf(&text, "%.*s%s\n%s", (int)(third - base_snapshot),
					  base_snapshot, marks[i], third), 0);
		parse_str(&res, text);
		ck_assert_uint_eq(res.nr, 1);
		ck_assert_msg(lh_record_body(res.r[0]) == LH_BODY_ELIDED, "'%s'", marks[i]);
		ck_assert_uint_eq(res.diag.warnings, 0);
		result_free(&res);
		free(text);
	}
	/* a body cut after two entries (head, a mail): fewer entries than declared */
	parse_mem(&res, "mem.trace", base_snapshot, (size_t)(third - base_snapshot));
	ck_assert_int_eq(lh_record_body(res.r[0]), LH_BODY_CUT);
	ck_assert_uint_eq(res.r[0]->entries_present, 2);
	result_free(&res);
	/* prose after the whole body, and an ellipsis of that prose: complete */
	ck_assert_int_ge(asprintf(&text, "%s\nThis is what I got.\n...\n", base_snapshot), 0);
	parse_str(&res, text);
	ck_assert_int_eq(lh_record_body(res.r[0]), LH_BODY_COMPLETE);
	result_free(&res);
	free(text);
	/* a wrapped line's end ("<-parent", one word) is no elision */
	ck_assert_int_ge(asprintf(&text, "%.*s kswapd0-91        1d....    0us : x\n<-y+0x1/0x2\n%s",
				  (int)(third - base_snapshot), base_snapshot, third), 0);
	parse_str(&res, text);
	ck_assert_int_eq(lh_record_body(res.r[0]), LH_BODY_COMPLETE);
	ck_assert_uint_eq(res.r[0]->entries_present, 7);
	result_free(&res);
	free(text);
}
END_TEST

/*
 * lost_start_text: the real snapshot FILE with its header's count WAS made NM, its first
 * DROP entries (from the one at 0 us, which begins with FIRST) dropped, or that entry's time
 * made 1 us.
 */
static char *lost_start_text(const char *file, const char *was, const char *first_entry,
			     const char *nm, int drop, bool first_at_1us)
{
	size_t len;
	char *buf = slurp(file, &len), *text, *counts, *first, *next;

	buf = realloc(buf, len + 1);
	buf[len] = '\0';
	counts = strstr(buf, was);
	first = strstr(buf, first_entry);
	ck_assert_ptr_nonnull(counts);
	ck_assert_ptr_nonnull(first);
	for (next = first; drop-- > 0; next = strchr(next, '\n') + 1)
		;
	if (first_at_1us)
		memcpy(strstr(first, "    0us"), "    1us", 7);
	ck_assert_int_ge(asprintf(&text, "%.*s%s%.*s%s", (int)(counts - buf), buf, nm,
				  (int)(first - counts - strlen(was)), counts + strlen(was), next), 0);
	free(buf);
	return text;
}

/*
 * A body whose first entries the kernel's ring buffer lost (#N/M with N < M, its first entry
 * inside the section: one longer than the buffer) is cut, and says where it begins. Entries
 * lost before the section (its start at 0 us, or 1 on a slow CPU) were not its own; a body
 * past its start that lost nothing (N/N) is no loss; nor one that kept its end only (it lost
 * no more than the start entry: the section of a reader whose own read took it away).
 */
START_TEST(test_start_lost)
{
	static const char func[] = "vm-irqsoff-func.trace", func_first[] = "lhx/fake-75        0d....";
	static const struct {
		const char	*file, *was, *first, *nm;
		int		drop;
		bool		first_at_1us;
	} whole[] = {
		{ func, "#167/167", func_first, "#167/4093", 0, false },
		{ func, "#167/167", func_first, "#167/4093", 0, true },
		{ func, "#167/167", func_first, "#141/141", 26, false },
		{ "pidt-irqsoff-nofunc.trace", "#4/4", "irq_test-82        0d....", "#3/9", 1, false },
	};
	struct result res = { 0 };
	struct lh_parser *p;
	size_t i;
	char *text;

	text = lost_start_text(func, "#167/167", func_first, "#141/4093", 26, false);
	parse_str(&res, text);
	ck_assert_uint_eq(res.nr, 1);
	ck_assert_uint_eq(res.r[0]->start_lost_us, 15);
	ck_assert_int_eq(lh_record_body(res.r[0]), LH_BODY_CUT);
	ck_assert_uint_eq(res.stats.cut, 1);
	p = lh_parser_alloc(NULL);
	lh_parse_buffer(p, "t", text, strlen(text), NULL, NULL);
	ck_assert_str_eq(lh_parser_first_cut(p), "line 1: snapshot 'irqsoff' begins 15 us "
			 "into its section: the ring buffer lost its first entries (#141/4093)");
	lh_parser_free(p);
	result_free(&res);
	free(text);

	for (i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
		text = lost_start_text(whole[i].file, whole[i].was, whole[i].first, whole[i].nm,
				       whole[i].drop, whole[i].first_at_1us);
		parse_str(&res, text);
		ck_assert_uint_eq(res.r[0]->start_lost_us, 0);
		ck_assert_int_eq(lh_record_body(res.r[0]), LH_BODY_COMPLETE);
		result_free(&res);
		free(text);
	}
}
END_TEST

/*
 * A cut body is counted and said (what 'analyze' makes an input not read in full); an
 * elided one is not; a line cut at LH_PARSE_LINE_MAX cuts the record it is part of only.
 */
START_TEST(test_cut_counted)
{
	struct lh_parser *p = lh_parser_alloc(NULL);
	size_t len, n;
	char *buf = slurp("handmade-truncated-body.trace", &len), *text;

	/* as the file is: its last line has no ending (head -c) */
	lh_parse_buffer(p, "t", buf, len, NULL, NULL);
	ck_assert_uint_eq(lh_parser_stats(p)->cut, 1);
	ck_assert_str_eq(lh_parser_first_cut(p), "line 1: the input ends inside the body of "
			 "snapshot 'preemptirqsoff', mid-line");
	/* the same with its last line ended: the count of entries says it */
	buf = realloc(buf, len + 1);
	buf[len] = '\n';
	lh_parse_buffer(p, "t", buf, len + 1, NULL, NULL);
	ck_assert_uint_eq(lh_parser_stats(p)->cut, 2);
	ck_assert_str_eq(lh_parser_first_cut(p), "line 1: snapshot 'preemptirqsoff' shows 39 of "
			 "the 1821 entries its header declares, and no elision marker");
	free(buf);

	/* an elision: incomplete, not cut */
	buf = slurp("published/10-netdev-powerpc-irqsoff-8182x-elided.trace", &len);
	lh_parse_buffer(p, "t", buf, len, NULL, NULL);
	ck_assert_uint_eq(lh_parser_stats(p)->cut, 2);
	ck_assert_uint_eq(lh_parser_stats(p)->incomplete, 3);
	ck_assert_ptr_null(lh_parser_first_cut(p));
	free(buf);

	/* a line longer than LH_PARSE_LINE_MAX after the body (prose) cuts nothing */
	n = strlen(base_snapshot);
	text = malloc(n + LH_PARSE_LINE_MAX + 2);
	memcpy(text, base_snapshot, n);
	memset(text + n, 'a', LH_PARSE_LINE_MAX + 1);
	text[n + LH_PARSE_LINE_MAX + 1] = '\n';
	lh_parse_buffer(p, "t", text, n + LH_PARSE_LINE_MAX + 2, NULL, NULL);
	ck_assert_uint_eq(lh_parser_stats(p)->cut_lines, 1);
	ck_assert_uint_eq(lh_parser_stats(p)->cut, 2);
	/* one that is an entry of the body does */
	memcpy(text + n, " kswapd0-91        1d....    0us : x", 36);
	lh_parse_buffer(p, "t", text, n + LH_PARSE_LINE_MAX + 2, NULL, NULL);
	ck_assert_uint_eq(lh_parser_stats(p)->cut, 3);
	ck_assert_ptr_nonnull(strstr(lh_parser_first_cut(p), "cut by lathound's size limits"));
	free(text);
	lh_parser_free(p);
}
END_TEST

/* Entries whose text the kernel never prints are counted (a trace.dat's damage). */
START_TEST(test_odd_entries)
{
	static const char *const odd[] = {
		"irq_handl r_entry: irq=24 name=fakeraid",	/* no call, no "name: args" */
		"irq_handler_entry: irq=24 dame=fakeraid",	/* an irq event without its name */
		"irq_handler_entry:irq=24 name=fakeraid",	/* "name:args" */
	};
	struct lh_parser *p = lh_parser_alloc(NULL);
	const char *at;
	size_t len, i;
	char *buf = slurp("vm-irqsoff-fakeraid.trace", &len), *text;

	lh_parse_buffer(p, "t", buf, len, NULL, NULL);
	ck_assert_uint_eq(lh_parser_stats(p)->odd_entries, 0);
	at = strstr(buf, "irq_handler_entry: irq=24 name=fakeraid");
	ck_assert_ptr_nonnull(at);
	for (i = 0; i < LH_ARRAY_SIZE(odd); i++) {
		ck_assert_int_ge(asprintf(&text, "%.*s%s%s", (int)(at - buf), buf, odd[i],
					  at + strlen(odd[0])), 0);
		lh_parse_buffer(p, "t", text, strlen(text), NULL, NULL);
		ck_assert_uint_eq(lh_parser_stats(p)->odd_entries, i + 1);
		free(text);
	}
	free(buf);
	lh_parser_free(p);
}
END_TEST

/* "| task: -0": no comm; notes after header lines are not part of what they give. */
START_TEST(test_layout_header_notes)
{
	struct result res = { 0 };
	const struct lh_record *r;

	parse_str(&res, "# tracer: irqsoff \n"
		  "# irqsoff latency trace v1.1.5 on 6.9.0-rc4 #\n"
		  "# latency: 10000 us, 441/441, CPU#0 | (M:server VP:0, KP:0, SP:0 HP:0) \n"
		  "#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)\n"
		  "# => started at: \\_\\_irq\\_svc   \n"
		  "#  => ended at:   arch_cpu_idle------------the end of the section\n" LEGEND
		  "  <idle>-0       2d...    3us#: rcu_idle_enter\n");
	ck_assert_uint_eq(res.nr, 1);
	r = res.r[0];
	ck_assert_ptr_null(r->task.comm);
	ck_assert_int_eq(r->task.pid, 0);
	ck_assert_str_eq(r->kernel, "6.9.0-rc4");
	ck_assert_uint_eq(r->entries, 441);
	ck_assert_str_eq(r->started_at, "__irq_svc");	/* a markdown source's escapes */
	ck_assert_str_eq(r->ended_at, "arch_cpu_idle");
	ck_assert_ptr_null(r->ended_at_offset);
	ck_assert_int_eq(r->nr_cpus, -1);	/* no #P: a kernel without SMP prints none */
	ck_assert_uint_eq(res.diag.warnings, 0);
	result_free(&res);
}
END_TEST

/*
 * Layouts of older kernels: 2.6.2x latency_trace (no '# ', "caller (parent)", no '+' wakeup
 * lines: the first entry's task is the waker) and the -rt patch's (µs in Latin-1 and UTF-8,
 * '<' '>' for returns and entries, verbose "(T1/#n)" lines).
 */
START_TEST(test_layout_old)
{
	struct result res = { 0 };
	const struct lh_record *r;

	parse_str(&res, "# tracer: wakeup\n#\nwakeup latency trace v1.1.5 on 2.6.26-rc8\n"
		  "--------------------------------------------------------------------\n"
		  " latency: 4 us, #2/2, CPU#1 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:2)\n"
		  "    -----------------\n"
		  "    | task: sleep-4901 (uid:0 nice:0 policy:1 rt_prio:5)\n"
		  "    -----------------\n\n"
		  "#                _------=> CPU#\n"
		  "#  cmd     pid ||||| time  |   caller\n"
		  "#     \\   /    |||||   \\   |   /\n"
		  "  <idle>-0     1d.h4    0us+: try_to_wake_up (wake_up_process)\n"
		  "  <idle>-0     1d..4    4us : schedule (cpu_idle)\n");
	ck_assert_uint_eq(res.nr, 1);
	r = res.r[0];
	ck_assert_str_eq(r->kernel, "2.6.26-rc8");
	ck_assert_int_eq(r->nr_cpus, 2);
	ck_assert_str_eq(r->woken.comm, "sleep");
	ck_assert_int_eq(r->woken.pid, 4901);
	ck_assert_str_eq(r->waker.comm, "<idle>");
	ck_assert_int_eq(r->waker.pid, 0);
	ck_assert_uint_eq(func(r, "try_to_wake_up")->count, 1);
	ck_assert_int_eq(lh_record_body(r), LH_BODY_COMPLETE);
	result_free(&res);

	parse_str(&res, "preemption latency trace v1.1.4 on 2.6.11-rc4-RT\n"
		  "--------------------------------------------------------------------\n"
		  " latency: 713 \xb5s, #5/5, CPU#0 | (M:preempt VP:0, KP:1, SP:1 HP:1\n"
		  "#P:1)\n"
		  "    | task: IRQ 233-2446 (uid:0 nice:-5 policy:1 rt_prio:40)\n\n"
		  "                 _------=> CPU#\n"
		  "   cmd     pid ||||| time  |   caller\n"
		  "      \\   /    |||||   \\   |   /\n"
		  "kjournal-2478  0dn.4    0\xb5s!: <756f6a6b> (<6c616e72>)\n"
		  "kjournal-2478  0dn.1    1\xc2\xb5s < (1)\n"
		  "<unknown-3517  1....   35\xb5s > sys_gettimeofday (00000000 00000000 0000007b)\n"
		  "(T1/#3)     valgrind.bin 15934 0 9 00000000 00000003 [0032064022904934] 0.001ms "
		  "(+0.000ms): wake_up_process+0x1c/0x30 <c010f9fc> (do_softirq+0x4b/0x60)\n"
		  "   <...>-2     0d..2  712\xb5s : __switch_to (__schedule)\n");
	ck_assert_uint_eq(res.nr, 1);
	r = res.r[0];
	ck_assert_str_eq(r->tracer_name, "preemption");
	ck_assert_uint_eq(r->latency_us, 713);
	ck_assert_int_eq(r->nr_cpus, 1);
	ck_assert_str_eq(r->task.comm, "IRQ 233");
	ck_assert_uint_eq(r->entries_present, 5);
	ck_assert_int_eq(lh_record_body(r), LH_BODY_COMPLETE);
	ck_assert_uint_eq(func(r, "sys_gettimeofday")->count, 1);
	ck_assert_uint_eq(func(r, "__switch_to")->count, 1);
	ck_assert_uint_eq(res.diag.warnings, 0);
	result_free(&res);
}
END_TEST

/* Odd bytes: never a name cut short unseen, never a raw control byte in a record. */
START_TEST(test_layout_odd_bytes)
{
	static const char text[] =
		"# tracer: irqsoff\r"
		"# latency: 12 us, #2/2, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)\r"
		"#    | task: \x1b]0;pwned\x07-5 (uid:0 nice:0 policy:0 rt_prio:0)\r"
		"#  => started at: irq\0test\r"
		"#  cmd     pid     |||||| time  |   caller\r"
		"   x-5       0d....    0us : irq\0test <-caf\xc3\xa9\r"
		"   x-5       0d....    1us : bad\xff\xfe <-x\r";
	struct result res = { 0 };
	const struct lh_record *r;

	/* CR-only line endings (no '\n' anywhere): read */
	parse_mem(&res, "mem.trace", text, sizeof(text) - 1);
	ck_assert_uint_eq(res.nr, 1);
	r = res.r[0];
	ck_assert_str_eq(r->task.comm, "\\x1b]0;pwned\\x07");
	ck_assert_str_eq(r->started_at, "irq\\x00test");
	ck_assert_ptr_nonnull(func(r, "irq\\x00test"));
	ck_assert_ptr_nonnull(func(r, "bad\\xff\\xfe"));
	ck_assert_uint_eq(r->entries_present, 2);
	result_free(&res);

	/* a wakeup line whose task state is no letter is no wakeup line (found by fuzz-parse) */
	parse_str(&res, HEADER("t-1 (uid:0)")
		  "  <idle>-0  0dNh5.    1us+:        0:120:R   + [000]      64: 49:\xff rt\n");
	ck_assert_uint_eq(res.nr, 1);
	ck_assert(!res.r[0]->has_wakeup);
	result_free(&res);
}
END_TEST

/* Lines and records cost at most a documented size; beyond it they are cut and flagged. */
START_TEST(test_layout_caps)
{
	struct result res = { 0 };
	char *text = NULL, *big;
	size_t len = 0, i;
	FILE *f;

	big = malloc(LH_PARSE_LINE_MAX + 100);
	memset(big, 'a', LH_PARSE_LINE_MAX + 99);
	big[LH_PARSE_LINE_MAX + 99] = '\0';
	f = open_memstream(&text, &len);
	fprintf(f, "%s       t-1       1d.... 1us : %s <-x\n       t-1       1d.... 2us : b <-x\n",
		HEADER("t-1 (uid:0)"), big);
	fclose(f);
	parse_str(&res, text);
	ck_assert_uint_eq(res.nr, 1);
	ck_assert_uint_eq(res.stats.cut_lines, 1);
	ck_assert(res.r[0]->truncated);
	ck_assert_int_eq(lh_record_body(res.r[0]), LH_BODY_CUT);
	ck_assert_ptr_nonnull(func(res.r[0], "b"));
	ck_assert(has_warning(&res, "mem.trace:22: line longer than 64 KiB: read up to there"));
	result_free(&res);
	free(text);

	/* distinct names of 1 KiB: the record stops growing at LH_PARSE_RECORD_MAX */
	f = open_memstream(&text, &len);
	fputs(HEADER("t-1 (uid:0)"), f);
	big[1000] = '\0';
	for (i = 0; i < 40000; i++)
		fprintf(f, "       t-1       1d.... 1us : f%zu%s <-x\n", i, big);
	fclose(f);
	parse_mem(&res, "mem.trace", text, len);
	ck_assert_uint_eq(res.nr, 1);
	ck_assert(res.r[0]->truncated);
	ck_assert_uint_lt(res.r[0]->arena.used, LH_PARSE_RECORD_MAX + 2048);
	ck_assert_uint_gt(res.r[0]->nr_funcs, 30000);
	ck_assert(has_warning(&res, "holds more than 32 MiB: cut there"));
	result_free(&res);
	free(text);
	free(big);
}
END_TEST

/*
 * A latency beyond what a kernel prints ("%lu us" of a u64 of ns: at most 2^64/1000) is
 * refused, so that no report prints a value one way and another report another.
 */
START_TEST(test_layout_huge_latency)
{
	static const char *const lats[] = { "18446744073709552", "9223372036854775808",
					    "99999999999999999999999" };
	struct result res = { 0 };
	char *text;
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(lats); i++) {
		ck_assert_int_ge(asprintf(&text, "# tracer: irqsoff\n# latency: %s us, #1/1, CPU#0 "
					  "| (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)\n" LEGEND
					  "       t-1       1d.... 1us : b <-x\n", lats[i]), 0);
		parse_str(&res, text);
		ck_assert_uint_eq(res.nr, 0);
		ck_assert_uint_eq(res.stats.skipped, 1);
		result_free(&res);
		free(text);
	}
	parse_str(&res, "# tracer: irqsoff\n# latency: 18446744073709551 us, #1/1, CPU#0 "
		  "| (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)\n" LEGEND
		  "       t-1       1d.... 1us : b <-x\n");
	ck_assert_uint_eq(res.nr, 1);
	ck_assert_uint_eq(res.r[0]->latency_us, 18446744073709551ULL);
	result_free(&res);
}
END_TEST

/*
 * Other numbers beyond what a kernel prints (a pid, a task's rt_prio, the entries, a CPU):
 * the field is unknown (null) and warned about, never wrapped to another value, and the
 * name before a pid stays the comm.
 */
START_TEST(test_layout_huge_fields)
{
	static const struct {
		const char	*header;	/* the '# latency:' and '| task:' lines */
		const char	*warning;
	} cases[] = {
		{ "# latency: 5 us, #1/1, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)\n"
		  "#    | task: t-9223372036854775808 (uid:0 nice:0 policy:1 rt_prio:99)\n",
		  "cannot read the pid" },
		{ "# latency: 5 us, #1/1, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)\n"
		  "#    | task: t-1 (uid:0 nice:0 policy:1 rt_prio:4294967296)\n",
		  "cannot read 'rt_prio:'" },
		{ "# latency: 5 us, #18446744073709551616/1, CPU#0 | (M:preempt VP:0, KP:0, SP:0 "
		  "HP:0 #P:1)\n#    | task: t-1 (uid:0 nice:0 policy:1 rt_prio:99)\n",
		  "cannot read the entries" },
		{ "# latency: 5 us, #1/1, CPU#4294967296 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)\n"
		  "#    | task: t-1 (uid:0 nice:0 policy:1 rt_prio:99)\n",
		  "cannot read the CPU" },
	};
	struct result res = { 0 };
	const struct lh_record *r;
	char *text;
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(cases); i++) {
		ck_assert_int_ge(asprintf(&text, "# tracer: irqsoff\n%s" LEGEND
					  "       t-1       0d.... 1us : b <-x\n", cases[i].header), 0);
		parse_str(&res, text);
		ck_assert_uint_eq(res.nr, 1);
		r = res.r[0];
		ck_assert_msg(has_warning(&res, cases[i].warning), "case %zu", i);
		ck_assert_str_eq(r->task.comm, "t");
		ck_assert_int_eq(r->task.pid, i == 0 ? -1 : 1);
		ck_assert_int_eq(r->task.rt_prio, i == 1 ? -1 : 99);
		ck_assert_uint_eq(r->entries, i == 2 ? 0 : 1);
		ck_assert_int_eq(r->cpu, i == 3 ? -1 : 0);
		ck_assert_uint_eq(r->latency_us, 5);
		result_free(&res);
		free(text);
	}
}
END_TEST

/* What the parser says when an input gives no record, in terms of what it saw. */
START_TEST(test_layout_why_empty)
{
	static const struct {
		const char	*text;
		const char	*why;
	} cases[] = {
		{ "", "the input is empty" },
		{ "hello\nworld\n", "no '# tracer:' line, '<tracer> latency trace' line or "
				    "'latency: N us' header in 2 lines" },
		{ "x\n  # tracer: wakeup\n  #\n", "the '# tracer:' line 2 is followed by nothing: "
						 "the trace buffer was empty" },
		{ "#  =3D> started at: a\n", "line 1 holds quoted-printable text ('=3D')" },
	};
	struct lh_parser *p = lh_parser_alloc(NULL);
	char buf[256];
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(cases); i++) {
		lh_parse_buffer(p, "w", cases[i].text, strlen(cases[i].text), NULL, NULL);
		ck_assert_ptr_nonnull(lh_parser_why_empty(p, buf, sizeof(buf)));
		ck_assert_msg(strstr(buf, cases[i].why), "'%s'", buf);
	}
	lh_parse_buffer(p, "w", base_snapshot, strlen(base_snapshot), NULL, NULL);
	ck_assert_ptr_null(lh_parser_why_empty(p, buf, sizeof(buf)));
	lh_parser_free(p);
}
END_TEST

/* The input fed in pieces of any size reads as it does whole: records and warnings. */
static char *feed_image(const char *buf, size_t len, size_t piece, struct lh_diag *diag)
{
	struct lh_parser *p = lh_parser_alloc(diag);
	char *text = NULL;
	size_t n = 0, off;
	FILE *f = open_memstream(&text, &n);

	lh_parse_begin(p, "x.trace", image, f);
	for (off = 0; off < len; off += piece)
		lh_parse_feed(p, buf + off, len - off < piece ? len - off : piece);
	lh_parse_end(p);
	lh_parser_free(p);
	fclose(f);
	return text;
}

START_TEST(test_layout_pieces)
{
	static const char *const names[] = {
		"handmade-multi.trace", "handmade-malformed.trace", "handmade-binary.trace",
		"published/01-fsdevel-mglru-preemptirqsoff-qp.trace",
		"published/07-m68k-coldfire-wakeup_rt-no-tracer-line.trace",
		"published/08-linux-mm-imx7d-irqsoff-outlook-qp.trace",
		"published/31-lkml-2005-rt-v1.1.4-latin1-micro.trace",
	};
	static const size_t pieces[] = { 1, 7, 4096 };
	size_t n, k, len, i;

	for (n = 0; n < LH_ARRAY_SIZE(names); n++) {
		char *buf = slurp(names[n], &len), *whole, *part;
		struct lh_diag dw = { 0 }, dp;

		whole = feed_image(buf, len, len ? len : 1, &dw);
		for (k = 0; k < LH_ARRAY_SIZE(pieces); k++) {
			memset(&dp, 0, sizeof(dp));
			part = feed_image(buf, len, pieces[k], &dp);
			ck_assert_msg(!strcmp(whole, part), "%s in pieces of %zu", names[n],
				      pieces[k]);
			ck_assert_uint_eq(dp.nr, dw.nr);
			for (i = 0; i < dw.nr; i++)
				ck_assert_str_eq(dp.msgs[i].text, dw.msgs[i].text);
			lh_diag_release(&dp);
			free(part);
		}
		lh_diag_release(&dw);
		free(whole);
		free(buf);
	}
}
END_TEST

static Suite *parse_suite(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("corpus");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_record, 0, LH_ARRAY_SIZE(records));
	tcase_add_loop_test(tc, test_file, 0, LH_ARRAY_SIZE(files));
	tcase_add_test(tc, test_corpus_covered);
	tcase_add_test(tc, test_irq_events);
	tcase_add_test(tc, test_irq_nested);
	tcase_add_test(tc, test_graph_irq);
	tcase_add_loop_test(tc, test_vm_irq, 0, LH_ARRAY_SIZE(vm_irqs));
	tcase_add_loop_test(tc, test_vm_wakeup, 0, LH_ARRAY_SIZE(vm_wakeups));
	tcase_add_test(tc, test_wakeup_doc);
	tcase_add_test(tc, test_wakeup_rt);
	tcase_add_test(tc, test_wakeup_dl);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_cut_counted);
	tcase_add_test(tc, test_odd_entries);
	tcase_add_test(tc, test_binary);
	tcase_add_test(tc, test_no_state_leak);
	tcase_add_test(tc, test_dup_survives);
	tcase_add_test(tc, test_callback_stops);
	tcase_add_test(tc, test_pieces_absorbed);
	suite_add_tcase(s, tc);

	tc = tcase_create("edge");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_task_comm);
	tcase_add_test(tc, test_header_only);
	tcase_add_test(tc, test_line_forms);
	tcase_add_test(tc, test_wakeup_repeat);
	tcase_add_test(tc, test_many_stacks);
	tcase_add_test(tc, test_many_functions);
	tcase_add_test(tc, test_mutations);
	suite_add_tcase(s, tc);

	tc = tcase_create("layouts");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_layout_base);
	tcase_add_test(tc, test_layout_quoted);
	tcase_add_test(tc, test_layout_interleaved);
	tcase_add_test(tc, test_layout_indented);
	tcase_add_test(tc, test_layout_qp);
	tcase_add_test(tc, test_layout_flowed);
	tcase_add_test(tc, test_layout_wrapped_header);
	tcase_add_test(tc, test_layout_starts);
	tcase_add_test(tc, test_layout_body);
	tcase_add_test(tc, test_layout_header_notes);
	tcase_add_test(tc, test_layout_old);
	tcase_add_test(tc, test_layout_odd_bytes);
	tcase_add_test(tc, test_layout_caps);
	tcase_add_test(tc, test_layout_huge_latency);
	tcase_add_test(tc, test_layout_huge_fields);
	tcase_add_test(tc, test_entries_wrapped);
	tcase_add_test(tc, test_start_lost);
	tcase_add_test(tc, test_layout_why_empty);
	tcase_add_test(tc, test_layout_pieces);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(parse_suite)
