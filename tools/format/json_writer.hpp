#pragma once
/// @file
/// A minimal pretty-printing JSON writer (RFC 8259).

#include <ostream>
#include <string_view>
#include <vector>

namespace gcbridge::format {

/// Writes one JSON document to a stream as it is built: beginObject, key, value, endObject...
/// Strings are escaped per RFC 8259 (invalid UTF-8 bytes become U+FFFD), non-finite numbers
/// become null, numbers are written in their shortest exact form. Arrays opened with
/// `inline_items` stay on one line; the document ends with a newline.
class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  void beginObject() { open('{', false); }
  void endObject() { close('}'); }
  void beginArray(bool inline_items = false) { open('[', inline_items); }
  void endArray() { close(']'); }

  void key(std::string_view name);
  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(double x);
  void value(int i);
  void value(bool b);
  void null();
  /// key(name) then value(v).
  template <typename T>
  void field(std::string_view name, const T& v) {
    key(name);
    value(v);
  }

 private:
  struct Level {
    bool inline_items;
    bool empty = true;
  };

  void open(char bracket, bool inline_items);
  void close(char bracket);
  void separate();
  void newline();
  void writeString(std::string_view s);

  std::ostream& out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace gcbridge::format
