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
