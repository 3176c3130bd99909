// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorder's real kernel: struct lh_recorder_ops over the tracefs session (session.c),
 * the watch on tracing_max_latency (capture.c), lathound's IRQ instance (irqtrace.c) and
 * its histograms (hist.c),
 * with the monotonic and wall clocks, waiting in ppoll() on the watch and the caller's fd.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tracefs.h>

#include "capture.h"
#include "hist.h"
#include "irqtrace.h"
#include "noisetrace.h"
#include "recorder.h"

struct lh_recorder_tracefs {
	struct lh_session	*session;
	struct lh_noisetrace	*noise;		/* the sampling tracers' instance; NULL: none */
	struct lh_record	*spike;		/* a spike as a record, reused */
	lh_record_fn		feed;		/* during tfs_sample_read() */
	bool			top_armed;	/* a latency tracer was armed (top level) */
	bool			osnoise_armed;	/* osnoise was armed: its CPUs are measured */
	void			*feed_arg;
	struct lh_irqtrace	*irqtrace;
	struct lh_capture	*capture;
	struct lh_hist		*hist;
	unsigned int		hist_asked;
	char			*hist_failed;	/* why none could be created */
	int			event_fd;
	unsigned long		kicked;		/* notifications when the drains last polled anew */
};

static uint64_t tfs_now(void *ctx)
{
	return lh_now_ns();
}

static uint64_t tfs_wall(void *ctx)
{
	return lh_wall_ns();
}

/*
 * Waits on the watch and the caller's fd; a drained live buffer (lh_session_drain_fd()) that
 * fills meanwhile is read and the wait goes on, until the deadline. A drain that polls ready
 * but gives nothing (drain.c refuses a buffer that does so when empty) is left out of the
 * rest of this wait, so that it cannot keep the wait spinning. After a new maximum, the
 * drains' threads poll their buffers anew first (drain.h: its section swapped one away).
 */
static int tfs_wait(void *ctx, uint64_t deadline)
{
	struct lh_recorder_tracefs *t = ctx;
	struct pollfd p[3] = {
		{ .fd = t->capture ? lh_capture_fd(t->capture) : -1, .events = POLLIN },
		{ .fd = t->event_fd, .events = POLLIN },
		{ .fd = lh_session_drain_fd(t->session), .events = POLLIN },
	};
	unsigned long seen = t->capture ? lh_capture_counts(t->capture)->notifications : 0;
	int n, wake;

	if (seen != t->kicked) {
		t->kicked = seen;
		lh_session_drain_kick(t->session);
	}
	do {
		uint64_t now = lh_now_ns(), wait = deadline > now ? deadline - now : 0;
		struct timespec ts = { .tv_sec = (time_t)(wait / 1000000000ULL),
				       .tv_nsec = (long)(wait % 1000000000ULL) };

		n = ppoll(p, 3, deadline == UINT64_MAX ? NULL : &ts, NULL);
		if (n < 0)
			return errno == EINTR ? 0 : -1;
		wake = (p[0].revents & POLLIN ? LH_RECORDER_WAKE_NOTIFY : 0) |
		       (p[1].revents ? LH_RECORDER_WAKE_EVENT : 0);
		if (p[2].revents) {
			long got = lh_session_drain(t->session, p[2].revents);

			/* -1 once it failed */
			p[2].fd = got ? lh_session_drain_fd(t->session) : -1;
		}
	} while (n && !wake && lh_now_ns() < deadline);
	return wake;
}

static int tfs_arm(void *ctx, enum lh_tracer tracer, uint64_t max_us, struct lh_diag *diag)
{
	struct lh_recorder_tracefs *t = ctx;

	/* One tracer armed at a time: the other kind is disarmed first. */
	if (lh_tracer_is_sampling(tracer)) {
		/*
		 * Only when a latency tracer was armed: setting even nop in the top level
		 * expands its buffer (buffer_size_kb), which a run of timerlat alone leaves be.
		 */
		if (t->top_armed && lh_session_disarm(t->session, diag))
			return -1;
		t->top_armed = false;
		t->osnoise_armed |= tracer == LH_TRACER_OSNOISE;
		return lh_noisetrace_arm(t->noise, tracer, max_us * 1000, diag);
	}
	if (t->noise && lh_noisetrace_disarm(t->noise, diag))
		return -1;
	t->top_armed = true;
	if (lh_session_arm(t->session, tracer, max_us, diag))
		return -1;
	lh_capture_rearm(t->capture, max_us, lh_session_live_reads(t->session));
	return 0;
}

/* A spike of the breakdown: as a record, to the feed of the read in progress. */
static int tfs_on_spike(const struct lh_noise_spike *s, void *arg)
{
	struct lh_recorder_tracefs *t = arg;

	if (!t->feed)
		return 0;
	lh_record_reset(t->spike);
	lh_noise_spike_record(s, t->spike);
	return t->feed(t->spike, t->feed_arg);
}

static long tfs_sample_read(void *ctx, bool final, lh_record_fn feed, void *arg,
			    struct lh_diag *diag)
{
	struct lh_recorder_tracefs *t = ctx;
	long ret;

	t->feed = feed;
	t->feed_arg = arg;
	ret = lh_noisetrace_read(t->noise, final, diag);
	t->feed = NULL;
	return ret;
}

/* The sources the kernel counted on rn's CPU, into rn (bounded: report.h keeps the top). */
static void sample_sources(const struct lh_hist_data *src, struct lh_report_noise *rn)
{
	size_t i;

	rn->has_sources = true;
	for (i = 0; i < src->nr_sources; i++) {
		const struct lh_hist_source *e = &src->sources[i];
		struct lh_report_source rs = { .kind = e->kind, .count = e->count,
					       .noise_ns = e->sum_ns };
		const char *sirq;

		if (e->cpu != rn->cpu)
			continue;
		if (e->kind == LH_SPIKE_SOFTIRQ) {
			sirq = lh_noise_softirq_name(e->vector);
			if (sirq)
				snprintf(rs.name, sizeof(rs.name), "%s", sirq);
			else
				snprintf(rs.name, sizeof(rs.name), "%d", e->vector);
		} else {
			snprintf(rs.name, sizeof(rs.name), "%s", e->name);
		}
		lh_report_noise_add_source(rn, &rs);
	}
}

/*
 * Once osnoise was armed, each CPU of its set (and any other that sent a period) with its
 * periods, runtime, noise, longest single noise, hardware noise and sources: a CPU of the
 * set without a period is said too, with none.
 */
static void sample_noise(const struct lh_noisetrace *nt, struct lh_report *rep)
{
	const struct lh_noise *n = lh_noisetrace_noise(nt);
	const struct lh_hist_data *src = lh_noisetrace_sources(nt, NULL);
	int cpu;

	for (cpu = 0; cpu < lh_noise_nr_cpus(n); cpu++) {
		const struct lh_histogram *h = lh_noise_histogram(n, cpu, LH_NOISE_HIST_OSNOISE);
		struct lh_report_noise rn = {
			.cpu = cpu,
			.periods = h->count,
			.max_single_ns = h->count ? h->max_ns : 0,
			.hw_count = lh_noise_cpu_hw(n, cpu),
		};

		lh_noise_cpu_time(n, cpu, &rn.runtime_ns, &rn.noise_ns);
		if (src)
			sample_sources(src, &rn);
		if (rn.periods || lh_noise_cpu_expected(n, cpu))
			lh_report_set_noise(rep, &rn);
	}
	if (src)
		lh_report_set_noise_dropped(rep, src->dropped);
}

/* Per CPU and over all CPUs, each kind that counted a sample. */
static void tfs_sample_hist(void *ctx, struct lh_report *rep)
{
	struct lh_recorder_tracefs *t = ctx;
	const struct lh_noise *n;
	int h, cpu;

	if (!t->noise)
		return;
	n = lh_noisetrace_noise(t->noise);
	if (t->osnoise_armed)
		sample_noise(t->noise, rep);
	for (h = 0; h < LH_NOISE_HIST_NR; h++) {
		struct lh_histogram all = { 0 };

		for (cpu = 0; cpu < lh_noise_nr_cpus(n); cpu++) {
			const struct lh_histogram *one = lh_noise_histogram(n, cpu, h);

			if (!one->count)
				continue;
			lh_report_set_histogram(rep, lh_noise_hist_name(h), cpu, one);
			lh_histogram_merge(&all, one);	/* one bucket scheme: cannot overlap */
		}
		if (all.count)
			lh_report_set_histogram(rep, lh_noise_hist_name(h), -1, &all);
		lh_histogram_release(&all);
	}
}

static uint64_t tfs_sample_lost(void *ctx)
{
	struct lh_recorder_tracefs *t = ctx;

	return t->noise ? lh_noisetrace_lost(t->noise) : 0;
}

static long tfs_pending(void *ctx, struct lh_diag *diag)
{
	return lh_capture_pending(((struct lh_recorder_tracefs *)ctx)->capture, diag);
}

static int tfs_read(void *ctx, char **buf, size_t *alloc, size_t *len, bool final,
		    struct lh_diag *diag)
{
	return lh_capture_read(((struct lh_recorder_tracefs *)ctx)->capture, buf, alloc, len,
			       final, diag);
}

static uint64_t tfs_paused_ns(void *ctx)
{
	return lh_capture_counts(((struct lh_recorder_tracefs *)ctx)->capture)->paused_ns;
}

static unsigned long tfs_torn(void *ctx)
{
	return lh_capture_counts(((struct lh_recorder_tracefs *)ctx)->capture)->torn;
}

static void tfs_captured(void *ctx)
{
	lh_capture_captured(((struct lh_recorder_tracefs *)ctx)->capture);
}

static unsigned long tfs_notifications(void *ctx)
{
	return lh_capture_counts(((struct lh_recorder_tracefs *)ctx)->capture)->notifications;
}

static uint64_t tfs_poll_interval(void *ctx)
{
	return lh_capture_poll_interval(((struct lh_recorder_tracefs *)ctx)->capture);
}

static long tfs_irq_read(void *ctx, bool sync_lost, struct lh_diag *diag)
{
	return lh_irqtrace_read(((struct lh_recorder_tracefs *)ctx)->irqtrace, sync_lost, diag);
}

static uint64_t tfs_irq_interval(void *ctx, uint64_t min_ns, uint64_t max_ns)
{
	return lh_irqtrace_interval(((struct lh_recorder_tracefs *)ctx)->irqtrace, min_ns,
				    max_ns);
}

static int tfs_hist_read(void *ctx, enum lh_hist_kind k, struct lh_hist_data *d,
			 struct lh_diag *diag)
{
	return lh_hist_read(((struct lh_recorder_tracefs *)ctx)->hist, k, d, diag);
}

const struct lh_recorder_ops lh_recorder_tracefs_ops = {
	.now		= tfs_now,
	.wall		= tfs_wall,
	.wait		= tfs_wait,
	.arm		= tfs_arm,
	.pending	= tfs_pending,
	.read		= tfs_read,
	.paused_ns	= tfs_paused_ns,
	.torn		= tfs_torn,
	.captured	= tfs_captured,
	.notifications	= tfs_notifications,
	.poll_interval	= tfs_poll_interval,
	.irq_read	= tfs_irq_read,
	.irq_interval	= tfs_irq_interval,
	.hist_read	= tfs_hist_read,
	.sample_read	= tfs_sample_read,
	.sample_hist	= tfs_sample_hist,
	.sample_lost	= tfs_sample_lost,
};

/*
 * Watches tracing_max_latency; 'trace' and options/pause-on-trace live next to it, in the
 * top-level instance.
 */
static int capture_open(struct lh_recorder_tracefs *t, const struct lh_recorder_tracefs_opts *o,
			struct lh_diag *diag)
{
	const char *max = lh_session_max_latency_path(t->session);
	const char *slash = strrchr(max, '/');
	struct lh_capture_opts co = {
		.max_latency = max, .threshold = o->session.threshold_ns != 0, .poll = o->poll,
	};
	char *trace, *pause;
	int ret;

	trace = lh_xasprintf("%.*strace", slash ? (int)(slash - max + 1) : 0, max);
	pause = lh_xasprintf("%.*soptions/pause-on-trace", slash ? (int)(slash - max + 1) : 0,
			     max);
	co.trace = trace;
	co.pause = pause;
	ret = lh_capture_open(&t->capture, &co, diag);
	free(trace);
	free(pause);
	return ret;
}

/* The IRQ instance; with tracers, a run goes on without it. Return: 0, or -1. */
static int irqtrace_create(struct lh_recorder_tracefs *t,
			   const struct lh_recorder_tracefs_opts *o, struct lh_diag *diag)
{
	struct lh_diag d = { 0 };
	size_t i;

	/* A run killed with SIGKILL left its instance; with the lock held, none is live. */
	if (lh_irqtrace_remove_stale(diag) > 0)
		lh_diag_add(diag, LH_DIAG_WARNING,
			    "removed the tracefs instance of a lathound that was killed");
	if (!lh_irqtrace_create(&t->irqtrace, o->irqstat, &d))
		return 0;
	if (o->session.no_tracer) {
		for (i = 0; i < d.nr; i++)
			lh_diag_add(diag, d.msgs[i].level, "%s", d.msgs[i].text);
		lh_diag_release(&d);
		return -1;
	}
	/* The latency sections matter more than the statistics. */
	lh_diag_add(diag, LH_DIAG_WARNING, "%s; IRQ handler statistics are not collected",
		    d.nr ? d.msgs[0].text : "cannot create the IRQ event instance");
	lh_diag_release(&d);
	return 0;
}

/*
 * The histograms; without hist_required a run goes on without them (the report says why).
 * Return: 0, or -1.
 */
static int hist_create(struct lh_recorder_tracefs *t, const struct lh_recorder_tracefs_opts *o,
		       struct lh_diag *diag)
{
	struct lh_diag d = { 0 };
	struct lh_hist_opts ho;
	int k;

	/* A run killed with SIGKILL left its histograms; with the lock held, none is live. */
	if (lh_hist_supported(NULL) && lh_hist_remove_stale(diag) > 0)
		lh_diag_add(diag, LH_DIAG_WARNING,
			    "removed the histograms of a lathound that was killed");
	t->hist_asked = o->hist.kinds;
	if (o->hist_default)
		t->hist_asked &= lh_hist_supported(NULL);
	if (!t->hist_asked)
		return 0;
	for (k = 0; k < LH_HIST_NR && o->hist_required; k++) {
		const char *why = o->hist.kinds & (1u << k) ? lh_hist_unsupported(k) : NULL;

		if (why) {
			lh_diag_add(diag, LH_DIAG_ERROR, "this kernel cannot count the %s histogram: %s",
				    lh_hist_kind_name(k), why);
			return -1;
		}
	}
	if (!lh_hist_supported(NULL))
		return 0;	/* lh_recorder_tracefs_hist() says why */
	ho = o->hist;
	ho.kinds = t->hist_asked;
	if (!lh_hist_create(&t->hist, &ho, &d))
		return 0;
	if (o->hist_required) {
		for (k = 0; (size_t)k < d.nr; k++)
			lh_diag_add(diag, d.msgs[k].level, "%s", d.msgs[k].text);
		lh_diag_release(&d);
		return -1;
	}
	t->hist_failed = lh_xstrdup(d.nr ? d.msgs[0].text : "cannot create the histograms");
	lh_diag_add(diag, LH_DIAG_WARNING, "%s; latency histograms are not counted",
		    t->hist_failed);
	lh_diag_release(&d);
	return 0;
}

/* The sampling tracers' instance, when one of them is to run. Return: 0, or -1. */
static int noise_create(struct lh_recorder_tracefs *t, const struct lh_recorder_tracefs_opts *o,
			struct lh_diag *diag)
{
	static const struct {
		enum lh_hist_kind	kind;
		enum lh_tracer		tracer;
	} sections[] = {
		{ LH_HIST_IRQSOFF, LH_TRACER_IRQSOFF }, { LH_HIST_PREEMPTOFF, LH_TRACER_PREEMPTOFF },
	};
	size_t i;

	if (!(lh_session_tracers(t->session) & lh_tracer_sampling_mask()))
		return 0;
	t->spike = lh_record_alloc();
	if (lh_noisetrace_create(&t->noise, &o->noise, tfs_on_spike, t, diag))
		return -1;
	/* The sections the histograms count: a spike says the one behind it. */
	for (i = 0; i < LH_ARRAY_SIZE(sections); i++) {
		const char *synth = lh_hist_synth(t->hist, sections[i].kind);
		struct lh_diag d = { 0 };

		if (synth && lh_noisetrace_watch(t->noise, sections[i].tracer, synth,
						 lh_hist_ksyms(t->hist), &d))
			lh_diag_add(diag, LH_DIAG_WARNING,
				    "%s; spikes do not say which %s section overlapped them",
				    d.nr ? d.msgs[0].text : "cannot watch the sections",
				    lh_tracer_name(sections[i].tracer));
		lh_diag_release(&d);
	}
	return 0;
}

/*
 * A run killed with SIGKILL left its timerlat/osnoise instance, its tracer still running,
 * and in it the histograms' section events enabled: it goes before the histograms do.
 */
static int noise_remove_stale(struct lh_diag *diag)
{
	if (lh_noisetrace_remove_stale(diag) > 0)
		lh_diag_add(diag, LH_DIAG_WARNING,
			    "removed the timerlat/osnoise instance of a lathound that was killed");
	return 0;
}

int lh_recorder_tracefs_create(struct lh_recorder_tracefs **tp,
			       const struct lh_recorder_tracefs_opts *o, struct lh_diag *diag)
{
	struct lh_recorder_tracefs *t = lh_xcalloc(1, sizeof(*t));

	*tp = NULL;
	t->event_fd = o->event_fd;
	if (o->tracefs && tracefs_set_tracing_dir((char *)o->tracefs)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot use '%s' as tracefs: %s", o->tracefs,
			    strerror(errno));
		free(t);
		return -1;
	}
	if (lh_session_create(&t->session, &o->session, diag)) {
		free(t);
		return -1;
	}
	if (irqtrace_create(t, o, diag) || noise_remove_stale(diag) || hist_create(t, o, diag) ||
	    noise_create(t, o, diag) ||
	    (!o->session.no_tracer && capture_open(t, o, diag))) {
		lh_recorder_tracefs_destroy(t, diag);
		return -1;
	}
	*tp = t;
	return 0;
}

int lh_recorder_tracefs_destroy(struct lh_recorder_tracefs *t, struct lh_diag *diag)
{
	int ret = 0;

	if (!t)
		return 0;
	lh_capture_close(t->capture);
	if (lh_noisetrace_destroy(t->noise, diag))
		ret = -1;
	lh_record_free(t->spike);
	if (lh_hist_destroy(t->hist, diag))
		ret = -1;
	free(t->hist_failed);
	if (lh_irqtrace_destroy(t->irqtrace, diag))
		ret = -1;
	if (lh_session_destroy(t->session, diag))
		ret = -1;
	free(t);
	return ret;
}

unsigned int lh_recorder_tracefs_tracers(const struct lh_recorder_tracefs *t)
{
	return lh_session_tracers(t->session);
}

bool lh_recorder_tracefs_irq_stats(const struct lh_recorder_tracefs *t)
{
	return t->irqtrace != NULL;
}

const char *lh_recorder_tracefs_method(const struct lh_recorder_tracefs *t)
{
	return t->capture ? lh_capture_method(t->capture) : NULL;
}

unsigned int lh_recorder_tracefs_hist(const struct lh_recorder_tracefs *t,
				      const char *why_not[LH_HIST_NR])
{
	unsigned int have = lh_hist_kinds(t->hist);
	int k;

	for (k = 0; k < LH_HIST_NR; k++) {
		why_not[k] = NULL;
		if (!(t->hist_asked & (1u << k)) || (have & (1u << k)))
			continue;
		why_not[k] = t->hist_failed ? t->hist_failed : lh_hist_unsupported(k);
		if (!why_not[k])
			why_not[k] = "not created";
	}
	return have;
}
