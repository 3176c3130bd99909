// SPDX-License-Identifier: GPL-2.0-only
/*
 * lhx: a deliberately misbehaving driver for lathound's real-kernel tests (tests/vm/).
 *
 * It injects latency sections of a known length, with recognisable names, on demand:
 *
 *   echo "KIND USEC [COUNT [PERIOD_US [CPU [STEP_US]]]]" > /sys/kernel/lhx/run
 *
 * runs COUNT sections (default 1) of USEC microseconds, one every PERIOD_US (default 0: back
 * to back), on CPU (default -1: wherever the worker runs), and returns when the last one has
 * ended. Section i (from 0) lasts USEC + i * STEP_US (default 0): under QEMU's -icount,
 * sections of equal length give byte-identical snapshots, which STEP_US tells apart.
 * KIND is one of
 *
 *   fakeraid   a real hard interrupt, requested with request_irq() as "fakeraid" on an irq of
 *              the dummy irq chip and raised from a pinned hrtimer: its handler
 *              (lhx_fakeraid_irq) busy-waits USEC with interrupts off, so irq_handler_entry/
 *              exit name it inside the irqsoff snapshot - the story of a slow storage driver
 *   irqs       a kthread disables interrupts for USEC (lhx_irqs_hog)
 *   preempt    a kthread disables preemption for USEC (lhx_preempt_hog)
 *   wakeup_rt  a kthread wakes a SCHED_FIFO kthread on its own CPU, then spins USEC with
 *              preemption off before letting it run (lhx_wakeup_delay): wakeup latency USEC
 *   wakeup_dl  the same with a SCHED_DEADLINE kthread
 *
 * /sys/kernel/lhx/irq holds the fakeraid irq number, /sys/kernel/lhx/sections the number of
 * sections run since load. Busy-waits spin on trace_clock_local(), the clock the latency
 * tracers time sections with, so a section is USEC long on the tracers' own clock.
 * The hog functions are noinline so they show in stacks, started/ended-at and function traces.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/kobject.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/trace_clock.h>
#include <uapi/linux/sched/types.h>

#define LHX_MAX_US	(10 * USEC_PER_SEC)
#define LHX_MAX_COUNT	100000

enum lhx_kind { LHX_FAKERAID, LHX_IRQS, LHX_PREEMPT, LHX_WAKEUP_RT, LHX_WAKEUP_DL };

static const char *const lhx_kinds[] = {
	[LHX_FAKERAID] = "fakeraid",
	[LHX_IRQS] = "irqs",
	[LHX_PREEMPT] = "preempt",
	[LHX_WAKEUP_RT] = "wakeup_rt",
	[LHX_WAKEUP_DL] = "wakeup_dl",
};

struct lhx_job {
	enum lhx_kind		kind;
	u64			us;
	unsigned int		count;
	u64			period_us;
	u64			step_us;
	int			cpu;
	bool			stop;		/* the writer was interrupted: end early */
	int			err;
	struct completion	done;
};

static DEFINE_MUTEX(lhx_lock);		/* one run at a time */
static struct kobject *lhx_kobj;
static int lhx_irq = -1;
static u64 lhx_irq_us;			/* how long the next fakeraid interrupt takes */
static struct hrtimer lhx_timer;
static int lhx_fired;
static atomic_t lhx_sections = ATOMIC_INIT(0);
static int lhx_dev_id;

/* Busy-waits us microseconds on the latency tracers' clock. */
static noinline void lhx_spin(u64 us)
{
	u64 start = trace_clock_local();

	while (trace_clock_local() - start < us * NSEC_PER_USEC)
		cpu_relax();
}

/* The fakeraid interrupt handler: a storage driver doing far too much in hard irq context. */
static noinline irqreturn_t lhx_fakeraid_irq(int irq, void *dev)
{
	lhx_spin(READ_ONCE(lhx_irq_us));
	return IRQ_HANDLED;
}

/* The "controller": raises the fakeraid interrupt from hard interrupt context. */
static enum hrtimer_restart lhx_fire(struct hrtimer *t)
{
	generic_handle_irq(lhx_irq);
	WRITE_ONCE(lhx_fired, 1);
	return HRTIMER_NORESTART;
}

static noinline void lhx_irqs_hog(u64 us)
{
	local_irq_disable();
	lhx_spin(us);
	local_irq_enable();
}

static noinline void lhx_preempt_hog(u64 us)
{
	preempt_disable();
	lhx_spin(us);
	preempt_enable();
}

/* Wakes t (a real-time task on this CPU), then keeps it from running for us microseconds. */
static noinline void lhx_wakeup_delay(struct task_struct *t, u64 us)
{
	preempt_disable();
	wake_up_process(t);
	lhx_spin(us);
	preempt_enable();
}

/* Raises one fakeraid interrupt on this CPU and waits (running, not idle) until it is done. */
static void lhx_raise(u64 us)
{
	WRITE_ONCE(lhx_irq_us, us);
	WRITE_ONCE(lhx_fired, 0);
	hrtimer_start(&lhx_timer, ns_to_ktime(20 * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED_HARD);
	while (!READ_ONCE(lhx_fired))
		cpu_relax();
}

/* The real-time task whose wakeups are delayed: sleeps until woken, forever. */
static int lhx_sleeper(void *arg)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static struct task_struct *lhx_sleeper_start(enum lhx_kind kind, int cpu)
{
	struct task_struct *t;
	int err;

	t = kthread_create(lhx_sleeper, NULL, kind == LHX_WAKEUP_DL ? "lhx_dl" : "lhx_rt");
	if (IS_ERR(t))
		return t;
	kthread_bind(t, cpu);
	if (kind == LHX_WAKEUP_DL) {
		struct sched_attr attr = {
			.size		= sizeof(attr),
			.sched_policy	= SCHED_DEADLINE,
			.sched_runtime	= 1 * NSEC_PER_MSEC,
			.sched_deadline	= 10 * NSEC_PER_MSEC,
			.sched_period	= 10 * NSEC_PER_MSEC,
		};

		err = sched_setattr_nocheck(t, &attr);
		if (err) {
			kthread_stop(t);
			return ERR_PTR(err);
		}
	} else {
		sched_set_fifo(t);
	}
	/* Higher priority on our CPU: it runs at once, up to its first sleep. */
	wake_up_process(t);
	return t;
}

/* Runs a job's sections, on job->cpu when one was given. */
static int lhx_worker(void *arg)
{
	struct lhx_job *job = arg;
	struct task_struct *sleeper = NULL;
	ktime_t next = ktime_get();
	unsigned int i;

	if (job->kind == LHX_WAKEUP_RT || job->kind == LHX_WAKEUP_DL) {
		sleeper = lhx_sleeper_start(job->kind, raw_smp_processor_id());
		if (IS_ERR(sleeper)) {
			job->err = PTR_ERR(sleeper);
			kthread_complete_and_exit(&job->done, 0);
		}
		msleep(1);
	}
	for (i = 0; i < job->count && !READ_ONCE(job->stop); i++) {
		u64 us = job->us + i * job->step_us;

		switch (job->kind) {
		case LHX_FAKERAID:
			lhx_raise(us);
			break;
		case LHX_IRQS:
			lhx_irqs_hog(us);
			break;
		case LHX_PREEMPT:
			lhx_preempt_hog(us);
			break;
		case LHX_WAKEUP_RT:
		case LHX_WAKEUP_DL:
			lhx_wakeup_delay(sleeper, us);
			break;
		}
		atomic_inc(&lhx_sections);
		if (i + 1 == job->count)
			break;
		next = ktime_add_us(next, job->period_us);
		if (job->period_us && ktime_before(ktime_get(), next)) {
			set_current_state(TASK_UNINTERRUPTIBLE);
			schedule_hrtimeout(&next, HRTIMER_MODE_ABS);
		} else {
			cond_resched();
		}
	}
	if (sleeper) {
		/* Its last wakeup (by kthread_stop) must not count as a real-time one. */
		sched_set_normal(sleeper, 0);
		kthread_stop(sleeper);
	}
	kthread_complete_and_exit(&job->done, 0);
}

static ssize_t run_store(struct kobject *kobj, struct kobj_attribute *attr, const char *buf,
			 size_t len)
{
	struct lhx_job job = { .count = 1, .cpu = -1 };
	struct task_struct *worker;
	unsigned long long us, period = 0, step = 0;
	char kind[16];
	int n, i;

	n = sscanf(buf, "%15s %llu %u %llu %d %llu", kind, &us, &job.count, &period, &job.cpu,
		   &step);
	if (n < 2)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(lhx_kinds); i++)
		if (!strcmp(kind, lhx_kinds[i]))
			break;
	if (i == ARRAY_SIZE(lhx_kinds) || us > LHX_MAX_US || job.count > LHX_MAX_COUNT ||
	    period > LHX_MAX_US || step * job.count > LHX_MAX_US || job.cpu >= (int)nr_cpu_ids ||
	    (job.cpu >= 0 && !cpu_online(job.cpu)))
		return -EINVAL;
	job.kind = i;
	job.us = us;
	job.period_us = period;
	job.step_us = step;
	init_completion(&job.done);

	if (mutex_lock_interruptible(&lhx_lock))
		return -EINTR;
	worker = kthread_create(lhx_worker, &job, "lhx/%s", kind);
	if (IS_ERR(worker)) {
		mutex_unlock(&lhx_lock);
		return PTR_ERR(worker);
	}
	/* The wakeup kinds need the worker and the woken task on one CPU: pin the worker. */
	if (job.cpu < 0)
		job.cpu = raw_smp_processor_id();
	kthread_bind(worker, job.cpu);
	wake_up_process(worker);
	if (wait_for_completion_interruptible(&job.done)) {
		WRITE_ONCE(job.stop, true);
		wait_for_completion(&job.done);
		job.err = -EINTR;
	}
	mutex_unlock(&lhx_lock);
	return job.err ? job.err : len;
}

static ssize_t irq_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", lhx_irq);
}

static ssize_t sections_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&lhx_sections));
}

static struct kobj_attribute run_attr = __ATTR_WO(run);
static struct kobj_attribute irq_attr = __ATTR_RO(irq);
static struct kobj_attribute sections_attr = __ATTR_RO(sections);

static struct attribute *lhx_attrs[] = {
	&run_attr.attr,
	&irq_attr.attr,
	&sections_attr.attr,
	NULL,
};

static const struct attribute_group lhx_group = {
	.attrs = lhx_attrs,
};

static int __init lhx_init(void)
{
	int err;

	lhx_irq = irq_alloc_desc(NUMA_NO_NODE);
	if (lhx_irq < 0)
		return lhx_irq;
	irq_set_chip_and_handler(lhx_irq, &dummy_irq_chip, handle_simple_irq);
	irq_clear_status_flags(lhx_irq, IRQ_NOREQUEST | IRQ_NOPROBE);
	err = request_irq(lhx_irq, lhx_fakeraid_irq, 0, "fakeraid", &lhx_dev_id);
	if (err)
		goto out_desc;
	hrtimer_init(&lhx_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	lhx_timer.function = lhx_fire;

	lhx_kobj = kobject_create_and_add("lhx", kernel_kobj);
	if (!lhx_kobj) {
		err = -ENOMEM;
		goto out_irq;
	}
	err = sysfs_create_group(lhx_kobj, &lhx_group);
	if (err)
		goto out_kobj;
	pr_info("lhx: fakeraid is irq %d, sections on demand in /sys/kernel/lhx/run\n", lhx_irq);
	return 0;

out_kobj:
	kobject_put(lhx_kobj);
out_irq:
	free_irq(lhx_irq, &lhx_dev_id);
out_desc:
	irq_free_desc(lhx_irq);
	return err;
}

static void __exit lhx_exit(void)
{
	kobject_put(lhx_kobj);	/* removes run: no new job; a running one holds a reference */
	mutex_lock(&lhx_lock);
	mutex_unlock(&lhx_lock);
	hrtimer_cancel(&lhx_timer);
	free_irq(lhx_irq, &lhx_dev_id);
	irq_free_desc(lhx_irq);
}

module_init(lhx_init);
module_exit(lhx_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("lathound test suite");
MODULE_DESCRIPTION("Injects irqs-off, preempt-off and wakeup latency sections (lathound tests)");
