// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the run engine (src/kernel/recorder.c) against a scripted kernel and clock: the
 * fake ops below play a latency tracer (a section is recorded only while its tracer is armed
 * and, without a threshold, only when it beats the running maximum, which arming sets; its
 * snapshot overwrites the last one; its notification comes a little later; reading a
 * snapshot takes time, during which tracing is paused and nothing is recorded, or, with
 * live reads, a section recorded meanwhile replaces the one read, which is dropped as torn)
 * and a clock
 * that jumps to the next deadline or happening. Slices, running maxima across slices,
 * checkpoints, end reasons, the read delay, loss and blind time per tracer and what a run
 * could not measure are checked in simulated seconds, in a few milliseconds, without a
 * kernel.
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "check-main.h"
#include "kernel/recorder.h"

#define MS	(1000 * 1000ULL)
#define S	(1000 * MS)

struct fake_section {
	uint64_t	at;		/* when the section ends (the kernel records it) */
	enum lh_tracer	tracer;
	unsigned int	us;
	uint64_t	notify_after;	/* from at to the notification */
	bool		happened;
	bool		paused;		/* it ended while 'trace' was being read */
	bool		recorded;	/* the kernel kept it (armed, above max or threshold) */
	bool		delivered;	/* its notification is waiting */
	bool		counted;	/* ... and was read, or counted by a final read */
};

struct fake {
	uint64_t		now;
	enum lh_tracer		armed;
	unsigned int		max_us;		/* tracing_max_latency without a threshold */
	unsigned int		threshold_us;
	struct fake_section	sec[256];
	size_t			nr_sec;
	int			snap;		/* the section whose snapshot 'trace' shows, -1 */
	bool			unread;
	bool			garbage;	/* 'trace' holds no section at all */
	unsigned long		notifications;
	uint64_t		poll;		/* 0: wait() wakes on notifications */
	uint64_t		read_ns;	/* how long reading a section's snapshot takes */
	bool			live;		/* reads do not pause tracing, but when torn */
	unsigned long		torn;		/* live reads a section replaced */
	uint64_t		paused_ns;	/* reads paused tracing this long */

	uint64_t		event_at;	/* UINT64_MAX: none */
	const char		*event_reason;	/* what on_event() answers */
	const char		*(*event_fn)(void);	/* or what this does */
	uint64_t		wait_fails_at;	/* UINT64_MAX: never */
	size_t			arm_fails;	/* fail the arm of this number (from 1); 0: none */
	bool			irq_fails;

	struct { uint64_t at; enum lh_tracer t; uint64_t max_us; } arms[64];
	size_t			nr_arms;
	uint64_t		reads_at[64];
	size_t			nr_reads;
	unsigned long		final_reads;
	unsigned long		pendings;
	unsigned long		irq_reads;
	unsigned long		irq_syncs;
	uint64_t		irq_sync_at[8];	/* the first ones */
	unsigned long		captured;
	uint64_t		status_now;	/* at the last status: the clock, */
	uint64_t		status_armed;	/* ... and every tracer's armed time */

	struct { uint64_t at; unsigned int us; bool seen; } samples[16];	/* timerlat spikes */
	size_t			nr_samples;
	uint64_t		sample_lost;	/* the sampling ring buffers' losses so far */
	unsigned long		sample_reads;
	const char		*sample_warn;	/* said by each final sample_read() */
	const char		*arm_warn;	/* said by each arm() that works */
	unsigned int		arm_fill;	/* distinct warnings the first arm() says instead */
	unsigned long		sample_finals;
	unsigned long		sample_hists;

	unsigned long		hist_reads[LH_HIST_NR];
	uint64_t		hist_fails_at;	/* reads from then on fail; UINT64_MAX: never */
	uint64_t		hist_dropped;
};

static struct fake k;
static char dir[64];
static struct lh_output *out;
static struct lh_diag diag;
static char *said[512];
static enum lh_recorder_say said_level[512];
static size_t nr_said;
static unsigned long statuses;

/* ---- the fake kernel and clock ---- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t alloc = 0;
	ssize_t n;

	ck_assert_msg(f, "cannot open %s", path);
	n = getdelim(&buf, &alloc, '\0', f);
	ck_assert_int_gt(n, 0);
	fclose(f);
	return buf;
}

/* Return: s with every from replaced by to (malloc'd). */
static char *replace(const char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0;
	const char *p;
	char *r, *w;

	for (p = s; (p = strstr(p, from)); p += fl)
		n++;
	w = r = malloc(strlen(s) + n * tl + 1);
	for (p = s; *p;) {
		if (!strncmp(p, from, fl)) {
			w = stpcpy(w, to);
			p += fl;
		} else {
			*w++ = *p++;
		}
	}
	*w = '\0';
	return r;
}

/* A real snapshot of tracer t (from tests/data), its latency set to us. */
static char *snapshot(enum lh_tracer t, unsigned int us)
{
	bool wakeup = lh_tracer_is_wakeup(t);
	char *text = slurp(wakeup ? LH_TEST_DATA "/handmade-wakeup_rt-6.1.trace" :
				    LH_TEST_DATA "/pidt-irqsoff-nofunc.trace");
	char num[32], *a, *b;

	snprintf(num, sizeof(num), "latency: %u us", us);
	a = replace(text, wakeup ? "latency: 64 us" : "latency: 2002 us", num);
	b = replace(a, wakeup ? "wakeup_rt" : "irqsoff", lh_tracer_name(t));
	free(text);
	free(a);
	return b;
}

static void section(double at_s, enum lh_tracer t, unsigned int us, double notify_ms)
{
	struct fake_section *s = &k.sec[k.nr_sec++];

	ck_assert_uint_lt(k.nr_sec, LH_ARRAY_SIZE(k.sec));
	*s = (struct fake_section){
		.at = (uint64_t)(at_s * S), .tracer = t, .us = us,
		.notify_after = (uint64_t)(notify_ms * MS),
	};
}

static void happen(void)
{
	struct fake_section *s;
	unsigned int over;

	for (s = k.sec; s < k.sec + k.nr_sec; s++) {
		if (s->happened || s->at > k.now)
			continue;
		s->happened = true;
		over = k.threshold_us ? k.threshold_us : k.max_us;
		if (s->tracer != k.armed || s->us <= over)
			continue;
		s->recorded = true;
		if (!k.threshold_us)
			k.max_us = s->us;
		k.snap = (int)(s - k.sec);
		k.unread = true;
	}
}

static uint64_t f_now(void *ctx)
{
	return k.now;
}

static uint64_t f_wall(void *ctx)
{
	return 1800000000ULL * S + k.now;
}

static int f_wait(void *ctx, uint64_t deadline)
{
	uint64_t next = deadline;
	struct fake_section *s;
	int wake = 0;

	for (s = k.sec; s < k.sec + k.nr_sec; s++) {
		if (!s->happened && s->at < next)
			next = s->at;
		if (s->recorded && !s->delivered && !s->counted && s->at + s->notify_after < next)
			next = s->at + s->notify_after;
	}
	if (k.event_at < next)
		next = k.event_at;
	if (k.wait_fails_at < next)
		next = k.wait_fails_at;
	ck_assert_msg(next != UINT64_MAX, "the recorder would wait forever");
	if (next > k.now)
		k.now = next;
	if (k.now >= k.wait_fails_at) {
		errno = EBADF;
		return -1;
	}
	happen();
	for (s = k.sec; s < k.sec + k.nr_sec; s++) {
		if (s->recorded && !s->delivered && !s->counted &&
		    s->at + s->notify_after <= k.now) {
			s->delivered = true;
			if (!k.poll)
				wake |= LH_RECORDER_WAKE_NOTIFY;
		}
	}
	if (k.event_at <= k.now) {
		k.event_at = UINT64_MAX;
		wake |= LH_RECORDER_WAKE_EVENT;
	}
	return wake;
}

static int f_arm(void *ctx, enum lh_tracer t, uint64_t max_us, struct lh_diag *d)
{
	size_t i;

	ck_assert_uint_lt(k.nr_arms, LH_ARRAY_SIZE(k.arms));
	k.arms[k.nr_arms].at = k.now;
	k.arms[k.nr_arms].t = t;
	k.arms[k.nr_arms].max_us = max_us;
	if (++k.nr_arms == k.arm_fails) {
		lh_diag_add(d, LH_DIAG_ERROR, "cannot set current_tracer to '%s': Device busy",
			    lh_tracer_name(t));
		return -1;
	}
	for (i = 0; k.nr_arms == 1 && i < k.arm_fill; i++)
		lh_diag_add(d, LH_DIAG_WARNING, "filler %zu", i);
	if (k.arm_warn && !(k.nr_arms == 1 && k.arm_fill))
		lh_diag_add(d, LH_DIAG_WARNING, "%s", k.arm_warn);
	/* Samples before this arming were of a slice read already, or of no tracer at all. */
	for (i = 0; i < k.nr_samples; i++)
		k.samples[i].seen |= k.samples[i].at <= k.now;
	k.armed = t;
	k.max_us = (unsigned int)max_us;
	k.unread = false;
	k.snap = -1;
	return 0;
}

static long f_pending(void *ctx, struct lh_diag *d)
{
	struct fake_section *s;
	long n = 0;

	k.pendings++;
	happen();
	for (s = k.sec; s < k.sec + k.nr_sec; s++) {
		/* Polling finds a change of value as soon as the kernel made it. */
		if (k.poll && s->recorded && !s->counted && s->at <= k.now)
			s->delivered = true;
		if (s->delivered && !s->counted) {
			s->counted = true;
			n++;
		}
	}
	k.notifications += (unsigned long)n;
	return n;
}

static int f_read(void *ctx, char **buf, size_t *alloc, size_t *len, bool final,
		  struct lh_diag *d)
{
	struct fake_section *s;
	char *text;

	ck_assert_uint_lt(k.nr_reads, LH_ARRAY_SIZE(k.reads_at));
	k.reads_at[k.nr_reads++] = k.now;
	k.final_reads += final;
	happen();
	if (!k.unread)
		return 0;
	k.unread = false;
	k.now += k.read_ns;
	if (k.live) {
		/* Tracing went on: a section recorded meanwhile tore the read; read it paused. */
		happen();
		if (!k.unread)
			goto text;
		k.torn++;
		k.unread = false;
		k.now += k.read_ns;
	}
	/* 'trace' is open, tracing paused: sections that end meanwhile are not recorded. */
	k.paused_ns += k.read_ns;
	for (s = k.sec; s < k.sec + k.nr_sec; s++) {
		if (!s->happened && s->at <= k.now) {
			s->happened = true;
			s->paused = true;
		}
	}
text:
	text = k.garbage ? strdup("# tracer: nop\n#\n") : snapshot(k.sec[k.snap].tracer,
								  k.sec[k.snap].us);
	*len = strlen(text);
	if (*alloc < *len + 1) {
		*alloc = *len + 1;
		*buf = realloc(*buf, *alloc);
	}
	memcpy(*buf, text, *len + 1);
	free(text);
	/* A section taken before its notification came: counted now, not again later. */
	s = k.garbage ? NULL : &k.sec[k.snap];
	if (final && s && !s->counted && !s->delivered) {
		s->counted = true;
		k.notifications++;
	}
	return 1;
}

static uint64_t f_paused_ns(void *ctx)
{
	return k.paused_ns;
}

static unsigned long f_torn(void *ctx)
{
	return k.torn;
}

static void f_captured(void *ctx)
{
	k.captured++;
}

static unsigned long f_notifications(void *ctx)
{
	return k.notifications;
}

static uint64_t f_poll_interval(void *ctx)
{
	return k.poll;
}

static long f_irq_read(void *ctx, bool sync_lost, struct lh_diag *d)
{
	k.irq_reads++;
	if (sync_lost && k.irq_syncs < LH_ARRAY_SIZE(k.irq_sync_at))
		k.irq_sync_at[k.irq_syncs] = k.now;
	k.irq_syncs += sync_lost;
	if (k.irq_fails) {
		lh_diag_add(d, LH_DIAG_ERROR, "cannot read the IRQ events: Input/output error");
		return -1;
	}
	return 10;
}

static uint64_t f_irq_interval(void *ctx, uint64_t min_ns, uint64_t max_ns)
{
	return max_ns;
}

/*
 * The kernel's histograms: on CPU 0, one section of 5000-5099 us per second of the run so
 * far and 100 of 1-2 us; on CPU 1, 3 sections of 10-20 ms (a log2 bucket of the last tier).
 */
static int f_hist_read(void *ctx, enum lh_hist_kind kind, struct lh_hist_data *d,
		       struct lh_diag *dg)
{
	const struct lh_hist_bin bins[] = {
		{ 0, 5000000, 5100000, k.now / S, k.now / S * 5050000 },
		{ 0, 1000, 2000, 100, 150000 },
		{ 1, 10000000, 16777217, 3, 36000000 },
	};
	size_t i;

	k.hist_reads[kind]++;
	lh_hist_data_release(d);
	if (k.now >= k.hist_fails_at) {
		lh_diag_add(dg, LH_DIAG_ERROR, "cannot read the %s histogram: No such device",
			    lh_hist_kind_name(kind));
		return -1;
	}
	for (i = 0; i < LH_ARRAY_SIZE(bins); i++) {
		LH_GROW(d->bins, d->nr + 1, d->alloc);
		d->bins[d->nr++] = bins[i];
		d->hits += bins[i].count;
	}
	d->dropped = k.hist_dropped;
	d->tables = 4;
	return 0;
}

static const struct lh_recorder_ops fake_ops = {
	.now = f_now, .wall = f_wall, .wait = f_wait, .arm = f_arm, .pending = f_pending,
	.read = f_read, .paused_ns = f_paused_ns, .torn = f_torn, .captured = f_captured,
	.notifications = f_notifications,
	.poll_interval = f_poll_interval, .irq_read = f_irq_read, .irq_interval = f_irq_interval,
	.hist_read = f_hist_read,
};

/*
 * A sampling tracer (timerlat): its spikes (judged by the breakdown, noise.c) come with its
 * events, read by sample_read(); a spike while another tracer was armed is never seen
 * (f_arm() forgets them).
 */
static long f_sample_read(void *ctx, bool final, lh_record_fn feed, void *arg,
			  struct lh_diag *d)
{
	struct lh_record *r = lh_record_alloc();
	size_t i;

	k.sample_reads++;
	k.sample_finals += final;
	if (final && k.sample_warn)
		lh_diag_add(d, LH_DIAG_WARNING, "%s", k.sample_warn);
	for (i = 0; i < k.nr_samples; i++) {
		if (k.samples[i].seen || k.samples[i].at > k.now)
			continue;
		k.samples[i].seen = true;
		lh_record_reset(r);
		r->tracer = LH_TRACER_TIMERLAT;
		r->tracer_name = "timerlat";
		r->latency_us = k.samples[i].us;
		r->cpu = 1;
		r->task.comm = "lhspin";
		feed(r, arg);
	}
	lh_record_free(r);
	return 1000;
}

static void f_sample_hist(void *ctx, struct lh_report *rep)
{
	k.sample_hists++;
}

static uint64_t f_sample_lost(void *ctx)
{
	return k.sample_lost;
}

static const struct lh_recorder_ops sampling_ops = {
	.now = f_now, .wall = f_wall, .wait = f_wait, .arm = f_arm, .pending = f_pending,
	.read = f_read, .captured = f_captured, .notifications = f_notifications,
	.poll_interval = f_poll_interval, .irq_read = f_irq_read, .irq_interval = f_irq_interval,
	.hist_read = f_hist_read, .sample_read = f_sample_read, .sample_hist = f_sample_hist,
	.sample_lost = f_sample_lost,
};

/* ---- the caller's side ---- */

static void on_message(void *arg, enum lh_recorder_say level, const char *text)
{
	ck_assert_uint_lt(nr_said, LH_ARRAY_SIZE(said));
	said_level[nr_said] = level;
	said[nr_said++] = strdup(text);
}

static void on_status(void *arg, const struct lh_recorder *rec, uint64_t now)
{
	const struct lh_recorder_stats *st = lh_recorder_stats(rec);
	int t;

	statuses++;
	k.status_now = now;
	k.status_armed = 0;
	for (t = 0; t < LH_TRACER_NR; t++)
		k.status_armed += st->tracer[t].armed_ns;
}

static const char *on_event(void *arg)
{
	return k.event_fn ? k.event_fn() : k.event_reason;
}

static const struct lh_recorder_hooks hooks = {
	.message = on_message, .status = on_status, .event = on_event,
};

static bool said_has(enum lh_recorder_say level, const char *needle)
{
	size_t i;

	for (i = 0; i < nr_said; i++)
		if (said_level[i] == level && strstr(said[i], needle))
			return true;
	return false;
}

static const unsigned int IRQSOFF = 1u << LH_TRACER_IRQSOFF;
static const unsigned int WAKEUP_RT = 1u << LH_TRACER_WAKEUP_RT;

/* Options of a two-tracer run of 35 s: 10 s slices, checkpoints every 60 s. */
static struct lh_recorder_opts opts(unsigned int tracers, uint64_t duration)
{
	return (struct lh_recorder_opts){
		.tracers = tracers, .wanted = tracers, .slice_ns = 10 * S,
		.duration_ns = duration, .checkpoint_ns = 60 * S, .keep = 100, .out = out,
	};
}

static struct lh_recorder *rec_alloc(const struct lh_recorder_opts *o)
{
	static const struct lh_run_info info = { .mode = "record", .command_status = -1 };
	struct lh_recorder_opts copy = *o;

	copy.info = &info;
	k.threshold_us = (unsigned int)(o->threshold_ns / 1000);
	return lh_recorder_alloc(&fake_ops, NULL, &copy, &hooks);
}

/* start, run, stop (drain), finish. Return: why it ended. */
static enum lh_recorder_end run_all(struct lh_recorder *rec)
{
	enum lh_recorder_end e;

	ck_assert_int_eq(lh_recorder_start(rec), 0);
	e = lh_recorder_run(rec);
	lh_recorder_stop(rec, true);
	return e;
}

/* Return: the report in format f (malloc'd). */
static char *report_text(struct lh_recorder *rec, enum lh_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	ck_assert_int_eq(lh_report_write(lh_recorder_report(rec), f, m), 0);
	fclose(m);
	return buf;
}

/* Return: the JSON report, parsed (put it). */
static json_object *report_json(struct lh_recorder *rec)
{
	char *text = report_text(rec, LH_FORMAT_JSON);
	json_object *j = json_tokener_parse(text);

	ck_assert_ptr_nonnull(j);
	free(text);
	return j;
}

/* Return: the value at a path like "run.not_measured.wakeup_rt" (borrowed from j), or NULL. */
static json_object *jget(json_object *j, const char *path)
{
	char *copy = strdup(path), *save, *key;

	for (key = strtok_r(copy, ".", &save); key && j; key = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(j, key, &j))
			j = NULL;
	free(copy);
	return j;
}

static const char *jstr(json_object *j, const char *path)
{
	json_object *v = jget(j, path);

	return v ? json_object_get_string(v) : NULL;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void setup(void)
{
	struct lh_output_opts oo = { .disk_budget = 1 << 20, .max_snapshots = 100 };
	char path[96];

	memset(&k, 0, sizeof(k));
	k.snap = -1;
	k.event_at = UINT64_MAX;
	k.wait_fails_at = UINT64_MAX;
	k.hist_fails_at = UINT64_MAX;
	memset(&diag, 0, sizeof(diag));
	nr_said = 0;
	statuses = 0;
	snprintf(dir, sizeof(dir), "/tmp/lh-recorder-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out", dir);
	oo.dir = path;
	ck_assert_int_eq(lh_output_open(&out, &oo, &diag), 0);
}

static void teardown(void)
{
	size_t i;

	lh_output_free(out);
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	lh_diag_release(&diag);
	for (i = 0; i < nr_said; i++)
		free(said[i]);
}

/* ---- slices ---- */

START_TEST(slices_rotate_tracers)
{
	struct lh_recorder_opts o = opts(IRQSOFF | WAKEUP_RT, 35 * S);
	struct lh_recorder *rec = rec_alloc(&o);
	const struct lh_recorder_stats *st = lh_recorder_stats(rec);

	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert_uint_eq(k.now, 35 * S);
	ck_assert_uint_eq(k.nr_arms, 4);
	ck_assert_uint_eq(k.arms[0].at, 0);
	ck_assert_int_eq(k.arms[0].t, LH_TRACER_IRQSOFF);
	ck_assert_uint_eq(k.arms[1].at, 10 * S);
	ck_assert_int_eq(k.arms[1].t, LH_TRACER_WAKEUP_RT);
	ck_assert_uint_eq(k.arms[2].at, 20 * S);
	ck_assert_int_eq(k.arms[2].t, LH_TRACER_IRQSOFF);
	ck_assert_uint_eq(k.arms[3].at, 30 * S);
	ck_assert_int_eq(k.arms[3].t, LH_TRACER_WAKEUP_RT);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].armed_ns, 20 * S);
	ck_assert_uint_eq(st->tracer[LH_TRACER_WAKEUP_RT].armed_ns, 15 * S);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].arms, 2);
	ck_assert_int_eq(st->armed, LH_TRACER_UNKNOWN);
	/* Each slice ends with a last read, and so does the run. */
	ck_assert_uint_eq(k.final_reads, 4);
	lh_recorder_finish(rec);
	ck_assert_str_eq(lh_recorder_info(rec)->end_reason, "duration");
	ck_assert_uint_eq(lh_recorder_info(rec)->armed_ns[LH_TRACER_WAKEUP_RT], 15 * S);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(sampling_tracer_takes_its_slices)
{
	struct lh_recorder_opts o = opts(IRQSOFF | (1u << LH_TRACER_TIMERLAT), 35 * S);
	static const struct lh_run_info info = { .mode = "record", .command_status = -1 };
	const struct lh_recorder_stats *st;
	struct lh_recorder *rec;

	o.info = &info;
	rec = lh_recorder_alloc(&sampling_ops, NULL, &o, &hooks);
	st = lh_recorder_stats(rec);
	/* irqsoff 0-10 s, timerlat 10-20 s, irqsoff 20-30 s, timerlat 30-35 s */
	k.samples[k.nr_samples++] = (typeof(k.samples[0])){ .at = 5 * S, .us = 9000 };
	k.samples[k.nr_samples++] = (typeof(k.samples[0])){ .at = 12 * S, .us = 3000 };
	k.samples[k.nr_samples++] = (typeof(k.samples[0])){ .at = 19 * S + 990 * MS, .us = 2000 };
	k.samples[k.nr_samples++] = (typeof(k.samples[0])){ .at = 33 * S, .us = 4000 };
	ck_assert_int_eq(lh_recorder_start(rec), 0);
	ck_assert_int_eq(lh_recorder_run(rec), LH_RECORDER_END_DURATION);
	/* lost at the very end: taken by the drain */
	k.sample_lost = 3;
	lh_recorder_stop(rec, true);
	ck_assert_int_eq(k.arms[1].t, LH_TRACER_TIMERLAT);
	ck_assert_int_eq(k.arms[2].t, LH_TRACER_IRQSOFF);
	ck_assert_int_eq(k.arms[3].t, LH_TRACER_TIMERLAT);
	ck_assert_uint_eq(st->tracer[LH_TRACER_TIMERLAT].armed_ns, 15 * S);
	/* the spike while irqsoff was armed is not timerlat's; the one just before the slice
	 * ended is, read by the slice's last read */
	ck_assert_uint_eq(st->tracer[LH_TRACER_TIMERLAT].captures, 3);
	ck_assert_uint_eq(st->tracer[LH_TRACER_TIMERLAT].max_us, 4000);
	ck_assert_uint_eq(k.sample_finals, 2);	/* the end of its first slice, and the stop */
	ck_assert_uint_eq(st->tracer[LH_TRACER_TIMERLAT].notifications, 6);
	ck_assert_uint_eq(st->lost, 3);
	ck_assert(said_has(LH_RECORDER_WARNING, "the timerlat ring buffer lost events"));
	ck_assert_uint_ge(k.sample_hists, 1);
	lh_recorder_finish(rec);
	ck_assert_uint_eq(lh_report_worst_us(lh_recorder_report(rec), LH_TRACER_TIMERLAT), 4000);
	ck_assert_uint_eq(lh_recorder_info(rec)->sections_lost, 3);
	ck_assert_ptr_null(lh_recorder_info(rec)->not_measured[LH_TRACER_TIMERLAT]);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(one_tracer_is_armed_once)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 35 * S);
	struct lh_recorder *rec = rec_alloc(&o);

	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert_uint_eq(k.nr_arms, 1);
	ck_assert_uint_eq(lh_recorder_stats(rec)->tracer[LH_TRACER_IRQSOFF].armed_ns, 35 * S);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(no_tracer_irq_statistics_only)
{
	struct lh_irqstat *st = lh_irqstat_alloc();
	struct lh_recorder_opts o = opts(0, 3500 * MS);
	struct lh_recorder *rec;

	o.irqstat = st;
	rec = rec_alloc(&o);
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert_uint_eq(k.nr_arms, 0);
	ck_assert_uint_eq(k.nr_reads, 0);
	ck_assert_uint_eq(k.pendings, 0);
	/* Every second (LH_RECORDER_IRQ_MAX), then once more at the end with the losses. */
	ck_assert_uint_eq(k.irq_reads, 4);
	ck_assert_uint_eq(k.irq_syncs, 1);
	lh_recorder_free(rec);
	lh_irqstat_free(st);
}
END_TEST

/* ---- deadlines: checkpoints, status, the end ---- */

START_TEST(checkpoints_on_time)
{
	struct lh_irqstat *ist = lh_irqstat_alloc();
	struct lh_recorder_opts o = opts(IRQSOFF, 200 * S);
	struct lh_recorder *rec;
	json_object *j;
	char path[128], *text;

	o.irqstat = ist;
	o.status_ns = S;
	rec = rec_alloc(&o);
	section(70, LH_TRACER_IRQSOFF, 150, 1);
	ck_assert_int_eq(lh_recorder_start(rec), 0);
	ck_assert_int_eq(lh_recorder_run(rec), LH_RECORDER_END_DURATION);
	/* At 60, 120 and 180 s; each one syncs the IRQ losses first. */
	ck_assert_uint_eq(lh_recorder_stats(rec)->checkpoints, 3);
	ck_assert_uint_eq(k.irq_syncs, 3);
	ck_assert_uint_eq(k.irq_sync_at[0], 60 * S);
	ck_assert_uint_eq(k.irq_sync_at[1], 120 * S);
	ck_assert_uint_eq(k.irq_sync_at[2], 180 * S);
	ck_assert_uint_eq(statuses, 200);
	snprintf(path, sizeof(path), "%s/out/report.json", dir);
	text = slurp(path);
	j = json_tokener_parse(text);
	ck_assert_ptr_nonnull(j);
	/* The last checkpoint (180 s): the run is not over, the section is in. */
	ck_assert_ptr_null(jget(j, "run.end_reason"));
	ck_assert_int_eq(json_object_get_int(jget(j, "tracers.irqsoff.max_us")), 150);
	ck_assert_int_eq(json_object_get_int(jget(j, "run.duration_s")), 180);
	json_object_put(j);
	free(text);
	lh_recorder_stop(rec, true);
	lh_recorder_free(rec);
	lh_irqstat_free(ist);
}
END_TEST

/* The test's hand in the middle of a run: the directory in the way is gone. */
static const char *remove_dir_event(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/out/report.json", dir);
	rmdir(path);
	return NULL;
}

START_TEST(checkpoint_failure_said_once_and_recovery)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 250 * S);
	struct lh_recorder *rec = rec_alloc(&o);
	char path[128];

	/* report.json is a directory: every checkpoint fails until it is gone. */
	snprintf(path, sizeof(path), "%s/out/report.json", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	k.event_at = 130 * S;
	k.event_fn = remove_dir_event;
	ck_assert_int_eq(lh_recorder_start(rec), 0);
	ck_assert_int_eq(lh_recorder_run(rec), LH_RECORDER_END_DURATION);
	ck_assert_uint_eq(lh_recorder_stats(rec)->checkpoints, 4);
	ck_assert_uint_eq(nr_said, 2);
	ck_assert(said_has(LH_RECORDER_WARNING, "the report is kept in memory"));
	ck_assert(said_has(LH_RECORDER_INFO, "checkpoint written again"));
	lh_recorder_free(rec);
}
END_TEST

START_TEST(event_ends_run)
{
	struct lh_recorder_opts o = opts(IRQSOFF | WAKEUP_RT, 0);
	struct lh_recorder *rec = rec_alloc(&o);

	k.event_at = 12500 * MS;
	k.event_reason = "SIGINT";
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_EVENT);
	ck_assert_uint_eq(k.now, 12500 * MS);
	ck_assert(lh_recorder_ended(rec));
	ck_assert(!lh_recorder_failed(rec));
	lh_recorder_finish(rec);
	ck_assert_str_eq(lh_recorder_info(rec)->end_reason, "SIGINT");
	ck_assert_uint_eq(lh_recorder_stats(rec)->tracer[LH_TRACER_WAKEUP_RT].armed_ns,
			  2500 * MS);
	/* Ended: running again returns at once. */
	ck_assert_int_eq(lh_recorder_run(rec), LH_RECORDER_END_EVENT);
	ck_assert_uint_eq(k.now, 12500 * MS);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(event_that_does_not_end)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 5 * S);
	struct lh_recorder *rec = rec_alloc(&o);

	k.event_at = 2 * S;
	k.event_reason = NULL;
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert_uint_eq(k.now, 5 * S);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(wait_error_fails_the_run)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 60 * S);
	struct lh_recorder *rec = rec_alloc(&o);
	json_object *j;

	k.wait_fails_at = 3 * S;
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_ERROR);
	ck_assert(lh_recorder_failed(rec));
	ck_assert(said_has(LH_RECORDER_ERROR, "cannot wait: Bad file descriptor"));
	lh_recorder_finish(rec);
	j = report_json(rec);
	ck_assert_str_eq(jstr(j, "verdict"), "error");
	ck_assert_str_eq(jstr(j, "error"), "cannot wait: Bad file descriptor");
	ck_assert_str_eq(jstr(j, "run.end_reason"), "error");
	json_object_put(j);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(arm_error_at_a_slice_fails_the_run)
{
	struct lh_recorder_opts o = opts(IRQSOFF | WAKEUP_RT, 60 * S);
	struct lh_recorder *rec = rec_alloc(&o);
	char *text;

	k.arm_fails = 2;
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_ERROR);
	ck_assert_uint_eq(k.now, 10 * S);
	ck_assert(said_has(LH_RECORDER_ERROR, "cannot set current_tracer to 'wakeup_rt'"));
	lh_recorder_finish(rec);
	text = report_text(rec, LH_FORMAT_JUNIT);
	ck_assert_ptr_nonnull(strstr(text, "classname=\"lathound.run\" name=\"run\""));
	ck_assert_ptr_nonnull(strstr(text, "<error message=\"cannot set current_tracer"));
	free(text);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(arm_error_at_start)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 60 * S);
	struct lh_recorder *rec = rec_alloc(&o);

	k.arm_fails = 1;
	ck_assert_int_eq(lh_recorder_start(rec), -1);
	ck_assert(lh_recorder_failed(rec));
	lh_recorder_free(rec);
}
END_TEST

/* ---- captures and what they lose ---- */

START_TEST(running_max_burst_read_once_at_its_largest)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 5 * S);
	struct lh_recorder *rec = rec_alloc(&o);
	const struct lh_recorder_stats *st = lh_recorder_stats(rec);

	section(1.000, LH_TRACER_IRQSOFF, 100, 1);
	section(1.005, LH_TRACER_IRQSOFF, 200, 1);
	section(1.010, LH_TRACER_IRQSOFF, 300, 1);
	section(1.015, LH_TRACER_IRQSOFF, 250, 1);	/* not a new maximum: not recorded */
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	/* Read LH_RECORDER_TAKE_DELAY after the first notification, then at the end. */
	ck_assert_uint_eq(k.nr_reads, 2);
	ck_assert_uint_eq(k.reads_at[0], 1001 * MS + LH_RECORDER_TAKE_DELAY);
	ck_assert_uint_eq(st->captures, 1);
	ck_assert_uint_eq(st->notifications, 3);
	ck_assert_uint_eq(st->lost, 2);
	ck_assert_uint_eq(k.captured, 1);
	ck_assert_uint_eq(lh_report_worst_us(lh_recorder_report(rec), LH_TRACER_IRQSOFF), 300);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(threshold_reads_each_section_at_once)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 5 * S);
	struct lh_recorder *rec;
	char path[160];

	o.threshold_ns = 50 * 1000;
	rec = rec_alloc(&o);
	section(1, LH_TRACER_IRQSOFF, 80, 2);
	section(2, LH_TRACER_IRQSOFF, 60, 2);
	section(3, LH_TRACER_IRQSOFF, 40, 2);	/* under the threshold: never recorded */
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert_uint_eq(k.reads_at[0], 1002 * MS);
	ck_assert_uint_eq(k.reads_at[1], 2002 * MS);
	ck_assert_uint_eq(lh_recorder_stats(rec)->captures, 2);
	ck_assert_uint_eq(lh_recorder_stats(rec)->lost, 0);
	ck_assert_uint_eq(lh_report_records(lh_recorder_report(rec)), 2);
	/* Both raw snapshots kept, named after their capture. */
	snprintf(path, sizeof(path), "%s/out/snapshots/capture-000002-irqsoff-60us.trace", dir);
	ck_assert_int_eq(access(path, F_OK), 0);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(loss_accounted_per_tracer)
{
	struct lh_recorder_opts o = opts(IRQSOFF | WAKEUP_RT, 20 * S);
	struct lh_recorder *rec = rec_alloc(&o);
	const struct lh_recorder_stats *st = lh_recorder_stats(rec);

	/* irqsoff's slice: the second section overwrites the first before the read. */
	section(1.000, LH_TRACER_IRQSOFF, 100, 0.5);
	section(1.001, LH_TRACER_IRQSOFF, 200, 0.5);
	/* wakeup_rt is not armed yet: the kernel records nothing, nothing is lost. */
	section(5, LH_TRACER_WAKEUP_RT, 500, 0.5);
	section(12, LH_TRACER_WAKEUP_RT, 64, 0.5);
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].notifications, 2);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].captures, 1);
	ck_assert_uint_eq(st->tracer[LH_TRACER_WAKEUP_RT].notifications, 1);
	ck_assert_uint_eq(st->tracer[LH_TRACER_WAKEUP_RT].captures, 1);
	ck_assert_uint_eq(st->lost, 1);
	lh_recorder_finish(rec);
	ck_assert_uint_eq(lh_recorder_info(rec)->sections_lost, 1);
	ck_assert_uint_eq(lh_recorder_info(rec)->captures, 2);
	ck_assert_uint_eq(lh_report_worst_us(lh_recorder_report(rec), LH_TRACER_WAKEUP_RT), 64);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(section_at_slice_end_belongs_to_its_tracer)
{
	struct lh_recorder_opts o = opts(IRQSOFF | WAKEUP_RT, 15 * S);
	struct lh_recorder *rec = rec_alloc(&o);
	const struct lh_recorder_stats *st = lh_recorder_stats(rec);

	/* Recorded just before the switch; its notification would come after it. */
	section(9.999, LH_TRACER_IRQSOFF, 700, 5);
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].captures, 1);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].notifications, 1);
	ck_assert_uint_eq(st->tracer[LH_TRACER_WAKEUP_RT].notifications, 0);
	ck_assert_uint_eq(st->lost, 0);
	ck_assert_uint_eq(lh_report_worst_us(lh_recorder_report(rec), LH_TRACER_IRQSOFF), 700);
	lh_recorder_free(rec);
}
END_TEST

/*
 * Running maxima survive rotation: a tracer armed again continues from the longest section
 * it captured, so the small maxima that follow every arming from zero (here, a flurry after
 * each switch) are recorded in its first slice only, and a section is captured in a later
 * slice only when it is longer than the tracer's worst so far.
 */
START_TEST(rotation_continues_the_running_max)
{
	struct lh_recorder_opts o = opts(IRQSOFF | WAKEUP_RT, 55 * S);
	struct lh_recorder *rec;
	const struct lh_recorder_stats *st;
	int slice, i;

	o.status_ns = 7 * S;
	rec = rec_alloc(&o);
	st = lh_recorder_stats(rec);
	for (slice = 0; slice < 6; slice++)
		for (i = 0; i < 5; i++)
			section(10 * slice + 1 + 0.002 * i, slice % 2 ? LH_TRACER_WAKEUP_RT :
				LH_TRACER_IRQSOFF, 10 + 10 * i, 0.5);
	section(5, LH_TRACER_IRQSOFF, 2500, 1);		/* the injected culprit */
	section(25, LH_TRACER_IRQSOFF, 2400, 1);	/* shorter than the worst: not a capture */
	section(45, LH_TRACER_IRQSOFF, 2510, 1);	/* longer: captured */
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert_uint_eq(k.nr_arms, 6);
	/* The first arming of each tracer from zero, every later one from its worst so far. */
	ck_assert_uint_eq(k.arms[0].max_us, 0);
	ck_assert_uint_eq(k.arms[1].max_us, 0);
	ck_assert_uint_eq(k.arms[2].max_us, 2500);
	ck_assert_uint_eq(k.arms[3].max_us, 50);
	ck_assert_uint_eq(k.arms[4].max_us, 2500);
	ck_assert_uint_eq(k.arms[5].max_us, 50);
	/* Captures: each tracer's first flurry (read once at its largest), and two culprits. */
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].captures, 3);
	ck_assert_uint_eq(st->tracer[LH_TRACER_WAKEUP_RT].captures, 1);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].max_us, 2510);
	ck_assert_uint_eq(st->tracer[LH_TRACER_WAKEUP_RT].max_us, 50);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].notifications, 5 + 1 + 1);
	ck_assert_uint_eq(st->lost, 4 + 4);
	ck_assert_uint_eq(lh_report_worst_us(lh_recorder_report(rec), LH_TRACER_IRQSOFF), 2510);
	/* Reads: the two flurries, two culprits, and one at the end of every slice. */
	ck_assert_uint_eq(k.nr_reads, 2 + 2 + 6);
	/* The status line saw every tracer's armed time up to that moment. */
	ck_assert_uint_eq(k.status_now, 49 * S);
	ck_assert_uint_eq(k.status_armed, 49 * S);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(threshold_arms_from_zero)
{
	struct lh_recorder_opts o = opts(IRQSOFF | WAKEUP_RT, 35 * S);
	struct lh_recorder *rec;

	o.threshold_ns = 1000 * 1000;
	rec = rec_alloc(&o);
	section(1, LH_TRACER_IRQSOFF, 2500, 1);
	section(21, LH_TRACER_IRQSOFF, 2400, 1);	/* above the threshold: captured */
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert_uint_eq(k.nr_arms, 4);
	ck_assert_uint_eq(k.arms[2].max_us, 0);
	ck_assert_uint_eq(lh_recorder_stats(rec)->tracer[LH_TRACER_IRQSOFF].captures, 2);
	lh_recorder_free(rec);
}
END_TEST

/*
 * Blind time: reading a snapshot with tracing paused. Without a threshold a longer section
 * during the read delay overwrites the one notified (lost, counted; tracing runs, the
 * tracer is not blind); one during the read itself is never recorded: no notification, not
 * counted, only the blind time says the tracer could not see it.
 */
START_TEST(blind_time_per_tracer)
{
	struct lh_recorder_opts o = opts(IRQSOFF | WAKEUP_RT, 20 * S);
	struct lh_recorder *rec;
	const struct lh_recorder_stats *st;
	json_object *j;
	char *text;

	rec = rec_alloc(&o);
	st = lh_recorder_stats(rec);
	k.read_ns = 30 * MS;
	section(1.000, LH_TRACER_IRQSOFF, 100, 2);	/* noticed at 1.002, read at 1.022 */
	section(1.010, LH_TRACER_IRQSOFF, 200, 2);	/* overwrites it before the read */
	section(1.030, LH_TRACER_IRQSOFF, 300, 2);	/* during the read: never recorded */
	section(15, LH_TRACER_WAKEUP_RT, 64, 1);	/* read at 15.021, done at 15.051 */
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert(k.sec[2].paused && !k.sec[2].recorded);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].captures, 1);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].notifications, 2);
	ck_assert_uint_eq(st->lost, 1);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].blind_ns, 1052 * MS - 1022 * MS);
	ck_assert_uint_eq(st->tracer[LH_TRACER_WAKEUP_RT].blind_ns, 15051 * MS - 15021 * MS);
	ck_assert_uint_eq(lh_report_worst_us(lh_recorder_report(rec), LH_TRACER_IRQSOFF), 200);
	lh_recorder_finish(rec);
	ck_assert_uint_eq(lh_recorder_info(rec)->blind_ns[LH_TRACER_IRQSOFF], 30 * MS);
	j = report_json(rec);
	ck_assert(json_object_get_double(jget(j, "tracers.irqsoff.blind_s")) == 0.03);
	ck_assert(json_object_get_double(jget(j, "tracers.wakeup_rt.blind_s")) == 0.03);
	ck_assert(json_object_get_double(jget(j, "tracers.irqsoff.armed_s")) == 10.0);
	ck_assert_int_eq(json_object_get_int(jget(j, "run.sections_torn")), 0);
	json_object_put(j);
	text = report_text(rec, LH_FORMAT_TEXT);
	ck_assert_ptr_nonnull(strstr(text,
		"  armed: irqsoff 10.0 s (blind 0.0 s) wakeup_rt 10.0 s (blind 0.0 s)\n"));
	free(text);
	text = report_text(rec, LH_FORMAT_JUNIT);
	ck_assert_ptr_nonnull(strstr(text, "irqsoff armed 10.0 s (blind 0.0 s)"));
	ck_assert_ptr_nonnull(strstr(text,
		"    <properties>\n      <property name=\"irqsoff.armed_s\" value=\"10.000\"/>\n"
		"      <property name=\"irqsoff.blind_s\" value=\"0.030\"/>\n"));
	free(text);
	lh_recorder_free(rec);
}
END_TEST

/*
 * Live reads (a threshold, pause-on-trace off): tracing goes on while 'trace' is read, so
 * the tracer is not blind; a section recorded during a read replaces the snapshot: that
 * read is dropped (torn), the new section is read paused (blind while it lasts), and the
 * one it replaced is lost.
 */
START_TEST(live_reads_blind_only_when_torn)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 5 * S);
	const struct lh_recorder_stats *st;
	struct lh_recorder *rec;
	json_object *j;
	char *text;

	o.threshold_ns = 1000 * 1000;
	rec = rec_alloc(&o);
	st = lh_recorder_stats(rec);
	k.live = true;
	k.read_ns = 30 * MS;
	section(1.000, LH_TRACER_IRQSOFF, 2000, 2);	/* read from 1.002 to 1.032 */
	section(1.010, LH_TRACER_IRQSOFF, 2100, 2);	/* recorded meanwhile: read paused */
	section(1.050, LH_TRACER_IRQSOFF, 2150, 2);	/* during that read: never recorded */
	section(3.000, LH_TRACER_IRQSOFF, 2200, 2);	/* read live */
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert(k.sec[1].recorded && !k.sec[1].paused);
	ck_assert(k.sec[2].paused && !k.sec[2].recorded);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].captures, 2);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].notifications, 3);
	ck_assert_uint_eq(st->lost, 1);
	ck_assert_uint_eq(st->tracer[LH_TRACER_IRQSOFF].blind_ns, 30 * MS);
	lh_recorder_finish(rec);
	ck_assert_uint_eq(lh_recorder_info(rec)->sections_torn, 1);
	j = report_json(rec);
	ck_assert_int_eq(json_object_get_int(jget(j, "run.sections_lost")), 1);
	ck_assert_int_eq(json_object_get_int(jget(j, "run.sections_torn")), 1);
	ck_assert(json_object_get_double(jget(j, "tracers.irqsoff.blind_s")) == 0.03);
	json_object_put(j);
	text = report_text(rec, LH_FORMAT_TEXT);
	ck_assert_ptr_nonnull(strstr(text, ", 1 section lost (1 replaced while read), "));
	free(text);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(snapshot_without_a_section_is_lost)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 5 * S);
	struct lh_recorder *rec = rec_alloc(&o);

	k.garbage = true;
	section(1, LH_TRACER_IRQSOFF, 100, 1);
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert_uint_eq(lh_recorder_stats(rec)->captures, 0);
	ck_assert_uint_eq(lh_recorder_stats(rec)->lost, 1);
	ck_assert_uint_eq(k.captured, 0);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(polling_finds_sections)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 3 * S);
	struct lh_recorder *rec = rec_alloc(&o);

	k.poll = 100 * MS;
	section(1.05, LH_TRACER_IRQSOFF, 100, 1);
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	/* Seen at the poll of 1.1 s, read LH_RECORDER_TAKE_DELAY later. */
	ck_assert_uint_eq(k.reads_at[0], 1100 * MS + LH_RECORDER_TAKE_DELAY);
	ck_assert_uint_eq(lh_recorder_stats(rec)->captures, 1);
	ck_assert_uint_ge(k.pendings, 30);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(stop_with_and_without_drain)
{
	int drain;

	for (drain = 0; drain < 2; drain++) {
		struct lh_recorder_opts o;
		struct lh_recorder *rec;

		setup();
		o = opts(IRQSOFF, 5 * S);
		rec = rec_alloc(&o);
		/* Ends as the run ends; its notification would come later. */
		section(4.999, LH_TRACER_IRQSOFF, 900, 5);
		ck_assert_int_eq(lh_recorder_start(rec), 0);
		ck_assert_int_eq(lh_recorder_run(rec), LH_RECORDER_END_DURATION);
		lh_recorder_stop(rec, drain);
		lh_recorder_stop(rec, true);	/* again: nothing more */
		ck_assert_uint_eq(lh_recorder_stats(rec)->captures, (unsigned long)drain);
		ck_assert_int_eq(lh_recorder_stats(rec)->armed, LH_TRACER_UNKNOWN);
		lh_recorder_free(rec);
		teardown();
	}
}
END_TEST

START_TEST(irq_failure_said_once_per_streak)
{
	struct lh_irqstat *ist = lh_irqstat_alloc();
	struct lh_recorder_opts o = opts(0, 5500 * MS);
	struct lh_recorder *rec;
	char *text;

	o.irqstat = ist;
	rec = rec_alloc(&o);
	k.irq_fails = true;
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert_uint_eq(k.irq_reads, 6);
	ck_assert_uint_eq(nr_said, 1);
	ck_assert(said_has(LH_RECORDER_WARNING, "cannot read the IRQ events"));
	ck_assert(!lh_recorder_failed(rec));
	/* Every failure is in the report. */
	lh_recorder_finish(rec);
	text = report_text(rec, LH_FORMAT_TEXT);
	ck_assert_ptr_nonnull(strstr(text, "6 warnings"));
	free(text);
	lh_recorder_free(rec);
	lh_irqstat_free(ist);
}
END_TEST

/* ---- settling before the workload ---- */

START_TEST(settle_waits_for_quiet)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 0);
	struct lh_recorder *rec = rec_alloc(&o);
	int i;

	/* A flurry of rising maxima after arming, one every 50 ms for 400 ms. */
	for (i = 0; i <= 8; i++)
		section(0.05 * i + 0.01, LH_TRACER_IRQSOFF, 10 + i, 1);
	ck_assert_int_eq(lh_recorder_start(rec), 0);
	ck_assert_int_eq(lh_recorder_settle(rec), 0);
	/* The last notification at 411 ms, then LH_RECORDER_SETTLE_QUIET without one. */
	ck_assert_uint_ge(k.now, 411 * MS + LH_RECORDER_SETTLE_QUIET);
	ck_assert_uint_lt(k.now, 411 * MS + 2 * LH_RECORDER_SETTLE_QUIET);
	ck_assert_uint_ge(lh_recorder_stats(rec)->captures, 1);
	ck_assert(!lh_recorder_ended(rec));
	lh_recorder_free(rec);
}
END_TEST

START_TEST(settle_gives_up)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 0);
	struct lh_recorder *rec = rec_alloc(&o);
	int i;

	for (i = 0; i < 100; i++)
		section(0.05 * i + 0.01, LH_TRACER_IRQSOFF, 10 + i, 1);
	ck_assert_int_eq(lh_recorder_start(rec), 0);
	ck_assert_int_eq(lh_recorder_settle(rec), 0);
	ck_assert_uint_ge(k.now, LH_RECORDER_SETTLE_MAX);
	ck_assert_uint_lt(k.now, LH_RECORDER_SETTLE_MAX + LH_RECORDER_SETTLE_QUIET);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(settle_ended_by_an_event)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 0);
	struct lh_recorder *rec = rec_alloc(&o);
	int i;

	for (i = 0; i < 100; i++)
		section(0.05 * i + 0.01, LH_TRACER_IRQSOFF, 10 + i, 1);
	k.event_at = 300 * MS;
	k.event_reason = "SIGTERM";
	ck_assert_int_eq(lh_recorder_start(rec), 0);
	ck_assert_int_eq(lh_recorder_settle(rec), 0);
	ck_assert(lh_recorder_ended(rec));
	ck_assert_uint_eq(k.now, 300 * MS);
	ck_assert_int_eq(lh_recorder_run(rec), LH_RECORDER_END_EVENT);
	ck_assert_uint_eq(k.now, 300 * MS);
	lh_recorder_stop(rec, true);
	lh_recorder_finish(rec);
	ck_assert_str_eq(lh_recorder_info(rec)->end_reason, "SIGTERM");
	lh_recorder_free(rec);
}
END_TEST

/* ---- a run that measured nothing says so ---- */

START_TEST(short_run_not_measured_is_said)
{
	struct lh_recorder_opts o = opts(IRQSOFF | WAKEUP_RT, 5 * S);
	struct lh_recorder *rec = rec_alloc(&o);
	json_object *j;
	char *text;

	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert(lh_recorder_finish(rec));
	ck_assert(!lh_recorder_failed(rec));
	ck_assert_str_eq(lh_recorder_info(rec)->not_measured[LH_TRACER_WAKEUP_RT],
			 "never armed: the run ended before its turn");
	ck_assert_str_eq(lh_recorder_info(rec)->not_measured[LH_TRACER_IRQSOFF],
			 "armed less than one --slice, without a capture");
	j = report_json(rec);
	ck_assert_str_eq(jstr(j, "verdict"), "pass");
	ck_assert_str_eq(jstr(j, "run.not_measured.wakeup_rt"),
			 "never armed: the run ended before its turn");
	ck_assert_str_eq(jstr(j, "run.not_measured.irqsoff"),
			 "armed less than one --slice, without a capture");
	json_object_put(j);
	text = report_text(rec, LH_FORMAT_TEXT);
	ck_assert_ptr_nonnull(strstr(text,
		"  not measured: wakeup_rt (never armed: the run ended before its turn)\n"));
	free(text);
	text = report_text(rec, LH_FORMAT_JUNIT);
	ck_assert_ptr_nonnull(strstr(text,
		"wakeup_rt not measured (never armed: the run ended before its turn)"));
	ck_assert_ptr_null(strstr(text, "<failure"));
	free(text);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(gate_over_what_was_not_measured_is_an_error)
{
	struct lh_recorder_opts o = opts(IRQSOFF | WAKEUP_RT, 5 * S);
	struct lh_recorder *rec;
	struct lh_gate g;
	const char *err;
	json_object *j;
	char *text;

	lh_gate_init(&g);
	ck_assert_int_eq(lh_gate_parse_max(&g, "all=1ms", &err), 0);
	o.gate = &g;
	rec = rec_alloc(&o);
	section(1, LH_TRACER_IRQSOFF, 100, 1);
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	lh_recorder_finish(rec);
	ck_assert(lh_recorder_failed(rec));
	ck_assert_ptr_null(lh_recorder_info(rec)->not_measured[LH_TRACER_IRQSOFF]);
	j = report_json(rec);
	ck_assert_str_eq(jstr(j, "verdict"), "error");
	ck_assert_str_eq(jstr(j, "error"),
		"wakeup_rt was not measured (never armed: the run ended before its turn): its --max budget cannot be judged");
	json_object_put(j);
	text = report_text(rec, LH_FORMAT_TEXT);
	ck_assert_ptr_nonnull(strstr(text, "Verdict: ERROR: wakeup_rt was not measured"));
	free(text);
	text = report_text(rec, LH_FORMAT_JUNIT);
	ck_assert_ptr_nonnull(strstr(text, "<error message=\"wakeup_rt was not measured"));
	free(text);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(what_a_budget_needs_but_the_run_lacks)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 15 * S);
	struct lh_recorder *rec;
	struct lh_gate g;
	const char *err;

	lh_gate_init(&g);
	ck_assert_int_eq(lh_gate_parse_max(&g, "wakeup_dl=1ms", &err), 0);
	o.gate = &g;
	o.wanted = IRQSOFF | (1u << LH_TRACER_PREEMPTOFF);	/* the kernel lacks preemptoff */
	rec = rec_alloc(&o);
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	lh_recorder_finish(rec);
	/* Armed a full slice: no section is a measurement. */
	ck_assert_ptr_null(lh_recorder_info(rec)->not_measured[LH_TRACER_IRQSOFF]);
	ck_assert_str_eq(lh_recorder_info(rec)->not_measured[LH_TRACER_PREEMPTOFF],
			 "not available in this kernel");
	ck_assert_str_eq(lh_recorder_info(rec)->not_measured[LH_TRACER_WAKEUP_DL],
			 "not in --tracer");
	/* Only the budget's tracer fails the run; preemptoff has none. */
	ck_assert(lh_recorder_failed(rec));
	lh_recorder_free(rec);
}
END_TEST

START_TEST(measured_under_budget_passes)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 5 * S);
	struct lh_recorder *rec;
	struct lh_gate g;
	const char *err;

	lh_gate_init(&g);
	ck_assert_int_eq(lh_gate_parse_max(&g, "irqsoff=1ms", &err), 0);
	o.gate = &g;
	rec = rec_alloc(&o);
	section(1, LH_TRACER_IRQSOFF, 100, 1);
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	ck_assert(lh_recorder_finish(rec));
	ck_assert(!lh_recorder_failed(rec));
	lh_recorder_free(rec);
}
END_TEST

START_TEST(caller_failure_is_the_verdict)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 5 * S);
	struct lh_recorder *rec = rec_alloc(&o);
	json_object *j;

	section(1, LH_TRACER_IRQSOFF, 100, 1);
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	lh_recorder_fail(rec, "the command exited with status 3");
	lh_recorder_fail(rec, "a second reason");
	lh_recorder_finish(rec);
	ck_assert(lh_recorder_failed(rec));
	j = report_json(rec);
	ck_assert_str_eq(jstr(j, "verdict"), "error");
	ck_assert_str_eq(jstr(j, "error"), "the command exited with status 3");
	json_object_put(j);
	lh_recorder_free(rec);
}
END_TEST

/* ---- --metrics: at the start, at every checkpoint, at the end ---- */

/* Return: whether the file at path holds line as a whole line. */
static bool file_has_line(const char *path, const char *line)
{
	char *text = slurp(path), *p;
	size_t n = strlen(line);
	bool found = false;

	for (p = text; p && (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			found = true;
	free(text);
	return found;
}

START_TEST(metrics_start_checkpoints_end)
{
	struct lh_recorder_opts o = opts(IRQSOFF | WAKEUP_RT, 200 * S);
	struct lh_recorder *rec;
	struct lh_diag d = { 0 };
	char path[128];

	snprintf(path, sizeof(path), "%s/lathound.prom", dir);
	o.metrics = path;
	rec = rec_alloc(&o);
	section(70, LH_TRACER_IRQSOFF, 150, 1);
	ck_assert_int_eq(lh_recorder_start(rec), 0);
	/* Written at the start: the run is on, irqsoff armed, nothing captured yet. */
	ck_assert(file_has_line(path, "lathound_running 1"));
	ck_assert(file_has_line(path, "lathound_tracer_armed{tracer=\"irqsoff\"} 1"));
	ck_assert(file_has_line(path, "lathound_sections_captured_total{tracer=\"irqsoff\"} 0"));
	ck_assert(file_has_line(path, "lathound_last_checkpoint_timestamp_seconds 1800000000"));
	ck_assert_int_eq(lh_recorder_run(rec), LH_RECORDER_END_DURATION);
	/* The last checkpoint (180 s): the section is in, the run goes on. */
	ck_assert(file_has_line(path, "lathound_last_checkpoint_timestamp_seconds 1800000180"));
	ck_assert(file_has_line(path, "lathound_running 1"));
	ck_assert(file_has_line(path, "lathound_sections_captured_total{tracer=\"irqsoff\"} 1"));
	ck_assert(file_has_line(path,
		"lathound_section_max_latency_seconds{tracer=\"irqsoff\",cpu=\"0\"} 0.00015"));
	ck_assert(file_has_line(path,
		"lathound_tracer_armed_seconds_total{tracer=\"irqsoff\"} 90"));
	lh_recorder_stop(rec, true);
	lh_recorder_finish(rec);
	ck_assert_int_eq(lh_recorder_write_metrics(rec, &d), 0);
	/* The final state: over, nothing armed, each tracer measured. */
	ck_assert(file_has_line(path, "lathound_running 0"));
	ck_assert(file_has_line(path, "lathound_tracer_armed{tracer=\"irqsoff\"} 0"));
	ck_assert(file_has_line(path, "lathound_tracer_measured{tracer=\"wakeup_rt\"} 1"));
	ck_assert(file_has_line(path, "lathound_last_checkpoint_timestamp_seconds 1800000200"));
	ck_assert(file_has_line(path, "lathound_verdict{verdict=\"pass\"} 1"));
	ck_assert_uint_eq(nr_said, 0);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(metrics_unwritable_fails_the_start)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 10 * S);
	struct lh_recorder *rec;
	char path[128];

	snprintf(path, sizeof(path), "%s/no/such/dir/lathound.prom", dir);
	o.metrics = path;
	rec = rec_alloc(&o);
	ck_assert_int_eq(lh_recorder_start(rec), -1);
	ck_assert(lh_recorder_failed(rec));
	ck_assert(said_has(LH_RECORDER_ERROR, "metrics file '"));
	lh_recorder_free(rec);
}
END_TEST

/* The test's hand in the middle of a run: the metrics file becomes a directory, then not. */
static const char *metrics_in_the_way(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/lathound.prom", dir);
	if (k.now < 100 * S) {
		unlink(path);
		mkdir(path, 0755);
		k.event_at = 130 * S;
	} else {
		rmdir(path);
	}
	return NULL;
}

START_TEST(metrics_failure_said_once_and_recovery)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 250 * S);
	struct lh_recorder *rec;
	char path[128];

	snprintf(path, sizeof(path), "%s/lathound.prom", dir);
	o.metrics = path;
	rec = rec_alloc(&o);
	k.event_at = 30 * S;
	k.event_fn = metrics_in_the_way;
	ck_assert_int_eq(lh_recorder_start(rec), 0);
	ck_assert_int_eq(lh_recorder_run(rec), LH_RECORDER_END_DURATION);
	/* 60 and 120 s fail (said once), 180 and 240 s work again (said once). */
	ck_assert_uint_eq(nr_said, 2);
	ck_assert(said_has(LH_RECORDER_WARNING, "written again at the next checkpoint"));
	ck_assert(said_has(LH_RECORDER_INFO, "metrics written again"));
	ck_assert(file_has_line(path, "lathound_last_checkpoint_timestamp_seconds 1800000240"));
	lh_recorder_free(rec);
}
END_TEST

/* ---- histograms counted in the kernel ---- */

static const unsigned int HIST_IRQSOFF = 1u << LH_HIST_IRQSOFF;
static const unsigned int HIST_WAKEUP = 1u << LH_HIST_WAKEUP;

/* A 130 s run counting the irqsoff and wakeup histograms; preemptoff is not counted. */
static struct lh_recorder_opts hist_opts(void)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 130 * S);

	o.hist_kinds = HIST_IRQSOFF | HIST_WAKEUP;
	o.hist_why_not[LH_HIST_PREEMPTOFF] = "no preemptirq:preempt_disable/preempt_enable events";
	return o;
}

static uint64_t ju(json_object *j, const char *path)
{
	json_object *v = jget(j, path);

	ck_assert_msg(v != NULL, "no %s in the report", path);
	return (uint64_t)json_object_get_int64(v);
}

static double jd(json_object *j, const char *path)
{
	json_object *v = jget(j, path);

	ck_assert_msg(v != NULL, "no %s in the report", path);
	return json_object_get_double(v);
}

/* Return: the histogram entry of kind on cpu (-1: all CPUs) in report.json, or NULL. */
static json_object *jhist(json_object *j, const char *kind, int cpu)
{
	json_object *a = jget(j, "histograms"), *e;
	size_t i;

	ck_assert_ptr_nonnull(a);
	for (i = 0; i < json_object_array_length(a); i++) {
		e = json_object_array_get_idx(a, i);
		if (!strcmp(jstr(e, "source"), "kernel") && !strcmp(jstr(e, "kind"), kind) &&
		    (cpu < 0 ? !jget(e, "cpu") : jget(e, "cpu") && ju(e, "cpu") == (uint64_t)cpu))
			return e;
	}
	return NULL;
}

/* Return: the buckets of h as "lo-hi:count lo-hi:count..." (static). */
static const char *jbuckets(json_object *h)
{
	static char buf[256];
	json_object *a = jget(h, "buckets"), *b;
	size_t i, n = 0;

	ck_assert_ptr_nonnull(a);
	buf[0] = '\0';
	for (i = 0; i < json_object_array_length(a); i++) {
		b = json_object_array_get_idx(a, i);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s-%s:%s", i ? " " : "",
				      jstr(b, "lo"), jstr(b, "hi"), jstr(b, "count"));
	}
	return buf;
}

/* Return: whether report.json's input.warnings has one containing s. */
static bool jwarned(json_object *j, const char *s)
{
	json_object *a = jget(j, "input.warnings");
	size_t i;

	for (i = 0; a && i < json_object_array_length(a); i++)
		if (strstr(json_object_get_string(json_object_array_get_idx(a, i)), s))
			return true;
	return false;
}

/* What a sampling tracer's read that worked warns of (events left out) is in the report. */
START_TEST(sampling_read_warnings_kept)
{
	struct lh_recorder_opts o = opts(1u << LH_TRACER_TIMERLAT, 5 * S);
	static const struct lh_run_info info = { .mode = "record", .command_status = -1 };
	struct lh_recorder *rec;
	json_object *j;

	o.info = &info;
	k.sample_warn = "3 noise events left out of the spikes' breakdown";
	rec = lh_recorder_alloc(&sampling_ops, NULL, &o, &hooks);
	ck_assert_int_eq(lh_recorder_start(rec), 0);
	ck_assert_int_eq(lh_recorder_run(rec), LH_RECORDER_END_DURATION);
	lh_recorder_stop(rec, true);
	lh_recorder_finish(rec);
	j = report_json(rec);
	ck_assert(jwarned(j, "3 noise events left out of the spikes' breakdown"));
	json_object_put(j);
	lh_recorder_free(rec);
}
END_TEST

/* Returns: how many times the recorder said text. */
static unsigned int said_count(const char *text)
{
	unsigned int i, n = 0;

	for (i = 0; i < nr_said; i++)
		n += !strcmp(said[i], text);
	return n;
}

/*
 * What arming could not do is said the first time, however often a rotating run arms again;
 * with the report's notes full (they cannot tell what was said), at a tracer's first arm
 * only: here the first arm fills them, and wakeup_rt's first arm says the warning.
 */
/* A two-tracer run of six slices whose every arm warns. Return: how often it was said. */
static unsigned int arm_warning_said(unsigned int fill)
{
	struct lh_recorder_opts o = opts(IRQSOFF | WAKEUP_RT, 55 * S);
	struct lh_recorder *rec;

	k.arm_warn = "cannot start the thread draining CPU 0 (Resource temporarily unavailable)";
	k.arm_fill = fill;
	rec = rec_alloc(&o);
	ck_assert_int_eq(lh_recorder_start(rec), 0);
	ck_assert_int_eq(lh_recorder_run(rec), LH_RECORDER_END_DURATION);
	lh_recorder_stop(rec, true);
	ck_assert_uint_ge(k.nr_arms, 5);
	lh_recorder_free(rec);
	return said_count(k.arm_warn);
}

START_TEST(arm_warnings_said_once)
{
	ck_assert_uint_eq(arm_warning_said(0), 1);
	teardown();
	setup();
	ck_assert_uint_eq(arm_warning_said(LH_DIAG_KEEP), 1);
}
END_TEST

START_TEST(hist_read_at_checkpoints_and_at_the_end)
{
	struct lh_recorder_opts o = hist_opts();
	struct lh_recorder *rec = rec_alloc(&o);
	json_object *j, *h;
	char path[128], *text;

	ck_assert_int_eq(lh_recorder_start(rec), 0);
	ck_assert_int_eq(lh_recorder_run(rec), LH_RECORDER_END_DURATION);
	/* At 60 and 120 s: a soak killed now still has its histograms in report.json. */
	ck_assert_uint_eq(k.hist_reads[LH_HIST_IRQSOFF], 2);
	ck_assert_uint_eq(k.hist_reads[LH_HIST_WAKEUP], 2);
	ck_assert_uint_eq(k.hist_reads[LH_HIST_PREEMPTOFF], 0);
	snprintf(path, sizeof(path), "%s/out/report.json", dir);
	text = slurp(path);
	j = json_tokener_parse(text);
	ck_assert_ptr_nonnull(j);
	ck_assert_ptr_nonnull(jhist(j, "irqsoff", -1));
	ck_assert_uint_eq(ju(jhist(j, "irqsoff", -1), "count"), 120 + 100 + 3);
	json_object_put(j);
	free(text);

	/* The last read, at the end (130 s), is the one the report shows. */
	lh_recorder_stop(rec, true);
	ck_assert_uint_eq(k.hist_reads[LH_HIST_IRQSOFF], 3);
	lh_recorder_finish(rec);
	j = report_json(rec);
	/* irqsoff and wakeup, all CPUs and CPUs 0 and 1 each; preemptoff is not counted */
	ck_assert_int_eq(json_object_array_length(jget(j, "histograms")), 6);
	h = jhist(j, "irqsoff", -1);
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(jstr(h, "unit"), "us");
	ck_assert_uint_eq(ju(h, "count"), 233);
	ck_assert_uint_eq(ju(h, "dropped"), 0);
	/* (130 x 5050 + 150 + 3 x 12000) / 233 us, exact from the sums */
	ck_assert_double_eq_tol(jd(h, "mean"), (130 * 5050.0 + 150 + 36000) / 233, 0.001);
	/* The extremes are the outer bounds of the lowest and highest bucket. */
	ck_assert_uint_eq(ju(h, "min"), 1);
	ck_assert_double_eq_tol(jd(h, "max"), 16777.217, 1e-6);
	/* Nearest rank over 100 of 1-2 us, 130 of 5000-5099 us, 3 of 10-16.7 ms. */
	ck_assert_uint_eq(ju(h, "percentiles.p50"), 5100);
	ck_assert_uint_eq(ju(h, "resolution.p50"), 100);
	ck_assert_double_eq_tol(jd(h, "percentiles.p99"), 16777.217, 1e-6);
	ck_assert_double_eq_tol(jd(h, "resolution.p99"), 6777.217, 1e-6);
	ck_assert_double_eq_tol(jd(h, "percentiles.p99_99"), 16777.217, 1e-6);
	ck_assert_str_eq(jbuckets(h), "1-2:100 5000-5100:130 10000-16777.217:3");
	/* Per CPU, buckets by ascending latency. */
	ck_assert_str_eq(jbuckets(jhist(j, "irqsoff", 0)), "1-2:100 5000-5100:130");
	ck_assert_str_eq(jbuckets(jhist(j, "irqsoff", 1)), "10000-16777.217:3");
	ck_assert_uint_eq(ju(jhist(j, "wakeup", 1), "count"), 3);
	ck_assert_ptr_null(jhist(j, "preemptoff", -1));
	ck_assert(jwarned(j, "the preemptoff histogram is not counted: "
			  "no preemptirq:preempt_disable/preempt_enable events"));
	ck_assert_str_eq(jstr(j, "verdict"), "pass");
	json_object_put(j);
	text = report_text(rec, LH_FORMAT_TEXT);
	ck_assert_ptr_nonnull(strstr(text,
		"  irqsoff, every section counted by the kernel: 233, min 1us, mean "));
	ck_assert_ptr_nonnull(strstr(text, "the preemptoff histogram is not counted"));
	free(text);
	ck_assert_uint_eq(nr_said, 0);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(hist_read_failure_keeps_the_last_good_read)
{
	struct lh_recorder_opts o = hist_opts();
	struct lh_recorder *rec = rec_alloc(&o);
	json_object *j;

	k.hist_fails_at = 100 * S;
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	lh_recorder_finish(rec);
	/* Said once per kind, however many reads fail; not an error: nothing is judged on it. */
	ck_assert_uint_eq(nr_said, 2);
	ck_assert(said_has(LH_RECORDER_WARNING, "cannot read the irqsoff histogram"));
	ck_assert(!lh_recorder_failed(rec));
	j = report_json(rec);
	ck_assert_str_eq(jstr(j, "verdict"), "pass");
	/* the read at 60 s */
	ck_assert_uint_eq(ju(jhist(j, "irqsoff", -1), "count"), 60 + 100 + 3);
	ck_assert(jwarned(j, "cannot read the irqsoff histogram: No such device"));
	json_object_put(j);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(hist_dropped_sections_said_once)
{
	struct lh_recorder_opts o = hist_opts();
	struct lh_recorder *rec;
	json_object *j;
	char *text;

	o.hist_kinds = HIST_WAKEUP;
	rec = rec_alloc(&o);
	k.hist_dropped = 7;
	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	lh_recorder_finish(rec);
	ck_assert_uint_eq(k.hist_reads[LH_HIST_WAKEUP], 3);
	ck_assert_uint_eq(nr_said, 1);
	ck_assert(said_has(LH_RECORDER_WARNING,
			   "the wakeup histogram dropped 7 sections (its kernel map is full)"));
	j = report_json(rec);
	ck_assert_uint_eq(ju(jhist(j, "wakeup", -1), "dropped"), 7);
	/* a CPU's histogram does not repeat what only the whole kind knows */
	ck_assert_uint_eq(ju(jhist(j, "wakeup", 0), "dropped"), 0);
	ck_assert_ptr_null(jhist(j, "irqsoff", -1));
	ck_assert(jwarned(j, "the wakeup histogram dropped 7 sections"));
	json_object_put(j);
	text = report_text(rec, LH_FORMAT_TEXT);
	ck_assert_ptr_nonnull(strstr(text, "    7 sections the kernel could not count\n"));
	free(text);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(hist_read_at_the_end_without_drain_never_before_start)
{
	struct lh_recorder_opts o = hist_opts();
	struct lh_recorder *rec = rec_alloc(&o);

	/* A run that never started (tracefs failed first) reads nothing. */
	lh_recorder_stop(rec, false);
	ck_assert_uint_eq(k.hist_reads[LH_HIST_IRQSOFF], 0);
	lh_recorder_free(rec);

	rec = rec_alloc(&o);
	ck_assert_int_eq(lh_recorder_start(rec), 0);
	k.event_at = 5 * S;
	k.event_reason = "SIGINT";
	ck_assert_int_eq(lh_recorder_run(rec), LH_RECORDER_END_EVENT);
	/* A second signal: no last capture, but the histograms are read. */
	lh_recorder_stop(rec, false);
	lh_recorder_stop(rec, true);
	ck_assert_uint_eq(k.hist_reads[LH_HIST_IRQSOFF], 1);
	ck_assert_uint_eq(lh_recorder_hist(rec)->data[LH_HIST_IRQSOFF].hits, 5 + 100 + 3);
	lh_recorder_free(rec);
}
END_TEST

START_TEST(no_histograms_asked)
{
	struct lh_recorder_opts o = opts(IRQSOFF, 130 * S);
	struct lh_recorder *rec = rec_alloc(&o);
	json_object *j;

	ck_assert_int_eq(run_all(rec), LH_RECORDER_END_DURATION);
	lh_recorder_finish(rec);
	ck_assert_uint_eq(k.hist_reads[LH_HIST_IRQSOFF] + k.hist_reads[LH_HIST_WAKEUP], 0);
	j = report_json(rec);
	ck_assert_int_eq(json_object_array_length(jget(j, "histograms")), 0);
	ck_assert(!jwarned(j, "histogram"));
	json_object_put(j);
	lh_recorder_free(rec);
}
END_TEST

static Suite *recorder_suite(void)
{
	Suite *s = suite_create("recorder");
	TCase *tc = tcase_create("slices");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, slices_rotate_tracers);
	tcase_add_test(tc, sampling_tracer_takes_its_slices);
	tcase_add_test(tc, sampling_read_warnings_kept);
	tcase_add_test(tc, arm_warnings_said_once);
	tcase_add_test(tc, one_tracer_is_armed_once);
	tcase_add_test(tc, no_tracer_irq_statistics_only);
	suite_add_tcase(s, tc);

	tc = tcase_create("deadlines");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, checkpoints_on_time);
	tcase_add_test(tc, checkpoint_failure_said_once_and_recovery);
	tcase_add_test(tc, metrics_start_checkpoints_end);
	tcase_add_test(tc, metrics_unwritable_fails_the_start);
	tcase_add_test(tc, metrics_failure_said_once_and_recovery);
	tcase_add_test(tc, event_ends_run);
	tcase_add_test(tc, event_that_does_not_end);
	tcase_add_test(tc, wait_error_fails_the_run);
	tcase_add_test(tc, arm_error_at_a_slice_fails_the_run);
	tcase_add_test(tc, arm_error_at_start);
	suite_add_tcase(s, tc);

	tc = tcase_create("captures");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, running_max_burst_read_once_at_its_largest);
	tcase_add_test(tc, threshold_reads_each_section_at_once);
	tcase_add_test(tc, loss_accounted_per_tracer);
	tcase_add_test(tc, section_at_slice_end_belongs_to_its_tracer);
	tcase_add_test(tc, rotation_continues_the_running_max);
	tcase_add_test(tc, threshold_arms_from_zero);
	tcase_add_test(tc, blind_time_per_tracer);
	tcase_add_test(tc, live_reads_blind_only_when_torn);
	tcase_add_test(tc, snapshot_without_a_section_is_lost);
	tcase_add_test(tc, polling_finds_sections);
	tcase_add_test(tc, irq_failure_said_once_per_streak);
	suite_add_tcase(s, tc);

	/* Sets up each round itself. */
	tc = tcase_create("stop");
	tcase_add_test(tc, stop_with_and_without_drain);
	suite_add_tcase(s, tc);

	tc = tcase_create("settle");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, settle_waits_for_quiet);
	tcase_add_test(tc, settle_gives_up);
	tcase_add_test(tc, settle_ended_by_an_event);
	suite_add_tcase(s, tc);

	tc = tcase_create("measured");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, short_run_not_measured_is_said);
	tcase_add_test(tc, gate_over_what_was_not_measured_is_an_error);
	tcase_add_test(tc, what_a_budget_needs_but_the_run_lacks);
	tcase_add_test(tc, measured_under_budget_passes);
	tcase_add_test(tc, caller_failure_is_the_verdict);
	suite_add_tcase(s, tc);

	tc = tcase_create("histograms");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, hist_read_at_checkpoints_and_at_the_end);
	tcase_add_test(tc, hist_read_failure_keeps_the_last_good_read);
	tcase_add_test(tc, hist_dropped_sections_said_once);
	tcase_add_test(tc, hist_read_at_the_end_without_drain_never_before_start);
	tcase_add_test(tc, no_histograms_asked);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(recorder_suite)
