#include "gcbridge/viewer/html_viewer.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/joint.hpp"

namespace gcbridge::viewer {
namespace detail {
// The JavaScript the page runs (cmake/embed_text.cmake): three.js r111 and its orbit controls
// from Debian's libjs-three, and the viewer (viewer/src/viewer.js).
extern const char* const kThreeJs;
extern const char* const kOrbitControlsJs;
extern const char* const kViewerJs;
}  // namespace detail

namespace {

/// `x` with 7 significant digits, the shortest form (JSON has no NaN: callers pass finite x).
void number(std::string& out, double x) {
  char buffer[32];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::general, 7);
  out.append(buffer, result.ptr);
}

/// A JSON string: quotes, backslashes and control characters escaped, and "</" as "<\/" so that
/// no text closes the page's script element.
void jsonString(std::string& out, const std::string& text) {
  out += '"';
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '/' && i > 0 && text[i - 1] == '<') {
      out += "\\/";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  out += '"';
}

/// [x, y, z, qx, qy, qz, qw] of a pose, appended without brackets.
void pose(std::string& out, const Transform& X) {
  const Eigen::Quaterniond r(X.rotation());
  const double values[7] = {
      X.translation().x(), X.translation().y(), X.translation().z(), r.x(), r.y(), r.z(), r.w()};
  for (int i = 0; i < 7; ++i) {
    if (i > 0) out += ',';
    number(out, values[i]);
  }
}

void jsonArray(std::string& out, const Eigen::Ref<const Eigen::VectorXd>& v) {
  out += '[';
  for (int i = 0; i < v.size(); ++i) {
    if (i > 0) out += ',';
    number(out, v(i));
  }
  out += ']';
}

/// How the viewer checks a joint for separation: the child's origin against the joint's point
/// (revolute, ball, fixed), against its axis (prismatic), or not at all (free, planar).
const char* separationCheck(const Joint& joint) {
  switch (joint.type) {
    case JointType::Prismatic:
      return "axis";
    case JointType::Free:
    case JointType::Planar:
      return "none";
    default:
      return "point";
  }
}

/// "links": per model link its name, parent, joint frame and shapes.
void links(std::string& out, const Model& model, const SceneGeometry& geometry) {
  out += "\"links\":[";
  for (int k = 0; k < model.numLinks(); ++k) {
    if (k > 0) out += ',';
    const Joint& joint = model.joints[k];
    out += "{\"name\":";
    jsonString(out, model.link_names[k]);
    out += ",\"parent\":" + std::to_string(model.parents[k]) + ",\"X_PJ\":[";
    pose(out, joint.X_PJ);
    out += "],\"check\":\"" + std::string(separationCheck(joint)) + "\",\"axis\":";
    jsonArray(out, joint.axis);
    out += ",\"shapes\":[";
    for (std::size_t s = 0; s < geometry.links[k].size(); ++s) {
      const Shape& shape = geometry.links[k][s];
      if (s > 0) out += ',';
      out += "{\"type\":\"" + std::string(toString(shape.type)) + "\",\"size\":";
      jsonArray(out, shape.size);
      out += ",\"pose\":[";
      pose(out, shape.X_LS);
      out += "],\"rgba\":";
      jsonArray(out, shape.rgba);
      out += ",\"mesh\":" + std::to_string(shape.mesh) + '}';
    }
    out += "]}";
  }
  out += ']';
}

/// "meshes": each mesh's flat vertex and index arrays.
void meshes(std::string& out, const SceneGeometry& geometry) {
  out += "\"meshes\":[";
  for (std::size_t m = 0; m < geometry.meshes.size(); ++m) {
    const TriangleMesh& mesh = geometry.meshes[m];
    out += m > 0 ? ",{\"v\":[" : "{\"v\":[";
    for (std::size_t i = 0; i < mesh.vertices.size(); ++i) {
      for (int c = 0; c < 3; ++c) {
        if (i > 0 || c > 0) out += ',';
        number(out, mesh.vertices[i](c));
      }
    }
    out += "],\"t\":[";
    for (std::size_t i = 0; i < mesh.triangles.size(); ++i) {
      for (int c = 0; c < 3; ++c) {
        if (i > 0 || c > 0) out += ',';
        out += std::to_string(mesh.triangles[i](c));
      }
    }
    out += "]}";
  }
  out += ']';
}

/// "times" and "tracks": every frame's link poses, per track.
void recording(std::string& out, const Recorder& recorder) {
  out += "\"times\":";
  jsonArray(out, Eigen::Map<const Eigen::VectorXd>(
                     recorder.times().data(), static_cast<Eigen::Index>(recorder.times().size())));
  out += ",\"tracks\":[";
  for (std::size_t t = 0; t < recorder.tracks().size(); ++t) {
    const Track& track = recorder.tracks()[t];
    if (t > 0) out += ',';
    out += "{\"name\":";
    jsonString(out, track.name);
    out += std::string(",\"style\":\"") + (track.style == TrackStyle::Ghost ? "ghost" : "solid") +
           "\",\"frames\":[";
    for (std::size_t f = 0; f < track.frames.size(); ++f) {
      out += f > 0 ? ",[" : "[";
      for (std::size_t k = 0; k < track.frames[f].size(); ++k) {
        if (k > 0) out += ',';
        pose(out, track.frames[f][k]);
      }
      out += ']';
    }
    out += "]}";
  }
  out += ']';
}

/// The scene's size [m]: the first frames' spread of link origins in the page, at least 0.2 m.
double sceneSize(const std::vector<PageModel>& models) {
  Vector3 lower = Vector3::Constant(INFINITY), upper = Vector3::Constant(-INFINITY);
  for (const PageModel& entry : models) {
    for (const Track& track : entry.recording->tracks()) {
      for (const Transform& X_WL : track.frames.front()) {
        const Vector3 p_P = entry.X_PW.actPoint(X_WL.translation());
        lower = lower.cwiseMin(p_P);
        upper = upper.cwiseMax(p_P);
      }
    }
  }
  return std::max(0.2, (upper - lower).norm());
}

/// One model of "models": its name, placement, links, meshes and recording.
void pageModel(std::string& out, const PageModel& entry, const ViewerOptions& options) {
  const Model& model = entry.recording->model();
  const SceneGeometry geometry = exportGeometry(model, options.geometry, options.triangle_budget);
  out += "{\"name\":";
  jsonString(out, model.name);
  out += ",\"X_PW\":[";
  pose(out, entry.X_PW);
  out += "],";
  links(out, model, geometry);
  out += ',';
  meshes(out, geometry);
  out += ',';
  recording(out, *entry.recording);
  out += '}';
}

/// The page's data: window.GCBRIDGE_DATA = {...}.
std::string pageData(const std::vector<PageModel>& models, const ViewerOptions& options) {
  const Model& first = models.front().recording->model();
  const Vector3 up_W = first.gravity_W.norm() > 0 ? Vector3(-first.gravity_W.normalized())
                                                  : Vector3(Vector3::UnitZ());
  std::string out = "window.GCBRIDGE_DATA={\"up\":";
  jsonArray(out, models.front().X_PW.rotation() * up_W);
  out += ",\"jointFrames\":";
  out += options.joint_frames ? "true" : "false";
  out += ",\"axesSize\":";
  number(out, 0.08 * sceneSize(models));
  out += ",\"separation\":";
  number(out, options.separation_threshold);
  out += ",\"models\":[";
  for (std::size_t m = 0; m < models.size(); ++m) {
    if (m > 0) out += ',';
    pageModel(out, models[m], options);
  }
  out += "]};\n";
  return out;
}

/// @throws InvalidArgumentError for no model, a missing recording or one without frames or
///   tracks, a placement that is not finite, or a negative separation threshold.
void checkPage(const std::vector<PageModel>& models, const ViewerOptions& options) {
  if (models.empty()) throw InvalidArgumentError("viewerHtml: no model to show");
  for (std::size_t m = 0; m < models.size(); ++m) {
    const Recorder* recorder = models[m].recording;
    const std::string which = "viewerHtml: model " + std::to_string(m);
    if (recorder == nullptr) throw InvalidArgumentError(which + " has no recording");
    const std::string named = which + " ('" + recorder->model().name + "')";
    if (recorder->times().empty() || recorder->tracks().empty()) {
      throw InvalidArgumentError(named + ": the recording has no " +
                                 (recorder->tracks().empty() ? "track" : "frame"));
    }
    if (!models[m].X_PW.rotation().allFinite() || !models[m].X_PW.translation().allFinite()) {
      throw InvalidArgumentError(named + ": its placement is not finite");
    }
  }
  if (!(options.separation_threshold >= 0.0)) {
    throw InvalidArgumentError("viewerHtml: the separation threshold must be >= 0");
  }
}

/// three.js's licence, which its copies must carry.
constexpr const char* kThreeLicence = R"(<!--
three.js r111 and its OrbitControls: Copyright (c) 2010-2019 three.js authors. The MIT License.
Permission is hereby granted, free of charge, to any person obtaining a copy of this software
and associated documentation files (the "Software"), to deal in the Software without
restriction, including without limitation the rights to use, copy, modify, merge, publish,
distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
Software is furnished to do so, subject to the following conditions: The above copyright notice
and this permission notice shall be included in all copies or substantial portions of the
Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,
INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE
AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
-->
)";

constexpr const char* kStyle = R"(
html, body { margin: 0; height: 100%; font-family: system-ui, sans-serif; font-size: 14px;
             color: #222222; background: #f4f5f7; }
#view { position: absolute; inset: 0 0 56px 0; }
#view canvas { display: block; width: 100%; height: 100%; }
#bar { position: absolute; left: 0; right: 0; bottom: 0; height: 56px; display: flex;
       align-items: center; gap: 10px; padding: 0 12px; background: #ffffff;
       border-top: 1px solid #d8d9dd; box-sizing: border-box; }
#slider { flex: 1; }
#time { font-variant-numeric: tabular-nums; min-width: 7em; }
#legend { position: absolute; top: 10px; left: 10px; background: rgba(255, 255, 255, 0.9);
          border: 1px solid #d8d9dd; border-radius: 4px; padding: 6px 10px; }
#legend h1 { font-size: 14px; margin: 0 0 4px 0; }
#legend h2 { font-size: 13px; margin: 6px 0 2px 0; }
#legend label { display: flex; align-items: center; gap: 6px; }
.swatch { display: inline-block; width: 14px; height: 14px; border-radius: 2px; }
)";

/// The HTML around the data and the scripts.
std::string escapedText(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string viewerHtml(const Recorder& recording, const ViewerOptions& options) {
  return viewerHtml(std::vector<PageModel>{{&recording}}, options);
}

std::string viewerHtml(const std::vector<PageModel>& models, const ViewerOptions& options) {
  checkPage(models, options);
  const std::string title = escapedText(options.title);
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>" + title +
      "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  page += "<div id=\"view\"></div>\n<div id=\"legend\"><h1>" + title + "</h1></div>\n";
  page +=
      "<div id=\"bar\"><button id=\"back\" title=\"previous frame\">&#9664;</button>"
      "<button id=\"play\">play</button><button id=\"forward\" title=\"next frame\">&#9654;"
      "</button><select id=\"speed\"><option value=\"0.25\">0.25x</option><option value=\"0.5\">"
      "0.5x</option><option value=\"1\" selected=\"selected\">1x</option><option value=\"2\">2x"
      "</option></select><input id=\"slider\" type=\"range\" min=\"0\" max=\"0\" value=\"0\"/>"
      "<span id=\"time\"></span><label><input id=\"follow\" type=\"checkbox\"/>follow the root"
      "</label><button id=\"reset\">reset view</button></div>\n";
  page += kThreeLicence;
  page += "<script>" + std::string(detail::kThreeJs) + "</script>\n";
  page += "<script>" + std::string(detail::kOrbitControlsJs) + "</script>\n";
  page += "<script>" + pageData(models, options) + "</script>\n";
  page += "<script>" + std::string(detail::kViewerJs) + "</script>\n</body>\n</html>\n";
  return page;
}

void writeViewer(const std::string& path, const Recorder& recording, const ViewerOptions& options) {
  writeViewer(path, std::vector<PageModel>{{&recording}}, options);
}

void writeViewer(const std::string& path, const std::vector<PageModel>& models,
                 const ViewerOptions& options) {
  const std::string page = viewerHtml(models, options);
  const std::string partial = path + ".partial";
  {
    std::ofstream file(partial, std::ios::binary | std::ios::trunc);
    file.write(page.data(), static_cast<std::streamsize>(page.size()));
    if (!file) {
      std::remove(partial.c_str());
      throw Error("'" + path + "': cannot write the viewer");
    }
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    std::remove(partial.c_str());
    throw Error("'" + path + "': cannot write the viewer");
  }
}

}  // namespace gcbridge::viewer
