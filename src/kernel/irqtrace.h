/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lathound's own tracefs instance, "lathound-<pid>", where irq:irq_handler_entry/exit are
 * recorded for the whole run and decoded with libtraceevent into an lh_irqstat. The
 * instance is created with tracing off, its events enabled, then started (as rtla does);
 * it is removed by lh_irqtrace_destroy(). A run that was killed leaves it behind under its
 * recognisable name: lh_irqtrace_remove_stale() removes such leftovers.
 * No printing: problems go to the caller's lh_diag.
 */
#ifndef LH_IRQTRACE_H
#define LH_IRQTRACE_H

#include <stdint.h>

#include "trace/irqstat.h"
#include "util/util.h"

/* Instance names are this prefix and the pid of the lathound that created them. */
#define LH_IRQTRACE_PREFIX	"lathound-"

struct lh_irqtrace;

/*
 * Creates and starts the instance LH_IRQTRACE_PREFIX<pid>; events feed st (borrowed for
 * the lifetime of *t). tracefs must be mounted (lh_session_create() does it).
 * Return: 0 and *t (free with lh_irqtrace_destroy()), or -1 with the reason in diag.
 */
int lh_irqtrace_create(struct lh_irqtrace **t, struct lh_irqstat *st, struct lh_diag *diag);

/*
 * Stops the instance, removes it from tracefs and frees t. NULL-safe; a failure to remove
 * the instance is added to diag with its name. Return: 0, or -1 when it could not be removed.
 */
int lh_irqtrace_destroy(struct lh_irqtrace *t, struct lh_diag *diag);

/*
 * Reads every event waiting in the instance's per-CPU ring buffers and accounts it in the
 * statistics, counting what the kernel lost. With sync_lost, also reads the per-CPU
 * 'stats' files (overrun, dropped events), which catch losses the pages do not report.
 * Return: events decoded, or -1 with the reason in diag.
 */
long lh_irqtrace_read(struct lh_irqtrace *t, int sync_lost, struct lh_diag *diag);

/*
 * How long the caller may wait before the next lh_irqtrace_read() without the busiest
 * CPU's buffer filling past a quarter, judged from the last reads (between min_ns and
 * max_ns). Return: ns.
 */
uint64_t lh_irqtrace_interval(const struct lh_irqtrace *t, uint64_t min_ns, uint64_t max_ns);

/*
 * Removes every LH_IRQTRACE_PREFIX<pid> instance whose lathound is no longer running (a
 * run killed with SIGKILL). Call with the session lock held. Return: instances removed,
 * or -1 when one could not be removed (a warning in diag says which).
 */
int lh_irqtrace_remove_stale(struct lh_diag *diag);

#endif /* LH_IRQTRACE_H */
