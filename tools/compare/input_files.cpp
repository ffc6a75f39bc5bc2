#include "compare/input_files.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge::compare {
namespace {

/// The rows of a CSV time series (file comment): times and the values after each.
struct TimeRows {
  std::vector<double> t;
  std::vector<Eigen::VectorXd> values;
  std::vector<int> lines;  ///< each row's line number in the file
};

/// The numbers of one line, or nothing when a cell is not a number (every comma separates a
/// cell, also a trailing one).
bool parseRow(const std::string& line, std::vector<double>& values) {
  values.clear();
  bool numbers = true;
  size_t start = 0;
  for (;;) {
    const size_t comma = line.find(',', start);
    const std::string cell = line.substr(start, comma == std::string::npos ? comma : comma - start);
    try {
      size_t used = 0;
      values.push_back(std::stod(cell, &used));
      if (cell.find_first_not_of(" \t\r", used) != std::string::npos) numbers = false;
    } catch (const std::exception&) {
      numbers = false;
    }
    if (comma == std::string::npos) return numbers;
    start = comma + 1;
  }
}

/// Reads rows `t,x_1,...,x_width`; `what` names the file in messages ("the torque file") and
/// `columns` the values after t ("nv = 7 generalized forces").
/// @throws InvalidArgumentError naming the file and line (readTorqueSequence).
TimeRows readTimeRows(const std::string& path, int width, const std::string& what,
                      const std::string& columns) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw InvalidArgumentError(what + " '" + path + "' is a directory, not a CSV file");
  }
  std::ifstream file(path);
  if (!file) throw InvalidArgumentError("cannot read " + what + " '" + path + "'");
  TimeRows rows;
  std::string line;
  std::vector<double> values;
  int line_number = 0;
  bool header_seen = false;
  while (std::getline(file, line)) {
    ++line_number;
    const std::string where = path + ":" + std::to_string(line_number) + ": ";
    if (line.empty() || line[0] == '#' || line.find_first_not_of(" \t\r") == std::string::npos) {
      continue;
    }
    // A row that does not parse before any row that does is the header.
    if (!parseRow(line, values)) {
      if (rows.t.empty() && !header_seen) {
        header_seen = true;
        continue;
      }
      throw InvalidArgumentError(where + "'" + line + "' is not a row of numbers");
    }
    if (static_cast<int>(values.size()) != 1 + width) {
      throw InvalidArgumentError(where + std::to_string(values.size()) +
                                 " values, expected t and " + columns);
    }
    for (double x : values) {
      if (!std::isfinite(x)) throw InvalidArgumentError(where + "a value is not finite");
    }
    if (values[0] < 0.0 || (!rows.t.empty() && values[0] <= rows.t.back())) {
      throw InvalidArgumentError(where + "the times must be >= 0 and increasing");
    }
    rows.t.push_back(values[0]);
    rows.values.push_back(Eigen::Map<const Eigen::VectorXd>(values.data() + 1, width));
    rows.lines.push_back(line_number);
  }
  if (rows.t.empty()) throw InvalidArgumentError(what + " '" + path + "' has no rows");
  return rows;
}

/// Waypoints must lie at least this far apart in time [s]: closer ones make the spline's
/// accelerations blow up.
constexpr double kMinWaypointSpacing = 1e-6;
/// The largest turn of a ball or free joint from the first waypoint [rad]: the spline
/// interpolates about it, and a turn through pi would take the other way round.
constexpr double kMaxTurn = 0.9 * M_PI;

/// @throws InvalidArgumentError when a ball or free joint of q turns more than kMaxTurn from
///   q_first (`where` starts the message).
void checkTurn(const Model& model, const Eigen::VectorXd& q_first, const Eigen::VectorXd& q,
               const std::string& where) {
  const Eigen::VectorXd delta = difference(model, q_first, q);
  for (const Joint& joint : model.joints) {
    if (joint.type != JointType::Ball && joint.type != JointType::Free) continue;
    const double turn = delta.segment<3>(joint.idx_v).norm();
    if (turn > kMaxTurn) {
      std::ostringstream message;
      message << where << "joint '" << joint.name << "' is turned " << turn
              << " rad from the first waypoint; waypoints are interpolated about the first one "
                 "and must stay within 0.9 pi rad of it (split a longer turn into several files)";
      throw InvalidArgumentError(message.str());
    }
  }
}

}  // namespace

void TorqueSequence::evaluate(double time, Eigen::VectorXd& out) const {
  if (time <= t.front()) {
    out = tau.front();
    return;
  }
  if (time >= t.back()) {
    out = tau.back();
    return;
  }
  // The interval [t_k, t_k+1] holding `time`, then linear interpolation.
  const size_t k = static_cast<size_t>(std::upper_bound(t.begin(), t.end(), time) - t.begin()) - 1;
  const double s = (time - t[k]) / (t[k + 1] - t[k]);
  out = (1.0 - s) * tau[k] + s * tau[k + 1];
}

TorqueSequence readTorqueSequence(const std::string& path, int nv) {
  TimeRows rows = readTimeRows(path, nv, "the torque file",
                               "nv = " + std::to_string(nv) + " generalized forces");
  TorqueSequence sequence;
  sequence.t = std::move(rows.t);
  sequence.tau = std::move(rows.values);
  sequence.source = path;
  return sequence;
}

WaypointReference readWaypoints(const std::string& path, const Model& model) {
  TimeRows rows = readTimeRows(path, model.nq, "the trajectory file",
                               "nq = " + std::to_string(model.nq) + " configuration values");
  for (size_t k = 0; k < rows.values.size(); ++k) {
    const std::string where = path + ":" + std::to_string(rows.lines[k]) + ": ";
    try {
      validateConfiguration(model, rows.values[k]);
    } catch (const InvalidArgumentError& e) {
      throw InvalidArgumentError(where + e.what());
    }
    normalizeConfiguration(model, rows.values[k]);
    if (k > 0 && rows.t[k] - rows.t[k - 1] < kMinWaypointSpacing) {
      throw InvalidArgumentError(where + "waypoints closer than 1 us in time");
    }
    checkTurn(model, rows.values.front(), rows.values[k], where);
  }
  WaypointReference reference;
  reference.waypoints = static_cast<int>(rows.t.size());
  reference.end = rows.t.back();
  // One waypoint: that pose held (a spline through it twice, at rest).
  if (rows.t.size() == 1) {
    rows.t = {0.0, rows.t[0] + 1.0};
    rows.values.push_back(rows.values[0]);
  }
  reference.trajectory = std::make_shared<const CubicSpline>(model, rows.t, rows.values);
  return reference;
}

}  // namespace gcbridge::compare
