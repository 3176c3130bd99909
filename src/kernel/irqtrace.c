// SPDX-License-Identifier: GPL-2.0-only
/*
 * irq_handler_entry/exit in lathound's own tracefs instance, read from the per-CPU
 * trace_pipe_raw files and decoded with libtraceevent into lh_irqstat.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "irqtrace.h"
#include "ringbuf.h"
#include "state.h"

struct lh_irqtrace {
	char			name[32];
	struct tracefs_instance	*inst;
	struct tep_handle	*tep;
	struct lh_ringbuf	*rb;
	struct lh_irqstat	*st;

	int			entry_id;
	int			exit_id;
	struct tep_format_field	*entry_irq;
	struct tep_format_field	*entry_name;
	struct tep_format_field	*exit_irq;

	uint64_t		missed;		/* losses the sub-buffers reported */
	uint64_t		overruns;	/* losses the per-CPU stats reported */
	uint64_t		lost_reported;	/* what lh_irqstat already counts */

	uint64_t		last_read_ns;
	uint64_t		last_busiest;	/* bytes of the busiest CPU in the last read */
	uint64_t		last_span_ns;	/* time those bytes accumulated in */
};

/*
 * A tep that knows the ring-buffer page header and the two irq events, and nothing else
 * (lh_ringbuf_tep()): no 20 MB of /proc/kallsyms for symbols that these events never print.
 */
static struct tep_handle *load_formats(struct lh_diag *diag)
{
	static const char *const events[] = { "irq_handler_entry", "irq_handler_exit" };
	struct tep_handle *tep = lh_ringbuf_tep(diag);
	char *buf;
	size_t i;
	int size;

	for (i = 0; tep && i < LH_ARRAY_SIZE(events); i++) {
		buf = tracefs_event_file_read(NULL, "irq", events[i], "format", &size);
		if (!buf || tep_parse_event(tep, buf, (unsigned long)size, "irq")) {
			lh_diag_add(diag, LH_DIAG_ERROR,
				    "cannot read the format of '%s' (this kernel needs irq:irq_handler_entry and irq:irq_handler_exit): %s",
				    events[i], strerror(errno ? errno : EINVAL));
			free(buf);
			tep_free(tep);
			return NULL;
		}
		free(buf);
	}
	return tep;
}

static int find_events(struct lh_irqtrace *t, struct lh_diag *diag)
{
	struct tep_event *entry, *exit_ev;

	entry = tep_find_event_by_name(t->tep, "irq", "irq_handler_entry");
	exit_ev = tep_find_event_by_name(t->tep, "irq", "irq_handler_exit");
	if (!entry || !exit_ev) {
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "this kernel has no 'irq:irq_handler_entry' and 'irq:irq_handler_exit' events (CONFIG_TRACEPOINTS)");
		return -1;
	}
	t->entry_id = entry->id;
	t->exit_id = exit_ev->id;
	t->entry_irq = tep_find_field(entry, "irq");
	t->entry_name = tep_find_field(entry, "name");
	t->exit_irq = tep_find_field(exit_ev, "irq");
	if (!t->entry_irq || !t->entry_name || !t->exit_irq ||
	    !(t->entry_name->flags & TEP_FIELD_IS_DYNAMIC)) {
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "unexpected format of 'irq:irq_handler_entry' (no 'irq' or '__data_loc name' field)");
		return -1;
	}
	return 0;
}

int lh_irqtrace_create(struct lh_irqtrace **tp, struct lh_irqstat *st, struct lh_diag *diag)
{
	struct lh_irqtrace *t = lh_xcalloc(1, sizeof(*t));

	*tp = NULL;
	t->st = st;
	snprintf(t->name, sizeof(t->name), LH_IRQTRACE_PREFIX "%d", (int)getpid());
	/* Off while it is set up; the events are enabled, then tracing starts. */
	t->inst = lh_state_instance_create(t->name, diag);
	if (!t->inst)
		goto fail;
	t->tep = load_formats(diag);
	if (!t->tep)
		goto fail;
	if (find_events(t, diag))
		goto fail;
	if (lh_ringbuf_open(&t->rb, t->inst, t->name, t->tep, diag))
		goto fail;

	if (tracefs_event_enable(t->inst, "irq", "irq_handler_entry") ||
	    tracefs_event_enable(t->inst, "irq", "irq_handler_exit")) {
		lh_diag_add(diag, LH_DIAG_ERROR,
			    "cannot enable the irq handler events in instance '%s': %s", t->name,
			    strerror(errno));
		goto fail;
	}
	if (tracefs_trace_on(t->inst)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "cannot start tracing in instance '%s': %s",
			    t->name, strerror(errno));
		goto fail;
	}
	t->last_read_ns = lh_now_ns();
	*tp = t;
	return 0;
fail:
	lh_irqtrace_destroy(t, diag);
	return -1;
}

int lh_irqtrace_destroy(struct lh_irqtrace *t, struct lh_diag *diag)
{
	int ret = 0;

	if (!t)
		return 0;
	if (t->inst)
		tracefs_trace_off(t->inst);
	/* The per-CPU files must be closed first, or removing the instance fails (EBUSY). */
	lh_ringbuf_close(t->rb);
	if (lh_state_instance_destroy(t->inst, t->name, diag))
		ret = -1;
	tep_free(t->tep);
	free(t);
	return ret;
}

static void decode(void *arg, int cpu, void *data, int size, uint64_t ts)
{
	struct lh_irqtrace *t = arg;
	struct tep_record rec = { .ts = ts, .data = data, .size = size, .cpu = cpu };
	char name[LH_IRQSTAT_NAME];
	unsigned long long irq;
	int type;

	if (size < 8)
		return;
	type = tep_data_type(t->tep, &rec);
	if (type == t->entry_id) {
		if (tep_read_number_field(t->entry_irq, data, &irq))
			return;
		lh_irqstat_entry(t->st, cpu, (int)irq,
				 lh_ringbuf_dyn_string(t->entry_name, data, size, name,
							sizeof(name)), ts);
	} else if (type == t->exit_id) {
		if (tep_read_number_field(t->exit_irq, data, &irq))
			return;
		lh_irqstat_exit(t->st, cpu, (int)irq, ts);
	}
}

/* Sums 'overrun', 'commit overrun' and 'dropped events' of every CPU's stats file. */
static int read_overruns(struct lh_irqtrace *t, uint64_t *total)
{
	static const char *const keys[] = { "overrun:", "commit overrun:", "dropped events:" };
	char file[64];
	int cpu, size;
	size_t k;

	*total = 0;
	for (cpu = 0; cpu < lh_ringbuf_nr_cpus(t->rb); cpu++) {
		char *text, *line;

		if (!lh_ringbuf_has_cpu(t->rb, cpu))
			continue;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(t->inst, file, &size);
		if (!text)
			return -1;
		for (line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
			for (k = 0; k < LH_ARRAY_SIZE(keys); k++)
				if (!strncmp(line, keys[k], strlen(keys[k])))
					*total += strtoull(line + strlen(keys[k]), NULL, 10);
		free(text);
	}
	return 0;
}

/* A sub-buffer says events were lost on cpu before it. */
static void lost_events(void *arg, int cpu, uint64_t missed)
{
	struct lh_irqtrace *t = arg;

	t->missed += missed;
	lh_irqstat_lost_on_cpu(t->st, cpu, 0);
}

long lh_irqtrace_read(struct lh_irqtrace *t, int sync_lost, struct lh_diag *diag)
{
	uint64_t now = lh_now_ns(), busiest = 0, lost;
	long events;

	events = lh_ringbuf_read(t->rb, decode, lost_events, t, &busiest, diag);
	if (events < 0)
		return -1;
	t->last_busiest = busiest;
	t->last_span_ns = now - t->last_read_ns;
	t->last_read_ns = now;

	if (sync_lost) {
		uint64_t over;

		if (read_overruns(t, &over) == 0 && over > t->overruns)
			t->overruns = over;
	}
	/* The pages and the stats see the same losses two ways: count the larger. */
	lost = t->missed > t->overruns ? t->missed : t->overruns;
	if (lost > t->lost_reported) {
		lh_irqstat_add_lost(t->st, lost - t->lost_reported);
		t->lost_reported = lost;
	}
	return events;
}

uint64_t lh_irqtrace_interval(const struct lh_irqtrace *t, uint64_t min_ns, uint64_t max_ns)
{
	double quarter = (double)lh_ringbuf_bytes(t->rb) / 4, ns;

	if (!t->last_busiest || !t->last_span_ns)
		return max_ns;
	/* Time for the busiest CPU to fill a quarter of its buffer at the last rate. */
	ns = quarter / (double)t->last_busiest * (double)t->last_span_ns;
	if (ns < (double)min_ns)
		return min_ns;
	if (ns > (double)max_ns)
		return max_ns;
	return (uint64_t)ns;
}

/* Removes a killed run's instance: its events only fed the ring buffer. */
static int remove_stale_instance(const char *name)
{
	struct tracefs_instance *inst = tracefs_instance_alloc(NULL, name);
	int ret;

	if (!inst)
		return -1;
	ret = lh_state_instance_remove(inst, name);
	tracefs_instance_free(inst);
	return ret;
}

int lh_irqtrace_remove_stale(struct lh_diag *diag)
{
	return lh_state_remove_stale_instances(LH_IRQTRACE_PREFIX, remove_stale_instance, diag);
}
