// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON report read back into the report model (report-load.h): json-c parses, the
 * report's sections are read (report-read-sections.c, report-read-records.c, through the field
 * readers of report-read.c) and folded into the report being built (report-fold.c); this file
 * reads one report after another, checks that they are of one board and not one run twice, and
 * chooses the gates and judges the result again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "report-read.h"
#include "trace/record.h"

/*
 * Memory is bounded by the input: a report larger than LH_REPORT_MAX_BYTES is refused, and so
 * is one whose json-c tree would take more than TREE_FACTOR times its size plus TREE_SLACK
 * (tree_bytes()): real reports take 5 to 18 times their size, 3 bytes of "{}," take 800.
 */
#define TREE_FACTOR		16
#define TREE_SLACK		(64ULL << 20)

static bool same_budgets(const struct lh_gate *a, const struct lh_gate *b)
{
	int t;

	if (a->has_min_available != b->has_min_available ||
	    (a->has_min_available && a->min_available_milli != b->min_available_milli))
		return false;
	for (t = 0; t < LH_TRACER_NR; t++)
		if (a->has_max[t] != b->has_max[t] ||
		    (a->has_max[t] && a->max_ns[t] != b->max_ns[t]))
			return false;
	return true;
}

/* The report's board and run, and whether they fit those read before. */
static void check_input(struct lh_report_read *c, const struct lh_run_info *run, const char *board)
{
	struct lh_report_loader *l = c->l;
	const char *kernel = run->kernel ? run->kernel : lh_report_kernel(l->rep);
	struct lh_report_loader_input *in;
	uint32_t first;
	size_t i;

	LH_GROW(l->inputs, l->nr_inputs + 1, l->alloc_inputs);
	in = &l->inputs[l->nr_inputs++];
	in->name = lh_xstrdup(c->name);
	in->board = board ? lh_xstrdup(board) : NULL;
	in->host = run->host ? lh_xstrdup(run->host) : NULL;
	in->kernel = kernel ? lh_xstrdup(kernel) : NULL;
	in->run_id = run->run_id ? lh_xstrdup(run->run_id) : NULL;
	if (lh_report_run_seen(&l->runs, in->run_id, (uint32_t)(l->nr_inputs - 1), &first)) {
		lh_report_read_bad(c, NULL,
				   "the same run (run_id %s) as '%s': merging would count it twice",
				   in->run_id, l->inputs[first].name);
		return;
	}
	for (i = 0; i + 1 < l->nr_inputs; i++) {
		const struct lh_report_loader_input *o = &l->inputs[i];

		if (!in->board != !o->board || (in->board && strcmp(in->board, o->board)))
			lh_report_read_bad(c, NULL, "board '%s', but '%s' is of board '%s': only reports of one board merge here",
					   in->board ? in->board : "(none)", o->name,
					   o->board ? o->board : "(none)");
		else if (in->host && o->host && strcmp(in->host, o->host))
			lh_report_read_bad(c, NULL, "host '%s', but '%s' is of host '%s': only reports of one board merge here",
					   in->host, o->name, o->host);
		else if (in->kernel && o->kernel && strcmp(in->kernel, o->kernel))
			lh_report_read_bad(c, NULL, "kernel '%s', but '%s' is of kernel '%s': only reports of one board merge here",
					   in->kernel, o->name, o->kernel);
		else
			continue;
		break;
	}
}

static void add_merged(struct lh_report_loader *l, const char *name)
{
	LH_GROW(l->merged, l->nr_merged + 1, l->alloc_merged);
	l->merged[l->nr_merged++] = lh_xstrdup(name);
}

/*
 * Return: the kind of this report's error err: LH_VERDICT_UNDECIDED when it is the error its
 * own gate g derives from its rules' counts (a claim checked against the data, as the
 * verdict is, never told by its words), else LH_VERDICT_RUN.
 */
static enum lh_verdict_kind error_kind_of(struct lh_report_read *c, const struct lh_gate *g,
					  const char *err)
{
	enum lh_verdict_kind kind = LH_VERDICT_RUN;
	char *derived;
	size_t i;

	/* (listed_desc may have moved while it grew: point at it now) */
	for (i = 0; i < c->nr_listed; i++)
		c->listed[i].rule = &c->listed_desc[i];
	derived = lh_report_undecided_error(c->listed, c->nr_listed, g);
	if (derived && !strcmp(derived, err))
		kind = LH_VERDICT_UNDECIDED;
	free(derived);
	return kind;
}

static int load(struct lh_report_read *c, json_object *root)
{
	const struct lh_report_fold_ops ops = LH_REPORT_READ_OPS(c, 0);
	struct lh_report_loader *l = c->l;
	struct lh_report *rep = c->rep;
	struct lh_run_info run;
	uint64_t duration_ns = 0;
	json_object *v, *a;
	const char *mode, *verdict, *error, *board = NULL;
	struct lh_gate gate;
	size_t i, n;
	int64_t version;

	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "lathound", NULL)) {
		lh_report_read_bad(c, NULL, "not a lathound report");
		return -1;
	}
	if (!json_object_object_get_ex(root, "report_version", &v) ||
	    !json_object_is_type(v, json_type_int)) {
		lh_report_read_bad(c, NULL,
				   "no report_version: written by a lathound older than this reader knows");
		return -1;
	}
	version = json_object_get_int64(v);
	if (version != LH_REPORT_VERSION) {
		v = json_object_object_get(root, "lathound");
		lh_report_read_bad(c, NULL,
				   "report_version %lld (written by lathound %s), but this lathound (%s) reads version %d%s",
				   (long long)version,
				   json_object_is_type(v, json_type_string) ?
				   lh_report_read_inert(&rep->arena, json_object_get_string(v),
							(size_t)json_object_get_string_len(v)) : "?",
				   LH_VERSION, LH_REPORT_VERSION,
				   version > LH_REPORT_VERSION ? ": a newer lathound wrote it" : "");
		return -1;
	}
	mode = lh_report_read_str(c, root, "mode", false, &rep->arena);
	if (mode && strcmp(mode, "analyze") && strcmp(mode, "record"))
		lh_report_read_bad(c, "mode", "'%s' is neither analyze nor record", mode);
	verdict = lh_report_read_str(c, root, "verdict", false, &rep->arena);
	if (verdict && strcmp(verdict, "pass") && strcmp(verdict, "fail") &&
	    strcmp(verdict, "error"))
		lh_report_read_bad(c, "verdict", "'%s' is not pass, fail or error", verdict);
	error = lh_report_read_str(c, root, "error", true, &rep->arena);
	if (!c->failed && (error != NULL) != !strcmp(verdict, "error"))
		lh_report_read_bad(c, "error", "%s with the verdict '%s'", error ? "set" : "null",
				   verdict);
	/* "board" came with --board: a report written before says none */
	if (json_object_object_get_ex(root, "board", NULL))
		board = lh_report_read_str(c, root, "board", true, &rep->arena);
	lh_report_read_gate(c, root, &gate);
	if (lh_report_read_run(c, root, mode, &run, &duration_ns)) {
		if (mode && strcmp(mode, "record"))
			lh_report_read_bad(c, "run", "present in a report of mode '%s'", mode);
		lh_report_fold_run(rep, &run, duration_ns, &ops);
	}
	if (c->failed)
		return -1;
	lh_report_read_rules(c, root);
	lh_report_read_tracers(c, root);
	lh_report_read_offenders(c, root);
	lh_report_read_records(c, root);
	lh_report_read_input(c, root);
	lh_report_read_irq_stats(c, root);
	lh_report_read_hists(c, root);
	a = lh_report_read_array(c, root, "merged_from", &n);
	for (i = 0; i < n; i++) {
		v = json_object_array_get_idx(a, i);
		if (!json_object_is_type(v, json_type_string)) {
			lh_report_read_bad(c, "merged_from", "expected report names");
			break;
		}
		add_merged(l, lh_report_read_inert(&rep->arena, json_object_get_string(v),
						   (size_t)json_object_get_string_len(v)));
	}
	if (!n)
		add_merged(l, c->name);
	if (c->failed)
		return -1;
	check_input(c, &run, board);
	if (c->failed)
		return -1;
	rep->opts.board = board;

	if (l->nr_inputs == 1) {
		l->gate = gate;
		l->verdict = lh_xstrdup(verdict);
	} else if (!l->differ && (!same_budgets(&l->gate, &gate) ||
				  l->gate.fail_on != gate.fail_on)) {
		l->budgets_differ = !same_budgets(&l->gate, &gate);
		l->fail_on_differ = l->gate.fail_on != gate.fail_on;
		l->differ = lh_xstrdup(c->name);
	}
	/* an error of the run stays; one the gates derive is derived again */
	if (error && error_kind_of(c, &gate, error) != LH_VERDICT_UNDECIDED) {
		char *why = l->nr_inputs == 1 ? lh_xstrdup(error) :
			    lh_xasprintf("'%s': %s", c->name, error);

		lh_report_set_error(rep, why);
		free(why);
	}
	return 0;
}

struct lh_report_loader *lh_report_loader_alloc(const struct lh_report_load_opts *o)
{
	struct lh_report_loader *l = lh_xcalloc(1, sizeof(*l));

	if (o)
		l->o = *o;
	l->rep = lh_report_fold_alloc();
	return l;
}

void lh_report_loader_free(struct lh_report_loader *l)
{
	size_t i;

	if (!l)
		return;
	lh_report_free(l->rep);
	lh_htab_release(&l->runs);
	for (i = 0; i < l->nr_inputs; i++) {
		free(l->inputs[i].name);
		free(l->inputs[i].board);
		free(l->inputs[i].host);
		free(l->inputs[i].kernel);
		free(l->inputs[i].run_id);
	}
	free(l->inputs);
	for (i = 0; i < l->nr_merged; i++)
		free(l->merged[i]);
	free(l->merged);
	free(l->differ);
	free(l->verdict);
	free(l);
}

/*
 * Return: about what json-c takes to hold the tree of buf[0..len), from its structure alone:
 * an object about 800 bytes (its hash table), an array 160, a member or element 100 (json-c
 * 0.16 on 64-bit: RSS of 200,000 of each, less the buffer).
 */
static uint64_t tree_bytes(const char *buf, size_t len)
{
	uint64_t objects = 0, arrays = 0, items = 1;
	bool in_str = false;
	size_t i;

	for (i = 0; i < len; i++) {
		char ch = buf[i];

		if (in_str) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_str = false;
			continue;
		}
		switch (ch) {
		case '"':
			in_str = true;
			break;
		case '{':
			objects++;
			break;
		case '[':
			arrays++;
			break;
		case ',':
		case ':':
			items++;
			break;
		}
	}
	return objects * 800 + arrays * 160 + items * 100;
}

int lh_report_loader_add(struct lh_report_loader *l, const char *name, const char *buf,
			 size_t len, struct lh_diag *diag)
{
	char *shown = lh_record_escape_dup(name);
	struct lh_report_read c = { .l = l, .rep = l->rep, .name = shown, .diag = diag };
	struct json_tokener *tok;
	json_object *root;
	int ret;

	if (!l->rep) {
		lh_diag_add(diag, LH_DIAG_ERROR, "report '%s': the reading already ended", shown);
		free(shown);
		return -1;
	}
	if (len > LH_REPORT_MAX_BYTES || tree_bytes(buf, len) > TREE_FACTOR * len + TREE_SLACK) {
		lh_diag_add(diag, LH_DIAG_ERROR, len > LH_REPORT_MAX_BYTES ?
			    "report '%s': larger than %d MiB, more than a report of lathound's holds" :
			    "report '%s': its structure would take more than %d times its size in memory: not a report lathound wrote",
			    shown, len > LH_REPORT_MAX_BYTES ? (int)(LH_REPORT_MAX_BYTES >> 20) :
			    TREE_FACTOR);
		free(shown);
		return -1;
	}
	tok = json_tokener_new();
	if (!tok)
		lh_oom();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = len > INT_MAX ? NULL : json_tokener_parse_ex(tok, buf, (int)len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) < len) {
		enum json_tokener_error e = json_tokener_get_error(tok);
		size_t end = json_tokener_get_parse_end(tok);

		/* what follows the value must be white space only */
		while (root && e == json_tokener_success && end < len &&
		       strchr(" \t\r\n", buf[end]) && buf[end])
			end++;
		if (!root || e != json_tokener_success || end < len) {
			lh_diag_add(diag, LH_DIAG_ERROR, "report '%s': not JSON: %s at byte %zu",
				    shown, root && e == json_tokener_success ?
				    "data after the report" : len ? json_tokener_error_desc(e) :
				    "the file is empty", end);
			json_object_put(root);
			json_tokener_free(tok);
			free(shown);
			return -1;
		}
	}
	json_tokener_free(tok);
	ret = load(&c, root);
	free(c.rule);
	free(c.listed);
	free(c.listed_desc);
	json_object_put(root);
	free(shown);
	return ret;
}

int lh_report_loader_add_file(struct lh_report_loader *l, const char *path,
			      struct lh_diag *diag)
{
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	size_t alloc = 0, len = 0;
	char *buf = NULL;
	int fd, ret;

	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		char *shown = lh_record_escape_dup(path);

		lh_diag_add(diag, LH_DIAG_ERROR, "cannot open report '%s': %s", shown,
			    strerror(errno));
		free(shown);
		return -1;
	}
	if (!is_stdin) {
		/* a FIFO was opened without waiting for a writer: read it like a file */
		int fl = fcntl(fd, F_GETFL);

		if (fl >= 0)
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	ret = lh_read_fd(fd, &buf, &alloc, &len, LH_REPORT_MAX_BYTES + 8192);
	if (ret && errno == EFBIG) {
		/* (said by lh_report_loader_add(), as for a buffer) */
		ret = 0;
		len = LH_REPORT_MAX_BYTES + 1;
	} else if (ret) {
		char *shown = lh_record_escape_dup(path);

		lh_diag_add(diag, LH_DIAG_ERROR, "cannot read report '%s': %s", shown,
			    strerror(errno));
		free(shown);
	}
	if (!is_stdin)
		close(fd);
	if (!ret)
		ret = lh_report_loader_add(l, name, buf ? buf : "", len, diag);
	free(buf);
	return ret;
}

struct lh_report *lh_report_load_file(const char *path, struct lh_diag *diag, char **why)
{
	struct lh_report_loader *l = lh_report_loader_alloc(NULL);
	struct lh_report *rep = NULL;
	size_t i, first = diag->nr;

	*why = NULL;
	if (!lh_report_loader_add_file(l, path, diag))
		rep = lh_report_loader_finish(l, diag);
	lh_report_loader_free(l);
	for (i = first; !rep && !*why && i < diag->nr; i++)
		if (diag->msgs[i].level == LH_DIAG_ERROR)
			*why = lh_xstrdup(diag->msgs[i].text);
	if (!rep && !*why) {
		char *shown = lh_record_escape_dup(path);

		*why = lh_xasprintf("cannot read report '%s'", shown);
		free(shown);
	}
	return rep;
}

static int cmp_step(const void *a, const void *b)
{
	const struct lh_report_step *x = a, *y = b;

	if (x->at_ns != y->at_ns)
		return x->at_ns < y->at_ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Each tracer's progression in time order (steps without a time first, in reading order),
 * a step kept only where it beats its CPU's maximum so far: what the run (or the runs,
 * merged) would have recorded.
 */
static void order_progressions(struct lh_report *rep)
{
	int t;

	for (t = 0; t < LH_TRACER_NR; t++) {
		struct lh_report_tracer *tr = &rep->tracers[t];
		size_t i, k = 0, slot;

		/* qsort is not stable: ties are broken by the address, the reading order */
		if (tr->nr_steps > 1)	/* (none: steps may be NULL, which UBSan flags) */
			qsort(tr->steps, tr->nr_steps, sizeof(*tr->steps), cmp_step);
		for (slot = 0; slot < tr->nr_cpus; slot++) {
			tr->cpus[slot].steps = 0;
			tr->cpus[slot].seen = false;
		}
		for (i = 0; i < tr->nr_steps; i++) {
			struct lh_report_step *s = &tr->steps[i];
			struct lh_report_cpu *c = lh_report_cpu_slot(tr, s->cpu);

			if (!c || (c->seen && s->latency_us <= c->max_us))
				continue;
			c->seen = true;
			c->max_us = s->latency_us;
			if (c->steps >= LH_REPORT_STEPS) {
				tr->steps_dropped++;
				continue;
			}
			c->steps++;
			tr->steps[k++] = *s;
		}
		tr->nr_steps = k;
		/* the maxima are those of every record, stepped or not */
		for (slot = 0; slot < tr->nr_cpus; slot++) {
			struct lh_report_cpu *c = &tr->cpus[slot];

			if (c->worst && c->worst->set) {
				c->seen = true;
				c->max_us = c->worst->latency_us;
			}
		}
	}
}

struct lh_report *lh_report_loader_finish(struct lh_report_loader *l, struct lh_diag *diag)
{
	struct lh_report *rep = l->rep;
	struct lh_gate gate = l->gate;
	const char *verdict;
	size_t i, keep;
	int t;

	if (!rep || !l->nr_inputs) {
		lh_diag_add(diag, LH_DIAG_ERROR, "no report was read");
		return NULL;
	}
	if ((l->budgets_differ && !l->o.max) || (l->fail_on_differ && !l->o.fail_on)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "report '%s' was judged by other gates (%s) than '%s': give the gates to judge them all by (%s)",
			    l->differ, l->budgets_differ ? "--max" : "--fail-on", l->inputs[0].name,
			    l->budgets_differ ? "--max" : "--fail-on");
		return NULL;
	}
	for (i = 0; l->nr_inputs > 1 && i < l->nr_inputs; i++)
		if (!l->inputs[i].host || !l->inputs[i].kernel)
			lh_diag_add(diag, LH_DIAG_WARNING, "report '%s' does not say its %s: it cannot be checked to be of the same board",
				    l->inputs[i].name, !l->inputs[i].host ? "host" : "kernel");
	order_progressions(rep);
	keep = l->o.keep ? l->o.keep : l->max_kept;
	lh_report_trim_kept(rep, keep);
	rep->opts.keep = keep;
	if (rep->own_irqstat)
		lh_irqstat_sort(rep->own_irqstat);
	if (l->nr_inputs > 1 || l->nr_merged > 1) {
		rep->merged_from = l->merged;
		rep->nr_merged_from = rep->alloc_merged_from = l->nr_merged;
		l->merged = NULL;
		l->nr_merged = 0;
	}
	if (l->o.max) {
		for (t = 0; t < LH_TRACER_NR; t++) {
			gate.has_max[t] = l->o.max->has_max[t];
			gate.max_ns[t] = l->o.max->max_ns[t];
		}
		gate.has_min_available = l->o.max->has_min_available;
		gate.min_available_milli = l->o.max->min_available_milli;
	}
	if (l->o.fail_on)
		gate.fail_on = l->o.fail_on->fail_on;
	lh_report_evaluate(rep, &gate);
	verdict = rep->verdict.error ? "error" : rep->passed ? "pass" : "fail";
	if (l->nr_inputs == 1 && !l->o.max && !l->o.fail_on && strcmp(verdict, l->verdict)) {
		lh_diag_add(diag, LH_DIAG_ERROR, "report '%s': its verdict is '%s', but its data judged by its own gates give '%s': the report is inconsistent",
			    l->inputs[0].name, l->verdict, verdict);
		return NULL;
	}
	l->rep = NULL;
	return rep;
}
