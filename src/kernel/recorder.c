// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run engine of 'lathound record', over struct lh_recorder_ops: tracer slices, the
 * deadlines of one loop (snapshot read, IRQ read, slice, checkpoint, status, end), captures
 * and their loss accounting per tracer, and what the run could not measure.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder.h"
#include "report/metrics.h"
#include "trace/parse.h"
#include "util/lockfile.h"

struct lh_recorder {
	const struct lh_recorder_ops	*ops;
	void				*ctx;
	struct lh_recorder_hooks	hooks;
	struct lh_recorder_opts		o;
	struct lh_gate			gate;
	struct lh_report		*report;
	struct lh_parser		*parser;
	struct lh_diag			notes;		/* for the report, moved at each update */
	struct lh_parse_stats		parse_added;	/* parser counters already in the report */
	struct lh_run_info		info;
	struct lh_recorder_stats	st;
	struct lh_hist_report		hist;		/* the report borrows it */

	char				*trace;		/* the last snapshot read, reused */
	size_t				trace_alloc;
	uint64_t			take_at;	/* when to read a notified snapshot */
	uint64_t			take_delay;	/* from the notification to the read */
	unsigned long			counted;	/* ops->notifications() accounted */
	uint64_t			armed_since;
	unsigned long			seq;		/* captures, for snapshot names */

	bool				started;
	bool				ended;
	enum lh_recorder_end		end;
	bool				stopped;
	bool				failed;
	bool				checkpoint_failing;
	bool				metrics_failing;
	bool				snapshot_failing;
	bool				irq_failing;
	bool				sample_failing;
	uint64_t			sample_lost;	/* ops->sample_lost() accounted */
	bool				hist_failing[LH_HIST_NR];
	bool				hist_dropped_said[LH_HIST_NR];
};

static void __attribute__((format(printf, 3, 4)))
say(struct lh_recorder *r, enum lh_recorder_say level, const char *fmt, ...)
{
	va_list ap;
	char *text;

	if (!r->hooks.message)
		return;
	va_start(ap, fmt);
	text = lh_xvasprintf(fmt, ap);
	va_end(ap);
	r->hooks.message(r->hooks.arg, level, text);
	free(text);
}

/* Return: whether the report's notes hold text already. */
static bool noted(const struct lh_recorder *r, const char *text)
{
	size_t i;

	for (i = 0; i < r->notes.nr; i++)
		if (!strcmp(r->notes.msgs[i].text, text))
			return true;
	return false;
}

/* Moves d's messages to the report's notes, then empties d. */
static void note_diag(struct lh_recorder *r, struct lh_diag *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		lh_diag_add(&r->notes, d->msgs[i].level, "%s", d->msgs[i].text);
	lh_diag_release(d);
}

void lh_recorder_fail(struct lh_recorder *r, const char *why)
{
	r->failed = true;
	lh_report_set_error(r->report, why);
}

/* An error that ends the run: said, in the report's notes and its verdict. d is emptied. */
static int run_error(struct lh_recorder *r, struct lh_diag *d)
{
	const char *why = NULL;
	size_t i;

	for (i = 0; i < d->nr; i++) {
		bool error = d->msgs[i].level == LH_DIAG_ERROR;

		say(r, error ? LH_RECORDER_ERROR : LH_RECORDER_WARNING, "%s", d->msgs[i].text);
		if (error && !why)
			why = d->msgs[i].text;
	}
	lh_recorder_fail(r, why ? why : "the run failed");
	note_diag(r, d);
	return -1;
}

/* Return: the next deadline of something done every ns (now + ns); never when ns is 0. */
static uint64_t every(uint64_t now, uint64_t ns)
{
	return ns ? now + ns : UINT64_MAX;
}

/* lost: notifications not matched by a capture, per tracer. */
static void account_lost(struct lh_recorder *r)
{
	const struct lh_recorder_tracer *t;
	unsigned long lost = 0;

	for (t = r->st.tracer; t < r->st.tracer + LH_TRACER_NR; t++)
		if (t->notifications > t->captures)
			lost += t->notifications - t->captures;
	r->st.lost = lost;
}

/* Adds the notifications counted since last time to the armed tracer's. */
static void account_notified(struct lh_recorder *r)
{
	unsigned long n = r->ops->notifications(r->ctx), delta = n - r->counted;

	r->counted = n;
	r->st.notifications += delta;
	r->st.tracer[r->st.armed].notifications += delta;
	account_lost(r);
}

/* Adds the time the armed tracer has been armed since last time to its total. */
static void account_armed(struct lh_recorder *r)
{
	uint64_t now = r->ops->now(r->ctx);

	if (r->st.armed)
		r->st.tracer[r->st.armed].armed_ns += now - r->armed_since;
	r->armed_since = now;
}

/* Counts the sections notified; the first one schedules a read. Return: 0, or -1 (said). */
static int notice(struct lh_recorder *r)
{
	struct lh_diag d = { 0 };
	long n = r->ops->pending(r->ctx, &d);

	account_notified(r);
	if (n < 0)
		return run_error(r, &d);
	if (n > 0 && r->take_at == UINT64_MAX) {
		r->take_at = r->ops->now(r->ctx) + r->take_delay;
	}
	return 0;
}

struct capture_ctx {
	struct lh_recorder	*r;
	uint64_t		captured_ns;
	unsigned long		found;
	uint64_t		latency_us;	/* of the longest record in the snapshot */
	enum lh_tracer		tracer;
	uint64_t		signature;
	bool			start_lost;	/* a record began past its section's start */
};

static int on_record(struct lh_record *rec, void *arg)
{
	struct capture_ctx *c = arg;

	rec->captured_ns = c->captured_ns;
	if (!c->found || rec->latency_us > c->latency_us) {
		c->latency_us = rec->latency_us;
		c->tracer = rec->tracer;
		c->signature = lh_record_signature_hash(rec);
	}
	c->start_lost |= rec->start_lost_us != 0;
	c->found++;
	return lh_report_feed(rec, c->r->report);
}

/* Stores the raw snapshot of a capture; a failing streak is said once. */
static void keep_snapshot(struct lh_recorder *r, const struct capture_ctx *c, const char *source,
			  size_t len, bool rule_hit)
{
	struct lh_snapshot_meta meta;
	struct lh_diag d = { 0 };
	char name[96];
	int ret;

	snprintf(name, sizeof(name), "%s-%s-%lluus.trace", source, lh_tracer_name(c->tracer),
		 (unsigned long long)c->latency_us);
	meta = (struct lh_snapshot_meta){
		.name = name, .signature = c->signature, .latency_us = c->latency_us,
		.rule_hit = rule_hit,
	};
	ret = lh_output_snapshot(r->o.out, &meta, r->trace, len, &d);
	if (ret < 0) {
		if (!r->snapshot_failing)
			say(r, LH_RECORDER_WARNING,
			    "%s; raw snapshots are not kept until writing works again (counted as dropped)",
			    d.nr ? d.msgs[0].text : "cannot write a raw snapshot");
		r->snapshot_failing = true;
	} else if (ret > 0) {
		r->snapshot_failing = false;
	}
	note_diag(r, &d);
}

/* Return: a clock that runs only while reads pause tracing (all of them, without the op). */
static uint64_t paused_clock(struct lh_recorder *r)
{
	return r->ops->paused_ns ? r->ops->paused_ns(r->ctx) : r->ops->now(r->ctx);
}

/*
 * The captures with a cut body listed in the report, each as an input not read in full (more
 * are counted in stats and in the report's incomplete bodies, not listed: memory stays
 * bounded in a soak).
 */
#define CUT_LISTED	100

/*
 * A capture whose body is cut (lathound's record cap, fewer entries than its header
 * declares, a start the ring buffer lost) was judged on part of its section: the rules and
 * gates cannot have seen the rest. It is an input not read in full, which makes the verdict
 * an error (as in analyze), said once as it happens; a lost start with the option that
 * keeps such a section whole.
 */
static void cut_capture(struct lh_recorder *r, const char *source, const struct capture_ctx *c)
{
	struct lh_report_input in = { .name = source, .snapshots = c->found };
	char *why;

	if (r->st.cut++ >= CUT_LISTED)
		return;
	why = lh_xasprintf("capture '%s': snapshot cut, read in part (%s)%s", source,
			   lh_parser_first_cut(r->parser) ?: "?",
			   c->start_lost ? "; a larger --buffer-size keeps such a section whole" : "");
	if (r->st.cut == 1)
		say(r, LH_RECORDER_ERROR, "%s", why);
	in.problem = why;
	lh_report_add_input(r->report, &in);
	free(why);
}

/*
 * Reads the snapshot; a section not read before is parsed, matched, added to the report and
 * stored. With final (the end of a run or of a slice), a section whose notification is still
 * on its way is taken too. A read that pauses tracing leaves the armed tracer blind while
 * it lasts; a live one does not (a section that replaces the snapshot meanwhile is read
 * instead, and the one it replaced is lost, counted torn).
 */
static void take(struct lh_recorder *r, bool final)
{
	uint64_t since = paused_clock(r);
	struct lh_recorder_tracer *tr = &r->st.tracer[r->st.armed];
	struct capture_ctx c = { .r = r };
	struct lh_diag d = { 0 };
	unsigned long hits_before, cut_before;
	char source[32];
	size_t len;
	int ret;

	r->take_at = UINT64_MAX;
	ret = r->ops->read(r->ctx, &r->trace, &r->trace_alloc, &len, final, &d);
	tr->blind_ns += paused_clock(r) - since;
	if (r->ops->torn)
		r->st.torn = r->ops->torn(r->ctx);
	account_notified(r);
	if (ret < 0) {
		/* Said once; the run goes on, every failure is listed in the report. */
		if (!r->st.read_errors++)
			say(r, LH_RECORDER_WARNING, "%s",
			    d.nr ? d.msgs[0].text : "cannot read the snapshot");
		note_diag(r, &d);
		return;
	}
	if (!ret) {
		r->st.stale++;
		return;
	}
	r->seq++;
	snprintf(source, sizeof(source), "capture-%06lu", r->seq);
	c.captured_ns = r->ops->wall(r->ctx);
	hits_before = lh_report_rule_hits(r->report);
	cut_before = lh_parser_stats(r->parser)->cut;
	lh_parse_buffer(r->parser, source, r->trace, len, on_record, &c);
	if (!c.found)
		return;		/* a snapshot without a section (a buffer just reset) */
	if (lh_parser_stats(r->parser)->cut != cut_before)
		cut_capture(r, source, &c);
	r->ops->captured(r->ctx);
	r->st.captures++;
	tr->captures++;
	if (c.latency_us > tr->max_us)
		tr->max_us = c.latency_us;
	account_lost(r);
	keep_snapshot(r, &c, source, len, lh_report_rule_hits(r->report) > hits_before);
}

/* A spike of the armed sampling tracer: a capture, added to the report. */
static int on_sample(struct lh_record *rec, void *arg)
{
	struct lh_recorder *r = arg;
	struct lh_recorder_tracer *tr = &r->st.tracer[r->st.armed];

	rec->captured_ns = r->ops->wall(r->ctx);
	rec->source = "<tracefs>";
	tr->notifications++;
	tr->captures++;
	r->st.notifications++;
	r->st.captures++;
	if (rec->latency_us > tr->max_us)
		tr->max_us = rec->latency_us;
	return lh_report_feed(rec, r->report);
}

/*
 * Reads the armed sampling tracer's events; what its ring buffers lost counts as lost
 * sections of it (a lost sample may have been a spike), said once.
 */
static void sample(struct lh_recorder *r, bool final)
{
	struct lh_diag d = { 0 };
	uint64_t lost;

	if (!lh_tracer_is_sampling(r->st.armed))
		return;
	if (r->ops->sample_read(r->ctx, final, on_sample, r, &d) < 0) {
		if (!r->sample_failing)
			say(r, LH_RECORDER_WARNING, "%s",
			    d.nr ? d.msgs[0].text : "cannot read the samples");
		r->sample_failing = true;
		r->st.read_errors++;
		note_diag(r, &d);
		return;
	}
	r->sample_failing = false;
	note_diag(r, &d);	/* what a read that worked warns of: the report's */
	lost = r->ops->sample_lost(r->ctx);
	if (lost > r->sample_lost) {
		if (!r->sample_lost)
			say(r, LH_RECORDER_WARNING,
			    "the %s ring buffer lost events: samples are missing (counted as lost)",
			    lh_tracer_name(r->st.armed));
		r->st.tracer[r->st.armed].notifications += (unsigned long)(lost - r->sample_lost);
		r->sample_lost = lost;
	}
	account_lost(r);
}

/* Everything recorded up to now: the end of a run or of a slice. Return: 0, or -1 (said). */
static int take_all(struct lh_recorder *r)
{
	if (lh_tracer_is_sampling(r->st.armed)) {
		sample(r, true);
		return 0;
	}
	if (notice(r))
		return -1;
	take(r, true);
	return 0;
}

/*
 * Arms tracer t: the one place a tracer is (re)armed. Without a threshold it continues from
 * the longest section it captured in this run, as if it had never been disarmed: a slice
 * does not start with a burst of small maxima, and only a section longer than the run's
 * worst is recorded. Return: 0, or -1 (said).
 */
static int arm(struct lh_recorder *r, enum lh_tracer t)
{
	uint64_t max_us = r->o.threshold_ns ? 0 : r->st.tracer[t].max_us;
	struct lh_diag d = { 0 };
	size_t i;

	account_armed(r);
	r->st.armed = LH_TRACER_UNKNOWN;
	if (r->ops->arm(r->ctx, t, max_us, &d))
		return run_error(r, &d);
	/*
	 * What arming could not do and the run goes on without (osnoise's sources, a drain):
	 * said as it happens the first time, in the report's notes every time. Once the notes
	 * are full (LH_DIAG_KEEP) they cannot tell what was said: then only a tracer's first
	 * arm says its warnings, not every slice of a rotating run.
	 */
	for (i = 0; i < d.nr; i++)
		if (!noted(r, d.msgs[i].text) &&
		    (!r->st.tracer[t].arms || r->notes.nr < LH_DIAG_KEEP))
			say(r, LH_RECORDER_WARNING, "%s", d.msgs[i].text);
	note_diag(r, &d);
	r->st.armed = t;
	r->st.tracer[t].arms++;
	r->armed_since = r->ops->now(r->ctx);
	return 0;
}

/* Return: the tracer after cur in the run's, cycling (cur itself when it is the only one). */
static enum lh_tracer next_tracer(const struct lh_recorder *r, enum lh_tracer cur)
{
	int i, t;

	for (i = 1; i <= LH_TRACER_NR; i++) {
		t = ((int)cur + i) % LH_TRACER_NR;
		if (t && (r->o.tracers & (1u << t)))
			return t;
	}
	return cur;
}

static void irq_read(struct lh_recorder *r, bool sync_lost)
{
	struct lh_diag d = { 0 };

	if (!r->o.irqstat)
		return;
	if (r->ops->irq_read(r->ctx, sync_lost, &d) < 0) {
		if (!r->irq_failing)
			say(r, LH_RECORDER_WARNING, "%s",
			    d.nr ? d.msgs[0].text : "cannot read the IRQ events");
		r->irq_failing = true;
		note_diag(r, &d);
	} else {
		r->irq_failing = false;
	}
	lh_diag_release(&d);
}

/*
 * Gives the report what kind k held when last read, over all CPUs and per CPU that counted
 * a section (the histograms set before stay when a CPU has none now: it cannot lose counts).
 */
static void hist_report(struct lh_recorder *r, enum lh_hist_kind k)
{
	const struct lh_hist_data *d = &r->hist.data[k];
	struct lh_report_caller c[LH_HIST_TOP_CALLERS];
	struct lh_histogram h = { 0 };
	size_t i;
	int cpu;

	for (cpu = -1; cpu < lh_hist_nr_cpus(d); cpu++) {
		if (lh_hist_histogram(d, cpu, &h))
			lh_diag_add(&r->notes, LH_DIAG_ERROR,
				    "the %s histogram's buckets overlap: not reported",
				    lh_hist_kind_name(k));
		else if (cpu < 0 || h.count)
			lh_report_set_histogram(r->report, lh_hist_kind_name(k), cpu, &h);
	}
	lh_histogram_release(&h);
	if (!d->caller_tables)
		return;
	for (i = 0; i < d->nr_callers && i < LH_ARRAY_SIZE(c); i++) {
		c[i].symbol = d->callers[i].symbol;
		c[i].count = d->callers[i].count;
		c[i].max_ns = d->callers[i].max_ns;
	}
	lh_report_set_callers(r->report, lh_hist_kind_name(k), c, i, d->callers_note);
}

/*
 * Reads every histogram: a failed read keeps the last good one (the report says when it was
 * read, and why the next was not), said once per streak; sections the kernel dropped are
 * said once per kind.
 */
static void hist_read(struct lh_recorder *r)
{
	struct lh_hist_report *h = &r->hist;
	struct lh_hist_data d = { 0 };
	int k;

	if (r->ops->sample_hist)
		r->ops->sample_hist(r->ctx, r->report);

	for (k = 0; k < LH_HIST_NR; k++) {
		struct lh_diag diag = { 0 };

		if (!(h->kinds & (1u << k)))
			continue;
		if (r->ops->hist_read(r->ctx, k, &d, &diag)) {
			const char *why = diag.nr ? diag.msgs[0].text : "cannot read the histogram";

			if (!r->hist_failing[k])
				say(r, LH_RECORDER_WARNING, "%s", why);
			r->hist_failing[k] = true;
			free(h->error[k]);
			h->error[k] = lh_xstrdup(why);
			note_diag(r, &diag);
			continue;
		}
		lh_diag_release(&diag);
		lh_hist_data_release(&h->data[k]);
		h->data[k] = d;
		memset(&d, 0, sizeof(d));
		hist_report(r, k);
		h->read_ns[k] = r->ops->wall(r->ctx);
		free(h->error[k]);
		h->error[k] = NULL;
		r->hist_failing[k] = false;
		if (h->data[k].dropped && !r->hist_dropped_said[k]) {
			lh_diag_add(&diag, LH_DIAG_WARNING,
				    "the %s histogram dropped %llu sections (its kernel map is full): its counts are incomplete",
				    lh_hist_kind_name(k), (unsigned long long)h->data[k].dropped);
			say(r, LH_RECORDER_WARNING, "%s", diag.msgs[0].text);
			note_diag(r, &diag);
			r->hist_dropped_said[k] = true;
		}
	}
}

/* Brings the report up to date: run info, parser counters and notes added since last time. */
static void report_update(struct lh_recorder *r)
{
	const struct lh_parse_stats *ps = lh_parser_stats(r->parser);
	struct lh_parse_stats delta = {
		.lines = ps->lines - r->parse_added.lines,
		.snapshots = ps->snapshots - r->parse_added.snapshots,
		.skipped = ps->skipped - r->parse_added.skipped,
		.bad_lines = ps->bad_lines - r->parse_added.bad_lines,
		.incomplete = ps->incomplete - r->parse_added.incomplete,
		.cut_lines = ps->cut_lines - r->parse_added.cut_lines,
	};
	struct lh_run_info *i = &r->info;
	int t;

	lh_report_add_parse_stats(r->report, &delta);
	r->parse_added = *ps;
	lh_report_add_diag(r->report, &r->notes);
	lh_diag_release(&r->notes);

	i->ended_ns = r->ops->wall(r->ctx);
	account_armed(r);
	account_lost(r);
	for (t = 0; t < LH_TRACER_NR; t++) {
		i->armed_ns[t] = r->st.tracer[t].armed_ns;
		i->blind_ns[t] = r->st.tracer[t].blind_ns;
	}
	i->captures = r->st.captures;
	i->sections_lost = r->st.lost;
	/* From the stats, not ops: the final report is made once ctx is given back. */
	i->sections_torn = r->st.torn;
	i->snapshots_dropped = lh_output_dropped(r->o.out);
	if (r->o.irqstat)
		lh_irqstat_sort(r->o.irqstat);
	lh_report_set_run(r->report, i);
	lh_report_evaluate(r->report, &r->gate);
}

struct write_ctx {
	struct lh_report	*report;
	enum lh_format		format;
};

static int write_report(FILE *f, void *arg)
{
	const struct write_ctx *w = arg;

	return lh_report_write(w->report, w->format, f);
}

int lh_recorder_write(struct lh_recorder *r, const char *name, enum lh_format f,
		      struct lh_diag *diag)
{
	struct write_ctx w = { .report = r->report, .format = f };

	return lh_output_replace(r->o.out, name, write_report, &w, diag);
}

static int write_metrics(FILE *f, void *arg)
{
	struct lh_recorder *r = arg;
	struct lh_metrics_run m = {
		.tracers = r->o.tracers, .wanted = r->o.wanted, .armed = r->st.armed,
		.running = !r->stopped, .now_ns = r->info.ended_ns,
	};
	int t;

	for (t = 0; t < LH_TRACER_NR; t++) {
		const struct lh_recorder_tracer *tr = &r->st.tracer[t];

		m.captured[t] = tr->captures;
		m.lost[t] = tr->notifications > tr->captures ? tr->notifications - tr->captures : 0;
	}
	return lh_metrics_write(r->report, &m, f);
}

int lh_recorder_write_metrics(struct lh_recorder *r, struct lh_diag *diag)
{
	char *label;
	int ret;

	if (!r->o.metrics)
		return 0;
	label = lh_xasprintf("metrics file '%s'", r->o.metrics);
	ret = lh_lockfile_write_path(r->o.metrics, label, write_metrics, r, diag);
	free(label);
	return ret;
}

/* The metrics of a checkpoint; a failing streak is said once. */
static void checkpoint_metrics(struct lh_recorder *r)
{
	struct lh_diag d = { 0 };

	if (lh_recorder_write_metrics(r, &d)) {
		if (!r->metrics_failing)
			say(r, LH_RECORDER_WARNING,
			    "%s; the metrics are written again at the next checkpoint",
			    d.nr ? d.msgs[0].text : "cannot write the metrics file");
		r->metrics_failing = true;
		note_diag(r, &d);
	} else if (r->metrics_failing) {
		say(r, LH_RECORDER_INFO, "metrics written again to '%s'", r->o.metrics);
		r->metrics_failing = false;
	}
	lh_diag_release(&d);
}

/* The checkpoint: IRQ losses synced, the report brought up to date and rewritten. */
static void checkpoint(struct lh_recorder *r)
{
	struct lh_diag d = { 0 };

	irq_read(r, true);
	hist_read(r);
	report_update(r);
	r->st.checkpoints++;
	/* the page people look at while a soak runs; the JSON is what must not be lost */
	if (lh_recorder_write(r, "report.json", LH_FORMAT_JSON, &d) ||
	    lh_recorder_write(r, "report.html", LH_FORMAT_HTML, &d)) {
		if (!r->checkpoint_failing)
			say(r, LH_RECORDER_WARNING,
			    "%s; the report is kept in memory and written at the next checkpoint",
			    d.nr ? d.msgs[0].text : "cannot write the checkpoint");
		r->checkpoint_failing = true;
		note_diag(r, &d);
	} else if (r->checkpoint_failing) {
		say(r, LH_RECORDER_INFO, "checkpoint written again to '%s/report.json'",
		    lh_output_dir(r->o.out));
		r->checkpoint_failing = false;
	}
	lh_diag_release(&d);
	checkpoint_metrics(r);
}

static enum lh_recorder_end ended_by(struct lh_recorder *r, enum lh_recorder_end e, const char *why)
{
	r->ended = true;
	r->end = e;
	r->info.end_reason = why;
	return e;
}

/* Asks the caller what its event means. Return: true when it ends the run. */
static bool event(struct lh_recorder *r)
{
	const char *why = r->hooks.event ? r->hooks.event(r->hooks.arg) : NULL;

	if (why)
		ended_by(r, LH_RECORDER_END_EVENT, why);
	return why != NULL;
}

static int wait_error(struct lh_recorder *r)
{
	struct lh_diag d = { 0 };

	lh_diag_add(&d, LH_DIAG_ERROR, "cannot wait: %s", strerror(errno));
	return run_error(r, &d);
}

struct lh_recorder *lh_recorder_alloc(const struct lh_recorder_ops *ops, void *ctx,
				      const struct lh_recorder_opts *o,
				      const struct lh_recorder_hooks *hooks)
{
	struct lh_recorder *r = lh_xcalloc(1, sizeof(*r));
	struct lh_report_opts ro = { .keep = o->keep, .diag = &r->notes, .board = o->board };
	int k;

	r->ops = ops;
	r->ctx = ctx;
	if (hooks)
		r->hooks = *hooks;
	r->o = *o;
	if (o->gate)
		r->gate = *o->gate;
	else
		lh_gate_init(&r->gate);
	r->o.gate = &r->gate;
	if (o->info)
		r->info = *o->info;
	r->o.info = &r->info;
	r->info.threshold_ns = o->threshold_ns;
	r->info.irqstat = o->irqstat;
	r->hist.kinds = o->hist_kinds;
	for (k = 0; k < LH_HIST_NR; k++) {
		if (!o->hist_why_not[k] || (o->hist_kinds & (1u << k)))
			continue;
		r->hist.why_not[k] = lh_xstrdup(o->hist_why_not[k]);
		lh_diag_add(&r->notes, LH_DIAG_WARNING, "the %s histogram is not counted: %s",
			    lh_hist_kind_name(k), o->hist_why_not[k]);
	}
	r->report = lh_report_alloc(o->rules, &ro);
	r->parser = lh_parser_alloc(&r->notes);
	r->take_at = UINT64_MAX;
	/*
	 * Every read of a snapshot pauses tracing. Without a threshold, the maxima come in
	 * rising bursts (a workload starting, then its real section): reading the first one at
	 * once would blind the tracer just when the larger one comes, so a read waits
	 * LH_RECORDER_TAKE_DELAY and takes the largest. With a threshold every section counts.
	 */
	r->take_delay = o->threshold_ns ? 0 : LH_RECORDER_TAKE_DELAY;
	return r;
}

void lh_recorder_free(struct lh_recorder *r)
{
	if (!r)
		return;
	lh_parser_free(r->parser);
	lh_report_free(r->report);
	lh_diag_release(&r->notes);
	lh_hist_report_release(&r->hist);
	free(r->trace);
	free(r);
}

int lh_recorder_start(struct lh_recorder *r)
{
	struct lh_diag d = { 0 };

	r->started = true;
	r->st.started = r->ops->now(r->ctx);
	r->armed_since = r->st.started;
	r->info.started_ns = r->ops->wall(r->ctx);
	if (r->o.tracers && arm(r, next_tracer(r, LH_TRACER_UNKNOWN)))
		return -1;
	/* Asked for, the metrics must be writable: found out now, not at the first checkpoint. */
	if (r->o.metrics) {
		report_update(r);
		if (lh_recorder_write_metrics(r, &d))
			return run_error(r, &d);
	}
	return 0;
}

int lh_recorder_settle(struct lh_recorder *r)
{
	uint64_t start = r->ops->now(r->ctx), quiet_since = start, now, deadline;
	int w;

	if (!r->st.armed || r->ended)
		return 0;
	for (;;) {
		unsigned long seen = r->st.notifications;

		now = r->ops->now(r->ctx);
		if (now >= r->take_at)
			take(r, false);
		if (now - quiet_since >= LH_RECORDER_SETTLE_QUIET ||
		    now - start >= LH_RECORDER_SETTLE_MAX)
			break;
		deadline = now + LH_RECORDER_SETTLE_QUIET / 4;
		if (r->take_at < deadline)
			deadline = r->take_at;
		w = r->ops->wait(r->ctx, deadline);
		if (w < 0)
			return wait_error(r);
		if ((w & LH_RECORDER_WAKE_EVENT) && event(r))
			break;
		if (notice(r))
			return -1;
		if (r->st.notifications != seen)
			quiet_since = r->ops->now(r->ctx);
	}
	if (r->take_at != UINT64_MAX)
		take(r, false);
	return 0;
}

bool lh_recorder_ended(const struct lh_recorder *r)
{
	return r->ended;
}

struct deadlines {
	uint64_t	take;
	uint64_t	end;
	uint64_t	checkpoint;
	uint64_t	status;
	uint64_t	irq;
	uint64_t	poll;
	uint64_t	slice;
	uint64_t	sample;
};

static uint64_t earliest(const struct deadlines *dl)
{
	const uint64_t v[] = { dl->take, dl->end, dl->checkpoint, dl->status, dl->irq, dl->poll,
			       dl->slice, dl->sample };
	uint64_t m = UINT64_MAX;
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(v); i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

enum lh_recorder_end lh_recorder_run(struct lh_recorder *r)
{
	const struct lh_recorder_opts *o = &r->o;
	uint64_t now = r->st.started;
	struct deadlines dl = {
		.end = every(now, o->duration_ns),
		.checkpoint = every(now, o->checkpoint_ns),
		.status = every(now, o->status_ns),
		.irq = o->irqstat ? now + LH_RECORDER_IRQ_MAX : UINT64_MAX,
		.poll = o->tracers ? every(now, r->ops->poll_interval(r->ctx)) : UINT64_MAX,
		.slice = __builtin_popcount(o->tracers) > 1 ? now + o->slice_ns : UINT64_MAX,
		/* latency tracers alone: no wakeup for samples */
		.sample = o->tracers & lh_tracer_sampling_mask() ? now + LH_RECORDER_SAMPLE_EVERY
								 : UINT64_MAX,
	};
	int w;

	if (r->ended)
		return r->end;
	for (;;) {
		dl.take = r->take_at;
		w = r->ops->wait(r->ctx, earliest(&dl));
		if (w < 0) {
			wait_error(r);
			return ended_by(r, LH_RECORDER_END_ERROR, "error");
		}
		if ((w & LH_RECORDER_WAKE_EVENT) && event(r))
			return r->end;
		now = r->ops->now(r->ctx);
		if ((w & LH_RECORDER_WAKE_NOTIFY) || now >= dl.poll) {
			if (notice(r))
				return ended_by(r, LH_RECORDER_END_ERROR, "error");
			if (now >= dl.poll)
				dl.poll = every(now, r->ops->poll_interval(r->ctx));
		}
		if (now >= r->take_at)
			take(r, false);
		if (now >= dl.sample) {
			sample(r, false);
			dl.sample = now + LH_RECORDER_SAMPLE_EVERY;
		}
		if (now >= dl.irq) {
			irq_read(r, false);
			dl.irq = now + r->ops->irq_interval(r->ctx, LH_RECORDER_IRQ_MIN,
							    LH_RECORDER_IRQ_MAX);
		}
		if (now >= dl.slice) {
			/* Sections notified so far belong to the tracer armed until now. */
			if (take_all(r) || arm(r, next_tracer(r, r->st.armed)))
				return ended_by(r, LH_RECORDER_END_ERROR, "error");
			dl.slice = now + o->slice_ns;
		}
		if (now >= dl.checkpoint) {
			checkpoint(r);
			dl.checkpoint = now + o->checkpoint_ns;
		}
		if (now >= dl.status) {
			account_armed(r);
			if (r->hooks.status)
				r->hooks.status(r->hooks.arg, r, now);
			dl.status = now + o->status_ns;
		}
		if (now >= dl.end)
			return ended_by(r, LH_RECORDER_END_DURATION, "duration");
	}
}

void lh_recorder_stop(struct lh_recorder *r, bool drain)
{
	if (r->stopped)
		return;
	if (drain) {
		if (r->st.armed)
			take_all(r);
		irq_read(r, true);
	}
	/* Cheap, and the run's last word on the distributions: even when told to hurry. */
	if (r->started)
		hist_read(r);
	account_armed(r);
	r->st.armed = LH_TRACER_UNKNOWN;
	r->stopped = true;
}

/*
 * Why tracer t measured nothing, or NULL when it did. Armed less than one slice without a
 * capture is nothing: without a threshold, an armed tracer records a first maximum at once.
 */
static const char *not_measured(const struct lh_recorder *r, enum lh_tracer t)
{
	const struct lh_recorder_tracer *s = &r->st.tracer[t];
	unsigned int bit = 1u << t;

	if (!(r->o.wanted & bit))
		return "not in --tracer";
	if (!(r->o.tracers & bit))
		return "not available in this kernel";
	if (!s->armed_ns)
		return "never armed: the run ended before its turn";
	if (!s->captures && s->armed_ns < r->o.slice_ns)
		return "armed less than one --slice, without a capture";
	return NULL;
}

/* Says in the run info what was not measured; a budget over it makes the run fail. */
static void judge_measured(struct lh_recorder *r)
{
	char why[512] = "";
	size_t n = 0;
	int t;

	for (t = 1; t < LH_TRACER_NR; t++) {
		bool wanted = r->o.wanted & (1u << t);
		bool budget = r->gate.has_max[t] || (wanted && r->gate.has_max[LH_TRACER_UNKNOWN]);
		const char *what = wanted || budget ? not_measured(r, t) : NULL;

		r->info.not_measured[t] = what;
		if (what && !budget)
			say(r, LH_RECORDER_WARNING, "%s was not measured (%s)", lh_tracer_name(t),
			    what);
		if (what && budget && n < sizeof(why))
			n += (size_t)snprintf(why + n, sizeof(why) - n,
					      "%s%s was not measured (%s)", n ? "; " : "",
					      lh_tracer_name(t), what);
	}
	if (n) {
		char *msg = lh_xasprintf("%s: %s --max budget cannot be judged", why,
					 strchr(why, ';') ? "their" : "its");

		say(r, LH_RECORDER_ERROR, "%s", msg);
		lh_recorder_fail(r, msg);
		free(msg);
	}
}

bool lh_recorder_finish(struct lh_recorder *r)
{
	judge_measured(r);
	report_update(r);
	return lh_report_evaluate(r->report, &r->gate);
}

bool lh_recorder_failed(const struct lh_recorder *r)
{
	return r->failed;
}

struct lh_report *lh_recorder_report(const struct lh_recorder *r)
{
	return r->report;
}

struct lh_run_info *lh_recorder_info(struct lh_recorder *r)
{
	return &r->info;
}

const struct lh_recorder_stats *lh_recorder_stats(const struct lh_recorder *r)
{
	return &r->st;
}

const struct lh_hist_report *lh_recorder_hist(const struct lh_recorder *r)
{
	return &r->hist;
}
