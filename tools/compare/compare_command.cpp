#include "compare/compare_command.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>

#include "cli/model_options.hpp"
#include "compare/comparison.hpp"
#include "compare/output.hpp"
#include "compare/scenarios.hpp"
#include "format/progress_bar.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "inputs/bullet_world.hpp"

namespace gcbridge::compare {

const char* const kCompareHelp = R"(Usage: gcbridge compare [OPTIONS] MODEL.urdf
       gcbridge compare [OPTIONS] WORLD.bullet

Runs one model from one initial state with one torque program through several engines and
compares them in generalized coordinates (joint positions q and velocities v):
  rigid_body      Bullet btRigidBody + constraints (maximal coordinates; q and v read through
                  gcbridge's bridge)
  rigid_body_projected  the same, the bodies projected onto the joints before every step
                  (positions from q, velocities mass-weighted: projectOntoJoints)
  multibody       Bullet btMultiBody (no damping, no velocity clamps)
  euler           gcbridge semi-implicit Euler on the articulated-body algorithm
  rk4             gcbridge Runge-Kutta 4
  implicit_euler  gcbridge implicit Euler (Newton)
against a reference: RK4 at a step small enough that halving it changes q by less than
--reference-tolerance at every sample (the step is halved until it does; the report says by
how much the last halving changed q).

Scenarios (--scenario NAME):
  passive       released from a pose away from the neutral one (revolute joints +-0.6 rad,
                alternating from the root; prismatic 0.05 m; ball (0.3, -0.2, 0.25) rad)
                moving (revolute +-1 rad/s, prismatic 0.1 m/s, ball (0.5, -0.4, 0.3) rad/s,
                a free root spinning (0.3, -0.2, 0.5) rad/s), so that every model moves
                (default 1 s): energy error, and when the trajectories part ways
  zero_gravity  floating base, no gravity, base spinning, internal joint torques only (2 s):
                momentum must stay constant
  tracking      a controller tracks joint sinusoids about the pose, or --trajectory's
                waypoints (2 s): tracking error
  sweep         passive (0.5 s) at steps 1/60 to 1/3840 s: error against wall time, the
                speed-accuracy curves of Erez, Tassa and Todorov (ICRA 2015)
Every scenario removes the joint position limits (gcbridge's integrators have none) and every
collision shape (links never touch), but for --ground's.

WORLD.bullet, a world Bullet saved: the model is read from its bodies and constraints as
'gcbridge info WORLD.bullet' shows it, and every engine, rigid_body too, runs that model (joints
where the constraints are, the options' solver settings, no body damping: a note on stderr says
what is left out) from the state the file's bodies are in, unless --q0 / --v0 say otherwise
(zero_gravity starts from its own, and needs a root body not attached to a static one; tracking's
sinusoids are about the file's pose, the run starting on them).

Options:
  --scenario NAME        passive (default), zero_gravity, tracking or sweep
  --engines LIST         comma-separated engine names (default: all six)
  --dt LIST              steps, each 1/N s for a whole N: "1/240,0.001" (default 1/240;
                         sweep: 1/60,1/120,...,1/3840)
  --duration S           simulated time [s] (default per scenario, above)
  --sample-rate HZ       sampling of every time series; must divide every 1/dt
                         (default: their greatest common divisor, at most 250 Hz)
  --controller LIST      tracking only, comma-separated: computed_torque (default), pd_gravity,
                         stable_pd, computed_torque_step (aimed at the end of each step), or
                         bullet_motors (Bullet's own joint motors as the example apps drive them:
                         velocity (q_d(t) - q) / h on each revolute and prismatic joint, within
                         --max-torque; the other joints passive; gcbridge's integrators and the
                         reference apply the torque such a motor applies; with --ground,
                         multibody drives its ball joints too, as the position q_d(t), and
                         universal joints' revolutes); NAME:motors or
                         NAME:forces sets one gcbridge controller's actuation. With several,
                         every engine runs under each, all against the tracking reference q_d(t)
                         (one table row, CSV file and plot curve per engine and controller)
  --actuation forces|motors  tracking, Bullet's engines: the controllers' torques as forces
                         (default), or their accelerations through Bullet's joint motors
  --ground               tracking only: the floating-base model stands on a static plane
                         (normal against gravity, 1 cm below its lowest collision point at the
                         start), its collision shapes on, its free root unactuated; runs
                         Bullet's engines only (default: rigid_body; multibody: its links do
                         not collide with each other) and measures
                         against the tracking reference q_d(t) instead of RK4 (gcbridge's
                         integrators know no contacts); errors over the joints
  --max-torque X         largest |tau| of every joint [N m or N] (default: none): the
                         controllers' torques clamped, Bullet's motors' efforts bounded
  --torques FILE.csv     a recorded torque program instead of the scenario's (not with
                         tracking; in zero_gravity nothing on a free root): rows
                         t,tau_1,...,tau_nv [s, N m or N], linear between rows, held after
                         the last
  --trajectory FILE.csv  tracking only: the reference from waypoints instead of the
                         sinusoids: rows t,q_1,...,q_nq [s; rad, m, quaternions x,y,z,w], at
                         least 1 us apart, a natural cubic spline through them about the first
                         (ball and free joints within 0.9 pi rad of it), at rest before the
                         first and after the last (one row: a pose held); the run starts on it,
                         and lasts --duration (default 2 s, whatever the file's length)
  --q0 LIST, --v0 LIST   initial state (nq and nv values; default per scenario; --v0 0,0,...
                         releases the passive pose at rest)
  --iterations N         rigid_body: constraint solver iterations (default 10)
  --erp X, --cfm X       rigid_body: joint error reduction (0.2, in [0, 1]) and force
                         mixing (0)
  --reference-tolerance X  largest change of q allowed when halving the reference's step
                         [rad or m] (default 1e-9)
  --out DIR              folder for the CSV files, SVG plots and report.html
                         (default compare-SCENARIO); made and checked before the run; files
                         an earlier compare run wrote there and this one does not are removed
                         (they are listed in DIR/.gcbridge-compare-files), others are kept
  --no-files             print the table only
  --progress, --no-progress  progress bar on stderr (default: when stderr is a terminal)
  --floating-base, --no-merge, --scale S   how the URDF becomes a model ('gcbridge info'); ball joints
                         must stay quaternions (no --ball expmap or euler)
  --root NAME            .bullet only: the rigid-body tree's root body, by name ('gcbridge info')
  --subtree NAME, --motors off   .bullet only: one chain of a static body alone; the tree's
                         joint motors switched off instead of refused ('gcbridge info')
  --multibody WHICH      .bullet only: the multibody, by its base's name or index (default: the
                         first)
  -h, --help             this text

Output: a table on stdout (per engine and step: final and RMS error against the reference
[rad or m], the time the error first exceeds 0.1, energy error [J] (the largest energy gained or
lost beyond the reference's change, which is the torques' work; summary.csv: energy_drift_J),
momentum drift relative to its size (zero_gravity), tracking RMS error (tracking), the rigid-body
joints' largest pivot separation [m] and axis error [rad], and the cost in ms of wall time per
simulated second);
in --out: summary.csv, reference.csv, ENGINE_RATEhz.csv (every time series), one SVG per plot
and report.html (self-contained: opens offline).

Exit codes: 0 the comparison ran (an engine that cannot take the model or fails on the way is
a FAILED row of the table, with why); 1 an unreadable or invalid model, a torque file that
cannot be used, a reference that fails or does not converge (the message says what it reached),
an output folder that cannot be made or written (checked before the run); 2 command-line
mistake.
)";

namespace {

constexpr const char* kHelp = "gcbridge compare --help";

/// One entry of --controller: a gcbridge controller (its actuation given as NAME:motors or
/// NAME:forces, or --actuation's) or Bullet's motors.
struct ControllerChoice {
  std::string text;  ///< as given
  bool bullet_motors = false;
  JointControlMode mode = JointControlMode::ComputedTorque;
  std::optional<Actuation> actuation;
};

/// Everything `gcbridge compare` was asked to do.
struct CompareRequest : cli::ModelRequest {
  ScenarioOptions scenario;
  std::vector<ControllerChoice> controllers;
  std::optional<double> duration;
  std::optional<std::vector<double>> q0, v0;
  ComparisonOptions comparison;
  bool rates_given = false;
  bool controller_given = false;
  bool actuation_given = false;
  bool engines_given = false;
  std::string out;
  bool files = true;
  std::optional<bool> progress;
};

/// A step "1/240" or "0.001" as its rate N [Hz]. @throws cli::UsageError if it is not 1/N s.
int parseStep(const std::string& text) {
  const auto fail = [&text](const std::string& why) {
    return cli::UsageError("--dt: '" + text + "' " + why, kHelp);
  };
  double step = 0.0;
  const size_t slash = text.find('/');
  try {
    size_t used = 0;
    if (slash != std::string::npos) {
      const double numerator = std::stod(text.substr(0, slash), &used);
      if (used != slash) throw fail("is not a number");
      const std::string rest = text.substr(slash + 1);
      const double denominator = std::stod(rest, &used);
      if (used != rest.size()) throw fail("is not a number");
      step = numerator / denominator;
    } else {
      step = std::stod(text, &used);
      if (used != text.size()) throw fail("is not a number");
    }
  } catch (const std::logic_error&) {
    throw fail("is not a number");
  }
  if (!(step > 0.0) || !std::isfinite(step)) throw fail("is not a positive step");
  const long rate = std::lround(1.0 / step);
  if (rate < 1 || rate > 1000000 || std::abs(rate * step - 1.0) > 1e-4) {
    throw fail("is not 1/N s for a whole N up to 10^6 (samples must fall on every step)");
  }
  return static_cast<int>(rate);
}

/// `text` as a number in [minimum, maximum]. @throws cli::UsageError naming the option.
double parseNumber(const std::string& option, const std::string& text, double minimum,
                   double maximum) {
  return cli::parseNumber(option, text, minimum, maximum, kHelp);
}

/// `text` as a whole number in [minimum, maximum]. @throws cli::UsageError naming the option.
int parseWhole(const std::string& option, const std::string& text, int minimum, int maximum) {
  return cli::parseWhole(option, text, minimum, maximum, kHelp);
}

/// @throws cli::UsageError if `items` names something twice.
template <typename T>
void checkDistinct(const std::string& option, const std::vector<T>& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (std::find(items.begin() + i + 1, items.end(), items[i]) != items.end()) {
      throw cli::UsageError(option + " lists the same entry twice", kHelp);
    }
  }
}

/// `parse()`, its library error about a name (an unknown engine) made a usage error.
template <typename Parse>
auto named(const cli::ArgumentReader& args, Parse parse) {
  try {
    return parse();
  } catch (const Error& e) {
    throw args.error(e.what());
  }
}

/// "forces" or "motors" as the actuation. @throws cli::UsageError naming `option`.
Actuation parseActuation(const cli::ArgumentReader& args, const std::string& option,
                         const std::string& name) {
  if (name != "forces" && name != "motors") {
    throw args.error(option + ": unknown actuation '" + name + "' (choose forces or motors)");
  }
  return name == "motors" ? Actuation::JointMotors : Actuation::Forces;
}

/// --controller LIST: NAME[:forces|:motors], ... @throws cli::UsageError for an unknown name or
/// actuation, Bullet's motors with an actuation, an entry given twice or none.
void readControllers(cli::ArgumentReader& args, CompareRequest& request) {
  request.controllers.clear();
  for (const std::string& text : cli::splitList(args.value())) {
    ControllerChoice choice;
    choice.text = text;
    const size_t colon = text.find(':');
    const std::string name = text.substr(0, colon);
    if (colon != std::string::npos) {
      choice.actuation = parseActuation(args, "--controller " + text, text.substr(colon + 1));
    }
    choice.bullet_motors = name == "bullet_motors";
    if (choice.bullet_motors && choice.actuation) {
      throw args.error("--controller " + text +
                       ": bullet_motors are Bullet's own motors; an actuation is for gcbridge's "
                       "controllers");
    }
    if (!choice.bullet_motors) {
      choice.mode = named(args, [&] {
        try {
          return jointControlModeFromString(name);
        } catch (const InvalidArgumentError& e) {
          throw InvalidArgumentError(std::string(e.what()) + ", or bullet_motors");
        }
      });
    }
    request.controllers.push_back(std::move(choice));
  }
  if (request.controllers.empty()) throw args.error("--controller is empty");
  std::vector<std::string> texts;
  for (const ControllerChoice& c : request.controllers) texts.push_back(c.text);
  checkDistinct("--controller", texts);
  request.controller_given = true;
}

/// Reads the current argument if it is an option of the scenario (--scenario, --duration,
/// --controller, --torques, --q0, --v0). @return whether it was one.
bool readScenarioOption(cli::ArgumentReader& args, CompareRequest& request) {
  if (args.is("--scenario")) {
    const std::string name = args.value();
    request.scenario.kind = named(args, [&] { return scenarioFromString(name); });
  } else if (args.is("--duration")) {
    request.duration = parseNumber("--duration", args.value(), 1e-6, 1e4);
  } else if (args.is("--controller")) {
    readControllers(args, request);
  } else if (args.is("--actuation")) {
    request.scenario.actuation = parseActuation(args, "--actuation", args.value());
    request.actuation_given = true;
  } else if (args.is("--ground")) {
    args.checkFlag();
    request.scenario.ground = true;
  } else if (args.is("--max-torque")) {
    request.scenario.max_torque = parseNumber("--max-torque", args.value(), 1e-12, 1e12);
  } else if (args.is("--torques")) {
    request.scenario.torques_path = args.value();
  } else if (args.is("--trajectory")) {
    request.scenario.trajectory_path = args.value();
  } else if (args.is("--q0")) {
    request.q0 = cli::parseNumberList("--q0", args.value(), kHelp);
  } else if (args.is("--v0")) {
    request.v0 = cli::parseNumberList("--v0", args.value(), kHelp);
  } else {
    return false;
  }
  return true;
}

/// --engines LIST. @throws cli::UsageError for an unknown, repeated or missing engine.
void readEngines(cli::ArgumentReader& args, ComparisonOptions& comparison) {
  comparison.engines.clear();
  for (const std::string& name : cli::splitList(args.value())) {
    comparison.engines.push_back(named(args, [&] { return engineFromString(name); }));
  }
  if (comparison.engines.empty()) throw args.error("--engines is empty");
  checkDistinct("--engines", comparison.engines);
}

/// --dt LIST. @throws cli::UsageError for a step that is not 1/N s, a repeated or missing one.
void readSteps(cli::ArgumentReader& args, CompareRequest& request) {
  request.comparison.rates_hz.clear();
  for (const std::string& step : cli::splitList(args.value())) {
    request.comparison.rates_hz.push_back(parseStep(step));
  }
  if (request.comparison.rates_hz.empty()) throw args.error("--dt is empty");
  checkDistinct("--dt", request.comparison.rates_hz);
  request.rates_given = true;
}

/// Reads the current argument if it is an option of the engines and their steps (--engines,
/// --dt, --sample-rate, --iterations, --erp, --cfm, --reference-tolerance).
/// @return whether it was one.
bool readComparisonOption(cli::ArgumentReader& args, CompareRequest& request) {
  ComparisonOptions& comparison = request.comparison;
  if (args.is("--engines")) {
    readEngines(args, comparison);
    request.engines_given = true;
  } else if (args.is("--dt")) {
    readSteps(args, request);
  } else if (args.is("--sample-rate")) {
    comparison.sample_rate_hz = parseWhole("--sample-rate", args.value(), 1, 1000000);
  } else if (args.is("--iterations")) {
    comparison.rigid.solver_iterations = parseWhole("--iterations", args.value(), 1, 100000);
  } else if (args.is("--erp")) {
    comparison.rigid.erp = parseNumber("--erp", args.value(), 0.0, 1.0);
  } else if (args.is("--cfm")) {
    comparison.rigid.cfm = parseNumber("--cfm", args.value(), 0.0, 1e6);
  } else if (args.is("--reference-tolerance")) {
    comparison.reference_tolerance =
        parseNumber("--reference-tolerance", args.value(), 1e-300, 1.0);
  } else {
    return false;
  }
  return true;
}

/// Reads the current argument if it is an output option (--out, --no-files, --progress,
/// --no-progress). @return whether it was one.
bool readOutputOption(cli::ArgumentReader& args, CompareRequest& request) {
  if (args.is("--out")) {
    request.out = args.value();
    return true;
  }
  if (!args.is("--no-files") && !args.is("--progress") && !args.is("--no-progress")) {
    return false;
  }
  args.checkFlag();
  if (args.is("--no-files")) request.files = false;
  if (args.is("--progress") || args.is("--no-progress")) {
    request.progress = args.is("--progress");
  }
  return true;
}

/// The arguments after `compare`. @throws cli::UsageError.
CompareRequest parseCompareArguments(const std::vector<std::string>& arguments) {
  CompareRequest request;
  cli::parseModelCommand(arguments, "compare", request, [&request](cli::ArgumentReader& args) {
    return readScenarioOption(args, request) || readComparisonOption(args, request) ||
           readOutputOption(args, request);
  });
  if (request.json) {
    throw cli::UsageError("compare has no --json: summary.csv holds every number", kHelp);
  }
  if (request.controller_given && request.scenario.kind != ScenarioKind::Tracking) {
    throw cli::UsageError("--controller is for the tracking scenario", kHelp);
  }
  if (request.scenario.ground && request.scenario.kind != ScenarioKind::Tracking) {
    throw cli::UsageError("--ground is for the tracking scenario", kHelp);
  }
  for (EngineKind kind : request.comparison.engines) {
    if (request.scenario.ground && request.engines_given && !hasContacts(kind)) {
      throw cli::UsageError(std::string("--ground runs Bullet's engines only (the others know "
                                        "no contacts here), not '") +
                                toString(kind) + "'",
                            kHelp);
    }
  }
  if (request.actuation_given && request.scenario.kind != ScenarioKind::Tracking) {
    throw cli::UsageError("--actuation is for the tracking scenario", kHelp);
  }
  const bool only_bullet_motors =
      !request.controllers.empty() &&
      std::all_of(request.controllers.begin(), request.controllers.end(),
                  [](const ControllerChoice& c) { return c.bullet_motors; });
  if (only_bullet_motors && request.scenario.actuation == Actuation::JointMotors) {
    throw cli::UsageError(
        "--actuation motors hands a gcbridge controller's accelerations to Bullet's motors; "
        "--controller bullet_motors drives them by Bullet's own law: give one",
        kHelp);
  }
  if (!request.scenario.torques_path.empty() && request.scenario.kind == ScenarioKind::Tracking) {
    throw cli::UsageError(
        "--torques replaces the scenario's torques, and tracking's come from its controller: "
        "use --torques with the passive, zero_gravity or sweep scenario",
        kHelp);
  }
  if (!request.scenario.trajectory_path.empty() &&
      request.scenario.kind != ScenarioKind::Tracking) {
    throw cli::UsageError(
        "--trajectory is the tracking scenario's reference: add --scenario tracking", kHelp);
  }
  return request;
}

/// Per-scenario defaults: duration [s] and step rates [Hz].
void applyDefaults(CompareRequest& request) {
  const ScenarioKind kind = request.scenario.kind;
  double duration = 2.0;
  if (kind == ScenarioKind::Passive) duration = 1.0;
  if (kind == ScenarioKind::Sweep) duration = 0.5;
  request.scenario.duration = request.duration.value_or(duration);
  if (kind == ScenarioKind::Sweep && !request.rates_given) {
    request.comparison.rates_hz = {60, 120, 240, 480, 960, 1920, 3840};
  }
  if (request.out.empty()) request.out = std::string("compare-") + toString(kind);
  if (request.scenario.ground && !request.engines_given) {
    request.comparison.engines = {EngineKind::RigidBody};
  }
}

/// The model of a .bullet file's world as the scenario simulates it, the world's state as the
/// initial one unless --q0 / --v0 say otherwise (zero_gravity: the scenario's own; tracking: the
/// sinusoids' centre, the run starting on them); notes on `err` what of the world the engines
/// leave out.
Model loadWorldModel(CompareRequest& request, std::ostream& err) {
  const inputs::BulletWorld world = inputs::loadBulletWorld(request);
  const Model& model = world.model();
  for (const std::string& warning : world.warnings()) {
    err << "gcbridge: warning: " << warning << '\n';
  }
  ScenarioOptions& options = request.scenario;
  if (options.kind == ScenarioKind::ZeroGravity && !model.floating_base) {
    throw InvalidArgumentError(
        "'" + request.path + "': the zero_gravity scenario needs a floating base, and " +
        (world.multibody ? "the multibody's base is fixed"
                         : "the root body '" + model.link_names[0] +
                               "' is attached to a static body (pick a root with --root NAME "
                               "that is not)"));
  }
  options.model_options.floating_base = model.floating_base;
  // A rigid-body tree keeps its fixed joints; a multibody's are merged unless --no-merge.
  options.model_options.merge_fixed_joints =
      world.multibody && request.model_options.merge_fixed_joints;
  options.model_options.gravity_W = model.gravity_W;
  if (options.kind == ScenarioKind::Tracking) {
    // The sinusoids about where the bodies are, the run starting on them.
    options.pose = world.q();
  } else if (options.kind != ScenarioKind::ZeroGravity) {
    if (!request.q0) options.q0 = world.q();
    if (!request.v0) options.v0 = world.v;
  }
  // A multibody's damping is among its warnings already.
  double linear = 0.0, angular = 0.0;
  for (const BodySettings& settings : world.inferred.body_settings) {
    linear = std::max(linear, settings.linear_damping);
    angular = std::max(angular, settings.angular_damping);
  }
  if (linear > 0.0 || angular > 0.0) {
    err << "gcbridge: note: '" << request.path << "': its bodies' velocity damping (linear up to "
        << linear << ", angular up to " << angular
        << ") is left out: every engine, rigid_body too, runs the model read from the file\n";
  }
  return scenarioModel(*model.description, options);
}

/// The model the request names: a URDF's, or a .bullet file's (loadWorldModel); the reader's
/// warnings on `err`.
Model loadCompareModel(CompareRequest& request, std::ostream& err) {
  if (cli::isBulletFile(request.path)) return loadWorldModel(request, err);
  Model model = loadScenarioModel(request.path, request.scenario);
  for (const std::string& warning : model.description->warnings) {
    err << "gcbridge: warning: " << warning << '\n';
  }
  return model;
}

/// The scenario's options with one --controller entry.
ScenarioOptions withController(const ScenarioOptions& options, const ControllerChoice& choice) {
  ScenarioOptions chosen = options;
  chosen.bullet_motors = choice.bullet_motors;
  chosen.controller = choice.mode;
  if (choice.actuation) chosen.actuation = *choice.actuation;
  return chosen;
}

/// The scenario of each --controller entry (one, the default controller, when none is given).
std::vector<Scenario> makeScenarios(const Model& model, const CompareRequest& request) {
  std::vector<ControllerChoice> choices = request.controllers;
  if (choices.empty()) choices.emplace_back();
  std::vector<Scenario> scenarios;
  for (const ControllerChoice& choice : choices) {
    scenarios.push_back(makeScenario(model, withController(request.scenario, choice)));
  }
  return scenarios;
}

/// The scenarios as the report names them: the first, with every controller's torques and notes.
Scenario describedTogether(const std::vector<Scenario>& scenarios) {
  Scenario shown = scenarios.front();
  for (size_t i = 1; i < scenarios.size(); ++i) {
    shown.torques += "; " + scenarios[i].torques;
    for (const std::string& note : scenarios[i].notes) {
      if (std::find(shown.notes.begin(), shown.notes.end(), note) == shown.notes.end()) {
        shown.notes.push_back(note);
      }
    }
  }
  return shown;
}

/// The command line as typed (for the report).
std::string commandLine(const std::vector<std::string>& args) {
  std::string line = "gcbridge compare";
  for (const std::string& arg : args) line += " " + arg;
  return line;
}

}  // namespace

int runCompareCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                      bool progress_default) {
  CompareRequest request = parseCompareArguments(args);
  if (request.help) {
    out << kCompareHelp;
    return 0;
  }
  applyDefaults(request);
  request.scenario.model_options = request.model_options;

  // The model (with the reader's warnings, as the other commands print them), then the initial
  // state checked against it.
  Model model = loadCompareModel(request, err);
  if (request.q0) request.scenario.q0 = cli::sizedList("--q0", *request.q0, model.nq, "nq", kHelp);
  if (request.v0) request.scenario.v0 = cli::sizedList("--v0", *request.v0, model.nv, "nv", kHelp);
  const std::vector<Scenario> scenarios = makeScenarios(model, request);
  const Scenario scenario = describedTogether(scenarios);
  // Steps, sample rate and duration must fit together: a mistake on the command line.
  try {
    checkTimeGrid(scenario, request.comparison);
  } catch (const InvalidArgumentError& e) {
    throw cli::UsageError(e.what(), kHelp);
  }

  // The output folder, made and checked before the run.
  std::optional<OutputFolder> folder;
  if (request.files) folder.emplace(request.out);

  // The comparison, with a progress bar if wanted.
  format::ProgressBar bar(err);
  if (request.progress.value_or(progress_default)) {
    request.comparison.progress = [&bar](double fraction, const std::string& what) {
      bar.update(fraction, what);
    };
  }
  const Comparison comparison = runComparison(scenarios, request.comparison);
  bar.finish();

  out << "gcbridge compare: " << scenario.model->name << ", scenario " << toString(scenario.kind)
      << ", " << scenario.duration << " s, torques: " << scenario.torques << "\n\n"
      << summaryTable(scenario, comparison);
  if (request.files) {
    RunDescription description{commandLine(args), request.path, request.comparison.rigid};
    const std::vector<std::string> files = writeOutputs(*folder, scenario, comparison, description);
    out << "\nWrote " << files.size() << " files to " << request.out << "/ (open " << request.out
        << "/report.html)\n";
  }
  return 0;
}

}  // namespace gcbridge::compare
