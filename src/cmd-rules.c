// SPDX-License-Identifier: GPL-2.0-only
/* lathound rules (stub until implemented). */
#include "cmds.h"
#include "util.h"

int lh_cmd_rules(int argc, char **argv)
{
	return lh_error("'rules' is not implemented yet") ? LH_EXIT_ERROR : LH_EXIT_ERROR;
}
