// RunStore's caption geometry tables (schema v4): caption_stats, caption_neighbors and
// near_duplicate_pairs, keyed by (dataset key, encoder key). Kept apart from run_store.cpp
// because these rows belong to a data set under an encoder, not to a run.

#include <nlohmann/json.hpp>

#include "store/column.h"
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

template <typename M>
struct MemberOf;
template <typename R, typename V>
struct MemberOf<V R::*> {
  using Row = R;
  using Value = V;
};

// A vector member stored as a JSON array in a TEXT column; `What` names it in errors.
template <auto Member, const char* What>
struct JsonArrayHooks {
  using Row = typename MemberOf<decltype(Member)>::Row;
  using Value = typename MemberOf<decltype(Member)>::Value;
  static void bind(Statement& st, int i, const Row& r) {
    st.bind_text(i, nlohmann::json(r.*Member).dump());
  }
  static void read(const Statement& st, int i, Row& r) {
    r.*Member = json_array<typename Value::value_type>(st.column_text(i), What);
  }
};
template <auto Member, const char* What>
constexpr auto json_column(const char* name) {
  using Hooks = JsonArrayHooks<Member, What>;
  return Column<typename Hooks::Row>{name, Hooks::bind, Hooks::read};
}

constexpr char kBucketFractions[] = "bucket fractions";
constexpr char kBucketCounts[] = "bucket counts";
constexpr char kPairwiseHistogram[] = "pairwise histogram";
constexpr char kHardestHistogram[] = "hardest histogram";
constexpr char kSharedWords[] = "shared words";

// created_at_ms of 0 is stored as "now".
void bind_created_at(Statement& st, int i, const CaptionStatsRow& s) {
  st.bind_int64(i, s.created_at_ms ? s.created_at_ms : unix_time_ms());
}
void read_created_at(const Statement& st, int i, CaptionStatsRow& s) {
  s.created_at_ms = st.column_int64(i);
}

// Every table's rows follow the keys dataset_key, encoder_key (bound by the caller).
constexpr Column<CaptionStatsRow> kStatsColumns[] = {
    {"train_images", &CaptionStatsRow::train_images},
    {"test_images", &CaptionStatsRow::test_images},
    {"captions", &CaptionStatsRow::captions},
    {"mean_words", &CaptionStatsRow::mean_words},
    {"mean_pairwise", &CaptionStatsRow::mean_pairwise},
    {"mean_hardest", &CaptionStatsRow::mean_hardest},
    {"median_hardest", &CaptionStatsRow::median_hardest},
    {"batch_size", &CaptionStatsRow::batch_size},
    json_column<&CaptionStatsRow::bucket_fractions, kBucketFractions>("bucket_fractions_json"),
    json_column<&CaptionStatsRow::bucket_counts, kBucketCounts>("bucket_counts_json"),
    json_column<&CaptionStatsRow::pairwise_histogram, kPairwiseHistogram>(
        "pairwise_histogram_json"),
    json_column<&CaptionStatsRow::hardest_histogram, kHardestHistogram>("hardest_histogram_json"),
    {"created_at_ms", bind_created_at, read_created_at},
};

constexpr Column<CaptionNeighborRow> kNeighborColumns[] = {
    {"caption", &CaptionNeighborRow::caption},
    {"rank", &CaptionNeighborRow::rank},
    {"neighbor", &CaptionNeighborRow::neighbor},
    {"cosine", &CaptionNeighborRow::cosine},
    json_column<&CaptionNeighborRow::shared_words, kSharedWords>("shared_words_json"),
};

constexpr Column<NearDuplicatePairRow> kPairColumns[] = {
    {"rank", &NearDuplicatePairRow::rank},
    {"caption_a", &NearDuplicatePairRow::a},
    {"caption_b", &NearDuplicatePairRow::b},
    {"cosine", &NearDuplicatePairRow::cosine},
};

constexpr std::initializer_list<const char*> kKeys = {"dataset_key", "encoder_key"};
}  // namespace

void RunStore::write_caption_geometry(const CaptionGeometryRecord& record) {
  const auto& s = record.stats;
  if (s.dataset_key.empty() || s.encoder_key.empty()) {
    throw StoreError(path_ + ": caption geometry needs a dataset key and an encoder key");
  }
  const std::string op = "write caption geometry of " + s.dataset_key + " under " + s.encoder_key;
  Transaction tx(db_, path_, op);
  for (const char* sql :
       {"DELETE FROM caption_neighbors WHERE dataset_key = ?1 AND encoder_key = ?2",
        "DELETE FROM near_duplicate_pairs WHERE dataset_key = ?1 AND encoder_key = ?2",
        "DELETE FROM caption_stats WHERE dataset_key = ?1 AND encoder_key = ?2"}) {
    Statement del(db_, path_, sql, op);
    del.bind_text(1, s.dataset_key).bind_text(2, s.encoder_key).run();
  }
  {
    Statement st(db_, path_, insert_sql("INSERT INTO caption_stats", kKeys, kStatsColumns).c_str(),
                 op);
    st.bind_text(1, s.dataset_key).bind_text(2, s.encoder_key);
    bind_row(st, 3, kStatsColumns, s).run();
  }
  {
    Statement st(db_, path_,
                 insert_sql("INSERT INTO caption_neighbors", kKeys, kNeighborColumns).c_str(), op);
    for (const auto& n : record.neighbors) {
      st.bind_text(1, s.dataset_key).bind_text(2, s.encoder_key);
      bind_row(st, 3, kNeighborColumns, n).run();
      st.reset();
    }
  }
  {
    Statement st(db_, path_,
                 insert_sql("INSERT INTO near_duplicate_pairs", kKeys, kPairColumns).c_str(), op);
    for (const auto& p : record.pairs) {
      st.bind_text(1, s.dataset_key).bind_text(2, s.encoder_key);
      bind_row(st, 3, kPairColumns, p).run();
      st.reset();
    }
  }
  tx.commit();
}

std::optional<CaptionStatsRow> RunStore::caption_stats(const std::string& dataset_key,
                                                       const std::string& encoder_key) const {
  Statement st(db_, path_,
               ("SELECT " + select_list(kStatsColumns) +
                " FROM caption_stats WHERE dataset_key = ?1 AND encoder_key = ?2")
                   .c_str(),
               "read caption stats of " + dataset_key + " under " + encoder_key);
  st.bind_text(1, dataset_key).bind_text(2, encoder_key);
  if (!st.step()) return std::nullopt;
  CaptionStatsRow s = read_row(st, kStatsColumns);
  s.dataset_key = dataset_key;
  s.encoder_key = encoder_key;
  return s;
}

std::vector<CaptionNeighborRow> RunStore::caption_neighbors(const std::string& dataset_key,
                                                            const std::string& encoder_key,
                                                            int64_t caption) const {
  Statement st(db_, path_,
               ("SELECT " + select_list(kNeighborColumns) +
                " FROM caption_neighbors WHERE dataset_key = ?1 AND encoder_key = ?2 AND "
                "(?3 < 0 OR caption = ?3) ORDER BY caption, rank")
                   .c_str(),
               "read caption neighbours of " + dataset_key + " under " + encoder_key);
  st.bind_text(1, dataset_key).bind_text(2, encoder_key).bind_int64(3, caption);
  std::vector<CaptionNeighborRow> rows;
  while (st.step()) rows.push_back(read_row(st, kNeighborColumns));
  return rows;
}

std::optional<CaptionGeometryRecord> RunStore::caption_geometry(
    const std::string& dataset_key, const std::string& encoder_key) const {
  auto stats = caption_stats(dataset_key, encoder_key);
  if (!stats) return std::nullopt;
  CaptionGeometryRecord r;
  r.stats = std::move(*stats);
  r.neighbors = caption_neighbors(dataset_key, encoder_key, -1);
  Statement st(db_, path_,
               ("SELECT " + select_list(kPairColumns) +
                " FROM near_duplicate_pairs WHERE dataset_key = ?1 AND encoder_key = ?2 ORDER BY "
                "rank")
                   .c_str(),
               "read near-duplicate pairs of " + dataset_key + " under " + encoder_key);
  st.bind_text(1, dataset_key).bind_text(2, encoder_key);
  while (st.step()) r.pairs.push_back(read_row(st, kPairColumns));
  return r;
}

}  // namespace hnclip
