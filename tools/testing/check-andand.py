#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# check-andand.py - find "a && b" lists whose failure "set -e" cannot see.
#
# Bash ignores errexit for every command of an && / || list except the last
# one, so a statement "a && b" in the middle of a function or script lets a
# failing "a" pass without a trace: the list returns non-zero, nothing
# stops. This checker parses bash (enough of it for the harness scripts)
# and reports every && list used as a statement
#   - whose last operator is && (a list that ends in "|| x" is handled),
#   - that is not in an if/elif/while/until condition,
#   - that does not hand its status on: the last statement of a function
#     body, of the script, of a $(...) / <(...) / `...`, or of a compound
#     command whose status is itself handed on (a "{ a && b; } || return 1"
#     group, an if branch that is the last statement of a function), is
#     not reported,
#   - and that is not a condition followed by an action: when every
#     command before the last is a test ([[ ]], [ ], test, (( )),
#     command -v) and the last one is not, the list is "if test then
#     action", whose action errexit does see. A list of tests only (an
#     assertion whose verdict is thrown away) is reported.
# A list that is meant to be what it is carries "# andand: ok <why>" on
# one of its lines.
#
# Usage: tools/testing/check-andand.py FILE...
# Prints one "FILE:LINE: ..." line per finding; exit status 1 if there was
# one (2 if a file could not be parsed).

import re
import sys

MARK = re.compile(r'#\s*andand:\s*ok\s+\S')
META = set('|&;()<> \t\n')
TEST_CMDS = {'[[', '[', 'test', '(('}
ASSIGN_ARRAY = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=$')


class ParseError(Exception):
    pass


class Cmd:
    """One command of a pipeline: its first words and whether it is a test."""

    def __init__(self, words, line, compound=None):
        self.words = words
        self.line = line
        self.compound = compound

    def is_test(self):
        w = [x for x in self.words if x != '!']
        if not w:
            return False
        if w[0] in TEST_CMDS:
            return True
        return len(w) >= 2 and w[0] == 'command' and w[1] == '-v'


class Parser:
    def __init__(self, text, name):
        self.s = text
        self.i = 0
        self.line = 1
        self.name = name
        self.peeked = None
        self.heredocs = []
        self.findings = []
        self.marked = set()

    # ---- lexer -------------------------------------------------------

    def err(self, msg):
        raise ParseError(f'{self.name}:{self.line}: {msg}')

    def ch(self, k=0):
        j = self.i + k
        return self.s[j] if j < len(self.s) else ''

    def adv(self, n=1):
        for _ in range(n):
            if self.i < len(self.s):
                if self.s[self.i] == '\n':
                    self.line += 1
                self.i += 1

    def skip_heredocs(self):
        # called just after a newline was consumed
        while self.heredocs:
            delim, strip = self.heredocs.pop(0)
            while True:
                if self.i >= len(self.s):
                    return
                end = self.s.find('\n', self.i)
                if end < 0:
                    end = len(self.s)
                body = self.s[self.i:end]
                if strip:
                    body = body.lstrip('\t')
                self.adv(end - self.i + 1)
                if body == delim:
                    break

    def comment(self):
        start = self.i
        while self.ch() not in ('', '\n'):
            self.adv()
        if MARK.search(self.s[start:self.i]):
            self.marked.add(self.line)

    def scan_single(self):
        self.adv()  # '
        while self.ch() != "'":
            if self.ch() == '':
                self.err('unterminated quote')
            self.adv()
        self.adv()

    def scan_ansi(self):
        self.adv()  # '
        while self.ch() != "'":
            if self.ch() == '':
                self.err('unterminated $\'\'')
            if self.ch() == '\\':
                self.adv()
            self.adv()
        self.adv()

    def scan_double(self):
        self.adv()  # "
        while self.ch() != '"':
            c = self.ch()
            if c == '':
                self.err('unterminated double quote')
            if c == '\\':
                self.adv(2)
            elif c == '$' and self.ch(1) not in ('"', "'"):
                self.scan_dollar()
            elif c == '`':
                self.scan_backtick()
            else:
                self.adv()
        self.adv()

    def scan_backtick(self):
        self.adv()
        start = self.i
        while self.ch() != '`':
            if self.ch() == '':
                self.err('unterminated backtick')
            if self.ch() == '\\':
                self.adv()
            self.adv()
        text = self.s[start:self.i]
        self.adv()
        sub = Parser(text, self.name)
        sub.line = self.line
        sub.parse_script()
        self.findings += sub.findings

    def scan_quoting(self, c, backtick=True):
        # one escape, quote or expansion starting at c; False if c is none
        if c == '\\':
            self.adv(2)
        elif c == "'":
            self.scan_single()
        elif c == '"':
            self.scan_double()
        elif c == '$':
            self.scan_dollar()
        elif c == '`' and backtick:
            self.scan_backtick()
        else:
            return False
        return True

    def scan_braces(self):
        # ${...}
        self.adv(2)
        depth = 1
        while depth:
            c = self.ch()
            if c == '':
                self.err('unterminated ${')
            if self.scan_quoting(c):
                pass
            elif c == '{':
                depth += 1
                self.adv()
            elif c == '}':
                depth -= 1
                self.adv()
            else:
                self.adv()

    def scan_arith(self):
        # after "((" or "$((": up to the matching "))"
        depth = 0
        while True:
            c = self.ch()
            if c == '':
                self.err('unterminated ((')
            if c == ')' and depth == 0 and self.ch(1) == ')':
                self.adv(2)
                return
            if c == '(':
                depth += 1
                self.adv()
            elif c == ')':
                depth -= 1
                self.adv()
            elif c == '$':
                self.scan_dollar()
            elif c == '"':
                self.scan_double()
            elif c == "'":
                self.scan_single()
            else:
                self.adv()

    def scan_subscript(self):
        # after "$(" / "<(" / ">(": a script of its own up to ")"
        saved = self.peeked
        self.peeked = None
        start = self.line
        self.parse_list({')'}, 'last')
        t = self.next()
        if t[:2] != ('OP', ')'):
            self.err(f'expected ) of the $(...) of line {start}, got {t[1]!r}')
        self.peeked = saved

    def scan_dollar(self):
        if self.ch(1) == '(' and self.ch(2) == '(':
            self.adv(3)
            self.scan_arith()
        elif self.ch(1) == '(':
            self.adv(2)
            self.scan_subscript()
        elif self.ch(1) == '{':
            self.scan_braces()
        elif self.ch(1) == "'":
            self.adv()
            self.scan_ansi()
        elif self.ch(1) == '"':
            self.adv()
            self.scan_double()
        else:
            self.adv()

    def scan_parens_raw(self):
        # an array literal "(a b c)": up to the matching ")"
        self.adv()
        depth = 1
        while depth:
            c = self.ch()
            if c == '':
                self.err('unterminated array')
            if self.scan_quoting(c, backtick=False):
                pass
            elif c == '#' and self.s[self.i - 1] in ' \t\n':
                self.comment()
            elif c == '(':
                depth += 1
                self.adv()
            elif c == ')':
                depth -= 1
                self.adv()
            else:
                self.adv()

    def scan_dbracket(self):
        # after "[[": up to a "]]" word
        while True:
            c = self.ch()
            if c == '':
                self.err('unterminated [[')
            if c == ']' and self.ch(1) == ']' and self.s[self.i - 1] in ' \t\n' \
                    and self.ch(2) in META | {''}:
                self.adv(2)
                return
            if not self.scan_quoting(c):
                self.adv()

    def lex(self):
        while True:
            c = self.ch()
            if c in (' ', '\t'):
                self.adv()
            elif c == '\\' and self.ch(1) == '\n':
                self.adv(2)
            elif c == '#':
                self.comment()
            else:
                break
        line = self.line
        c = self.ch()
        if c == '':
            return ('EOF', '', line)
        if c == '\n':
            self.adv()
            self.skip_heredocs()
            return ('NL', '\n', line)
        for op in (';;&', ';;', ';&', '&&', '||', '|&', '&>>', '&>'):
            if self.s.startswith(op, self.i):
                if op.startswith('&>'):
                    break
                self.adv(len(op))
                return ('OP', op, line)
        if c in '<>' and self.ch(1) == '(':
            self.adv(2)
            self.scan_subscript()
            return ('WORD', '<(...)', line)
        m = re.compile(r'\d+(?=[<>])').match(self.s, self.i)
        if m:
            self.adv(m.end() - self.i)
            c = self.ch()
        if c in '<>' or (c == '&' and self.ch(1) == '>'):
            start = self.i
            if self.s.startswith('<<<', self.i):
                self.adv(3)
            elif self.s.startswith('<<', self.i):
                self.adv(2)
                strip = self.ch() == '-'
                if strip:
                    self.adv()
                while self.ch() in (' ', '\t'):
                    self.adv()
                ws = self.i
                self.scan_word_chars()
                delim = re.sub(r'[\'"\\]', '', self.s[ws:self.i])
                self.heredocs.append((delim, strip))
                return ('REDIR', self.s[start:self.i], line)
            else:
                while self.ch() in '<>&|':
                    self.adv()
                if self.s[self.i - 1] == '&':
                    # >&2, <&-, 3>&1-: the target is part of the operator
                    m = re.compile(r'\d*-?').match(self.s, self.i)
                    self.adv(m.end() - self.i)
            return ('REDIR', self.s[start:self.i], line)
        if c in '|&;()':
            self.adv()
            return ('OP', c, line)
        start = self.i
        self.scan_word_chars()
        return ('WORD', self.s[start:self.i], line)

    def scan_word_chars(self):
        start = self.i
        while True:
            c = self.ch()
            if c == '' or c in META:
                if c == '(' and ASSIGN_ARRAY.match(self.s[start:self.i]):
                    self.scan_parens_raw()
                    continue
                return
            if not self.scan_quoting(c):
                self.adv()

    def peek(self):
        if self.peeked is None:
            self.peeked = self.lex()
        return self.peeked

    def next(self):
        t = self.peek()
        self.peeked = None
        return t[0], t[1], t[2]

    def skip_nl(self):
        while self.peek()[0] == 'NL':
            self.next()

    def expect_word(self, w):
        self.skip_nl()
        t = self.next()
        if t[0] != 'WORD' or t[1] != w:
            self.err(f'expected {w!r}, got {t[1]!r}')

    # ---- parser ------------------------------------------------------

    def parse_script(self):
        self.parse_list(set(), 'last')
        t = self.peek()
        if t[0] != 'EOF':
            self.err(f'unexpected {t[1]!r}')

    def at_end(self, terms):
        t = self.peek()
        if t[0] == 'EOF':
            return True
        if t[0] == 'OP' and t[1] in terms:
            return True
        if t[0] == 'OP' and t[1] in (';;', ';&', ';;&', ')'):
            return True
        return t[0] == 'WORD' and t[1] in terms

    def parse_list(self, terms, ctx):
        """Parse and-or lists up to a terminator and judge them. ctx:
        'last' (the last list hands its status on), 'cond' (a condition:
        every list does), 'body' (none does) or 'defer' (the last one's
        verdict waits for deferred_list's caller; it is the list's last
        item then)."""
        items = []
        while True:
            self.skip_nl()
            if self.at_end(terms):
                break
            t = self.peek()
            if t[0] == 'OP' and t[1] == ';':
                self.next()
                continue
            items.append(self.parse_and_or())
            t = self.peek()
            if t[0] == 'OP' and t[1] in (';', '&'):
                self.next()
                if t[1] == '&':
                    items[-1]['bg'] = True
            elif t[0] not in ('NL', 'EOF') and not self.at_end(terms):
                self.err(f'unexpected {t[1]!r}')
        for n, it in enumerate(items):
            last = n == len(items) - 1
            if ctx == 'defer' and last:
                break
            self.settle(it, ctx == 'cond' or (ctx == 'last' and last))
        return items

    def settle(self, it, handed):
        """Judge and-or list IT, whose status is handed on or not; then
        the compound commands in it: one before an && or || hands its
        status to the list, the last one as the list does."""
        self.judge(it, handed)
        cmds = it['cmds']
        for k, cmd in enumerate(cmds):
            if cmd.compound is not None:
                cmd.compound(handed or k < len(cmds) - 1)

    def judge(self, it, handed):
        ops = it['ops']
        if not ops or ops[-1] != '&&' or handed or it.get('bg'):
            return
        if any(ln in self.marked for ln in range(it['line'], it['end'] + 1)):
            return
        cmds = it['cmds']
        if all(c.is_test() for c in cmds[:-1]) and not cmds[-1].is_test():
            return  # if TEST then ACTION
        if cmds[-1].words[:1] in (['break'], ['continue'], ['return'], ['exit']):
            return  # if COND then leave
        self.findings.append(
            f'{self.name}:{it["line"]}: "&&" list whose failure "set -e" ignores '
            f'(rewrite it, or mark it "# andand: ok <why>")')

    def parse_and_or(self):
        line = self.peek()[2]
        cmds = [self.parse_pipeline()]
        ops = []
        while True:
            t = self.peek()
            if t[0] == 'OP' and t[1] in ('&&', '||'):
                self.next()
                ops.append(t[1])
                self.skip_nl()
                cmds.append(self.parse_pipeline())
            else:
                break
        end = self.line if self.peek()[0] != 'NL' else self.peek()[2]
        return {'cmds': cmds, 'ops': ops, 'line': line, 'end': end}

    def parse_pipeline(self):
        neg = False
        t = self.peek()
        if t[0] == 'WORD' and t[1] == '!':
            self.next()
            neg = True
        cmds = [self.parse_command()]
        while True:
            t = self.peek()
            if t[0] == 'OP' and t[1] in ('|', '|&'):
                self.next()
                self.skip_nl()
                cmds.append(self.parse_command())
            else:
                break
        first = cmds[0]
        if len(cmds) > 1:
            # every command of a pipeline runs in a subshell of its own,
            # whose status errexit (with pipefail) sees
            for c in cmds:
                if c.compound is not None:
                    c.compound(True)
            return Cmd(['<pipeline>'], first.line)
        if neg:
            first.words = ['!'] + first.words
        return first

    def redirects(self):
        while self.peek()[0] == 'REDIR':
            r = self.next()[1]
            if r.startswith('<<') and not r.startswith('<<<'):
                continue  # a here-document
            if re.search(r'&(\d+-?|-)$', r):
                continue  # a descriptor
            self.next()  # the target word

    def parse_command(self):
        t = self.peek()
        line = t[2]
        if t[0] == 'OP' and t[1] == '(':
            self.next()
            if self.ch() == '(' and self.s[self.i - 1] == '(':
                # (( arithmetic ))
                self.adv()
                self.scan_arith()
                self.redirects()
                return Cmd(['(('], line)
            body = self.deferred_list({')'})
            t2 = self.next()
            if t2[1] != ')':
                self.err('expected )')
            self.redirects()
            # a subshell's status is that of its last list, and errexit
            # sees a failing subshell
            return Cmd(['('], line, lambda handed: body(True))
        if t[0] not in ('WORD', 'REDIR'):
            self.err(f'unexpected {t[1]!r}')
        w = t[1]
        if w in ('if', 'while', 'until', 'for', 'case', '{', 'function', 'select'):
            return self.parse_compound(w, line)
        if w == '[[':
            self.next()
            self.scan_dbracket()
            self.redirects()
            return Cmd(['[['], line)
        words = []
        while True:
            t = self.peek()
            if t[0] == 'WORD':
                self.next()
                words.append(t[1])
            elif t[0] == 'REDIR':
                self.redirects()
            else:
                break
            if len(words) == 1 and self.peek()[0] == 'OP' and self.peek()[1] == '(':
                # NAME() BODY
                self.next()
                t2 = self.next()
                if t2[1] != ')':
                    self.err('expected ) of a function definition')
                self.skip_nl()
                self.function_body(line)
                return Cmd(['<function>'], line)
        return Cmd(words, line)

    def function_body(self, line):
        t = self.peek()
        if t[0] == 'OP' and t[1] == '(':
            cmd = self.parse_command()
        else:
            cmd = self.parse_compound(t[1], line)
        if cmd.compound is not None:
            cmd.compound(True)

    def deferred_list(self, terms):
        """Parse a list of a compound command now; return a function that
        takes whether the compound hands its status on and then judges the
        list's last item (the others are judged, their findings kept until
        then)."""
        saved = self.findings
        self.findings = []
        items = self.parse_list(terms, 'defer')
        inner = self.findings
        self.findings = saved

        def finish(handed):
            self.findings.extend(inner)
            if items:
                self.settle(items[-1], handed)
        return finish

    def parse_compound(self, w, line):
        parts = []
        if w == 'function':
            self.next()
            self.next()  # name
            t = self.peek()
            if t[0] == 'OP' and t[1] == '(':
                self.next()
                self.next()
            self.skip_nl()
            self.function_body(line)
            return Cmd(['<function>'], line)
        self.next()
        if w == '{':
            parts.append(self.deferred_list({'}'}))
            self.expect_word('}')
        elif w == 'if':
            self.parse_list({'then'}, 'cond')
            self.expect_word('then')
            parts.append(self.deferred_list({'elif', 'else', 'fi'}))
            while True:
                self.skip_nl()
                t = self.next()
                if t[1] == 'fi':
                    break
                if t[1] == 'elif':
                    self.parse_list({'then'}, 'cond')
                    self.expect_word('then')
                    parts.append(self.deferred_list({'elif', 'else', 'fi'}))
                elif t[1] == 'else':
                    parts.append(self.deferred_list({'fi'}))
                else:
                    self.err(f'unexpected {t[1]!r} in if')
        elif w in ('while', 'until'):
            self.parse_list({'do'}, 'cond')
            self.expect_word('do')
            self.parse_list({'done'}, 'body')
            self.expect_word('done')
        elif w in ('for', 'select'):
            t = self.next()
            if t[0] == 'OP' and t[1] == '(' and self.ch() == '(':
                # for (( ...; ...; ... ))
                self.adv()
                self.scan_arith()
            while True:
                t = self.peek()
                if t[0] == 'WORD' and t[1] == 'do':
                    break
                self.next()
            self.expect_word('do')
            self.parse_list({'done'}, 'body')
            self.expect_word('done')
        elif w == 'case':
            self.next()  # the word
            self.expect_word('in')
            while True:
                self.skip_nl()
                t = self.peek()
                if t[0] == 'WORD' and t[1] == 'esac':
                    self.next()
                    break
                if t[0] == 'OP' and t[1] == '(':
                    self.next()
                while True:
                    t = self.next()
                    if t[0] == 'OP' and t[1] == ')':
                        break
                    if t[0] == 'EOF':
                        self.err('unterminated case pattern')
                parts.append(self.deferred_list({'esac'}))
                t = self.peek()
                if t[0] == 'OP' and t[1] in (';;', ';&', ';;&'):
                    self.next()
        self.redirects()

        def finish(handed):
            for p in parts:
                p(handed)
        return Cmd([w], line, finish)


def main(argv):
    rc = 0
    for name in argv[1:]:
        with open(name, encoding='utf-8') as f:
            text = f.read()
        p = Parser(text, name)
        try:
            p.parse_script()
        except ParseError as e:
            print(f'{e} (cannot parse)')
            rc = 2
            continue
        for line in sorted(set(p.findings), key=lambda x: int(x.split(':')[1])):
            print(line)
            rc = max(rc, 1)
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv))
