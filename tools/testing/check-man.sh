#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-man.sh [MANDIR] [LIST]: check the output of "make man": exactly one
# page per function of LIST (default tools/testing/documented-functions.txt)
# and nothing else in MANDIR (default build/man), each page with NAME,
# SYNOPSIS and ARGUMENTS sections, every parameter of the synopsis described,
# and, where LIST gives them, the exact prototype, purpose and parameter
# descriptions. Prints one line per problem; exits 1 if there is any.

set -euo pipefail

here=$(dirname "${BASH_SOURCE[0]}")
mandir=${1:-build/man}
list=${2:-$here/documented-functions.txt}

exec python3 - "$mandir" "$list" <<'PYEOF'
import os
import re
import sys

mandir, listfile = sys.argv[1], sys.argv[2]
want = {}
for line in open(listfile):
    if not line.strip() or line.startswith('#'):
        continue
    cols = line.rstrip('\n').split('\t')
    want[cols[0]] = cols[1:] if len(cols) == 4 else None

problems = []
have = set()
if os.path.isdir(mandir):
    have = {f[:-2] for f in os.listdir(mandir) if f.endswith('.9')}
    for f in os.listdir(mandir):
        if not f.endswith('.9'):
            problems.append(f'{mandir}/{f}: not a section 9 page')
for name in sorted(set(want) - have):
    problems.append(f'{name}: no manual page')
for name in sorted(have - set(want)):
    problems.append(f'{name}: page for a function that is not in the list')


def unroff(s):
    s = re.sub(r'\\f[BIRP]', '', s)
    return s.replace('\\-', '-').replace('\\\\', '\\').strip()


def sections(text):
    secs = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r'^\.SH\s+"?([^"]*)"?\s*$', line)
        if m:
            cur = m.group(1).strip().upper()
            secs[cur] = []
        elif cur:
            secs[cur].append(line)
    return secs


for name in sorted(have & set(want)):
    text = open(os.path.join(mandir, name + '.9')).read()
    secs = sections(text)
    for s in ('NAME', 'SYNOPSIS', 'ARGUMENTS'):
        if s not in secs:
            problems.append(f'{name}: no {s} section')
    if 'NAME' not in secs or 'SYNOPSIS' not in secs:
        continue
    nameline = unroff(' '.join(secs['NAME']))
    m = re.match(r'^(\S+) - (.+)$', nameline)
    if not m or m.group(1) != name or not m.group(2).strip():
        problems.append(f'{name}: bad NAME line "{nameline}"')
        purpose = ''
    else:
        purpose = m.group(2).strip()
    # SYNOPSIS: .B "type" name, then .BI "(type arg " "," ... ");"
    ret, params = None, []
    for line in secs['SYNOPSIS']:
        m = re.match(r'^\.B\s+"([^"]*)"\s+(\S+)', line)
        if m:
            ret = m.group(1)
            continue
        m = re.match(r'^\.BI\s+"([^"]*)"', line)
        if m:
            params.append(m.group(1).lstrip('(').strip())
    if ret is None:
        problems.append(f'{name}: cannot parse SYNOPSIS')
        continue
    proto = f'{ret} {name}({", ".join(params)});'
    args = {}
    cur = None
    for line in secs.get('ARGUMENTS', []):
        m = re.match(r'^\.IP\s+"([^"]*)"', line)
        if m:
            cur = m.group(1)
            args[cur] = []
        elif cur is not None:
            args[cur].append(line)
    args = {k: unroff(' '.join(v)) for k, v in args.items()}
    for p in params:
        if p == 'void':
            continue
        if p == '...':
            pname = '...'
        else:
            mm = re.search(r'(\w+)(\[[^\]]*\])?$', p)
            pname = mm.group(1) if mm else p
        desc = args.get(pname)
        if desc is None:
            problems.append(f'{name}: parameter {pname} not in ARGUMENTS')
        elif not desc or 'undescribed' in desc:
            problems.append(f'{name}: parameter {pname} not described')
    fixed = want[name]
    if fixed:
        wproto, wpurpose, wargs = fixed
        norm = lambda s: re.sub(r'\s*([*(),;])\s*', r'\1', re.sub(r'\s+', ' ', s)).strip()
        if norm(proto) != norm(wproto):
            problems.append(f'{name}: prototype "{proto}", want "{wproto}"')
        if purpose != wpurpose:
            problems.append(f'{name}: purpose "{purpose}", want "{wpurpose}"')
        for item in wargs.split('; '):
            pname, pdesc = item.split(': ', 1)
            if args.get(pname) != pdesc:
                problems.append(f'{name}: {pname} described as "{args.get(pname)}", want "{pdesc}"')

for p in problems:
    print(p)
print(f'check-man: {len(have & set(want))} of {len(want)} pages present, {len(problems)} problem(s)')
sys.exit(1 if problems else 0)
PYEOF
