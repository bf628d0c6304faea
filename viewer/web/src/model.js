// The three trees' shapes, built once from the report header: children
// lists, labels, and the process tree (host nodes over locations).

function childrenOf(parents) {
  const children = parents.map(() => []);
  const roots = [];
  parents.forEach((parent, row) => (parent >= 0 && parent < row ? children[parent].push(row) : roots.push(row)));
  return { roots, children };
}

export function buildModel(header) {
  const metricTree = childrenOf(header.metrics.map((m) => m.parent));
  const callTree = childrenOf(header.callpaths.parent);
  const callpathCount = header.callpaths.parent.length;
  // Several roots (e.g. MPI calls of a program without compiler hooks) get a
  // virtual root above them, so the whole program can be selected at once.
  const allId = callTree.roots.length > 1 ? callpathCount : null;
  if (allId !== null) {
    callTree.children.push(callTree.roots);
    callTree.roots = [allId];
  }
  const regionOf = (c) => (c === allId ? { name: 'All call paths', file: '', line: 0, paradigm: 'all' }
    : header.regions[header.callpaths.region[c]] ?? { name: '?', file: '', line: 0 });

  // The root metric of each metric row, for "% of root".
  const metricRoot = header.metrics.map((m, i) => i);
  header.metrics.forEach((m, i) => { if (m.parent >= 0 && m.parent < i) metricRoot[i] = metricRoot[m.parent]; });

  // Process tree: one group per host node over its locations; ids of groups
  // follow the location rows (group g has id locations.length + g).
  const locations = header.locations;
  const groupIds = new Map();
  const processChildren = locations.map(() => []);
  const processRoots = [];
  const groupNames = [];
  locations.forEach((l, i) => {
    const node = l.node || 'localhost';
    if (!groupIds.has(node)) {
      groupIds.set(node, locations.length + groupNames.length);
      groupNames.push(node);
      processChildren.push([]);
      processRoots.push(groupIds.get(node));
    }
    processChildren[groupIds.get(node)].push(i);
  });
  const threaded = locations.some((l) => l.thread !== 0);
  // Comparing two runs, rows only the other run has (its own call paths,
  // metrics and processes, appended after this run's) are marked.
  const callpathOtherOnly = (c) => header.callpaths.other_only_from !== undefined
    && c >= header.callpaths.other_only_from && c < callpathCount;
  const locationOtherOnly = (l) => Boolean(locations[l]?.other_only);
  const processOtherOnly = (id) => (id < locations.length ? locationOtherOnly(id)
    : processChildren[id].every(locationOtherOnly));
  const OTHER_ONLY = '\nonly in the other run';
  const locationName = (i) => locations[i].name || (threaded
    ? `rank ${locations[i].rank}, thread ${locations[i].thread}` : `rank ${locations[i].rank}`);

  const pathOf = (c) => {
    if (c === allId) return regionOf(c).name;
    const names = [];
    for (let p = c; p >= 0; p = header.callpaths.parent[p]) names.push(regionOf(p).name);
    return names.reverse().join(' › ');
  };

  return {
    header,
    metrics: header.metrics,
    metricTree,
    metricRoot,
    metricSubtree(m) {
      const rows = [m];
      for (let i = 0; i < rows.length; ++i) rows.push(...metricTree.children[rows[i]]);
      return rows;
    },
    callTree,
    callpathCount,
    /** The virtual root's id (callpathCount) or null; the API calls it "all". */
    allId,
    /** Rows of the call tree including the virtual root. */
    callNodeCount: callpathCount + (allId === null ? 0 : 1),
    callpathLabel: (c) => regionOf(c).name,
    callpathTitle(c) {
      const r = regionOf(c);
      const where = r.file ? `\n${r.file}${r.line ? `:${r.line}` : ''}` : '';
      return `${pathOf(c)}${where}\n(${r.paradigm || 'unknown'})${callpathOtherOnly(c) ? OTHER_ONLY : ''}`;
    },
    callpathPath: pathOf,
    callpathOtherOnly,
    metricOtherOnly: (m) => Boolean(header.metrics[m]?.other_only),
    metricTitle(m) {
      const metric = header.metrics[m];
      return `${metric.name} (${metric.unit}): ${metric.description}${metric.other_only ? OTHER_ONLY : ''}`;
    },
    processOtherOnly,
    processTitle: (id) => `${id < locations.length ? locationName(id) : groupNames[id - locations.length]}`
      + `${processOtherOnly(id) ? OTHER_ONLY : ''}`,
    callpathAncestors(c) {
      const out = [];
      if (c === allId) return out;
      for (let p = header.callpaths.parent[c]; p >= 0; p = header.callpaths.parent[p]) out.push(p);
      if (allId !== null) out.push(allId);
      return out;
    },
    processTree: { roots: processRoots, children: processChildren },
    processNodeCount: processChildren.length,
    locationCount: locations.length,
    processLabel: (id) => (id < locations.length ? locationName(id) : groupNames[id - locations.length]),
    locationName,
  };
}

/** Call paths whose region name contains the query, with ancestors and descendants. */
export function filterCallpaths(model, query) {
  const q = query.trim().toLowerCase();
  if (!q) return { visible: null, match: null, forced: null };
  const match = new Set();
  for (let c = 0; c < model.callpathCount; ++c) {
    if (model.callpathLabel(c).toLowerCase().includes(q)) match.add(c);
  }
  // Ancestors of a match are shown open, so every match is in sight.
  const forced = new Set();
  for (const c of match) for (const a of model.callpathAncestors(c)) forced.add(a);
  const visible = new Set([...match, ...forced]);
  const stack = [...match];
  while (stack.length) {
    for (const child of model.callTree.children[stack.pop()]) {
      if (!visible.has(child)) { visible.add(child); stack.push(child); }
    }
  }
  return { visible, match, forced };
}

/**
 * Short labels for call paths: the last two names of each path, lengthened
 * (more ancestors) where two would read the same, and numbered if whole paths do.
 */
export function distinctPathLabels(paths) {
  const parts = paths.map((p) => p.split(' › '));
  const depth = parts.map(() => 2);
  const label = (i) => parts[i].slice(-depth[i]).join(' › ');
  for (let round = 0; round < 64; ++round) {
    const seen = new Map();
    parts.forEach((_, i) => seen.set(label(i), [...(seen.get(label(i)) ?? []), i]));
    let changed = false;
    for (const group of seen.values()) {
      if (group.length < 2) continue;
      for (const i of group) {
        if (depth[i] < parts[i].length) { depth[i] += 1; changed = true; }
      }
    }
    if (!changed) break;
  }
  const counts = new Map();
  return parts.map((_, i) => {
    const text = label(i);
    const n = (counts.get(text) ?? 0) + 1;
    counts.set(text, n);
    return n === 1 ? text : `${text} (${n})`;
  });
}
