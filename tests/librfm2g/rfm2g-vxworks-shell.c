/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The VxWorks shell for rfm2g-vxworks-style.c, which has no main():
 * "rfmBoard = N" then "rfmHilTask", as a target's start-up script does.
 */
#include <stdlib.h>

#include "rfm2g_types.h"

extern RFM2G_INT32 rfmBoard;
RFM2G_INT32 rfmHilTask(void);

int main(int argc, char **argv)
{
	rfmBoard = argc > 1 ? (RFM2G_INT32) atoi(argv[1]) : 0;
	return rfmHilTask() == 0 ? 0 : 1;
}
