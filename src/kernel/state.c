// SPDX-License-Identifier: GPL-2.0-only
/*
 * Saved tracefs knobs: the list, its state-file text (format and parse are pure), the
 * atomic state-file write, and the ordered restore through libtracefs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <json-c/json.h>
#include <tracefs.h>

#include "state.h"
#include "util/lockfile.h"

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

int lh_state_instance_remove(struct tracefs_instance *inst, const char *name)
{
	const struct timespec pause = { .tv_nsec = 10 * 1000 * 1000 };
	char path[PATH_MAX];
	int e, tries;

	/*
	 * The kernel refuses the rmdir (EBUSY) while any file of the instance is open, also by
	 * someone else (a script that reads its current_tracer or per_cpu stats, as
	 * bench/vm-rtla.sh's poller does): such a reader is gone within milliseconds.
	 */
	for (tries = 0; tries < 50; tries++) {
		if (!tracefs_instance_destroy(inst))
			return 0;
		if (errno != EBUSY)
			break;
		nanosleep(&pause, NULL);
	}
	e = errno;
	snprintf(path, sizeof(path), "instances/%s", name);
	if (!lh_state_knob_exists(path))
		return 0;
	errno = e;
	return -1;
}

struct tracefs_instance *lh_state_instance_create(const char *name, struct lh_diag *diag)
{
	struct tracefs_instance *inst;

	if (tracefs_instance_exists(name)) {
		/* Left by an earlier process with our pid: not ours to keep. */
		inst = tracefs_instance_alloc(NULL, name);
		if (inst) {
			tracefs_instance_destroy(inst);
			tracefs_instance_free(inst);
		}
	}
	inst = tracefs_instance_create(name);
	if (!inst) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot create tracefs instance '%s': %s", name,
			    strerror(errno));
		return NULL;
	}
	/* Off while it is set up. */
	if (tracefs_trace_off(inst)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot stop tracing in instance '%s': %s", name,
			    strerror(errno));
		lh_state_instance_destroy(inst, name, diag);
		return NULL;
	}
	return inst;
}

int lh_state_instance_destroy(struct tracefs_instance *inst, const char *name,
			      struct lh_diag *diag)
{
	int ret = 0;

	if (!inst)
		return 0;
	if (lh_state_instance_remove(inst, name)) {
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "cannot remove tracefs instance '%s': %s (remove it with 'lathound reset')",
			    name, strerror(errno));
		ret = -1;
	}
	tracefs_instance_free(inst);
	return ret;
}

int lh_state_name_pid(const char *name, const char *prefix, char term)
{
	const char *d = name + strlen(prefix);
	size_t n;

	if (strncmp(name, prefix, strlen(prefix)))
		return 0;
	n = strspn(d, "0123456789");
	if (!n || n > 9 || d[n] != term)
		return 0;
	return atoi(d);
}

int lh_state_remove_stale_instances(const char *prefix, int (*remove)(const char *name),
				    struct lh_diag *diag)
{
	const char *top = tracefs_tracing_dir();
	int removed = 0, failed = 0, pid;
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	if (!top)
		return 0;
	/* Listed by hand: tracefs_instances() of libtracefs 1.6 leaks its regex. */
	snprintf(path, sizeof(path), "%s/instances", top);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		pid = lh_state_name_pid(de->d_name, prefix, '\0');
		if (!pid || lh_pid_is_lathound(pid))
			continue;
		if (remove(de->d_name)) {
			lh_diag_add(diag, LH_DIAG_WARNING,
				    "cannot remove tracefs instance '%s' left by a killed run: %s",
				    de->d_name, strerror(errno));
			failed++;
		} else {
			removed++;
		}
	}
	closedir(dir);
	return failed ? -1 : removed;
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

/*
 * osnoise/options reads as a list of words ("DEFAULTS OSNOISE_WORKLOAD NO_PANIC_ON_STOP...")
 * but takes one word a write: each is written back in turn, DEFAULTS (a reset) first.
 */
static int restore_words(const struct lh_state_entry *e, struct lh_diag *diag)
{
	const char *p = e->value;
	char word[128];
	int ret = 0;

	while (*p) {
		size_t n;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (!n)
			break;
		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		p += n;
		if (write_knob(e->path, word)) {
			lh_diag_add(diag, LH_DIAG_ERROR, "cannot restore '%s' to '%s': %s", e->path,
				    word, strerror(errno));
			ret = -1;
		}
	}
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
	if (!strcmp(e->path, "osnoise/options"))
		return restore_words(e, diag);
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

/* ---- the state file's text: JSON ---- */

#define FORMAT_NAME	"lathound-state"

static const char *const kind_names[] = {
	[LH_STATE_VALUE]	= "value",
	[LH_STATE_LIST]		= "list",
	[LH_STATE_KPROBE]	= "kprobe",
};

/* json-c returns NULL when out of memory: a state file must never lose a value to that. */
static json_object *jnew(json_object *o)
{
	if (!o)
		lh_oom();
	return o;
}

static void jadd(json_object *o, const char *key, json_object *v)
{
	if (json_object_object_add(o, key, jnew(v)))
		lh_oom();
}

char *lh_state_format(const struct lh_state *st, size_t *len)
{
	json_object *root = jnew(json_object_new_object());
	json_object *entries = jnew(json_object_new_array());
	const char *text;
	char *out;
	size_t i;

	jadd(root, "format", json_object_new_string(FORMAT_NAME));
	jadd(root, "version", json_object_new_int(LH_STATE_VERSION));
	jadd(root, "about", json_object_new_string(
		"tracefs knobs as they were before lathound changed them ('lathound reset' restores them)"));
	jadd(root, "pid", json_object_new_int64(st->pid));
	jadd(root, "started_ns", json_object_new_uint64(st->started_ns));
	jadd(root, "tracing_dir", json_object_new_string(st->tracing_dir ? st->tracing_dir : ""));
	for (i = 0; i < st->nr; i++) {
		const struct lh_state_entry *e = &st->entries[i];
		json_object *o = jnew(json_object_new_object());

		jadd(o, "kind", json_object_new_string(kind_names[e->kind]));
		jadd(o, "path", json_object_new_string(e->path));
		jadd(o, "value", json_object_new_string(e->value));
		if (json_object_array_add(entries, o))
			lh_oom();
	}
	jadd(root, "entries", entries);
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		lh_oom();
	out = lh_xasprintf("%s\n", text);
	json_object_put(root);
	if (len)
		*len = strlen(out);
	return out;
}

static int corrupt(struct lh_diag *diag, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int corrupt(struct lh_diag *diag, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *why;

	va_start(ap, fmt);
	why = lh_xvasprintf(fmt, ap);
	va_end(ap);
	lh_diag_add(diag, LH_DIAG_ERROR, "corrupt state file '%s': %s", name, why);
	free(why);
	return -1;
}

/* Return: the string member key of o (NUL-free, borrowed from o), or NULL. */
static const char *get_string(json_object *o, const char *key)
{
	json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	return strlen(s) == (size_t)json_object_get_string_len(v) ? s : NULL;
}

/* Return: the integer member key of o in *v, 0; or -1 when it is missing or not one. */
static int get_int(json_object *o, const char *key, int64_t *v)
{
	json_object *j;

	if (!json_object_object_get_ex(o, key, &j) || !json_object_is_type(j, json_type_int))
		return -1;
	errno = 0;
	*v = json_object_get_int64(j);
	return errno ? -1 : 0;
}

/* Return: the first member of o not in keys (NULL-terminated), or NULL. */
static const char *unknown_key(json_object *o, const char *const *keys)
{
	size_t i;

	json_object_object_foreach(o, key, val) {
		(void)val;
		for (i = 0; keys[i] && strcmp(keys[i], key); i++)
			;
		if (!keys[i])
			return key;
	}
	return NULL;
}

static int parse_entry(struct lh_state *st, json_object *e, size_t i, const char *name,
		       struct lh_diag *diag)
{
	static const char *const keys[] = { "kind", "path", "value", NULL };
	const char *kind, *path, *value, *bad;
	unsigned int k;

	if (!json_object_is_type(e, json_type_object))
		return corrupt(diag, name, "entry %zu is not an object", i + 1);
	bad = unknown_key(e, keys);
	if (bad)
		return corrupt(diag, name, "entry %zu: unknown key '%s'", i + 1, bad);
	kind = get_string(e, "kind");
	path = get_string(e, "path");
	value = get_string(e, "value");
	if (!kind || !path || !value)
		return corrupt(diag, name, "entry %zu: 'kind', 'path' and 'value' must be strings",
			       i + 1);
	for (k = 0; k < LH_ARRAY_SIZE(kind_names) && strcmp(kind, kind_names[k]); k++)
		;
	if (k == LH_ARRAY_SIZE(kind_names))
		return corrupt(diag, name, "entry %zu: unknown kind '%s'", i + 1, kind);
	if (lh_state_find(st, path) || lh_state_add(st, k, path, value))
		return corrupt(diag, name, "entry %zu: bad or repeated path", i + 1);
	return 0;
}

/* Fills st from the parsed root object. Return: 0, or -1 with the reason in diag. */
static int parse_root(struct lh_state *st, json_object *root, const char *name,
		      struct lh_diag *diag)
{
	static const char *const keys[] = {
		"format", "version", "about", "pid", "started_ns", "tracing_dir", "entries", NULL,
	};
	json_object *entries, *started;
	const char *s, *bad;
	int64_t v;
	size_t i;

	s = json_object_is_type(root, json_type_object) ? get_string(root, "format") : NULL;
	if (!s || strcmp(s, FORMAT_NAME))
		return corrupt(diag, name, "not a lathound state file (no \"format\": \"%s\")",
			       FORMAT_NAME);
	if (get_int(root, "version", &v))
		return corrupt(diag, name, "no version");
	if (v != LH_STATE_VERSION) {
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "state file '%s' has version %lld, and this lathound reads version %d only",
			    name, (long long)v, LH_STATE_VERSION);
		return -1;
	}
	bad = unknown_key(root, keys);
	if (bad)
		return corrupt(diag, name, "unknown key '%s'", bad);
	if (get_int(root, "pid", &v) || v <= 0 || v > INT_MAX)
		return corrupt(diag, name, "bad pid");
	st->pid = (pid_t)v;
	if (!json_object_object_get_ex(root, "started_ns", &started) ||
	    !json_object_is_type(started, json_type_int))
		return corrupt(diag, name, "bad start time");
	/* json-c keeps a negative number as int64, one past INT64_MAX as uint64. */
	if (json_object_get_int64(started) < 0)
		return corrupt(diag, name, "bad start time");
	st->started_ns = json_object_get_uint64(started);
	s = get_string(root, "tracing_dir");
	if (!s || s[0] != '/')
		return corrupt(diag, name, "no tracing_dir (an absolute path)");
	st->tracing_dir = lh_xstrdup(s);
	if (!json_object_object_get_ex(root, "entries", &entries) ||
	    !json_object_is_type(entries, json_type_array))
		return corrupt(diag, name, "no entries");
	for (i = 0; i < json_object_array_length(entries); i++)
		if (parse_entry(st, json_object_array_get_idx(entries, i), i, name, diag))
			return -1;
	return 0;
}

int lh_state_parse(const char *buf, size_t len, const char *name, struct lh_state **out,
		   struct lh_diag *diag)
{
	struct lh_state *st = lh_xcalloc(1, sizeof(*st));
	enum json_tokener_error jerr;
	json_object *root = NULL;
	json_tokener *tok;
	size_t end;
	int ret = -1;

	*out = NULL;
	if (memchr(buf, '\0', len)) {
		corrupt(diag, name, "binary data (NUL byte)");
		goto out;
	}
	/* Version 1 was a text format: "lathound-state 1" on its first line. */
	if (len >= strlen(FORMAT_NAME) + 1 && !memcmp(buf, FORMAT_NAME " ", strlen(FORMAT_NAME) + 1)) {
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "state file '%s' is in the text format of an older lathound (version 1), and this lathound reads version %d only",
			    name, LH_STATE_VERSION);
		goto out;
	}
	tok = json_tokener_new_ex(8);
	if (!tok)
		lh_oom();
	/* Strict: no trailing text, no single quotes or bare words. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, buf, (int)(len > INT_MAX ? INT_MAX : len));
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (jerr == json_tokener_continue || (!root && !len)) {
		corrupt(diag, name, "truncated (the JSON text ends early)");
		goto out;
	}
	if (!root) {
		corrupt(diag, name, "not JSON: %s at byte %zu", json_tokener_error_desc(jerr), end);
		goto out;
	}
	ret = parse_root(st, root, name, diag);
out:
	json_object_put(root);
	if (ret)
		lh_state_free(st);
	else
		*out = st;
	return ret;
}

/* ---- the state file ---- */

int lh_state_write_file(const struct lh_state *st, int dfd, const char *name, const char *path,
			struct lh_diag *diag)
{
	char *text, *label;
	size_t len;
	int ret;

	if (!st->tracing_dir || st->tracing_dir[0] != '/') {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot write state file '%s': no tracing directory",
			    path);
		errno = EINVAL;
		return -1;
	}
	text = lh_state_format(st, &len);
	label = lh_xasprintf("state file '%s'", path);
	ret = lh_lockfile_write_buf(dfd, name, label, text, len, diag);
	free(label);
	free(text);
	return ret;
}

int lh_state_read_file(int dfd, const char *name, const char *path, struct lh_state **st,
		       struct lh_diag *diag)
{
	size_t alloc = 0, len;
	char *buf = NULL;
	int fd, ret;

	*st = NULL;
	/* Non-blocking: a FIFO planted there must not hang lathound. */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == ELOOP)
			lh_diag_add(diag, LH_DIAG_ERROR,
				    "refusing state file '%s': it is a symbolic link", path);
		else
			lh_diag_add(diag, LH_DIAG_ERROR, "cannot open state file '%s': %s", path,
				    strerror(errno));
		return -1;
	}
	/* Its values are written into tracefs as root: only root may have chosen them. */
	ret = lh_check_trusted(fd, false, "state file", path, diag);
	if (!ret && lh_read_fd(fd, &buf, &alloc, &len, 1u << 24)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot read state file '%s': %s", path,
			    errno == EFBIG ? "larger than 16 MiB" : strerror(errno));
		ret = -1;
	}
	if (!ret)
		ret = lh_state_parse(buf, len, path, st, diag) ? -1 : 1;
	close(fd);
	free(buf);
	return ret;
}
