// SPDX-License-Identifier: GPL-2.0-only
/* Reports and gates (stub). */
#include <stdlib.h>
#include "report.h"

struct lh_report {
	int dummy;
};

void lh_gate_init(struct lh_gate *g) { }
int lh_gate_parse_max(struct lh_gate *g, const char *arg, const char **err) { return -1; }
int lh_gate_parse_fail_on(struct lh_gate *g, const char *arg, const char **err) { return -1; }
int lh_format_parse(const char *name, enum lh_format *f) { return -1; }
struct lh_report *lh_report_alloc(const struct lh_rules *rules, const struct lh_report_opts *o)
{ return lh_xcalloc(1, sizeof(struct lh_report)); }
void lh_report_free(struct lh_report *rep) { free(rep); }
int lh_report_add(struct lh_report *rep, const struct lh_record *r, const struct lh_match *m)
{ return 0; }
void lh_report_add_parse_stats(struct lh_report *rep, const struct lh_parse_stats *st) { }
void lh_report_add_diag(struct lh_report *rep, const struct lh_diag *d) { }
void lh_report_set_run(struct lh_report *rep, const struct lh_run_info *run) { }
bool lh_report_evaluate(struct lh_report *rep, const struct lh_gate *g) { return true; }
int lh_report_write(struct lh_report *rep, enum lh_format f, FILE *out) { return 0; }
uint64_t lh_report_worst_us(const struct lh_report *rep, enum lh_tracer t) { return 0; }
unsigned long lh_report_records(const struct lh_report *rep) { return 0; }
unsigned long lh_report_rule_hits(const struct lh_report *rep) { return 0; }
