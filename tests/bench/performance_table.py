"""Turns the JSON reports of tests/bench/run.sh's benchmarks into docs/PERFORMANCE.md's table:
what, ours, peer, ratio, target, met or missed — with the machine, the date and the revision.

usage: performance_table.py REVISION REPORT_JSON...   (Markdown on stdout)
A report is train_step_vs_pytorch's (it has "preset"), retrieval_vs_faiss's (it has "topk"),
caption_geometry_scale's (it has "captions"), quick_gelu_vs_written_out's (it has "quick_gelu")
or run.sh's own real_run.json (it has "real_run").
The GPU rows come from a committed record of tests/bench/gpu_step.sh's run on a GPU machine
(docs/perf/gpu_step.json, or $HNCLIP_BENCH_GPU_RECORD): this CPU cannot measure them, so the
record says where and when they were measured. $HNCLIP_BENCH_DATE pins the date line, for
re-rendering an earlier run's reports (with $HNCLIP_BENCH_PROVENANCE saying so); run.sh keeps
the reports of the run that wrote docs/PERFORMANCE.md in docs/perf/cpu/.
"""
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = f", {kb / 1024 / 1024:.0f} GiB memory"
    except (OSError, ValueError, IndexError):
        pass
    try:
        import torch
        torch_version = torch.__version__
    except ImportError:
        torch_version = "not importable"
    return (f"{model}, {os.cpu_count()} cores{mem}; {platform.system()} {platform.release()}; "
            f"python3-torch {torch_version} (the LibTorch both sides run)")


def ms(seconds):
    return f"{seconds * 1e3:.1f} ms"


def step_cell(cfg):
    return (f"{ms(cfg['median_s'])} / step (rounds {ms(cfg['round_min_s'])}–"
            f"{ms(cfg['round_max_s'])})")


def retrieval_rows(r):
    o, f = r["ours"], r["faiss"]
    size = f"{r['queries']:,} × {r['candidates']:,}, d = {r['dim']}, top-{r['topk']}"
    ratio = r["time_ratio"]
    return [
        (f"Retrieval {size}, {r['threads']} threads (time)",
         f"{o['median_s']:.1f} s (rounds {o['min_s']:.1f}–{o['max_s']:.1f})",
         f"faiss IndexFlatIP {f['median_s']:.1f} s ({f['min_s']:.1f}–{f['max_s']:.1f})",
         f"{ratio:.3f}× time", "≤ 1.2×", "met" if ratio <= 1.2 else "missed"),
        (f"… peak memory above the data (N² = {r['queries'] * r['candidates'] * 4 / 1e9:.0f} GB "
         f"of fp32 scores)", f"{o['search_peak_bytes'] / 1e6:.0f} MB",
         f"{f['search_peak_bytes'] / 1e6:.0f} MB", "", "bounded by the chunk, not N²",
         "met" if o["search_peak_bytes"] < 0.05 * r["queries"] * r["candidates"] * 4 else "missed"),
    ]


def geometry_rows(r):
    peak = f"peak {r['peak_bytes'] / 1e6:.0f} MB above the features"
    by_rep = r.get("peak_bytes_by_rep")
    if by_rep and len(by_rep) > 1:
        # One call's peak first: the later calls' peaks add the freed blocks the allocator kept.
        peak = (f"peak {by_rep[0] / 1e6:.0f} MB above the features in one call "
                f"({r['peak_bytes'] / 1e6:.0f} MB over {len(by_rep)} calls: freed memory the "
                f"allocator keeps resident between calls)")
    return [(f"Caption geometry, {r['captions']:,} captions, d = {r['dim']}, {r['threads']} threads",
             f"{r['median_s']:.1f} s (rounds {r['min_s']:.1f}–{r['max_s']:.1f}); {peak}",
             f"the N × N matrix it never holds: {r['nxn_fp32_bytes'] / 1e6:,.0f} MB", "",
             "no N × N in memory",
             "met" if r["peak_bytes"] < 0.05 * r["nxn_fp32_bytes"] else "missed")]


def loader_ratio(r, suffix):
    """Ours over the peer, per CPU-second: the median of the rounds' ratios (each round's two sides
    ran back to back) with their range; a report from before the rounds has its bests' ratio."""
    rounds = r.get("loader_ratio_rounds" + suffix)
    if not rounds:
        return f"{r['loader_ours' + suffix] / r['loader_peer' + suffix]:.2f}× (best over best)"
    text = f"{statistics.median(rounds):.2f}×"
    if len(rounds) > 1:
        text += f" (median of {len(rounds)} rounds, {min(rounds):.2f}–{max(rounds):.2f})"
    return text


def real_run_rows(r):
    rows = []
    if "loader_ours" in r and "loader_peer" in r:
        rows.append(("Loader: 640×480 JPEGs decoded, resized (bicubic) and cropped to 224, per "
                     "CPU-second (1 worker; best round)", f"{r['loader_ours']:.0f} images",
                     f"Pillow + torch {r['loader_peer']:.0f} images", loader_ratio(r, ""),
                     "(measure)", "—"))
    if "loader_ours_png" in r and "loader_peer_png" in r:
        rows.append(("Loader: the built-in benchmark's 48×48 PNGs decoded and preprocessed for the "
                     "tiny preset's 48-pixel input, per CPU-second (1 worker; best round)",
                     f"{r['loader_ours_png']:.0f} images",
                     f"Pillow + torch {r['loader_peer_png']:.0f} images", loader_ratio(r, "_png"),
                     "(measure)", "—"))
    for g, run in r["real_run"].items():
        t = run["train_seconds"]
        size = run["config"].get("benchmark_size", "?")
        wait, probe = run["loader_wait_seconds"] / t, run["probe_seconds"] / t
        what = f"a real run: `hnclip train`, built-in `{size}` benchmark, 1 epoch, γ = {g}"
        rows.append((f"Loader wait in {what}", f"{wait * 100:.2f}% of {t:.1f} s training", "", "",
                     "≤ 5%", "met" if wait <= 0.05 else "missed"))
        ours = f"{probe * 100:.2f}%"
        # A probe's floor is one extra backward pass (γ > 0: its gradient is Jᵀ applied to another
        # feature gradient than the training step's); set its mean against the training backward's.
        if run.get("probes") and run.get("backward_passes"):
            per_probe = run["probe_seconds"] / run["probes"]
            per_backward = run["backward_seconds"] / run["backward_passes"]
            ours += (f"; per probe {per_probe * 1e3:.1f} ms = {per_probe / per_backward:.2f}× the "
                     f"training backward's {per_backward * 1e3:.1f} ms (floor for γ > 0: 1 pass)")
        rows.append((f"Probe share at --probe-every 5 in {what}", ours, "", "",
                     "≤ 5%", "met" if probe <= 0.05 else "missed"))
    return rows


def quick_gelu_rows(r):
    """Requirement 11's before and after for one change, cdcdcd8: the MLP's QuickGELU as one autograd
    function against the written-out form the step ran before (and the peer still runs), per
    shape. Where the workbench's side ran the written-out form too (bf16 on the CPU before
    LibTorch 2.6), the two sides are the same ops: one row says so and gives their spread, which
    is this machine's noise, not a speed-up."""
    q = r["quick_gelu"]
    dtype = {"float": "fp32"}.get(q["dtype"], q["dtype"])
    how = (f"median of {q['rounds']} rounds × {q['reps']} passes per side, alternating order; "
           f"{q['threads']} threads")
    if not q["ours_is_function"]:
        ratios = [s["ratio"] for s in q["shapes"]]
        return [(f"QuickGELU forward + backward, {dtype} on {q['device']}: with this LibTorch the "
                 f"workbench runs the written-out form here, as the peer does (core/model/"
                 f"quick_gelu.h: the function measured slower), so the two sides are the same ops "
                 f"— an A/A pair over the same {len(ratios)} shapes ({how})",
                 f"autograd node {q['ours_node']}", "the written-out form",
                 f"{min(ratios):.2f}–{max(ratios):.2f}× (medians per shape: noise)", "(measure)",
                 "—")]
    rows = []
    for i, s in enumerate(q["shapes"]):
        if i == 0:
            what = (f"QuickGELU forward + backward, {dtype} on {q['device']}: one autograd "
                    f"function (core/model/quick_gelu.h, cdcdcd8) over the written-out "
                    f"x·σ(1.702x) the step ran before it and the peer runs ({how}), on the MLP's "
                    f"hidden activation — {s['what']}")
        else:
            what = f"… {s['what']}"

        def cell(seconds, kept):
            text = ms(seconds) if seconds >= 0.01 else f"{seconds * 1e3:.2f} ms"
            if kept is not None:
                text += (f"; keeps {kept / s['hidden_bytes']:.2f}× the hidden tensor "
                         f"({kept / 1e6:.0f} MB)")
            return text

        rounds = s["ratio_rounds"]
        rows.append((what, cell(s["ours_median_s"], s.get("kept_ours_bytes")),
                     "written out " + cell(s["peer_median_s"], s.get("kept_peer_bytes")),
                     f"{s['ratio']:.2f}× ({min(rounds):.2f}–{max(rounds):.2f})", "(measure)", "—"))
    return rows


def round_spread(per_round):
    """ " (round by round, back to back: a% to b%)" from per-round overheads, or "" without them."""
    if not per_round:
        return ""
    return (f" (round by round, back to back: {min(per_round) * 100:+.1f}% to "
            f"{max(per_round) * 100:+.1f}%)")


def whole_step_verdict(report, overhead, per_round, target):
    """met / missed for a whole-step comparison of two configurations — or "unresolved (A/A)"
    where the A/A control (one configuration in two trainer instances) differed in some round by
    more than the target, and this comparison either differs by no more than that or has rounds
    on both sides of the target: then the figure says nothing either way, and the row measured
    alone below it decides."""
    aa = report.get("aa_control_rounds")
    if aa:
        floor = max(abs(a) for a in aa)
        straddles = bool(per_round) and min(per_round) <= target < max(per_round)
        if floor > target and (abs(overhead) <= floor or straddles):
            return "unresolved (A/A)"
    return "met" if overhead <= target else "missed"


def rows_for(report):
    if "failed" in report:
        why = report.get("note") or f"exit {report['exit']}; run.sh's output says why"
        return [(report["failed"], f"**not completed** ({why})", "", "", "", "missed")]
    if "real_run" in report:
        return real_run_rows(report)
    if "quick_gelu" in report:
        return quick_gelu_rows(report)
    if "topk" in report:
        return retrieval_rows(report)
    if "captions" in report:
        return geometry_rows(report)
    name = f"{report['preset']}, batch {report['batch']}, {report['context']}-token text"
    c = report["configs"]
    rows = []
    if "speed_ratio" in report:
        r = report["speed_ratio"]
        rows.append((f"Training step vs PyTorch as a researcher runs it — {name}", step_cell(c["ours_hn"]),
                     step_cell(c["peer_hn"]), f"{r:.3f}× steps/s", "≥ 1.0× (aim 1.2×)",
                     "met" if r >= 1.0 else "missed"))
    if "speed_ratio_blas1" in report:
        r = report["speed_ratio_blas1"]
        rows.append((f"… against the peer with a one-thread OpenBLAS pool "
                     f"(OPENBLAS_NUM_THREADS=1: the workbench's own setting for models under "
                     f"256 wide, e.g. tiny)", step_cell(c["ours_hn"]),
                     step_cell(c["peer_hn_blas1"]), f"{r:.3f}× steps/s", "≥ 1.0× (aim 1.2×)",
                     "met" if r >= 1.0 else "missed"))
    if "speed_ratio_same_settings" in report:
        r = report["speed_ratio_same_settings"]
        env = report.get("peer_same_settings_environment", "")
        rows.append((f"… against the peer given both of the workbench's process settings "
                     f"(`{env}`: OpenBLAS's pool as configure_threads sizes it for this model, "
                     f"glibc's thresholds as its mallopt) — the control of the two rows above: "
                     f"what is left is the step's own code", step_cell(c["ours_hn"]),
                     step_cell(c["peer_hn_same_settings"]), f"{r:.3f}× steps/s", "(measure)",
                     "—"))
    if "speed_ratio_pooled_rows" in report:
        r = report["speed_ratio_pooled_rows"]
        rows.append(("… against that peer with its last blocks computing only the pooled rows, as "
                     "the workbench's do (train_step_peer.py pooled-rows; it passes the same loss "
                     "and gradient check) — what is left beyond that saving",
                     step_cell(c["ours_hn"]), step_cell(c["peer_hn_pooled_rows"]),
                     f"{r:.3f}× steps/s", "(measure)", "—"))
    if "aa_control" in report:
        o = report["aa_control"]
        rows.append((f"A/A control: the γ = 0.5 step again, in a second trainer instance, over the "
                     f"first — what the whole-step comparisons below cannot resolve — {name}",
                     step_cell(c["ours_hn_aa"]), step_cell(c["ours_hn"]) + " first instance",
                     f"{o * 100:+.2f}%{round_spread(report.get('aa_control_rounds'))}",
                     "(measure)", "—"))
    if "margin_overhead" in report:
        o = report["margin_overhead"]
        spread = round_spread(report.get("margin_overhead_rounds"))
        rows.append((f"Margin overhead in the whole step (γ = 0.5 recomputed Ḡ over γ = 0) — {name}",
                     step_cell(c["ours_hn"]), step_cell(c["ours_plain"]) + " at γ = 0",
                     f"{o * 100:+.2f}%{spread}", "≤ 1%",
                     whole_step_verdict(report, o, report.get("margin_overhead_rounds"), 0.01)))
    if "margin_overhead_isolated" in report:
        o = report["margin_overhead_isolated"]
        m = report["margin_isolated"]
        rows.append((f"Margin cost measured in the loss alone (forward + backward, γ = 0.5 vs 0, "
                     f"median of {m['reps']}), as a share of the step — {name}",
                     f"{m['loss_seconds_gamma'] * 1e6:.0f} µs",
                     f"{m['loss_seconds_plain'] * 1e6:.0f} µs at γ = 0", f"{o * 100:+.4f}% of a step",
                     "≤ 1%", "met" if o <= 0.01 else "missed"))
    if "frozen_over_recomputed" in report:
        o = report["frozen_over_recomputed"]
        rows.append((f"Frozen Ḡ (cached features) over recomputed — {name}",
                     step_cell(c["ours_frozen"]), step_cell(c["ours_hn"]) + " recomputed",
                     f"{o * 100:+.2f}%{round_spread(report.get('frozen_over_recomputed_rounds'))}",
                     "≤ 0% (within 1%)",
                     whole_step_verdict(report, o, report.get("frozen_over_recomputed_rounds"),
                                        0.01)))
    if "frozen_overhead_isolated" in report:
        o = report["frozen_overhead_isolated"]
        f = report["frozen_isolated"]
        rows.append((f"Frozen Ḡ's per-step work measured alone (the batch's rows gathered from a "
                     f"{f['cache_rows']:,}-caption cache, then the loss's forward + backward; "
                     f"median of {f['reps']}), as a share of the step — {name}",
                     f"{f['loss_seconds_frozen'] * 1e6:.0f} µs",
                     f"{f['loss_seconds_recomputed'] * 1e6:.0f} µs recomputed",
                     f"{o * 100:+.4f}% of a step", "≤ 0% (within 1%)",
                     "met" if o <= 0.01 else "missed"))
    if "bf16_speedup" in report:
        r = report["bf16_speedup"]
        rows.append((f"CPU bf16 autocast step (--precision bf16) against fp32, γ = 0.5 — {name}",
                     step_cell(c["ours_hn_bf16"]), step_cell(c["ours_hn"]) + " fp32",
                     f"{r:.3f}× steps/s", "≥ 1.3× (and R@1 within the seed noise: README)",
                     "met" if r >= 1.3 else "missed"))
    if "probe_overhead_within_run" in report:
        o = report["probe_overhead_within_run"]
        p = report["probe_within_run"]
        per_round = report.get("probe_overhead_within_run_rounds") or []
        spread = (f" (rounds {min(per_round) * 100:+.1f}% to {max(per_round) * 100:+.1f}%)"
                  if per_round else "")
        rows.append((f"Probe overhead at --probe-every 5, γ = 0.5, within the same runs (the mean "
                     f"step over the unprobed steps' mean) — {name}",
                     f"per probe {ms(p['probe_seconds'])}: {p['probed_steps']} probed steps "
                     f"{ms(p['probed_mean_s'])} on average",
                     f"{p['unprobed_steps']} unprobed steps {ms(p['unprobed_mean_s'])}",
                     f"{o * 100:+.2f}%{spread}", "≤ 5%", "met" if o <= 0.05 else "missed"))
    if "probe_overhead" in report:
        o = report["probe_overhead"]
        within = "probe_overhead_within_run" in report
        what = (f"… the same from two trainer instances (mean step with probes over γ = 0.5's "
                f"without: as noisy as the A/A control above, so the row above decides) — {name}"
                if within else f"Probe overhead at --probe-every 5, γ = 0.5 (mean step) — {name}")
        rows.append((what, f"{ms(c['ours_probe']['mean_s'])} / step",
                     f"{ms(c['ours_hn']['mean_s'])} / step without", f"{o * 100:+.2f}%",
                     "(noisy)" if within else "≤ 5%",
                     "—" if within else ("met" if o <= 0.05 else "missed")))
    return rows


# Rows this script cannot measure and no record gives: (what, why not, requirement).
NOT_YET_GPU = [
    ("GPU step (ViT-L/14, batch 128, bf16) against eager PyTorch and torch.compile",
     "not run: needs a GPU; `tests/bench/gpu_step.sh` on a GPU machine measures it (README)",
     "req 10"),
]

GPU_RECORD = os.environ.get("HNCLIP_BENCH_GPU_RECORD") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "perf", "gpu_step.json")


def gpu_record():
    try:
        with open(GPU_RECORD) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def gpu_notes(rec):
    st, ma = rec["step"], rec["margin_and_attention"]
    return [f"- GPU rows (not measured by this run: this machine has no GPU): {rec['machine']}. "
            f"The step: `{st['command']}` at revision {st['revision']}, {st['date']}, built by "
            f"{st['build']}; {st['fused_adamw_check']}. {st.get('sides_note', '')} The margin and attention rows: "
            f"`{ma['command']}` at revision {ma['revision']}, {ma['date']}. Every number is in "
            f"`docs/perf/gpu_step.json`."]


def gpu_rows(rec):
    st, ma = rec["step"], rec["margin_and_attention"]
    sides = st["sides"]
    # The Trainer's step on a GPU (LibTorch 2.x) is the fused one since 471877f; the loop, what
    # it ran before, is the "before" row.
    ours = sides["ours, at::_fused_adamw_ (the Trainer on LibTorch 2.x)"]
    loop = sides["ours, torch::optim::AdamW's loop (the Trainer on LibTorch 1.13)"]
    eager, comp = sides["PyTorch eager"], sides["PyTorch torch.compile"]
    what = (f"{st['preset']}, {st['context']}-token text, batch {st['batch']}, bf16 autocast, "
            f"HN loss, AdamW — {st['machine']}")

    def t(side):
        return (f"{ms(side['median_s'])} / step (rounds {ms(side['min_s'])}–{ms(side['max_s'])}), "
                f"{side['images_per_second']:.0f} images/s")

    def ratio(a, b):  # steps/s of a over b
        return f"{b['median_s'] / a['median_s']:.3f}× steps/s"

    opt_ms = f"optimiser phase {ms(ours['phase_median_s']['optimizer'])}"
    rows = [(f"GPU step vs PyTorch eager — {what}; AdamW stepped by at::_fused_adamw_, as the "
             f"Trainer on LibTorch 2.x ({opt_ms})", t(ours), "eager " + t(eager),
             ratio(ours, eager), "(measure)", "—"),
            ("… before: torch::optim::AdamW's own loop, the Trainer's step until 471877f "
             f"(optimiser phase {ms(loop['phase_median_s']['optimizer'])}; torch.compile "
             f"{ratio(loop, comp)}, model FLOP utilisation {100 * loop['mfu']:.1f}%)",
             t(loop), "eager " + t(eager), ratio(loop, eager), "(measure)", "—"),
            (f"GPU step vs PyTorch torch.compile (both towers and the loss compiled) — {what}",
             t(ours), "torch.compile " + t(comp), ratio(ours, comp), "≥ 0.9×",
             "met" if comp["median_s"] / ours["median_s"] >= 0.9 else "missed"),
            (f"GPU model FLOP utilisation ({st['flops_per_step']:.3g} FLOPs per step: forward and "
             f"backward of both towers; data-sheet peak {st['peak_tflops']:.0f} TFLOP/s, measured "
             f"8192³ bf16 product {st['measured_matmul_tflops']:.0f} TFLOP/s)",
             f"{100 * ours['mfu']:.1f}% ({ours['tflops']:.0f} TFLOP/s; "
             f"{100 * ours['tflops'] / st['measured_matmul_tflops']:.1f}% of the measured rate)",
             f"torch.compile {100 * comp['mfu']:.1f}%, eager {100 * eager['mfu']:.1f}%", "",
             "≥ 40%", "met" if ours["mfu"] >= 0.4 else "missed")]

    def med_of(gamma, attention):
        return statistics.median(r["median_s"] for r in ma["runs"]
                                 if r["gamma"] == gamma and r["attention"] == attention)

    def by_round(gamma_a, att_a, gamma_b, att_b):
        out = []
        for rnd in sorted({r["round"] for r in ma["runs"]}):
            a = [r["median_s"] for r in ma["runs"]
                 if r["round"] == rnd and r["gamma"] == gamma_a and r["attention"] == att_a]
            b = [r["median_s"] for r in ma["runs"]
                 if r["round"] == rnd and r["gamma"] == gamma_b and r["attention"] == att_b]
            if a and b:
                out.append(a[0] / b[0] - 1)
        return out

    hn, plain, explicit = med_of(0.5, "auto"), med_of(0.0, "auto"), med_of(0.5, "explicit")
    loss_fused = next(r["first_loss"] for r in ma["runs"] if r["gamma"] == 0.5 and r["attention"] == "auto")
    loss_explicit = next(r["first_loss"] for r in ma["runs"] if r["attention"] == "explicit")
    margin = hn / plain - 1
    rounds = ", ".join(f"{100 * x:+.2f}%" for x in by_round(0.5, "auto", 0.0, "auto"))
    rows.append((f"Margin overhead on the GPU (γ = 0.5 recomputed Ḡ over γ = 0) — {what}",
                 f"{ms(hn)} / step", f"{ms(plain)} / step at γ = 0",
                 f"{100 * margin:+.2f}% (rounds: {rounds})", "≤ 1%",
                 "met" if margin <= 0.01 else "missed"))
    rows.append((f"Fused attention on the GPU: at::scaled_dot_product_attention over the explicit "
                 f"path (first losses {loss_fused:.6f} and {loss_explicit:.6f}) — {what}",
                 f"{ms(hn)} / step", f"{ms(explicit)} / step explicit",
                 f"{explicit / hn:.3f}× steps/s", "(measure)", "—"))
    return rows


def main():
    revision = sys.argv[1]
    reports = [json.load(open(p)) for p in sys.argv[2:]]
    out = []
    out.append("# Performance against peers\n")
    out.append("Written by `tests/bench/run.sh` (do not edit by hand; rerun it). Every row is a "
               "ratio against a peer measured in the same run on the same machine: absolute times "
               "on a shared machine drift, ratios of interleaved runs much less.\n")
    out.append(f"- Machine: {machine()}")
    date = os.environ.get("HNCLIP_BENCH_DATE") or \
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC"
    out.append(f"- Date: {date}")
    out.append(f"- Revision: {revision}")
    if os.environ.get("HNCLIP_BENCH_PROVENANCE"):
        out.append(f"- How this table was made: {os.environ['HNCLIP_BENCH_PROVENANCE']}")
    out.append(f"- Build: {os.environ.get('HNCLIP_BENCH_BUILD_TYPE') or 'Release'} "
               f"(`tests/bench/run.sh`; both sides use the same LibTorch, the peer through Python)")
    for r in reports:
        if "captions" in r or "real_run" in r or "quick_gelu" in r or "failed" in r:
            continue
        if "topk" in r:
            out.append(f"- Retrieval ({r['reps']} rounds per side, each side in a process of its "
                       f"own): Recall@{'/'.join(str(k) for k in r['recall_at'])} ours "
                       f"{', '.join(f'{v:.2f}' for v in r['ours']['recall'])}, faiss "
                       f"{', '.join(f'{v:.2f}' for v in r['faiss']['recall'])} (largest "
                       f"difference {r['recall_max_abs_diff']:.3f} points; ≤ 0.01 required). "
                       f"Ours also ranks every query's ground truth exactly (R@K for any K).")
            continue
        chk = r["check"]
        out.append(f"- {r['preset']} (batch {r['batch']}, {r['context']} tokens, {r['threads']} "
                   f"threads, {r['reps']} rounds × {r['steps']} timed steps after {r['warmup']} "
                   f"warm-up steps per configuration): before timing, one forward and backward "
                   f"of the same weights on the same batch gave losses {chk['loss_ours']:.7f} "
                   f"(ours) and {chk['loss_peer']:.7f} (PyTorch), |Δ| = "
                   f"{chk['loss_abs_diff']:.1e} (≤ 1e-5 required), and gradients within "
                   f"{chk['grad_max_scaled_diff']:.1e} of each tensor's scale over "
                   f"{chk['gradients_compared']} tensors (≤ 1e-4 required; worst "
                   f"`{chk['grad_worst_tensor']}`); the trainer's own first step reported loss "
                   f"{chk.get('trainer_first_step_loss', float('nan')):.7f}.")
        if "check_pooled_rows" in r:
            pr = r["check_pooled_rows"]
            out.append(f"  The pooled-rows peer passed the same check: losses |Δ| = "
                       f"{pr['loss_abs_diff']:.1e}, gradients within "
                       f"{pr['grad_max_scaled_diff']:.1e} of each tensor's scale.")
    rec = gpu_record()
    if rec:
        out.extend(gpu_notes(rec))
    out.append("")
    out.append("| what | ours | peer | ratio | target | |")
    out.append("|---|---|---|---|---|---|")
    for r in reports:
        for row in rows_for(r):
            out.append("| " + " | ".join(row) + " |")
    rec = gpu_record()
    if rec:
        for row in gpu_rows(rec):
            out.append("| " + " | ".join(row) + " |")
    else:
        for what, why, req in NOT_YET_GPU:
            out.append(f"| {what} | {why} | | | issue 17 {req} | missed |")
    out.append("")
    out.append("Ratios: steps per second, ours over the peer's (above 1 = the workbench is "
               "faster); overheads: our median step time with the feature over without, minus 1. "
               "The peer is `tests/bench/train_step_peer.py` (OpenAI CLIP's architecture in "
               "PyTorch, the HN loss as the paper states it, AdamW in the same two groups, the "
               "gradient norm read every step as the workbench logs it); ours is `hnclip::Trainer` "
               "itself, fed the same batch from memory (`tests/bench/train_step_vs_pytorch.cpp` "
               "says exactly what is timed).")
    print("\n".join(out))


if __name__ == "__main__":
    main()
