// The allot dashboard: plain JavaScript, fetch + EventSource, no framework. Every section asks the routes the server
// lists in /api/v1/openapi.json; a section whose route is not listed says "not available on this server".
'use strict';

const API = '/api/v1';
const TOKEN_KEY = 'allot.apiToken';
const KINDS = ['member-up', 'member-down', 'leader-changed', 'table-published', 'self-fenced', 'claim-refused',
  'task-status', 'task-failed', 'job-ignored', 'job-retried', 'api-write', 'api-refused'];
const POLL_MS = 2000;
const MAX_EVENTS = 500;
const CHART_POINTS = 90;

const state = {
  routes: new Set(), // the path templates the server lists
  pool: null, // the pool the detail sections show
  members: [],
  table: null,
  queue: null, // the queue whose failures are shown
  history: {}, // queue name -> [{t, todo, processing, failed}]
  events: [],
  lastEventId: null,
  weightsDirty: false,
};

const $ = (sel, root = document) => root.querySelector(sel);
const enc = encodeURIComponent;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c == null ? '' : String(c)));
  return e;
}

function has(template) {
  return state.routes.has(API + template);
}

function say(text, ok) {
  const m = $('#message');
  m.textContent = text;
  m.className = ok ? 'ok' : 'error';
}

/** Shows or hides a section's "not available" line; true when the section can work. */
function available(sectionId, template) {
  const s = document.getElementById(sectionId);
  const ok = has(template);
  const u = $('.unavailable', s);
  u.hidden = ok;
  u.setAttribute('data-testid', 'unavailable');
  u.textContent = ok ? '' : 'not available on this server (no route ' + API + template + ')';
  const a = $('.available', s);
  if (a) a.hidden = !ok;
  return ok;
}

// ---- requests

let tokenWaiter = null;

function askToken() {
  const d = $('#token-dialog');
  d.hidden = false;
  $('#token-input').value = '';
  $('#token-input').focus();
  return new Promise((resolve) => { tokenWaiter = resolve; });
}

function tokenAnswered(token) {
  $('#token-dialog').hidden = true;
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  const w = tokenWaiter;
  tokenWaiter = null;
  if (w) w(token);
}

async function get(path) {
  const r = await fetch(API + path, { headers: { Accept: 'application/json' } });
  if (!r.ok) throw new Error(await errorOf(r));
  return r.json();
}

/** A write; asks for the API token when the server answers 401, and tries once more with it. */
async function write(method, path, body) {
  for (let attempt = 0; ; attempt++) {
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = 'Bearer ' + token;
    const r = await fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (r.status === 401 && attempt < 2) {
      sessionStorage.removeItem(TOKEN_KEY);
      if (!(await askToken())) throw new Error('no API token given');
      continue;
    }
    if (!r.ok) throw new Error(await errorOf(r));
    return r.status === 204 ? {} : r.json();
  }
}

async function errorOf(r) {
  try {
    const j = await r.json();
    return r.status + ': ' + (j.error || JSON.stringify(j));
  } catch (e) {
    return r.status + ' ' + r.statusText;
  }
}

async function act(what, fn) {
  try {
    await fn();
    say(what + ': done', true);
  } catch (e) {
    say(what + ': ' + e.message, false);
  }
}

// ---- pools and members

async function refreshPools() {
  const { pools } = await get('/pools');
  const tbody = $('#pools-table tbody');
  tbody.replaceChildren(...pools.map((p) => el('tr', { 'data-testid': 'pool-row', 'data-pool': p.name },
    el('td', {}, p.name), el('td', { class: 'num' }, p.liveMembers), el('td', { class: 'num' }, p.tasks),
    el('td', { class: 'num' }, p.deleted))));
  const select = $('#pool-select');
  const names = pools.map((p) => p.name);
  if ([...select.options].map((o) => o.value).join('\n') !== names.join('\n')) {
    select.replaceChildren(...names.map((n) => el('option', { value: n }, n)));
    const evPool = $('#events-pool');
    evPool.replaceChildren(el('option', { value: '' }, 'all'), ...names.map((n) => el('option', { value: n }, n)));
  }
  if (!state.pool || !names.includes(state.pool)) {
    state.pool = names[0] || null;
  }
  select.value = state.pool || '';
}

async function refreshMembers() {
  if (!state.pool) return;
  const { members } = await get('/pools/' + enc(state.pool) + '/members');
  state.members = members;
  renderMembers();
}

function unitsHeld(id) {
  if (!state.table) return null;
  const m = (state.table.members || []).find((x) => x.member === id);
  return m ? m.units : 0;
}

function renderMembers() {
  const tbody = $('#members-table tbody');
  tbody.replaceChildren(...state.members.map((m) => {
    const labels = m.labels ? Object.entries(m.labels).map(([k, v]) => k + '=' + v).join(', ') : '';
    const held = unitsHeld(m.id);
    return el('tr', { 'data-testid': 'member-row', 'data-member': m.id, 'data-up': String(m.up) },
      el('td', {}, el('code', {}, m.id)),
      el('td', { class: m.up ? 'up' : 'down', 'data-testid': 'member-state' }, m.up ? 'live' : 'down'),
      el('td', { class: m.judgedBy === 'ping' ? 'num' : 'num lease-countdown', 'data-expires': m.leaseExpiresAt || '', 'data-up': String(m.up) },
        m.judgedBy === 'ping' ? 'by pings' : countdown(m.leaseExpiresAt, m.up)),
      el('td', { class: 'num' }, m.affinity),
      el('td', { class: 'num' }, (m.capacity == null ? '∞' : m.capacity) + ' / ' + m.used),
      el('td', {}, m.version || ''), el('td', {}, m.zone || ''), el('td', {}, labels),
      el('td', { class: 'num', 'data-testid': 'member-units' }, held == null ? '–' : held));
  }));
}

/** The time left of a lease; a live member past its end is being renewed (the next poll shows the new end). */
function countdown(iso, up) {
  if (!iso) return '–';
  const ms = Date.parse(iso) - Date.now();
  if (ms > 0) return (ms / 1000).toFixed(1) + ' s';
  return up ? 'renewing' : 'expired';
}

function tickCountdowns() {
  for (const td of document.querySelectorAll('.lease-countdown')) {
    td.textContent = countdown(td.getAttribute('data-expires'), td.getAttribute('data-up') === 'true');
  }
}

// ---- the table

async function refreshTable() {
  if (!state.pool || !available('table-section', '/pools/{pool}/table')) return;
  const before = new Map((state.table ? state.table.units : []).map((u) => [u.unit, u.member]));
  const t = await get('/pools/' + enc(state.pool) + '/table');
  state.table = t;
  $('#table-epoch').textContent = t.epoch == null ? '–' : t.epoch;
  const tbody = $('#units-table tbody');
  tbody.replaceChildren(...t.units.map((u) => {
    const moved = before.size > 0 && before.has(u.unit) && before.get(u.unit) !== u.member;
    return el('tr', { 'data-testid': 'unit-row', 'data-unit': u.unit, 'data-member': u.member || '',
      'data-owner': u.owner || '', 'data-state': u.state, class: 'state-' + u.state + (moved ? ' moved' : '') },
    el('td', {}, u.unit), el('td', {}, u.member || '—'), el('td', {}, u.owner || '—'),
    el('td', { class: 'num' }, u.token == null ? '' : u.token), el('td', {}, u.state));
  }));
  renderBars(t.members || []);
  renderMembers();
}

/** Load per member against its ideal share: the bar is the units held, the mark the ideal. */
function renderBars(members) {
  const max = Math.max(1, ...members.map((m) => Math.max(m.units, m.ideal)));
  const box = $('#distribution');
  box.replaceChildren();
  for (const m of members) {
    const fill = el('div', { class: 'fill' });
    fill.style.width = (100 * m.units / max) + '%';
    const ideal = el('div', { class: 'ideal', title: 'ideal ' + m.ideal.toFixed(2) });
    ideal.style.left = (100 * m.ideal / max) + '%';
    box.append(el('code', {}, m.member),
      el('div', { class: 'bar', 'data-testid': 'load-bar', 'data-member': m.member, 'data-units': m.units }, fill, ideal),
      el('span', { class: 'num muted' }, m.units + ' / ' + m.ideal.toFixed(1)));
  }
}

// ---- long-running tasks

async function refreshTasks() {
  if (!state.pool || !available('tasks-section', '/pools/{pool}/tasks')) return;
  const { tasks } = await get('/pools/' + enc(state.pool) + '/tasks');
  const tbody = $('#tasks-table tbody');
  tbody.replaceChildren(...tasks.map((t) => {
    const status = t.status + (t.reason ? ' (' + t.reason + ')' : '');
    const live = !t.deletedAt;
    return el('tr', { 'data-testid': 'task-row', 'data-task': t.name, 'data-status': t.status },
      el('td', {}, t.name), el('td', { class: 'status-' + t.status, 'data-testid': 'task-status' }, status),
      el('td', {}, t.owner || '—'), el('td', {}, el('code', { class: 'clip', title: JSON.stringify(t.args) }, JSON.stringify(t.args))),
      el('td', { class: 'num' }, t.cost), el('td', { class: 'down' }, t.lastError || ''),
      el('td', { class: 'actions' }, live ? el('button', { type: 'button', 'data-testid': 'task-edit', onclick: () => editTask(t) },
        'Edit args') : '',
      live ? el('button', { type: 'button', 'data-testid': 'task-delete', onclick: () => deleteTask(t.name) },
        'Delete') : ''));
  }));
}

function parseArgs(text) {
  try {
    return JSON.parse(text || '{}');
  } catch (e) {
    throw new Error('args: not valid JSON: ' + e.message);
  }
}

function createTask(ev) {
  ev.preventDefault();
  const name = $('#task-name').value.trim();
  act('create task ' + name, async () => {
    const body = { name, args: parseArgs($('#task-args').value), cost: Number($('#task-cost').value || 1) };
    await write('POST', '/pools/' + enc(state.pool) + '/tasks', body);
    $('#task-name').value = '';
    await refreshTasks();
  });
}

function editTask(t) {
  $('#task-edit-form').hidden = false;
  $('#task-edit-name').textContent = t.name;
  $('#task-edit-args').value = JSON.stringify(t.args);
  $('#task-edit-args').focus();
}

function saveTaskArgs(ev) {
  ev.preventDefault();
  const name = $('#task-edit-name').textContent;
  act('update task ' + name, async () => {
    await write('PUT', '/pools/' + enc(state.pool) + '/tasks/' + enc(name), { args: parseArgs($('#task-edit-args').value) });
    $('#task-edit-form').hidden = true;
    await refreshTasks();
  });
}

function deleteTask(name) {
  act('delete task ' + name, async () => {
    await write('DELETE', '/pools/' + enc(state.pool) + '/tasks/' + enc(name));
    await refreshTasks();
  });
}

// ---- job queues

async function refreshQueues() {
  if (!available('queues-section', '/queues')) return;
  const { queues } = await get('/queues');
  const now = Date.now();
  for (const q of queues) {
    const h = state.history[q.name] || (state.history[q.name] = []);
    h.push({ t: now, todo: q.todo, processing: q.processing, failed: q.failed });
    if (h.length > CHART_POINTS) h.shift();
  }
  if (!state.queue && queues.length) state.queue = queues[0].name;
  const tbody = $('#queues-table tbody');
  tbody.replaceChildren(...queues.map((q) => el('tr', { 'data-testid': 'queue-row', 'data-queue': q.name,
    class: q.name === state.queue ? 'selected' : '', onclick: () => { state.queue = q.name; refreshQueues(); } },
  el('td', {}, el('a', { href: '#failures-table' }, q.name)), el('td', { class: 'num', 'data-testid': 'queue-todo' }, q.todo),
  el('td', { class: 'num' }, q.processing), el('td', { class: 'num', 'data-testid': 'queue-failed' }, q.failed),
  el('td', { class: 'num' }, q.finished), el('td', { class: 'num' }, q.ignored),
  el('td', { class: 'num' }, q.oldestTodoMs == null ? '–' : (q.oldestTodoMs / 1000).toFixed(1) + ' s'),
  el('td', { class: 'num' }, q.ratePerSecond == null ? '–' : q.ratePerSecond))));
  drawChart();
  if (state.queue && has('/queues/{queue}')) await refreshFailures();
}

/** Counts of the shown queue over time: todo, processing and failed, one line each. */
function drawChart() {
  const c = $('#queue-chart');
  const g = c.getContext('2d');
  g.clearRect(0, 0, c.width, c.height);
  const h = state.history[state.queue] || [];
  const series = [['todo', '#2459c7'], ['processing', '#1a7f37'], ['failed', '#c62828']];
  const max = Math.max(1, ...h.flatMap((p) => series.map(([k]) => p[k])));
  g.strokeStyle = '#e3e6eb';
  g.strokeRect(0.5, 0.5, c.width - 1, c.height - 1);
  for (const [k, color] of series) {
    g.strokeStyle = color;
    g.lineWidth = 2;
    g.beginPath();
    h.forEach((p, i) => {
      const x = (i / Math.max(1, h.length - 1)) * (c.width - 10) + 5; // the points so far fill the width
      const y = c.height - 5 - (p[k] / max) * (c.height - 10);
      if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
    });
    g.stroke();
  }
  $('#queue-chart-legend').textContent = (state.queue || '') + ': todo (blue), processing (green), failed (red); max '
    + max + ', one point per ' + POLL_MS / 1000 + ' s';
}

async function refreshFailures() {
  const q = await get('/queues/' + enc(state.queue));
  $('#failures-queue').textContent = state.queue;
  const tbody = $('#failures-table tbody');
  tbody.replaceChildren(...(q.failures || []).map((f) => el('tr', { 'data-testid': 'failure-row', 'data-key': f.key },
    el('td', {}, el('code', { class: 'clip', title: f.key }, f.key)), el('td', { class: 'num' }, f.attempts), el('td', { class: 'down' }, f.error || ''),
    el('td', {}, f.time || ''),
    el('td', { class: 'actions' }, el('button', { type: 'button', 'data-testid': 'job-retry', onclick: () => jobAction(f.key, 'retry') }, 'Retry'),
      el('button', { type: 'button', 'data-testid': 'job-ignore', onclick: () => jobAction(f.key, 'ignore') }, 'Ignore')))));
}

function jobAction(key, what) {
  act(what + ' job ' + key, async () => {
    await write('POST', '/queues/' + enc(state.queue) + '/jobs/' + enc(key) + '/' + what);
    await refreshQueues();
  });
}

// ---- routing weights

async function refreshWeights(force) {
  if (!state.pool || !available('weights-section', '/pools/{pool}/weights')) return;
  if (state.weightsDirty && !force) return; // never overwrite what is being edited
  const focused = document.activeElement;
  if (!force && focused && focused.classList && focused.classList.contains('weight-input')) return; // nor what has the cursor
  const w = await get('/pools/' + enc(state.pool) + '/weights');
  $('#weights-version').textContent = w.version == null ? '–' : w.version;
  const tbody = $('#weights-table tbody');
  tbody.replaceChildren(...Object.entries(w.weights || {}).map(([k, v]) => el('tr', { 'data-testid': 'weight-row', 'data-key': k },
    el('td', {}, el('code', {}, k)),
    el('td', {}, el('input', { type: 'number', min: '0', class: 'narrow weight-input', 'data-testid': 'weight-input',
      'data-key': k, value: String(v), oninput: () => { state.weightsDirty = true; } })))));
}

function saveWeights(ev) {
  ev.preventDefault();
  const weights = {};
  for (const i of document.querySelectorAll('.weight-input')) weights[i.getAttribute('data-key')] = Number(i.value);
  const k = $('#weight-new-key').value.trim();
  if (k) weights[k] = Number($('#weight-new-value').value || 0);
  act('save weights of ' + state.pool, async () => {
    await write('PUT', '/pools/' + enc(state.pool) + '/weights', { weights });
    state.weightsDirty = false;
    $('#weight-new-key').value = '';
    $('#weight-new-value').value = '';
    await refreshWeights(true);
  });
}

// ---- events

function renderEvents() {
  const pool = $('#events-pool').value;
  const kind = $('#events-kind').value;
  const shown = state.events.filter((e) => (!pool || e.pool === pool) && (!kind || e.kind === kind)).slice(-200).reverse();
  $('#events-table tbody').replaceChildren(...shown.map((e) => el('tr', { 'data-testid': 'event-row',
    'data-kind': e.kind, 'data-pool': e.pool || '', 'data-subject': e.subject || '' },
  el('td', {}, (e.time || '').replace('T', ' ').replace('Z', '')), el('td', {}, e.pool || ''),
  el('td', {}, e.kind), el('td', {}, e.actor || ''), el('td', {}, e.subject || ''), el('td', {}, e.detail || ''))));
}

function addEvent(e) {
  if (state.events.some((x) => x.id === e.id)) return;
  state.events.push(e);
  if (state.events.length > MAX_EVENTS) state.events.shift();
  state.lastEventId = e.id;
  renderEvents();
  if (['member-up', 'member-down', 'table-published'].includes(e.kind)) refreshPoolViews();
}

async function startEvents() {
  if (!available('events-section', '/events')) return;
  const { events } = await get('/events?limit=' + MAX_EVENTS);
  events.forEach(addEvent);
  if (!has('/events/stream')) {
    setInterval(() => get('/events' + (state.lastEventId ? '?after=' + enc(state.lastEventId) : ''))
      .then((r) => r.events.forEach(addEvent)).catch(() => {}), POLL_MS);
    $('#events-live').textContent = 'polled';
    return;
  }
  const src = new EventSource(API + '/events/stream' + (state.lastEventId ? '?after=' + enc(state.lastEventId) : ''));
  src.onopen = () => { $('#events-live').textContent = 'live'; };
  src.onerror = () => { $('#events-live').textContent = 'reconnecting…'; };
  src.onmessage = (m) => {
    try {
      addEvent(JSON.parse(m.data));
    } catch (e) {
      say('events: cannot read ' + m.data, false);
    }
  };
}

// ---- the loop

let refreshing = false;

async function refreshPoolViews() {
  if (refreshing) return;
  refreshing = true;
  try {
    await refreshPools();
    await Promise.all([refreshMembers(), refreshTable(), refreshTasks()]);
    $('#conn-state').textContent = 'live';
    $('#conn-state').className = 'up';
  } catch (e) {
    $('#conn-state').textContent = 'server unreachable: ' + e.message;
    $('#conn-state').className = 'down';
  } finally {
    refreshing = false;
  }
}

function quietly(p) {
  return p.catch((e) => { $('#conn-state').textContent = 'server unreachable: ' + e.message; });
}

async function main() {
  $('#events-kind').append(...KINDS.map((k) => el('option', { value: k }, k)));
  $('#task-create-form').addEventListener('submit', createTask);
  $('#task-edit-form').addEventListener('submit', saveTaskArgs);
  $('#task-edit-cancel').addEventListener('click', () => { $('#task-edit-form').hidden = true; });
  $('#weights-form').addEventListener('submit', saveWeights);
  $('#token-dialog').addEventListener('submit', (e) => { e.preventDefault(); tokenAnswered($('#token-input').value.trim()); });
  $('#token-cancel').addEventListener('click', () => tokenAnswered(null));
  $('#events-pool').addEventListener('change', renderEvents);
  $('#events-kind').addEventListener('change', renderEvents);
  $('#pool-select').addEventListener('change', (e) => {
    state.pool = e.target.value;
    state.table = null;
    state.weightsDirty = false;
    refreshPoolViews();
    quietly(refreshWeights(true));
  });
  fetch('/version').then((r) => (r.ok ? r.text() : '')).then((v) => { $('#server-version').textContent = v.trim(); })
    .catch(() => {});
  try {
    const doc = await (await fetch(API + '/openapi.json')).json();
    state.routes = new Set(Object.keys(doc.paths || {}));
  } catch (e) {
    state.routes = new Set(); // no API on this server: every section says so
  }
  const membersOk = available('members-section', '/pools/{pool}/members');
  available('tasks-section', '/pools/{pool}/tasks');
  available('table-section', '/pools/{pool}/table');
  available('queues-section', '/queues');
  available('weights-section', '/pools/{pool}/weights');
  available('events-section', '/events');
  if (membersOk) {
    await refreshPoolViews();
    setInterval(refreshPoolViews, POLL_MS);
  }
  quietly(refreshWeights(true));
  setInterval(() => quietly(refreshWeights(false)), 5 * POLL_MS);
  quietly(refreshQueues());
  setInterval(() => quietly(refreshQueues()), POLL_MS);
  quietly(startEvents());
  setInterval(tickCountdowns, 250);
  document.body.setAttribute('data-ready', 'true');
}

document.addEventListener('DOMContentLoaded', main);
