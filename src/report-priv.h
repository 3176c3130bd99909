/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report's insides, shared by report.c (aggregation, gate) and its writers
 * (report-text.c, report-json.c, report-junit.c). Not for other modules.
 */
#ifndef LH_REPORT_PRIV_H
#define LH_REPORT_PRIV_H

#include "report.h"
#include "htab.h"

#define LH_REPORT_MAX_CPUS	8192	/* CPUs with a progression; higher ones are not tracked */

/* Where a tracer's worst section was, copied out of the record (truncated). */
struct lh_report_where {
	bool		set;
	uint64_t	latency_us;
	int		cpu;
	int		pid;
	char		comm[32];
	char		started[128];
	char		ended[128];
	const char	*source;	/* interned */
	unsigned long	line;
	char		irq[64];	/* its longest IRQ handler: "fakeraid (irq 24, 2001us)" */
	char		rule[96];	/* its most severe rule: "raid-irq-held (critical)" */
};

/* One step of a (tracer, CPU) progression of maxima. */
struct lh_report_step {
	int		cpu;
	uint64_t	latency_us;
	uint64_t	at_ns;		/* CLOCK_REALTIME, 0 when unknown */
	const char	*source;	/* interned */
	unsigned long	line;
};

struct lh_report_cpu {
	bool		seen;
	uint64_t	max_us;
	unsigned int	steps;
};

struct lh_report_tracer {
	unsigned long		count;
	unsigned long		accepted;
	struct lh_report_where	worst;		/* over every record */
	struct lh_report_where	gate;		/* over records not accepted: what --max sees */
	struct lh_report_cpu	*cpus;		/* indexed by cpu + 1 (slot 0: unknown CPU) */
	size_t			nr_cpus;	/* slots allocated, all initialised */
	struct lh_report_step	*steps;
	size_t			nr_steps;
	size_t			alloc_steps;
	unsigned long		steps_dropped;
};

/* Records grouped by signature (record.h). */
struct lh_report_offender {
	uint64_t		hash;		/* lh_signature_hash(&sig) */
	const char		*signature;	/* lh_signature_text(&sig) */
	struct lh_signature	sig;		/* strings in the report's arena */
	unsigned long		count;
	unsigned long		accepted;
	uint64_t		worst_us;
};

struct lh_report_rule {
	unsigned long	hits;
	unsigned long	accepted;	/* hits on records an 'ignore' rule accepted */
	uint64_t	worst_us;
	unsigned long	gate_hits;	/* hits on records not accepted */
	uint64_t	gate_worst_us;
	struct lh_report_where	gate_where;	/* the worst of those */
	unsigned long	unevaluated;	/* records in its scope it could not be evaluated on */
	unsigned long	gate_unevaluated;	/* of those, records not accepted */
};

/* A record kept in full, with its match. */
struct lh_report_kept {
	struct lh_record	*rec;
	unsigned int		prio;		/* 1 + severity of a non-accepted hit, else 0 */
	unsigned long		seq;		/* arrival order */
	size_t			*hits;
	size_t			nr_hits;
	size_t			*unevaluated;	/* rules it could not be evaluated against */
	size_t			nr_unevaluated;
	bool			accepted;
	bool			has_worst;
	enum lh_severity	worst;
	const char		*signature;	/* in rec's arena */
};

struct lh_report {
	struct lh_rules			*rules;
	size_t				nr_rules;
	struct lh_report_opts		opts;
	struct lh_arena			arena;		/* interned strings, offender texts */

	const char			*source;	/* the last record's, in the arena */

	unsigned long			total;
	unsigned long			rule_hit_records;
	unsigned long			accepted_records;
	unsigned long			unevaluated_records;	/* a rule could not be evaluated */
	struct lh_report_tracer		tracers[LH_TRACER_NR];

	struct lh_report_offender	*offenders;
	size_t				nr_offenders;
	size_t				alloc_offenders;
	struct lh_htab			offender_htab;	/* offenders by signature hash */
	unsigned long			other_count;
	unsigned long			other_accepted;
	uint64_t			other_worst_us;

	struct lh_report_rule		*rule_agg;	/* nr_rules slots, all initialised */

	struct lh_report_kept		**heap;		/* min-heap: the first to drop on top */
	size_t				nr_heap;
	size_t				alloc_heap;

	struct lh_parse_stats		parse;
	struct lh_report_input		*inputs;	/* strings in the arena */
	size_t				nr_inputs;
	size_t				alloc_inputs;
	size_t				inputs_unread;	/* with a problem, not accepted */
	size_t				inputs_accepted;	/* with a problem, accepted */
	char				**warnings;
	size_t				nr_warnings;
	size_t				alloc_warnings;
	unsigned long			warnings_total;

	bool				has_run;
	struct lh_run_info		run;

	struct lh_match			match;
	struct lh_diag			own_diag;
	size_t				own_merged_msgs;	/* of own_diag, in warnings */
	unsigned long			own_merged_count;

	uint64_t			created_ns;	/* CLOCK_REALTIME: when analyze began */
	bool				evaluated;
	bool				passed;
	char				*error;		/* lh_report_set_error(), or NULL */
	struct lh_gate			gate;
	char				**violations;
	size_t				nr_violations;
	size_t				alloc_violations;
};

/* Return: the kept records, most important first (free the array, not the records). */
struct lh_report_kept **lh_report_kept_sorted(const struct lh_report *rep);
/* Return: indices of the offenders, worst first (free it). */
size_t *lh_report_offenders_sorted(const struct lh_report *rep);
/*
 * Return: the violation text for tracer t under its --max budget, or NULL when it passes or
 * has none (free it).
 */
char *lh_report_max_violation(const struct lh_report *rep, enum lh_tracer t);
/* Return: the violation text for rule i under --fail-on, or NULL when it passes (free it). */
char *lh_report_rule_violation(const struct lh_report *rep, size_t i);
/*
 * Return: why the verdict cannot be decided because of rules that could not be evaluated on
 * records the gate depends on (gated rules, records not accepted), or NULL (free it).
 */
char *lh_report_unevaluated_error(const struct lh_report *rep);
/* Return: true when rule i can fail the gate (severity at or above --fail-on, not ignore). */
bool lh_report_rule_gated(const struct lh_report *rep, size_t i);
/* The record's tracer as written ("irqsoff", or the unknown name). Return: static or r's. */
const char *lh_report_tracer_name(const struct lh_record *r);

/*
 * Where w was, for a reader who must find it: "source: f.trace:1\nsection: a -> b\n..."
 * (lines without a trailing newline), with its most severe rule when with_rule. Return: the text (free it).
 */
char *lh_report_where_text(const struct lh_report_where *w, bool with_rule);

/* Return: us in ns, saturating: a latency read from a trace may be absurdly large. */
static inline uint64_t lh_report_us_to_ns(uint64_t us)
{
	return us > UINT64_MAX / 1000 ? UINT64_MAX : us * 1000;
}

/* "2002us", "1.5us": µs from ns, exact. Return: buf. */
char *lh_report_fmt_us(uint64_t ns, char *buf, size_t len);
/* "2026-11-29T18:00:01Z", or NULL when ns is 0. Return: buf or NULL. */
char *lh_report_iso8601(uint64_t ns, char *buf, size_t len);

/*
 * The writers' last step, once errno was zeroed before writing: Return: 0, or -1 with
 * errno set (EIO when the stream failed without saying why) when out has an error.
 */
int lh_report_stream_status(FILE *out);

/* The writers behind lh_report_write(). Return: 0, or -1 with errno when writing failed. */
int lh_report_write_text(struct lh_report *rep, FILE *out);
int lh_report_write_json(struct lh_report *rep, FILE *out);
int lh_report_write_junit(struct lh_report *rep, FILE *out);

#endif /* LH_REPORT_PRIV_H */
