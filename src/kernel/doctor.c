// SPDX-License-Identifier: GPL-2.0-only
/*
 * The checks behind 'lathound doctor': root, tracefs, the latency tracers and the kernel
 * options behind the missing ones, events, kprobes, function filtering, someone else's
 * tracer, tracing_on, instances, and what a killed lathound left behind.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include <tracefs.h>
#include <zlib.h>

#include "doctor.h"
#include "hist.h"
#include "irqtrace.h"
#include "session.h"
#include "state.h"
#include "trace/record.h"
#include "util/util.h"

#define KCONFIG_MAX	(16u << 20)
#define MOUNT_CMD	"mount -t tracefs nodev /sys/kernel/tracing"
/* The remedy when the kernel config says a tracer is built but the kernel has none. */
#define NOT_THIS_CONFIG	"the kernel config read is not this kernel's: give --kernel-config the running kernel's (/boot/config-$(uname -r)), or check that tracing is not locked down (lockdown=confidentiality)"

static const char *const kconfig_names[LH_DOCTOR_KCONFIG_NR] = {
	"CONFIG_FTRACE", "CONFIG_FUNCTION_TRACER", "CONFIG_DYNAMIC_FTRACE",
	"CONFIG_IRQSOFF_TRACER", "CONFIG_PREEMPT_TRACER", "CONFIG_SCHED_TRACER",
	"CONFIG_KPROBE_EVENTS", "CONFIG_HIST_TRIGGERS", "CONFIG_SYNTH_EVENTS",
	"CONFIG_PREEMPT_RT", "CONFIG_TIMERLAT_TRACER", "CONFIG_OSNOISE_TRACER",
	"CONFIG_HWLAT_TRACER",
};

/* The events whose absence lathound notices, and what their absence costs. */
static const char *const events[][2] = {
	{ "irq", "irq_handler_entry" },
	{ "irq", "irq_handler_exit" },
	{ "sched", "sched_waking" },
	{ "sched", "sched_wakeup" },
	{ "sched", "sched_switch" },
};

const char *lh_doctor_status_name(enum lh_doctor_status s)
{
	return s == LH_DOCTOR_OK ? "ok" : s == LH_DOCTOR_WARN ? "warn" : "FAIL";
}

const char *lh_doctor_kconfig_name(enum lh_kconfig k)
{
	switch (k) {
	case LH_KCONFIG_YES:
		return "=y";
	case LH_KCONFIG_MODULE:
		return "=m";
	case LH_KCONFIG_NOT_SET:
		return "is not set";
	default:
		return "unknown";
	}
}

/* Adds a check; remedy may be NULL. */
static void add(struct lh_doctor *d, enum lh_doctor_status st, const char *name,
		const char *remedy, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void add(struct lh_doctor *d, enum lh_doctor_status st, const char *name,
		const char *remedy, const char *fmt, ...)
{
	struct lh_doctor_check *c;
	va_list ap;

	LH_GROW(d->checks, d->nr + 1, d->alloc);
	c = &d->checks[d->nr++];
	c->status = st;
	c->name = lh_xstrdup(name);
	va_start(ap, fmt);
	c->detail = lh_xvasprintf(fmt, ap);
	va_end(ap);
	c->remedy = remedy ? lh_xstrdup(remedy) : NULL;
}

void lh_doctor_release(struct lh_doctor *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++) {
		free(d->checks[i].name);
		free(d->checks[i].detail);
		free(d->checks[i].remedy);
	}
	free(d->checks);
	free(d->config_path);
	free(d->config_tried);
	memset(d, 0, sizeof(*d));
}

enum lh_kconfig lh_doctor_kconfig_lookup(const char *text, size_t len, const char *option)
{
	size_t olen = strlen(option);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end;

		if ((size_t)(le - p) > olen && !memcmp(p, option, olen) && p[olen] == '=') {
			if (le - p == (ptrdiff_t)olen + 2 && p[olen + 1] == 'y')
				return LH_KCONFIG_YES;
			if (le - p == (ptrdiff_t)olen + 2 && p[olen + 1] == 'm')
				return LH_KCONFIG_MODULE;
			return LH_KCONFIG_NOT_SET;	/* =n or a value */
		}
		p = le + 1;
	}
	/* "# CONFIG_X is not set", or not there at all (its dependencies are not set) */
	return LH_KCONFIG_NOT_SET;
}

int lh_doctor_kconfig_read(const char *path, char **text, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, alloc = 0;
	gzFile gz;
	int r, err;

	errno = 0;
	gz = gzopen(path, "rb");	/* reads plain text too */
	if (!gz) {
		if (!errno)
			errno = ENOMEM;
		return -1;
	}
	for (;;) {
		if (alloc - n < 65536 + 1) {
			if (alloc >= KCONFIG_MAX) {
				gzclose(gz);
				free(buf);
				errno = EFBIG;
				return -1;
			}
			lh_grow((void **)&buf, &alloc, n + 65536 + 1, 1);
		}
		r = gzread(gz, buf + n, 65536);
		if (r < 0) {
			gzerror(gz, &err);
			gzclose(gz);
			free(buf);
			errno = err == Z_ERRNO && errno ? errno : EIO;
			return -1;
		}
		if (!r)
			break;
		n += r;
	}
	gzclose(gz);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

static void read_kconfig(struct lh_doctor *d, const struct lh_doctor_opts *o)
{
	char boot[300], *text = NULL;
	const char *paths[2];
	struct utsname u;
	size_t len = 0, i, np = 0;

	if (o->config_path) {
		if (*o->config_path)
			paths[np++] = o->config_path;
	} else {
		paths[np++] = "/proc/config.gz";
		if (!uname(&u)) {
			snprintf(boot, sizeof(boot), "/boot/config-%s", u.release);
			paths[np++] = boot;
		}
	}
	if (np == 2)
		d->config_tried = lh_xasprintf("%s, %s", paths[0], paths[1]);
	else
		d->config_tried = lh_xstrdup(np ? paths[0] : "none");
	for (i = 0; i < np && !text; i++)
		if (!lh_doctor_kconfig_read(paths[i], &text, &len))
			d->config_path = lh_xstrdup(paths[i]);
	if (o->config_path && *o->config_path && !text)
		d->config_errno = errno ? errno : EIO;
	for (i = 0; i < LH_DOCTOR_KCONFIG_NR; i++) {
		d->kconfig[i].name = kconfig_names[i];
		d->kconfig[i].state = text ? lh_doctor_kconfig_lookup(text, len, kconfig_names[i])
					   : LH_KCONFIG_UNKNOWN;
	}
	free(text);
}

static enum lh_kconfig kconfig_state(const struct lh_doctor *d, const char *name)
{
	size_t i;

	for (i = 0; i < LH_DOCTOR_KCONFIG_NR; i++)
		if (!strcmp(d->kconfig[i].name, name))
			return d->kconfig[i].state;
	return LH_KCONFIG_UNKNOWN;
}

/* Return: whether the kernel config says name is built (=y or =m). */
static bool kconfig_built(const struct lh_doctor *d, const char *name)
{
	enum lh_kconfig k = kconfig_state(d, name);

	return k == LH_KCONFIG_YES || k == LH_KCONFIG_MODULE;
}

/* "CONFIG_X is not set" / "CONFIG_X=y" / "CONFIG_X: unknown (no kernel config)". */
static const char *kconfig_says(const struct lh_doctor *d, const char *name, char *buf,
				size_t len)
{
	enum lh_kconfig k = kconfig_state(d, name);

	if (k == LH_KCONFIG_UNKNOWN)
		snprintf(buf, len, "%s: unknown (no kernel config)", name);
	else if (k == LH_KCONFIG_NOT_SET)
		snprintf(buf, len, "%s is not set", name);
	else
		snprintf(buf, len, "%s%s", name, lh_doctor_kconfig_name(k));
	return buf;
}

static bool tracefs_in_proc_mounts(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		if (sp && (sp = strchr(sp + 1, ' ')) && !strncmp(sp + 1, "tracefs ", 8))
			found = true;
	}
	fclose(f);
	return found;
}

static void check_root(struct lh_doctor *d, long euid)
{
	if (!euid)
		add(d, LH_DOCTOR_OK, "root", NULL, "running as root");
	else
		add(d, LH_DOCTOR_FAIL, "root", "run lathound as root (sudo lathound ...)",
		    "not running as root (euid %ld): tracefs can only be written by root", euid);
}

/*
 * Return: true when tracefs is usable. *denied is set when tracefs is there but this user
 * may not look into it (0700 as mounted): then nothing in it can be judged.
 */
static bool check_tracefs(struct lh_doctor *d, bool *denied)
{
	struct lh_diag diag = { 0 };
	bool was_mounted = tracefs_in_proc_mounts();
	const char *dir;
	char *file;
	bool ok = false;

	*denied = false;
	if (lh_session_tracing_dir(&dir, &diag)) {
		if (errno == EACCES || errno == EPERM) {
			*denied = true;
			add(d, LH_DOCTOR_FAIL, "tracefs", "run as root (sudo lathound doctor)", "%s",
			    diag.nr ? diag.msgs[0].text : strerror(errno));
			goto out;
		}
		add(d, LH_DOCTOR_FAIL, "tracefs", "as root: " MOUNT_CMD " (if the mount point is missing, the kernel lacks CONFIG_TRACING)",
		    "%s", diag.nr ? diag.msgs[0].text : "tracefs not found");
		goto out;
	}
	file = tracefs_instance_get_file(NULL, "current_tracer");
	if (file && access(file, W_OK)) {
		add(d, LH_DOCTOR_FAIL, "tracefs", "run lathound as root",
		    "tracefs at '%s' is not writable: %s", dir, strerror(errno));
	} else {
		add(d, LH_DOCTOR_OK, "tracefs", NULL, "mounted at %s%s, writable", dir,
		    !was_mounted && tracefs_in_proc_mounts() ? " (mounted it now)" : "");
		ok = true;
	}
	tracefs_put_tracing_file(file);
	d->tracing_dir = dir;
out:
	lh_diag_release(&diag);
	return ok;
}

static void check_kconfig(struct lh_doctor *d)
{
	if (d->config_errno)
		add(d, LH_DOCTOR_FAIL, "kernel config",
		    "give --kernel-config a kernel config that can be read, or leave it out to look in /proc/config.gz and /boot",
		    "cannot read kernel config '%s': %s", d->config_tried, strerror(d->config_errno));
	else if (d->config_path)
		add(d, LH_DOCTOR_OK, "kernel config", NULL, "read from %s", d->config_path);
	else
		add(d, LH_DOCTOR_WARN, "kernel config",
		    "load the 'configs' module (modprobe configs) or install the kernel's config file to learn which options are missing",
		    "kernel config not found (%s)", d->config_tried);
}

/*
 * Whether the running kernel is PREEMPT_RT: /sys/kernel/realtime reads 1 (the RT patch, and
 * mainline since 6.12), or uname -v names PREEMPT_RT (as every RT kernel's does).
 */
static void check_preempt_rt(struct lh_doctor *d, const struct lh_doctor_opts *o)
{
	const char *path = o->realtime_file ? o->realtime_file : "/sys/kernel/realtime";
	const char *version = o->kernel_version;
	char buf[8] = "", says[128];
	struct utsname u;
	bool rt_file = false;
	ssize_t n;
	int fd;

	if (!version)
		version = uname(&u) ? "unknown" : u.version;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		rt_file = n > 0 && buf[0] == '1';
		close(fd);
	}
	kconfig_says(d, "CONFIG_PREEMPT_RT", says, sizeof(says));
	if (rt_file || strstr(version, "PREEMPT_RT"))
		add(d, LH_DOCTOR_OK, "PREEMPT_RT", NULL, "this kernel is PREEMPT_RT (%s)",
		    rt_file ? "/sys/kernel/realtime is 1" : "uname -v names PREEMPT_RT");
	else if (kconfig_built(d, "CONFIG_PREEMPT_RT"))
		add(d, LH_DOCTOR_WARN, "PREEMPT_RT", NOT_THIS_CONFIG,
		    "this kernel is not PREEMPT_RT (uname -v: %s), though the kernel config read says %s",
		    version, says);
	else
		add(d, LH_DOCTOR_WARN, "PREEMPT_RT",
		    "a release gate for an RT kernel measures one built with CONFIG_PREEMPT_RT=y",
		    "this kernel is not PREEMPT_RT (uname -v: %s; %s): its latencies are not an RT kernel's",
		    version, says);
}

/*
 * Return: how many latency tracers are available. denied: tracefs cannot be read, so
 * whether a tracer is there is unknown (the kernel config can only hint).
 */
static int check_tracers(struct lh_doctor *d, bool denied)
{
	char **avail = d->tracing_dir ? tracefs_tracers(d->tracing_dir) : NULL;
	char name[64], first[64], says[2][128], needs[128], remedy[192];
	int t, i, n = 0;

	for (t = 1; t < LH_TRACER_NR; t++) {
		const char *cfg = lh_tracer_config(t), *and = strstr(cfg, " and ");
		bool found = false;

		for (i = 0; avail && avail[i]; i++)
			if (!strcmp(avail[i], lh_tracer_name(t)))
				found = true;
		snprintf(name, sizeof(name), "tracer %s", lh_tracer_name(t));
		if (found) {
			add(d, LH_DOCTOR_OK, name, NULL, "available");
			n++;
			continue;
		}
		/* first: the option it needs, or the first of the two */
		snprintf(first, sizeof(first), "%.*s", and ? (int)(and - cfg) : (int)strlen(cfg),
			 cfg);
		kconfig_says(d, first, says[0], sizeof(says[0]));
		if (and)
			kconfig_says(d, and + 5, says[1], sizeof(says[1]));
		else
			says[1][0] = '\0';
		if (denied) {
			add(d, LH_DOCTOR_WARN, name, "run lathound doctor as root to check",
			    "unknown (tracefs not readable; kernel config: %s%s%s)", says[0],
			    says[1][0] ? ", " : "", says[1]);
			continue;
		}
		if (kconfig_built(d, first) && (!and || kconfig_built(d, and + 5))) {
			add(d, LH_DOCTOR_WARN, name, NOT_THIS_CONFIG,
			    "not available in this kernel, though the kernel config read says %s%s%s",
			    says[0], says[1][0] ? ", " : "", says[1]);
			continue;
		}
		snprintf(remedy, sizeof(remedy), "build the kernel with %s",
			 lh_session_tracer_needs(t, needs, sizeof(needs)));
		add(d, LH_DOCTOR_WARN, name, remedy, "not available in this kernel (%s%s%s)",
		    says[0], says[1][0] ? ", " : "", says[1]);
	}
	tracefs_list_free(avail);
	if (n)
		add(d, LH_DOCTOR_OK, "latency tracers", NULL, "%d of %d available", n,
		    LH_TRACER_NR - 1);
	else if (denied)
		add(d, LH_DOCTOR_WARN, "latency tracers", "run lathound doctor as root to check",
		    "unknown (tracefs not readable)");
	else if (kconfig_built(d, "CONFIG_IRQSOFF_TRACER") &&
		 kconfig_built(d, "CONFIG_PREEMPT_TRACER") && kconfig_built(d, "CONFIG_SCHED_TRACER"))
		add(d, LH_DOCTOR_FAIL, "latency tracers", NOT_THIS_CONFIG,
		    "none available: lathound record cannot run on this kernel, though the kernel config read says they are built");
	else
		add(d, LH_DOCTOR_FAIL, "latency tracers",
		    "build a kernel with CONFIG_IRQSOFF_TRACER=y CONFIG_PREEMPT_TRACER=y CONFIG_SCHED_TRACER=y (all three are off in most distribution kernels)",
		    "none available: lathound record cannot run on this kernel");
	return n;
}

static void check_events(struct lh_doctor *d)
{
	char missing[256] = "", path[128];
	size_t i, o = 0;

	for (i = 0; i < LH_ARRAY_SIZE(events); i++) {
		snprintf(path, sizeof(path), "events/%s/%s/enable", events[i][0], events[i][1]);
		if (!lh_state_knob_exists(path))
			o += snprintf(missing + o, sizeof(missing) - o, "%s%s:%s", o ? ", " : "",
				      events[i][0], events[i][1]);
	}
	if (!o)
		add(d, LH_DOCTOR_OK, "events", NULL,
		    "irq:irq_handler_entry/exit, sched:sched_waking/wakeup/switch present");
	else
		add(d, LH_DOCTOR_WARN, "events",
		    "without the irq events snapshots cannot name the irq handler that kept interrupts off (needs CONFIG_TRACING with tracepoints)",
		    "missing: %s", missing);
}

/*
 * What timerlat and osnoise break a spike down with: the osnoise:*_noise events and the
 * global osnoise/ knobs. Said only when one of the two tracers is there.
 */
static void check_noise_events(struct lh_doctor *d)
{
	static const char *const noise[] = { "irq_noise", "softirq_noise", "nmi_noise",
					     "thread_noise" };
	char missing[256] = "", path[128];
	size_t i, o = 0;
	char **avail = tracefs_tracers(d->tracing_dir);
	bool any = false;

	for (i = 0; avail && avail[i]; i++)
		if (!strcmp(avail[i], "timerlat") || !strcmp(avail[i], "osnoise"))
			any = true;
	tracefs_list_free(avail);
	if (!any)
		return;
	for (i = 0; i < LH_ARRAY_SIZE(noise); i++) {
		snprintf(path, sizeof(path), "events/osnoise/%s/enable", noise[i]);
		if (!lh_state_knob_exists(path))
			o += snprintf(missing + o, sizeof(missing) - o, "%sosnoise:%s",
				      o ? ", " : "", noise[i]);
	}
	if (!lh_state_knob_exists("osnoise/timerlat_period_us"))
		o += snprintf(missing + o, sizeof(missing) - o, "%sosnoise/timerlat_period_us",
			      o ? ", " : "");
	if (!o)
		add(d, LH_DOCTOR_OK, "noise events", NULL,
		    "osnoise:irq_noise/softirq_noise/nmi_noise/thread_noise present (timerlat and osnoise spikes are broken down by cause)");
	else
		add(d, LH_DOCTOR_WARN, "noise events",
		    "without them a timerlat or osnoise spike is measured but not broken down by cause",
		    "missing: %s", missing);
}

static void check_kprobes(struct lh_doctor *d)
{
	char says[128];

	if (lh_state_knob_exists("kprobe_events"))
		add(d, LH_DOCTOR_OK, "kprobe events", NULL, "kprobe_events present (--kprobe works)");
	else
		add(d, LH_DOCTOR_WARN, "kprobe events",
		    "--kprobe needs a kernel with CONFIG_KPROBE_EVENTS=y",
		    "kprobe events are not available in this kernel (%s)",
		    kconfig_says(d, "CONFIG_KPROBE_EVENTS", says, sizeof(says)));
}

/* Which latency histograms the kernel can count (hist.c), and what the others need. */
static void check_histograms(struct lh_doctor *d)
{
	unsigned int k = lh_hist_supported(NULL);
	char says[128], more[128], on[64], dflt[64];

	if (!lh_state_knob_exists("synthetic_events") ||
	    !lh_state_knob_exists("events/sched/sched_switch/hist")) {
		kconfig_says(d, "CONFIG_HIST_TRIGGERS", says, sizeof(says));
		kconfig_says(d, "CONFIG_SYNTH_EVENTS", more, sizeof(more));
		add(d, LH_DOCTOR_WARN, "histograms",
		    "in-kernel latency histograms need CONFIG_HIST_TRIGGERS=y and CONFIG_SYNTH_EVENTS=y",
		    "no hist triggers or synthetic events in this kernel (%s, %s)", says, more);
		return;
	}
	lh_hist_kinds_format(k & LH_HIST_DEFAULT, on, sizeof(on));
	lh_hist_kinds_format(LH_HIST_DEFAULT, dflt, sizeof(dflt));
	if (k == (1u << LH_HIST_NR) - 1) {
		add(d, LH_DOCTOR_OK, "histograms", NULL,
		    "irqsoff, preemptoff and wakeup counted in the kernel (hist triggers, synthetic events); on by default in record: %s (the others with --hist)",
		    on);
		return;
	}
	add(d, LH_DOCTOR_WARN, "histograms",
	    "irqs-off and preempt-off histograms need the preemptirq events (CONFIG_IRQSOFF_TRACER=y, CONFIG_PREEMPT_TRACER=y)",
	    "counted in the kernel: %s%s%s; not: %s%s%s; on by default in record: %s (of %s)",
	    k & (1u << LH_HIST_IRQSOFF) ? "irqsoff " : "",
	    k & (1u << LH_HIST_PREEMPTOFF) ? "preemptoff " : "",
	    k & (1u << LH_HIST_WAKEUP) ? "wakeup" : "",
	    k & (1u << LH_HIST_IRQSOFF) ? "" : "irqsoff ",
	    k & (1u << LH_HIST_PREEMPTOFF) ? "" : "preemptoff ",
	    k & (1u << LH_HIST_WAKEUP) ? "" : "wakeup", on, dflt);
}

/* The "system slow under tracing" failure mode: function tracing and its filters. */
static void check_function_tracing(struct lh_doctor *d)
{
	char **avail = tracefs_tracers(d->tracing_dir);
	char says[128], *c;
	bool function = false;
	int i;

	for (i = 0; avail && avail[i]; i++)
		if (!strcmp(avail[i], "function"))
			function = true;
	tracefs_list_free(avail);
	if (!function) {
		add(d, LH_DOCTOR_WARN, "function tracing",
		    "--function-trace needs CONFIG_FUNCTION_TRACER=y; snapshots still show where sections start and end",
		    "no function tracer (%s): --function-trace shows no functions",
		    kconfig_says(d, "CONFIG_FUNCTION_TRACER", says, sizeof(says)));
		return;
	}
	errno = 0;
	c = tracefs_instance_file_read(NULL, "set_ftrace_filter", NULL);
	if (!c && errno) {
		add(d, LH_DOCTOR_WARN, "function tracing",
		    "with --function-trace every function inside a section is traced: the system slows down and sections grow 7-10%; --filter/--notrace, which would narrow it, need a readable set_ftrace_filter (CONFIG_DYNAMIC_FTRACE=y, no lockdown)",
		    "set_ftrace_filter cannot be read: %s: --filter/--notrace will not work",
		    strerror(errno));
		return;
	}
	free(c);
	add(d, LH_DOCTOR_OK, "function tracing", NULL,
	    "available; off unless --function-trace (it slows the system: narrow it with --filter/--notrace)");
}

/* Someone else's tracer, the "trace is empty" failure mode, and instances in use. */
static void check_tracer_state(struct lh_doctor *d, pid_t holder)
{
	char cur[128], on[16], msg[256], path[4096];
	struct dirent *de;
	bool ours = false;
	size_t o = 0;
	DIR *dir;

	if (lh_state_read_knob("current_tracer", cur, sizeof(cur))) {
		add(d, LH_DOCTOR_WARN, "current_tracer", NULL, "cannot be read: %s",
		    strerror(errno));
	} else if (!strcmp(cur, "nop")) {
		add(d, LH_DOCTOR_OK, "current_tracer", NULL, "nop (free)");
	} else if (holder > 0 && lh_tracer_from_name(cur, strlen(cur)) != LH_TRACER_UNKNOWN) {
		add(d, LH_DOCTOR_OK, "current_tracer", NULL, "%s (lathound pid %ld is recording)",
		    cur, (long)holder);
	} else {
		snprintf(msg, sizeof(msg), "stop that tool (or: echo nop > %s/current_tracer), or take the tracer over with 'lathound record --force'",
			 d->tracing_dir);
		add(d, LH_DOCTOR_WARN, "current_tracer", msg,
		    "current_tracer is '%s': another tool is using the tracer", cur);
	}

	if (lh_state_read_knob("tracing_on", on, sizeof(on)))
		add(d, LH_DOCTOR_WARN, "tracing_on", NULL, "cannot be read: %s", strerror(errno));
	else if (!strcmp(on, "0"))
		add(d, LH_DOCTOR_WARN, "tracing_on",
		    "lathound turns it on while it records; for other tools: echo 1 > tracing_on (and check current_tracer)",
		    "tracing_on is 0: the 'trace' file stays empty while it is off");
	else
		add(d, LH_DOCTOR_OK, "tracing_on", NULL, "%s", on);

	/* Listed by hand: tracefs_instances() of libtracefs 1.6 leaks its regex. */
	msg[0] = '\0';
	snprintf(path, sizeof(path), "%s/instances", d->tracing_dir);
	dir = opendir(path);
	while (dir && (de = readdir(dir)) && o < sizeof(msg) - 1) {
		if (de->d_name[0] == '.')
			continue;
		o += snprintf(msg + o, sizeof(msg) - o, "%s%s", o ? ", " : "", de->d_name);
		if (!strncmp(de->d_name, LH_IRQTRACE_PREFIX, strlen(LH_IRQTRACE_PREFIX)))
			ours = true;
	}
	if (dir)
		closedir(dir);
	if (!o)
		add(d, LH_DOCTOR_OK, "instances", NULL, "none");
	else
		add(d, LH_DOCTOR_WARN, "instances",
		    ours ? "lathound-PID is lathound's own (irq statistics): one whose lathound is gone was left by a killed run, and 'lathound reset' removes it; others belong to other tools"
			 : "other tools trace in these; the latency tracers run only in the top-level instance, which lathound borrows",
		    "in use: %s", msg);
}

static void check_leftovers(struct lh_doctor *d, const char *state_dir, pid_t holder)
{
	struct lh_diag diag = { 0 };
	struct lh_state *st = NULL;
	char path[4096], remedy[4200];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", state_dir, LH_STATE_FILE);
	if (holder < 0) {
		add(d, LH_DOCTOR_WARN, "lathound state", NULL,
		    "cannot tell whether a lathound is running (%s/%s)", state_dir, LH_LOCK_FILE);
		return;
	}
	if (holder > 0) {
		add(d, LH_DOCTOR_WARN, "lathound state", "wait for it to end: one lathound at a time",
		    "lathound pid %ld is running (it holds %s/%s)", (long)holder, state_dir,
		    LH_LOCK_FILE);
		return;
	}
	ret = lh_state_read_file(AT_FDCWD, path, path, &st, &diag);
	if (!ret) {
		add(d, LH_DOCTOR_OK, "lathound state", NULL, "nothing left over in %s", state_dir);
	} else if (ret > 0) {
		add(d, LH_DOCTOR_WARN, "lathound state",
		    "run 'lathound reset' (the next 'lathound record' also restores it first)",
		    "tracefs state left by a killed lathound (pid %ld) in %s", (long)st->pid, path);
	} else {
		snprintf(remedy, sizeof(remedy), "check the tracefs knobs it lists by hand, then remove %s",
			 path);
		add(d, LH_DOCTOR_WARN, "lathound state", remedy, "%s",
		    diag.nr ? diag.msgs[0].text : "cannot read the state file");
	}
	lh_state_free(st);
	lh_diag_release(&diag);
}

bool lh_doctor_run(struct lh_doctor *d, const struct lh_doctor_opts *o)
{
	const char *state_dir = o->state_dir ? o->state_dir : LH_STATE_DIR;
	bool root, tracefs, denied;
	pid_t holder;
	int tracers = 0;

	read_kconfig(d, o);
	root = !(o->euid < 0 ? (long)geteuid() : o->euid);
	check_root(d, o->euid < 0 ? (long)geteuid() : o->euid);
	tracefs = check_tracefs(d, &denied);
	check_kconfig(d);
	check_preempt_rt(d, o);
	holder = lh_session_lock_holder(state_dir);
	if (d->tracing_dir) {
		tracers = check_tracers(d, false);
		check_events(d);
		check_noise_events(d);
		check_kprobes(d);
		check_histograms(d);
		check_function_tracing(d);
		check_tracer_state(d, holder);
	} else {
		tracers = check_tracers(d, denied);	/* from the kernel config alone */
	}
	check_leftovers(d, state_dir, holder);
	/* A kernel config asked for and not read is an error: its advice would be a guess. */
	d->can_run = root && tracefs && tracers > 0 && !d->config_errno;
	return d->can_run;
}
