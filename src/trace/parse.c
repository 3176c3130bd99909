// SPDX-License-Identifier: GPL-2.0-only
/*
 * The latency-snapshot parser: the text of /sys/kernel/tracing/trace after a latency tracer
 * recorded a section, one or several snapshots concatenated, into lh_records; as the kernel
 * prints it, and as people publish it (mail archives, bug trackers, blogs, chat pastes).
 *
 * Input layer. Bytes come in pieces of any size (lh_parse_feed) and are cut into lines at
 * '\n' ("\r\n" too), or at '\r' when the input has no '\n' at all; a line longer than
 * LH_PARSE_LINE_MAX is read up to there and flagged. Mail bodies are decoded where their own
 * headers say so: 'Content-Transfer-Encoding: quoted-printable' turns on the decoding of
 * "=XX" and the joining of soft line breaks, 'Content-Type: ...; format=flowed' the joining
 * of flowed lines (RFC 2045, RFC 3676), until the next such header.
 *
 * Lines. A line's quote marks ('>', "> >", ">>>"...) are counted and set aside; its depth is
 * their number. A snapshot starts at a '# tracer:' line, at a '<tracer> latency trace v'
 * line (older layouts, and snapshots pasted without their first lines) or at a 'latency: N us'
 * header seen outside a header, at any depth and indentation; its lines are those of the same
 * depth, and lines of another depth (the mail around a quoted trace) are passed over. Header
 * lines are read by what they say, with or without their '# ' (2.6.2x and the -rt patch's
 * latency_trace print none), a field that cannot be read is left unknown with a warning, and
 * a '# latency:' line that a mail client wrapped takes its end from the next line.
 *
 * Body. A line is classified by its first bytes, the time column is found with memchr(':'),
 * and only what a record keeps is copied (a function name on first sight, a frame, an irq
 * handler), without allocating per line. Column widths are never relied on: the flags field
 * (4 to 8 characters, CPU merged or '[000]') is whatever lies between the task and the time
 * column. Lines that are not entries of the snapshot's own layout are told apart: the end of
 * a line a mail client wrapped, an elision ('[...]', '...', '<snip>'), the author's prose
 * (an elision when entries follow it), or damage (counted as a bad line and warned about).
 * The record says how many entries the header declared and how many were there.
 *
 * Every string a record holds goes through lh_record_strndup(): control bytes and invalid
 * UTF-8 become "\xHH" there, once, so that no writer ever prints a trace's raw bytes.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "parse.h"
#include "util/htab.h"

/* Bounds per record, so that hostile input cannot make a record grow without limit. */
#define MAX_FUNCS	(1u << 16)
#define MAX_FRAMES	256
#define MAX_IRQS	4096
#define FN_TABLE_MIN	4096
#define NAME_MAX_LEN	512	/* KSYM_NAME_LEN: a longer name is no kernel symbol */
#define LATENCY_MAX_US	(UINT64_MAX / 1000)	/* "%lu us" of a u64 of ns */
/*
 * A whole body's first entry is the section's start, at 0 us (1 on a slow CPU: the tracer
 * takes its clock just before it writes the entry), and its last ones the end, at the
 * latency (or 1 us after). A first entry this far from both, after #N/M said the buffer
 * lost entries, is what the ring buffer kept of a section longer than it. One at the end
 * lost no more than the start entry, whose site the header names: a section of a reader
 * of the live buffer (lathound's drain) whose own read took its start entry away.
 */
#define START_LOST_US	2

enum state {
	ST_NONE,	/* outside any snapshot: before the first start, or after a skipped one */
	ST_HEADER,	/* after a start, until the column legend or the first body line */
	ST_BODY,
	ST_SKIP,	/* a malformed snapshot, ignored up to the next start */
};

/* What a snapshot's column legend says its entries look like. */
enum layout {
	LAYOUT_UNKNOWN,	/* no legend: any known line form is taken */
	LAYOUT_LAT,	/* latency format: "comm-pid  CPUflags  NNNus : ..." */
	LAYOUT_ABS,	/* latency-format off: "comm-pid [CPU] flags  SSS.UUUUUU: ..." */
	LAYOUT_GRAPH,	/* display-graph: "NNN us | CPU) comm-pid | flags | dur | f() {" */
};

enum eol { EOL_UNKNOWN, EOL_LF, EOL_CR };

/* A logical line, its quote marks set aside. */
struct line {
	const char	*s;	/* the text after the quote marks */
	const char	*e;	/* its end, less trailing blanks */
	const char	*t;	/* s past blanks */
	const char	*h;	/* t past a '#' and blanks: what a header line says */
	unsigned int	depth;	/* quote marks before s */
	bool		hash;	/* t starts with '#' */
};

/*
 * A line held until it is complete: one split between two pieces of input, or waiting for
 * its continuation (a quoted-printable soft break, a flowed line). At most LH_PARSE_LINE_MAX
 * bytes; cut says more came.
 */
struct joinbuf {
	char		*buf;	/* LH_PARSE_LINE_MAX bytes, allocated on first use */
	size_t		len;
	unsigned long	line;	/* the first physical line it holds */
	unsigned int	depth;	/* flowed: the quote depth it continues at */
	bool		active;
	bool		cut;
};

struct lh_parser {
	struct lh_parse_stats	stats;
	struct lh_diag		*diag;
	struct lh_record	*rec;	/* reused for every snapshot */

	struct lh_htab		funcs;	/* rec->funcs by name, emptied per snapshot */

	size_t			*open_irqs;	/* rec->irqs waiting for their exit */
	size_t			nr_open;
	size_t			alloc_open;

	/* the input being parsed */
	char			*source;	/* escaped copy */
	lh_record_fn		fn;
	void			*arg;
	bool			stopped;	/* the callback asked to stop */
	unsigned long		lineno;		/* physical lines read */
	unsigned long		cur;		/* the logical line being classified */
	enum eol		eol;
	struct joinbuf		carry;		/* a line split between two pieces of input */
	bool			qp;		/* quoted-printable body */
	bool			flowed;		/* format=flowed body */
	bool			in_ctype;	/* a folded Content-Type header goes on */
	struct joinbuf		qpj;
	struct joinbuf		flj;
	char			*namebuf;	/* a name unescaped or escaped for the table */
	unsigned long		input_records;
	unsigned long		input_skipped;
	/* why its first snapshot was skipped */
	char			first_skip[LH_PARSE_SKIP_LEN];
	char			first_cut[LH_PARSE_SKIP_LEN];	/* how its first cut body is */
	unsigned long		empty_line;	/* a '# tracer:' line with nothing after it */
	unsigned long		qp_line;	/* undecoded quoted-printable seen there */
	bool			warned_outside;
	bool			warned_cut;
	bool			line_was_cut;	/* the line logical_line() gets next */
	bool			odd_text;	/* content() took text the kernel never prints */

	/* the snapshot being parsed */
	enum state		state;
	enum layout		layout;
	unsigned int		depth;
	unsigned long		header_lines;	/* header lines besides '#' and blanks */
	bool			have_latency;
	bool			have_version;
	bool			lat_wrapped;	/* the '# latency:' line lacks its ')' end */
	unsigned long		lat_line;
	bool			header_done;
	bool			nonlat_header;	/* latency-format off ('# entries-...') */
	bool			graph_lat;	/* display-graph body has the flags column */
	bool			have_base;
	bool			funcs_full;
	bool			rec_full;
	bool			warned_qp;
	bool			after_entry;	/* the last line of the body was an entry */
	bool			prose;		/* prose since the last entry */
	bool			have_ctx;	/* ctx_* hold the first entry's task */
	int			stack;		/* receives ' => ' frames, -1 for none */
	unsigned int		stack_blocks;	/* '<stack trace>' lines seen */
	unsigned long		bad_lines;	/* in this snapshot */
	double			base_us;	/* first timestamp when times are absolute */
	double			first_us;	/* the first entry's time into the section, when
						   times are relative; -1 when absolute or none */
	int			ctx_pid;
	size_t			ctx_len;
	char			ctx_comm[64];
};

/* A parsed time column: the digits before the mark and separator that end it. */
struct ts {
	const char	*digits;
	const char	*end;
	bool		abs;	/* seconds (latency-format off), else microseconds */
	bool		us;	/* a unit was printed ("us", "µs") */
};

/* Characters of kernel symbols, event names and raw addresses ("0xffffffffa0000034"). */
static const bool sym_char[256] = {
	['a' ... 'z'] = true, ['A' ... 'Z'] = true, ['0' ... '9'] = true,
	['_'] = true, ['.'] = true, ['$'] = true,
};

/*
 * What a name may hold as read from a trace (see scan_name()): NAME_SYM, symbol characters;
 * NAME_ODD, control bytes and bytes beyond ASCII, which are damage but must not cut a name
 * short unseen (the record gets them escaped); NAME_ESC, the '\\' of a markdown "\\_".
 */
enum { NAME_END, NAME_SYM, NAME_ODD, NAME_ESC };
static const unsigned char name_class[256] = {
	['a' ... 'z'] = NAME_SYM, ['A' ... 'Z'] = NAME_SYM, ['0' ... '9'] = NAME_SYM,
	['_'] = NAME_SYM, ['.'] = NAME_SYM, ['$'] = NAME_SYM,
	[0x00 ... 0x08] = NAME_ODD, [0x0a ... 0x1f] = NAME_ODD, [0x7f ... 0xff] = NAME_ODD,
	['\\'] = NAME_ESC,
};

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool is_xdigit(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline int xval(char c)
{
	return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}

#define likely(x)	__builtin_expect(!!(x), 1)

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

/*
 * Return: where lit starts in s[0..e), or NULL. (s is never NULL: checking it keeps GCC's
 * -Wnonnull quiet under -fsanitize=undefined, `make SANITIZE=address,undefined`.)
 */
static const char *find(const char *s, const char *e, const char *lit)
{
	return s && s < e ? memmem(s, (size_t)(e - s), lit, strlen(lit)) : NULL;
}

/* Return: where lit starts in s[0..e), ignoring case, or NULL. */
static const char *find_nocase(const char *s, const char *e, const char *lit)
{
	size_t n = strlen(lit);

	for (; s + n <= e; s++)
		if (!strncasecmp(s, lit, n))
			return s;
	return NULL;
}

/*
 * Whether a number read from a header ends where a kernel ends one: a number followed by
 * anything else ("#P:2=" of an undecoded quoted-printable line) is not that number.
 */
static bool num_ends(const char *s, const char *e)
{
	return s >= e || is_blank(*s) || *s == ',' || *s == ')' || *s == '/' || *s == '|' ||
	       *s == ']';
}

/* Parses an optionally signed decimal int at *pp. Return: false if no digit or too large. */
static bool parse_int(const char **pp, const char *e, int *v)
{
	const char *s = *pp;
	bool neg = false;
	int64_t n = 0;

	if (s < e && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	if (s >= e || !is_digit(*s))
		return false;
	for (; s < e && is_digit(*s); s++) {
		n = n * 10 + (*s - '0');
		if (n > INT_MAX)
			return false;
	}
	*v = neg ? (int)-n : (int)n;
	*pp = s;
	return true;
}

/* Parses a decimal at *pp. Return: false if no digit or beyond 64 bits. */
static bool parse_u64(const char **pp, const char *e, uint64_t *v)
{
	const char *s = *pp;
	uint64_t n = 0;

	if (s >= e || !is_digit(*s))
		return false;
	for (; s < e && is_digit(*s); s++) {
		if (n > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*v = n;
	*pp = s;
	return true;
}

/*
 * Parses the number that follows key in s[0..e) ("uid:", "#P:").
 * Return: 1 when read, 0 when key is absent, -1 when it is there with no readable number.
 */
static int keyed_int(const char *s, const char *e, const char *key, int *v)
{
	const char *k = find(s, e, key);
	int n;

	if (!k)
		return 0;
	k += strlen(key);
	if (!parse_int(&k, e, &n) || !num_ends(k, e))
		return -1;
	*v = n;
	return 1;
}

static const char *rec_strdup(struct lh_parser *p, const char *s, const char *e)
{
	return lh_record_strndup(p->rec, s, (size_t)(e - s));
}

/* Return: whether the string a is s[0..e). */
static bool same_str(const char *a, const char *s, const char *e)
{
	size_t len = (size_t)(e - s);

	return a && strnlen(a, len + 1) == len && !memcmp(a, s, len);
}

/* Whether s[0..e) holds a byte that text never holds: a control byte other than tab, DEL. */
static bool has_junk(const char *s, const char *e)
{
	for (; s < e; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return true;
	return false;
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
	if (line)
		lh_diag_add(p->diag, LH_DIAG_WARNING, "%s:%lu: %s", p->source, line, msg);
	else
		lh_diag_add(p->diag, LH_DIAG_WARNING, "%s: %s", p->source, msg);
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

/* The record's tracer as written, for messages (escaped when it came from a trace). */
static const char *snap_name(const struct lh_parser *p)
{
	return p->rec->tracer_name ? p->rec->tracer_name : "unknown";
}

/*
 * Whether the record may still grow: past LH_PARSE_RECORD_MAX it keeps what it has and is
 * flagged truncated (warned once, at its end).
 */
static bool rec_room(struct lh_parser *p)
{
	const struct lh_record *r = p->rec;

	if (p->rec_full)
		return false;
	if (r->arena.used + r->nr_funcs * sizeof(struct lh_func) +
	    r->nr_irqs * sizeof(struct lh_irq) < LH_PARSE_RECORD_MAX)
		return true;
	p->rec_full = true;
	p->rec->truncated = true;
	return false;
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
		if (f->len == len && !memcmp(f->name, name, len)) {
			f->count++;
			return;
		}
	}
	if (r->nr_funcs >= MAX_FUNCS) {
		p->funcs_full = true;
		return;
	}
	f = lh_record_add_func(r, lh_arena_strndup(&r->arena, name, len), len);
	f->count = 1;
	lh_htab_add(&p->funcs, h, (uint32_t)(r->nr_funcs - 1));
}

/* Names: functions, sites and frames */

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
typedef unsigned char v16u8 __attribute__((vector_size(16)));
typedef signed char v16s8 __attribute__((vector_size(16)));

/*
 * Return: how many of the 16 bytes at s are symbol characters (sym_char[]) before the first
 * that is not: 16 bytes at a time (SSE2, NEON), as names are the bulk of a body's bytes.
 */
static inline unsigned int sym_run16(const char *s)
{
	v16u8 c, sym;
	v16s8 az, d;
#ifndef __SSE2__
	uint64_t half;
#endif

	memcpy(&c, s, sizeof(c));
	/* x in [lo, lo + n) as x - lo - 128 < n - 128, signed: SSE2 compares signed bytes only */
	az = (v16s8)((c | 0x20) - (unsigned char)('a' + 128));
	d = (v16s8)(c - (unsigned char)('0' + 128));
	sym = (v16u8)((az < (signed char)(26 - 128)) | (d < (signed char)(10 - 128)) |
		      (v16s8)((c == '_') | (c == '.') | (c == '$')));
#ifdef __SSE2__
	return (unsigned int)__builtin_ctz(~(unsigned int)_mm_movemask_epi8((__m128i)sym));
#else
	memcpy(&half, &sym, 8);
	if (~half)
		return (unsigned int)__builtin_ctzll(~half) / 8;
	memcpy(&half, (const char *)&sym + 8, 8);
	if (~half)
		return 8 + (unsigned int)__builtin_ctzll(~half) / 8;
	return 16;
#endif
}
#endif

/*
 * The name that starts s: symbol characters, where a "\_" (a markdown source's escape; no
 * kernel symbol holds a backslash) stands for '_' and control bytes are kept, to be escaped.
 * Return: its end; *esc tells whether name_text() must rewrite it.
 */
static inline const char *scan_name(const char *s, const char *e, bool *esc)
{
	const char *n = s;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	unsigned int k;
#endif

	*esc = false;
	for (;;) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		while (e - n >= 16 && (k = sym_run16(n)) == 16)
			n += 16;
		if (e - n >= 16)
			n += k;
#endif
		while (n < e && name_class[(unsigned char)*n] == NAME_SYM)
			n++;
		if (n >= e || name_class[(unsigned char)*n] == NAME_END)
			return n;
		if (name_class[(unsigned char)*n] == NAME_ESC && (e - n < 2 || n[1] != '_'))
			return n;
		*esc = true;
		n += name_class[(unsigned char)*n] == NAME_ESC ? 2 : 1;
	}
}

/*
 * The text of the name s[0..n) as a record keeps it: itself, or (esc) rewritten in
 * p->namebuf with "\_" as '_' and any other byte than a symbol's as "\xHH" (no kernel symbol
 * holds one). Return: it, its length in *len.
 */
static inline const char *name_text(struct lh_parser *p, const char *s, const char *n,
				    bool esc, size_t *len)
{
	static const char hex[] = "0123456789abcdef";
	char *d = p->namebuf;

	if (likely(!esc)) {
		*len = (size_t)(n - s);
		return s;
	}
	for (; s < n; s++) {
		if (s + 1 < n && s[0] == '\\' && s[1] == '_') {
			*d++ = '_';
			s++;
		} else if (sym_char[(unsigned char)*s]) {
			*d++ = *s;
		} else {
			*d++ = '\\';
			*d++ = 'x';
			*d++ = hex[(unsigned char)*s >> 4];
			*d++ = hex[*s & 15];
		}
	}
	*len = (size_t)(d - p->namebuf);
	return p->namebuf;
}

/* What follows a name in a site or a frame: "+0x1a/0x40", " [module]", both. Return: end. */
static const char *sym_tail(const char *n, const char *e)
{
	const char *q = n, *b;

	if (q < e && *q == '+')
		while (q < e && !is_blank(*q) && *q != '(')
			q++;
	if (e - q >= 2 && q[0] == ' ' && q[1] == '[') {
		b = memchr(q, ']', (size_t)(e - q));
		if (b)
			q = b + 1;
	}
	return q;
}

/* A site or a frame as the trace printed it: the name, and what followed it. */
struct sym {
	const char	*name;
	size_t		len;
	const char	*off;	/* NULL when nothing followed */
	size_t		off_len;
};

/*
 * Reads the site or frame at s[0..e): "_raw_spin_lock_irq+0x1a/0x40", "f [mod]", "<00000000>",
 * and ignores what follows it (an author's note). Return: false when there is none.
 */
static bool read_sym(struct lh_parser *p, const char *s, const char *e, struct sym *y)
{
	const char *n, *q;
	bool esc;

	s = skip_blanks(s, e);
	e = rtrim(s, e);
	if (s >= e)
		return false;
	n = scan_name(s, e, &esc);
	if (n == s) {	/* an address ("<00000000>") or another token: its first word */
		for (n = s; n < e && !is_blank(*n); n++)
			;
		y->name = s;
		y->len = (size_t)(n - s);
		y->off = NULL;
		y->off_len = 0;
		return true;
	}
	q = sym_tail(n, e);
	y->name = name_text(p, s, n, esc, &y->len);
	y->off = q > n ? n : NULL;
	y->off_len = (size_t)(q - n);
	return true;
}

/* "=> started at: name+off" */
static void header_site(struct lh_parser *p, const char *s, const char *e, const char **name,
			const char **off)
{
	struct sym y;

	if (!read_sym(p, s, e, &y))
		return;
	*name = lh_record_strndup(p->rec, y.name, y.len);
	*off = y.off ? lh_record_strndup(p->rec, y.off, y.off_len) : NULL;
}


/*
 * Counts a function from text that starts with its name: "name <-parent", "name",
 * "name+0x1c/0x40 <-...", "name [mod] <-...", "name (parent)" (2.6.2x and -rt latency_trace)
 * (function trace) or "name();", "name() {", "name [mod]() {" (display-graph, graph true).
 * Return: false when s is not such a line.
 */
static bool func_text(struct lh_parser *p, const char *s, const char *e, bool graph)
{
	const char *n, *q, *name;
	size_t len;
	bool esc;

	n = scan_name(s, e, &esc);
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
	} else if (q < e && (e - q < 3 || (memcmp(q, " <-", 3) &&
					    (memcmp(q, " (", 2) || e[-1] != ')')))) {
		return false;
	}
	/* "0": the wakeup probe's CALLER_ADDR1 on a kernel without frame pointers, no function */
	if (n - s == 1 && *s == '0')
		return true;
	name = name_text(p, s, n, esc, &len);
	if (rec_room(p))
		add_func(p, name, len);
	return true;
}

/* Snapshots */

static void begin_snapshot(struct lh_parser *p, const struct line *l, const char *name,
			   const char *e)
{
	struct lh_record *r = p->rec;
	const char *n;

	lh_record_reset(r);
	lh_htab_clear(&p->funcs);
	if (name) {
		name = skip_blanks(name, e);
		for (n = name; n < e && !is_blank(*n); n++)
			;
		r->tracer = lh_tracer_from_name(name, (size_t)(n - name));
		r->tracer_name = r->tracer != LH_TRACER_UNKNOWN ? lh_tracer_name(r->tracer) :
				 n > name ? rec_strdup(p, name, n) : NULL;
	}
	if (!r->tracer_name)
		r->tracer_name = lh_tracer_name(LH_TRACER_UNKNOWN);
	r->source = lh_arena_strdup(&r->arena, p->source);
	r->line = p->cur;
	p->state = ST_HEADER;
	p->layout = LAYOUT_UNKNOWN;
	p->depth = l->depth;
	p->header_lines = 0;
	p->have_latency = false;
	p->have_version = false;
	p->lat_wrapped = false;
	p->header_done = false;
	p->nonlat_header = false;
	p->graph_lat = true;
	p->have_base = false;
	p->funcs_full = false;
	p->rec_full = false;
	p->warned_qp = false;
	p->after_entry = false;
	p->prose = false;
	p->have_ctx = false;
	p->stack = -1;
	p->stack_blocks = 0;
	p->bad_lines = 0;
	p->base_us = 0;
	p->first_us = -1;
	p->nr_open = 0;
}

static void skip_snapshot(struct lh_parser *p, unsigned long line, const char *why)
{
	const struct lh_record *r = p->rec;

	warn(p, line, "%s, skipping snapshot '%s' from line %lu", why, snap_name(p), r->line);
	if (!p->first_skip[0])
		snprintf(p->first_skip, sizeof(p->first_skip), "line %lu: %s", line, why);
	p->stats.skipped++;
	p->input_skipped++;
	p->state = ST_SKIP;
}

static void skip_no_latency(struct lh_parser *p)
{
	if (p->nonlat_header)
		skip_snapshot(p, p->cur,
			      "expected '# latency:' header line (options/latency-format is off)");
	else if (p->rec->tracer == LH_TRACER_UNKNOWN && p->rec->tracer_name)
		skip_snapshot(p, p->cur, "expected '# latency:' header line ('tracer:' names no "
			      "latency tracer: irqsoff, preemptoff, preemptirqsoff, wakeup, "
			      "wakeup_rt or wakeup_dl)");
	else
		skip_snapshot(p, p->cur, "expected '# latency:' header line");
}

/*
 * A wakeup record's woken task is also its '| task:' task: share what each knows. Older
 * kernels (2.6.2x) print no '+'/'==>' lines: the woken task is the header's, the waker is the
 * task of the first entry, which runs the wakeup.
 */
static void finish_record(struct lh_parser *p)
{
	struct lh_record *r = p->rec;

	if (!r->has_wakeup && lh_tracer_is_wakeup(r->tracer) && p->have_ctx &&
	    (r->task.comm || r->task.pid >= 0)) {
		r->has_wakeup = true;
		r->woken.comm = r->task.comm;
		r->woken.pid = r->task.pid;
		r->waker.comm = lh_record_strndup(r, p->ctx_comm, p->ctx_len);
		r->waker.pid = p->ctx_pid;
	}
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

/* Counts the record just ended as cut, and says how the input's first one is. */
static void note_cut(struct lh_parser *p)
{
	const struct lh_record *r = p->rec;
	char *buf = p->first_cut;
	size_t len = sizeof(p->first_cut);

	p->stats.cut++;
	if (buf[0])
		return;
	if (r->truncated)
		snprintf(buf, len, "line %lu: snapshot '%s' is cut by lathound's size limits",
			 r->line, snap_name(p));
	else if (r->unended)
		snprintf(buf, len, "line %lu: the input ends inside the body of snapshot '%s', mid-line",
			 r->line, snap_name(p));
	else if (r->start_lost_us)
		snprintf(buf, len, "line %lu: snapshot '%s' begins %llu us into its section: the "
			 "ring buffer lost its first entries (#%lu/%lu)", r->line, snap_name(p),
			 (unsigned long long)r->start_lost_us, r->entries, r->entries_total);
	else
		snprintf(buf, len, "line %lu: snapshot '%s' shows %lu of the %lu entries its header "
			 "declares, and no elision marker", r->line, snap_name(p), r->entries_present,
			 r->entries);
}

/* Ends the snapshot in progress, handing its record over when it has one. */
static void end_snapshot(struct lh_parser *p)
{
	enum state st = p->state;
	struct lh_record *r = p->rec;

	p->state = ST_NONE;
	if (st == ST_HEADER && !p->header_lines) {
		/* "# tracer: NAME" and "#" alone: the kernel's output for an empty buffer */
		if (!p->empty_line)
			p->empty_line = r->line;
		return;
	}
	if (st == ST_HEADER && p->have_latency && p->header_done)
		st = ST_BODY;	/* a complete header and an empty body */
	if (st == ST_HEADER) {
		if (!p->have_latency)
			skip_no_latency(p);
		else
			skip_snapshot(p, p->cur, "header cut before the column legend");
		p->state = ST_NONE;
		return;
	}
	if (st != ST_BODY)
		return;
	if (p->funcs_full)
		warn(p, r->line, "more than %u distinct functions in snapshot '%s', ignoring the rest",
		     MAX_FUNCS, snap_name(p));
	if (p->rec_full)
		warn(p, r->line, "snapshot '%s' holds more than %d MiB: cut there", snap_name(p),
		     LH_PARSE_RECORD_MAX >> 20);
	/* #N/M with N < M: the buffer lost entries; inside the section, they were its own */
	if (r->entries < r->entries_total && p->first_us >= START_LOST_US &&
	    p->first_us + START_LOST_US < (double)r->latency_us)
		r->start_lost_us = (uint64_t)p->first_us;
	finish_record(p);
	p->stats.snapshots++;
	p->input_records++;
	if (lh_record_body(r) != LH_BODY_COMPLETE)
		p->stats.incomplete++;
	if (lh_record_body(r) == LH_BODY_CUT)
		note_cut(p);
	if (p->fn && p->fn(r, p->arg) < 0)
		p->stopped = true;
}

/* Header lines */

/* Reads the latency's unit: "us", or the µs of UTF-8 and of Latin-1. Return: past it, or NULL. */
static const char *unit_us(const char *s, const char *e)
{
	if (e - s >= 2 && s[0] == 'u' && s[1] == 's')
		return s + 2;
	if (e - s >= 3 && (unsigned char)s[0] == 0xc2 && (unsigned char)s[1] == 0xb5 && s[2] == 's')
		return s + 3;
	if (e - s >= 2 && (unsigned char)s[0] == 0xb5 && s[1] == 's')
		return s + 2;
	return NULL;
}

/* "#P:4)" and "(M:preempt" of a '# latency:' line, or of the part a mail client wrapped. */
static void header_cpus(struct lh_parser *p, const char *s, const char *e, unsigned long line)
{
	struct lh_record *r = p->rec;
	const char *m, *me;
	int n;

	switch (keyed_int(s, e, "#P:", &n)) {
	case 1:
		r->nr_cpus = n;
		break;
	case -1:
		warn(p, line, "cannot read the CPU count ('#P:') of snapshot '%s'", snap_name(p));
		break;
	}
	m = find(s, e, "(M:");
	if (m && !r->preempt_model) {
		m += 3;
		for (me = m; me < e && *me != ' ' && *me != ')' && *me != ','; me++)
			;
		if (me > m)
			r->preempt_model = rec_strdup(p, m, me);
	}
}

/*
 * The kernel's entry count of a max buffer is entries - skipped_entries, computed unsigned
 * (get_total_entries_cpu()): when the buffer changed under the walk that counted skipped
 * entries it goes below zero and prints as 2^64 - n (2^32 - n on 32-bit kernels). No
 * buffer holds 2^31 entries.
 */
#define ENTRIES_WRAPPED		(1ULL << 31)

bool lh_parse_entries_wrapped(const char *buf, size_t len)
{
	const char *e = buf + (len < 4096 ? len : 4096), *s = buf, *m;
	uint64_t v;

	while ((s = find(s, e, "# latency:")) && s > buf && s[-1] != '\n')
		s++;	/* at a line's start only: a function line may say anything */
	if (!s)
		return false;
	e = memchr(s, '\n', (size_t)(e - s)) ?: e;
	m = find(s, e, ", #");
	if (!m)
		return false;
	m += 3;
	return *m == '-' || (parse_u64(&m, e, &v) && v >= ENTRIES_WRAPPED);
}

/*
 * "latency: 2002 us, #4/4, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)": s is past
 * "latency:". Return: false when the latency cannot be read (the snapshot is skipped).
 */
static bool header_latency(struct lh_parser *p, const char *s, const char *e)
{
	struct lh_record *r = p->rec;
	const char *q = skip_blanks(s, e), *m, *close;
	uint64_t v, w;
	int n;

	e = rtrim(q, e);
	if (!parse_u64(&q, e, &v) || !(m = unit_us(skip_blanks(q, e), e)))
		return false;
	if (v > LATENCY_MAX_US) {
		skip_snapshot(p, p->cur, "latency beyond what a kernel prints (more than 2^64 ns)");
		return true;
	}
	r->latency_us = v;
	q = m;
	m = find(q, e, ", ");
	if (m) {
		m = skip_blanks(m + 1, e);
		if (m < e && *m == '#')
			m++;	/* "#4/4"; an HTML copy may have lost the '#' */
		if (parse_u64(&m, e, &v) && m < e && *m == '/' && (m++, parse_u64(&m, e, &w)) &&
		    num_ends(m, e)) {
			r->entries = (unsigned long)v;
			r->entries_total = (unsigned long)w;
		} else if (m < e && is_digit(*m)) {
			warn(p, p->cur, "cannot read the entries ('#N/M') of snapshot '%s'",
			     snap_name(p));
		}
	}
	switch (keyed_int(q, e, "CPU#", &n)) {
	case 1:
		r->cpu = n;
		break;
	case -1:
		warn(p, p->cur, "cannot read the CPU ('CPU#') of snapshot '%s'", snap_name(p));
		break;
	}
	header_cpus(p, q, e, p->cur);
	/* "(M:... HP:0 #P:8)" ends it; without its ')' a mail client wrapped it */
	m = find(q, e, "(M:");
	close = m ? memchr(m, ')', (size_t)(e - m)) : NULL;
	p->lat_wrapped = !close;
	p->lat_line = p->cur;
	return true;
}

/*
 * The line after a wrapped '# latency:' line, at any quote depth: "SP:0 HP:0 #P:4)",
 * "#P:512)". Return: true when it was that end (and was read).
 */
static bool latency_end(struct lh_parser *p, const struct line *l)
{
	const char *s = l->t, *e = l->e;

	p->lat_wrapped = false;
	if (s >= e || e[-1] != ')' || !find(s, e, "P:") ||
	    (*s == '#' && (e - s < 2 || s[1] != 'P')))
		goto unread;
	header_cpus(p, s, e, p->cur);
	return true;
unread:
	if (p->rec->nr_cpus < 0)
		warn(p, p->lat_line, "the '# latency:' line of snapshot '%s' is cut short (wrapped?): "
		     "its CPU count is unknown", snap_name(p));
	return false;
}

/* "uid:0" in the '| task:' line's parentheses: *v, or unknown and warned when unreadable. */
static void task_int(struct lh_parser *p, const char *s, const char *e, const char *key, int *v)
{
	if (keyed_int(s, e, key, v) < 0)
		warn(p, p->cur, "cannot read '%s' of the task of snapshot '%s'", key, snap_name(p));
}

/* "task: irq_test-82 (uid:0 nice:0 policy:0 rt_prio:0)": comm may hold '-', ' ' and '('. */
static void header_task(struct lh_parser *p, const char *s, const char *e)
{
	struct lh_task *t = &p->rec->task;
	const char *paren = NULL, *q, *d, *n, *dash = NULL;
	int v;

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
	for (n = d; n < q && is_digit(*n); n++)
		;
	if (dash && d < q && n == q) {
		/* "| task: -0": a task without a comm */
		t->comm = dash > s ? rec_strdup(p, s, dash) : NULL;
		if (parse_int(&d, q, &v))
			t->pid = v;
		else
			warn(p, p->cur, "cannot read the pid of the task of snapshot '%s' "
			     "(beyond what a kernel prints)", snap_name(p));
	} else if (q > s) {
		t->comm = rec_strdup(p, s, q);
	}
	if (!paren)
		return;
	task_int(p, paren, e, "uid:", &t->uid);
	task_int(p, paren, e, "nice:", &t->nice);
	task_int(p, paren, e, "policy:", &t->policy);
	task_int(p, paren, e, "rt_prio:", &t->rt_prio);
}

/* "NAME latency trace v1.1.5 on KERNEL": NAME's end, or NULL when h is not such a line. */
static const char *version_name(const char *h, const char *e)
{
	const char *n = h;

	while (n < e && sym_char[(unsigned char)*n])
		n++;
	if (n == h || !HAS_PREFIX(n, e - n, " latency trace v"))
		return NULL;
	return n;
}

/* The kernel of a version line: the first word after " on " (a joined '#' left out). */
static void header_version(struct lh_parser *p, const char *h, const char *e)
{
	const char *q = find(h, e, " on "), *k;

	p->have_version = true;
	if (!q)
		return;
	q = skip_blanks(q + 4, e);
	for (k = q; k < e && !is_blank(*k); k++)
		;
	if (k > q)
		p->rec->kernel = rec_strdup(p, q, k);
}

/* Whether h is the art of a column legend: "_------=> CPU#", "| / _----=>", "|||| /", "\   /". */
static bool legend_art(const char *h, const char *e)
{
	return h < e && (*h == '/' || *h == '|' || *h == '\\' ||
			 (*h == '_' && e - h >= 2 && h[1] == '-'));
}

/* Whether l is the legend line of the columns: it ends the header and says the layout. */
static bool header_legend(struct lh_parser *p, const char *h, const char *e)
{
	if (HAS_PREFIX(h, e - h, "cmd ")) {
		p->layout = LAYOUT_LAT;
	} else if (find(h, e, "TASK-PID")) {
		p->layout = LAYOUT_ABS;
	} else if (find(h, e, "FUNCTION CALLS")) {
		p->layout = LAYOUT_GRAPH;
		p->graph_lat = find(h, e, "||") != NULL;
	} else {
		return false;
	}
	p->header_done = true;
	return true;
}

/*
 * A line of the header at the snapshot's depth, read by what it says, with or without its
 * '# '. Return: false when it is no header line (the first line of the body).
 */
static bool header_line(struct lh_parser *p, const struct line *l, const char *h)
{
	struct lh_record *r = p->rec;
	const char *e = l->e, *q;
	uint64_t v;

	if (h >= e)
		return true;	/* '#' alone, or a blank line */
	if (!p->warned_qp && !p->qp && find(h, e, "=3D")) {
		p->warned_qp = true;
		if (!p->qp_line)
			p->qp_line = p->cur;
		warn(p, p->cur, "'=3D' looks like quoted-printable text that was not decoded (no "
		     "'Content-Transfer-Encoding: quoted-printable' header before it): the fields "
		     "it hides in snapshot '%s' are not read", snap_name(p));
	}
	p->header_lines++;
	if (HAS_PREFIX(h, e - h, "latency:")) {
		if (!header_latency(p, h + 8, e)) {
			skip_snapshot(p, p->cur, "expected '# latency: N us, ...' with a number");
			return true;
		}
		p->have_latency = true;
	} else if (HAS_PREFIX(h, e - h, "| task:")) {
		header_task(p, h + 7, e);
	} else if (HAS_PREFIX(h, e - h, "=> started at:")) {
		header_site(p, h + 14, e, &r->started_at, &r->started_at_offset);
	} else if (HAS_PREFIX(h, e - h, "=> ended at:")) {
		header_site(p, h + 12, e, &r->ended_at, &r->ended_at_offset);
	} else if (*h == '-') {
		/* the dashed line; a '# ' joined to its end starts the next header line */
		for (q = h; q < e && *q == '-'; q++)
			;
		if (q < e && *q == '#') {
			q = skip_blanks(q + 1, e);
			return header_line(p, l, q);
		}
	} else if (!p->have_version && version_name(h, e)) {
		header_version(p, h, e);
	} else if (header_legend(p, h, e)) {
		/* the column legend */
	} else if (HAS_PREFIX(h, e - h, "entries-in-buffer/entries-written:")) {
		p->nonlat_header = true;
		q = skip_blanks(h + 34, e);
		if (parse_u64(&q, e, &v) && num_ends(q, e))
			r->entries = (unsigned long)v;
		header_cpus(p, h, e, p->cur);
	} else if (!l->hash && !legend_art(h, e)) {
		p->header_lines--;
		return false;
	}
	return true;
}

/* The first line of the body ends the header. */
static bool body_entry(struct lh_parser *p, const struct line *l);
static void body_line(struct lh_parser *p, const struct line *l);

static void first_body_line(struct lh_parser *p, const struct line *l)
{
	if (!p->have_latency) {
		skip_no_latency(p);
		return;
	}
	p->header_done = true;
	p->state = ST_BODY;
	if (!body_entry(p, l))
		body_line(p, l);
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
 * Whether the separator at c ends a time column of line[0..e): "  3us : ", "2002us#: " in
 * latency format (the µs of a UTF-8 or Latin-1 -rt trace too), " 123.456789: " without it,
 * " 1234: " for counter clocks; the -rt patch's v1.1.x marks irq and syscall returns with
 * '<' and syscall entries with '>' where others have ':' ("  21µs < (0)").
 */
static inline bool time_at(const char *line, const char *c, const char *e, struct ts *t)
{
	const char *q = c, *d;
	bool dot = false, usec = false;

	if (c + 1 < e && c[1] != ' ')
		return false;
	if (q > line && is_mark(q[-1]))
		q--;
	if (q - line >= 3 && q[-1] == 's' && (q[-2] == 'u' || (unsigned char)q[-2] == 0xb5)) {
		q -= 2;
		if ((unsigned char)*q == 0xb5 && q - line >= 2 && (unsigned char)q[-1] == 0xc2)
			q--;
		usec = true;
	} else {
		q = c;
	}
	for (d = q; d > line && q - d < 24 && (is_digit(d[-1]) || (d[-1] == '.' && !dot)); d--)
		dot |= d[-1] == '.';
	if (d == q || d == line || d[-1] != ' ' || !is_digit(*d))
		return false;
	t->digits = d;
	t->end = q;
	t->abs = dot && !usec;
	t->us = usec;
	return true;
}

/* Return: the ':' that ends the time column of line[0..e), or NULL. */
static inline const char *find_time(const char *line, const char *e, struct ts *t)
{
	const char *s = line, *c;

	while (s < e && (c = memchr(s, ':', (size_t)(e - s)))) {
		if (time_at(line, c, e, t))
			return c;
		s = c + 1;
	}
	return NULL;
}

/* Return: the '<' or '>' ending the µs time column of an -rt v1.1.x line, or NULL. */
static const char *find_time_rt(const char *line, const char *e, struct ts *t)
{
	const char *s;

	for (s = line; s < e; s++)
		if ((*s == '<' || *s == '>') && time_at(line, s, e, t) && t->us)
			return s;
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
		p->first_us = t->abs ? -1 : v;
	}
	return v - p->base_us;
}

/* Finds "comm-pid" in s[0..e): the first '-' followed by digits and a blank or the end. */
static bool split_cmd(const char *s, const char *e, const char **comm, const char **comm_end,
		      int *pid)
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
			return parse_int(&d, e, pid);
		}
	}
	return false;
}

/* "  64: 49:R": a task as the wakeup lines print it ("%7d:%3d:%c"). */
static bool pid_prio_state(const char **pp, const char *e, int *pid, int *prio, char *state)
{
	const char *s = skip_blanks(*pp, e);

	if (!parse_int(&s, e, pid) || s >= e || *s++ != ':')
		return false;
	s = skip_blanks(s, e);
	/* the state is a letter ("R", "S"...; task_state_to_char()) */
	if (!parse_int(&s, e, prio) || s >= e || *s++ != ':' || s >= e || *s <= ' ' ||
	    *s >= 0x7f)
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
	int pid1, prio1, cpu, pid2, prio2, cpid;
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
	if (s >= e || *s++ != '[' || !parse_int(&s, e, &cpu) || s >= e || *s++ != ']')
		return false;
	if (!pid_prio_state(&s, e, &pid2, &prio2, &st2))
		return false;
	s = skip_blanks(s, e);
	e = rtrim(s, e);

	r->has_wakeup = true;
	r->woken.pid = pid2;
	r->woken.prio = prio2;
	r->woken.state = st2;
	if (s < e && !same_str(r->woken.comm, s, e))
		r->woken.comm = rec_strdup(p, s, e);
	if (wake || r->waker.pid < 0) {
		r->waker.pid = pid1;
		r->waker.prio = prio1;
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
	int v;

	if (!q || !find(q, e, " name="))
		p->odd_text = true;	/* the kernel prints both */
	if (!q || r->nr_irqs >= MAX_IRQS || !rec_room(p))
		return;
	q += 4;
	if (!parse_int(&q, e, &v))
		return;
	irq = lh_record_add_irq(r);
	irq->irq = v;
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
	int v;

	if (!q || !find(q, e, " ret="))
		p->odd_text = true;	/* the kernel prints both */
	if (!q)
		return;
	q += 4;
	if (!parse_int(&q, e, &v))
		return;
	for (i = p->nr_open; i > 0; i--) {
		if (r->irqs[p->open_irqs[i - 1]].irq == v) {
			irq = &r->irqs[p->open_irqs[i - 1]];
			p->nr_open = i - 1;
			break;
		}
	}
	if (!irq) {
		if (r->nr_irqs >= MAX_IRQS || !rec_room(p))
			return;
		irq = lh_record_add_irq(r);
		irq->irq = v;
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
	if (n + 1 < e && n[1] != ' ')
		p->odd_text = true;	/* the kernel prints "name: args" */
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
 * Return: the entries it stands for (a leaf call "f();" is its entry and its return), or 0
 * when line is not one.
 */
static unsigned int graph_line(struct lh_parser *p, const char *s, const char *e)
{
	const char *q = s, *proc, *proc_e, *c;
	struct ts t;

	while (q < e && is_digit(*q))
		q++;
	if (e - q < 5 || memcmp(q, " us |", 5))
		return 0;
	t.digits = s;
	t.end = q;
	t.abs = false;
	t.us = true;
	q += 5;
	/* " 0)   insmod-101   |": the task after the CPU's ')' */
	proc_e = memchr(q, '|', (size_t)(e - q));
	if (!proc_e)
		return 0;
	proc = memchr(q, ')', (size_t)(proc_e - q));
	proc = proc ? proc + 1 : q;
	q = proc_e + 1;
	if (p->graph_lat) {
		q = memchr(q, '|', (size_t)(e - q));
		if (!q)
			return 0;
		q++;
	}
	q = memchr(q, '|', (size_t)(e - q));
	if (!q)
		return 0;
	q = skip_blanks(q + 1, e);
	if (q >= e || *q == '}' || *q == '=' || *q == '<')
		return 1;	/* a return, or an irq entry/exit arrow */
	if (e - q >= 2 && q[0] == '/' && q[1] == '*') {
		c = value_end(q + 2, e);
		content(p, skip_blanks(q + 2, c), c, &t, proc, proc_e, false);
		return 1;
	}
	func_text(p, q, e, true);
	return e - q >= 3 && !memcmp(e - 3, "();", 3) ? 2 : 1;
}

/* Whether s[0..e) (trimmed) is an elision: "[...]", "...", "……", "<snip>", "[omitted]". */
static bool is_elision(const char *s, const char *e)
{
	const char *q;
	size_t n = (size_t)(e - s);

	for (q = s; q < e && (*q == '.' || is_blank(*q)); q++)
		;
	if (q == e && n >= 2)
		return true;
	for (q = s; e - q >= 3 && !memcmp(q, "\xe2\x80\xa6", 3); q += 3)	/* U+2026 */
		;
	if (q > s && skip_blanks(q, e) == e)
		return true;
	if (n >= 3 && n <= 80 && s[0] == '[' && e[-1] == ']')
		return true;
	if (n >= 3 && n <= 80 && s[0] == '<' && e[-1] == '>' &&
	    (find_nocase(s, e, "snip") || find(s, e, "...")))
		return true;
	return n <= 40 && find_nocase(s, e, "snip");
}

/* A "(T1/#12) ..." line of the -rt patch's verbose latency_trace: an entry. */
static bool verbose_entry(const char *s, const char *e)
{
	if (e - s < 6 || s[0] != '(' || s[1] != 'T' || !is_digit(s[2]))
		return false;
	for (s += 2; s < e && is_digit(*s); s++)
		;
	if (e - s < 3 || s[0] != '/' || s[1] != '#' || !is_digit(s[2]))
		return false;
	for (s += 2; s < e && is_digit(*s); s++)
		;
	return s < e && *s == ')';
}

static void bad_line(struct lh_parser *p, const char *s, const char *e)
{
	char ex[44];

	p->stats.bad_lines++;
	if (!p->bad_lines++)
		warn(p, p->cur,
		     "expected a trace line, got '%s' (more in snapshot '%s' are only counted)",
		     excerpt(ex, sizeof(ex), s, e), snap_name(p));
}

/* An entry of the body was read: it counts, and prose before it was an elision. */
static void entry(struct lh_parser *p, unsigned int weight)
{
	p->rec->entries_present += weight;
	if (p->prose) {
		p->rec->elided = true;
		p->prose = false;
	}
	p->after_entry = true;
}

/* A timed entry at c: its task starts a wakeup's waker when the tracer prints no '+' line. */
static inline void timed_entry(struct lh_parser *p, const struct line *l, const char *c,
			const struct ts *t)
{
	const char *e = l->e, *comm, *comm_e;
	int pid;

	if (!p->have_base)
		ts_us(p, t);
	if (!p->have_ctx && split_cmd(l->s, c, &comm, &comm_e, &pid)) {
		p->have_ctx = true;
		p->ctx_len = (size_t)(comm_e - comm) < sizeof(p->ctx_comm) ?
			     (size_t)(comm_e - comm) : sizeof(p->ctx_comm);
		memcpy(p->ctx_comm, comm, p->ctx_len);
		p->ctx_pid = pid;
	}
	/* an unknown but well-formed line is other tracers' or events' output: counted */
	p->odd_text = false;
	if (!content(p, c + (c + 1 < e ? 2 : 1), e, t, l->s, c, true) || p->odd_text)
		p->stats.odd_entries++;
	entry(p, 1);
}

/* A frame of the stack block in progress: " => name+0x1c/0x40 [mod]". */
static void frame(struct lh_parser *p, const char *s, const char *e)
{
	struct lh_stack *st = p->stack >= 0 ? &p->rec->stacks[p->stack] : NULL;
	const char *name, *off = NULL;
	struct sym y;

	if (!st || st->nr >= MAX_FRAMES || !read_sym(p, s, e, &y) || !rec_room(p))
		return;
	name = lh_record_strndup(p->rec, y.name, y.len);
	if (y.off)
		off = lh_record_strndup(p->rec, y.off, y.off_len);
	lh_record_add_frame_off(p->rec, (size_t)p->stack, name, strlen(name), off,
				off ? strlen(off) : 0);
}

/*
 * A line of the body that is no entry: an elision (unless prose came before it: then it is
 * text after the trace), the end of a line that a mail client wrapped (right after an entry:
 * "<-parent", one word), damage, or prose, which is an elision when entries follow it (and
 * text after the trace when none do).
 */
static void other_line(struct lh_parser *p, const char *s, const char *e)
{
	if (!p->prose && is_elision(s, e)) {
		p->rec->elided = true;
		p->after_entry = false;
		return;
	}
	if (p->after_entry && (HAS_PREFIX(s, e - s, "<-") ||
			       (!memchr(s, ' ', (size_t)(e - s)) && !memchr(s, '\t', (size_t)(e - s)))))
		return;
	p->after_entry = false;
	if (has_junk(s, e))
		bad_line(p, s, e);
	else
		p->prose = true;
}

/*
 * The lines of a body that are its entries and frames. Return: false when l is none of them
 * (no such line starts a snapshot: body_line() is tried before start_line()).
 */
static bool body_entry(struct lh_parser *p, const struct line *l)
{
	const char *s = l->t, *e = l->e, *c;
	unsigned int w;
	struct ts t;

	if (s >= e)
		return false;
	if (*s == '=' && e - s >= 2 && s[1] == '>') {
		frame(p, s + 2, e);
		return true;
	}
	if (p->layout != LAYOUT_LAT && p->layout != LAYOUT_ABS && is_digit(*s) &&
	    (w = graph_line(p, s, e))) {
		p->stack = -1;
		entry(p, w);
		return true;
	}
	c = find_time(l->s, e, &t);
	/* seconds in a latency-format snapshot: trace_pipe text after it, not its entries */
	if (c && !(p->layout == LAYOUT_LAT && t.abs)) {
		p->stack = -1;
		timed_entry(p, l, c, &t);
		return true;
	}
	return false;
}

/* A line of the body that body_entry() did not take. */
static void body_line(struct lh_parser *p, const struct line *l)
{
	const char *s = l->t, *e = l->e, *c;
	struct ts t;

	if (s >= e) {
		p->after_entry = false;
		return;
	}
	p->stack = -1;
	if (p->layout != LAYOUT_ABS && (c = find_time_rt(l->s, e, &t))) {
		timed_entry(p, l, c, &t);
		return;
	}
	if (verbose_entry(s, e)) {
		c = find(s, e, "): ");
		if (c)
			func_text(p, c + 3, e, false);
		entry(p, 1);
		return;
	}
	/* no context columns (options/context-info off): only where no legend said otherwise */
	if (p->layout == LAYOUT_UNKNOWN && content(p, s, e, NULL, NULL, NULL, true)) {
		entry(p, 1);
		return;
	}
	if (*s == '#' || HAS_PREFIX(s, e - s, "---") || HAS_PREFIX(s, e - s, "CPU:") ||
	    find(s, e, " => "))
		return;	/* annotations, lost events, graph context switches */
	other_line(p, s, e);
}

/* Text before the first snapshot or after a skipped one: damage is warned about, not prose. */
static void outside_line(struct lh_parser *p, const struct line *l)
{
	char ex[44];

	if (!has_junk(l->t, l->e)) {
		if (!p->qp && !p->qp_line && l->hash && find(l->t, l->e, "=3D"))
			p->qp_line = p->cur;
		return;
	}
	p->stats.bad_lines++;
	if (!p->warned_outside) {
		p->warned_outside = true;
		warn(p, p->cur, "expected a '# tracer:' line starting a snapshot, got '%s'; "
		     "ignoring text up to the next one", excerpt(ex, sizeof(ex), l->t, l->e));
	}
}

/*
 * Whether l, met in a header before its column legend, is an entry (the body starts without a
 * legend) rather than what is left of a header line that was damaged ("24)" of an undecoded
 * quoted-printable "#P:2=").
 */
static bool entry_like(const struct line *l)
{
	const char *n;
	struct ts t;
	bool esc;

	if (find_time(l->s, l->e, &t) || find_time_rt(l->s, l->e, &t) ||
	    verbose_entry(l->t, l->e) || find(l->t, l->e, " us |"))
		return true;
	n = scan_name(l->t, l->e, &esc);
	return n > l->t && (n == l->e || HAS_PREFIX(n, l->e - n, " <-"));
}

/* Lines */

/* Splits the quote marks ('>' runs, blanks between them) off s[0..e). */
static inline void split_line(struct line *l, const char *s, const char *e)
{
	const char *q = s, *after = s;
	unsigned int depth = 0;

	while (q < e && *q == ' ')	/* the common indent first */
		q++;
	while (q < e && (is_blank(*q) || *q == '>')) {
		if (*q == '>') {
			depth++;
			after = q + 1;
		}
		q++;
	}
	l->depth = depth;
	l->s = after;
	l->e = rtrim(q, e);
	l->t = q;
	l->hash = q < l->e && *q == '#';
	l->h = l->hash ? skip_blanks(q + 1, l->e) : q;
}

/* Whether h is "latency: N us" (N a number): a latency header, not words about latency. */
static bool latency_header(const char *h, const char *e)
{
	const char *q;

	if (!HAS_PREFIX(h, e - h, "latency:"))
		return false;
	q = skip_blanks(h + 8, e);
	if (q >= e || !is_digit(*q))
		return false;
	while (q < e && is_digit(*q))
		q++;
	return unit_us(skip_blanks(q, e), e) != NULL;
}

/*
 * Starts a snapshot at a '# tracer:' line (Return: true, the line is read), or at a version
 * line or a latency header that belongs to no header in progress (Return: false, the line is
 * then read as the new header's).
 */
static bool start_line(struct lh_parser *p, const struct line *l)
{
	bool own = p->state == ST_HEADER && l->depth == p->depth;
	const char *h = l->h, *e = l->e, *n;

	if (l->hash && HAS_PREFIX(h, e - h, "tracer:")) {
		end_snapshot(p);
		begin_snapshot(p, l, h + 7, e);
		p->warned_outside = false;
		return true;
	}
	if ((n = version_name(h, e))) {
		if (own && !p->have_version && !p->have_latency)
			return false;
		end_snapshot(p);
		begin_snapshot(p, l, h, n);
		return false;
	}
	if (latency_header(h, e)) {
		if (own && !p->have_latency)
			return false;
		end_snapshot(p);
		begin_snapshot(p, l, NULL, NULL);
		warn(p, p->cur, "a latency header without a '# tracer:' line or a '<tracer> latency "
		     "trace' line before it: its tracer is unknown");
		return false;
	}
	return false;
}

/* Return: how many entries and frames the record in progress holds. */
static size_t body_size(const struct lh_record *r)
{
	size_t n = r->entries_present, i;

	for (i = 0; i < r->nr_stacks; i++)
		n += r->stacks[i].nr;
	return n;
}

static void classify_line(struct lh_parser *p, const char *s, const char *e, unsigned long n);

/*
 * A logical line n: a physical one, or several that a mail encoding joined. A line cut at
 * LH_PARSE_LINE_MAX cuts the record it is part of (a header line, an entry or a frame), not
 * the one that prose after it ends.
 */
static void logical_line(struct lh_parser *p, const char *s, const char *e, unsigned long n)
{
	size_t before;

	if (!p->line_was_cut) {
		classify_line(p, s, e, n);
		return;
	}
	p->line_was_cut = false;
	before = p->state == ST_BODY ? body_size(p->rec) : 0;
	classify_line(p, s, e, n);
	if (p->state == ST_HEADER || (p->state == ST_BODY && body_size(p->rec) != before))
		p->rec->truncated = true;
}

/* Classifies logical line n and reads it into the snapshot it belongs to, if any. */
static void classify_line(struct lh_parser *p, const char *s, const char *e, unsigned long n)
{
	struct line l;

	p->cur = n;
	split_line(&l, s, e);
	/* the hot path: an entry of the body, which can be no other line */
	if (p->state == ST_BODY && l.depth == p->depth && !l.hash && body_entry(p, &l))
		return;
	if (p->lat_wrapped && p->state == ST_HEADER && latency_end(p, &l))
		return;
	if (start_line(p, &l) || p->stopped)
		return;
	switch (p->state) {
	case ST_NONE:
		outside_line(p, &l);
		break;
	case ST_HEADER:
		if (l.depth == p->depth && !header_line(p, &l, l.h) &&
		    (p->header_done || entry_like(&l)))
			first_body_line(p, &l);
		break;
	case ST_BODY:
		if (l.depth == p->depth)
			body_line(p, &l);
		break;
	case ST_SKIP:
		break;
	}
}

/* Input: line endings, mail transfer encodings */

static void join_alloc(struct joinbuf *j)
{
	if (!j->buf)
		j->buf = lh_xmalloc(LH_PARSE_LINE_MAX);
}

static void join_add(struct joinbuf *j, const char *s, size_t n)
{
	if (n > LH_PARSE_LINE_MAX - j->len) {
		n = LH_PARSE_LINE_MAX - j->len;
		j->cut = true;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
}

/*
 * A line was longer than LH_PARSE_LINE_MAX: say so once per input; logical_line() flags its
 * record when the line is part of it.
 */
static void line_cut(struct lh_parser *p, unsigned long n)
{
	p->stats.cut_lines++;
	p->line_was_cut = true;
	if (!p->warned_cut) {
		p->warned_cut = true;
		warn(p, n, "line longer than %d KiB: read up to there (more such lines are only "
		     "counted)", LH_PARSE_LINE_MAX >> 10);
	}
}

/* Return: the quote depth of s[0..e) and, in *c, its text after the marks and one blank. */
static unsigned int quote_depth(const char *s, const char *e, const char **c)
{
	unsigned int d = 0;

	while (s < e && (*s == '>' || (d && *s == ' ' && s + 1 < e && s[1] == '>'))) {
		d += *s == '>';
		s++;
	}
	if (d && s < e && *s == ' ')
		s++;	/* space-stuffing */
	*c = s;
	return d;
}

/* A flowed line (RFC 3676) ends with a space: the next one of its depth continues it. */
static bool is_flowed(const char *s, const char *e)
{
	const char *c;

	quote_depth(s, e, &c);
	return e > c && e[-1] == ' ' && !(e - c == 3 && !memcmp(c, "-- ", 3));
}

static void flowed_line(struct lh_parser *p, const char *s, const char *e, unsigned long n,
			bool cut)
{
	struct joinbuf *j = &p->flj;
	const char *c;

	if (j->active) {
		if (quote_depth(s, e, &c) == j->depth) {
			join_add(j, c, (size_t)(e - c));
			j->cut |= cut;
			if (is_flowed(s, e))
				return;
			j->active = false;
			if (j->cut)
				line_cut(p, j->line);
			logical_line(p, j->buf, j->buf + j->len, j->line);
			return;
		}
		j->active = false;
		if (j->cut)
			line_cut(p, j->line);
		logical_line(p, j->buf, j->buf + j->len, j->line);
		if (p->stopped)
			return;
	}
	if (p->flowed && is_flowed(s, e)) {
		join_alloc(j);
		j->active = true;
		j->len = 0;
		j->cut = cut;
		j->line = n;
		j->depth = quote_depth(s, e, &c);
		join_add(j, s, (size_t)(e - s));
		return;
	}
	if (cut)
		line_cut(p, n);
	logical_line(p, s, e, n);
}

/* Decodes a quoted-printable line; one that ends with '=' (a soft break) waits for the next. */
static void qp_line(struct lh_parser *p, const char *s, const char *e, bool cut)
{
	struct joinbuf *j = &p->qpj;
	const char *r = rtrim(s, e), *q;
	bool soft = r > s && r[-1] == '=';
	char c;

	join_alloc(j);
	if (!j->active) {
		j->len = 0;
		j->cut = false;
		j->line = p->lineno;
	}
	j->cut |= cut;
	if (soft)
		e = r - 1;
	for (q = s; q < e && j->len < LH_PARSE_LINE_MAX; q++) {
		c = *q;
		if (c == '=' && e - q >= 3 && is_xdigit(q[1]) && is_xdigit(q[2])) {
			c = (char)(xval(q[1]) << 4 | xval(q[2]));
			q += 2;
		}
		j->buf[j->len++] = c;
	}
	if (q < e)
		j->cut = true;
	j->active = soft;
	if (!soft)
		flowed_line(p, j->buf, j->buf + j->len, j->line, j->cut);
}

/* Mail headers at column 0 that say how the body after them is encoded. */
static void mail_header(struct lh_parser *p, const char *s, const char *e)
{
	if (p->in_ctype) {
		if (s < e && is_blank(*s)) {	/* a folded header line goes on */
			if (find_nocase(s, e, "format=flowed"))
				p->flowed = true;
			return;
		}
		p->in_ctype = false;
	}
	if (s >= e || (*s | 0x20) != 'c')
		return;
	if (e - s >= 26 && !strncasecmp(s, "content-transfer-encoding:", 26)) {
		p->qp = find_nocase(s + 26, e, "quoted-printable") != NULL;
	} else if (e - s >= 13 && !strncasecmp(s, "content-type:", 13)) {
		p->flowed = find_nocase(s + 13, e, "format=flowed") != NULL;
		p->in_ctype = true;
	}
}

/* A physical line of the input (cut: it was longer than LH_PARSE_LINE_MAX). */
static void phys_line(struct lh_parser *p, const char *s, const char *e, bool cut)
{
	p->lineno++;
	p->stats.lines++;
	if (e > s && e[-1] == '\r')
		e--;
	if (p->qpj.active) {
		qp_line(p, s, e, cut);
		return;
	}
	mail_header(p, s, e);
	if (p->qp && memchr(s, '=', (size_t)(e - s))) {
		qp_line(p, s, e, cut);
		return;
	}
	if (!p->flowed && !p->flj.active) {
		if (cut)
			line_cut(p, p->lineno);
		logical_line(p, s, e, p->lineno);
		return;
	}
	flowed_line(p, s, e, p->lineno, cut);
}

/* Reads the carried line, now complete (its ending came, or the input's end). */
static void carry_line(struct lh_parser *p)
{
	size_t n = p->carry.len;
	bool cut = p->carry.cut;

	p->carry.len = 0;	/* the bytes stay there until the next join_add() */
	p->carry.cut = false;
	phys_line(p, p->carry.buf, p->carry.buf + n, cut);
}

/* Cuts buf[0..len) into lines at sep; keeps a last unended line in the carry. */
static void split_lines(struct lh_parser *p, const char *buf, size_t len, char sep)
{
	const char *s = buf, *end = buf + len, *nl;

	if (p->carry.len || p->carry.cut) {
		nl = memchr(s, sep, (size_t)(end - s));
		join_add(&p->carry, s, (size_t)((nl ? nl : end) - s));
		if (!nl)
			return;
		carry_line(p);
		s = nl + 1;
	}
	while (s < end && !p->stopped) {
		nl = memchr(s, sep, (size_t)(end - s));
		if (!nl) {
			join_add(&p->carry, s, (size_t)(end - s));
			return;
		}
		if (nl - s > LH_PARSE_LINE_MAX)
			phys_line(p, s, s + LH_PARSE_LINE_MAX, true);
		else
			phys_line(p, s, nl, false);
		s = nl + 1;
	}
}

/*
 * Sets the line ending. In an input whose first LH_PARSE_LINE_MAX bytes hold no '\n' but a
 * '\r', lines end at '\r' (classic Mac OS): the carried bytes are cut there first. Binary junk
 * holding both is read by '\n'.
 */
static void set_eol(struct lh_parser *p, enum eol eol)
{
	const char *s = p->carry.buf, *end = p->carry.buf + p->carry.len, *cr;

	p->eol = eol;
	if (eol != EOL_CR)
		return;
	while (!p->stopped && (cr = memchr(s, '\r', (size_t)(end - s)))) {
		phys_line(p, s, cr, false);
		s = cr + 1;
	}
	memmove(p->carry.buf, s, (size_t)(end - s));
	p->carry.len = (size_t)(end - s);
}

void lh_parse_begin(struct lh_parser *p, const char *source, lh_record_fn fn, void *arg)
{
	size_t n;

	source = source ? source : "<buffer>";
	n = strlen(source);
	free(p->source);
	p->source = lh_xmalloc(lh_record_escape_len(n));
	lh_record_escape(p->source, lh_record_escape_len(n), source, n);
	p->fn = fn;
	p->arg = arg;
	p->stopped = false;
	p->lineno = p->cur = 0;
	p->eol = EOL_UNKNOWN;
	p->carry.len = 0;
	p->carry.cut = false;
	p->qp = p->flowed = p->in_ctype = false;
	p->qpj.active = p->flj.active = false;
	p->input_records = p->input_skipped = 0;
	p->first_skip[0] = p->first_cut[0] = '\0';
	p->empty_line = p->qp_line = 0;
	p->warned_outside = p->warned_cut = p->line_was_cut = false;
	p->state = ST_NONE;
	p->lat_wrapped = false;
}

int lh_parse_feed(struct lh_parser *p, const char *buf, size_t len)
{
	if (p->stopped)
		return -1;
	if (p->eol == EOL_UNKNOWN) {
		if (memchr(buf, '\n', len)) {
			p->eol = EOL_LF;
		} else if (len < LH_PARSE_LINE_MAX - p->carry.len) {
			join_add(&p->carry, buf, len);
			return 0;
		} else {
			set_eol(p, memchr(p->carry.buf, '\r', p->carry.len) || memchr(buf, '\r', len) ?
				   EOL_CR : EOL_LF);
		}
	}
	if (!p->stopped)
		split_lines(p, buf, len, p->eol == EOL_CR ? '\r' : '\n');
	return p->stopped ? -1 : 0;
}

/* Ends the snapshot in progress at line n: the input's end, or a line that starts one. */
static void snapshot_break(struct lh_parser *p, unsigned long n)
{
	struct line none = { 0 };

	p->cur = n;
	if (p->lat_wrapped && p->state == ST_HEADER)
		latency_end(p, &none);
	end_snapshot(p);
}

int lh_parse_end(struct lh_parser *p)
{
	struct joinbuf *j;
	bool unended;

	if (!p->stopped && p->eol == EOL_UNKNOWN)
		set_eol(p, memchr(p->carry.buf, '\r', p->carry.len) ? EOL_CR : EOL_LF);
	unended = p->carry.len || p->carry.cut;	/* the last line has no ending */
	if (!p->stopped && (p->carry.len || p->carry.cut))
		carry_line(p);
	j = &p->qpj;
	if (!p->stopped && j->active) {	/* a soft break on the last line */
		j->active = false;
		flowed_line(p, j->buf, j->buf + j->len, j->line, j->cut);
	}
	j = &p->flj;
	if (!p->stopped && j->active) {
		j->active = false;
		if (j->cut)
			line_cut(p, j->line);
		logical_line(p, j->buf, j->buf + j->len, j->line);
	}
	/* a body that goes on up to a last line without an ending: cut there (head -c) */
	if (unended && p->state == ST_BODY)
		p->rec->unended = true;
	if (!p->stopped)
		snapshot_break(p, p->lineno);
	p->state = ST_NONE;
	return p->stopped ? -1 : 0;
}

int lh_parse_buffer(struct lh_parser *p, const char *source, const char *buf, size_t len,
		    lh_record_fn fn, void *arg)
{
	lh_parse_begin(p, source, fn, arg);
	lh_parse_feed(p, buf, len);
	return lh_parse_end(p);
}

bool lh_parser_at_rest(const struct lh_parser *p)
{
	return p->eol == EOL_LF && !p->qp && !p->flowed && !p->in_ctype && !p->carry.len &&
	       !p->carry.cut && !p->qpj.active && !p->flj.active && !p->warned_cut &&
	       !p->stopped;
}

void lh_parse_jump(struct lh_parser *p, unsigned long lineno)
{
	if (p->stopped)
		return;
	snapshot_break(p, lineno + 1);
	p->lineno = lineno;
	p->eol = EOL_LF;	/* at rest, as the line before said */
}

void lh_parser_outcome(const struct lh_parser *p, const struct lh_parse_stats *before,
		       struct lh_parse_outcome *o)
{
	o->stats.lines = p->stats.lines - before->lines;
	o->stats.snapshots = p->stats.snapshots - before->snapshots;
	o->stats.skipped = p->stats.skipped - before->skipped;
	o->stats.bad_lines = p->stats.bad_lines - before->bad_lines;
	o->stats.incomplete = p->stats.incomplete - before->incomplete;
	o->stats.cut_lines = p->stats.cut_lines - before->cut_lines;
	o->stats.cut = p->stats.cut - before->cut;
	o->stats.odd_entries = p->stats.odd_entries - before->odd_entries;
	o->lineno = p->lineno;
	o->empty_line = p->empty_line;
	o->qp_line = p->qp_line;
	memcpy(o->first_skip, p->first_skip, sizeof(o->first_skip));
	memcpy(o->first_cut, p->first_cut, sizeof(o->first_cut));
}

void lh_parse_absorb(struct lh_parser *p, const struct lh_parse_outcome *o)
{
	p->stats.lines += o->stats.lines;
	p->stats.snapshots += o->stats.snapshots;
	p->stats.skipped += o->stats.skipped;
	p->stats.bad_lines += o->stats.bad_lines;
	p->stats.incomplete += o->stats.incomplete;
	p->stats.cut_lines += o->stats.cut_lines;
	p->stats.cut += o->stats.cut;
	p->stats.odd_entries += o->stats.odd_entries;
	p->input_records += o->stats.snapshots;
	p->input_skipped += o->stats.skipped;
	p->lineno = o->lineno;
	p->eol = EOL_LF;
	if (!p->empty_line)
		p->empty_line = o->empty_line;
	if (!p->qp_line)
		p->qp_line = o->qp_line;
	if (!p->first_skip[0])
		memcpy(p->first_skip, o->first_skip, sizeof(p->first_skip));
	if (!p->first_cut[0])
		memcpy(p->first_cut, o->first_cut, sizeof(p->first_cut));
}

const char *lh_parser_why_empty(const struct lh_parser *p, char *buf, size_t len)
{
	if (p->input_records || p->input_skipped)
		return NULL;
	if (p->empty_line)
		snprintf(buf, len, "the '# tracer:' line %lu is followed by nothing: the trace "
			 "buffer was empty", p->empty_line);
	else if (p->qp_line)
		snprintf(buf, len, "line %lu holds quoted-printable text ('=3D'), and no "
			 "'Content-Transfer-Encoding: quoted-printable' header came before it", p->qp_line);
	else if (!p->lineno)
		snprintf(buf, len, "the input is empty");
	else
		snprintf(buf, len, "no '# tracer:' line, '<tracer> latency trace' line or 'latency: "
			 "N us' header in %lu line%s", p->lineno, p->lineno == 1 ? "" : "s");
	return buf;
}

struct lh_parser *lh_parser_alloc(struct lh_diag *diag)
{
	struct lh_parser *p = lh_xcalloc(1, sizeof(*p));

	p->diag = diag;
	p->rec = lh_record_alloc();
	lh_htab_init(&p->funcs, FN_TABLE_MIN);
	p->stack = -1;
	join_alloc(&p->carry);
	p->namebuf = lh_xmalloc(4 * (size_t)LH_PARSE_LINE_MAX + 1);
	lh_parse_begin(p, NULL, NULL, NULL);
	return p;
}

void lh_parser_free(struct lh_parser *p)
{
	if (!p)
		return;
	lh_record_free(p->rec);
	lh_htab_release(&p->funcs);
	free(p->open_irqs);
	free(p->source);
	free(p->carry.buf);
	free(p->namebuf);
	free(p->qpj.buf);
	free(p->flj.buf);
	free(p);
}

struct lh_record *lh_parser_take_record(struct lh_parser *p, struct lh_record *spare)
{
	struct lh_record *r = p->rec;

	/* between end_snapshot() and the next begin_snapshot(), which empties it */
	p->rec = spare;
	return r;
}

const struct lh_parse_stats *lh_parser_stats(const struct lh_parser *p)
{
	return &p->stats;
}

const char *lh_parser_first_skip(const struct lh_parser *p)
{
	return p->first_skip[0] ? p->first_skip : NULL;
}

const char *lh_parser_first_cut(const struct lh_parser *p)
{
	return p->first_cut[0] ? p->first_cut : NULL;
}
