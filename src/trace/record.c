// SPDX-License-Identifier: GPL-2.0-only
/* The structured latency record: storage, copies and signatures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "record.h"

static const struct {
	const char	*name;
	const char	*config;
	bool		wakeup;
	bool		sampling;
} tracers[LH_TRACER_NR] = {
	[LH_TRACER_UNKNOWN]		= { .name = "unknown" },
	[LH_TRACER_IRQSOFF]		= { .name = "irqsoff", .config = "CONFIG_IRQSOFF_TRACER" },
	[LH_TRACER_PREEMPTOFF]		= { .name = "preemptoff", .config = "CONFIG_PREEMPT_TRACER" },
	[LH_TRACER_PREEMPTIRQSOFF]	= { .name = "preemptirqsoff",
					    .config = "CONFIG_IRQSOFF_TRACER and CONFIG_PREEMPT_TRACER" },
	[LH_TRACER_WAKEUP]		= { .name = "wakeup", .config = "CONFIG_SCHED_TRACER",
					    .wakeup = true },
	[LH_TRACER_WAKEUP_RT]		= { .name = "wakeup_rt", .config = "CONFIG_SCHED_TRACER",
					    .wakeup = true },
	[LH_TRACER_WAKEUP_DL]		= { .name = "wakeup_dl", .config = "CONFIG_SCHED_TRACER",
					    .wakeup = true },
	[LH_TRACER_TIMERLAT]		= { .name = "timerlat", .config = "CONFIG_TIMERLAT_TRACER",
					    .sampling = true },
	[LH_TRACER_OSNOISE]		= { .name = "osnoise", .config = "CONFIG_OSNOISE_TRACER",
					    .sampling = true },
	[LH_TRACER_HWLAT]		= { .name = "hwlat", .config = "CONFIG_HWLAT_TRACER",
					    .sampling = true },
};

const char *lh_tracer_name(enum lh_tracer t)
{
	return (unsigned int)t < LH_TRACER_NR ? tracers[t].name : "unknown";
}

enum lh_tracer lh_tracer_from_name(const char *name, size_t len)
{
	int t;

	for (t = 1; t < LH_TRACER_NR; t++)
		if (strlen(tracers[t].name) == len && !strncasecmp(tracers[t].name, name, len))
			return t;
	return LH_TRACER_UNKNOWN;
}

bool lh_tracer_is_wakeup(enum lh_tracer t)
{
	return (unsigned int)t < LH_TRACER_NR && tracers[t].wakeup;
}

bool lh_tracer_is_sampling(enum lh_tracer t)
{
	return (unsigned int)t < LH_TRACER_NR && tracers[t].sampling;
}

unsigned int lh_tracer_sampling_mask(void)
{
	unsigned int m = 0;
	int t;

	for (t = 1; t < LH_TRACER_NR; t++)
		if (tracers[t].sampling)
			m |= 1u << t;
	return m;
}

const char *lh_tracer_config(enum lh_tracer t)
{
	return (unsigned int)t < LH_TRACER_NR ? tracers[t].config : NULL;
}

static void task_init(struct lh_task *t)
{
	t->comm = NULL;
	t->pid = t->uid = t->nice = t->policy = t->rt_prio = t->prio = -1;
	t->state = 0;
}

static const char *const spike_kinds[LH_SPIKE_KIND_NR] = {
	[LH_SPIKE_IRQ] = "irq", [LH_SPIKE_SOFTIRQ] = "softirq", [LH_SPIKE_NMI] = "nmi",
	[LH_SPIKE_THREAD] = "thread",
};

static const char *const section_states[] = {
	[LH_SPIKE_SECTION_NOT_MEASURED] = "not_measured", [LH_SPIKE_SECTION_NONE] = "none",
	[LH_SPIKE_SECTION_FOUND] = "found",
};

/* Return: the index of name in names[0, nr), or -1. */
static int name_index(const char *const *names, int nr, const char *name)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

const char *lh_spike_kind_name(enum lh_spike_kind k)
{
	return (unsigned int)k < LH_SPIKE_KIND_NR ? spike_kinds[k] : "unknown";
}

int lh_spike_kind_parse(const char *name, enum lh_spike_kind *k)
{
	int i = name_index(spike_kinds, LH_SPIKE_KIND_NR, name);

	if (i < 0)
		return -1;
	*k = i;
	return 0;
}

const char *lh_spike_section_state_name(enum lh_spike_section_state st)
{
	return (unsigned int)st < LH_ARRAY_SIZE(section_states) ? section_states[st] : "unknown";
}

int lh_spike_section_state_parse(const char *name, enum lh_spike_section_state *st)
{
	int i = name_index(section_states, LH_ARRAY_SIZE(section_states), name);

	if (i < 0)
		return -1;
	*st = i;
	return 0;
}

unsigned int lh_spike_permille(uint64_t ns, uint64_t latency_ns)
{
	if (!latency_ns)
		return 0;
	if (ns >= latency_ns)
		return 1000;
	/* ns < latency_ns: ns * 1000 overflows only past 1.8e16 ns, then divide first */
	if (ns > UINT64_MAX / 1000)
		return (unsigned int)(ns / (latency_ns / 1000));
	return (unsigned int)(ns * 1000 / latency_ns);
}

/* Clears every field but the storage (arena, arrays and their capacities). */
static void record_clear(struct lh_record *r)
{
	size_t i;

	r->tracer = LH_TRACER_UNKNOWN;
	r->tracer_name = NULL;
	r->latency_us = 0;
	r->cpu = r->nr_cpus = -1;
	r->preempt_model = r->kernel = NULL;
	r->entries = r->entries_total = r->entries_present = 0;
	r->elided = r->truncated = r->unended = false;
	r->start_lost_us = 0;
	task_init(&r->task);
	task_init(&r->woken);
	task_init(&r->waker);
	r->has_wakeup = false;
	r->started_at = r->ended_at = NULL;
	r->started_at_offset = r->ended_at_offset = NULL;
	for (i = 0; i < LH_MAX_STACKS; i++)
		r->stacks[i].nr = 0;
	r->nr_stacks = 0;
	r->nr_funcs = 0;
	r->nr_irqs = 0;
	memset(&r->spike, 0, sizeof(r->spike));
	task_init(&r->spike.blocking);
	task_init(&r->spike.culprit);
	r->source = NULL;
	r->line = 0;
	r->captured_ns = 0;
}

struct lh_record *lh_record_alloc(void)
{
	struct lh_record *r = lh_xcalloc(1, sizeof(*r));

	record_clear(r);
	return r;
}

void lh_record_reset(struct lh_record *r)
{
	record_clear(r);
	lh_arena_reset(&r->arena);
}

void lh_record_free(struct lh_record *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < LH_MAX_STACKS; i++) {
		free(r->stacks[i].frames);
		free(r->stacks[i].offsets);
	}
	free(r->funcs);
	free(r->irqs);
	lh_arena_release(&r->arena);
	free(r);
}

static const char *dup_str(struct lh_record *to, const char *s)
{
	return s ? lh_arena_strdup(&to->arena, s) : NULL;
}

static void dup_task(struct lh_record *to, struct lh_task *dst, const struct lh_task *src)
{
	*dst = *src;
	dst->comm = dup_str(to, src->comm);
}

void lh_record_copy(struct lh_record *c, const struct lh_record *r)
{
	size_t i, j;

	lh_record_reset(c);
	c->tracer = r->tracer;
	c->tracer_name = dup_str(c, r->tracer_name);
	c->latency_us = r->latency_us;
	c->cpu = r->cpu;
	c->nr_cpus = r->nr_cpus;
	c->preempt_model = dup_str(c, r->preempt_model);
	c->kernel = dup_str(c, r->kernel);
	c->entries = r->entries;
	c->entries_total = r->entries_total;
	c->entries_present = r->entries_present;
	c->elided = r->elided;
	c->truncated = r->truncated;
	c->unended = r->unended;
	c->start_lost_us = r->start_lost_us;
	dup_task(c, &c->task, &r->task);
	dup_task(c, &c->woken, &r->woken);
	dup_task(c, &c->waker, &r->waker);
	c->has_wakeup = r->has_wakeup;
	c->started_at = dup_str(c, r->started_at);
	c->ended_at = dup_str(c, r->ended_at);
	c->started_at_offset = dup_str(c, r->started_at_offset);
	c->ended_at_offset = dup_str(c, r->ended_at_offset);
	for (i = 0; i < LH_MAX_STACKS; i++) {
		const struct lh_stack *s = &r->stacks[i];
		struct lh_stack *d = &c->stacks[i];

		if (s->nr > d->alloc) {
			LH_GROW(d->frames, s->nr, d->alloc);
			d->offsets = realloc(d->offsets, d->alloc * sizeof(*d->offsets));
			if (!d->offsets)
				lh_oom();
		}
		for (j = 0; j < s->nr; j++) {
			d->frames[j] = dup_str(c, s->frames[j]);
			d->offsets[j] = dup_str(c, s->offsets[j]);
		}
		d->nr = s->nr;
	}
	c->nr_stacks = r->nr_stacks;
	LH_GROW(c->funcs, r->nr_funcs, c->alloc_funcs);
	for (i = 0; i < r->nr_funcs; i++) {
		const struct lh_func *f = &r->funcs[i];

		c->funcs[i].name = f->name ? lh_arena_strndup(&c->arena, f->name, f->len) : NULL;
		c->funcs[i].len = f->len;
		c->funcs[i].count = f->count;
	}
	c->nr_funcs = r->nr_funcs;
	LH_GROW(c->irqs, r->nr_irqs, c->alloc_irqs);
	for (i = 0; i < r->nr_irqs; i++) {
		c->irqs[i] = r->irqs[i];
		c->irqs[i].name = dup_str(c, r->irqs[i].name);
		c->irqs[i].ret = dup_str(c, r->irqs[i].ret);
	}
	c->nr_irqs = r->nr_irqs;
	c->spike = r->spike;
	dup_task(c, &c->spike.blocking, &r->spike.blocking);
	dup_task(c, &c->spike.culprit, &r->spike.culprit);
	for (i = 0; i < r->spike.nr_parts; i++)
		c->spike.parts[i].name = dup_str(c, r->spike.parts[i].name);
	c->spike.section.caller = dup_str(c, r->spike.section.caller);
	c->source = dup_str(c, r->source);
	c->line = r->line;
	c->captured_ns = r->captured_ns;
}

struct lh_record *lh_record_dup(const struct lh_record *r)
{
	struct lh_record *c = lh_record_alloc();

	lh_record_copy(c, r);
	return c;
}

void lh_record_add_frame_off(struct lh_record *r, size_t stack, const char *s, size_t len,
			     const char *off, size_t off_len)
{
	struct lh_stack *st;
	size_t alloc;

	if (stack >= LH_MAX_STACKS)
		return;
	st = &r->stacks[stack];
	alloc = st->alloc;
	LH_GROW(st->frames, st->nr + 1, st->alloc);
	if (st->alloc != alloc || !st->offsets) {
		st->offsets = realloc(st->offsets, st->alloc * sizeof(*st->offsets));
		if (!st->offsets)
			lh_oom();
	}
	st->frames[st->nr] = lh_arena_strndup(&r->arena, s, len);
	st->offsets[st->nr++] = off ? lh_arena_strndup(&r->arena, off, off_len) : NULL;
	if (r->nr_stacks < stack + 1)
		r->nr_stacks = stack + 1;
}

void lh_record_add_frame(struct lh_record *r, size_t stack, const char *s, size_t len)
{
	lh_record_add_frame_off(r, stack, s, len, NULL, 0);
}

/*
 * Return: the length of the valid, printable UTF-8 character at s (at most n bytes, not
 * NUL-terminated), 0 when none: lh_utf8_printable(), less U+FFFE and U+FFFF (XML refuses them).
 */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	unsigned char tail[5] = { 0 };
	size_t len;

	if (n < 4)	/* lh_utf8_printable() reads at most 4 bytes, or up to a NUL */
		s = memcpy(tail, s, n);
	len = lh_utf8_printable(s);
	if (len == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
		return 0;
	return len;
}

size_t lh_record_escape(char *dst, size_t size, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0, o = 0, n;

	while (i < len) {
		if (s[i] >= 0x20 && s[i] < 0x7f) {
			if (o + 1 >= size)
				break;
			dst[o++] = (char)s[i++];
		} else if ((n = utf8_char(s + i, len - i))) {
			if (o + n >= size)
				break;
			memcpy(dst + o, s + i, n);
			o += n;
			i += n;
		} else {
			if (o + 4 >= size)
				break;
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[s[i] >> 4];
			dst[o++] = hex[s[i] & 15];
			i++;
		}
	}
	dst[o] = '\0';
	return o;
}

char *lh_record_escape_dup(const char *s)
{
	size_t n = strlen(s);
	char *d = lh_xmalloc(lh_record_escape_len(n));

	lh_record_escape(d, lh_record_escape_len(n), s, n);
	return d;
}

const char *lh_record_strndup(struct lh_record *r, const char *s, size_t len)
{
	size_t i;
	char *d;

	for (i = 0; i < len && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f; i++)
		;
	if (i == len)
		return lh_arena_strndup(&r->arena, s, len);
	d = lh_arena_alloc(&r->arena, lh_record_escape_len(len));
	lh_record_escape(d, lh_record_escape_len(len), s, len);
	return d;
}

enum lh_body lh_record_body(const struct lh_record *r)
{
	/* an elision is a person's choice; an end, a cap or the kernel's loss inside it is not */
	if (r->truncated || r->unended || r->start_lost_us)
		return LH_BODY_CUT;
	if (r->elided)
		return LH_BODY_ELIDED;
	if (r->entries_present < r->entries)
		return LH_BODY_CUT;
	return LH_BODY_COMPLETE;
}

const char *lh_body_name(enum lh_body b)
{
	switch (b) {
	case LH_BODY_COMPLETE:
		return "complete";
	case LH_BODY_ELIDED:
		return "elided";
	case LH_BODY_CUT:
		break;
	}
	return "cut";
}

struct lh_irq *lh_record_add_irq(struct lh_record *r)
{
	struct lh_irq *q;

	LH_GROW(r->irqs, r->nr_irqs + 1, r->alloc_irqs);
	q = &r->irqs[r->nr_irqs++];
	memset(q, 0, sizeof(*q));
	q->irq = -1;
	q->duration_us = -1;
	return q;
}

struct lh_func *lh_record_add_func(struct lh_record *r, const char *name, size_t len)
{
	struct lh_func *f;

	LH_GROW(r->funcs, r->nr_funcs + 1, r->alloc_funcs);
	f = &r->funcs[r->nr_funcs++];
	f->name = name;
	f->len = name ? (unsigned int)len : 0;
	f->count = 0;
	return f;
}

/*
 * Innermost frames that are the tracer's or the scheduler's own plumbing: a wakeup
 * tracer's stacks start in probe_wakeup/__schedule, an irqs-off one in trace_hardirqs_on.
 */
static bool frame_is_plumbing(const char *f, bool wakeup)
{
	static const char *const tracing[] = {
		"__ftrace_trace_stack", "ftrace_", "probe_wakeup", "__traceiter_", "trace_",
		"tracer_", "__trace_",
	};
	static const char *const sched[] = {
		"__schedule", "schedule", "preempt_schedule", "__cond_resched", "_cond_resched",
	};
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(tracing); i++)
		if (!strncmp(f, tracing[i], strlen(tracing[i])))
			return true;
	for (i = 0; wakeup && i < LH_ARRAY_SIZE(sched); i++)
		if (!strncmp(f, sched[i], strlen(sched[i])))
			return true;
	return false;
}

size_t lh_record_culprit_frames(const struct lh_record *r, const char **frames, size_t max)
{
	bool wakeup = lh_tracer_is_wakeup(r->tracer) || r->has_wakeup;
	const struct lh_stack *s;
	size_t i = 0, n = 0;

	if (!r->nr_stacks)
		return 0;
	/* A wakeup's culprit is what ran until the switch: the last stack's caller side. */
	s = &r->stacks[wakeup ? r->nr_stacks - 1 : 0];
	while (i < s->nr && frame_is_plumbing(s->frames[i], wakeup))
		i++;
	if (i == s->nr)
		i = 0;	/* all plumbing: keep them rather than nothing */
	for (; i < s->nr && n < max; i++)
		frames[n++] = s->frames[i];
	return n;
}

/* Drops a UTF-8 character that a truncation of s cut short at its end. */
static void utf8_trim(char *s)
{
	size_t n = strlen(s), i = n, need;

	while (i > 0 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (!i || (unsigned char)s[i - 1] < 0xc0)
		return;
	need = (unsigned char)s[i - 1] < 0xe0 ? 2 : (unsigned char)s[i - 1] < 0xf0 ? 3 : 4;
	if (n - (i - 1) < need)
		s[i - 1] = '\0';
}

void lh_record_signature_of(const struct lh_record *r, struct lh_signature *sig)
{
	sig->tracer = r->tracer;
	sig->started = r->started_at;
	sig->ended = r->ended_at;
	sig->nr_frames = lh_record_culprit_frames(r, sig->frames, LH_SIGNATURE_FRAMES);
	sig->has_wakeup = r->has_wakeup;
	sig->woken = r->has_wakeup ? r->woken.comm : NULL;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	if (!s)
		return (h ^ 0xff) * 0x9e3779b97f4a7c15ULL;
	return lh_hash_fast(s, strlen(s), h);
}

/*
 * Hashing and comparing the fields rather than the text is what keeps grouping a record
 * cheap: the text is only built for a new group or a record kept in full.
 */
uint64_t lh_signature_hash(const struct lh_signature *sig)
{
	uint64_t h = 0x6c68736967ULL ^ (uint64_t)sig->tracer;
	size_t i;

	h = hash_str(h, sig->started);
	h = hash_str(h, sig->ended);
	for (i = 0; i < sig->nr_frames; i++)
		h = hash_str(h, sig->frames[i]);
	h ^= sig->nr_frames;
	if (sig->has_wakeup)
		h = hash_str(h ^ 1, sig->woken);
	return h;
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool lh_signature_equal(const struct lh_signature *a, const struct lh_signature *b)
{
	size_t i;

	if (a->tracer != b->tracer || a->nr_frames != b->nr_frames ||
	    a->has_wakeup != b->has_wakeup || !str_eq(a->started, b->started) ||
	    !str_eq(a->ended, b->ended))
		return false;
	for (i = 0; i < a->nr_frames; i++)
		if (!str_eq(a->frames[i], b->frames[i]))
			return false;
	return !a->has_wakeup || str_eq(a->woken, b->woken);
}

char *lh_signature_text(const struct lh_signature *sig, char *buf, size_t len)
{
	size_t off, i;
	int n;

	n = snprintf(buf, len, "%s|%s|%s|", lh_tracer_name(sig->tracer),
		     sig->started ? sig->started : "-", sig->ended ? sig->ended : "-");
	off = n < 0 ? 0 : (size_t)n;
	for (i = 0; i < sig->nr_frames && off < len; i++) {
		n = snprintf(buf + off, len - off, "%s%s", i ? "<" : "", sig->frames[i]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	if (sig->has_wakeup && off < len)
		snprintf(buf + off, len - off, "|%s", sig->woken ? sig->woken : "-");
	utf8_trim(buf);
	return buf;
}

char *lh_record_signature(const struct lh_record *r, char *buf, size_t len)
{
	struct lh_signature sig;

	lh_record_signature_of(r, &sig);
	return lh_signature_text(&sig, buf, len);
}

uint64_t lh_record_signature_hash(const struct lh_record *r)
{
	struct lh_signature sig;

	lh_record_signature_of(r, &sig);
	return lh_signature_hash(&sig);
}
