# SPDX-License-Identifier: LGPL-2.1-or-later
# Typed-variable tables: layouts, variable and record handles (issue 4).
src_librfm_la_SOURCES += \
	src/layout-internal.h \
	src/seqlock.h \
	src/layout-types.c \
	src/layout-diag.c \
	src/layout.c \
	src/layout-check.c \
	src/layout-yaml.c \
	src/layout-header.c \
	src/var.c \
	src/var-text.c \
	src/record.c
src_librfm_la_CFLAGS += $(YAML_CFLAGS)
src_librfm_la_LIBADD = $(YAML_LIBS) -lm $(RFM_DDS_LIBADD)
rfminclude_HEADERS += include/rfm/layout.h
