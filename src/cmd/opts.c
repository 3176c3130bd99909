// SPDX-License-Identifier: GPL-2.0-only
/* One option table drives both getopt_long and the usage text. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "util/util.h"

#define HELP_COL 26

void lh_usage(FILE *f, const char *const *usage, const struct lh_option *opts)
{
	const struct lh_option *o;
	int i;

	for (i = 0; usage[i]; i++)
		fprintf(f, "%s%s\n", i ? "   or: " : "usage: ", usage[i]);
	fputc('\n', f);
	for (o = opts; o->type != LH_OPTT_END; o++) {
		char head[128];
		int n = 0;

		if (o->type == LH_OPTT_GROUP) {
			/* The blank line after the usage lines already separates the first. */
			fprintf(f, "%s%s\n", o == opts ? "" : "\n", o->help);
			continue;
		}
		if (o->hidden)
			continue;
		if (o->short_name)
			n += snprintf(head + n, sizeof(head) - n, "-%c", o->short_name);
		if (o->long_name)
			n += snprintf(head + n, sizeof(head) - n, "%s--%s",
				      o->short_name ? ", " : "    ", o->long_name);
		if (o->argh)
			snprintf(head + n, sizeof(head) - n, "%s%s", o->long_name ? "=" : " ",
				 o->argh);
		if (strlen(head) + 4 >= HELP_COL)
			fprintf(f, "    %s\n%*s%s\n", head, HELP_COL, "", o->help);
		else
			fprintf(f, "    %-*s%s\n", HELP_COL - 4, head, o->help);
	}
	fprintf(f, "    %-*s%s\n", HELP_COL - 4, "-h, --help", "show this help and exit");
}

static int opt_set(const struct lh_option *o, const char *arg)
{
	const char *err;
	char *end;

	switch (o->type) {
	case LH_OPTT_BOOL:
		*(int *)o->value = 1;
		return 0;
	case LH_OPTT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case LH_OPTT_UINT:
		errno = 0;
		if (!arg || *arg == '-')
			goto bad_number;
		*(unsigned long *)o->value = strtoul(arg, &end, 10);
		if (errno || end == arg || *end)
			goto bad_number;
		return 0;
	case LH_OPTT_DURATION:
	case LH_OPTT_BUDGET:
		if ((o->type == LH_OPTT_BUDGET ? lh_budget_parse : lh_duration_parse)
				(arg, (uint64_t *)o->value, &err))
			return lh_error("invalid duration '%s' for --%s: %s", arg, o->long_name,
					err);
		return 0;
	case LH_OPTT_CALLBACK:
		return o->cb(o, arg);
	default:
		return -1;
	}
bad_number:
	return lh_error("--%s expects a whole number, not '%s'", o->long_name, arg ? arg : "");
}

/*
 * getopt_long over opts; in_order stops at the first operand (a '+' optstring, as trace-cmd
 * record) instead of moving operands after the options. *sep tells whether the operands
 * follow a "--" (rather than an option's value that happens to read "--").
 */
static int parse(int argc, char **argv, const struct lh_option *opts, const char *const *usage,
		 bool in_order, bool *sep)
{
	const char *last_arg = NULL;
	const struct lh_option *o;
	struct option *longopts;
	size_t n = 0, nl = 0, ns = 0;
	char *shortopts;
	int c, idx, ret = -1;

	/* Sized from the table: an option past a fixed size must never be dropped silently. */
	for (o = opts; o->type != LH_OPTT_END; o++)
		n++;
	longopts = lh_xcalloc(n + 2, sizeof(*longopts));
	shortopts = lh_xmalloc(3 * n + 4);
	if (in_order)
		shortopts[ns++] = '+';
	shortopts[ns++] = 'h';
	for (o = opts; o->type != LH_OPTT_END; o++) {
		int has_arg = o->argh ? (o->optional_arg ? optional_argument : required_argument)
				      : no_argument;

		if (o->type == LH_OPTT_GROUP)
			continue;
		if (o->long_name)
			longopts[nl++] = (struct option){ o->long_name, has_arg, NULL,
							  256 + (int)(o - opts) };
		if (o->short_name) {
			shortopts[ns++] = (char)o->short_name;
			if (has_arg != no_argument)
				shortopts[ns++] = ':';
			if (has_arg == optional_argument)
				shortopts[ns++] = ':';
		}
	}
	longopts[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[nl] = (struct option){ 0 };
	shortopts[ns] = '\0';

	optind = 0;	/* 0, not 1: glibc reads the '+' again only on a full restart */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, &idx)) != -1) {
		if (c == 'h') {
			lh_usage(stdout, usage, opts);
			ret = LH_OPTS_HELP;
			goto out;
		}
		if (c == '?' || c == ':') {
			if (optopt && optopt < 256)
				lh_error(c == ':' || strchr(shortopts, optopt) ?
					 "option '-%c' requires a value" : "unknown option '-%c'",
					 optopt);
			else if (optopt >= 256)
				lh_error(opts[optopt - 256].argh ? "option '--%s' requires a value" :
					 "option '--%s' takes no value",
					 opts[optopt - 256].long_name);
			else
				lh_error("unknown option '%s'", argv[optind - 1]);
			lh_usage(stderr, usage, opts);
			goto out;
		}
		if (c >= 256) {
			o = &opts[c - 256];
		} else {
			for (o = opts; o->type != LH_OPTT_END; o++)
				if (o->short_name == c)
					break;
		}
		if (o->type == LH_OPTT_END || opt_set(o, optarg))
			goto out;
		last_arg = optarg;
	}
	*sep = optind > 1 && !strcmp(argv[optind - 1], "--") && argv[optind - 1] != last_arg;
	ret = optind;
out:
	free(longopts);
	free(shortopts);
	return ret;
}

int lh_parse_options(int argc, char **argv, const struct lh_option *opts,
		     const char *const *usage)
{
	bool sep;

	return parse(argc, argv, opts, usage, false, &sep);
}

int lh_parse_command(int argc, char **argv, const struct lh_option *opts,
		     const char *const *usage, const char *epilogue, enum lh_operands operands)
{
	bool sep = false;
	int first = parse(argc, argv, opts, usage, operands == LH_OPERANDS_COMMAND, &sep);

	if (first == LH_OPTS_HELP && epilogue)
		fputs(epilogue, stdout);
	if (first < 0 || first >= argc)
		return first;
	if (operands == LH_OPERANDS_NONE) {
		lh_error("unexpected argument '%s'", argv[first]);
		return -1;
	}
	if (operands == LH_OPERANDS_COMMAND && !sep) {
		lh_error("unexpected argument '%s'; a command to run goes after '--'", argv[first]);
		return -1;
	}
	return first;
}

int lh_opt_list(const struct lh_option *opt, const char *arg)
{
	struct lh_strlist *l = opt->value;

	LH_GROW(l->v, l->nr + 2, l->alloc);
	l->v[l->nr++] = arg;
	l->v[l->nr] = NULL;
	return 0;
}
