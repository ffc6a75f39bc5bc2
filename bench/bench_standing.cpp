// bench_standing: the contact-aware controller per substep next to the Bullet substep it runs in,
// measured in the same run (targets: the controller within one substep, then within half of one).
//
// Model: the DeepMimic humanoid (floating base, nv = 34) standing on the ground plane of a world
// built by buildRigidBodyWorld (collision shapes on, substep 1/240 s, 10 solver iterations), its
// two box feet flat on the plane: 8 contact points, the soles' corners (boxSoleCorners).
//
// Benchmarks (job/model/library):
//   controller_qp, controller_projected
//                   gcbridge: FloatingBaseController::compute with the 8 contacts, at the standing
//                   pose with a small velocity (both solvers; the QP warm-started by the last
//                   call, as it runs substep after substep).
//   terms           gcbridge: what any floating-base inverse dynamics with contacts starts from:
//                   M (crba), h (nonLinearEffects), J_c and A_G from one pass at q, dJ_c v and
//                   dA_G v from one at (q, v), as the controller computes them; a lower bound
//                   for the controller.
//   contacts_read   gcbridge: readContacts with the declared soles (what the plugin does before
//                   each run: Bullet's manifolds read, the corners switched).
//   substep         btRigidBody_world: one stepSimulation(h, 1, h) of the standing world without
//                   a controller; every 25 substeps the timer pauses and the standing state is
//                   written back, so the feet stay on the ground with their contacts.
// The summary gives controller / substep per solver, and the QP controller's median, p95 and max
// over single calls at changing velocities.
//
// Run: bench_standing [--benchmark_min_time=0.2] [--benchmark_enable_random_interleaving=true]

#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_models.hpp"
#include "gcbridge/bridge/contact_reading.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/controllers/floating_base_controller.hpp"
#include "gcbridge/dynamics/centroidal.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/contacts.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace gcbridge {
namespace {

constexpr double kH = 1.0 / 240.0;
constexpr int kResetPeriod = 25;
constexpr int kSpreadCalls = 20000;
constexpr int kSpreadVelocities = 64;

/// The humanoid standing: its pose (z up, the feet's boxes on z = 0) and soles' corners.
struct Subject {
  std::string name = "humanoid_standing";
  Model model = bench::humanoidModel();
  Eigen::VectorXd q;
  Eigen::VectorXd v;
  std::vector<ContactPoint> soles;

  Subject() {
    q = neutralConfiguration(model);
    q.segment<7>(0) << 0.0, 0.0, 3.5257, std::sin(M_PI_4), 0.0, 0.0, std::cos(M_PI_4);
    v = randomVector(model.nv, bench::kSeed, 0.05);
    Data data(model);
    for (const char* foot : {"left_ankle", "right_ankle"}) {
      for (const ContactPoint& c :
           boxSoleCorners(model, data, q, model.linkIndex(foot), Vector3::UnitZ(), 0.25)) {
        soles.push_back(c);
      }
    }
  }
};

std::vector<Subject> makeSubjects() { return std::vector<Subject>(1); }

void controller(benchmark::State& state, const Subject* s, FloatingBaseSolver solver) {
  FloatingBaseController controller(s->model, solver);
  controller.setSetPoint(s->q);
  controller.setContacts(s->soles);
  for (auto _ : state) {
    benchmark::DoNotOptimize(controller.compute(0.0, s->q, s->v).data());
  }
  if (controller.status() != FloatingBaseStatus::Ok)
    state.SkipWithError(controller.message().c_str());
}

void terms(benchmark::State& state, const Subject* s) {
  Data data(s->model);
  const int nv = s->model.nv;
  Eigen::MatrixXd J_c(3 * s->soles.size(), nv), A_G(6, nv);
  Eigen::VectorXd dJ_c_v(3 * s->soles.size());
  for (auto _ : state) {
    crba(s->model, data, s->q);
    nonLinearEffects(s->model, data, s->q, s->v);
    computeJointJacobians(s->model, data, s->q);
    contactJacobian(s->model, data, s->soles, J_c);
    centroidalMomentumMatrix(s->model, data, A_G);
    forwardKinematics(s->model, data, s->q, s->v, data.zero_v);
    benchmark::DoNotOptimize(centroidalMomentumTimeVariation(s->model, data));
    contactJacobianTimeVariation(s->model, data, s->soles, dJ_c_v);
    benchmark::DoNotOptimize(dJ_c_v.data());
  }
}

/// The standing world, stepped once so that its manifolds hold the feet's contacts.
std::unique_ptr<RigidBodyWorld> standingWorld(const Subject& s) {
  RigidBodyOptions options;
  options.ground_plane = true;
  auto world = buildRigidBodyWorld(s.model, options, s.q);
  for (int i = 0; i < 4; ++i) world->step();
  return world;
}

void contactsRead(benchmark::State& state, const Subject* s) {
  auto world = standingWorld(*s);
  ContactFrames frames(s->model);
  for (std::size_t i = 0; i < s->soles.size(); ++i) frames.add(std::to_string(i), s->soles[i]);
  for (auto _ : state) {
    benchmark::DoNotOptimize(readContacts(s->model, *world->map, frames).data());
  }
  if (frames.active().size() != s->soles.size()) state.SkipWithError("the feet do not touch");
}

void bulletSubstep(benchmark::State& state, const Subject* s) {
  auto world = standingWorld(*s);
  BridgeData bdata(s->model);
  const Eigen::VectorXd v0 = Eigen::VectorXd::Zero(s->model.nv);
  int since_reset = 0;
  for (auto _ : state) {
    world->world->stepSimulation(kH, 1, kH);
    if (++since_reset == kResetPeriod) {
      state.PauseTiming();
      writeState(s->model, *world->map, bdata, s->q, v0);
      since_reset = 0;
      state.ResumeTiming();
    }
  }
}

void registerBenchmarks(const std::vector<Subject>& subjects) {
  const Subject& s = subjects.front();
  for (FloatingBaseSolver solver : {FloatingBaseSolver::Qp, FloatingBaseSolver::Projected}) {
    bench::registerBenchmark(
        std::string("controller_") + toString(solver) + "/" + s.name + "/gcbridge", controller, &s,
        solver);
  }
  bench::registerBenchmark("terms/" + s.name + "/gcbridge", terms, &s);
  bench::registerBenchmark("contacts_read/" + s.name + "/gcbridge", contactsRead, &s);
  bench::registerBenchmark("substep/" + s.name + "/btRigidBody_world", bulletSubstep, &s);
}

/// controller / substep per solver, from the medians.
void printRatios(const std::vector<Subject>& subjects, const bench::Timings& timings,
                 std::ostream& out) {
  const std::string& name = subjects.front().name;
  const auto substep = timings.median.find("substep/" + name + "/btRigidBody_world");
  if (substep == timings.median.end()) return;
  out << "\ncontroller / substep (targets: within one substep, then within half of one):\n";
  for (const char* solver : {"qp", "projected"}) {
    const auto c =
        timings.median.find(std::string("controller_") + solver + "/" + name + "/gcbridge");
    if (c == timings.median.end()) continue;
    char line[160];
    std::snprintf(line, sizeof line, "%-10s controller %8.0f ns  substep %8.0f ns  %6.1f%%", solver,
                  c->second, substep->second, 100.0 * c->second / substep->second);
    out << line << "\n";
  }
  for (const char* job : {"terms", "contacts_read"}) {
    const auto t = timings.median.find(std::string(job) + "/" + name + "/gcbridge");
    if (t == timings.median.end()) continue;
    char line[160];
    std::snprintf(line, sizeof line, "%-13s %8.0f ns  %6.1f%% of the substep", job, t->second,
                  100.0 * t->second / substep->second);
    out << line << "\n";
  }
}

/// The QP controller's spread over single calls: kSpreadCalls calls, each timed alone, cycling
/// through kSpreadVelocities small random velocities (so that the QP's warm start from the call
/// before is sometimes wrong, as along a run): median, p95 and max [ns].
void printPerCallSpread(const Subject& s, std::ostream& out) {
  FloatingBaseController controller(s.model, FloatingBaseSolver::Qp);
  controller.setSetPoint(s.q);
  controller.setContacts(s.soles);
  std::vector<Eigen::VectorXd> velocities;
  for (int k = 0; k < kSpreadVelocities; ++k) {
    velocities.push_back(randomVector(s.model.nv, bench::kSeed + 1 + k, 0.05));
  }
  std::vector<double> ns(kSpreadCalls);
  for (int i = 0; i < kSpreadCalls; ++i) {
    const Eigen::VectorXd& v = velocities[i % kSpreadVelocities];
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(controller.compute(0.0, s.q, v).data());
    ns[i] =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  }
  std::sort(ns.begin(), ns.end());
  char line[160];
  std::snprintf(line, sizeof line,
                "qp per call over %d velocities: median %.0f ns, p95 %.0f ns, max %.0f ns\n",
                kSpreadVelocities, ns[ns.size() / 2], ns[ns.size() * 95 / 100], ns.back());
  out << line;
}

}  // namespace
}  // namespace gcbridge

int main(int argc, char** argv) {
  const std::vector<gcbridge::Subject>* registered = nullptr;
  return gcbridge::bench::runBenchmarkProgram(
      argc, argv, "bench_standing", "per_call", "time per substep", gcbridge::makeSubjects,
      [&](const std::vector<gcbridge::Subject>& subjects) {
        registered = &subjects;
        gcbridge::registerBenchmarks(subjects);
      },
      [&](const gcbridge::bench::Timings& timings, std::ostream& out) {
        gcbridge::printRatios(*registered, timings, out);
        gcbridge::printPerCallSpread(registered->front(), out);
      });
}
