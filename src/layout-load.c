/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loading a layout: from a string (parsed by layout-yaml.c, then
 * validated) or from a file (read whole, bounded by LAY_TEXT_MAX: this
 * bounds what a mistaken path can make us read).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout-internal.h"
#include "os/file.h"

RFM_API int rfm_layout_load_string(const char *text, size_t len, const char *source_name,
				   rfm_layout **layoutp, rfm_diag_list **diagsp)
{
	struct rfm_diag_list *diags;
	rfm_layout *layout = NULL;
	int ret;

	if (diagsp)
		*diagsp = NULL;
	if (!layoutp || (!text && len))
		return rfm__error(RFM_EINVAL, "rfm_layout_load_string: NULL argument");
	if (!source_name)
		source_name = "<string>";
	diags = rfm__diag_list_new(source_name);
	if (!diags)
		return rfm__error(RFM_ENOMEM, "out of memory loading %s", source_name);
	ret = rfm__layout_parse_yaml(text ? text : "", len, source_name, &layout, diags);
	if (ret && ret != RFM_ELAYOUT) {
		rfm_diag_list_free(diags);
		rfm__layout_unref(layout);
		return ret;
	}
	if (!layout) {
		/* Nothing to validate: the diagnostics say why. */
		ret = rfm__diag_finish(diags);
		if (diagsp)
			*diagsp = diags;
		else
			rfm_diag_list_free(diags);
		return ret;
	}
	ret = rfm__layout_validate(layout, diags, diagsp);
	if (ret) {
		rfm__layout_unref(layout);
		return ret;
	}
	/* Kept for recordings (recorder.h), which store the layout they were made with. */
	layout->text = malloc(len + 1);
	if (!layout->text) {
		rfm__layout_unref(layout);
		return rfm__error(RFM_ENOMEM, "out of memory loading %s", source_name);
	}
	if (len)
		memcpy(layout->text, text, len);
	layout->text[len] = '\0';
	layout->text_len = len;
	*layoutp = layout;
	return 0;
}

RFM_API int rfm_layout_load_file(const char *path, rfm_layout **layoutp,
				 rfm_diag_list **diagsp)
{
	struct stat st;
	char *text;
	size_t got = 0;
	int fd, ret;

	if (diagsp)
		*diagsp = NULL;
	if (!path || !layoutp)
		return rfm__error(RFM_EINVAL, "rfm_layout_load_file: NULL argument");
	fd = rfm__os_open_read(path);
	if (fd < 0) {
		int err = errno;
		return rfm__error(rfm__errno_code(err), "%s: %s", path, strerror(err));
	}
	if (fstat(fd, &st) < 0) {
		int err = errno;
		close(fd);
		return rfm__error(rfm__errno_code(err), "%s: %s", path, strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return rfm__error(RFM_EINVAL, "%s: not a regular file", path);
	}
	if ((unsigned long long)st.st_size > LAY_TEXT_MAX) {
		close(fd);
		return rfm__error(RFM_ELAYOUT, "%s: %llu bytes, more than the %u a layout file may have",
				  path, (unsigned long long)st.st_size, LAY_TEXT_MAX);
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		close(fd);
		return rfm__error(RFM_ENOMEM, "%s: out of memory", path);
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, text + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got < (size_t)st.st_size) {
		int err = errno;
		close(fd);
		free(text);
		return rfm__error(RFM_ESYS, "%s: read failed: %s", path,
				  err ? strerror(err) : "file shrank");
	}
	close(fd);
	ret = rfm_layout_load_string(text, got, path, layoutp, diagsp);
	free(text);
	return ret;
}
