#pragma once
// Column<Row>: one table column mapped to one member of a plain row struct, so a row type is
// spelled once, as a table of { "column_name", &Row::member } entries, from which the INSERT
// column list and placeholders, the bindings, the SELECT list and the reads all follow (no
// positional indices to keep in step by hand).
//
// Members of type int, int64_t, float, double and std::string map directly, with Statement's
// rules (a NaN double is stored as NULL and read back as NaN; +inf round-trips). Anything else
// (an enum stored by name, a blob, a "now" default) is a custom column: a bind hook and a read
// hook, either of which may be null. A column without a bind hook is assigned by the database
// (a rowid) and never written; one without a read hook is derived from others and never read.
//
// Header-only; used on the thread that owns the statement's connection.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <variant>

#include "store/sqlite_statement.h"

namespace hnclip {

template <typename Row>
class Column {
 public:
  using BindHook = void (*)(Statement& st, int index, const Row& row);
  using ReadHook = void (*)(const Statement& st, int index, Row& row);

  // A member of one of the supported types (any other type does not compile).
  template <typename T>
  constexpr Column(const char* name, T Row::*member) : name_(name), member_(member) {}
  constexpr Column(const char* name, BindHook bind, ReadHook read)
      : name_(name), bind_(bind), read_(read) {}

  constexpr const char* name() const { return name_; }
  constexpr bool written() const { return member_.index() != 0 || bind_ != nullptr; }
  constexpr bool read_back() const { return member_.index() != 0 || read_ != nullptr; }

  // Parameters are 1-based, as in SQL; call only if written().
  void bind(Statement& st, int index, const Row& row) const {
    if (bind_) {
      bind_(st, index, row);
    } else if (auto m = std::get_if<int Row::*>(&member_)) {
      st.bind_int64(index, row.**m);
    } else if (auto m = std::get_if<int64_t Row::*>(&member_)) {
      st.bind_int64(index, row.**m);
    } else if (auto m = std::get_if<float Row::*>(&member_)) {
      st.bind_double(index, row.**m);
    } else if (auto m = std::get_if<double Row::*>(&member_)) {
      st.bind_double(index, row.**m);
    } else if (auto m = std::get_if<std::string Row::*>(&member_)) {
      st.bind_text(index, row.**m);
    }
  }

  // Result columns are 0-based; call only if read_back().
  void read(const Statement& st, int index, Row& row) const {
    if (read_) {
      read_(st, index, row);
    } else if (auto m = std::get_if<int Row::*>(&member_)) {
      row.** m = static_cast<int>(st.column_int64(index));
    } else if (auto m = std::get_if<int64_t Row::*>(&member_)) {
      row.** m = st.column_int64(index);
    } else if (auto m = std::get_if<float Row::*>(&member_)) {
      row.** m = static_cast<float>(st.column_double(index));
    } else if (auto m = std::get_if<double Row::*>(&member_)) {
      row.** m = st.column_double(index);
    } else if (auto m = std::get_if<std::string Row::*>(&member_)) {
      row.** m = st.column_text(index);
    }
  }

 private:
  const char* name_;
  std::variant<std::monostate, int Row::*, int64_t Row::*, float Row::*, double Row::*,
               std::string Row::*>
      member_;
  BindHook bind_ = nullptr;
  ReadHook read_ = nullptr;
};

// "a, b, c": the columns that are read back, in table order, for a SELECT.
template <typename Row, std::size_t N>
std::string select_list(const Column<Row> (&columns)[N]) {
  std::string list;
  for (const auto& c : columns) {
    if (!c.read_back()) continue;
    if (!list.empty()) list += ", ";
    list += c.name();
  }
  return list;
}

// "<head> (k1, k2, a, b) VALUES (?1, ?2, ?3, ?4)" for head "INSERT INTO t" (or "INSERT OR
// REPLACE INTO t"): the caller's key columns (bound by the caller as ?1.., e.g. run_id) first,
// then the written columns of the table.
template <typename Row, std::size_t N>
std::string insert_sql(const std::string& head, std::initializer_list<const char*> keys,
                       const Column<Row> (&columns)[N]) {
  std::string names;
  std::string values;
  int count = 0;
  auto add = [&](const char* name) {
    if (count > 0) {
      names += ", ";
      values += ", ";
    }
    names += name;
    values += "?" + std::to_string(++count);
  };
  for (const char* key : keys) add(key);
  for (const auto& c : columns) {
    if (c.written()) add(c.name());
  }
  return head + " (" + names + ") VALUES (" + values + ")";
}

// Binds the written columns of `row` as parameters first, first + 1, ... (after the keys).
template <typename Row, std::size_t N>
Statement& bind_row(Statement& st, int first, const Column<Row> (&columns)[N], const Row& row) {
  int index = first;
  for (const auto& c : columns) {
    if (c.written()) c.bind(st, index++, row);
  }
  return st;
}

// Reads a row whose select_list(columns) starts at result column `first`.
template <typename Row, std::size_t N>
Row read_row(const Statement& st, const Column<Row> (&columns)[N], int first = 0) {
  Row row;
  int index = first;
  for (const auto& c : columns) {
    if (c.read_back()) c.read(st, index++, row);
  }
  return row;
}

}  // namespace hnclip
