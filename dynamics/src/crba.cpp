#include "gcbridge/dynamics/crba.hpp"

#include <string>

#include "detail.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "joints/dispatch.hpp"

namespace gcbridge {
namespace {

/// The mean dof depth (Model::mean_dof_depth) above which crba works in world coordinates: the
/// form in the links' frames transforms each column once per ancestor link, the world form moves
/// every link to the world once and then pays a 6-vector product per ancestor dof, so it wins on
/// deep trees only. Chosen from bench_dynamics' chains and robots (docs/benchmarks.md).
constexpr double kWorldCrbaDepth = 16.0;

// The columns of M for joint k's dofs (RBDA Table 6.2's inner loops): for each dof j of the
// joint, F = Ic S_j (as its halves n, f) gives M(i, j) = S_i . F for the joint's own dofs, then is
// carried up the tree by the force rule, giving M(i, j) at every dof i on the way. The climb stops
// at the link that holds dof 0: no dof lies above it.
template <typename K>
void compositeColumns(const Model& model, Data& data, int k) {
  const Joint& joint = model.joints[k];
  for (int jj = 0; jj < K::nv; ++jj) {
    const int j = joint.idx_v + jj;
    Vector3 n_F, f_F;
    K::compositeColumn(joint, data, data.Ic_B[k], jj, n_F, f_F);
    for (int ii = jj; ii < K::nv; ++ii) {
      data.M(joint.idx_v + ii, j) = data.M(j, joint.idx_v + ii) =
          K::subspaceDot(joint, data, ii, n_F, f_F);
    }
    for (int a = k; model.joints[a].idx_v > 0 && model.parents[a] >= 0;) {
      const Matrix3& R_PB = data.X_PB[a].rotation();
      const Vector3 f_P = R_PB * f_F;
      n_F = R_PB * n_F + data.X_PB[a].translation().cross(f_P);
      f_F = f_P;
      a = model.parents[a];
      const Joint& above = model.joints[a];
      joints::dispatch(above, [&](auto above_kernel) {
        using A = decltype(above_kernel);
        if constexpr (A::nv > 0) {
          for (int ii = 0; ii < A::nv; ++ii) {
            data.M(above.idx_v + ii, j) = data.M(j, above.idx_v + ii) =
                A::subspaceDot(above, data, ii, n_F, f_F);
          }
        }
      });
    }
  }
}

/// M in world coordinates (Featherstone's CRBA in the ground frame; Pinocchio's WORLD
/// convention): each link's inertia and motion subspace moved to the world once, the composite
/// inertias summed without transforms, and each column F_j = Ic S_j dotted with S_i at every
/// ancestor dof i of j. Fills X_WB, J_W (S in W) and Ic_W_moments.
void crbaInWorld(const Model& model, Data& data) {
  const int n = model.numLinks();
  for (int k = 0; k < n; ++k) {
    const int p = model.parents[k];
    data.X_WB[k] = p >= 0 ? data.X_WB[p] * data.X_PB[k] : data.X_PB[k];
    data.Ic_W_moments[k] = InertiaMoments();
    model.inertia_moments[k].addTransformedTo(data.X_WB[k], data.Ic_W_moments[k]);
    const Joint& joint = model.joints[k];
    for (int i = joint.idx_v; i < joint.idx_v + joint.nv; ++i) {
      data.J_W.col(i) = data.X_WB[k].act(Motion(Vector6(data.S_B.col(i)))).vector();
    }
  }
  Eigen::MatrixXd& M = data.M;
  for (int k = n - 1; k >= 0; --k) {
    const Joint& joint = model.joints[k];
    for (int j = joint.idx_v; j < joint.idx_v + joint.nv; ++j) {
      const Vector6 F = (data.Ic_W_moments[k] * Motion(Vector6(data.J_W.col(j)))).vector();
      for (int i = j; i >= 0; i = model.dof_parent[i]) {
        const double* S_i = &data.J_W(0, i);
        M(i, j) = M(j, i) = S_i[0] * F[0] + S_i[1] * F[1] + S_i[2] * F[2] + S_i[3] * F[3] +
                            S_i[4] * F[4] + S_i[5] * F[5];
      }
    }
    const int p = model.parents[k];
    if (p >= 0) data.Ic_W_moments[p] += data.Ic_W_moments[k];
  }
}

/// M in the links' frames (RBDA Table 6.2): from the leaves to the root, the composite inertia
/// Ic of each link's subtree, and the columns of M of its joint's dofs. Fills Ic_B.
void crbaInLinkFrames(const Model& model, Data& data) {
  const int n = model.numLinks();
  for (int k = 0; k < n; ++k) data.Ic_B[k] = model.inertia_moments[k];
  for (int k = n - 1; k >= 0; --k) {
    const Joint& joint = model.joints[k];
    joints::dispatch(joint, [&](auto kernel) {
      if constexpr (decltype(kernel)::nv > 0) compositeColumns<decltype(kernel)>(model, data, k);
    });
    const int p = model.parents[k];
    if (p >= 0) data.Ic_B[k].addTransformedTo(data.X_PB[k], data.Ic_B[p]);
  }
}

}  // namespace

GCBRIDGE_FLATTEN const Eigen::MatrixXd& crba(const Model& model, Data& data,
                                             const ConstVectorRef& q) {
  checkData(model, data, "crba");
  validateConfiguration(model, q);
  detail::updateJointPlacements(model, data, q);
  if (model.mean_dof_depth > kWorldCrbaDepth) {
    crbaInWorld(model, data);
  } else {
    crbaInLinkFrames(model, data);
  }
  return data.M;
}

void factorizeMassMatrix(const Model& model, Data& data) {
  checkData(model, data, "factorizeMassMatrix");
  // Featherstone's LTDL (RBDA Table 6.3): eliminate from the leaves up, touching only the
  // ancestors of each dof, so M's tree sparsity is kept.
  Eigen::MatrixXd& H = data.LTDL;
  H = data.M;
  const std::vector<int>& lambda = model.dof_parent;
  for (int k = model.nv - 1; k >= 0; --k) {
    if (!(H(k, k) > 0.0)) {
      throw SingularityError("mass matrix is not positive definite at dof " + std::to_string(k) +
                             " of joint '" + model.joints[model.dof_link[k]].name + "'");
    }
    for (int i = lambda[k]; i >= 0; i = lambda[i]) {
      const double a = H(k, i) / H(k, k);
      for (int j = i; j >= 0; j = lambda[j]) H(i, j) -= a * H(k, j);
      H(k, i) = a;
    }
  }
}

void solveMassMatrix(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  checkData(model, data, "solveMassMatrix");
  if (x.size() != model.nv) {
    throw InvalidArgumentError("solveMassMatrix: vector has size " + std::to_string(x.size()) +
                               ", needs nv = " + std::to_string(model.nv));
  }
  const Eigen::MatrixXd& H = data.LTDL;
  const std::vector<int>& lambda = model.dof_parent;
  // L^T z = b (leaves first), then D w = z, then L x = w (root first).
  for (int k = model.nv - 1; k >= 0; --k) {
    for (int i = lambda[k]; i >= 0; i = lambda[i]) x[i] -= H(k, i) * x[k];
  }
  for (int k = 0; k < model.nv; ++k) x[k] /= H(k, k);
  for (int k = 0; k < model.nv; ++k) {
    for (int i = lambda[k]; i >= 0; i = lambda[i]) x[k] -= H(k, i) * x[i];
  }
}

const Eigen::MatrixXd& computeMassMatrixInverse(const Model& model, Data& data) {
  checkData(model, data, "computeMassMatrixInverse");
  data.Minv.setIdentity();
  for (int j = 0; j < model.nv; ++j) solveMassMatrix(model, data, data.Minv.col(j));
  return data.Minv;
}

}  // namespace gcbridge
