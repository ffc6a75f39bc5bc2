#include <cmath>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "commands/commands.hpp"
#include "format/json_writer.hpp"
#include "format/numbers.hpp"
#include "format/text_table.hpp"
#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/derivatives.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace gcbridge::commands {
namespace {

using format::JsonWriter;
using format::roundedNumber;
using format::Table;

constexpr const char* kHelpCommand = "gcbridge dynamics --help";

constexpr const char* kDynamicsHelp = R"(Usage: gcbridge dynamics [OPTIONS] MODEL.urdf
       gcbridge dynamics [OPTIONS] WORLD.bullet

Loads MODEL.urdf, or the model of the Bullet world WORLD.bullet, as 'gcbridge info' does and
evaluates the equations of motion
  M(q) qdd + C(q, v) v + g(q) = tau
at one state (q, v). Prints
  M     M(q), the joint-space inertia matrix (crba), nv x nv
  h     h(q, v) = C(q, v) v + g(q), the nonlinear effects (nonLinearEffects)
  g     g(q), the generalized gravity: the joint forces that hold the robot still
        (computeGeneralizedGravity)
  Cqd   C(q, v) v, the Coriolis and centrifugal forces (computeCoriolisTimesV)
  tau   with --a: tau = RNEA(q, v, a) = M a + h, the joint forces that produce a (rnea)
  qdd   with --tau: qdd = ABA(q, v, tau), the accelerations with M qdd + h = tau (aba)
and with --derivatives their analytic derivatives (rneaDerivatives, abaDerivatives):
  dtau_dq, dtau_dv   with --a: d tau / dq and d tau / dv of RNEA at a, nv x nv
  dqdd_dq, dqdd_dv   with --tau: d qdd / dq and d qdd / dv of ABA at tau, nv x nv
(d tau / da is M, d qdd / d tau is M^-1). Column j is the derivative along dof j: for q, along
q (+) e e_j, the tangent direction of v's entry j (for a quaternion ball, a turn about the child
link's axis; for a free joint, its body twist); for other joints the plain partial derivative.
Gravity is the model's: (0, 0, -9.81) m/s^2 in the world frame for a URDF, the world's for a
.bullet file. Joint damping and friction, and Bullet's body damping, are not part of these
terms.

State (comma-separated numbers, e.g. --q 0.1,-0.2 or --q=0.1,-0.2):
  --q LIST          joint positions, nq values; default: the neutral configuration (zero
                    angles and displacements, identity quaternions); a revolute or prismatic
                    joint outside its limits is a warning on stderr (the terms are computed)
  --v LIST          joint velocities, nv values; default: zero
  --a LIST          joint accelerations, nv values; adds tau = RNEA(q, v, a)
  --tau LIST        joint forces, nv values; adds qdd = ABA(q, v, tau)
  --derivatives     adds the derivatives of RNEA (with --a) and ABA (with --tau); needs one of
                    them

Layout of q and v per joint ('gcbridge info MODEL.urdf' shows each joint's slices):
  revolute   q: angle [rad]                        v: angle rate [rad/s]
  prismatic  q: displacement [m]                   v: rate [m/s]
  planar     q: x, y in the plane normal to the axis [m], then the angle about it [rad]
             v: their rates [m/s, m/s, rad/s]
  ball       q: --ball quaternion (default): unit quaternion x, y, z, w (4 values);
                --ball expmap: rotation vector [rad]; --ball euler: angles a, b, c with
                R = Rx(a) Ry(b) Rz(c) [rad] (3 values)
             v: quaternion: angular velocity in the child link frame [rad/s];
                expmap, euler: the rates of the 3 coordinates [rad/s]
  free       q: position [m] then unit quaternion x, y, z, w (7 values)
             v: angular velocity [rad/s] then velocity of the child link origin [m/s],
                both in the child link frame (6 values)
  Quaternions are in the order x, y, z, w (identity: 0,0,0,1), as in Eigen and Bullet. A norm
  within 1e-4 of 1 is normalized; any other norm is an error naming the joint.
  Joint forces are in N m for rotational coordinates and N for translational ones;
  accelerations in rad/s^2 and m/s^2.

Model options (as in 'gcbridge info'):
  --floating-base   give the root link a free joint (nq += 7, nv += 6) (URDF only)
  --ball PARAM      ball joints in q as quaternion (default), expmap or euler
  --no-merge        keep links attached by fixed joints as separate model links (URDF, or a
                    .bullet file's multibody)
  --scale S         lengths x S, masses x S^3, inertias x S^5 (URDF only)
  --root NAME       .bullet only: the rigid-body tree's root body, by name
  --subtree NAME    .bullet only: one chain of a static body alone, by its first body
  --motors off      .bullet only: switch the tree's joint motors off instead of refusing them
  --multibody WHICH .bullet only: the multibody, by its base's name or index (default: the
                    first)

Output:
  --json            print JSON instead of tables: keys name, nq, nv, inputs {q, v, a (with
                    --a), tau (with --tau)}, M (array of nv rows), h, g, Cqd, tau (only with
                    --a), qdd (only with --tau), with --derivatives dtau_dq, dtau_dv (with
                    --a) and dqdd_dq, dqdd_dv (with --tau), each an array of nv rows; numbers
                    in their shortest exact form
  -h, --help        print this help
The tables round to 6 significant digits and show as 0 the entries smaller than 1e-10 times
the largest entry of their matrix or vector (round-off); use --json for the exact values.

Exit codes: 0 success; 1 error: unreadable or invalid model, or a state the library rejects
(e.g. a quaternion that is not unit; the message names the joint); 2 command-line mistake,
including a list entry that is not a number, is NaN or infinite, and a list with the wrong
number of values for the model ("--q has 6 values, the model needs nq = 7").
)";

/// What `gcbridge dynamics` was asked to do. The state lists are as given (sizes unchecked);
/// an absent --q means the neutral configuration, an absent --v zero.
struct DynamicsRequest : cli::ModelRequest {
  std::optional<std::vector<double>> q;    ///< --q: positions (nq)
  std::optional<std::vector<double>> v;    ///< --v: velocities (nv)
  std::optional<std::vector<double>> a;    ///< --a: accelerations for RNEA (nv)
  std::optional<std::vector<double>> tau;  ///< --tau: joint forces for ABA (nv)
  bool derivatives = false;                ///< --derivatives
};

/// The arguments after `dynamics`. @throws cli::UsageError for an unknown or repeated option, a
/// missing value or file, or a state list that is not finite numbers.
DynamicsRequest parseDynamicsArguments(const std::vector<std::string>& arguments) {
  DynamicsRequest request;
  // --q/--v/--a/--tau LIST or =LIST; the value may start with '-' ("--q -0.5,1").
  cli::parseModelCommand(arguments, "dynamics", request, [&request](cli::ArgumentReader& args) {
    if (args.is("--derivatives")) {
      args.checkFlag();
      request.derivatives = true;
      return true;
    }
    for (auto [name, list] : {std::pair{"--q", &request.q}, std::pair{"--v", &request.v},
                              std::pair{"--a", &request.a}, std::pair{"--tau", &request.tau}}) {
      if (!args.is(name)) continue;
      if (list->has_value()) throw args.error(std::string(name) + " given twice");
      *list = cli::parseNumberList(name, args.value(), kHelpCommand);
      return true;
    }
    return false;
  });
  if (request.derivatives && !request.help && !request.a && !request.tau) {
    throw cli::UsageError("--derivatives needs --a (RNEA's derivatives) or --tau (ABA's)",
                          kHelpCommand);
  }
  return request;
}

/// The state `gcbridge dynamics` evaluates the model at; a and tau only when given.
struct DynamicsState {
  Eigen::VectorXd q;                   ///< positions (nq)
  Eigen::VectorXd v;                   ///< velocities (nv)
  std::optional<Eigen::VectorXd> a;    ///< accelerations for RNEA (nv)
  std::optional<Eigen::VectorXd> tau;  ///< joint forces for ABA (nv)
  bool q_given = false;                ///< false: q is the neutral configuration
};

/// The terms of M(q) qdd + C(q, v) v + g(q) = tau at one state.
struct DynamicsTerms {
  Eigen::MatrixXd M;                   ///< joint-space inertia matrix (nv x nv)
  Eigen::VectorXd h;                   ///< C(q, v) v + g(q) (nv)
  Eigen::VectorXd g;                   ///< generalized gravity g(q) (nv)
  Eigen::VectorXd Cqd;                 ///< C(q, v) v (nv)
  std::optional<Eigen::VectorXd> tau;  ///< RNEA(q, v, a) = M a + h, when a is given (nv)
  std::optional<Eigen::VectorXd> qdd;  ///< ABA(q, v, tau), when tau is given (nv)
  /// With --derivatives: d tau / dq, d tau / dv (with a), d qdd / dq, d qdd / dv (with tau),
  /// each nv x nv.
  std::optional<Eigen::MatrixXd> dtau_dq, dtau_dv, dqdd_dq, dqdd_dv;
};

/// The request's lists checked against the model's sizes, with the defaults filled in.
/// @throws cli::UsageError for a list of the wrong size.
DynamicsState dynamicsState(const gcbridge::Model& model, const DynamicsRequest& request) {
  DynamicsState state;
  state.q_given = request.q.has_value();
  state.q = request.q ? cli::sizedList("--q", *request.q, model.nq, "nq", kHelpCommand)
                      : gcbridge::neutralConfiguration(model);
  state.v = request.v ? cli::sizedList("--v", *request.v, model.nv, "nv", kHelpCommand)
                      : Eigen::VectorXd(Eigen::VectorXd::Zero(model.nv));
  if (request.a) state.a = cli::sizedList("--a", *request.a, model.nv, "nv", kHelpCommand);
  if (request.tau) state.tau = cli::sizedList("--tau", *request.tau, model.nv, "nv", kHelpCommand);
  return state;
}

/// Evaluates every term at the state. @throws gcbridge::InvalidArgumentError naming the joint for
/// a q the library rejects (a quaternion far from unit).
DynamicsTerms computeDynamicsTerms(const gcbridge::Model& model, const DynamicsState& state,
                                   bool derivatives) {
  // Checked up front so the first error is about q itself, whichever algorithm runs first.
  gcbridge::validateConfiguration(model, state.q);
  gcbridge::Data data(model);
  DynamicsTerms terms;
  // Each algorithm returns a reference into data; copy before the next one overwrites it.
  terms.M = gcbridge::crba(model, data, state.q);
  terms.h = gcbridge::nonLinearEffects(model, data, state.q, state.v);
  terms.g = gcbridge::computeGeneralizedGravity(model, data, state.q);
  terms.Cqd = gcbridge::computeCoriolisTimesV(model, data, state.q, state.v);
  if (state.a) terms.tau = gcbridge::rnea(model, data, state.q, state.v, *state.a);
  if (state.tau) terms.qdd = gcbridge::aba(model, data, state.q, state.v, *state.tau);
  if (derivatives && state.a) {
    gcbridge::rneaDerivatives(model, data, state.q, state.v, *state.a);
    terms.dtau_dq = data.dtau_dq;
    terms.dtau_dv = data.dtau_dv;
  }
  if (derivatives && state.tau) {
    gcbridge::abaDerivatives(model, data, state.q, state.v, *state.tau);
    terms.dqdd_dq = data.dqdd_dq;
    terms.dqdd_dv = data.dqdd_dv;
  }
  return terms;
}

/// One coordinate of q: its joint, its name within the joint and its unit.
struct QCoordinate {
  std::string joint;
  const char* name;
  const char* unit;
};

/// One degree of freedom (entry of v): its joint, its name within the joint ("-" for the only dof
/// of a revolute or prismatic joint), and whether it is rotational (N m, rad/s) or translational
/// (N, m/s).
struct Dof {
  std::string joint;
  const char* name;
  bool rotational;
};

/// The coordinates of q in order, named after each joint's layout (joint.hpp).
std::vector<QCoordinate> qCoordinates(const gcbridge::Model& model) {
  std::vector<QCoordinate> coordinates;
  for (const gcbridge::Joint& j : model.joints) {
    for (const gcbridge::JointCoordinate& c : gcbridge::jointConfigurationCoordinates(j)) {
      coordinates.push_back({j.name, c.name, c.unit});
    }
  }
  return coordinates;
}

/// The degrees of freedom in order, named after each joint's layout (joint.hpp).
std::vector<Dof> dofs(const gcbridge::Model& model) {
  std::vector<Dof> result;
  for (const gcbridge::Joint& j : model.joints) {
    for (const gcbridge::JointCoordinate& c : gcbridge::jointVelocityCoordinates(j)) {
      result.push_back({j.name, c.name, std::string_view(c.unit) == "rad/s"});
    }
  }
  return result;
}

/// Entries of a matrix or vector for a table: 6 significant digits, and 0 for entries below
/// 1e-10 times its largest entry (round-off, e.g. -7e-14 in a gravity vector whose largest entry
/// is 0.01 but whose intermediate terms are 100 N m).
std::vector<std::string> tableNumbers(const Eigen::Ref<const Eigen::MatrixXd>& X) {
  const double floor = X.size() == 0 ? 0.0 : 1e-10 * X.cwiseAbs().maxCoeff();
  std::vector<std::string> cells;
  for (int i = 0; i < X.rows(); ++i) {
    for (int j = 0; j < X.cols(); ++j) {
      cells.push_back(roundedNumber(std::abs(X(i, j)) < floor ? 0.0 : X(i, j)));
    }
  }
  return cells;
}

/// The summary lines: model, source, sizes, base, gravity.
void printSummary(const gcbridge::Model& model, std::ostream& out) {
  printField(out, "model", model.name);
  printField(out, "source", model.description->source);
  printField(out, "nq", std::to_string(model.nq));
  printField(out, "nv", std::to_string(model.nv));
  printField(out, "base",
             model.floating_base ? "floating (free joint)" : "fixed (welded to the world)");
  printField(out, "gravity", vectorText(model.gravity_W) + " m/s^2 (world frame)");
}

/// The configuration, one row per q index.
void printConfiguration(const gcbridge::Model& model, const DynamicsState& state,
                        std::ostream& out) {
  out << "\nq: configuration (" << (state.q_given ? "--q" : "neutral configuration")
      << "; quaternions x, y, z, w)\n";
  if (model.nq == 0) {
    out << "  none (nq = 0)\n";
    return;
  }
  Table q_table({"#", "joint", "coordinate", "value", "unit"}, {true, false, false, true, false});
  const std::vector<QCoordinate> coordinates = qCoordinates(model);
  for (int i = 0; i < model.nq; ++i) {
    q_table.addRow({std::to_string(i), coordinates[i].joint, coordinates[i].name,
                    roundedNumber(state.q(i)), coordinates[i].unit});
  }
  q_table.print(out);
}

/// A named column of the per-dof table.
struct DofColumn {
  const char* header;
  const Eigen::VectorXd* values;
};

/// The vectors of size nv the table shows, in order: v, a, h, g, Cqd, tau, --tau, qdd.
std::vector<DofColumn> dofColumns(const DynamicsState& state, const DynamicsTerms& terms) {
  std::vector<DofColumn> columns = {{"v", &state.v}};
  if (state.a) columns.push_back({"a", &*state.a});
  columns.push_back({"h", &terms.h});
  columns.push_back({"g", &terms.g});
  columns.push_back({"Cqd", &terms.Cqd});
  if (terms.tau) columns.push_back({"tau = RNEA", &*terms.tau});
  if (state.tau) columns.push_back({"tau (--tau)", &*state.tau});
  if (terms.qdd) columns.push_back({"qdd = ABA", &*terms.qdd});
  return columns;
}

/// The vectors of size nv side by side, one row per degree of freedom.
void printPerDof(const gcbridge::Model& model, const DynamicsState& state,
                 const DynamicsTerms& terms, std::ostream& out) {
  out << "\nper degree of freedom (v index)\n"
         "  units: kind rot: v [rad/s], a, qdd [rad/s^2], forces [N m]; "
         "kind lin: [m/s], [m/s^2], [N]\n"
         "  h = C(q, v) v + g(q), the nonlinear effects; g = g(q), gravity; "
         "Cqd = C(q, v) v, Coriolis and centrifugal\n";
  if (terms.tau) out << "  tau = RNEA(q, v, a) = M a + h, the joint forces that produce a\n";
  if (terms.qdd) out << "  qdd = ABA(q, v, tau), the accelerations under --tau: M qdd + h = tau\n";
  if (model.nv == 0) {
    out << "  none (nv = 0)\n";
    return;
  }
  std::vector<std::string> headers = {"#", "joint", "dof", "kind"};
  std::vector<std::vector<std::string>> cells;
  for (const DofColumn& column : dofColumns(state, terms)) {
    headers.push_back(column.header);
    cells.push_back(tableNumbers(*column.values));
  }
  std::vector<bool> right_aligned(headers.size(), true);
  right_aligned[1] = right_aligned[2] = right_aligned[3] = false;
  Table vectors(headers, right_aligned);
  const std::vector<Dof> dof_list = dofs(model);
  for (int i = 0; i < model.nv; ++i) {
    std::vector<std::string> row = {std::to_string(i), dof_list[i].joint, dof_list[i].name,
                                    dof_list[i].rotational ? "rot" : "lin"};
    for (const auto& column : cells) row.push_back(column[i]);
    vectors.addRow(std::move(row));
  }
  vectors.print(out);
}

/// An nv x nv matrix under its title, with the dof of each row and column.
void printDofMatrix(const gcbridge::Model& model, const std::string& title,
                    const Eigen::MatrixXd& X, std::ostream& out) {
  out << "\n" << title << ", " << model.nv << " x " << model.nv << "\n";
  if (model.nv == 0) {
    out << "  none (nv = 0)\n";
    return;
  }
  std::vector<std::string> headers = {"#", "joint", "dof"};
  for (int j = 0; j < model.nv; ++j) headers.push_back(std::to_string(j));
  std::vector<bool> right_aligned(headers.size(), true);
  right_aligned[1] = right_aligned[2] = false;
  Table matrix(headers, right_aligned);
  const std::vector<std::string> entries = tableNumbers(X);
  const std::vector<Dof> dof_list = dofs(model);
  for (int i = 0; i < model.nv; ++i) {
    std::vector<std::string> row = {std::to_string(i), dof_list[i].joint, dof_list[i].name};
    row.insert(row.end(), entries.begin() + i * model.nv, entries.begin() + (i + 1) * model.nv);
    matrix.addRow(std::move(row));
  }
  matrix.print(out);
}

/// The human-readable report of `gcbridge dynamics`: summary, q, the per-dof vectors, M and the
/// derivatives asked for.
void printDynamicsText(const gcbridge::Model& model, const DynamicsState& state,
                       const DynamicsTerms& terms, std::ostream& out) {
  printSummary(model, out);
  printConfiguration(model, state, out);
  printPerDof(model, state, terms, out);
  printDofMatrix(model,
                 "M(q): joint-space inertia matrix (kg m^2 between rot dofs, kg m between rot "
                 "and lin, kg between lin dofs)",
                 terms.M, out);
  const std::pair<const char*, const std::optional<Eigen::MatrixXd>*> derivatives[] = {
      {"dtau_dq: d tau / dq of RNEA at --a (row: tau's dof, column: q's tangent dof)",
       &terms.dtau_dq},
      {"dtau_dv: d tau / dv of RNEA at --a", &terms.dtau_dv},
      {"dqdd_dq: d qdd / dq of ABA at --tau (row: qdd's dof, column: q's tangent dof)",
       &terms.dqdd_dq},
      {"dqdd_dv: d qdd / dv of ABA at --tau", &terms.dqdd_dv}};
  for (const auto& [title, matrix] : derivatives) {
    if (matrix->has_value()) printDofMatrix(model, title, **matrix, out);
  }
}

/// An nv x nv matrix as an array of its rows.
void writeRows(JsonWriter& json, const Eigen::MatrixXd& X) {
  json.beginArray();
  for (int i = 0; i < X.rows(); ++i) writeVector(json, X.row(i).transpose());
  json.endArray();
}

/// The report of `gcbridge dynamics --json` (keys listed in kDynamicsHelp).
void printDynamicsJson(const gcbridge::Model& model, const DynamicsState& state,
                       const DynamicsTerms& terms, std::ostream& out) {
  JsonWriter json(out);
  json.beginObject();
  json.field("name", model.name);
  json.field("nq", model.nq);
  json.field("nv", model.nv);

  // The state, defaults filled in.
  json.key("inputs");
  json.beginObject();
  json.key("q");
  writeVector(json, state.q);
  json.key("v");
  writeVector(json, state.v);
  if (state.a) {
    json.key("a");
    writeVector(json, *state.a);
  }
  if (state.tau) {
    json.key("tau");
    writeVector(json, *state.tau);
  }
  json.endObject();

  // M row by row, then the vectors.
  json.key("M");
  writeRows(json, terms.M);
  json.key("h");
  writeVector(json, terms.h);
  json.key("g");
  writeVector(json, terms.g);
  json.key("Cqd");
  writeVector(json, terms.Cqd);
  if (terms.tau) {
    json.key("tau");
    writeVector(json, *terms.tau);
  }
  if (terms.qdd) {
    json.key("qdd");
    writeVector(json, *terms.qdd);
  }
  const std::pair<const char*, const std::optional<Eigen::MatrixXd>*> derivatives[] = {
      {"dtau_dq", &terms.dtau_dq},
      {"dtau_dv", &terms.dtau_dv},
      {"dqdd_dq", &terms.dqdd_dq},
      {"dqdd_dv", &terms.dqdd_dv}};
  for (const auto& [key, matrix] : derivatives) {
    if (!matrix->has_value()) continue;
    json.key(key);
    writeRows(json, **matrix);
  }
  json.endObject();
}

/// Writes a warning to `err` for each one-coordinate joint whose q lies outside its position
/// limits: the terms are still those of that q, which the robot cannot reach.
void warnOutsideLimits(const gcbridge::Model& model, const Eigen::VectorXd& q, std::ostream& err) {
  for (const gcbridge::Joint& joint : model.joints) {
    if (joint.nq != 1 || joint.nv != 1) continue;
    const double value = q(joint.idx_q);
    if (value >= joint.limits.lower && value <= joint.limits.upper) continue;
    err << "gcbridge: warning: --q: joint '" << joint.name << "' is at "
        << format::exactNumber(value) << ", outside its limits ["
        << roundedNumber(joint.limits.lower) << ", " << roundedNumber(joint.limits.upper) << "]\n";
  }
}

}  // namespace

int runDynamics(const std::vector<std::string>& args) {
  const DynamicsRequest request = parseDynamicsArguments(args);
  if (request.help) {
    std::cout << kDynamicsHelp;
    return 0;
  }
  const gcbridge::Model model = loadModel(request);
  const DynamicsState state = dynamicsState(model, request);
  warnOutsideLimits(model, state.q, std::cerr);
  const DynamicsTerms terms = computeDynamicsTerms(model, state, request.derivatives);
  if (request.json) {
    printDynamicsJson(model, state, terms, std::cout);
  } else {
    printDynamicsText(model, state, terms, std::cout);
  }
  return 0;
}

}  // namespace gcbridge::commands
