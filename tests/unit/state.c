// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the borrowed-state layer (src/kernel/state.c, src/kernel/session.c) against a fake
 * tracefs tree built in a temporary directory, pointed at with tracefs_set_tracing_dir():
 * the state file's text, save/restore, and a whole session leaving every file as found.
 * No root needed.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <json-c/json.h>
#include <tracefs.h>

#include "util/lockfile.h"
#include "kernel/session.h"
#include "kernel/state.h"
#include "check-main.h"
#include "test-dir.h"
#include "fake-tracefs.h"

static struct lh_diag diag;

/* ---- the fake tree ---- */

/* Return: the content of a file (malloc'd), or NULL when it does not exist. */
static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	FILE *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

static char *get(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	return slurp(path);
}

static bool file_has(const char *rel, const char *want)
{
	char *c = get(rel);
	bool ok = c && !strcmp(c, want);

	free(c);
	return ok;
}

#define ck_file(rel, want) do {							\
	char *got_ = get(rel);							\
	ck_assert_msg(got_ && !strcmp(got_, (want)), "%s is '%s', expected '%s'",	\
		      (rel), got_ ? got_ : "(missing)", (want));		\
	free(got_);								\
} while (0)

static const char *const options[][2] = {
	{ "function-trace", "1\n" }, { "display-graph", "0\n" }, { "irq-info", "1\n" },
	{ "context-info", "1\n" }, { "print-parent", "1\n" }, { "sym-offset", "0\n" },
	{ "sym-addr", "0\n" }, { "raw", "0\n" }, { "hex", "0\n" }, { "bin", "0\n" },
	{ "verbose", "1\n" }, { "stacktrace", "1\n" }, { "userstacktrace", "0\n" },
	{ "record-cmd", "1\n" }, { "pause-on-trace", "0\n" }, { "latency-format", "0\n" },
	{ "overwrite", "1\n" },
};

static void make_tree(const char *tracers)
{
	char path[256];
	size_t i;

	put("available_tracers", tracers);
	put("current_tracer", "nop\n");
	put("tracing_on", "1\n");
	put("tracing_thresh", "0\n");
	put("tracing_max_latency", "0\n");
	put("buffer_size_kb", "1408\n");
	put("trace", "# tracer: nop\n#\n");
	put("set_event", "");
	put("set_ftrace_filter", "schedule\n");
	put("set_ftrace_notrace", "");
	put("available_filter_functions", "schedule\nvfs_read\nvfs_write\ndo_idle\n");
	put("error_log", "");
	for (i = 0; i < LH_ARRAY_SIZE(options); i++) {
		snprintf(path, sizeof(path), "options/%s", options[i][0]);
		put(path, options[i][1]);
	}
	put("events/enable", "0\n");
	put("events/irq/enable", "0\n");
	put("events/irq/irq_handler_entry/enable", "0\n");
	put("events/irq/irq_handler_entry/format", "name: irq_handler_entry\n");
	put("events/irq/irq_handler_exit/enable", "0\n");
	put("events/irq/irq_handler_exit/format", "name: irq_handler_exit\n");
	put("events/sched/enable", "0\n");
	put("events/sched/sched_waking/enable", "0\n");
}

/* Every file of the tree as "path=content" records, in a stable order. */
struct snap {
	char	**items;
	size_t	nr;
};

static struct snap *walk_snap;
static const char *walk_skip;

static int walk_fn(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	char *c, *item;

	if (flag != FTW_F)
		return 0;
	if (walk_skip && !strcmp(path + strlen(tree) + 1, walk_skip))
		return 0;
	c = slurp(path);
	if (asprintf(&item, "%s=%s", path + strlen(tree) + 1, c ? c : "(unreadable)") < 0)
		abort();
	free(c);
	walk_snap->items = realloc(walk_snap->items, (walk_snap->nr + 1) * sizeof(char *));
	walk_snap->items[walk_snap->nr++] = item;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct snap *snapshot(const char *skip)
{
	struct snap *s = calloc(1, sizeof(*s));

	walk_snap = s;
	walk_skip = skip;
	nftw(tree, walk_fn, 16, FTW_PHYS);
	qsort(s->items, s->nr, sizeof(char *), cmp_str);
	return s;
}

static void snap_free(struct snap *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->items[i]);
	free(s->items);
	free(s);
}

/* Asserts that the tree is byte-identical to before (but for skip). */
static void ck_unchanged(struct snap *before, const char *skip)
{
	struct snap *after = snapshot(skip);
	size_t i;

	ck_assert_uint_eq(after->nr, before->nr);
	for (i = 0; i < before->nr; i++)
		ck_assert_msg(!strcmp(before->items[i], after->items[i]),
			      "tracefs changed: before '%s', after '%s'", before->items[i],
			      after->items[i]);
	snap_free(after);
}

static bool diag_has(const char *needle)
{
	size_t i;

	for (i = 0; i < diag.nr; i++)
		if (strstr(diag.msgs[i].text, needle))
			return true;
	return false;
}

static void dump_diag(void)
{
	size_t i;

	for (i = 0; i < diag.nr; i++)
		fprintf(stderr, "#   diag: %s\n", diag.msgs[i].text);
}

#define ck_diag(needle) do {						\
	if (!diag_has(needle))						\
		dump_diag();						\
	ck_assert_msg(diag_has(needle), "no diagnostic '%s'", (needle));	\
} while (0)

static bool exists(const char *path)
{
	return !access(path, F_OK);
}

static char state_file[200];

static void setup(void)
{
	fake_tracefs_create("state");
	snprintf(state_file, sizeof(state_file), "%s/%s", sdir, LH_STATE_FILE);
	make_tree(ALL_TRACERS);
	fake_tracefs_use();
	memset(&diag, 0, sizeof(diag));
}

static void teardown(void)
{
	lh_diag_release(&diag);
	fake_tracefs_destroy();
}

static struct lh_session_opts base_opts(void)
{
	struct lh_session_opts o = {
		.tracers = 1u << LH_TRACER_IRQSOFF | 1u << LH_TRACER_WAKEUP_RT,
		.threshold_ns = 1500,
		.irq_events = true,
		.state_dir = sdir,
	};

	return o;
}

/* ---- the state file's text ---- */

START_TEST(format_parse_roundtrip)
{
	struct lh_state *st = lh_state_alloc(), *back = NULL;
	const char *odd = "a\\b\tc\nd\x01" "e\x7f" "f \xc3\xa9\n";
	json_object *root, *v;
	char *text;
	size_t len, i;

	st->pid = 4242;
	st->started_ns = 1764439200123456789ull;
	st->tracing_dir = strdup("/sys/kernel/tracing");
	ck_assert_int_eq(lh_state_add(st, LH_STATE_VALUE, "tracing_on", "1\n"), 0);
	ck_assert_int_eq(lh_state_add(st, LH_STATE_VALUE, "current_tracer", "nop\n"), 0);
	ck_assert_int_eq(lh_state_add(st, LH_STATE_VALUE, "tracing_thresh", ""), 0);
	ck_assert_int_eq(lh_state_add(st, LH_STATE_LIST, "set_ftrace_filter", odd), 0);
	ck_assert_int_eq(lh_state_add(st, LH_STATE_KPROBE, "lathound/x", "p:lathound/x x $arg1"), 0);
	/* The first value saved wins: it is the one from before lathound touched it. */
	ck_assert_int_eq(lh_state_add(st, LH_STATE_VALUE, "tracing_on", "0\n"), 0);
	ck_assert_int_eq(lh_state_add(st, LH_STATE_VALUE, "/abs", "x"), -1);
	ck_assert_int_eq(lh_state_add(st, LH_STATE_VALUE, "../up", "x"), -1);
	ck_assert_int_eq(lh_state_add(st, LH_STATE_VALUE, "with space", "x"), -1);

	text = lh_state_format(st, &len);
	ck_assert_uint_eq(strlen(text), len);
	/* JSON that json-c reads back on its own: a format name, a version, the entries */
	root = json_tokener_parse(text);
	ck_assert_ptr_nonnull(root);
	ck_assert(json_object_object_get_ex(root, "format", &v));
	ck_assert_str_eq(json_object_get_string(v), "lathound-state");
	ck_assert(json_object_object_get_ex(root, "version", &v));
	ck_assert_int_eq(json_object_get_int(v), 2);
	ck_assert(json_object_object_get_ex(root, "entries", &v));
	ck_assert_uint_eq(json_object_array_length(v), 5);
	v = json_object_array_get_idx(v, 3);
	ck_assert(json_object_object_get_ex(v, "value", &v));
	ck_assert_str_eq(json_object_get_string(v), odd);
	json_object_put(root);

	ck_assert_int_eq(lh_state_parse(text, len, "t", &back, &diag), 0);
	ck_assert_int_eq(back->pid, 4242);
	ck_assert(back->started_ns == 1764439200123456789ull);
	ck_assert_str_eq(back->tracing_dir, "/sys/kernel/tracing");
	ck_assert_uint_eq(back->nr, st->nr);
	for (i = 0; i < st->nr; i++) {
		ck_assert_int_eq(back->entries[i].kind, st->entries[i].kind);
		ck_assert_str_eq(back->entries[i].path, st->entries[i].path);
		ck_assert_str_eq(back->entries[i].value, st->entries[i].value);
	}
	ck_assert_str_eq(lh_state_find(back, "tracing_on")->value, "1\n");
	free(text);
	lh_state_free(st);
	lh_state_free(back);
}
END_TEST

#define HEAD	"{\"format\":\"lathound-state\",\"version\":2,\"pid\":12,\"started_ns\":1,"
#define TDIR	"\"tracing_dir\":\"/sys/kernel/tracing\","
#define ENTRY(k, p, v)	"{\"kind\":\"" k "\",\"path\":\"" p "\",\"value\":\"" v "\"}"

static const struct {
	const char	*text;
	const char	*msg;
} corrupt_cases[] = {
	{ "", "corrupt state file '/run/lathound/state': truncated" },
	{ HEAD TDIR "\"entries\":[" ENTRY("value", "tracing_on", "1\\n"),
	  "corrupt state file '/run/lathound/state': truncated" },
	{ "{}", "corrupt state file '/run/lathound/state': not a lathound state file" },
	{ "[1, 2]", "corrupt state file '/run/lathound/state': not a lathound state file" },
	{ "{\"format\":\"other\",\"version\":2}", "not a lathound state file" },
	{ "{'format':'lathound-state'}", "corrupt state file '/run/lathound/state': not JSON" },
	{ "{\"format\":\"lathound-state\"}", "corrupt state file '/run/lathound/state': no version" },
	{ "{\"format\":\"lathound-state\",\"version\":3,\"future\":1}",
	  "state file '/run/lathound/state' has version 3, and this lathound reads version 2 only" },
	{ "lathound-state 1\npid 12\nvalue tracing_on 1\\n\nend 1\n",
	  "state file '/run/lathound/state' is in the text format of an older lathound (version 1), and this lathound reads version 2 only" },
	{ HEAD TDIR "\"entries\":[]} x", "not JSON: unexpected character at byte" },
	{ HEAD TDIR "\"entries\":[],\"extra\":1}", "unknown key 'extra'" },
	{ "{\"format\":\"lathound-state\",\"version\":2,\"pid\":-3,\"started_ns\":1," TDIR
	  "\"entries\":[]}", "bad pid" },
	{ "{\"format\":\"lathound-state\",\"version\":2,\"pid\":\"12\",\"started_ns\":1," TDIR
	  "\"entries\":[]}", "bad pid" },
	{ "{\"format\":\"lathound-state\",\"version\":2,\"pid\":12,\"started_ns\":-1," TDIR
	  "\"entries\":[]}", "bad start time" },
	{ HEAD "\"entries\":[]}", "no tracing_dir (an absolute path)" },
	{ HEAD "\"tracing_dir\":\"tracing\",\"entries\":[]}", "no tracing_dir (an absolute path)" },
	{ HEAD TDIR "\"entries\":{}}", "no entries" },
	{ HEAD TDIR "\"entries\":[1]}", "entry 1 is not an object" },
	{ HEAD TDIR "\"entries\":[" ENTRY("value", "a", "1") "," ENTRY("toggle", "b", "1") "]}",
	  "entry 2: unknown kind 'toggle'" },
	{ HEAD TDIR "\"entries\":[{\"kind\":\"value\",\"path\":\"a\"}]}",
	  "entry 1: 'kind', 'path' and 'value' must be strings" },
	{ HEAD TDIR "\"entries\":[{\"kind\":\"value\",\"path\":\"a\",\"value\":1}]}",
	  "entry 1: 'kind', 'path' and 'value' must be strings" },
	{ HEAD TDIR "\"entries\":[" ENTRY("value", "a", "1\\u0000x") "]}",
	  "entry 1: 'kind', 'path' and 'value' must be strings" },
	{ HEAD TDIR "\"entries\":[{\"kind\":\"value\",\"path\":\"a\",\"value\":\"1\",\"x\":2}]}",
	  "entry 1: unknown key 'x'" },
	{ HEAD TDIR "\"entries\":[" ENTRY("value", "/etc/passwd", "x") "]}",
	  "entry 1: bad or repeated path" },
	{ HEAD TDIR "\"entries\":[" ENTRY("value", "../up", "x") "]}",
	  "entry 1: bad or repeated path" },
	{ HEAD TDIR "\"entries\":[" ENTRY("value", "a", "1") "," ENTRY("list", "a", "2") "]}",
	  "entry 2: bad or repeated path" },
};

START_TEST(parse_corrupt)
{
	struct lh_state *st = (void *)1;
	const char *text = corrupt_cases[_i].text;

	ck_assert_int_eq(lh_state_parse(text, strlen(text), "/run/lathound/state", &st, &diag), -1);
	ck_assert_ptr_null(st);
	ck_assert_uint_eq(diag.errors, 1);
	ck_diag("state file '/run/lathound/state'");
	if (!diag_has(corrupt_cases[_i].msg))
		dump_diag();
	ck_diag(corrupt_cases[_i].msg);
}
END_TEST

START_TEST(parse_nul_byte)
{
	struct lh_state *st;
	static const char text[] = HEAD TDIR "\"entries\":[]}\0";

	ck_assert_int_eq(lh_state_parse(text, sizeof(text) - 1, "s", &st, &diag), -1);
	ck_diag("binary data");
}
END_TEST

static int sdir_fd(void)
{
	int fd = open(sdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	return fd;
}

START_TEST(write_read_file)
{
	struct lh_state *st = lh_state_alloc(), *back;
	int dfd = sdir_fd();

	lh_state_add(st, LH_STATE_VALUE, "tracing_thresh", "100\n");
	/* no tracing dir: nothing that could be restored anywhere */
	ck_assert_int_eq(lh_state_write_file(st, dfd, LH_STATE_FILE, state_file, &diag), -1);
	ck_diag("no tracing directory");
	st->tracing_dir = strdup(tree);
	ck_assert_int_eq(lh_state_read_file(dfd, LH_STATE_FILE, state_file, &back, &diag), 0);
	ck_assert_int_eq(lh_state_write_file(st, dfd, LH_STATE_FILE, state_file, &diag), 0);
	/* atomic: no temporary file left next to it */
	ck_assert_int_eq(dir_entries(sdir, NULL), 1);
	ck_assert_int_eq(lh_state_read_file(dfd, LH_STATE_FILE, state_file, &back, &diag), 1);
	ck_assert_str_eq(lh_state_find(back, "tracing_thresh")->value, "100\n");
	ck_assert_str_eq(back->tracing_dir, tree);
	lh_state_free(back);
	/* also by path, as doctor reads it */
	ck_assert_int_eq(lh_state_read_file(AT_FDCWD, state_file, state_file, &back, &diag), 1);
	lh_state_free(back);
	lh_state_free(st);
	close(dfd);
}
END_TEST

/*
 * The values of a state file are written into tracefs as root: one that is not a regular
 * file, or that someone else could have written, is refused (and a FIFO does not hang).
 */
START_TEST(read_file_refuses_untrusted)
{
	struct lh_state *st = lh_state_alloc(), *back = (void *)1;
	char other[256];
	int dfd = sdir_fd();

	st->tracing_dir = strdup(tree);
	lh_state_add(st, LH_STATE_VALUE, "tracing_thresh", "100\n");
	ck_assert_int_eq(lh_state_write_file(st, dfd, LH_STATE_FILE, state_file, &diag), 0);
	snprintf(other, sizeof(other), "%s/other", top);
	ck_assert_int_eq(rename(state_file, other), 0);

	ck_assert_int_eq(symlink(other, state_file), 0);
	ck_assert_int_eq(lh_state_read_file(dfd, LH_STATE_FILE, state_file, &back, &diag), -1);
	ck_assert_ptr_null(back);
	ck_diag("refusing state file");
	ck_diag("it is a symbolic link");
	/* writing refuses it too, and leaves the link's target alone */
	ck_assert_int_eq(lh_state_write_file(st, dfd, LH_STATE_FILE, state_file, &diag), -1);
	ck_diag("it is a symbolic link, and only a regular file is replaced");
	unlink(state_file);

	ck_assert_int_eq(mkfifo(state_file, 0600), 0);
	ck_assert_int_eq(lh_state_read_file(dfd, LH_STATE_FILE, state_file, &back, &diag), -1);
	ck_diag("not a regular file");
	unlink(state_file);

	ck_assert_int_eq(link(other, state_file), 0);
	ck_assert_int_eq(lh_state_read_file(dfd, LH_STATE_FILE, state_file, &back, &diag), -1);
	ck_diag("it is a hard link (2 names)");
	unlink(other);

	ck_assert_int_eq(chmod(state_file, 0646), 0);
	ck_assert_int_eq(lh_state_read_file(dfd, LH_STATE_FILE, state_file, &back, &diag), -1);
	ck_diag("it is writable by others (mode 0646)");
	ck_assert_int_eq(chmod(state_file, 0664), 0);
	ck_assert_int_eq(lh_state_read_file(dfd, LH_STATE_FILE, state_file, &back, &diag), -1);
	ck_diag("it is writable by its group (mode 0664)");
	ck_assert_int_eq(chmod(state_file, 0644), 0);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(state_file, 65534, 65534), 0);
		ck_assert_int_eq(lh_state_read_file(dfd, LH_STATE_FILE, state_file, &back, &diag),
				 -1);
		ck_diag("it is owned by uid 65534, and only a file root alone can write is trusted");
		ck_assert_int_eq(chown(state_file, 0, 0), 0);
	}
	ck_assert_int_eq(lh_state_read_file(dfd, LH_STATE_FILE, state_file, &back, &diag), 1);
	lh_state_free(back);
	lh_state_free(st);
	close(dfd);
}
END_TEST

/* ---- save and restore ---- */

START_TEST(save_list_normalizes)
{
	struct lh_state *st = lh_state_alloc();

	put("set_ftrace_filter", "#### all functions enabled ####\n");
	put("set_ftrace_notrace", "foo [mymod]\nbar:traceoff:unlimited\nbaz:traceon:count=3\nqux\n");
	ck_assert_int_eq(lh_state_save(st, LH_STATE_LIST, "set_ftrace_filter", &diag), 0);
	ck_assert_int_eq(lh_state_save(st, LH_STATE_LIST, "set_ftrace_notrace", &diag), 0);
	ck_assert_str_eq(lh_state_find(st, "set_ftrace_filter")->value, "");
	ck_assert_str_eq(lh_state_find(st, "set_ftrace_notrace")->value,
			 "foo:mod:mymod\nbar:traceoff\nbaz:traceon:3\nqux\n");
	ck_assert_int_eq(lh_state_save(st, LH_STATE_VALUE, "no_such_knob", &diag), -1);
	ck_diag("cannot read 'no_such_knob': No such file or directory");
	lh_state_free(st);
}
END_TEST

START_TEST(restore_values)
{
	struct lh_state *st = lh_state_alloc();
	struct snap *before = snapshot(NULL);

	lh_state_save(st, LH_STATE_VALUE, "tracing_on", &diag);
	lh_state_save(st, LH_STATE_VALUE, "current_tracer", &diag);
	lh_state_save(st, LH_STATE_VALUE, "tracing_thresh", &diag);
	lh_state_save(st, LH_STATE_VALUE, "options/stacktrace", &diag);
	lh_state_save(st, LH_STATE_VALUE, "events/irq/irq_handler_entry/enable", &diag);
	lh_state_save(st, LH_STATE_LIST, "set_ftrace_filter", &diag);
	lh_state_add(st, LH_STATE_VALUE, "buffer_size_kb", "7 (expanded: 1408)\n");
	ck_assert_uint_eq(diag.nr, 0);

	put("tracing_on", "0");
	put("current_tracer", "irqsoff");
	put("tracing_thresh", "250");
	put("options/stacktrace", "0");
	put("events/irq/irq_handler_entry/enable", "1");
	put("set_ftrace_filter", "1 2 3 ");
	put("buffer_size_kb", "64");
	ck_assert_int_eq(lh_state_restore(st, &diag), 0);
	/* buffer_size_kb goes back to the size the unexpanded buffer stands for */
	ck_file("buffer_size_kb", "1408\n");
	ck_unchanged(before, NULL);

	/* soft-disabled enable files read "0*": the digit is written back */
	lh_state_free(st);
	st = lh_state_alloc();
	lh_state_add(st, LH_STATE_VALUE, "events/irq/irq_handler_entry/enable", "0*\n");
	ck_assert_int_eq(lh_state_restore(st, &diag), 0);
	ck_file("events/irq/irq_handler_entry/enable", "0\n");

	/* a knob that cannot be written is reported, the rest still restored */
	lh_state_free(st);
	st = lh_state_alloc();
	lh_state_add(st, LH_STATE_VALUE, "gone/knob", "1\n");
	lh_state_add(st, LH_STATE_VALUE, "tracing_thresh", "0\n");
	put("tracing_thresh", "9");
	ck_assert_int_eq(lh_state_restore(st, &diag), -1);
	ck_diag("cannot restore 'gone/knob' to '1'");
	ck_file("tracing_thresh", "0\n");
	lh_state_free(st);
	snap_free(before);
}
END_TEST

START_TEST(restore_order)
{
	static const char *const order[] = {
		"current_tracer", "tracing_thresh", "options/function-trace", "set_ftrace_filter",
		"events/irq/irq_handler_entry/enable", "lathound/kp", "tracing_on",
	};
	struct lh_state *st = lh_state_alloc();
	size_t i;

	/* added in reverse order: the ranks put them right */
	lh_state_add(st, LH_STATE_VALUE, "tracing_on", "1\n");
	lh_state_add(st, LH_STATE_KPROBE, "lathound/kp", "p:lathound/kp kp");
	lh_state_add(st, LH_STATE_VALUE, "events/irq/irq_handler_entry/enable", "0\n");
	lh_state_add(st, LH_STATE_LIST, "set_ftrace_filter", "");
	lh_state_add(st, LH_STATE_VALUE, "options/function-trace", "1\n");
	lh_state_add(st, LH_STATE_VALUE, "tracing_thresh", "0\n");
	lh_state_add(st, LH_STATE_VALUE, "current_tracer", "nop\n");
	for (i = 1; i < LH_ARRAY_SIZE(order); i++)
		ck_assert_int_lt(lh_state_rank(lh_state_find(st, order[i - 1])),
				 lh_state_rank(lh_state_find(st, order[i])));
	ck_assert_int_eq(lh_state_rank(lh_state_find(st, "tracing_thresh")),
			 lh_state_rank(&(struct lh_state_entry){ LH_STATE_VALUE, "tracing_max_latency", "" }));
	lh_state_free(st);
}
END_TEST

/* ---- the session ---- */

START_TEST(session_leaves_tree_identical)
{
	static const char *filters[] = { "vfs_*", NULL };
	static const char *notrace[] = { "do_idle", NULL };
	struct lh_session_opts o = base_opts();
	struct snap *before = snapshot(NULL);
	struct lh_state *st;
	struct lh_session *s;
	size_t i;

	o.filters = filters;
	o.notrace = notrace;
	o.buffer_kb = 4096;
	o.function_trace = false;
	if (lh_session_create(&s, &o, &diag))
		dump_diag();
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(diag.errors, 0);
	ck_assert_uint_eq(lh_session_tracers(s), o.tracers);

	/* the state file is on disk and holds what was there before */
	ck_assert_int_eq(lh_state_read_file(AT_FDCWD, state_file, state_file, &st, &diag), 1);
	ck_assert_int_eq(st->pid, getpid());
	ck_assert_str_eq(st->tracing_dir, tree);
	for (i = 0; i < st->nr; i++) {
		const struct lh_state_entry *e = &st->entries[i];
		char want[512];

		if (e->kind != LH_STATE_VALUE)
			continue;
		snprintf(want, sizeof(want), "%s=%s", e->path, e->value);
		ck_assert_msg(bsearch(&(const char *){ want }, before->items, before->nr,
				      sizeof(char *), cmp_str),
			      "state file entry '%s' is not the original content", want);
	}
	ck_assert_str_eq(lh_state_find(st, "set_ftrace_filter")->value, "schedule\n");
	ck_assert_ptr_nonnull(lh_state_find(st, "set_ftrace_notrace"));
	ck_assert_ptr_nonnull(lh_state_find(st, "buffer_size_kb"));
	ck_assert_ptr_nonnull(lh_state_find(st, "events/irq/irq_handler_exit/enable"));
	ck_assert_ptr_null(lh_state_find(st, "options/latency-format"));	/* the tracer's job */
	lh_state_free(st);

	/* common configuration */
	ck_file("tracing_on", "0\n");
	ck_file("options/function-trace", "0");
	ck_file("options/stacktrace", "0");
	ck_file("options/verbose", "0");
	ck_file("options/pause-on-trace", "0\n");	/* a threshold: reads do not pause */
	ck_file("options/irq-info", "1\n");		/* already right: not written */
	ck_file("events/irq/irq_handler_entry/enable", "1");
	ck_file("events/irq/irq_handler_exit/enable", "1");
	ck_file("events/sched/sched_waking/enable", "0\n");
	ck_assert(!file_has("set_ftrace_filter", "schedule\n"));
	ck_assert(!file_has("set_ftrace_notrace", ""));
	ck_file("buffer_size_kb", "4096");

	/*
	 * arming: tracer, threshold rounded up to whole µs, max latency reset, pause-on-trace
	 * cleared again (the irqsoff tracers set it when armed), tracing on
	 */
	put("tracing_max_latency", "777\n");
	put("options/pause-on-trace", "1\n");
	ck_assert(!lh_session_live_reads(s));
	ck_assert_int_eq(lh_session_arm(s, LH_TRACER_IRQSOFF, 0, &diag), 0);
	ck_file("options/pause-on-trace", "0");
	ck_assert(lh_session_live_reads(s));
	ck_file("current_tracer", "irqsoff");
	ck_file("tracing_thresh", "2\n");
	ck_file("tracing_max_latency", "0\n");
	ck_file("tracing_on", "1\n");
	/* armed again: it continues from the running maximum it is given */
	ck_assert_int_eq(lh_session_arm(s, LH_TRACER_WAKEUP_RT, 2500, &diag), 0);
	ck_file("current_tracer", "wakeup_rt");
	ck_file("tracing_max_latency", "2500\n");
	ck_assert_int_eq(lh_session_arm(s, LH_TRACER_PREEMPTOFF, 0, &diag), -1);
	ck_diag("tracer 'preemptoff' is not available in this session");

	lh_session_stop_tracing(s);
	ck_file("tracing_on", "0\n");

	ck_assert_int_eq(lh_session_destroy(s, &diag), 0);
	ck_assert(!exists(state_file));
	ck_unchanged(before, NULL);
	/* idempotent */
	ck_assert_int_eq(lh_session_destroy(s, &diag), 0);
	ck_assert_int_eq(lh_session_destroy(NULL, &diag), 0);
	ck_unchanged(before, NULL);
	snap_free(before);
}
END_TEST

START_TEST(session_function_trace_on)
{
	struct lh_session_opts o = base_opts();
	struct snap *before;
	struct lh_session *s;

	put("options/function-trace", "0\n");
	before = snapshot(NULL);
	o.function_trace = true;
	o.irq_events = false;
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), 0);
	ck_file("options/function-trace", "1");
	ck_file("events/irq/irq_handler_entry/enable", "0\n");
	ck_assert_int_eq(lh_session_destroy(s, &diag), 0);
	ck_unchanged(before, NULL);
	snap_free(before);
}
END_TEST

START_TEST(session_max_latency_path)
{
	struct lh_session_opts o = base_opts();
	struct lh_session *s;

	ck_assert_int_eq(lh_session_create(&s, &o, &diag), 0);
	ck_assert_ptr_nonnull(strstr(lh_session_max_latency_path(s), "/tracing/tracing_max_latency"));
	ck_assert_int_eq(lh_session_destroy(s, &diag), 0);
}
END_TEST

START_TEST(lock_refusal)
{
	struct lh_session_opts o = base_opts();
	struct lh_session *a, *b = (void *)1;
	char want[128];

	ck_assert_int_eq(lh_session_lock_holder(sdir), 0);
	ck_assert_int_eq(lh_session_create(&a, &o, &diag), 0);
	ck_assert_int_eq(lh_session_lock_holder(sdir), getpid());
	/* flock: a second open file description conflicts, even in the same process */
	ck_assert_int_eq(lh_session_create(&b, &o, &diag), -1);
	ck_assert_ptr_null(b);
	snprintf(want, sizeof(want), "another lathound (pid %d) is using the latency tracers",
		 (int)getpid());
	ck_diag(want);
	/* reset must not take the running session's state for a leftover */
	ck_assert_int_eq(lh_session_recover(sdir, &diag), -1);
	ck_diag("is in use, not left over");
	ck_assert(exists(state_file));
	ck_assert_int_eq(lh_session_destroy(a, &diag), 0);
	ck_assert_int_eq(lh_session_lock_holder(sdir), 0);
	ck_assert_int_eq(lh_session_create(&b, &o, &diag), 0);
	ck_assert_int_eq(lh_session_destroy(b, &diag), 0);
}
END_TEST

START_TEST(tracer_busy)
{
	struct lh_session_opts o = base_opts();
	struct lh_session *s;
	struct snap *before;

	put("current_tracer", "function\n");
	before = snapshot(NULL);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag("current_tracer is 'function': another tool is using the tracer (use --force to take it over)");
	ck_unchanged(before, NULL);
	ck_assert(!exists(state_file));

	lh_diag_release(&diag);
	o.force = true;
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), 0);
	ck_diag("taking it over (--force)");
	ck_assert_int_eq(lh_session_arm(s, LH_TRACER_IRQSOFF, 0, &diag), 0);
	ck_assert_int_eq(lh_session_destroy(s, &diag), 0);
	ck_file("current_tracer", "function\n");
	ck_unchanged(before, NULL);
	snap_free(before);
}
END_TEST

START_TEST(tracers_missing)
{
	struct lh_session_opts o = base_opts();
	struct lh_session *s;
	struct snap *before;

	put("available_tracers", "blk function nop\n");
	before = snapshot(NULL);
	o.tracers = 1u << LH_TRACER_IRQSOFF | 1u << LH_TRACER_PREEMPTIRQSOFF |
		    1u << LH_TRACER_WAKEUP;
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag("tracer 'irqsoff' is not available in this kernel (needs CONFIG_IRQSOFF_TRACER=y)");
	ck_diag("tracer 'preemptirqsoff' is not available in this kernel (needs CONFIG_IRQSOFF_TRACER=y and CONFIG_PREEMPT_TRACER=y)");
	ck_diag("tracer 'wakeup' is not available in this kernel (needs CONFIG_SCHED_TRACER=y)");
	ck_diag("none of the requested latency tracers is available");
	ck_assert_uint_eq(diag.warnings, 3);
	ck_unchanged(before, NULL);
	ck_assert(!exists(state_file));
	snap_free(before);

	/* some missing: warn, run the rest */
	lh_diag_release(&diag);
	put("available_tracers", "wakeup function nop\n");
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), 0);
	ck_assert_uint_eq(lh_session_tracers(s), 1u << LH_TRACER_WAKEUP);
	ck_assert_uint_eq(diag.warnings, 2);
	ck_assert_int_eq(lh_session_destroy(s, &diag), 0);

	o.tracers = 0;
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag("no latency tracer requested");
}
END_TEST

/* Writes the state file of a killed run that saved from tracing dir from, and changes. */
static void plant_state_from(pid_t pid, const char *from)
{
	struct lh_state *st = lh_state_alloc();
	int dfd = sdir_fd();

	st->pid = pid;
	st->tracing_dir = strdup(from);
	lh_state_add(st, LH_STATE_VALUE, "tracing_on", "1\n");
	lh_state_add(st, LH_STATE_VALUE, "current_tracer", "nop\n");
	lh_state_add(st, LH_STATE_VALUE, "tracing_thresh", "0\n");
	lh_state_add(st, LH_STATE_VALUE, "events/irq/irq_handler_entry/enable", "0\n");
	lh_state_add(st, LH_STATE_VALUE, "options/function-trace", "1\n");
	/* its kprobe is gone already (no kprobe_events here): nothing to remove */
	lh_state_add(st, LH_STATE_KPROBE, "lathound/old", "p:lathound/old do_sys_open");
	ck_assert_int_eq(lh_state_write_file(st, dfd, LH_STATE_FILE, state_file, &diag), 0);
	close(dfd);
	lh_state_free(st);
	/* what the killed run had changed */
	put("tracing_on", "1");
	put("current_tracer", "irqsoff");
	put("tracing_thresh", "500");
	put("events/irq/irq_handler_entry/enable", "1");
	put("options/function-trace", "0");
}

static void plant_state(pid_t pid)
{
	plant_state_from(pid, tree);
}

/*
 * A killed run's hwlat still runs in its instance: recovery stops it (tracer cleared, tracing
 * off), writes the saved tracing_thresh back, and leaves another tool's instance alone. That
 * it stops hwlat before writing tracing_thresh (hwlat keeps the value it reads when cleared
 * as its next default) plain files cannot show: tests/vm/rt/run checks it on Debian's RT
 * kernel (hwlat's next default after SIGKILL + reset).
 */
START_TEST(recover_stops_killed_sampling_tracer)
{
	char *c;

	plant_state(4242);
	put("instances/lathound-noise-999999/current_tracer", "hwlat");
	put("instances/lathound-noise-999999/tracing_on", "1");
	put("instances/other-999999/current_tracer", "hwlat");
	ck_assert_int_eq(lh_session_recover(sdir, &diag), 1);
	/* written over "hwlat": a plain file is not truncated as tracefs's are */
	c = get("instances/lathound-noise-999999/current_tracer");
	ck_assert_msg(c && !strncmp(c, "nop", 3), "current_tracer reads '%s'", c ? c : "(none)");
	free(c);
	ck_assert(file_has("instances/lathound-noise-999999/tracing_on", "0"));
	ck_assert(file_has("instances/other-999999/current_tracer", "hwlat"));
	ck_assert(file_has("tracing_thresh", "0\n"));
}
END_TEST

START_TEST(recover_killed_run)
{
	struct snap *before = snapshot(NULL);
	struct lh_state *restored;

	plant_state(4242);
	ck_assert_int_eq(lh_session_recover_state(sdir, &restored, &diag), 1);
	ck_diag("restored tracefs state left by lathound pid 4242 (killed?)");
	ck_assert_ptr_nonnull(restored);
	ck_assert_uint_eq(restored->nr, 6);
	lh_state_free(restored);
	ck_unchanged(before, NULL);
	ck_assert(!exists(state_file));
	/* nothing left: nothing to do */
	lh_diag_release(&diag);
	ck_assert_int_eq(lh_session_recover(sdir, &diag), 0);
	ck_assert_uint_eq(diag.nr, 0);
	snap_free(before);
}
END_TEST

START_TEST(create_recovers_first)
{
	struct lh_session_opts o = base_opts();
	struct snap *before = snapshot(NULL);
	struct lh_session *s;

	plant_state(777);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), 0);
	ck_diag("restored tracefs state left by lathound pid 777 (killed?)");
	/* and saved the restored values, not the killed run's */
	ck_assert_int_eq(lh_session_destroy(s, &diag), 0);
	ck_unchanged(before, NULL);
	snap_free(before);
}
END_TEST

START_TEST(corrupt_state_file)
{
	struct lh_session_opts o = base_opts();
	struct lh_session *s;
	struct snap *before;
	FILE *f;

	put("tracing_thresh", "500\n");
	before = snapshot(NULL);
	f = fopen(state_file, "w");
	fputs(HEAD TDIR "\"entries\":[" ENTRY("value", "tracing_thresh", "0\\n"), f);	/* cut short */
	fclose(f);
	ck_assert_int_eq(chmod(state_file, 0644), 0);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag("truncated (the JSON text ends early)");
	ck_diag("cannot recover the tracefs state left in");
	ck_unchanged(before, NULL);
	ck_assert(exists(state_file));
	lh_diag_release(&diag);
	ck_assert_int_eq(lh_session_recover(sdir, &diag), -1);
	ck_diag("corrupt state file");
	ck_assert(exists(state_file));
	snap_free(before);
}
END_TEST

/*
 * A state file saved from another tracefs (a test's copy, a tree that is gone) is not
 * written into the one in use: it is kept, and recovery fails saying why.
 */
START_TEST(recover_only_into_the_tracefs_it_names)
{
	struct lh_session_opts o = base_opts();
	char other[160], want[1024];
	struct snap *before, *orig = snapshot(NULL);
	struct lh_session *s;

	snprintf(other, sizeof(other), "%s/other-tracing", top);
	ck_assert_int_eq(mkdir(other, 0755), 0);
	plant_state_from(4242, other);
	before = snapshot(NULL);
	ck_assert_int_eq(lh_session_recover(sdir, &diag), -1);
	snprintf(want, sizeof(want), "state file '%s' was saved from the tracefs at '%s', not from the one in use now ('%s'): not restoring it there",
		 state_file, other, tree);
	ck_diag(want);
	ck_unchanged(before, NULL);
	ck_assert(exists(state_file));
	/* a run refuses to start over it too */
	lh_diag_release(&diag);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag(want);
	ck_unchanged(before, NULL);

	/* a tree that is gone is named with the reason */
	ck_assert_int_eq(rmdir(other), 0);
	lh_diag_release(&diag);
	ck_assert_int_eq(lh_session_recover(sdir, &diag), -1);
	snprintf(want, sizeof(want), "saved from the tracefs at '%s' (No such file or directory)",
		 other);
	ck_diag(want);
	ck_assert(exists(state_file));
	snap_free(before);

	/* the same tree by another path is the same tracefs */
	unlink(state_file);
	snprintf(other, sizeof(other), "%s/tracing-link", top);
	ck_assert_int_eq(symlink(tree, other), 0);
	plant_state_from(4343, other);
	lh_diag_release(&diag);
	ck_assert_int_eq(lh_session_recover(sdir, &diag), 1);
	ck_unchanged(orig, NULL);
	snap_free(orig);
}
END_TEST

/*
 * What another user could plant in a state directory is written into tracefs as root: the
 * directory and the lock must be root's (the test's user's) alone, and not links.
 */
START_TEST(state_dir_must_be_trusted)
{
	struct lh_session_opts o = base_opts();
	char lock[200], target[200], want[300];
	struct snap *before;
	struct lh_session *s;
	FILE *f;

	plant_state(4242);
	before = snapshot(NULL);
	snprintf(lock, sizeof(lock), "%s/%s", sdir, LH_LOCK_FILE);
	snprintf(target, sizeof(target), "%s/precious", top);

	ck_assert_int_eq(chmod(sdir, 01777), 0);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	snprintf(want, sizeof(want), "refusing state directory '%s': it is writable by others (mode 1777), and only a directory root alone can write is trusted",
		 sdir);
	ck_diag(want);
	ck_assert_int_eq(lh_session_recover(sdir, &diag), -1);
	ck_assert(!exists(lock));
	ck_assert_int_eq(chmod(sdir, 0775), 0);
	lh_diag_release(&diag);
	ck_assert_int_eq(lh_session_recover(sdir, &diag), -1);
	ck_diag("it is writable by its group (mode 0775)");
	ck_assert_int_eq(chmod(sdir, 0755), 0);
	ck_unchanged(before, NULL);

	/* the lock planted as a link: not followed, its target not truncated */
	f = fopen(target, "w");

	fputs("precious\n", f);
	fclose(f);
	ck_assert_int_eq(symlink(target, lock), 0);
	lh_diag_release(&diag);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	snprintf(want, sizeof(want), "refusing lock file '%s': it is a symbolic link", lock);
	ck_diag(want);
	ck_assert_ptr_null(lh_session_lock(sdir, &diag));
	unlink(lock);
	f = fopen(target, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(want, sizeof(want), f));
	fclose(f);
	ck_assert_str_eq(want, "precious\n");
	/* ...or as a file others may write */
	ck_assert_int_eq(close(open(lock, O_CREAT | O_WRONLY, 0600)), 0);
	ck_assert_int_eq(chmod(lock, 0666), 0);
	lh_diag_release(&diag);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag("refusing lock file");
	ck_diag("it is writable by others (mode 0666)");
	ck_unchanged(before, NULL);

	/* the state directory itself as a link */
	ck_assert_int_eq(chmod(lock, 0644), 0);
	snprintf(want, sizeof(want), "%s/run-link", top);
	ck_assert_int_eq(symlink(sdir, want), 0);
	o.state_dir = want;
	lh_diag_release(&diag);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag("it is a symbolic link");
	ck_unchanged(before, NULL);

	/* all in order: the planted state is restored */
	o.state_dir = sdir;
	lh_diag_release(&diag);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), 0);
	ck_diag("restored tracefs state left by lathound pid 4242");
	ck_assert_int_eq(lh_session_destroy(s, &diag), 0);
	snap_free(before);
}
END_TEST

/* A run killed while it wrote the state file left a temporary file: the next one removes it. */
START_TEST(stale_state_temporary_files)
{
	struct lh_session_opts o = base_opts();
	struct lh_session_lock *l;
	struct lh_session *s;
	char stale[256];
	int fd;

	snprintf(stale, sizeof(stale), "%s/.%s%sQw3rTy", sdir, LH_STATE_FILE, LH_LOCKFILE_MARK);
	fd = open(stale, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), 0);
	ck_assert(!exists(stale));
	ck_assert_int_eq(lh_session_destroy(s, &diag), 0);
	/* and taking the lock alone ('lathound reset') does too */
	fd = open(stale, O_WRONLY | O_CREAT | O_EXCL, 0600);
	close(fd);
	l = lh_session_lock(sdir, &diag);
	ck_assert_ptr_nonnull(l);
	ck_assert(!exists(stale));
	lh_session_unlock(l);
	lh_session_unlock(NULL);
}
END_TEST

/* A board without /run: the state directory's parents are made, the directory is 0755. */
START_TEST(state_dir_parents_created)
{
	struct lh_session_opts o = base_opts();
	struct lh_session *s;
	char deep[200];
	struct stat st;
	mode_t mask = umask(0);

	snprintf(deep, sizeof(deep), "%s/no/run/yet/lathound", top);
	o.state_dir = deep;
	if (lh_session_create(&s, &o, &diag))
		dump_diag();
	umask(mask);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stat(deep, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0755);
	ck_assert_int_eq(lh_session_destroy(s, &diag), 0);
}
END_TEST

START_TEST(filter_problems)
{
	static const char *nomatch[] = { "no_such_function_xyz", NULL };
	struct lh_session_opts o = base_opts();
	struct lh_session *s;
	struct snap *before = snapshot(NULL);
	char path[256];

	/* nothing matches: refused, everything given back */
	o.filters = nomatch;
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag("no traceable function matches --filter 'no_such_function_xyz'");
	ck_unchanged(before, NULL);
	ck_assert(!exists(state_file));
	snap_free(before);

	/* set_ftrace_filter cannot be read (no DYNAMIC_FTRACE, or locked down) */
	lh_diag_release(&diag);
	snprintf(path, sizeof(path), "%s/set_ftrace_filter", tree);
	unlink(path);
	before = snapshot(NULL);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag("cannot read 'set_ftrace_filter': No such file or directory");
	ck_diag("--filter needs set_ftrace_filter");
	ck_unchanged(before, NULL);
	snap_free(before);
}
END_TEST

START_TEST(buffer_sizes_differ)
{
	struct lh_session_opts o = base_opts();
	struct lh_session *s;
	struct snap *before;

	put("buffer_size_kb", "X\n");
	before = snapshot(NULL);
	o.buffer_kb = 4096;
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag("buffer_size_kb reads 'X'");
	ck_unchanged(before, NULL);
	ck_assert(!exists(state_file));
	/* lathound's own default (live reads), not asked: the sizes are left as they are */
	o.buffer_default = true;
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), 0);
	ck_file("buffer_size_kb", "X\n");
	ck_assert_int_eq(lh_session_destroy(s, &diag), 0);
	ck_unchanged(before, NULL);
	snap_free(before);
}
END_TEST

/*
 * --kprobe definitions: refused before anything is written when they are not one line of
 * kprobe_events in lathound's group. Adding and removing a probe is libtracefs' dynevent
 * API, which writes the mounted tracefs, not this tree (and mounts one where none is): that
 * is tested on a real kernel (tests/vm, scenario kprobe), so that this stays hermetic.
 */
START_TEST(kprobes)
{
	static const char *probes[] = { "do_sys_open", "p:lathound/myread vfs_read $arg1", NULL };
	static const char *const syntax = "expected 'p:lathound/NAME SYMBOL [FETCHARGS]' or a symbol";
	static const char *const control = "it holds a control character (one definition, one line)";
	static const char *const group = "--kprobe adds probes in the 'lathound/' group only";
	static const struct {
		const char *def, *shown, *why;
	} bad[] = {
		{ "x:y z", "x:y z", syntax },
		{ "p:lathound/my-probe vfs_read", "p:lathound/my-probe vfs_read", syntax },
		{ "p:lathound/x", "p:lathound/x", syntax },
		{ "", "", syntax },
		{ "p:/x vfs_read", "p:/x vfs_read", syntax },
		{ "r:9grp/x vfs_read", "r:9grp/x vfs_read", syntax },
		{ "-:kprobes/victim", "-:kprobes/victim", syntax },
		/* a second line would be a second definition, or another tool's probe removed */
		{ "p:lathound/x do_sys_open\np:other/evil vfs_read",
		  "p:lathound/x do_sys_open\\x0ap:other/evil vfs_read", control },
		{ "do_sys_open\n-:kprobes/victim", "do_sys_open\\x0a-:kprobes/victim", control },
		{ "p:lathound/x do_sys_open\r", "p:lathound/x do_sys_open\\x0d", control },
		{ "p:lathound/x vfs_read \x1b[2J", "p:lathound/x vfs_read \\x1b[2J", control },
		{ "p:other/evil vfs_read", "p:other/evil vfs_read", group },
		{ "r:kprobes/x vfs_read $retval", "r:kprobes/x vfs_read $retval", group },
	};
	struct lh_session_opts o = base_opts();
	struct lh_session *s;
	struct snap *before;
	size_t i;

	/* no kprobe_events in this kernel */
	o.kprobes = probes;
	before = snapshot(NULL);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag("kprobe events are not available in this kernel (needs CONFIG_KPROBE_EVENTS=y)");
	ck_unchanged(before, NULL);
	snap_free(before);

	/* with kprobe events: a bad definition among good ones changes nothing */
	put("kprobe_events", "p:kprobes/victim vfs_write\n");
	before = snapshot(NULL);
	for (i = 0; i < LH_ARRAY_SIZE(bad); i++) {
		const char *some[] = { "do_sys_open", bad[i].def, NULL };
		char want[512];

		lh_diag_release(&diag);
		o.kprobes = some;
		ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
		snprintf(want, sizeof(want), "invalid kprobe definition '%s': %s", bad[i].shown,
			 bad[i].why);
		ck_diag(want);
		ck_unchanged(before, NULL);
		ck_assert(!exists(state_file));
	}
	snap_free(before);

	/* a kprobe of that name exists already: someone else's */
	lh_diag_release(&diag);
	put("kprobe_events", "p:lathound/do_sys_open do_sys_open\n");
	o.kprobes = probes;
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag("kprobe 'lathound/do_sys_open' already exists");
}
END_TEST

START_TEST(not_tracefs)
{
	struct lh_session_opts o = base_opts();
	struct lh_session *s;
	char path[256];

	snprintf(path, sizeof(path), "%s/current_tracer", tree);
	unlink(path);
	ck_assert_int_eq(lh_session_create(&s, &o, &diag), -1);
	ck_diag("has no current_tracer: this kernel has no ftrace tracers (needs CONFIG_FTRACE=y)");
}
END_TEST

/* A directory without current_tracer nor trace is no tracefs: say how to mount one. */
START_TEST(not_tracefs_at_all)
{
	char path[512], empty[160];
	const char *dir = NULL;

	snprintf(empty, sizeof(empty), "%s/empty", tree);
	ck_assert_int_eq(mkdir(empty, 0755), 0);
	ck_assert_int_eq(tracefs_set_tracing_dir(empty), 0);
	ck_assert_int_eq(lh_session_tracing_dir(&dir, &diag), -1);
	ck_assert_int_eq(errno, ENOENT);
	snprintf(path, sizeof(path), "'%s' is not a tracefs (no 'trace' file); mount tracefs as root with 'mount -t tracefs nodev /sys/kernel/tracing'",
		 empty);
	ck_diag(path);
	lh_diag_release(&diag);

	snprintf(empty, sizeof(empty), "%s/nowhere", tree);
	ck_assert_int_eq(tracefs_set_tracing_dir(empty), 0);
	ck_assert_int_eq(lh_session_tracing_dir(&dir, &diag), -1);
	ck_assert_int_eq(errno, ENOENT);
	snprintf(path, sizeof(path), "no tracefs at '%s': No such file or directory; mount it as root with 'mount -t tracefs nodev /sys/kernel/tracing'",
		 empty);
	ck_diag(path);
	ck_assert_ptr_null(dir);
	ck_assert_int_eq(tracefs_set_tracing_dir(tree), 0);
}
END_TEST

/*
 * The instances lathound creates (hist, irqtrace) are removed by one helper: one that will
 * not go is an error naming it and 'lathound reset'; one that went is not.
 */
START_TEST(instance_destroy)
{
	struct tracefs_instance *inst;
	char path[512];

	snprintf(path, sizeof(path), "%s/instances/lathound-x-1", tree);
	ck_assert_int_ge(lh_mkdir_p(path, 0755), 0);
	inst = tracefs_instance_alloc(NULL, "lathound-x-1");
	ck_assert_ptr_nonnull(inst);
	ck_assert_int_eq(lh_state_instance_destroy(inst, "lathound-x-1", &diag), 0);
	ck_assert_int_eq(diag.nr, 0);
	ck_assert(!exists(path));

	/* a file the fake tree's rmdir cannot take keeps it, as an EBUSY would in tracefs */
	put("instances/lathound-x-2/trace", "");
	inst = tracefs_instance_alloc(NULL, "lathound-x-2");
	ck_assert_ptr_nonnull(inst);
	ck_assert_int_eq(lh_state_instance_destroy(inst, "lathound-x-2", &diag), -1);
	ck_diag("cannot remove tracefs instance 'lathound-x-2': Directory not empty (remove it with 'lathound reset')");
	ck_assert_int_eq(lh_state_instance_destroy(NULL, "none", &diag), 0);
}
END_TEST

static int remove_one(const char *name)
{
	struct tracefs_instance *inst = tracefs_instance_alloc(NULL, name);
	int ret = lh_state_instance_remove(inst, name);

	tracefs_instance_free(inst);
	return ret;
}

/* A killed run's instances (PREFIX<pid> of no running lathound) go; no other one does. */
START_TEST(stale_instances)
{
	static const char *const keep[] = {
		"instances/lathound-hist-999999", "instances/lathound-x1", "instances/lathound-",
		"instances/lathound-1234567890", "instances/trace-cmd",
	};
	char path[512];
	size_t i;

	ck_assert_int_eq(lh_state_name_pid("lathound-hist-42", "lathound-hist-", '\0'), 42);
	ck_assert_int_eq(lh_state_name_pid("lathound_42_irqsoff", "lathound_", '_'), 42);
	ck_assert_int_eq(lh_state_name_pid("lathound-hist-42", "lathound-", '\0'), 0);
	ck_assert_int_eq(lh_state_name_pid("lathound-42x", "lathound-", '\0'), 0);
	for (i = 0; i < LH_ARRAY_SIZE(keep); i++) {
		snprintf(path, sizeof(path), "%s/%s", tree, keep[i]);
		ck_assert_int_ge(lh_mkdir_p(path, 0755), 0);
	}
	snprintf(path, sizeof(path), "%s/instances/lathound-999999", tree);
	ck_assert_int_ge(lh_mkdir_p(path, 0755), 0);
	ck_assert_int_eq(lh_state_remove_stale_instances("lathound-", remove_one, &diag), 1);
	ck_assert(!exists(path));
	for (i = 0; i < LH_ARRAY_SIZE(keep); i++) {
		snprintf(path, sizeof(path), "%s/%s", tree, keep[i]);
		ck_assert_msg(exists(path), "%s was removed", keep[i]);
	}
	ck_assert_int_eq(diag.nr, 0);

	put("instances/lathound-999998/trace", "");
	ck_assert_int_eq(lh_state_remove_stale_instances("lathound-", remove_one, &diag), -1);
	ck_diag("cannot remove tracefs instance 'lathound-999998' left by a killed run: Directory not empty");
}
END_TEST

START_TEST(atexit_restores)
{
	struct lh_session_opts o = base_opts();
	struct lh_session *s;
	struct snap *before = snapshot(NULL);
	pid_t pid;
	int status;

	/* a child that exit()s without destroy still gives everything back */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (lh_session_create(&s, &o, &diag) ||
		    lh_session_arm(s, LH_TRACER_IRQSOFF, 0, &diag))
			_exit(3);
		exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_unchanged(before, NULL);
	ck_assert(!exists(state_file));
	snap_free(before);
}
END_TEST

/*
 * Out of memory anywhere (lh_xmalloc() and friends) while a session is live must still give
 * tracefs back: lh_oom() exits, which runs the atexit handler; abort() would skip it.
 */
START_TEST(oom_restores)
{
	struct lh_session_opts o = base_opts();
	struct lh_session *s;
	struct snap *before = snapshot(NULL);
	uint64_t *v = NULL;
	size_t alloc = 0;
	pid_t pid;
	int status;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (lh_session_create(&s, &o, &diag) ||
		    lh_session_arm(s, LH_TRACER_IRQSOFF, 0, &diag))
			_exit(3);
		LH_GROW(v, SIZE_MAX / 4, alloc);	/* a size that overflows: out of memory */
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "the child was killed by signal %d",
		      WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	ck_unchanged(before, NULL);
	ck_assert(!exists(state_file));
	snap_free(before);
}
END_TEST

static Suite *state_suite(void)
{
	Suite *s = suite_create("state");
	TCase *tc = tcase_create("state");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, format_parse_roundtrip);
	tcase_add_loop_test(tc, parse_corrupt, 0, LH_ARRAY_SIZE(corrupt_cases));
	tcase_add_test(tc, parse_nul_byte);
	tcase_add_test(tc, write_read_file);
	tcase_add_test(tc, read_file_refuses_untrusted);
	tcase_add_test(tc, save_list_normalizes);
	tcase_add_test(tc, restore_values);
	tcase_add_test(tc, restore_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("session");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, session_leaves_tree_identical);
	tcase_add_test(tc, session_function_trace_on);
	tcase_add_test(tc, session_max_latency_path);
	tcase_add_test(tc, lock_refusal);
	tcase_add_test(tc, tracer_busy);
	tcase_add_test(tc, tracers_missing);
	tcase_add_test(tc, recover_killed_run);
	tcase_add_test(tc, recover_stops_killed_sampling_tracer);
	tcase_add_test(tc, create_recovers_first);
	tcase_add_test(tc, corrupt_state_file);
	tcase_add_test(tc, recover_only_into_the_tracefs_it_names);
	tcase_add_test(tc, state_dir_must_be_trusted);
	tcase_add_test(tc, stale_state_temporary_files);
	tcase_add_test(tc, state_dir_parents_created);
	tcase_add_test(tc, filter_problems);
	tcase_add_test(tc, buffer_sizes_differ);
	tcase_add_test(tc, kprobes);
	tcase_add_test(tc, not_tracefs);
	tcase_add_test(tc, not_tracefs_at_all);
	tcase_add_test(tc, instance_destroy);
	tcase_add_test(tc, stale_instances);
	tcase_add_test(tc, atexit_restores);
	tcase_add_test(tc, oom_restores);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(state_suite)
