// SPDX-License-Identifier: GPL-2.0-only
/*
 * timerlat, osnoise and hwlat in lathound's own tracefs instance: samples, noise events and
 * stacks read from the per-CPU trace_pipe_raw files, decoded with libtraceevent and handed
 * to the breakdown (noise.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "noisetrace.h"
#include "ringbuf.h"
#include "state.h"

const char *const lh_noisetrace_knobs[] = {
	"osnoise/options", "osnoise/print_stack", "osnoise/stop_tracing_us",
	"osnoise/stop_tracing_total_us", "osnoise/timerlat_period_us", "osnoise/period_us",
	"osnoise/runtime_us", "osnoise/cpus", NULL,
};

/* The events read, and their fields. */
enum ev {
	EV_TIMERLAT, EV_OSNOISE, EV_HWLAT, EV_STACK,
	EV_IRQ, EV_SOFTIRQ, EV_NMI, EV_THREAD,
	EV_NR,
};

static const struct {
	const char	*system;
	const char	*name;
} event_names[EV_NR] = {
	[EV_TIMERLAT]	= { "ftrace", "timerlat" },
	[EV_OSNOISE]	= { "ftrace", "osnoise" },
	[EV_HWLAT]	= { "ftrace", "hwlat" },
	[EV_STACK]	= { "ftrace", "kernel_stack" },
	[EV_IRQ]	= { "osnoise", "irq_noise" },
	[EV_SOFTIRQ]	= { "osnoise", "softirq_noise" },
	[EV_NMI]	= { "osnoise", "nmi_noise" },
	[EV_THREAD]	= { "osnoise", "thread_noise" },
};

enum field {
	F_SEQNUM, F_CONTEXT, F_TIMER_LATENCY,		/* timerlat */
	F_NOISE, F_RUNTIME, F_MAX_SAMPLE, F_HW_COUNT,	/* osnoise */
	F_DURATION, F_OUTER,				/* hwlat */
	F_SIZE, F_CALLER,				/* kernel_stack */
	F_START, F_NDURATION, F_VECTOR, F_DESC, F_COMM, F_PID,	/* *_noise: per event */
	F_NR,
};

struct evinfo {
	int			id;		/* -1: not in this kernel */
	struct tep_format_field	*f[F_NR];
};

/* A watched section histogram's synthetic event (lh_noisetrace_watch()). */
struct watch {
	enum lh_tracer		tracer;
	char			synth[64];
	int			id;
	struct tep_format_field	*lat;
	struct tep_format_field	*caller;
};

/* The shortest section watched: none shorter, a spike's quarter otherwise. */
#define SECTION_FLOOR_NS	(20 * 1000ULL)

struct lh_noisetrace {
	char			name[48];
	struct tracefs_instance	*inst;
	struct tep_handle	*tep;
	struct lh_ringbuf	*rb;
	struct evinfo		ev[EV_NR];
	bool			kallsyms;	/* /proc/kallsyms was read (at timerlat's arming) */
	bool			print_stack;	/* osnoise/print_stack exists and is used */

	struct lh_noise		*noise;
	struct lh_noisetrace_opts o;
	enum lh_tracer		armed;
	uint64_t		print_stack_us;	/* as last written */
	struct watch		watch[2];
	size_t			nr_watch;
	const struct lh_ksyms	*ksyms;
	uint64_t		section_min_ns;	/* as last written to the watches' filters */
	uint64_t		missed;
	uint64_t		implausible_said;	/* noise events said left out */

	/* osnoise's noise by source, counted in the kernel while osnoise is armed */
	struct tracefs_hist	*src[EV_NR];	/* [EV_IRQ..EV_THREAD], started */
	bool			src_tried;	/* at osnoise's first arming */
	bool			src_counted;	/* started: counting, or paused */
	bool			src_on;		/* counting (not paused) */
	const char		*src_why;	/* not counted: why (static) */
	struct lh_hist_data	src_data;	/* as last read */
};

/* The key of each noise event's histogram after the CPU (NULL: the CPU alone). */
static const char *const source_key[EV_NR] = {
	[EV_IRQ] = "desc", [EV_SOFTIRQ] = "vector", [EV_THREAD] = "comm",
};

/* The ring buffer's page header and the events this kernel has of those above. */
static int load_formats(struct lh_noisetrace *t, struct lh_diag *diag)
{
	char *buf;
	int size, i;

	t->tep = lh_ringbuf_tep(diag);
	if (!t->tep)
		return -1;
	for (i = 0; i < EV_NR; i++) {
		struct tep_event *e;

		t->ev[i].id = -1;
		buf = tracefs_event_file_read(NULL, event_names[i].system, event_names[i].name,
					      "format", &size);
		if (!buf)
			continue;
		if (tep_parse_event(t->tep, buf, (unsigned long)size, event_names[i].system)) {
			free(buf);
			return lh_diag_fail(diag, "cannot parse the format of '%s:%s'",
					    event_names[i].system, event_names[i].name);
		}
		free(buf);
		e = tep_find_event_by_name(t->tep, event_names[i].system, event_names[i].name);
		if (e)
			t->ev[i].id = e->id;
	}
	return 0;
}

/* Finds the fields of event i; one missing leaves the event unread (id -1). */
static void find_fields(struct lh_noisetrace *t, int i, const enum field *fs, const char **names,
			size_t nr)
{
	struct tep_event *e;
	size_t k;

	if (t->ev[i].id < 0)
		return;
	e = tep_find_event(t->tep, t->ev[i].id);
	for (k = 0; e && k < nr; k++) {
		t->ev[i].f[fs[k]] = tep_find_field(e, names[k]);
		if (!t->ev[i].f[fs[k]]) {
			t->ev[i].id = -1;
			return;
		}
	}
}

static void find_all_fields(struct lh_noisetrace *t)
{
	static const enum field tl[] = { F_SEQNUM, F_CONTEXT, F_TIMER_LATENCY };
	static const char *tl_n[] = { "seqnum", "context", "timer_latency" };
	static const enum field os[] = { F_NOISE, F_RUNTIME, F_MAX_SAMPLE, F_HW_COUNT };
	static const char *os_n[] = { "noise", "runtime", "max_sample", "hw_count" };
	static const enum field hw[] = { F_DURATION, F_OUTER };
	static const char *hw_n[] = { "duration", "outer_duration" };
	static const enum field st[] = { F_SIZE, F_CALLER };
	static const char *st_n[] = { "size", "caller" };
	static const enum field irq[] = { F_START, F_NDURATION, F_VECTOR, F_DESC };
	static const char *irq_n[] = { "start", "duration", "vector", "desc" };
	static const enum field sirq[] = { F_START, F_NDURATION, F_VECTOR };
	static const char *sirq_n[] = { "start", "duration", "vector" };
	static const enum field nmi[] = { F_START, F_NDURATION };
	static const char *nmi_n[] = { "start", "duration" };
	static const enum field thr[] = { F_START, F_NDURATION, F_COMM, F_PID };
	static const char *thr_n[] = { "start", "duration", "comm", "pid" };

	find_fields(t, EV_TIMERLAT, tl, tl_n, LH_ARRAY_SIZE(tl));
	find_fields(t, EV_OSNOISE, os, os_n, LH_ARRAY_SIZE(os));
	find_fields(t, EV_HWLAT, hw, hw_n, LH_ARRAY_SIZE(hw));
	find_fields(t, EV_STACK, st, st_n, LH_ARRAY_SIZE(st));
	find_fields(t, EV_IRQ, irq, irq_n, LH_ARRAY_SIZE(irq));
	find_fields(t, EV_SOFTIRQ, sirq, sirq_n, LH_ARRAY_SIZE(sirq));
	find_fields(t, EV_NMI, nmi, nmi_n, LH_ARRAY_SIZE(nmi));
	find_fields(t, EV_THREAD, thr, thr_n, LH_ARRAY_SIZE(thr));
}

/*
 * Symbols for print_stack's addresses: /proc/kallsyms, parsed by libtraceevent, once a run,
 * when timerlat is first armed with print_stack, before its tracer is set (some 20 MB of heap,
 * and up to a second of CPU on a slow machine). Not at the first stack: without a threshold
 * the first sample of a run is a new maximum, so a stack comes within the first read, and
 * the parse then ran while timerlat sampled, its cost counted in lathound's overhead.
 */
static void load_kallsyms(struct lh_noisetrace *t)
{
	size_t len = 0, alloc = 0;
	char *buf = NULL;
	FILE *f;

	if (t->kallsyms)
		return;
	t->kallsyms = true;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return;
	for (;;) {
		size_t n;

		LH_GROW(buf, len + 65536 + 1, alloc);
		n = fread(buf + len, 1, 65536, f);
		len += n;
		if (n < 65536)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	tep_parse_kallsyms(t->tep, buf);
	free(buf);
	/* libtraceevent sorts what it parsed at the first lookup: that too, now */
	tep_find_function(t->tep, 0);
}

static int write_knob(const char *path, uint64_t v, struct lh_diag *diag)
{
	char num[32];
	int n = snprintf(num, sizeof(num), "%llu\n", (unsigned long long)v);

	if (tracefs_instance_file_write(NULL, path, num) != n)
		return lh_diag_fail(diag, "cannot set '%s' to %llu: %s", path,
				    (unsigned long long)v, strerror(errno));
	return 0;
}

/* The global knobs this run needs; the session saved them all before. */
static int set_knobs(struct lh_noisetrace *t, struct lh_diag *diag)
{
	/* A stop left set by another user would end the sampling at its first spike. */
	if (lh_state_knob_exists("osnoise/stop_tracing_us") &&
	    write_knob("osnoise/stop_tracing_us", 0, diag))
		return -1;
	if (lh_state_knob_exists("osnoise/stop_tracing_total_us") &&
	    write_knob("osnoise/stop_tracing_total_us", 0, diag))
		return -1;
	if (t->o.period_us && write_knob("osnoise/timerlat_period_us", t->o.period_us, diag))
		return -1;
	if (t->o.cpus) {
		size_t n = strlen(t->o.cpus);

		if (tracefs_instance_file_write(NULL, "osnoise/cpus", t->o.cpus) != (int)n)
			return lh_diag_fail(diag, "cannot set 'osnoise/cpus' to '%s': %s",
					    t->o.cpus, strerror(errno));
	}
	return 0;
}

/* The CPU set of osnoise/cpus into the breakdown (a kernel without the file: every CPU). */
static int read_cpus(struct lh_noisetrace *t, struct lh_diag *diag)
{
	char *cpus;
	int ret = 0;

	if (!lh_state_knob_exists("osnoise/cpus"))
		return 0;
	cpus = tracefs_instance_file_read(NULL, "osnoise/cpus", NULL);
	if (!cpus)
		return lh_diag_fail(diag, "cannot read 'osnoise/cpus': %s", strerror(errno));
	if (lh_noise_set_cpus(t->noise, cpus))
		ret = lh_diag_fail(diag, "'osnoise/cpus' reads '%.64s', not a CPU list", cpus);
	free(cpus);
	return ret;
}

/*
 * The watched sections' filter: a quarter of what a spike must exceed (the threshold, or the
 * running maximum), SECTION_FLOOR_NS at least, so that the kernel emits the sections that
 * can explain one and few others.
 */
static void update_watch(struct lh_noisetrace *t)
{
	uint64_t ns = (t->o.threshold_ns ? t->o.threshold_ns : lh_noise_max(t->noise)) / 4;
	unsigned int watched = 0;
	char filter[48];
	size_t i;

	if (!t->nr_watch)
		return;
	if (ns < SECTION_FLOOR_NS)
		ns = SECTION_FLOOR_NS;
	if (ns == t->section_min_ns)
		return;
	snprintf(filter, sizeof(filter), "lat >= %" PRIu64, ns);
	for (i = 0; i < t->nr_watch; i++) {
		/* a filter the kernel refused keeps the last one: the minimum said stays true */
		if (tracefs_event_file_write(t->inst, "synthetic", t->watch[i].synth, "filter",
					     filter) < 0)
			return;
		watched |= 1u << t->watch[i].tracer;
	}
	t->section_min_ns = ns;
	lh_noise_watch_sections(t->noise, watched, ns);
}

int lh_noisetrace_watch(struct lh_noisetrace *t, enum lh_tracer tracer, const char *synth,
			const struct lh_ksyms *ks, struct lh_diag *diag)
{
	struct watch *w = &t->watch[t->nr_watch];
	struct tep_event *e;
	char *buf;
	int size;

	if (t->nr_watch == LH_ARRAY_SIZE(t->watch) ||
	    (tracer != LH_TRACER_IRQSOFF && tracer != LH_TRACER_PREEMPTOFF)) {
		errno = EINVAL;
		return lh_diag_fail(diag, "cannot watch the sections of '%s'", lh_tracer_name(tracer));
	}
	snprintf(w->synth, sizeof(w->synth), "%s", synth);
	w->tracer = tracer;
	buf = tracefs_event_file_read(NULL, "synthetic", synth, "format", &size);
	if (!buf || tep_parse_event(t->tep, buf, (unsigned long)size, "synthetic")) {
		free(buf);
		return lh_diag_fail(diag, "cannot read the format of synthetic event '%s'", synth);
	}
	free(buf);
	e = tep_find_event_by_name(t->tep, "synthetic", synth);
	w->lat = e ? tep_find_field(e, "lat") : NULL;
	w->caller = e ? tep_find_field(e, "caller") : NULL;
	if (!w->lat)
		return lh_diag_fail(diag, "synthetic event '%s' has no field 'lat'", synth);
	w->id = e->id;
	t->ksyms = ks;
	t->nr_watch++;
	/* the filter first: enabled without it, every section would come */
	t->section_min_ns = 0;
	update_watch(t);
	if (!t->section_min_ns ||
	    tracefs_event_enable(t->inst, "synthetic", synth)) {
		t->nr_watch--;
		lh_noise_watch_sections(t->noise, 0, 0);
		return lh_diag_fail(diag, "cannot enable synthetic event '%s' in instance '%s': %s",
				    synth, t->name, strerror(errno));
	}
	return 0;
}

/*
 * print_stack: the stack of a thread sample over it (µs). With a threshold, the threshold;
 * without, the running maximum (a new maximum is what is captured).
 */
static void update_print_stack(struct lh_noisetrace *t)
{
	uint64_t us;
	struct lh_diag d = { 0 };

	if (!t->print_stack)
		return;
	us = (t->o.threshold_ns ? t->o.threshold_ns : lh_noise_max(t->noise)) / 1000;
	if (!us)
		us = 1;
	if (us == t->print_stack_us)
		return;
	if (!write_knob("osnoise/print_stack", us, &d))
		t->print_stack_us = us;
	lh_diag_release(&d);
}

/*
 * Removes the sources' histograms, before the instance (as a killed run's are, with
 * lh_hist_clear_triggers()). Return: 0, or -1.
 */
static int sources_destroy(struct lh_noisetrace *t, struct lh_diag *diag)
{
	int i, ret = 0;

	for (i = EV_IRQ; i <= EV_THREAD; i++) {
		if (!t->src[i])
			continue;
		if (tracefs_hist_destroy(t->inst, t->src[i]))
			ret = lh_diag_fail(diag, "cannot remove the histogram of '%s:%s' in instance '%s': %s",
					   event_names[i].system, event_names[i].name, t->name,
					   strerror(errno));
		tracefs_hist_free(t->src[i]);
		t->src[i] = NULL;
	}
	t->src_on = false;
	return ret;
}

/*
 * osnoise's noise by source: a histogram on each noise event this kernel has, keyed by CPU
 * and source, counting events and summing their durations, started at osnoise's first
 * arming. A kernel without hist triggers counts none: said, and the report has no sources.
 */
static void sources_start(struct lh_noisetrace *t, struct lh_diag *diag)
{
	struct lh_diag d = { 0 };
	int i;

	t->src_tried = true;
	for (i = EV_IRQ; i <= EV_THREAD; i++) {
		struct tracefs_hist *h;
		int err;

		if (t->ev[i].id < 0)
			continue;
		h = tracefs_hist_alloc(t->tep, event_names[i].system, event_names[i].name,
				       "common_cpu", TRACEFS_HIST_KEY_NORMAL);
		if (!h)
			goto fail;
		err = source_key[i] ? tracefs_hist_add_key(h, source_key[i],
							   TRACEFS_HIST_KEY_NORMAL) : 0;
		err = err ?: tracefs_hist_add_value(h, "duration");
		if (err || tracefs_hist_start(t->inst, h)) {
			tracefs_hist_free(h);
			goto fail;
		}
		t->src[i] = h;
	}
	t->src_counted = t->src_on = true;
	return;
fail:
	t->src_why = "the kernel refused a histogram trigger on an osnoise noise event";
	lh_diag_add(diag, LH_DIAG_WARNING,
		    "osnoise's noise is not counted by source: cannot start a histogram on '%s:%s' in instance '%s': %s",
		    event_names[i].system, event_names[i].name, t->name,
		    strerror(errno ? errno : EINVAL));
	sources_destroy(t, &d);
	lh_diag_release(&d);
}

/* Pauses or continues the sources' histograms: they count osnoise's noise only. */
static int sources_count(struct lh_noisetrace *t, bool on, struct lh_diag *diag)
{
	int i;

	if (t->src_on == on)
		return 0;
	for (i = EV_IRQ; i <= EV_THREAD; i++)
		if (t->src[i] && (on ? tracefs_hist_continue(t->inst, t->src[i]) :
				       tracefs_hist_pause(t->inst, t->src[i])))
			return lh_diag_fail(diag, "cannot %s the histogram of '%s:%s' in instance '%s': %s",
					    on ? "continue" : "pause", event_names[i].system,
					    event_names[i].name, t->name, strerror(errno));
	t->src_on = on;
	return 0;
}

/*
 * Reads the sources' histograms (hist.c's reader) into t->src_data; what was read before
 * stays when one cannot be. Return: 0, or -1 with the reason in diag.
 */
static int sources_read(struct lh_noisetrace *t, struct lh_diag *diag)
{
	struct lh_hist_data d = { 0 };
	unsigned int want = 0;
	char name[128];
	int i, size;

	for (i = EV_IRQ; i <= EV_THREAD; i++) {
		char *buf;

		if (!t->src[i])
			continue;
		want++;
		snprintf(name, sizeof(name), "%s/events/%s/%s/hist", t->name,
			 event_names[i].system, event_names[i].name);
		buf = tracefs_event_file_read(t->inst, event_names[i].system, event_names[i].name,
					      "hist", &size);
		if (!buf) {
			lh_hist_data_release(&d);
			return lh_diag_fail(diag, "cannot read histogram '%s': %s", name,
					    strerror(errno ? errno : EIO));
		}
		if (lh_hist_parse(buf, (size_t)size, name, &d, diag)) {
			free(buf);
			lh_hist_data_release(&d);
			return -1;
		}
		free(buf);
	}
	if (d.source_tables != want) {
		lh_hist_data_release(&d);
		return lh_diag_fail(diag, "osnoise's noise sources: %u histogram tables read, expected %u",
				    d.source_tables, want);
	}
	lh_hist_data_release(&t->src_data);
	t->src_data = d;
	return 0;
}

const struct lh_hist_data *lh_noisetrace_sources(const struct lh_noisetrace *t, const char **why)
{
	if (!t->src_counted) {
		if (why)
			*why = t->src_why ? t->src_why : "osnoise was not armed";
		return NULL;
	}
	return &t->src_data;
}

int lh_noisetrace_create(struct lh_noisetrace **tp, const struct lh_noisetrace_opts *o,
			 lh_noise_spike_fn fn, void *arg, struct lh_diag *diag)
{
	struct lh_noisetrace *t = lh_xcalloc(1, sizeof(*t));
	int i;

	*tp = NULL;
	t->o = *o;
	snprintf(t->name, sizeof(t->name), LH_NOISETRACE_PREFIX "%d", (int)getpid());
	t->inst = lh_state_instance_create(t->name, diag);
	if (!t->inst)
		goto fail;
	if (load_formats(t, diag))
		goto fail;
	find_all_fields(t);
	/* checked once: update_print_stack() runs at every read */
	t->print_stack = o->stack && t->ev[EV_STACK].id >= 0 &&
			 lh_state_knob_exists("osnoise/print_stack");
	t->noise = lh_noise_alloc((int)sysconf(_SC_NPROCESSORS_CONF), o->threshold_ns, fn, arg);
	/* The noise events: a spike without them is measured, not explained (doctor says). */
	for (i = EV_IRQ; i <= EV_THREAD; i++)
		if (t->ev[i].id >= 0 &&
		    tracefs_event_enable(t->inst, event_names[i].system, event_names[i].name)) {
			lh_diag_fail(diag, "cannot enable event '%s:%s' in instance '%s': %s",
				     event_names[i].system, event_names[i].name, t->name,
				     strerror(errno));
			goto fail;
		}
	if (set_knobs(t, diag))
		goto fail;
	/* the CPUs osnoise will measure, as the kernel has them (those an --noise-cpus set) */
	if (read_cpus(t, diag))
		goto fail;
	*tp = t;
	return 0;
fail:
	lh_noisetrace_destroy(t, diag);
	return -1;
}

int lh_noisetrace_destroy(struct lh_noisetrace *t, struct lh_diag *diag)
{
	int ret = 0;

	if (!t)
		return 0;
	/* Open per-CPU buffers would keep the tracer from changing (EBUSY). */
	lh_ringbuf_close(t->rb);
	if (t->inst) {
		tracefs_trace_off(t->inst);
		/* The tracer's kernel threads stop with it. */
		tracefs_tracer_clear(t->inst);
	}
	if (sources_destroy(t, diag))
		ret = -1;
	if (lh_state_instance_destroy(t->inst, t->name, diag))
		ret = -1;
	lh_hist_data_release(&t->src_data);
	tep_free(t->tep);
	lh_noise_free(t->noise);
	free(t);
	return ret;
}

int lh_noisetrace_arm(struct lh_noisetrace *t, enum lh_tracer tr, uint64_t max_ns,
		      struct lh_diag *diag)
{
	const char *name = lh_tracer_name(tr);
	int e = tr == LH_TRACER_TIMERLAT ? EV_TIMERLAT : tr == LH_TRACER_OSNOISE ? EV_OSNOISE
										   : EV_HWLAT;

	if (!lh_tracer_is_sampling(tr)) {
		errno = EINVAL;
		return lh_diag_fail(diag, "'%s' is not a sampling tracer", name);
	}
	if (t->ev[e].id < 0)
		return lh_diag_fail(diag, "this kernel has no 'ftrace:%s' entry format: cannot read %s samples",
				    name, name);
	if (tracefs_trace_off(t->inst))
		return lh_diag_fail(diag, "cannot stop tracing in instance '%s': %s", t->name,
				    strerror(errno));
	/* The kernel refuses to change the tracer while its buffers are open (EBUSY). */
	lh_ringbuf_close(t->rb);
	t->rb = NULL;
	/* What the last slice left is its own (read before this arming), not this tracer's. */
	if (tracefs_instance_file_clear(t->inst, "trace"))
		return lh_diag_fail(diag, "cannot clear the buffer of instance '%s': %s", t->name,
				    strerror(errno));
	lh_noise_flush(t->noise);
	if (!t->o.threshold_ns)
		lh_noise_set_max(t->noise, max_ns);
	update_print_stack(t);
	/* Not while timerlat samples: the stacks that print_stack adds are named from it. */
	if (tr == LH_TRACER_TIMERLAT && t->print_stack)
		load_kallsyms(t);
	if (tracefs_instance_file_write(t->inst, "current_tracer", name) != (int)strlen(name)) {
		if (errno == EBUSY)
			return lh_diag_fail(diag, "cannot arm %s: the kernel says it is busy (EBUSY): another user (rtla, or a tracer instance) is running osnoise, timerlat or hwlat; stop it first",
					    name);
		return lh_diag_fail(diag, "cannot set current_tracer to '%s' in instance '%s': %s",
				    name, t->name, strerror(errno));
	}
	if (lh_ringbuf_open(&t->rb, t->inst, t->name, t->tep, diag))
		return -1;
	if (tr == LH_TRACER_OSNOISE && !t->src_tried)
		sources_start(t, diag);
	else if (sources_count(t, tr == LH_TRACER_OSNOISE, diag))
		return -1;
	if (tracefs_trace_on(t->inst))
		return lh_diag_fail(diag, "cannot start tracing in instance '%s': %s", t->name,
				    strerror(errno));
	t->armed = tr;
	return 0;
}

int lh_noisetrace_disarm(struct lh_noisetrace *t, struct lh_diag *diag)
{
	int ret = 0;

	if (!t->armed)
		return 0;
	lh_ringbuf_close(t->rb);
	t->rb = NULL;
	if (tracefs_trace_off(t->inst))
		ret = lh_diag_fail(diag, "cannot stop tracing in instance '%s': %s", t->name,
				   strerror(errno));
	if (tracefs_tracer_clear(t->inst))
		ret = lh_diag_fail(diag, "cannot set current_tracer to 'nop' in instance '%s': %s",
				   t->name, strerror(errno));
	if (sources_count(t, false, diag))
		ret = -1;
	t->armed = LH_TRACER_UNKNOWN;
	return ret;
}

static uint64_t field(const struct evinfo *e, enum field f, const void *data, int size)
{
	unsigned long long v = 0;
	struct tep_format_field *fl = e->f[f];

	if (!fl || fl->offset + fl->size > size || tep_read_number_field(fl, data, &v))
		return 0;
	return v;
}

/* A char array field (comm) into buf. */
static void array_string(const struct tep_format_field *f, const void *data, int size,
			 char *buf, size_t len)
{
	size_t i;
	const char *s = (const char *)data + f->offset;

	buf[0] = '\0';
	if (f->offset + f->size > size)
		return;
	for (i = 0; i < (size_t)f->size && i + 1 < len && s[i]; i++)
		buf[i] = s[i];
	buf[i] = '\0';
}

static void decode_stack(struct lh_noisetrace *t, const struct evinfo *e, int cpu,
			 const void *data, int size)
{
	char hex[LH_NOISE_FRAMES][24];
	const char *names[LH_NOISE_FRAMES];
	const struct tep_format_field *f = e->f[F_CALLER];
	uint64_t n = field(e, F_SIZE, data, size);
	size_t i, max = f->offset < size ? (size_t)(size - f->offset) / sizeof(long) : 0;
	const unsigned char *p = (const unsigned char *)data + f->offset;

	if (n > max)
		n = max;
	load_kallsyms(t);	/* loaded at arming; a stack of another source is named too */
	for (i = 0; i < n && i < LH_NOISE_FRAMES; i++) {
		unsigned long addr;

		memcpy(&addr, p + i * sizeof(long), sizeof(addr));
		if (!addr || addr == (unsigned long)-1)	/* ULONG_MAX ends a short stack */
			break;
		names[i] = tep_find_function(t->tep, addr);
		if (!names[i]) {
			/* kallsyms unreadable (kptr_restrict), or not a kernel text address */
			snprintf(hex[i], sizeof(hex[i]), "0x%lx", addr);
			names[i] = hex[i];
		}
	}
	lh_noise_stack(t->noise, cpu, names, i);
}

/* A watched section's synthetic event, if type is one: its length and start site. */
static void decode_section(struct lh_noisetrace *t, int type, int cpu, const void *data,
			   int size, uint64_t ts)
{
	unsigned long long lat, offs;
	char *caller = NULL;
	size_t i;

	for (i = 0; i < t->nr_watch && t->watch[i].id != type; i++)
		;
	if (i == t->nr_watch || tep_read_number_field(t->watch[i].lat, data, &lat))
		return;
	(void)size;
	if (t->watch[i].caller && !tep_read_number_field(t->watch[i].caller, data, &offs))
		caller = lh_ksyms_name(t->ksyms, (int32_t)offs);
	lh_noise_section(t->noise, cpu, ts, t->watch[i].tracer, lat, caller);
	free(caller);
}

static void decode(void *arg, int cpu, void *data, int size, uint64_t ts)
{
	struct lh_noisetrace *t = arg;
	struct tep_record rec = { .ts = ts, .data = data, .size = size, .cpu = cpu };
	struct lh_noise_event ev;
	const struct evinfo *e;
	int type, i;

	if (size < 8)
		return;
	type = tep_data_type(t->tep, &rec);
	for (i = 0; i < EV_NR; i++)
		if (t->ev[i].id >= 0 && t->ev[i].id == type)
			break;
	if (i == EV_NR) {
		decode_section(t, type, cpu, data, size, ts);
		return;
	}
	e = &t->ev[i];
	switch (i) {
	case EV_TIMERLAT:
		lh_noise_timerlat(t->noise, cpu, ts, field(e, F_SEQNUM, data, size),
				  field(e, F_CONTEXT, data, size) != 0,
				  field(e, F_TIMER_LATENCY, data, size),
				  tep_data_pid(t->tep, &rec));
		return;
	case EV_OSNOISE:
		/* µs: run_osnoise() converts its sample with time_to_us() */
		lh_noise_osnoise(t->noise, cpu, ts, field(e, F_RUNTIME, data, size) * 1000,
				 field(e, F_NOISE, data, size) * 1000,
				 field(e, F_MAX_SAMPLE, data, size) * 1000,
				 field(e, F_HW_COUNT, data, size));
		return;
	case EV_HWLAT: {
		uint64_t in = field(e, F_DURATION, data, size);
		uint64_t out = field(e, F_OUTER, data, size);

		/* µs, as hwlat measures */
		lh_noise_hwlat(t->noise, cpu, ts, (in > out ? in : out) * 1000);
		return;
	}
	case EV_STACK:
		decode_stack(t, e, cpu, data, size);
		return;
	default:
		break;
	}
	memset(&ev, 0, sizeof(ev));
	ev.kind = i == EV_IRQ ? LH_NOISE_IRQ : i == EV_SOFTIRQ ? LH_NOISE_SOFTIRQ :
		  i == EV_NMI ? LH_NOISE_NMI : LH_NOISE_THREAD;
	ev.start_ns = field(e, F_START, data, size);
	ev.duration_ns = field(e, F_NDURATION, data, size);
	ev.vector = e->f[F_VECTOR] ? (int)field(e, F_VECTOR, data, size) : -1;
	ev.pid = e->f[F_PID] ? (int)field(e, F_PID, data, size) : -1;
	if (e->f[F_DESC])
		lh_ringbuf_dyn_string(e->f[F_DESC], data, size, ev.name, sizeof(ev.name));
	else if (e->f[F_COMM])
		array_string(e->f[F_COMM], data, size, ev.name, sizeof(ev.name));
	lh_noise_event(t->noise, cpu, ts, &ev);
}

/* The ring buffer of cpu lost events: no sample after the gap pairs with one before. */
static void lost_events(void *arg, int cpu, uint64_t missed)
{
	struct lh_noisetrace *t = arg;

	t->missed += missed;
	lh_noise_lost(t->noise, cpu);
}

long lh_noisetrace_read(struct lh_noisetrace *t, bool final, struct lh_diag *diag)
{
	long events = t->rb ? lh_ringbuf_read(t->rb, decode, lost_events, t, NULL, diag) : 0;

	if (events < 0)
		return -1;
	/* the sources as the kernel counted them at the end of each slice of osnoise */
	if (final && t->armed == LH_TRACER_OSNOISE && t->src_on && sources_read(t, diag))
		return -1;
	if (final) {
		uint64_t bad = lh_noise_stats(t->noise)->implausible;

		lh_noise_flush(t->noise);
		/* Said once a slice, with what it added: the breakdowns lack them. */
		if (bad > t->implausible_said)
			lh_diag_add(diag, LH_DIAG_WARNING,
				    "%" PRIu64 " noise event%s left out of the spikes' breakdown: their times cannot be (ended after the kernel emitted them, or began before timerlat's thread last ran on their CPU; 6.1's osnoise times nested interrupts so)",
				    bad - t->implausible_said, bad - t->implausible_said == 1 ? "" : "s");
		t->implausible_said = bad;
	}
	update_print_stack(t);
	update_watch(t);
	return events;
}

const struct lh_noise *lh_noisetrace_noise(const struct lh_noisetrace *t)
{
	return t->noise;
}

uint64_t lh_noisetrace_lost(const struct lh_noisetrace *t)
{
	return t->missed;
}

/*
 * Stops the tracer of a killed run's instance name, and removes the instance unless only
 * stopping: timerlat's threads run at SCHED_FIFO until it stops.
 */
static int stop_stale_instance(const char *name, bool remove)
{
	struct tracefs_instance *inst = tracefs_instance_alloc(NULL, name);
	int ret = 0, i;

	if (!inst)
		return -1;
	tracefs_trace_off(inst);
	tracefs_tracer_clear(inst);
	/* then the sources' histograms, as lh_noisetrace_destroy() removes them */
	for (i = EV_IRQ; i <= EV_THREAD; i++)
		lh_hist_clear_triggers(inst, event_names[i].system, event_names[i].name);
	if (remove)
		ret = lh_state_instance_remove(inst, name);
	tracefs_instance_free(inst);
	return ret;
}

static int remove_stale_instance(const char *name)
{
	return stop_stale_instance(name, true);
}

/* Best effort: the removal after says what could not go. */
static int stop_only(const char *name)
{
	stop_stale_instance(name, false);
	return 0;
}

int lh_noisetrace_remove_stale(struct lh_diag *diag)
{
	return lh_state_remove_stale_instances(LH_NOISETRACE_PREFIX, remove_stale_instance, diag);
}

void lh_noisetrace_stop_stale(void)
{
	struct lh_diag d = { 0 };

	/* the walk over the stale instances, with a visit that keeps them */
	lh_state_remove_stale_instances(LH_NOISETRACE_PREFIX, stop_only, &d);
	lh_diag_release(&d);
}
