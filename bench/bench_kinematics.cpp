// bench_kinematics: the cost of gcbridge's forward kinematics and Jacobians, with Bullet's
// btMultiBody measured in the same run as the peer.
//
// Models: the KUKA iiwa (7 revolute), the DeepMimic humanoid with a floating base (free + 8 ball
// + 4 revolute, nv = 34) and serial revolute chains of 4, 16, 64 and 256 links built with
// ModelBuilder (axes alternating x, y; links 0.2 m long along z, 1 kg, COM at mid-length). The
// btMultiBody peers are the same chains built with setupRevolute (fixed base, no colliders).
//
// Benchmarks are named job/model/library:
//   fk_q           gcbridge: forwardKinematics(q): link poses, COM positions, motion subspaces.
//                  btMultiBody: setJointPos of every joint (refreshes its per-joint transform
//                  cache from q) + forwardKinematics(scratch_q, scratch_m) (world poses of the
//                  links, which are Bullet's COM frames). updateCollisionObjectWorldTransforms
//                  is not timed: with no colliders it only repeats the pose pass.
//   fk_qv          gcbridge: forwardKinematics(q, v): also the link spatial velocities.
//                  btMultiBody: the fk_q work + setJointVel of every joint +
//                  compTreeLinkVelocities (link angular and linear velocities).
//   jacobians_all  gcbridge: computeJointJacobians(q) + frameJacobian of every link's origin
//                  (LocalWorldAligned, 6 x nv each). No btMultiBody peer.
//   jacobian_tip   gcbridge: computeJointJacobians(q) + the 6 x nv LocalWorldAligned Jacobian of
//                  the tip point (chains: the far end of the last link; iiwa, humanoid: the last
//                  link's origin).
//                  btMultiBody_1row: ONE fillContactJacobianMultiDof call at the tip point, i.e.
//                  one row (the tip velocity along one unit normal); the joint caches are already
//                  up to date, so no work from q is timed.
//                  btMultiBody_6rows: the same job as gcbridge's: setJointPos of every joint,
//                  then 3 fillConstraintJacobianMultiDof calls (angular rows) and 3
//                  fillContactJacobianMultiDof calls (linear rows).
// Counters: links, dofs, and per_link = time per call / number of links.
// Before timing, every btMultiBody benchmark checks that its chain agrees with gcbridge's (tip
// position, last link's velocities, the six tip Jacobian rows; to round-off in Bullet's precision)
// and reports an error instead of a time if not.
//
// Run: bench_kinematics [--benchmark_min_time=0.2] [--benchmark_enable_random_interleaving=true]
//      [--benchmark_filter=chain64]

#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "bench_models.hpp"
#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/dynamics.hpp"

namespace {

using namespace gcbridge::bench;

using gcbridge::Matrix3;
using gcbridge::Transform;
using gcbridge::Vector3;

/// A model to benchmark, with its inputs and the point whose Jacobian jacobian_tip computes.
struct Subject {
  std::string name;
  gcbridge::Model model;
  Eigen::VectorXd q;  ///< random configuration (size nq)
  Eigen::VectorXd v;  ///< random velocity (size nv)
  int tip_link = 0;
  Transform X_BTip;      ///< the tip point (identity rotation) in the tip link's frame
  int chain_length = 0;  ///< number of links of a serial chain (0: not a chain)
};

Subject makeSubject(std::string name, gcbridge::Model model) {
  Subject s;
  s.name = std::move(name);
  s.q = gcbridge::randomConfiguration(model, kSeed);
  s.v = gcbridge::randomVector(model.nv, kSeed + 1);
  s.tip_link = model.numLinks() - 1;
  s.model = std::move(model);
  return s;
}

std::vector<Subject> makeSubjects() {
  std::vector<Subject> subjects;
  subjects.push_back(makeSubject("iiwa", iiwaModel()));
  subjects.push_back(makeSubject("humanoid", humanoidModel()));
  for (int n : kChainLengths) {
    Subject s = makeSubject("chain" + std::to_string(n), chainModel(n));
    s.X_BTip = Transform(Matrix3::Identity(), Vector3(0.0, 0.0, kLinkLength));
    s.chain_length = n;
    subjects.push_back(std::move(s));
  }
  return subjects;
}

btVector3 toBullet(const Vector3& v) { return btVector3(v.x(), v.y(), v.z()); }
Vector3 fromBullet(const btVector3& v) { return Vector3(v.x(), v.y(), v.z()); }

/// The btMultiBody equal to chainModel(n): fixed base at the world origin, link k's frame at its
/// COM (Bullet's convention) with the axes of gcbridge's link frame.
std::unique_ptr<btMultiBody> bulletChain(int n) {
  auto body = std::make_unique<btMultiBody>(n, 0.0, btVector3(0, 0, 0), /*fixedBase=*/true,
                                            /*canSleep=*/false);
  const btVector3 inertia = toBullet(chainLinkPrincipalInertia());
  const btVector3 pivot_to_com(0, 0, kLinkLength / 2.0);
  for (int k = 0; k < n; ++k) {
    // From the parent's COM (the base origin for link 0) to this link's joint, parent axes.
    const btVector3 parent_com_to_pivot = k == 0 ? btVector3(0, 0, 0) : pivot_to_com;
    body->setupRevolute(k, kLinkMass, inertia, k - 1, btQuaternion::getIdentity(),
                        toBullet(chainAxis(k)), parent_com_to_pivot, pivot_to_com, true);
  }
  body->finalizeMultiDof();
  return body;
}

void setCounters(benchmark::State& state, const Subject& s) {
  const int links = s.model.numLinks();
  state.counters["links"] = links;
  state.counters["dofs"] = s.model.nv;
  state.counters["per_link"] = benchmark::Counter(
      links, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// ---------------------------------------------------------------------------------------------
// gcbridge.

void gcbridgeFkQ(benchmark::State& state, const Subject* s) {
  gcbridge::Data data(s->model);
  for (auto _ : state) {
    gcbridge::forwardKinematics(s->model, data, s->q);
    benchmark::DoNotOptimize(data.X_WB.data());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void gcbridgeFkQv(benchmark::State& state, const Subject* s) {
  gcbridge::Data data(s->model);
  for (auto _ : state) {
    gcbridge::forwardKinematics(s->model, data, s->q, s->v);
    benchmark::DoNotOptimize(data.V_WB_B.data());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void gcbridgeJacobiansAll(benchmark::State& state, const Subject* s) {
  gcbridge::Data data(s->model);
  Eigen::MatrixXd J(6, s->model.nv);
  for (auto _ : state) {
    gcbridge::computeJointJacobians(s->model, data, s->q);
    for (int k = 0; k < s->model.numLinks(); ++k) {
      gcbridge::frameJacobian(s->model, data, k, Transform::Identity(),
                              gcbridge::ReferenceFrame::LocalWorldAligned, J);
      benchmark::DoNotOptimize(J.data());
    }
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void gcbridgeJacobianTip(benchmark::State& state, const Subject* s) {
  gcbridge::Data data(s->model);
  Eigen::MatrixXd J(6, s->model.nv);
  for (auto _ : state) {
    gcbridge::computeJointJacobians(s->model, data, s->q);
    gcbridge::frameJacobian(s->model, data, s->tip_link, s->X_BTip,
                            gcbridge::ReferenceFrame::LocalWorldAligned, J);
    benchmark::DoNotOptimize(J.data());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

// ---------------------------------------------------------------------------------------------
// btMultiBody.

/// A btMultiBody chain with its scratch buffers, checked against the gcbridge chain.
class BulletChain {
 public:
  explicit BulletChain(const Subject& s)
      : subject_(s),
        n_(s.chain_length),
        body_(bulletChain(n_)),
        omega_(n_ + 1),
        vel_(n_ + 1),
        jac_(6 + n_) {}

  /// Writes q (and v) into the joints' state and caches.
  void setJointPositions() {
    for (int i = 0; i < n_; ++i) body_->setJointPos(i, subject_.q(i));
  }
  void setJointVelocities() {
    for (int i = 0; i < n_; ++i) body_->setJointVel(i, subject_.v(i));
  }
  void forwardKinematics() { body_->forwardKinematics(world_to_local_, local_origin_); }
  void linkVelocities() { body_->compTreeLinkVelocities(omega_.data(), vel_.data()); }

  /// World position of the chain's tip. @pre forwardKinematics().
  btVector3 tipPosition() const {
    return local_origin_[n_] +
           quatRotate(world_to_local_[n_].inverse(), btVector3(0, 0, kLinkLength / 2.0));
  }

  /// One Jacobian row at the tip point: the tip's angular velocity along `normal_ang` plus its
  /// linear velocity along `normal_lin`. Returns the joint part (size n).
  /// @pre mismatch() ran (it finds the tip point).
  const btScalar* tipJacobianRow(const btVector3& normal_ang, const btVector3& normal_lin) {
    if (normal_ang.isZero()) {
      body_->fillContactJacobianMultiDof(n_ - 1, tip_W_, normal_lin, jac_.data(), scratch_r_,
                                         scratch_v_, scratch_m_);
    } else {
      body_->fillConstraintJacobianMultiDof(n_ - 1, tip_W_, normal_ang, normal_lin, jac_.data(),
                                            scratch_r_, scratch_v_, scratch_m_);
    }
    return jac_.data() + 6;
  }

  /// Compares the tip position, the last link's velocities and the tip Jacobian rows with
  /// gcbridge's at (q, v): "" if they agree to round-off, else what differs. Leaves the joint
  /// caches at q and tip_W_ at the tip.
  std::string mismatch() {
    const gcbridge::Model& model = subject_.model;
    gcbridge::Data data(model);
    gcbridge::computeJointJacobians(model, data, subject_.q);
    Eigen::MatrixXd J(6, model.nv);
    gcbridge::frameJacobian(model, data, subject_.tip_link, subject_.X_BTip,
                            gcbridge::ReferenceFrame::LocalWorldAligned, J);
    gcbridge::forwardKinematics(model, data, subject_.q, subject_.v);
    const Transform X_BBcm(Matrix3::Identity(), model.inertias[subject_.tip_link].com());
    const gcbridge::Motion V_Bcm = gcbridge::frameVelocity(
        model, data, subject_.tip_link, X_BBcm, gcbridge::ReferenceFrame::LocalWorldAligned);

    setJointPositions();
    setJointVelocities();
    forwardKinematics();
    linkVelocities();
    tip_W_ = tipPosition();
    // Bullet's link velocities are the angular velocity and the COM velocity in link axes.
    const btQuaternion R_WB = world_to_local_[n_].inverse();
    const Vector3 p_WTip = data.X_WB[subject_.tip_link].actPoint(subject_.X_BTip.translation());
    std::string what = compare("tip position", p_WTip, fromBullet(tip_W_));
    what += compare("tip link angular velocity", V_Bcm.angular(),
                    fromBullet(quatRotate(R_WB, omega_[n_])));
    what +=
        compare("tip link COM velocity", V_Bcm.linear(), fromBullet(quatRotate(R_WB, vel_[n_])));
    for (int axis = 0; axis < 3; ++axis) {
      const btVector3 e = toBullet(Vector3::Unit(axis)), zero(0, 0, 0);
      what += compare("Jacobian angular row " + std::to_string(axis), J.row(axis).transpose(),
                      rowFromBullet(tipJacobianRow(e, zero)));
      what += compare("Jacobian linear row " + std::to_string(axis), J.row(3 + axis).transpose(),
                      rowFromBullet(tipJacobianRow(zero, e)));
    }
    return what;
  }

  /// "" if `bullet` equals `reference` to round-off (1000 eps of Bullet's precision per link,
  /// relative to the largest entry), else a sentence saying by how much it differs.
  std::string compare(const std::string& what, const Eigen::VectorXd& reference,
                      const Eigen::VectorXd& bullet) const {
    const double scale = 1.0 + reference.cwiseAbs().maxCoeff();
    const double tolerance = 1e3 * std::numeric_limits<btScalar>::epsilon() * n_ * scale;
    const double error = (reference - bullet).cwiseAbs().maxCoeff();
    if (error <= tolerance) return "";
    return what + " differs by " + std::to_string(error) + "; ";
  }

  /// The joint part (size n) of a Jacobian row filled by tipJacobianRow, in double.
  Eigen::VectorXd rowFromBullet(const btScalar* row) const {
    return Eigen::Map<const Eigen::Matrix<btScalar, Eigen::Dynamic, 1>>(row, n_).cast<double>();
  }

  const btVector3& origin(int i) const { return local_origin_[i]; }
  const btVector3* velocities() const { return vel_.data(); }

 private:
  const Subject& subject_;
  int n_;
  std::unique_ptr<btMultiBody> body_;
  btAlignedObjectArray<btQuaternion> world_to_local_;
  btAlignedObjectArray<btVector3> local_origin_;
  std::vector<btVector3> omega_, vel_;
  std::vector<btScalar> jac_;
  btAlignedObjectArray<btScalar> scratch_r_;
  btAlignedObjectArray<btVector3> scratch_v_;
  btAlignedObjectArray<btMatrix3x3> scratch_m_;
  btVector3 tip_W_;
};

/// Makes the chain and checks it; on a mismatch the benchmark reports an error and skips.
bool prepare(benchmark::State& state, BulletChain& chain) {
  const std::string mismatch = chain.mismatch();
  if (mismatch.empty()) return true;
  state.SkipWithError(("btMultiBody chain differs from gcbridge's: " + mismatch).c_str());
  return false;
}

void bulletFkQ(benchmark::State& state, const Subject* s) {
  BulletChain chain(*s);
  if (!prepare(state, chain)) return;
  for (auto _ : state) {
    chain.setJointPositions();
    chain.forwardKinematics();
    benchmark::DoNotOptimize(chain.origin(s->chain_length));
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void bulletFkQv(benchmark::State& state, const Subject* s) {
  BulletChain chain(*s);
  if (!prepare(state, chain)) return;
  for (auto _ : state) {
    chain.setJointPositions();
    chain.setJointVelocities();
    chain.forwardKinematics();
    chain.linkVelocities();
    benchmark::DoNotOptimize(chain.velocities());
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void bulletJacobianTipOneRow(benchmark::State& state, const Subject* s) {
  BulletChain chain(*s);
  if (!prepare(state, chain)) return;
  const btVector3 normal = btVector3(1, 2, 3).normalized();
  for (auto _ : state) {
    benchmark::DoNotOptimize(chain.tipJacobianRow(btVector3(0, 0, 0), normal));
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

void bulletJacobianTipSixRows(benchmark::State& state, const Subject* s) {
  BulletChain chain(*s);
  if (!prepare(state, chain)) return;
  const btVector3 zero(0, 0, 0);
  const btVector3 axes[3] = {btVector3(1, 0, 0), btVector3(0, 1, 0), btVector3(0, 0, 1)};
  for (auto _ : state) {
    chain.setJointPositions();
    for (const btVector3& e : axes) benchmark::DoNotOptimize(chain.tipJacobianRow(e, zero));
    for (const btVector3& e : axes) benchmark::DoNotOptimize(chain.tipJacobianRow(zero, e));
    benchmark::ClobberMemory();
  }
  setCounters(state, *s);
}

/// Registers job/model/library for every job and model; btMultiBody peers only on the chains.
void registerBenchmarks(const std::vector<Subject>& subjects) {
  using Function = void (*)(benchmark::State&, const Subject*);
  struct Peer {
    const char* library;
    Function function;
  };
  struct Job {
    const char* name;
    Function gcbridge;
    std::vector<Peer> bullet;
  };
  const Job jobs[] = {
      {"fk_q", gcbridgeFkQ, {{"btMultiBody", bulletFkQ}}},
      {"fk_qv", gcbridgeFkQv, {{"btMultiBody", bulletFkQv}}},
      {"jacobians_all", gcbridgeJacobiansAll, {}},
      {"jacobian_tip",
       gcbridgeJacobianTip,
       {{"btMultiBody_1row", bulletJacobianTipOneRow},
        {"btMultiBody_6rows", bulletJacobianTipSixRows}}},
  };
  for (const Job& job : jobs) {
    for (const Subject& s : subjects) {
      const std::string prefix = std::string(job.name) + "/" + s.name + "/";
      benchmark::RegisterBenchmark((prefix + "gcbridge").c_str(), job.gcbridge, &s);
      if (s.chain_length == 0) continue;
      for (const Peer& peer : job.bullet) {
        benchmark::RegisterBenchmark((prefix + peer.library).c_str(), peer.function, &s);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  return gcbridge::bench::runBenchmarkProgram(argc, argv, "bench_kinematics", "per_link",
                                              "time per call / number of links", makeSubjects,
                                              registerBenchmarks);
}
