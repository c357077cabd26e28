#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Generate ./configure from a git checkout.
set -e
cd "$(dirname "$0")"
autoreconf --force --install --verbose
