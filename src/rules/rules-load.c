// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rule files: the '[id]' sections of 'key = value' lines that lathound-rules(1) describes,
 * read into a rule set with every problem reported as "file:line:column: message". A
 * pattern is compiled once its section ends (its 'span' decides the options), and
 * JIT-compiled when possible: a JIT failure falls back to the interpreter.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "rules-priv.h"

#define RULE_FILE_MAX		(64 << 20)

static const char *const subject_names[LH_RULES_NR_SUBJ] = {
	"stack", "functions", "irq", "task", "start", "end", "blocking",
};

enum rule_key { K_MATCH, K_IN, K_TRACER, K_MIN, K_SEVERITY, K_SPAN, K_MESSAGE, NR_KEYS };

static const char *const key_names[NR_KEYS] = {
	"match", "in", "tracer", "min", "severity", "span", "message",
};

struct loader {
	struct lh_rules		*rs;
	struct lh_diag		*diag;
	const char		*file;
	size_t			file_idx;
	unsigned long		errors;

	/* the section being read */
	bool			in_section;
	bool			bad;
	bool			match_seen;
	const char		*id;		/* NULL when the header was broken */
	unsigned int		line;
	unsigned int		key_line[NR_KEYS];
	pcre2_code		*code;		/* NULL until a good 'match' */
	const char		*pattern;
	size_t			pattern_col;
	const char		*message;
	unsigned int		subjects;
	unsigned int		tracers;
	uint64_t		min_ns;
	enum lh_severity	severity;
	bool			span;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Duplicate ids */

static const struct lh_rules_id *id_find(const struct lh_rules *rs, const char *id, uint64_t h)
{
	size_t pos = 0;
	uint32_t i;

	while (lh_htab_find(&rs->id_tab, h, &pos, &i))
		if (!strcmp(rs->ids[i].id, id))
			return &rs->ids[i];
	return NULL;
}

static void id_add(struct lh_rules *rs, const char *id, uint64_t h, const char *file,
		   unsigned int line)
{
	LH_GROW(rs->ids, rs->nr_ids + 1, rs->alloc_ids);
	rs->ids[rs->nr_ids] = (struct lh_rules_id){ id, file, line };
	lh_htab_add(&rs->id_tab, h, rs->nr_ids++);
}

/* Messages */

/*
 * Rule files may be binary: messages quote their text, so control bytes and invalid UTF-8
 * are shown as \xHH rather than sent to a terminal.
 * Return: an allocated copy of s, the caller frees.
 */
static char *escape_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = lh_xmalloc(4 * strlen(s) + 1), *o = out;
	size_t n;

	while (*p) {
		if (*p >= 0x20 && *p < 0x7f) {
			*o++ = *p++;
		} else if ((n = lh_utf8_printable(p))) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			o += sprintf(o, "\\x%02x", *p++);
		}
	}
	*o = '\0';
	return out;
}

static void __attribute__((format(printf, 5, 6)))
say(struct loader *l, enum lh_diag_level level, unsigned int line, size_t col,
    const char *fmt, ...)
{
	char *msg, *esc;
	va_list ap;

	va_start(ap, fmt);
	msg = lh_xvasprintf(fmt, ap);
	va_end(ap);
	esc = escape_text(msg);
	lh_diag_add(l->diag, level, "%s:%u:%zu: %s", l->file, line, col, esc);
	free(esc);
	free(msg);
	if (level == LH_DIAG_ERROR) {
		l->errors++;
		l->bad = true;
	}
}

#define lerr(l, line, col, ...) say(l, LH_DIAG_ERROR, line, col, __VA_ARGS__)

/* Sections */

/* Compiles the 'match' value at column col: PCRE2 checks its syntax as it is read. */
static void parse_match(struct loader *l, const char *v, size_t len, size_t col,
			unsigned int line)
{
	PCRE2_SIZE off;
	int err;

	l->code = pcre2_compile((PCRE2_SPTR)v, len, 0, &err, &off, l->rs->cctx);
	if (!l->code) {
		PCRE2_UCHAR msg[256];

		if (pcre2_get_error_message(err, msg, sizeof(msg)) < 0)
			snprintf((char *)msg, sizeof(msg), "PCRE2 error %d", err);
		lerr(l, line, col + off, "%s", (char *)msg);
		return;
	}
	l->pattern = lh_arena_strndup(&l->rs->arena, v, len);
	l->pattern_col = col;
}

/*
 * Return: the section's pattern compiled for what it is matched against (a line, or with
 * PCRE2_MULTILINE a joined subject), JIT-compiled when possible; taken from l.
 */
static pcre2_code *finish_pattern(struct loader *l)
{
	pcre2_code *code = l->code;
	uint32_t crlf = 0;
	PCRE2_SIZE off;
	int err;

	l->code = NULL;
	if (l->span) {
		pcre2_code_free(code);
		code = pcre2_compile((PCRE2_SPTR)l->pattern, strlen(l->pattern), PCRE2_MULTILINE,
				     &err, &off, l->rs->cctx);
		if (!code)
			lh_oom();	/* it compiled without the option: only memory is left */
	} else if (!pcre2_pattern_info(code, PCRE2_INFO_HASCRORLF, &crlf) && crlf) {
		/* PCRE2's own reading of the pattern, not ours */
		say(l, LH_DIAG_WARNING, l->key_line[K_MATCH], l->pattern_col,
		    "rule '%s': the pattern holds a line break, which a line never does; add 'span = lines' to match across lines",
		    l->id);
	}
	/*
	 * PCRE2's JIT searches with SIMD loads that may read past the end of a subject (never
	 * past its page): harmless, but memcheck reports each one. Under valgrind, interpret.
	 */
	if (!lh_under_valgrind())
		pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
	return code;
}

/* Ends the current section: adds the rule when it had no error. */
static void section_end(struct loader *l)
{
	struct lh_rules *rs = l->rs;
	struct lh_rules_rule *r;
	uint32_t opts = 0;
	size_t jit = 0;

	if (!l->in_section)
		return;
	l->in_section = false;
	if (l->id && !l->match_seen)
		lerr(l, l->line, 1, "rule '%s' has no 'match' pattern", l->id);
	if (!l->id || !l->code || l->bad) {
		pcre2_code_free(l->code);
		l->code = NULL;
		return;
	}
	r = lh_arena_alloc(&rs->arena, sizeof(*r));
	memset(r, 0, sizeof(*r));
	r->pub = (struct lh_rule){
		.id = l->id,
		.pattern = l->pattern,
		.message = l->message,
		.file = l->file,
		.line = l->line,
		.subjects = l->subjects ? l->subjects : LH_SUBJ_ALL,
		.tracers = l->tracers,
		.min_ns = l->min_ns,
		.severity = l->severity,
		.span = l->span,
	};
	r->code = finish_pattern(l);
	rs->stats.jit += !pcre2_pattern_info(r->code, PCRE2_INFO_JITSIZE, &jit) && jit;
	/*
	 * pcre2_jit_match() where the JIT code is known to be there; it skips the UTF check,
	 * so a (*UTF) pattern, whose subject may be invalid UTF-8, goes through pcre2_match().
	 */
	r->jit = jit && !pcre2_pattern_info(r->code, PCRE2_INFO_ALLOPTIONS, &opts) &&
		 !(opts & PCRE2_UTF);
	LH_GROW(rs->rules, rs->nr + 1, rs->alloc);
	rs->rules[rs->nr++] = r;
	rs->files[l->file_idx].nr_rules++;
}

static void section_begin(struct loader *l, unsigned int line)
{
	section_end(l);
	l->in_section = true;
	l->bad = false;
	l->match_seen = false;
	l->id = NULL;
	l->line = line;
	memset(l->key_line, 0, sizeof(l->key_line));
	l->code = NULL;
	l->pattern = l->message = NULL;
	l->subjects = l->tracers = 0;
	l->min_ns = 0;
	l->severity = LH_SEV_WARNING;
	l->span = false;
}

/* '[id]' at s[i]; line is s[0..len). */
static void parse_header(struct loader *l, const char *s, size_t len, size_t i,
			 unsigned int line)
{
	const char *close = memchr(s + i, ']', len - i);
	const struct lh_rules_id *dup;
	size_t j, idlen;
	char *id;
	uint64_t h;

	section_begin(l, line);
	if (!close) {
		lerr(l, line, i + 1, "unterminated section header (expected '[id]')");
		return;
	}
	for (j = close - s + 1; j < len && is_blank(s[j]); j++)
		;
	if (j < len && s[j] != '#')
		lerr(l, line, j + 1, "unexpected text after section header '[%.*s]'",
		     (int)(close - s - i - 1), s + i + 1);
	idlen = close - s - i - 1;
	if (!idlen) {
		lerr(l, line, i + 2, "empty rule id");
		return;
	}
	for (j = 0; j < idlen; j++) {
		unsigned char c = s[i + 1 + j];

		if (!is_alnum(c) && c != '-' && c != '_' && c != '.') {
			lerr(l, line, i + 2 + j,
			     "invalid character '%c' in rule id '%.*s' (use letters, digits, '-', '_' and '.')",
			     c >= 0x20 && c < 0x7f ? c : '?', (int)idlen, s + i + 1);
			return;
		}
	}
	id = lh_arena_strndup(&l->rs->arena, s + i + 1, idlen);
	h = lh_hash_fast(id, idlen, 0);
	dup = id_find(l->rs, id, h);
	if (dup) {
		lerr(l, line, i + 2, "duplicate rule id '%s' (first defined at %s:%u)", id,
		     dup->file, dup->line);
		return;
	}
	id_add(l->rs, id, h, l->file, line);
	l->id = id;
}

/* Splits v[0..len) at blanks and commas; calls fn on each word with its offset. */
static void each_word(struct loader *l, const char *v, size_t len, size_t col0,
		      unsigned int line, void (*fn)(struct loader *, const char *, size_t,
						    size_t, unsigned int))
{
	size_t i = 0, j;

	while (i < len) {
		while (i < len && (is_blank(v[i]) || v[i] == ','))
			i++;
		for (j = i; j < len && !is_blank(v[j]) && v[j] != ','; j++)
			;
		if (j > i)
			fn(l, v + i, j - i, col0 + i, line);
		i = j;
	}
}

static void add_subject(struct loader *l, const char *w, size_t n, size_t col,
			unsigned int line)
{
	int i;

	for (i = 0; i < LH_RULES_NR_SUBJ; i++) {
		if (strlen(subject_names[i]) == n && !memcmp(subject_names[i], w, n)) {
			l->subjects |= 1U << i;
			return;
		}
	}
	lerr(l, line, col,
	     "unknown subject '%.*s' (use stack, functions, irq, task, blocking, start or end)", (int)n, w);
}

static void add_tracer(struct loader *l, const char *w, size_t n, size_t col,
		       unsigned int line)
{
	enum lh_tracer t = lh_tracer_from_name(w, n);

	if (t == LH_TRACER_UNKNOWN) {
		lerr(l, line, col,
		     "unknown tracer '%.*s' (use irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt or wakeup_dl)",
		     (int)n, w);
		return;
	}
	l->tracers |= 1U << t;
}

/* Return: key k named by s[0..n), or NR_KEYS. */
static int find_key(const char *s, size_t n)
{
	int k;

	for (k = 0; k < NR_KEYS; k++)
		if (strlen(key_names[k]) == n && !memcmp(key_names[k], s, n))
			break;
	return k;
}

/* A 'key = value' line; i is the key's offset. */
static void parse_key(struct loader *l, const char *s, size_t len, size_t i,
		      unsigned int line)
{
	const char *eq = memchr(s + i, '=', len - i);
	size_t klen, v, vend, j;
	enum lh_severity sev;
	const char *err;
	char *copy;
	int k;

	if (!eq) {
		for (klen = 0; i + klen < len && !is_blank(s[i + klen]); klen++)
			;
		k = find_key(s + i, klen);
		if (k == NR_KEYS) {
			lerr(l, line, i + 1, "expected 'key = value' or '[id]'");
			return;
		}
		if (k == K_MATCH)
			l->match_seen = true;
		lerr(l, line, i + klen + 1, "expected '=' after '%s'", key_names[k]);
		return;
	}
	for (klen = eq - s - i; klen && is_blank(s[i + klen - 1]); klen--)
		;
	if (!l->in_section) {
		lerr(l, line, i + 1, "'%.*s' outside a rule section (start one with '[id]')",
		     (int)klen, s + i);
		return;
	}
	k = find_key(s + i, klen);
	if (k == NR_KEYS) {
		lerr(l, line, i + 1,
		     "unknown key '%.*s' (use match, in, tracer, min, severity, span or message)",
		     (int)klen, s + i);
		return;
	}
	if (l->key_line[k]) {
		lerr(l, line, i + 1, "duplicate key '%s' (first at line %u)", key_names[k],
		     l->key_line[k]);
		return;
	}
	l->key_line[k] = line;
	if (k == K_MATCH)
		l->match_seen = true;
	for (v = eq - s + 1; v < len && is_blank(s[v]); v++)
		;
	vend = len;
	if (k != K_MATCH) {
		/* A '#' that starts the value or follows a blank begins a comment. */
		for (j = v; j < len; j++) {
			if (s[j] == '#' && (j == v || is_blank(s[j - 1]))) {
				vend = j;
				break;
			}
		}
	}
	while (vend > v && is_blank(s[vend - 1]))
		vend--;
	if (vend == v) {
		lerr(l, line, v + 1, "empty value for '%s'", key_names[k]);
		return;
	}
	copy = lh_arena_strndup(&l->rs->arena, s + v, vend - v);
	switch (k) {
	case K_MATCH:
		parse_match(l, copy, vend - v, v + 1, line);
		break;
	case K_IN:
		each_word(l, s + v, vend - v, v + 1, line, add_subject);
		break;
	case K_TRACER:
		each_word(l, s + v, vend - v, v + 1, line, add_tracer);
		break;
	case K_MIN:
		if (lh_budget_parse(copy, &l->min_ns, &err))
			lerr(l, line, v + 1, "invalid duration '%s' for 'min': %s", copy, err);
		break;
	case K_SEVERITY:
		if (lh_severity_parse(copy, &sev))
			lerr(l, line, v + 1,
			     "unknown severity '%s' (use info, warning, critical or ignore)", copy);
		else
			l->severity = sev;
		break;
	case K_SPAN:
		if (!strcmp(copy, "lines"))
			l->span = true;
		else if (strcmp(copy, "line"))
			lerr(l, line, v + 1, "unknown span '%s' (use line or lines)", copy);
		break;
	case K_MESSAGE:
		l->message = copy;
		break;
	}
}

int lh_rules_load_buffer(struct lh_rules *rs, const char *file, const char *buf, size_t len,
			 struct lh_diag *diag)
{
	struct loader l = { .rs = rs, .diag = diag };
	unsigned int line = 0;
	size_t pos = 0;

	lh_rules_unprepare(rs);
	l.file = lh_arena_strdup(&rs->arena, file);
	LH_GROW(rs->files, rs->nr_files + 1, rs->alloc_files);
	rs->files[rs->nr_files] = (struct lh_rules_file){ l.file, 0 };
	l.file_idx = rs->nr_files++;

	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos, i;
		const char *nul;

		pos += n + (nl != NULL);
		line++;
		for (i = 0; i < n && is_blank(s[i]); i++)
			;
		if (i == n || s[i] == '#')
			continue;
		nul = memchr(s, '\0', n);
		if (nul) {
			lerr(&l, line, nul - s + 1, "NUL byte in rule file");
			continue;
		}
		if (s[i] == '[')
			parse_header(&l, s, n, i, line);
		else
			parse_key(&l, s, n, i, line);
	}
	section_end(&l);
	return l.errors ? -1 : 0;
}

size_t lh_rules_add_described(struct lh_rules *rs, const struct lh_rule *desc)
{
	struct lh_rules_rule *r = lh_arena_alloc(&rs->arena, sizeof(*r));

	lh_rules_unprepare(rs);
	memset(r, 0, sizeof(*r));
	r->pub = (struct lh_rule){
		.id = lh_arena_strdup(&rs->arena, desc->id ? desc->id : ""),
		.message = desc->message ? lh_arena_strdup(&rs->arena, desc->message) : NULL,
		.file = desc->file ? lh_arena_strdup(&rs->arena, desc->file) : NULL,
		.line = desc->line,
		.tracers = desc->tracers,
		.min_ns = desc->min_ns,
		.severity = desc->severity,
		.limit_hit = desc->limit_hit ? lh_arena_strdup(&rs->arena, desc->limit_hit) : NULL,
	};
	LH_GROW(rs->rules, rs->nr + 1, rs->alloc);
	rs->rules[rs->nr] = r;
	return rs->nr++;
}

/* Files and directories */

/*
 * Loads the rule file at name, relative to dirfd (AT_FDCWD for a path as given). Opened
 * non-blocking, so that a FIFO is refused rather than waited on; in a directory
 * (nofollow), a symbolic link is refused too.
 */
static int load_file(struct lh_rules *rs, int dirfd, const char *name, const char *path,
		     bool nofollow, struct lh_diag *diag)
{
	const char *why = NULL;
	size_t len = 0, alloc = 0;
	char *buf = NULL;
	struct stat st;
	int fd, ret;

	fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0 && errno == ELOOP && nofollow) {
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "cannot open rule file '%s': a symbolic link in a rule directory", path);
		return -1;
	}
	if (fd < 0) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot open rule file '%s': %s", path,
			    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st))
		why = strerror(errno);
	else if (S_ISDIR(st.st_mode))
		why = strerror(EISDIR);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	if (why) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot read rule file '%s': %s", path, why);
		close(fd);
		return -1;
	}
	if (lh_read_fd(fd, &buf, &alloc, &len, RULE_FILE_MAX)) {
		if (errno == EFBIG)
			lh_diag_add(diag, LH_DIAG_ERROR, "rule file '%s' is larger than %d MiB",
				    path, RULE_FILE_MAX >> 20);
		else
			lh_diag_add(diag, LH_DIAG_ERROR, "cannot read rule file '%s': %s", path,
				    strerror(errno));
		free(buf);
		close(fd);
		return -1;
	}
	close(fd);
	ret = lh_rules_load_buffer(rs, path, buf, len, diag);
	free(buf);
	return ret;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(struct lh_rules *rs, const char *path, struct lh_diag *diag)
{
	size_t nr = 0, alloc = 0, i, plen = strlen(path);
	const char *sep = plen && path[plen - 1] == '/' ? "" : "/";
	char **names = NULL;
	struct dirent *de;
	int ret = 0;
	DIR *d;

	d = opendir(path);
	if (!d) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot open rule directory '%s': %s", path,
			    strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (de->d_name[0] == '.' || n <= 6 || strcmp(de->d_name + n - 6, ".rules"))
			continue;
		LH_GROW(names, nr + 1, alloc);
		names[nr++] = lh_xstrdup(de->d_name);
	}
	if (!nr) {
		closedir(d);
		lh_diag_add(diag, LH_DIAG_ERROR, "no rule files (*.rules) in '%s'", path);
		return -1;
	}
	qsort(names, nr, sizeof(*names), cmp_names);
	for (i = 0; i < nr; i++) {
		char *full = lh_xasprintf("%s%s%s", path, sep, names[i]);

		if (load_file(rs, dirfd(d), names[i], full, true, diag))
			ret = -1;
		free(full);
		free(names[i]);
	}
	closedir(d);
	free(names);
	return ret;
}

int lh_rules_load(struct lh_rules *rs, const char *path, struct lh_diag *diag)
{
	struct stat st;

	if (stat(path, &st)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot open rule file '%s': %s", path,
			    strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return load_dir(rs, path, diag);
	return load_file(rs, AT_FDCWD, path, path, false, diag);
}
