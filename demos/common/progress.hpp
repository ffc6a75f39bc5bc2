#pragma once
/// @file
/// How far a demo's run is, for a progress bar on a terminal: a run reports the fraction of its
/// substeps done about a hundred times; a run nobody watches (tests, logs) gets no callback.

#include <algorithm>
#include <functional>

namespace gcbridge::demo {

/// Called with the fraction (0 to 1) of a run's substeps done; empty: nobody asks.
using ProgressCallback = std::function<void(double fraction)>;

/// Reports `step` of `steps` done, every 1 % of the run.
inline void reportProgress(const ProgressCallback& progress, int step, int steps) {
  if (progress && step % std::max(1, steps / 100) == 0) {
    progress(static_cast<double>(step) / steps);
  }
}

}  // namespace gcbridge::demo
