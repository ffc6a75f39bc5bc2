#pragma once
/// @file
/// The self-contained HTML report of `gcbridge compare`: headings, text, tables and inline SVG
/// figures in one file with inline CSS, no scripts and nothing fetched from elsewhere. The page is
/// XHTML-style (every element closed, attributes quoted), so it is well-formed XML as a whole.

#include <string>
#include <vector>

#include "compare/plot.hpp"

namespace gcbridge::compare {

/// A table of text cells; cells that parse as a number are right-aligned in the report.
struct Table {
  std::vector<std::string> header;             ///< column titles
  std::vector<std::vector<std::string>> rows;  ///< each row has header.size() cells
};

/// A report built block by block, in order, under a title.
class HtmlReport {
 public:
  /// @param[in] title page title and top heading (h1); escaped.
  explicit HtmlReport(std::string title);

  /// Appends a section heading (h2 for level 2 .. h4 for level 4); the text is escaped.
  /// @throws std::invalid_argument if level is not 2, 3 or 4.
  void addHeading(const std::string& text, int level = 2);

  /// Appends a paragraph of plain text (escaped; line breaks are rendered as spaces).
  void addParagraph(const std::string& text);

  /// Appends preformatted text in `<pre>` (escaped; spacing and line breaks kept), e.g. the
  /// command line that produced the report.
  void addPreformatted(const std::string& text);

  /// Appends another whole page inside this one (an iframe holding it in its srcdoc, escaped, so
  /// the report stays one file), `height` pixels high, with a title for screen readers.
  void addEmbeddedPage(const std::string& page, const std::string& title, int height);

  /// Appends a list of links to files beside the report, each shown by its name (relative
  /// paths; escaped, and percent-encoded in the link where a name needs it).
  void addFileLinks(const std::vector<std::string>& names);

  /// Appends a table with an optional caption (omitted if empty). A cell whose text, without
  /// surrounding spaces, parses as a number (e.g. "-1.5e-3", "+2", "nan", "inf") gets
  /// class="num" and is right-aligned; so is the header of a column of only such cells.
  /// @throws std::invalid_argument if the header is empty or a row's size differs from it
  ///   (the message names the row); the report is then unchanged.
  void addTable(const Table& table, const std::string& caption = "");

  /// Appends a `<figure>` holding renderSvg(plot) inline and a `<figcaption>` with the caption
  /// (omitted if empty).
  /// @throws std::invalid_argument as renderSvg does; the report is then unchanged.
  void addFigure(const Plot& plot, const std::string& caption = "");

  /// The whole document: `<!DOCTYPE html>`, then `<html xmlns="http://www.w3.org/1999/xhtml">`
  /// with a head (`<meta charset="utf-8"/>`, title, inline CSS) and the body with every block.
  std::string html() const;

  /// Writes html() to a file (UTF-8), replacing it if it exists.
  /// @throws std::runtime_error naming the path if the file cannot be opened or written.
  void write(const std::string& path) const;

 private:
  std::string title_;
  std::string body_;  // XHTML of the blocks added so far
};

}  // namespace gcbridge::compare
