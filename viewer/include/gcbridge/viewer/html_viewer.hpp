#pragma once
/// @file
/// The offline 3D viewer: one self-contained HTML file (three.js and its orbit controls inlined,
/// the scene and the recording as data; no network, no server) that plays a recording of a model.
/// three.js comes from Debian's libjs-three (r111, MIT licence) and is compiled into the library,
/// so that an installed gcbridge writes viewers without any file beside it.
///
/// The page: the links drawn from their shapes (scene_geometry.hpp) with lighting and shadows, a
/// ground plane normal to gravity and the world axes; one group per track, toggled in a legend
/// (solid tracks opaque, ghosts translucent); where a solid track's child link is off its joint
/// by more than `separation_threshold`, a red segment from where the parent puts the joint to
/// where the child is; play/pause, speed, a timeline slider, frame steps, the time; orbit, pan and
/// zoom, "follow the root" and a reset button. The URL fragment #t=SECONDS opens it paused at
/// that instant (#t=SECONDS&hide=1 with every track hidden: the bare scene, for comparisons). When
/// it has drawn, the body element's data-status is "ready" (or "error: ..." on a script error), for
/// tests.
///
/// A page may hold several models, each with its own recording, placed in the page's frame (two
/// humanoids side by side, say): the timeline runs over all their frames' times, and each model
/// shows its frame at the time shown.

#include <string>
#include <vector>

#include "gcbridge/viewer/recorder.hpp"
#include "gcbridge/viewer/scene_geometry.hpp"

namespace gcbridge::viewer {

/// How the page looks.
struct ViewerOptions {
  std::string title = "gcbridge viewer";
  GeometrySet geometry = GeometrySet::Visual;  ///< the links' visuals or collisions
  int triangle_budget = 100000;                ///< all meshes together (exportGeometry)
  bool joint_frames = false;           ///< draw each joint's frame (axes) and the links' names
  double separation_threshold = 1e-3;  ///< [m] (file comment)
};

/// One model of a page: its recording (which must outlive the call) and where its world frame W
/// sits in the page's frame P. The page's up is the first model's (against its gravity).
struct PageModel {
  const Recorder* recording = nullptr;
  Transform X_PW = Transform::Identity();
};

/// The page (file comment) for `recording`'s model and tracks.
/// @throws InvalidArgumentError for a recording without frames or tracks, or bad options;
///   as exportGeometry.
std::string viewerHtml(const Recorder& recording, const ViewerOptions& options = {});
/// The page of several models (file comment), in the legend under their models' names.
/// @throws InvalidArgumentError for no model, a missing recording or one without frames or
///   tracks, a placement that is not finite, or bad options; as exportGeometry.
std::string viewerHtml(const std::vector<PageModel>& models, const ViewerOptions& options = {});

/// Writes viewerHtml to `path`, whole or not at all.
/// @throws Error naming the path when it cannot be written; as viewerHtml.
void writeViewer(const std::string& path, const Recorder& recording,
                 const ViewerOptions& options = {});
void writeViewer(const std::string& path, const std::vector<PageModel>& models,
                 const ViewerOptions& options = {});

}  // namespace gcbridge::viewer
