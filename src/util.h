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

#define LH_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Messages to the user: "lathound: error: ...". Only cmd-*.c and main.c call these. */
int lh_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lh_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lh_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int lh_quiet;

/*
 * Durations: "250ns", "500us", "2ms", "1.5s", "90s", "10m", "12h". A bare number is
 * microseconds, as in tracing_thresh and cyclictest. Return: 0, or -1 with *err set to a
 * static message saying what is wrong.
 */
int lh_duration_parse(const char *s, uint64_t *ns, const char **err);
/* Formats ns as the shortest exact unit ("2ms", "1500us"); returns buf. */
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

void lh_diag_add(struct lh_diag *d, enum lh_diag_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void lh_diag_vadd(struct lh_diag *d, enum lh_diag_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Frees the texts, keeps the struct; counters are reset. */
void lh_diag_release(struct lh_diag *d);

/*
 * Arena of strings and small objects that never move once handed out. Reset keeps the
 * memory for reuse, so a parser that resets per record stops allocating once warm.
 */
struct lh_arena_block;

struct lh_arena {
	struct lh_arena_block	*head;	/* block being filled */
	struct lh_arena_block	*first;
	size_t			used;	/* bytes handed out since reset */
};

void *lh_arena_alloc(struct lh_arena *a, size_t size);
char *lh_arena_strndup(struct lh_arena *a, const char *s, size_t len);
char *lh_arena_strdup(struct lh_arena *a, const char *s);
void lh_arena_reset(struct lh_arena *a);
void lh_arena_release(struct lh_arena *a);

/* Grows *ptr (of *alloc elements of size elem) to hold at least nr; aborts on ENOMEM. */
void lh_grow(void **ptr, size_t *alloc, size_t nr, size_t elem);
#define LH_GROW(ptr, nr, alloc) lh_grow((void **)&(ptr), &(alloc), (nr), sizeof(*(ptr)))

/* malloc/calloc/strdup that abort with a message on ENOMEM (as git's xmalloc). */
void *lh_xmalloc(size_t size);
void *lh_xcalloc(size_t nmemb, size_t size);
char *lh_xstrdup(const char *s);

/* 64-bit FNV-1a, for hash tables and signatures. */
uint64_t lh_hash(const void *data, size_t len, uint64_t seed);

/* Monotonic and wall clocks in ns. */
uint64_t lh_now_ns(void);
uint64_t lh_wall_ns(void);

#endif /* LH_UTIL_H */
