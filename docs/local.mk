# SPDX-License-Identifier: LGPL-2.1-or-later
# Documentation: the API reference (HTML) and section-3 man pages from the
# public headers (Doxygen), rfm-layout(5), and the layout-format page.

man_MANS += man/rfm-layout.5
EXTRA_DIST += docs/Doxyfile.in docs/man3-tidy.sh docs/layout-format.md docs/rfm2g-migration.md \
	docs/architecture.md docs/dds.md \
	man/rfm-layout.5

# `make doc`: doc/html/ and doc/man/man3/. Every function of the ABI
# (src/librfm.map) must have its page, so `man FUNCTION` works once
# installed; a missing one fails here, naming it. RFM_PRIVATE's rfm__*
# entry points are not the ABI and have none.
doc: docs/Doxyfile $(rfminclude_HEADERS:%=$(top_srcdir)/%) include/rfm/version.h
	@if test -z "$(DOXYGEN)"; then \
		echo "make doc: doxygen not found (Debian: doxygen); re-run configure" >&2; exit 1; fi
	$(AM_V_GEN)rm -rf doc && $(DOXYGEN) docs/Doxyfile && \
		$(SHELL) $(top_srcdir)/docs/man3-tidy.sh doc/man/man3
	@missing=; for f in `sed -n 's/^[[:space:]]*\(rfm_[a-z0-9][a-z0-9_]*\);.*/\1/p' $(top_srcdir)/src/librfm.map`; do \
		test -f doc/man/man3/$$f.3 || missing="$$missing $$f"; \
	done; \
	if test -n "$$missing"; then \
		echo "make doc: no man page for:$$missing (document them in include/rfm/)" >&2; \
		exit 1; \
	fi; \
	echo "make doc: `ls doc/man/man3 | wc -l` man pages in doc/man/man3, HTML in doc/html/index.html"

# librfm-dev ships the pages: `make install-doc` puts them under $(mandir)/man3
# and $(docdir)/html (debian/rules runs both targets).
install-doc: doc
	$(MKDIR_P) $(DESTDIR)$(mandir)/man3 $(DESTDIR)$(docdir)/html
	$(INSTALL_DATA) doc/man/man3/*.3 $(DESTDIR)$(mandir)/man3/
	cp -R doc/html/. $(DESTDIR)$(docdir)/html/

clean-local: clean-doc
clean-doc:
	rm -rf doc doxygen-warnings.log
.PHONY: doc install-doc clean-doc
