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
#   3. The reasons of the "login from ... refused: %s" message between the
#      ".. check-doc: login reasons begin" and ".. check-doc: login reasons
#      end" comments (first cell of each row, an inline literal) are
#      exactly the texts the source can put into that %s: none missing,
#      none extra. The texts are found from the message itself: the
#      function that prints it and the parameter behind its %s; every call
#      of it; for each call, a string literal, or a buffer filled with
#      snprintf()-like calls in the caller or in the functions it is
#      handed to, or a parameter of the caller (whose calls are followed in
#      turn). Any other shape is reported as a problem, so that a new kind
#      of reason cannot slip past the check.
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


def section_rows(name):
    """The first cells of the table between ".. check-doc: NAME begin/end"."""
    begin = text.find('.. check-doc: %s begin' % name)
    end = text.find('.. check-doc: %s end' % name)
    if begin < 0 or end < begin:
        print('%s: no ".. check-doc: %s begin/end" section' % (rst, name))
        sys.exit(1)
    return re.findall(r'(?m)^\s*\* - ``(.+)``\s*$', text[begin:end])


documented = section_rows('messages')

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
message_problems = problems

# Check 3: the login reasons.
problems = []
documented = section_rows('login reasons')

STR = r'"(?:[^"\\\n]|\\.)*"'
CHR = r"'(?:[^'\\\n]|\\.)*'"
LIT = re.compile(STR + '|' + CHR)


def strip(code):
    """Comments and preprocessor lines blanked, strings kept."""
    out = re.sub(r'%s|%s|/\*.*?\*/|//[^\n]*' % (STR, CHR),
                 lambda m: m.group(0) if m.group(0)[0] in '"\''
                 else re.sub(r'[^\n]', ' ', m.group(0)), code, flags=re.S)
    return re.sub(r'(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*',
                  lambda m: re.sub(r'[^\n]', ' ', m.group(0)), out)


def closing(code, i, open_ch, close_ch):
    """Index of the bracket closing the one at code[i]."""
    depth = 0
    while i < len(code):
        m = LIT.match(code, i)
        if m:
            i = m.end()
            continue
        if code[i] == open_ch:
            depth += 1
        elif code[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def split_args(s):
    """Top-level comma-separated parts of s."""
    parts, depth, cur, i = [], 0, '', 0
    while i < len(s):
        m = LIT.match(s, i)
        if m:
            cur += m.group(0)
            i = m.end()
            continue
        c = s[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        if c == ',' and depth == 0:
            parts.append(cur.strip())
            cur = ''
        else:
            cur += c
        i += 1
    if cur.strip():
        parts.append(cur.strip())
    return parts


def literal(arg):
    """The text of a (concatenated) string literal, or None."""
    if not re.fullmatch(r'(?:%s\s*)+' % STR, arg, flags=re.S):
        return None
    return ''.join(re.sub(r'\\(.)', lambda e: {'n': '\n', 't': '\t'}.get(
                       e.group(1), e.group(1)), m[1:-1])
                   for m in re.findall(STR, arg))


# Every function definition: name -> (parameter names, body).
funcs = {}
for f in sources:
    code = strip(open(f, encoding='utf-8').read())
    i = 0
    while True:
        j = code.find('{', i)
        if j < 0:
            break
        k = closing(code, j, '{', '}')
        if k < 0:
            break
        head = code[max(code.rfind(';', 0, j), code.rfind('}', 0, j)) + 1:j]
        m = re.search(r'\b([A-Za-z_]\w*)\s*\(([^;{}]*)\)\s*$', head, flags=re.S)
        if m and m.group(1) not in ('if', 'for', 'while', 'switch'):
            params = []
            for prm in split_args(m.group(2)):
                n = re.findall(r'[A-Za-z_]\w*', re.sub(r'\[.*?\]', '', prm))
                params.append(n[-1] if n else '')
            funcs[m.group(1)] = (params, code[j + 1:k])
        i = k + 1


def calls(body, name):
    """The argument lists of every call of name in body."""
    for m in re.finditer(r'\b%s\s*\(' % re.escape(name), body):
        o = m.end() - 1
        c = closing(body, o, '(', ')')
        if c > 0:
            yield split_args(body[o + 1:c])


WRITERS = {'snprintf': 2, 'scnprintf': 2, 'sprintf': 1, 'strscpy': 1,
           'strlcpy': 1, 'strcpy': 1}


def buffer_texts(fn, buf, sinks, seen):
    """The texts written into buffer buf of function fn (and callees)."""
    if (fn, buf) in seen:
        return set()
    seen.add((fn, buf))
    body = funcs[fn][1]
    texts = set()
    for w, idx in WRITERS.items():
        for args in calls(body, w):
            if not args or args[0] != buf:
                continue
            t = literal(args[idx]) if len(args) > idx else None
            if t is None:
                problems.append('%s(): %s(%s, ...) without a literal format'
                                % (fn, w, buf))
            else:
                texts.add(t)
    for callee in funcs:
        if callee in sinks or callee == fn:
            continue
        for args in calls(body, callee):
            for pos, a in enumerate(args):
                if a == buf and pos < len(funcs[callee][0]):
                    texts |= buffer_texts(callee, funcs[callee][0][pos],
                                          sinks, seen)
    return texts


# The function that prints the message and the parameter behind its %s.
sinks = {}
for fn, (params, body) in funcs.items():
    for m in re.finditer(r'\bpr_\w+\s*\(', body):
        o = m.end() - 1
        args = split_args(body[o + 1:closing(body, o, '(', ')')])
        fmt = literal(args[0]) if args else None
        if fmt and re.search(r'^login from .* refused: %s(\\n|\n)?$', fmt):
            if args[-1] in params:
                sinks[fn] = params.index(args[-1])
            else:
                problems.append('%s(): the reason of "%s" is no parameter'
                                % (fn, fmt.strip()))
if not sinks and not problems:
    problems.append('no "login from ... refused: %s" message in the source')

in_source = set()
todo = list(sinks.items())
while todo:
    sink, idx = todo.pop()
    for fn, (params, body) in funcs.items():
        if fn == sink:
            continue
        for args in calls(body, sink):
            a = args[idx] if len(args) > idx else ''
            t = literal(a)
            if t is not None:
                in_source.add(t)
            elif a in params:
                if fn not in sinks:
                    sinks[fn] = params.index(a)
                    todo.append((fn, sinks[fn]))
            elif re.fullmatch(r'[A-Za-z_]\w*', a):
                texts = buffer_texts(fn, a, sinks, set())
                if not texts:
                    problems.append('%s(): nothing is written into "%s" '
                                    'before %s()' % (fn, a, sink))
                in_source |= texts
            else:
                problems.append('%s(): cannot tell the reason of its %s() '
                                'call ("%s")' % (fn, sink, a))

for p in problems:
    print(p)
for m in sorted(in_source - set(documented)):
    print('login reason not in the guide: "%s"' % m)
    problems.append(m)
for m in sorted(set(documented) - in_source):
    print('login reason in the guide but not in the source: "%s"' % m)
    problems.append(m)
for m in sorted({m for m in documented if documented.count(m) > 1}):
    print('login reason in the guide more than once: "%s"' % m)
    problems.append(m)
if not documented:
    print('%s: no login reasons found between the markers' % rst)
    problems.append('')
sys.exit(1 if problems or message_problems else 0)
PYEOF

((rc == 0)) && echo "$rst: OK (${docutils[*]}, kernel messages and login reasons match the source)"
exit "$rc"
