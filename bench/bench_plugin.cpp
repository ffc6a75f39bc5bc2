// bench_plugin: the plugin's overhead per substep next to Bullet's own substep of the same world,
// measured in the same run (the target: at most 5% on the iiwa, 8% on the humanoid).
//
// Models: the KUKA iiwa (fixed base) and the DeepMimic humanoid (floating base, ball joints),
// each built by buildRigidBodyWorld with its collision shapes (mesh hulls for the iiwa, capsules
// and boxes for the humanoid) and the default options (substep 1/240 s, 10 solver iterations).
// Two computed-torque controllers toward q_ref, the configuration the world was built at
// (gains per dof K = 100, D = 20), both tau = M(q) (K (q_ref (-) q) - D v) + h(q, v):
//   ct      the library's ComputedTorque (controllers/computed_torque.hpp): M qdd* + h as one
//           RNEA with the commanded acceleration, as users run it.
//   ct_Mh   M and h formed explicitly: crba + nonLinearEffects + one matrix-vector product (what
//           a controller that needs M itself, e.g. for a task-space law, pays).
//
// Benchmarks (job/model/library):
//   plugin_substep_ct, plugin_substep_ct_Mh
//                   gcbridge: the world's pre-tick and post-tick callbacks, called as
//                   stepSimulation calls them, exactly what the plugin adds to one substep: its
//                   dispatcher, then read q, v (sparse), run the controller, add the joint
//                   forces, take them out again.
//   direct_ct, direct_ct_Mh
//                   gcbridge: the same work called directly, without the plugin and its
//                   dispatcher: readState, the controller, the bridge's unchecked forces (the
//                   plugin's path) and removeJointForces.
//   controller_ct, controller_ct_Mh
//                   gcbridge: the controller alone.
//   substep         btRigidBody_world: one stepSimulation(h, 1, h) of the same world without the
//                   plugin; every 25 substeps the timer pauses and the state is written back, so
//                   the world stays near the configuration it was built at.
// The summary gives plugin_substep / substep per model and controller, and splits the plugin's
// share into the controller alone, the bridge beside it (direct - controller) and the plugin's
// own layer (plugin_substep - direct).
//
// Run: bench_plugin [--benchmark_min_time=0.2] [--benchmark_enable_random_interleaving=true]

#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_models.hpp"
#include "gcbridge/bridge/detail/unchecked.hpp"
#include "gcbridge/bridge/force_conversion.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/controllers/computed_torque.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "gcbridge/plugin/plugin.hpp"

namespace gcbridge {
namespace {

constexpr double kH = 1.0 / 240.0;
constexpr int kResetPeriod = 25;

/// A model, its world built at q0, and the computed-torque controller.
struct Subject {
  std::string name;
  Model model;
  Eigen::VectorXd q0;
};

std::vector<Subject> makeSubjects() {
  std::vector<Subject> subjects;
  subjects.push_back({"iiwa", bench::iiwaModel(), {}});
  subjects.push_back({"humanoid", bench::humanoidModel(), {}});
  for (Subject& s : subjects) s.q0 = randomConfiguration(s.model, bench::kSeed);
  return subjects;
}

/// The two computed-torque controllers of the file comment.
enum class Law { CT, CTMh };

const char* toString(Law law) { return law == Law::CT ? "ct" : "ct_Mh"; }

/// Computed torque toward s.q0 (gains per dof 100 / 20), allocation-free per call.
ControlFunction computedTorque(const Subject& s, Law law) {
  const Eigen::VectorXd K = Eigen::VectorXd::Constant(s.model.nv, 100.0);
  const Eigen::VectorXd D = Eigen::VectorXd::Constant(s.model.nv, 20.0);
  if (law == Law::CT) {
    auto controller = std::make_shared<ComputedTorque>(s.model, K, D);
    controller->setSetPoint(s.q0);
    return [controller](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                        Eigen::VectorXd& tau) { tau = controller->compute(t, q, v); };
  }
  auto data = std::make_shared<Data>(s.model);
  auto qdd = std::make_shared<Eigen::VectorXd>(s.model.nv);
  const Model* model = &s.model;
  const Eigen::VectorXd* q_ref = &s.q0;
  return [model, data, qdd, q_ref, K, D](double, const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
    difference(*model, q, *q_ref, *qdd);
    *qdd = K.cwiseProduct(*qdd) - D.cwiseProduct(v);
    crba(*model, *data, q);
    nonLinearEffects(*model, *data, q, v);
    tau.noalias() = data->M * *qdd;
    tau += data->h;
  };
}

/// Reads the world's tick callbacks (btDynamicsWorld keeps them protected, without a getter):
/// a pointer to member named through a derived class is the legal way in.
struct TickCallbacks : btDynamicsWorld {
  static btInternalTickCallback pre(const btDynamicsWorld& world) {
    return world.*(&TickCallbacks::m_internalPreTickCallback);
  }
  static btInternalTickCallback post(const btDynamicsWorld& world) {
    return world.*(&TickCallbacks::m_internalTickCallback);
  }
};

void pluginSubstep(benchmark::State& state, const Subject* s, Law law) {
  auto w = buildRigidBodyWorld(s->model, {}, s->q0);
  auto plugin = attach(*w->world, s->model, *w->map, computedTorque(*s, law));
  btDynamicsWorld* world = w->world.get();
  const btInternalTickCallback pre = TickCallbacks::pre(*world);
  const btInternalTickCallback post = TickCallbacks::post(*world);
  for (auto _ : state) {
    pre(world, kH);
    post(world, kH);
  }
  if (plugin->substeps() == 0) state.SkipWithError("the tick callbacks did not run the plugin");
  if (!plugin->last().error.empty()) state.SkipWithError(plugin->last().error.c_str());
}

void direct(benchmark::State& state, const Subject* s, Law law) {
  auto w = buildRigidBodyWorld(s->model, {}, s->q0);
  const ControlFunction controller = computedTorque(*s, law);
  BridgeData bdata(s->model);
  Eigen::VectorXd q(s->model.nq), v(s->model.nv), tau(s->model.nv);
  for (auto _ : state) {
    readState(s->model, *w->map, bdata, q, v);
    controller(0.0, q, v, tau);
    detail::addJointForcesUnchecked(s->model, *w->map, bdata, tau);
    removeJointForces(s->model, *w->map, bdata);
  }
}

void controllerOnly(benchmark::State& state, const Subject* s, Law law) {
  const ControlFunction controller = computedTorque(*s, law);
  const Eigen::VectorXd v = Eigen::VectorXd::Zero(s->model.nv);
  Eigen::VectorXd tau(s->model.nv);
  for (auto _ : state) {
    controller(0.0, s->q0, v, tau);
    benchmark::DoNotOptimize(tau.data());
  }
}

void bulletSubstep(benchmark::State& state, const Subject* s) {
  auto w = buildRigidBodyWorld(s->model, {}, s->q0);
  BridgeData bdata(s->model);
  const Eigen::VectorXd v0 = Eigen::VectorXd::Zero(s->model.nv);
  int since_reset = 0;
  for (auto _ : state) {
    w->world->stepSimulation(kH, 1, kH);
    if (++since_reset == kResetPeriod) {
      state.PauseTiming();
      writeState(s->model, *w->map, bdata, s->q0, v0);
      since_reset = 0;
      state.ResumeTiming();
    }
  }
}

void registerBenchmarks(const std::vector<Subject>& subjects) {
  for (const Subject& s : subjects) {
    for (Law law : {Law::CT, Law::CTMh}) {
      const std::string suffix = std::string("_") + toString(law) + "/" + s.name + "/gcbridge";
      bench::registerBenchmark("plugin_substep" + suffix, pluginSubstep, &s, law);
      bench::registerBenchmark("direct" + suffix, direct, &s, law);
      bench::registerBenchmark("controller" + suffix, controllerOnly, &s, law);
    }
    bench::registerBenchmark("substep/" + s.name + "/btRigidBody_world", bulletSubstep, &s);
  }
}

/// The plugin's share split, from the medians: the controller alone, the bridge beside it
/// (direct - controller) and the plugin's own layer (plugin_substep - direct), each as a share of
/// the substep.
void printSplit(const std::vector<Subject>& subjects, const bench::Timings& timings,
                std::ostream& out) {
  const auto median = [&](const std::string& name) {
    const auto it = timings.median.find(name);
    return it == timings.median.end() ? -1.0 : it->second;
  };
  std::string lines;
  for (const Subject& s : subjects) {
    for (Law law : {Law::CT, Law::CTMh}) {
      const std::string suffix = std::string("_") + toString(law) + "/" + s.name + "/gcbridge";
      const double plugin = median("plugin_substep" + suffix);
      const double direct_work = median("direct" + suffix);
      const double controller = median("controller" + suffix);
      const double substep = median("substep/" + s.name + "/btRigidBody_world");
      if (plugin < 0.0 || direct_work < 0.0 || controller < 0.0 || substep <= 0.0) continue;
      char line[224];
      std::snprintf(line, sizeof line,
                    "%-10s %-6s %5.2f%% = controller %5.2f%% + bridge %5.2f%% + plugin layer "
                    "%5.2f%%",
                    s.name.c_str(), toString(law), 100.0 * plugin / substep,
                    100.0 * controller / substep, 100.0 * (direct_work - controller) / substep,
                    100.0 * (plugin - direct_work) / substep);
      lines += std::string(line) + "\n";
    }
  }
  if (lines.empty()) return;
  out << "\nThe plugin's share split (medians, % of the substep): controller alone + the bridge "
         "beside it (direct - controller) + the plugin's layer (plugin_substep - direct):\n"
      << lines;
}

/// plugin_substep / substep per model and law, from the medians over the repetitions and, when
/// there were repetitions, from the fastest.
void printRatios(const std::vector<Subject>& subjects, const bench::Timings& timings,
                 std::ostream& out) {
  out << "\nplugin_substep / substep (target: iiwa <= 5%, humanoid <= 8%):\n";
  for (const Subject& s : subjects) {
    for (Law law : {Law::CT, Law::CTMh}) {
      const std::string plugin =
          std::string("plugin_substep_") + toString(law) + "/" + s.name + "/gcbridge";
      const std::string substep = "substep/" + s.name + "/btRigidBody_world";
      const auto median_plugin = timings.median.find(plugin);
      const auto median_substep = timings.median.find(substep);
      if (median_plugin == timings.median.end() || median_substep == timings.median.end()) continue;
      char line[224];
      const int length = std::snprintf(
          line, sizeof line, "%-10s %-6s plugin %8.0f ns  substep %8.0f ns  %5.1f%%",
          s.name.c_str(), toString(law), median_plugin->second, median_substep->second,
          100.0 * median_plugin->second / median_substep->second);
      const auto fastest_plugin = timings.fastest.find(plugin);
      const auto fastest_substep = timings.fastest.find(substep);
      if (fastest_plugin != timings.fastest.end() && fastest_substep != timings.fastest.end()) {
        std::snprintf(line + length, sizeof line - length,
                      "   fastest: plugin %8.0f ns  substep %8.0f ns  %5.1f%%",
                      fastest_plugin->second, fastest_substep->second,
                      100.0 * fastest_plugin->second / fastest_substep->second);
      }
      out << line << "\n";
    }
  }
  printSplit(subjects, timings, out);
}

}  // namespace
}  // namespace gcbridge

int main(int argc, char** argv) {
  const std::vector<gcbridge::Subject>* registered = nullptr;
  return gcbridge::bench::runBenchmarkProgram(
      argc, argv, "bench_plugin", "per_call", "time per substep", gcbridge::makeSubjects,
      [&](const std::vector<gcbridge::Subject>& subjects) {
        registered = &subjects;
        gcbridge::registerBenchmarks(subjects);
      },
      [&](const gcbridge::bench::Timings& timings, std::ostream& out) {
        gcbridge::printRatios(*registered, timings, out);
      });
}
