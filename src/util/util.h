/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small shared pieces: user messages (for cmd-*.c and main.c only), durations, a
 * diagnostics list that library code fills instead of printing, and a string arena.
 */
#ifndef LH_UTIL_H
#define LH_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#define LH_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Messages to the user on stderr: "lathound: error: ...", "lathound: warning: ...", and
 * notes that lh_quiet silences. Only cmd-*.c and main.c call these.
 * Return (lh_error): -1, so that 'return lh_error(...)' reads naturally.
 */
int lh_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lh_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lh_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int lh_quiet;

/*
 * Durations: "250ns", "500us", "2ms", "1.5s", "90s", "10m", "12h": a decimal number (an
 * exponent allowed: "1e3us") and a unit. Two kinds, one parser each:
 *
 * lh_duration_parse(), for run lengths (-d, --slice, --checkpoint): a bare number is
 * seconds, as in rtla and cyclictest ("-d 12" runs 12 seconds).
 *
 * lh_budget_parse(), for latency budgets and thresholds (--max, -T, a rule's 'min'): a bare
 * number is microseconds, as in tracing_thresh; 0 and 1s or more are refused as no latency
 * budget ("--max irqsoff=1m" is a minute: "did you mean 'ms'?").
 *
 * Return: 0 and *ns (rounded to the nearest ns), or -1 with *err set to a static message
 * saying what is wrong (*ns untouched).
 */
int lh_duration_parse(const char *s, uint64_t *ns, const char **err);
int lh_budget_parse(const char *s, uint64_t *ns, const char **err);
/* Formats ns as the shortest exact unit ("2ms", "1500us"). Return: buf. */
char *lh_duration_format(uint64_t ns, char *buf, size_t len);

/*
 * A list of diagnostics ("file:line: message") that library code fills instead of
 * printing. Only the first LH_DIAG_KEEP are kept as text; every one is counted.
 */
enum lh_diag_level { LH_DIAG_WARNING, LH_DIAG_ERROR };

struct lh_diag_msg {
	enum lh_diag_level	level;
	char			*text;
};

#define LH_DIAG_KEEP 200

struct lh_diag {
	struct lh_diag_msg	*msgs;
	size_t			nr;
	size_t			alloc;
	unsigned long		errors;
	unsigned long		warnings;
};

/* Counts a diagnostic and keeps its text (owned by d) while fewer than LH_DIAG_KEEP are. */
void lh_diag_add(struct lh_diag *d, enum lh_diag_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void lh_diag_vadd(struct lh_diag *d, enum lh_diag_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Adds an error to d. Return: -1, so that 'return lh_diag_fail(diag, ...)' reads naturally. */
int lh_diag_fail(struct lh_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Frees the texts, keeps the struct (zeroed: counters reset, ready for reuse). */
void lh_diag_release(struct lh_diag *d);

/*
 * Arena of strings and small objects that never move once handed out. Reset keeps the
 * memory for reuse, so a parser that resets per record stops allocating once warm.
 */
struct lh_arena_block;

struct lh_arena {
	struct lh_arena_block	*head;	/* block being filled */
	struct lh_arena_block	*first;
	char			*cur;	/* head's free bytes: cur..end */
	char			*end;
	size_t			used;	/* bytes handed out since reset */
};

/*
 * lh_arena_alloc() when the block being filled has no room: the next block, or a new one.
 * Return: as lh_arena_alloc().
 */
void *lh_arena_alloc_block(struct lh_arena *a, size_t size);

/*
 * Return: size bytes (8-byte aligned) that stay valid until the arena is reset or
 * released; never NULL (lh_oom() on ENOMEM). Nothing handed out is freed on its own.
 * Inline: the parser's every new function name comes here.
 */
static inline void *lh_arena_alloc(struct lh_arena *a, size_t size)
{
	size_t n = (size + 7) & ~(size_t)7;
	char *p = a->cur;

	/* n - 1 wraps for 0 (a fresh arena's cur and end are NULL) and for a size that wrapped */
	if (__builtin_expect(n - 1 >= (size_t)(a->end - a->cur), 0))
		return lh_arena_alloc_block(a, size);
	a->cur += n;
	a->used += n;
	return p;
}

/* Return: a NUL-terminated copy of s[0..len) in the arena (see lh_arena_alloc()). */
static inline char *lh_arena_strndup(struct lh_arena *a, const char *s, size_t len)
{
	char *p = lh_arena_alloc(a, len + 1);

	__builtin_memcpy(p, s, len);
	p[len] = '\0';
	return p;
}
/* Return: a copy of s in the arena (see lh_arena_alloc()). */
char *lh_arena_strdup(struct lh_arena *a, const char *s);
/* Forgets everything handed out, keeping the blocks for reuse. */
void lh_arena_reset(struct lh_arena *a);
/* Frees every block; a is zeroed and can be used again. */
void lh_arena_release(struct lh_arena *a);

/*
 * Grows *ptr (of *alloc elements of size elem) to hold at least nr, reallocating it (the
 * caller still owns and frees *ptr). lh_oom() on ENOMEM or when the size overflows.
 */
void lh_grow(void **ptr, size_t *alloc, size_t nr, size_t elem);
/*
 * lh_grow() on an array and its allocated count, called only when nr does not fit. nr and
 * alloc are evaluated twice: no side effects in them.
 */
#define LH_GROW(ptr, nr, alloc)							\
	do {									\
		if ((nr) > (alloc))						\
			lh_grow((void **)&(ptr), &(alloc), (nr), sizeof(*(ptr)));	\
	} while (0)

/*
 * Reads fd to its end into *buf (of *alloc bytes, grown as needed; the caller still owns and
 * frees it), NUL-terminated, retrying on EINTR. Fails with EFBIG once *buf would reach max.
 * Return: 0 and *len, or -1 with errno.
 */
int lh_read_fd(int fd, char **buf, size_t *alloc, size_t *len, size_t max);

/* Writes all of buf to fd, retrying on EINTR and short writes. Return: 0, or -1 with errno. */
int lh_write_fd(int fd, const char *buf, size_t len);

/*
 * Creates directory path and the parents it lacks, as 'mkdir -p' (mode for each one, less the
 * umask). Return: 1 when path itself was created, 0 when it was there, -1 with errno.
 */
int lh_mkdir_p(const char *path, mode_t mode);

/*
 * Opens directory name (relative to dfd, or AT_FDCWD) for *at() calls, never through a
 * symbolic link as its last component. Return: the fd, or -1 with errno (ELOOP: a link is
 * there; ENOTDIR: something else that is not a directory).
 */
int lh_open_dir(int dfd, const char *name);

/*
 * Whether lathound, running as root, may trust what it reads from the file or directory
 * open at fd (opened without following a link) or write beside it: a regular file (a
 * directory when dir), owned by root or by the user lathound runs as, not writable by group
 * or others, and not a second hard link of a file. what and path name it in messages:
 * "refusing state file '/run/lathound/state': it is owned by uid 65534, and only a file
 * root alone can write is trusted". Return: 0, or -1 with the reason in diag.
 */
int lh_check_trusted(int fd, bool dir, const char *what, const char *path,
		     struct lh_diag *diag);

/*
 * malloc/calloc/strdup/asprintf that exit with a message on ENOMEM (as git's xmalloc): the
 * one exit library code may take. Return: the memory, never NULL; the caller frees it.
 */
void *lh_xmalloc(size_t size);
void *lh_xcalloc(size_t nmemb, size_t size);
char *lh_xstrdup(const char *s);
char *lh_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *lh_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/*
 * Says "lathound: fatal: out of memory" and exits with status 1 (LH_EXIT_ERROR), running
 * the atexit handlers that give borrowed kernel state back: for allocators other than the
 * above (libpcre2, asprintf...).
 */
void lh_oom(void) __attribute__((noreturn));

/*
 * Return: the length of the valid UTF-8 sequence of a printable character at s (2 to 4), or
 * 0: ASCII, a C1 control, an overlong form, a surrogate, a truncated sequence or a byte that
 * is not UTF-8. s is NUL-terminated (a NUL ends a sequence as any non-continuation byte).
 */
size_t lh_utf8_printable(const unsigned char *s);

/* Return: the 64-bit FNV-1a hash of data[0..len): stable, for signatures. */
uint64_t lh_hash(const void *data, size_t len, uint64_t seed);

/*
 * Return: a 64-bit hash of s[0..len) computed 8 bytes at a time, for in-memory tables on
 * hot paths (a parser's function names, the rule cache's lines, report signatures). Not
 * stable across byte orders: never store it.
 */
static inline uint64_t lh_hash_fast(const void *s, size_t len, uint64_t seed)
{
	const unsigned char *p = s;
	uint64_t h = (0x9e3779b97f4a7c15ULL * (len + 1)) ^ seed, w;
	size_t i;

	for (; len >= 8; len -= 8, p += 8) {
		__builtin_memcpy(&w, p, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	/*
	 * The tail (little-endian: its bytes in w's low ones), from the 8 bytes that end it when
	 * s had 8 (most names), else byte by byte: a memcpy() of a variable length is a call.
	 */
	w = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (p != (const unsigned char *)s && len) {
		__builtin_memcpy(&w, p + len - 8, 8);
		w >>= 8 * (8 - len);
	} else
#endif
		for (i = 0; i < len; i++)
			w |= (uint64_t)p[i] << (8 * i);
	h = (h ^ w) * 0x94d049bb133111ebULL;
	return h ^ (h >> 29);
}

/*
 * The one overflow policy of counts: a sum never goes round, it stays at its largest.
 * LH_ADD_CHECKED(sum, n): sum += n for an unsigned sum of any width. Return: 0, or -1 when
 * the sum would pass its largest value (it is then that value): a caller whose verdict rests
 * on the sum says so (a report's counts); one whose sum is a statistic just keeps it.
 */
#define LH_ADD_CHECKED(sum, n)							\
	__extension__ ({							\
		__typeof__(sum) *s_ = &(sum);					\
		__builtin_add_overflow(*s_, (n), s_) ?				\
			(*s_ = (__typeof__(sum))~(__typeof__(sum))0, -1) : 0;	\
	})

/* Return: a + b, or UINT64_MAX past it (LH_ADD_CHECKED()'s policy, as a value). */
static inline uint64_t lh_sat_add(uint64_t a, uint64_t b)
{
	LH_ADD_CHECKED(a, b);
	return a;
}

/* Return: a * b, or UINT64_MAX past it (no 128-bit type: 32-bit ARM has none). */
static inline uint64_t lh_sat_mul(uint64_t a, uint64_t b)
{
	uint64_t p;

	return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

/*
 * Return: whether pid is a running lathound (this process included), judged by its comm:
 * what a killed run left under its pid (tracefs instances, synthetic events) is stale
 * when this is false.
 */
bool lh_pid_is_lathound(int pid);

/* Return: whether this process runs under valgrind (which some fast paths upset). */
bool lh_under_valgrind(void);

/* Return: the monotonic (lh_now_ns) or wall (lh_wall_ns, CLOCK_REALTIME) clock in ns. */
uint64_t lh_now_ns(void);
uint64_t lh_wall_ns(void);

#endif /* LH_UTIL_H */
