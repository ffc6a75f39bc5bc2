#!/usr/bin/env python3
"""Checks one behaviour of the `gcbridge` command-line tool; CTest runs one case per test.

Usage: check_cli.py CASE --gcbridge EXE --models DIR --data DIR --version V --precision P

Expected sizes are counted independently of gcbridge where practical: the URDF is read with
xml.etree and the model's links, masses and joints are derived from it. Every failure prints the
command, its exit code, stdout and stderr.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET


class CheckFailed(Exception):
    pass


class Run:
    """One finished run of gcbridge."""

    def __init__(self, args, proc):
        self.args = args
        self.code = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def describe(self):
        return (f"command: {' '.join(self.args)}\nexit code: {self.code}\n"
                f"--- stdout ---\n{self.out}--- stderr ---\n{self.err}--- end ---")

    def check(self, condition, message):
        if not condition:
            raise CheckFailed(f"{message}\n{self.describe()}")

    def json(self):
        try:
            return json.loads(self.out)
        except json.JSONDecodeError as e:
            raise CheckFailed(f"stdout is not valid JSON: {e}\n{self.describe()}")


def run(ctx, *args):
    cmd = [ctx.gcbridge, *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8", timeout=60)
    return Run(cmd, proc)


def urdf_facts(path):
    """Link names, total mass and joint types of a URDF, read without gcbridge."""
    # Bullet's humanoid ends with a NUL byte after </robot>, which xml.etree rejects.
    with open(path, "rb") as f:
        robot = ET.fromstring(f.read().rstrip(b"\0"))
    links = [l for l in robot.findall("link") if l.get("name") != "world"]
    mass = 0.0
    for link in links:
        m = link.find("inertial/mass")
        if m is not None:
            mass += float(m.get("value"))
    joints = {j.get("name"): j.get("type") for j in robot.findall("joint")}
    return [l.get("name") for l in links], mass, joints


def check_links_consistent(r, model):
    """Parents come before children and q/v slices tile q and v in link order."""
    links = model["links"]
    r.check(len(links) == model["num_links"], "num_links differs from len(links)")
    index_of = {l["name"]: l["index"] for l in links}
    next_q = next_v = 0
    for k, link in enumerate(links):
        r.check(link["index"] == k, f"link {k} has index {link['index']}")
        if link["parent"] is not None:
            r.check(index_of[link["parent"]] < k, f"parent of link {k} comes after it")
        joint = link["joint"]
        r.check(joint["nq"] == 0 or joint["idx_q"] == next_q, f"link {k}: idx_q not contiguous")
        r.check(joint["nv"] == 0 or joint["idx_v"] == next_v, f"link {k}: idx_v not contiguous")
        next_q += joint["nq"]
        next_v += joint["nv"]
    r.check(next_q == model["nq"], f"joint nq sum to {next_q}, nq is {model['nq']}")
    r.check(next_v == model["nv"], f"joint nv sum to {next_v}, nv is {model['nv']}")


def case_help(ctx):
    r = run(ctx, "--help")
    r.check(r.code == 0, "--help must exit 0")
    r.check("info" in r.out, "--help must mention the info command")
    r = run(ctx, "info", "--help")
    r.check(r.code == 0, "info --help must exit 0")
    for option in ("--floating-base", "--ball", "--no-merge", "--json"):
        r.check(option in r.out, f"info --help must document {option}")


def case_version(ctx):
    r = run(ctx, "--version")
    r.check(r.code == 0, "--version must exit 0")
    r.check(ctx.version in r.out, f"--version must print the version {ctx.version}")
    r.check(ctx.precision in r.out, f"--version must print the Bullet precision {ctx.precision}")


def case_usage_errors(ctx):
    iiwa = os.path.join(ctx.models, "kuka_iiwa", "model.urdf")
    for args in ([], ["frobnicate"], ["--frobnicate"], ["info"], ["info", "--bogus", iiwa],
                 ["info", "--ball", "rodrigues", iiwa], ["info", iiwa, "--ball"],
                 ["info", iiwa, iiwa]):
        r = run(ctx, *args)
        r.check(r.code == 2, "a command-line mistake must exit 2")
        r.check(r.err.startswith("gcbridge: "), "the message must start with 'gcbridge: '")
        r.check(r.out == "", "nothing may go to stdout")


def case_info_iiwa_json(ctx):
    path = os.path.join(ctx.models, "kuka_iiwa", "model.urdf")
    names, mass, joints = urdf_facts(path)
    r = run(ctx, "info", "--json", path)
    r.check(r.code == 0, "info --json must succeed")
    model = r.json()
    r.check(model["name"] == "lbr_iiwa", "name")
    r.check(model["nq"] == 7 and model["nv"] == 7, "the iiwa has nq = nv = 7")
    # The root link is welded to the world as link 0; seven revolute links follow.
    r.check(model["num_links"] == 8 and len(model["links"]) == 8, "the iiwa has 8 model links")
    r.check(model["floating_base"] is False, "fixed base by default")
    r.check([l["name"] for l in model["links"]] == names, "link names in file order")
    r.check(math.isclose(model["total_mass"], mass, rel_tol=1e-12), f"total mass {mass} kg")
    r.check(math.isclose(sum(l["mass"] for l in model["links"]), mass, rel_tol=1e-12),
            "link masses sum to the total mass")
    root = model["links"][0]
    r.check(root["parent"] is None, "link 0's parent is the world (null)")
    r.check(root["joint"]["type"] == "fixed" and root["joint"]["nq"] == 0
            and root["joint"]["nv"] == 0, "link 0 is welded: fixed, nq = nv = 0")
    for k, link in enumerate(model["links"][1:], start=1):
        joint = link["joint"]
        r.check(link["parent"] == names[k - 1], f"link {k}'s parent is {names[k - 1]}")
        r.check(joints[joint["name"]] == "revolute" and joint["type"] == "revolute",
                f"joint {joint['name']} is revolute")
        r.check((joint["idx_q"], joint["idx_v"], joint["nq"], joint["nv"]) == (k - 1, k - 1, 1, 1),
                f"joint {k} owns q[{k - 1}] and v[{k - 1}]")
        r.check(joint["limits"]["upper"] > 0 > joint["limits"]["lower"], "limits read")
    r.check(model["frames"] == [] and model["warnings"] == [], "no merged frames, no warnings")
    check_links_consistent(r, model)


def case_info_iiwa_text(ctx):
    path = os.path.join(ctx.models, "kuka_iiwa", "model.urdf")
    names, _, _ = urdf_facts(path)
    r = run(ctx, "info", path)
    r.check(r.code == 0, "info must succeed")
    for field in ("lbr_iiwa", path, "nq          7", "nv          7", "links       8",
                  "17.5 kg", "fixed"):
        r.check(field in r.out, f"the text output must contain '{field}'")
    for name in names:
        r.check(name in r.out, f"the links table must list {name}")


def case_info_humanoid_floating(ctx):
    path = os.path.join(ctx.models, "humanoid_deepmimic", "humanoid.urdf")
    _, mass, joints = urdf_facts(path)
    balls = sum(1 for t in joints.values() if t == "spherical")
    revolutes = sum(1 for t in joints.values() if t in ("revolute", "continuous"))
    for ball, ball_nq in (("quaternion", 4), ("expmap", 3), ("euler", 3)):
        r = run(ctx, "info", "--json", "--floating-base", "--ball", ball, path)
        r.check(r.code == 0, "info --floating-base must succeed")
        model = r.json()
        nq = 7 + ball_nq * balls + revolutes
        r.check(model["nv"] == 6 + 3 * balls + revolutes == 34, "the humanoid has nv = 34")
        r.check(model["nq"] == nq, f"with {ball} balls the humanoid has nq = {nq}")
        r.check(model["floating_base"] is True, "floating_base is true")
        root = model["links"][0]["joint"]
        r.check((root["type"], root["nq"], root["nv"]) == ("free", 7, 6), "link 0 has a free joint")
        r.check(math.isclose(model["total_mass"], mass, rel_tol=1e-12), f"total mass {mass} kg")
        ball_joints = [l["joint"] for l in model["links"] if l["joint"]["type"] == "ball"]
        r.check(len(ball_joints) == balls, f"{balls} ball joints")
        expected = "euler_xyz" if ball == "euler" else ball
        r.check(all(j["parametrization"] == expected and j["nq"] == ball_nq and j["nv"] == 3
                    for j in ball_joints), f"ball joints use {expected}")
        check_links_consistent(r, model)
    r = run(ctx, "info", "--floating-base", "--ball", "expmap", path)
    r.check(r.code == 0 and "ball (expmap)" in r.out, "the table shows the ball parametrization")
    r.check("nq          35" in r.out and "floating" in r.out, "the table shows nq and the base")


def case_info_no_merge(ctx):
    path = os.path.join(ctx.models, "two_joint_robot", "TwoJointRobot_w_fixedJoints.urdf")
    names, mass, _ = urdf_facts(path)
    merged = run(ctx, "info", "--json", path)
    merged.check(merged.code == 0, "info must succeed")
    kept = run(ctx, "info", "--json", "--no-merge", path)
    kept.check(kept.code == 0, "info --no-merge must succeed")
    m, k = merged.json(), kept.json()
    merged.check(len(m["frames"]) > 0, "this model has links merged by fixed joints")
    merged.check(m["num_links"] + len(m["frames"]) == len(names),
                 "every description link is a model link or a merged frame")
    kept.check(k["num_links"] == len(names) and k["frames"] == [],
               "--no-merge keeps every description link")
    kept.check((k["nq"], k["nv"]) == (m["nq"], m["nv"]), "merging does not change nq and nv")
    kept.check(math.isclose(k["total_mass"], mass, rel_tol=1e-12)
               and math.isclose(m["total_mass"], mass, rel_tol=1e-12), "merging keeps the mass")
    for frame in m["frames"]:
        merged.check(frame["name"] in names and frame["link"] in names, "frames name links")
    check_links_consistent(merged, m)
    check_links_consistent(kept, k)


def case_missing_file(ctx):
    path = os.path.join(ctx.data, "no_such_model.urdf")
    r = run(ctx, "info", path)
    r.check(r.code == 1, "a missing file must exit 1")
    r.check(r.err.startswith("gcbridge: ") and path in r.err, "stderr must name the file")
    r.check(r.out == "", "nothing may go to stdout")


def case_broken_urdf(ctx):
    path = os.path.join(ctx.data, "broken.urdf")
    for args in (["info", path], ["info", "--json", path]):
        r = run(ctx, *args)
        r.check(r.code == 1, "a broken URDF must exit 1")
        r.check(r.err.startswith("gcbridge: ") and path in r.err, "stderr must name the file")
        r.check(r.out == "", "nothing may go to stdout")


def case_json_escaping(ctx):
    path = os.path.join(ctx.data, "escaping.urdf")
    r = run(ctx, "info", "--json", path)
    r.check(r.code == 0, "info --json must succeed")
    model = r.json()
    r.check(model["name"] == 'say "hi"', "a quote in the robot name")
    r.check([l["name"] for l in model["links"]] == ["base\\link", "Glied_äöü_関節"],
            "a backslash and non-ASCII letters in link names")
    r.check(model["links"][1]["parent"] == "base\\link", "parent name")
    r.check(model["links"][1]["joint"]["name"] == "line\nbreak\ttab",
            "a newline and a tab in a joint name")
    r.check(model["links"][1]["joint"]["axis"] == [0, 1, 0], "the axis")


def case_warnings(ctx):
    path = os.path.join(ctx.data, "warning.urdf")
    r = run(ctx, "info", "--json", path)
    r.check(r.code == 0, "a warning is not an error")
    model = r.json()
    r.check(len(model["warnings"]) == 1 and "triangle inequality" in model["warnings"][0],
            "the JSON lists the warning")
    r.check(r.err.startswith("gcbridge: warning: ") and "triangle inequality" in r.err,
            "the warning goes to stderr")
    r = run(ctx, "info", path)
    r.check(r.code == 0 and "triangle inequality" in r.out.split("\nwarnings\n")[-1],
            "the text output lists the warning")


# --- gcbridge dynamics -------------------------------------------------------------------------
#
# Oracles are computed here without gcbridge: the textbook acrobot (Spong; Tedrake, Underactuated
# Robotics, ch. 3) and identities between the printed terms (h = Cqd + g, tau = M a + h,
# M qdd + h = tau, M symmetric). Plain lists: numpy is not a dependency.

GRAVITY = 9.81


def acrobot_path(ctx):
    return os.path.join(ctx.models, "acrobot_drake", "Acrobot.urdf")


def iiwa_path(ctx):
    return os.path.join(ctx.models, "kuka_iiwa", "model.urdf")


def humanoid_path(ctx):
    return os.path.join(ctx.models, "humanoid_deepmimic", "humanoid.urdf")


def csv(values):
    """A --q/--v/--a/--tau list; repr keeps every digit."""
    return ",".join(repr(float(x)) for x in values)


def mat_vec(M, x):
    return [sum(m * xi for m, xi in zip(row, x)) for row in M]


def close(x, y, tol):
    """|x - y| <= tol * max(1, |y|): relative with an absolute floor."""
    return abs(x - y) <= tol * max(1.0, abs(y))


def check_vector(r, name, got, expected, tol):
    r.check(len(got) == len(expected), f"{name} has {len(got)} entries, expected {len(expected)}")
    worst = max(range(len(got)), key=lambda i: abs(got[i] - expected[i]), default=None)
    if worst is not None:
        r.check(all(close(g, e, tol) for g, e in zip(got, expected)),
                f"{name} differs at [{worst}]: {got[worst]!r} vs expected {expected[worst]!r} "
                f"(tolerance {tol})\n{name} = {got}\nexpected = {expected}")


def check_matrix(r, name, got, expected, tol):
    r.check(len(got) == len(expected), f"{name} has {len(got)} rows, expected {len(expected)}")
    for i, (row, expected_row) in enumerate(zip(got, expected)):
        check_vector(r, f"{name}[{i}]", row, expected_row, tol)


def run_dynamics_json(ctx, path, *args):
    r = run(ctx, "dynamics", "--json", path, *args)
    r.check(r.code == 0, "dynamics --json must succeed")
    r.check(r.err == "", "nothing may go to stderr")
    return r, r.json()


def acrobot_textbook(q, qd):
    """M, C*qdot and g of the Spong acrobot with the Acrobot.urdf parameters, q = 0 hanging down."""
    m1 = m2 = 1.0
    l1, lc1, lc2 = 1.0, 0.5, 1.0
    I1 = 0.083 + m1 * lc1 ** 2  # about the shoulder axis
    I2 = 0.33 + m2 * lc2 ** 2   # about the elbow axis
    s1, s2, c2 = math.sin(q[0]), math.sin(q[1]), math.cos(q[1])
    s12 = math.sin(q[0] + q[1])
    m12 = I2 + m2 * l1 * lc2 * c2
    M = [[I1 + I2 + m2 * l1 ** 2 + 2 * m2 * l1 * lc2 * c2, m12], [m12, I2]]
    Cqd = [-2 * m2 * l1 * lc2 * s2 * qd[0] * qd[1] - m2 * l1 * lc2 * s2 * qd[1] ** 2,
           m2 * l1 * lc2 * s2 * qd[0] ** 2]
    g = [m1 * GRAVITY * lc1 * s1 + m2 * GRAVITY * (l1 * s1 + lc2 * s12),
         m2 * GRAVITY * lc2 * s12]
    return M, Cqd, g


# Acrobot states (q, qdot) away from and at the special points (hanging, upright, zero speed).
ACROBOT_STATES = [([0.0, 0.0], [0.0, 0.0]), ([0.3, -0.7], [1.0, 2.0]),
                  ([math.pi, 0.0], [-0.5, 0.25]), ([-2.1, 1.3], [3.0, -1.5]),
                  ([1.234, 2.345], [-0.7, 0.0])]


def case_dynamics_help(ctx):
    r = run(ctx, "--help")
    r.check(r.code == 0 and "dynamics" in r.out, "--help must list the dynamics command")
    r = run(ctx, "dynamics", "--help")
    r.check(r.code == 0, "dynamics --help must exit 0")
    for text in ("--q", "--v", "--a", "--tau", "--json", "--floating-base", "--ball",
                 "--no-merge", "x, y, z, w", "position [m] then unit quaternion", "Cqd",
                 "RNEA", "ABA", "neutral configuration", "Exit codes"):
        r.check(text in r.out, f"dynamics --help must explain '{text}'")
    r.check(run(ctx, "dynamics", "-h").out == r.out, "-h is --help")


def case_dynamics_acrobot_terms(ctx):
    path = acrobot_path(ctx)
    for q, qd in ACROBOT_STATES:
        r, d = run_dynamics_json(ctx, path, "--q", csv(q), "--v", csv(qd))
        M, Cqd, g = acrobot_textbook(q, qd)
        check_matrix(r, "M", d["M"], M, 1e-9)
        check_vector(r, "Cqd", d["Cqd"], Cqd, 1e-9)
        check_vector(r, "g", d["g"], g, 1e-9)
        check_vector(r, "h", d["h"], [c + gi for c, gi in zip(Cqd, g)], 1e-9)
        r.check((d["nq"], d["nv"]) == (2, 2), "the acrobot has nq = nv = 2")
        r.check("tau" not in d and "qdd" not in d, "tau and qdd only with --a and --tau")
        r.check(d["inputs"]["q"] == q and d["inputs"]["v"] == qd, "inputs echo --q and --v")


def case_dynamics_defaults(ctx):
    # No --q: the neutral configuration (hanging down); no --v: at rest; no --a: a = 0.
    path = acrobot_path(ctx)
    r, d = run_dynamics_json(ctx, path)
    r.check(d["inputs"] == {"q": [0, 0], "v": [0, 0]}, "q and v default to zero")
    M, _, _ = acrobot_textbook([0.0, 0.0], [0.0, 0.0])
    check_matrix(r, "M", d["M"], M, 1e-9)
    check_vector(r, "g", d["g"], [0.0, 0.0], 1e-9)
    check_vector(r, "Cqd", d["Cqd"], [0.0, 0.0], 1e-9)
    q = [0.4, -1.1]
    r, d = run_dynamics_json(ctx, path, "--q", csv(q), "--a", csv([0.0, 0.0]))
    _, Cqd, g = acrobot_textbook(q, [0.0, 0.0])
    check_vector(r, "Cqd", d["Cqd"], Cqd, 1e-9)
    check_vector(r, "tau", d["tau"], g, 1e-9)  # at rest with a = 0, RNEA gives g(q)
    # --v without --q: the neutral configuration.
    r, d = run_dynamics_json(ctx, path, "--v", "1.5,-0.5")
    _, Cqd, _ = acrobot_textbook([0.0, 0.0], [1.5, -0.5])
    check_vector(r, "Cqd", d["Cqd"], Cqd, 1e-9)


def case_dynamics_acrobot_rnea(ctx):
    path = acrobot_path(ctx)
    for k, (q, qd) in enumerate(ACROBOT_STATES):
        a = [0.5 - k, 1.5 * k - 2.0]
        r, d = run_dynamics_json(ctx, path, "--q", csv(q), "--v", csv(qd), "--a", csv(a))
        r.check(d["inputs"]["a"] == a, "inputs echo --a")
        expected = [x + h for x, h in zip(mat_vec(d["M"], a), d["h"])]
        check_vector(r, "tau = RNEA(q, v, a)", d["tau"], expected, 1e-9)
        # And against the textbook terms directly.
        M, Cqd, g = acrobot_textbook(q, qd)
        textbook = [x + c + gi for x, c, gi in zip(mat_vec(M, a), Cqd, g)]
        check_vector(r, "tau vs textbook M a + C qdot + g", d["tau"], textbook, 1e-9)


def case_dynamics_acrobot_aba(ctx):
    path = acrobot_path(ctx)
    for k, (q, qd) in enumerate(ACROBOT_STATES):
        tau = [1.0 - 0.5 * k, 0.25 * k]
        r, d = run_dynamics_json(ctx, path, "--q", csv(q), "--v", csv(qd), "--tau", csv(tau))
        r.check("tau" not in d, "no RNEA tau without --a")
        r.check(d["inputs"]["tau"] == tau, "inputs echo --tau")
        residual = [x + h for x, h in zip(mat_vec(d["M"], d["qdd"]), d["h"])]
        check_vector(r, "M qdd + h", residual, tau, 1e-9)


def case_dynamics_iiwa(ctx):
    path = iiwa_path(ctx)
    q = [0.1, -0.4, 0.7, -1.2, 0.3, 0.9, -0.5]
    v = [0.3, -0.2, 0.5, 0.1, -0.6, 0.4, 0.2]
    a = [1.0, -0.5, 0.25, 0.0, 2.0, -1.0, 0.5]
    tau = [10.0, -20.0, 5.0, 3.0, -1.0, 0.5, 0.1]
    r, d = run_dynamics_json(ctx, path, "--q", csv(q), "--v", csv(v), "--a", csv(a),
                             "--tau", csv(tau))
    M = d["M"]
    r.check((d["nq"], d["nv"]) == (7, 7), "the iiwa has nq = nv = 7")
    r.check(len(M) == 7 and all(len(row) == 7 for row in M), "M is 7 x 7")
    for i in range(7):
        r.check(M[i][i] > 0, f"M[{i}][{i}] = {M[i][i]} must be positive")
        for j in range(i):
            r.check(close(M[i][j], M[j][i], 1e-12), f"M[{i}][{j}] != M[{j}][{i}]")
    check_vector(r, "h", d["h"], [c + g for c, g in zip(d["Cqd"], d["g"])], 1e-9)
    check_vector(r, "tau = RNEA", d["tau"],
                 [x + h for x, h in zip(mat_vec(M, a), d["h"])], 1e-9)
    check_vector(r, "M qdd + h", [x + h for x, h in zip(mat_vec(M, d["qdd"]), d["h"])], tau, 1e-9)


def case_dynamics_humanoid_floating(ctx):
    # A free base at the neutral configuration (identity orientation, so the base frame has the
    # world's axes; v = (omega, v_lin) in the base frame): the gravity term's force on the base
    # holds the whole robot up, m_total g along +z, and its moment about the base origin is
    # c x (m_total g e_z) for the centre of mass c, which M's base block holds as
    # M[lin][ang] = m_total [c]x^T.
    path = humanoid_path(ctx)
    _, mass, _ = urdf_facts(path)
    for ball, nq in (("quaternion", 43), ("expmap", 35), ("euler", 35)):
        r, d = run_dynamics_json(ctx, path, "--floating-base", "--ball", ball)
        r.check((d["nq"], d["nv"]) == (nq, 34), f"--ball {ball}: nq = {nq}, nv = 34")
        M = d["M"]
        r.check(len(M) == 34 and all(len(row) == 34 for row in M), "M is 34 x 34")
        r.check(all(close(M[i][j], M[j][i], 1e-12) for i in range(34) for j in range(i)),
                "M is symmetric")
        check_matrix(r, "M's base translation block", [row[3:6] for row in M[3:6]],
                     [[mass, 0, 0], [0, mass, 0], [0, 0, mass]], 1e-12)
        mc = [-M[5][1], -M[3][2], -M[4][0]]  # m_total c
        r.check(close(M[3][1], mc[2], 1e-12) and close(M[4][2], mc[0], 1e-12)
                and close(M[5][0], mc[1], 1e-12), "M's base coupling block is m [c]x^T")
        check_vector(r, "g of the base", d["g"][:6],
                     [mc[1] * GRAVITY, -mc[0] * GRAVITY, 0, 0, 0, mass * GRAVITY], 1e-9)


def case_dynamics_text(ctx):
    path = acrobot_path(ctx)
    args = ("--q", "0.3,-0.7", "--v", "1,2", "--a", "0.5,-1", "--tau", "1,2")
    r = run(ctx, "dynamics", path, *args)
    r.check(r.code == 0, "dynamics must succeed")
    _, d = run_dynamics_json(ctx, path, *args)
    for text in ("Acrobot", "nq          2", "nv          2", "M(q)", "kg m^2", "N m", "rad/s",
                 "shoulder", "elbow", "Cqd", "tau = RNEA", "qdd = ABA", "m/s^2 (world frame)"):
        r.check(text in r.out, f"the text output must contain '{text}'")
    # Every number of the JSON appears, rounded to 6 significant digits, in the text.
    numbers = [x for row in d["M"] for x in row] + d["h"] + d["g"] + d["Cqd"] + d["tau"] + d["qdd"]
    for x in numbers:
        r.check(f"{x:.6g}" in r.out, f"the text must show {x:.6g}")
    # The matrix is aligned: its rows have one length and its numbers end in the same columns.
    lines = r.out.split("\nM(q)")[1].splitlines()[1:]
    r.check(len(lines) == 3 and len({len(line) for line in lines}) == 1,
            "M is printed as an aligned table with a header and 2 rows")
    r.check(r.err == "", "nothing on stderr")


def case_dynamics_size_errors(ctx):
    path = acrobot_path(ctx)
    for args, option, message in (
            (["--q", "1,2,3"], "--q", "--q has 3 values, the model needs nq = 2"),
            (["--q", "1"], "--q", "--q has 1 value, the model needs nq = 2"),
            (["--v", "1,2,3"], "--v", "--v has 3 values, the model needs nv = 2"),
            (["--a", "1"], "--a", "--a has 1 value, the model needs nv = 2"),
            (["--tau=1,2,3,4"], "--tau", "--tau has 4 values, the model needs nv = 2")):
        for json_flag in ([], ["--json"]):
            r = run(ctx, "dynamics", *json_flag, path, *args)
            r.check(r.code == 2, "a list of the wrong size is a command-line mistake: exit 2")
            r.check(r.err.startswith("gcbridge: ") and message in r.err,
                    f"stderr must say '{message}'")
            r.check(r.out == "", "nothing may go to stdout")
    # The humanoid with a free base: nq = 43 (7 for the free joint), nv = 34.
    r = run(ctx, "dynamics", humanoid_path(ctx), "--floating-base", "--q", csv([0.0] * 42))
    r.check(r.code == 2 and "--q has 42 values, the model needs nq = 43" in r.err,
            "the humanoid's nq with a free base")


def case_dynamics_bad_numbers(ctx):
    path = acrobot_path(ctx)
    for option, text, what in (("--q", "1,abc", "not a number"), ("--v", "nan,1", "NaN"),
                               ("--a", "1,-nan", "NaN"), ("--tau", "inf,0", "infinite"),
                               ("--q", "1,,2", "empty"), ("--v", "1;2", "not a number"),
                               ("--a", "0x1,2", "not a number"), ("--q", "1e999,0", "range")):
        for args in ([option, text], [f"{option}={text}"]):
            r = run(ctx, "dynamics", path, *args)
            r.check(r.code == 2, "a bad number is a command-line mistake: exit 2")
            r.check(r.err.startswith(f"gcbridge: {option}: ") and what in r.err,
                    f"stderr must name {option} and say '{what}'")
            r.check(r.out == "", "nothing may go to stdout")
    for args in (["--q"], ["--q", "1,2", "--q", "1,2"], ["--bogus"], ["--ball", "rodrigues"]):
        r = run(ctx, "dynamics", path, *args)
        r.check(r.code == 2 and r.err.startswith("gcbridge: ") and r.out == "",
                "a command-line mistake exits 2")
    r = run(ctx, "dynamics")
    r.check(r.code == 2 and "no model file" in r.err, "dynamics needs a model file")
    # Negative first values are values, not options; '+' is accepted.
    r, d = run_dynamics_json(ctx, path, "--q", "-0.5,+1", "--v=-1, 2")
    r.check(d["inputs"] == {"q": [-0.5, 1], "v": [-1, 2]}, "signed values and spaces parse")


def case_dynamics_bad_quaternion(ctx):
    # A quaternion of norm 2 is a valid list that the library rejects: exit 1, naming the joint.
    path = humanoid_path(ctx)
    identity = [0.0, 0.0, 0.0, 1.0]
    neutral = [0.0, 0.0, 1.0] + identity  # free base: position, then quaternion x, y, z, w
    # Eight ball joints (chest, neck, shoulders, hips, ankles) and four elbows and knees, in
    # link order: chest, neck, right_shoulder, right_elbow, left_shoulder, left_elbow,
    # right_hip, right_knee, right_ankle, left_hip, left_knee, left_ankle.
    body = []
    for kind in "bbbrbrbrbbrb":
        body += identity if kind == "b" else [0.0]
    # The unit-quaternion version of the list is accepted.
    run_dynamics_json(ctx, path, "--floating-base", "--q", csv(neutral + body))
    for q, joint in ((neutral[:3] + [0.0, 0.0, 0.0, 2.0] + body, "root_joint"),
                     (neutral + [0.0, 0.0, 0.0, 2.0] + body[4:], "chest")):
        for json_flag in ([], ["--json"]):
            r = run(ctx, "dynamics", *json_flag, path, "--floating-base", "--q", csv(q))
            r.check(r.code == 1, "a quaternion of norm 2 must exit 1")
            r.check(r.err.startswith("gcbridge: ") and f"'{joint}'" in r.err
                    and "quaternion" in r.err, f"stderr must name the joint '{joint}'")
            r.check(r.out == "", "nothing may go to stdout")
    # Within 1e-4 of unit norm is accepted (normalized).
    q = neutral[:3] + [0.0, 0.0, 0.0, 1.00005] + body
    run_dynamics_json(ctx, path, "--floating-base", "--q", csv(q))
    # A missing model file is an error too.
    r = run(ctx, "dynamics", os.path.join(ctx.data, "no_such_model.urdf"))
    r.check(r.code == 1 and r.err.startswith("gcbridge: "), "a missing file must exit 1")


CASES = {name[len("case_"):]: f for name, f in globals().items() if name.startswith("case_")}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--gcbridge", required=True)
    parser.add_argument("--models", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--precision", required=True)
    ctx = parser.parse_args()
    try:
        CASES[ctx.case](ctx)
    except CheckFailed as e:
        print(f"FAILED {ctx.case}: {e}", file=sys.stderr)
        return 1
    print(f"passed {ctx.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
