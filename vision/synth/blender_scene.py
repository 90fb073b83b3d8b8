"""Render the scenes that ``vision.synth.photoreal plan`` wrote, inside Blender (Cycles on the CPU).

Run as ``blender -b --python vision/synth/blender_scene.py -- DIR [FIRST LAST]``. Only Blender's own modules are
used here: the plan (dice, faces, camera, lights, table) was drawn in numpy beforehand, so every choice is seeded
there and this script only builds what a scene file says, renders it, and writes where each die's top face landed
on screen and how much of it the camera sees. A scene already rendered is skipped, so a killed run goes on.
"""

# mypy: ignore-errors
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import bmesh  # type: ignore[import-not-found]
import bpy  # type: ignore[import-not-found]
from bpy_extras.object_utils import world_to_camera_view  # type: ignore[import-not-found]
from mathutils import Matrix, Vector  # type: ignore[import-not-found]

# face normal of the unrotated cube -> rank printed there (opposite faces sum to 7), and its cell in the 3 x 2 atlas
FACES = {(0, 0, 1): 1, (0, 0, -1): 6, (1, 0, 0): 2, (-1, 0, 0): 5, (0, 1, 0): 3, (0, -1, 0): 4}


def _clear() -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)


def _image(path: Path, colour: bool):
    img = bpy.data.images.load(str(path), check_existing=True)
    img.colorspace_settings.name = "sRGB" if colour else "Non-Color"
    return img


def _die_material(d: dict, folder: Path):
    m = bpy.data.materials.new(f"die{d['index']}")
    m.use_nodes = True
    t = m.node_tree
    bsdf = t.nodes["Principled BSDF"]
    uv = t.nodes.new("ShaderNodeTexCoord")
    tex = t.nodes.new("ShaderNodeTexImage")
    tex.image = _image(folder / d["atlas"], True)
    tex.interpolation = "Cubic"
    ink = t.nodes.new("ShaderNodeTexImage")
    ink.image = _image(folder / d["ink"], False)
    t.links.new(uv.outputs["UV"], tex.inputs["Vector"])
    t.links.new(uv.outputs["UV"], ink.inputs["Vector"])
    t.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    mat = d["material"]
    bsdf.inputs["Roughness"].default_value = mat["roughness"]
    bsdf.inputs["Clearcoat"].default_value = mat["clearcoat"]
    bsdf.inputs["Clearcoat Roughness"].default_value = 0.05
    bsdf.inputs["Specular"].default_value = mat["specular"]
    inv = t.nodes.new("ShaderNodeMath")
    inv.operation = "SUBTRACT"
    inv.inputs[0].default_value = 1.0
    t.links.new(ink.outputs["Color"], inv.inputs[1])  # 1 on the body, 0 on the paint
    for name, key in (("Transmission", "transmission"), ("Metallic", "metallic"), ("Subsurface", "subsurface")):
        if mat[key] > 0:
            k = t.nodes.new("ShaderNodeMath")
            k.operation = "MULTIPLY"
            k.inputs[1].default_value = mat[key]
            t.links.new(inv.outputs[0], k.inputs[0])
            t.links.new(k.outputs[0], bsdf.inputs[name])
    if mat["subsurface"] > 0:
        t.links.new(tex.outputs["Color"], bsdf.inputs["Subsurface Color"])
    bsdf.inputs["IOR"].default_value = 1.5
    if mat["sparkle"] > 0:  # glitter: flakes that catch the light, as tiny metallic cells in the body
        vor = t.nodes.new("ShaderNodeTexVoronoi")
        vor.inputs["Scale"].default_value = mat["sparkle_scale"]
        gen = t.nodes.new("ShaderNodeTexCoord")
        t.links.new(gen.outputs["Object"], vor.inputs["Vector"])
        ramp = t.nodes.new("ShaderNodeMath")
        ramp.operation = "GREATER_THAN"
        ramp.inputs[1].default_value = 1.0 - mat["sparkle"]
        t.links.new(vor.outputs["Color"], ramp.inputs[0])
        k = t.nodes.new("ShaderNodeMath")
        k.operation = "MULTIPLY"
        t.links.new(ramp.outputs[0], k.inputs[0])
        t.links.new(inv.outputs[0], k.inputs[1])
        t.links.new(k.outputs[0], bsdf.inputs["Metallic"])
    if mat["engraved"] > 0:  # pips and letters carved in: the ink mask as depth
        bump = t.nodes.new("ShaderNodeBump")
        bump.invert = True
        bump.inputs["Strength"].default_value = mat["engraved"]
        bump.inputs["Distance"].default_value = 0.0006
        t.links.new(ink.outputs["Color"], bump.inputs["Height"])
        t.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    return m


def _die(d: dict, folder: Path):
    s = d["side"]
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=s)
    uv_layer = bm.loops.layers.uv.new("UVMap")
    for f in bm.faces:
        n = f.normal
        key = (round(n.x), round(n.y), round(n.z))
        rank = FACES[key]
        col, row = (rank - 1) % 3, (rank - 1) // 3
        # local face axes (u right, v up as the face is printed), so the atlas cell lands unmirrored
        if key[2] != 0:
            ax_u, ax_v = Vector((1, 0, 0)), Vector((0, key[2], 0))
        elif key[0] != 0:
            ax_u, ax_v = Vector((0, key[0], 0)), Vector((0, 0, 1))
        else:
            ax_u, ax_v = Vector((-key[1], 0, 0)), Vector((0, 0, 1))
        for loop in f.loops:
            p = loop.vert.co
            u = (p.dot(ax_u) / s + 0.5)
            v = (p.dot(ax_v) / s + 0.5)
            loop[uv_layer].uv = ((col + u) / 3.0, 1.0 - (row + 1 - v) / 2.0)
    me = bpy.data.meshes.new(f"die{d['index']}")
    bm.to_mesh(me)
    bm.free()
    ob = bpy.data.objects.new(f"die{d['index']}", me)
    bpy.context.scene.collection.objects.link(ob)
    bev = ob.modifiers.new("bevel", "BEVEL")
    bev.width = d["bevel"] * s
    bev.segments = 4
    bev.harden_normals = False
    for p in me.polygons:
        p.use_smooth = True
    ob.matrix_world = Matrix([list(r) for r in d["matrix"]])
    ob.data.materials.append(_die_material(d, folder))
    return ob


def _surface(spec: dict, name: str):
    """The material of a table or a tray's felt: a pattern between two colours, and its bump."""
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    t = m.node_tree
    bsdf = t.nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = spec["roughness"]
    bsdf.inputs["Specular"].default_value = spec["specular"]
    coord = t.nodes.new("ShaderNodeTexCoord")
    kind = spec["kind"]
    if kind == "wood":
        pat = t.nodes.new("ShaderNodeTexWave")
        pat.wave_type = "RINGS" if spec["rings"] else "BANDS"
        pat.inputs["Scale"].default_value = spec["scale"]
        pat.inputs["Distortion"].default_value = spec["distortion"]
        pat.inputs["Detail"].default_value = 6
        out = pat.outputs["Fac"]
    elif kind == "checker":
        pat = t.nodes.new("ShaderNodeTexChecker")
        pat.inputs["Scale"].default_value = spec["scale"]
        out = pat.outputs["Fac"]
    elif kind == "voronoi":
        pat = t.nodes.new("ShaderNodeTexVoronoi")
        pat.inputs["Scale"].default_value = spec["scale"]
        out = pat.outputs["Distance"]
    else:  # felt, cloth, paper, stone: noise at the table's own scale
        pat = t.nodes.new("ShaderNodeTexNoise")
        pat.inputs["Scale"].default_value = spec["scale"]
        pat.inputs["Detail"].default_value = spec["detail"]
        pat.inputs["Distortion"].default_value = spec["distortion"]
        out = pat.outputs["Fac"]
    t.links.new(coord.outputs["Object"], pat.inputs["Vector"])
    ramp = t.nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = (*spec["color1"], 1)
    ramp.color_ramp.elements[1].color = (*spec["color2"], 1)
    ramp.color_ramp.elements[0].position = spec["ramp"][0]
    ramp.color_ramp.elements[1].position = spec["ramp"][1]
    t.links.new(out, ramp.inputs["Fac"])
    t.links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    if spec["bump"] > 0:  # grain and weave catch the light
        grain = t.nodes.new("ShaderNodeTexNoise")
        grain.inputs["Scale"].default_value = spec["bump_scale"]
        t.links.new(coord.outputs["Object"], grain.inputs["Vector"])
        bump = t.nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = spec["bump"]
        t.links.new(grain.outputs["Fac"], bump.inputs["Height"])
        t.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    return m


def _tray(spec: dict, k: int) -> None:
    """A hexagonal felt floor just above the table and six leather walls leaning outwards."""
    cx, cy, r, yaw = *spec["centre"], spec["inradius"], spec["yaw"]
    out = spec["height"] * math.tan(math.radians(spec["slope"]))
    ring = [
        (cx + rr / math.cos(math.pi / 6) * math.cos(a), cy + rr / math.cos(math.pi / 6) * math.sin(a), z)
        for rr, z in ((r, 0.0005), (r + out, spec["height"]))
        for a in (yaw + i * math.pi / 3 for i in range(6))
    ]
    mesh = bpy.data.meshes.new(f"tray{k}")
    faces = [tuple(range(6))] + [(i, (i + 1) % 6, 6 + (i + 1) % 6, 6 + i) for i in range(6)]
    mesh.from_pydata(ring, [], faces)
    ob = bpy.data.objects.new(f"tray{k}", mesh)
    bpy.context.scene.collection.objects.link(ob)
    felt = _surface(spec["felt"], f"felt{k}")
    leather = bpy.data.materials.new(f"leather{k}")
    leather.use_nodes = True
    bsdf = leather.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*spec["leather"]["color"], 1)
    bsdf.inputs["Roughness"].default_value = spec["leather"]["roughness"]
    mesh.materials.append(felt)
    mesh.materials.append(leather)
    for i, poly in enumerate(mesh.polygons):
        poly.material_index = 0 if i == 0 else 1
    mod = ob.modifiers.new("thick", "SOLIDIFY")  # the walls' leather has a thickness at the rim
    mod.thickness = 0.004


def _table(spec: dict) -> None:
    bpy.ops.mesh.primitive_plane_add(size=spec["size"], location=(0, 0, 0))
    ob = bpy.context.active_object
    m = _surface(spec, "table")
    ob.data.materials.append(m)
    for k, tray in enumerate(spec.get("trays", [])):
        _tray(tray, k)
    for w in spec.get("walls", []):  # a tray's rim: boxes of the table's material
        bpy.ops.mesh.primitive_cube_add(size=1, location=w["location"], scale=w["scale"])
        bpy.context.active_object.data.materials.append(m)


def _light(spec: dict) -> None:
    kind = spec["type"]
    data = bpy.data.lights.new(f"light{kind}", kind)
    data.energy = spec["energy"]
    data.color = spec["color"]
    if kind == "AREA":
        data.size = spec["size"]
    elif kind in ("POINT", "SPOT"):
        data.shadow_soft_size = spec["size"]
    elif kind == "SUN":
        data.angle = spec["size"]
    ob = bpy.data.objects.new(f"light{kind}", data)
    bpy.context.scene.collection.objects.link(ob)
    ob.location = spec["location"]
    direction = Vector(spec["target"]) - Vector(spec["location"])
    ob.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()


def _camera(spec: dict, size: list[int]):
    data = bpy.data.cameras.new("cam")
    data.lens = spec["lens_mm"]
    data.sensor_width = 36
    data.sensor_fit = "HORIZONTAL"
    if spec.get("fstop"):
        data.dof.use_dof = True
        data.dof.focus_distance = spec["focus"]
        data.dof.aperture_fstop = spec["fstop"]
    ob = bpy.data.objects.new("cam", data)
    bpy.context.scene.collection.objects.link(ob)
    ob.location = spec["location"]
    direction = Vector(spec["target"]) - Vector(spec["location"])
    ob.rotation_euler = direction.to_track_quat("-Z", spec.get("up", "Y")).to_euler()
    ob.rotation_euler.rotate_axis("Z", math.radians(spec["roll"]))
    sc = bpy.context.scene
    sc.camera = ob
    sc.render.resolution_x, sc.render.resolution_y = size
    sc.render.resolution_percentage = 100
    return ob


def _screen(cam, p: Vector, size: list[int]) -> tuple[float, float]:
    v = world_to_camera_view(bpy.context.scene, cam, p)
    return v.x * size[0], (1 - v.y) * size[1]


def _seen(cam, ob, p: Vector) -> bool:
    """Whether the camera sees point ``p`` on ``ob`` (nothing else in between)."""
    dg = bpy.context.evaluated_depsgraph_get()
    origin = cam.matrix_world.translation
    d = p - origin
    hit, _loc, _n, _i, what, _m = bpy.context.scene.ray_cast(dg, origin, d.normalized(), distance=d.length + 1e-4)
    return bool(hit) and what.name == ob.name


def render(folder: Path, name: str) -> None:
    spec = json.loads((folder / f"{name}.json").read_text())
    _clear()
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    sc.cycles.device = "CPU"
    sc.cycles.samples = spec["samples"]
    sc.cycles.use_adaptive_sampling = True
    sc.cycles.seed = spec["seed"] % 2**31
    sc.cycles.sample_clamp_indirect = 2.0
    sc.cycles.max_bounces = 8
    sc.cycles.transmission_bounces = 8
    sc.cycles.use_denoising = False
    sc.render.threads_mode = "FIXED"
    sc.render.threads = spec.get("threads", 2)
    sc.view_settings.view_transform = "Filmic"
    sc.view_settings.look = spec["look"]
    sc.view_settings.exposure = spec["exposure"]
    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = (*spec["world"]["color"], 1)
    bg.inputs["Strength"].default_value = spec["world"]["strength"]
    sc.world = world
    _table(spec["table"])
    for li in spec["lights"]:
        _light(li)
    size = spec["size"]
    cam = _camera(spec["camera"], size)
    dice = [_die(d, folder) for d in spec["dice"]]
    bpy.context.view_layer.update()
    out = []
    for d, ob in zip(spec["dice"], dice, strict=True):
        mw = Matrix([list(r) for r in d["matrix"]])
        h = d["side"] / 2
        # the top face in the world: the local face whose normal points up after the die's rotation
        up = max(FACES, key=lambda k: (mw.to_3x3() @ Vector(k)).z)
        local = [Vector(up) * h + a * h + b * h for a, b in _face_axes(up)]
        top = [mw @ p for p in local]
        centre = mw @ (Vector(up) * h)
        corners = [mw @ Vector((x * h, y * h, z * h)) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
        probes = [centre] + [centre.lerp(c, 0.55) for c in top]
        out.append(
            {
                "rank": FACES[up],
                "centre": _screen(cam, centre, size),
                "top": [_screen(cam, p, size) for p in top],
                "corners": [_screen(cam, p, size) for p in corners],
                "seen": sum(_seen(cam, ob, p) for p in probes) / len(probes),
            }
        )
    sc.render.image_settings.file_format = "PNG"
    sc.render.image_settings.color_depth = "8"
    sc.render.filepath = str(folder / f"{name}.png")
    bpy.ops.render.render(write_still=True)
    (folder / f"{name}.dice.json").write_text(json.dumps(out))


def _face_axes(n: tuple[int, int, int]) -> list[tuple[Vector, Vector]]:
    """The four corners of the face with normal ``n`` as pairs of half-side offsets along its two axes."""
    axes = [Vector(a) for a in ((1, 0, 0), (0, 1, 0), (0, 0, 1)) if abs(Vector(a).dot(Vector(n))) < 0.5]
    a, b = axes
    return [(a * x, b * y) for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))]


def main() -> None:
    argv = sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else []
    folder = Path(argv[0])
    names = sorted(p.stem for p in folder.glob("scene-*.json") if not p.stem.endswith(".dice"))
    if len(argv) >= 3:
        names = names[int(argv[1]) : int(argv[2])]
    for name in names:
        if not (folder / f"{name}.dice.json").exists():
            render(folder, name)


if __name__ == "__main__":
    main()
