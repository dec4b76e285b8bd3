#!/usr/bin/env python3
"""Facts about a run database for the reliability scripts (tests/reliability/*.sh).

Reads with Python's own sqlite3 module, so floats come back exactly (the sqlite3 shell prints 15
digits). Usage:
  run_db.py integrity DB            prints PRAGMA integrity_check; exit 1 unless "ok"
  run_db.py runs DB                 one "id status pid" line per run
  run_db.py metrics DB RUN          every evaluation, step metric (not wall time) and probe of RUN,
                                    one line each, floats as hex: equal files = equal metrics
  run_db.py max-step DB RUN         the highest step with a stored step metric (0 if none)
  run_db.py resume-step DB RUN      the step of the last checkpoint whose file exists (0 if none)
  run_db.py counts DB RUN           "steps N evals N checkpoints N probes N"
"""
import os
import sqlite3
import sys


def connect(path):
    if not os.path.exists(path):
        sys.exit(f"run_db.py: {path}: no such database")
    con = sqlite3.connect(path, timeout=30)
    return con


def hexf(v):
    return "null" if v is None else float(v).hex()


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd, db = argv[1], argv[2]
    con = connect(db)
    if cmd == "integrity":
        rows = [r[0] for r in con.execute("PRAGMA integrity_check")]
        print("\n".join(rows))
        return 0 if rows == ["ok"] else 1
    if cmd == "runs":
        for r in con.execute("SELECT id, status, pid FROM runs ORDER BY id"):
            print(*r)
        return 0
    run = int(argv[3])
    if cmd == "metrics":
        for r in con.execute("SELECT epoch, step, split, direction, k, recall FROM epoch_evals "
                             "WHERE run_id = ? ORDER BY epoch, split, direction, k", (run,)):
            print("eval", *r[:5], hexf(r[5]))
        for r in con.execute("SELECT step, epoch, loss, loss_standard, lr, logit_scale, grad_norm "
                             "FROM step_metrics WHERE run_id = ? ORDER BY step", (run,)):
            print("step", r[0], r[1], *map(hexf, r[2:]))
        for r in con.execute("SELECT step, epoch, loss_standard, loss_boosted, grad_norm_standard, "
                             "grad_norm_boosted, grad_ratio, grad_cosine FROM probes "
                             "WHERE run_id = ? ORDER BY step", (run,)):
            print("probe", r[0], r[1], *map(hexf, r[2:]))
        for r in con.execute("SELECT epoch, step, mean_r1 FROM checkpoints WHERE run_id = ? "
                             "ORDER BY epoch", (run,)):
            print("checkpoint", r[0], r[1], hexf(r[2]))
        return 0
    if cmd == "max-step":
        print(con.execute("SELECT COALESCE(MAX(step), 0) FROM step_metrics WHERE run_id = ?",
                          (run,)).fetchone()[0])
        return 0
    if cmd == "resume-step":
        step = 0
        for s, path in con.execute("SELECT step, path FROM checkpoints WHERE run_id = ? "
                                   "ORDER BY epoch", (run,)):
            if os.path.exists(path):
                step = s
        print(step)
        return 0
    if cmd == "counts":
        q = lambda t: con.execute(f"SELECT COUNT(*) FROM {t} WHERE run_id = ?", (run,)).fetchone()[0]
        print("steps", q("step_metrics"), "evals", q("epoch_evals"), "checkpoints",
              q("checkpoints"), "probes", q("probes"))
        return 0
    sys.exit(f"run_db.py: unknown command {cmd}\n{__doc__}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
