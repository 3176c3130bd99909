/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * 'lathound doctor' checks: can this kernel and system run lathound, and if not, what is
 * missing and how to fix it. Each check is a result (ok / warn / FAIL, what was found,
 * the remedy); cmd-doctor.c prints them. Reads tracefs through libtracefs (the tests point
 * it at a fake tree with tracefs_set_tracing_dir()) and the kernel config (/proc/config.gz
 * or /boot/config-RELEASE, through zlib). Changes nothing but mounting tracefs, as every
 * libtracefs user does. No printing.
 */
#ifndef LH_DOCTOR_H
#define LH_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

enum lh_doctor_status { LH_DOCTOR_OK, LH_DOCTOR_WARN, LH_DOCTOR_FAIL };

struct lh_doctor_check {
	enum lh_doctor_status	status;
	char			*name;		/* "tracefs", "tracer irqsoff"... */
	char			*detail;	/* what was found */
	char			*remedy;	/* what to do about it; NULL when nothing */
};

/* What the kernel config says about an option. */
enum lh_kconfig {
	LH_KCONFIG_UNKNOWN,	/* no kernel config found */
	LH_KCONFIG_NOT_SET,	/* "# CONFIG_X is not set", or absent */
	LH_KCONFIG_YES,		/* =y */
	LH_KCONFIG_MODULE,	/* =m */
};

#define LH_DOCTOR_KCONFIG_NR	13

struct lh_doctor_opts {
	const char	*state_dir;	/* NULL: LH_STATE_DIR */
	const char	*config_path;	/* NULL: /proc/config.gz, /boot/config-RELEASE;
					 * "": pretend there is none */
	long		euid;		/* -1: geteuid(); tests pretend other users */
	const char	*kernel_version;	/* NULL: uname -v; tests pretend other kernels */
	const char	*realtime_file;		/* NULL: /sys/kernel/realtime */
};

struct lh_doctor {
	struct lh_doctor_check	*checks;
	size_t			nr;
	size_t			alloc;
	bool			can_run;	/* tracefs usable, a latency tracer, root */
	const char		*tracing_dir;	/* NULL if tracefs is unusable (borrowed) */
	char			*config_path;	/* where the kernel config was read */
	char			*config_tried;	/* the paths looked at */
	int			config_errno;	/* why an explicit --kernel-config was not read */
	struct {
		const char	*name;		/* "CONFIG_IRQSOFF_TRACER" */
		enum lh_kconfig	state;
	} kconfig[LH_DOCTOR_KCONFIG_NR];
};

/*
 * Runs every check into d (zeroed by the caller, or reused after lh_doctor_release()); the
 * texts belong to d until lh_doctor_release().
 * Return: true when lathound can run here (d->can_run), false when it cannot.
 */
bool lh_doctor_run(struct lh_doctor *d, const struct lh_doctor_opts *o);
/* Frees the checks' texts; d is zeroed and can be reused. */
void lh_doctor_release(struct lh_doctor *d);

/* Return: "ok", "warn" or "FAIL". Static. */
const char *lh_doctor_status_name(enum lh_doctor_status s);
/* Return: "=y", "=m", "is not set", "unknown". Static. */
const char *lh_doctor_kconfig_name(enum lh_kconfig k);

/* Looks option ("CONFIG_X") up in a kernel config's text. Pure. Return: what it says. */
enum lh_kconfig lh_doctor_kconfig_lookup(const char *text, size_t len, const char *option);
/*
 * Reads a kernel config, gzip'd or not. Return: 0 and *text (malloc'd, NUL-terminated,
 * caller frees) and *len, or -1 with errno.
 */
int lh_doctor_kconfig_read(const char *path, char **text, size_t *len);

#endif /* LH_DOCTOR_H */
