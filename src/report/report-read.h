/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reader's insides (report-load.h), shared by its files: report-load.c (the loader: one
 * report after another, the board and run checks, the gates chosen and judged again),
 * report-read.c (a field read: present, of its type, in range, made inert, its path named in
 * errors), report-read-sections.c (the report's sections into the model, checked against each
 * other) and report-read-records.c (the records kept in full, checked against its counts).
 * Not for other modules.
 */
#ifndef LH_REPORT_READ_H
#define LH_REPORT_READ_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "report-fold.h"
#include "report-load.h"
#include "report-priv.h"

/* One input's identity, for the checks that reports merged are of one board. */
struct lh_report_loader_input {
	char	*name;
	char	*board;
	char	*host;
	char	*kernel;
	char	*run_id;
};

struct lh_report_loader {
	struct lh_report_load_opts	o;
	struct lh_report		*rep;
	struct lh_htab			runs;		/* run ids read (lh_report_run_seen()) */
	unsigned long			seq;		/* records read, in order */
	size_t				max_kept;
	struct lh_report_loader_input	*inputs;
	size_t				nr_inputs;
	size_t				alloc_inputs;
	char				**merged;	/* what merged_from will say */
	size_t				nr_merged;
	size_t				alloc_merged;
	/* the first report's gate, and whether another one's differs */
	struct lh_gate			gate;
	bool				budgets_differ;
	bool				fail_on_differ;
	char				*differ;	/* the report that differs first */
	/* a single report's own verdict, to check that its data reach it */
	char				*verdict;
};

/* What reading one report needs: its name, where problems go, the field being read. */
struct lh_report_read {
	struct lh_report_loader	*l;
	struct lh_report	*rep;
	const char		*name;
	struct lh_diag		*diag;
	char			path[256];
	size_t			len;
	uint64_t		tracer_counts;	/* this report's tracers' counts, summed */
	/* this report's own counts, which its kept records must fit */
	struct lh_report_read_own_tracer {
		uint64_t	count, accepted;
		uint64_t	worst_us, gate_us;	/* of worst and worst_gated (0: null) */
		uint64_t	kept, kept_accepted;
	}			tracer[LH_TRACER_NR];
	struct lh_report_read_own_rule {
		bool		listed;
		uint64_t	hits, accepted, worst_us, gate_worst_us;
		uint64_t	kept, kept_accepted;
	}			*rule;		/* by rule index */
	size_t			nr_rule, alloc_rule;
	/* its rules as it lists them, for the error its own gate derives (error_kind_of()) */
	struct lh_report_undecided *listed;
	struct lh_rule		*listed_desc;
	size_t			nr_listed, alloc_listed, alloc_listed_desc;
	bool			failed;
};

/* The lh_report_fold_ops of the reading c, folding parts p (problems are c's errors). */
#define LH_REPORT_READ_OPS(c, p)							\
	{ .overflow = lh_report_read_fold_overflow, .misfit = lh_report_read_fold_misfit,\
	  .arg = (c), .parts = (p) }

/*
 * sum += n, where sum adds up what several reports count, or the load fails: a sum past 2^64
 * must not read as a small one, which gates would judge again (it stays at its largest).
 */
#define LH_REPORT_READ_ADD_COUNT(c, key, sum, n)					\
	do {										\
		if (LH_ADD_CHECKED(sum, n))						\
			lh_report_read_overflowed((c), (key));				\
	} while (0)

/*
 * A problem of field key (NULL: of the path being read) as an error in c's diag, which names
 * the report and the path; the reading has then failed.
 */
void __attribute__((format(printf, 3, 4)))
lh_report_read_bad(struct lh_report_read *c, const char *key, const char *fmt, ...);
/* Appends ".seg" (or "[i]" when seg is NULL) to the path. Return: the length to pop to. */
size_t lh_report_read_push(struct lh_report_read *c, const char *seg, size_t i);
void lh_report_read_pop(struct lh_report_read *c, size_t len);
/*
 * Return: member key of o, which must be there and of type want (a number may be an
 * integer); NULL when it is null and nullable, or after an error.
 */
json_object *lh_report_read_member(struct lh_report_read *c, json_object *o, const char *key,
				   json_type want, bool nullable);
uint64_t lh_report_read_u64(struct lh_report_read *c, json_object *o, const char *key);
/* An int, null (nullable) being -1. */
int lh_report_read_int(struct lh_report_read *c, json_object *o, const char *key, bool nullable);
bool lh_report_read_bool(struct lh_report_read *c, json_object *o, const char *key);
/* A number of unit (1000: us, 1e9: s) as ns, exact to the ns the writers keep. */
uint64_t lh_report_read_number_ns(struct lh_report_read *c, json_object *v, const char *key,
				  double unit);
uint64_t lh_report_read_ns(struct lh_report_read *c, json_object *o, const char *key, double unit);
/* Return: s[0..len) made inert (lh_record_escape()), in arena a. */
char *lh_report_read_inert(struct lh_arena *a, const char *s, size_t len);
/* A string or null (nullable), inert, in arena a. */
const char *lh_report_read_str(struct lh_report_read *c, json_object *o, const char *key,
			       bool nullable, struct lh_arena *a);
/* "2026-11-29T18:00:01Z" or null as CLOCK_REALTIME ns (0: null). */
uint64_t lh_report_read_time(struct lh_report_read *c, json_object *o, const char *key);
/* A "FILE:LINE" source (or FILE alone) into *file (in arena a) and *line. */
void lh_report_read_source(struct lh_report_read *c, json_object *o, const char *key,
			   struct lh_arena *a, const char **file, unsigned long *line);
/*
 * A count the report states (key) against the values it lists ("the buckets count"): a
 * report that contradicts itself is not one lathound wrote.
 */
void lh_report_read_same_count(struct lh_report_read *c, const char *key, uint64_t count,
			       const char *what, uint64_t counted);
/* What this report adds to those read before could not be added: key names it. */
void lh_report_read_overflowed(struct lh_report_read *c, const char *key);
void lh_report_read_misfitted(struct lh_report_read *c, const char *key);
/* (lh_report_fold_ops: the field is of the section being read) */
void lh_report_read_fold_overflow(void *arg, const struct lh_report_fold_at *at);
void lh_report_read_fold_misfit(void *arg, const struct lh_report_fold_at *at);
/* Return: the tracer a key or field names: a known one, "unknown", or (any) unknown. */
enum lh_tracer lh_report_read_tracer_of(const char *name, bool *known);
/* Return: array key of o (length in *n), or NULL (n 0). */
json_object *lh_report_read_array(struct lh_report_read *c, json_object *o, const char *key,
				  size_t *n);
/* Return: element i of a when it is an object; else NULL after an error. */
json_object *lh_report_read_element(struct lh_report_read *c, json_object *a, size_t i);
/* Return: this report's counts of rule idx (zero until its entry is read). */
struct lh_report_read_own_rule *lh_report_read_own_rule(struct lh_report_read *c, size_t idx);

/* The report's sections, read into the report being built (report-read-sections.c). */
/* Each tracer is read into a tracer of its own, then folded into the report's. */
void lh_report_read_tracers(struct lh_report_read *c, json_object *root);
/* Each rule is read into counters of its own, then folded into the report's rule of its id. */
void lh_report_read_rules(struct lh_report_read *c, json_object *root);
void lh_report_read_offenders(struct lh_report_read *c, json_object *root);
void lh_report_read_input(struct lh_report_read *c, json_object *root);
/* The run: its fields into *run (strings in the report's arena). Return: false when null. */
bool lh_report_read_run(struct lh_report_read *c, json_object *root, const char *mode,
			struct lh_run_info *run, uint64_t *duration_ns);
void lh_report_read_irq_stats(struct lh_report_read *c, json_object *root);
void lh_report_read_hists(struct lh_report_read *c, json_object *root);
void lh_report_read_gate(struct lh_report_read *c, json_object *root, struct lh_gate *g);
/* The records kept in full, each checked against the report's counts (report-read-records.c). */
void lh_report_read_records(struct lh_report_read *c, json_object *root);

#endif /* LH_REPORT_READ_H */
