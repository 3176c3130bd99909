// SPDX-License-Identifier: GPL-2.0-only
/* lathound analyze (stub until implemented). */
#include "cmds.h"
#include "util.h"

int lh_cmd_analyze(int argc, char **argv)
{
	return lh_error("'analyze' is not implemented yet") ? LH_EXIT_ERROR : LH_EXIT_ERROR;
}
