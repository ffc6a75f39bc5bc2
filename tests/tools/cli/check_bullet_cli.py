#!/usr/bin/env python3
"""Checks one behaviour of the `gcbridge` commands on Bullet world files (.bullet); CTest runs one
case per test.

Usage: check_bullet_cli.py CASE --gcbridge EXE --models DIR --write-worlds EXE --precision P

The worlds are written by write_bullet_worlds (Bullet's own example worlds as their programs
build them, saved as applications save theirs); the expected numbers are those worlds': the
ragdoll's 11 capsules, its damping 0.05 / 0.85, sleeping thresholds 1.6 m/s and 2.5 rad/s and
child-side frames up to 0.104 m off the joints; the door's sphere welded 0.34 m from where its
weld holds it. A URDF exported to .bullet must read back as the URDF's model: M, h and g equal.
Tolerances: what the file stores in Bullet's precision reads back to its round-off (1e-12 in
double precision, 1e-6 in single); M, h and g of the model read back to 1e-9 relative (1e-4).
"""

import csv as _csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

from check_cli import cases_of, csv, iiwa_path, run, run_case, table_rows


def stored_tolerance(ctx):
    """How close a number stored in a .bullet file reads back: Bullet's round-off."""
    return 1e-12 if ctx.precision == "double" else 1e-6


def write_worlds(ctx, folder):
    subprocess.run([ctx.write_worlds, folder], check=True, timeout=60)
    return {name: os.path.join(folder, name + ".bullet")
            for name in ("ragdoll", "door", "constraint_demo", "loose", "multidof", "motor_demo")}


def case_bullet_info(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        worlds = write_worlds(ctx, tmp)
        r = run(ctx, "info", worlds["ragdoll"], "--root", "pelvis", "--json")
        r.check(r.code == 0, "info on the ragdoll with its root must succeed")
        model = r.json()
        r.check((model["nq"], model["nv"], model["num_links"]) == (32, 26, 11),
                "11 capsules on a free root: nq 32, nv 26 (5 hinges, 5 cone-twists)")
        r.check(model["floating_base"] and model["source"] == worlds["ragdoll"]
                and model["name"] == "ragdoll", "a floating base, the file as the source")
        world = model["world"]
        r.check(world["bodies"] == 12 and world["solver_iterations"] == 5,
                "12 bodies (the ground too), BenchmarkDemo's 5 solver iterations")
        r.check(len(world["q"]) == 32 and len(world["v"]) == 26, "the file's state, sized")
        gaps = [link["spawn_gap"] for link in world["links"]]
        r.check(abs(max(gaps) - 0.104403) < 1e-6, "the largest spawn gap is 0.104403 m")
        exact = stored_tolerance(ctx)
        for link in world["links"]:
            r.check(abs(link["linear_damping"] - 0.05) < exact
                    and abs(link["angular_damping"] - 0.85) < exact
                    and link["can_sleep"] and abs(link["linear_sleeping_threshold"] - 1.6) < exact
                    and abs(link["angular_sleeping_threshold"] - 2.5) < exact,
                    f"{link['name']}: the app's damping and sleeping thresholds")

        r = run(ctx, "info", worlds["door"])
        r.check(r.code == 0, "info on the door finds its root")
        r.check("fixed (welded to the world)" in r.out and "Bullet world" in r.out
                and "spawn gap" in r.out, "the text report has the world's section")
        sphere = [line for line in r.out.splitlines() if line.split()[1:2] == ["sphere"]
                  and "0.34" in line]
        r.check(len(sphere) == 1, "the sphere's 0.34 m spawn gap is in the table")


def case_bullet_errors(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        worlds = write_worlds(ctx, tmp)
        for args, words in (([worlds["constraint_demo"]], ["--root NAME", "cone_box", "groups"]),
                            ([worlds["constraint_demo"], "--root", "nobody"],
                             ["'nobody'", "cone_box"]),
                            ([worlds["constraint_demo"], "--root", "slider_a"],
                             ["btSliderConstraint", "slider_b"]),
                            ([worlds["loose"]], ["no constraint"])):
            r = run(ctx, "info", *args)
            r.check(r.code == 1, "a world no model can be read from must exit 1")
            r.check(r.err.startswith("gcbridge: ") and args[0] in r.err
                    and all(w in r.err for w in words), f"stderr names the file and {words}")
            r.check(r.out == "", "nothing on stdout")

        # Damaged files: cut short, and a URDF named .bullet.
        with open(worlds["door"], "rb") as f:
            data = f.read()
        cut = os.path.join(tmp, "cut.bullet")
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2])
        fake = os.path.join(tmp, "fake.bullet")
        shutil.copy(iiwa_path(ctx), fake)
        for path, word in ((cut, "truncated"), (fake, "not a .bullet file"),
                           (os.path.join(tmp, "none.bullet"), "cannot read")):
            for command in ("info", "dynamics"):
                r = run(ctx, command, path)
                r.check(r.code == 1 and path in r.err and word in r.err and r.out == "",
                        f"{command}: exit 1 naming the file and '{word}'")
            out_dir = os.path.join(tmp, "compare_out")
            r = run(ctx, "compare", path, "--out", out_dir, "--no-progress")
            r.check(r.code == 1 and word in r.err and not os.path.exists(out_dir),
                    "compare: exit 1, no output folder")

        # Options that do not fit the file: command-line mistakes.
        for args, words in ((["info", worlds["door"], "--floating-base"], ["--floating-base"]),
                            (["info", worlds["door"], "--scale", "2"], ["--scale"]),
                            (["info", worlds["door"], "--no-merge"], ["--no-merge"]),
                            (["info", iiwa_path(ctx), "--root", "x"], ["--root"]),
                            (["info", worlds["door"], "--root"], ["--root"])):
            r = run(ctx, *args)
            r.check(r.code == 2 and r.err.startswith("gcbridge: ")
                    and all(w in r.err for w in words) and r.out == "",
                    f"exit 2 naming {words}")


def case_bullet_trees(ctx):
    """MotorDemo saved mid-run: a walker and a stand with six legs hanging from its static body,
    every hinge's motor on. The stand is one model of 12 dofs, with the static body or a body it
    holds as the root, or one leg alone (--subtree); the motors are refused unless --motors off;
    info lists both groups."""
    with tempfile.TemporaryDirectory() as tmp:
        worlds = write_worlds(ctx, tmp)
        path = worlds["motor_demo"]
        r = run(ctx, "info", path)
        r.check(r.code == 1 and "--root NAME or --subtree NAME" in r.err
                and "'walker_body' and 12 more bodies, floating" in r.err
                and "'stand_thigh0' and 11 more bodies, held by 'stand_body'" in r.err,
                "two groups: exit 1 listing them and the options that pick one")
        r = run(ctx, "info", path, "--root", "stand_body")
        r.check(r.code == 1 and "its angular motor" in r.err and "--motors off" in r.err,
                "a motor on: exit 1 naming it and --motors off")
        r = run(ctx, "info", path, "--root", "stand_shin4", "--motors", "off")
        r.check(r.code == 1 and "can only hold the root" in r.err,
                "a root the stand does not hold: exit 1")
        for root in ("stand_body", "stand_thigh2", "stand_thigh5"):
            option = "--subtree" if root == "stand_thigh2" else "--root"
            r = run(ctx, "info", path, option, root, "--motors", "off", "--json")
            r.check(r.code == 0, f"{option} {root} --motors off reads the stand")
            model = r.json()
            world = model["world"]
            dofs = 2 if option == "--subtree" else 12
            r.check(model["nv"] == dofs and not model["floating_base"]
                    and world["base_body"] == "stand_body"
                    and len(world["motors_switched_off"]) == dofs,
                    f"{dofs} hinges on the stand's body, each motor switched off and listed")
            r.check([tree["model"] for tree in world["trees"]] == [True, False]
                    if world["trees"][0]["held_by"] == ["stand_body"]
                    else [tree["model"] for tree in world["trees"]] == [False, True],
                    "the model's group is marked")
            held = sorted(tuple(tree["held_by"]) for tree in world["trees"])
            r.check(held == [(), ("stand_body",)]
                    and sorted(len(t["chains"]) for t in world["trees"]) == [0, 6],
                    "both groups listed: the floating walker, the stand's six chains")
        r = run(ctx, "info", path, "--root", "walker_body", "--motors", "off")
        r.check(r.code == 0 and "floating" in r.out and r.out.count("motor off") == 12
                and "groups of constrained bodies" in r.out and "this one" in r.out,
                "the walker: floating, 12 motors off, the groups table")
        r = run(ctx, "dynamics", path, "--root", "stand_body", "--motors", "off", "--json")
        r.check(r.code == 0 and len(r.json()["M"]) == 12, "dynamics of the stand: M is 12 x 12")
        for args, words in ((["--motors", "maybe"], ["--motors", "maybe"]),
                            (["--root", "stand_body", "--subtree", "stand_thigh0"],
                             ["--root and --subtree"]),
                            (["--multibody", "0", "--motors", "off"], ["--multibody"])):
            r = run(ctx, "info", path, *args)
            r.check(r.code == 2 and all(w in r.err for w in words) and r.out == "",
                    f"exit 2 naming {words}")
        r = run(ctx, "info", iiwa_path(ctx), "--subtree", "x")
        r.check(r.code == 2 and "--subtree" in r.err, "--subtree on a URDF: exit 2")


def tracking_rms(r):
    """The tracking RMS column of compare's table, by engine (by engine and controller when the
    table has a controller column)."""
    rms = {}
    lines = r.out.splitlines()
    several = any(line.split()[:3] == ["engine", "step", "controller"] for line in lines)
    for line in lines:
        fields = line.split()
        if len(fields) > 7 and fields[0] in ("rigid_body", "multibody") and fields[1].startswith("1/"):
            if several:
                rms[(fields[0], fields[2])] = float(fields[7])
            else:
                rms[fields[0]] = float(fields[6])
    return rms


def case_bullet_motors(ctx):
    """compare's tracking on MotorDemo's stand (read with its motors switched off), three
    controllers in one run: Bullet's own motors as the example apps drive them (bullet_motors, on
    the rigid bodies and on the btMultiBody) against gcbridge's computed torque aimed at the end
    of each step, as forces and through the motors (computed_torque_step:motors). One row, CSV file
    and plot curve per engine and controller, all against the tracking reference; gcbridge tracks
    closer on both engines. Options that do not fit exit 2."""
    with tempfile.TemporaryDirectory() as tmp:
        worlds = write_worlds(ctx, tmp)
        out_dir = os.path.join(tmp, "motors")
        base = ["compare", worlds["motor_demo"], "--root", "stand_body", "--motors", "off",
                "--scenario", "tracking", "--engines", "rigid_body,multibody", "--dt", "1/240",
                "--duration", "0.25", "--no-progress"]
        controllers = ["bullet_motors", "computed_torque_step", "computed_torque_step:motors"]
        r = run(ctx, *base, "--out", out_dir, "--controller", ",".join(controllers))
        rms = tracking_rms(r)
        r.check(r.code == 0 and len(rms) == 6, f"every engine under every controller ran: {rms}")
        r.check("Bullet's joint motors as the example apps drive them" in r.out
                and "each controller is its own closed loop" in r.out,
                "the table says what drives the model and what the reference is")
        for engine in ("rigid_body", "multibody"):
            motors = rms.get((engine, "bullet_motors"), 0.0)
            for name in controllers[1:]:
                step = rms.get((engine, name), float("inf"))
                r.check(step < motors, f"{engine}: {name} tracks closer than Bullet's motors "
                                       f"({step} against {motors} rad)")
        with open(os.path.join(out_dir, "summary.csv")) as f:
            rows = list(_csv.DictReader(f))
        r.check([(row["engine"], row["controller"]) for row in rows]
                == [(e, c) for c in controllers for e in ("rigid_body", "multibody")],
                "summary.csv: a row per controller and engine, in order")
        r.check(os.path.isfile(os.path.join(out_dir, "rigid_body_240hz_computed_torque_step_motors.csv")),
                "each run's time series is named after its controller")
        for args, words in ((["--controller", "bullet_motors", "--actuation", "motors"],
                             ["--actuation motors", "bullet_motors"]),
                            (["--actuation", "sideways"], ["--actuation", "sideways"]),
                            (["--controller", "bullet_motors:motors"], ["bullet_motors:motors"]),
                            (["--controller", "stable_pd,stable_pd"], ["--controller", "twice"])):
            r = run(ctx, *base, "--no-files", *args)
            r.check(r.code == 2 and all(w in r.err for w in words), f"exit 2 naming {words}")
        r = run(ctx, "compare", worlds["door"], "--actuation", "motors", "--no-files")
        r.check(r.code == 2 and "--actuation is for the tracking scenario" in r.err,
                "--actuation outside tracking: exit 2")


def case_bullet_ground(ctx):
    """compare --ground on MotorDemo's walker (its free root unactuated, on a plane 1 cm under its
    feet; a quarter second at 240 Hz, 30 N m), tracking MotorDemo's own gait from a waypoint file
    (--trajectory: every hinge between its limits, in phase, period 2 s): Bullet's motors and
    computed_torque_step through them in one run, the one-step aim tracking closer; the reference
    is the file's. A fixed base exits 1, another scenario or an
    engine without contacts exits 2, each naming what is wrong."""
    with tempfile.TemporaryDirectory() as tmp:
        worlds = write_worlds(ctx, tmp)
        gait = os.path.join(tmp, "gait.csv")
        limits = [(-math.pi / 8, 1.5 * math.pi / 8), (-0.2, math.pi / 8)] * 6
        with open(gait, "w", encoding="utf-8") as f:
            f.write("t,root (x y z qx qy qz qw),12 hinges\n")
            for k in range(51):
                t = 0.02 * k
                s = 0.5 * (1.0 - math.sin(math.pi * t))
                q = [0.0, 0.9, 0.0, 0.0, 0.0, 0.0, 1.0] + [lo + s * (hi - lo) for lo, hi in limits]
                f.write(f"{t}," + ",".join(repr(x) for x in q) + "\n")
        base = ["compare", worlds["motor_demo"], "--motors", "off", "--scenario", "tracking",
                "--no-files", "--no-progress"]
        walker = base + ["--root", "walker_body", "--ground", "--dt", "1/240", "--duration", "0.25",
                         "--max-torque", "30", "--trajectory", gait]
        controllers = ("bullet_motors", "computed_torque_step:motors")
        r = run(ctx, *walker, "--controller", ",".join(controllers))
        rms = {c: tracking_rms(r).get(("rigid_body", c)) for c in controllers}
        r.check(r.code == 0 and None not in rms.values(), f"rigid_body ran both: {rms}")
        r.check("the tracking reference q_d(t) itself" in r.out and f"tracking {gait} (51 waypoints"
                in r.out, "the reference is the file's q_d(t)")
        r.check(rms[controllers[1]] < rms[controllers[0]],
                f"computed_torque_step through the motors tracks closer than Bullet's law ({rms})")
        r = run(ctx, *base, "--root", "stand_body", "--ground")
        r.check(r.code == 1 and "fixed base" in r.err, "a fixed base on the ground: exit 1")
        for args, words in ((["--scenario", "passive"], "--ground is for the tracking scenario"),
                            (["--engines", "rigid_body,euler"], "not 'euler'")):
            r = run(ctx, *(base + ["--root", "walker_body", "--ground"] + args))
            r.check(r.code == 2 and words in r.err, f"exit 2 naming {words!r}")


def case_bullet_compare(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        worlds = write_worlds(ctx, tmp)
        out_dir = os.path.join(tmp, "door")
        r = run(ctx, "compare", worlds["door"], "--out", out_dir, "--engines", "rigid_body,rk4",
                "--duration", "0.5", "--no-progress")
        r.check(r.code == 0, "compare on the door must succeed")
        r.check([row[0] for row in table_rows(r)] == ["rigid_body", "rk4"]
                and all(row[2] == "ok" for row in table_rows(r)), "both engines ran")
        r.check(os.path.isfile(os.path.join(out_dir, "report.html")), "the report is written")

        r = run(ctx, "compare", worlds["ragdoll"], "--root", "pelvis", "--engines", "rk4",
                "--duration", "0.2", "--no-files", "--no-progress")
        r.check(r.code == 0, "compare on the ragdoll must succeed")
        r.check("damping" in r.err and "0.85" in r.err,
                "stderr notes the bodies' damping the engines leave out")

        r = run(ctx, "compare", worlds["door"], "--scenario", "zero_gravity", "--no-files",
                "--no-progress")
        r.check(r.code == 1 and "zero_gravity" in r.err and "'door'" in r.err,
                "zero_gravity on a world whose root hangs on a static body: exit 1 naming it")


def case_bullet_multibody(ctx):
    urdf = iiwa_path(ctx)
    q = [0.3, -0.5, 0.7, 1.1, -0.4, 0.9, 0.2]
    v = [0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7]
    with tempfile.TemporaryDirectory() as tmp:
        worlds = write_worlds(ctx, tmp)
        # Bullet's example multibody: the first of the file's two, its names, its state.
        r = run(ctx, "info", worlds["multidof"], "--json")
        r.check(r.code == 0, "info on a multibody file must succeed")
        model = r.json()
        r.check(model["name"] == "torso" and model["floating_base"]
                and (model["nq"], model["nv"]) == (7 + 4 + 1 + 1 + 1 + 4, 6 + 3 + 1 + 1 + 1 + 3),
                "the floating example: base 'torso', ball, revolute x2, prismatic, ball")
        names = [link["name"] for link in model["links"]]
        r.check(names == ["torso", "link0", "upper_arm", "link2", "link4", "link5"],
                f"names from the file or generated, link3 merged: {names}")
        world = model["world"]
        r.check(world["multibody"] == 0 and len(world["multibodies"]) == 2
                and world["multibodies"][1]["base"] is None
                and world["multibodies"][1]["fixed_base"],
                "both multibodies listed, the first read")
        shoulder = model["links"][2]["joint"]
        r.check(shoulder["name"] == "shoulder"
                and abs(world["q"][shoulder["idx_q"]] - 0.4) < stored_tolerance(ctx),
                "the shoulder's name and position from the file")
        r = run(ctx, "info", worlds["multidof"])
        r.check(r.code == 0 and "multibodies in the file" in r.out and "this one" in r.out
                and "damping" in r.out, "the text report lists the multibodies")
        r = run(ctx, "info", worlds["multidof"], "--multibody", "1", "--no-merge", "--json")
        r.check(r.code == 0 and not r.json()["floating_base"] and r.json()["name"] == "multidof"
                and r.json()["num_links"] == 7,
                "--multibody 1: the fixed twin, named after the file, its fixed link kept")

        # A URDF exported as a btMultiBody reads back as the URDF's model: M, h, g equal (the
        # iiwa's fixed base is massless, the Panda's is not: written without mass, it stays fixed).
        panda = os.path.join(ctx.models, "franka_panda", "panda.urdf")
        for urdf_path, name in ((urdf, "iiwa"), (panda, "panda")):
            world = os.path.join(tmp, name + "_multibody.bullet")
            r = run(ctx, "export", urdf_path, "--as", "multibody", "--out", world)
            r.check(r.code == 0 and "btMultiBody" in r.out, "export --as multibody must write it")
            state = ["--q", csv(q + [0.01, 0.02] if name == "panda" else q),
                     "--v", csv(v + [0.0, 0.0] if name == "panda" else v)]
            terms = []
            for path in (urdf_path, world):
                r = run(ctx, "dynamics", path, *state, "--json")
                r.check(r.code == 0, f"dynamics on {path} must succeed")
                terms.append(r.json())
            for key in ("M", "h", "g"):
                flat = [[x for row in t[key] for x in (row if isinstance(row, list) else [row])]
                        for t in terms]
                worst = max(abs(x - y) for x, y in zip(*flat))
                relative = 1e-12 if ctx.precision == "double" else 1e-5
                r.check(len(flat[0]) == len(flat[1])
                        and worst <= relative * max(map(abs, flat[0])),
                        f"{name}: {key} of the multibody read back equals the URDF's ({worst})")
        world = os.path.join(tmp, "iiwa_multibody.bullet")
        page = os.path.join(tmp, "view.html")
        r = run(ctx, "view", world, "--out", page)
        text = open(page, encoding="utf-8").read() if os.path.isfile(page) else ""
        r.check(r.code == 0 and '"name":"Bullet multibody"' in text
                and '"name":"model at q"' in text and '"shapes":[]' not in text,
                "view draws the multibody (sticks: it has no shapes) and the model at q")
        out_dir = os.path.join(tmp, "compare")
        r = run(ctx, "compare", worlds["multidof"], "--engines", "rigid_body,rk4", "--duration",
                "0.2", "--out", out_dir, "--no-progress")
        r.check(r.code == 0 and all(row[2] == "ok" for row in table_rows(r)),
                "compare runs the multibody's model")

        # Mistakes: a multibody the file does not hold (exit 1, naming what it holds), options
        # that do not fit (exit 2).
        for args, words in ((["--multibody", "2"], ["has no multibody 2", "holds 2"]),
                            (["--multibody", "arm"], ["'arm'", "torso, (unnamed)"]),
                            (["--ball", "expmap"], ["quaternions"])):
            r = run(ctx, "info", worlds["multidof"], *args)
            r.check(r.code == 1 and all(w in r.err for w in words) and r.out == "",
                    f"exit 1 naming {words}")
        r = run(ctx, "info", worlds["door"], "--multibody", "0")
        r.check(r.code == 1 and worlds["door"] in r.err and "has no multibody 0 (it holds 0"
                in r.err, "a file without multibodies: exit 1 naming it")
        for args, words in ((["info", worlds["multidof"], "--multibody", "0", "--root", "x"],
                             ["--root and --multibody"]),
                            (["info", worlds["multidof"], "--no-merge"], ["--multibody"]),
                            (["info", urdf, "--multibody", "0"], ["--multibody"]),
                            (["export", urdf, "--as", "soup", "--out", world], ["--as", "soup"])):
            r = run(ctx, *args)
            r.check(r.code == 2 and all(w in r.err for w in words), f"exit 2 naming {words}")


def case_export_round_trip(ctx):
    urdf = iiwa_path(ctx)
    q = [0.3, -0.5, 0.7, 1.1, -0.4, 0.9, 0.2]
    v = [0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7]
    with tempfile.TemporaryDirectory() as tmp:
        world = os.path.join(tmp, "iiwa.bullet")
        r = run(ctx, "export", urdf, "--out", world)
        r.check(r.code == 0 and os.path.isfile(world), "export must write the file")
        r.check(not os.path.exists(world + ".partial"), "no partial file left")
        terms = []
        for path in (urdf, world):
            r = run(ctx, "dynamics", path, "--q", csv(q), "--v", csv(v), "--json")
            r.check(r.code == 0, f"dynamics on {path} must succeed")
            terms.append(r.json())
        urdf_terms, world_terms = terms
        for key in ("M", "h", "g"):
            a, b = urdf_terms[key], world_terms[key]
            flat_a = [x for row in a for x in (row if isinstance(row, list) else [row])]
            flat_b = [x for row in b for x in (row if isinstance(row, list) else [row])]
            worst = max(abs(x - y) for x, y in zip(flat_a, flat_b))
            relative = 1e-9 if ctx.precision == "double" else 1e-4
            r.check(len(flat_a) == len(flat_b) and worst <= relative * max(map(abs, flat_a)),
                    f"{key} of the exported world equals the URDF's (worst {worst})")

        # Mistakes: no --out, a .bullet input, a wrong-sized --q; an unwritable path.
        for args, words in (([urdf], ["--out"]), ([world, "--out", world], ["URDF"]),
                            ([urdf, "--out", world, "--q", "1,2"], ["--q", "nq = 7"])):
            r = run(ctx, "export", *args)
            r.check(r.code == 2 and all(w in r.err for w in words), f"exit 2 naming {words}")
        nowhere = os.path.join(tmp, "no_such_folder", "iiwa.bullet")
        r = run(ctx, "export", urdf, "--out", nowhere)
        r.check(r.code == 1 and nowhere in r.err and not os.path.exists(nowhere),
                "an unwritable path: exit 1 naming it, nothing written")


if __name__ == "__main__":
    sys.exit(run_case(__doc__, cases_of(globals()),
                      ("--gcbridge", "--models", "--write-worlds", "--precision")))
