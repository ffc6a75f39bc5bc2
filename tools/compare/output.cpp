#include "compare/output.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "compare/html_report.hpp"
#include "format/numbers.hpp"
#include "format/text_table.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/viewer/html_viewer.hpp"

namespace gcbridge::compare {
namespace {

using format::csvNumber;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// Time plots show every run up to this many; beyond it (a sweep), one rate per engine.
constexpr size_t kMaxTimeSeries = 8;
/// Joint coordinates plotted over time: the ones that move most in the reference.
constexpr int kPlottedDofs = 3;

/// A number for tables: 3 significant digits, "-" for NaN.
std::string number(double x, int digits = 3) {
  return std::isnan(x) ? std::string("-") : format::roundedNumber(x, digits);
}

/// drift / size for tables: "-" when the size is 0 (nothing to be relative to) or NaN.
std::string relative(double drift, double size) {
  return size > 0.0 ? number(drift / size) : std::string("-");
}

/// "rk4 1000 Hz", or with its controller "rigid_body 240 Hz, bullet_motors".
std::string runLabel(const EngineRun& run) {
  return std::string(toString(run.engine)) + " " + std::to_string(run.rate_hz) + " Hz" +
         (run.controller.empty() ? "" : ", " + run.controller);
}

/// `name` with every character but letters, digits, '-' and '_' replaced by '_' (for file names).
std::string fileName(std::string name) {
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return name;
}

/// The name and unit of each velocity coordinate (dof) of the model, named after the joint's
/// layout (joint.hpp).
struct DofName {
  std::string name;  ///< "joint" for a joint's only dof, else "joint_<coordinate>" ("hip_wx")
  std::string unit;  ///< what the dof's position is measured in: "rad" or "m"
};
std::vector<DofName> dofNames(const Model& model) {
  std::vector<DofName> names;
  for (const Joint& joint : model.joints) {
    for (const JointCoordinate& c : jointVelocityCoordinates(joint)) {
      std::string coordinate = c.name;
      coordinate.erase(std::remove(coordinate.begin(), coordinate.end(), ' '), coordinate.end());
      const std::string name = joint.nv == 1 ? joint.name : joint.name + "_" + coordinate;
      names.push_back({name, std::string_view(c.unit) == "rad/s" ? "rad" : "m"});
    }
  }
  return names;
}

/// q's coordinate names: q_<joint> for one coordinate, q_<joint>_<k> for several.
std::vector<std::string> configurationNames(const Model& model) {
  std::vector<std::string> names(model.nq);
  for (const Joint& joint : model.joints) {
    for (int k = 0; k < joint.nq; ++k) {
      names[joint.idx_q + k] = "q_" + joint.name + (joint.nq > 1 ? "_" + std::to_string(k) : "");
    }
  }
  return names;
}

/// The runs the time plots show (every run, or one rate per engine and controller when there are
/// many).
std::vector<const EngineRun*> plottedRuns(const Comparison& comparison) {
  std::vector<const EngineRun*> runs;
  for (const EngineRun& run : comparison.runs) runs.push_back(&run);
  if (runs.size() <= kMaxTimeSeries) return runs;
  // The rate closest to 240 Hz (Bullet's default) of each engine under each controller.
  std::vector<const EngineRun*> chosen;
  for (const EngineRun& run : comparison.runs) {
    auto same = std::find_if(chosen.begin(), chosen.end(), [&](const EngineRun* c) {
      return c->engine == run.engine && c->controller == run.controller;
    });
    if (same == chosen.end()) {
      chosen.push_back(&run);
    } else if (std::abs(std::log(run.rate_hz / 240.0)) <
               std::abs(std::log((*same)->rate_hz / 240.0))) {
      *same = &run;
    }
  }
  return chosen;
}

/// Each engine's dash pattern (stroke-dasharray; the first solid), so that engines whose curves
/// lie on each other stay apart: a long-dashed curve over a solid one shows both.
std::string engineDash(EngineKind kind) {
  static const char* const kDashes[] = {"", "10 4", "2 3", "10 3 2 3", "5 5", "1 5"};
  const std::vector<EngineKind>& all = allEngines();
  const auto at = std::find(all.begin(), all.end(), kind) - all.begin();
  return kDashes[static_cast<std::size_t>(at) % std::size(kDashes)];
}

/// A series over the samples' times.
Series timeSeries(const std::string& label, const std::vector<Sample>& samples,
                  const std::function<double(size_t)>& y) {
  Series series;
  series.label = label;
  for (size_t i = 0; i < samples.size(); ++i) {
    series.x.push_back(samples[i].t);
    series.y.push_back(y(i));
  }
  return series;
}

/// A time plot of `y` for every plotted run.
Figure runsFigure(const std::string& name, const std::string& title, const std::string& y_label,
                  AxisScale y_scale, const std::vector<const EngineRun*>& runs,
                  const std::function<double(const EngineRun&, size_t)>& y,
                  const std::string& caption) {
  Figure figure{name, Plot{}, caption};
  figure.plot.title = title;
  figure.plot.x.label = "time [s]";
  figure.plot.y.label = y_label;
  figure.plot.y.scale = y_scale;
  for (const EngineRun* run : runs) {
    figure.plot.series.push_back(
        timeSeries(runLabel(*run), run->samples, [&](size_t i) { return y(*run, i); }));
    figure.plot.series.back().dash = engineDash(run->engine);
  }
  return figure;
}

/// The dofs that move most in the reference, largest first.
std::vector<int> mostMovingDofs(const Model& model, const Comparison& comparison,
                                const Eigen::VectorXd& q0) {
  Eigen::VectorXd excursion = Eigen::VectorXd::Zero(model.nv);
  for (const Sample& s : comparison.reference.samples) {
    excursion = excursion.cwiseMax(difference(model, q0, s.q).cwiseAbs());
  }
  std::vector<int> dofs(model.nv);
  for (int i = 0; i < model.nv; ++i) dofs[i] = i;
  std::stable_sort(dofs.begin(), dofs.end(),
                   [&](int a, int b) { return excursion(a) > excursion(b); });
  dofs.resize(std::min<size_t>(dofs.size(), kPlottedDofs));
  return dofs;
}

/// A CSV cell: quoted when it holds a comma, quote or newline.
std::string csvCell(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

/// Opens `path` for writing. @throws std::runtime_error naming it.
std::ofstream openForWriting(const std::string& path) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write '" + path + "'");
  return file;
}

/// Writes one time-series CSV (reference: error columns are 0).
void writeTimeSeries(const std::string& path, const Model& model,
                     const std::vector<Sample>& samples, const std::vector<double>& error,
                     const std::vector<double>& tracking) {
  std::ofstream file = openForWriting(path);
  const std::vector<std::string> header = timeSeriesHeader(model);
  for (size_t c = 0; c < header.size(); ++c) file << (c ? "," : "") << csvCell(header[c]);
  file << '\n';
  const double energy0 = samples.empty() ? 0.0 : samples.front().energy;
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    file << csvNumber(s.t);
    for (int k = 0; k < s.q.size(); ++k) file << ',' << csvNumber(s.q(k));
    for (int k = 0; k < s.v.size(); ++k) file << ',' << csvNumber(s.v(k));
    file << ',' << csvNumber(i < error.size() ? error[i] : 0.0) << ','
         << csvNumber(i < tracking.size() ? tracking[i] : kNaN) << ','
         << csvNumber(s.energy - energy0);
    for (int k = 0; k < 6; ++k) file << ',' << csvNumber(s.momentum(k));
    file << ',' << csvNumber(s.pivot_separation) << ',' << csvNumber(s.axis_error) << ','
         << csvNumber(s.velocity_residual) << '\n';
  }
  if (!file) throw std::runtime_error("cannot write '" + path + "'");
}

/// The summary's columns (summary.csv and the report's table).
std::vector<std::string> summaryHeader() {
  return {"engine",
          "rate_hz",
          "step_s",
          "controller",
          "final_error",
          "rms_error",
          "max_error",
          "parting_time_s",
          "energy_drift_J",
          "final_energy_change_J",
          "angular_momentum_drift",
          "angular_momentum",
          "linear_momentum_drift",
          "linear_momentum",
          "max_pivot_separation_m",
          "max_axis_error_rad",
          "max_velocity_residual",
          "tracking_rms",
          "cost_s_per_s",
          "failure"};
}
std::vector<std::string> summaryRow(const EngineRun& run, bool exact) {
  const auto n = [exact](double x) { return exact ? csvNumber(x) : number(x); };
  const RunSummary& s = run.summary;
  return {toString(run.engine),
          std::to_string(run.rate_hz),
          n(1.0 / run.rate_hz),
          run.controller,
          n(s.final_error),
          n(s.rms_error),
          n(s.max_error),
          n(s.parting_time),
          n(s.energy_drift),
          n(s.final_energy_change),
          n(s.angular_momentum_drift),
          n(s.angular_momentum),
          n(s.linear_momentum_drift),
          n(s.linear_momentum),
          n(s.max_pivot_separation),
          n(s.max_axis_error),
          n(s.max_velocity_residual),
          n(s.tracking_rms),
          n(s.cost),
          run.failure};
}

/// The reference check in words.
std::string referenceText(const Comparison& comparison) {
  const ReferenceRun& r = comparison.reference;
  std::ostringstream text;
  if (r.rate_hz == 0) {
    return "Reference: the tracking reference q_d(t) itself (" + r.why_tracking +
           "): the error against it is the tracking error.";
  }
  text << "Reference: RK4 at " << r.rate_hz << " Hz (step " << stepText(r.rate_hz)
       << " s). Halving its step from " << stepText(r.rate_hz / 2) << " s changed q by at most "
       << number(r.halving_change) << " rad or m over the run"
       << "; its own error is about " << number(r.estimated_error)
       << " (fourth order: 1/15 of that).";
  return text.str();
}

}  // namespace

std::string stepText(int rate_hz) { return "1/" + std::to_string(rate_hz); }

std::vector<Vector3> unwrapRotations(const std::vector<Vector3>& vectors) {
  std::vector<Vector3> out;
  for (const Vector3& v : vectors) {
    const double theta = v.norm();
    if (out.empty() || theta < 1e-12) {
      out.push_back(v);
      continue;
    }
    const Vector3 axis = v / theta;
    Vector3 best = v;
    for (int k = -2; k <= 2; ++k) {
      const Vector3 candidate = (theta + 2.0 * M_PI * k) * axis;
      if ((candidate - out.back()).norm() < (best - out.back()).norm()) best = candidate;
    }
    out.push_back(best);
  }
  return out;
}

std::vector<double> jointCoordinateSeries(const Model& model, const Eigen::VectorXd& q0,
                                          const std::vector<Sample>& samples, int dof) {
  const Joint& joint = model.joints[model.dof_link[dof]];
  std::vector<double> values;
  if (joint.nq == 1) {
    for (const Sample& s : samples) {
      values.push_back(q0(joint.idx_q) + difference(model, q0, s.q)(dof));
    }
    return values;
  }
  // A ball joint's velocity coordinates are its rotation; a free joint's start with it.
  const int rotation_start = joint.idx_v;
  const bool rotation =
      (joint.type == JointType::Ball || joint.type == JointType::Free) && dof - rotation_start < 3;
  if (!rotation) {
    for (const Sample& s : samples) values.push_back(difference(model, q0, s.q)(dof));
    return values;
  }
  std::vector<Vector3> vectors;
  for (const Sample& s : samples) {
    vectors.push_back(difference(model, q0, s.q).segment<3>(rotation_start));
  }
  for (const Vector3& v : unwrapRotations(vectors)) values.push_back(v(dof - rotation_start));
  return values;
}

std::vector<std::string> timeSeriesHeader(const Model& model) {
  std::vector<std::string> header = {"t"};
  for (const std::string& name : configurationNames(model)) header.push_back(name);
  for (const DofName& dof : dofNames(model)) header.push_back("v_" + dof.name);
  for (const char* column : {"error", "tracking_error", "energy_change", "momentum_wx",
                             "momentum_wy", "momentum_wz", "momentum_x", "momentum_y", "momentum_z",
                             "pivot_separation", "axis_error", "velocity_residual"}) {
    header.push_back(column);
  }
  return header;
}

namespace {

/// A column of the summary as people read it (the stdout table and the report's): title, unit
/// and the value of a run.
struct SummaryColumn {
  std::string title, unit;
  std::function<std::string(const EngineRun&)> value;
};

/// The summary's columns for this scenario: the controller only when several ran, the momentum
/// drifts only in zero gravity, the tracking error only when tracking; summary.csv holds every
/// figure.
std::vector<SummaryColumn> summaryColumns(const Scenario& scenario, const Comparison& comparison) {
  const bool momentum = scenario.kind == ScenarioKind::ZeroGravity;
  const bool tracking = static_cast<bool>(scenario.desired);
  std::vector<SummaryColumn> columns = {
      {"engine", "", [](const EngineRun& r) { return std::string(toString(r.engine)); }},
      {"step", "[s]", [](const EngineRun& r) { return stepText(r.rate_hz); }}};
  const bool several = std::any_of(comparison.runs.begin(), comparison.runs.end(),
                                   [](const EngineRun& r) { return !r.controller.empty(); });
  if (several)
    columns.push_back({"controller", "", [](const EngineRun& r) { return r.controller; }});
  columns.insert(
      columns.end(),
      {{"final err", "[rad]", [](const EngineRun& r) { return number(r.summary.final_error); }},
       {"RMS err", "[rad]", [](const EngineRun& r) { return number(r.summary.rms_error); }},
       {"parted at", "[s]", [](const EngineRun& r) { return number(r.summary.parting_time); }},
       {"energy err", "[J]", [](const EngineRun& r) { return number(r.summary.energy_drift); }}});
  if (momentum) {
    columns.push_back({"ang mom drift", "[rel]", [](const EngineRun& r) {
                         return relative(r.summary.angular_momentum_drift,
                                         r.summary.angular_momentum);
                       }});
    columns.push_back({"lin mom drift", "[rel]", [](const EngineRun& r) {
                         return relative(r.summary.linear_momentum_drift,
                                         r.summary.linear_momentum);
                       }});
  }
  if (tracking) {
    columns.push_back({"tracking RMS", "[rad]",
                       [](const EngineRun& r) { return number(r.summary.tracking_rms); }});
  }
  columns.push_back({"max sep", "[m]",
                     [](const EngineRun& r) { return number(r.summary.max_pivot_separation); }});
  columns.push_back({"max axis err", "[rad]",
                     [](const EngineRun& r) { return number(r.summary.max_axis_error); }});
  columns.push_back(
      {"cost", "[ms/s]", [](const EngineRun& r) { return number(1e3 * r.summary.cost); }});
  columns.push_back({"status", "", [](const EngineRun& r) {
                       return r.failure.empty() ? std::string("ok") : std::string("FAILED");
                     }});
  return columns;
}

}  // namespace

std::string summaryTable(const Scenario& scenario, const Comparison& comparison) {
  const std::vector<SummaryColumn> columns = summaryColumns(scenario, comparison);
  // Text columns left-aligned, numbers right-aligned; the units under the titles.
  std::vector<std::string> titles, units;
  for (const SummaryColumn& c : columns) {
    titles.push_back(c.title);
    units.push_back(c.unit);
  }
  std::vector<bool> right_aligned(columns.size(), true);
  right_aligned.front() = right_aligned.back() = false;
  if (columns[2].title == "controller") right_aligned[2] = false;
  format::Table table(titles, right_aligned);
  table.addRow(units);
  int failures = 0;
  std::string notes;
  for (const EngineRun& run : comparison.runs) {
    std::vector<std::string> row;
    for (const SummaryColumn& c : columns) row.push_back(c.value(run));
    if (!run.failure.empty()) {
      ++failures;
      row.back() = "FAILED (" + std::to_string(failures) + ")";
      notes += "(" + std::to_string(failures) + ") " + runLabel(run) + ": " + run.failure + "\n";
    }
    table.addRow(std::move(row));
  }
  std::ostringstream out;
  table.print(out, "");
  out << notes;
  out << referenceText(comparison) << '\n';
  return out.str();
}

namespace {

/// The joint trajectories: the dofs that move most, every engine over the dashed reference.
void addJointFigures(const Scenario& scenario, const Comparison& comparison,
                     const std::vector<const EngineRun*>& runs, std::vector<Figure>& figures) {
  const Model& model = *scenario.model;
  const std::vector<DofName> names = dofNames(model);
  for (int dof : mostMovingDofs(model, comparison, scenario.q0)) {
    const Joint& joint = model.joints[model.dof_link[dof]];
    std::map<const EngineRun*, std::vector<double>> values;
    for (const EngineRun* run : runs) {
      values[run] = jointCoordinateSeries(model, scenario.q0, run->samples, dof);
    }
    Figure figure = runsFigure(
        "joint_" + fileName(names[dof].name), "Joint " + names[dof].name + " over time",
        names[dof].name + " [" + names[dof].unit + "]", AxisScale::Linear, runs,
        [&](const EngineRun& run, size_t i) { return values.at(&run)[i]; },
        joint.nq == 1 ? "The joint coordinate of each engine; dashed: the reference."
                      : "This coordinate of the joint's rotation (or translation) from its "
                        "initial value, a rotation through pi carried on rather than wrapped; "
                        "dashed: the reference.");
    const std::vector<double> reference_values =
        jointCoordinateSeries(model, scenario.q0, comparison.reference.samples, dof);
    Series reference = timeSeries("reference", comparison.reference.samples,
                                  [&](size_t i) { return reference_values[i]; });
    reference.dash = "6 4";
    reference.color = "#000000";
    figure.plot.series.insert(figure.plot.series.begin(), std::move(reference));
    figures.push_back(std::move(figure));
  }
}

/// The error against the reference and the energy change of every plotted run.
void addErrorAndEnergyFigures(const Scenario& scenario, const Comparison& comparison,
                              const std::vector<const EngineRun*>& runs,
                              std::vector<Figure>& figures) {
  figures.push_back(runsFigure(
      "error", "Joint-space error against the reference", "||q_ref (-) q||_inf [rad or m]",
      AxisScale::Log10, runs,
      [](const EngineRun& run, size_t i) { return i < run.error.size() ? run.error[i] : kNaN; },
      "Largest difference of any joint coordinate from the reference (log scale; zero is not "
      "drawn)."));

  // Energy: each engine's change beyond the reference's (the torques' work); none on the ground,
  // where the reference hangs in the air and the contacts take energy.
  if (scenario.ground) return;
  const std::vector<Sample>& reference = comparison.reference.samples;
  figures.push_back(runsFigure(
      "energy", "Energy error", "E(t) - E(0) - (E_ref(t) - E_ref(0)) [J]", AxisScale::Linear, runs,
      [&reference](const EngineRun& run, size_t i) {
        const double work = i < reference.size() ? reference[i].energy - reference[0].energy : kNaN;
        return run.samples[i].energy - run.samples.front().energy - work;
      },
      scenario.control
          ? "Kinetic plus gravity potential energy, its change beyond the reference's: the "
            "torques do work (the reference's change, " +
                number(reference.back().energy - reference.front().energy) +
                " J at the end), the rest is the engine's error."
          : "Kinetic plus gravity potential energy. Without torques it is conserved: any "
            "change is the engine's error."));
}

/// Zero gravity: the momentum, conserved, angular and linear relative to their initial sizes.
void addMomentumFigures(const std::vector<const EngineRun*>& runs, std::vector<Figure>& figures) {
  const auto drift = [](int first, double floor) {
    return [first, floor](const EngineRun& run, size_t i) {
      const Vector3 p0 = run.samples.front().momentum.segment<3>(first);
      return (run.samples[i].momentum.segment<3>(first) - p0).norm() / std::max(p0.norm(), floor);
    };
  };
  const char* caption =
      "relative to its initial size: internal torques cannot change it, so any drift is the "
      "engine's.";
  figures.push_back(runsFigure(
      "angular_momentum", "Angular momentum drift", "||L(t) - L(0)|| / ||L(0)||", AxisScale::Log10,
      runs, drift(0, 1e-300), std::string("Angular momentum about the world origin, ") + caption));
  figures.push_back(runsFigure("linear_momentum", "Linear momentum drift",
                               "||P(t) - P(0)|| / ||P(0)||", AxisScale::Log10, runs,
                               drift(3, 1e-300), std::string("Linear momentum, ") + caption));
}

/// The constraint violation of the rigid-body runs.
void addConstraintFigures(const std::vector<const EngineRun*>& runs, std::vector<Figure>& figures) {
  std::vector<const EngineRun*> rigid;
  for (const EngineRun* run : runs) {
    if (isRigidBody(run->engine)) rigid.push_back(run);
  }
  if (!rigid.empty()) {
    figures.push_back(runsFigure(
        "pivot_separation", "Joint separation (Bullet rigid bodies)",
        "largest pivot separation [m]", AxisScale::Log10, rigid,
        [](const EngineRun& run, size_t i) { return run.samples[i].pivot_separation; },
        "How far the rigid bodies' joints have come apart: the largest distance between where a "
        "joint puts its child and where Bullet has it."));
    figures.push_back(runsFigure(
        "axis_error", "Joint axis error (Bullet rigid bodies)", "largest axis error [rad]",
        AxisScale::Log10, rigid,
        [](const EngineRun& run, size_t i) { return run.samples[i].axis_error; },
        "The largest rotation a joint does not allow (hinge axes out of line, a slider or weld "
        "twisted)."));
  }
}

/// Speed against accuracy, one curve per engine over its rates, when there are several rates.
void addSpeedAccuracyFigure(const Comparison& comparison, std::vector<Figure>& figures) {
  std::vector<int> rates;
  for (const EngineRun& run : comparison.runs) {
    if (std::find(rates.begin(), rates.end(), run.rate_hz) == rates.end())
      rates.push_back(run.rate_hz);
  }
  if (rates.size() > 1) {
    Figure figure{"speed_accuracy", Plot{},
                  "Each point is one engine at one step (rates " + std::to_string(rates.front()) +
                      " to " + std::to_string(rates.back()) +
                      " Hz, each labelled with its rate): RMS error against the reference versus "
                      "the wall time it took per simulated second (Erez, Tassa and Todorov, ICRA "
                      "2015). Down and left is better; failed runs are left out."};
    figure.plot.title = "Speed versus accuracy";
    figure.plot.x.label = "cost [s wall time per s simulated]";
    figure.plot.x.scale = AxisScale::Log10;
    figure.plot.y.label = "RMS error [rad or m]";
    figure.plot.y.scale = AxisScale::Log10;
    // One curve per engine under each controller, in the order they ran.
    std::vector<const EngineRun*> curves;
    for (const EngineRun& run : comparison.runs) {
      const bool seen = std::any_of(curves.begin(), curves.end(), [&](const EngineRun* c) {
        return c->engine == run.engine && c->controller == run.controller;
      });
      if (!seen) curves.push_back(&run);
    }
    for (const EngineRun* curve : curves) {
      Series series;
      series.label = std::string(toString(curve->engine)) +
                     (curve->controller.empty() ? "" : ", " + curve->controller);
      series.markers = true;
      for (const EngineRun& run : comparison.runs) {
        if (run.engine != curve->engine || run.controller != curve->controller ||
            !run.failure.empty()) {
          continue;
        }
        series.x.push_back(run.summary.cost);
        series.y.push_back(run.summary.rms_error);
        series.point_labels.push_back(std::to_string(run.rate_hz) + " Hz");
      }
      figure.plot.series.push_back(std::move(series));
    }
    figures.push_back(std::move(figure));
  }
}

}  // namespace

std::vector<Figure> makeFigures(const Scenario& scenario, const Comparison& comparison) {
  const std::vector<const EngineRun*> runs = plottedRuns(comparison);
  std::vector<Figure> figures;
  addJointFigures(scenario, comparison, runs, figures);
  addErrorAndEnergyFigures(scenario, comparison, runs, figures);
  if (scenario.kind == ScenarioKind::ZeroGravity) addMomentumFigures(runs, figures);
  // Tracking error.
  if (scenario.desired) {
    figures.push_back(runsFigure(
        "tracking", "Tracking error", "||q_d (-) q||_inf [rad or m]", AxisScale::Log10, runs,
        [](const EngineRun& run, size_t i) {
          return i < run.tracking_error.size() ? run.tracking_error[i] : kNaN;
        },
        "Largest difference of any joint coordinate from the controller's reference."));
  }
  addConstraintFigures(runs, figures);
  addSpeedAccuracyFigure(comparison, figures);
  return figures;
}

namespace {

/// Which plotted runs at one rate lie on each other, in words ("multibody and euler (q within
/// 3e-15 rad or m)"): their largest joint-space distance over the run is below 1e-6, which no
/// plot can show apart. Empty when none do.
std::string coincidenceNote(const Model& model, const std::vector<const EngineRun*>& runs) {
  constexpr double kIndistinguishable = 1e-6;
  std::string note;
  for (std::size_t a = 0; a < runs.size(); ++a) {
    for (std::size_t b = a + 1; b < runs.size(); ++b) {
      const EngineRun& ra = *runs[a];
      const EngineRun& rb = *runs[b];
      if (ra.rate_hz != rb.rate_hz || !ra.failure.empty() || !rb.failure.empty() ||
          ra.samples.size() != rb.samples.size()) {
        continue;
      }
      double distance = 0.0;
      for (std::size_t i = 0; i < ra.samples.size(); ++i) {
        distance = std::max(distance, jointSpaceDistance(model, ra.samples[i].q, rb.samples[i].q));
      }
      if (distance >= kIndistinguishable) continue;
      note += std::string(note.empty() ? "" : "; ") + runLabel(ra) + " and " + runLabel(rb) +
              " (q within " + number(distance) + " rad or m)";
    }
  }
  return note.empty() ? note
                      : "Curves that lie on each other (told apart by their dashes): " + note + ".";
}

/// summary.csv: one row per run, numbers in full. @throws std::runtime_error naming the path.
void writeSummaryCsv(const std::string& path, const Comparison& comparison) {
  std::ofstream file = openForWriting(path);
  const std::vector<std::string> header = summaryHeader();
  for (size_t c = 0; c < header.size(); ++c) file << (c ? "," : "") << header[c];
  file << '\n';
  for (const EngineRun& run : comparison.runs) {
    const std::vector<std::string> row = summaryRow(run, /*exact=*/true);
    for (size_t c = 0; c < row.size(); ++c) file << (c ? "," : "") << csvCell(row[c]);
    file << '\n';
  }
  if (!file) throw std::runtime_error("cannot write '" + path + "'");
}

/// The report's table of the engines that ran, with the rigid-body engine's settings.
void addEngineTable(HtmlReport& report, const Comparison& comparison,
                    const RunDescription& description) {
  report.addHeading("Engines");
  Table engines{{"engine", "what it is"}, {}};
  for (EngineKind kind : allEngines()) {
    const bool ran = std::any_of(comparison.runs.begin(), comparison.runs.end(),
                                 [kind](const EngineRun& r) { return r.engine == kind; });
    if (!ran) continue;
    std::string text = describe(kind);
    if (isRigidBody(kind)) {
      text += ", " + std::to_string(description.rigid.solver_iterations) +
              " solver iterations, ERP " + number(description.rigid.erp) + ", CFM " +
              number(description.rigid.cfm);
    }
    engines.rows.push_back({toString(kind), text});
  }
  report.addTable(engines);
}

/// The viewer's recording: the reference as a ghost, each plotted run a track (rigid-body engines
/// their bodies where Bullet has them, the others ghosts of the model at their q), at most 60
/// frames per second of the samples; a run that failed stays where it last was.
viewer::Recorder viewerRecording(const Scenario& scenario, const Comparison& comparison) {
  const Model& model = *scenario.model;
  const std::vector<const EngineRun*> runs = plottedRuns(comparison);
  viewer::Recorder recording(model, 60.0);
  const int reference = recording.addTrack("reference", viewer::TrackStyle::Ghost);
  for (const EngineRun* run : runs) {
    recording.addTrack(runLabel(*run), isRigidBody(run->engine) ? viewer::TrackStyle::Solid
                                                                : viewer::TrackStyle::Ghost);
  }
  const std::vector<Sample>& samples = comparison.reference.samples;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!recording.due(samples[i].t)) continue;
    recording.beginFrame(samples[i].t);
    recording.setConfiguration(reference, samples[i].q);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      if (i >= runs[r]->samples.size()) continue;
      const Sample& sample = runs[r]->samples[i];
      const int track = static_cast<int>(r) + 1;
      if (!sample.link_poses.empty()) {
        recording.setLinkPoses(track, sample.link_poses);
      } else if (sample.q.allFinite()) {
        recording.setConfiguration(track, sample.q);
      }
    }
  }
  return recording;
}

/// The report: the run's settings, the engines, the reference, the summary, the 3D view, the
/// plots and the `files` written beside it.
HtmlReport makeReport(const Scenario& scenario, const Comparison& comparison,
                      const RunDescription& description, const std::vector<Figure>& figures,
                      const std::string& viewer_page, const std::vector<std::string>& files) {
  const Model& model = *scenario.model;
  HtmlReport report("gcbridge compare: " + model.name + ", " + toString(scenario.kind));
  report.addParagraph("Model " + description.model_path + " (" + model.name +
                      ": nq = " + std::to_string(model.nq) + ", nv = " + std::to_string(model.nv) +
                      ", " + (model.floating_base ? "floating" : "fixed") + " base). Scenario " +
                      toString(scenario.kind) + ", " + number(scenario.duration) +
                      " s simulated, sampled at " + std::to_string(comparison.sample_rate_hz) +
                      " Hz. Torques: " + scenario.torques + ".");
  if (!scenario.notes.empty()) {
    std::string notes = "What the scenario changed:";
    for (const std::string& note : scenario.notes) notes += " " + note + ";";
    notes.back() = '.';
    report.addParagraph(notes);
  }
  report.addPreformatted(description.command_line);
  addEngineTable(report, comparison, description);
  report.addParagraph(referenceText(comparison));
  report.addHeading("Summary");
  Table summary;
  const std::vector<SummaryColumn> columns = summaryColumns(scenario, comparison);
  for (const SummaryColumn& c : columns) {
    summary.header.push_back(c.unit.empty() ? c.title : c.title + " " + c.unit);
  }
  std::string failures;
  for (const EngineRun& run : comparison.runs) {
    std::vector<std::string> row;
    for (const SummaryColumn& c : columns) row.push_back(c.value(run));
    summary.rows.push_back(std::move(row));
    if (!run.failure.empty()) failures += " " + runLabel(run) + ": " + run.failure + ".";
  }
  report.addTable(
      summary,
      "Errors are ||q_ref (-) q||_inf on the joint manifold [rad for revolute and "
      "ball joints, m for prismatic ones]; parted at: first time the error exceeds "
      "0.1; energy err: largest |E(t) - E(0) - (E_ref(t) - E_ref(0))|, the energy gained or "
      "lost beyond the reference's change (the torques' work); max sep and max axis err: the "
      "rigid-body engine's joints' largest pivot "
      "separation and axis error; cost: wall time per simulated second. Every figure of "
      "every run, the momentum and the velocity residual too, is in summary.csv.");
  if (!failures.empty()) report.addParagraph("Failed:" + failures);
  report.addHeading("3D view");
  report.addParagraph(
      "Every engine over the reference (a ghost): Bullet's rigid bodies where Bullet has them, "
      "the other engines as ghosts of the model at their q; play it, toggle the tracks, drag to "
      "turn. The same page is viewer.html beside this report.");
  report.addEmbeddedPage(viewer_page, "3D view of the runs", 560);
  report.addHeading("Plots");
  const std::string coincide = coincidenceNote(model, plottedRuns(comparison));
  if (!coincide.empty()) report.addParagraph(coincide);
  for (const Figure& figure : figures) report.addFigure(figure.plot, figure.caption);
  report.addHeading("Files");
  std::vector<std::string> names;
  for (const std::string& p : files) names.push_back(std::filesystem::path(p).filename().string());
  report.addFileLinks(names);
  return report;
}

}  // namespace

std::vector<std::string> writeOutputs(OutputFolder& folder, const Scenario& scenario,
                                      const Comparison& comparison,
                                      const RunDescription& description) {
  namespace fs = std::filesystem;
  const std::string& directory = folder.path();
  std::vector<std::string> paths;
  const auto path = [&](const std::string& name) {
    paths.push_back((fs::path(directory) / name).string());
    return paths.back();
  };
  // The CSV files.
  writeSummaryCsv(path("summary.csv"), comparison);
  writeTimeSeries(path("reference.csv"), *scenario.model, comparison.reference.samples, {}, {});
  for (const EngineRun& run : comparison.runs) {
    const std::string controller = run.controller.empty() ? "" : "_" + fileName(run.controller);
    writeTimeSeries(path(std::string(toString(run.engine)) + "_" + std::to_string(run.rate_hz) +
                         "hz" + controller + ".csv"),
                    *scenario.model, run.samples, run.error, run.tracking_error);
  }
  // The figures, as files and in the report.
  const std::vector<Figure> figures = makeFigures(scenario, comparison);
  for (const Figure& figure : figures) {
    std::ofstream file = openForWriting(path(figure.name + ".svg"));
    file << renderSvg(figure.plot);
    if (!file) throw std::runtime_error("cannot write '" + paths.back() + "'");
  }
  // The 3D view, in its own file and inside the report.
  viewer::ViewerOptions viewer_options;
  viewer_options.title = scenario.model->name + ", " + toString(scenario.kind);
  const std::string viewer_page =
      viewer::viewerHtml(viewerRecording(scenario, comparison), viewer_options);
  {
    std::ofstream file = openForWriting(path("viewer.html"));
    file << viewer_page;
    if (!file) throw std::runtime_error("cannot write '" + paths.back() + "'");
  }
  HtmlReport report = makeReport(scenario, comparison, description, figures, viewer_page, paths);
  report.write(path("report.html"));
  folder.commit(paths);
  return paths;
}

}  // namespace gcbridge::compare
