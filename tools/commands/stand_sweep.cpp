// gcbridge stand --push-sweep: the largest push a standing robot survives in 8 directions, against
// the capture-point bound without a step (Pratt, Carff, Drakunov & Goswami 2006).

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "commands/stand.hpp"
#include "format/json_writer.hpp"
#include "format/numbers.hpp"
#include "format/text_table.hpp"

namespace gcbridge::commands {
namespace {

constexpr double kPushTime = 1.0;  ///< when the push comes [s]
constexpr double kRecovery = 3.0;  ///< how long after it the robot must stay up [s]
constexpr double kMaxSpeed = 4.0;  ///< the largest push tried [m/s]
constexpr int kBisections = 7;     ///< the survived speed to kMaxSpeed / 2^7 = 0.03 m/s
constexpr int kDirections = 8;

/// How far from c the convex polygon's edge is along the unit vector u (corners
/// counter-clockwise) [m]; 0 for c outside it or a polygon of fewer than 3 corners.
double distanceToEdge(const std::vector<Eigen::Vector2d>& polygon, const Eigen::Vector2d& c,
                      const Eigen::Vector2d& u) {
  if (polygon.size() < 3) return 0.0;
  double d = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < polygon.size(); ++i) {
    const Eigen::Vector2d& a = polygon[i];
    const Eigen::Vector2d edge = polygon[(i + 1) % polygon.size()] - a;
    // Counter-clockwise: the outward normal is on the edge's right.
    const Eigen::Vector2d outward(edge.y(), -edge.x());
    const double along = outward.dot(u);
    if (along > 0.0) d = std::min(d, outward.dot(a - c) / along);
  }
  return std::max(0.0, d);
}

/// Whether the robot stays up kRecovery seconds after a push of `speed` along `direction`.
bool survives(const Model& model, const Eigen::VectorXd& q0, const StandRequest& request,
              double speed, double direction) {
  const StandResult run =
      standOnce(model, q0, request, {{kPushTime, speed, direction}}, kPushTime + kRecovery);
  return !run.fell_at.has_value();
}

/// The largest push survived along `direction` [m/s], by bisection over [0, kMaxSpeed] (taking
/// survival to hold below a push it survives).
double largestSurvived(const Model& model, const Eigen::VectorXd& q0, const StandRequest& request,
                       double direction) {
  if (survives(model, q0, request, kMaxSpeed, direction)) return kMaxSpeed;
  double low = 0.0, high = kMaxSpeed;
  for (int i = 0; i < kBisections; ++i) {
    const double middle = 0.5 * (low + high);
    (survives(model, q0, request, middle, direction) ? low : high) = middle;
  }
  return low;
}

/// One direction's row.
struct SweepRow {
  double direction = 0.0;  ///< [rad]
  double survived = 0.0;   ///< [m/s]
  double bound = 0.0;      ///< omega d [m/s]
};

void printSweep(const StandResult& start, double omega, const std::vector<SweepRow>& rows) {
  printField(std::cout, "push sweep",
             "one push at " + format::roundedNumber(kPushTime, 3) + " s, up " +
                 format::roundedNumber(kRecovery, 3) + " s after it; COM at " +
                 format::roundedNumber(start.com.z(), 4) + " m, omega " +
                 format::roundedNumber(omega, 4) + " 1/s");
  format::Table table(
      {"direction [deg]", "survived [m/s]", "[N s]", "bound omega d [m/s]", "survived / bound"},
      {true, true, true, true, true});
  for (const SweepRow& row : rows) {
    table.addRow({format::roundedNumber(row.direction * 180.0 / M_PI, 4),
                  format::roundedNumber(row.survived, 3),
                  format::roundedNumber(row.survived * start.mass, 3),
                  format::roundedNumber(row.bound, 3),
                  row.bound > 0.0 ? format::roundedNumber(row.survived / row.bound, 3) : "-"});
  }
  table.print(std::cout);
}

void writeSweep(const StandResult& start, double omega, const std::vector<SweepRow>& rows) {
  format::JsonWriter json(std::cout);
  json.beginObject();
  json.field("mass", start.mass);
  json.field("com_height", start.com.z());
  json.field("omega", omega);
  json.key("directions");
  json.beginArray();
  for (const SweepRow& row : rows) {
    json.beginObject();
    json.field("direction_deg", row.direction * 180.0 / M_PI);
    json.field("survived", row.survived);
    json.field("impulse", row.survived * start.mass);
    json.field("bound", row.bound);
    json.endObject();
  }
  json.endArray();
  json.endObject();
  std::cout << '\n';
}

}  // namespace

void runPushSweep(const Model& model, const Eigen::VectorXd& q0, const StandRequest& request) {
  // The start: the COM and the support polygon the pose check finds.
  const StandResult start = standOnce(model, q0, request, {}, 0.0);
  const double omega = std::sqrt(model.gravity_W.norm() / start.com.z());
  std::vector<SweepRow> rows;
  for (int k = 0; k < kDirections; ++k) {
    SweepRow row;
    row.direction = 2.0 * M_PI * k / kDirections;
    const Eigen::Vector2d u(std::cos(row.direction), std::sin(row.direction));
    row.bound = omega * distanceToEdge(start.support, start.com.head<2>(), u);
    row.survived = largestSurvived(model, q0, request, row.direction);
    rows.push_back(row);
  }
  if (request.json) {
    writeSweep(start, omega, rows);
  } else {
    printSweep(start, omega, rows);
  }
}

}  // namespace gcbridge::commands
