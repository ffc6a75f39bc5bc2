#pragma once
/// @file
/// A text table for terminals: columns sized to their widest cell.

#include <ostream>
#include <string>
#include <vector>

namespace gcbridge::format {

/// A text table with columns sized to their widest cell; numeric columns are right-aligned.
class Table {
 public:
  Table(std::vector<std::string> headers, std::vector<bool> right_aligned);
  /// Appends a row of one cell per header.
  void addRow(std::vector<std::string> cells);
  /// Writes the header and the rows, each line starting with `indent`, the cells two spaces
  /// apart, without trailing spaces.
  void print(std::ostream& out, const std::string& indent = "  ") const;

 private:
  void printLine(std::ostream& out, const std::vector<std::string>& cells,
                 const std::vector<size_t>& widths, const std::string& indent) const;

  std::vector<std::string> headers_;
  std::vector<bool> right_aligned_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace gcbridge::format
