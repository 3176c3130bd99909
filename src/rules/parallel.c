// SPDX-License-Identifier: GPL-2.0-only
/*
 * Several parsers over one input (see parallel.h).
 *
 * The chunks' starts are found first: about every chunk bytes, the next line that is
 * "# tracer:" at column 0. Whatever state a single parser is in before such a line, the line
 * ends the snapshot in progress and starts one, unless the input's own state crosses it (a
 * quoted-printable soft break, a flowed line, a line longer than LH_PARSE_LINE_MAX, CR line
 * endings): lh_parser_at_rest() says when it does not. So a chunk read by a parser in its
 * first state at that line (lh_parse_jump()) gives what the single parser gives there, as long
 * as the chunk before it ended at rest; the caller's thread checks that at each chunk's end,
 * and where it fails reads the rest of the input itself, from that chunk's start.
 *
 * The threads take the chunks in order. Each counts the lines of its chunk first and
 * publishes the count, so that a chunk's first line number is known (the sum of the counts
 * before it) as soon as the chunks before it are counted, long before they are parsed. A
 * chunk's records are taken from its parser (lh_parser_take_record(), which reads on into a
 * record the slot had) with where the chunk's warnings stood when each came, and the caller's
 * thread drains the slots in order. At
 * most 2 * jobs chunks are parsed and not yet drained: memory stays bounded by the chunk size.
 * Given rules, each thread also matches its records with a matcher of its own (its line
 * cache bounded by a share of the rules' bound), so that the caller's thread only adds
 * them to its report.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"

#define NO_COUNT	ULONG_MAX

/* A record a thread parsed (and matched), and the warnings its chunk had given before it. */
struct item {
	struct lh_record	*rec;
	struct lh_match		m;
	unsigned long		diag_pos;
};

/* One chunk's results, handed from a thread to the caller's. */
struct slot {
	struct item		*items;
	size_t			nr;
	size_t			alloc;
	struct lh_diag		diag;
	struct lh_parse_outcome	out;
	bool			at_rest;	/* it ends in a parser's first state */
	bool			full;		/* filled, not yet drained */
};

struct worker {
	struct shared		*sh;
	pthread_t		thread;
	struct lh_parser	*p;
	struct lh_rules_matcher	*mt;	/* where the records are matched here */
	struct lh_diag		diag;	/* p's, moved into the slot after each chunk */
	struct slot		*cur;	/* being filled */
};

struct shared {
	const char			*buf;
	const char			*source;
	const struct lh_parallel_opts	*o;
	size_t				*starts;	/* chunk k: buf[starts[k]..[k + 1]) */
	size_t				nr_chunks;
	unsigned long			*count;		/* its lines, or NO_COUNT */
	unsigned long			*base;		/* lines before k <= nr_based */
	size_t				nr_based;
	size_t				next;		/* the next chunk to take */
	size_t				drained;	/* chunks the caller is done with */
	struct slot			*slots;
	size_t				nr_slots;
	pthread_mutex_t			lock;
	pthread_cond_t			cond;
	bool				stop;
	unsigned int			started;
	struct worker			workers[LH_PARALLEL_MAX_JOBS];
};

typedef unsigned char v16u8 __attribute__((vector_size(16)));

/* Return: the newlines in s[0..n), counted 16 bytes at a time (SSE2, NEON). */
static unsigned long count_lines(const char *s, size_t n)
{
	unsigned long lines = 0;
	v16u8 c, acc;
	size_t i = 0;
	int j, k;

	while (n - i >= 16) {
		acc = (v16u8){ 0 };
		for (j = 0; j < 255 && n - i >= 16; j++, i += 16) {	/* a byte counts 255 */
			memcpy(&c, s + i, sizeof(c));
			acc -= (v16u8)(c == '\n');
		}
		for (k = 0; k < 16; k++)
			lines += acc[k];
	}
	for (; i < n; i++)
		lines += s[i] == '\n';
	return lines;
}

/*
 * Return: the first "# tracer:" at a line's start in s[0..e) (after a '\n' there), or NULL.
 * '#' is rare in a body (header lines, a mark in a time column): memchr() finds it 6 times
 * as fast as memmem() finds the line (this runs before the threads start).
 */
static const char *tracer_line(const char *s, const char *e)
{
	static const char start[] = "# tracer:";
	const char *q;

	for (q = s + 1; q < e && (q = memchr(q, '#', (size_t)(e - q))); q++)
		if (q[-1] == '\n' && (size_t)(e - q) >= sizeof(start) - 1 &&
		    !memcmp(q, start, sizeof(start) - 1))
			return q;
	return NULL;
}

/* Return: the chunks' starts (free them), their number in *nr; starts[*nr] is len. */
static size_t *chunk_starts(const char *buf, size_t len, size_t chunk, size_t *nr)
{
	size_t n = 0, alloc = 0, off = 0, *st = NULL;
	const char *q;

	for (;;) {
		LH_GROW(st, n + 2, alloc);
		st[n++] = off;
		if (len - off <= chunk)
			break;
		q = tracer_line(buf + off + chunk - 1, buf + len);
		if (!q)
			break;
		off = (size_t)(q - buf);
	}
	st[n] = len;
	*nr = n;
	return st;
}

/* Feeds buf[s..e) to p piece by piece, as the caller would have. Return: lh_parse_feed()'s. */
static int feed(struct lh_parser *p, const struct lh_parallel_opts *o, const char *buf,
		size_t s, size_t e)
{
	size_t n;
	int ret = 0;

	for (; s < e && !ret; s += n) {
		n = e - s < o->piece ? e - s : o->piece;
		ret = lh_parse_feed(p, buf + s, n);
		if (o->release)
			o->release(buf + s, n);
	}
	return ret;
}

/* A thread's parser callback: takes the record over, and notes where the warnings stood. */
static int keep(struct lh_record *r, void *arg)
{
	struct worker *w = arg;
	struct slot *sl = w->cur;
	struct item *it;

	if (sl->nr == sl->alloc) {
		LH_GROW(sl->items, sl->nr + 1, sl->alloc);
		memset(sl->items + sl->nr, 0, (sl->alloc - sl->nr) * sizeof(*sl->items));
	}
	it = &sl->items[sl->nr++];
	it->rec = lh_parser_take_record(w->p, it->rec ? it->rec : lh_record_alloc());
	it->diag_pos = w->diag.warnings + w->diag.errors;
	if (w->mt)
		lh_rules_matcher_match(w->mt, it->rec, &it->m);
	return 0;
}

/* Parses chunk k, whose first line is base + 1, into its slot. */
static void parse_chunk(struct worker *w, size_t k, unsigned long base)
{
	struct shared *sh = w->sh;
	struct slot *sl = &sh->slots[k % sh->nr_slots];
	struct lh_parse_stats before;

	sl->nr = 0;
	w->cur = sl;
	lh_parse_begin(w->p, sh->source, keep, w);
	if (k)
		lh_parse_jump(w->p, base);
	before = *lh_parser_stats(w->p);
	feed(w->p, sh->o, sh->buf, sh->starts[k], sh->starts[k + 1]);
	if (k + 1 == sh->nr_chunks) {
		lh_parse_end(w->p);
		sl->at_rest = true;
	} else {
		sl->at_rest = lh_parser_at_rest(w->p);
		/* what the '# tracer:' line that starts the next chunk does to this one */
		if (sl->at_rest)
			lh_parse_jump(w->p, base + sh->count[k]);
	}
	lh_parser_outcome(w->p, &before, &sl->out);
	sl->diag = w->diag;
	memset(&w->diag, 0, sizeof(w->diag));
}

/* Publishes the line count of chunk k, and the first lines of the chunks it makes known. */
static void publish_count(struct shared *sh, size_t k, unsigned long n)
{
	sh->count[k] = n;
	while (sh->nr_based < sh->nr_chunks && sh->count[sh->nr_based] != NO_COUNT) {
		sh->base[sh->nr_based + 1] = sh->base[sh->nr_based] + sh->count[sh->nr_based];
		sh->nr_based++;
	}
	pthread_cond_broadcast(&sh->cond);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	unsigned long n, base;
	struct slot *sl;
	bool stop;
	size_t k;

	for (;;) {
		pthread_mutex_lock(&sh->lock);
		if (sh->stop || sh->next >= sh->nr_chunks) {
			pthread_mutex_unlock(&sh->lock);
			break;
		}
		k = sh->next++;
		pthread_mutex_unlock(&sh->lock);

		n = count_lines(sh->buf + sh->starts[k], sh->starts[k + 1] - sh->starts[k]);
		pthread_mutex_lock(&sh->lock);
		publish_count(sh, k, n);
		while (!sh->stop && (sh->nr_based < k || k >= sh->drained + sh->nr_slots))
			pthread_cond_wait(&sh->cond, &sh->lock);
		base = sh->base[k];
		stop = sh->stop;
		pthread_mutex_unlock(&sh->lock);
		if (stop)
			break;

		parse_chunk(w, k, base);
		sl = &sh->slots[k % sh->nr_slots];
		pthread_mutex_lock(&sh->lock);
		sl->full = true;
		pthread_cond_broadcast(&sh->cond);
		pthread_mutex_unlock(&sh->lock);
	}
	return NULL;
}

/* Stops and joins the threads (once). */
static void stop_workers(struct shared *sh)
{
	unsigned int i;

	pthread_mutex_lock(&sh->lock);
	sh->stop = true;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	for (i = 0; i < sh->started; i++)
		pthread_join(sh->workers[i].thread, NULL);
	sh->started = 0;
}

/*
 * Moves the warnings from[*done..upto) of a chunk to diag. Past LH_DIAG_KEEP texts the chunk
 * kept only their count, and so does diag then: it already holds more than the chunk did.
 */
static void diag_move(struct lh_diag *diag, const struct lh_diag *from, unsigned long *done,
		      unsigned long upto)
{
	for (; *done < upto; (*done)++) {
		if (*done < from->nr)
			lh_diag_add(diag, from->msgs[*done].level, "%s", from->msgs[*done].text);
		else
			diag->warnings++;	/* a parser gives no errors */
	}
}

/*
 * Hands chunk results to fn (or o->matched) in order. Return: 0, or -1 once it asked to
 * stop.
 */
static int drain(struct slot *sl, const struct lh_parallel_opts *o, lh_record_fn fn, void *arg,
		 struct lh_diag *diag)
{
	unsigned long done = 0;
	struct item *it;
	size_t i;

	for (i = 0; i < sl->nr; i++) {
		it = &sl->items[i];
		diag_move(diag, &sl->diag, &done, it->diag_pos);
		if (o->rules ? o->matched(it->rec, &it->m, arg) < 0 : fn && fn(it->rec, arg) < 0)
			return -1;
	}
	diag_move(diag, &sl->diag, &done, sl->diag.warnings + sl->diag.errors);
	return 0;
}

static void shared_free(struct shared *sh)
{
	size_t i, j;

	for (i = 0; i < LH_PARALLEL_MAX_JOBS; i++) {
		lh_parser_free(sh->workers[i].p);
		lh_rules_matcher_free(sh->workers[i].mt);
		lh_diag_release(&sh->workers[i].diag);
	}
	for (i = 0; i < sh->nr_slots; i++) {
		for (j = 0; j < sh->slots[i].alloc; j++) {
			lh_record_free(sh->slots[i].items[j].rec);
			lh_match_release(&sh->slots[i].items[j].m);
		}
		free(sh->slots[i].items);
		lh_diag_release(&sh->slots[i].diag);
	}
	pthread_cond_destroy(&sh->cond);
	pthread_mutex_destroy(&sh->lock);
	free(sh->slots);
	free(sh->count);
	free(sh->base);
	free(sh->starts);
	free(sh);
}

int lh_parallel_parse(struct lh_parser *p, const char *source, const char *buf, size_t len,
		      const struct lh_parallel_opts *o, lh_record_fn fn, void *arg,
		      struct lh_diag *diag)
{
	struct shared *sh = lh_xcalloc(1, sizeof(*sh));
	unsigned int jobs = o->jobs < LH_PARALLEL_MAX_JOBS ? o->jobs : LH_PARALLEL_MAX_JOBS;
	unsigned long lines = 0;
	int err = 0, ret = 0;
	struct slot *sl;
	size_t k;

	sh->buf = buf;
	sh->source = source;
	sh->o = o;
	sh->starts = chunk_starts(buf, len, o->chunk ? o->chunk : LH_PARALLEL_CHUNK,
				  &sh->nr_chunks);
	sh->count = lh_xmalloc(sh->nr_chunks * sizeof(*sh->count));
	for (k = 0; k < sh->nr_chunks; k++)
		sh->count[k] = NO_COUNT;
	sh->base = lh_xcalloc(sh->nr_chunks + 1, sizeof(*sh->base));
	sh->nr_slots = 2 * (size_t)jobs;
	sh->slots = lh_xcalloc(sh->nr_slots, sizeof(*sh->slots));
	pthread_mutex_init(&sh->lock, NULL);
	pthread_cond_init(&sh->cond, NULL);
	for (sh->started = 0; sh->started < jobs; sh->started++) {
		struct worker *w = &sh->workers[sh->started];

		w->sh = sh;
		w->p = lh_parser_alloc(&w->diag);
		if (o->rules)	/* the line caches share the bound */
			w->mt = lh_rules_matcher_alloc(o->rules, jobs);
		err = pthread_create(&w->thread, NULL, work, w);
		if (err)
			break;
	}
	if (!sh->started) {
		shared_free(sh);
		errno = err;
		return -2;
	}

	for (k = 0; k < sh->nr_chunks; k++) {
		sl = &sh->slots[k % sh->nr_slots];
		pthread_mutex_lock(&sh->lock);
		while (!sl->full)
			pthread_cond_wait(&sh->cond, &sh->lock);
		pthread_mutex_unlock(&sh->lock);
		if (!sl->at_rest)
			break;
		ret = drain(sl, o, fn, arg, diag);
		lh_parse_absorb(p, &sl->out);
		lines = sl->out.lineno;
		lh_diag_release(&sl->diag);
		if (ret)
			break;
		pthread_mutex_lock(&sh->lock);
		sl->full = false;
		sh->drained = k + 1;
		pthread_cond_broadcast(&sh->cond);
		pthread_mutex_unlock(&sh->lock);
	}
	stop_workers(sh);
	if (!ret && k < sh->nr_chunks) {
		/* chunk k ends in a state the next one must start from: read on here */
		if (k)
			lh_parse_jump(p, lines);
		ret = feed(p, o, buf, sh->starts[k], len);
	}
	shared_free(sh);
	return ret;
}
