// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the option parser (src/cmd/opts.c): tables of any size are parsed whole (no
 * option past a fixed array is dropped), and what each kind of command takes after its
 * options: nothing, paths in any order, or a command to run after "--" only.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmd/opts.h"
#include "util/util.h"
#include "check-main.h"

static const char *const usage[] = { "test [<options>]", NULL };

#define NR_LONG 100

/* A table of NR_LONG flags --o0..--o99, then end. */
static int flags[NR_LONG];
static char names[NR_LONG][8];
static struct lh_option long_table[NR_LONG + 1];

static void make_long_table(void)
{
	size_t i;

	for (i = 0; i < NR_LONG; i++) {
		snprintf(names[i], sizeof(names[i]), "o%zu", i);
		long_table[i] = (struct lh_option)LH_OPT_BOOL(0, names[i], &flags[i], "a flag");
	}
	long_table[NR_LONG] = (struct lh_option)LH_OPT_END();
}

START_TEST(many_long_options)
{
	char *argv[] = { "test", "--o0", "--o63", "--o99", "operand", NULL };

	make_long_table();
	ck_assert_int_eq(lh_parse_options(5, argv, long_table, usage), 4);
	ck_assert_int_eq(flags[0], 1);
	ck_assert_int_eq(flags[63], 1);
	ck_assert_int_eq(flags[99], 1);	/* past the 62 a fixed array held */
	ck_assert_int_eq(flags[98], 0);
}
END_TEST

/* 62 short options with an optional value take 3 characters each in getopt's optstring. */
START_TEST(many_short_options)
{
	static const char letters[] =
		"abcdefgiklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789j";
	static struct lh_option table[sizeof(letters)];
	static const char *values[sizeof(letters)];
	char *argv[] = { "test", "-a1", "-jlast", "-9", NULL };
	size_t i;

	for (i = 0; i < sizeof(letters) - 1; i++) {
		table[i] = (struct lh_option)LH_OPT_STRING(letters[i], NULL, &values[i], "V",
							   "a value");
		table[i].optional_arg = 1;
	}
	table[i] = (struct lh_option)LH_OPT_END();
	ck_assert_int_eq(lh_parse_options(4, argv, table, usage), 4);
	ck_assert_str_eq(values[0], "1");
	ck_assert_str_eq(values[sizeof(letters) - 2], "last");	/* 'j', the last one */
	ck_assert_ptr_null(values[sizeof(letters) - 3]);	/* '9': no value given */
}
END_TEST

static int quiet;
static const char *out;
static const struct lh_option cmd_table[] = {
	LH_OPT_BOOL('q', "quiet", &quiet, "quiet"),
	LH_OPT_STRING('o', "output", &out, "DIR", "output"),
	LH_OPT_END(),
};

static int parse_cmd(char **argv, enum lh_operands operands)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	quiet = 0;
	out = NULL;
	return lh_parse_command(argc, argv, cmd_table, usage, NULL, operands);
}

/*
 * A command to run goes after "--": parsing stops at the first operand, which is refused
 * unless "--" came before it ("record -d 2s stray -- cmd" ran 'stray'). Then paths in any
 * order in the same process: getopt must forget the '+' of the parse before.
 */
START_TEST(operands)
{
	char *cmd[] = { "record", "-q", "--", "echo", "-q", NULL };
	char *stray[] = { "record", "-q", "stray", "--", "echo", NULL };
	char *stray_only[] = { "record", "stray", NULL };
	char *value_dashes[] = { "record", "-o", "--", "echo", NULL };
	char *value_dashes_sep[] = { "record", "--output=--", "--", "echo", NULL };
	char *nothing[] = { "record", "-q", "--", NULL };
	char *files[] = { "analyze", "a.trace", "-q", "b.trace", "-o", "x", NULL };
	char *none[] = { "doctor", "-q", "stray", NULL };

	ck_assert_int_eq(parse_cmd(cmd, LH_OPERANDS_COMMAND), 3);
	ck_assert_int_eq(quiet, 1);
	ck_assert_int_eq(parse_cmd(stray, LH_OPERANDS_COMMAND), -1);
	ck_assert_int_eq(parse_cmd(stray_only, LH_OPERANDS_COMMAND), -1);
	ck_assert_int_eq(parse_cmd(value_dashes, LH_OPERANDS_COMMAND), -1);
	ck_assert_int_eq(parse_cmd(value_dashes_sep, LH_OPERANDS_COMMAND), 3);
	ck_assert_str_eq(out, "--");
	ck_assert_int_eq(parse_cmd(nothing, LH_OPERANDS_COMMAND), 3);

	ck_assert_int_eq(parse_cmd(files, LH_OPERANDS_FILES), 4);
	ck_assert_int_eq(quiet, 1);
	ck_assert_str_eq(out, "x");
	ck_assert_str_eq(files[4], "a.trace");	/* operands moved after the options */
	ck_assert_str_eq(files[5], "b.trace");

	ck_assert_int_eq(parse_cmd(none, LH_OPERANDS_NONE), -1);
	ck_assert_int_eq(parse_cmd(nothing, LH_OPERANDS_NONE), 3);
}
END_TEST

static Suite *opts_suite(void)
{
	Suite *s = suite_create("opts");
	TCase *tc = tcase_create("opts");

	tcase_add_test(tc, many_long_options);
	tcase_add_test(tc, many_short_options);
	tcase_add_test(tc, operands);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(opts_suite)
