/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The subcommands, one file each (cmd-*.c). Each takes argv as its own: argv[0] is the
 * command's name. Return: the process exit code (LH_EXIT_*).
 */
#ifndef LH_CMDS_H
#define LH_CMDS_H

#include "cli.h"

/* The subcommands (main.c's table). Return: the exit code, LH_EXIT_*. */
int lh_cmd_analyze(int argc, char **argv);
int lh_cmd_report(int argc, char **argv);
int lh_cmd_diff(int argc, char **argv);
int lh_cmd_merge(int argc, char **argv);
int lh_cmd_record(int argc, char **argv);
int lh_cmd_doctor(int argc, char **argv);
int lh_cmd_reset(int argc, char **argv);
int lh_cmd_rules(int argc, char **argv);
int lh_cmd_hist(int argc, char **argv);

#endif /* LH_CMDS_H */
