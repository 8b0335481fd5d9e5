// Trace spans: timed steps of a run (model calls, tool calls), grouped by trace.
#include "core/parsing/json/json_scan.hpp"
#include "store/sql_store.hpp"

namespace keel::detail {
namespace {

// Whether `text` is one JSON object (checked without building a document: a run writes spans at
// every step).
bool is_json_object(std::string_view text) {
  const StrictJson value = scan_strict_json(text);
  return value.ok && text[value.begin] == '{';
}

// Binds the span's fields as ?1 (trace_id) to ?11 (attributes), in the spans table's order.
void bind_span(Stmt& stmt, const SpanRecord& span, std::string_view attributes) {
  stmt.bind(1, span.trace_id).bind(2, span.span_id).bind_or_null(3, span.parent_span_id);
  stmt.bind_or_null(4, span.session_id).bind_or_null(5, span.run_id).bind(6, span.kind).bind(7, span.name);
  stmt.bind(8, span.start_us).bind(9, span.duration_us).bind(10, span.status).bind(11, attributes);
}

}  // namespace

Status SqlStore::record_span(const SpanRecord& span) {
  if (span.trace_id.empty() || span.span_id.empty()) {
    return Status::InvalidArgument("a span needs a trace_id and a span_id");
  }
  const std::string_view attributes = span.attributes.empty() ? std::string_view("{}") : span.attributes;
  if (!is_json_object(attributes)) {
    return Status::InvalidArgument("attributes of span '" + span.span_id + "' are not a JSON object");
  }
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->write([&]() -> Status {
    if (!span.session_id.empty()) KEEL_TRY(require_session_locked(span.session_id));
    KEEL_TRY(require_run_locked(span.run_id));
    // A new span is a plain insert; a span written again (a run's root span, at its start and at
    // its end) is updated. An upsert (ON CONFLICT DO UPDATE) would do both in one statement, but
    // SQLite then keeps a statement journal, a copy of every page the insert changes.
    {
      KEEL_ASSIGN_OR_RETURN(
          Stmt insert,
          db_->prepare("INSERT INTO spans (trace_id, span_id, parent_span_id, session_id, run_id, kind, name, start_us, "
                       "duration_us, status, attributes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
                       "ON CONFLICT (trace_id, span_id) DO NOTHING"));
      bind_span(insert, span, attributes);
      KEEL_TRY(insert.run());
    }
    if (db_->changes() != 0) return Status::Ok();
    KEEL_ASSIGN_OR_RETURN(Stmt update,
                          db_->prepare("UPDATE spans SET parent_span_id = ?3, session_id = ?4, run_id = ?5, kind = ?6, "
                                       "name = ?7, start_us = ?8, duration_us = ?9, status = ?10, attributes = ?11 "
                                       "WHERE trace_id = ?1 AND span_id = ?2"));
    bind_span(update, span, attributes);
    return update.run();
  });
}

Result<std::vector<SpanRecord>> SqlStore::list_spans(std::string_view trace_id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(
      Stmt stmt,
      db_->prepare(
          "SELECT trace_id, span_id, parent_span_id, session_id, run_id, kind, name, start_us, duration_us, status, "
          "attributes FROM spans WHERE trace_id = ?1 ORDER BY start_us, rowid"));
  stmt.bind(1, trace_id);
  std::vector<SpanRecord> spans;
  while (true) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return spans;
    SpanRecord s;
    s.trace_id = stmt.text(0);
    s.span_id = stmt.text(1);
    s.parent_span_id = stmt.text(2);
    s.session_id = stmt.text(3);
    s.run_id = stmt.text(4);
    s.kind = stmt.text(5);
    s.name = stmt.text(6);
    s.start_us = stmt.int64(7);
    s.duration_us = stmt.int64(8);
    s.status = stmt.text(9);
    s.attributes = stmt.text(10);
    spans.push_back(std::move(s));
  }
}

}  // namespace keel::detail
