// SPDX-License-Identifier: GPL-2.0-only
/* lathound reset (stub until implemented). */
#include "cmds.h"
#include "util.h"

int lh_cmd_reset(int argc, char **argv)
{
	return lh_error("'reset' is not implemented yet") ? LH_EXIT_ERROR : LH_EXIT_ERROR;
}
