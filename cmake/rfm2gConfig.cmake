# SPDX-License-Identifier: LGPL-2.1-or-later
#
# find_package(rfm2g): the RFM2g API. Its targets, rfm::rfm2g and
# rfm::rfm2g_static, are librfm's package's (rfmConfig.cmake, beside).
include("${CMAKE_CURRENT_LIST_DIR}/../rfm/rfmConfig.cmake")
if(DEFINED rfm_FOUND AND NOT rfm_FOUND)
	set(rfm2g_FOUND FALSE)
	set(rfm2g_NOT_FOUND_MESSAGE "${rfm_NOT_FOUND_MESSAGE}")
endif()
