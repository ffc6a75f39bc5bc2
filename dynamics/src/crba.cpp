#include "gcbridge/dynamics/crba.hpp"

#include <algorithm>
#include <string>

#include "detail.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "joints/dispatch.hpp"
#include "tree_lu.hpp"

namespace gcbridge {
namespace {

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

// S . F written out term by term.
inline double dot6(const double* S, const double* F) {
  return S[0] * F[0] + S[1] * F[1] + S[2] * F[2] + S[3] * F[3] + S[4] * F[4] + S[5] * F[5];
}

// Moves each link's pose, motion subspace and own inertia to the root link's frame R.
void placeLinksInRootFrame(const Model& model, Data& data) {
  const Transform X_RW = data.X_PB[0].inverse();
  for (int k = 0; k < model.numLinks(); ++k) {
    const int p = model.parents[k];
    data.X_RB[k] = p >= 0 ? data.X_RB[p] * data.X_PB[k] : X_RW * data.X_PB[k];
    data.Ic_R[k] = InertiaMoments();
    model.inertia_moments[k].addTransformedTo(data.X_RB[k], data.Ic_R[k]);
    const Joint& joint = model.joints[k];
    for (int i = joint.idx_v; i < joint.idx_v + joint.nv; ++i) {
      data.S_R.col(i) = data.X_RB[k].act(Motion(Vector6(data.S_B.col(i)))).vector();
    }
  }
}

// M(i, r) = M(r, i) = S_i . (Ic S_r) for each dof i and each r among i and its descendants (the
// dofs after i up to its subtree's end), for eight consecutive i at a time: each Ic S_r read
// serves eight products, written to eight consecutive entries of column r and down eight
// columns. (Dof by dof, the entries along a row lie nv apart in memory, which the cache cannot
// hold on long chains.) The work stays O(n d): a block's r run to the end of the largest of its
// eight subtrees, which is at most the sum of their sizes.
void fillAncestorPairs(const Model& model, Data& data) {
  constexpr int kBlock = 8;
  Eigen::MatrixXd& M = data.M;
  for (int first = 0; first < model.nv; first += kBlock) {
    const int next = std::min(first + kBlock, model.nv);
    int ends[kBlock];
    int block_end = 0;
    for (int i = first; i < next; ++i) {
      ends[i - first] = detail::subtreeDofEnd(model, i);
      block_end = std::max(block_end, ends[i - first]);
    }
    for (int r = first; r < block_end; ++r) {
      const double* IcS_r = &data.IcS_R(0, r);
      double* M_r = &M(0, r);
      for (int i = first; i < next && i <= r; ++i) {
        if (r < ends[i - first]) M_r[i] = M(r, i) = dot6(&data.S_R(0, i), IcS_r);
      }
    }
  }
}

/// M in the root link's frame R (Featherstone's CRBA in a fixed frame, RBDA sec. 6.2; Pinocchio's
/// WORLD convention, with R in place of the world so that the moments stay small far from the
/// world's origin).
/// Inputs: data.X_PB and data.S_B at q. Outputs: data.M (the ancestor pairs, both triangles), and
/// data.X_RB, data.S_R, data.Ic_R and data.IcS_R.
/// Each link's pose, motion subspace and inertia are moved to R once; the composite inertias then
/// add without transforms, and M(i, j) = S_i . (Ic S_j) is one 6-vector product per ancestor dof
/// i of j.
void crbaInRootFrame(const Model& model, Data& data) {
  placeLinksInRootFrame(model, data);
  for (int k = model.numLinks() - 1; k >= 0; --k) {
    const Joint& joint = model.joints[k];
    for (int j = joint.idx_v; j < joint.idx_v + joint.nv; ++j) {
      data.IcS_R.col(j) = (data.Ic_R[k] * Motion(Vector6(data.S_R.col(j)))).vector();
    }
    const int p = model.parents[k];
    if (p >= 0) data.Ic_R[p] += data.Ic_R[k];
  }
  fillAncestorPairs(model, data);
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
  if (model.mean_dof_depth > kCrbaRootFrameDepth) {
    crbaInRootFrame(model, data);
  } else {
    crbaInLinkFrames(model, data);
  }
  return data.M;
}

void factorizeMassMatrix(const Model& model, Data& data) {
  checkData(model, data, "factorizeMassMatrix");
  // Featherstone's LTDL (RBDA Table 6.3): eliminate from the leaves up, touching only the
  // ancestors of each dof, so M's tree sparsity is kept. The reduction runs on the upper
  // triangle, where column i's entries on i's ancestors (rows j < i) lie in runs of contiguous
  // memory; each multiplier goes to both triangles.
  Eigen::MatrixXd& H = data.LTDL;
  H = data.M;
  for (int k = model.nv - 1; k >= 0; --k) {
    if (!(H(k, k) > 0.0)) {
      throw SingularityError("mass matrix is not positive definite at dof " + std::to_string(k) +
                             " of joint '" + model.joints[model.dof_link[k]].name + "'");
    }
    const double* H_k = H.col(k).data();
    for (int i = model.dof_parent[k]; i >= 0; i = model.dof_parent[i]) {
      const double a = H_k[i] / H_k[k];
      double* H_i = H.col(i).data();
      detail::forEachAncestorRun(model, i, [&](int first, int n) {
        for (int j = first; j < first + n; ++j) H_i[j] -= a * H_k[j];
      });
      H(k, i) = H(i, k) = a;
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
