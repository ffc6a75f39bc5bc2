#include "format/progress_bar.hpp"

#include <algorithm>

namespace gcbridge::format {

void ProgressBar::update(double fraction, const std::string& what) {
  const int percent = static_cast<int>(100.0 * std::clamp(fraction, 0.0, 1.0));
  if (percent == percent_ && what == what_) return;
  percent_ = percent;
  what_ = what;
  constexpr int kWidth = 30;
  const int filled = kWidth * percent / 100;
  const char* pad = percent < 10 ? "  " : percent < 100 ? " " : "";
  err_ << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] " << pad
       << percent << "%  " << what << "\033[K" << std::flush;
  drawn_ = true;
}

void ProgressBar::finish() {
  if (drawn_) err_ << "\r\033[K" << std::flush;
  drawn_ = false;
  percent_ = -1;
}

}  // namespace gcbridge::format
