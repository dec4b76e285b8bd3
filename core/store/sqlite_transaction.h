#pragma once
// Transaction: RAII guard for one write transaction on a sqlite3 connection. The constructor
// begins it IMMEDIATE (takes the write lock up front, waiting up to the busy timeout), so a
// transaction never fails half-way with SQLITE_BUSY when it upgrades from reading to writing;
// commit() ends it, and a guard destroyed without commit (an exception) rolls everything back.
//
// Ownership/threading: borrows the connection, which must outlive it; one thread.

#include <sqlite3.h>

#include <string>

namespace hnclip {

class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& path, std::string operation);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit();

 private:
  sqlite3* db_;
  const std::string& path_;
  std::string operation_;
  bool open_ = false;
};

// ReadTransaction: RAII guard for one read transaction (BEGIN DEFERRED): every read made while it
// lives sees one snapshot of the database, whatever other connections commit meanwhile. It ends
// when the guard goes, exception or not (nothing was written, so ending it cannot lose anything).
class ReadTransaction {
 public:
  ReadTransaction(sqlite3* db, const std::string& path, const std::string& operation);
  ~ReadTransaction();
  ReadTransaction(const ReadTransaction&) = delete;
  ReadTransaction& operator=(const ReadTransaction&) = delete;

 private:
  sqlite3* db_;
};

}  // namespace hnclip
