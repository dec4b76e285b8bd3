"""Summarises a results.jsonl written by hn_vs_infonce.sh together with the run database:
test Recall@1 per setting (mean ± sample std over seeds) at the last and at the best epoch,
the saturation curve (fraction of batches whose plain InfoNCE loss < 1e-3, per epoch), seconds
per epoch and images per second. Reads the SQLite file directly (standard library only)."""
import json
import sqlite3
import statistics
import sys
from collections import defaultdict


def mean_std(values):
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}"


def main():
    results_path, db_path = sys.argv[1], sys.argv[2]
    rows = [json.loads(line) for line in open(results_path) if line.strip()]
    db = sqlite3.connect(db_path)
    by_setting = defaultdict(list)
    for r in rows:
        by_setting[r["setting"]].append(r)

    print("| setting | seeds | last t2i R@1 | last i2t R@1 | best t2i R@1 | best i2t R@1 | s/epoch | img/s |")
    print("|---|---|---|---|---|---|---|---|")
    start = None
    saturation = {}
    for setting, runs in by_setting.items():
        last_t2i, last_i2t, best_t2i, best_i2t, secs, ips = [], [], [], [], [], []
        sat = defaultdict(list)
        for r in runs:
            res = r["result"]
            run_id = res["run_id"]
            epochs = res["config"]["epochs"]
            # The test split's rows: a run with --val-split stores its validation split's beside them.
            recall = {(e, d): v for e, d, v in db.execute(
                "SELECT epoch, direction, recall FROM epoch_evals WHERE run_id=? AND k=1 AND split=?",
                (run_id, res["config"].get("test_split", "test")))}
            last_t2i.append(recall[(epochs, "t2i")])
            last_i2t.append(recall[(epochs, "i2t")])
            best_t2i.append(res["t2i"]["R@1"])
            best_i2t.append(res["i2t"]["R@1"])
            start = (recall[(0, "t2i")], recall[(0, "i2t")])
            secs.append(res["train_seconds"] / epochs)
            ips.append(res["images_per_second"])
            for epoch, frac in db.execute(
                    "SELECT epoch, AVG(loss_standard < 1e-3) FROM step_metrics WHERE run_id=? "
                    "GROUP BY epoch ORDER BY epoch", (run_id,)):
                sat[epoch].append(frac)
        saturation[setting] = [statistics.mean(sat[e]) for e in sorted(sat)]
        print(f"| {setting} | {len(runs)} | {mean_std(last_t2i)} | {mean_std(last_i2t)} | "
              f"{mean_std(best_t2i)} | {mean_std(best_i2t)} | {statistics.mean(secs):.1f} | "
              f"{statistics.mean(ips):.0f} |")
    if start:
        print(f"\nstarting point (pretrained checkpoint): t2i R@1 {start[0]:.2f}, i2t R@1 {start[1]:.2f}")
    print("\nfraction of batches with plain InfoNCE < 1e-3, per epoch (mean over seeds):")
    for setting, fracs in saturation.items():
        print(f"  {setting:10s} " + " ".join(f"{f:.2f}" for f in fracs))


if __name__ == "__main__":
    main()
