// RunStore's caption geometry tables (schema v4): caption_stats, caption_neighbors and
// near_duplicate_pairs, keyed by (dataset key, encoder key). Kept apart from run_store.cpp
// because these rows belong to a data set under an encoder, not to a run.

#include <nlohmann/json.hpp>

#include "store/run_store.h"
#include "store/sqlite_statement.h"
#include "store/sqlite_transaction.h"

namespace hnclip {

namespace {
template <typename T>
std::vector<T> json_array(const std::string& text, const std::string& what) {
  try {
    return nlohmann::json::parse(text).get<std::vector<T>>();
  } catch (const std::exception& e) {
    throw StoreError("caption geometry: malformed " + what + " (" + e.what() + ")");
  }
}
}  // namespace

void RunStore::write_caption_geometry(const CaptionGeometryRecord& record) {
  const auto& s = record.stats;
  if (s.dataset_key.empty() || s.encoder_key.empty()) {
    throw StoreError(path_ + ": caption geometry needs a dataset key and an encoder key");
  }
  const std::string op = "write caption geometry of " + s.dataset_key + " under " + s.encoder_key;
  Transaction tx(db_, path_, op);
  for (const char* sql : {"DELETE FROM caption_neighbors WHERE dataset_key = ?1 AND encoder_key = ?2",
                          "DELETE FROM near_duplicate_pairs WHERE dataset_key = ?1 AND encoder_key = ?2",
                          "DELETE FROM caption_stats WHERE dataset_key = ?1 AND encoder_key = ?2"}) {
    Statement del(db_, path_, sql, op);
    del.bind_text(1, s.dataset_key).bind_text(2, s.encoder_key).run();
  }
  {
    Statement st(db_, path_,
                 "INSERT INTO caption_stats (dataset_key, encoder_key, train_images, test_images, "
                 "captions, mean_words, mean_pairwise, mean_hardest, median_hardest, batch_size, "
                 "bucket_fractions_json, bucket_counts_json, pairwise_histogram_json, "
                 "hardest_histogram_json, created_at_ms) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                 op);
    st.bind_text(1, s.dataset_key)
        .bind_text(2, s.encoder_key)
        .bind_int64(3, s.train_images)
        .bind_int64(4, s.test_images)
        .bind_int64(5, s.captions)
        .bind_double(6, s.mean_words)
        .bind_double(7, s.mean_pairwise)
        .bind_double(8, s.mean_hardest)
        .bind_double(9, s.median_hardest)
        .bind_int64(10, s.batch_size)
        .bind_text(11, nlohmann::json(s.bucket_fractions).dump())
        .bind_text(12, nlohmann::json(s.bucket_counts).dump())
        .bind_text(13, nlohmann::json(s.pairwise_histogram).dump())
        .bind_text(14, nlohmann::json(s.hardest_histogram).dump())
        .bind_int64(15, s.created_at_ms ? s.created_at_ms : unix_time_ms());
    st.run();
  }
  {
    Statement st(db_, path_,
                 "INSERT INTO caption_neighbors (dataset_key, encoder_key, caption, rank, neighbor, "
                 "cosine, shared_words_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                 op);
    for (const auto& n : record.neighbors) {
      st.bind_text(1, s.dataset_key)
          .bind_text(2, s.encoder_key)
          .bind_int64(3, n.caption)
          .bind_int64(4, n.rank)
          .bind_int64(5, n.neighbor)
          .bind_double(6, n.cosine)
          .bind_text(7, nlohmann::json(n.shared_words).dump());
      st.run();
      st.reset();
    }
  }
  {
    Statement st(db_, path_,
                 "INSERT INTO near_duplicate_pairs (dataset_key, encoder_key, rank, caption_a, "
                 "caption_b, cosine) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                 op);
    for (const auto& p : record.pairs) {
      st.bind_text(1, s.dataset_key)
          .bind_text(2, s.encoder_key)
          .bind_int64(3, p.rank)
          .bind_int64(4, p.a)
          .bind_int64(5, p.b)
          .bind_double(6, p.cosine);
      st.run();
      st.reset();
    }
  }
  tx.commit();
}

std::optional<CaptionStatsRow> RunStore::caption_stats(const std::string& dataset_key,
                                                       const std::string& encoder_key) const {
  Statement st(db_, path_,
               "SELECT train_images, test_images, captions, mean_words, mean_pairwise, mean_hardest, "
               "median_hardest, batch_size, bucket_fractions_json, bucket_counts_json, "
               "pairwise_histogram_json, hardest_histogram_json, created_at_ms FROM caption_stats "
               "WHERE dataset_key = ?1 AND encoder_key = ?2",
               "read caption stats of " + dataset_key + " under " + encoder_key);
  st.bind_text(1, dataset_key).bind_text(2, encoder_key);
  if (!st.step()) return std::nullopt;
  CaptionStatsRow s;
  s.dataset_key = dataset_key;
  s.encoder_key = encoder_key;
  s.train_images = st.column_int64(0);
  s.test_images = st.column_int64(1);
  s.captions = st.column_int64(2);
  s.mean_words = st.column_double(3);
  s.mean_pairwise = st.column_double(4);
  s.mean_hardest = st.column_double(5);
  s.median_hardest = st.column_double(6);
  s.batch_size = st.column_int64(7);
  s.bucket_fractions = json_array<double>(st.column_text(8), "bucket fractions");
  s.bucket_counts = json_array<int64_t>(st.column_text(9), "bucket counts");
  s.pairwise_histogram = json_array<int64_t>(st.column_text(10), "pairwise histogram");
  s.hardest_histogram = json_array<int64_t>(st.column_text(11), "hardest histogram");
  s.created_at_ms = st.column_int64(12);
  return s;
}

std::vector<CaptionNeighborRow> RunStore::caption_neighbors(const std::string& dataset_key,
                                                            const std::string& encoder_key,
                                                            int64_t caption) const {
  Statement st(db_, path_,
               "SELECT caption, rank, neighbor, cosine, shared_words_json FROM caption_neighbors "
               "WHERE dataset_key = ?1 AND encoder_key = ?2 AND (?3 < 0 OR caption = ?3) "
               "ORDER BY caption, rank",
               "read caption neighbours of " + dataset_key + " under " + encoder_key);
  st.bind_text(1, dataset_key).bind_text(2, encoder_key).bind_int64(3, caption);
  std::vector<CaptionNeighborRow> rows;
  while (st.step()) {
    CaptionNeighborRow r;
    r.caption = st.column_int64(0);
    r.rank = static_cast<int>(st.column_int64(1));
    r.neighbor = st.column_int64(2);
    r.cosine = st.column_double(3);
    r.shared_words = json_array<std::string>(st.column_text(4), "shared words");
    rows.push_back(std::move(r));
  }
  return rows;
}

std::optional<CaptionGeometryRecord> RunStore::caption_geometry(const std::string& dataset_key,
                                                                const std::string& encoder_key) const {
  auto stats = caption_stats(dataset_key, encoder_key);
  if (!stats) return std::nullopt;
  CaptionGeometryRecord r;
  r.stats = std::move(*stats);
  r.neighbors = caption_neighbors(dataset_key, encoder_key, -1);
  Statement st(db_, path_,
               "SELECT rank, caption_a, caption_b, cosine FROM near_duplicate_pairs "
               "WHERE dataset_key = ?1 AND encoder_key = ?2 ORDER BY rank",
               "read near-duplicate pairs of " + dataset_key + " under " + encoder_key);
  st.bind_text(1, dataset_key).bind_text(2, encoder_key);
  while (st.step()) {
    r.pairs.push_back({static_cast<int>(st.column_int64(0)), st.column_int64(1), st.column_int64(2),
                       st.column_double(3)});
  }
  return r;
}

}  // namespace hnclip
