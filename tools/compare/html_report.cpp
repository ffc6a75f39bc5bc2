// The HTML report: blocks appended as XHTML to the body, the page assembled around them.

#include "compare/html_report.hpp"

#include <cctype>
#include <charconv>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace gcbridge::compare {
namespace {

// The page's style: system font, readable width, bordered tables, figures no wider than the page.
constexpr const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222222;
       background: #ffffff; margin: 0; line-height: 1.5; }
main { max-width: 62rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.6rem; border-bottom: 1px solid #dddddd; padding-bottom: 0.3rem; }
h2 { font-size: 1.3rem; margin-top: 2rem; }
h3 { font-size: 1.1rem; margin-top: 1.5rem; }
h4 { font-size: 1rem; margin-top: 1.2rem; }
p { max-width: 48rem; }
pre { background: #f6f6f6; border: 1px solid #dddddd; padding: 0.6rem 0.8rem; overflow-x: auto; }
table { border-collapse: collapse; margin: 1rem 0; font-variant-numeric: tabular-nums; }
caption { caption-side: bottom; text-align: left; color: #555555; font-size: 0.9rem;
          padding-top: 0.3rem; }
th, td { border: 1px solid #cccccc; padding: 0.25rem 0.6rem; text-align: left; }
th { background: #f2f2f2; }
th.num, td.num { text-align: right; }
td.num { white-space: nowrap; }
figure { margin: 1.5rem 0; max-width: 100%; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { color: #555555; font-size: 0.9rem; margin-top: 0.3rem; }
)";

// Whether a cell's text, without surrounding spaces and one leading '+', is a number.
bool isNumber(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return false;
  text = text.substr(first, text.find_last_not_of(" \t") - first + 1);
  if (text.size() > 1 && text.front() == '+') text.remove_prefix(1);
  double value = 0.0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

// `<tag class="num">text</tag>` or `<tag>text</tag>`, the text escaped.
std::string cell(std::string_view tag, const std::string& text, bool numeric) {
  std::string out = "<" + std::string(tag) + (numeric ? " class=\"num\">" : ">");
  return out + escapeXml(text) + "</" + std::string(tag) + ">";
}

}  // namespace

HtmlReport::HtmlReport(std::string title) : title_(std::move(title)) {}

void HtmlReport::addHeading(const std::string& text, int level) {
  if (level < 2 || level > 4) {
    throw std::invalid_argument("HtmlReport::addHeading: level " + std::to_string(level) +
                                " of heading '" + text + "' is not 2, 3 or 4");
  }
  const std::string tag = "h" + std::to_string(level);
  body_ += "<" + tag + ">" + escapeXml(text) + "</" + tag + ">\n";
}

void HtmlReport::addParagraph(const std::string& text) {
  body_ += "<p>" + escapeXml(text) + "</p>\n";
}

void HtmlReport::addPreformatted(const std::string& text) {
  body_ += "<pre>" + escapeXml(text) + "</pre>\n";
}

void HtmlReport::addEmbeddedPage(const std::string& page, const std::string& title, int height) {
  // Line breaks as character references: an attribute's own would become spaces in XML.
  std::string escaped;
  for (const char c : escapeXml(page)) {
    if (c == '\n') {
      escaped += "&#10;";
    } else if (c == '\r') {
      escaped += "&#13;";
    } else {
      escaped += c;
    }
  }
  body_ += "<iframe title=\"" + escapeXml(title) +
           "\" style=\"width: 100%; height: " + std::to_string(height) +
           "px; border: 1px solid #cccccc;\" srcdoc=\"" + escaped + "\"></iframe>\n";
}

void HtmlReport::addFileLinks(const std::vector<std::string>& names) {
  body_ += "<ul class=\"files\">\n";
  for (const std::string& name : names) {
    // Letters, digits and -._~/ as they are; every other byte percent-encoded.
    std::string href;
    for (unsigned char c : name) {
      if (std::isalnum(c) || std::strchr("-._~/", c) != nullptr) {
        href += static_cast<char>(c);
      } else {
        static const char* const kHex = "0123456789ABCDEF";
        href += '%';
        href += kHex[c >> 4];
        href += kHex[c & 15];
      }
    }
    body_ += "<li><a href=\"" + escapeXml(href) + "\">" + escapeXml(name) + "</a></li>\n";
  }
  body_ += "</ul>\n";
}

void HtmlReport::addTable(const Table& table, const std::string& caption) {
  // Check the shape before anything is appended
  if (table.header.empty()) {
    throw std::invalid_argument("HtmlReport::addTable: table '" + caption + "' has no columns");
  }
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    if (table.rows[r].size() != table.header.size()) {
      throw std::invalid_argument("HtmlReport::addTable: row " + std::to_string(r) + " of table '" +
                                  caption + "' has " + std::to_string(table.rows[r].size()) +
                                  " cells, the header " + std::to_string(table.header.size()));
    }
  }
  // A column is numeric if it has rows and all its cells are numbers
  std::vector<bool> numericColumn(table.header.size(), !table.rows.empty());
  for (const auto& row : table.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (!isNumber(row[c])) numericColumn[c] = false;
    }
  }
  std::string out = "<table>\n";
  if (!caption.empty()) out += "<caption>" + escapeXml(caption) + "</caption>\n";
  out += "<thead><tr>";
  for (std::size_t c = 0; c < table.header.size(); ++c) {
    out += cell("th", table.header[c], numericColumn[c]);
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (const std::string& text : row) out += cell("td", text, isNumber(text));
    out += "</tr>\n";
  }
  body_ += out + "</tbody>\n</table>\n";
}

void HtmlReport::addFigure(const Plot& plot, const std::string& caption) {
  const std::string svg = renderSvg(plot);
  body_ += "<figure>\n" + svg;
  if (!caption.empty()) body_ += "<figcaption>" + escapeXml(caption) + "</figcaption>\n";
  body_ += "</figure>\n";
}

std::string HtmlReport::html() const {
  const std::string title = escapeXml(title_);
  return "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
         "<meta charset=\"utf-8\"/>\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
         "<title>" +
         title + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<main>\n<h1>" + title +
         "</h1>\n" + body_ + "</main>\n</body>\n</html>\n";
}

void HtmlReport::write(const std::string& path) const {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  const std::string text = html();
  file.write(text.data(), static_cast<std::streamsize>(text.size()));
  file.close();
  if (!file) throw std::runtime_error("HtmlReport::write: cannot write '" + path + "'");
}

}  // namespace gcbridge::compare
