// gcbridge's offline viewer: plays a recording (window.GCBRIDGE_DATA, written by
// gcbridge::viewer::viewerHtml) with three.js. Sets document.body.dataset.status to "ready" once
// drawn, or to "error: ..." on a script error, for tests.
(function () {
  'use strict';
  const data = window.GCBRIDGE_DATA;
  window.addEventListener('error', function (event) {
    document.body.dataset.status = 'error: ' + event.message;
  });

  // Renderer, scene, camera, lights.
  const view = document.getElementById('view');
  const renderer = new THREE.WebGLRenderer({antialias: true, preserveDrawingBuffer: true});
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  renderer.shadowMap.enabled = true;
  view.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xf4f5f7);
  const up = new THREE.Vector3().fromArray(data.up).normalize();
  const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 1000);
  camera.up.copy(up);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x8d8d8d, 0.75));
  const sun = new THREE.DirectionalLight(0xffffff, 0.7);
  sun.castShadow = true;
  sun.shadow.mapSize.set(2048, 2048);
  scene.add(sun);
  scene.add(sun.target);

  // Pose arrays [x, y, z, qx, qy, qz, qw] onto objects.
  function setPose(object, pose, at) {
    object.position.set(pose[at], pose[at + 1], pose[at + 2]);
    object.quaternion.set(pose[at + 3], pose[at + 4], pose[at + 5], pose[at + 6]);
  }

  // Each model's mesh geometries, made once and shared by its tracks.
  function meshGeometries(model) {
    return model.meshes.map(function (mesh) {
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.Float32BufferAttribute(mesh.v, 3));
      geometry.setIndex(mesh.t);
      geometry.computeVertexNormals();
      return geometry;
    });
  }
  function shapeObject(shape, material, geometries) {
    const s = shape.size;
    let object;
    if (shape.type === 'box') {
      object = new THREE.Mesh(new THREE.BoxBufferGeometry(s[0], s[1], s[2]), material);
    } else if (shape.type === 'sphere') {
      object = new THREE.Mesh(new THREE.SphereBufferGeometry(s[0], 24, 16), material);
    } else if (shape.type === 'cylinder' || shape.type === 'capsule') {
      // three.js cylinders run along y; the model's along z.
      object = new THREE.Group();
      const body = new THREE.Mesh(new THREE.CylinderBufferGeometry(s[0], s[0], s[2], 24), material);
      body.rotation.x = Math.PI / 2;
      object.add(body);
      if (shape.type === 'capsule') {
        [-0.5, 0.5].forEach(function (side) {
          const cap = new THREE.Mesh(new THREE.SphereBufferGeometry(s[0], 24, 12), material);
          cap.position.z = side * s[2];
          object.add(cap);
        });
      }
    } else {
      object = new THREE.Mesh(geometries[shape.mesh], material);
    }
    setPose(object, shape.pose, 0);
    object.traverse(function (o) { o.castShadow = true; o.receiveShadow = true; });
    return object;
  }

  // One group per model, placed in the page; in it one group of link frames per track, solid
  // ones in the shapes' colours, ghosts translucent.
  const ghostColours = [0x2f7bd1, 0xd1642f, 0x2fa35a, 0x8a3fd1, 0xc9a227];
  const tracks = [];
  const models = data.models.map(function (model) {
    const placement = new THREE.Group();
    setPose(placement, model.X_PW, 0);
    scene.add(placement);
    const geometries = meshGeometries(model);
    model.tracks.forEach(function (track) {
      tracks.push(makeTrack(model, track, tracks.length, geometries, placement));
    });
    const own = {name: model.name, times: model.times,
                 tracks: tracks.slice(tracks.length - model.tracks.length)};
    own.tracks.forEach(function (track) { track.owner = own; });
    return own;
  });
  function makeTrack(model, track, index, geometries, placement) {
    const group = new THREE.Group();
    const ghost = track.style === 'ghost';
    const colour = ghostColours[index % ghostColours.length];
    const links = model.links.map(function (link) {
      const frame = new THREE.Group();
      link.shapes.forEach(function (shape) {
        const material = ghost
            ? new THREE.MeshStandardMaterial({color: colour, transparent: true, opacity: 0.35,
                                              depthWrite: false})
            : new THREE.MeshStandardMaterial({color: new THREE.Color(shape.rgba[0], shape.rgba[1],
                                                                     shape.rgba[2]),
                                              roughness: 0.6, metalness: 0.1,
                                              transparent: shape.rgba[3] < 1,
                                              opacity: shape.rgba[3]});
        frame.add(shapeObject(shape, material, geometries));
      });
      group.add(frame);
      return frame;
    });
    // Joint separation of solid tracks: a red segment with dots at its ends for each joint off by
    // more than the threshold, drawn over the bodies that would hide it.
    let separation = null;
    if (!ghost) {
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position',
                            new THREE.Float32BufferAttribute(new Array(6 * links.length).fill(0),
                                                             3));
      separation = new THREE.LineSegments(geometry, new THREE.LineBasicMaterial(
          {color: 0xe00000, depthTest: false}));
      const ends = new THREE.Points(geometry, new THREE.PointsMaterial(
          {color: 0xe00000, size: 6, sizeAttenuation: false, depthTest: false}));
      [separation, ends].forEach(function (object) {
        object.frustumCulled = false;
        object.renderOrder = 10;
        group.add(object);
      });
    }
    placement.add(group);
    return {name: track.name, ghost: ghost, colour: colour, frames: track.frames, group: group,
            links: links, separation: separation, model: model};
  }

  // Joint frames and link names (the single-pose view of a model).
  const labels = [];
  if (data.jointFrames) {
    const names = data.models[0].links;
    tracks[0].links.forEach(function (frame, k) {
      frame.add(new THREE.AxesHelper(data.axesSize));
      const canvas = document.createElement('canvas');
      canvas.width = 512;
      canvas.height = 64;
      const context = canvas.getContext('2d');
      context.font = '28px sans-serif';
      context.fillStyle = '#202020';
      context.fillText(names[k].name, 4, 40);
      const sprite = new THREE.Sprite(new THREE.SpriteMaterial({
        map: new THREE.CanvasTexture(canvas),
        depthTest: false
      }));
      sprite.scale.set(data.axesSize * 4, data.axesSize / 2, 1);
      sprite.center.set(0, 0);
      frame.add(sprite);
      labels.push(sprite);
    });
  }

  // Where a joint's parent puts the joint, and how far the child is off it (the model's world):
  // the joints off by more than the threshold, as segments packed at the front of the buffer.
  const parentPose = new THREE.Matrix4(), jointPose = new THREE.Matrix4();
  const pJoint = new THREE.Vector3(), pChild = new THREE.Vector3(), axis = new THREE.Vector3();
  function updateSeparation(track) {
    const geometry = track.separation.geometry;
    const positions = geometry.attributes.position;
    let shown = 0;
    track.model.links.forEach(function (link, k) {
      if (link.check === 'none') return;
      jointPose.compose(new THREE.Vector3().fromArray(link.X_PJ, 0),
                        new THREE.Quaternion().fromArray(link.X_PJ, 3), new THREE.Vector3(1, 1, 1));
      if (link.parent >= 0) {
        parentPose.copy(track.links[link.parent].matrix);
        jointPose.premultiply(parentPose);
      }
      pJoint.setFromMatrixPosition(jointPose);
      pChild.copy(track.links[k].position);
      if (link.check === 'axis') {
        axis.fromArray(link.axis).transformDirection(jointPose);
        pJoint.addScaledVector(axis, pChild.clone().sub(pJoint).dot(axis));
      }
      if (pChild.distanceTo(pJoint) <= data.separation) return;
      positions.setXYZ(2 * shown, pJoint.x, pJoint.y, pJoint.z);
      positions.setXYZ(2 * shown + 1, pChild.x, pChild.y, pChild.z);
      ++shown;
    });
    geometry.setDrawRange(0, 2 * shown);
    positions.needsUpdate = true;
  }

  // Playback state: the frame shown on the timeline (every model's frame times, merged), the
  // time, paused or playing. Each model shows its last frame at or before the time.
  const times = [].concat.apply([], models.map(function (model) { return model.times; }))
      .sort(function (a, b) { return a - b; })
      .filter(function (t, i, all) { return i === 0 || t - all[i - 1] > 1e-9; });
  const last = times.length - 1;
  let frameIndex = 0, time = times[0], playing = times.length > 1, speed = 1;
  function showFrame(i) {
    frameIndex = Math.max(0, Math.min(last, i));
    models.forEach(function (model) {
      const f = frameAt(model.times, times[frameIndex]);
      model.tracks.forEach(function (track) {
        track.links.forEach(function (frame, k) {
          setPose(frame, track.frames[f], 7 * k);
          frame.updateMatrix();
        });
        if (track.separation) updateSeparation(track);
      });
    });
    document.getElementById('time').textContent = 't = ' + times[frameIndex].toFixed(3) + ' s';
    document.getElementById('slider').value = frameIndex;
    if (document.getElementById('follow').checked) followRoot();
  }
  function frameAt(frameTimes, t) {
    let i = 0;
    while (i < frameTimes.length - 1 && frameTimes[i + 1] <= t + 1e-9) ++i;
    return i;
  }

  // The camera: fitted to the first frame; "follow the root" keeps the root link centred.
  const box = new THREE.Box3();
  const target = new THREE.Vector3();
  let controls = null;
  function fitView() {
    box.makeEmpty();
    tracks.forEach(function (track) { box.expandByObject(track.group); });
    if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
    const size = Math.max(box.getSize(new THREE.Vector3()).length(), 0.1);
    box.getCenter(target);
    const side = new THREE.Vector3(1, 0, 0);
    if (Math.abs(side.dot(up)) > 0.9) side.set(0, 1, 0);
    side.addScaledVector(up, -side.dot(up)).normalize();
    const front = new THREE.Vector3().crossVectors(up, side);
    camera.position.copy(target).addScaledVector(side, 1.1 * size)
        .addScaledVector(front, 0.9 * size)
        .addScaledVector(up, 0.6 * size);
    camera.near = size / 100;
    camera.far = size * 100;
    camera.updateProjectionMatrix();
    sun.position.copy(target).addScaledVector(up, 2 * size).addScaledVector(side, size);
    sun.target.position.copy(target);
    const shadow = sun.shadow.camera;
    shadow.left = shadow.bottom = -size;
    shadow.right = shadow.top = size;
    shadow.far = 6 * size;
    shadow.updateProjectionMatrix();
    if (controls) {
      controls.target.copy(target);
      controls.update();
    }
    return size;
  }
  function followRoot() {
    const root = tracks[0].links[0];
    root.updateMatrixWorld(true);
    const shift = new THREE.Vector3().setFromMatrixPosition(root.matrixWorld).sub(controls.target);
    controls.target.add(shift);
    camera.position.add(shift);
  }

  // Ground and world axes, sized to the scene.
  showFrame(0);
  scene.updateMatrixWorld(true);
  const size = fitView();
  const lowest = Math.min(0, box.min.dot(up) - 0.001 * size);
  const ground = new THREE.Mesh(new THREE.PlaneBufferGeometry(20 * size, 20 * size),
                                new THREE.MeshStandardMaterial({color: 0xdcdde0, roughness: 1}));
  ground.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), up);
  ground.position.copy(up).multiplyScalar(lowest);
  ground.receiveShadow = true;
  scene.add(ground);
  const grid = new THREE.GridHelper(20 * size, 40, 0xb0b2b8, 0xc8cace);
  grid.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), up);
  grid.position.copy(ground.position).addScaledVector(up, 0.0005 * size);
  scene.add(grid);
  scene.add(new THREE.AxesHelper(0.25 * size));
  controls = new THREE.OrbitControls(camera, renderer.domElement);
  controls.target.copy(target);
  controls.update();

  // The controls: legend with a toggle per track (under its model's name when there are several),
  // playback, follow, reset.
  const legend = document.getElementById('legend');
  tracks.forEach(function (track, index) {
    if (models.length > 1 && track === track.owner.tracks[0]) {
      const heading = document.createElement('h2');
      heading.textContent = track.owner.name;
      legend.appendChild(heading);
    }
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = true;
    box.id = 'track' + index;
    box.addEventListener('change', function () { track.group.visible = box.checked; });
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = track.ghost ? '#' + track.colour.toString(16).padStart(6, '0')
                                          : 'linear-gradient(90deg,#777,#bbb)';
    label.appendChild(box);
    label.appendChild(swatch);
    label.appendChild(document.createTextNode(track.name + (track.ghost ? ' (ghost)' : '')));
    legend.appendChild(label);
  });
  const slider = document.getElementById('slider');
  slider.max = last;
  slider.addEventListener('input', function () {
    playing = false;
    showFrame(Number(slider.value));
    time = times[frameIndex];
  });
  document.getElementById('play').addEventListener('click', function () {
    if (frameIndex === last) time = times[0];
    playing = !playing;
  });
  document.getElementById('back').addEventListener('click', function () {
    playing = false;
    showFrame(frameIndex - 1);
    time = times[frameIndex];
  });
  document.getElementById('forward').addEventListener('click', function () {
    playing = false;
    showFrame(frameIndex + 1);
    time = times[frameIndex];
  });
  document.getElementById('speed').addEventListener('change', function (event) {
    speed = Number(event.target.value);
  });
  document.getElementById('reset').addEventListener('click', fitView);

  // #t=SECONDS: paused at that instant; &hide=1: every track hidden (the bare scene).
  function readFragment() {
    if (/hide=1/.test(window.location.hash)) {
      tracks.forEach(function (track, index) {
        track.group.visible = false;
        document.getElementById('track' + index).checked = false;
      });
    }
    const match = /t=([0-9.eE+-]+)/.exec(window.location.hash);
    if (!match) return;
    playing = false;
    time = Number(match[1]);
    showFrame(frameAt(times, time));
  }
  window.addEventListener('hashchange', readFragment);
  readFragment();

  // The loop.
  let before = null;
  function resize() {
    const width = view.clientWidth, height = view.clientHeight;
    renderer.setSize(width, height, false);
    camera.aspect = width / Math.max(height, 1);
    camera.updateProjectionMatrix();
  }
  window.addEventListener('resize', resize);
  resize();
  function animate(now) {
    if (before !== null && playing) {
      time += speed * (now - before) / 1000;
      if (time >= times[last]) {
        time = times[last];
        playing = false;
      }
      showFrame(frameAt(times, time));
    }
    before = now;
    document.getElementById('play').textContent = playing ? 'pause' : 'play';
    controls.update();
    renderer.render(scene, camera);
    requestAnimationFrame(animate);
  }
  renderer.render(scene, camera);
  if (!document.body.dataset.status) document.body.dataset.status = 'ready';
  requestAnimationFrame(animate);
})();
