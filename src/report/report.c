// SPDX-License-Identifier: GPL-2.0-only
/*
 * Worst-case latency reports: aggregation of every record (per tracer, per CPU progression
 * of maxima, offenders by signature, rule hits), a bounded set of records kept in full,
 * gate evaluation, and the atomic report file. The writers live in report-*.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "report-priv.h"
#include "rules/rules.h"
#include "util/lockfile.h"

int lh_format_parse(const char *name, enum lh_format *f)
{
	static const char *const names[] = {
		[LH_FORMAT_TEXT] = "text", [LH_FORMAT_JSON] = "json", [LH_FORMAT_JUNIT] = "junit",
		[LH_FORMAT_HTML] = "html",
	};
	size_t i;

	for (i = 0; name && i < LH_ARRAY_SIZE(names); i++) {
		if (!strcmp(name, names[i])) {
			*f = (enum lh_format)i;
			return 0;
		}
	}
	return -1;
}

char *lh_report_fmt_us(uint64_t ns, char *buf, size_t len)
{
	if (ns % 1000 == 0)
		snprintf(buf, len, "%lluus", (unsigned long long)(ns / 1000));
	else
		snprintf(buf, len, "%llu.%03lluus", (unsigned long long)(ns / 1000),
			 (unsigned long long)(ns % 1000));
	return buf;
}

static int cmp_floor(const void *a, const void *b)
{
	const struct lh_report_floor *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

struct lh_report_floor *lh_report_floors(const struct lh_report *rep, size_t *n)
{
	struct lh_report_floor *v = NULL;
	size_t i, alloc = 0;
	uint64_t lo;
	bool software = false;
	int k;

	*n = 0;
	for (k = 0; k < LH_TRACER_NR; k++)
		software |= k != LH_TRACER_HWLAT && k != LH_TRACER_UNKNOWN && rep->tracers[k].count;
	for (i = 0; software && i < rep->nr_hists; i++) {
		const struct lh_report_histogram *h = &rep->hists[i];
		struct lh_report_floor *f;

		if (h->cpu < 0 || !h->h.count || strcmp(h->source, "kernel") ||
		    strcmp(h->kind, "hwlat"))
			continue;
		LH_GROW(v, *n + 1, alloc);
		f = &v[(*n)++];
		f->cpu = h->cpu;
		f->hwlat = &h->h;
		/* the percentiles' index 1 is p99 (histogram.h) */
		f->has_p99 = lh_histogram_percentile(&h->h, 1, &lo, &f->p99_ns);
		f->nr_sw = 0;
		for (k = 0; k < LH_TRACER_NR; k++) {
			enum lh_tracer t = lh_tracer_at(k);
			const struct lh_report_tracer *tr = &rep->tracers[t];
			size_t slot = (size_t)h->cpu + 1;

			if (t == LH_TRACER_HWLAT || t == LH_TRACER_UNKNOWN || slot >= tr->nr_cpus ||
			    !tr->cpus[slot].count || !tr->cpus[slot].worst)
				continue;
			f->sw[f->nr_sw].tracer = t;
			f->sw[f->nr_sw++].worst_us = tr->cpus[slot].worst->latency_us;
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_floor);
	return v;
}

char *lh_report_floor_text(const struct lh_report_floor *f, char *buf, size_t len)
{
	char over[48], d[32];
	size_t k, at = 0;

	snprintf(buf, len, "-");
	for (k = 0; k < f->nr_sw && at < len; k++) {
		uint64_t us = f->sw[k].worst_us;

		if (lh_report_floor_within(f, us))
			snprintf(over, sizeof(over), "within the floor");
		else
			snprintf(over, sizeof(over), "%s over it",
				 lh_report_fmt_us(lh_report_us_to_ns(us) - f->hwlat->max_ns, d,
						  sizeof(d)));
		at += (size_t)snprintf(buf + at, len - at, "%s%s %" PRIu64 "us (%s)", k ? ", " : "",
				       lh_tracer_name(f->sw[k].tracer), us, over);
	}
	return buf;
}

char *lh_report_floor_p99(const struct lh_report_floor *f, const char *prefix, char *buf,
			  size_t len)
{
	char us[32];

	if (!f->has_p99)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s%s", prefix, lh_report_fmt_us(f->p99_ns, us, sizeof(us)));
	return buf;
}

char *lh_report_section_text(const struct lh_spike *sp, char *buf, size_t len)
{
	const struct lh_spike_section *x = &sp->section;
	char min[32], dur[32], off[32], watched[32];
	unsigned int pm = lh_spike_permille(x->overlap_ns, sp->latency_ns);

	snprintf(watched, sizeof(watched), "%s%s%s",
		 x->watched & (1u << LH_TRACER_IRQSOFF) ? "irqsoff" : "",
		 x->watched == ((1u << LH_TRACER_IRQSOFF) | (1u << LH_TRACER_PREEMPTOFF)) ? " or " : "",
		 x->watched & (1u << LH_TRACER_PREEMPTOFF) ? "preemptoff" : "");
	lh_report_fmt_us(x->min_ns, min, sizeof(min));
	if (!x->watched)
		buf[0] = '\0';
	else if (x->state == LH_SPIKE_SECTION_NONE)
		snprintf(buf, len, "no %s section of %s or more overlapped it", watched, min);
	else if (x->state != LH_SPIKE_SECTION_FOUND)
		snprintf(buf, len, "not measured: the %s sections of this CPU were lost", watched);
	else
		snprintf(buf, len, "%s %s from %s, began %s %s the expiry, covers %u.%u %% of the spike",
			 lh_tracer_name(x->tracer), lh_report_fmt_us(x->duration_ns, dur, sizeof(dur)),
			 x->caller ? x->caller : "an unknown site",
			 lh_report_fmt_us(x->offset_ns < 0 ? (uint64_t)-x->offset_ns
							   : (uint64_t)x->offset_ns, off, sizeof(off)),
			 x->offset_ns < 0 ? "before" : "after", pm / 10, pm % 10);
	return buf;
}

char *lh_report_body_text(const struct lh_record *r, char *buf, size_t len)
{
	enum lh_body b = lh_record_body(r);

	if (r->start_lost_us)
		snprintf(buf, len, "%s, %lu of %lu entries shown, from %llu us into the section "
			 "(the ring buffer lost the first ones)", lh_body_name(b),
			 r->entries_present, r->entries, (unsigned long long)r->start_lost_us);
	else if (b != LH_BODY_COMPLETE)
		snprintf(buf, len, "%s, %lu of %lu entries shown%s", lh_body_name(b),
			 r->entries_present, r->entries,
			 r->truncated ? " (cut by lathound's size limits)" : "");
	else
		buf[0] = '\0';
	return buf;
}

#define TEXT_SOURCES	3	/* sources named per CPU; the rest summed */

char *lh_report_sources_text(const struct lh_report_noise *n, char *buf, size_t len)
{
	uint64_t more = n->other_sources, more_ns = n->other_ns;
	size_t i, at = 0;

	buf[0] = '\0';
	if (!n->has_sources)
		return buf;
	if (!n->nr_sources)
		at = (size_t)snprintf(buf, len, "none counted");
	for (i = 0; i < n->nr_sources; i++) {
		const struct lh_report_source *s = &n->sources[i];

		if (i >= TEXT_SOURCES) {
			more = lh_sat_add(more, 1);
			more_ns = lh_sat_add(more_ns, s->noise_ns);
			continue;
		}
		at += (size_t)snprintf(buf + at, len - at, "%s%s%s%s %.3f us (%" PRIu64 ")",
				       i ? ", " : "", lh_spike_kind_name(s->kind), s->name[0] ? " " : "",
				       s->name, (double)s->noise_ns / 1e3, s->count);
		if (at >= len)
			at = len - 1;	/* cut: buf is full */
	}
	if (more)
		snprintf(buf + at, len - at, ", %" PRIu64 " more %.3f us", more, (double)more_ns / 1e3);
	return buf;
}

char *lh_report_json_us(uint64_t ns, char *buf, size_t len)
{
	size_t n;

	if (ns % 1000 == 0) {
		snprintf(buf, len, "%llu", (unsigned long long)(ns / 1000));
		return buf;
	}
	snprintf(buf, len, "%llu.%03llu", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
	for (n = strlen(buf); n && buf[n - 1] == '0'; n--)
		buf[n - 1] = '\0';
	return buf;
}

char *lh_report_iso8601(uint64_t ns, char *buf, size_t len)
{
	time_t t;
	struct tm tm;

	if (!ns)
		return NULL;
	t = (time_t)(ns / 1000000000ULL);
	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NULL;
	return buf;
}

const char *lh_report_tracer_name(const struct lh_record *r)
{
	if (r->tracer == LH_TRACER_UNKNOWN && r->tracer_name)
		return r->tracer_name;
	return lh_tracer_name(r->tracer);
}

/* Copies s (NULL: empty) into dst, truncating. */
/* Copies s into dst, cut short at a UTF-8 character's start (reports stay valid UTF-8). */
static void copy_str(char *dst, size_t size, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n >= size) {
		n = size - 1;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, s ? s : "", n);
	dst[n] = '\0';
}

int lh_report_stream_status(FILE *out)
{
	if (!ferror(out))
		return 0;
	if (!errno)
		errno = EIO;
	return -1;
}

struct lh_report *lh_report_alloc(struct lh_rules *rules, const struct lh_report_opts *o)
{
	struct lh_report *rep = lh_xcalloc(1, sizeof(*rep));

	rep->rules = rules;
	rep->nr_rules = rules ? lh_rules_count(rules) : 0;
	rep->rule_agg = lh_xcalloc(rep->nr_rules ? rep->nr_rules : 1, sizeof(*rep->rule_agg));
	if (o)
		rep->opts = *o;
	else
		rep->opts.keep = LH_REPORT_KEEP;
	lh_gate_init(&rep->gate);
	rep->created_ns = lh_wall_ns();
	return rep;
}

static void kept_free(struct lh_report_kept *k)
{
	if (!k)
		return;
	lh_record_free(k->rec);
	free(k->hits);
	free(k->unevaluated);
	free(k);
}

void lh_report_tracer_release(struct lh_report_tracer *tr)
{
	size_t c;

	for (c = 0; c < tr->nr_cpus; c++) {
		free(tr->cpus[c].worst);
		lh_histogram_release(&tr->cpus[c].dist);
	}
	free(tr->cpus);
	free(tr->steps);
	lh_histogram_release(&tr->hist);
	memset(tr, 0, sizeof(*tr));
}

void lh_report_free(struct lh_report *rep)
{
	size_t i;

	if (!rep)
		return;
	for (i = 0; i < rep->nr_heap; i++)
		kept_free(rep->heap[i]);
	free(rep->heap);
	for (i = 0; i < LH_TRACER_NR; i++)
		lh_report_tracer_release(&rep->tracers[i]);
	for (i = 0; i < rep->nr_hists; i++) {
		lh_histogram_release(&rep->hists[i].h);
		lh_report_histogram_clear_callers(&rep->hists[i]);
	}
	free(rep->hists);
	lh_htab_release(&rep->hist_ids);
	free(rep->noise);
	for (i = 0; i < rep->nr_merged_from; i++)
		free(rep->merged_from[i]);
	free(rep->merged_from);
	lh_irqstat_free(rep->own_irqstat);
	if (rep->own_rules)
		lh_rules_free(rep->own_rules);
	free(rep->offenders);
	free(rep->inputs);
	lh_htab_release(&rep->offender_htab);
	lh_htab_release(&rep->own_rule_ids);
	free(rep->rule_agg);
	for (i = 0; i < rep->nr_warnings; i++)
		free(rep->warnings[i]);
	free(rep->warnings);
	lh_verdict_release(&rep->verdict);
	lh_match_release(&rep->match);
	lh_diag_release(&rep->own_diag);
	lh_arena_release(&rep->arena);
	free(rep);
}

/*
 * Return: s copied into the report once per run of records from the same source. Records
 * arrive grouped by source (a file, a capture), so only the last one is compared: 'record'
 * makes one source per capture, and a search of them all would grow with every capture.
 */
static const char *intern_source(struct lh_report *rep, const char *s)
{
	if (!s)
		return NULL;
	if (!rep->source || strcmp(rep->source, s))
		rep->source = lh_arena_strdup(&rep->arena, s);
	return rep->source;
}

/* "fakeraid (irq 24, 2001us)" for r's handler that ran longest, one without exit first. */
static void where_irq(char *buf, size_t len, const struct lh_record *r)
{
	const struct lh_irq *q = NULL;
	char dur[32];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < r->nr_irqs; i++) {
		const struct lh_irq *c = &r->irqs[i];

		if (!q || (q->duration_us >= 0 &&
			   (c->duration_us < 0 || c->duration_us > q->duration_us)))
			q = c;
	}
	if (!q)
		return;
	if (q->duration_us >= 0)
		snprintf(dur, sizeof(dur), "%.0fus", q->duration_us);
	else
		snprintf(dur, sizeof(dur), "no exit in the section");
	if (q->irq >= 0)
		snprintf(buf, len, "%s (irq %d, %s)", q->name ? q->name : "?", q->irq, dur);
	else
		snprintf(buf, len, "%s (%s)", q->name ? q->name : "?", dur);
}

/* "raid-irq-held (critical)": the first of m's hits of its worst severity. */
static void where_rule(char *buf, size_t len, const struct lh_report *rep,
		       const struct lh_match *m)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; m && m->has_worst && i < m->nr_hits; i++) {
		const struct lh_rule *rule = lh_rules_get(rep->rules, m->hits[i]);

		if (rule && rule->severity == m->worst) {
			snprintf(buf, len, "%s (%s)", rule->id, lh_severity_name(rule->severity));
			return;
		}
	}
}

static void where_set(struct lh_report_where *w, const struct lh_report *rep,
		      const struct lh_record *r, const struct lh_match *m, const char *source)
{
	w->set = true;
	w->latency_us = r->latency_us;
	w->cpu = r->cpu;
	w->pid = r->task.pid;
	copy_str(w->comm, sizeof(w->comm), r->task.comm);
	copy_str(w->started, sizeof(w->started), r->started_at);
	copy_str(w->ended, sizeof(w->ended), r->ended_at);
	w->source = source;
	w->line = r->line;
	where_irq(w->irq, sizeof(w->irq), r);
	where_rule(w->rule, sizeof(w->rule), rep, m);
}

/* Appends to the string *s (NULL: empty), which it reallocates. */
static void __attribute__((format(printf, 2, 3))) appendf(char **s, const char *fmt, ...)
{
	va_list ap;
	char *add, *old = *s;

	va_start(ap, fmt);
	add = lh_xvasprintf(fmt, ap);
	va_end(ap);
	*s = lh_xasprintf("%s%s", old ? old : "", add);
	free(old);
	free(add);
}

char *lh_report_where_text(const struct lh_report_where *w, bool with_rule)
{
	char *s = NULL;

	if (!w->set)
		return lh_xstrdup("");
	appendf(&s, "source: %s", w->source ? w->source : "?");
	if (w->source && w->line)
		appendf(&s, ":%lu", w->line);
	if (w->started[0] || w->ended[0])
		appendf(&s, "\nsection: %s -> %s", w->started[0] ? w->started : "?",
			w->ended[0] ? w->ended : "?");
	if (w->comm[0])
		appendf(&s, "\ntask: %s-%d", w->comm, w->pid);
	if (w->cpu >= 0)
		appendf(&s, "%sCPU%d", w->comm[0] ? " on " : "\ncpu: ", w->cpu);
	if (w->irq[0])
		appendf(&s, "\nirq handler: %s", w->irq);
	if (with_rule && w->rule[0])
		appendf(&s, "\nrule: %s", w->rule);
	return s;
}

struct lh_report_cpu *lh_report_cpu_slot(struct lh_report_tracer *tr, int cpu)
{
	size_t slot;

	if (cpu < -1 || cpu >= LH_REPORT_MAX_CPUS)
		return NULL;
	slot = (size_t)(cpu + 1);
	if (slot >= tr->nr_cpus) {
		size_t old = tr->nr_cpus;

		LH_GROW(tr->cpus, slot + 1, tr->nr_cpus);
		memset(tr->cpus + old, 0, (tr->nr_cpus - old) * sizeof(*tr->cpus));
	}
	return &tr->cpus[slot];
}

char *lh_report_cpu_name(int cpu, const char *prefix, const char *unknown, char *buf, size_t len)
{
	if (cpu < 0)
		snprintf(buf, len, "%s", unknown);
	else
		snprintf(buf, len, "%s%d", prefix, cpu);
	return buf;
}

/* Counts r in its (tracer, CPU) histogram. */
static void add_hist(struct lh_report_cpu *c, const struct lh_record *r)
{
	c->count++;
	lh_histogram_add(&c->dist, lh_report_us_to_ns(r->latency_us));
}

/*
 * The per-CPU view: counts r in its (tracer, CPU) histogram, keeps its worst, and appends
 * a progression step when r beats the maximum.
 */
static void add_progression(const struct lh_report *rep, struct lh_report_tracer *tr,
			    const struct lh_record *r, const struct lh_match *m, const char *source)
{
	struct lh_report_cpu *c = lh_report_cpu_slot(tr, r->cpu);
	struct lh_report_step *s;

	if (!c)
		return;
	add_hist(c, r);
	if (!c->worst)
		c->worst = lh_xcalloc(1, sizeof(*c->worst));
	if (!c->worst->set || r->latency_us > c->worst->latency_us)
		where_set(c->worst, rep, r, m, source);
	if (c->seen && r->latency_us <= c->max_us)
		return;
	c->seen = true;
	c->max_us = r->latency_us;
	if (c->steps >= LH_REPORT_STEPS) {
		tr->steps_dropped++;
		return;
	}
	c->steps++;
	LH_GROW(tr->steps, tr->nr_steps + 1, tr->alloc_steps);
	s = &tr->steps[tr->nr_steps++];
	s->cpu = r->cpu;
	s->latency_us = r->latency_us;
	s->at_ns = r->captured_ns;
	s->source = source;
	s->line = r->line;
}

static const char *arena_dup(struct lh_report *rep, const char *s)
{
	return s ? lh_arena_strdup(&rep->arena, s) : NULL;
}

struct lh_report_offender *lh_report_offender(struct lh_report *rep,
					      const struct lh_signature *sig)
{
	struct lh_report_offender *o;
	char text[LH_SIGNATURE_LEN];
	uint64_t hash;
	size_t pos = 0, i;
	uint32_t idx;

	hash = lh_signature_hash(sig);
	while (lh_htab_find(&rep->offender_htab, hash, &pos, &idx))
		if (lh_signature_equal(&rep->offenders[idx].sig, sig))
			return &rep->offenders[idx];
	if (rep->nr_offenders >= LH_REPORT_SIGNATURES)
		return NULL;
	LH_GROW(rep->offenders, rep->nr_offenders + 1, rep->alloc_offenders);
	o = &rep->offenders[rep->nr_offenders];
	memset(o, 0, sizeof(*o));
	o->hash = hash;
	o->signature = lh_arena_strdup(&rep->arena, lh_signature_text(sig, text, sizeof(text)));
	o->sig = *sig;
	o->sig.started = arena_dup(rep, sig->started);
	o->sig.ended = arena_dup(rep, sig->ended);
	for (i = 0; i < sig->nr_frames; i++)
		o->sig.frames[i] = arena_dup(rep, sig->frames[i]);
	o->sig.woken = arena_dup(rep, sig->woken);
	o->cpu = -1;
	o->pid = -1;
	lh_htab_add(&rep->offender_htab, hash, (uint32_t)rep->nr_offenders);
	rep->nr_offenders++;
	return o;
}

/* Return: r's offender group (created), or NULL when the table is full. */
static struct lh_report_offender *offender_get(struct lh_report *rep, const struct lh_record *r)
{
	struct lh_signature sig;

	lh_record_signature_of(r, &sig);
	return lh_report_offender(rep, &sig);
}

/* Heap order: lower priority, then lower latency, then later arrival is dropped first. */
static bool kept_less(const struct lh_report_kept *a, const struct lh_report_kept *b)
{
	if (a->prio != b->prio)
		return a->prio < b->prio;
	if (a->rec->latency_us != b->rec->latency_us)
		return a->rec->latency_us < b->rec->latency_us;
	return a->seq > b->seq;
}

static void heap_swap(struct lh_report_kept **h, size_t i, size_t j)
{
	struct lh_report_kept *t = h[i];

	h[i] = h[j];
	h[j] = t;
}

static void heap_up(struct lh_report_kept **h, size_t i)
{
	while (i && kept_less(h[i], h[(i - 1) / 2])) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_down(struct lh_report_kept **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && kept_less(h[l], h[m]))
			m = l;
		if (r < n && kept_less(h[r], h[m]))
			m = r;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

static struct lh_report_kept *kept_new(const struct lh_record *r, const struct lh_match *m,
				       unsigned int prio, unsigned long seq)
{
	struct lh_report_kept *k = lh_xcalloc(1, sizeof(*k));
	char sig[LH_SIGNATURE_LEN];

	k->rec = lh_record_dup(r);
	k->prio = prio;
	k->seq = seq;
	k->signature = lh_arena_strdup(&k->rec->arena, lh_record_signature(r, sig, sizeof(sig)));
	if (m && m->nr_hits) {
		k->hits = lh_xmalloc(m->nr_hits * sizeof(*k->hits));
		memcpy(k->hits, m->hits, m->nr_hits * sizeof(*k->hits));
		k->nr_hits = m->nr_hits;
	}
	if (m && m->nr_unevaluated) {
		k->unevaluated = lh_xmalloc(m->nr_unevaluated * sizeof(*k->unevaluated));
		memcpy(k->unevaluated, m->unevaluated, m->nr_unevaluated * sizeof(*k->unevaluated));
		k->nr_unevaluated = m->nr_unevaluated;
	}
	if (m) {
		k->accepted = m->accepted;
		k->has_worst = m->has_worst;
		k->worst = m->worst;
	}
	return k;
}

/* Keeps r in full when it ranks among the opts.keep most important records. */
static void keep_record(struct lh_report *rep, const struct lh_record *r,
			const struct lh_match *m, unsigned int prio, unsigned long seq)
{
	struct lh_report_kept probe, *top;
	struct lh_record probe_rec;

	if (!rep->opts.keep)
		return;
	if (rep->nr_heap < rep->opts.keep) {
		LH_GROW(rep->heap, rep->nr_heap + 1, rep->alloc_heap);
		rep->heap[rep->nr_heap] = kept_new(r, m, prio, seq);
		heap_up(rep->heap, rep->nr_heap++);
		return;
	}
	/* Compare before copying: most records are not kept, and cost nothing here. */
	top = rep->heap[0];
	probe_rec.latency_us = r->latency_us;
	probe.rec = &probe_rec;
	probe.prio = prio;
	probe.seq = seq;
	if (!kept_less(top, &probe))
		return;
	kept_free(top);
	rep->heap[0] = kept_new(r, m, prio, seq);
	heap_down(rep->heap, rep->nr_heap, 0);
}

/*
 * How important a record is to keep in full: 1 + the severity of a rule it fired, or of a
 * rule that could not be evaluated on it (the reader must see where that happened), unless
 * an 'ignore' rule accepted it; else 0.
 */
static unsigned int kept_prio(const struct lh_report *rep, const struct lh_match *m)
{
	unsigned int prio;
	size_t i;

	if (!m || m->accepted)
		return 0;
	prio = m->has_worst && m->worst < LH_SEV_IGNORE ? 1 + (unsigned int)m->worst : 0;
	for (i = 0; i < m->nr_unevaluated; i++) {
		const struct lh_rule *rule = lh_rules_get(rep->rules, m->unevaluated[i]);

		if (rule && rule->severity < LH_SEV_IGNORE && prio < 1 + (unsigned int)rule->severity)
			prio = 1 + (unsigned int)rule->severity;
	}
	return prio;
}

void lh_report_keep(struct lh_report *rep, const struct lh_record *r, const struct lh_match *m,
		    unsigned long seq)
{
	keep_record(rep, r, m, kept_prio(rep, m), seq);
}

void lh_report_trim_kept(struct lh_report *rep, size_t keep)
{
	while (rep->nr_heap > keep) {
		kept_free(rep->heap[0]);
		rep->heap[0] = rep->heap[--rep->nr_heap];
		heap_down(rep->heap, rep->nr_heap, 0);
	}
}

/* Rules loaded after the report was allocated still get counters. */
static void rule_agg_fit(struct lh_report *rep, size_t idx)
{
	size_t old = rep->nr_rules;

	if (idx < old)
		return;
	LH_GROW(rep->rule_agg, idx + 1, rep->nr_rules);
	memset(rep->rule_agg + old, 0, (rep->nr_rules - old) * sizeof(*rep->rule_agg));
}

struct lh_report_rule *lh_report_rule_agg(struct lh_report *rep, size_t idx)
{
	rule_agg_fit(rep, idx);
	return &rep->rule_agg[idx];
}

int lh_report_add(struct lh_report *rep, const struct lh_record *r, const struct lh_match *m)
{
	unsigned int t = (unsigned int)r->tracer < LH_TRACER_NR ? r->tracer : LH_TRACER_UNKNOWN;
	struct lh_report_tracer *tr = &rep->tracers[t];
	bool accepted = m && m->accepted, hit = m && m->has_worst;
	struct lh_report_offender *o;
	const char *source;
	size_t i;

	rep->total++;
	source = intern_source(rep, r->source);

	tr->count++;
	if (!tr->worst.set || r->latency_us > tr->worst.latency_us)
		where_set(&tr->worst, rep, r, m, source);
	if (accepted) {
		tr->accepted++;
		rep->accepted_records++;
	} else if (!tr->gate.set || r->latency_us > tr->gate.latency_us) {
		where_set(&tr->gate, rep, r, m, source);
	}
	add_progression(rep, tr, r, m, source);
	lh_histogram_add(&tr->hist, lh_report_us_to_ns(r->latency_us));

	o = offender_get(rep, r);
	if (o) {
		if (!o->count || r->latency_us > o->worst_us) {
			o->worst_us = r->latency_us;
			o->cpu = r->cpu;
			o->pid = r->task.pid;
			copy_str(o->comm, sizeof(o->comm), r->task.comm);
		}
		o->count++;
		o->accepted += accepted;
	} else {
		rep->other_count++;
		rep->other_accepted += accepted;
		if (r->latency_us > rep->other_worst_us)
			rep->other_worst_us = r->latency_us;
	}

	for (i = 0; m && i < m->nr_hits; i++) {
		struct lh_report_rule *ra;

		rule_agg_fit(rep, m->hits[i]);
		ra = &rep->rule_agg[m->hits[i]];
		ra->hits++;
		if (r->latency_us > ra->worst_us)
			ra->worst_us = r->latency_us;
		if (accepted) {
			ra->accepted++;
		} else {
			ra->gate_hits++;
			if (!ra->gate_where.set || r->latency_us > ra->gate_worst_us) {
				ra->gate_worst_us = r->latency_us;
				where_set(&ra->gate_where, rep, r, m, source);
			}
		}
	}
	if (hit && !accepted)
		rep->rule_hit_records++;

	for (i = 0; m && i < m->nr_unevaluated; i++) {
		struct lh_report_rule *ra;

		rule_agg_fit(rep, m->unevaluated[i]);
		ra = &rep->rule_agg[m->unevaluated[i]];
		ra->unevaluated++;
		ra->gate_unevaluated += !accepted;
	}
	rep->unevaluated_records += m && m->nr_unevaluated;
	keep_record(rep, r, m, kept_prio(rep, m), rep->total);
	return 0;
}

int lh_report_feed_matched(struct lh_record *r, struct lh_match *m, void *arg)
{
	struct lh_report *rep = arg;

	lh_rules_warn(rep->rules, r, m, rep->opts.diag ? rep->opts.diag : &rep->own_diag);
	return lh_report_add(rep, r, m);
}

int lh_report_feed(struct lh_record *r, void *arg)
{
	struct lh_report *rep = arg;
	struct lh_diag *diag = rep->opts.diag ? rep->opts.diag : &rep->own_diag;

	if (!rep->rules)
		return lh_report_add(rep, r, NULL);
	lh_rules_match(rep->rules, r, &rep->match, diag);
	return lh_report_add(rep, r, &rep->match);
}

void lh_report_add_parse_stats(struct lh_report *rep, const struct lh_parse_stats *st)
{
	rep->parse.lines += st->lines;
	rep->parse.snapshots += st->snapshots;
	rep->parse.skipped += st->skipped;
	rep->parse.bad_lines += st->bad_lines;
	rep->parse.incomplete += st->incomplete;
	rep->parse.cut_lines += st->cut_lines;
}

/* Adds d's messages from first_msg on, and count to the total. */
static void add_diag_from(struct lh_report *rep, const struct lh_diag *d, size_t first_msg,
			  unsigned long count)
{
	size_t i;

	rep->warnings_total += count;
	for (i = first_msg; i < d->nr && rep->nr_warnings < LH_REPORT_WARNINGS; i++) {
		LH_GROW(rep->warnings, rep->nr_warnings + 1, rep->alloc_warnings);
		rep->warnings[rep->nr_warnings++] = lh_xstrdup(d->msgs[i].text);
	}
}

void lh_report_add_diag(struct lh_report *rep, const struct lh_diag *d)
{
	add_diag_from(rep, d, 0, d->warnings + d->errors);
}

/*
 * Rule-matching warnings that lh_report_feed() kept itself (opts.diag was NULL): what came
 * since the last merge, as a report may be evaluated and written many times.
 */
static void merge_own_diag(struct lh_report *rep)
{
	const struct lh_diag *d = &rep->own_diag;
	unsigned long count = d->warnings + d->errors;

	add_diag_from(rep, d, rep->own_merged_msgs, count - rep->own_merged_count);
	rep->own_merged_msgs = d->nr;
	rep->own_merged_count = count;
}

void lh_report_add_input(struct lh_report *rep, const struct lh_report_input *in)
{
	struct lh_report_input *c;

	LH_GROW(rep->inputs, rep->nr_inputs + 1, rep->alloc_inputs);
	c = &rep->inputs[rep->nr_inputs++];
	*c = *in;
	c->name = arena_dup(rep, in->name);
	c->problem = arena_dup(rep, in->problem);
	if (c->problem && c->accepted)
		rep->inputs_accepted++;
	else if (c->problem)
		rep->inputs_unread++;
}

/* Return: why inputs not read in full make the verdict error, or NULL (free it). */
static char *input_error(const struct lh_report *rep)
{
	size_t i;

	if (!rep->inputs_unread)
		return NULL;
	for (i = 0; rep->inputs[i].accepted || !rep->inputs[i].problem; i++)
		;
	if (rep->nr_inputs == 1)
		return lh_xstrdup(rep->inputs[i].problem);
	return lh_xasprintf("%zu of %zu inputs could not be read in full; first: %s",
			    rep->inputs_unread, rep->nr_inputs, rep->inputs[i].problem);
}

void lh_report_set_run(struct lh_report *rep, const struct lh_run_info *run)
{
	rep->run = *run;
	rep->has_run = true;
}

/* Return: whether gate g judges rule: of --fail-on's severity or above, not ignore. */
static bool gates_rule(const struct lh_gate *g, const struct lh_rule *rule)
{
	return g->fail_on != LH_GATE_FAIL_NONE && rule->severity != LH_SEV_IGNORE &&
	       rule->severity >= g->fail_on;
}

bool lh_report_rule_gated(const struct lh_report *rep, size_t i)
{
	const struct lh_rule *rule = rep->rules && i < lh_rules_count(rep->rules) ?
				     lh_rules_get(rep->rules, i) : NULL;

	return rule && gates_rule(&rep->gate, rule);
}

struct lh_gate_measure lh_report_measure(const struct lh_report *rep, enum lh_tracer t)
{
	const struct lh_report_tracer *tr = &rep->tracers[t];
	bool armed = rep->has_run && rep->run.armed_ns[t];

	return (struct lh_gate_measure){
		.measured = tr->count || armed,
		.not_measured = rep->has_run ? rep->run.not_measured[t] : NULL,
		.has_worst = tr->gate.set,
		.worst_ns = lh_report_us_to_ns(tr->gate.latency_us),
	};
}

/* Return: why tracer t's --max budget cannot be judged, or NULL (free it). */
static char *unmeasured_error(const struct lh_report *rep, enum lh_tracer t)
{
	struct lh_gate_measure m = lh_report_measure(rep, t);
	uint64_t budget_ns;
	bool own;

	if (lh_gate_judge_max(&rep->gate, t, &m, &budget_ns, &own) != LH_GATE_MAX_UNMEASURED)
		return NULL;
	return lh_xasprintf("%s is gated by --max %s but was not measured (%s): its budget cannot be judged",
			    lh_tracer_name(t), own ? lh_tracer_name(t) : "all",
			    m.not_measured ? m.not_measured :
			    rep->has_run ? "the run never armed it" : "the input holds no section of it");
}

char *lh_report_max_violation(const struct lh_report *rep, enum lh_tracer t)
{
	const struct lh_report_where *w = &rep->tracers[t].gate;
	struct lh_gate_measure m = lh_report_measure(rep, t);
	char worst[32], budget[32], by[32], where[96] = "";
	uint64_t budget_ns, worst_ns = m.worst_ns;
	bool own;

	if (lh_gate_judge_max(&rep->gate, t, &m, &budget_ns, &own) != LH_GATE_MAX_OVER)
		return NULL;
	if (w->comm[0] && w->pid >= 0)
		snprintf(where, sizeof(where), "%s-%d", w->comm, w->pid);
	else if (w->comm[0])
		snprintf(where, sizeof(where), "%s", w->comm);
	if (w->cpu >= 0)
		snprintf(where + strlen(where), sizeof(where) - strlen(where), "%son CPU%d",
			 where[0] ? " " : "", w->cpu);
	return lh_xasprintf("%s: worst %s%s%s%s exceeds --max %s=%s by %s", lh_tracer_name(t),
			    lh_report_fmt_us(worst_ns, worst, sizeof(worst)),
			    where[0] ? " (" : "", where, where[0] ? ")" : "",
			    own ? lh_tracer_name(t) : "all",
			    lh_duration_format(budget_ns, budget, sizeof(budget)),
			    lh_report_fmt_us(worst_ns - budget_ns, by, sizeof(by)));
}

char *lh_report_rule_violation(const struct lh_report *rep, size_t i)
{
	const struct lh_report_rule *ra = i < rep->nr_rules ? &rep->rule_agg[i] : NULL;
	const struct lh_rule *rule;
	char worst[32];

	if (!ra || !ra->gate_hits || !lh_report_rule_gated(rep, i))
		return NULL;
	rule = lh_rules_get(rep->rules, i);
	return lh_xasprintf("rule %s (%s) hit by %" PRIu64 " record%s, worst %s", rule->id,
			    lh_severity_name(rule->severity), ra->gate_hits,
			    ra->gate_hits == 1 ? "" : "s",
			    lh_report_fmt_us(lh_report_us_to_ns(ra->gate_worst_us), worst,
					     sizeof(worst)));
}

char *lh_report_undecided_error(const struct lh_report_undecided *v, size_t n,
				const struct lh_gate *g)
{
	size_t i, nr = 0, first = 0;
	const struct lh_rule *rule;
	char more[64] = "";

	for (i = 0; i < n; i++) {
		if (!v[i].gate_unevaluated || !gates_rule(g, v[i].rule))
			continue;
		if (!nr++)
			first = i;
	}
	if (!nr)
		return NULL;
	rule = v[first].rule;
	if (nr > 1)
		snprintf(more, sizeof(more), ", and %zu more rule%s", nr - 1, nr == 2 ? "" : "s");
	return lh_xasprintf("rule %s (%s) could not be evaluated on %" PRIu64 " record%s (%s)%s: the --fail-on %s gate cannot be decided",
			    rule->id, lh_severity_name(rule->severity), v[first].gate_unevaluated,
			    v[first].gate_unevaluated == 1 ? "" : "s",
			    rule->limit_hit ? rule->limit_hit : "PCRE2 error", more,
			    lh_gate_fail_on_name(g));
}

char *lh_report_unevaluated_error(const struct lh_report *rep)
{
	struct lh_report_undecided *v = lh_xcalloc(rep->nr_rules + 1, sizeof(*v));
	size_t i;
	char *err;

	for (i = 0; i < rep->nr_rules; i++)
		v[i] = (struct lh_report_undecided){
			lh_rules_get(rep->rules, i), rep->rule_agg[i].gate_unevaluated,
		};
	err = lh_report_undecided_error(v, rep->nr_rules, &rep->gate);
	free(v);
	return err;
}

struct lh_report_noise *lh_report_noise_slot(struct lh_report *rep, int cpu)
{
	size_t i;

	if (cpu < 0 || cpu >= LH_REPORT_MAX_CPUS)
		return NULL;
	for (i = rep->nr_noise; i > 0 && rep->noise[i - 1].cpu >= cpu; i--)
		if (rep->noise[i - 1].cpu == cpu)
			return &rep->noise[i - 1];
	LH_GROW(rep->noise, rep->nr_noise + 1, rep->alloc_noise);
	memmove(rep->noise + i + 1, rep->noise + i, (rep->nr_noise - i) * sizeof(*rep->noise));
	rep->nr_noise++;
	memset(&rep->noise[i], 0, sizeof(rep->noise[i]));
	rep->noise[i].cpu = cpu;
	return &rep->noise[i];
}

void lh_report_set_noise(struct lh_report *rep, const struct lh_report_noise *n)
{
	struct lh_report_noise *slot = lh_report_noise_slot(rep, n->cpu);

	if (slot)
		*slot = *n;
}

void lh_report_set_noise_dropped(struct lh_report *rep, uint64_t dropped)
{
	rep->noise_dropped = dropped;
}

int lh_report_source_cmp(const struct lh_report_source *a, const struct lh_report_source *b)
{
	if (a->noise_ns != b->noise_ns)
		return a->noise_ns > b->noise_ns ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Moves kept source i up to its place in the order. */
static void source_rise(struct lh_report_noise *n, size_t i)
{
	for (; i > 0 && lh_report_source_cmp(&n->sources[i], &n->sources[i - 1]) < 0; i--) {
		struct lh_report_source t = n->sources[i];

		n->sources[i] = n->sources[i - 1];
		n->sources[i - 1] = t;
	}
}

/* Sums s into n's "other". Return: 0, or -1 past 2^64. */
static int source_other(struct lh_report_noise *n, const struct lh_report_source *s, uint64_t nr)
{
	int ret = 0;

	ret |= LH_ADD_CHECKED(n->other_sources, nr);
	ret |= LH_ADD_CHECKED(n->other_count, s->count);
	ret |= LH_ADD_CHECKED(n->other_ns, s->noise_ns);
	return ret;
}

int lh_report_noise_add_source(struct lh_report_noise *n, const struct lh_report_source *s)
{
	struct lh_report_source *last;
	size_t i;
	int ret = 0;

	n->has_sources = true;
	for (i = 0; i < n->nr_sources; i++) {
		struct lh_report_source *k = &n->sources[i];

		if (k->kind == s->kind && !strcmp(k->name, s->name)) {
			ret |= LH_ADD_CHECKED(k->count, s->count);
			ret |= LH_ADD_CHECKED(k->noise_ns, s->noise_ns);
			source_rise(n, i);
			return ret;
		}
	}
	if (n->nr_sources < LH_REPORT_NOISE_SOURCES) {
		n->sources[n->nr_sources] = *s;
		n->sources[n->nr_sources].name[LH_REPORT_SOURCE_NAME - 1] = '\0';
		source_rise(n, n->nr_sources++);
		return 0;
	}
	/* Full: the quieter of s and the last kept goes to "other", each at most the last kept. */
	last = &n->sources[n->nr_sources - 1];
	if (lh_report_source_cmp(s, last) >= 0)
		return source_other(n, s, 1);
	ret = source_other(n, last, 1);
	*last = *s;
	last->name[LH_REPORT_SOURCE_NAME - 1] = '\0';
	source_rise(n, n->nr_sources - 1);
	return ret;
}

int lh_report_noise_add_sources(struct lh_report_noise *dst, const struct lh_report_noise *src)
{
	const struct lh_report_source other = { .count = src->other_count,
						.noise_ns = src->other_ns };
	int ret = 0;
	size_t i;

	if (!src->has_sources)
		return 0;
	dst->has_sources = true;
	for (i = 0; i < src->nr_sources; i++)
		ret |= lh_report_noise_add_source(dst, &src->sources[i]);
	/* each of src's others is at most its last kept, so at most dst's last kept now */
	if (src->other_sources)
		ret |= source_other(dst, &other, src->other_sources);
	return ret;
}

char *lh_report_available_violation(const struct lh_gate *g, const struct lh_report_noise *n)
{
	char got[16], min[16];
	uint32_t milli;

	if (!g->has_min_available || lh_gate_available(n->runtime_ns, n->noise_ns, &milli) ||
	    milli >= g->min_available_milli)
		return NULL;
	return lh_xasprintf("osnoise: CPU%d has %s %% available, below --min-available osnoise=%s",
			    n->cpu, lh_gate_fmt_available(milli, got, sizeof(got)),
			    lh_gate_fmt_available(g->min_available_milli, min, sizeof(min)));
}

char *lh_report_available_unmeasured(const struct lh_gate *g, const struct lh_report_noise *v,
				     size_t n, const char *why)
{
	size_t i;

	if (!g->has_min_available)
		return NULL;
	if (why || !n)
		return lh_xasprintf("osnoise is gated by --min-available but no period was measured (%s): its availability cannot be judged",
				    why ? why : "none was listed");
	for (i = 0; i < n; i++)
		if (!v[i].runtime_ns)
			return lh_xasprintf("osnoise is gated by --min-available but CPU%d measured no period: its availability cannot be judged",
					    v[i].cpu);
	return NULL;
}

/* Return: why --min-available cannot judge rep, or NULL (free it). */
static char *available_unmeasured(const struct lh_report *rep)
{
	const char *why = rep->has_run ? rep->run.not_measured[LH_TRACER_OSNOISE] : NULL;

	if (!why && !rep->nr_noise)
		why = rep->has_run ? "the run never armed it" : "the input holds none of its periods";
	return lh_report_available_unmeasured(&rep->gate, rep->noise, rep->nr_noise, why);
}

bool lh_report_evaluate(struct lh_report *rep, const struct lh_gate *g)
{
	char *err;
	size_t i;
	int t;

	merge_own_diag(rep);
	rep->gate = *g;
	lh_verdict_clear_violations(&rep->verdict);
	for (t = 1; t < LH_TRACER_NR; t++)
		lh_verdict_violation(&rep->verdict, lh_report_max_violation(rep, t));
	lh_verdict_violation(&rep->verdict, lh_report_max_violation(rep, LH_TRACER_UNKNOWN));
	for (i = 0; i < rep->nr_rules; i++)
		lh_verdict_violation(&rep->verdict, lh_report_rule_violation(rep, i));
	for (i = 0; i < rep->nr_noise; i++)
		lh_verdict_violation(&rep->verdict,
				     lh_report_available_violation(&rep->gate, &rep->noise[i]));
	/* what was not read cannot have passed */
	err = input_error(rep);
	if (err)
		lh_report_set_error(rep, err);
	free(err);
	/* nor can a budget on a tracer that was not measured */
	for (t = 1; t < LH_TRACER_NR && !rep->verdict.error; t++) {
		err = unmeasured_error(rep, t);
		if (err)
			lh_report_set_error(rep, err);
		free(err);
	}
	/* nor a minimum availability on CPUs that measured none */
	if (!rep->verdict.error) {
		err = available_unmeasured(rep);
		if (err)
			lh_report_set_error(rep, err);
		free(err);
	}
	/* as git grep and GNU grep stop: a rule the gate needed could not be evaluated */
	err = lh_report_unevaluated_error(rep);
	if (err)
		lh_verdict_error_of(&rep->verdict, LH_VERDICT_UNDECIDED, err);
	rep->evaluated = true;
	rep->passed = !rep->verdict.nr_violations;
	return rep->passed && !rep->verdict.error;
}

size_t lh_report_nr_violations(const struct lh_report *rep)
{
	return rep->verdict.nr_violations;
}

const char *lh_report_violation(const struct lh_report *rep, size_t i)
{
	return i < rep->verdict.nr_violations ? rep->verdict.violations[i] : NULL;
}

static int cmp_kept(const void *a, const void *b)
{
	const struct lh_report_kept *x = *(struct lh_report_kept *const *)a;
	const struct lh_report_kept *y = *(struct lh_report_kept *const *)b;

	if (kept_less(x, y))
		return 1;
	return kept_less(y, x) ? -1 : 0;
}

struct lh_report_kept **lh_report_kept_sorted(const struct lh_report *rep)
{
	struct lh_report_kept **v = lh_xmalloc((rep->nr_heap + 1) * sizeof(*v));

	if (rep->nr_heap) {	/* heap is NULL until a record is kept */
		memcpy(v, rep->heap, rep->nr_heap * sizeof(*v));
		qsort(v, rep->nr_heap, sizeof(*v), cmp_kept);
	}
	return v;
}

static int cmp_offender(const void *a, const void *b, void *arg)
{
	const struct lh_report_offender *o = arg;
	const struct lh_report_offender *x = &o[*(const size_t *)a], *y = &o[*(const size_t *)b];

	if (x->worst_us != y->worst_us)
		return x->worst_us < y->worst_us ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

size_t *lh_report_offenders_sorted(const struct lh_report *rep)
{
	size_t *v = lh_xmalloc((rep->nr_offenders + 1) * sizeof(*v));
	size_t i;

	for (i = 0; i < rep->nr_offenders; i++)
		v[i] = i;
	qsort_r(v, rep->nr_offenders, sizeof(*v), cmp_offender, rep->offenders);
	return v;
}

void lh_report_prepare(struct lh_report *rep)
{
	if (!rep->evaluated) {
		struct lh_gate g;

		lh_gate_init(&g);
		lh_report_evaluate(rep, &g);
	}
	merge_own_diag(rep);
}

int lh_report_write(struct lh_report *rep, enum lh_format f, FILE *out)
{
	lh_report_prepare(rep);
	switch (f) {
	case LH_FORMAT_JSON:
		return lh_report_write_json(rep, out);
	case LH_FORMAT_JUNIT:
		return lh_report_write_junit(rep, out);
	case LH_FORMAT_HTML:
		return lh_report_write_html(rep, out);
	case LH_FORMAT_TEXT:
	default:
		return lh_report_write_text(rep, out);
	}
}

struct write_args {
	struct lh_report	*rep;
	enum lh_format		fmt;
};

static int write_one(FILE *f, void *arg)
{
	struct write_args *w = arg;

	return lh_report_write(w->rep, w->fmt, f);
}

int lh_report_write_file(struct lh_report *rep, enum lh_format fmt, const char *path,
			 struct lh_diag *diag)
{
	struct write_args w = { rep, fmt };
	char *label = lh_xasprintf("report '%s'", path);
	int ret;

	ret = lh_lockfile_write_path(path, label, write_one, &w, diag);
	free(label);
	return ret;
}

const char *lh_report_run_id(const struct lh_report *rep)
{
	return rep->has_run ? rep->run.run_id : NULL;
}

bool lh_report_run_seen(struct lh_htab *runs, const char *id, uint32_t who, uint32_t *first)
{
	uint64_t h;
	size_t pos = 0;

	if (!id)
		return false;
	h = lh_hash(id, strlen(id), 0);
	if (lh_htab_find(runs, h, &pos, first))
		return true;
	lh_htab_add(runs, h, who);
	return false;
}

uint64_t lh_report_worst_us(const struct lh_report *rep, enum lh_tracer t)
{
	if ((unsigned int)t >= LH_TRACER_NR || !rep->tracers[t].worst.set)
		return 0;
	return rep->tracers[t].worst.latency_us;
}

uint64_t lh_report_records(const struct lh_report *rep)
{
	return rep->total;
}

uint64_t lh_report_rule_hits(const struct lh_report *rep)
{
	return rep->rule_hit_records;
}

void lh_report_set_error(struct lh_report *rep, const char *what)
{
	if (!rep->verdict.error)
		lh_verdict_error_of(&rep->verdict, LH_VERDICT_RUN, lh_xstrdup(what));
}

const char *lh_report_error(const struct lh_report *rep)
{
	return rep->verdict.error;
}

/* Return: the kernel histogram of kind on cpu, added empty when not there. */
static struct lh_report_histogram *kernel_hist(struct lh_report *rep, const char *kind, int cpu)
{
	struct lh_report_histogram *e;
	size_t i;

	for (i = 0; i < rep->nr_hists; i++) {
		e = &rep->hists[i];
		if (e->cpu == cpu && !strcmp(e->kind, kind) && !strcmp(e->source, "kernel"))
			return e;
	}
	LH_GROW(rep->hists, rep->nr_hists + 1, rep->alloc_hists);
	e = &rep->hists[rep->nr_hists++];
	memset(e, 0, sizeof(*e));
	e->source = lh_arena_strdup(&rep->arena, "kernel");
	e->kind = lh_arena_strdup(&rep->arena, kind);
	e->cpu = cpu;
	return e;
}

void lh_report_set_histogram(struct lh_report *rep, const char *kind, int cpu,
			     const struct lh_histogram *h)
{
	lh_histogram_copy(&kernel_hist(rep, kind, cpu)->h, h);
}

void lh_report_histogram_clear_callers(struct lh_report_histogram *e)
{
	size_t i;

	for (i = 0; i < e->nr_callers; i++)
		free(e->callers[i].symbol);
	free(e->callers);
	free(e->callers_note);
	e->callers = NULL;
	e->nr_callers = 0;
	e->callers_note = NULL;
	e->has_callers = false;
}

/* Longest first, then the most sections, then by name. */
static int cmp_caller(const void *a, const void *b)
{
	const struct lh_report_caller *x = a, *y = b;

	if (x->max_ns != y->max_ns)
		return x->max_ns > y->max_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->symbol, y->symbol);
}

void lh_report_histogram_set_callers(struct lh_report_histogram *e,
				     const struct lh_report_caller *c, size_t n, size_t keep,
				     const char *note)
{
	struct lh_report_caller *copy = n ? lh_xcalloc(n, sizeof(*c)) : NULL;
	char *note_copy = note ? lh_xstrdup(note) : NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		copy[i] = c[i];
		copy[i].symbol = lh_xstrdup(c[i].symbol);
	}
	qsort(copy, n, sizeof(*copy), cmp_caller);
	for (i = keep; i < n; i++)
		free(copy[i].symbol);
	lh_report_histogram_clear_callers(e);
	e->has_callers = true;
	e->callers = copy;
	e->nr_callers = n < keep ? n : keep;
	e->callers_note = note_copy;
}

void lh_report_set_callers(struct lh_report *rep, const char *kind,
			   const struct lh_report_caller *c, size_t n, const char *note)
{
	lh_report_histogram_set_callers(kernel_hist(rep, kind, -1), c, n, n, note);
}

char *lh_report_gates_text(const struct lh_report *rep, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "--fail-on %s", lh_gate_fail_on_name(&rep->gate));
	char d[32];
	int t;

	/* the tracers' own budgets first, then 'all' (LH_TRACER_UNKNOWN) */
	for (t = 1; t <= LH_TRACER_NR && n < len; t++) {
		int k = t % LH_TRACER_NR;

		if (rep->gate.has_max[k])
			n += (size_t)snprintf(buf + n, len - n, ", --max %s=%s",
					      k ? lh_tracer_name(k) : "all",
					      lh_duration_format(rep->gate.max_ns[k], d, sizeof(d)));
	}
	return buf;
}

bool lh_report_counts_every_section(const struct lh_report *rep)
{
	return !rep->has_run || !rep->run.mode || strcmp(rep->run.mode, "record") ||
	       rep->run.threshold_ns;
}

const char *lh_report_kernel(const struct lh_report *rep)
{
	struct lh_report_kept *worst = NULL;
	size_t i;

	if (rep->has_run && rep->run.kernel)
		return rep->run.kernel;
	/* analyze: the kernel the worst snapshot kept names */
	for (i = 0; i < rep->nr_heap; i++)
		if (!worst || rep->heap[i]->rec->latency_us > worst->rec->latency_us)
			worst = rep->heap[i];
	return worst ? worst->rec->kernel : NULL;
}

uint64_t lh_report_run_duration_ns(const struct lh_report *rep)
{
	const struct lh_run_info *run = &rep->run;

	if (rep->duration_ns)
		return rep->duration_ns;
	return run->ended_ns > run->started_ns ? run->ended_ns - run->started_ns : 0;
}

char *lh_report_sections_caption(const struct lh_report *rep, char *buf, size_t len)
{
	char thr[32];

	if (!rep->has_run || !rep->run.mode || strcmp(rep->run.mode, "record"))
		snprintf(buf, len, "every section in the input");
	else if (rep->run.threshold_ns)
		snprintf(buf, len, "the sections over -T %s that were captured",
			 lh_report_fmt_us(rep->run.threshold_ns, thr, sizeof(thr)));
	else
		snprintf(buf, len, "each new maximum captured (running maxima): not a distribution");
	return buf;
}

const char *lh_report_verdict(const struct lh_report *rep)
{
	return rep->verdict.error ? "error" : rep->passed ? "pass" : "fail";
}
