// SPDX-License-Identifier: GPL-2.0-only
/* Rule files (stub). */
#include <stdlib.h>
#include "rules.h"

struct lh_rules {
	size_t nr;
};

struct lh_rules *lh_rules_alloc(void) { return lh_xcalloc(1, sizeof(struct lh_rules)); }
void lh_rules_free(struct lh_rules *rs) { free(rs); }
int lh_rules_load(struct lh_rules *rs, const char *path, struct lh_diag *diag) { return 0; }
int lh_rules_load_buffer(struct lh_rules *rs, const char *file, const char *buf, size_t len,
			 struct lh_diag *diag) { return 0; }
size_t lh_rules_count(const struct lh_rules *rs) { return 0; }
const struct lh_rule *lh_rules_get(const struct lh_rules *rs, size_t i) { return NULL; }
void lh_match_release(struct lh_match *m) { free(m->hits); }
int lh_rules_match(struct lh_rules *rs, const struct lh_record *r, struct lh_match *m,
		   struct lh_diag *diag) { m->nr_hits = 0; return 0; }
const char *lh_severity_name(enum lh_severity s) { return "warning"; }
int lh_severity_parse(const char *name, enum lh_severity *s) { return -1; }
