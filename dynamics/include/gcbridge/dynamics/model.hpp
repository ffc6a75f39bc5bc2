#pragma once
/// @file
/// The articulated model (immutable after buildModel) and the Data workspace its algorithms write.
///
/// The model is a tree of links numbered so that every parent comes before its children
/// (parents[k] < k, -1 for the world; Liu & Jain). Link k is attached to its parent by joints[k].
/// A fixed-base model's root link is attached to the world by a Fixed joint; a floating-base
/// model's root by a Free joint. Fixed joints of the description can be merged into their parent
/// (the default): the merged links' inertias are added exactly and every description link stays
/// reachable as a Frame (link index + pose in that link).

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "gcbridge/dynamics/description.hpp"
#include "gcbridge/dynamics/joint.hpp"
#include "gcbridge/dynamics/spatial.hpp"

namespace gcbridge {

/// How a description becomes a model.
struct ModelOptions {
  /// Give the root link a Free joint (pybullet's default) instead of welding it to the world
  /// (ROS's and Pinocchio's default).
  bool floating_base = false;
  /// Merge links attached by Fixed joints into their parent (inertia combined exactly).
  bool merge_fixed_joints = true;
  /// How ball joints store their orientation in q.
  BallParametrization ball = BallParametrization::Quaternion;
  /// Gravity in the world frame [m/s^2].
  Vector3 gravity_W = Vector3(0.0, 0.0, -9.81);
  /// Build the robot this many times as large, of the same materials (scaleDescription: lengths
  /// times s, masses s^3, inertias s^5; pybullet's globalScaling). The model's description is the
  /// scaled one, so the Bullet worlds and the viewer built from the model are scaled too.
  double scale = 1.0;
};

/// A named frame fixed on a model link: one per description link (merged or not).
struct Frame {
  std::string name;  ///< the description link's name
  int link = 0;      ///< the model link it is rigidly attached to
  Transform X_BF;    ///< its pose in that link's frame B
};

/// The articulated model. Built once by buildModel(), never changed afterwards.
struct Model {
  std::string name;
  int nq = 0;  ///< configuration size
  int nv = 0;  ///< velocity size (degrees of freedom)
  bool floating_base = false;
  Vector3 gravity_W = Vector3(0.0, 0.0, -9.81);  ///< gravity in the world frame [m/s^2]

  std::vector<std::string> link_names;  ///< (nlinks)
  std::vector<int> parents;             ///< parent link of each link, -1 = world (nlinks)
  std::vector<Joint> joints;            ///< joints[k] attaches link k to parents[k] (nlinks)
  std::vector<Inertia> inertias;        ///< spatial inertia of link k in its frame (nlinks)
  /// inertias[k] as the explicit 6x6 matrix, for the articulated-body algorithm (nlinks).
  std::vector<Matrix6> inertia_matrices;
  /// inertias[k] by its moments about the link origin, for the composite inertias of CRBA (nlinks).
  std::vector<InertiaMoments> inertia_moments;
  std::vector<std::vector<int>> children;  ///< child links of each link (nlinks)
  std::vector<int> subtree_end;  ///< links k .. subtree_end[k]-1 form k's subtree (nlinks)
  std::vector<int> dof_link;     ///< the link each velocity index belongs to (nv)
  /// Where each unit quaternion (of a quaternion ball joint or a free joint) starts in q: on a
  /// finite q, the only entries validateConfiguration has more to check.
  std::vector<int> unit_quaternions;
  /// The previous dof on the path to the root (-1 at the root): the expanded parent array
  /// lambda(i) of the tree-sparse factorization of M (Featherstone, RBDA sec. 6.5) (nv).
  std::vector<int> dof_parent;
  /// The mean number of dofs from a dof to the root, itself included (the mean height of M's
  /// columns in the tree's sparsity pattern): how deep the tree is, which chooses crba's
  /// formulation.
  double mean_dof_depth = 0.0;
  std::vector<int> link_description;  ///< description link index of each model link (nlinks)
  std::vector<Frame> frames;          ///< one per description link, same order as the description
  std::shared_ptr<const RobotDescription> description;  ///< what the model was built from

  int numLinks() const { return static_cast<int>(parents.size()); }
  /// Index of the model link named `name`. @throws InvalidArgumentError if there is none.
  int linkIndex(const std::string& name) const;
  /// Index of the joint named `name` (= its child link). @throws InvalidArgumentError if none.
  int jointIndex(const std::string& name) const;
  /// Index of the frame named `name`. @throws InvalidArgumentError if there is none.
  int frameIndex(const std::string& name) const;
  /// Total mass of all links [kg].
  double totalMass() const;
};

/// Validates a description and builds the model.
/// @throws ModelError naming the link or joint (and source file and line if known) for: no link,
///   duplicate link or joint names, a joint naming a missing link, a link with two parents, a loop,
///   several roots, a negative or non-finite mass, an inertia that is not symmetric positive
///   semi-definite, a zero axis, lower > upper limits, a joint whose subtree has no mass or no
///   inertia about its axes (its block S^T Ic S of M singular at the neutral configuration), a
///   joint whose subtree's own joints let some of its motion through without inertia (ABA's pivot
///   S^T Ia S singular there), and a floating base asked for a root that hangs from the world on a
///   moving joint. An inertia that
///   breaks the triangle inequality only adds a warning.
Model buildModel(const RobotDescription& description, const ModelOptions& options = {});

/// Per-call buffers of the algorithms. Constructed once per model; no algorithm allocates.
/// B is the frame of the link in question, W the world.
struct Data {
  explicit Data(const Model& model);

  /// The model the buffers were made for: its name, link count and dof count (checkData compares
  /// them; the motion subspaces that do not depend on q are also the model's, set here).
  std::string model_name;
  int num_links = 0;
  int nv = 0;

  // Kinematics (kinematics.hpp, jacobians.hpp).
  /// Pose of link k in its parent's frame (the world for roots) (nlinks).
  std::vector<Transform> X_PB;
  /// Pose of link k in the world (nlinks).
  std::vector<Transform> X_WB;
  /// World position of link k's centre of mass [m] (nlinks).
  std::vector<Vector3> p_WBcm;
  /// Spatial velocity of link k in W, expressed in B (nlinks).
  std::vector<Motion> V_WB_B;
  /// Spatial (Featherstone) acceleration of link k, expressed in B: the time derivative of the
  /// spatial velocity. Its linear part is NOT the acceleration of any material point; see
  /// A_classical_WB_B for that (nlinks).
  std::vector<Motion> A_spatial_WB_B;
  /// Classical acceleration of link k, expressed in B: (angular acceleration, acceleration of the
  /// material point at B's origin) = A_spatial + (0, omega x v_Bo) (nlinks).
  std::vector<Motion> A_classical_WB_B;
  /// Motion subspace column of each dof, in its link's frame (6 x nv).
  Eigen::Matrix<double, 6, Eigen::Dynamic> S_B;
  /// World Jacobian: column j is S_j in W about the world origin (6 x nv).
  Eigen::Matrix<double, 6, Eigen::Dynamic> J_W;
  /// Time derivative of J_W (6 x nv).
  Eigen::Matrix<double, 6, Eigen::Dynamic> dJ_W;
  /// Zeros, for algorithms that need a zero acceleration (nv).
  Eigen::VectorXd zero_v;

  // Dynamics (rnea.hpp, crba.hpp, aba.hpp). These algorithms refresh X_PB (and V_WB_B,
  // A_spatial_WB_B where they compute them) but not X_WB and p_WBcm, which they do not need:
  // call forwardKinematics for those.
  /// Spatial force the parent exerts on link k across joint k, in B (nlinks).
  std::vector<Force> f_B;
  /// External force on link k, in B (nlinks).
  std::vector<Force> fext_B;
  /// Joint forces from rnea (nv).
  Eigen::VectorXd tau;
  /// Generalized gravity g(q) (nv).
  Eigen::VectorXd g;
  /// Nonlinear effects h = C(q, v) v + g(q) (nv).
  Eigen::VectorXd h;
  /// Coriolis and centrifugal forces C(q, v) v (nv).
  Eigen::VectorXd Cv;
  /// Joint-space inertia matrix M(q), both triangles filled (nv x nv).
  Eigen::MatrixXd M;
  /// Coriolis matrix C(q, v) with dM/dt - 2C skew-symmetric (nv x nv).
  Eigen::MatrixXd C;
  /// Inverse of M (nv x nv).
  Eigen::MatrixXd Minv;
  /// Tree-sparse factor M = L^T D L: D on the diagonal, L's strictly lower part below it and L^T
  /// above (nv x nv).
  Eigen::MatrixXd LTDL;
  /// Joint accelerations from aba (nv).
  Eigen::VectorXd qdd;
  /// Composite inertia of link k's subtree, in B, by its moments (nlinks).
  std::vector<InertiaMoments> Ic_B;
  /// Per dof j of link k: the force Ic_B[k] S_j (column j of M before the products with the motion
  /// subspaces), in B, then in each ancestor's frame in turn as crba's pass in the links' frames
  /// carries it up the tree; scratch, not meaningful on return (6 x nv).
  Eigen::Matrix<double, 6, Eigen::Dynamic> IcS_B;
  // crba on deep trees (crba.hpp), in the frame R of link 0 (the root).
  /// Pose of link k in R (nlinks).
  std::vector<Transform> X_RB;
  /// Motion subspace column of each dof, in R (6 x nv).
  Eigen::Matrix<double, 6, Eigen::Dynamic> S_R;
  /// Composite inertia of link k's subtree in R about R's origin, by its moments (nlinks).
  std::vector<InertiaMoments> Ic_R;
  /// Articulated-body inertia of link k, in B (nlinks). aba does not accumulate it for links
  /// welded to the world (no dof between them and the world): there it is the link's own inertia.
  std::vector<Matrix6> Ia_B;
  /// Articulated-body bias force of link k, in B; the link's own only where Ia_B is (nlinks).
  std::vector<Force> pa_B;
  /// Velocity-product acceleration S_dot v + V x (S v) of link k, in B (nlinks).
  std::vector<Motion> c_B;
  /// Ia S for each dof (6 x nv).
  Eigen::Matrix<double, 6, Eigen::Dynamic> U;
  /// (S^T Ia S)^-1 of each link's joint (nv_k x nv_k) (nlinks).
  std::vector<JointSquare> Dinv;
  /// tau - S^T pa for each dof (nv).
  Eigen::VectorXd u;

  // Derivatives of the dynamics (derivatives.hpp), in the root link's frame R like crba's
  // deep-tree form; q-derivatives in the tangent space (configuration.hpp's q (+) delta).
  /// d tau / dq and d tau / dv of rnea; d tau / da is M (nv x nv).
  Eigen::MatrixXd dtau_dq, dtau_dv;
  /// d qdd / dq and d qdd / dv of aba; d qdd / d tau is Minv (nv x nv).
  Eigen::MatrixXd dqdd_dq, dqdd_dv;
  /// Scratch of abaDerivatives' solve (3 nv x nv): column i is row i of [1, dtau_dq, dtau_dv].
  /// Empty on the chain-like trees where abaDerivatives multiplies by M^-1 instead
  /// (derivatives.hpp's abaDerivativesUseDenseProducts), whose nv is large.
  Eigen::MatrixXd tmp_rhs_T;
  /// Spatial velocity of link k in W, expressed in R (nlinks).
  std::vector<Motion> V_WB_R;
  /// Spatial acceleration of link k in W (the world's fictitious -g included), in R (nlinks).
  std::vector<Motion> A_WB_R;
  /// Net force on link k, then (leaves to root) on its subtree, in R (nlinks).
  std::vector<Force> F_R;
  /// The velocity-product matrix of link k, then of its subtree, in R: when the link's velocity
  /// changes by u and its acceleration by u x V, its net force changes by (Bc_R u_w, 2 u_w x P_R)
  /// for u's angular part u_w; u's linear part changes nothing (Galilean invariance) (nlinks).
  std::vector<Matrix3> Bc_R;
  /// Linear momentum of link k, then of its subtree, in R (nlinks).
  std::vector<Vector3> P_R;
  /// The change of the external force on link k, then on its subtree, when the link moves by a
  /// unit twist, less that twist's transport of the force, in R (nlinks).
  std::vector<Matrix6> Dc_R;
  /// Per dof j of link k (parent p, column S_j in R): dV/dq_j = V_p x S_j, the acceleration
  /// change A_p x S_j + V_p x dV/dq_j, and dA/dv_j = dV/dq_j + V_k x S_j, each less S_j's
  /// transport of the link's own velocity or acceleration (6 x nv).
  Eigen::Matrix<double, 6, Eigen::Dynamic> dV_dq_R, dA_dq_R, dA_dv_R;
  /// Per dof j of link k: the subtree's inertia times S_j, Ic_R[k] S_j, in R (6 x nv). crba's
  /// deep-tree form fills it too.
  Eigen::Matrix<double, 6, Eigen::Dynamic> IcS_R;
  /// Per dof j of link k: the angular half of B^T S_j for the subtree's velocity-product matrix B
  /// (its linear half is zero), Bc_R[k]^T S_j's angular part + 2 P_R[k] x S_j's linear part, in R
  /// (3 x nv).
  Eigen::Matrix<double, 3, Eigen::Dynamic> BcS_R;
  /// Per dof j of link k: Dc_R[k]^T S_j, with external forces, in R (6 x nv).
  Eigen::Matrix<double, 6, Eigen::Dynamic> DcS_R;
  /// abaDerivatives, when it takes qdd from M's factor: the part of link k's acceleration that the
  /// joint accelerations make, the sum of S_j qdd_j over the dofs on its path, in R (nlinks).
  std::vector<Motion> A_qdd_R;

  // Centroidal dynamics (centroidal.hpp).
  /// Composite inertia of link k's subtree in world axes about the world origin (nlinks).
  std::vector<Inertia> Ic_W;
  /// Scratch for the centroidal momentum matrix (6 x nv).
  Eigen::MatrixXd tmp_A_G;

  /// Scratch (nv).
  Eigen::VectorXd tmp_v;
};

/// Checks that `data` was made for `model` (its name, link count and dof count, and the tree's
/// shape where it sizes a buffer): every algorithm taking a Data calls it first, since the buffers
/// of another model would be read and written beyond their ends, or hold another model's motion
/// subspaces.
/// @throws InvalidArgumentError naming `function` and both models.
void checkData(const Model& model, const Data& data, const char* function);

}  // namespace gcbridge
