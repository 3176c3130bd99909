// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of 'lathound doctor''s checks (src/kernel/doctor.c) against a fake tracefs tree
 * (tracefs_set_tracing_dir()) and kernel configs written by the test, gzip'd or not.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <tracefs.h>
#include <zlib.h>

#include "kernel/doctor.h"
#include "kernel/session.h"
#include "kernel/state.h"
#include "check-main.h"
#include "fake-tracefs.h"

static char config[160];
static struct lh_doctor d;
/* The kernel the checks see: uname -v, and a file for /sys/kernel/realtime. */
static const char *kversion = "#1 SMP PREEMPT_RT Debian 6.1.158-1";
static char realtime[160];

static void write_config(const char *path, const char *text, bool gz)
{
	if (gz) {
		gzFile g = gzopen(path, "wb");

		ck_assert_ptr_nonnull(g);
		ck_assert_int_eq(gzputs(g, text), (int)strlen(text));
		ck_assert_int_eq(gzclose(g), Z_OK);
	} else {
		FILE *f = fopen(path, "w");

		fputs(text, f);
		fclose(f);
	}
}

#define CONFIG_ALL "CONFIG_FTRACE=y\nCONFIG_FUNCTION_TRACER=y\nCONFIG_DYNAMIC_FTRACE=y\n"	\
	"CONFIG_IRQSOFF_TRACER=y\nCONFIG_PREEMPT_TRACER=y\nCONFIG_SCHED_TRACER=y\n"	\
	"CONFIG_KPROBE_EVENTS=y\nCONFIG_HIST_TRIGGERS=y\nCONFIG_SYNTH_EVENTS=y\n"	\
	"CONFIG_PREEMPT_RT=y\nCONFIG_TIMERLAT_TRACER=y\nCONFIG_OSNOISE_TRACER=y\n"		\
	"CONFIG_HWLAT_TRACER=y\n"
#define CONFIG_DEBIAN "CONFIG_FTRACE=y\nCONFIG_FUNCTION_TRACER=y\nCONFIG_DYNAMIC_FTRACE=y\n"	\
	"# CONFIG_IRQSOFF_TRACER is not set\n# CONFIG_PREEMPT_TRACER is not set\n"	\
	"# CONFIG_SCHED_TRACER is not set\nCONFIG_KPROBE_EVENTS=y\n"

static void setup(void)
{
	fake_tracefs_create("doctor");
	snprintf(config, sizeof(config), "%s/config.gz", top);
	snprintf(realtime, sizeof(realtime), "%s/realtime", top);
	kversion = "#1 SMP PREEMPT_RT Debian 6.1.158-1";
	put("available_tracers", ALL_TRACERS);
	put("current_tracer", "nop\n");
	put("tracing_on", "1\n");
	put("trace", "");
	put("set_ftrace_filter", "#### all functions enabled ####\n");
	put("kprobe_events", "");
	put("events/irq/irq_handler_entry/enable", "0\n");
	put("events/irq/irq_handler_exit/enable", "0\n");
	put("events/sched/sched_waking/enable", "0\n");
	put("events/sched/sched_wakeup/enable", "0\n");
	put("events/sched/sched_switch/enable", "0\n");
	put("synthetic_events", "");
	put("events/sched/sched_switch/hist", "");
	put("events/sched/sched_waking/trigger", "");
	put("events/preemptirq/irq_disable/trigger", "");
	put("events/preemptirq/irq_enable/trigger", "");
	put("events/preemptirq/preempt_disable/trigger", "");
	put("events/preemptirq/preempt_enable/trigger", "");
	put("events/osnoise/irq_noise/enable", "0\n");
	put("events/osnoise/softirq_noise/enable", "0\n");
	put("events/osnoise/nmi_noise/enable", "0\n");
	put("events/osnoise/thread_noise/enable", "0\n");
	put("osnoise/timerlat_period_us", "1000\n");
	write_config(config, CONFIG_ALL, true);
	fake_tracefs_use();
	memset(&d, 0, sizeof(d));
}

static void teardown(void)
{
	lh_doctor_release(&d);
	fake_tracefs_destroy();
}

/* Return: whether lathound can run in the fake system (lh_doctor_run()). */
static bool run(long euid)
{
	struct lh_doctor_opts o = { .state_dir = sdir, .config_path = config, .euid = euid,
				    .kernel_version = kversion, .realtime_file = realtime };

	lh_doctor_release(&d);
	return lh_doctor_run(&d, &o);
}

static const struct lh_doctor_check *check(const char *name)
{
	size_t i;

	for (i = 0; i < d.nr; i++)
		if (!strcmp(d.checks[i].name, name))
			return &d.checks[i];
	ck_abort_msg("no check '%s'", name);
	return NULL;
}

#define ck_check(name, st, needle) do {						\
	const struct lh_doctor_check *c_ = check(name);				\
	ck_assert_msg(c_->status == (st), "check '%s' is %s (%s), expected %s", (name),	\
		      lh_doctor_status_name(c_->status), c_->detail,		\
		      lh_doctor_status_name(st));				\
	ck_assert_msg(strstr(c_->detail, (needle)), "check '%s' says '%s', not '%s'",	\
		      (name), c_->detail, (needle));				\
} while (0)

START_TEST(kconfig_lookup)
{
	static const char text[] = "#\n# CONFIG_B is not set\nCONFIG_A=y\nCONFIG_C=m\n"
				   "CONFIG_D=\"x\"\nCONFIG_FTRACE_SYSCALLS=y\nCONFIG_E=n";

	ck_assert_int_eq(lh_doctor_kconfig_lookup(text, strlen(text), "CONFIG_A"), LH_KCONFIG_YES);
	ck_assert_int_eq(lh_doctor_kconfig_lookup(text, strlen(text), "CONFIG_B"), LH_KCONFIG_NOT_SET);
	ck_assert_int_eq(lh_doctor_kconfig_lookup(text, strlen(text), "CONFIG_C"), LH_KCONFIG_MODULE);
	ck_assert_int_eq(lh_doctor_kconfig_lookup(text, strlen(text), "CONFIG_D"), LH_KCONFIG_NOT_SET);
	ck_assert_int_eq(lh_doctor_kconfig_lookup(text, strlen(text), "CONFIG_E"), LH_KCONFIG_NOT_SET);
	/* a longer name with the same prefix is another option */
	ck_assert_int_eq(lh_doctor_kconfig_lookup(text, strlen(text), "CONFIG_FTRACE"), LH_KCONFIG_NOT_SET);
	ck_assert_int_eq(lh_doctor_kconfig_lookup(text, strlen(text), "CONFIG_ABSENT"), LH_KCONFIG_NOT_SET);
}
END_TEST

START_TEST(kconfig_read)
{
	char plain[200], *text;
	size_t len;

	ck_assert_int_eq(lh_doctor_kconfig_read(config, &text, &len), 0);
	ck_assert_str_eq(text, CONFIG_ALL);
	ck_assert_uint_eq(len, strlen(CONFIG_ALL));
	free(text);
	snprintf(plain, sizeof(plain), "%s/config-6.1.0", top);
	write_config(plain, CONFIG_DEBIAN, false);
	ck_assert_int_eq(lh_doctor_kconfig_read(plain, &text, &len), 0);
	ck_assert_str_eq(text, CONFIG_DEBIAN);
	free(text);
	errno = 0;
	ck_assert_int_eq(lh_doctor_kconfig_read("/nonexistent/config.gz", &text, &len), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

START_TEST(all_good)
{
	size_t i;

	ck_assert(run(0));
	ck_assert(d.can_run);
	ck_assert_str_eq(d.tracing_dir, tree);
	ck_assert_str_eq(d.config_path, config);
	for (i = 0; i < d.nr; i++)
		ck_assert_msg(d.checks[i].status == LH_DOCTOR_OK, "check '%s' is %s: %s",
			      d.checks[i].name, lh_doctor_status_name(d.checks[i].status),
			      d.checks[i].detail);
	ck_check("latency tracers", LH_DOCTOR_OK, "9 of 9 available");
	ck_check("tracefs", LH_DOCTOR_OK, tree);
	for (i = 0; i < LH_DOCTOR_KCONFIG_NR; i++)
		ck_assert_int_eq(d.kconfig[i].state, LH_KCONFIG_YES);
}
END_TEST

START_TEST(no_latency_tracers)
{
	const struct lh_doctor_check *c;

	put("available_tracers", "blk function nop\n");
	write_config(config, CONFIG_DEBIAN, true);
	ck_assert(!run(0));
	ck_assert(!d.can_run);
	ck_check("tracer irqsoff", LH_DOCTOR_WARN, "not available in this kernel (CONFIG_IRQSOFF_TRACER is not set)");
	ck_check("tracer preemptoff", LH_DOCTOR_WARN, "CONFIG_PREEMPT_TRACER is not set");
	ck_check("tracer preemptirqsoff", LH_DOCTOR_WARN,
		 "CONFIG_IRQSOFF_TRACER is not set, CONFIG_PREEMPT_TRACER is not set");
	ck_check("tracer wakeup_rt", LH_DOCTOR_WARN, "CONFIG_SCHED_TRACER is not set");
	c = check("tracer wakeup_rt");
	ck_assert_str_eq(c->remedy, "build the kernel with CONFIG_SCHED_TRACER=y");
	ck_check("latency tracers", LH_DOCTOR_FAIL, "none available");
	c = check("latency tracers");
	ck_assert_ptr_nonnull(strstr(c->remedy, "CONFIG_IRQSOFF_TRACER=y CONFIG_PREEMPT_TRACER=y CONFIG_SCHED_TRACER=y"));
	ck_assert_int_eq(d.kconfig[3].state, LH_KCONFIG_NOT_SET);

	/* one is enough to run */
	put("available_tracers", "wakeup_rt function nop\n");
	ck_assert(run(0));
	ck_check("latency tracers", LH_DOCTOR_OK, "1 of 9 available");
}
END_TEST

START_TEST(no_kernel_config)
{
	struct lh_doctor_opts o = { .state_dir = sdir, .config_path = "", .euid = 0 };

	put("available_tracers", "function nop\n");
	ck_assert(!lh_doctor_run(&d, &o));
	ck_check("kernel config", LH_DOCTOR_WARN, "kernel config not found");
	ck_check("tracer irqsoff", LH_DOCTOR_WARN, "CONFIG_IRQSOFF_TRACER: unknown (no kernel config)");
	ck_assert_ptr_null(d.config_path);
	ck_assert_int_eq(d.kconfig[0].state, LH_KCONFIG_UNKNOWN);

	/* one given explicitly that cannot be read is an error, named with why */
	put("available_tracers", ALL_TRACERS);
	lh_doctor_release(&d);
	o.config_path = "/nonexistent/config";
	ck_assert(!lh_doctor_run(&d, &o));
	ck_check("kernel config", LH_DOCTOR_FAIL,
		 "cannot read kernel config '/nonexistent/config': No such file or directory");
}
END_TEST

/* A config that says a tracer is built, on a kernel without it: not "build it with". */
START_TEST(config_not_this_kernel)
{
	const struct lh_doctor_check *c;

	put("available_tracers", "irqsoff function nop\n");
	ck_assert(run(0));
	ck_check("tracer wakeup_rt", LH_DOCTOR_WARN,
		 "not available in this kernel, though the kernel config read says CONFIG_SCHED_TRACER=y");
	c = check("tracer wakeup_rt");
	ck_assert_ptr_null(strstr(c->remedy, "build"));
	ck_assert_ptr_nonnull(strstr(c->remedy, "not this kernel's"));
	ck_check("tracer preemptirqsoff", LH_DOCTOR_WARN,
		 "though the kernel config read says CONFIG_IRQSOFF_TRACER=y, CONFIG_PREEMPT_TRACER=y");
	put("available_tracers", "function nop\n");
	ck_assert(!run(0));
	ck_check("latency tracers", LH_DOCTOR_FAIL, "though the kernel config read says they are built");
	c = check("latency tracers");
	ck_assert_ptr_null(strstr(c->remedy, "build"));

	/* one of the two options preemptirqsoff needs is missing: build with both */
	write_config(config, "CONFIG_IRQSOFF_TRACER=y\n# CONFIG_PREEMPT_TRACER is not set\n", true);
	run(0);
	ck_check("tracer preemptirqsoff", LH_DOCTOR_WARN,
		 "not available in this kernel (CONFIG_IRQSOFF_TRACER=y, CONFIG_PREEMPT_TRACER is not set)");
	c = check("tracer preemptirqsoff");
	ck_assert_str_eq(c->remedy,
			 "build the kernel with CONFIG_IRQSOFF_TRACER=y and CONFIG_PREEMPT_TRACER=y");
}
END_TEST

START_TEST(preempt_rt)
{
	FILE *f;

	run(0);
	ck_check("PREEMPT_RT", LH_DOCTOR_OK, "this kernel is PREEMPT_RT (uname -v names PREEMPT_RT)");
	kversion = "#1 SMP PREEMPT_DYNAMIC Debian 6.12.1-1";
	f = fopen(realtime, "w");
	fputs("1\n", f);
	fclose(f);
	run(0);
	ck_check("PREEMPT_RT", LH_DOCTOR_OK, "this kernel is PREEMPT_RT (/sys/kernel/realtime is 1)");
	unlink(realtime);
	ck_assert(run(0));	/* not RT: a warning, lathound still runs */
	ck_check("PREEMPT_RT", LH_DOCTOR_WARN,
		 "this kernel is not PREEMPT_RT (uname -v: #1 SMP PREEMPT_DYNAMIC Debian 6.12.1-1), though the kernel config read says CONFIG_PREEMPT_RT=y");
	write_config(config, CONFIG_DEBIAN, true);
	run(0);
	ck_check("PREEMPT_RT", LH_DOCTOR_WARN,
		 "this kernel is not PREEMPT_RT (uname -v: #1 SMP PREEMPT_DYNAMIC Debian 6.12.1-1; CONFIG_PREEMPT_RT is not set)");
	ck_assert_ptr_nonnull(strstr(check("PREEMPT_RT")->remedy, "CONFIG_PREEMPT_RT=y"));
}
END_TEST

START_TEST(not_root)
{
	ck_assert(!run(1000));
	ck_assert(!d.can_run);
	ck_check("root", LH_DOCTOR_FAIL, "not running as root (euid 1000)");
	ck_check("latency tracers", LH_DOCTOR_OK, "9 of 9");
}
END_TEST

START_TEST(no_tracefs)
{
	drop("current_tracer");
	ck_assert(!run(0));
	ck_check("tracefs", LH_DOCTOR_FAIL, "has no current_tracer");
	ck_assert_ptr_null(d.tracing_dir);
}
END_TEST

START_TEST(busy_and_empty)
{
	const struct lh_doctor_check *c;
	char path[256];

	put("current_tracer", "function\n");
	put("tracing_on", "0\n");
	snprintf(path, sizeof(path), "%s/instances/trace-cmd", tree);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/instances/rtla", tree);
	mkdir(path, 0755);
	ck_assert(run(0));	/* warnings only: lathound --force can still run */
	ck_check("current_tracer", LH_DOCTOR_WARN,
		 "current_tracer is 'function': another tool is using the tracer");
	c = check("current_tracer");
	ck_assert_ptr_nonnull(strstr(c->remedy, "--force"));
	ck_check("tracing_on", LH_DOCTOR_WARN, "the 'trace' file stays empty");
	ck_check("instances", LH_DOCTOR_WARN, "in use: ");
	ck_check("instances", LH_DOCTOR_WARN, "rtla");
	ck_check("instances", LH_DOCTOR_WARN, "trace-cmd");
}
END_TEST

START_TEST(missing_features)
{
	write_config(config, "CONFIG_FTRACE=y\n# CONFIG_KPROBE_EVENTS is not set\n", true);
	drop("kprobe_events");
	drop("set_ftrace_filter");
	drop("events/sched/sched_waking/enable");
	drop("synthetic_events");
	ck_assert(run(0));
	ck_check("kprobe events", LH_DOCTOR_WARN,
		 "kprobe events are not available in this kernel (CONFIG_KPROBE_EVENTS is not set)");
	ck_check("function tracing", LH_DOCTOR_WARN, "set_ftrace_filter cannot be read");
	ck_check("events", LH_DOCTOR_WARN, "missing: sched:sched_waking");
	ck_check("histograms", LH_DOCTOR_WARN, "no hist triggers or synthetic events");
	ck_assert_ptr_nonnull(strstr(check("histograms")->remedy, "CONFIG_SYNTH_EVENTS=y"));

	put("available_tracers", "irqsoff nop\n");
	ck_assert(run(0));
	ck_check("function tracing", LH_DOCTOR_WARN, "no function tracer");
}
END_TEST

/* Hist triggers and synthetic events: which histograms the kernel can count. */
START_TEST(histograms)
{
	ck_assert(run(0));
	ck_check("histograms", LH_DOCTOR_OK, "irqsoff, preemptoff and wakeup counted in the kernel");
	drop("events/preemptirq/irq_disable/trigger");
	drop("events/preemptirq/irq_enable/trigger");
	drop("events/preemptirq/preempt_disable/trigger");
	drop("events/preemptirq/preempt_enable/trigger");
	ck_assert(run(0));
	ck_check("histograms", LH_DOCTOR_WARN, "counted in the kernel: wakeup; not: irqsoff preemptoff");
	ck_assert_ptr_nonnull(strstr(check("histograms")->remedy, "CONFIG_IRQSOFF_TRACER=y"));
	drop("synthetic_events");
	ck_assert(run(0));
	ck_check("histograms", LH_DOCTOR_WARN, "no hist triggers or synthetic events");
}
END_TEST

START_TEST(leftovers)
{
	struct lh_state *st = lh_state_alloc();
	struct lh_diag diag = { 0 };
	char path[256];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", sdir, LH_STATE_FILE);
	st->pid = 4242;
	st->tracing_dir = strdup(tree);
	lh_state_add(st, LH_STATE_VALUE, "tracing_thresh", "0\n");
	fd = open(sdir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_eq(lh_state_write_file(st, fd, LH_STATE_FILE, path, &diag), 0);
	close(fd);
	lh_state_free(st);
	ck_assert(run(0));
	ck_check("lathound state", LH_DOCTOR_WARN, "tracefs state left by a killed lathound (pid 4242)");
	ck_assert_ptr_nonnull(strstr(check("lathound state")->remedy, "lathound reset"));

	f = fopen(path, "w");
	fputs("{ \"format\": \"lathound-state\", \"version\": 2,\n", f);	/* cut short */
	fclose(f);
	run(0);
	ck_check("lathound state", LH_DOCTOR_WARN, "corrupt state file");

	/* one of an older lathound (version 1, text) is named as such, not guessed at */
	f = fopen(path, "w");
	fputs("lathound-state 1\npid 12\nend 0\n", f);
	fclose(f);
	run(0);
	ck_check("lathound state", LH_DOCTOR_WARN, "in the text format of an older lathound (version 1)");

	/* a running lathound holds the lock and writes its pid in it */
	snprintf(path, sizeof(path), "%s/%s", sdir, LH_LOCK_FILE);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	ck_assert_int_eq(write(fd, "31337\n", 6), 6);
	put("current_tracer", "irqsoff\n");
	run(0);
	ck_check("lathound state", LH_DOCTOR_WARN, "lathound pid 31337 is running");
	ck_check("current_tracer", LH_DOCTOR_OK, "irqsoff (lathound pid 31337 is recording)");
	close(fd);
	lh_diag_release(&diag);
}
END_TEST

static Suite *doctor_suite(void)
{
	Suite *s = suite_create("doctor");
	TCase *tc = tcase_create("doctor");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, kconfig_lookup);
	tcase_add_test(tc, kconfig_read);
	tcase_add_test(tc, all_good);
	tcase_add_test(tc, no_latency_tracers);
	tcase_add_test(tc, no_kernel_config);
	tcase_add_test(tc, config_not_this_kernel);
	tcase_add_test(tc, preempt_rt);
	tcase_add_test(tc, not_root);
	tcase_add_test(tc, no_tracefs);
	tcase_add_test(tc, busy_and_empty);
	tcase_add_test(tc, missing_features);
	tcase_add_test(tc, histograms);
	tcase_add_test(tc, leftovers);
	suite_add_tcase(s, tc);
	return s;
}

LH_CHECK_MAIN(doctor_suite)
