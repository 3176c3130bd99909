// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the one JSON writer (src/report/json-write.c) that the report, merge and diff
 * write through, with json-c as the oracle: what it writes is what json-c prints of the same
 * document, a double with every digit is written as json-c writes one, a µs value exactly
 * (an integer when whole), a failed write is returned.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/json-write.h"
#include "report/report-priv.h"
#include "check-main.h"

#define JSON_C_FLAGS \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Return: what write() wrote through a writer into memory (free it), the document closed. */
static char *written(void (*write)(struct lh_json *w))
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct lh_json *w;

	ck_assert_ptr_nonnull(out);
	w = lh_json_alloc(out);
	ck_assert_ptr_nonnull(w);
	write(w);
	ck_assert_int_eq(lh_json_close(w), 0);
	ck_assert_int_eq(fclose(out), 0);
	return text;
}

static void every_element(struct lh_json *w)
{
	static const struct lh_histogram empty;

	lh_json_obj(w, NULL);
	lh_json_str(w, "plain", "irqsoff");
	lh_json_str(w, "escaped", "a\"b\\c\n\x01/\xff");
	lh_json_strn(w, "cut", "abcdef", 3);
	lh_json_str(w, "absent", NULL);
	lh_json_str_or_null(w, "empty", "");
	lh_json_bool(w, "yes", true);
	lh_json_bool(w, "no", false);
	lh_json_int(w, "min", INT64_MIN);
	lh_json_int(w, "max", INT64_MAX);
	lh_json_uint(w, "saturated", UINT64_MAX);
	lh_json_known(w, "unknown", -1);
	lh_json_known(w, "cpu", 3);
	lh_json_obj(w, "empty_object");
	lh_json_end(w);
	lh_json_arr(w, "empty_array");
	lh_json_end(w);
	lh_json_arr(w, "nested");
	lh_json_arr(w, NULL);
	lh_json_int(w, NULL, 1);
	lh_json_obj(w, NULL);
	lh_json_null(w, "x");
	lh_json_end(w);
	lh_json_end(w);
	lh_json_name_count(w, "plain_name", 10, 4000000000u);
	lh_json_name_count(w, "needs\tescaping", 14, 0);
	lh_json_end(w);
	lh_json_hist(w, "histogram", &empty);
	lh_json_end(w);
}

/* The layout is json-c's: parsed and printed again by json-c, the same bytes. */
START_TEST(prints_as_json_c)
{
	char *text = written(every_element);
	json_object *root = json_tokener_parse(text);
	const char *again;
	size_t n;

	ck_assert_msg(root != NULL, "not JSON: %s", text);
	again = json_object_to_json_string_ext(root, JSON_C_FLAGS);
	n = strlen(again);
	ck_assert_uint_eq(strlen(text), n + 1);
	ck_assert_msg(!strncmp(text, again, n) && text[n] == '\n', "not what json-c prints:\n%s",
		      text);
	/* (json-c reads 2^64 - 1 back as INT64_MAX too: the text says what was written) */
	ck_assert_msg(strstr(text, "\"saturated\": 9223372036854775807,\n"), "%s", text);
	json_object_put(root);
	free(text);
}
END_TEST

static double real_value;

static void one_real(struct lh_json *w)
{
	lh_json_real(w, NULL, real_value);
}

/* A double with every digit: what json_object_new_double() prints, and null when not finite. */
START_TEST(real_as_json_c_writes_it)
{
	static const double values[] = {
		0, 10, -25, 0.1, 99.198, -0.39860488290981566, 33.333333333333336, 1e300, -1e-7,
		123456789012345678.0, 0.5,
	};
	char *text, *want;
	json_object *d;
	size_t i;

	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		real_value = values[i];
		text = written(one_real);
		d = json_object_new_double(values[i]);
		want = lh_xasprintf("%s\n", json_object_to_json_string(d));
		ck_assert_str_eq(text, want);
		json_object_put(d);
		free(want);
		free(text);
	}
	real_value = NAN;
	text = written(one_real);
	ck_assert_str_eq(text, "null\n");
	free(text);
	real_value = -INFINITY;
	text = written(one_real);
	ck_assert_str_eq(text, "null\n");
	free(text);
}
END_TEST

static void us_values(struct lh_json *w)
{
	lh_json_arr(w, NULL);
	lh_json_us(w, NULL, 2002000);
	lh_json_us(w, NULL, 1500);
	lh_json_us(w, NULL, 2);
	lh_json_us(w, NULL, 0);
	lh_json_us(w, NULL, UINT64_MAX);
	lh_json_us_sign(w, NULL, 1500, true);
	lh_json_us_sign(w, NULL, 3000, true);
	lh_json_sus(w, NULL, -2);
	lh_json_sus(w, NULL, INT64_MIN);
	lh_json_sus(w, NULL, 7000);
	lh_json_us_if(w, NULL, false, 5);
	lh_json_double(w, NULL, 3.0);
	lh_json_double(w, NULL, 99.198);
	lh_json_double(w, NULL, NAN);
	lh_json_double(w, NULL, INFINITY);
	lh_json_end(w);
}

/*
 * µs exact, an integer when whole, signed when negative; a three-decimal number keeps ".0",
 * and is null when not finite (printf's "nan" is no JSON).
 */
START_TEST(us_exact)
{
	char *text = written(us_values);

	ck_assert_str_eq(text, "[\n  2002,\n  1.5,\n  0.002,\n  0,\n  18446744073709551.615,\n"
			 "  -1.5,\n  -3,\n  -0.002,\n  -9223372036854775.808,\n  7,\n  null,\n"
			 "  3.0,\n  99.198,\n  null,\n  null\n]\n");
	free(text);
}
END_TEST

static void counts(struct lh_json *w)
{
	lh_json_arr(w, NULL);
	lh_json_uint(w, NULL, UINT64_MAX - 1);
	w->exact_u64 = true;
	lh_json_uint(w, NULL, UINT64_MAX - 1);
	lh_json_end(w);
}

/* A count past INT64_MAX: capped for the report's int64 reader, exact for merge and diff. */
START_TEST(counts_capped_or_exact)
{
	char *text = written(counts);

	ck_assert_str_eq(text, "[\n  9223372036854775807,\n  18446744073709551614\n]\n");
	free(text);
}
END_TEST

static void one_member(struct lh_json *w)
{
	lh_json_obj(w, NULL);
	lh_json_str(w, "k", "v");
	lh_json_end(w);
}

/*
 * A stream whose every write fails as a full disk's does (as /dev/full, without needing it):
 * nothing written, ENOSPC.
 */
static ssize_t write_enospc(void *cookie, const char *buf, size_t size)
{
	errno = ENOSPC;
	return 0;
}

/* A write that fails is returned, with its errno, not lost in the buffer. */
START_TEST(write_failure_returned)
{
	FILE *full = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = write_enospc });
	struct lh_json *w;

	ck_assert_ptr_nonnull(full);
	setvbuf(full, NULL, _IONBF, 0);	/* the writer's own write fails, not a later fflush() */
	w = lh_json_alloc(full);
	ck_assert_ptr_nonnull(w);
	one_member(w);
	ck_assert_int_eq(lh_json_close(w), -1);
	ck_assert_int_eq(errno, ENOSPC);
	fclose(full);
}
END_TEST

/* A writer closed with an object still open wrote no JSON document: an error, not 0. */
START_TEST(unclosed_is_an_error)
{
	struct lh_json *w = lh_json_alloc(NULL);

	ck_assert_ptr_nonnull(w);
	lh_json_obj(w, NULL);
	lh_json_obj(w, "open");
	lh_json_end(w);
	ck_assert_int_eq(lh_json_close(w), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

static Suite *json_write_suite(void)
{
	Suite *s = suite_create("json-write");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, prints_as_json_c);
	tcase_add_test(tc, real_as_json_c_writes_it);
	tcase_add_test(tc, us_exact);
	tcase_add_test(tc, counts_capped_or_exact);
	tcase_add_test(tc, write_failure_returned);
	tcase_add_test(tc, unclosed_is_an_error);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(json_write_suite)
