/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Options declared once, as data: the same table drives getopt_long and the usage text
 * (after git's parse-options). This is command-line edge code: it prints its errors.
 */
#ifndef LH_OPTS_H
#define LH_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum lh_opt_type {
	LH_OPTT_END,
	LH_OPTT_GROUP,		/* a heading in the usage text */
	LH_OPTT_BOOL,		/* int *value = 1 */
	LH_OPTT_STRING,		/* const char **value = arg */
	LH_OPTT_UINT,		/* unsigned long *value */
	LH_OPTT_DURATION,	/* uint64_t *value, ns: a run length (lh_duration_parse) */
	LH_OPTT_BUDGET,		/* uint64_t *value, ns: a latency (lh_budget_parse) */
	LH_OPTT_CALLBACK,	/* cb(opt, arg); repeatable options and lists */
};

struct lh_option;
typedef int (*lh_opt_cb)(const struct lh_option *opt, const char *arg);

struct lh_option {
	enum lh_opt_type	type;
	int			short_name;
	const char		*long_name;
	void			*value;
	const char		*argh;	/* placeholder in usage, NULL for flags */
	const char		*help;
	lh_opt_cb		cb;
	int			optional_arg;
	bool			hidden;	/* parsed, but not listed in the usage (LH_OPT_HIDDEN) */
};

#define LH_OPT_END()			{ .type = LH_OPTT_END }
#define LH_OPT_GROUP(h)			{ .type = LH_OPTT_GROUP, .help = (h) }
#define LH_OPT_BOOL(s, l, v, h)		{ LH_OPTT_BOOL, (s), (l), (v), NULL, (h), NULL, 0, false }
#define LH_OPT_STRING(s, l, v, a, h)	{ LH_OPTT_STRING, (s), (l), (v), (a), (h), NULL, 0, false }
#define LH_OPT_UINT(s, l, v, a, h)	{ LH_OPTT_UINT, (s), (l), (v), (a), (h), NULL, 0, false }
#define LH_OPT_DURATION(s, l, v, h)	\
	{ LH_OPTT_DURATION, (s), (l), (v), "DURATION", (h), NULL, 0, false }
#define LH_OPT_BUDGET(s, l, v, h)	\
	{ LH_OPTT_BUDGET, (s), (l), (v), "DURATION", (h), NULL, 0, false }
#define LH_OPT_CALLBACK(s, l, v, a, h, f) \
	{ LH_OPTT_CALLBACK, (s), (l), (v), (a), (h), (f), 0, false }

/*
 * LH_OPT_HIDDEN(LH_OPT_STRING(...)): an option that works but that the usage does not
 * list (test-only knobs; the man page documents them). A copy made at run time: for option
 * tables in functions, not static ones.
 */
#define LH_OPT_HIDDEN(opt)		lh_opt_hidden((struct lh_option)opt)

static inline struct lh_option lh_opt_hidden(struct lh_option o)
{
	o.hidden = true;
	return o;
}

/* Returned by lh_parse_options() when --help was given and usage went to stdout. */
#define LH_OPTS_HELP -2

/*
 * Parses argv against opts, GNU style: options and operands in any order, "--" ends the
 * options. -h/--help prints usage and returns LH_OPTS_HELP. Errors are printed ("unknown
 * option '--x'") followed by the usage.
 * Return: index of the first operand, -1 on error, LH_OPTS_HELP after --help.
 */
int lh_parse_options(int argc, char **argv, const struct lh_option *opts,
		     const char *const *usage);

/* What a command takes after its options. */
enum lh_operands {
	LH_OPERANDS_NONE,	/* nothing: an operand is an error ("unexpected argument 'x'") */
	LH_OPERANDS_FILES,	/* paths, before, between or after the options */
	/*
	 * A command to run, after "--": options end at the first operand (as trace-cmd
	 * record), and an operand not after "--" is an error, so that a stray word is never
	 * run ("record -d 2s stray -- cmd").
	 */
	LH_OPERANDS_COMMAND,
};

/*
 * lh_parse_options() for a subcommand taking operands: after --help, also prints epilogue
 * (when not NULL) to stdout. Return: as lh_parse_options().
 */
int lh_parse_command(int argc, char **argv, const struct lh_option *opts,
		     const char *const *usage, const char *epilogue, enum lh_operands operands);
/* Prints usage lines, then the options table, then nothing else. */
void lh_usage(FILE *f, const char *const *usage, const struct lh_option *opts);

/* The values of a repeatable option (LH_OPT_CALLBACK with lh_opt_list); the caller frees v. */
struct lh_strlist {
	const char	**v;	/* NULL-terminated; the strings are argv's */
	size_t		nr;
	size_t		alloc;
};

/*
 * The callback of a repeatable option: appends arg to the struct lh_strlist *opt->value.
 * Return: 0.
 */
int lh_opt_list(const struct lh_option *opt, const char *arg);

#endif /* LH_OPTS_H */
