// bench_dynamics: the cost of gcbridge's dynamics algorithms, with Bullet's btMultiBody forward
// dynamics measured in the same run as the peer.
//
// Models: the KUKA iiwa (7 revolute), the DeepMimic humanoid with a floating base (free + 8 ball
// + 4 revolute, nv = 34) and serial revolute chains of 4, 16, 64 and 256 links, built as in
// bench_kinematics (ModelBuilder; axes alternating x, y; links 0.2 m long along z, 1 kg, COM at
// mid-length). The btMultiBody peers are the same models made by gcbridge::buildMultiBody
// (no damping, no clamps, gyroscopic term on, no colliders).
//
// Benchmarks are named job/model/library:
//   rnea           gcbridge: rnea(q, v, a), inverse dynamics.
//   crba           gcbridge: crba(q), the joint-space inertia matrix.
//   aba            gcbridge: aba(q, v, tau), forward dynamics.
//                  btMultiBody: computeAccelerationsArticulatedBodyAlgorithmMultiDof(dt = 0) at
//                  the same state, torques and gravity (as forces m g at the COMs, what the world
//                  adds before each step), all written into the body before timing; dt = 0 leaves
//                  the velocities alone, so every call does the same work.
//   nle            gcbridge: nonLinearEffects(q, v) = C(q, v) v + g(q).
//   rnea_derivatives  gcbridge: rneaDerivatives(q, v, a): d tau / dq, d tau / dv and M.
//   aba_derivatives   gcbridge: abaDerivatives(q, v, tau): d qdd / dq, d qdd / dv and M^-1.
//                  gcbridge_fd: what forward differences of the ABA cost for the same two
//                  matrices, 2 nv + 1 aba calls (a q (+) e e_j and a v + e e_j per dof, and the
//                  base point).
//   jacobians_all  gcbridge: computeJointJacobians(q) + frameJacobian of every model frame (one
//                  per URDF link), LocalWorldAligned, 6 x nv each. No btMultiBody peer.
//   step           btMultiBody_world: setMultiBodyState(q, v) + setMultiBodyJointTorques(tau) +
//                  one btMultiBodyDynamicsWorld::stepSimulation(1 ms, 0) (a whole internal step:
//                  gravity, Bullet's ABA, an empty constraint solve, position update). The state
//                  is written each time so that every step starts from the same one.
// Counters: links, dofs, and per_dof = time per call / number of degrees of freedom.
// Before timing, each btMultiBody benchmark checks that Bullet's accelerations (from the ABA call,
// or (v1 - v0) / dt of the step) equal gcbridge's aba to 1e-9 relative (1e-3 in single precision)
// and reports an error instead of a time if not.
//
// Run: bench_dynamics [--benchmark_min_time=0.2] [--benchmark_enable_random_interleaving=true]
//      [--benchmark_filter=aba/]

#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "bench_models.hpp"
#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/multibody_builder.hpp"
#include "gcbridge/dynamics.hpp"
#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/derivatives.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace {

using namespace gcbridge::bench;

using gcbridge::Matrix3;
using gcbridge::Transform;
using gcbridge::Vector3;

constexpr double kStep = 1e-3;  // Bullet's time step [s]
// Agreement required between Bullet's and gcbridge's accelerations, in Bullet's precision.
constexpr double kTolerance = sizeof(btScalar) == 8 ? 1e-9 : 1e-3;

/// A model to benchmark, with its inputs.
struct Subject {
  std::string name;
  gcbridge::Model model;
  Eigen::VectorXd q;    ///< random configuration (size nq)
  Eigen::VectorXd v;    ///< random velocity (size nv)
  Eigen::VectorXd a;    ///< random acceleration (size nv)
  Eigen::VectorXd tau;  ///< random joint forces (size nv)
};

Subject makeSubject(std::string name, gcbridge::Model model) {
  Subject s;
  s.name = std::move(name);
  s.q = gcbridge::randomConfiguration(model, kSeed);
  s.v = gcbridge::randomVector(model.nv, kSeed + 1);
  s.a = gcbridge::randomVector(model.nv, kSeed + 2);
  s.tau = gcbridge::randomVector(model.nv, kSeed + 3, 10.0);
  s.model = std::move(model);
  return s;
}

std::vector<Subject> makeSubjects() {
  std::vector<Subject> subjects;
  subjects.push_back(makeSubject("iiwa", iiwaModel()));
  subjects.push_back(makeSubject("humanoid", humanoidModel()));
  for (int n : kChainLengths)
    subjects.push_back(makeSubject("chain" + std::to_string(n), chainModel(n)));
  return subjects;
}

void setCounters(benchmark::State& state, const Subject& s) {
  state.counters["links"] = s.model.numLinks();
  state.counters["dofs"] = s.model.nv;
  state.counters["per_dof"] = benchmark::Counter(
      s.model.nv, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// ---------------------------------------------------------------------------------------------
// gcbridge.

void gcbridgeRnea(benchmark::State& state, const Subject* s) {
  gcbridge::Data data(s->model);
  for (auto _ : state) {
    benchmark::DoNotOptimize(gcbridge::rnea(s->model, data, s->q, s->v, s->a).data());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void gcbridgeCrba(benchmark::State& state, const Subject* s) {
  gcbridge::Data data(s->model);
  for (auto _ : state) {
    benchmark::DoNotOptimize(gcbridge::crba(s->model, data, s->q).data());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void gcbridgeAba(benchmark::State& state, const Subject* s) {
  gcbridge::Data data(s->model);
  for (auto _ : state) {
    benchmark::DoNotOptimize(gcbridge::aba(s->model, data, s->q, s->v, s->tau).data());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void gcbridgeNonLinearEffects(benchmark::State& state, const Subject* s) {
  gcbridge::Data data(s->model);
  for (auto _ : state) {
    benchmark::DoNotOptimize(gcbridge::nonLinearEffects(s->model, data, s->q, s->v).data());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void gcbridgeRneaDerivatives(benchmark::State& state, const Subject* s) {
  gcbridge::Data data(s->model);
  for (auto _ : state) {
    gcbridge::rneaDerivatives(s->model, data, s->q, s->v, s->a);
    benchmark::DoNotOptimize(data.dtau_dq.data());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void gcbridgeAbaDerivatives(benchmark::State& state, const Subject* s) {
  gcbridge::Data data(s->model);
  for (auto _ : state) {
    gcbridge::abaDerivatives(s->model, data, s->q, s->v, s->tau);
    benchmark::DoNotOptimize(data.dqdd_dq.data());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void gcbridgeAbaFiniteDifferences(benchmark::State& state, const Subject* s) {
  gcbridge::Data data(s->model);
  Eigen::VectorXd v = s->v, q_step(s->model.nq), e = Eigen::VectorXd::Zero(s->model.nv);
  for (auto _ : state) {
    benchmark::DoNotOptimize(gcbridge::aba(s->model, data, s->q, v, s->tau).data());
    for (int i = 0; i < s->model.nv; ++i) {
      e[i] = 1e-7;
      gcbridge::integrate(s->model, s->q, e, 1.0, q_step);
      benchmark::DoNotOptimize(gcbridge::aba(s->model, data, q_step, v, s->tau).data());
      e[i] = 0.0;
      v[i] += 1e-7;
      benchmark::DoNotOptimize(gcbridge::aba(s->model, data, s->q, v, s->tau).data());
      v[i] = s->v[i];
    }
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void gcbridgeJacobiansAll(benchmark::State& state, const Subject* s) {
  gcbridge::Data data(s->model);
  Eigen::MatrixXd J(6, s->model.nv);
  for (auto _ : state) {
    gcbridge::computeJointJacobians(s->model, data, s->q);
    for (const gcbridge::Frame& frame : s->model.frames) {
      gcbridge::frameJacobian(s->model, data, frame.link, frame.X_BF,
                              gcbridge::ReferenceFrame::LocalWorldAligned, J);
      benchmark::DoNotOptimize(J.data());
    }
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

// ---------------------------------------------------------------------------------------------
// btMultiBody.

/// The subject's btMultiBody (made by buildMultiBody) with Bullet's scratch buffers, and the
/// check of its accelerations against gcbridge's aba.
class BulletPeer {
 public:
  explicit BulletPeer(const Subject& s)
      : subject_(s), world_(gcbridge::buildMultiBody(s.model)), body_(*world_->body) {}

  /// Writes the subject's state and torques into the body, and gravity as forces at the COMs.
  void prepareAba() {
    body_.clearForcesAndTorques();
    setStateAndTorques();
    const btVector3 g = world_->world->getGravity();
    body_.addBaseForce(g * body_.getBaseMass());
    for (int i = 0; i < body_.getNumLinks(); ++i) body_.addLinkForce(i, g * body_.getLinkMass(i));
  }

  /// Bullet's ABA at the prepared state; the accelerations land in scratch_r_.
  void aba() {
    body_.computeAccelerationsArticulatedBodyAlgorithmMultiDof(0.0, scratch_r_, scratch_v_,
                                                               scratch_m_, false, false, false);
  }

  /// From the subject's state and torques, one world step.
  void step() {
    setStateAndTorques();
    world_->world->stepSimulation(kStep, 0);
  }

  /// "" if Bullet's ABA call agrees with gcbridge's aba, else by how much it differs.
  /// Leaves the body prepared for aba().
  std::string abaMismatch() {
    prepareAba();
    aba();
    return compare("btMultiBody ABA", &scratch_r_[body_.getNumDofs()]);
  }

  /// "" if one world step's (v1 - v0) / dt agrees with gcbridge's aba, else by how much it
  /// differs.
  std::string stepMismatch() {
    setStateAndTorques();
    const int n = 6 + body_.getNumDofs();
    const std::vector<btScalar> v0(body_.getVelocityVector(), body_.getVelocityVector() + n);
    world_->world->stepSimulation(kStep, 0);
    std::vector<btScalar> dv(n);
    for (int i = 0; i < n; ++i) dv[i] = (body_.getVelocityVector()[i] - v0[i]) / kStep;
    // Converted at the state the accelerations belong to.
    gcbridge::setMultiBodyState(subject_.model, world_->layout, body_, subject_.q, subject_.v);
    return compare("one btMultiBody world step", dv.data());
  }

  const btScalar* accelerations() const { return &scratch_r_[body_.getNumDofs()]; }

 private:
  void setStateAndTorques() {
    const gcbridge::MultiBodyLayout& layout = world_->layout;
    gcbridge::setMultiBodyState(subject_.model, layout, body_, subject_.q, subject_.v);
    gcbridge::setMultiBodyJointTorques(subject_.model, layout, body_, subject_.tau);
  }

  /// "" if Bullet's accelerations (its layout) equal gcbridge's aba to kTolerance relative to the
  /// largest entry (floor 1), else a sentence saying by how much they differ.
  std::string compare(const std::string& what, const btScalar* bullet) const {
    const gcbridge::Model& model = subject_.model;
    gcbridge::Data data(model);
    const Eigen::VectorXd& expected =
        gcbridge::aba(model, data, subject_.q, subject_.v, subject_.tau);
    Eigen::VectorXd a;
    gcbridge::getMultiBodyAcceleration(model, world_->layout, body_, bullet, a);
    const double error =
        (a - expected).cwiseAbs().maxCoeff() / std::max(1.0, expected.cwiseAbs().maxCoeff());
    if (error <= kTolerance) return "";
    char text[32];
    std::snprintf(text, sizeof text, "%.1e", error);
    return what + " accelerations differ from gcbridge's aba by " + text + " (relative)";
  }

  const Subject& subject_;
  std::unique_ptr<gcbridge::MultiBodyWorld> world_;
  btMultiBody& body_;
  btAlignedObjectArray<btScalar> scratch_r_;
  btAlignedObjectArray<btVector3> scratch_v_;
  btAlignedObjectArray<btMatrix3x3> scratch_m_;
};

/// On a mismatch the benchmark reports an error and skips.
bool agrees(benchmark::State& state, const std::string& mismatch) {
  if (mismatch.empty()) return true;
  state.SkipWithError(mismatch.c_str());
  return false;
}

void bulletAba(benchmark::State& state, const Subject* s) {
  BulletPeer peer(*s);
  if (!agrees(state, peer.abaMismatch())) return;
  for (auto _ : state) {
    peer.aba();
    benchmark::DoNotOptimize(peer.accelerations());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void bulletStep(benchmark::State& state, const Subject* s) {
  BulletPeer peer(*s);
  if (!agrees(state, peer.stepMismatch())) return;
  for (auto _ : state) {
    peer.step();
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

/// Registers job/model/library for every job and model.
void registerBenchmarks(const std::vector<Subject>& subjects) {
  using Function = void (*)(benchmark::State&, const Subject*);
  struct Entry {
    const char* job;
    const char* library;
    Function function;
  };
  const Entry entries[] = {
      {"rnea", "gcbridge", gcbridgeRnea},
      {"crba", "gcbridge", gcbridgeCrba},
      {"aba", "gcbridge", gcbridgeAba},
      {"aba", "btMultiBody", bulletAba},
      {"nle", "gcbridge", gcbridgeNonLinearEffects},
      {"rnea_derivatives", "gcbridge", gcbridgeRneaDerivatives},
      {"aba_derivatives", "gcbridge", gcbridgeAbaDerivatives},
      {"aba_derivatives", "gcbridge_fd", gcbridgeAbaFiniteDifferences},
      {"jacobians_all", "gcbridge", gcbridgeJacobiansAll},
      {"step", "btMultiBody_world", bulletStep},
  };
  for (const Entry& entry : entries) {
    for (const Subject& s : subjects) {
      const std::string name = std::string(entry.job) + "/" + s.name + "/" + entry.library;
      benchmark::RegisterBenchmark(name.c_str(), entry.function, &s);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  return gcbridge::bench::runBenchmarkProgram(argc, argv, "bench_dynamics", "per_dof",
                                              "time per call / number of degrees of freedom",
                                              makeSubjects, registerBenchmarks);
}
