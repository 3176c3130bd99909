// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the commands share on the command line: the check of stdout at exit, diagnostics
 * printed, the rule directory and its loading, the options that report and gate.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli.h"
#include "report/report.h"
#include "rules/rules.h"
#include "util/lockfile.h"

/* Why the report written to stdout failed, when it did (lh_report_output()). */
static int stdout_errno;

int lh_report_output(struct lh_report *rep, enum lh_format f, const char *path)
{
	struct lh_diag d = { 0 };
	int ret;

	if (path) {
		ret = lh_report_write_file(rep, f, path, &d);
		lh_print_diag(&d, LH_DIAG_KEEP, false);
		lh_diag_release(&d);
		return ret;
	}
	errno = 0;
	if (!lh_report_write(rep, f, stdout))
		return 0;
	if (!stdout_errno)
		stdout_errno = errno ? errno : EIO;
	return -1;
}

int lh_finish_stdout(int code)
{
	int err;

	/* errno after a failed fflush() says why; an error flagged earlier may not. */
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		err = stdout_errno ? stdout_errno : errno ? errno : EIO;
		fclose(stdout);
	} else {
		err = fclose(stdout) ? (errno ? errno : EIO) : 0;
	}
	if (err) {
		lh_error("write error on standard output: %s", strerror(err));
		return LH_EXIT_ERROR;
	}
	return code;
}

void lh_print_diag(const struct lh_diag *d, size_t show, bool warnings)
{
	unsigned long total = d->errors + (warnings ? d->warnings : 0), shown = 0;
	size_t i;

	for (i = 0; i < d->nr && shown < show; i++) {
		if (d->msgs[i].level == LH_DIAG_ERROR) {
			lh_error("%s", d->msgs[i].text);
			shown++;
		} else if (warnings) {
			lh_warn("%s", d->msgs[i].text);
			shown++;
		}
	}
	if (total > shown)
		lh_warn("and %lu more", total - shown);
}

const char *lh_default_rules_dir(void)
{
	static char path[PATH_MAX + 16];
	char exe[PATH_MAX];
	ssize_t n;
	struct stat st;

	/* Run from a source tree (./lathound next to rules/): use that tree's rules. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/rules", exe);
			snprintf(exe + strlen(exe), sizeof(exe) - strlen(exe), "/src/main.c");
			if (!stat(exe, &st) && !stat(path, &st) && S_ISDIR(st.st_mode))
				return path;
			/*
			 * Installed as PREFIX/bin/lathound: PREFIX/share/lathound/rules, so that
			 * a copy installed under another PREFIX than it was built for still
			 * finds its rules.
			 */
			exe[strlen(exe) - strlen("/src/main.c")] = '\0';
			snprintf(path, sizeof(path), "%s/../share/lathound/rules", exe);
			if (!stat(path, &st) && S_ISDIR(st.st_mode))
				return path;
		}
	}
	return LH_RULES_DIR;
}

void lh_rule_paths_release(struct lh_rule_paths *p)
{
	free(p->rules.v);
	free(p->add.v);
}

int lh_load_rules(struct lh_rules *rs, const struct lh_rule_paths *p, struct lh_diag *diag)
{
	const char *def;
	struct stat st;
	size_t i;
	int ret = 0;

	if (!p->rules.nr) {
		def = lh_default_rules_dir();
		if (stat(def, &st))
			lh_diag_add(diag, LH_DIAG_WARNING,
				    "no default rules loaded: default rule directory '%s' not found (give --rules PATH)",
				    def);
		else if (lh_rules_load(rs, def, diag))
			ret = -1;
	}
	for (i = 0; i < p->rules.nr; i++)
		if (lh_rules_load(rs, p->rules.v[i], diag))
			ret = -1;
	for (i = 0; i < p->add.nr; i++)
		if (lh_rules_load(rs, p->add.v[i], diag))
			ret = -1;
	return ret;
}

static const char *const format_options[LH_FORMAT_NR] = {
	[LH_FORMAT_TEXT] = "--text", [LH_FORMAT_JSON] = "--json", [LH_FORMAT_JUNIT] = "--junit",
	[LH_FORMAT_HTML] = "--html",
};

int lh_report_files_check(struct lh_report_files *f, const char *extra, enum lh_format fmt)
{
	int i, to_stdout = 0, named = 0;

	if (extra) {
		if (f->path[fmt])
			return lh_error("-o and %s both name where the %s report goes",
					format_options[fmt], format_options[fmt] + 2);
		f->path[fmt] = extra;
	}
	for (i = 0; i < LH_FORMAT_NR; i++) {
		named += f->path[i] != NULL;
		to_stdout += f->path[i] && !strcmp(f->path[i], "-");
	}
	if (to_stdout > 1)
		return lh_error("only one report can go to standard output ('-')");
	if (!named)
		f->path[fmt] = "-";
	return 0;
}

int lh_report_files_write(struct lh_report *rep, const struct lh_report_files *f, bool passed)
{
	const char *text = f->path[LH_FORMAT_TEXT];
	int i, ret = 0;
	size_t v;

	for (i = 0; i < LH_FORMAT_NR; i++)
		if (f->path[i] && lh_report_output(rep, (enum lh_format)i,
						   strcmp(f->path[i], "-") ? f->path[i] : NULL))
			ret = -1;
	/* The text report on standard output lists them already. */
	if (!passed && !(text && !strcmp(text, "-")))
		for (v = 0; v < lh_report_nr_violations(rep); v++)
			lh_info("gate failed: %s", lh_report_violation(rep, v));
	return ret;
}

int lh_opt_format(const struct lh_option *opt, const char *arg)
{
	if (lh_format_parse(arg, opt->value))
		return lh_error("invalid --format '%s': expected text, json, junit or html", arg);
	return 0;
}

int lh_opt_max(const struct lh_option *opt, const char *arg)
{
	const char *err;

	if (lh_gate_parse_max(opt->value, arg, &err))
		return lh_error("invalid --max '%s': %s", arg, err);
	return 0;
}

int lh_opt_min_available(const struct lh_option *opt, const char *arg)
{
	const char *err;

	if (lh_gate_parse_min_available(opt->value, arg, &err))
		return lh_error("invalid --min-available '%s': %s", arg, err);
	return 0;
}

int lh_output_write(const char *path, const char *label, int (*fn)(FILE *out, void *arg),
		    void *arg)
{
	struct lh_diag diag = { 0 };
	int ret;

	if (!path)
		return fn(stdout, arg);
	ret = lh_lockfile_write_path(path, label, fn, arg, &diag);
	lh_print_diag(&diag, LH_DIAG_KEEP, false);
	lh_diag_release(&diag);
	return ret;
}

int lh_gate_exit(const struct lh_verdict *v, bool shown)
{
	size_t i;

	if (v->error) {
		lh_error("%s", v->error);
		return LH_EXIT_ERROR;
	}
	for (i = 0; !shown && i < v->nr_violations; i++)
		lh_info("gate failed: %s", v->violations[i]);
	return v->nr_violations ? LH_EXIT_GATE : LH_EXIT_PASS;
}

int lh_opt_board(const struct lh_option *opt, const char *arg)
{
	size_t n = strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:/-");

	if (!*arg || arg[n] || n > 64)
		return lh_error("invalid --board '%s': expected 1 to 64 of A-Z a-z 0-9 . _ : / -",
				arg);
	*(const char **)opt->value = arg;
	return 0;
}

int lh_opt_fail_on(const struct lh_option *opt, const char *arg)
{
	const char *err;

	if (lh_gate_parse_fail_on(opt->value, arg, &err))
		return lh_error("invalid --fail-on '%s': %s", arg, err);
	return 0;
}
