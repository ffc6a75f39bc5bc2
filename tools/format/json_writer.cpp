#include "format/json_writer.hpp"

#include <cmath>
#include <string>

#include "format/numbers.hpp"

namespace gcbridge::format {
namespace {

/// Length of the valid UTF-8 sequence at s[i] (whose byte is >= 0x80), or 0 if it is invalid
/// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  unsigned char second_min = 0x80, second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;
    if (lead == 0xED) second_max = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;
    if (lead == 0xF4) second_max = 0x8F;
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  if (byte(i + 1) < second_min || byte(i + 1) > second_max) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

void JsonWriter::key(std::string_view name) {
  separate();
  writeString(name);
  out_ << ": ";
  after_key_ = true;
}

void JsonWriter::value(std::string_view s) {
  separate();
  writeString(s);
}

void JsonWriter::value(double x) {
  separate();
  out_ << (std::isfinite(x) ? exactNumber(x) : "null");
}

void JsonWriter::value(int i) {
  separate();
  out_ << i;
}

void JsonWriter::value(bool b) {
  separate();
  out_ << (b ? "true" : "false");
}

void JsonWriter::null() {
  separate();
  out_ << "null";
}

void JsonWriter::open(char bracket, bool inline_items) {
  separate();
  out_ << bracket;
  levels_.push_back({inline_items || (!levels_.empty() && levels_.back().inline_items)});
}

void JsonWriter::close(char bracket) {
  const Level level = levels_.back();
  levels_.pop_back();
  if (!level.empty && !level.inline_items) newline();
  out_ << bracket;
  if (levels_.empty()) out_ << '\n';
}

// Before a key or a value: nothing right after a key, else a comma and a line break or space.
void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  Level& level = levels_.back();
  if (!level.empty) out_ << ',';
  if (level.inline_items) {
    if (!level.empty) out_ << ' ';
  } else {
    newline();
  }
  level.empty = false;
}

void JsonWriter::newline() { out_ << '\n' << std::string(2 * levels_.size(), ' '); }

void JsonWriter::writeString(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out_ << '"';
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      // Valid UTF-8 passes through; a broken sequence becomes U+FFFD.
      const size_t length = utf8SequenceLength(s, i);
      if (length == 0) {
        out_ << "\\ufffd";
        ++i;
      } else {
        out_ << s.substr(i, length);
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"':
        out_ << "\\\"";
        break;
      case '\\':
        out_ << "\\\\";
        break;
      case '\b':
        out_ << "\\b";
        break;
      case '\f':
        out_ << "\\f";
        break;
      case '\n':
        out_ << "\\n";
        break;
      case '\r':
        out_ << "\\r";
        break;
      case '\t':
        out_ << "\\t";
        break;
      default:
        if (c < 0x20) {
          out_ << "\\u00" << kHex[c >> 4] << kHex[c & 0xF];
        } else {
          out_ << static_cast<char>(c);
        }
    }
    ++i;
  }
  out_ << '"';
}

}  // namespace gcbridge::format
