// SPDX-License-Identifier: GPL-2.0-only
/* Messages, durations, diagnostics, arena and allocation helpers shared by every module. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define HAVE_VALGRIND_H 1
#endif
#endif

int lh_quiet;

static void __attribute__((format(printf, 2, 0)))
vreport(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "lathound: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int lh_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void lh_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void lh_info(const char *fmt, ...)
{
	va_list ap;

	if (lh_quiet)
		return;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

static const struct {
	const char	*suffix;
	double		ns;
} units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
};

/*
 * A number and a unit, or a bare number counted in bare_ns units. Return: 0, *ns and *unit
 * (the unit's entry, NULL for a bare number), or -1 and *err.
 */
static int duration_parse(const char *s, double bare_ns, uint64_t *ns, const char **unit,
			  const char **err)
{
	double mult = bare_ns, v;
	bool decimal = true;
	const char *c;
	char *end;
	size_t i;

	if (!s || !*s) {
		*err = "empty duration";
		return -1;
	}
	if ((*s < '0' || *s > '9') && *s != '.') {
		*err = "a duration is a positive number with a unit (ns, us, ms, s, m, h)";
		return -1;
	}
	*unit = NULL;
	errno = 0;
	v = strtod(s, &end);
	/* strtod() also takes hex ("0x10") and "nan": a duration is decimal. */
	for (c = s; c < end; c++)
		if ((*c < '0' || *c > '9') && !strchr(".eE+-", *c))
			decimal = false;
	if (end == s || !decimal || errno || !isfinite(v) || v < 0) {
		*err = "a duration is a number with a unit (ns, us, ms, s, m, h)";
		return -1;
	}
	if (*end) {
		for (i = 0; i < LH_ARRAY_SIZE(units); i++)
			if (!strcmp(end, units[i].suffix))
				break;
		if (i == LH_ARRAY_SIZE(units)) {
			*err = "unknown duration unit (use ns, us, ms, s, m or h)";
			return -1;
		}
		mult = units[i].ns;
		*unit = units[i].suffix;
	}
	v = v * mult + 0.5;
	/* 2^64: the first double a uint64_t cannot hold (llround() stops at 2^63). */
	if (v >= 18446744073709551616.0) {
		*err = "duration too large";
		return -1;
	}
	*ns = (uint64_t)v;
	return 0;
}

int lh_duration_parse(const char *s, uint64_t *ns, const char **err)
{
	const char *unit;

	return duration_parse(s, 1e9, ns, &unit, err);
}

int lh_budget_parse(const char *s, uint64_t *ns, const char **err)
{
	const char *unit;
	uint64_t v;

	if (duration_parse(s, 1e3, &v, &unit, err))
		return -1;
	if (!v) {
		*err = "0 is not a latency budget: every section exceeds it";
		return -1;
	}
	if (v >= 1000000000ULL) {
		if (unit && !strcmp(unit, "m"))
			*err = "'m' is minutes, and a latency budget is under 1s: did you mean 'ms'?";
		else if (!unit)
			*err = "a bare number is microseconds, and a latency budget is under 1s";
		else
			*err = "a latency budget is under 1s: did you mean ms or us?";
		return -1;
	}
	*ns = v;
	return 0;
}

char *lh_duration_format(uint64_t ns, char *buf, size_t len)
{
	if (ns && ns % 3600000000000ULL == 0)
		snprintf(buf, len, "%lluh", (unsigned long long)(ns / 3600000000000ULL));
	else if (ns && ns % 60000000000ULL == 0)
		snprintf(buf, len, "%llum", (unsigned long long)(ns / 60000000000ULL));
	else if (ns && ns % 1000000000ULL == 0)
		snprintf(buf, len, "%llus", (unsigned long long)(ns / 1000000000ULL));
	else if (ns && ns % 1000000ULL == 0)
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000ULL));
	else if (ns % 1000ULL == 0)
		snprintf(buf, len, "%lluus", (unsigned long long)(ns / 1000ULL));
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}

void lh_diag_vadd(struct lh_diag *d, enum lh_diag_level level, const char *fmt, va_list ap)
{
	char *text;

	if (level == LH_DIAG_ERROR)
		d->errors++;
	else
		d->warnings++;
	if (d->nr >= LH_DIAG_KEEP)
		return;
	if (vasprintf(&text, fmt, ap) < 0)
		return;
	LH_GROW(d->msgs, d->nr + 1, d->alloc);
	d->msgs[d->nr].level = level;
	d->msgs[d->nr].text = text;
	d->nr++;
}

void lh_diag_add(struct lh_diag *d, enum lh_diag_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lh_diag_vadd(d, level, fmt, ap);
	va_end(ap);
}

int lh_diag_fail(struct lh_diag *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lh_diag_vadd(d, LH_DIAG_ERROR, fmt, ap);
	va_end(ap);
	return -1;
}

void lh_diag_release(struct lh_diag *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		free(d->msgs[i].text);
	free(d->msgs);
	memset(d, 0, sizeof(*d));
}

struct lh_arena_block {
	struct lh_arena_block	*next;
	size_t			size;
	char			data[];
};

#define ARENA_BLOCK (64 * 1024)

/* Makes b the block being filled, its first n bytes handed out. Return: them. */
static void *arena_fill(struct lh_arena *a, struct lh_arena_block *b, size_t n)
{
	a->head = b;
	a->cur = b->data + n;
	a->end = b->data + b->size;
	a->used += n;
	return b->data;
}

void *lh_arena_alloc_block(struct lh_arena *a, size_t size)
{
	struct lh_arena_block *b;

	if (size > SIZE_MAX / 2)
		lh_oom();
	size = (size + 7) & ~(size_t)7;
	/* Blocks kept from before a reset are reused in order (one too small is skipped). */
	for (b = a->head ? a->head->next : NULL; b && b->size < size; b = b->next)
		;
	if (!b) {
		size_t bsize = size > ARENA_BLOCK ? size : ARENA_BLOCK;

		b = lh_xmalloc(sizeof(*b) + bsize);
		b->size = bsize;
		b->next = NULL;
		if (a->head) {
			/* Splice after the current block, keeping later free blocks. */
			b->next = a->head->next;
			a->head->next = b;
		} else {
			a->first = b;
		}
	}
	return arena_fill(a, b, size);
}

char *lh_arena_strdup(struct lh_arena *a, const char *s)
{
	return lh_arena_strndup(a, s, strlen(s));
}

void lh_arena_reset(struct lh_arena *a)
{
	a->used = 0;
	if (a->first)
		arena_fill(a, a->first, 0);
}

void lh_arena_release(struct lh_arena *a)
{
	struct lh_arena_block *b = a->first, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	memset(a, 0, sizeof(*a));
}

void lh_oom(void)
{
	static bool exiting;

	fputs("lathound: fatal: out of memory\n", stderr);
	/* Out of memory again, in an atexit handler: exit() must not run twice. */
	if (exiting)
		_exit(1);
	exiting = true;
	/* exit(), not abort(): the atexit handlers give borrowed tracefs state back. */
	exit(1);
}

void lh_grow(void **ptr, size_t *alloc, size_t nr, size_t elem)
{
	size_t n;
	void *p;

	if (nr <= *alloc)
		return;
	n = *alloc ? *alloc * 2 : 16;
	if (n < nr || n < *alloc)
		n = nr;
	if (elem && n > SIZE_MAX / elem)
		lh_oom();
	p = realloc(*ptr, n * elem);
	if (!p)
		lh_oom();
	*ptr = p;
	*alloc = n;
}

int lh_read_fd(int fd, char **buf, size_t *alloc, size_t *len, size_t max)
{
	ssize_t n;

	*len = 0;
	for (;;) {
		if (*alloc - *len < 4096 + 1) {
			if (*alloc >= max) {
				errno = EFBIG;
				return -1;
			}
			lh_grow((void **)buf, alloc, *len + 65536, 1);
		}
		n = read(fd, *buf + *len, *alloc - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			break;
		*len += (size_t)n;
	}
	(*buf)[*len] = '\0';
	return 0;
}

int lh_write_fd(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n) {
			errno = EIO;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int lh_mkdir_p(const char *path, mode_t mode)
{
	char *p = lh_xstrdup(path), *s;
	int err;

	/* Each parent in turn ("/a", "/a/b"), then path itself. */
	for (s = p + 1; (s = strchr(s, '/')); s++) {
		while (s[1] == '/')
			s++;
		if (!s[1])
			break;
		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST) {
			err = errno;
			free(p);
			errno = err;
			return -1;
		}
		*s = '/';
	}
	free(p);
	if (!mkdir(path, mode))
		return 1;
	return errno == EEXIST ? 0 : -1;
}

int lh_open_dir(int dfd, const char *name)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	/* With O_DIRECTORY, a link may be reported as ENOTDIR rather than ELOOP. */
	if (fd < 0 && errno == ENOTDIR && !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISLNK(st.st_mode))
		errno = ELOOP;
	return fd;
}

int lh_check_trusted(int fd, bool dir, const char *what, const char *path,
		     struct lh_diag *diag)
{
	const char *kind = dir ? "directory" : "file";
	struct stat st;
	char why[64];

	if (fstat(fd, &st)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot check %s '%s': %s", what, path,
			    strerror(errno));
		return -1;
	}
	if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "refusing %s '%s': not a %s%s", what, path,
			    dir ? "" : "regular ", kind);
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid())
		snprintf(why, sizeof(why), "owned by uid %lu", (unsigned long)st.st_uid);
	else if (st.st_mode & S_IWOTH)
		snprintf(why, sizeof(why), "writable by others (mode %04o)", st.st_mode & 07777);
	else if (st.st_mode & S_IWGRP)
		snprintf(why, sizeof(why), "writable by its group (mode %04o)", st.st_mode & 07777);
	else if (!dir && st.st_nlink > 1)
		snprintf(why, sizeof(why), "a hard link (%lu names)", (unsigned long)st.st_nlink);
	else
		return 0;
	lh_diag_add(diag, LH_DIAG_ERROR,
		    "refusing %s '%s': it is %s, and only a %s root alone can write is trusted",
		    what, path, why, kind);
	return -1;
}

void *lh_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		lh_oom();
	return p;
}

void *lh_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		lh_oom();
	return p;
}

char *lh_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		lh_oom();
	return p;
}

char *lh_xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		lh_oom();
	return s;
}

char *lh_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = lh_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

size_t lh_utf8_printable(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	cp = s[0] & (0x3f >> (n - 1));
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < 0xa0 || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;			/* C1 control, overlong, surrogate, out of range */
	return n;
}

uint64_t lh_hash(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t lh_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t lh_wall_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

bool lh_under_valgrind(void)
{
#ifdef HAVE_VALGRIND_H
	return RUNNING_ON_VALGRIND;
#else
	return false;
#endif
}

bool lh_pid_is_lathound(int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (pid == (int)getpid())
		return true;
	if (kill(pid, 0) && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, "lathound") || !strncmp(comm, "lt-lathound", 11);
}
