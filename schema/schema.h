// The streamscope trace schema, embedded from schema/streamscope_schema.sql.
//
// Pure data: no SQLite dependency, so both the collector (writer) and the
// analyzer (reader, converter) link it. Thread-safe (immutable).
#ifndef STREAMSCOPE_SCHEMA_SCHEMA_H_
#define STREAMSCOPE_SCHEMA_SCHEMA_H_

#include <string>
#include <string_view>

namespace streamscope::schema {

// Version written to PRAGMA user_version and metadata('schema_version').
int Version();

// The oldest version readers still accept (the tables of every version from
// this one to Version() hold the same columns; streamscope_schema.sql's
// history says what changed).
int OldestReadableVersion();

// Statements that bring a trace of `from_version` (>= OldestReadableVersion())
// to Version() in place: the tables keep their rows; enumeration names and
// views are replaced and both version stamps set. Empty when there is
// nothing to do. Run inside a transaction.
std::string UpgradeSql(int from_version);

// The whole DDL file.
std::string_view FullSql();

// Statements that create a fresh trace (everything before the
// "-- streamscope:finalize" marker).
std::string_view CreateSql();

// Statements to run when capture ends or a conversion finishes (indexes).
// Idempotent (IF NOT EXISTS).
std::string_view FinalizeSql();

// Names of the tables a valid trace of this version must contain.
const std::string_view* RequiredTables(int* count);

}  // namespace streamscope::schema

#endif  // STREAMSCOPE_SCHEMA_SCHEMA_H_
