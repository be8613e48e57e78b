#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-andand.sh - fail on "a && b" statements whose failing "a" no
# "set -e" can see (bash ignores errexit for every command of an && list
# but the last). The rules are in check-andand.py, which does the parsing;
# an intended list carries "# andand: ok <why>" on one of its lines.
#
# Usage: tools/testing/check-andand.sh [FILE...]
#   FILE: the scripts to check (default: the harness scripts, as the
#   scripts stage of make check gives them to shellcheck, and the guest's
#   init)
# Exit status 0 when nothing was found. Run it from the top of the tree.

set -euo pipefail

here=$(dirname "$0")
if (($# == 0)); then
	if git rev-parse --git-dir >/dev/null 2>&1; then
		mapfile -t files < <(git ls-files -- 'tools/*.sh' 'tools/**/*.sh' .ci/run | sort -u)
	else
		mapfile -t files < <(find tools .ci -type f \( -name '*.sh' -o -path .ci/run \) | sort)
	fi
	files+=(tools/testing/guest/init)
	set -- "${files[@]}"
fi
rc=0
python3 "$here/check-andand.py" "$@" || rc=$?
if ((rc == 0)); then
	echo "check-andand: no && list that set -e cannot see in $# file(s)"
fi
exit "$rc"
