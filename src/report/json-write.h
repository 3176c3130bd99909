/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one JSON writer of the report (report-json.c), the fleet report (merge-write.c) and the
 * comparison (diff-write.c): streamed to a FILE as it is walked, no tree built. Its layout
 * is json-c's JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED, byte for byte, and json-c
 * escapes every string that needs it (tests/unit/report.c checks it with json-c as the
 * oracle). An element that more than one document writes (a histogram, a µs value, osnoise's
 * figures of a CPU, the verdict, the gates) is written by one function here.
 *
 * Each function takes key, the member's name, inside an object, or NULL for an element of an
 * array (or the document). Keys are the writers' own constants, never trace text, and are
 * written as they are. The first failure is kept; every call after it writes nothing, and
 * lh_json_close() returns it.
 */
#ifndef LH_JSON_WRITE_H
#define LH_JSON_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LH_JSON_MAX_DEPTH	16	/* the report nests 8 deep */

struct json_object;
struct lh_gate;
struct lh_histogram;
struct lh_report;
struct lh_report_histogram;
struct lh_report_noise;
struct lh_verdict;

/*
 * A writer on a FILE, or (out NULL) into a text in memory, through a buffer of its own.
 * report-json.c's second thread renders a record into a text in memory and puts the text in
 * at its place: it reads mem, mem_len and err, and sets depth and had[] where the text goes.
 */
struct lh_json {
	FILE			*out;
	struct json_object	*str;		/* the string being escaped */
	int			depth;		/* containers open */
	bool			had[LH_JSON_MAX_DEPTH];	/* container at that depth has a member */
	char			close[LH_JSON_MAX_DEPTH];
	int			err;		/* errno of the first failure, 0 if none */
	/*
	 * lh_json_uint() past INT64_MAX: written as it is (merge, diff: their sums of reports
	 * are exact to 2^64) or as INT64_MAX (false: the report, whose reader reads int64).
	 */
	bool			exact_u64;
	char			*mem;		/* out NULL: the text written, mem_len bytes */
	size_t			mem_len;
	size_t			mem_alloc;
	size_t			len;		/* bytes in buf */
	char			buf[64 * 1024];
};

/*
 * Return: a writer on out (NULL: into a text in memory, w->mem), or NULL with errno ENOMEM;
 * lh_json_close() or lh_json_free() frees it.
 */
struct lh_json *lh_json_alloc(FILE *out);
/* Frees w (NULL: nothing) without writing what it holds. */
void lh_json_free(struct lh_json *w);
/*
 * Writes what w holds, a final newline after the document, and frees w (NULL: the
 * allocation failed, errno set).
 * Return: 0, or -1 with errno of the first failure (a write, a full disk, memory).
 */
int lh_json_close(struct lh_json *w);

/* Keeps err as w's failure unless one was kept before. */
void lh_json_fail(struct lh_json *w, int err);
/* Writes the buffer out. */
void lh_json_flush(struct lh_json *w);
/* Writes s[0..n) as it is: text another writer made (it must fit where it goes). */
void lh_json_put(struct lh_json *w, const char *s, size_t n);

/* Opens an object, or an array, as the next member or element. */
void lh_json_obj(struct lh_json *w, const char *key);
void lh_json_arr(struct lh_json *w, const char *key);
/* Closes the object or array opened last. */
void lh_json_end(struct lh_json *w);

void lh_json_null(struct lh_json *w, const char *key);
/* The string s[0..len) (s NULL: null). */
void lh_json_strn(struct lh_json *w, const char *key, const char *s, size_t len);
/* The string s (NULL: null). */
void lh_json_str(struct lh_json *w, const char *key, const char *s);
/* The string s, null when NULL or empty. */
void lh_json_str_or_null(struct lh_json *w, const char *key, const char *s);
void lh_json_bool(struct lh_json *w, const char *key, bool b);
void lh_json_int(struct lh_json *w, const char *key, int64_t v);
/* A count; past INT64_MAX, INT64_MAX unless w->exact_u64. */
void lh_json_uint(struct lh_json *w, const char *key, uint64_t v);
/* v, or null when it is negative (unknown). */
void lh_json_known(struct lh_json *w, const char *key, int v);
/*
 * A number kept to three decimals (a mean, a percentage): "1990.0", "0.002", not %.17g;
 * null when it is not finite (JSON has no NaN).
 */
void lh_json_double(struct lh_json *w, const char *key, double v);
/*
 * A number with every digit a double holds, as json-c writes one (%.17g, ".0" appended when
 * whole): a ratio or a limit the user gave, not kept to a fixed precision. null when it is
 * not finite.
 */
void lh_json_real(struct lh_json *w, const char *key, double v);
/* µs from ns, exact: lh_report_json_us() ("2002", "1.5"). */
void lh_json_us(struct lh_json *w, const char *key, uint64_t ns);
/* µs from ns, exact, negative when negative ("-1.5"). */
void lh_json_us_sign(struct lh_json *w, const char *key, uint64_t ns, bool negative);
/* µs from signed ns, exact. */
void lh_json_sus(struct lh_json *w, const char *key, int64_t ns);
/* lh_json_us(), or null when !has. */
void lh_json_us_if(struct lh_json *w, const char *key, bool has, uint64_t ns);
/* The time ns as ISO 8601 in UTC, or null when ns is 0. */
void lh_json_time(struct lh_json *w, const char *key, uint64_t ns);
/* "FILE:LINE", source alone when line is 0, or null when source is NULL. */
void lh_json_source(struct lh_json *w, const char *key, const char *source, unsigned long line);

/* {"name": name[0..len), "count": count}, the most written element of a report, fast. */
void lh_json_name_count(struct lh_json *w, const char *name, size_t len, unsigned int count);

/* A histogram object (doc/report-json.md's #histograms): its members in an object. */
void lh_json_hist(struct lh_json *w, const char *key, const struct lh_histogram *h);
/* The members of a histogram object, in an object the caller opened (with its own too). */
void lh_json_hist_members(struct lh_json *w, const struct lh_histogram *h);
/*
 * The members of a histogram the kernel counted (a report's "histograms" entry): the
 * histogram's, then its source, kind and CPU (null: all CPUs), in an object the caller opened.
 */
void lh_json_khist_members(struct lh_json *w, const struct lh_report_histogram *k);
/*
 * osnoise's figures of a CPU as a report's noise_cpus has them, in an object the caller
 * opened: periods, runtime_us, noise_us and available_percent (null without a period).
 */
void lh_json_noise_members(struct lh_json *w, const struct lh_report_noise *n);
/*
 * osnoise's figures of rep (NULL: none): "sources_dropped" when a CPU has sources, then
 * "noise_cpus", per CPU its cpu, the members above, max_single_us, hw_count and, when the
 * kernel counted them, its sources and sources_other; [] when none.
 */
void lh_json_noise_cpus(struct lh_json *w, const struct lh_report *rep);
/* "verdict": name, "error" (v's error or null) and "violations" (v's, as an array). */
void lh_json_verdict(struct lh_json *w, const char *name, const struct lh_verdict *v);
/* "gate": the budgets of g in µs by tracer ("all" last), the --min-available, the fail-on. */
void lh_json_gate(struct lh_json *w, const struct lh_gate *g);

#endif /* LH_JSON_WRITE_H */
