#pragma once
/// @file
/// The drop-in: attach a generalized-coordinate controller to a Bullet world the application
/// already has. Every internal substep of stepSimulation, in the world's pre-tick callback, the
/// plugin reads the model's state through the bridge (the sparse method), calls the controller,
/// and applies its generalized forces for that substep; in the post-tick callback it takes them
/// out again (force_conversion.hpp: forces in the accumulators are exact, impulses are not), so
/// it works with maxSubSteps > 1, fixed and variable time steps, and calls that run zero
/// substeps (nothing happens then). Gravity and the application's own forces are left alone.
///
/// Coexistence. A btDynamicsWorld has one pre-tick and one post-tick slot and one user pointer
/// shared by both. The first plugin attached to a world installs a dispatcher in both slots and
/// keeps the callbacks the application had installed: each substep the application's pre-tick
/// callback runs first, then every plugin of that world in attach order; after the substep every
/// plugin's post-tick work runs, then the application's post-tick callback. The world's user
/// pointer is never changed, so the application's callbacks see their own. Several plugins
/// (several robots) can share a world; detaching the last one puts the application's callbacks
/// back. If the application calls setInternalTickCallback while plugins are attached, it replaces
/// the dispatcher in that slot: a replaced pre-tick stops the plugins; a replaced post-tick makes
/// them apply nothing (their forces could not be taken out) and record an error each substep.
/// Plugin::isRunning() says false in both cases; attaching another plugin reinstalls the
/// dispatcher around the application's new callbacks, and detaching leaves them in place.
/// A plugin may be detached from inside any callback (its controller, its log, another plugin's):
/// it runs no more, takes out what it applied, and every other plugin still runs that substep.
/// Destroying a plugin from inside its own callback is not supported.
///
/// Sleeping. Bullet puts bodies that move slowly for 2 s to sleep, and sleeping bodies ignore
/// forces. While attached, the plugin keeps the bodies it controls awake: each btRigidBody gets
/// DISABLE_DEACTIVATION (and is woken), a btMultiBody setCanSleep(false). Detaching the last
/// plugin that controls a body gives it back its own rule: DISABLE_DEACTIVATION stays, a body that
/// could sleep (ACTIVE_TAG, or asleep at attach) is left awake with ACTIVE_TAG and may fall asleep
/// again; DISABLE_SIMULATION bodies are never touched.
///
/// Exceptions. When anything a plugin calls throws out of stepSimulation (throw_on_error, or an
/// on_error or log callback that throws), every plugin's forces of that substep are taken out and
/// the world's forces are cleared, as the skipped end of stepSimulation would have (gravity and
/// the application's forces included; the next stepSimulation applies gravity again). A log that
/// throws does so after its substep ran: the other plugins still finish that substep (take their
/// forces out, count it) before the exception leaves, and the application's post-tick callback is
/// not called for it.
///
/// On a btMultiBody the plugin adds its joint torques to those the application set (Bullet keeps
/// them until the end of stepSimulation) and takes exactly its own out after the substep, as the
/// free root's wrench.
///
/// The same ControlFunction drives the three engines unchanged: a btRigidBody world (attach), the
/// model's btMultiBody (attachMultiBody: joint torques added in its pre-tick) and gcbridge's own
/// integrators (asTorqueFunction).

#include <BulletDynamics/Dynamics/btDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/contact_reading.hpp"
#include "gcbridge/bridge/multibody_builder.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/integrators.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {
class Controller;
class ContactAwareController;
}  // namespace gcbridge

GCBRIDGE_BULLET_NAMESPACE_BEGIN

class Plugin;
namespace plugin_detail {
class Backend;
/// Makes the plugin copy the controller's message() into its record after each run.
void reportMessagesOf(Plugin& plugin, const Controller& controller);
}  // namespace plugin_detail

/// A controller: writes the generalized forces tau (paired with v; resize it to model.nv) for the
/// time t [s] (simulated time since attach) and the state (q, v).
using ControlFunction = std::function<void(double t, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& v, Eigen::VectorXd& tau)>;

/// What one substep did, for PluginOptions::log and Plugin::last().
struct SubstepRecord {
  double t = 0.0;               ///< time at the start of the substep [s]
  double h = 0.0;               ///< substep length [s]
  Eigen::VectorXd q;            ///< state read at the start of the substep (nq)
  Eigen::VectorXd v;            ///< (nv)
  Eigen::VectorXd tau;          ///< generalized forces applied during the substep (nv; 0 on error;
                                ///< the held tau on substeps where the controller did not run)
  bool controller_ran = false;  ///< false when the zero-order hold reused the last tau
  int saturated = 0;            ///< number of dofs clamped to the torque limits
  double joint_error = 0.0;     ///< largest pivot separation [m] (with diagnostics)
  double velocity_residual = 0.0;  ///< largest ||J_k v - V_k|| (with diagnostics)
  std::string error;               ///< empty, or why nothing was applied this substep
  /// A gcbridge controller's message() after this substep's run: what it could not do and the
  /// fallback it took (FloatingBaseController's status); empty when it did what its law asks, on
  /// substeps where it did not run, and for a ControlFunction.
  std::string controller_message;
};

/// How a plugin's torques act on the world.
enum class Actuation {
  /// As forces on the bodies (addJointForces): exactly the controller's torques, which Bullet's
  /// solver then answers with the joints' constraint forces.
  Forces,
  /// Through Bullet's own joint motors where a joint has one (rigid bodies: hinges and sliders,
  /// bridge/joint_motors.hpp; a btMultiBody: revolute, prismatic and ball joints,
  /// bridge/multibody_motors.hpp, a ball's target as the position Bullet's spherical motor
  /// takes): the accelerations the controller aims at, qdd* (PluginOptions::
  /// motor_accelerations; else the model's acceleration under its torques before the torque
  /// limits, qdd* = ABA(q, v, tau), free-space dynamics that know no contacts), become each
  /// motor's velocity target v + h qdd*, its max effort the dof's torque limit (unbounded without
  /// torque_limits).
  /// Bullet's solver then enforces those joint velocities implicitly, together with the joints,
  /// as Bullet's example apps' motors do; contacts and limits act on top. Dofs without a motor (a
  /// free root; ball joints on rigid bodies) get their (limited) torques as forces. On a
  /// btMultiBody, a driven link without a collider gets one that collides with nothing (Bullet
  /// solves a multibody constraint only on a link with one); the motors and those colliders
  /// leave the world when the plugin is destroyed (detached, the motors are off). The motors stay
  /// on between substeps (each substep sets them), go off for a substep that applies nothing (an
  /// error) and on detach. Do not compensate Bullet's damping in the controller (ComputedTorque::
  /// setLinkDamping): the motors reach their targets with the damping acting.
  JointMotors
};

/// How a plugin runs.
struct PluginOptions {
  /// Control period [s]: 0 runs the controller every substep; > 0 runs it on a fixed schedule, at
  /// the first substep starting at or after each k * control_period (k = 0, 1, ...; time since
  /// attach), and holds its tau in between (zero-order hold). A period that is not a whole number
  /// of substeps keeps its rate on average (10 ms with 1/240 s substeps: 100 runs per second,
  /// 2 or 3 substeps apart); with substeps longer than the period it runs every substep. The
  /// motors of Actuation::JointMotors hold the controller's accelerations likewise (so a target
  /// aimed one substep ahead, ComputedTorque::aimAtStepEnd, wants control_period 0).
  double control_period = 0.0;
  /// Per-dof limits |tau_i| <= limit_i (size nv; empty: none). attachWithModelLimits-style use:
  /// pass effortLimits(model).
  Eigen::VectorXd torque_limits;
  /// Compute the joint errors and the velocity residual every substep (costs a forward-kinematics
  /// pass and a loop over the joints).
  bool diagnostics = false;
  /// When the controller throws, returns the wrong size or a NaN, or the world no longer matches
  /// the map (checked once a substep, when the state is read: a world the controller itself
  /// changes is caught at the next substep's read): nothing is applied that substep and the
  /// error is recorded (Plugin::errorCount, SubstepRecord::error). Then, if set, on_error is
  /// called with the message; if throw_on_error, a gcbridge::Error is thrown out of
  /// stepSimulation: the bodies are where that substep started, and the world's forces are
  /// cleared as stepSimulation's end would have (the same if on_error itself throws). A tau that
  /// is finite but huge is applied: clamp it with torque_limits.
  std::function<void(const std::string&)> on_error;
  bool throw_on_error = false;
  /// Called after every substep with what it did (no allocation if it does not copy).
  std::function<void(const SubstepRecord&)> log;
  /// Rigid bodies only: project the bodies onto the joints when attached (projectOntoJoints),
  /// so that a world spawned off its constraints starts on them instead of being snapped
  /// together by Bullet's solver in its first substeps.
  bool project_on_attach = false;
  /// Rigid bodies only: project them again before every project_every-th substep (0: never),
  /// removing the drift Bullet's solver leaves. It changes the dynamics: it moves the bodies
  /// (docs/bullet-notes.md).
  int project_every = 0;
  /// How the controller's torques act (Actuation).
  Actuation actuation = Actuation::Forces;
  /// Actuation::JointMotors: the accelerations the controller aims at (nv), read after each of
  /// its runs, as the motors' targets instead of ABA(q, v, tau). Needed on a floating base that
  /// stands on contacts, where free-space ABA aims elsewhere. attach with a gcbridge Controller
  /// that has them (Controller::targetAcceleration: ComputedTorque) sets it when empty.
  std::function<const Eigen::VectorXd&()> motor_accelerations;
  /// With a ContactAwareController (FloatingBaseController) on a rigid-body world: before each run
  /// of the controller, read the contacts of the model's bodies from Bullet's manifolds
  /// (readContacts with contact_reading) and hand them to it. false: the controller keeps the
  /// contacts the application gives it.
  bool read_contacts = true;
  ContactReadOptions contact_reading;
  /// With read_contacts: declared points instead of Bullet's. Before each run, the points of every
  /// link that has declared ones are switched on if Bullet reports that link touching something,
  /// off if not, and the active points are handed to the controller (Bullet's points on links
  /// without declared ones are added after them). Must outlive the plugin; needs read_contacts.
  ContactFrames* contact_frames = nullptr;
};

/// The model's effort limits as a per-dof vector (infinite where the model has none).
Eigen::VectorXd effortLimits(const Model& model);

/// A controller attached to a world. Made by attach or attachMultiBody; detaches when destroyed.
/// The model, map (or btMultiBody and layout) and world must outlive it.
class Plugin {
 public:
  ~Plugin();
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  /// Stops running and restores the world's callbacks if this was its last plugin. Idempotent.
  void detach();
  /// Whether the plugin runs each substep (attached, and the world's callbacks are still the
  /// dispatcher's).
  bool isRunning() const;

  /// Simulated time since attach [s].
  double time() const { return t_; }
  /// The last substep (state read, tau applied, saturation, diagnostics, error).
  const SubstepRecord& last() const { return record_; }
  /// Number of errors recorded: substeps that applied nothing, and forces that could not be
  /// taken out after a substep.
  long errorCount() const { return errors_; }
  /// Number of substeps run.
  long substeps() const { return substeps_; }

  /// Runs on the world's pre-tick: read, control, apply. Public for the dispatcher only.
  void preTick(double h);
  /// Runs on the world's post-tick: remove this substep's forces, advance time, log.
  void postTick(double h);
  /// Drops the record of this substep's forces without touching the bodies (after the world's
  /// clearForces). For the dispatcher only.
  void forgetAppliedForces();

 private:
  friend std::unique_ptr<Plugin> attach(btDynamicsWorld&, const Model&, const RigidBodyMap&,
                                        ControlFunction, PluginOptions);
  friend std::unique_ptr<Plugin> attachMultiBody(btMultiBodyDynamicsWorld&, const Model&,
                                                 const MultiBodyLayout&, btMultiBody&,
                                                 ControlFunction, PluginOptions);
  friend void plugin_detail::reportMessagesOf(Plugin& plugin, const Controller& controller);
  Plugin(btDynamicsWorld& world, const Model& model, ControlFunction controller,
         PluginOptions options, std::unique_ptr<plugin_detail::Backend> backend);
  void fail(const std::string& message);
  /// Runs the controller if it is due (the hold keeps tau otherwise) into tau_held_.
  /// @return false if the controller detached the plugin. @throws for a bad tau.
  bool control();
  /// Takes this substep's forces out of the bodies (or the btMultiBody), if any.
  void removeAppliedForces();

  btDynamicsWorld* world_;
  const Model* model_;
  /// Rigid bodies through a map, or a btMultiBody.
  std::unique_ptr<plugin_detail::Backend> backend_;
  ControlFunction controller_;
  PluginOptions options_;
  Eigen::VectorXd tau_command_;         // the controller's output (nv)
  Eigen::VectorXd tau_unlimited_held_;  // the last valid output, before the torque limits (nv)
  Eigen::VectorXd tau_held_;            // what is applied while the hold lasts (nv)
  Eigen::VectorXd qdd_held_;            // options_.motor_accelerations of the last run (nv)
  bool applied_ = false;
  bool in_substep_ = false;  // its pre-tick ran and its post-tick has not
  bool attached_ = false;
  double t_ = 0.0;
  double next_control_t_ = 0.0;
  long errors_ = 0;
  long substeps_ = 0;
  SubstepRecord record_;
  /// The gcbridge controller behind controller_, whose message() goes into the record; or null.
  const Controller* controller_object_ = nullptr;
};

/// Attaches `controller` to a btRigidBody world through `map` (from buildRigidBodyWorld or
/// inferModelFromWorld; its world must be `world`).
/// @throws WorldError if the map does not match the model or the world (map.validate), or its
///   world is another one; InvalidArgumentError for bad options (torque_limits size, negative
///   period) or an empty controller.
std::unique_ptr<Plugin> attach(btDynamicsWorld& world, const Model& model, const RigidBodyMap& map,
                               ControlFunction controller, PluginOptions options = {});

/// Attaches `controller` to the model's btMultiBody (from buildMultiBody): each substep the state
/// is read with getMultiBodyState and tau converted with setMultiBodyJointTorques; the joint
/// torques and a free root's wrench are added to the application's in the pre-tick, and exactly
/// they are taken out in the post-tick.
/// @throws WorldError if `body` is not in `world`; InvalidArgumentError if the body or layout does
///   not match the model, or bad options.
std::unique_ptr<Plugin> attachMultiBody(btMultiBodyDynamicsWorld& world, const Model& model,
                                        const MultiBodyLayout& layout, btMultiBody& body,
                                        ControlFunction controller, PluginOptions options = {});

/// A gcbridge controller (controllers/controller.hpp: ComputedTorque, JointPD, StablePD,
/// TaskSpaceController, ...) as a ControlFunction: tau = controller.compute(t, q, v). The
/// controller must outlive the function.
ControlFunction asControlFunction(Controller& controller);

/// attach with a gcbridge controller (asControlFunction), which must outlive the plugin.
/// @throws InvalidArgumentError if the controller is for a model of other sizes; as attach.
std::unique_ptr<Plugin> attach(btDynamicsWorld& world, const Model& model, const RigidBodyMap& map,
                               Controller& controller, PluginOptions options = {});

/// attachMultiBody with a gcbridge controller (asControlFunction), which must outlive the plugin.
/// @throws InvalidArgumentError if the controller is for a model of other sizes; as
///   attachMultiBody.
std::unique_ptr<Plugin> attachMultiBody(btMultiBodyDynamicsWorld& world, const Model& model,
                                        const MultiBodyLayout& layout, btMultiBody& body,
                                        Controller& controller, PluginOptions options = {});

/// attach with a contact-aware controller: before each of its runs, the contacts of the model's
/// bodies are read from the world (options.read_contacts, options.contact_reading) and handed to
/// it with setContacts; its message() goes into each SubstepRecord. The controller (and
/// options.contact_frames) must outlive the plugin.
/// @throws InvalidArgumentError for a controller or contact frames made for a model of other sizes,
///   a contact_reading.max_distance that is negative or NaN, or contact_frames without
///   read_contacts; as attach.
std::unique_ptr<Plugin> attach(btDynamicsWorld& world, const Model& model, const RigidBodyMap& map,
                               ContactAwareController& controller, PluginOptions options = {});

/// attachMultiBody with a contact-aware controller, which keeps the contacts the application
/// gives it (reading them from a btMultiBody's manifolds is not supported).
/// @throws InvalidArgumentError unless options.read_contacts is false and options.contact_frames
///   null; as attachMultiBody.
std::unique_ptr<Plugin> attachMultiBody(btMultiBodyDynamicsWorld& world, const Model& model,
                                        const MultiBodyLayout& layout, btMultiBody& body,
                                        ContactAwareController& controller,
                                        PluginOptions options = {});

/// The controller as a TorqueFunction for gcbridge's integrators (integrators.hpp).
/// @throws InvalidArgumentError (when called) if it returns the wrong size or a NaN.
TorqueFunction asTorqueFunction(const Model& model, ControlFunction controller);

GCBRIDGE_BULLET_NAMESPACE_END
