#pragma once
/// @file
/// The demos' --html: runs of one model (run_frames.hpp) as a viewer recording.

#include <algorithm>
#include <string>
#include <vector>

#include "gcbridge/viewer/html_viewer.hpp"
#include "gcbridge/viewer/recorder.hpp"
#include "run_frames.hpp"

namespace gcbridge::demo {

/// A run under the name its track takes in the viewer.
struct NamedRun {
  std::string name;
  const RunFrames* frames = nullptr;
};

/// The recording of `runs` of the model `runs.front().frames->model` (non-empty runs, frames at the
/// same times from t = 0, as runs of one substep give): the reference as a ghost (the longest
/// run's, when the runs followed a trajectory), each run's bodies as a solid track under its name
/// and, with `read_q`, the model at each run's read q as a ghost ("NAME: model at q"). A run
/// shorter than the longest (it diverged) stays at its last frame.
inline viewer::Recorder recordRuns(const std::vector<NamedRun>& runs, bool read_q = false) {
  using viewer::TrackStyle;
  const RunFrames& longest =
      *std::max_element(runs.begin(), runs.end(), [](const NamedRun& a, const NamedRun& b) {
         return a.frames->times.size() < b.frames->times.size();
       })->frames;
  viewer::Recorder recorder(runs.front().frames->model, longest.rate_hz);
  const int reference =
      longest.reference.empty() ? -1 : recorder.addTrack("reference", TrackStyle::Ghost);
  std::vector<int> bodies, model_at_q;
  for (const NamedRun& run : runs) {
    bodies.push_back(recorder.addTrack(run.name, TrackStyle::Solid));
    if (read_q) {
      model_at_q.push_back(recorder.addTrack(run.name + ": model at q", TrackStyle::Ghost));
    }
  }
  for (std::size_t i = 0; i < longest.times.size(); ++i) {
    recorder.beginFrame(longest.times[i]);
    if (reference >= 0) recorder.setConfiguration(reference, longest.reference[i]);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const RunFrames& frames = *runs[r].frames;
      if (i >= frames.times.size()) continue;
      recorder.setLinkPoses(bodies[r], frames.bodies[i]);
      if (read_q) recorder.setConfiguration(model_at_q[r], frames.q[i]);
    }
  }
  return recorder;
}

/// Writes recordRuns(runs) to `path` as a viewer page titled `title`.
/// @throws gcbridge::Error naming the path when it cannot be written.
inline void writeRunsViewer(const std::string& path, const std::string& title,
                            const std::vector<NamedRun>& runs) {
  viewer::ViewerOptions options;
  options.title = title;
  viewer::writeViewer(path, recordRuns(runs), options);
}

}  // namespace gcbridge::demo
