// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracefs session of 'lathound record': finds (mounts) tracefs, takes the run lock,
 * undoes what a killed run left, saves every knob it touches to the state file before the
 * first change, arms the latency tracers, and gives everything back on every exit path.
 * All tracefs access goes through libtracefs, top-level instance (NULL).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <tracefs.h>

#include "drain.h"
#include "noisetrace.h"
#include "session.h"
#include "state.h"
#include "trace/record.h"
#include "util/lockfile.h"

#define TRACEFS_MOUNT_POINT	"/sys/kernel/tracing"
#define MOUNT_HINT		"mount -t tracefs nodev " TRACEFS_MOUNT_POINT
#define KPROBE_GROUP		"lathound"

struct lh_session {
	struct lh_session	*next;		/* live sessions (the atexit safety net) */
	pid_t			owner;		/* only this process restores */
	unsigned int		tracers;
	uint64_t		threshold_ns;
	char			*state_path;	/* for messages */
	struct lh_session_lock	*lock;		/* the state directory, locked */
	int			tracing_on_fd;	/* for lh_session_stop_tracing() */
	char			*max_latency_path;
	bool			have_max_latency;
	bool			have_pause;	/* options/pause-on-trace is saved: ours to set */
	bool			live_reads;	/* the armed tracer's reads do not pause it */
	struct lh_drain		*drain;		/* drain.h; NULL: none */
	bool			drain_warned;	/* a drain's failure was said */
	struct lh_state		*state;
	bool			state_written;	/* from here on, destroy must restore */
};

static struct lh_session *live_sessions;
static bool atexit_registered;

/*
 * Options that shape the 'trace' text the parser reads, and what lathound wants them
 * to be; -1 takes the value of --function-trace, -2 is 0 with a threshold and 1 without.
 * Those the kernel lacks are skipped.
 */
static const struct {
	const char	*name;
	int		value;
} wanted_options[] = {
	{ "function-trace",	-1 },	/* one line per function: big snapshots, +7-10% latency */
	{ "display-graph",	0 },	/* keep the latency layout, not function_graph's */
	{ "irq-info",		1 },	/* the flags columns */
	{ "context-info",	1 },
	{ "print-parent",	1 },
	{ "sym-offset",		0 },
	{ "sym-addr",		0 },
	{ "raw",		0 },
	{ "hex",		0 },
	{ "bin",		0 },
	{ "verbose",		0 },
	{ "stacktrace",		0 },	/* a stack after every event would bury the snapshot */
	{ "userstacktrace",	0 },
	{ "record-cmd",		1 },	/* task names in the snapshot */
	/*
	 * Reading 'trace' pauses tracing: with a threshold every section counts, and
	 * capture.c reads while tracing goes on (lh_session_arm() clears it again after the
	 * irqsoff tracers set it); running maxima are read paused (capture.h says why).
	 */
	{ "pause-on-trace",	-2 },
};

static const char *const irq_events[] = { "irq_handler_entry", "irq_handler_exit" };

static const enum tracefs_tracers tracefs_ids[LH_TRACER_NR] = {
	[LH_TRACER_IRQSOFF]		= TRACEFS_TRACER_IRQSOFF,
	[LH_TRACER_PREEMPTOFF]		= TRACEFS_TRACER_PREEMPTOFF,
	[LH_TRACER_PREEMPTIRQSOFF]	= TRACEFS_TRACER_PREEMPTIRQSOFF,
	[LH_TRACER_WAKEUP]		= TRACEFS_TRACER_WAKEUP,
	[LH_TRACER_WAKEUP_RT]		= TRACEFS_TRACER_WAKEUP_RT,
	[LH_TRACER_WAKEUP_DL]		= TRACEFS_TRACER_WAKEUP_DL,
};

static char *path_join(const char *dir, const char *name)
{
	return lh_xasprintf("%s/%s", dir, name);
}

const char *lh_session_tracer_needs(enum lh_tracer t, char *buf, size_t len)
{
	const char *cfg = lh_tracer_config(t), *and;

	if (!cfg) {
		snprintf(buf, len, "a kernel with ftrace");
		return buf;
	}
	and = strstr(cfg, " and ");
	if (and)
		snprintf(buf, len, "%.*s=y and %s=y", (int)(and - cfg), cfg, and + 5);
	else
		snprintf(buf, len, "%s=y", cfg);
	return buf;
}

/* Return: -1 with the reason in diag and errno kept, for tracefs that stat() failed on. */
static int tracefs_denied(const char *d, int err, struct lh_diag *diag)
{
	lh_diag_fail(diag, "cannot access tracefs at '%s': %s (run lathound record as root)", d,
		     strerror(err));
	errno = err;
	return -1;
}

int lh_session_tracing_dir(const char **dir, struct lh_diag *diag)
{
	const char *d = tracefs_tracing_dir();
	struct stat sb;
	char *file;
	int err;

	if (!d) {
		/*
		 * libtracefs found no tracefs and could not mount one; try again here only to
		 * learn why (it does not keep errno).
		 */
		if (!mount("nodev", TRACEFS_MOUNT_POINT, "tracefs", 0, NULL))
			d = tracefs_tracing_dir();
		err = errno;
		if (!d) {
			lh_diag_fail(diag, "tracefs is not mounted and cannot be mounted on '%s': %s; mount it as root with '%s'",
				     TRACEFS_MOUNT_POINT, strerror(err), MOUNT_HINT);
			errno = err;
			return -1;
		}
	}
	/* A missing file and one we may not see are different problems: keep errno apart. */
	if (stat(d, &sb)) {
		err = errno;
		if (err == EACCES || err == EPERM)
			return tracefs_denied(d, err, diag);
		lh_diag_fail(diag, "no tracefs at '%s': %s; mount it as root with '%s'", d, strerror(err),
			     MOUNT_HINT);
		errno = err;
		return -1;
	}
	file = path_join(d, "current_tracer");
	err = stat(file, &sb) ? errno : 0;
	free(file);
	if (err == EACCES || err == EPERM)
		return tracefs_denied(d, err, diag);
	if (err) {
		/* Not even 'trace': not tracefs at all (a --tracefs directory, or nothing mounted). */
		file = path_join(d, "trace");
		if (stat(file, &sb)) {
			lh_diag_fail(diag, "'%s' is not a tracefs (no 'trace' file); mount tracefs as root with '%s'",
				     d, MOUNT_HINT);
		} else {
			lh_diag_fail(diag, "tracefs at '%s' has no current_tracer: this kernel has no ftrace tracers (needs CONFIG_FTRACE=y)",
				     d);
		}
		free(file);
		errno = err;
		return -1;
	}
	*dir = d;
	return 0;
}

/* ---- the state directory and the run lock ---- */

/*
 * The state directory, its lock file held (flock) and the pid of the holder written in it.
 * Everything in the directory is reached through dfd: a directory swapped after it was
 * checked cannot redirect a write.
 */
struct lh_session_lock {
	char	*dir;		/* for messages */
	int	dfd;
	int	fd;
};

/*
 * Opens the state directory (creating it and its parents when create), never through a
 * symbolic link, and refuses one that another user could have written in: the state file
 * found there is written into tracefs as root. Return: its fd, or -1 (with errno ENOENT
 * and nothing in diag when it is missing and !create).
 */
static int state_dir_open(const char *dir, bool create, struct lh_diag *diag)
{
	int created = 0, fd;

	if (create) {
		created = lh_mkdir_p(dir, 0755);
		if (created < 0)
			return lh_diag_fail(diag, "cannot create state directory '%s': %s", dir,
					    strerror(errno));
	}
	fd = lh_open_dir(AT_FDCWD, dir);
	if (fd < 0) {
		if (errno == ENOENT && !create)
			return -1;
		if (errno == ELOOP)
			return lh_diag_fail(diag, "refusing state directory '%s': it is a symbolic link", dir);
		return lh_diag_fail(diag, "cannot open state directory '%s': %s", dir, strerror(errno));
	}
	/* Made here: 0755 whatever the umask, or the check below would refuse it. */
	if (created > 0 && fchmod(fd, 0755)) {
		lh_diag_fail(diag, "cannot set the mode of state directory '%s': %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	if (lh_check_trusted(fd, true, "state directory", dir, diag)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Opens (creates) the lock file in the state directory: a regular file of root's only. */
static int lock_open(int dfd, const char *dir, struct lh_diag *diag)
{
	char *path;
	int fd;

	fd = openat(dfd, LH_LOCK_FILE, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0 && fchmod(fd, 0644)) {
		close(fd);
		fd = -1;
	} else if (fd < 0 && errno == EEXIST) {
		fd = openat(dfd, LH_LOCK_FILE, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	}
	if (fd < 0) {
		if (errno == ELOOP)
			return lh_diag_fail(diag, "refusing lock file '%s/%s': it is a symbolic link", dir,
					    LH_LOCK_FILE);
		return lh_diag_fail(diag, "cannot open lock file '%s/%s': %s", dir, LH_LOCK_FILE,
				    strerror(errno));
	}
	/* It is truncated and written: never someone else's file, nor a second name of one. */
	path = path_join(dir, LH_LOCK_FILE);
	if (lh_check_trusted(fd, false, "lock file", path, diag)) {
		close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

static pid_t lock_file_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long pid;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, NULL, 10);
	return pid > 0 && pid <= INT_MAX ? (pid_t)pid : 0;
}

struct lh_session_lock *lh_session_lock(const char *state_dir, struct lh_diag *diag)
{
	struct lh_session_lock *l;
	int dfd, fd, n;
	char pid[32];

	if (!state_dir)
		state_dir = LH_STATE_DIR;
	dfd = state_dir_open(state_dir, true, diag);
	if (dfd < 0)
		return NULL;
	fd = lock_open(dfd, state_dir, diag);
	if (fd < 0) {
		close(dfd);
		return NULL;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;
		pid_t holder = lock_file_pid(fd);

		close(fd);
		close(dfd);
		if (err != EWOULDBLOCK)
			lh_diag_fail(diag, "cannot lock '%s/%s': %s", state_dir, LH_LOCK_FILE, strerror(err));
		else if (holder)
			lh_diag_fail(diag, "another lathound (pid %ld) is using the latency tracers",
				     (long)holder);
		else
			lh_diag_fail(diag, "another lathound is using the latency tracers (lock '%s/%s' is held)",
				     state_dir, LH_LOCK_FILE);
		errno = err;
		return NULL;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, n, 0) != n) {
		/* The pid is only for messages: a lock without it still protects. */
	}
	/* A run killed while it wrote the state file left a temporary file: no one writes now. */
	lh_lockfile_clean(dfd, LH_STATE_FILE);
	l = lh_xcalloc(1, sizeof(*l));
	l->dir = lh_xstrdup(state_dir);
	l->dfd = dfd;
	l->fd = fd;
	return l;
}

void lh_session_unlock(struct lh_session_lock *l)
{
	if (!l)
		return;
	close(l->fd);	/* drops the flock */
	close(l->dfd);
	free(l->dir);
	free(l);
}

pid_t lh_session_lock_holder(const char *state_dir)
{
	char *path = path_join(state_dir ? state_dir : LH_STATE_DIR, LH_LOCK_FILE);
	pid_t pid = 0;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (flock(fd, LOCK_SH | LOCK_NB)) {
		pid = errno == EWOULDBLOCK ? lock_file_pid(fd) : -1;
		if (!pid)
			pid = -1;
	}
	close(fd);	/* also drops the probe lock */
	return pid;
}

/* ---- recovery of a killed run ---- */

/*
 * A state file is given back only to the tracefs it was saved from: one left by a run on
 * another tree (a test's copy, a tracefs mounted elsewhere) must not be written into the one
 * in use. Same directory: same device and inode (tracefs has one superblock, wherever it is
 * mounted). Return: 0 when it is that one, else -1 with why in diag.
 */
static int same_tracefs(const struct lh_state *st, const char *state_path, const char *dir,
			struct lh_diag *diag)
{
	struct stat a, b;
	const char *why = NULL;

	if (stat(st->tracing_dir, &a))
		why = strerror(errno);
	else if (stat(dir, &b))
		return lh_diag_fail(diag, "cannot access tracefs at '%s': %s", dir, strerror(errno));
	else if (a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return 0;
	return lh_diag_fail(diag, "state file '%s' was saved from the tracefs at '%s'%s%s%s, not from the one in use now ('%s'): not restoring it there; remove the file if that tracefs is gone",
			    state_path, st->tracing_dir, why ? " (" : "", why ? why : "", why ? ")" : "",
			    dir);
}

int lh_session_recover_locked(struct lh_session_lock *l, struct lh_state **restored,
			      struct lh_diag *diag)
{
	char *state_path = path_join(l->dir, LH_STATE_FILE);
	struct lh_state *st = NULL;
	const char *dir;
	int ret;

	if (restored)
		*restored = NULL;
	ret = lh_state_read_file(l->dfd, LH_STATE_FILE, state_path, &st, diag);
	if (ret <= 0) {
		if (ret < 0)
			lh_diag_fail(diag, "cannot recover the tracefs state left in '%s': check the knobs it lists by hand, then remove it",
				     state_path);
		goto out;
	}
	ret = -1;
	if (lh_session_tracing_dir(&dir, diag) || same_tracefs(st, state_path, dir, diag))
		goto out;
	/* hwlat keeps the tracing_thresh it finds when cleared: not the one restored */
	lh_noisetrace_stop_stale();
	if (lh_state_restore(st, diag)) {
		lh_diag_fail(diag, "restoring the tracefs state left by lathound pid %ld failed; '%s' is kept, run 'lathound reset' once fixed",
			     (long)st->pid, state_path);
		goto out;
	}
	if (unlinkat(l->dfd, LH_STATE_FILE, 0) && errno != ENOENT) {
		lh_diag_fail(diag, "cannot remove state file '%s': %s", state_path, strerror(errno));
		goto out;
	}
	lh_diag_add(diag, LH_DIAG_WARNING, "restored tracefs state left by lathound pid %ld (killed?)",
		    (long)st->pid);
	ret = 1;
	if (restored) {
		*restored = st;
		st = NULL;
	}
out:
	lh_state_free(st);
	free(state_path);
	return ret;
}

int lh_session_recover_state(const char *state_dir, struct lh_state **restored,
			     struct lh_diag *diag)
{
	struct lh_session_lock *l;
	char *state_path;
	struct stat sb;
	int ret = 0;

	if (restored)
		*restored = NULL;
	if (!state_dir)
		state_dir = LH_STATE_DIR;
	state_path = path_join(state_dir, LH_STATE_FILE);
	/* Nothing there: create nothing either. */
	if (lstat(state_path, &sb)) {
		if (errno != ENOENT)
			ret = lh_diag_fail(diag, "cannot check state file '%s': %s", state_path,
					   strerror(errno));
		goto out;
	}
	l = lh_session_lock(state_dir, diag);
	if (!l) {
		if (errno == EWOULDBLOCK)
			lh_diag_fail(diag, "its state file '%s' is in use, not left over", state_path);
		ret = -1;
		goto out;
	}
	ret = lh_session_recover_locked(l, restored, diag);
	lh_session_unlock(l);
out:
	free(state_path);
	return ret;
}

int lh_session_recover(const char *state_dir, struct lh_diag *diag)
{
	return lh_session_recover_state(state_dir, NULL, diag);
}

/* ---- kprobes ---- */

struct kprobe_def {
	char	type[2];	/* "p" or "r" */
	char	group[64];
	char	event[64];
	char	*addr;
	char	*args;		/* NULL when none */
};

static bool ident_char(char c, bool first)
{
	return c == '_' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
	       (!first && c >= '0' && c <= '9');
}

/* A tracefs event or group name: [A-Za-z_][A-Za-z0-9_]*, shorter than 64. */
static bool ident_ok(const char *s, size_t n)
{
	size_t i;

	if (!n || n >= 64)
		return false;
	for (i = 0; i < n; i++)
		if (!ident_char(s[i], !i))
			return false;
	return true;
}

/* An event name from a symbol: "func+0x10" -> "func_0x10". */
static void event_from_symbol(char *ev, size_t len, const char *sym, size_t n)
{
	size_t i;

	if (n >= len)
		n = len - 1;
	for (i = 0; i < n; i++)
		ev[i] = ident_char(sym[i], false) ? sym[i] : '_';
	ev[n] = '\0';
	if (n && ev[0] >= '0' && ev[0] <= '9')
		ev[0] = '_';
}

/* A control character (a newline would start a second definition in kprobe_events). */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* The reason a --kprobe definition is refused, the definition escaped in it. Return: -1. */
static int kprobe_refuse(struct lh_diag *diag, const char *def, const char *why)
{
	char *shown = lh_record_escape_dup(def);

	lh_diag_fail(diag, "invalid kprobe definition '%s': %s", shown, why);
	free(shown);
	return -1;
}

/*
 * Parses "p[:[GROUP/]EVENT] SYMBOL [FETCHARGS]" ('r' for a return probe) or a bare
 * SYMBOL. The group is "lathound" (the default; any other is refused, so that a run can
 * neither add nor remove another tool's probes), the event defaults to the symbol. A
 * definition is one line of kprobe_events: a control character in it is refused.
 * Return: 0, or -1 with the reason in diag. Frees nothing on error (k zeroed first).
 */
static int kprobe_parse(const char *def, struct kprobe_def *k, struct lh_diag *diag)
{
	const char *s = def, *sp, *colon, *slash, *name;
	size_t n;

	memset(k, 0, sizeof(*k));
	if (has_control(def))
		return kprobe_refuse(diag, def, "it holds a control character (one definition, "
				     "one line)");
	while (*s == ' ')
		s++;
	sp = s + strcspn(s, " \t");
	if (!*s)
		goto bad;
	if (!*sp && !strchr(s, ':')) {
		/* a bare symbol */
		strcpy(k->type, "p");
		strcpy(k->group, KPROBE_GROUP);
		event_from_symbol(k->event, sizeof(k->event), s, sp - s);
		k->addr = lh_xstrdup(s);
		if (!ident_ok(k->event, strlen(k->event)))
			goto bad;
		return 0;
	}
	if ((*s != 'p' && *s != 'r') || (s[1] != ':' && s + 1 != sp))
		goto bad;
	k->type[0] = *s;
	strcpy(k->group, KPROBE_GROUP);
	colon = s[1] == ':' ? s + 2 : NULL;
	while (*sp == ' ' || *sp == '\t')
		sp++;
	if (!*sp)
		goto bad;
	n = strcspn(sp, " \t");
	k->addr = lh_xmalloc(n + 1);
	memcpy(k->addr, sp, n);
	k->addr[n] = '\0';
	if (sp[n]) {
		const char *a = sp + n + strspn(sp + n, " \t");

		if (*a)
			k->args = lh_xstrdup(a);
	}
	if (colon) {
		const char *end = colon + strcspn(colon, " \t");

		slash = memchr(colon, '/', end - colon);
		name = slash ? slash + 1 : colon;
		if (slash) {
			if (!ident_ok(colon, slash - colon))
				goto bad;
			if ((size_t)(slash - colon) != strlen(KPROBE_GROUP) ||
			    memcmp(colon, KPROBE_GROUP, strlen(KPROBE_GROUP))) {
				free(k->addr);
				free(k->args);
				memset(k, 0, sizeof(*k));
				return kprobe_refuse(diag, def, "--kprobe adds probes in the '"
						     KPROBE_GROUP "/' group only");
			}
		}
		if (!ident_ok(name, end - name))
			goto bad;
		snprintf(k->event, sizeof(k->event), "%.*s", (int)(end - name), name);
	} else {
		event_from_symbol(k->event, sizeof(k->event), k->addr, strlen(k->addr));
		if (!ident_ok(k->event, strlen(k->event)))
			goto bad;
	}
	return 0;
bad:
	free(k->addr);
	free(k->args);
	memset(k, 0, sizeof(*k));
	return kprobe_refuse(diag, def, "expected 'p:lathound/NAME SYMBOL [FETCHARGS]' or a symbol");
}

static void kprobe_def_release(struct kprobe_def *k)
{
	free(k->addr);
	free(k->args);
	k->addr = k->args = NULL;
}

/* Creates the kprobe and enables its event in the top-level instance. */
static int kprobe_add(const struct kprobe_def *k, struct lh_diag *diag)
{
	struct tracefs_dynevent *d;
	int ret = -1;

	if (k->type[0] == 'r')
		d = tracefs_kretprobe_alloc(k->group, k->event, k->addr, k->args, 0);
	else
		d = tracefs_kprobe_alloc(k->group, k->event, k->addr, k->args);
	if (!d)
		return lh_diag_fail(diag, "cannot add kprobe '%s/%s': %s", k->group, k->event,
				    strerror(errno));
	tracefs_error_clear(NULL);
	if (tracefs_dynevent_create(d)) {
		char *why = tracefs_error_last(NULL);

		lh_diag_fail(diag, "cannot add kprobe '%s/%s' at '%s': %s", k->group, k->event, k->addr,
			     why ? why : strerror(errno));
		free(why);
		goto out;
	}
	if (tracefs_event_enable(NULL, k->group, k->event)) {
		lh_diag_fail(diag, "cannot enable kprobe event '%s:%s': %s", k->group, k->event,
			     strerror(errno));
		goto out;
	}
	ret = 0;
out:
	tracefs_dynevent_free(d);
	return ret;
}

/* ---- create / destroy ---- */

/* Ends the drain: before every write of current_tracer (the kernel refuses it, EBUSY). */
static int drain_stop(struct lh_session *s, struct lh_diag *diag)
{
	if (lh_drain_stop(s->drain))
		return lh_diag_fail(diag, "a thread reading a CPU's live buffer did not end (a task of higher priority holds its CPU?): %s; the tracer cannot be changed while it runs",
				    strerror(errno));
	s->drain = NULL;
	return 0;
}

/*
 * With an irqsoff-family tracer armed, each CPU's live buffer is read as it fills (drain.h
 * says why, and why from that CPU): live reads are shorter, and so are paused ones, which
 * leave the tracer blind while they last. Without it reads are slower, not wrong: a drain
 * that cannot be started is left out, with a warning in diag, once a session (a run that
 * rotates arms again and again).
 */
static void drain_start(struct lh_session *s, enum lh_tracer t, struct lh_diag *diag)
{
	struct lh_diag d = { 0 };
	size_t i;

	if (!lh_tracer_is_wakeup(t))
		lh_drain_start(&s->drain, &d);
	for (i = 0; i < d.nr && !s->drain_warned; i++)
		lh_diag_add(diag, LH_DIAG_WARNING, "%s; snapshots take longer to read, and paused reads leave the tracer blind longer",
			    d.msgs[i].text);
	s->drain_warned |= d.nr > 0;
	lh_diag_release(&d);
}

static int session_release(struct lh_session *s, struct lh_diag *diag)
{
	int ret = 0;

	if (!s)
		return 0;
	if (drain_stop(s, diag))	/* the restore writes current_tracer */
		ret = -1;
	if (s->tracing_on_fd >= 0)
		close(s->tracing_on_fd);
	s->tracing_on_fd = -1;
	if (s->state_written) {
		if (lh_state_restore(s->state, diag)) {
			lh_diag_fail(diag, "tracefs could not be fully restored; the saved state is kept in '%s' for 'lathound reset'",
				     s->state_path);
			ret = -1;
		} else if (unlinkat(s->lock->dfd, LH_STATE_FILE, 0) && errno != ENOENT) {
			ret = lh_diag_fail(diag, "cannot remove state file '%s': %s", s->state_path,
					   strerror(errno));
		}
		s->state_written = false;
	}
	lh_session_unlock(s->lock);
	s->lock = NULL;
	lh_state_free(s->state);
	tracefs_put_tracing_file(s->max_latency_path);
	free(s->state_path);
	free(s);
	return ret;
}

static bool unlink_live(struct lh_session *s)
{
	struct lh_session **p;

	for (p = &live_sessions; *p; p = &(*p)->next) {
		if (*p == s) {
			*p = s->next;
			return true;
		}
	}
	return false;
}

/* exit() without destroy (a path that forgot, or lh_xmalloc's OOM): still give back. */
static void session_atexit(void)
{
	struct lh_diag diag = { 0 };
	struct lh_session *s, *next;

	for (s = live_sessions; s; s = next) {
		next = s->next;
		if (s->owner == getpid())	/* not in a forked child */
			lh_session_destroy(s, &diag);
	}
	lh_diag_release(&diag);
}

static int check_tracer_free(const struct lh_session_opts *o, struct lh_diag *diag)
{
	char cur[128];

	if (lh_state_read_knob("current_tracer", cur, sizeof(cur)))
		return lh_diag_fail(diag, "cannot read 'current_tracer': %s", strerror(errno));
	if (!strcmp(cur, "nop"))
		return 0;
	if (!o->force)
		return lh_diag_fail(diag, "current_tracer is '%s': another tool is using the tracer (use --force to take it over)",
				    cur);
	lh_diag_add(diag, LH_DIAG_WARNING, "current_tracer is '%s': taking it over (--force); it is restored at exit",
		    cur);
	return 0;
}

static int pick_tracers(struct lh_session *s, const struct lh_session_opts *o, const char *dir,
			struct lh_diag *diag)
{
	char **avail = tracefs_tracers(dir);
	char needs[128];
	int t, i;

	for (t = 1; t < LH_TRACER_NR; t++) {
		bool found = false;

		if (!(o->tracers & (1u << t)))
			continue;
		for (i = 0; avail && avail[i]; i++)
			if (!strcmp(avail[i], lh_tracer_name(t)))
				found = true;
		if (found)
			s->tracers |= 1u << t;
		else
			lh_diag_add(diag, LH_DIAG_WARNING, "tracer '%s' is not available in this kernel (needs %s)",
				    lh_tracer_name(t),
				    lh_session_tracer_needs(t, needs, sizeof(needs)));
	}
	tracefs_list_free(avail);
	if (!s->tracers)
		return lh_diag_fail(diag, "none of the requested latency tracers is available in this kernel ('lathound doctor' shows what it lacks)");
	return 0;
}

/* Saves every knob the session will touch. Reads only. */
static int save_knobs(struct lh_session *s, const struct lh_session_opts *o,
		      const struct kprobe_def *kp, size_t nr_kp, struct lh_diag *diag)
{
	static const char *const base[] = { "tracing_on", "current_tracer", "tracing_thresh" };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(base); i++)
		if (lh_state_save(s->state, LH_STATE_VALUE, base[i], diag))
			return -1;
	if (s->have_max_latency &&
	    lh_state_save(s->state, LH_STATE_VALUE, "tracing_max_latency", diag))
		return -1;
	/* The options shape the latency snapshot: without a tracer they stay as they are. */
	for (i = 0; !o->no_tracer && i < LH_ARRAY_SIZE(wanted_options); i++) {
		snprintf(path, sizeof(path), "options/%s", wanted_options[i].name);
		if (lh_state_knob_exists(path) &&
		    lh_state_save(s->state, LH_STATE_VALUE, path, diag))
			return -1;
	}
	/* The sampling tracers' knobs are global: all of them, whichever this run writes. */
	for (i = 0; s->tracers & lh_tracer_sampling_mask() && lh_noisetrace_knobs[i]; i++)
		if (lh_state_knob_exists(lh_noisetrace_knobs[i]) &&
		    lh_state_save(s->state, LH_STATE_VALUE, lh_noisetrace_knobs[i], diag))
			return -1;
	if (o->filters && o->filters[0] &&
	    lh_state_save(s->state, LH_STATE_LIST, "set_ftrace_filter", diag))
		return lh_diag_fail(diag, "--filter needs set_ftrace_filter (CONFIG_DYNAMIC_FTRACE=y, and not locked down)");
	if (o->notrace && o->notrace[0] &&
	    lh_state_save(s->state, LH_STATE_LIST, "set_ftrace_notrace", diag))
		return lh_diag_fail(diag, "--notrace needs set_ftrace_notrace (CONFIG_DYNAMIC_FTRACE=y, and not locked down)");
	if (o->buffer_kb) {
		char v[32] = "";

		/* Per-CPU sizes (it reads 'X') cannot be given back: only a size asked fails. */
		if (lh_state_read_knob("buffer_size_kb", v, sizeof(v)) == 0 && v[0] == 'X') {
			if (!o->buffer_default)
				return lh_diag_fail(diag, "the CPUs' trace buffers differ in size (buffer_size_kb reads 'X'), which lathound could not give back: run without --buffer-size");
		} else if (lh_state_save(s->state, LH_STATE_VALUE, "buffer_size_kb", diag)) {
			return -1;
		}
	}
	for (i = 0; o->irq_events && i < LH_ARRAY_SIZE(irq_events); i++) {
		snprintf(path, sizeof(path), "events/irq/%s/enable", irq_events[i]);
		if (!lh_state_knob_exists(path)) {
			lh_diag_add(diag, LH_DIAG_WARNING, "event 'irq:%s' is not available: snapshots will not name irq handlers",
				    irq_events[i]);
			continue;
		}
		if (lh_state_save(s->state, LH_STATE_VALUE, path, diag))
			return -1;
	}
	for (i = 0; i < nr_kp; i++) {
		char *def;
		int ret;

		snprintf(path, sizeof(path), "%s/%s", kp[i].group, kp[i].event);
		def = lh_xasprintf("%s:%s %s%s%s", kp[i].type, path, kp[i].addr,
				   kp[i].args ? " " : "", kp[i].args ? kp[i].args : "");
		ret = lh_state_add(s->state, LH_STATE_KPROBE, path, def);
		free(def);
		if (ret)
			return lh_diag_fail(diag, "cannot record kprobe '%s'", path);
	}
	return 0;
}

static int set_option(const char *name, bool on, struct lh_diag *diag)
{
	enum tracefs_option_id id = tracefs_option_id(name);
	char path[128];
	int ret;

	if (id != TRACEFS_OPTION_INVALID) {
		ret = on ? tracefs_option_enable(NULL, id) : tracefs_option_disable(NULL, id);
	} else {
		snprintf(path, sizeof(path), "options/%s", name);
		ret = tracefs_instance_file_write(NULL, path, on ? "1" : "0") == 1 ? 0 : -1;
	}
	if (ret)
		return lh_diag_fail(diag, "cannot set option '%s' to %d: %s", name, on, strerror(errno));
	return 0;
}

static int set_filters(const char *const *globs, bool notrace, struct lh_diag *diag)
{
	const char *file = notrace ? "set_ftrace_notrace" : "set_ftrace_filter";
	size_t i;
	int ret = 0;

	for (i = 0; globs[i]; i++) {
		unsigned int fl = TRACEFS_FL_CONTINUE | (i ? 0 : TRACEFS_FL_RESET);

		ret = notrace ? tracefs_function_notrace(NULL, globs[i], NULL, fl)
			      : tracefs_function_filter(NULL, globs[i], NULL, fl);
		if (ret) {
			lh_diag_fail(diag, ret > 0 && errno == EINVAL ?
				   "no traceable function matches --%s '%s'" :
				   "cannot write --%s '%s' to %s: %s",
			     notrace ? "notrace" : "filter", globs[i], file, strerror(errno));
			break;
		}
	}
	/* Commit (close the file kept open by CONTINUE). */
	if (notrace)
		tracefs_function_notrace(NULL, NULL, NULL, 0);
	else
		tracefs_function_filter(NULL, NULL, NULL, 0);
	return ret ? -1 : 0;
}

/* Makes the changes common to all tracers. The state file is on disk already. */
static int apply(struct lh_session *s, const struct lh_session_opts *o,
		 const struct kprobe_def *kp, size_t nr_kp, struct lh_diag *diag)
{
	char path[PATH_MAX];
	size_t i;

	if (tracefs_trace_off(NULL))
		return lh_diag_fail(diag, "cannot stop tracing (tracing_on): %s", strerror(errno));
	for (i = 0; i < LH_ARRAY_SIZE(wanted_options); i++) {
		const struct lh_state_entry *e;
		int want = wanted_options[i].value;

		snprintf(path, sizeof(path), "options/%s", wanted_options[i].name);
		e = lh_state_find(s->state, path);
		if (!e)
			continue;
		if (want == -1)
			want = o->function_trace;
		else if (want == -2)
			want = !o->threshold_ns;
		if ((e->value[0] == '1') != want && set_option(wanted_options[i].name, want, diag))
			return -1;
	}
	if (o->filters && o->filters[0] && set_filters(o->filters, false, diag))
		return -1;
	if (o->notrace && o->notrace[0] && set_filters(o->notrace, true, diag))
		return -1;
	if (lh_state_find(s->state, "buffer_size_kb") &&
	    tracefs_instance_set_buffer_size(NULL, o->buffer_kb, -1))
		return lh_diag_fail(diag, "cannot set buffer_size_kb to %lu: %s", o->buffer_kb,
				    strerror(errno));
	for (i = 0; o->irq_events && i < LH_ARRAY_SIZE(irq_events); i++) {
		snprintf(path, sizeof(path), "events/irq/%s/enable", irq_events[i]);
		if (lh_state_find(s->state, path) && tracefs_event_enable(NULL, "irq", irq_events[i]))
			return lh_diag_fail(diag, "cannot enable event 'irq:%s': %s", irq_events[i],
					    strerror(errno));
	}
	for (i = 0; i < nr_kp; i++)
		if (kprobe_add(&kp[i], diag))
			return -1;
	return 0;
}

int lh_session_create(struct lh_session **sp, const struct lh_session_opts *o,
		      struct lh_diag *diag)
{
	const char *state_dir = o->state_dir ? o->state_dir : LH_STATE_DIR;
	struct kprobe_def *kp = NULL;
	struct lh_session *s = NULL;
	size_t nr_kp = 0, i;
	const char *dir;
	char *tmp;
	int bad, ret;

	*sp = NULL;
	if (!o->no_tracer && !(o->tracers & (((1u << LH_TRACER_NR) - 1) & ~1u)))
		return lh_diag_fail(diag, "no latency tracer requested");
	for (i = 0; o->kprobes && o->kprobes[i]; i++)
		nr_kp++;
	if (nr_kp) {
		kp = lh_xcalloc(nr_kp, sizeof(*kp));
		for (i = 0; i < nr_kp; i++)
			if (kprobe_parse(o->kprobes[i], &kp[i], diag))
				goto fail;
	}
	if (lh_session_tracing_dir(&dir, diag))
		goto fail;
	tmp = tracefs_instance_get_file(NULL, "current_tracer");
	if (tmp && access(tmp, W_OK)) {
		lh_diag_fail(diag, "cannot write tracefs at '%s': %s (lathound needs root)", dir,
			     strerror(errno));
		tracefs_put_tracing_file(tmp);
		goto fail;
	}
	tracefs_put_tracing_file(tmp);

	s = lh_xcalloc(1, sizeof(*s));
	s->owner = getpid();
	s->tracing_on_fd = -1;
	s->threshold_ns = o->threshold_ns;
	s->state_path = path_join(state_dir, LH_STATE_FILE);
	s->max_latency_path = tracefs_instance_get_file(NULL, "tracing_max_latency");
	s->have_max_latency = lh_state_knob_exists("tracing_max_latency");

	s->lock = lh_session_lock(state_dir, diag);
	if (!s->lock)
		goto fail;
	if (lh_session_recover_locked(s->lock, NULL, diag) < 0)
		goto fail;
	if (check_tracer_free(o, diag))
		goto fail;
	/* Say everything this kernel lacks at once: tracers and kprobe events. */
	bad = !o->no_tracer && pick_tracers(s, o, dir, diag);
	if (nr_kp && !lh_state_knob_exists("kprobe_events"))
		bad = lh_diag_fail(diag, "kprobe events are not available in this kernel (needs CONFIG_KPROBE_EVENTS=y)");
	if (bad)
		goto fail;
	for (i = 0; i < nr_kp; i++) {
		char path[160], addr[512];

		snprintf(path, sizeof(path), "%s/%s", kp[i].group, kp[i].event);
		ret = lh_state_kprobe_find(path, addr, sizeof(addr));
		if (ret) {
			if (ret < 0)
				lh_diag_fail(diag, "cannot read kprobe_events: %s", strerror(errno));
			else
				lh_diag_fail(diag, "kprobe '%s' already exists: another tool owns it", path);
			goto fail;
		}
	}

	s->state = lh_state_alloc();
	s->state->tracing_dir = lh_xstrdup(dir);
	if (save_knobs(s, o, kp, nr_kp, diag))
		goto fail;
	if (lh_state_write_file(s->state, s->lock->dfd, LH_STATE_FILE, s->state_path, diag))
		goto fail;
	s->state_written = true;	/* from here, every failure restores */
	s->have_pause = lh_state_find(s->state, "options/pause-on-trace") != NULL;

	s->tracing_on_fd = tracefs_instance_file_open(NULL, "tracing_on", O_WRONLY | O_CLOEXEC);
	if (s->tracing_on_fd < 0) {
		lh_diag_fail(diag, "cannot open 'tracing_on': %s", strerror(errno));
		goto fail;
	}
	if (apply(s, o, kp, nr_kp, diag))
		goto fail;

	for (i = 0; i < nr_kp; i++)
		kprobe_def_release(&kp[i]);
	free(kp);
	if (!atexit_registered && !atexit(session_atexit))
		atexit_registered = true;
	s->next = live_sessions;
	live_sessions = s;
	*sp = s;
	return 0;
fail:
	for (i = 0; i < nr_kp; i++)
		kprobe_def_release(&kp[i]);
	free(kp);
	session_release(s, diag);
	return -1;
}

int lh_session_destroy(struct lh_session *s, struct lh_diag *diag)
{
	/* Only a live session is released: a second call finds nothing to do. */
	if (!s || !unlink_live(s))
		return 0;
	return session_release(s, diag);
}

unsigned int lh_session_tracers(const struct lh_session *s)
{
	return s ? s->tracers : 0;
}

int lh_session_arm(struct lh_session *s, enum lh_tracer t, uint64_t max_us, struct lh_diag *diag)
{
	char num[32];
	uint64_t us;
	int n;

	if ((unsigned int)t >= LH_TRACER_NR || !(s->tracers & (1u << t))) {
		errno = EINVAL;
		return lh_diag_fail(diag, "tracer '%s' is not available in this session", lh_tracer_name(t));
	}
	if (drain_stop(s, diag))
		return -1;
	if (tracefs_trace_off(NULL))
		return lh_diag_fail(diag, "cannot stop tracing (tracing_on): %s", strerror(errno));
	if (tracefs_tracer_set(NULL, tracefs_ids[t]) < 0)
		return lh_diag_fail(diag, "cannot set current_tracer to '%s': %s", lh_tracer_name(t),
				    strerror(errno));
	/* tracing_thresh is in µs: round up, so that 1500ns never becomes 1us. */
	us = s->threshold_ns / 1000 + (s->threshold_ns % 1000 != 0);
	snprintf(num, sizeof(num), "%llu\n", (unsigned long long)us);
	if (tracefs_instance_file_write(NULL, "tracing_thresh", num) != (int)strlen(num))
		return lh_diag_fail(diag, "cannot set tracing_thresh to %llu: %s", (unsigned long long)us,
				    strerror(errno));
	/* After current_tracer: setting a latency tracer resets its maximum to 0. */
	n = snprintf(num, sizeof(num), "%llu\n", (unsigned long long)max_us);
	if (s->have_max_latency &&
	    tracefs_instance_file_write(NULL, "tracing_max_latency", num) != n)
		return lh_diag_fail(diag, "cannot set tracing_max_latency to %llu: %s",
				    (unsigned long long)max_us, strerror(errno));
	/*
	 * The irqsoff tracers set pause-on-trace when armed ("without pause, we will produce
	 * garbage if another latency occurs"): with a threshold, capture.c detects exactly
	 * that, so it is cleared again. Where it cannot be, reads pause (and count as blind).
	 */
	s->live_reads = false;
	if (s->threshold_ns && s->have_pause) {
		struct lh_diag d = { 0 };

		s->live_reads = !set_option("pause-on-trace", false, &d);
		lh_diag_release(&d);
	}
	if (tracefs_trace_on(NULL))
		return lh_diag_fail(diag, "cannot start tracing (tracing_on): %s", strerror(errno));
	drain_start(s, t, diag);
	return 0;
}

int lh_session_disarm(struct lh_session *s, struct lh_diag *diag)
{
	if (drain_stop(s, diag))
		return -1;
	if (tracefs_trace_off(NULL))
		return lh_diag_fail(diag, "cannot stop tracing (tracing_on): %s", strerror(errno));
	if (tracefs_tracer_set(NULL, TRACEFS_TRACER_NOP) < 0)
		return lh_diag_fail(diag, "cannot set current_tracer to 'nop': %s", strerror(errno));
	return 0;
}

bool lh_session_live_reads(const struct lh_session *s)
{
	return s && s->live_reads;
}

int lh_session_drain_fd(const struct lh_session *s)
{
	return s ? lh_drain_fd(s->drain) : -1;
}

long lh_session_drain(struct lh_session *s, short revents)
{
	return s ? lh_drain_read(s->drain, revents) : 0;
}

void lh_session_drain_kick(struct lh_session *s)
{
	if (s)
		lh_drain_kick(s->drain);
}

const char *lh_session_max_latency_path(const struct lh_session *s)
{
	return s ? s->max_latency_path : NULL;
}

void lh_session_stop_tracing(struct lh_session *s)
{
	if (s && s->tracing_on_fd >= 0) {
		ssize_t r = write(s->tracing_on_fd, "0", 1);

		(void)r;
	}
}
