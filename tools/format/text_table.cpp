#include "format/text_table.hpp"

#include <algorithm>
#include <utility>

namespace gcbridge::format {

Table::Table(std::vector<std::string> headers, std::vector<bool> right_aligned)
    : headers_(std::move(headers)), right_aligned_(std::move(right_aligned)) {}

void Table::addRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

void Table::print(std::ostream& out, const std::string& indent) const {
  std::vector<size_t> widths(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) {
    widths[c] = headers_[c].size();
    for (const auto& row : rows_) widths[c] = std::max(widths[c], row[c].size());
  }
  printLine(out, headers_, widths, indent);
  for (const auto& row : rows_) printLine(out, row, widths, indent);
}

void Table::printLine(std::ostream& out, const std::vector<std::string>& cells,
                      const std::vector<size_t>& widths, const std::string& indent) const {
  std::string line = indent;
  for (size_t c = 0; c < cells.size(); ++c) {
    const std::string pad(widths[c] - cells[c].size(), ' ');
    line += (c > 0 ? "  " : "") + (right_aligned_[c] ? pad + cells[c] : cells[c] + pad);
  }
  line.erase(line.find_last_not_of(' ') + 1);
  out << line << '\n';
}

}  // namespace gcbridge::format
