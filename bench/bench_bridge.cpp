// bench_bridge: the cost of converting between a rigid-body Bullet world (maximal coordinates)
// and the model's generalized coordinates, with one substep of that same Bullet world measured in
// the same run as the peer: the bridge runs once per substep, so its cost is read as a fraction
// of Bullet's own.
//
// Models: the KUKA iiwa (7 revolute, fixed base), the DeepMimic humanoid with a floating base
// (free + 8 ball + 4 revolute, nv = 34) and serial revolute chains of 4, 16, 64 and 256 links
// (bench_models.hpp, as in bench_kinematics and bench_dynamics). Each is built once by
// buildRigidBodyWorld at a random q and v (the seeds of bench_dynamics) with the default options
// (substep h = 1/240 s, 10 solver iterations, ERP 0.2, the model's gravity), twice: with the
// model's collision shapes (the default, the world a user of the builder simulates: the target's
// "Bullet's own substep for the same system"), and without (collision_shapes = false: Bullet's
// substep is then only its integration and constraint solve, the smallest it can be, a stricter
// peer). The bridge runs on the world without shapes (its cost does not depend on them). Every
// benchmark starts by writing (q, v) into the world (writeState).
//
// Benchmarks are named job/model/library:
//   positions                  gcbridge: readPositions (map.validate, link poses from the bodies,
//                              q from their relative transforms).
//   velocities_sparse          gcbridge: readVelocities(Sparse): per joint, from the relative
//                              velocity of its two bodies (O(n), no allocation).
//   velocities_pseudo_inverse  gcbridge: readVelocities(PseudoInverse): the stacked 6n x nv
//                              Jacobian and its least-squares solve (column-pivoting QR).
//   velocities_mass_weighted   gcbridge: readVelocities(MassWeighted): (J^T M_c J)^-1 J^T M_c V.
//                              The three velocity jobs call readPositions once before timing; only
//                              the velocity read is timed.
//   state_sparse               gcbridge: readState (readPositions + readVelocities(Sparse), each
//                              joint visited once for both), the full state read of one substep.
//   apply_joint_impulses       gcbridge: applyJointImpulses(tau, h): joint forces to per-body
//                              wrenches, applied as impulses F h, tau h. Iterations alternate tau
//                              and -tau, so the bodies' velocities come back every second call
//                              and the world stays where it was.
//   add_remove_joint_forces    gcbridge: addJointForces(tau) + removeJointForces: the same
//                              wrenches put into the bodies' force accumulators and taken out
//                              again, the exact path (force_conversion.hpp) whose two halves run
//                              in the pre-tick and post-tick callbacks of a substep.
//   bridge_substep             gcbridge: what a controller adds to one substep, as it runs:
//                              readState + applyJointImpulses (tau and -tau alternating); the
//                              read and the impulses each check the world against the map.
//   bridge_substep_forces      gcbridge: the same with addJointForces + removeJointForces in
//                              place of the impulses (the plugin's path).
//                              hand_fused: the same work written out for these models' joints
//                              in plain loops, with the bridge's checks (hand_fused_bridge.hpp):
//                              the peer the bridge's generic kernels are measured against (a
//                              model with other joints would report which one it lacks).
//   substep                    btRigidBody_world: one world->stepSimulation(h, 1, h) (gravity,
//                              integration, 10 sequential-impulse iterations over the joints).
//                              Every kResetPeriod substeps the timer is paused and (q, v) written
//                              back (writeState), so every sample is taken within 0.1 s of
//                              simulated time from the same state, under the model's gravity:
//                              the regime the bridge runs in. (Zero gravity would not remove the
//                              reset: the random velocities alone open the 256-link chain's
//                              joints by 1 cm within 100 substeps, 2.4 mm within 25.)
//   substep_with_shapes        btRigidBody_world: the same in the world built with the model's
//                              collision shapes (buildRigidBodyWorld's default; the iiwa's mesh
//                              hulls, the humanoid's capsules and boxes; the chains have none).
// Counters: links, dofs, and per_link = time per call / number of links.
// After the benchmarks, a summary gives per model, from the medians of this run's CPU times:
// pseudo_inverse / sparse and mass_weighted / sparse (how many times faster the sparse read is;
// target >= 100 at 64 links), bridge_substep / substep_with_shapes (target < 5%),
// bridge_substep_forces / substep_with_shapes and both over the shapeless substep, and
// bridge_substep_forces against its hand-fused peer; with
// --benchmark_repetitions, the medians over the repetitions (else total time / iterations), and
// the bridge's shares also from the fastest repetitions (a "min" statistic every benchmark
// reports): on a shared machine a repetition is only ever slowed down, so the fastest ones
// estimate the ratio of the undisturbed costs.
//
// Before timing, each benchmark checks what it times and reports an error instead of a time if it
// is wrong: the read q and v equal those the world was written at (to 1e-9 relative; 1e-3 in
// single precision), the body wrenches of tau give back tau through generalizedForceFromWrenches,
// impulses of tau then -tau give back v, addJointForces adds tau to generalizedForceFromBodyForces
// and removeJointForces takes it out, the hand-fused pass reads the bridge's q and v and puts the
// bridge's forces into the bodies, and kResetPeriod substeps keep every joint within 5 mm.
//
// Run: bench_bridge [--benchmark_min_time=0.2] [--benchmark_enable_random_interleaving=true]
//      [--benchmark_filter=chain64]

#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "bench_models.hpp"
#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/force_conversion.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics.hpp"
#include "hand_fused_bridge.hpp"

namespace {

using namespace gcbridge::bench;

using gcbridge::BridgeData;
using gcbridge::RigidBodyMap;
using gcbridge::VelocityMethod;

// Agreement required between what the bridge reads and what was written, in Bullet's precision.
constexpr double kTolerance = sizeof(btScalar) == 8 ? 1e-9 : 1e-3;
// Substeps between two resets of the substep benchmark's world (25 h = 0.1 s).
constexpr int kResetPeriod = 25;
// Largest joint error [m] allowed after kResetPeriod substeps (chain256 reaches 2.4 mm).
constexpr double kMaxJointError = 0.005;

/// A model in its rigid-body world, with its inputs.
struct Subject {
  std::string name;
  gcbridge::Model model;
  Eigen::VectorXd q;    ///< random configuration (size nq), the world's state
  Eigen::VectorXd v;    ///< random velocity (size nv), the world's state
  Eigen::VectorXd tau;  ///< random joint forces (size nv) [N m, N]
  std::unique_ptr<gcbridge::RigidBodyWorld> world;
  /// The same world with the model's collision shapes (the default build).
  std::unique_ptr<gcbridge::RigidBodyWorld> world_with_shapes;

  const RigidBodyMap& map() const { return *world->map; }
  double substep() const { return world->options.substep; }
};

Subject makeSubject(std::string name, gcbridge::Model model) {
  Subject s;
  s.name = std::move(name);
  s.q = gcbridge::randomConfiguration(model, kSeed);
  s.v = gcbridge::randomVector(model.nv, kSeed + 1);
  s.tau = gcbridge::randomVector(model.nv, kSeed + 3, 10.0);
  gcbridge::RigidBodyOptions options;
  options.collision_shapes = false;
  s.world = gcbridge::buildRigidBodyWorld(model, options, s.q, s.v);
  options.collision_shapes = true;
  s.world_with_shapes = gcbridge::buildRigidBodyWorld(model, options, s.q, s.v);
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
  state.counters["per_link"] =
      benchmark::Counter(s.model.numLinks(), benchmark::Counter::kIsIterationInvariantRate |
                                                 benchmark::Counter::kInvert);
}

/// Largest |a - b| relative to the largest |b| (floor 1).
double relativeError(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

/// "" if error <= kTolerance, else "<what> differs by <error>".
std::string mismatch(const std::string& what, double error) {
  if (error <= kTolerance) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", error);
  return what + " differs by " + text;
}

/// On a mismatch (or an exception from the bridge) the benchmark reports an error and skips.
template <typename Check>
bool agrees(benchmark::State& state, Check&& check) {
  std::string message;
  try {
    message = check();
  } catch (const std::exception& e) {
    message = e.what();
  }
  if (message.empty()) return true;
  state.SkipWithError(message.c_str());
  return false;
}

/// The q read from the world against s.q, as the size of difference(s.q, q) (quaternions are
/// equal up to sign).
std::string positionsMismatch(const Subject& s, const Eigen::VectorXd& q) {
  const Eigen::VectorXd dq = gcbridge::difference(s.model, s.q, q);
  return mismatch("the q read", dq.cwiseAbs().maxCoeff());
}

// ---------------------------------------------------------------------------------------------
// gcbridge.

void readPositionsBenchmark(benchmark::State& state, const Subject* s) {
  BridgeData bdata(s->model);
  Eigen::VectorXd q(s->model.nq);
  gcbridge::writeState(s->model, s->map(), bdata, s->q, s->v);
  bdata.has_previous = false;  // read as a first call would: nothing to unwrap from
  if (!agrees(state, [&] {
        gcbridge::readPositions(s->model, s->map(), bdata, q);
        return positionsMismatch(*s, q);
      }))
    return;
  for (auto _ : state) {
    gcbridge::readPositions(s->model, s->map(), bdata, q);
    benchmark::DoNotOptimize(q.data());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void readVelocitiesBenchmark(benchmark::State& state, const Subject* s, VelocityMethod method) {
  BridgeData bdata(s->model);
  Eigen::VectorXd q(s->model.nq), v(s->model.nv);
  gcbridge::writeState(s->model, s->map(), bdata, s->q, s->v);
  if (!agrees(state, [&] {
        gcbridge::readPositions(s->model, s->map(), bdata, q);
        gcbridge::readVelocities(s->model, s->map(), bdata, v, method);
        return mismatch(std::string("readVelocities(") + gcbridge::toString(method) + "): v",
                        relativeError(v, s->v));
      }))
    return;
  for (auto _ : state) {
    gcbridge::readVelocities(s->model, s->map(), bdata, v, method);
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void readStateSparseBenchmark(benchmark::State& state, const Subject* s) {
  BridgeData bdata(s->model);
  Eigen::VectorXd q(s->model.nq), v(s->model.nv);
  gcbridge::writeState(s->model, s->map(), bdata, s->q, s->v);
  if (!agrees(state, [&] {
        gcbridge::readState(s->model, s->map(), bdata, q, v);
        const std::string positions = positionsMismatch(*s, q);
        return positions.empty() ? mismatch("readState: v", relativeError(v, s->v)) : positions;
      }))
    return;
  for (auto _ : state) {
    gcbridge::readState(s->model, s->map(), bdata, q, v);
    benchmark::DoNotOptimize(q.data());
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

/// "" if the body wrenches of tau give back tau (eq. 67 is the transpose of eq. 68); else what
/// differs.
std::string wrenchesMismatch(const Subject& s, BridgeData& bdata) {
  const gcbridge::Model& model = s.model;
  const RigidBodyMap& map = s.map();
  gcbridge::jointForcesToBodyWrenches(model, map, bdata, s.tau);
  std::vector<gcbridge::LinkWrench> wrenches;
  for (int k = 0; k < model.numLinks(); ++k) {
    if (map.body(k) == nullptr) continue;
    gcbridge::LinkWrench wrench;
    wrench.link = k;
    wrench.p_W = bdata.dynamics.X_WB[k].actPoint(map.X_LB(k).translation());  // the COM
    wrench.force_W = bdata.force_W[k];
    wrench.torque_W = bdata.torque_W[k];
    wrenches.push_back(wrench);
  }
  Eigen::VectorXd Q;
  gcbridge::generalizedForceFromWrenches(model, bdata, wrenches, Q);
  return mismatch("generalizedForceFromWrenches(wrenches of tau)", relativeError(Q, s.tau));
}

/// wrenchesMismatch, then: impulses of tau then -tau give back the world's v.
std::string impulsesMismatch(const Subject& s, BridgeData& bdata,
                             const Eigen::VectorXd& minus_tau) {
  const std::string wrenches = wrenchesMismatch(s, bdata);
  if (!wrenches.empty()) return wrenches;
  const double h = s.substep();
  gcbridge::applyJointImpulses(s.model, s.map(), bdata, s.tau, h);
  gcbridge::applyJointImpulses(s.model, s.map(), bdata, minus_tau, h);
  Eigen::VectorXd q, v;
  gcbridge::readPositions(s.model, s.map(), bdata, q);
  gcbridge::readVelocities(s.model, s.map(), bdata, v);
  return mismatch("v after the impulses of tau then -tau", relativeError(v, s.v));
}

/// wrenchesMismatch, then: addJointForces adds tau to generalizedForceFromBodyForces and
/// removeJointForces takes it out again.
std::string addRemoveMismatch(const Subject& s, BridgeData& bdata) {
  const std::string wrenches = wrenchesMismatch(s, bdata);
  if (!wrenches.empty()) return wrenches;
  Eigen::VectorXd Q0, Q1, Q2;
  gcbridge::generalizedForceFromBodyForces(s.model, s.map(), bdata, Q0);
  gcbridge::addJointForces(s.model, s.map(), bdata, s.tau);
  gcbridge::generalizedForceFromBodyForces(s.model, s.map(), bdata, Q1);
  gcbridge::removeJointForces(s.model, s.map(), bdata);
  gcbridge::generalizedForceFromBodyForces(s.model, s.map(), bdata, Q2);
  const std::string added = mismatch("generalizedForceFromBodyForces after addJointForces(tau)",
                                     relativeError(Q1 - Q0, s.tau));
  if (!added.empty()) return added;
  return mismatch("generalizedForceFromBodyForces after removeJointForces", relativeError(Q2, Q0));
}

void applyJointImpulsesBenchmark(benchmark::State& state, const Subject* s) {
  BridgeData bdata(s->model);
  const Eigen::VectorXd minus_tau = -s->tau;
  const Eigen::VectorXd* taus[2] = {&s->tau, &minus_tau};
  const double h = s->substep();
  gcbridge::writeState(s->model, s->map(), bdata, s->q, s->v);
  if (!agrees(state, [&] { return impulsesMismatch(*s, bdata, minus_tau); })) return;
  gcbridge::writeState(s->model, s->map(), bdata, s->q, s->v);
  int sign = 0;
  for (auto _ : state) {
    gcbridge::applyJointImpulses(s->model, s->map(), bdata, *taus[sign], h);
    sign ^= 1;
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void addRemoveJointForcesBenchmark(benchmark::State& state, const Subject* s) {
  BridgeData bdata(s->model);
  gcbridge::writeState(s->model, s->map(), bdata, s->q, s->v);
  if (!agrees(state, [&] { return addRemoveMismatch(*s, bdata); })) return;
  for (auto _ : state) {
    gcbridge::addJointForces(s->model, s->map(), bdata, s->tau);
    gcbridge::removeJointForces(s->model, s->map(), bdata);
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

/// One substep's bridge work: the state read, then the joint forces applied either as impulses
/// (tau and -tau alternating, so the velocities come back) or added and removed as forces.
void bridgeSubstepBenchmark(benchmark::State& state, const Subject* s, bool impulses) {
  BridgeData bdata(s->model);
  Eigen::VectorXd q(s->model.nq), v(s->model.nv);
  const Eigen::VectorXd minus_tau = -s->tau;
  const Eigen::VectorXd* taus[2] = {&s->tau, &minus_tau};
  const double h = s->substep();
  gcbridge::writeState(s->model, s->map(), bdata, s->q, s->v);
  if (!agrees(state, [&] {
        return impulses ? impulsesMismatch(*s, bdata, minus_tau) : addRemoveMismatch(*s, bdata);
      }))
    return;
  gcbridge::writeState(s->model, s->map(), bdata, s->q, s->v);
  int sign = 0;
  for (auto _ : state) {
    gcbridge::readState(s->model, s->map(), bdata, q, v);
    if (impulses) {
      gcbridge::applyJointImpulses(s->model, s->map(), bdata, *taus[sign], h);
      sign ^= 1;
    } else {
      gcbridge::addJointForces(s->model, s->map(), bdata, s->tau);
      gcbridge::removeJointForces(s->model, s->map(), bdata);
    }
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

/// The bodies' force and torque accumulators, stacked (3 per body each).
Eigen::VectorXd bodyAccumulators(const Subject& s) {
  Eigen::VectorXd totals(6 * s.model.numLinks());
  for (int k = 0; k < s.model.numLinks(); ++k) {
    const btRigidBody* body = s.map().body(k);
    const btVector3 f = body != nullptr ? body->getTotalForce() : btVector3(0, 0, 0);
    const btVector3 t = body != nullptr ? body->getTotalTorque() : btVector3(0, 0, 0);
    totals.segment<6>(6 * k) << f.x(), f.y(), f.z(), t.x(), t.y(), t.z();
  }
  return totals;
}

/// "" if the hand-fused pass reads the bridge's q and v and adds the bridge's forces to the
/// bodies, and takes them out again; else what differs.
std::string handFusedMismatch(const Subject& s, BridgeData& bdata,
                              gcbridge::bench::HandFusedBridge& fused) {
  Eigen::VectorXd q, v, q_fused(s.model.nq), v_fused(s.model.nv);
  gcbridge::readPositions(s.model, s.map(), bdata, q);
  gcbridge::readVelocities(s.model, s.map(), bdata, v);
  if (!fused.read(q_fused, v_fused)) return "the hand-fused read refused the world";
  // Its first read has no previous quaternion to keep the side of: q up to sign.
  const std::string positions =
      mismatch("hand-fused q", gcbridge::difference(s.model, q, q_fused).cwiseAbs().maxCoeff());
  if (!positions.empty()) return positions;
  const std::string velocities = mismatch("hand-fused v", relativeError(v_fused, v));
  if (!velocities.empty()) return velocities;
  const Eigen::VectorXd before = bodyAccumulators(s);
  gcbridge::addJointForces(s.model, s.map(), bdata, s.tau);
  const Eigen::VectorXd bridge = bodyAccumulators(s);
  gcbridge::removeJointForces(s.model, s.map(), bdata);
  if (!fused.addForces(s.tau)) return "the hand-fused forces refused tau or the world";
  const Eigen::VectorXd hand_fused = bodyAccumulators(s);
  fused.removeForces();
  const std::string forces =
      mismatch("hand-fused body forces", relativeError(hand_fused - before, bridge - before));
  if (!forces.empty()) return forces;
  const double scale = std::max(1.0, (bridge - before).cwiseAbs().maxCoeff());
  return mismatch("body forces after the hand-fused removal",
                  (bodyAccumulators(s) - before).cwiseAbs().maxCoeff() / scale);
}

/// bridge_substep_forces by the hand-fused pass.
void handFusedSubstepBenchmark(benchmark::State& state, const Subject* s) {
  std::string why;
  const auto fused = gcbridge::bench::HandFusedBridge::make(s->model, s->map(), why);
  if (fused == nullptr) {
    state.SkipWithError(why.c_str());
    return;
  }
  BridgeData bdata(s->model);
  Eigen::VectorXd q(s->model.nq), v(s->model.nv);
  gcbridge::writeState(s->model, s->map(), bdata, s->q, s->v);
  if (!agrees(state, [&] { return handFusedMismatch(*s, bdata, *fused); })) return;
  bool all_read = true, all_added = true;
  for (auto _ : state) {
    all_read &= fused->read(q, v);
    all_added &= fused->addForces(s->tau);
    fused->removeForces();
    benchmark::DoNotOptimize(q.data());
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
  if (!all_read || !all_added) state.SkipWithError("the hand-fused pass refused a substep");
  setCounters(state, *s);
}

// ---------------------------------------------------------------------------------------------
// Bullet.

/// "" if kResetPeriod substeps from (q, v) leave every joint within kMaxJointError; else by how
/// much they do not. Leaves the world at (q, v).
std::string substepMismatch(const Subject& s, const gcbridge::RigidBodyWorld& w,
                            BridgeData& bdata) {
  const double h = s.substep();
  for (int i = 0; i < kResetPeriod; ++i) w.world->stepSimulation(h, 1, h);
  const double error = gcbridge::computeJointErrors(s.model, *w.map, bdata);
  gcbridge::writeState(s.model, *w.map, bdata, s.q, s.v);
  if (error <= kMaxJointError) return "";
  char text[128];
  std::snprintf(text, sizeof text,
                "after %d substeps a joint is %.1e m apart (at most %.0e m allowed)", kResetPeriod,
                error, kMaxJointError);
  return text;
}

void substepBenchmark(benchmark::State& state, const Subject* s, bool shapes) {
  const gcbridge::RigidBodyWorld& w = shapes ? *s->world_with_shapes : *s->world;
  BridgeData bdata(s->model);
  btDiscreteDynamicsWorld& world = *w.world;
  const double h = s->substep();
  gcbridge::writeState(s->model, *w.map, bdata, s->q, s->v);
  if (!agrees(state, [&] { return substepMismatch(*s, w, bdata); })) return;
  int steps = 0;
  for (auto _ : state) {
    world.stepSimulation(h, 1, h);
    if (++steps == kResetPeriod) {
      state.PauseTiming();
      gcbridge::writeState(s->model, *w.map, bdata, s->q, s->v);
      steps = 0;
      state.ResumeTiming();
    }
    benchmark::ClobberMemory();
  }
  gcbridge::writeState(s->model, *w.map, bdata, s->q, s->v);
  setCounters(state, *s);
}

// ---------------------------------------------------------------------------------------------

constexpr const char* kGcbridge = "gcbridge";
constexpr const char* kBullet = "btRigidBody_world";
constexpr const char* kHandFused = "hand_fused";

/// Registers job/model/library for every job and model.
void registerBenchmarks(const std::vector<Subject>& subjects) {
  for (const Subject& s : subjects) {
    const auto name = [&](const std::string& job, const char* library) {
      return job + "/" + s.name + "/" + library;
    };
    registerBenchmark(name("positions", kGcbridge), readPositionsBenchmark, &s);
    for (VelocityMethod method :
         {VelocityMethod::Sparse, VelocityMethod::PseudoInverse, VelocityMethod::MassWeighted}) {
      const std::string job = std::string("velocities_") + gcbridge::toString(method);
      registerBenchmark(name(job, kGcbridge), readVelocitiesBenchmark, &s, method);
    }
    registerBenchmark(name("state_sparse", kGcbridge), readStateSparseBenchmark, &s);
    registerBenchmark(name("apply_joint_impulses", kGcbridge), applyJointImpulsesBenchmark, &s);
    registerBenchmark(name("add_remove_joint_forces", kGcbridge), addRemoveJointForcesBenchmark,
                      &s);
    registerBenchmark(name("bridge_substep", kGcbridge), bridgeSubstepBenchmark, &s, true);
    registerBenchmark(name("bridge_substep_forces", kGcbridge), bridgeSubstepBenchmark, &s, false);
    registerBenchmark(name("bridge_substep_forces", kHandFused), handFusedSubstepBenchmark, &s);
    registerBenchmark(name("substep", kBullet), substepBenchmark, &s, false);
    registerBenchmark(name("substep_with_shapes", kBullet), substepBenchmark, &s, true);
  }
}

/// The ratios docs/benchmarks.md quotes, per model, from this run's CPU times ("-" where a benchmark did
/// not run or failed): every ratio from the medians over the repetitions, and the bridge's share
/// of the substep also from the fastest repetitions.
void printRatios(const std::vector<Subject>& subjects, const Timings& timings, std::ostream& out) {
  const auto time = [&](const std::map<std::string, double>& times, const std::string& job,
                        const Subject& s, const char* library) {
    const auto it = times.find(job + "/" + s.name + "/" + library);
    return it == times.end() ? -1.0 : it->second;
  };
  const auto cell = [](double value, const char* format) {
    char text[32];
    if (value < 0.0) return std::string("-");
    std::snprintf(text, sizeof text, format, value);
    return std::string(text);
  };
  const auto ratio = [](double a, double b) { return a < 0.0 || b <= 0.0 ? -1.0 : a / b; };
  const auto percent = [&](double a, double b) { return cell(100.0 * ratio(a, b), "%.2f%%"); };
  // One statistic's times of the bridge (impulses, forces) and of Bullet's two substeps.
  struct Shares {
    double bridge, forces, substep, substep_shapes;
  };
  const auto shares = [&](const std::map<std::string, double>& times, const Subject& s) {
    return Shares{time(times, "bridge_substep", s, kGcbridge),
                  time(times, "bridge_substep_forces", s, kGcbridge),
                  time(times, "substep", s, kBullet),
                  time(times, "substep_with_shapes", s, kBullet)};
  };
  char line[256];
  const char* format = "%-10s %12s %22s %21s %12s %13s %15s %22s %22s %29s\n";
  out << "\nRatios, from this run's CPU times, medians over the repetitions (targets: "
         "pseudo_inverse/sparse >= 100 at chain64, bridge_substep/substep_with_shapes < 5%; "
         "substep: the stricter shapeless peer):\n";
  std::snprintf(line, sizeof line, format, "model", "sparse [ns]", "pseudo_inverse/sparse",
                "mass_weighted/sparse", "bridge [ns]", "substep [ns]", "bridge/substep",
                "bridge/substep_shapes", "bridge_forces/substep", "bridge_forces/substep_shapes");
  out << line;
  for (const Subject& s : subjects) {
    const double sparse = time(timings.median, "velocities_sparse", s, kGcbridge);
    const double pinv = time(timings.median, "velocities_pseudo_inverse", s, kGcbridge);
    const double mass_weighted = time(timings.median, "velocities_mass_weighted", s, kGcbridge);
    const Shares t = shares(timings.median, s);
    std::snprintf(line, sizeof line, format, s.name.c_str(), cell(sparse, "%.0f").c_str(),
                  cell(ratio(pinv, sparse), "%.1fx").c_str(),
                  cell(ratio(mass_weighted, sparse), "%.1fx").c_str(),
                  cell(t.bridge, "%.0f").c_str(), cell(t.substep, "%.0f").c_str(),
                  percent(t.bridge, t.substep).c_str(), percent(t.bridge, t.substep_shapes).c_str(),
                  percent(t.forces, t.substep).c_str(),
                  percent(t.forces, t.substep_shapes).c_str());
    out << line;
  }
  const char* fused_format = "%-10s %19s %16s %24s %29s\n";
  out << "\nThe bridge's forces path against the same work hand-fused for these models, medians:\n";
  std::snprintf(line, sizeof line, fused_format, "model", "bridge_forces [ns]", "hand_fused [ns]",
                "bridge_forces/hand_fused", "hand_fused/substep_shapes");
  out << line;
  for (const Subject& s : subjects) {
    const double forces = time(timings.median, "bridge_substep_forces", s, kGcbridge);
    const double fused = time(timings.median, "bridge_substep_forces", s, kHandFused);
    const double substep_shapes = time(timings.median, "substep_with_shapes", s, kBullet);
    std::snprintf(line, sizeof line, fused_format, s.name.c_str(), cell(forces, "%.0f").c_str(),
                  cell(fused, "%.0f").c_str(), cell(ratio(forces, fused), "%.2fx").c_str(),
                  percent(fused, substep_shapes).c_str());
    out << line;
  }
  if (timings.fastest.empty()) {
    out.flush();
    return;
  }
  const char* fastest_format = "%-10s %12s %13s %15s %22s %22s %29s\n";
  out << "\nThe bridge's share of the substep, from the fastest repetitions:\n";
  std::snprintf(line, sizeof line, fastest_format, "model", "bridge [ns]", "substep [ns]",
                "bridge/substep", "bridge/substep_shapes", "bridge_forces/substep",
                "bridge_forces/substep_shapes");
  out << line;
  for (const Subject& s : subjects) {
    const Shares t = shares(timings.fastest, s);
    std::snprintf(line, sizeof line, fastest_format, s.name.c_str(), cell(t.bridge, "%.0f").c_str(),
                  cell(t.substep, "%.0f").c_str(), percent(t.bridge, t.substep).c_str(),
                  percent(t.bridge, t.substep_shapes).c_str(), percent(t.forces, t.substep).c_str(),
                  percent(t.forces, t.substep_shapes).c_str());
    out << line;
  }
  out.flush();
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<Subject>* registered = nullptr;
  return gcbridge::bench::runBenchmarkProgram(
      argc, argv, "bench_bridge", "per_link", "time per call / number of links", makeSubjects,
      [&](const std::vector<Subject>& subjects) {
        registered = &subjects;
        registerBenchmarks(subjects);
      },
      [&](const Timings& timings, std::ostream& out) { printRatios(*registered, timings, out); });
}
