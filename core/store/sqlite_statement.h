#pragma once
// Thin RAII wrappers over the sqlite3 C API used by RunStore: a prepared statement and a
// one-shot SQL executor. Every failure becomes a StoreError that names the database file and the
// operation, so a message from deep inside a migration still says which file and what step.
//
// Ownership/threading: a Statement borrows the connection (which must outlive it) and belongs to
// the thread that uses that connection.

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hnclip {

// Throws StoreError "<path>: <operation> failed: <sqlite message> (sqlite code N)".
[[noreturn]] void throw_sqlite_error(sqlite3* db, const std::string& path,
                                     const std::string& operation, int code);

// Runs SQL text (one or more statements, no parameters, no result rows wanted).
void exec_sql(sqlite3* db, const std::string& path, const std::string& sql,
              const std::string& operation);

class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql, std::string operation);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in SQL.
  Statement& bind_int64(int index, int64_t value);
  // NaN is stored as NULL (SQLite has no NaN) and read back as NaN by column_double.
  Statement& bind_double(int index, double value);
  Statement& bind_text(int index, const std::string& value);
  Statement& bind_blob(int index, const std::vector<unsigned char>& value);
  // An optional count: none is stored as NULL, and read back as none by column_optional_int64.
  Statement& bind_optional_int64(int index, const std::optional<int64_t>& value);

  // Advances; true while a result row is available, false when done.
  bool step();
  // Steps a statement that returns no rows.
  void run() {
    while (step()) {
    }
  }
  // Makes the statement ready to run again with new bindings.
  void reset();

  // Columns are 0-based.
  int64_t column_int64(int index) const;
  double column_double(int index) const;  // NULL -> quiet NaN
  std::string column_text(int index) const;
  std::vector<unsigned char> column_blob(int index) const;
  std::optional<int64_t> column_optional_int64(int index) const;  // NULL -> none

  // "<path>: <operation>", the context a decoding error of a column names.
  std::string context() const { return path_ + ": " + operation_; }

 private:
  sqlite3* db_;
  const std::string& path_;
  std::string operation_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace hnclip
