#pragma once
/// @file
/// A progress bar on a terminal: "[#########.....................]  30%  what it is doing",
/// redrawn in place, erased when done.

#include <ostream>
#include <string>

namespace gcbridge::format {

/// A progress bar on `err` (a terminal: it redraws with carriage returns and erases with ANSI
/// "erase to end of line"), redrawn only when the percentage or the label changes.
class ProgressBar {
 public:
  explicit ProgressBar(std::ostream& err) : err_(err) {}
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Shows `fraction` (0 to 1) done of `what`.
  void update(double fraction, const std::string& what);
  /// Erases the bar (if drawn), leaving the line empty for what comes next.
  void finish();

 private:
  std::ostream& err_;
  int percent_ = -1;
  std::string what_;
  bool drawn_ = false;
};

}  // namespace gcbridge::format
