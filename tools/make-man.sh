#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make-man.sh KERNEL-DOC SOURCE OUTDIR [LIST]: write one section 9 manual
# page per function of SOURCE to OUTDIR/<function>.9, using kernel-doc -man.
# With LIST (a file with one function name at the start of each line, "#"
# comments allowed) only the listed functions get pages; without it every
# documented function does. Pages of structures, enums and DOC sections are
# left out.

set -euo pipefail

kerneldoc=$1 src=$2 out=$3 list=${4:-}
[[ -x $kerneldoc ]] || { echo "make-man.sh: $kerneldoc not found (set KERNELDOC or KDIR)" >&2; exit 1; }
args=(-man -no-doc-sections)
if [[ -n $list ]]; then
	while read -r fn _; do
		[[ -z $fn || $fn == \#* ]] && continue
		args+=(-function "$fn")
	done <"$list"
fi
rm -rf "$out"
mkdir -p "$out"
"$kerneldoc" "${args[@]}" "$src" | awk -v out="$out" '
	function flush() {
		if (name != "") {
			printf "%s", page > (out "/" name ".9")
			close(out "/" name ".9")
		}
		name = ""; page = ""
	}
	/^\.TH / {
		flush()
		# .TH "function" 9 "function" "date" ... for functions;
		# structs, unions, enums and typedefs have "struct x" etc. as
		# the third field.
		n = split($0, f, "\"")
		if (n >= 4 && f[2] == f[4] && f[2] ~ /^[A-Za-z_][A-Za-z0-9_]*$/)
			name = f[2]
	}
	name != "" { page = page $0 "\n" }
	END { flush() }
'
echo "$(find "$out" -name '*.9' | wc -l) manual pages in $out"
