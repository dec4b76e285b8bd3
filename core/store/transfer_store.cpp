// RunStore's transfer evaluations (schema v8): a run's checkpoint evaluated on another benchmark
// or split. Kept apart from run_store.cpp's epoch_evals, which are the run's own splits and choose
// its best epoch; a transfer evaluation chooses nothing.

#include <sqlite3.h>

#include "store/host_process.h"
#include "store/run_store.h"
#include "store/sqlite_statement.h"
#include "store/sqlite_transaction.h"

namespace hnclip {

void RunStore::write_transfer_eval(int64_t run, int epoch, const std::string& benchmark,
                                   const std::string& split, int64_t images, int64_t captions,
                                   const RetrievalResult& t2i, const RetrievalResult& i2t,
                                   std::optional<int64_t> training_images) {
  const std::string op = "write transfer evaluation of run " + std::to_string(run) + " epoch " +
                         std::to_string(epoch) + " on " + benchmark + " / " + split;
  for (const auto& [want, result] : {std::pair{"t2i", &t2i}, std::pair{"i2t", &i2t}}) {
    if (!result->direction.empty() && result->direction != want) {
      throw StoreError(path_ + ": " + op + ": result passed as " + want + " has direction \"" +
                       result->direction + "\"");
    }
  }
  if (!find_run(run)) throw StoreError(path_ + ": " + op + ": no run with id " + std::to_string(run));
  Transaction tx(db_, path_, op);
  {
    Statement del(db_, path_,
                  "DELETE FROM transfer_evals WHERE run_id = ?1 AND epoch = ?2 AND benchmark = ?3 "
                  "AND split = ?4",
                  op);
    del.bind_int64(1, run).bind_int64(2, epoch).bind_text(3, benchmark).bind_text(4, split);
    del.run();
  }
  Statement ins(
      db_, path_,
      "INSERT INTO transfer_evals (run_id, epoch, benchmark, split, direction, k, recall, "
      "images, captions, evaluated_at_ms, training_images) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
      "?7, ?8, ?9, ?10, ?11)",
      op);
  const int64_t now = unix_time_ms();
  for (const auto& [direction, result] : {std::pair{"t2i", &t2i}, std::pair{"i2t", &i2t}}) {
    for (const auto& [k, value] : result->recall) {
      ins.bind_int64(1, run)
          .bind_int64(2, epoch)
          .bind_text(3, benchmark)
          .bind_text(4, split)
          .bind_text(5, direction)
          .bind_int64(6, k)
          .bind_double(7, value)
          .bind_int64(8, images)
          .bind_int64(9, captions)
          .bind_int64(10, now)
          .bind_optional_int64(11, training_images);
      ins.run();
      ins.reset();
    }
  }
  tx.commit();
}

std::vector<TransferEvalRow> RunStore::transfer_evals(int64_t run) const {
  Statement st(db_, path_,
               "SELECT epoch, benchmark, split, direction, k, recall, images, captions, "
               "evaluated_at_ms, training_images FROM transfer_evals WHERE run_id = ?1 "
               "ORDER BY benchmark, split, epoch, direction, k",
               "read transfer evaluations of run " + std::to_string(run));
  st.bind_int64(1, run);
  std::vector<TransferEvalRow> rows;
  while (st.step()) {
    TransferEvalRow r;
    r.epoch = static_cast<int>(st.column_int64(0));
    r.benchmark = st.column_text(1);
    r.split = st.column_text(2);
    r.direction = st.column_text(3);
    r.k = static_cast<int>(st.column_int64(4));
    r.recall = st.column_double(5);
    r.images = st.column_int64(6);
    r.captions = st.column_int64(7);
    r.evaluated_at_ms = st.column_int64(8);
    r.training_images = st.column_optional_int64(9);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace hnclip
