#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py - turn the raw output of tools/bench/guest.sh into the table.

Usage: report.py DIR            print the table for the results in DIR
       report.py --json DIR     the same figures as JSON
       report.py --mem MEMDIR SLOT   one slot's memory per channel (guest)

A = our ib_srpt, B = the kernel's stock ib_srpt (or, with run.sh's
BENCH_B=ours, our ib_srpt with other parameters: the header's "labels"
line says which), C = nvmet-rdma. Every
figure is the median over the slots (rounds) of that target with min-max;
A/B and A/C are medians of the per-round ratios with min-max. "noise" is
the spread of the same target against itself: the largest deviation from 1
of the ratio between any two slots of A or of B (max(r, 1/r) - 1). A ratio
whose distance from 1 is inside the noise is no result.
"""

import glob
import json
import os
import re
import statistics
import sys

USER_HZ = 100
ICOUNT_IPS = 31.25e6    # instructions per virtual second with shift=5

WL = {
    "lat4k": ("4k randread QD1", "read"),
    "rr4k": ("4k randread QD32", "read"),
    "rw4k": ("4k randwrite QD32", "write"),
    "sr1m": ("1M seq read QD8", "read"),
    "sw1m": ("1M seq write QD8", "write"),
}
IDLE_SYMS = {"pv_native_safe_halt", "default_idle", "default_idle_call",
             "do_idle", "native_safe_halt", "arch_cpu_idle", "cpu_idle_poll",
             "acpi_safe_halt", "acpi_idle_do_entry", "poll_idle",
             "mwait_idle", "intel_idle", "cpuidle_enter_state"}


def med(v):
    return statistics.median(v) if v else None


# ---------------------------------------------------------------- parsing

def read_stat(path):
    """(busy ticks, total ticks, I/Os completed, {rxe counter: value}) from
    a fio pre/post file."""
    busy = total = ios = None
    rxe = {}
    for line in open(path):
        if "/hw_counters/" in line:
            k, _, v = line.strip().rpartition(":")
            rxe[k.rsplit("/", 1)[-1]] = int(v)
            continue
        f = line.split()
        if f and f[0] == "cpu":
            t = [int(x) for x in f[1:]]
            total = sum(t[:8])
            busy = total - t[3] - t[4]
        elif f and f[0].isdigit() and len(f) >= 11:
            ios = int(f[0]) + int(f[4])
    return busy, total, ios, rxe


def fio_metrics(base, wl):
    """Metrics of one fio run (base = path without extension)."""
    m = {}
    try:
        j = json.load(open(base + ".json"))["jobs"][0]
    except (OSError, ValueError, KeyError, IndexError):
        return m
    d = j[WL[wl][1]]
    if wl == "lat4k":
        p = d["clat_ns"].get("percentile", {})
        m["p50 us"] = p.get("50.000000", 0) / 1e3
        m["p99 us"] = p.get("99.000000", 0) / 1e3
        m["IOPS"] = d["iops"]
    elif wl in ("rr4k", "rw4k"):
        m["IOPS"] = d["iops"]
    else:
        m["MB/s"] = d["bw_bytes"] / 1e6
    try:
        b0, _, i0, r0 = read_stat(base + ".pre")
        b1, _, i1, r1 = read_stat(base + ".post")
        if i1 > i0:
            m["CPU us/IO"] = (b1 - b0) * 1e6 / USER_HZ / (i1 - i0)
            if "sent_pkts" in r0 and "sent_pkts" in r1:
                m["pkts/IO"] = (r1["sent_pkts"] - r0["sent_pkts"]) / (i1 - i0)
    except (OSError, TypeError):
        pass
    return m


def sections(path):
    """{"meminfo": [lines], "slabinfo": [...], "vmallocinfo": [...]}"""
    sec, cur = {"meminfo": []}, "meminfo"
    for line in open(path):
        if line.startswith("--- "):
            cur = line[4:].strip()
            sec[cur] = []
        else:
            sec[cur].append(line)
    return sec


def parse_mem(path):
    info = {}
    for line in sections(path)["meminfo"]:
        k, v = line.split(":", 1)
        info[k] = int(v.split()[0])
    info["slabinfo_bytes"] = sum(slab_caches(path).values())
    return info


def slab_caches(path):
    caches = {}
    for line in sections(path).get("slabinfo", []):
        if not line.startswith(("slabinfo", "#")):
            f = line.split()
            caches[f[0]] = int(f[1]) * int(f[3])
    return caches


def vmalloc_areas(path):
    """{(caller function, size in bytes): count} of vmalloc'ed areas."""
    areas = {}
    for line in sections(path).get("vmallocinfo", []):
        f = line.split()
        if len(f) < 3 or "vmalloc" not in f or not f[1].isdigit():
            continue
        caller = re.sub(r"\+0x[0-9a-f]+/0x[0-9a-f]+", "", f[2])
        if len(f) > 3 and f[3].startswith("["):
            caller += " " + f[3]
        key = (caller, int(f[1]))
        areas[key] = areas.get(key, 0) + 1
    return areas


def channels_of(path, default):
    try:
        return int(open(path).read().split()[1])
    except (OSError, ValueError, IndexError):
        return default


def mem_metrics(memdir, slot):
    """Per-channel kernel memory: (mem with N channels - mem with 1) / (N-1)."""
    m = {}
    files = {}
    for f in glob.glob(os.path.join(memdir, slot + "-*.txt")):
        n = int(re.search(r"-(\d+)\.txt$", f).group(1))
        files[n] = f
    ns = sorted(n for n in files if n > 0)
    if len(ns) < 2:
        return m
    lo, hi = ns[0], ns[-1]
    clo = channels_of(os.path.join(memdir, "%s-%d.ch" % (slot, lo)), lo)
    chi = channels_of(os.path.join(memdir, "%s-%d.ch" % (slot, hi)), hi)
    if chi <= clo:
        return m
    a, b = parse_mem(files[lo]), parse_mem(files[hi])
    per = chi - clo
    m["mem KiB/ch"] = (a["MemFree"] - b["MemFree"]) / per
    m["slab KiB/ch"] = (b["Slab"] - a["Slab"]) / per
    m["vmalloc KiB/ch"] = (b.get("VmallocUsed", 0) - a.get("VmallocUsed", 0)) / per
    return m


def login_metrics(path):
    cyc, li, lo, retries = [], [], [], 0
    for line in open(path):
        f = [float(x) for x in line.split()]
        if len(f) >= 3:
            cyc.append((f[2] - f[0]) * 1e3)
            li.append((f[1] - f[0]) * 1e3)
            lo.append((f[2] - f[1]) * 1e3)
            retries += int(f[3]) if len(f) > 3 else 0
    if not cyc:
        return {}
    return {"login+logout ms": med(cyc), "login ms": med(li),
            "logout ms": med(lo), "_n": len(cyc), "_retries": retries,
            "_total s": sum(cyc) / 1e3}


def kallsyms_modules(path):
    """{symbol: module} from a copy of the guest's /proc/kallsyms."""
    mods = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 3:
            mods.setdefault(f[2], f[3].strip("[]") if len(f) > 3 else "kernel")
    return mods


def perf_symbols(base):
    """perf report of BASE.data by symbol (cached in BASE.sym.txt), resolved
    with the guest's kallsyms by the host's perf."""
    out = base + ".sym.txt"
    if not os.path.exists(out) and os.path.exists(base + ".data"):
        import subprocess
        with open(out, "w") as f:
            subprocess.run(["perf", "report", "-i", base + ".data",
                            "--kallsyms=" + base + ".kallsyms", "--sort", "sym",
                            "-n", "--stdio"], stdout=f, stderr=subprocess.DEVNULL,
                           check=False)
    return out


def parse_perf(base):
    """{module: busy samples}, [(samples, module, sym)], idle samples."""
    mods = kallsyms_modules(base + ".kallsyms") if os.path.exists(base + ".kallsyms") else {}
    dsos, syms, idle = {}, [], 0
    rx = re.compile(r"^\s*([\d.]+)%\s+(\d+)\s+(?:(\S+)\s+)?\[([k.])\]\s+(.*?)\s*$")
    for line in open(perf_symbols(base)):
        mt = rx.match(line)
        if not mt:
            continue
        n, sym = int(mt.group(2)), mt.group(5)
        if sym in IDLE_SYMS:
            idle += n
            continue
        if mt.group(4) == ".":
            mod = "user"
        else:
            mod = mods.get(sym, mods.get(sym.split(".")[0], "kernel"))
        dsos[mod] = dsos.get(mod, 0) + n
        syms.append((n, mod, sym))
    return dsos, syms, idle


def load(d):
    slots = []
    for line in open(os.path.join(d, "slots.txt")):
        f = line.split()
        if len(f) == 3:
            slots.append((f[0], f[1], int(f[2])))
    data = {}   # slot -> {metric key: value}
    for slot, which, rnd in slots:
        m = {}
        for f in glob.glob(os.path.join(d, "fio", slot + "-ch*.json")):
            base = f[:-5]
            _, ch, bs, wl = os.path.basename(base).rsplit("-", 3)
            for k, v in fio_metrics(base, wl).items():
                m[(ch, bs, wl, k)] = v
        if which in "AB":
            for k, v in mem_metrics(os.path.join(d, "mem"), slot).items():
                m[("", "", "mem", k)] = v
            lp = os.path.join(d, "login", slot + ".txt")
            if os.path.exists(lp):
                for k, v in login_metrics(lp).items():
                    m[("", "", "login", k)] = v
        data[slot] = m
    return slots, data


# ---------------------------------------------------------------- figures

def lower_is_better(key):
    k = key[3]
    return k.endswith(" us") or k.endswith("/IO") or "KiB" in k or k.endswith(" ms")


def row_order(keys):
    chs = sorted({k[0] for k in keys if k[0]})
    out = []
    for ch in chs:
        for bs in ("null", "brd"):
            for wl in WL:
                for mk in ("p50 us", "p99 us", "IOPS", "MB/s"):
                    if (ch, bs, wl, mk) in keys:
                        out.append((ch, bs, wl, mk))
    for mk in ("CPU us/IO", "pkts/IO"):
        for ch in chs:
            for bs in ("null", "brd"):
                for wl in WL:
                    if (ch, bs, wl, mk) in keys:
                        out.append((ch, bs, wl, mk))
    for k in sorted(keys):
        if k[2] == "mem" and k not in out:
            out.append(k)
    for mk in ("login+logout ms", "login ms", "logout ms"):
        if ("", "", "login", mk) in keys:
            out.append(("", "", "login", mk))
    return out


def row_name(key):
    ch, bs, wl, mk = key
    if wl == "mem":
        return "memory " + mk
    if wl == "login":
        return mk
    return "%s %-4s %-17s %s" % (ch, bs, WL[wl][0], mk)


def figures(slots, data):
    by = {"A": [], "B": [], "C": []}
    for slot, which, rnd in slots:
        by.setdefault(which, []).append((slot, rnd))
    keys = set()
    for m in data.values():
        keys.update(k for k in m if not k[3].startswith("_"))
    rows = []
    for key in row_order(keys):
        r = {"key": key, "name": row_name(key)}
        for t in "ABC":
            v = [data[s][key] for s, _ in by.get(t, []) if key in data[s]]
            r[t] = (med(v), min(v), max(v), len(v)) if v else None
        for t in "BC":
            ratios = []
            for s, rnd in by["A"]:
                if key not in data[s]:
                    continue
                other = [data[o][key] for o, ro in by.get(t, [])
                         if ro == rnd and key in data[o] and data[o][key]]
                if other:
                    ratios.append(data[s][key] / med(other))
            r["A/" + t] = (med(ratios), min(ratios), max(ratios)) if ratios else None
        spread = []
        for t in "AB":
            v = [data[s][key] for s, _ in by.get(t, []) if key in data[s] and data[s][key]]
            for i in range(len(v)):
                for j in range(i + 1, len(v)):
                    q = v[i] / v[j]
                    spread.append(max(q, 1 / q) - 1)
        r["noise"] = max(spread) if spread else None
        rows.append(r)
    return rows


def fmt_v(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 1000:
        return "%.0f" % v
    if a >= 100:
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    return "%.2f" % v


def fmt_cell(c):
    if not c:
        return "-"
    if c[3] == 1 or c[1] == c[2]:
        return fmt_v(c[0])
    return "%s (%s-%s)" % (fmt_v(c[0]), fmt_v(c[1]), fmt_v(c[2]))


def fmt_ratio(c):
    if not c or c[0] is None:
        return "-"
    if abs(c[1] - c[2]) < 0.0005:
        return "%.3f" % c[0]
    return "%.3f (%.3f-%.3f)" % c


def verdict(r, t):
    c, n = r["A/" + t], r["noise"]
    if not c or n is None:
        return ""
    d = c[0] - 1
    if abs(d) <= n:
        return "~"
    better = d < 0 if lower_is_better(r["key"]) else d > 0
    return "+" if better else "-"


def table(rows, out, labels=None):
    labels = labels or {}
    w = max([len(r["name"]) for r in rows] + [10])
    cols = [("A " + labels.get("A", "ours"), 22), ("B " + labels.get("B", "stock"), 22),
            ("C nvmet", 22),
            ("A/B", 21), ("A/C", 21), ("noise", 7)]
    cols = [(h, max(cw, len(h))) for h, cw in cols]
    out.write("%-*s " % (w, "figure") + " ".join("%-*s" % (cw, h) for h, cw in cols) + "\n")
    out.write("-" * (w + sum(cw + 1 for _, cw in cols)) + "\n")
    for r in rows:
        nz = "-" if r["noise"] is None else "±%.1f%%" % (100 * r["noise"])
        cells = [fmt_cell(r["A"]), fmt_cell(r["B"]), fmt_cell(r["C"]),
                 (fmt_ratio(r["A/B"]) + " " + verdict(r, "B")).strip(),
                 (fmt_ratio(r["A/C"]) + " " + verdict(r, "C")).strip(), nz]
        out.write("%-*s " % (w, r["name"]) +
                  " ".join("%-*s" % (cw, c) for (_, cw), c in zip(cols, cells)) + "\n")


def goals(rows, out):
    """The issue's acceptance goals, judged on the median ratios."""
    def pick(pred, t):
        return [r for r in rows if pred(r["key"]) and r.get("A/" + t)]

    specs = [
        ("IOPS at QD32 >= 1.10x stock", lambda k: k[3] == "IOPS" and k[2] != "lat4k", "B", 1.10, False),
        ("p50 latency at QD1 <= 0.9x stock", lambda k: k[3] == "p50 us", "B", 0.90, True),
        ("MB/s at 1 MiB >= 1.0x stock", lambda k: k[3] == "MB/s", "B", 1.00, False),
        ("memory per channel <= 0.5x stock", lambda k: k[3] == "mem KiB/ch", "B", 0.50, True),
        ("IOPS >= 1.0x nvmet-rdma", lambda k: k[3] == "IOPS" and k[2] != "lat4k", "C", 1.00, False),
    ]
    out.write("\nGoals, per row: median ratio, noise\n")
    for name, pred, t, goal, lower in specs:
        rs = pick(pred, t)
        if not rs:
            out.write("  %-34s no data\n" % name)
            continue
        met = sum(1 for r in rs if (r["A/" + t][0] <= goal if lower else r["A/" + t][0] >= goal))
        vals = ", ".join("%.3f" % r["A/" + t][0] for r in rs)
        out.write("  %-34s %d of %d rows met  [%s]\n" % (name, met, len(rs), vals))


def perf_section(d, out):
    res = {}
    for t in "AB":
        base = os.path.join(d, "perf", t)
        meta = base + ".meta"
        if not (os.path.exists(base + ".data") and os.path.exists(meta)):
            continue
        mf = open(meta).read().split()
        ios = int(mf[mf.index("ios") + 1])
        hz = int(mf[mf.index("hz") + 1])
        secs = float(mf[mf.index("secs") + 1])
        dsos, syms, idle = parse_perf(base)
        res[t] = (ios, hz, secs, dsos, syms, idle)
    if not res:
        return
    out.write("\nProfile: perf record -a -F 1000 (cpu-clock) during 4k randread QD32,"
              " 2 channels, null_blk\n")
    for t, (ios, hz, secs, dsos, syms, idle) in res.items():
        busy = sum(dsos.values())
        out.write("  %s: %d I/Os in %.0f s (%.0f IOPS), %d busy + %d idle samples;"
                  " busy vCPU-us per I/O %.1f\n" % (t, ios, secs, ios / secs, busy, idle,
                                                    busy * 1e6 / hz / max(ios, 1)))
    out.write("\n  vCPU-us per I/O by module (busy samples x 1 ms / I/Os)\n")
    allds = set()
    for v in res.values():
        allds.update(v[3])
    tot = {t: sum(v[3].values()) for t, v in res.items()}
    order = sorted(allds, key=lambda x: -max(v[3].get(x, 0) for v in res.values()))
    out.write("  %-22s %10s %7s %10s %7s %7s\n" % ("module", "A us/IO", "A %", "B us/IO", "B %", "A/B"))
    for ds in order[:14]:
        cells = []
        per = {}
        for t in "AB":
            if t in res:
                ios, hz = res[t][0], res[t][1]
                n = res[t][3].get(ds, 0)
                per[t] = n * 1e6 / hz / max(ios, 1)
                cells += ["%10.1f" % per[t], "%6.1f%%" % (100.0 * n / max(tot[t], 1))]
            else:
                cells += ["%10s" % "-", "%7s" % "-"]
        q = "%7.2f" % (per["A"] / per["B"]) if per.get("B") and "A" in per else "%7s" % "-"
        out.write("  %-22s %s %s\n" % (ds, " ".join(cells), q))
    for t in res:
        ios, hz = res[t][0], res[t][1]
        out.write("\n  %s: top symbols (vCPU-us per I/O, %% of busy)\n" % t)
        for n, ds, sym in sorted(res[t][4], reverse=True)[:25]:
            out.write("    %6.2f %5.1f%%  %-20s %s\n" % (n * 1e6 / hz / max(ios, 1),
                                                      100.0 * n / max(tot[t], 1), ds, sym))
    for t in res:
        ios, hz = res[t][0], res[t][1]
        mine = [(n, s) for n, ds, s in res[t][4] if ds == "ib_srpt"]
        out.write("\n  %s: ib_srpt symbols (vCPU-us per I/O)\n" % t)
        for n, sym in sorted(mine, reverse=True)[:20]:
            out.write("    %6.2f  %s\n" % (n * 1e6 / hz / max(ios, 1), sym))


def mem_details(d, slots, out):
    """Where the per-channel memory goes: slab caches and vmalloc areas that
    grew from 1 to N channels, for the first A and B slot with data."""
    done = set()
    for slot, which, _ in slots:
        if which not in "AB" or which in done:
            continue
        md = os.path.join(d, "mem")
        fs = {int(re.search(r"-(\d+)\.txt$", f).group(1)): f
              for f in glob.glob(os.path.join(md, slot + "-*.txt"))}
        ns = sorted(n for n in fs if n > 0)
        if len(ns) < 2:
            continue
        done.add(which)
        lo, hi = ns[0], ns[-1]
        per = channels_of(os.path.join(md, "%s-%d.ch" % (slot, hi)), hi) - \
            channels_of(os.path.join(md, "%s-%d.ch" % (slot, lo)), lo)
        if per <= 0:
            continue
        if not done - {which}:
            out.write("\nMemory per channel by slab cache and vmalloc caller (KiB/ch, %d->%d"
                      " channels; initiator + rxe + target)\n" % (lo, hi))
        a, b = slab_caches(fs[lo]), slab_caches(fs[hi])
        delta = sorted(((b.get(k, 0) - a.get(k, 0), k) for k in set(a) | set(b)), reverse=True)
        out.write("  %s slab:    %s\n" % (which, ", ".join(
            "%s %.0f" % (k, v / 1024 / per) for v, k in delta[:10] if v > 0)))
        va, vb = vmalloc_areas(fs[lo]), vmalloc_areas(fs[hi])
        vd = []
        for k in set(va) | set(vb):
            n = vb.get(k, 0) - va.get(k, 0)
            if n > 0:
                vd.append((n * k[1], k, n))
        vd.sort(reverse=True)
        out.write("  %s vmalloc: %s\n" % (which, ", ".join(
            "%s %dK x%.3g = %.0f" % (k[0], k[1] // 1024, n / per, tot / 1024 / per)
            for tot, k, n in vd[:8])))


def run_labels(d):
    """{"A": "ours", "B": "stock"}: the "labels" line of DIR/setup.txt."""
    labels = {}
    meta = os.path.join(d, "setup.txt")
    if os.path.exists(meta):
        for line in open(meta):
            if line.startswith("labels "):
                for f in line.split()[1:]:
                    k, _, v = f.partition("=")
                    labels[k] = v
    return labels


def icount_mode(d):
    """True when the run's guest time was virtual (icount): run.sh writes
    "icount OPTS" to DIR/qemu.txt, or "icount-mode off" for wall-clock time."""
    q = os.path.join(d, "qemu.txt")
    return bool(re.search(r"^icount ", open(q).read(), re.M)) if os.path.exists(q) else False


def main():
    args = sys.argv[1:]
    if args and args[0] == "--mem":
        m = mem_metrics(args[1], args[2])
        print(", ".join("%s %.0f" % (k, v) for k, v in m.items()))
        return
    as_json = False
    if args and args[0] == "--json":
        as_json = True
        args = args[1:]
    d = args[0]
    if not os.path.exists(os.path.join(d, "slots.txt")):
        # BENCH_ORDER=none BENCH_PROFILE=1: only the profiles
        perf_section(d, sys.stdout)
        return
    slots, data = load(d)
    rows = figures(slots, data)
    if as_json:
        json.dump([{**r, "key": list(r["key"])} for r in rows], sys.stdout, indent=1)
        return
    out = sys.stdout
    meta = os.path.join(d, "setup.txt")
    if os.path.exists(meta):
        for line in open(meta):
            if line.startswith(("kernel", "cpus", "config", "ours", "stock", "rdma", "labels")):
                out.write("# " + line)
    labels = run_labels(d)
    out.write("# slots: %s\n" % " ".join(s for s, _, _ in slots))
    icount = icount_mode(d)
    out.write("# times are guest %s time; +/- = A better/worse beyond the noise, ~ = within"
              " noise\n\n" % ("virtual (icount)" if icount else "wall"))
    table(rows, out, labels)
    if icount:
        out.write("\nUnder icount both vCPUs share one instruction budget (31.25 M"
                  " instructions per virtual second),\nso at QD32 1/IOPS is the whole"
                  " guest's work per I/O: ")
        for r in rows:
            if r["key"][3] == "IOPS" and r["key"][1] == "null" and r["key"][2] == "rr4k":
                parts = []
                for t in "ABC":
                    if r[t]:
                        parts.append("%s %.0f k" % (t, ICOUNT_IPS / r[t][0] / 1e3))
                out.write("%s %s instructions/IO; " % (r["key"][0], ", ".join(parts)))
        out.write("\n")
    out.write("\nCPU us/IO: busy ticks of /proc/stat (all vCPUs) per I/O; under icount the"
              " vCPUs take turns,\nso this counts time a vCPU waited for the other: compare"
              " it between targets only.\npkts/IO: rxe packets sent (both directions) per I/O.\n")
    if labels.get("B", "stock") == "stock":
        goals(rows, out)
    lg = [data[s].get(("", "", "login", "_n")) for s, _, _ in slots]
    lg = [n for n in lg if n]
    if lg:
        out.write("\nlogin+logout: median of %d cycles per slot (ch_count=1, 2 LUNs)\n" % lg[0])
    mem_details(d, slots, out)
    perf_section(d, out)
    warn = os.path.join(d, "warnings.txt")
    if os.path.exists(warn) and os.path.getsize(warn):
        out.write("\nWarnings from the guest:\n")
        for line in open(warn):
            out.write("  " + line)


if __name__ == "__main__":
    main()
