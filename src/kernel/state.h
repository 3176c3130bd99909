/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Borrowed tracefs knobs, saved before lathound changes them and given back after: a list
 * of (path relative to the tracing directory, content as read) that is written to a state
 * file before the first change, so that a run killed by SIGKILL or a power loss can still
 * be undone by the next one ('lathound reset').
 *
 * lh_state_format() and lh_state_parse() are pure (buffers in, buffers out).
 * lh_state_save() reads tracefs, lh_state_restore() writes it (top-level instance, through
 * libtracefs), lh_state_write_file() and lh_state_read_file() do the file I/O.
 * No printing: problems go to the caller's lh_diag.
 *
 * The state file is JSON (json-c does every escape), with a format name and a version; a
 * file of another version (1 was a text format) is refused, not guessed at:
 *
 *	{
 *	  "format": "lathound-state",
 *	  "version": 2,
 *	  "about": "tracefs knobs as they were before lathound changed them ...",
 *	  "pid": 1234,
 *	  "started_ns": 1764439200123456789,
 *	  "tracing_dir": "/sys/kernel/tracing",
 *	  "entries": [
 *	    { "kind": "value", "path": "tracing_on", "value": "1\n" },
 *	    { "kind": "list", "path": "set_ftrace_filter", "value": "schedule\nvfs_read\n" },
 *	    { "kind": "kprobe", "path": "lathound/do_sys_open",
 *	      "value": "p:lathound/do_sys_open do_sys_open" }
 *	  ]
 *	}
 *
 * A file cut short is not valid JSON, and is refused.
 */
#ifndef LH_STATE_H
#define LH_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/util.h"

#define LH_STATE_VERSION	2

enum lh_state_kind {
	LH_STATE_VALUE,		/* one-value knob: written back as it was read */
	LH_STATE_LIST,		/* set_ftrace_filter...: cleared, each line written back */
	LH_STATE_KPROBE,	/* a kprobe lathound created ("group/event"): removed */
};

struct lh_state_entry {
	enum lh_state_kind	kind;
	/* relative to the tracing dir; "group/event" for a kprobe */
	char			*path;
	/* as read (a list: one item a line); for a kprobe, its definition */
	char			*value;
};

struct lh_state {
	pid_t			pid;		/* the lathound that saved it */
	uint64_t		started_ns;	/* CLOCK_REALTIME when it was saved */
	char			*tracing_dir;	/* the tracefs it was saved from (absolute) */
	struct lh_state_entry	*entries;
	size_t			nr;
	size_t			alloc;
};

/* Return: an empty state for this process; free with lh_state_free(). */
struct lh_state *lh_state_alloc(void);
void lh_state_free(struct lh_state *st);

/*
 * Adds an entry, copying path and value. A path already saved keeps its first value (the
 * one from before lathound touched it). Return: 0, or -1 (EINVAL: path not a plain
 * relative tracefs path).
 */
int lh_state_add(struct lh_state *st, enum lh_state_kind kind, const char *path,
		 const char *value);
/* Return: the entry saved for path, or NULL (borrowed). */
const struct lh_state_entry *lh_state_find(const struct lh_state *st, const char *path);

/*
 * Reads the current content of path (top-level instance) and adds it with lh_state_add().
 * For LH_STATE_LIST the kernel's "#### all functions enabled ####" is saved as empty and
 * "func [module]" lines as "func:mod:module", so that they can be written back.
 * Return: 0, or -1 with the reason in diag ("cannot read 'set_ftrace_filter': ...").
 */
int lh_state_save(struct lh_state *st, enum lh_state_kind kind, const char *path,
		  struct lh_diag *diag);

/*
 * Gives every saved knob back to the top-level instance, in an order the kernel accepts:
 * tracing_on off, current_tracer, tracing_thresh / tracing_max_latency / buffer_size_kb,
 * options, filters, event enables, kprobes removed, tracing_on last. Goes on after a
 * failure so that as much as possible is restored.
 * Return: 0, or -1 when an entry could not be restored (each one reported in diag).
 */
int lh_state_restore(const struct lh_state *st, struct lh_diag *diag);

/* Return: the state file text (malloc'd, NUL-terminated, caller frees); *len its size. */
char *lh_state_format(const struct lh_state *st, size_t *len);
/*
 * Parses a state file's text; name is used in messages. Return: 0 and *st (free with
 * lh_state_free()), or -1 with "corrupt state file 'NAME': ..." (or the version it has) in
 * diag.
 */
int lh_state_parse(const char *buf, size_t len, const char *name, struct lh_state **st,
		   struct lh_diag *diag);

/*
 * Writes the state file name in the directory open at dfd through lh_lockfile_write_buf()
 * (an exclusive temporary file, fsync'd, renamed over it, the directory fsync'd): after a
 * crash it holds either the old or the complete new state. path names it in messages.
 * Return: 0, or -1 with the reason in diag (EINVAL: st has no tracing_dir).
 */
int lh_state_write_file(const struct lh_state *st, int dfd, const char *name, const char *path,
			struct lh_diag *diag);
/*
 * Reads the state file name in the directory open at dfd (AT_FDCWD and a path will do),
 * never through a link or from a FIFO. Its values are written into tracefs as root, so a
 * file that is not regular, or that is owned by another user, writable by group or others,
 * or hard-linked (lh_check_trusted()) is refused. path names it in messages.
 * Return: 1 and *st (caller frees), 0 when there is no such file, -1 when it cannot be
 * read, is refused or is corrupt (diag says why).
 */
int lh_state_read_file(int dfd, const char *name, const char *path, struct lh_state **st,
		       struct lh_diag *diag);

/*
 * Reads a one-line knob of the top-level instance ("current_tracer") into buf, without its
 * newline, truncated to len. Return: 0, or -1 with errno (ENODATA: empty or unreadable).
 */
int lh_state_read_knob(const char *path, char *buf, size_t len);

/*
 * Return: whether path exists under the tracing dir. (libtracefs 1.6's
 * tracefs_file_exists(NULL, ...) looks in the mounted tracefs even after
 * tracefs_set_tracing_dir(), which the fake trees of the tests rely on.)
 */
bool lh_state_knob_exists(const char *path);

/*
 * Removes the tracefs instance inst, named name (tracefs_instance_destroy()); one that is
 * gone afterwards (lh_state_knob_exists()) counts as removed. inst stays allocated.
 * Return: 0, or -1 with errno.
 */
struct tracefs_instance;
int lh_state_instance_remove(struct tracefs_instance *inst, const char *name);
/*
 * Creates lathound's instance name with tracing off (to be set up, then started); one of that
 * name left by an earlier process with our pid is removed first.
 * Return: the instance (give it back with lh_state_instance_destroy()), or NULL with the
 * reason in diag.
 */
struct tracefs_instance *lh_state_instance_create(const char *name, struct lh_diag *diag);
/*
 * Removes the instance lathound created for this run (lh_state_instance_remove()) and frees
 * inst; NULL: nothing to do. Return: 0, or -1 with "cannot remove tracefs instance 'NAME':
 * ... (remove it with 'lathound reset')" in diag.
 */
int lh_state_instance_destroy(struct tracefs_instance *inst, const char *name,
			      struct lh_diag *diag);

/* Return: the pid that follows prefix in name (1 to 9 digits, then term), or 0. */
int lh_state_name_pid(const char *name, const char *prefix, char term);
/*
 * Removes each instance PREFIX<pid> of the tracing dir whose lathound no longer runs (a run
 * killed with SIGKILL) with remove(name) (0, or -1 with errno). Call with the session lock
 * held. Return: instances removed, or -1 when one could not be ("cannot remove tracefs
 * instance 'NAME' left by a killed run: ...", a warning in diag).
 */
int lh_state_remove_stale_instances(const char *prefix, int (*remove)(const char *name),
				    struct lh_diag *diag);

/*
 * Looks "group/event" up in kprobe_events. Return: 1 and its probe address in addr,
 * 0 when it is not defined (or there are no kprobe events), -1 when kprobe_events
 * cannot be read (errno).
 */
int lh_state_kprobe_find(const char *path, char *addr, size_t len);

/* Return: the restore rank of an entry (lower restores first); exposed for tests. */
int lh_state_rank(const struct lh_state_entry *e);

#endif /* LH_STATE_H */
