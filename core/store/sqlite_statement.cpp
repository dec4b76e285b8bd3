#include "store/sqlite_statement.h"

#include <limits>
#include <utility>

#include "store/store_error.h"

namespace hnclip {

void throw_sqlite_error(sqlite3* db, const std::string& path, const std::string& operation,
                        int code) {
  // sqlite3_errmsg describes the most recent failure on this connection, which is more specific
  // than the generic text of the code (e.g. which constraint failed).
  const char* detail = db ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  throw StoreError(path + ": " + operation + " failed: " + detail + " (sqlite code " +
                   std::to_string(code) + ")");
}

void exec_sql(sqlite3* db, const std::string& path, const std::string& sql,
              const std::string& operation) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    const std::string detail = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    throw StoreError(path + ": " + operation + " failed: " + detail + " (sqlite code " +
                     std::to_string(rc) + ")");
  }
}

Statement::Statement(sqlite3* db, const std::string& path, const char* sql, std::string operation)
    : db_(db), path_(path), operation_(std::move(operation)) {
  const int rc = sqlite3_prepare_v2(db_, sql, -1, &stmt_, nullptr);
  if (rc != SQLITE_OK) throw_sqlite_error(db_, path_, operation_ + " (prepare)", rc);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind_int64(int index, int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) throw_sqlite_error(db_, path_, operation_ + " (bind)", rc);
  return *this;
}

Statement& Statement::bind_optional_int64(int index, const std::optional<int64_t>& value) {
  if (value) return bind_int64(index, *value);
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) throw_sqlite_error(db_, path_, operation_ + " (bind)", rc);
  return *this;
}

Statement& Statement::bind_double(int index, double value) {
  const int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) throw_sqlite_error(db_, path_, operation_ + " (bind)", rc);
  return *this;
}

Statement& Statement::bind_text(int index, const std::string& value) {
  const int rc = sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                                   SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) throw_sqlite_error(db_, path_, operation_ + " (bind)", rc);
  return *this;
}

Statement& Statement::bind_blob(int index, const std::vector<unsigned char>& value) {
  // A zero-length blob (not NULL) for an empty vector: sqlite3_bind_blob with a null pointer
  // would store NULL, which NOT NULL columns refuse.
  const int rc = value.empty()
                     ? sqlite3_bind_zeroblob(stmt_, index, 0)
                     : sqlite3_bind_blob(stmt_, index, value.data(), static_cast<int>(value.size()),
                                         SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) throw_sqlite_error(db_, path_, operation_ + " (bind)", rc);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_sqlite_error(db_, path_, operation_, rc);
}

void Statement::reset() {
  // The result of sqlite3_reset repeats the last step's error, which step() already reported.
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::column_int64(int index) const { return sqlite3_column_int64(stmt_, index); }

std::optional<int64_t> Statement::column_optional_int64(int index) const {
  if (sqlite3_column_type(stmt_, index) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(stmt_, index);
}

double Statement::column_double(int index) const {
  if (sqlite3_column_type(stmt_, index) == SQLITE_NULL) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return sqlite3_column_double(stmt_, index);
}

std::string Statement::column_text(int index) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, index));
  const int size = sqlite3_column_bytes(stmt_, index);
  return text ? std::string(text, static_cast<std::size_t>(size)) : std::string();
}

std::vector<unsigned char> Statement::column_blob(int index) const {
  const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(stmt_, index));
  const int size = sqlite3_column_bytes(stmt_, index);
  if (!data || size <= 0) return {};
  return std::vector<unsigned char>(data, data + size);
}

}  // namespace hnclip
