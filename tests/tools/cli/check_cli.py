#!/usr/bin/env python3
"""Checks one behaviour of the `gcbridge` command-line tool; CTest runs one case per test.

Usage: check_cli.py CASE --gcbridge EXE --models DIR --data DIR --version V --precision P

Expected sizes are counted independently of gcbridge where practical: the URDF is read with
xml.etree and the model's links, masses and joints are derived from it. Every failure prints the
command, its exit code, stdout and stderr.
"""

import argparse
import csv as csv_module
import json
import math
import os
import re
import subprocess
import sys
import tempfile
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


def run(ctx, *args, timeout=60):
    cmd = [ctx.gcbridge, *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8", timeout=timeout)
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
    for option in ("--floating-base", "--ball", "--no-merge", "--scale", "--json"):
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


def case_info_scale(ctx):
    """--scale S: the robot S times as large, of the same materials (pybullet's globalScaling):
    masses S^3, and the dynamics' scaling laws (M of angles S^5, gravity torques S^4)."""
    path = humanoid_path(ctx)
    _, mass, _ = urdf_facts(path)
    r = run(ctx, "info", "--json", "--floating-base", "--scale", "0.25", path)
    r.check(r.code == 0, "info --scale 0.25 must succeed")
    r.check(math.isclose(r.json()["total_mass"], mass / 64, rel_tol=1e-12),
            f"a quarter of the size: {mass} kg / 64")
    q = "0.3,-0.5,0.2,0.1,0.4,-0.2,0.6"
    _, full = run_dynamics_json(ctx, iiwa_path(ctx), "--q", q)
    r, half = run_dynamics_json(ctx, iiwa_path(ctx), "--q", q, "--scale=0.5")
    check_matrix(r, "M", half["M"], [[m / 32 for m in row] for row in full["M"]], 1e-12)
    check_vector(r, "g", half["g"], [g / 16 for g in full["g"]], 1e-12)
    for bad in ("0", "-1", "nan", "big"):
        r = run(ctx, "info", "--scale", bad, path)
        r.check(r.code == 2 and "--scale" in r.err and r.out == "",
                f"--scale {bad}: exit 2 naming --scale")


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
    # An empty and a cut file: what is wrong in words, with the line.
    with tempfile.TemporaryDirectory() as tmp:
        empty, cut = os.path.join(tmp, "empty.urdf"), os.path.join(tmp, "cut.urdf")
        with open(empty, "w", encoding="utf-8"):
            pass
        with open(cut, "w", encoding="utf-8") as f:
            f.write('<robot name="r">\n  <link name="a">\n</robot>\n')
        for path, words in ((empty, ":1: not a valid XML document (empty)"),
                            (cut, ":2: not a valid XML document: an end tag does not match")):
            r = run(ctx, "info", path)
            r.check(r.code == 1 and r.err.startswith(f"gcbridge: {path}{words}")
                    and "ErrorID" not in r.err, f"stderr says '{words}' without tinyxml2's codes")


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
    r.check(r.err == "", "info reports the warning once, in its output: nothing on stderr")
    r = run(ctx, "info", path)
    r.check(r.code == 0 and "triangle inequality" in r.out.split("\nwarnings\n")[-1],
            "the text output lists the warning")
    r.check(r.err == "" and r.out.count("triangle inequality") == 1, "once")
    r = run(ctx, "dynamics", path)
    r.check(r.code == 0 and r.err.startswith("gcbridge: warning: ")
            and r.err.count("triangle inequality") == 1,
            "dynamics, whose output has no warnings, writes it to stderr once")
    # A configuration outside the joint limits: computed, with a warning naming the joint.
    r = run(ctx, "dynamics", iiwa_path(ctx), "--q", "3.5,0,0,0,0,0,0")
    r.check(r.code == 0 and "lbr_iiwa_joint_1" in r.err and "outside its limits" in r.err
            and r.err.count("warning") == 1, "one warning naming joint 1")


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
    for text in ("--q", "--v", "--a", "--tau", "--json", "--derivatives", "dqdd_dv",
                 "--floating-base", "--ball", "--no-merge", "x, y, z, w", "position [m] then unit quaternion", "Cqd",
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


def acrobot_textbook_tau(q, qd, a):
    M, Cqd, g = acrobot_textbook(q, qd)
    return [x + c + gi for x, c, gi in zip(mat_vec(M, a), Cqd, g)]


def acrobot_textbook_qdd(q, qd, tau):
    M, Cqd, g = acrobot_textbook(q, qd)
    b = [t - c - gi for t, c, gi in zip(tau, Cqd, g)]
    det = M[0][0] * M[1][1] - M[0][1] * M[1][0]
    return [(M[1][1] * b[0] - M[0][1] * b[1]) / det, (M[0][0] * b[1] - M[1][0] * b[0]) / det]


def textbook_jacobian(f, x, step=1e-5):
    """Columns d f / d x_j of a function of a list, by central differences (error ~1e-10)."""
    columns = []
    for j in range(len(x)):
        plus = [xi + (step if i == j else 0.0) for i, xi in enumerate(x)]
        minus = [xi - (step if i == j else 0.0) for i, xi in enumerate(x)]
        columns.append([(p - m) / (2 * step) for p, m in zip(f(plus), f(minus))])
    return [list(row) for row in zip(*columns)]


def case_dynamics_derivatives(ctx):
    # The acrobot's derivatives against central differences of the textbook terms.
    path = acrobot_path(ctx)
    for k, (q, qd) in enumerate(ACROBOT_STATES):
        a, tau = [0.5 - k, 1.5 * k - 2.0], [1.0 - 0.5 * k, 0.25 * k]
        r, d = run_dynamics_json(ctx, path, "--q", csv(q), "--v", csv(qd), "--a", csv(a),
                                 "--tau", csv(tau), "--derivatives")
        for key, f, x in (
                ("dtau_dq", lambda y: acrobot_textbook_tau(y, qd, a), q),
                ("dtau_dv", lambda y: acrobot_textbook_tau(q, y, a), qd),
                ("dqdd_dq", lambda y: acrobot_textbook_qdd(y, qd, tau), q),
                ("dqdd_dv", lambda y: acrobot_textbook_qdd(q, y, tau), qd)):
            check_matrix(r, key, d[key], textbook_jacobian(f, x), 1e-7)
    # The floating humanoid: ABA's against RNEA's at a = qdd, M dqdd_dq = -dtau_dq.
    path = humanoid_path(ctx)
    v = [0.1 * ((i % 5) - 2) for i in range(34)]
    tau = [float((i % 7) - 3) for i in range(34)]
    r, d = run_dynamics_json(ctx, path, "--floating-base", "--v", csv(v), "--tau", csv(tau),
                             "--derivatives")
    r.check("dtau_dq" not in d, "no RNEA derivatives without --a")
    r2, d2 = run_dynamics_json(ctx, path, "--floating-base", "--v", csv(v), "--a",
                               csv(d["qdd"]), "--derivatives")
    for rnea_key, aba_key in (("dtau_dq", "dqdd_dq"), ("dtau_dv", "dqdd_dv")):
        r.check(len(d[aba_key]) == 34 and all(len(row) == 34 for row in d[aba_key]),
                f"{aba_key} is 34 x 34")
        columns = list(zip(*d[aba_key]))
        product = [[-x for x in mat_vec(d["M"], column)] for column in columns]
        check_matrix(r, f"-M {aba_key}", [list(row) for row in zip(*product)], d2[rnea_key],
                     1e-9)
    # The text report titles them; without --a or --tau, --derivatives is a mistake.
    r = run(ctx, "dynamics", acrobot_path(ctx), "--a", "1,2", "--derivatives")
    r.check(r.code == 0 and "dtau_dq: d tau / dq of RNEA" in r.out and "dqdd_dq" not in r.out,
            "the text report shows RNEA's derivatives")
    r = run(ctx, "dynamics", acrobot_path(ctx), "--derivatives")
    r.check(r.code == 2 and "--derivatives needs --a" in r.err and r.out == "",
            "--derivatives alone is a command-line mistake")


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


def case_planar(ctx):
    """A planar joint: info shows its three coordinates; its M, h, g, RNEA and ABA equal those of
    the same system written as prismatic, prismatic, revolute through massless links."""
    planar = os.path.join(ctx.data, "planar.urdf")
    chain = os.path.join(ctx.data, "planar_as_chain.urdf")
    r = run(ctx, "info", "--json", planar)
    model = json.loads(r.out)
    joint = model["links"][1]["joint"]
    r.check(r.code == 0 and (model["nq"], model["nv"]) == (4, 4), "planar + continuous: nq = nv = 4")
    r.check(joint["type"] == "planar" and (joint["nq"], joint["nv"]) == (3, 3),
            "the planar joint has q = (x, y, theta)")
    for q, v in ([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                 [[0.3, -0.2, 1.1, -0.7], [0.5, 0.4, -1.2, 2.0]]):
        args = ["--q", csv(q), "--v", csv(v), "--a", csv([0.1, -0.2, 0.3, 0.4]),
                "--tau", csv([1.0, -2.0, 0.5, 0.3])]
        r, a = run_dynamics_json(ctx, planar, *args)
        _, b = run_dynamics_json(ctx, chain, *args)
        for key in ("M", "h", "g", "Cqd", "tau", "qdd"):
            got, expected = a[key], b[key]
            if key == "M":
                check_matrix(r, key, got, expected, 1e-12)
            else:
                check_vector(r, key, got, expected, 1e-12)
    r = run(ctx, "dynamics", planar)
    r.check(r.code == 0 and "slide" in r.out and "theta" in r.out, "the text names the coordinates")


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


# --- gcbridge compare --------------------------------------------------------------------------
#
# Short runs (a fraction of a second simulated) of small models into a fresh temporary folder.
# Expected sizes come from the URDF (xml.etree) and the documented file formats
# (tools/compare/output.hpp, comparison.hpp); the files are read with the csv module and
# xml.etree, not with gcbridge.

COMPARE_ENGINES = ("rigid_body", "rigid_body_projected", "multibody", "euler", "rk4",
                   "implicit_euler")
COMPARE_SCENARIOS = ("passive", "zero_gravity", "tracking", "sweep")
# summary.csv: engine, rate, step and controller (when several), RunSummary's fields in order
# (comparison.hpp), the failure.
SUMMARY_COLUMNS = ["engine", "rate_hz", "step_s", "controller", "final_error", "rms_error", "max_error",
                   "parting_time_s", "energy_drift_J", "final_energy_change_J",
                   "angular_momentum_drift", "angular_momentum", "linear_momentum_drift",
                   "linear_momentum", "max_pivot_separation_m", "max_axis_error_rad",
                   "max_velocity_residual", "tracking_rms", "cost_s_per_s", "failure"]
# The time series' columns after t, q (nq) and v (nv) (output.hpp, timeSeriesHeader).
SERIES_TAIL = ["error", "tracking_error", "energy_change", "momentum_wx", "momentum_wy",
               "momentum_wz", "momentum_x", "momentum_y", "momentum_z", "pivot_separation",
               "axis_error", "velocity_residual"]
# (nq, nv) of each URDF joint type.
JOINT_DOFS = {"revolute": (1, 1), "continuous": (1, 1), "prismatic": (1, 1), "fixed": (0, 0),
              "floating": (7, 6), "spherical": (4, 3)}


def pendulum_path(ctx):
    return os.path.join(ctx.models, "pendulum5", "pendulum5.urdf")


def urdf_dofs(path, floating_base=False):
    """nq and nv counted from the URDF's joint types (quaternion balls; a free base adds 7, 6)."""
    _, _, joints = urdf_facts(path)
    nq = sum(JOINT_DOFS[t][0] for t in joints.values()) + (7 if floating_base else 0)
    nv = sum(JOINT_DOFS[t][1] for t in joints.values()) + (6 if floating_base else 0)
    return nq, nv


def run_compare(ctx, path, out_dir, *args):
    return run(ctx, "compare", path, "--out", out_dir, *args)


def read_csv(r, path):
    """Header and rows of a CSV file; every row must have as many fields as the header."""
    r.check(os.path.isfile(path), f"{path} must exist")
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv_module.reader(f))
    r.check(len(rows) >= 1, f"{path} is empty")
    header, data = rows[0], rows[1:]
    for k, row in enumerate(data, start=2):
        r.check(len(row) == len(header),
                f"{path}:{k} has {len(row)} fields, its header {len(header)}")
    return header, data


def summary_rows(r, out_dir):
    header, data = read_csv(r, os.path.join(out_dir, "summary.csv"))
    r.check(header == SUMMARY_COLUMNS, f"summary.csv's header is {header}, expected "
            f"{SUMMARY_COLUMNS}")
    return [dict(zip(header, row)) for row in data]


def table_rows(r):
    """(engine, step, last field) of the stdout table's rows."""
    rows = []
    for line in r.out.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0] in COMPARE_ENGINES and fields[1].startswith("1/"):
            rows.append((fields[0], fields[1], fields[-1]))
    return rows


def check_series_header(r, name, header, nq, nv):
    r.check(header[0] == "t", f"{name}: the first column is t")
    q, v = header[1:1 + nq], header[1 + nq:1 + nq + nv]
    r.check(len(q) == nq and all(c.startswith("q_") for c in q)
            and sum(c.startswith("q_") for c in header) == nq,
            f"{name}: {nq} q_ columns (nq from the URDF), header {header}")
    r.check(len(v) == nv and all(c.startswith("v_") for c in v)
            and sum(c.startswith("v_") for c in header) == nv,
            f"{name}: {nv} v_ columns (nv from the URDF), header {header}")
    r.check(header[1 + nq + nv:] == SERIES_TAIL, f"{name}: columns after v are {SERIES_TAIL}")


def svg_series(root, css_class="series"):
    """data-series of the elements with the given class, in document order."""
    return [e.get("data-series") for e in root.iter()
            if css_class in (e.get("class") or "").split()]


def case_compare_help(ctx):
    r = run(ctx, "compare", "--help")
    r.check(r.code == 0, "compare --help must exit 0")
    r.check(r.err == "", "nothing on stderr")
    for option in ("--scenario", "--engines", "--dt", "--duration", "--sample-rate",
                   "--controller", "--actuation", "--ground", "--max-torque", "--torques",
                   "--trajectory", "--q0", "--v0", "--iterations", "--erp", "--cfm",
                   "--reference-tolerance", "--out", "--no-files", "--progress", "--no-progress",
                   "--floating-base", "--no-merge", "--ball"):
        r.check(re.search(re.escape(option) + r"(?![\w-])", r.out),
                f"compare --help must document {option}")
    for name in COMPARE_SCENARIOS + COMPARE_ENGINES:
        r.check(re.search(r"\b" + name + r"\b", r.out), f"compare --help must name '{name}'")
    r.check("Exit codes" in r.out, "compare --help must give the exit codes")
    r.check(run(ctx, "compare", "-h").out == r.out, "-h is --help")
    r = run(ctx, "--help")
    r.check(r.code == 0 and "gcbridge compare" in r.out, "gcbridge --help must list compare")


def case_compare_passive_files(ctx):
    path = pendulum_path(ctx)
    nq, nv = urdf_dofs(path)
    _, _, joints = urdf_facts(path)
    moving = [name for name, kind in joints.items() if JOINT_DOFS[kind][0] == 1]
    rates, duration = (240, 480), 0.25
    sample_rate = 240  # the rates' greatest common divisor (at most 250 Hz)
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = os.path.join(tmp, "out")
        r = run_compare(ctx, path, out_dir, "--dt", "1/240,1/480", "--duration", str(duration),
                        "--no-progress")
        r.check(r.code == 0, "compare must succeed")
        expected_runs = {(e, f"1/{rate}") for e in COMPARE_ENGINES for rate in rates}
        rows = table_rows(r)
        r.check(len(rows) == len(expected_runs) and {(e, s) for e, s, _ in rows} == expected_runs,
                f"the table must have one row per engine and step, got {rows}")
        r.check(all(status == "ok" for _, _, status in rows), "every run's status is ok")
        r.check(re.search(r"^Reference: ", r.out, re.M), "the table is followed by 'Reference:'")

        files = sorted(f for f in os.listdir(out_dir) if not f.startswith("."))
        r.check(os.path.isfile(os.path.join(out_dir, ".gcbridge-compare-files")),
                "the folder lists the run's files")
        m = re.search(r"Wrote (\d+) files", r.out)
        r.check(m and int(m.group(1)) == len(files),
                f"stdout says how many files it wrote; the folder holds {len(files)}: {files}")
        series_csv = {f"{e}_{rate}hz.csv" for e in COMPARE_ENGINES for rate in rates}
        csv_files = {f for f in files if f.endswith(".csv")}
        r.check(csv_files == series_csv | {"summary.csv", "reference.csv"},
                f"CSV files: summary, reference and one per engine and rate, got {csv_files}")

        summary = summary_rows(r, out_dir)
        r.check(len(summary) == len(expected_runs),
                f"summary.csv has {len(summary)} rows, expected {len(expected_runs)}")
        r.check({(s["engine"], "1/" + s["rate_hz"]) for s in summary} == expected_runs,
                "summary.csv has one row per engine and rate")
        for s in summary:
            r.check(math.isclose(float(s["step_s"]), 1.0 / int(s["rate_hz"]), rel_tol=1e-12)
                    and s["failure"] == "", f"summary row {s}: step 1/rate, no failure")

        samples = round(duration * sample_rate) + 1
        for name in sorted(series_csv) + ["reference.csv"]:
            header, data = read_csv(r, os.path.join(out_dir, name))
            check_series_header(r, name, header, nq, nv)
            r.check(header[1:1 + nq] == [f"q_{j}" for j in moving],
                    f"{name}: q columns are the URDF's moving joints {moving}")
            r.check(len(data) == samples, f"{name}: {samples} samples at {sample_rate} Hz "
                    f"over {duration} s, got {len(data)}")
            r.check(math.isclose(float(data[-1][0]), duration, rel_tol=1e-9),
                    f"{name}: the last sample is at t = {duration} s")

        svgs = [f for f in files if f.endswith(".svg")]
        r.check({"error.svg", "energy.svg", "speed_accuracy.svg"} <= set(svgs),
                f"error, energy and speed_accuracy plots, got {svgs}")
        roots = {}
        for name in svgs:
            try:
                roots[name] = ET.parse(os.path.join(out_dir, name)).getroot()
            except ET.ParseError as e:
                r.check(False, f"{name} is not well-formed XML: {e}")
        # With two rates the time plots show each engine at the rate closest to 240 Hz.
        for name in ("error.svg", "energy.svg"):
            labels = svg_series(roots[name])
            expected = sorted(f"{e} 240 Hz" for e in COMPARE_ENGINES)
            r.check(sorted(labels) == expected,
                    f"{name}: one series per engine at 240 Hz, got {labels}")
        labels = svg_series(roots["speed_accuracy.svg"])
        r.check(sorted(labels) == sorted(COMPARE_ENGINES),
                f"speed_accuracy.svg: one series per engine, got {labels}")

        with open(os.path.join(out_dir, "report.html"), encoding="utf-8") as f:
            html = f.read()
        try:
            ET.fromstring(html)
        except ET.ParseError as e:
            r.check(False, f"report.html is not well-formed XML: {e}")
        r.check(not re.search(r"<script", html, re.I), "report.html has no <script>")
        r.check("<th class=\"num\">final err [rad]</th>" in html and "energy_drift_J" not in html,
                "the report's summary has human headers with units, not CSV names")
        r.check(re.search(r"lie on each other[^<]*multibody 240 Hz and euler 240 Hz", html),
                "the report says multibody and euler coincide")
        r.check('<a href="summary.csv">summary.csv</a>' in html, "the file list is linked")
        # Web addresses: none but XML namespace names (the SVGs' xmlns, the viewer's scripts').
        links = [a for a in re.findall(r"https?://[^\s\"'<>&]*", html, re.I)
                 if not a.startswith("http://www.w3.org/")]
        r.check(not links, f"report.html fetches nothing: it links to {links}")
        r.check("<iframe" in html and "GCBRIDGE_DATA" in html,
                "report.html holds the 3D view (an iframe with the viewer's page)")
        r.check("viewer.html" in files, "the 3D view is also viewer.html")

        # A second run into the same folder with one engine: only its files and the user's.
        with open(os.path.join(out_dir, "notes.txt"), "w", encoding="utf-8") as f:
            f.write("mine\n")
        r = run_compare(ctx, path, out_dir, "--engines", "rk4", "--duration", str(duration),
                        "--no-progress")
        r.check(r.code == 0, "the second compare must succeed")
        csv_files = {f for f in os.listdir(out_dir) if f.endswith(".csv")}
        r.check(csv_files == {"summary.csv", "reference.csv", "rk4_240hz.csv"},
                f"the first run's other CSV files are gone, got {csv_files}")
        r.check(os.path.isfile(os.path.join(out_dir, "notes.txt")), "the user's file stays")


def case_compare_errors(ctx):
    path = pendulum_path(ctx)
    nq, _ = urdf_dofs(path)
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = os.path.join(tmp, "out")
        for args, words in ((["--dt", "0.0013"], ["--dt", "0.0013"]),
                            (["--engines", "rk4,warp"], ["warp"]),
                            (["--scenario", "nope"], ["nope"]),
                            (["--q0", "1,2"], ["--q0", f"nq = {nq}"]),
                            (["--sample-rate", "7", "--dt", "1/240"], ["sample rate", "7"]),
                            (["--json"], ["--json"])):
            r = run_compare(ctx, path, out_dir, "--duration", "0.2", "--no-progress", *args)
            r.check(r.code == 2, "a command-line mistake must exit 2")
            r.check(r.err.startswith("gcbridge: ") and all(w in r.err for w in words),
                    f"stderr must start with 'gcbridge: ' and name {words}")
            r.check(r.out == "", "nothing may go to stdout")
            r.check(not os.path.exists(out_dir), "no output folder after a mistake")

        # An output folder that cannot be made: refused before the run (no table).
        blocked = os.path.join(tmp, "a_file")
        with open(blocked, "w", encoding="utf-8") as f:
            f.write("x\n")
        r = run_compare(ctx, path, os.path.join(blocked, "out"), "--duration", "0.2",
                        "--no-progress")
        r.check(r.code == 1 and blocked in r.err and r.out == "",
                "an output folder that cannot be made exits 1 before the run, naming it")

        # A torque file that is a folder; torques with tracking (a command-line mistake).
        r = run_compare(ctx, path, out_dir, "--torques", tmp, "--no-progress")
        r.check(r.code == 1 and "is a directory" in r.err and not os.path.exists(out_dir),
                "--torques DIR: exit 1, 'is a directory'")
        r = run_compare(ctx, path, out_dir, "--scenario", "tracking", "--torques", blocked,
                        "--no-progress")
        r.check(r.code == 2 and "--torques" in r.err and "tracking" in r.err,
                "--torques with tracking is a command-line mistake")
        r = run_compare(ctx, path, out_dir, "--trajectory", blocked, "--no-progress")
        r.check(r.code == 2 and "--trajectory" in r.err and "tracking" in r.err,
                "--trajectory outside tracking is a command-line mistake")
        waypoints = os.path.join(tmp, "waypoints.csv")
        with open(waypoints, "w", encoding="utf-8") as f:
            f.write("0," + ",".join(["0.1"] * nq) + "\n0.1\n")  # line 2: no q
        r = run_compare(ctx, path, out_dir, "--scenario", "tracking", "--trajectory", waypoints,
                        "--no-progress")
        r.check(r.code == 1 and f"{waypoints}:2" in r.err and not os.path.exists(out_dir),
                "a waypoint file with a short row: exit 1 naming the file and line, no output")

        # A reference that cannot reach its tolerance: exit 1 saying so, no output.
        r = run_compare(ctx, path, out_dir, "--reference-tolerance", "1e-300", "--engines",
                        "rk4", "--duration", "0.1", "--no-progress")
        r.check(r.code == 1 and "did not converge" in r.err and "--reference-tolerance" in r.err
                and not os.path.exists(out_dir), "an unconverged reference: exit 1, no output")

        missing = os.path.join(ctx.data, "no_such_model.urdf")
        r = run_compare(ctx, missing, out_dir, "--no-progress")
        r.check(r.code == 1, "a missing model file must exit 1")
        r.check(r.err.startswith("gcbridge: ") and missing in r.err, "stderr must name the file")
        r.check(r.out == "" and not os.path.exists(out_dir), "no output")

        torques = os.path.join(tmp, "short_row.csv")
        with open(torques, "w", encoding="utf-8") as f:
            f.write("t," + ",".join(f"tau{k}" for k in range(nq)) + "\n")
            f.write("0," + ",".join(["0.5"] * nq) + "\n")
            f.write("0.1," + ",".join(["0.5"] * (nq - 1)) + "\n")  # line 3: one value short
        r = run_compare(ctx, path, out_dir, "--torques", torques, "--engines", "rk4",
                        "--duration", "0.2", "--no-progress")
        r.check(r.code == 1, "a torque file with a wrong row must exit 1")
        r.check(r.err.startswith("gcbridge: ") and f"{torques}:3" in r.err,
                "stderr must name the torque file and line 3")
        r.check(r.out == "" and not os.path.exists(out_dir), "no output")


def case_compare_zero_gravity(ctx):
    path = humanoid_path(ctx)
    nq, nv = urdf_dofs(path, floating_base=True)  # zero_gravity frees the base
    with tempfile.TemporaryDirectory() as tmp:
        r = run_compare(ctx, path, tmp, "--scenario", "zero_gravity", "--engines", "rk4,euler",
                        "--dt", "1/500", "--duration", "0.2", "--no-progress")
        r.check(r.code == 0, "compare must succeed")
        header_line = next((l for l in r.out.splitlines() if l.startswith("engine")), "")
        r.check("ang mom drift" in header_line and "lin mom drift" in header_line,
                "the table has angular and linear momentum columns")
        rows = table_rows(r)
        r.check(sorted((e, s) for e, s, _ in rows) == [("euler", "1/500"), ("rk4", "1/500")],
                f"one row each for rk4 and euler, got {rows}")
        relative = {}
        for s in summary_rows(r, tmp):
            name = f"{s['engine']}_{s['rate_hz']}hz.csv"
            header, data = read_csv(r, os.path.join(tmp, name))
            check_series_header(r, name, header, nq, nv)
            # The summary's drifts and sizes, recomputed from the momentum time series:
            # angular (first three columns) and linear (last three) separately.
            cols = [header.index(c) for c in SERIES_TAIL[3:9]]
            p = [[float(row[c]) for c in cols] for row in data]
            rel = []
            for part, (lo, hi) in (("angular", (0, 3)), ("linear", (3, 6))):
                norm = lambda v: math.sqrt(sum(x * x for x in v))
                size = norm(p[0][lo:hi])
                drift = max(norm([a - b for a, b in zip(pt[lo:hi], p[0][lo:hi])]) for pt in p)
                r.check(size > 0 and math.isclose(float(s[f"{part}_momentum"]), size,
                                                  rel_tol=1e-9),
                        f"{name}: {part}_momentum is its initial norm {size}")
                r.check(math.isclose(float(s[f"{part}_momentum_drift"]), drift, rel_tol=1e-6,
                                     abs_tol=1e-12),
                        f"{name}: {part}_momentum_drift is its largest change {drift}")
                rel.append(drift / size)
            relative[s["engine"]] = max(rel)
        r.check(relative["rk4"] < 1e-6, f"rk4 keeps momentum: relative drift {relative['rk4']}")
        r.check(relative["rk4"] < relative["euler"],
                f"rk4 drifts less than euler: {relative}")


def pendulum_reference(r, out_dir):
    """t and q of reference.csv."""
    header, data = read_csv(r, os.path.join(out_dir, "reference.csv"))
    q = [k for k, c in enumerate(header) if c.startswith("q_")]
    return [float(row[0]) for row in data], [[float(row[k]) for k in q] for row in data]


def case_compare_recorded_torques(ctx):
    path = pendulum_path(ctx)
    _, nv = urdf_dofs(path)
    tau = [0.8 * (-1) ** k for k in range(nv)]  # constant: the same in every row
    # Released at rest, so that q_tau - q_passive = 1/2 M^-1 tau t^2 + O(t^3).
    common = ("--engines", "rk4,multibody", "--dt", "1/240", "--duration", "0.2", "--no-progress",
              "--v0", ",".join(["0"] * nv))
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for name, values in (("tau", tau), ("zero", [0.0] * nv)):
            files[name] = os.path.join(tmp, f"{name}.csv")
            with open(files[name], "w", encoding="utf-8") as f:
                f.write("t," + ",".join(f"tau_{k}" for k in range(nv)) + "\n")
                for t in (0.0, 0.05, 0.1):
                    f.write(f"{t}," + ",".join(repr(x) for x in values) + "\n")
        r = run_compare(ctx, path, os.path.join(tmp, "tau"), "--torques", files["tau"], *common)
        r.check(r.code == 0, "compare with --torques must succeed")
        r.check("recorded" in r.out and files["tau"] in r.out,
                "stdout must say the torques are the recorded sequence from the file")
        r.check(sorted(e for e, _, s in table_rows(r) if s == "ok") == ["multibody", "rk4"],
                "rk4 and multibody ran")
        t, q_tau = pendulum_reference(r, os.path.join(tmp, "tau"))
        zero = run_compare(ctx, path, os.path.join(tmp, "zero"), "--torques", files["zero"],
                           *common)
        zero.check(zero.code == 0, "compare with zero torques must succeed")
        _, q_zero = pendulum_reference(zero, os.path.join(tmp, "zero"))
        passive = run_compare(ctx, path, os.path.join(tmp, "passive"), *common)
        passive.check(passive.code == 0, "compare without --torques must succeed")
        _, q_passive = pendulum_reference(passive, os.path.join(tmp, "passive"))
        zero.check(all(close(a, b, 1e-12) for qa, qb in zip(q_zero, q_passive)
                       for a, b in zip(qa, qb)), "zero recorded torques are the passive run")
        # Early on, q_tau - q_passive = M(q0)^-1 tau t^2 / 2 + O(t^3); M^-1 tau by ABA
        # (gcbridge dynamics, itself checked against the textbook acrobot above).
        qdd = []
        for torque in ([0.0] * nv, tau):
            d = run(ctx, "dynamics", "--json", path, "--q", csv(q_passive[0]), "--tau", csv(torque))
            d.check(d.code == 0, "dynamics --json must succeed")  # stderr: the model's warnings
            qdd.append(d.json()["qdd"])
        expected = [b - a for a, b in zip(*qdd)]
        got = [2 * (a - b) / t[1] ** 2 for a, b in zip(q_tau[1], q_passive[1])]
        check_vector(r, "2 (q_tau - q_passive) / t^2 at the first sample", got, expected, 0.01)


def case_compare_progress(ctx):
    path = acrobot_path(ctx)  # loads without warnings: stderr holds only the progress bar
    common = ("--engines", "rk4,euler", "--duration", "0.2")
    with tempfile.TemporaryDirectory() as tmp:
        r = run_compare(ctx, path, os.path.join(tmp, "a"), "--progress", *common)
        r.check(r.code == 0, "compare --progress must succeed")
        r.check("%" in r.err and "[#" in r.err and "100%" in r.err,
                "--progress draws a bar on stderr up to 100%")
        r.check("%" not in r.out.split("Reference:")[0] and "\r" not in r.out,
                "the bar stays off stdout")
        table = r.out
        r = run_compare(ctx, path, os.path.join(tmp, "b"), "--no-progress", *common)
        r.check(r.code == 0 and r.err == "", "--no-progress: nothing on stderr")
        r.check(len(table_rows(r)) == 2, "the table has one row per engine")
        r = run_compare(ctx, path, os.path.join(tmp, "c"), *common)
        r.check(r.code == 0 and r.err == "", "stderr is not a terminal: no bar by default")


def case_view(ctx):
    """gcbridge view writes one page; mistakes exit 2, bad models and places 1, nothing written."""
    path = iiwa_path(ctx)
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "iiwa.html")
        r = run(ctx, "view", path, "--out", page, "--q", "0.3,0.6,-0.2,-1.1,0.4,0.8,0")
        r.check(r.code == 0 and os.path.isfile(page), "view must write the page")
        text = open(page, encoding="utf-8").read()
        r.check("window.GCBRIDGE_DATA=" in text and "lbr_iiwa_link_7" in text,
                "the page holds the model's data and link names")
        r.check(not os.path.exists(page + ".partial"), "no partial file left")
        for args, words in (([path], ["--out"]), ([path, "--out", page, "--q", "1,2"], ["nq = 7"]),
                            ([path, "--out", page, "--json"], ["--json"]),
                            ([path, "--out", page, "--triangles", "2"], ["--triangles"])):
            r = run(ctx, "view", *args)
            r.check(r.code == 2 and all(w in r.err for w in words), f"exit 2 naming {words}")
        missing = os.path.join(tmp, "none.urdf")
        other = os.path.join(tmp, "other.html")
        r = run(ctx, "view", missing, "--out", other)
        r.check(r.code == 1 and missing in r.err and not os.path.exists(other),
                "a missing model: exit 1, nothing written")
        nowhere = os.path.join(tmp, "no_such_folder", "x.html")
        r = run(ctx, "view", path, "--out", nowhere)
        r.check(r.code == 1 and nowhere in r.err, "an unwritable place: exit 1 naming it")


A1_POSE = ",".join(f"{leg}_{joint}_joint={angle}" for leg in ("FR", "FL", "RR", "RL")
                   for joint, angle in (("upper", 0.9), ("lower", -1.8)))


def a1_path(ctx):
    return os.path.join(ctx.models, "unitree_a1", "a1.urdf")


def case_stand_a1(ctx):
    """gcbridge stand: the public A1 quadruped (pybullet's pose) on the ground at Bullet's defaults
    through two 0.3 m/s pushes, on its joints alone; its torques as forces sink it."""
    path = a1_path(ctx)
    _, mass, _ = urdf_facts(path)
    r = run(ctx, "stand", path, "--pose", A1_POSE, "--push", "0.3", "--seconds", "6", "--json")
    r.check(r.code == 0, "stand must run")
    result = r.json()
    r.check(math.isclose(result["mass"], mass, rel_tol=1e-12), f"the URDF's {mass} kg")
    # The toe spheres (radius 0.02 m) on the ground: the hips at the root's height, thigh and calf
    # 0.2 m each at 0.9 and -0.9 rad from the vertical.
    expected = 2 * 0.2 * math.cos(0.9) + 0.02
    r.check(abs(result["start_height"] - expected) < 1e-9,
            f"the root placed with the toes on the ground: {expected} m")
    r.check(result["stood"] and result["fell_at"] is None, "it stands")
    r.check(result["largest_drop"] < 0.04 * expected and result["largest_tilt"] < 0.05,
            "within 4 % of its height and 0.05 rad (measured 1.5 %, 0.021 rad)")
    r.check(result["root_force"] == 0 and result["fallbacks"] == 0,
            "no force on the root, no fallback")
    r = run(ctx, "stand", path, "--pose", A1_POSE, "--push", "0.3", "--seconds", "6",
            "--contact-damping", "2", "--json")
    r.check(r.code == 0 and r.json()["stood"] and r.json()["largest_tilt"] < 0.05,
            "with the contact task's damping at 2 1/s it stands too (measured 0.008 rad)")
    r = run(ctx, "stand", path, "--pose", A1_POSE, "--seconds", "2", "--no-self-collision",
            "--json")
    r.check(r.code == 0 and r.json()["stood"], "its links colliding only with the ground: it stands")
    r = run(ctx, "stand", path, "--pose", A1_POSE, "--seconds", "3", "--actuation", "forces")
    r.check(r.code == 0 and "FELL at" in r.out and "half its start height" in r.out,
            "its torques as forces at Bullet's defaults: it sinks (measured: below half at 1.03 s)")


def case_stand_pose_and_errors(ctx):
    """gcbridge stand reports a pose's problem before the run; mistakes exit 2, bad models and
    poses 1; the 3D page is written whole or refused before the run."""
    path = a1_path(ctx)
    forward = ",".join(f"{leg}_upper_joint=1.5" for leg in ("FR", "FL", "RR", "RL"))
    r = run(ctx, "stand", path, "--pose", forward, "--seconds", "0.1", "--json")
    r.check(r.code == 0 and any("outside the support polygon" in n for n in r.json()["pose_notes"]),
            "legs swung forward: the COM outside the support, said before the run")
    r = run(ctx, "stand", path, "--pose", A1_POSE, "--seconds", "0.1", "--json")
    r.check(not any("overlap" in n for n in r.json()["pose_notes"]),
            "standing on bent legs: no links overlap, no note")
    crossed = "FR_hip_joint=0.8,FL_hip_joint=-0.8"
    r = run(ctx, "stand", path, "--pose", crossed, "--seconds", "0.1", "--json")
    notes = [n for n in r.json()["pose_notes"] if "overlap" in n]
    depth = re.search(r"FR_upper and FL_upper by ([0-9.]+) mm", notes[0]) if notes else None
    r.check(r.code == 0 and depth is not None and 1.0 < float(depth.group(1)) < 100.0,
            "front thighs swung into each other: the pair and its depth named before the run")
    r = run(ctx, "stand", path, "--pose", crossed, "--seconds", "0.1", "--json",
            "--no-self-collision")
    r.check(not any("overlap" in n for n in r.json()["pose_notes"]),
            "without self-collision the links may overlap: no note")
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "a1.html")
        r = run(ctx, "stand", path, "--pose", A1_POSE, "--seconds", "0.5", "--html", page)
        r.check(r.code == 0 and os.path.isfile(page) and "Wrote" in r.out, "the page written")
        r.check("FR_lower" in open(page, encoding="utf-8").read(), "the page holds the links")
        nowhere = os.path.join(tmp, "no_such_folder", "x.html")
        r = run(ctx, "stand", path, "--pose", A1_POSE, "--html", nowhere)
        r.check(r.code == 1 and "no_such_folder" in r.err and r.out == "",
                "an unwritable page: exit 1 before the run")
        missing = os.path.join(tmp, "none.urdf")
        r = run(ctx, "stand", missing)
        r.check(r.code == 1 and missing in r.err, "a missing model: exit 1 naming it")
    r = run(ctx, "stand", path, "--pose", "FR_upper_joint=0.9,knee=1")
    r.check(r.code == 1 and "'knee'" in r.err, "a joint the model lacks: exit 1 naming it")
    for args, words in ((["--pose", "FR_upper_joint"], ["NAME=VALUE"]),
                        (["--pose", "FR_upper_joint=x"], ["--pose FR_upper_joint"]),
                        (["--actuation", "magic"], ["--actuation"]),
                        (["--dt", "0"], ["--dt"]), (["--iterations", "0"], ["--iterations"]),
                        (["--push", "-1"], ["--push"]),
                        (["--contact-damping", "-1"], ["--contact-damping"])):
        r = run(ctx, "stand", path, *args)
        r.check(r.code == 2 and all(w in r.err for w in words), f"exit 2 naming {words}")
    r = run(ctx, "stand", "world.bullet")
    r.check(r.code == 2 and "URDF" in r.err, "a .bullet file: exit 2")
    r = run(ctx, "stand", "--help")
    r.check(r.code == 0 and "--pose" in r.out and "--actuation" in r.out, "help")


def case_stand_sweep(ctx):
    """gcbridge stand --push-sweep: in 8 directions, the largest push the A1 survives, beside the
    capture-point bound omega d, d from the COM to its toes' polygon (counted from the URDF)."""
    path = a1_path(ctx)
    r = run(ctx, "stand", path, "--pose", A1_POSE, "--push-sweep", "--json", timeout=600)
    r.check(r.code == 0, "the sweep must run")
    sweep = r.json()
    rows = sweep["directions"]
    r.check([row["direction_deg"] for row in rows] == [45.0 * k for k in range(8)],
            "8 directions, 45 degrees apart")
    omega = math.sqrt(9.81 / sweep["com_height"])
    r.check(math.isclose(sweep["omega"], omega, rel_tol=1e-12), "omega = sqrt(g / z_COM)")
    # The toes: hips at x = +-0.183 m, y = +-(0.047 + 0.08505) m; the COM within 2 cm of the
    # middle (the trunk's COM is 1.3 cm forward).
    for direction, d in ((0, 0.183), (90, 0.13205), (180, 0.183), (270, 0.13205)):
        row = rows[direction // 45]
        r.check(abs(row["bound"] - omega * d) < omega * 0.02,
                f"at {direction} degrees the bound is omega * {d} m to 2 cm")
    for row in rows:
        r.check(0 < row["survived"] <= 4 and
                math.isclose(row["impulse"], row["survived"] * sweep["mass"], rel_tol=1e-12),
                "a push survived in every direction, its impulse m v")
    r = run(ctx, "stand", path, "--push-sweep", "--push", "0.3")
    r.check(r.code == 2 and "--push-sweep" in r.err, "a sweep with --push: exit 2")


def case_stand_deepmimic(ctx):
    """gcbridge stand on a y-up file with box feet: the DeepMimic humanoid turned upright
    (--root-rpy), its ankles' box soles as the contacts (--soles), stands through two pushes at
    its own size and Bullet's defaults, and at a person's size (--scale 0.25) at 1 kHz."""
    path = humanoid_path(ctx)
    upright = ["--root-rpy", f"{math.pi / 2},0,0", "--soles", "left_ankle,right_ankle"]
    r = run(ctx, "stand", path, *upright, "--push", "0.3", "--seconds", "6", "--json")
    r.check(r.code == 0, "stand must run")
    result = r.json()
    r.check("8 contact points" in result["pose_notes"], "the two soles' corners, before the run")
    r.check(result["stood"] and result["largest_drop"] < 0.04 * result["start_height"]
            and result["largest_tilt"] < 0.05 and result["root_force"] == 0,
            "it stands on its joints (measured: 2.9 mm, 0.019 rad)")
    r = run(ctx, "stand", path, *upright, "--scale", "0.25", "--dt", "0.001", "--seconds", "3",
            "--json")
    _, mass, _ = urdf_facts(path)
    result = r.json()
    r.check(r.code == 0 and math.isclose(result["mass"], mass / 64, rel_tol=1e-12)
            and result["stood"] and result["largest_drop"] < 0.04 * result["start_height"],
            "a quarter of the size stands at 1 kHz (measured: 0.12 mm)")
    for soles, words in (("left_ankle,nofoot", ["--soles", "'nofoot'"]),
                         ("left_ankle,chest", ["--soles", "'chest'", "box"])):
        r = run(ctx, "stand", path, "--soles", soles)
        r.check(r.code == 1 and all(w in r.err for w in words), f"exit 1 naming {words}")
    r = run(ctx, "stand", path, *upright, "--actuation", "hold")
    r.check(r.code == 1 and "--actuation hold" in r.err and "no Bullet motor" in r.err,
            "a stiff hold of ball joints, which have no motor: exit 1")
    r = run(ctx, "stand", path, "--root-rpy", "1,2")
    r.check(r.code == 2 and "--root-rpy" in r.err, "two angles: exit 2")


def humanoid_standing_csv(path, wave):
    """Waypoints of the DeepMimic humanoid standing (y up in its file: the root turned +90 degrees
    about x, the ankles' boxes on the plane), its arms raised 0.6 rad sideways and, with `wave`,
    swinging +-0.5 rad at 0.5 Hz (0.5 s of them), else held."""
    def row(t):
        a = 0.6 + (0.5 * math.sin(math.pi * t) if wave else 0.0)
        r = math.sqrt(0.5)
        ident = [0.0, 0.0, 0.0, 1.0]
        shoulder = lambda side: [side * math.sin(a / 2), 0.0, 0.0, math.cos(a / 2)]
        q = [0.0, 0.0, 3.5257, r, 0.0, 0.0, r] + ident + ident
        q += shoulder(-1) + [0.0] + shoulder(1) + [0.0]
        q += ident + [0.0] + ident + ident + [0.0] + ident
        return f"{t}," + ",".join(repr(x) for x in q)
    with open(path, "w", encoding="utf-8") as f:
        f.write("t,43 positions\n")
        f.write("\n".join(row(0.05 * k) for k in range(11 if wave else 1)) + "\n")


def case_compare_humanoid_ground(ctx):
    """compare --ground on the btMultiBody engine: the DeepMimic humanoid stands on its feet (its
    links' colliders on a plane; the free root unactuated), its ball joints driven by Bullet's
    spherical joint motors. Holding a pose, Bullet's law and computed_torque_step through the same
    motors have the same targets (a tie to round-off over a quarter second); waving the arms, the
    one-step aim tracks closer. Both stay standing (the pelvis within 2 cm of its height)."""
    with tempfile.TemporaryDirectory() as tmp:
        controllers = ("bullet_motors", "computed_torque_step:motors")
        rms = {}
        for wave in (False, True):
            waypoints = os.path.join(tmp, f"wave{wave}.csv")
            humanoid_standing_csv(waypoints, wave)
            out_dir = os.path.join(tmp, f"out{wave}")
            r = run_compare(ctx, humanoid_path(ctx), out_dir, "--floating-base", "--scenario",
                            "tracking", "--ground", "--engines", "multibody", "--dt", "1/240",
                            "--duration", "0.25" if not wave else "0.5", "--max-torque", "100",
                            "--trajectory", waypoints, "--controller", ",".join(controllers),
                            "--no-progress")
            r.check(r.code == 0, f"the humanoid on the ground runs on multibody (wave {wave})")
            rows = summary_rows(r, out_dir)
            rms[wave] = {row["controller"]: float(row["tracking_rms"]) for row in rows}
            r.check(sorted(rms[wave]) == sorted(controllers), f"both controllers ran: {rms}")
            for c in controllers:
                header, data = read_csv(r, os.path.join(out_dir, f"multibody_240hz_{c.replace(':', '_')}.csv"))
                z = [float(row[header.index("q_root_joint_2")]) for row in data]
                r.check(max(abs(x - 3.5257) for x in z) < 0.02, f"{c} stands: pelvis {min(z)}-{max(z)} m")
        held = rms[False]
        r.check(abs(held[controllers[0]] - held[controllers[1]]) <= 1e-9 * held[controllers[0]],
                f"holding a pose the two laws tie ({held})")
        waved = rms[True]
        r.check(waved[controllers[1]] < 0.5 * waved[controllers[0]],
                f"waving, the one-step aim tracks at least twice as close ({waved})")


def cases_of(namespace):
    """The case_* functions of a module's globals, by name without the prefix."""
    return {name[len("case_"):]: f for name, f in namespace.items() if name.startswith("case_")}


def run_case(description, cases, options):
    """Parses CASE and the required `options`, runs the case; returns the exit code."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("case", choices=sorted(cases))
    for option in options:
        parser.add_argument(option, required=True)
    ctx = parser.parse_args()
    try:
        cases[ctx.case](ctx)
    except CheckFailed as e:
        print(f"FAILED {ctx.case}: {e}", file=sys.stderr)
        return 1
    print(f"passed {ctx.case}")
    return 0


if __name__ == "__main__":
    sys.exit(run_case(__doc__, cases_of(globals()),
                      ("--gcbridge", "--models", "--data", "--version", "--precision")))
