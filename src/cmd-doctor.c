// SPDX-License-Identifier: GPL-2.0-only
/* lathound doctor (stub until implemented). */
#include "cmds.h"
#include "util.h"

int lh_cmd_doctor(int argc, char **argv)
{
	return lh_error("'doctor' is not implemented yet") ? LH_EXIT_ERROR : LH_EXIT_ERROR;
}
