// Reading an HTTP/1.x response as its bytes arrive; see http1_reply_reader.hpp.
#include "net/http1_reply_reader.hpp"

#include <algorithm>

#include "net/http_text.hpp"

namespace keel::detail {
namespace {

constexpr uint64_t kMaxHeadBytes = 256 * 1024;  // a head (or a trailer) larger than this is refused
constexpr size_t kMaxChunkLine = 4096;          // a chunk-size line with its extensions

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool is_blank_line(std::string_view line) {
  return line == "\r\n" || line == "\n";
}

// Calls `each` with every comma-separated token of a header value, trimmed.
template <class F>
void each_token(std::string_view value, F each) {
  while (true) {
    const size_t comma = value.find(',');
    each(trim_http_blanks(value.substr(0, comma)));
    if (comma == std::string_view::npos) return;
    value.remove_prefix(comma + 1);
  }
}

// A line as it may be quoted in an error: printable ASCII, at most 60 characters.
std::string quoted(std::string_view line) {
  std::string out;
  for (char c : trim_http_blanks(line).substr(0, 60)) out += c >= 0x20 && c < 0x7f ? c : '?';
  return "\"" + out + "\"";
}

}  // namespace

Http1ReplyReader::State Http1ReplyReader::fail(std::string why) {
  error_ = std::move(why);
  keep_alive_ = false;
  return state_ = State::kFailed;
}

Http1ReplyReader::State Http1ReplyReader::feed(std::string_view bytes, Handler& handler) {
  while (!bytes.empty() && state_ == State::kReading) {
    if (part_ == Part::kLength || part_ == Part::kChunkData || part_ == Part::kToClose) {
      const size_t n =
          part_ == Part::kToClose ? bytes.size() : static_cast<size_t>(std::min<uint64_t>(left_, bytes.size()));
      received_ += n;
      if (part_ != Part::kToClose) left_ -= n;
      if (!handler.on_body(bytes.substr(0, n))) return state_ = State::kStopped;
      bytes.remove_prefix(n);
      if (left_ == 0 && part_ == Part::kLength) state_ = State::kDone;
      if (left_ == 0 && part_ == Part::kChunkData) part_ = Part::kChunkEnd;
      continue;
    }
    const size_t newline = bytes.find('\n');
    const size_t take = newline == std::string_view::npos ? bytes.size() : newline + 1;
    received_ += take;
    const bool in_head = part_ == Part::kStatusLine || part_ == Part::kHeaderLine || part_ == Part::kTrailer;
    if (in_head) {
      head_bytes_ += take;
      if (head_bytes_ > kMaxHeadBytes) return fail("the reply's head is larger than 256 KiB");
    } else if (line_.size() + take > kMaxChunkLine) {
      return fail("a chunk-size line longer than 4 KiB");
    }
    if (newline == std::string_view::npos) {
      line_.append(bytes);
      return state_;
    }
    State s;
    if (line_.empty()) {
      s = on_line(bytes.substr(0, take), handler);
    } else {
      line_.append(bytes.substr(0, take));
      s = on_line(line_, handler);
      line_.clear();
    }
    bytes.remove_prefix(take);
    if (s != State::kReading) state_ = s;
  }
  if (state_ == State::kDone && !bytes.empty()) keep_alive_ = false;  // more than the response
  return state_;
}

Http1ReplyReader::State Http1ReplyReader::on_line(std::string_view line, Handler& handler) {
  // A CR anywhere but before the line's LF (RFC 9112 section 2.2): one reader would end the line
  // there and another not, so what follows it could be read as a header or as the body.
  if (const size_t cr = line.find('\r'); cr != std::string_view::npos && cr + 2 != line.size()) {
    return fail("a bare CR in a line of the reply's framing: " + quoted(line));
  }
  switch (part_) {
    case Part::kStatusLine:
      // Empty lines before a status line (some servers send one after an interim head) are
      // skipped; the head's size limit bounds how many.
      if (is_blank_line(line)) return State::kReading;
      if (State s = on_status_line(line); s != State::kReading) return s;
      part_ = Part::kHeaderLine;
      return handler.on_head_line(line) ? State::kReading : State::kStopped;
    case Part::kHeaderLine:
      if (is_blank_line(line)) {
        if (!handler.on_head_line(line)) return State::kStopped;
        return end_of_head();
      }
      if (State s = on_header(line); s != State::kReading) return s;
      return handler.on_head_line(line) ? State::kReading : State::kStopped;
    case Part::kChunkSize: {
      uint64_t size = 0;
      size_t digits = 0;
      for (char c : line) {
        const char l = lower(c);
        int v = -1;
        if (l >= '0' && l <= '9') v = l - '0';
        if (l >= 'a' && l <= 'f') v = l - 'a' + 10;
        if (v < 0) break;
        if (++digits > 15) return fail("a chunk size over 15 hexadecimal digits");
        size = size * 16 + static_cast<uint64_t>(v);
      }
      const char after = digits < line.size() ? line[digits] : '\n';
      if (digits == 0 || (after != ';' && after != '\r' && after != '\n' && after != ' ' && after != '\t')) {
        return fail("a chunk size that is not hexadecimal: " + quoted(line));
      }
      if (size == 0) {
        part_ = Part::kTrailer;
        head_bytes_ = 0;
      } else {
        left_ = size;
        part_ = Part::kChunkData;
      }
      return State::kReading;
    }
    case Part::kChunkEnd:
      if (!is_blank_line(line)) return fail("a chunk longer than its size said");
      part_ = Part::kChunkSize;
      return State::kReading;
    case Part::kTrailer:
      return is_blank_line(line) ? State::kDone : State::kReading;  // trailer fields are not read
    default:
      return State::kReading;  // not reached: body parts are not lines
  }
}

Http1ReplyReader::State Http1ReplyReader::on_status_line(std::string_view line) {
  const std::string_view l = trim_http_blanks(line);
  const bool version = l.size() >= 12 && l.substr(0, 7) == "HTTP/1." && (l[7] == '0' || l[7] == '1') && l[8] == ' ';
  int status = 0;
  bool digits = version;
  for (size_t i = 9; digits && i < 12; ++i) {
    if (l[i] < '0' || l[i] > '9')
      digits = false;
    else
      status = status * 10 + (l[i] - '0');
  }
  if (!digits || (l.size() > 12 && l[12] != ' ') || status < 100) {
    return fail("the reply does not begin with an HTTP/1.x status line: " + quoted(line));
  }
  status_ = status;
  http10_ = l[7] == '0';
  keep_alive_ = !http10_;
  chunked_ = has_length_ = other_coding_ = false;
  length_ = 0;
  last_header_ = LastHeader::kNone;
  return State::kReading;
}

Http1ReplyReader::State Http1ReplyReader::on_header(std::string_view line) {
  if (line.front() == ' ' || line.front() == '\t') {
    // A folded continuation of the line before (obsolete, RFC 9112 section 5.2). It is passed on as
    // a line of its own; one that would continue a header that frames the body, or that has no
    // header to continue, is refused rather than read two ways.
    if (last_header_ == LastHeader::kNone) return fail("a header line that begins with a blank: " + quoted(line));
    if (last_header_ == LastHeader::kFraming) return fail("a header that frames the body is folded over two lines");
    return State::kReading;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return fail("a header line without a colon: " + quoted(line));
  const std::string_view name = trim_http_blanks(line.substr(0, colon));
  last_header_ = LastHeader::kOther;
  const std::string_view value = trim_http_blanks(line.substr(colon + 1));
  if (equals_lowercase(name, "content-length")) {
    uint64_t n = 0;
    if (value.empty() || value.size() > 18 ||
        !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return fail("a Content-Length that is not a number: " + quoted(value));
    }
    for (char c : value) n = n * 10 + static_cast<uint64_t>(c - '0');
    last_header_ = LastHeader::kFraming;
    if (has_length_ && n != length_) return fail("two different Content-Length headers");
    has_length_ = true;
    length_ = n;
  } else if (equals_lowercase(name, "transfer-encoding")) {
    bool last_chunked = false;
    each_token(value, [&](std::string_view token) {
      if (token.empty()) return;
      last_chunked = equals_lowercase(token, "chunked");
      if (!last_chunked) other_coding_ = true;
    });
    chunked_ = last_chunked;
    last_header_ = LastHeader::kFraming;
  } else if (equals_lowercase(name, "connection")) {
    last_header_ = LastHeader::kFraming;
    each_token(value, [&](std::string_view token) {
      if (equals_lowercase(token, "close")) keep_alive_ = false;
      if (equals_lowercase(token, "keep-alive") && http10_) keep_alive_ = true;
    });
  }
  return State::kReading;
}

Http1ReplyReader::State Http1ReplyReader::end_of_head() {
  head_bytes_ = 0;
  if (status_ >= 100 && status_ < 200) {
    if (status_ == 101) return fail("the server switched protocols, which keel did not ask for");
    part_ = Part::kStatusLine;  // an interim head; the final one follows
    status_ = 0;
    return State::kReading;
  }
  if (status_ == 204 || status_ == 304) return State::kDone;
  if (chunked_) {
    if (has_length_) keep_alive_ = false;  // both framings named: read the chunks, trust the connection no further
    part_ = Part::kChunkSize;
    return State::kReading;
  }
  if (other_coding_ || !has_length_) {
    keep_alive_ = false;
    part_ = Part::kToClose;
    return State::kReading;
  }
  if (length_ == 0) return State::kDone;
  left_ = length_;
  part_ = Part::kLength;
  return State::kReading;
}

Http1ReplyReader::State Http1ReplyReader::at_close() {
  if (state_ != State::kReading) return state_;
  keep_alive_ = false;
  switch (part_) {
    case Part::kToClose:
      return state_ = State::kDone;
    case Part::kStatusLine:
    case Part::kHeaderLine:
      return fail(received_ == 0 ? "the connection closed before a reply"
                                 : "the connection closed inside the reply's head");
    case Part::kLength:
      return fail("the connection closed after " + std::to_string(length_ - left_) + " of the " +
                  std::to_string(length_) + " body bytes its Content-Length announced");
    default:
      return fail("the connection closed inside the chunked body");
  }
}

}  // namespace keel::detail
