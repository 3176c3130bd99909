// SPDX-License-Identifier: GPL-2.0-only
/*
 * Timerlat and osnoise spikes broken into their parts: per CPU, the recent noise events and
 * the timer cycle being read, judged when the cycle is complete.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise.h"
#include "util/util.h"

/* One timer cycle of a CPU: the samples seen of it so far. */
struct cycle {
	bool		has_irq;
	uint64_t	irq_seq;
	uint64_t	irq_ts;
	uint64_t	irq_lat;
	int		irq_pid;
	bool		has_thread;
	uint64_t	thread_seq;
	uint64_t	thread_ts;
	uint64_t	thread_lat;
	bool		stack_open;	/* no stack since the thread sample: one may follow,
					 * noise events between them or not (the new
					 * maximum's irq_work comes first) */
	char		frames[LH_NOISE_FRAMES][LH_NOISE_FRAME];
	size_t		nr_frames;
};

/* An irqs-off or preempt-off section of a watched tracer. */
struct section {
	enum lh_tracer	tracer;
	uint64_t	start_ns;
	uint64_t	end_ns;
	char		caller[LH_NOISE_FRAME];
};

struct cpu_state {
	uint64_t		thread_ts;	/* timerlat's thread last ran here (0: not yet) */
	bool			unexpected;	/* not in osnoise/cpus (lh_noise_set_cpus()) */
	struct lh_noise_event	recent[LH_NOISE_RECENT];	/* a ring */
	size_t			head;		/* next slot */
	size_t			nr;
	struct cycle		cyc;
	struct section		sections[LH_NOISE_SECTIONS];	/* a ring */
	size_t			sec_head;
	size_t			sec_nr;
	bool			sec_known;	/* its sections arrive (since sec_from) */
	uint64_t		sec_from;
	struct lh_histogram	hist[LH_NOISE_HIST_NR];
	uint64_t		runtime_ns;
	uint64_t		noise_ns;
	uint64_t		hw_count;
};

struct lh_noise {
	int			nr_cpus;
	struct cpu_state	*cpus;
	uint64_t		threshold_ns;
	uint64_t		max_ns;
	bool			any;		/* a sample was judged: max_ns holds */
	unsigned int		watched;	/* the sections' tracers (1u << tracer) */
	uint64_t		section_min_ns;
	lh_noise_spike_fn	fn;
	void			*arg;
	struct lh_noise_stats	st;
	struct lh_noise_spike	spike;		/* built here, handed to fn */
	struct lh_noise_part	parts[LH_NOISE_RECENT];	/* find_parts()' scratch */
};

/* include/linux/interrupt.h's order, as rtla names them */
static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER",
	"RCU",
};

static const char *const hist_names[LH_NOISE_HIST_NR] = {
	[LH_NOISE_HIST_IRQ] = "timerlat_irq", [LH_NOISE_HIST_THREAD] = "timerlat_thread",
	[LH_NOISE_HIST_OSNOISE] = "osnoise", [LH_NOISE_HIST_HWLAT] = "hwlat",
};

const char *lh_noise_kind_name(enum lh_noise_kind k)
{
	return lh_spike_kind_name((enum lh_spike_kind)k);
}

const char *lh_noise_softirq_name(int v)
{
	return v >= 0 && (size_t)v < LH_ARRAY_SIZE(softirq_names) ? softirq_names[v] : NULL;
}

const char *lh_noise_hist_name(enum lh_noise_hist h)
{
	return (unsigned int)h < LH_NOISE_HIST_NR ? hist_names[h] : "unknown";
}

unsigned int lh_noise_share(const struct lh_noise_spike *s, const struct lh_noise_part *p)
{
	return lh_spike_permille(p->overlap_ns, s->latency_ns);
}

struct lh_noise *lh_noise_alloc(int nr_cpus, uint64_t threshold_ns, lh_noise_spike_fn fn,
				void *arg)
{
	struct lh_noise *n = lh_xcalloc(1, sizeof(*n));

	n->nr_cpus = nr_cpus > 0 ? nr_cpus : 1;
	n->cpus = lh_xcalloc((size_t)n->nr_cpus, sizeof(*n->cpus));
	n->threshold_ns = threshold_ns;
	n->fn = fn;
	n->arg = arg;
	return n;
}

void lh_noise_free(struct lh_noise *n)
{
	int cpu, h;

	if (!n)
		return;
	for (cpu = 0; cpu < n->nr_cpus; cpu++)
		for (h = 0; h < LH_NOISE_HIST_NR; h++)
			lh_histogram_release(&n->cpus[cpu].hist[h]);
	free(n->cpus);
	free(n);
}

void lh_noise_set_max(struct lh_noise *n, uint64_t max_ns)
{
	n->max_ns = max_ns;
	n->any = max_ns != 0;
}

uint64_t lh_noise_max(const struct lh_noise *n)
{
	return n->max_ns;
}

static struct cpu_state *cpu_of(struct lh_noise *n, int cpu)
{
	if (cpu < 0 || cpu >= n->nr_cpus) {
		n->st.bad_cpu++;
		return NULL;
	}
	return &n->cpus[cpu];
}

/* cpu_of() for an event at ts: after a loss, the first one shows events arrive again. */
static struct cpu_state *cpu_at(struct lh_noise *n, int cpu, uint64_t ts)
{
	struct cpu_state *c = cpu_of(n, cpu);

	if (c && !c->sec_known) {
		c->sec_known = true;
		c->sec_from = ts;
	}
	return c;
}

/* Return: whether a sample of ns is a spike (and, without a threshold, the new maximum). */
static bool judge(struct lh_noise *n, uint64_t ns)
{
	if (n->threshold_ns)
		return ns > n->threshold_ns;
	if (n->any && ns <= n->max_ns)
		return false;
	n->any = true;
	n->max_ns = ns;
	return true;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

static int part_cmp(const void *a, const void *b)
{
	const struct lh_noise_part *x = a, *y = b;

	if (x->overlap_ns != y->overlap_ns)
		return x->overlap_ns > y->overlap_ns ? -1 : 1;
	return x->offset_ns < y->offset_ns ? -1 : x->offset_ns > y->offset_ns;
}

/*
 * The culprit: the thread whose noise events cover most of the window, summed per pid; the
 * blocking task when no thread ran in it.
 */
static void find_culprit(struct lh_noise_spike *s, const struct lh_noise_part *all, size_t nr)
{
	size_t i, j;

	s->culprit_pid = s->blocking_pid;
	snprintf(s->culprit_comm, sizeof(s->culprit_comm), "%s", s->blocking_comm);
	s->culprit_ns = s->blocking_ns;
	for (i = 0; i < nr; i++) {
		uint64_t sum = 0;

		if (all[i].ev.kind != LH_NOISE_THREAD)
			continue;
		for (j = 0; j < nr; j++)
			if (all[j].ev.kind == LH_NOISE_THREAD && all[j].ev.pid == all[i].ev.pid)
				sum += all[j].overlap_ns;
		if (sum > s->culprit_ns) {
			s->culprit_ns = sum;
			s->culprit_pid = all[i].ev.pid;
			snprintf(s->culprit_comm, sizeof(s->culprit_comm), "%s", all[i].ev.name);
		}
	}
}

/*
 * Adds every recent event of c that overlaps s's window as a part; the longest
 * LH_NOISE_PARTS are kept. With irq_ts (not 0), the irq event that contains it is the
 * timer's own interrupt.
 */
static void find_parts(struct lh_noise *n, struct lh_noise_spike *s, const struct cpu_state *c,
		       uint64_t irq_ts)
{
	struct lh_noise_part *all = n->parts;
	uint64_t sum = 0;
	size_t i, nr = 0;

	for (i = 0; i < c->nr; i++) {
		const struct lh_noise_event *e =
			&c->recent[(c->head + LH_NOISE_RECENT - c->nr + i) % LH_NOISE_RECENT];
		uint64_t end = e->start_ns + e->duration_ns;
		uint64_t ov = overlap(e->start_ns, end, s->start_ns, s->end_ns);
		struct lh_noise_part *p;

		if (!ov)
			continue;
		p = &all[nr++];
		p->ev = *e;
		p->offset_ns = (int64_t)(e->start_ns - s->start_ns);
		p->overlap_ns = ov;
		p->timer_irq = irq_ts && e->kind == LH_NOISE_IRQ && e->start_ns <= irq_ts &&
			       irq_ts <= end;
		p->blocking = e->kind == LH_NOISE_THREAD && s->blocking_pid > 0 &&
			      e->pid == s->blocking_pid;
		if (p->blocking) {
			s->blocking_ns += ov;
			if (!s->blocking_comm[0])
				snprintf(s->blocking_comm, sizeof(s->blocking_comm), "%s",
					 e->name);
		}
		sum += ov;
	}
	find_culprit(s, all, nr);
	qsort(all, nr, sizeof(*all), part_cmp);
	s->nr_parts = nr < LH_NOISE_PARTS ? nr : LH_NOISE_PARTS;
	memcpy(s->parts, all, s->nr_parts * sizeof(*all));
	for (i = s->nr_parts; i < nr; i++) {
		s->more_parts++;
		s->more_ns += all[i].overlap_ns;
	}
	s->explained_ns = sum < s->latency_ns ? sum : s->latency_ns;
}

/*
 * The watched section of c that overlaps s's window most. Sections come when they end: those
 * that ended after the window began are all in the ring unless it wrapped past one (then a
 * found section is still one that overlapped; finding none proves nothing).
 */
static void find_section(const struct lh_noise *n, struct lh_noise_spike *s,
			 const struct cpu_state *c)
{
	struct lh_spike_section *o = &s->section;
	const struct section *oldest;
	size_t i;

	memset(o, 0, sizeof(*o));
	s->section_caller[0] = '\0';
	o->watched = n->watched;
	o->min_ns = n->section_min_ns;
	if (!n->watched || !c->sec_known || c->sec_from > s->start_ns)
		return;		/* LH_SPIKE_SECTION_NOT_MEASURED */
	for (i = 0; i < c->sec_nr; i++) {
		const struct section *x = &c->sections[(c->sec_head + LH_NOISE_SECTIONS - c->sec_nr +
							i) % LH_NOISE_SECTIONS];
		uint64_t ov = overlap(x->start_ns, x->end_ns, s->start_ns, s->end_ns);

		if (!ov || (o->state == LH_SPIKE_SECTION_FOUND && ov <= o->overlap_ns))
			continue;
		o->state = LH_SPIKE_SECTION_FOUND;
		o->tracer = x->tracer;
		o->offset_ns = (int64_t)(x->start_ns - s->start_ns);
		o->duration_ns = x->end_ns - x->start_ns;
		o->overlap_ns = ov;
		snprintf(s->section_caller, sizeof(s->section_caller), "%s", x->caller);
	}
	if (o->state == LH_SPIKE_SECTION_FOUND)
		return;
	oldest = &c->sections[(c->sec_head + LH_NOISE_SECTIONS - c->sec_nr) % LH_NOISE_SECTIONS];
	if (c->sec_nr < LH_NOISE_SECTIONS || oldest->end_ns <= s->start_ns)
		o->state = LH_SPIKE_SECTION_NONE;
}

static void spike_init(struct lh_noise_spike *s, enum lh_noise_tracer t, int cpu)
{
	memset(s, 0, offsetof(struct lh_noise_spike, frames));
	s->tracer = t;
	s->cpu = cpu;
	s->blocking_pid = s->culprit_pid = -1;
	s->nr_frames = 0;
}

/* Judges c's cycle (a spike goes to fn) and empties it. */
static void cycle_end(struct lh_noise *n, int cpu, struct cpu_state *c)
{
	struct cycle *y = &c->cyc;
	struct lh_noise_spike *s = &n->spike;
	uint64_t lat;

	if (!y->has_irq && !y->has_thread)
		return;
	if (y->has_irq != y->has_thread)
		n->st.unpaired++;
	lat = y->has_thread ? y->thread_lat : y->irq_lat;
	if (!judge(n, lat))
		goto out;
	spike_init(s, LH_NOISE_TIMERLAT, cpu);
	s->seqnum = y->has_thread ? y->thread_seq : y->irq_seq;
	s->latency_ns = lat;
	s->has_irq = y->has_irq;
	s->irq_latency_ns = y->irq_lat;
	s->has_thread = y->has_thread;
	s->thread_latency_ns = y->thread_lat;
	if (y->has_thread) {
		s->end_ns = y->thread_ts;
		s->start_ns = y->thread_ts > y->thread_lat ? y->thread_ts - y->thread_lat : 0;
	} else {
		s->end_ns = y->irq_ts;
		s->start_ns = y->irq_ts > y->irq_lat ? y->irq_ts - y->irq_lat : 0;
	}
	if (y->has_irq)
		s->blocking_pid = y->irq_pid;
	if (s->blocking_pid == 0)
		snprintf(s->blocking_comm, sizeof(s->blocking_comm), "swapper/%d", cpu);
	find_parts(n, s, c, y->has_irq ? y->irq_ts : 0);
	find_section(n, s, c);
	s->nr_frames = y->nr_frames;
	memcpy(s->frames, y->frames, y->nr_frames * sizeof(y->frames[0]));
	n->fn(s, n->arg);
out:
	memset(y, 0, offsetof(struct cycle, frames));
	y->nr_frames = 0;
}

/*
 * Whether ev, emitted at ts on c, can be what it says. The kernel emits a noise event when
 * the noise ends, so it cannot end later than ts; and no noise of a CPU began before
 * timerlat's thread last ran there (the thread ran, nothing else did). 6.1's osnoise breaks
 * both with nested interrupts (a handler that runs another one, as a demultiplexing or
 * timer-driven one does): the outer interrupt and the thread it interrupted come out seconds
 * long, and would explain any spike.
 */
static bool plausible(const struct cpu_state *c, uint64_t ts, const struct lh_noise_event *ev)
{
	uint64_t end = ev->start_ns + ev->duration_ns;

	return end >= ev->start_ns && end <= ts + LH_NOISE_SLACK_NS &&
	       ev->start_ns >= c->thread_ts;
}

void lh_noise_event(struct lh_noise *n, int cpu, uint64_t ts, const struct lh_noise_event *ev)
{
	struct cpu_state *c = cpu_at(n, cpu, ts);

	if (!c)
		return;
	if (!plausible(c, ts, ev)) {
		n->st.implausible++;
		return;
	}
	c->recent[c->head] = *ev;
	c->recent[c->head].name[LH_NOISE_NAME - 1] = '\0';
	c->head = (c->head + 1) % LH_NOISE_RECENT;
	if (c->nr < LH_NOISE_RECENT)
		c->nr++;
}

void lh_noise_timerlat(struct lh_noise *n, int cpu, uint64_t ts, uint64_t seqnum, bool thread,
		       uint64_t latency_ns, int pid)
{
	struct cpu_state *c = cpu_at(n, cpu, ts);
	struct cycle *y;

	if (!c)
		return;
	y = &c->cyc;
	n->st.samples++;
	lh_histogram_add(&c->hist[thread ? LH_NOISE_HIST_THREAD : LH_NOISE_HIST_IRQ], latency_ns);
	if (!thread) {
		/* A new timer: whatever was read of the one before is all there will be. */
		cycle_end(n, cpu, c);
		y->has_irq = true;
		y->irq_seq = seqnum;
		y->irq_ts = ts;
		y->irq_lat = latency_ns;
		y->irq_pid = pid;
		return;
	}
	/* A thread sample of another timer than the IRQ sample read (or a second one). */
	if (y->has_thread || (y->has_irq && y->irq_seq != seqnum))
		cycle_end(n, cpu, c);
	y->has_thread = true;
	y->thread_seq = seqnum;
	y->thread_ts = ts;
	y->thread_lat = latency_ns;
	y->stack_open = true;
	c->thread_ts = ts;
}

/*
 * The frames of the measurement itself, innermost first: the timerlat IRQ where
 * print_stack's stack is taken, and the timer interrupt's way to it (x86). What follows them
 * is what ran when the timer fired.
 */
static const char *const own_frames[] = {
	"timerlat_save_stack", "timerlat_irq", "__hrtimer_run_queues", "hrtimer_interrupt",
	"__sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt",
	"asm_sysvec_apic_timer_interrupt",
};

/* Return: whether f is one of own_frames, also as gcc's clone ("timerlat_irq.constprop.0"). */
static bool own_frame(const char *f)
{
	size_t i, len;

	for (i = 0; f && i < LH_ARRAY_SIZE(own_frames); i++) {
		len = strlen(own_frames[i]);
		if (!strncmp(f, own_frames[i], len) && (!f[len] || f[len] == '.'))
			return true;
	}
	return false;
}

void lh_noise_stack(struct lh_noise *n, int cpu, const char *const *frames, size_t nr)
{
	struct cpu_state *c = cpu_of(n, cpu);
	struct cycle *y;
	size_t i;

	if (!c)
		return;
	y = &c->cyc;
	if (!y->has_thread || !y->stack_open || y->nr_frames) {
		n->st.stray_stacks++;
		return;
	}
	while (nr && own_frame(frames[0])) {
		frames++;
		nr--;
	}
	for (i = 0; i < nr && i < LH_NOISE_FRAMES; i++)
		snprintf(y->frames[i], LH_NOISE_FRAME, "%s", frames[i] ? frames[i] : "");
	y->nr_frames = i;
	y->stack_open = false;
}

void lh_noise_osnoise(struct lh_noise *n, int cpu, uint64_t ts, uint64_t runtime_ns,
		      uint64_t noise_ns, uint64_t max_sample_ns, uint64_t hw_count)
{
	struct cpu_state *c = cpu_of(n, cpu);
	struct lh_noise_spike *s = &n->spike;
	size_t i;

	if (!c)
		return;
	n->st.samples++;
	c->runtime_ns += runtime_ns;
	c->noise_ns += noise_ns;
	c->hw_count = lh_sat_add(c->hw_count, hw_count);
	n->st.runtime_ns += runtime_ns;
	n->st.noise_ns += noise_ns;
	lh_histogram_add(&c->hist[LH_NOISE_HIST_OSNOISE], max_sample_ns);
	if (!judge(n, max_sample_ns))
		return;
	spike_init(s, LH_NOISE_OSNOISE, cpu);
	s->latency_ns = max_sample_ns;
	s->noise_ns = noise_ns;
	s->runtime_ns = runtime_ns;
	s->end_ns = ts;
	s->start_ns = ts > runtime_ns ? ts - runtime_ns : 0;
	find_parts(n, s, c, 0);
	/*
	 * max_sample is the longest single noise of the period, not their sum: what explains
	 * it is the longest part.
	 */
	s->explained_ns = 0;
	for (i = 0; i < s->nr_parts; i++) {
		const struct lh_noise_part *p = &s->parts[i];

		if (p->overlap_ns > s->explained_ns)
			s->explained_ns = p->overlap_ns < s->latency_ns ? p->overlap_ns
									: s->latency_ns;
	}
	n->fn(s, n->arg);
}

void lh_noise_hwlat(struct lh_noise *n, int cpu, uint64_t ts, uint64_t ns)
{
	struct cpu_state *c = cpu_of(n, cpu);
	struct lh_noise_spike *s = &n->spike;

	if (!c)
		return;
	n->st.samples++;
	lh_histogram_add(&c->hist[LH_NOISE_HIST_HWLAT], ns);
	if (!judge(n, ns))
		return;
	/* The hardware's own: no noise event can explain it. */
	spike_init(s, LH_NOISE_HWLAT, cpu);
	s->latency_ns = ns;
	s->start_ns = ts > ns ? ts - ns : 0;
	s->end_ns = ts;
	n->fn(s, n->arg);
}

void lh_noise_watch_sections(struct lh_noise *n, unsigned int watched, uint64_t min_ns)
{
	int cpu;

	n->watched = watched;
	n->section_min_ns = min_ns;
	/* The events are enabled before a tracer is armed: every section since is read. */
	for (cpu = 0; cpu < n->nr_cpus; cpu++) {
		n->cpus[cpu].sec_known = true;
		n->cpus[cpu].sec_from = 0;
	}
}

void lh_noise_section(struct lh_noise *n, int cpu, uint64_t ts, enum lh_tracer tracer,
		      uint64_t duration_ns, const char *caller)
{
	struct cpu_state *c = cpu_at(n, cpu, ts);
	struct section *x;

	if (!c || !(n->watched & (1u << tracer)) || duration_ns < n->section_min_ns)
		return;
	x = &c->sections[c->sec_head];
	x->tracer = tracer;
	x->start_ns = ts > duration_ns ? ts - duration_ns : 0;
	x->end_ns = ts;
	snprintf(x->caller, sizeof(x->caller), "%s", caller ? caller : "");
	c->sec_head = (c->sec_head + 1) % LH_NOISE_SECTIONS;
	if (c->sec_nr < LH_NOISE_SECTIONS)
		c->sec_nr++;
}

void lh_noise_lost(struct lh_noise *n, int cpu)
{
	struct cpu_state *c = cpu_of(n, cpu);

	if (!c)
		return;
	cycle_end(n, cpu, c);
	/* What was before the gap cannot be told from what is missing in it. */
	c->nr = 0;
	c->sec_nr = 0;
	c->sec_known = false;
}

void lh_noise_flush(struct lh_noise *n)
{
	int cpu;

	for (cpu = 0; cpu < n->nr_cpus; cpu++)
		cycle_end(n, cpu, &n->cpus[cpu]);
}

const struct lh_histogram *lh_noise_histogram(const struct lh_noise *n, int cpu,
					      enum lh_noise_hist h)
{
	if (cpu < 0 || cpu >= n->nr_cpus || (unsigned int)h >= LH_NOISE_HIST_NR)
		return NULL;
	return &n->cpus[cpu].hist[h];
}

int lh_noise_nr_cpus(const struct lh_noise *n)
{
	return n->nr_cpus;
}

/* Return: the number at *s (advanced past it), or -1 when there is none or it is too large. */
static long cpu_number(const char **s)
{
	long v = 0;

	if (**s < '0' || **s > '9')
		return -1;
	while (**s >= '0' && **s <= '9') {
		v = v * 10 + (**s - '0');
		if (v > 1 << 20)
			return -1;
		(*s)++;
	}
	return v;
}

int lh_noise_set_cpus(struct lh_noise *n, const char *list)
{
	const char *s = list;
	int cpu;

	/* checked in full before anything changes */
	while (*s && *s != '\n') {
		long lo = cpu_number(&s), hi = lo;

		if (*s == '-') {
			s++;
			hi = cpu_number(&s);
		}
		if (lo < 0 || hi < lo || (*s && *s != ',' && *s != '\n'))
			return -1;
		if (*s == ',')
			s++;
	}
	for (cpu = 0; cpu < n->nr_cpus; cpu++)
		n->cpus[cpu].unexpected = true;
	for (s = list; *s && *s != '\n';) {
		long lo = cpu_number(&s), hi = lo, c;

		if (*s == '-') {
			s++;
			hi = cpu_number(&s);
		}
		for (c = lo; c <= hi && c < n->nr_cpus; c++)
			n->cpus[c].unexpected = false;
		if (*s == ',')
			s++;
	}
	return 0;
}

bool lh_noise_cpu_expected(const struct lh_noise *n, int cpu)
{
	return cpu >= 0 && cpu < n->nr_cpus && !n->cpus[cpu].unexpected;
}

const struct lh_noise_stats *lh_noise_stats(const struct lh_noise *n)
{
	return &n->st;
}

void lh_noise_cpu_time(const struct lh_noise *n, int cpu, uint64_t *runtime_ns,
		       uint64_t *noise_ns)
{
	*runtime_ns = *noise_ns = 0;
	if (cpu < 0 || cpu >= n->nr_cpus)
		return;
	*runtime_ns = n->cpus[cpu].runtime_ns;
	*noise_ns = n->cpus[cpu].noise_ns;
}

uint64_t lh_noise_cpu_hw(const struct lh_noise *n, int cpu)
{
	return cpu >= 0 && cpu < n->nr_cpus ? n->cpus[cpu].hw_count : 0;
}

/* ---- the spike as a record ---- */

/* Writes p's name as a record names it ("ttyS0", "softirq:TIMER", "thread:comm"). */
static void part_name(const struct lh_noise_part *p, char *buf, size_t len)
{
	const char *name = p->ev.name[0] ? p->ev.name : "unknown";
	const char *sirq;

	switch (p->ev.kind) {
	case LH_NOISE_IRQ:
		snprintf(buf, len, "%s", name);
		break;
	case LH_NOISE_SOFTIRQ:
		sirq = lh_noise_softirq_name(p->ev.vector);
		if (sirq)
			snprintf(buf, len, "softirq:%s", sirq);
		else
			snprintf(buf, len, "softirq:%d", p->ev.vector);
		break;
	case LH_NOISE_NMI:
		snprintf(buf, len, "nmi");
		break;
	default:
		snprintf(buf, len, "thread:%s", name);
		break;
	}
}

static uint64_t us_up(uint64_t ns)
{
	return ns / 1000 + (ns % 1000 != 0);
}

/* Return: name in r's arena (escaped), NULL when "" (unknown). */
static const char *name_of(struct lh_record *r, const char *name)
{
	return name[0] ? lh_record_strndup(r, name, strlen(name)) : NULL;
}

/* The breakdown as r->spike: the names are copied (escaped) into r's arena. */
static void spike_record(const struct lh_noise_spike *s, struct lh_record *r)
{
	struct lh_spike *o = &r->spike;
	size_t i;

	o->set = true;
	o->latency_ns = s->latency_ns;
	o->has_irq = s->tracer == LH_NOISE_TIMERLAT && s->has_irq;
	o->irq_latency_ns = o->has_irq ? s->irq_latency_ns : 0;
	o->has_thread = s->tracer == LH_NOISE_TIMERLAT && s->has_thread;
	o->thread_latency_ns = o->has_thread ? s->thread_latency_ns : 0;
	o->has_period = s->tracer == LH_NOISE_OSNOISE;
	o->noise_ns = s->noise_ns;
	o->runtime_ns = s->runtime_ns;
	o->blocking.pid = s->blocking_pid;
	o->blocking.comm = name_of(r, s->blocking_comm);
	o->blocking_ns = s->blocking_ns;
	o->culprit.pid = s->culprit_pid;
	o->culprit.comm = name_of(r, s->culprit_comm);
	o->culprit_ns = s->culprit_ns;
	o->nr_parts = s->nr_parts;
	for (i = 0; i < s->nr_parts; i++) {
		const struct lh_noise_part *p = &s->parts[i];
		struct lh_spike_part *q = &o->parts[i];

		q->kind = (enum lh_spike_kind)p->ev.kind;
		q->name = name_of(r, p->ev.name);
		q->vector = p->ev.kind == LH_NOISE_IRQ || p->ev.kind == LH_NOISE_SOFTIRQ ?
			    p->ev.vector : -1;
		q->pid = p->ev.kind == LH_NOISE_THREAD ? p->ev.pid : -1;
		q->offset_ns = p->offset_ns;
		q->duration_ns = p->ev.duration_ns;
		q->overlap_ns = p->overlap_ns;
	}
	o->more_parts = s->more_parts;
	o->more_ns = s->more_ns;
	o->explained_ns = s->explained_ns;
	o->section = s->section;
	o->section.caller = name_of(r, s->section_caller);
}

void lh_noise_spike_record(const struct lh_noise_spike *s, struct lh_record *r)
{
	char name[LH_NOISE_NAME + 16];
	size_t i;

	r->tracer = s->tracer == LH_NOISE_OSNOISE ? LH_TRACER_OSNOISE :
		    s->tracer == LH_NOISE_HWLAT ? LH_TRACER_HWLAT : LH_TRACER_TIMERLAT;
	r->tracer_name = lh_tracer_name(r->tracer);
	r->latency_us = us_up(s->latency_ns);
	r->cpu = s->cpu;
	r->task.pid = s->culprit_pid;
	if (s->culprit_comm[0])
		r->task.comm = lh_record_strndup(r, s->culprit_comm, strlen(s->culprit_comm));
	if (s->nr_parts) {
		part_name(&s->parts[0], name, sizeof(name));
		r->started_at = lh_record_strndup(r, name, strlen(name));
	}
	for (i = 0; i < s->nr_parts; i++) {
		const struct lh_noise_part *p = &s->parts[i];
		struct lh_irq *irq = lh_record_add_irq(r);

		part_name(p, name, sizeof(name));
		irq->name = lh_record_strndup(r, name, strlen(name));
		irq->irq = p->ev.kind == LH_NOISE_IRQ ? p->ev.vector : -1;
		irq->start_us = (double)p->offset_ns / 1000.0;
		irq->duration_us = (double)p->ev.duration_ns / 1000.0;
	}
	spike_record(s, r);
	for (i = 0; i < s->nr_frames; i++) {
		char frame[4 * LH_NOISE_FRAME];
		size_t len = lh_record_escape(frame, sizeof(frame), s->frames[i],
					      strlen(s->frames[i]));

		lh_record_add_frame(r, 0, frame, len);
	}
}
