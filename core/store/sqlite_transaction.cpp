#include "store/sqlite_transaction.h"

#include <utility>

#include "store/sqlite_statement.h"

namespace hnclip {

Transaction::Transaction(sqlite3* db, const std::string& path, std::string operation)
    : db_(db), path_(path), operation_(std::move(operation)) {
  exec_sql(db_, path_, "BEGIN IMMEDIATE", operation_ + " (begin transaction)");
  open_ = true;
}

Transaction::~Transaction() {
  // SQLite may already have rolled back by itself after some errors (e.g. SQLITE_FULL); only
  // roll back while a transaction is really open. Errors cannot be reported from a destructor,
  // and a failed ROLLBACK leaves nothing committed anyway.
  if (open_ && sqlite3_get_autocommit(db_) == 0) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

void Transaction::commit() {
  exec_sql(db_, path_, "COMMIT", operation_ + " (commit)");
  open_ = false;
}

ReadTransaction::ReadTransaction(sqlite3* db, const std::string& path, const std::string& operation)
    : db_(db) {
  exec_sql(db_, path, "BEGIN DEFERRED", operation + " (begin read transaction)");
}

ReadTransaction::~ReadTransaction() {
  if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

}  // namespace hnclip
