#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""plot.py - pictures of a make bench run, next to its table.

Usage: plot.py [--svg] [--out OUTDIR] DIR   plot the run in DIR
       plot.py --selftest [DIR]             every plot from synthetic data
                                            (kept in DIR when given)

DIR is a run's result directory (the one with table.txt and raw/) or its
raw/ directory; the plots go to the result directory (OUTDIR with --out),
as PNG (--svg: also SVG):

  plot-iops.png       IOPS per workload (4 KiB workloads)
  plot-latency.png    p50 and p99 completion latency of the QD1 workload
  plot-bandwidth.png  MB/s per workload (1 MiB workloads)
  plot-cost.png       target-side cost per I/O split by component, stacked,
                      when raw/cost.csv exists (see read_cost)
  plot-scale.png      memory per channel and login time against the number
                      of channels, when raw/scale.csv exists (see read_scale)

The first three take the figures of report.py (median, min and max over
the rounds of each target A, B, C); a plot without data is left out. Each
file written, and each one left out, gets a line on stdout.

matplotlib comes from Debian's python3-matplotlib, which belongs to
/usr/bin/python3: when "python3" is another interpreter without it, the
script runs itself again with /usr/bin/python3. Without matplotlib it
prints why and writes nothing: exit status 0, or 1 under CI=true.
"""

import os
import statistics
import sys
import tempfile

sys.dont_write_bytecode = True     # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (next to this file)

DEB_PYTHON = "/usr/bin/python3"
COLOURS = {"A": "tab:blue", "B": "tab:orange", "C": "tab:green"}
PART_COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown",
                "tab:pink", "tab:olive", "tab:cyan", "tab:red"]
MODE_STYLES = ["-", "--", ":", "-."]
DEFAULT_LABELS = {"A": "ours", "B": "stock", "C": "nvmet-rdma"}

# The workload figures: file name, y label, [(report.py metric, panel
# title suffix)].
WORKLOAD_FIGS = [
    ("iops", "IOPS (I/Os per second)", [("IOPS", "")]),
    ("latency", "completion latency (µs, lower is better)",
     [("p50 us", ", p50"), ("p99 us", ", p99")]),
    ("bandwidth", "MB/s (10⁶ bytes per second)", [("MB/s", "")]),
]


# ---------------------------------------------------------------- matplotlib

def pyplot():
    """matplotlib.pyplot with the Agg backend (no display), or None."""
    try:
        import matplotlib
    except ImportError:
        me = os.path.realpath(sys.executable or "")
        if (os.path.exists(DEB_PYTHON) and me != os.path.realpath(DEB_PYTHON)
                and not os.environ.get("BENCH_PLOT_REEXEC")):
            os.environ["BENCH_PLOT_REEXEC"] = "1"
            sys.stdout.flush()
            os.execv(DEB_PYTHON, [DEB_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def target_label(t, labels):
    return "%s %s" % (t, labels.get(t, DEFAULT_LABELS.get(t, "")))


def save(plt, fig, out, name, exts):
    paths = []
    for ext in exts:
        p = os.path.join(out, "plot-%s.%s" % (name, ext))
        fig.savefig(p, dpi=110)
        paths.append(p)
    plt.close(fig)
    return paths


def layout(fig, head, right=1.0):
    """Fit the panels below HEAD inches for the title (and legend), above
    the note line and left of RIGHT (a fraction of the width). Before the
    figure's own title, legend and note: tight_layout would make room for
    them a second time."""
    fig.tight_layout(rect=(0, 0.03, right, 1))
    fig.subplots_adjust(top=1 - head / fig.get_figheight())


def note_text(run, icount):
    return ("run %s; guest %s time: compare the targets, the absolute figures mean"
            " nothing for real hardware" % (run, "virtual (icount)" if icount else "wall-clock"))


# ---------------------------------------------------------------- workloads

def setup_name(ch, bs):
    n = int(ch[2:]) if ch.startswith("ch") and ch[2:].isdigit() else 0
    return "%s channel%s\n%s" % (n or ch, "" if n == 1 else "s",
                                 {"null": "null_blk", "brd": "brd"}.get(bs, bs))


def workload_panels(rows, metrics):
    """[(title, [(setup name, row)])]: one panel per workload and metric,
    in report.py's order, with one group of bars per channel count and
    backstore."""
    panels = []
    for mk, suffix in metrics:
        for wl, (wname, _) in report.WL.items():
            groups = [(setup_name(r["key"][0], r["key"][1]), r) for r in rows
                      if r["key"][2] == wl and r["key"][3] == mk]
            if groups:
                panels.append((wname + suffix, groups))
    return panels


def round_values(key, target, slots, data):
    return [data[s][key] for s, which, _ in slots if which == target and key in data[s]]


def plot_workloads(plt, fig_spec, rows, slots, data, labels, note, out, exts):
    """One figure: a panel per workload, bars per target (median), whiskers
    min-max, dots for the single rounds. Returns the paths or []."""
    name, ylabel, metrics = fig_spec
    panels = workload_panels(rows, metrics)
    if not panels:
        return []
    targets = [t for t in "ABC" if any(g[1][t] for _, gs in panels for g in gs)]
    widths = [1.4 + 0.45 * len(targets) * len(gs) for _, gs in panels]
    fig, axes = plt.subplots(1, len(panels), figsize=(max(sum(widths) + 0.8, 7), 5),
                             gridspec_kw={"width_ratios": widths}, squeeze=False)
    w = 0.8 / len(targets)
    for ax, (title, groups) in zip(axes[0], panels):
        top = 0
        for i, t in enumerate(targets):
            off = (i - (len(targets) - 1) / 2) * w
            for g, (_, r) in enumerate(groups):
                c = r[t]
                if not c:
                    continue
                m, lo, hi, _ = c
                x = g + off
                ax.bar(x, m, w * 0.9, color=COLOURS[t], alpha=0.85)
                ax.errorbar(x, m, yerr=[[m - lo], [hi - m]], fmt="none", ecolor="black",
                            capsize=3, lw=1)
                v = round_values(r["key"], t, slots, data)
                if len(v) > 1:
                    xs = [x + w * 0.5 * (j / (len(v) - 1) - 0.5) for j in range(len(v))]
                    ax.plot(xs, v, ".", color="black", ms=3, alpha=0.6)
                ax.annotate(report.fmt_v(m), (x, hi), textcoords="offset points",
                            xytext=(0, 5), ha="center", fontsize=7)
                top = max(top, hi)
        ax.set_title(title, fontsize=10)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([n for n, _ in groups], fontsize=8)
        ax.set_ylim(0, top * 1.15 if top > 0 else 1)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
    counts = {t: max(g[1][t][3] for _, gs in panels for g in gs if g[1][t]) for t in targets}
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[t], alpha=0.85) for t in targets]
    layout(fig, 1.15)
    fig.legend(handles, ["%s (%d round%s)" % (target_label(t, labels), counts[t],
                                              "" if counts[t] == 1 else "s")
                         for t in targets], loc="upper center", ncol=len(targets),
               bbox_to_anchor=(0.5, 1 - 0.5 / fig.get_figheight()), fontsize=9)
    fig.suptitle("make bench: %s per workload\nbar: median of the rounds, whiskers:"
                 " min-max, dots: single rounds" % ylabel.split(" (")[0], fontsize=10, y=0.99)
    fig.text(0.01, 0.01, note, fontsize=7, color="dimgray")
    return save(plt, fig, out, name, exts)


# ---------------------------------------------------------------- CSV inputs

def read_table(path, need, numeric):
    """Rows of a small CSV file as dicts. Lines that are empty or start with
    "#" are skipped; the first other line names the columns (in any order,
    more than NEED allowed); every later line has one value per column.
    Values are stripped of blanks and hold no commas. A column in NUMERIC
    holds a number, or nothing (None: not measured). ValueError names the
    file and line of a malformed one."""
    rows, cols = [], None
    for n, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        f = [x.strip() for x in line.split(",")]
        if cols is None:
            cols = f
            miss = [c for c in need if c not in cols]
            if miss:
                raise ValueError("%s:%d: no column %s" % (path, n, ", ".join(miss)))
            continue
        if len(f) != len(cols):
            raise ValueError("%s:%d: %d values for %d columns" % (path, n, len(f), len(cols)))
        row = dict(zip(cols, f))
        for c in numeric:
            if c not in row:
                continue
            try:
                row[c] = float(row[c]) if row[c] else None
            except ValueError:
                raise ValueError("%s:%d: %s is not a number: %r" % (path, n, c, row[c])) from None
        for c in need:
            if c not in numeric and not row[c]:
                raise ValueError("%s:%d: empty %s" % (path, n, c))
        rows.append(row)
    if cols is None:
        raise ValueError("%s: no header line" % path)
    return rows


def spread(v):
    return (statistics.median(v), min(v), max(v), len(v))


def target_order(ts):
    return sorted(ts, key=lambda t: ("ABC".index(t) if t in "ABC" else 3, t))


def read_cost(path):
    """The target-side cost split, raw/cost.csv (written by a future bench
    step, e.g. from the perf profile). Columns:

      target     A, B or C (the slot letters of slots.txt)
      part       the component: ib_srpt, target_core, rdma_rxe/ib_core,
                 block/null_blk, rest (any name; for C e.g. nvmet-rdma)
      us_per_io  its target-side vCPU time per I/O, in microseconds
      workload   optional: what ran (e.g. "4k randread QD32 ch2 null");
                 one panel per workload

    Several rows of the same workload, target and part (rounds) give their
    median. The parts stack bottom-up in the order they first appear,
    except "rest", which is always on top.
    Example:

      # perf record -a during 4k randread QD32
      target,part,us_per_io
      A,ib_srpt,1.9
      A,target_core,3.1
      A,rest,40.2

    Returns ({workload: {target: {part: (median, min, max, n)}}}, [parts])."""
    rows = read_table(path, ("target", "part", "us_per_io"), ("us_per_io",))
    vals, parts = {}, []
    for r in rows:
        if r["us_per_io"] is None:
            continue
        if r["part"] not in parts:
            parts.append(r["part"])
        wl = r.get("workload", "")
        vals.setdefault(wl, {}).setdefault(r["target"], {}).setdefault(
            r["part"], []).append(r["us_per_io"])
    parts = [p for p in parts if p != "rest"] + [p for p in parts if p == "rest"]
    return ({wl: {t: {p: spread(v) for p, v in tv.items()} for t, tv in wv.items()}
             for wl, wv in vals.items()}, parts)


def read_scale(path):
    """Memory and login time against the number of channels, raw/scale.csv
    (written by a future bench step). Columns:

      target          A, B or C
      mode            the receive mode: ring or srq (any name)
      channels        logged-in channels (ib_srp ch_count), a number
      mem_kib_per_ch  kernel memory per channel with that many channels,
                      KiB (MemFree before login minus after, / channels)
      login_ms        time of one login with that many channels, ms

    mem_kib_per_ch or login_ms may be missing from the header, or empty in
    a row (not measured). Several rows of the same target, mode and
    channels (rounds) give their median and min-max. Example:

      target,mode,channels,mem_kib_per_ch,login_ms
      A,ring,1,900,12.5
      A,srq,1,310,11.0
      B,ring,1,2100,

    Returns {value column: {(target, mode): [(channels, (median, min,
    max, n))]}} with the channel counts ascending."""
    cols = ("mem_kib_per_ch", "login_ms")
    rows = read_table(path, ("target", "mode", "channels"), ("channels",) + cols)
    vals = {}
    for r in rows:
        if r["channels"] is None:
            raise ValueError("%s: a row without channels" % path)
        for c in cols:
            if r.get(c) is not None:
                vals.setdefault(c, {}).setdefault((r["target"], r["mode"]), {}).setdefault(
                    r["channels"], []).append(r[c])
    return {c: {k: [(n, spread(v)) for n, v in sorted(ch.items())] for k, ch in cv.items()}
            for c, cv in vals.items()}


def plot_cost(plt, cost, parts, labels, note, out, exts):
    """Stacked bars: per target, the parts' medians; the total on top."""
    wls = sorted(cost)
    nt = max(len(cost[w]) for w in wls)
    fig, axes = plt.subplots(1, len(wls), figsize=(max(2.5 + 1.3 * nt * len(wls), 6.5), 4.8),
                             squeeze=False)
    colour = {p: ("lightgray" if p == "rest" else PART_COLOURS[i % len(PART_COLOURS)])
              for i, p in enumerate(parts)}
    for ax, wl in zip(axes[0], wls):
        ts = target_order(cost[wl])
        top = 0
        for x, t in enumerate(ts):
            bottom = 0
            for p in parts:
                c = cost[wl][t].get(p)
                if not c:
                    continue
                ax.bar(x, c[0], 0.6, bottom=bottom, color=colour[p], edgecolor="white", lw=0.5)
                if c[0] > 0:
                    ax.annotate(report.fmt_v(c[0]), (x, bottom + c[0] / 2), ha="center",
                                va="center", fontsize=7)
                bottom += c[0]
            ax.annotate("%s µs" % report.fmt_v(bottom), (x, bottom), textcoords="offset points",
                        xytext=(0, 3), ha="center", fontsize=8)
            top = max(top, bottom)
        ax.set_xticks(range(len(ts)))
        ax.set_xticklabels([target_label(t, labels) for t in ts], fontsize=8)
        ax.set_ylim(0, top * 1.12 if top > 0 else 1)
        ax.set_ylabel("target-side vCPU µs per I/O")
        ax.set_title(wl or "cost per I/O", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    layout(fig, 0.7, right=0.8)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[p]) for p in reversed(parts)]
    fig.legend(handles, list(reversed(parts)), loc="center right", fontsize=8,
               title="component", title_fontsize=8)
    fig.suptitle("make bench: target-side cost per I/O by component (median of the rounds)",
                 fontsize=10)
    fig.text(0.01, 0.01, note, fontsize=7, color="dimgray")
    return save(plt, fig, out, "cost", exts)


def plot_scale(plt, scale, labels, note, out, exts):
    """Lines against the channel count: a panel per measured value, a line
    per target (colour) and receive mode (line style)."""
    spec = [("mem_kib_per_ch", "memory per channel", "KiB per channel"),
            ("login_ms", "login time", "ms per login")]
    spec = [s for s in spec if scale.get(s[0])]
    modes = sorted({m for c in scale.values() for _, m in c})
    fig, axes = plt.subplots(1, len(spec), figsize=(5.2 * len(spec) + 0.5, 4.4), squeeze=False)
    for ax, (col, title, unit) in zip(axes[0], spec):
        ns = set()
        for t, m in sorted(scale[col], key=lambda k: (target_order([k[0]]), k[1])):
            pts = scale[col][(t, m)]
            xs = [n for n, _ in pts]
            ys = [c[0] for _, c in pts]
            err = [[c[0] - c[1] for _, c in pts], [c[2] - c[0] for _, c in pts]]
            ax.errorbar(xs, ys, yerr=err, color=COLOURS.get(t, "black"), capsize=3,
                        ls=MODE_STYLES[modes.index(m) % len(MODE_STYLES)], marker="o", ms=4,
                        label="%s, %s" % (target_label(t, labels), m))
            ns.update(xs)
        ns = sorted(ns)
        if ns and ns[0] > 0 and ns[-1] / ns[0] >= 8:
            ax.set_xscale("log", base=2)
        ax.set_xticks(ns)
        ax.set_xticklabels(["%g" % n for n in ns])
        ax.set_xlabel("channels (ib_srp ch_count)")
        ax.set_ylabel(unit)
        ax.set_ylim(bottom=0)
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    layout(fig, 0.7)
    fig.suptitle("make bench: scaling with the number of channels (median of the rounds,"
                 " whiskers min-max)", fontsize=10)
    fig.text(0.01, 0.01, note, fontsize=7, color="dimgray")
    return save(plt, fig, out, "scale", exts)


# ---------------------------------------------------------------- a run

def run_dirs(d, out=None):
    """(raw directory, output directory) of DIR (a result dir or its raw/)."""
    d = os.path.abspath(d)
    if os.path.isdir(os.path.join(d, "raw")):
        return os.path.join(d, "raw"), out or d
    return d, out or os.path.dirname(d)


def plot_run(plt, raw, out, exts=("png",), say=print):
    """Every plot the data in RAW allow, into OUT; a line per plot through
    SAY. Returns the paths written."""
    os.makedirs(out, exist_ok=True)
    labels = report.run_labels(raw)
    run = os.path.basename(out.rstrip("/"))
    note = note_text(run, report.icount_mode(raw))
    written = []
    if os.path.exists(os.path.join(raw, "slots.txt")):
        slots, data = report.load(raw)
        rows = [r for r in report.figures(slots, data) if r["key"][2] in report.WL]
        for spec in WORKLOAD_FIGS:
            p = plot_workloads(plt, spec, rows, slots, data, labels, note, out, exts)
            if p:
                say("plot: %s" % " ".join(p))
            else:
                say("plot: no %s figures in the results: no plot-%s" % (
                    " or ".join(m for m, _ in spec[2]), spec[0]))
            written += p
    else:
        say("plot: no slots.txt in %s: no workload plots" % raw)
    for name, reader, plotter in (("cost", read_cost, plot_cost),
                                  ("scale", read_scale, plot_scale)):
        f = os.path.join(raw, name + ".csv")
        if not os.path.exists(f):
            say("plot: no %s.csv: no plot-%s" % (name, name))
            continue
        got = reader(f)
        if not (got[0] if name == "cost" else got):
            say("plot: %s has no values: no plot-%s" % (f, name))
            continue
        if name == "cost":
            p = plotter(plt, got[0], got[1], labels, note, out, exts)
        else:
            p = plotter(plt, got, labels, note, out, exts)
        say("plot: %s" % " ".join(p))
        written += p
    return written


# ---------------------------------------------------------------- self-test

def write_fio(path, wl, scale):
    """A fio JSON with the fields report.fio_metrics reads."""
    import json
    rw = report.WL[wl][1]
    iops = {"lat4k": 1800, "rr4k": 9000, "rw4k": 7000, "sr1m": 3, "sw1m": 3}[wl] * scale
    d = {"iops": iops, "bw_bytes": iops * (2 ** 20 if wl.endswith("1m") else 4096),
         "clat_ns": {"percentile": {"50.000000": 5.2e5 / scale, "99.000000": 9.5e5 / scale}}}
    with open(path, "w") as f:
        json.dump({"jobs": [{rw: d}]}, f)


def make_synthetic(raw):
    """A raw/ directory as guest.sh leaves it (3 rounds of A B C, two
    channel counts, null_blk, four workloads), plus cost.csv and scale.csv."""
    os.makedirs(os.path.join(raw, "fio"), exist_ok=True)
    with open(os.path.join(raw, "setup.txt"), "w") as f:
        f.write("labels A=ours B=stock\n")
    with open(os.path.join(raw, "qemu.txt"), "w") as f:
        f.write("icount shift=5,sleep=off,align=off\n")
    factor = {"A": 1.04, "B": 1.0, "C": 1.02}
    with open(os.path.join(raw, "slots.txt"), "w") as f:
        for rnd in (1, 2, 3):
            for t in "ABC" if rnd % 2 else "BAC":
                slot = "r%d-%s" % (rnd, t)
                f.write("%s %s %d\n" % (slot, t, rnd))
                for ch in (1, 2):
                    for wl in ("lat4k", "rr4k", "rw4k", "sr1m"):
                        s = factor[t] * (1 + 0.03 * (rnd - 2)) * (1.3 if ch == 2 else 1)
                        write_fio(os.path.join(raw, "fio", "%s-ch%d-null-%s.json" % (slot, ch, wl)),
                                  wl, s)
    with open(os.path.join(raw, "cost.csv"), "w") as f:
        f.write("# synthetic: perf record -a, 4k randread QD32\n"
                "target,part,us_per_io,workload\n")
        for t, parts in (("A", (1.9, 3.1, 14.0, 4.0, 40.2)), ("B", (2.4, 3.2, 14.1, 4.0, 40.5)),
                         ("C", (2.2, 0, 13.9, 4.1, 39.0))):
            names = ("ib_srpt" if t != "C" else "nvmet-rdma", "target_core",
                     "rdma_rxe/ib_core", "block/null_blk", "rest")
            for rnd in (1, 2):
                for p, v in zip(names, parts):
                    f.write("%s,%s,%g,4k randread QD32 ch2\n" % (t, p, v * (1 + 0.1 * (rnd - 1))))
    with open(os.path.join(raw, "scale.csv"), "w") as f:
        f.write("target,mode,channels,mem_kib_per_ch,login_ms\n")
        for t, mem, srq_mem, login in (("A", 900, 320, 11.0), ("B", 2100, 700, 14.5)):
            for n in (1, 2, 4, 8, 16):
                f.write("%s,ring,%d,%g,%g\n" % (t, n, mem, login * n ** 0.8))
                f.write("%s,srq,%d,%g,%s\n" % (t, n, srq_mem + 600 / n,
                                                "" if n == 16 else "%g" % (login * n ** 0.7)))
        f.write("A,ring,4,950,30\n")


def selftest(plt, keep=None):
    """Synthetic data through the readers and every plot; returns the number
    of failed checks."""
    failed = []

    def check(name, ok):
        print("plot selftest: %s %s" % ("ok  " if ok else "FAIL", name))
        if not ok:
            failed.append(name)

    base = keep or tempfile.mkdtemp(prefix="bench-plot-selftest.")
    res = os.path.join(base, "result")
    raw = os.path.join(res, "raw")
    make_synthetic(raw)

    cost, parts = read_cost(os.path.join(raw, "cost.csv"))
    a = cost["4k randread QD32 ch2"]["A"]["ib_srpt"]
    check("cost.csv: two rounds give median and min-max",
          abs(a[0] - 1.995) < 1e-9 and a[1] == 1.9 and a[3] == 2)
    check("cost.csv: parts in order of appearance, rest on top",
          parts == ["ib_srpt", "target_core", "rdma_rxe/ib_core", "block/null_blk",
                    "nvmet-rdma", "rest"])
    sc = read_scale(os.path.join(raw, "scale.csv"))
    ring4 = dict(sc["mem_kib_per_ch"][("A", "ring")])[4]
    check("scale.csv: repeated row is a round", ring4[0] == 925 and ring4[3] == 2)
    check("scale.csv: empty value is not measured",
          16 not in dict(sc["login_ms"][("A", "srq")]) and
          16 in dict(sc["mem_kib_per_ch"][("A", "srq")]))
    bad = os.path.join(base, "bad.csv")
    for text, what in (("target,part\nA,x\n", "missing column"),
                       ("target,part,us_per_io\nA,x,1,2\n", "extra value"),
                       ("target,part,us_per_io\nA,x,fast\n", "not a number"),
                       ("# only a comment\n", "no header")):
        with open(bad, "w") as f:
            f.write(text)
        try:
            read_cost(bad)
            check("cost.csv: %s is refused" % what, False)
        except ValueError as e:
            check("cost.csv: %s is refused (%s)" % (what, str(e).replace(base + "/", "")),
                  True)

    lines = []
    paths = plot_run(plt, raw, res, ("png", "svg"), say=lines.append)
    for line in lines:
        print("  " + line.replace(base + "/", ""))
    names = sorted(os.path.basename(p) for p in paths)
    want = sorted("plot-%s.%s" % (n, e) for n in ("iops", "latency", "bandwidth", "cost", "scale")
                  for e in ("png", "svg"))
    check("all five plots as PNG and SVG", names == want)
    check("PNG files are PNG", all(open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
                                   for p in paths if p.endswith(".png")))
    os.remove(os.path.join(raw, "cost.csv"))
    os.remove(os.path.join(raw, "scale.csv"))
    lines = []
    out2 = os.path.join(base, "no-csv")
    paths = plot_run(plt, raw, out2, say=lines.append)
    check("without cost.csv and scale.csv: three plots, two lines say why",
          len(paths) == 3 and sum("no cost.csv" in x or "no scale.csv" in x for x in lines) == 2)
    if keep is None:
        import shutil
        shutil.rmtree(base)
    else:
        print("plot selftest: plots in %s" % res)
    return len(failed)


def main():
    args = sys.argv[1:]
    exts, out, test = ["png"], None, False
    while args and args[0].startswith("--"):
        a = args.pop(0)
        if a == "--svg":
            exts.append("svg")
        elif a == "--out" and args:
            out = args.pop(0)
        elif a == "--selftest":
            test = True
        else:
            sys.exit(__doc__)
    if not test and len(args) != 1 or test and len(args) > 1:
        sys.exit(__doc__)
    plt = pyplot()
    if plt is None:
        print("plot: matplotlib is not installed (apt-get install python3-matplotlib):"
              " no plots")
        return 1 if os.environ.get("CI") == "true" else 0
    if test:
        n = selftest(plt, args[0] if args else None)
        print("plot selftest: %s" % ("%d checks failed" % n if n else "all passed"))
        return 1 if n else 0
    raw, out = run_dirs(args[0], out)
    if not os.path.isdir(raw):
        print("plot: %s is not a directory" % raw, file=sys.stderr)
        return 1
    try:
        plot_run(plt, raw, out, exts)
    except (OSError, ValueError) as e:
        print("plot: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
