// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-IRQ handler statistics: irq_handler_entry/exit pairs per CPU, accounted per
 * (cpu, irq, name), at most LH_IRQSTAT_MAX of them. No I/O.
 */
#include <stdlib.h>
#include <string.h>

#include "irqstat.h"
#include "util/htab.h"
#include "util/util.h"

/* Handlers that nest on one CPU (an exit lost, or a handler that re-enabled interrupts). */
#define NEST		8
#define NO_ENTRY	(-1)

struct pending {
	int		irq;
	int		idx;	/* entry index, NO_ENTRY when the table was full */
	uint64_t	ts;
};

struct cpu_state {
	unsigned int	depth;
	struct pending	stack[NEST];
};

struct lh_irqstat {
	struct lh_irqstat_entry	*entries;
	size_t			nr;
	size_t			alloc;
	int			*order;		/* lh_irqstat_get() order */
	size_t			alloc_order;
	struct lh_htab		keys;		/* entries by (cpu, irq, name) */
	struct cpu_state	*cpus;
	size_t			nr_cpus;	/* cpu states allocated */
	uint64_t		events;
	uint64_t		lost;
	uint64_t		dropped;
};

struct lh_irqstat *lh_irqstat_alloc(void)
{
	return lh_xcalloc(1, sizeof(struct lh_irqstat));
}

void lh_irqstat_free(struct lh_irqstat *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nr; i++)
		lh_histogram_release(&st->entries[i].dist);
	free(st->entries);
	free(st->order);
	lh_htab_release(&st->keys);
	free(st->cpus);
	free(st);
}

/* The key as stored: a name is kept to LH_IRQSTAT_NAME - 1 bytes, so only those count. */
static uint64_t key_hash(int cpu, int irq, const char *name)
{
	uint64_t seed = ((uint64_t)(unsigned int)cpu << 32) | (unsigned int)irq;

	return lh_hash_fast(name, strnlen(name, LH_IRQSTAT_NAME - 1), seed);
}

/* Return: the entry index for the key, created when new; NO_ENTRY when the table is full. */
static int lookup(struct lh_irqstat *st, int cpu, int irq, const char *name)
{
	uint64_t h = key_hash(cpu, irq, name);
	struct lh_irqstat_entry *e;
	size_t pos = 0;
	uint32_t idx;

	while (lh_htab_find(&st->keys, h, &pos, &idx)) {
		e = &st->entries[idx];
		if (e->cpu == cpu && e->irq == irq && !strncmp(e->name, name, LH_IRQSTAT_NAME - 1))
			return (int)idx;
	}
	if (st->nr >= LH_IRQSTAT_MAX)
		return NO_ENTRY;
	LH_GROW(st->entries, st->nr + 1, st->alloc);
	LH_GROW(st->order, st->nr + 1, st->alloc_order);
	e = &st->entries[st->nr];
	memset(e, 0, sizeof(*e));
	e->cpu = cpu;
	e->irq = irq;
	strncpy(e->name, name, LH_IRQSTAT_NAME - 1);
	st->order[st->nr] = (int)st->nr;
	lh_htab_add(&st->keys, h, (uint32_t)st->nr);
	return (int)st->nr++;
}

static unsigned int bucket_of(uint64_t ns)
{
	unsigned int b = ns ? 63 - (unsigned int)__builtin_clzll(ns) : 0;

	return b < LH_IRQSTAT_BUCKETS ? b : LH_IRQSTAT_BUCKETS - 1;
}

static void account(struct lh_irqstat_entry *e, uint64_t ns)
{
	e->count++;
	e->sum_ns += ns;
	if (ns > e->max_ns)
		e->max_ns = ns;
	e->hist[bucket_of(ns)]++;
	lh_histogram_add(&e->dist, ns);
}

/* Return: the state of cpu, allocated on first use; NULL when cpu is out of range. */
static struct cpu_state *cpu_state(struct lh_irqstat *st, int cpu)
{
	size_t old = st->nr_cpus;

	if (cpu < 0 || cpu >= LH_IRQSTAT_MAX_CPUS)
		return NULL;
	if ((size_t)cpu >= old) {
		LH_GROW(st->cpus, (size_t)cpu + 1, st->nr_cpus);
		memset(st->cpus + old, 0, (st->nr_cpus - old) * sizeof(*st->cpus));
	}
	return &st->cpus[cpu];
}

void lh_irqstat_entry(struct lh_irqstat *st, int cpu, int irq, const char *name, uint64_t ts)
{
	struct cpu_state *c = cpu_state(st, cpu);
	struct pending *p;

	if (!c) {
		st->dropped++;
		return;
	}
	if (c->depth == NEST) {
		/* The oldest pending entry never saw its exit: give it up. */
		memmove(&c->stack[0], &c->stack[1], (NEST - 1) * sizeof(c->stack[0]));
		c->depth--;
		st->dropped++;
	}
	p = &c->stack[c->depth++];
	p->irq = irq;
	p->idx = lookup(st, cpu, irq, name ? name : "");
	p->ts = ts;
}

void lh_irqstat_exit(struct lh_irqstat *st, int cpu, int irq, uint64_t ts)
{
	struct cpu_state *c = cpu_state(st, cpu);
	struct pending *p;
	unsigned int k;

	if (!c || !c->depth) {
		st->dropped++;
		return;
	}
	/* The innermost pending handler of this irq; those above it lost their exit. */
	for (k = c->depth; k-- > 0;)
		if (c->stack[k].irq == irq)
			break;
	if (k == (unsigned int)-1) {
		st->dropped++;
		return;
	}
	st->dropped += c->depth - 1 - k;
	c->depth = k;
	p = &c->stack[k];
	if (p->idx == NO_ENTRY || ts < p->ts) {
		st->dropped++;
		return;
	}
	account(&st->entries[p->idx], ts - p->ts);
	st->events++;
}

void lh_irqstat_add(struct lh_irqstat *st, int cpu, int irq, const char *name, uint64_t ns)
{
	int idx = cpu >= 0 && cpu < LH_IRQSTAT_MAX_CPUS ? lookup(st, cpu, irq, name ? name : "")
							 : NO_ENTRY;

	if (idx == NO_ENTRY) {
		st->dropped++;
		return;
	}
	account(&st->entries[idx], ns);
	st->events++;
}

void lh_irqstat_add_lost(struct lh_irqstat *st, uint64_t lost)
{
	st->lost += lost;
}

void lh_irqstat_lost_on_cpu(struct lh_irqstat *st, int cpu, uint64_t lost)
{
	struct cpu_state *c;

	st->lost += lost;
	if (cpu < 0 || (size_t)cpu >= st->nr_cpus)
		return;
	/* An exit may be among the lost events: a later exit must not pair across the gap. */
	c = &st->cpus[cpu];
	st->dropped += c->depth;
	c->depth = 0;
}

size_t lh_irqstat_count(const struct lh_irqstat *st)
{
	return st->nr;
}

const struct lh_irqstat_entry *lh_irqstat_get(const struct lh_irqstat *st, size_t i)
{
	return i < st->nr ? &st->entries[st->order[i]] : NULL;
}

static int cmp_entry(const void *a, const void *b, void *arg)
{
	const struct lh_irqstat_entry *entries = arg;
	const struct lh_irqstat_entry *x = &entries[*(const int *)a];
	const struct lh_irqstat_entry *y = &entries[*(const int *)b];
	int c;

	if (x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

void lh_irqstat_sort(struct lh_irqstat *st)
{
	/* Only the order changes: the hash and the pending handlers keep their indices. */
	if (st->nr > 1)
		qsort_r(st->order, st->nr, sizeof(*st->order), cmp_entry, st->entries);
}

uint64_t lh_irqstat_events(const struct lh_irqstat *st)
{
	return st->events;
}

uint64_t lh_irqstat_lost(const struct lh_irqstat *st)
{
	return st->lost;
}

uint64_t lh_irqstat_dropped(const struct lh_irqstat *st)
{
	return st->dropped;
}

int lh_irqstat_merge_entry(struct lh_irqstat *st, const struct lh_irqstat_entry *e)
{
	int idx = e->cpu >= 0 && e->cpu < LH_IRQSTAT_MAX_CPUS ? lookup(st, e->cpu, e->irq, e->name)
							       : NO_ENTRY;
	struct lh_irqstat_entry *d;
	int k;

	/* sums of several reports' statistics saturate: a loss must never read as none */
	if (idx == NO_ENTRY || lh_histogram_merge(&st->entries[idx].dist, &e->dist)) {
		st->dropped = lh_sat_add(st->dropped, e->count);
		return -1;
	}
	d = &st->entries[idx];
	d->count = lh_sat_add(d->count, e->count);
	d->sum_ns = lh_sat_add(d->sum_ns, e->sum_ns);
	if (e->max_ns > d->max_ns)
		d->max_ns = e->max_ns;
	for (k = 0; k < LH_IRQSTAT_BUCKETS; k++)
		d->hist[k] = lh_sat_add(d->hist[k], e->hist[k]);
	st->events = lh_sat_add(st->events, e->count);
	return 0;
}

void lh_irqstat_add_dropped(struct lh_irqstat *st, uint64_t dropped)
{
	st->dropped = lh_sat_add(st->dropped, dropped);
}

uint64_t lh_irqstat_p99(const struct lh_irqstat_entry *e)
{
	uint64_t want, seen = 0;
	unsigned int b;

	if (!e->count)
		return 0;
	/* The 99th percentile is the ceil(0.99 * count)-th smallest duration. */
	want = e->count - e->count / 100;
	for (b = 0; b < LH_IRQSTAT_BUCKETS; b++) {
		seen += e->hist[b];
		if (seen >= want)
			break;
	}
	/* The last bucket is open-ended: its bound is the largest duration seen. */
	if (b >= LH_IRQSTAT_BUCKETS - 1)
		return e->max_ns;
	return 2ULL << b;
}
