// SPDX-License-Identifier: GPL-2.0-only
/* lathound record (stub until implemented). */
#include "cmds.h"
#include "util.h"

int lh_cmd_record(int argc, char **argv)
{
	return lh_error("'record' is not implemented yet") ? LH_EXIT_ERROR : LH_EXIT_ERROR;
}
