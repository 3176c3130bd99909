// SPDX-License-Identifier: GPL-2.0-only
/* Latency snapshot parser (stub). */
#include <stdlib.h>
#include "parse.h"

struct lh_parser {
	struct lh_parse_stats	stats;
	struct lh_diag		*diag;
};

struct lh_parser *lh_parser_alloc(struct lh_diag *diag)
{
	struct lh_parser *p = lh_xcalloc(1, sizeof(*p));

	p->diag = diag;
	return p;
}

void lh_parser_free(struct lh_parser *p)
{
	free(p);
}

int lh_parse_buffer(struct lh_parser *p, const char *source, const char *buf, size_t len,
		    lh_record_fn fn, void *arg)
{
	return 0;
}

const struct lh_parse_stats *lh_parser_stats(const struct lh_parser *p)
{
	return &p->stats;
}
