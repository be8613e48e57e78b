#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# count-multi.sh [-l] [CASEFILE...]: how many cases of a srp-hostile case
# table accept more than one answer (default: cases.txt next to this
# script). -l also lists them, one per line: the case name, then each step
# that accepts several answers and why.
#
# Macros (define NAME TEXT) are expanded first, as the runner does: a
# define applies to the whole file, the last one of a name wins, and a name
# that is no define is taken from the environment (60-hostile.sh exports
# per-transport ones such as NO_RECV_OUTCOME; unset, it stays as written).
#
# A step accepts more than one answer when it has
#   expect ... || ...            alternatives
#   expect ... KEY=A|B, KEY=any  several values (status=, asc=, reason= ...)
#   login want=A|B, want=any, want=norsp
#   send ... mayfail             the send may fail or succeed
#   drain want=any|all-or-down, drain status=A|B or status=any
# Ranges (alive min=, req_lim_min=, atleast=) are bounds on counts, not
# alternative answers, and are not counted.

set -euo pipefail

list=0
if [[ ${1:-} == -l ]]; then
	list=1
	shift
fi
(($# > 0)) || set -- "$(dirname "$0")/cases.txt"

awk -v list="$list" '
function strip(s,    i, c) {
	# comments: "#" at the start or after white space
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "#" && (i == 1 || substr(s, i - 1, 1) ~ /[ \t]/))
			return substr(s, 1, i - 1)
	}
	return s
}
function expand(s, depth,    out, name, val, brace) {
	out = ""
	while (match(s, /\$(\{[A-Za-z_][A-Za-z0-9_]*\}?|[A-Za-z_][A-Za-z0-9_]*)/)) {
		out = out substr(s, 1, RSTART - 1)
		name = substr(s, RSTART + 1, RLENGTH - 1)
		s = substr(s, RSTART + RLENGTH)
		gsub(/[{}]/, "", name)
		if (name in def)
			val = def[name]
		else if (name in ENVIRON)
			val = ENVIRON[name]
		else
			val = "$" name
		if (depth < 8 && val != "$" name)
			val = expand(val, depth + 1)
		out = out val
	}
	return out s
}
function several(v) {
	return v ~ /\|/ || v == "any"
}
# why step S (expanded) accepts several answers, or ""
function multi(s,    n, t, i, kv, why) {
	n = split(s, t, /[ \t]+/)
	why = ""
	if (t[1] == "expect") {
		for (i = 2; i <= n; i++) {
			if (t[i] == "||")
				why = why " ||"
			else if (t[i] ~ /=/) {
				kv = substr(t[i], index(t[i], "=") + 1)
				if (t[i] !~ /^(ms|conn|tag)=/ && several(kv))
					why = why " " t[i]
			}
		}
	} else if (t[1] == "login" || t[1] == "drain") {
		for (i = 2; i <= n; i++) {
			if (t[i] ~ /^want=/) {
				kv = substr(t[i], 6)
				if (several(kv) || kv == "norsp" || kv == "all-or-down")
					why = why " " t[i]
			} else if (t[1] == "drain" && t[i] ~ /^status=/ && several(substr(t[i], 8))) {
				why = why " " t[i]
			}
		}
	} else if (t[1] == "send") {
		for (i = 2; i <= n; i++)
			if (t[i] == "mayfail")
				why = why " mayfail"
	}
	return why
}
# read everything first: a define applies to the whole table
{
	line = strip($0)
	if (line ~ /^[ \t]*define[ \t]/) {
		sub(/^[ \t]*define[ \t]+/, "", line)
		name = line
		sub(/[ \t].*/, "", name)
		val = substr(line, length(name) + 1)
		sub(/^[ \t]+/, "", val)
		sub(/[ \t]+$/, "", val)
		def[name] = val
	}
	nl++
	raw[nl] = $0
	loc[nl] = (ARGC > 2 ? FILENAME ":" : "") FNR
	next
}
END {
	total = 0
	nmulti = 0
	cur = ""
	for (l = 1; l <= nl; l++) {
		line = strip(raw[l])
		sub(/^[ \t]+/, "", line)
		sub(/[ \t]+$/, "", line)
		if (line == "" || line ~ /^define[ \t]/ || line ~ /^why([ \t]|$)/)
			continue
		if (line ~ /^case[ \t]/) {
			split(line, ct, /[ \t]+/)
			cur = ct[2]
			total++
			order[total] = cur
			continue
		}
		if (cur == "")
			continue
		w = multi(expand(line, 0))
		if (w != "") {
			if (!(cur in why))
				nmulti++
			why[cur] = why[cur] "  [" loc[l] ":" w " ]"
		}
	}
	if (list)
		for (i = 1; i <= total; i++)
			if (order[i] in why)
				print order[i] why[order[i]]
	printf "%d of %d cases accept more than one answer\n", nmulti, total
}
' "$@"
