#include "gcbridge/dynamics/centroidal.hpp"

#include <string>

#include "detail.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"

namespace gcbridge {
namespace {

/// The wrench about the world origin f_O moved to the point p_WG: (n - p x f, f).
Force aboutPoint(const Force& f_O, const Vector3& p_WG) {
  return Force(Vector3(f_O.angular() - p_WG.cross(f_O.linear())), Vector3(f_O.linear()));
}

/// @throws InvalidArgumentError naming `function` and `name` when M is not rows x nv.
void checkSize(const Eigen::Ref<Eigen::MatrixXd>& M, int rows, const Model& model,
               const char* function, const char* name) {
  if (M.rows() != rows || M.cols() != model.nv) {
    throw InvalidArgumentError(std::string(function) + ": " + name + " is " +
                               std::to_string(M.rows()) + " x " + std::to_string(M.cols()) +
                               ", expected " + std::to_string(rows) + " x " +
                               std::to_string(model.nv));
  }
}

/// The model's total mass. @throws InvalidArgumentError naming `function` when it is not positive.
double massOf(const Model& model, const char* function) {
  const double mass = model.totalMass();
  if (!(mass > 0.0)) {
    throw InvalidArgumentError(std::string(function) + ": model '" + model.name +
                               "' has no mass, so no centre of mass");
  }
  return mass;
}

/// data.Ic_W: each link's subtree inertia in world axes about the world origin (X_WB current).
/// @return the whole system's.
Inertia compositeInertiasInWorld(const Model& model, Data& data) {
  const int n = model.numLinks();
  for (int k = 0; k < n; ++k) data.Ic_W[k] = model.inertias[k].transformedBy(data.X_WB[k]);
  Inertia total = Inertia::Zero();
  for (int k = n - 1; k >= 0; --k) {
    const int parent = model.parents[k];
    if (parent >= 0) {
      data.Ic_W[parent] = data.Ic_W[parent] + data.Ic_W[k];
    } else {
      total = total + data.Ic_W[k];
    }
  }
  return total;
}

}  // namespace

void centroidalMomentumMatrix(const Model& model, Data& data, const ConstVectorRef& q,
                              Eigen::Ref<Eigen::MatrixXd> A_G) {
  checkData(model, data, "centroidalMomentumMatrix");
  checkSize(A_G, 6, model, "centroidalMomentumMatrix", "A_G");
  massOf(model, "centroidalMomentumMatrix");
  computeJointJacobians(model, data, q);
  centroidalMomentumMatrix(model, data, A_G);
}

void centroidalMomentumMatrix(const Model& model, Data& data, Eigen::Ref<Eigen::MatrixXd> A_G) {
  checkData(model, data, "centroidalMomentumMatrix");
  checkSize(A_G, 6, model, "centroidalMomentumMatrix", "A_G");
  massOf(model, "centroidalMomentumMatrix");
  const Inertia total = compositeInertiasInWorld(model, data);
  const Vector3& p_WG = total.com();
  for (int j = 0; j < model.nv; ++j) {
    const Motion S_W(Vector6(data.J_W.col(j)));
    A_G.col(j) = aboutPoint(data.Ic_W[model.dof_link[j]] * S_W, p_WG).vector();
  }
}

Force centroidalMomentumTimeVariation(const Model& model, Data& data, const ConstVectorRef& q,
                                      const ConstVectorRef& v) {
  checkData(model, data, "centroidalMomentumTimeVariation");
  massOf(model, "centroidalMomentumTimeVariation");
  forwardKinematics(model, data, q, v, data.zero_v);
  return centroidalMomentumTimeVariation(model, data);
}

Force centroidalMomentumTimeVariation(const Model& model, const Data& data) {
  checkData(model, data, "centroidalMomentumTimeVariation");
  const double mass = massOf(model, "centroidalMomentumTimeVariation");
  Force rate_O = Force::Zero();
  Vector3 moment_of_mass = Vector3::Zero();
  for (int k = 0; k < model.numLinks(); ++k) {
    Force rate_B;
    detail::netForce(model.inertias[k], data.V_WB_B[k], data.A_spatial_WB_B[k], rate_B);
    rate_O += data.X_WB[k].act(rate_B);
    moment_of_mass += model.inertias[k].mass() * data.p_WBcm[k];
  }
  return aboutPoint(rate_O, moment_of_mass / mass);
}

Force centroidalTermsFromRootRows(const Model& model, const Data& data,
                                  const Eigen::Ref<const Eigen::MatrixXd>& M,
                                  const ConstVectorRef& h, Eigen::Ref<Eigen::MatrixXd> A_G) {
  const char* function = "centroidalTermsFromRootRows";
  checkData(model, data, function);
  if (model.joints.empty() || model.joints[0].type != JointType::Free) {
    throw InvalidArgumentError(std::string(function) + ": model '" + model.name +
                               "' has no free root joint");
  }
  if (M.rows() != model.nv || M.cols() != model.nv || h.size() != model.nv) {
    throw InvalidArgumentError(
        std::string(function) +
        ": M must be nv x nv and h of size nv (nv = " + std::to_string(model.nv) + ")");
  }
  checkSize(A_G, 6, model, function, "A_G");
  const double mass = massOf(model, function);
  // The root link's pose in G's frame (world axes, origin at the centre of mass).
  const Transform& X_WR = data.X_WB[0];
  const Matrix3& R = X_WR.rotation();
  const Vector3 p_GR = X_WR.translation() - centerOfMass(model, data);
  // X_GR^-T (n, f) = (R n + p x R f, R f), column by column at once.
  const auto M_r = M.topRows<6>();
  A_G.bottomRows<3>().noalias() = R * M_r.bottomRows<3>();
  A_G.topRows<3>().noalias() = R * M_r.topRows<3>();
  A_G.topRows<3>().noalias() += skew(p_GR) * A_G.bottomRows<3>();
  const Force rate = Transform(R, p_GR).act(Force(Vector6(h.head<6>())));
  return Force(rate.angular(), Vector3(rate.linear() + mass * model.gravity_W));
}

void centerOfMassJacobian(const Model& model, Data& data, const ConstVectorRef& q,
                          Eigen::Ref<Eigen::MatrixXd> J_G) {
  checkData(model, data, "centerOfMassJacobian");
  checkSize(J_G, 3, model, "centerOfMassJacobian", "J_G");
  centroidalMomentumMatrix(model, data, q, data.tmp_A_G);
  J_G = data.tmp_A_G.bottomRows<3>() / massOf(model, "centerOfMassJacobian");
}

}  // namespace gcbridge
