// SPDX-License-Identifier: GPL-2.0-only
/*
 * lathound doctor: can this kernel and system run lathound, and how to fix what is
 * missing. The checks live in doctor.c; this prints them, one line each, or as JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include <json-c/json.h>
#include <tracefs.h>

#include "cmds.h"
#include "kernel/doctor.h"
#include "opts.h"
#include "util/util.h"

static const char *const doctor_usage[] = {
	"lathound doctor [<options>]",
	NULL,
};

static const char doctor_epilogue[] =
	"\nChecks root, tracefs, the latency tracers this kernel has and the kernel options\n"
	"behind the missing ones (from /proc/config.gz or /boot/config-RELEASE), events,\n"
	"kprobes, function filtering, another tool's tracer, tracing_on, instances in use, and\n"
	"state left by a lathound that was killed. Each problem comes with its remedy.\n"
	"\nexit status:\n"
	"    0  lathound can run here (root, tracefs usable, at least one latency tracer)\n"
	"    1  it cannot (or a bad option)\n";

static int opt_format(const struct lh_option *opt, const char *arg)
{
	if (strcmp(arg, "text") && strcmp(arg, "json"))
		return lh_error("invalid --format '%s': expected text or json", arg);
	*(const char **)opt->value = arg;
	return 0;
}

static void print_text(const struct lh_doctor *d, const char *kernel)
{
	size_t i, w = 0;

	for (i = 0; i < d->nr; i++)
		if (strlen(d->checks[i].name) > w)
			w = strlen(d->checks[i].name);
	printf("lathound doctor: kernel %s, tracefs %s\n\n", kernel,
	       d->tracing_dir ? d->tracing_dir : "unusable");
	for (i = 0; i < d->nr; i++) {
		const struct lh_doctor_check *c = &d->checks[i];

		printf("%-4s  %-*s  %s\n", lh_doctor_status_name(c->status), (int)w, c->name,
		       c->detail);
		if (c->remedy && c->status != LH_DOCTOR_OK)
			printf("      %-*s  -> %s\n", (int)w, "", c->remedy);
	}
	if (d->config_path) {
		printf("\nkernel options (%s):", d->config_path);
		for (i = 0; i < LH_DOCTOR_KCONFIG_NR; i++)
			printf("%s%s%s%s", i % 3 ? ", " : "\n    ", d->kconfig[i].name,
			       d->kconfig[i].state == LH_KCONFIG_NOT_SET ? " " : "",
			       lh_doctor_kconfig_name(d->kconfig[i].state));
		putchar('\n');
	}
	printf("\n%s\n", d->can_run ? "lathound can run here" :
	       "lathound cannot run here: fix the FAIL lines above");
}

static const char *json_kconfig(enum lh_kconfig k)
{
	switch (k) {
	case LH_KCONFIG_YES:
		return "y";
	case LH_KCONFIG_MODULE:
		return "m";
	case LH_KCONFIG_NOT_SET:
		return "not set";
	default:
		return "unknown";
	}
}

static int print_json(const struct lh_doctor *d, const char *kernel)
{
	struct json_object *root = json_object_new_object(), *checks = json_object_new_array();
	struct json_object *kc = json_object_new_object(), *opts = json_object_new_object();
	const char *text;
	size_t i;
	int ret;

	json_object_object_add(root, "lathound", json_object_new_string(LH_VERSION));
	json_object_object_add(root, "can_run", json_object_new_boolean(d->can_run));
	json_object_object_add(root, "kernel", json_object_new_string(kernel));
	json_object_object_add(root, "tracing_dir",
			       d->tracing_dir ? json_object_new_string(d->tracing_dir) : NULL);
	json_object_object_add(kc, "source",
			       d->config_path ? json_object_new_string(d->config_path) : NULL);
	for (i = 0; i < LH_DOCTOR_KCONFIG_NR; i++)
		json_object_object_add(opts, d->kconfig[i].name,
				       json_object_new_string(json_kconfig(d->kconfig[i].state)));
	json_object_object_add(kc, "options", opts);
	json_object_object_add(root, "kernel_config", kc);
	for (i = 0; i < d->nr; i++) {
		const struct lh_doctor_check *c = &d->checks[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "check", json_object_new_string(c->name));
		json_object_object_add(o, "status",
				       json_object_new_string(c->status == LH_DOCTOR_OK ? "ok" :
							      c->status == LH_DOCTOR_WARN ? "warn" :
							      "fail"));
		json_object_object_add(o, "detail", json_object_new_string(c->detail));
		json_object_object_add(o, "remedy",
				       c->remedy && c->status != LH_DOCTOR_OK ?
				       json_object_new_string(c->remedy) : NULL);
		json_object_array_add(checks, o);
	}
	json_object_object_add(root, "checks", checks);
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	ret = puts(text) < 0 ? -1 : 0;
	json_object_put(root);
	return ret;
}

int lh_cmd_doctor(int argc, char **argv)
{
	struct lh_doctor_opts o = { .euid = -1 };
	const char *format = "text", *tracefs = NULL;
	const struct lh_option options[] = {
		LH_OPT_CALLBACK('f', "format", &format, "FORMAT", "text (default) or json",
				opt_format),
		LH_OPT_STRING(0, "state-dir", &o.state_dir, "DIR",
			      "directory of the saved state and the lock (default /run/lathound)"),
		LH_OPT_STRING(0, "kernel-config", &o.config_path, "FILE",
			      "kernel config to read (default /proc/config.gz, /boot/config-RELEASE)"),
		/* For the tests: a tracefs tree made of plain files. */
		LH_OPT_HIDDEN(LH_OPT_STRING(0, "tracefs", &tracefs, "DIR", "tracefs directory")),
		LH_OPT_END(),
	};
	struct lh_doctor d = { 0 };
	struct utsname u;
	const char *kernel = "unknown";
	int first, code;

	first = lh_parse_command(argc, argv, options, doctor_usage, doctor_epilogue,
				 LH_OPERANDS_NONE);
	if (first == LH_OPTS_HELP)
		return lh_finish_stdout(LH_EXIT_PASS);
	if (first < 0)
		return LH_EXIT_ERROR;
	if (tracefs && tracefs_set_tracing_dir((char *)tracefs)) {
		lh_error("cannot use '%s' as tracefs: %s", tracefs, strerror(errno));
		return LH_EXIT_ERROR;
	}
	if (!uname(&u))
		kernel = u.release;
	code = lh_doctor_run(&d, &o) ? LH_EXIT_PASS : LH_EXIT_ERROR;
	if (!strcmp(format, "json"))
		print_json(&d, kernel);
	else
		print_text(&d, kernel);
	lh_doctor_release(&d);
	return lh_finish_stdout(code);
}
