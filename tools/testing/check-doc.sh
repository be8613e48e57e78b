#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-doc.sh [RST]: check the admin guide (default Documentation/ib_srpt.rst).
#
#   1. docutils turns it into HTML without any warning or error
#      (python3 -m docutils --halt=warning; rst2html when the module cannot
#      be run); anything docutils prints counts as a problem.
#   2. The kernel messages between the ".. check-doc: messages begin" and
#      ".. check-doc: messages end" comments (the first cell of each table
#      row, an inline literal) are exactly the pr_info/pr_notice/pr_warn/
#      pr_err format strings of ib_srpt.c (and *.inc next to it): none
#      missing, none that the source does not have.
#
# Prints one line per problem. Exit status: 0 when clean, 1 on any problem,
# 77 when docutils is not installed (python3-docutils).

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rst=${1:-$REPO/Documentation/ib_srpt.rst}
[[ -f $rst ]] || { echo "$rst does not exist"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The first interpreter that has docutils, or rst2html.
docutils=()
for py in python3 /usr/bin/python3; do
	if command -v "$py" >/dev/null && "$py" -c 'import docutils' 2>/dev/null; then
		docutils=("$py" -m docutils)
		break
	fi
done
if ((${#docutils[@]} == 0)) && command -v rst2html >/dev/null; then
	docutils=(rst2html)
fi
if ((${#docutils[@]} == 0)); then
	echo "docutils is not installed (python3-docutils)"
	exit 77
fi

rc=0
if ! "${docutils[@]}" --halt=warning --report=warning "$rst" "$tmp/out.html" \
		>"$tmp/stdout" 2>"$tmp/stderr"; then
	rc=1
fi
if ((rc)) || [[ -s $tmp/stderr || -s $tmp/stdout ]]; then
	echo "${docutils[*]} $rst: warnings or errors:"
	cat "$tmp/stdout" "$tmp/stderr"
	rc=1
fi

shopt -s nullglob
sources=("$REPO"/ib_srpt.c "$REPO"/*.inc)
python3 - "$rst" "${sources[@]}" <<'PYEOF' || rc=1
import re
import sys

rst, sources = sys.argv[1], sys.argv[2:]
text = open(rst, encoding='utf-8').read()
begin = text.find('.. check-doc: messages begin')
end = text.find('.. check-doc: messages end')
if begin < 0 or end < begin:
    print('%s: no ".. check-doc: messages begin/end" section' % rst)
    sys.exit(1)
documented = re.findall(r'(?m)^\s*\* - ``(.+)``\s*$', text[begin:end])

code = ''
for f in sources:
    code += open(f, encoding='utf-8').read()
calls = re.findall(r'\bpr_(?:info|notice|warn|err)(?:_ratelimited|_once)?'
                   r'\(\s*"((?:[^"\\]|\\.)*)"', code)
in_source = [re.sub(r'\\(.)', r'\1', c[:-2] if c.endswith('\\n') else c)
             for c in calls]

problems = 0
for m in sorted(set(in_source) - set(documented)):
    print('not in the guide: "%s"' % m)
    problems += 1
for m in sorted(set(documented) - set(in_source)):
    print('in the guide but not in the source: "%s"' % m)
    problems += 1
for m in sorted({m for m in documented if documented.count(m) > 1}):
    print('in the guide more than once: "%s"' % m)
    problems += 1
if not documented:
    print('%s: no messages found between the markers' % rst)
    problems += 1
sys.exit(1 if problems else 0)
PYEOF

((rc == 0)) && echo "$rst: OK (${docutils[*]}, kernel messages match the source)"
exit "$rc"
