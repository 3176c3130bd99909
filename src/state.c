// SPDX-License-Identifier: GPL-2.0-only
/*
 * Saved tracefs knobs: the list, its state-file text (format and parse are pure), the
 * atomic state-file write, and the ordered restore through libtracefs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <tracefs.h>

#include "state.h"

#define LIST_EMPTY_MARK	"####"

struct lh_state *lh_state_alloc(void)
{
	struct lh_state *st = lh_xcalloc(1, sizeof(*st));

	st->pid = getpid();
	st->started_ns = lh_wall_ns();
	return st;
}

void lh_state_free(struct lh_state *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nr; i++) {
		free(st->entries[i].path);
		free(st->entries[i].value);
	}
	free(st->entries);
	free(st->tracing_dir);
	free(st);
}

/* A tracefs path relative to the tracing dir: no '/' first, no "..", no blanks. */
static bool path_ok(const char *p)
{
	const char *s;

	if (!p || !*p || *p == '/' || strstr(p, ".."))
		return false;
	for (s = p; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f || *s == '\\')
			return false;
	return true;
}

const struct lh_state_entry *lh_state_find(const struct lh_state *st, const char *path)
{
	size_t i;

	for (i = 0; st && i < st->nr; i++)
		if (!strcmp(st->entries[i].path, path))
			return &st->entries[i];
	return NULL;
}

int lh_state_add(struct lh_state *st, enum lh_state_kind kind, const char *path,
		 const char *value)
{
	struct lh_state_entry *e;

	if (!path_ok(path) || (unsigned int)kind > LH_STATE_KPROBE) {
		errno = EINVAL;
		return -1;
	}
	if (lh_state_find(st, path))
		return 0;
	LH_GROW(st->entries, st->nr + 1, st->alloc);
	e = &st->entries[st->nr++];
	e->kind = kind;
	e->path = lh_xstrdup(path);
	e->value = lh_xstrdup(value ? value : "");
	return 0;
}

/*
 * Rewrites a filter file's content as lines that can be written back: the "all functions
 * enabled" banner means empty, "func [mod]" is written "func:mod:mod", and a command's
 * ":unlimited" / ":count=N" as the kernel takes them (":traceoff" / ":traceoff:N").
 * Return: malloc'd text, one item a line.
 */
static char *list_normalize(const char *in)
{
	size_t n = strlen(in), o = 0;
	char *out = lh_xmalloc(2 * n + 2);
	const char *line = in, *nl;

	for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
		const char *end, *mod;
		size_t len;

		nl = strchr(line, '\n');
		end = nl ? nl : line + strlen(line);
		while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
		len = end - line;
		if (!len || !strncmp(line, LIST_EMPTY_MARK, strlen(LIST_EMPTY_MARK)))
			continue;
		mod = memchr(line, ' ', len);
		if (mod && mod[1] == '[' && end[-1] == ']') {
			o += sprintf(out + o, "%.*s:mod:%.*s\n", (int)(mod - line), line,
				     (int)(end - mod - 3), mod + 2);
			continue;
		}
		if (len > 10 && !memcmp(end - 10, ":unlimited", 10))
			len -= 10;
		else if (memmem(line, len, ":count=", 7)) {
			const char *c = memmem(line, len, ":count=", 7);

			o += sprintf(out + o, "%.*s:%.*s\n", (int)(c - line), line,
				     (int)(end - c - 7), c + 7);
			continue;
		}
		memcpy(out + o, line, len);
		o += len;
		out[o++] = '\n';
	}
	out[o] = '\0';
	return out;
}

int lh_state_save(struct lh_state *st, enum lh_state_kind kind, const char *path,
		  struct lh_diag *diag)
{
	char *content, *norm = NULL;
	int ret;

	if (lh_state_find(st, path))
		return 0;
	errno = 0;
	content = tracefs_instance_file_read(NULL, path, NULL);
	if (!content && errno) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	if (kind == LH_STATE_LIST)
		norm = list_normalize(content ? content : "");
	ret = lh_state_add(st, kind, path, norm ? norm : content);
	if (ret)
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot save '%s': %s", path, strerror(errno));
	free(norm);
	free(content);
	return ret;
}

int lh_state_rank(const struct lh_state_entry *e)
{
	if (e->kind == LH_STATE_KPROBE)
		return 60;
	if (e->kind == LH_STATE_LIST)
		return 40;
	if (!strcmp(e->path, "tracing_on"))
		return 90;
	if (!strcmp(e->path, "current_tracer"))
		return 10;
	if (!strncmp(e->path, "options/", 8))
		return 30;
	if (!strncmp(e->path, "events/", 7) || !strcmp(e->path, "set_event"))
		return 50;
	return 20;	/* tracing_thresh, tracing_max_latency, buffer_size_kb... */
}

static const int ranks[] = { 10, 20, 30, 40, 50, 60, 90 };

/* Writes str to path with O_TRUNC; "" clears. Return: 0, or -1 with errno. */
static int write_knob(const char *path, const char *str)
{
	size_t len = strlen(str);
	int ret;

	errno = 0;
	if (!len)
		return tracefs_instance_file_clear(NULL, path) ? -1 : 0;
	ret = tracefs_instance_file_write(NULL, path, str);
	if (ret < 0 || (size_t)ret != len) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * The value to write back for a VALUE entry, in buf: event 'enable' files read "0*"/"1*"
 * when soft-disabled and take only the digit; buffer_size_kb reads "7 (expanded: 1408)"
 * before first use, and 1408 is the size it stands for. Return: 0, or -1 when the value
 * cannot be written back (per-CPU buffer sizes, "X").
 */
static int value_to_write(const struct lh_state_entry *e, char *buf, size_t len)
{
	const char *v = e->value, *x;
	size_t n;

	if (!strcmp(e->path, "buffer_size_kb")) {
		if (*v == 'X')
			return -1;
		x = strstr(v, "expanded: ");
		snprintf(buf, len, "%lu\n", strtoul(x ? x + 10 : v, NULL, 10));
		return 0;
	}
	n = strlen(e->path);
	if (n > 7 && !strcmp(e->path + n - 7, "/enable") && (*v == '0' || *v == '1') &&
	    v[1] == '*') {
		snprintf(buf, len, "%c\n", *v);
		return 0;
	}
	snprintf(buf, len, "%s", v);
	return 0;
}

/* Clears a filter file and writes each saved line back, in one open (one commit). */
static int restore_list(const struct lh_state_entry *e, struct lh_diag *diag)
{
	const char *line, *nl;
	int fd, ret = 0;

	fd = tracefs_instance_file_open(NULL, e->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot restore '%s': %s", e->path,
			    strerror(errno));
		return -1;
	}
	for (line = e->value; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		if (write(fd, line, nl - line + 1) != nl - line + 1) {
			lh_diag_add(diag, LH_DIAG_ERROR, "cannot restore '%.*s' in '%s': %s",
				    (int)(nl - line), line, e->path, strerror(errno));
			ret = -1;
		}
	}
	if (close(fd)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot restore '%s': %s", e->path,
			    strerror(errno));
		ret = -1;
	}
	return ret;
}

int lh_state_read_knob(const char *path, char *buf, size_t len)
{
	char *c;

	errno = 0;
	c = tracefs_instance_file_read(NULL, path, NULL);
	if (!c) {
		if (!errno)
			errno = ENODATA;
		return -1;
	}
	snprintf(buf, len, "%.*s", (int)strcspn(c, "\n"), c);
	free(c);
	return 0;
}

bool lh_state_knob_exists(const char *path)
{
	char *file = tracefs_instance_get_file(NULL, path);
	struct stat sb;
	bool ret = file && !stat(file, &sb);

	tracefs_put_tracing_file(file);
	return ret;
}

int lh_state_kprobe_find(const char *path, char *addr, size_t len)
{
	size_t plen = strlen(path);
	char *content, *line, *nl;
	int found = 0;

	if (!lh_state_knob_exists("kprobe_events"))
		return 0;
	errno = 0;
	content = tracefs_instance_file_read(NULL, "kprobe_events", NULL);
	if (!content)
		return errno ? -1 : 0;
	/* "p:group/event addr args", "r10:group/event addr args" */
	for (line = content; line && *line && !found; line = nl ? nl + 1 : NULL) {
		char *colon = strchr(line, ':');

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!colon || strncmp(colon + 1, path, plen) || colon[1 + plen] != ' ')
			continue;
		snprintf(addr, len, "%.*s", (int)strcspn(colon + 2 + plen, " "), colon + 2 + plen);
		found = 1;
	}
	free(content);
	return found;
}

/* Removes a kprobe lathound created, if it is still there (disabling it everywhere). */
static int restore_kprobe(const struct lh_state_entry *e, struct lh_diag *diag)
{
	struct tracefs_dynevent *d;
	char group[256], addr[512];
	const char *slash = strchr(e->path, '/');
	int ret;

	if (!slash || (size_t)(slash - e->path) >= sizeof(group)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot remove kprobe '%s': not 'group/event'",
			    e->path);
		return -1;
	}
	ret = lh_state_kprobe_find(e->path, addr, sizeof(addr));
	if (ret <= 0) {
		if (ret < 0)
			lh_diag_add(diag, LH_DIAG_ERROR, "cannot read kprobe_events: %s",
				    strerror(errno));
		return ret;
	}
	memcpy(group, e->path, slash - e->path);
	group[slash - e->path] = '\0';
	d = tracefs_kprobe_alloc(group, slash + 1, addr, NULL);
	if (!d || tracefs_dynevent_destroy(d, true)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot remove kprobe '%s': %s", e->path,
			    strerror(errno));
		ret = -1;
	} else {
		ret = 0;
	}
	tracefs_dynevent_free(d);
	return ret;
}

static int restore_entry(const struct lh_state_entry *e, struct lh_diag *diag)
{
	char buf[4096];

	switch (e->kind) {
	case LH_STATE_LIST:
		return restore_list(e, diag);
	case LH_STATE_KPROBE:
		return restore_kprobe(e, diag);
	case LH_STATE_VALUE:
		break;
	}
	if (value_to_write(e, buf, sizeof(buf))) {
		lh_diag_add(diag, LH_DIAG_WARNING, "not restoring '%s': saved value '%s' cannot be written back",
			    e->path, e->value);
		return 0;
	}
	if (write_knob(e->path, buf)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot restore '%s' to '%.*s': %s", e->path,
			    (int)strcspn(buf, "\n"), buf, strerror(errno));
		return -1;
	}
	return 0;
}

int lh_state_restore(const struct lh_state *st, struct lh_diag *diag)
{
	size_t r, i;
	int ret = 0;

	/* Stop tracing first so that nothing is recorded half-restored. */
	if (lh_state_find(st, "tracing_on") && write_knob("tracing_on", "0")) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot stop tracing (tracing_on): %s",
			    strerror(errno));
		ret = -1;
	}
	for (r = 0; r < LH_ARRAY_SIZE(ranks); r++)
		for (i = 0; i < st->nr; i++)
			if (lh_state_rank(&st->entries[i]) == ranks[r] &&
			    restore_entry(&st->entries[i], diag))
				ret = -1;
	return ret;
}

/* ---- the state file's text ---- */

struct buf {
	char	*p;
	size_t	len;
	size_t	alloc;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	LH_GROW(b->p, b->len + n + 1, b->alloc);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = lh_xvasprintf(fmt, ap);
	va_end(ap);
	buf_add(b, s, strlen(s));
	free(s);
}

static void buf_escape(struct buf *b, const char *s)
{
	char esc[5];

	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '\\')
			buf_add(b, "\\\\", 2);
		else if (c == '\n')
			buf_add(b, "\\n", 2);
		else if (c == '\t')
			buf_add(b, "\\t", 2);
		else if (c < ' ' || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			buf_add(b, esc, 4);
		} else {
			buf_add(b, s, 1);
		}
	}
}

static const char *const kind_names[] = {
	[LH_STATE_VALUE]	= "value",
	[LH_STATE_LIST]		= "list",
	[LH_STATE_KPROBE]	= "kprobe",
};

char *lh_state_format(const struct lh_state *st, size_t *len)
{
	struct buf b = { 0 };
	size_t i;

	buf_printf(&b, "# lathound: tracefs knobs to give back ('lathound reset' restores them)\n");
	buf_printf(&b, "lathound-state %d\n", LH_STATE_VERSION);
	buf_printf(&b, "pid %ld\n", (long)st->pid);
	buf_printf(&b, "started %llu\n", (unsigned long long)st->started_ns);
	if (st->tracing_dir) {
		buf_add(&b, "tracing-dir ", 12);
		buf_escape(&b, st->tracing_dir);
		buf_add(&b, "\n", 1);
	}
	for (i = 0; i < st->nr; i++) {
		const struct lh_state_entry *e = &st->entries[i];

		buf_printf(&b, "%s %s ", kind_names[e->kind], e->path);
		buf_escape(&b, e->value);
		buf_add(&b, "\n", 1);
	}
	buf_printf(&b, "end %zu\n", st->nr);
	if (len)
		*len = b.len;
	return b.p;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unescapes s[0..n) into a new string. Return: it, or NULL on a bad escape. */
static char *unescape(const char *s, size_t n)
{
	char *out = lh_xmalloc(n + 1), *o = out;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] != '\\') {
			*o++ = s[i];
			continue;
		}
		if (++i >= n)
			goto bad;
		switch (s[i]) {
		case '\\': *o++ = '\\'; break;
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'x': {
			int hi, lo;

			if (i + 2 >= n)
				goto bad;
			hi = hexval(s[i + 1]);
			lo = hexval(s[i + 2]);
			if (hi < 0 || lo < 0 || !(hi | lo))
				goto bad;
			*o++ = (char)(hi * 16 + lo);
			i += 2;
			break;
		}
		default:
			goto bad;
		}
	}
	*o = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

static int corrupt(struct lh_diag *diag, const char *name, unsigned long line, const char *why)
{
	lh_diag_add(diag, LH_DIAG_ERROR, "corrupt state file '%s': line %lu: %s", name, line, why);
	return -1;
}

/* Parses a decimal number filling s[0..n). Return: 0, or -1. */
static int parse_u64(const char *s, size_t n, uint64_t *v)
{
	char tmp[32], *end;

	if (!n || n >= sizeof(tmp) || *s < '0' || *s > '9')
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	*v = strtoull(tmp, &end, 10);
	return errno || *end ? -1 : 0;
}

int lh_state_parse(const char *buf, size_t len, const char *name, struct lh_state **out,
		   struct lh_diag *diag)
{
	const char *p = buf, *end = buf + len;
	struct lh_state *st = lh_xcalloc(1, sizeof(*st));
	unsigned long lineno = 0;
	bool header = false, ended = false;
	uint64_t v;

	*out = NULL;
	if (memchr(buf, '\0', len)) {
		corrupt(diag, name, 1, "binary data (NUL byte)");
		goto fail;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end;
		const char *sp, *arg;
		size_t kw, alen;

		lineno++;
		if (!nl) {
			corrupt(diag, name, lineno, "truncated (no newline at the end)");
			goto fail;
		}
		if (le == p || *p == '#') {
			p = nl + 1;
			continue;
		}
		if (ended) {
			corrupt(diag, name, lineno, "text after 'end'");
			goto fail;
		}
		sp = memchr(p, ' ', le - p);
		kw = (sp ? sp : le) - p;
		arg = sp ? sp + 1 : le;
		alen = le - arg;
#define KW(s) (kw == strlen(s) && !memcmp(p, s, kw))
		if (!header) {
			if (!KW("lathound-state")) {
				corrupt(diag, name, lineno, "not a lathound state file (no 'lathound-state' header)");
				goto fail;
			}
			if (parse_u64(arg, alen, &v) || v != LH_STATE_VERSION) {
				corrupt(diag, name, lineno, "unsupported state file version");
				goto fail;
			}
			header = true;
		} else if (KW("pid")) {
			if (parse_u64(arg, alen, &v) || !v || v > INT_MAX) {
				corrupt(diag, name, lineno, "bad pid");
				goto fail;
			}
			st->pid = (pid_t)v;
		} else if (KW("started")) {
			if (parse_u64(arg, alen, &st->started_ns)) {
				corrupt(diag, name, lineno, "bad start time");
				goto fail;
			}
		} else if (KW("tracing-dir")) {
			free(st->tracing_dir);
			st->tracing_dir = unescape(arg, alen);
			if (!st->tracing_dir) {
				corrupt(diag, name, lineno, "bad escape in tracing-dir");
				goto fail;
			}
		} else if (KW("value") || KW("list") || KW("kprobe")) {
			enum lh_state_kind kind = KW("value") ? LH_STATE_VALUE :
						  KW("list") ? LH_STATE_LIST : LH_STATE_KPROBE;
			const char *psp = memchr(arg, ' ', alen);
			char *path, *val;
			int ret;

			if (!psp) {
				corrupt(diag, name, lineno, "entry without a value");
				goto fail;
			}
			path = lh_xmalloc(psp - arg + 1);
			memcpy(path, arg, psp - arg);
			path[psp - arg] = '\0';
			val = unescape(psp + 1, le - psp - 1);
			if (!val) {
				free(path);
				corrupt(diag, name, lineno, "bad escape in value");
				goto fail;
			}
			ret = lh_state_find(st, path) ? -1 : lh_state_add(st, kind, path, val);
			free(path);
			free(val);
			if (ret) {
				corrupt(diag, name, lineno, "bad or repeated path");
				goto fail;
			}
		} else if (KW("end")) {
			if (parse_u64(arg, alen, &v) || v != st->nr) {
				corrupt(diag, name, lineno, "entry count does not match 'end'");
				goto fail;
			}
			ended = true;
		} else {
			corrupt(diag, name, lineno, "unknown keyword");
			goto fail;
		}
#undef KW
		p = nl + 1;
	}
	if (!header) {
		corrupt(diag, name, lineno ? lineno : 1, "empty or not a lathound state file");
		goto fail;
	}
	if (!ended) {
		corrupt(diag, name, lineno, "truncated (no 'end' line)");
		goto fail;
	}
	*out = st;
	return 0;
fail:
	lh_state_free(st);
	return -1;
}

/* ---- the state file ---- */

int lh_state_write_file(const struct lh_state *st, const char *path, struct lh_diag *diag)
{
	char tmp[PATH_MAX], dir[PATH_MAX], *slash, *text;
	size_t len;
	int fd, dfd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "state file path '%s' is too long", path);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");

	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot create state file in '%s': %s", dir,
			    strerror(errno));
		return -1;
	}
	text = lh_state_format(st, &len);
	if (fchmod(fd, 0644) || lh_write_fd(fd, text, len) || fsync(fd)) {
		err = errno;
		free(text);
		close(fd);
		unlink(tmp);
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot write state file '%s': %s", tmp,
			    strerror(err));
		return -1;
	}
	free(text);
	if (close(fd) || rename(tmp, path)) {
		err = errno;
		unlink(tmp);
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot write state file '%s': %s", path,
			    strerror(err));
		return -1;
	}
	/* The rename itself must reach the disk before tracefs is touched. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd)) {
		err = errno;
		if (dfd >= 0)
			close(dfd);
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot sync state directory '%s': %s", dir,
			    strerror(err));
		return -1;
	}
	close(dfd);
	return 0;
}

int lh_state_read_file(const char *path, struct lh_state **st, struct lh_diag *diag)
{
	struct buf b = { 0 };
	char chunk[4096];
	ssize_t n;
	int fd, ret;

	*st = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot open state file '%s': %s", path,
			    strerror(errno));
		return -1;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || b.len > (1u << 24)) {
			lh_diag_add(diag, LH_DIAG_ERROR, "cannot read state file '%s': %s", path,
				    n < 0 ? strerror(errno) : "larger than 16 MiB");
			close(fd);
			free(b.p);
			return -1;
		}
		buf_add(&b, chunk, n);
	}
	close(fd);
	ret = lh_state_parse(b.p ? b.p : "", b.len, path, st, diag);
	free(b.p);
	return ret ? -1 : 1;
}
