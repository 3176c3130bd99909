/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet report's insides that its writers (merge-write.c) read from its fold and gates
 * (merge.c). Not for other modules.
 */
#ifndef LH_MERGE_PRIV_H
#define LH_MERGE_PRIV_H

#include <stddef.h>

#include "merge.h"
#include "report-priv.h"

/* Return: the rules the fleet has (by id, in the order first folded). */
static inline size_t lh_merge_nr_rules(const struct lh_merge *m)
{
	return lh_rules_count(m->fleet->own_rules);
}

/* Return: the fleet's counters of rule i (none while it has not hit). */
static inline const struct lh_report_rule *lh_merge_rule(const struct lh_merge *m, size_t i)
{
	static const struct lh_report_rule none;

	return i < m->fleet->nr_rules ? &m->fleet->rule_agg[i] : &none;
}

/* Return: the fleet's tracer t. */
static inline const struct lh_report_tracer *lh_merge_fleet_tracer(const struct lh_merge *m,
								    enum lh_tracer t)
{
	return &m->fleet->tracers[t];
}

/* s cut to at most w bytes, "..." ending it when cut. Return: buf (w + 1 bytes at least). */
char *lh_merge_fit(const char *s, size_t w, char *buf);

/*
 * Return: a host as people name it: "board (host)", "board", "host", or "-", cut to fit buf
 * (len bytes), never within a UTF-8 character. Return: buf.
 */
char *lh_merge_host_name(const struct lh_merge_host *h, char *buf, size_t len);

/*
 * Return: why --min-available cannot judge host h (lh_report_available_unmeasured() of its
 * CPUs), or NULL when it can or m has no minimum (free it).
 */
char *lh_merge_host_unjudged(const struct lh_merge *m, const struct lh_merge_host *h);

#endif /* LH_MERGE_PRIV_H */
