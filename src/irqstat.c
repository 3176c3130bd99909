// SPDX-License-Identifier: GPL-2.0-only
/* Per-IRQ handler statistics (stub). */
#include <stdlib.h>
#include "irqstat.h"
#include "util.h"

struct lh_irqstat {
	size_t nr;
};

struct lh_irqstat *lh_irqstat_alloc(void) { return lh_xcalloc(1, sizeof(struct lh_irqstat)); }
void lh_irqstat_free(struct lh_irqstat *st) { free(st); }
void lh_irqstat_entry(struct lh_irqstat *st, int cpu, int irq, const char *name, uint64_t ts) { }
void lh_irqstat_exit(struct lh_irqstat *st, int cpu, int irq, uint64_t ts) { }
void lh_irqstat_add(struct lh_irqstat *st, int cpu, int irq, const char *name, uint64_t ns) { }
void lh_irqstat_add_lost(struct lh_irqstat *st, uint64_t lost) { }
size_t lh_irqstat_count(const struct lh_irqstat *st) { return 0; }
const struct lh_irqstat_entry *lh_irqstat_get(const struct lh_irqstat *st, size_t i) { return NULL; }
void lh_irqstat_sort(struct lh_irqstat *st) { }
uint64_t lh_irqstat_events(const struct lh_irqstat *st) { return 0; }
uint64_t lh_irqstat_lost(const struct lh_irqstat *st) { return 0; }
uint64_t lh_irqstat_dropped(const struct lh_irqstat *st) { return 0; }
uint64_t lh_irqstat_p99(const struct lh_irqstat_entry *e) { return 0; }
