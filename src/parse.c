// SPDX-License-Identifier: GPL-2.0-only
/*
 * The latency-snapshot parser: the text of /sys/kernel/tracing/trace after a latency tracer
 * recorded a section, one or several snapshots concatenated, into lh_records.
 *
 * A snapshot starts at a '# tracer: NAME' line. Its header ('# latency:', '| task:', the
 * started/ended sites, the column legend) is parsed field by field; its body is parsed line by
 * line without allocating: a line is classified by its first bytes, the time column is found
 * with memchr(':'), and only what a record keeps is copied (a function name on first sight, a
 * frame, an irq handler). The layouts of kernels 3.x to 6.x are handled by never relying on
 * column widths: the flags field (4 to 8 characters, CPU merged or '[000]') is whatever lies
 * between the task and the time column.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "htab.h"

/* Bounds per record, so that hostile input cannot make a record grow without limit. */
#define MAX_FUNCS	(1u << 16)
#define MAX_FRAMES	256
#define MAX_IRQS	4096
#define FN_TABLE_MIN	4096

enum state {
	ST_NONE,	/* outside any snapshot: before the first '# tracer:' or after a record */
	ST_HEADER,	/* after '# tracer:', until the column legend or the first body line */
	ST_BODY,
	ST_SKIP,	/* a malformed snapshot, ignored up to the next '# tracer:' */
};

struct lh_parser {
	struct lh_parse_stats	stats;
	struct lh_diag		*diag;
	struct lh_record	*rec;	/* reused for every snapshot */

	struct lh_htab		funcs;	/* rec->funcs by name, emptied per snapshot */

	size_t			*open_irqs;	/* rec->irqs waiting for their exit */
	size_t			nr_open;
	size_t			alloc_open;

	/* the buffer being parsed */
	const char		*source;
	size_t			source_len;
	unsigned long		lineno;
	char			first_skip[160];	/* why its first snapshot was skipped */

	/* the snapshot being parsed */
	enum state		state;
	bool			have_latency;
	bool			header_done;
	bool			nonlat_header;	/* latency-format off ('# entries-...') */
	bool			graph_lat;	/* display-graph body has the flags column */
	bool			have_base;
	bool			warned_outside;
	bool			funcs_full;
	int			stack;		/* receives ' => ' frames, -1 for none */
	unsigned int		stack_blocks;	/* '<stack trace>' lines seen */
	unsigned long		bad_lines;	/* in this snapshot */
	double			base_us;	/* first timestamp when times are absolute */
};

/* A parsed time column: the digits before the ':' that ends it. */
struct ts {
	const char	*digits;
	const char	*end;
	bool		abs;	/* seconds (latency-format off), else microseconds */
};

/* Characters of kernel symbols, event names and raw addresses ("0xffffffffa0000034"). */
static const bool sym_char[256] = {
	['a' ... 'z'] = true, ['A' ... 'Z'] = true, ['0' ... '9'] = true,
	['_'] = true, ['.'] = true, ['$'] = true,
};

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

#define HAS_PREFIX(s, len, lit) \
	((size_t)(len) >= sizeof(lit) - 1 && !memcmp((s), (lit), sizeof(lit) - 1))

static const char *skip_blanks(const char *s, const char *e)
{
	while (s < e && is_blank(*s))
		s++;
	return s;
}

static const char *rtrim(const char *s, const char *e)
{
	while (e > s && (is_blank(e[-1]) || e[-1] == '\r'))
		e--;
	return e;
}

/* Return: where lit starts in s[0..e), or NULL. */
static const char *find(const char *s, const char *e, const char *lit)
{
	return s < e ? memmem(s, (size_t)(e - s), lit, strlen(lit)) : NULL;
}

/* Parses an optionally signed decimal at *pp, saturating. Return: false if no digit. */
static bool parse_long(const char **pp, const char *e, long *v)
{
	const char *s = *pp;
	bool neg = false;
	long n = 0;

	if (s < e && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	if (s >= e || !is_digit(*s))
		return false;
	for (; s < e && is_digit(*s); s++)
		n = n > (0x7fffffffL - 9) / 10 ? 0x7fffffffL : n * 10 + (*s - '0');
	*v = neg ? -n : n;
	*pp = s;
	return true;
}

static bool parse_u64(const char **pp, const char *e, uint64_t *v)
{
	const char *s = *pp;
	uint64_t n = 0;

	if (s >= e || !is_digit(*s))
		return false;
	for (; s < e && is_digit(*s); s++)
		n = n > (UINT64_MAX - 9) / 10 ? UINT64_MAX : n * 10 + (uint64_t)(*s - '0');
	*v = n;
	*pp = s;
	return true;
}

static int clamp_int(long v)
{
	return v > 0x7fffffffL ? 0x7fffffff : v < -0x7fffffffL ? -0x7fffffff : (int)v;
}

/* Parses the number that follows key in s[0..e) ("uid:", "#P:"). Return: false if absent. */
static bool keyed_long(const char *s, const char *e, const char *key, long *v)
{
	const char *k = find(s, e, key);

	if (!k)
		return false;
	k += strlen(key);
	return parse_long(&k, e, v);
}

static const char *rec_strdup(struct lh_parser *p, const char *s, const char *e)
{
	return lh_arena_strndup(&p->rec->arena, s, (size_t)(e - s));
}

/* Return: whether the string a is s[0..e). */
static bool same_str(const char *a, const char *s, const char *e)
{
	size_t len = (size_t)(e - s);

	return a && strnlen(a, len + 1) == len && !memcmp(a, s, len);
}

static void __attribute__((format(printf, 3, 4)))
warn(struct lh_parser *p, unsigned long line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!p->diag)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	lh_diag_add(p->diag, LH_DIAG_WARNING, "%s:%lu: %s", p->source, line, msg);
}

/* Counts one call of the function name[0..len), adding it on first sight. */
static void add_func(struct lh_parser *p, const char *name, size_t len)
{
	struct lh_record *r = p->rec;
	uint64_t h = lh_hash_fast(name, len, 0);
	struct lh_func *f;
	size_t pos = 0;
	uint32_t i;

	while (lh_htab_find(&p->funcs, h, &pos, &i)) {
		f = &r->funcs[i];
		if (!memcmp(f->name, name, len) && !f->name[len]) {
			f->count++;
			return;
		}
	}
	if (r->nr_funcs >= MAX_FUNCS) {
		p->funcs_full = true;
		return;
	}
	f = lh_record_add_func(r);
	f->name = lh_arena_strndup(&r->arena, name, len);
	f->count = 1;
	lh_htab_add(&p->funcs, h, (uint32_t)(r->nr_funcs - 1));
}

/*
 * Counts a function from text that starts with its name: "name <-parent", "name",
 * "name+0x1c/0x40 <-...", "name [mod] <-..." (function trace) or "name();", "name() {",
 * "name [mod]() {" (display-graph, graph true). Return: false when s is not such a line.
 */
static bool func_text(struct lh_parser *p, const char *s, const char *e, bool graph)
{
	const char *n = s, *q;

	while (n < e && sym_char[(unsigned char)*n])
		n++;
	if (n == s)
		return false;
	q = n;
	if (q < e && *q == '+')		/* sym-offset: "name+0x1c/0x40" */
		while (q < e && *q != ' ' && *q != '(')
			q++;
	if (e - q >= 2 && q[0] == ' ' && q[1] == '[') {	/* " [module]" */
		q = memchr(q, ']', (size_t)(e - q));
		if (!q)
			return false;
		q++;
	}
	if (graph) {
		if (q >= e || *q != '(')
			return false;
	} else if (q < e && (e - q < 3 || memcmp(q, " <-", 3))) {
		return false;
	}
	/* "0": the wakeup probe's CALLER_ADDR1 on a kernel without frame pointers, no function */
	if (n - s != 1 || *s != '0')
		add_func(p, s, (size_t)(n - s));
	return true;
}

/* Snapshots */

static void begin_snapshot(struct lh_parser *p, const char *name, const char *e)
{
	struct lh_record *r = p->rec;

	lh_record_reset(r);
	lh_htab_clear(&p->funcs);
	name = skip_blanks(name, e);
	e = rtrim(name, e);
	r->tracer = lh_tracer_from_name(name, (size_t)(e - name));
	r->tracer_name = rec_strdup(p, name, e);
	r->source = lh_arena_strndup(&r->arena, p->source, p->source_len);
	r->line = p->lineno;
	p->state = ST_HEADER;
	p->have_latency = false;
	p->header_done = false;
	p->nonlat_header = false;
	p->graph_lat = true;
	p->have_base = false;
	p->warned_outside = false;
	p->funcs_full = false;
	p->stack = -1;
	p->stack_blocks = 0;
	p->bad_lines = 0;
	p->base_us = 0;
	p->nr_open = 0;
}

static void skip_snapshot(struct lh_parser *p, unsigned long line, const char *why)
{
	const struct lh_record *r = p->rec;

	warn(p, line, "%s, skipping snapshot '%s' from line %lu", why, r->tracer_name, r->line);
	if (!p->first_skip[0])
		snprintf(p->first_skip, sizeof(p->first_skip), "line %lu: %s", line, why);
	p->stats.skipped++;
	p->state = ST_SKIP;
}

static void skip_no_latency(struct lh_parser *p)
{
	if (p->nonlat_header)
		skip_snapshot(p, p->lineno,
			      "expected '# latency:' header line (options/latency-format is off)");
	else
		skip_snapshot(p, p->lineno, "expected '# latency:' header line");
}

/* A wakeup record's woken task is also its '| task:' task: share what each knows. */
static void finish_record(struct lh_parser *p)
{
	struct lh_record *r = p->rec;

	if (r->has_wakeup && r->woken.pid == r->task.pid) {
		r->woken.uid = r->task.uid;
		r->woken.nice = r->task.nice;
		r->woken.policy = r->task.policy;
		r->woken.rt_prio = r->task.rt_prio;
		if (!r->woken.comm)
			r->woken.comm = r->task.comm;
		r->task.prio = r->woken.prio;
		r->task.state = r->woken.state;
	}
}

/* Ends the snapshot in progress at line p->lineno. Return: -1 when the callback said stop. */
static int end_snapshot(struct lh_parser *p, lh_record_fn fn, void *arg)
{
	enum state st = p->state;

	p->state = ST_NONE;
	p->warned_outside = false;
	if (st == ST_HEADER && p->have_latency && p->header_done)
		st = ST_BODY;	/* a complete header and an empty body */
	if (st == ST_HEADER) {
		if (!p->have_latency)
			skip_no_latency(p);
		else
			skip_snapshot(p, p->lineno, "header cut before the column legend");
		p->state = ST_NONE;
		return 0;
	}
	if (st != ST_BODY)
		return 0;
	if (p->funcs_full)
		warn(p, p->rec->line,
		     "more than %u distinct functions in snapshot '%s', ignoring the rest",
		     MAX_FUNCS, p->rec->tracer_name);
	finish_record(p);
	p->stats.snapshots++;
	if (fn && fn(p->rec, arg) < 0)
		return -1;
	return 0;
}

/* Header lines */

/* "# latency: 2002 us, #4/4, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)" */
static bool header_latency(struct lh_parser *p, const char *s, const char *e)
{
	struct lh_record *r = p->rec;
	const char *q = skip_blanks(s, e), *m;
	uint64_t v;
	long n;

	if (!parse_u64(&q, e, &r->latency_us))
		return false;
	q = skip_blanks(q, e);
	if (!HAS_PREFIX(q, e - q, "us"))
		return false;
	m = find(q, e, ", #");
	if (m) {
		m += 3;
		if (parse_u64(&m, e, &v)) {
			r->entries = (unsigned long)v;
			if (m < e && *m == '/' && (m++, parse_u64(&m, e, &v)))
				r->entries_total = (unsigned long)v;
		}
	}
	if (keyed_long(q, e, "CPU#", &n))
		r->cpu = clamp_int(n);
	if (keyed_long(q, e, "#P:", &n))
		r->nr_cpus = clamp_int(n);
	m = find(q, e, "(M:");
	if (m) {
		const char *me;

		m += 3;
		for (me = m; me < e && *me != ' ' && *me != ')' && *me != ','; me++)
			;
		if (me > m)
			r->preempt_model = rec_strdup(p, m, me);
	}
	return true;
}

/* "task: irq_test-82 (uid:0 nice:0 policy:0 rt_prio:0)": comm may hold '-', ' ' and '('. */
static void header_task(struct lh_parser *p, const char *s, const char *e)
{
	struct lh_task *t = &p->rec->task;
	const char *paren = NULL, *q, *d, *dash = NULL;
	long v;

	s = skip_blanks(s, e);
	e = rtrim(s, e);
	for (q = e; q - s >= 2; q--)
		if (q[-1] == '(' && q[-2] == ' ') {
			paren = q - 1;
			break;
		}
	q = paren ? paren - 1 : e;
	for (d = s; d < q; d++)
		if (*d == '-')
			dash = d;
	d = dash ? dash + 1 : q;
	if (dash && parse_long(&d, q, &v) && d == q) {
		t->pid = clamp_int(v);
		t->comm = rec_strdup(p, s, dash);
	} else {
		t->comm = rec_strdup(p, s, q);
	}
	if (!paren)
		return;
	if (keyed_long(paren, e, "uid:", &v))
		t->uid = clamp_int(v);
	if (keyed_long(paren, e, "nice:", &v))
		t->nice = clamp_int(v);
	if (keyed_long(paren, e, "policy:", &v))
		t->policy = clamp_int(v);
	if (keyed_long(paren, e, "rt_prio:", &v))
		t->rt_prio = clamp_int(v);
}

static void header_line(struct lh_parser *p, const char *line, const char *e)
{
	struct lh_record *r = p->rec;
	const char *s = skip_blanks(line + 1, e), *q;

	if (HAS_PREFIX(s, e - s, "latency:")) {
		if (!header_latency(p, s + 8, e)) {
			skip_snapshot(p, p->lineno,
				      "expected '# latency: N us, ...' with a number");
			return;
		}
		p->have_latency = true;
	} else if (HAS_PREFIX(s, e - s, "| task:")) {
		header_task(p, s + 7, e);
	} else if (HAS_PREFIX(s, e - s, "=> started at:")) {
		s = skip_blanks(s + 14, e);
		r->started_at = rec_strdup(p, s, rtrim(s, e));
	} else if (HAS_PREFIX(s, e - s, "=> ended at:")) {
		s = skip_blanks(s + 12, e);
		r->ended_at = rec_strdup(p, s, rtrim(s, e));
	} else if ((q = find(s, e, " latency trace v")) && (q = find(q, e, " on "))) {
		q = skip_blanks(q + 4, e);
		r->kernel = rec_strdup(p, q, rtrim(q, e));
	} else if (HAS_PREFIX(s, e - s, "cmd ") || find(s, e, "TASK-PID")) {
		p->header_done = true;
	} else if (find(s, e, "FUNCTION CALLS")) {
		p->header_done = true;
		p->graph_lat = find(s, e, "||") != NULL;
	} else if (HAS_PREFIX(s, e - s, "entries-in-buffer/entries-written:")) {
		p->nonlat_header = true;
	}
}

/* Body lines */

static inline bool is_mark(char c)
{
	switch (c) {
	case ' ': case '+': case '!': case '#': case '*': case '@': case '$':
		return true;
	}
	return false;
}

/*
 * Whether the ':' at c (in line[0..e)) ends a time column: "  3us : " and "2002us#: " in
 * latency format, " 123.456789: " without it, " 1234: " for counter clocks.
 */
static bool time_at(const char *line, const char *c, const char *e, struct ts *t)
{
	const char *q = c, *d;
	bool dot = false, usec = false;

	if (c + 1 < e && c[1] != ' ')
		return false;
	if (q - line >= 4 && is_mark(q[-1]) && q[-2] == 's' && q[-3] == 'u') {
		q -= 3;
		usec = true;
	} else if (q - line >= 3 && q[-1] == 's' && q[-2] == 'u') {
		q -= 2;
		usec = true;
	}
	for (d = q; d > line && q - d < 24 && (is_digit(d[-1]) || (d[-1] == '.' && !dot)); d--)
		dot |= d[-1] == '.';
	if (d == q || d == line || d[-1] != ' ' || !is_digit(*d))
		return false;
	t->digits = d;
	t->end = q;
	t->abs = dot && !usec;
	return true;
}

/* Return: the ':' that ends the time column of line[0..e), or NULL. */
static const char *find_time(const char *line, const char *e, struct ts *t)
{
	const char *s = line, *c;

	while (s < e && (c = memchr(s, ':', (size_t)(e - s)))) {
		if (time_at(line, c, e, t))
			return c;
		s = c + 1;
	}
	return NULL;
}

/* Return: the time as microseconds since the start of the snapshot. */
static double ts_us(struct lh_parser *p, const struct ts *t)
{
	double v = 0, scale = 0;
	const char *s;

	for (s = t->digits; s < t->end; s++) {
		if (*s == '.') {
			scale = 1;
			continue;
		}
		v = v * 10 + (*s - '0');
		scale *= 10;
	}
	if (scale > 0)
		v /= scale;
	if (t->abs)
		v *= 1e6;
	if (!p->have_base) {
		p->have_base = true;
		p->base_us = t->abs ? v : 0;
	}
	return v - p->base_us;
}

/* Finds "comm-pid" in s[0..e): the first '-' followed by digits and a blank or the end. */
static bool split_cmd(const char *s, const char *e, const char **comm, const char **comm_end,
		      long *pid)
{
	const char *q, *d;

	s = skip_blanks(s, e);
	for (q = s + 1; q < e; q++) {
		if (*q != '-')
			continue;
		for (d = q + 1; d < e && is_digit(*d); d++)
			;
		if (d > q + 1 && (d == e || is_blank(*d))) {
			*comm = s;
			*comm_end = q;
			d = q + 1;
			return parse_long(&d, e, pid);
		}
	}
	return false;
}

/* "  64: 49:R": a task as the wakeup lines print it ("%7d:%3d:%c"). */
static bool pid_prio_state(const char **pp, const char *e, long *pid, long *prio, char *state)
{
	const char *s = skip_blanks(*pp, e);

	if (!parse_long(&s, e, pid) || s >= e || *s++ != ':')
		return false;
	s = skip_blanks(s, e);
	if (!parse_long(&s, e, prio) || s >= e || *s++ != ':' || s >= e || is_blank(*s))
		return false;
	*state = *s++;
	*pp = s;
	return true;
}

/*
 * The wakeup tracers' '+' (wakeup) and '==>' (switch) lines:
 * "     0:120:R   + [000]      64: 49:R rt_task": pid:prio:state of the waker (or of the task
 * switched out), then the woken task's [cpu] pid:prio:state comm. cmd[0..cmd_e) is the line's
 * task column, naming the left-hand task.
 */
static bool wakeup_text(struct lh_parser *p, const char *s, const char *e, const char *cmd,
			const char *cmd_e)
{
	struct lh_record *r = p->rec;
	long pid1, prio1, cpu, pid2, prio2, cpid;
	const char *comm, *comm_e;
	char st1, st2;
	bool wake;

	if (!pid_prio_state(&s, e, &pid1, &prio1, &st1))
		return false;
	s = skip_blanks(s, e);
	if (s < e && *s == '+') {
		wake = true;
		s++;
	} else if (e - s >= 3 && !memcmp(s, "==>", 3)) {
		wake = false;
		s += 3;
	} else {
		return false;
	}
	s = skip_blanks(s, e);
	if (s >= e || *s++ != '[' || !parse_long(&s, e, &cpu) || s >= e || *s++ != ']')
		return false;
	if (!pid_prio_state(&s, e, &pid2, &prio2, &st2))
		return false;
	s = skip_blanks(s, e);
	e = rtrim(s, e);

	r->has_wakeup = true;
	r->woken.pid = clamp_int(pid2);
	r->woken.prio = clamp_int(prio2);
	r->woken.state = st2;
	if (s < e && !same_str(r->woken.comm, s, e))
		r->woken.comm = rec_strdup(p, s, e);
	if (wake || r->waker.pid < 0) {
		r->waker.pid = clamp_int(pid1);
		r->waker.prio = clamp_int(prio1);
		r->waker.state = st1;
		if (cmd && split_cmd(cmd, cmd_e, &comm, &comm_e, &cpid) &&
		    !same_str(r->waker.comm, comm, comm_e))
			r->waker.comm = rec_strdup(p, comm, comm_e);
	}
	return true;
}

/* Return: a " key=value" value's end: the end of the text, less blanks and a comment end. */
static const char *value_end(const char *s, const char *e)
{
	e = rtrim(s, e);
	if (e - s >= 2 && e[-2] == '*' && e[-1] == '/')
		e = rtrim(s, e - 2);
	return e;
}

/* "irq_handler_entry: irq=24 name=fakeraid" */
static void irq_entry(struct lh_parser *p, const char *s, const char *e, double t, bool timed)
{
	struct lh_record *r = p->rec;
	const char *q = find(s, e, "irq="), *n;
	struct lh_irq *irq;
	long v;

	if (!q || r->nr_irqs >= MAX_IRQS)
		return;
	q += 4;
	if (!parse_long(&q, e, &v))
		return;
	irq = lh_record_add_irq(r);
	irq->irq = clamp_int(v);
	n = find(q, e, "name=");
	if (n) {
		n += 5;
		irq->name = rec_strdup(p, n, value_end(n, e));
	}
	irq->start_us = timed ? t : 0;
	LH_GROW(p->open_irqs, p->nr_open + 1, p->alloc_open);
	p->open_irqs[p->nr_open++] = r->nr_irqs - 1;
}

/*
 * "irq_handler_exit: irq=24 ret=handled" closes the innermost open handler of that irq (those
 * opened inside it never saw their exit). An exit without an entry is a handler that was
 * already running when the section started: it ran from 0 at least.
 */
static void irq_exit(struct lh_parser *p, const char *s, const char *e, double t, bool timed)
{
	struct lh_record *r = p->rec;
	const char *q = find(s, e, "irq="), *ret;
	struct lh_irq *irq = NULL;
	size_t i;
	long v;

	if (!q)
		return;
	q += 4;
	if (!parse_long(&q, e, &v))
		return;
	for (i = p->nr_open; i > 0; i--) {
		if (r->irqs[p->open_irqs[i - 1]].irq == v) {
			irq = &r->irqs[p->open_irqs[i - 1]];
			p->nr_open = i - 1;
			break;
		}
	}
	if (!irq) {
		if (r->nr_irqs >= MAX_IRQS)
			return;
		irq = lh_record_add_irq(r);
		irq->irq = clamp_int(v);
		irq->start_us = 0;
	}
	if (timed)
		irq->duration_us = t >= irq->start_us ? t - irq->start_us : 0;
	ret = find(q, e, "ret=");
	if (ret) {
		ret += 4;
		irq->ret = rec_strdup(p, ret, value_end(ret, e));
	}
}

/*
 * What follows the context columns of a body line, or the text of a display-graph comment:
 * an event ("name: args"), a wakeup line, or (when funcs) a function line.
 * Return: false when it is none of those.
 */
static bool content(struct lh_parser *p, const char *s, const char *e, const struct ts *t,
		    const char *cmd, const char *cmd_e, bool funcs)
{
	const char *n;
	double us = 0;

	if (s >= e)
		return true;
	if (*s == '<') {
		if (HAS_PREFIX(s, e - s, "<stack trace>")) {
			p->stack = p->stack_blocks < LH_MAX_STACKS ? (int)p->stack_blocks : -1;
			p->stack_blocks++;
			return true;
		}
		/* "<user stack trace>": its frames are user addresses, not kernel sites */
		return HAS_PREFIX(s, e - s, "<user stack trace>");
	}
	if ((*s == ' ' || is_digit(*s) || *s == '-') && wakeup_text(p, s, e, cmd, cmd_e))
		return true;
	if (funcs && func_text(p, s, e, false))
		return true;
	for (n = s; n < e && sym_char[(unsigned char)*n]; n++)
		;
	if (n == s || n >= e || *n != ':')
		return false;
	if (n - s == 17 && !memcmp(s, "irq_handler_entry", 17)) {
		if (t)
			us = ts_us(p, t);
		irq_entry(p, n + 1, e, us, t != NULL);
	} else if (n - s == 16 && !memcmp(s, "irq_handler_exit", 16)) {
		if (t)
			us = ts_us(p, t);
		irq_exit(p, n + 1, e, us, t != NULL);
	}
	return true;
}

/*
 * A display-graph line: "  4176 us |   0)   insmod-101   |  d..2. |   1.354 us    |  f();".
 * Return: false when line is not one.
 */
static bool graph_line(struct lh_parser *p, const char *s, const char *e)
{
	const char *q = s, *proc, *proc_e, *c;
	struct ts t;

	while (q < e && is_digit(*q))
		q++;
	if (e - q < 5 || memcmp(q, " us |", 5))
		return false;
	t.digits = s;
	t.end = q;
	t.abs = false;
	q += 5;
	/* " 0)   insmod-101   |": the task after the CPU's ')' */
	proc_e = memchr(q, '|', (size_t)(e - q));
	if (!proc_e)
		return false;
	proc = memchr(q, ')', (size_t)(proc_e - q));
	proc = proc ? proc + 1 : q;
	q = proc_e + 1;
	if (p->graph_lat) {
		q = memchr(q, '|', (size_t)(e - q));
		if (!q)
			return false;
		q++;
	}
	q = memchr(q, '|', (size_t)(e - q));
	if (!q)
		return false;
	q = skip_blanks(q + 1, e);
	if (q >= e || *q == '}' || *q == '=' || *q == '<')
		return true;	/* a return, or an irq entry/exit arrow */
	if (e - q >= 2 && q[0] == '/' && q[1] == '*') {
		c = value_end(q + 2, e);
		content(p, skip_blanks(q + 2, c), c, &t, proc, proc_e, false);
		return true;
	}
	func_text(p, q, e, true);
	return true;
}

/* Copies up to 40 bytes of s[0..e) into buf for a message, '?' for what is not printable. */
static const char *excerpt(char *buf, size_t size, const char *s, const char *e)
{
	size_t i, n = (size_t)(e - s) < size - 4 ? (size_t)(e - s) : size - 4;

	for (i = 0; i < n; i++)
		buf[i] = s[i] >= ' ' && s[i] < 0x7f && s[i] != '\'' ? s[i] : '?';
	if (n < (size_t)(e - s))
		buf[i++] = '.', buf[i++] = '.', buf[i++] = '.';
	buf[i] = '\0';
	return buf;
}

static void bad_line(struct lh_parser *p, const char *s, const char *e)
{
	char ex[44];

	p->stats.bad_lines++;
	if (!p->bad_lines++)
		warn(p, p->lineno,
		     "expected a trace line, got '%s' (more in snapshot '%s' are only counted)",
		     excerpt(ex, sizeof(ex), s, e), p->rec->tracer_name);
}

static void body_line(struct lh_parser *p, const char *line, const char *e)
{
	const char *s = skip_blanks(line, e), *c;
	struct ts t;

	if (s >= e)
		return;
	if (*s == '=' && e - s >= 2 && s[1] == '>') {
		/* " => frame" of the stack block in progress */
		struct lh_stack *st = p->stack >= 0 ? &p->rec->stacks[p->stack] : NULL;
		const char *fe;

		s = skip_blanks(s + 2, e);
		fe = rtrim(s, e);
		if (st && st->nr < MAX_FRAMES && fe > s)
			lh_record_add_frame(p->rec, (size_t)p->stack, s, (size_t)(fe - s));
		return;
	}
	p->stack = -1;
	if (is_digit(*s) && graph_line(p, s, e))
		return;
	c = find_time(line, e, &t);
	if (c) {
		if (!p->have_base)
			ts_us(p, &t);
		/* an unknown but well-formed line is other tracers' or events' output */
		content(p, c + (c + 1 < e ? 2 : 1), e, &t, line, c, true);
		return;
	}
	/* no context columns (options/context-info off), or not a trace line at all */
	if (content(p, s, e, NULL, NULL, NULL, true))
		return;
	if (*s == '#' || HAS_PREFIX(s, e - s, "---") || HAS_PREFIX(s, e - s, "CPU:") ||
	    find(s, e, " => "))
		return;	/* annotations, lost events, graph context switches */
	bad_line(p, s, e);
}

/* Text before the first snapshot or after a record's end that is not a snapshot. */
static void outside_line(struct lh_parser *p, const char *line, const char *e)
{
	const char *s = skip_blanks(line, e);
	char ex[44];

	if (s >= e || *s == '#')
		return;
	p->stats.bad_lines++;
	if (!p->warned_outside) {
		p->warned_outside = true;
		warn(p, p->lineno, "expected a '# tracer:' line starting a snapshot, got '%s'; "
		     "ignoring text up to the next one", excerpt(ex, sizeof(ex), s, e));
	}
}

/* The first body line of a snapshot ends its header. */
static void first_body_line(struct lh_parser *p, const char *s, const char *e)
{
	if (skip_blanks(s, e) == e)
		return;
	if (!p->have_latency) {
		skip_no_latency(p);
		return;
	}
	p->header_done = true;
	p->state = ST_BODY;
	body_line(p, s, e);
}

int lh_parse_buffer(struct lh_parser *p, const char *source, const char *buf, size_t len,
		    lh_record_fn fn, void *arg)
{
	const char *s = buf, *end = buf + len, *nl, *e;
	int ret = 0;

	p->source = source ? source : "<buffer>";
	p->source_len = strlen(p->source);
	p->lineno = 0;
	p->first_skip[0] = '\0';
	p->state = ST_NONE;
	p->warned_outside = false;
	for (; s < end; s = nl ? nl + 1 : end) {
		nl = memchr(s, '\n', (size_t)(end - s));
		e = nl ? nl : end;
		p->lineno++;
		p->stats.lines++;
		if (e > s && e[-1] == '\r')
			e--;
		if (e == s || *s != '#') {
			if (p->state == ST_BODY)
				body_line(p, s, e);
			else if (p->state == ST_HEADER)
				first_body_line(p, s, e);
			else if (p->state == ST_NONE)
				outside_line(p, s, e);
		} else if (e - s >= 9 && !memcmp(s, "# tracer:", 9)) {
			ret = end_snapshot(p, fn, arg);
			if (ret < 0)
				break;
			begin_snapshot(p, s + 9, e);
		} else if (p->state == ST_HEADER) {
			header_line(p, s, e);
		}
	}
	if (!ret)
		ret = end_snapshot(p, fn, arg);
	p->state = ST_NONE;
	return ret;
}

struct lh_parser *lh_parser_alloc(struct lh_diag *diag)
{
	struct lh_parser *p = lh_xcalloc(1, sizeof(*p));

	p->diag = diag;
	p->rec = lh_record_alloc();
	lh_htab_init(&p->funcs, FN_TABLE_MIN);
	p->stack = -1;
	return p;
}

void lh_parser_free(struct lh_parser *p)
{
	if (!p)
		return;
	lh_record_free(p->rec);
	lh_htab_release(&p->funcs);
	free(p->open_irqs);
	free(p);
}

const struct lh_parse_stats *lh_parser_stats(const struct lh_parser *p)
{
	return &p->stats;
}

const char *lh_parser_first_skip(const struct lh_parser *p)
{
	return p->first_skip[0] ? p->first_skip : NULL;
}
